"""`engram dream`: the Dream State curation pass over one space, over gRPC.

engram dream --space S                 report what a pass would change (dry run)
engram dream --space S --apply         perform it (each change audited)
             [--max-ratio R] [--llm] [--policy TEXT | --policy-file PATH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import grpc
from engram import _auth, errors
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc
from google.protobuf import json_format

from engram_server.cli import common
from engram_server.cli.common import Commands, UsageError


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "dream",
        help="curate a space: merge duplicates, enrich tags, relate memories",
        description=(
            "Runs the Dream State pass over one space. Without --apply it only reports the "
            "actions (nothing changes); with --apply it performs them, each as an audited "
            "lifecycle change. OFFICIAL and pinned memories are never changed, and at most "
            "--max-ratio of the space's memories are deprecated per run. Needs a key with "
            "the operator scope."
        ),
        parents=[parent],
    )
    p.add_argument("--space", required=True, help="the space to curate")
    p.add_argument("--apply", action="store_true", help="perform the actions (default: dry run)")
    p.add_argument(
        "--max-ratio",
        type=float,
        default=0.0,
        help="largest share of the space deprecated in one run, in (0, 1] (default 0.1)",
    )
    p.add_argument("--llm", action="store_true", help="let the configured LLM review the plan")
    policy = p.add_mutually_exclusive_group()
    policy.add_argument("--policy", default="", help="deployment policy text for the LLM")
    policy.add_argument("--policy-file", help="read the deployment policy text from a file")
    p.set_defaults(handler=dream)


def dream(args: argparse.Namespace) -> int:
    if not 0.0 <= args.max_ratio <= 1.0:
        raise UsageError("--max-ratio must be in (0, 1]")
    policy_text = Path(args.policy_file).read_text() if args.policy_file else args.policy
    client = common.make_client(args)
    try:
        stub = lifecycle_pb2_grpc.LifecycleServiceStub(client.channel)
        metadata = _auth.auth_metadata(_auth.resolve_api_key(args.api_key))
        try:
            response = stub.Dream(
                lifecycle_pb2.DreamRequest(
                    space=args.space,
                    dry_run=not args.apply,
                    max_deprecation_ratio=args.max_ratio,
                    policy_text=policy_text,
                    use_llm=args.llm,
                ),
                timeout=args.timeout,
                metadata=metadata,
            )
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error
    finally:
        client.close()
    actions = [action_fields(a) for a in response.actions]
    if args.json:
        print(json.dumps({"applied": response.applied, "actions": actions}))
        return 0
    verb = "applied" if response.applied else "proposed (dry run; --apply to perform)"
    print(f"{len(actions)} action(s) {verb}")
    for a in actions:
        print(f"{a['action']:<9} {' '.join(a['memories'])}  {a['reason']}")
    return 0


def action_fields(a: lifecycle_pb2.DreamAction) -> dict[str, Any]:
    return {
        "action": a.action,
        "memories": list(a.memories),
        "reason": a.reason,
        "detail": json_format.MessageToDict(a.detail) if a.HasField("detail") else {},
    }
