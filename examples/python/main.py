"""Engram from Python, start to end: propose a memory, recall it, share it through
a pool, and watch the space's transitions. Run it against a server (scripts/dev
prints the address and a dev key), from the root of a clone:

    export ENGRAM_ADDRESS=127.0.0.1:50051 ENGRAM_API_KEY=$(cat .engram/dev-key)
    .venv/bin/python examples/python/main.py

Elsewhere, install the SDK first: `pip install /path/to/engram` (the distribution
engram-grpc, imported as `engram`). The key needs the read and write scopes (the
dev key has them). Every run works in a space and a pool of its own, so it can run
again and again.
"""

from __future__ import annotations

import secrets

import engram

QUERY = "When does staging restart?"


def main() -> None:
    run = secrets.token_hex(4)
    space = f"examples/python-{run}"
    with engram.Client() as client:  # ENGRAM_ADDRESS, ENGRAM_API_KEY
        # 1. Propose: the policy decides; a confident proposal is ACCEPTED.
        result = client.propose(
            space,
            "The staging cluster restarts every night at 02:00.",
            confidence=0.9,
            tags=["ops"],
        )
        memory = result.memory
        print(f"proposed: {result.outcome} {memory.name}")

        # 2. Recall: read-your-writes, so the memory just written is found at once.
        for hit in client.recall(QUERY, spaces=[space], read_your_writes=True).hits:
            print(f"recalled: {hit.score:.2f} {hit.memory.content}")

        # 3. Share: a pool of this run; its creator is its owner and may publish.
        pool = client.pools.create(
            "Ops knowledge (Python example)", pool_id=f"examples-python-{run}"
        )
        published = client.pools.publish(pool.name, memory.name)
        print(f"published: {published.outcome} to {pool.name}")
        for hit in client.pools.recall(QUERY, [pool.name], read_your_writes=True).hits:
            print(f"through {hit.pool}: {hit.memory.content}")

        # 4. Watch: replay the space's transitions from the start (cursor "0"), and
        # stop at the one that made the memory ACTIVE; without the break it waits
        # for more.
        for event in client.watch(space=space, cursor="0"):
            print(f"watched: {event.entry.to_status} {event.entry.memory}")
            if event.entry.memory == memory.name and event.entry.to_status == "ACTIVE":
                break


if __name__ == "__main__":
    main()
