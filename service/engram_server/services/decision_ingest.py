"""IngestCommits: commits mined into decisions.

Ingest: each commit of a batch is screened by the privacy boundary, mined
(`decisions.extract`), and grouped by its sha-free identity. New decisions get a
backing memory of kind DECISION through the lifecycle write path (validators,
dedup, audit) in the repository's decision space; then one transaction writes
the decisions, their anchors, every commit's record (what it became, or why it
held none) and its hunks. A commit is recorded as ingested only in that
transaction, so an interrupted ingest leaves it un-ingested and the next run
completes it (its memory is then found as a DUPLICATE and linked): never half
a commit. Reverts then supersede the decisions they reverse through the
lifecycle's audited transition.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import psycopg

from engram_server.decisions import ranking
from engram_server.decisions.anchors import hunk_positions
from engram_server.decisions.extract import mine
from engram_server.decisions.identity import check_repository, default_space, normalise_title
from engram_server.decisions.model import (
    Anchor,
    ChangeType,
    Commit,
    CommitResult,
    Decision,
    Disposition,
    Draft,
    Evidence,
)
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.model import Memory, Status
from engram_server.lifecycle.validation import check_request_id, check_space
from engram_server.platform.principal import Principal
from engram_server.privacy import PrivacyFinding, Screened
from engram_server.services.decision_inputs import (
    INGEST_ATTEMPTS,
    MAX_COMMITS,
    CommitInput,
    IngestOutcome,
    now,
)
from engram_server.services.decision_writes import DecisionWrites
from engram_server.services.lifecycle import RequestKey
from engram_server.services.privacy_gate import screen_text
from engram_server.store import decision_search as search_store
from engram_server.store import decisions as store
from engram_server.store import memories as memory_store
from engram_server.store.postgres import Conn


class DecisionIngest(DecisionWrites):
    """IngestCommits: screen, mine, group by identity, store in one transaction."""

    async def ingest(
        self,
        principal: Principal,
        repository: str,
        space: str,
        inputs: Sequence[CommitInput],
        reprocess: bool,
        key: RequestKey | None,
        drafts_for: Any | None = None,
        use_llm: bool = False,
    ) -> IngestOutcome:
        v = Violations()
        check_repository(v, "repository", repository)
        if space:
            check_space(v, "space", space)
        if not inputs:
            v.add("commits", "at least one commit is required")
        elif len(inputs) > MAX_COMMITS:
            v.add("commits", f"at most {MAX_COMMITS} commits per call")
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        if drafts_for is None and use_llm:
            drafts_for = await self.llm_miner(principal.tenant_id)
        if all(i.commit is None for i in inputs):
            raise InvalidArgument(
                [InvalidArgument.field(f, d).violations[0] for i in inputs for f, d in i.violations]
            )
        space = space or default_space(repository)
        tenant = principal.tenant_id
        replay = await self.lifecycle._peek(tenant, key)
        if replay is not None:
            return await self._replayed(tenant, replay)
        for attempt in range(INGEST_ATTEMPTS):
            try:
                outcome = await self._ingest_once(
                    principal, repository, space, inputs, reprocess, key, drafts_for
                )
                break
            except psycopg.errors.UniqueViolation:
                # A concurrent ingest created one of these decisions first: run
                # again, and this batch joins it.
                if attempt == INGEST_ATTEMPTS - 1:
                    raise
        if key is not None:
            async with self.db.tenant_tx(tenant) as conn:
                prior = await self.lifecycle._replay(conn, tenant, key)
                if prior is None:
                    await memory_store.save_request_result(conn, key.request_id, _record(outcome))
        return outcome

    async def _replayed(self, tenant: str, record: dict[str, Any]) -> IngestOutcome:
        ids = [uuid.UUID(i) for i in record["decisions"]]
        async with self.db.tenant_tx(tenant) as conn:
            found = await store.get_decisions(conn, ids)
        out = IngestOutcome(decisions=[found[i] for i in ids if i in found])
        for name in _COUNTS:
            setattr(out, name, int(record[name]))
        out.commits = [
            CommitResult(
                c["index"],
                c["sha"],
                Disposition(c["disposition"]),
                c["reason"],
                uuid.UUID(c["decision"]) if c["decision"] else None,
                tuple((f, d) for f, d in c["violations"]),
            )
            for c in record["commits"]
        ]
        return out

    async def _ingest_once(
        self,
        principal: Principal,
        repository: str,
        space: str,
        inputs: Sequence[CommitInput],
        reprocess: bool,
        key: RequestKey | None,
        drafts_for: Any | None,
    ) -> IngestOutcome:
        tenant = principal.tenant_id
        out = IngestOutcome()
        results: dict[int, CommitResult] = {}
        valid = [i for i in inputs if i.commit is not None]
        for i in inputs:
            if i.commit is None:
                results[i.index] = CommitResult(
                    i.index, i.sha, Disposition.INVALID, "bad input", None, i.violations
                )
                out.invalid += 1
        async with self.db.tenant_tx(tenant) as conn:
            known = await store.known_commits(
                conn, repository, [i.commit.sha for i in valid if i.commit]
            )
        fresh: list[CommitInput] = []
        seen: set[str] = set()
        for i in valid:
            assert i.commit is not None
            sha = i.commit.sha
            if (sha in known and not reprocess) or sha in seen:
                prior = known.get(sha)
                results[i.index] = CommitResult(
                    i.index,
                    sha,
                    Disposition.ALREADY_INGESTED,
                    prior.reason if prior else "sent twice in this batch",
                    prior.decision_id if prior else None,
                )
                out.skipped += 1
                continue
            seen.add(sha)
            fresh.append(i)

        # Privacy boundary first: nothing unscreened is mined, quoted or stored.
        screened: list[tuple[CommitInput, Commit]] = []
        atoms: dict[str, Screened] = {}
        for i in fresh:
            assert i.commit is not None
            commit, findings = await self._screen(
                tenant, space, i.commit, f"commits[{i.index}]", atoms
            )
            out.findings.extend(findings)
            screened.append((i, commit))

        mined: list[tuple[CommitInput, Commit, Draft | None, str, str]] = []
        for i, commit in screened:
            if drafts_for is not None:
                draft, skip_reason, replaces = await drafts_for(commit)
            else:
                m = mine(commit)
                draft, skip_reason, replaces = (
                    m.draft,
                    m.skip.reason if m.skip else "",
                    m.replaces,
                )
            mined.append((i, commit, draft, skip_reason, replaces))

        # A revert of a commit that held no decision is noise too.
        targets = [d.reverts for _, _, d, _, _ in mined if d is not None and d.reverts]
        async with self.db.tenant_tx(tenant) as conn:
            target_records = await store.known_commits(
                conn, repository, [t for t in targets if len(t) >= 40]
            )
        batch_skips = {c.sha: r for _, c, d, r, _ in mined if d is None}
        final: list[tuple[CommitInput, Commit, Draft | None, str, str]] = []
        for i, commit, draft, reason, replaces in mined:
            if draft is not None and draft.reverts:
                target = target_records.get(draft.reverts)
                if (target is not None and target.disposition == Disposition.NO_DECISION) or (
                    draft.reverts in batch_skips
                ):
                    reason = f"reverts {draft.reverts[:12]}, which held no decision"
                    draft = None
            final.append((i, commit, draft, reason, replaces))

        # Group by identity: rebased copies of one commit in one batch are one decision.
        groups: dict[str, list[tuple[CommitInput, Commit, Draft]]] = {}
        for i, commit, draft, _, _ in final:
            if draft is not None:
                groups.setdefault(draft.identity, []).append((i, commit, draft))
        async with self.db.tenant_tx(tenant) as conn:
            existing = await store.by_identity(conn, repository, list(groups))
            restored = await self._restored(conn, repository, groups)

        merged: dict[str, Draft] = {}
        for identity, members in groups.items():
            draft = members[0][2]
            for _, _, other in members[1:]:
                draft = _merge(draft, other)
            if draft.restores_title and not draft.rationale:
                source = restored.get(normalise_title(draft.restores_title))
                if source is not None:
                    draft = replace(
                        draft,
                        title=source.title,
                        statement=source.statement,
                        rationale=source.rationale,
                        alternatives=source.alternatives,
                        evidence=(*source.evidence, *draft.evidence),
                    )
            merged[identity] = draft

        # Backing memories for new decisions (and for ones whose memory vanished).
        new_identities = [i for i in merged if i not in existing]
        memories, refusals = await self._propose(
            principal, repository, space, merged, new_identities, screened=True
        )

        decision_ids: dict[str, uuid.UUID] = {}
        decision_id: uuid.UUID | None
        new_rows: list[store.NewDecision] = []
        updates: list[tuple[uuid.UUID, dict[str, Any]]] = []
        anchors: list[tuple[uuid.UUID, Anchor]] = []
        async with self.db.tenant_tx(tenant) as conn:
            linked = await store.by_memories(
                conn, [m.id for m in memories.values() if m is not None]
            )
        for identity, draft in merged.items():
            held = existing.get(identity)
            memory = memories.get(identity)
            if held is None and memory is not None and memory.id in linked:
                held = linked[memory.id]  # the memory already backs a decision
            if held is not None:
                decision_ids[identity] = held.id
                changes = _growth(held, draft, reprocess)
                if changes:
                    updates.append((held.id, changes))
                    out.updated += 1
            elif memory is not None:
                decision_id = uuid.uuid4()
                decision_ids[identity] = decision_id
                new_rows.append(
                    store.NewDecision(
                        decision_id,
                        repository,
                        identity,
                        space,
                        memory.id,
                        draft.title,
                        draft.statement,
                        draft.rationale,
                        draft.question,
                        draft.alternatives,
                        draft.evidence,
                        draft.commits,
                        draft.decision_time,
                        draft.author,
                        draft.tags,
                        draft.origin,
                        draft.expectations,
                    )
                )
                out.created += 1
            if identity in decision_ids:
                anchors.extend((decision_ids[identity], a) for a in draft.anchors)

        commit_rows: list[store.CommitRow] = []
        change_rows: list[store.FileChangeRow] = []
        documents: list[search_store.DocumentRow] = []
        replaced: list[tuple[str, str]] = []  # (superseding identity, sha it replaces)
        for i, commit, draft, reason, replaces in final:
            decision_id = decision_ids.get(draft.identity) if draft is not None else None
            if draft is not None and decision_id is None:
                reason = refusals.get(draft.identity, "the decision's memory was not stored")
            disposition = Disposition.DECISION if decision_id else Disposition.NO_DECISION
            if disposition == Disposition.DECISION and i.notes and not reason:
                reason = "; ".join(i.notes)
            if disposition == Disposition.NO_DECISION:
                out.without_decision += 1
            out.processed += 1
            results[i.index] = CommitResult(i.index, commit.sha, disposition, reason, decision_id)
            commit_rows.append(
                store.CommitRow(
                    commit.sha,
                    commit.parents,
                    commit.author_time,
                    commit.time,
                    disposition,
                    decision_id,
                    reason,
                )
            )
            change_rows.extend(_file_rows(commit))
            if decision_id is not None:
                documents.append(
                    search_store.DocumentRow(
                        commit.sha, decision_id, commit.time, ranking.document_terms(commit)
                    )
                )
            if draft is not None and decision_id is not None:
                if draft.reverts:
                    replaced.append((draft.identity, draft.reverts))
                if replaces:
                    replaced.append((draft.identity, replaces))

        # One transaction, pipelined (nothing in it reads a result): the commits are
        # recorded with their decisions or not at all.
        stored_at = now()
        async with self.db.tenant_tx(tenant, pipeline=True) as conn:
            await store.insert_decisions(conn, tenant, new_rows, stored_at)
            for decision_id, changes in updates:
                await store.update_decision(conn, decision_id, changes)
            await store.save_anchors(conn, tenant, repository, anchors)
            await store.save_commits(
                conn, tenant, repository, commit_rows, replace=reprocess, space=space
            )
            await store.save_file_changes(conn, tenant, repository, change_rows, space)
            await search_store.save_documents(conn, tenant, repository, documents)

        reversed_ids: set[uuid.UUID] = set()
        for identity, target_sha in replaced:
            reversed_id = await self._supersede(
                principal, repository, target_sha, decision_ids[identity]
            )
            if reversed_id is not None:
                reversed_ids.add(reversed_id)

        # The answer's decisions: new ones as written (no second read of rows this
        # call just sent); updated ones, and ones a revert of this batch reversed,
        # read back.
        written = {r.id: _as_stored(r, memories[r.identity], anchors, stored_at) for r in new_rows}
        reread = ({d for d, _ in updates} | reversed_ids) & set(decision_ids.values())
        if reread:
            async with self.db.tenant_tx(tenant) as conn:
                written.update(await store.get_decisions(conn, list(reread)))
        touched = list(dict.fromkeys(decision_ids.values()))
        out.decisions = [written[d] for d in touched if d in written]
        out.commits = [results[k] for k in sorted(results)]
        return out

    async def _screen(
        self,
        tenant: str,
        space: str,
        commit: Commit,
        path: str,
        atoms: dict[str, Screened] | None = None,
    ) -> tuple[Commit, list[PrivacyFinding]]:
        """The commit with every text it carries screened for `space`: message,
        author, excerpts as conversation (a credential drops its sentence), paths
        and hunk sections as atoms (a path carrying a credential drops its file,
        a section its symbol). `atoms` caches atom results across the commits of
        one call (a path recurs in many commits; screening is deterministic)."""
        findings: list[PrivacyFinding] = []
        atoms = {} if atoms is None else atoms

        async def clean(text: str, field_path: str) -> str:
            if not text:
                return text
            screened = await screen_text(
                self.lifecycle, tenant, space, text, field_path, sentences=True
            )
            findings.extend(screened.findings)
            return screened.text or ""

        async def atom(text: str, field_path: str) -> str | None:
            if not text:
                return text
            screened = atoms.get(text)
            if screened is None:
                screened = await screen_text(
                    self.lifecycle, tenant, space, text, field_path, sentences=False
                )
                atoms[text] = screened
            findings.extend(replace(f, field=field_path) for f in screened.findings)
            return screened.text

        message = await clean(commit.message, f"{path}.message")
        author = await clean(commit.author_name, f"{path}.author_name")
        excerpt = await clean(commit.diff_excerpt, f"{path}.diff_excerpt")
        files = []
        for fi, f in enumerate(commit.files):
            fp = f"{path}.files[{fi}]"
            new_path = await atom(f.path, f"{fp}.path")
            old_path = await atom(f.old_path, f"{fp}.old_path")
            if new_path is None or old_path is None:
                continue  # a credential in a path: the file is not mined or stored
            added, removed = f.added_symbols, f.removed_symbols
            if added or removed:
                # Names are screened as one atom per file: a credential-like name
                # drops the file's names, never its hunks.
                names = await atom(" ".join((*added, *removed)), f"{fp}.added_symbols")
                if names is None or names != " ".join((*added, *removed)):
                    added, removed = (), ()
            hunks = []
            for hi, h in enumerate(f.hunks):
                text = await clean(h.excerpt, f"{fp}.hunks[{hi}].excerpt")
                section = await atom(h.section, f"{fp}.hunks[{hi}].section") or ""
                if text != h.excerpt or section != h.section:
                    h = replace(h, excerpt=text, section=section)
                hunks.append(h)
            files.append(
                replace(
                    f,
                    path=new_path,
                    old_path=old_path,
                    hunks=tuple(hunks),
                    added_symbols=added,
                    removed_symbols=removed,
                )
            )
        return (
            replace(
                commit,
                message=message,
                author_name=author,
                diff_excerpt=excerpt,
                files=tuple(files),
            ),
            findings,
        )

    async def _restored(
        self,
        conn: Conn,
        repository: str,
        groups: dict[str, list[tuple[CommitInput, Commit, Draft]]],
    ) -> dict[str, Decision]:
        """For restores (a revert of a revert): the latest decision of the restored title."""
        titles = {
            normalise_title(m[2].restores_title)
            for members in groups.values()
            for m in members
            if m[2].restores_title
        }
        out: dict[str, Decision] = {}
        for title in titles:
            listed = await store.list_decisions(
                conn,
                store.DecisionFilter(repository=repository, include_superseded=True),
                None,
                200,
            )
            for d in listed:
                if normalise_title(d.title) == title and "revert" not in d.tags:
                    out[title] = d
                    break
        return out

    async def _supersede(
        self, principal: Principal, repository: str, target_sha: str, by: uuid.UUID
    ) -> uuid.UUID | None:
        """The decision of `target_sha` is reversed by decision `by`: its memory
        becomes SUPERSEDED (audited, SUPERSEDES edge) and it records `by`.
        Returns the reversed decision's id (None when nothing changed)."""
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            ids = await store.decisions_of_commits(conn, repository, [target_sha])
            target_id = ids.get(target_sha)
            if target_id is None or target_id == by:
                return None
            found = await store.get_decisions(conn, [target_id, by], with_anchors=False)
        target, winner = found.get(target_id), found.get(by)
        if target is None or winner is None or target.status != Status.ACTIVE.value:
            return None

        async def decide(conn: Conn, m: Memory) -> list[Any]:
            if m.status != Status.ACTIVE:
                return []
            # Named, not quoted: the audit log is append-only and outlives a purge.
            note = f"decision reversed by {winner.name}"
            return [(m, Status.SUPERSEDED, {"superseded_by": winner.memory_id}, note)]

        changed = await self.lifecycle.apply_transition(principal, target.memory_id, None, decide)
        if not changed:
            return None
        async with self.db.tenant_tx(tenant) as conn:
            await store.update_decision(conn, target.id, {"superseded_by": by})
        return target.id


_COUNTS = ("processed", "skipped", "without_decision", "created", "updated", "invalid")


def _record(out: IngestOutcome) -> dict[str, Any]:
    return {
        "decisions": [str(d.id) for d in out.decisions],
        **{k: getattr(out, k) for k in _COUNTS},
        "commits": [
            {
                "index": c.index,
                "sha": c.sha,
                "disposition": c.disposition.value,
                "reason": c.reason,
                "decision": str(c.decision_id) if c.decision_id else "",
                "violations": [list(v) for v in c.violations],
            }
            for c in out.commits
        ],
    }


def _merge(a: Draft, b: Draft) -> Draft:
    """Two commits of one decision (a rebased copy, a squash of it): one draft."""
    return replace(
        a,
        commits=tuple(dict.fromkeys((*a.commits, *b.commits))),
        anchors=tuple({x.key: x for x in (*a.anchors, *b.anchors)}.values()),
        evidence=_union_evidence(a.evidence, b.evidence),
        alternatives=tuple({x.description: x for x in (*a.alternatives, *b.alternatives)}.values()),
        rationale=a.rationale or b.rationale,
    )


def _union_evidence(a: Sequence[Evidence], b: Sequence[Evidence]) -> tuple[Evidence, ...]:
    seen: dict[str, Evidence] = {}
    for e in (*a, *b):
        seen.setdefault(e.quote, e)
    return tuple(seen.values())[:24]


def _growth(held: Decision, draft: Draft, reprocess: bool) -> dict[str, Any]:
    """What an ingested draft adds to a stored decision (commits, evidence)."""
    changes: dict[str, Any] = {}
    commits = tuple(dict.fromkeys((*held.commits, *draft.commits)))
    if commits != held.commits:
        changes["commits"] = commits
    evidence = _union_evidence(held.evidence, draft.evidence)
    if len(evidence) != len(held.evidence):
        changes["evidence"] = evidence
    if reprocess:
        for name in ("statement", "rationale", "question"):
            if getattr(draft, name) and getattr(draft, name) != getattr(held, name):
                changes[name] = getattr(draft, name)
        if draft.alternatives and draft.alternatives != held.alternatives:
            changes["alternatives"] = draft.alternatives
    return changes


def _as_stored(
    row: store.NewDecision,
    memory: Memory | None,
    anchors: Sequence[tuple[uuid.UUID, Anchor]],
    stored_at: datetime,
) -> Decision:
    """A decision just inserted, as a read would return it (anchors in key order)."""
    own = {a.key: a for d, a in anchors if d == row.id}
    return Decision(
        id=row.id,
        repository=row.repository,
        space=row.space,
        identity=row.identity,
        memory_id=row.memory_id,
        title=row.title,
        statement=row.statement,
        rationale=row.rationale,
        question=row.question,
        alternatives=tuple(row.alternatives),
        evidence=tuple(row.evidence),
        anchors=tuple(own[k] for k in sorted(own)),
        commits=tuple(row.commits),
        decision_time=row.decision_time,
        create_time=stored_at,
        update_time=stored_at,
        author=row.author,
        tags=tuple(row.tags),
        origin=row.origin,
        status=memory.status.value if memory is not None else Status.ACTIVE.value,
        expectations=tuple(row.expectations),
    )


def _file_rows(commit: Commit) -> list[store.FileChangeRow]:
    rows = []
    for f in commit.files:
        if f.binary and f.change_type not in (ChangeType.RENAMED, ChangeType.DELETED):
            continue
        rows.append(
            store.FileChangeRow(
                commit.sha,
                f.path,
                f.old_path,
                f.change_type.value,
                commit.time,
                hunk_positions(f.hunks),
            )
        )
    return rows
