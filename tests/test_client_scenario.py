"""clients/scenario.json, run with the Python SDK (`engram.AsyncClient`).

The TypeScript, Go and Java suites run the same file (scripts/test-clients); a
client whose behaviour differs fails. Here the server and the two tenants come
from the suite's fixtures, or from `ENGRAM_TEST_SERVER` when scripts/test-clients
shares its server.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

import engram
from engram.v1 import recall_pb2, recall_pb2_grpc

from tests.conftest import MakeTenant, RunningServer, open_channel

SCENARIO = Path(__file__).resolve().parent.parent / "clients" / "scenario.json"
VARIABLE = re.compile(r"\$\{(\w+)\}")


def substitute(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return VARIABLE.sub(lambda m: names[m.group(1)], value)
    if isinstance(value, list):
        return [substitute(v, names) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, names) for k, v in value.items()}
    return value


async def perform(
    client: engram.AsyncClient, recall: Any, call: str, a: dict[str, Any]
) -> dict[str, Any]:
    if call == "set_policy":
        policy = await client.set_policy(
            engram.Policy(min_confidence=a["min_confidence"]), space=a["space"]
        )
        return {"policy": policy.name}
    if call == "propose":
        result = await client.propose(
            a["space"], a["content"], confidence=a["confidence"], tags=a.get("tags", ())
        )
        assert result.memory is not None
        return {
            "outcome": result.outcome.name,
            "status": result.memory.status.name,
            "memory": result.memory.name,
        }
    if call == "confirm":
        memory = await client.confirm(a["memory"], a["reason"])
        return {"memory": memory.name, "status": memory.status.name}
    if call == "get":
        memory = await client.get(a["memory"])
        return {"memory": memory.name, "status": memory.status.name}
    if call == "recall":
        # The SDK has no recall method yet: the generated stub, with the same key.
        response = await recall.Recall(
            recall_pb2.RecallRequest(
                query=a["query"],
                spaces=a["spaces"],
                consistency=recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES,
            )
        )
        return {"top": response.hits[0].memory.name if response.hits else ""}
    if call == "watch":
        events = client.watch(a["space"], a["statuses"], a["cursor"])
        try:
            async for event in events:
                return {"memory": event.entry.memory, "status": event.entry.to_status.name}
        finally:
            await events.aclose()  # type: ignore[attr-defined]
        return {}
    if call == "append_message":
        appended = await client.append_message(
            a["space"], a["session"], a["content"], role=a["role"]
        )
        return {"buffered_messages": appended.buffered_messages}
    raise AssertionError(f"unknown call {call}")


SHARED = os.environ.get("ENGRAM_TEST_SERVER")


if SHARED:
    # scripts/test-clients: the server every language's suite runs against.
    async def test_the_shared_scenario_on_the_shared_server() -> None:
        info = json.loads(SHARED or "{}")
        await run_scenario(info["address"], {name: t["key"] for name, t in info["tenants"].items()})

else:

    async def test_the_shared_scenario(server: RunningServer, make_tenant: MakeTenant) -> None:
        a, b = await make_tenant(), await make_tenant()
        await run_scenario(server.address, {"A": a.secret, "B": b.secret})


async def run_scenario(address: str, keys: dict[str, str]) -> None:
    steps = json.loads(SCENARIO.read_text())["steps"]
    names = {"space": f"clients/python-{secrets.token_hex(4)}"}
    clients = {tenant: engram.AsyncClient(address, key) for tenant, key in keys.items()}
    channels = {tenant: open_channel(address, key) for tenant, key in keys.items()}
    recall = {t: recall_pb2_grpc.RecallServiceStub(ch) for t, ch in channels.items()}
    try:
        for step in steps:
            args = substitute(step["args"], names)
            expect = substitute(step["expect"], names)
            try:
                tenant = step["tenant"]
                observed = await perform(clients[tenant], recall[tenant], step["call"], args)
            except engram.EngramError as error:
                assert "error" in expect, f"{step['step']}: unexpected {error}"
                fields = error.fields if isinstance(error, engram.InvalidArgument) else []
                observed = {"error": error.code.name, "fields": fields}
            for key, want in expect.items():
                if key == "field":
                    assert want in observed["fields"], f"{step['step']}: {observed}"
                else:
                    assert observed.get(key) == want, f"{step['step']}: {key} in {observed}"
            if "save" in step:
                names[step["save"]] = observed["memory"]
    finally:
        for client in clients.values():
            await client.close()
        for channel in channels.values():
            await channel.close()
