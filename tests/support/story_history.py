"""Random story histories for property tests: operations (publishes, edits, relation actions,
suggestion decisions) drawn by hypothesis, made concrete against what exists, and replayed on
the Neo4j repository or on the in-memory reference model (tests.support.story_replay)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from engine.errors import StorygraphError
from engine.story.corrections import RelationAction
from engine.story.inputs import EntityEdit, PublishResultInput
from graph.story import StoryRepository
from tests.support.story import ALICE, RUN, T0, cite, source
from tests.support.story_replay import StoryReplay

ZONES = [timezone(timedelta(hours=h, minutes=m)) for h, m in ((0, 0), (8, 0), (-5, 0), (5, 30))]
_zone = st.sampled_from(ZONES)
_publish = st.fixed_dictionaries(
    {
        "op": st.just("publish"),
        "tz": _zone,
        "new": st.integers(0, 3),
        "reuse": st.lists(st.integers(0, 30), max_size=2, unique=True),
        "malformed": st.booleans(),
        "main": st.booleans(),
        "desc": st.sampled_from(["测试", "开发", "负责人"]),
        "rels": st.lists(
            st.tuples(
                st.integers(0, 9),
                st.integers(0, 9),
                st.sampled_from(["supports", "contradicts"]),
                st.sampled_from(["依赖", "负责"]),
            ),
            max_size=3,
        ),
        "events": st.integers(0, 2),
    }
)
_edit = st.fixed_dictionaries(
    {
        "op": st.just("edit"),
        "tz": _zone,
        "target": st.integers(0, 30),
        "field": st.sampled_from(["name", "description", "confirm"]),
        "value": st.sampled_from(["甲", "乙"]),
        "stale": st.booleans(),
    }
)
_relation = st.fixed_dictionaries(
    {
        "op": st.just("relation"),
        "tz": _zone,
        "target": st.integers(0, 30),
        "action": st.sampled_from(list(RelationAction)),
    }
)
_suggestion = st.fixed_dictionaries(
    {
        "op": st.just("suggestion"),
        "tz": _zone,
        "target": st.integers(0, 30),
        "accept": st.booleans(),
    }
)
OPS = st.lists(st.one_of(_publish, _publish, _edit, _relation, _suggestion), min_size=1, max_size=8)


@dataclass(frozen=True)
class Op:
    """A concrete operation (ids resolved), replayable on the repository or in memory."""

    at: datetime
    kind: str
    args: dict[str, Any]


def concretise(
    spec: dict[str, Any], scope: str, i: int, live: StoryReplay, at: datetime
) -> Op | None:
    entity_ids = sorted(e.id for e in live.entities.values() if e.scope == scope)
    if spec["op"] == "publish":
        ents: list[dict[str, Any]] = []
        for j, k in enumerate(spec["reuse"]):
            if entity_ids:
                ents.append(
                    {
                        "ref": f"r{j}",
                        "name": "复用",
                        "id": entity_ids[k % len(entity_ids)],
                        "description": spec["desc"],
                    }
                )
        for j in range(spec["new"]):
            ents.append(
                {
                    "ref": f"n{j}",
                    "name": "张三" if j % 2 else "李四",
                    "status": "main" if spec["main"] else None,
                    "description": spec["desc"],
                }
            )
        if spec["malformed"]:
            ents.append({"ref": "bad", "name": "张三", "id": "ent_NOT-A-REAL-ID"})
        seen_ids: set[str] = set()
        ents = [
            e
            for e in ents
            if e.get("id") is None or not (e["id"] in seen_ids or seen_ids.add(e["id"]))
        ]
        refs = [e["ref"] for e in ents]
        rels = []
        for j, (a, b, stance, type_) in enumerate(spec["rels"]):
            if len(refs) >= 2 and refs[a % len(refs)] != refs[b % len(refs)]:
                rels.append(
                    {
                        "ref": f"rel{j}",
                        "from": refs[a % len(refs)],
                        "to": refs[b % len(refs)],
                        "type": type_,
                        "stance": stance,
                        "reason": spec["desc"],
                        "references": [cite()],
                    }
                )
        events = [
            {
                "ref": f"e{j}",
                "title": f"事件{i}-{j}",
                "at": (T0 + timedelta(days=i)).astimezone(spec["tz"]),
                "references": [cite()],
            }
            for j in range(spec["events"])
        ]
        changes = [
            {"event": ev["ref"], "entity": ref, "kind": "supplemented"}
            for ev in events
            for ref in sorted({refs[0], refs[-1]} if refs else set())
        ]
        inp = PublishResultInput.model_validate(
            {
                "scope": scope,
                "key": f"key-{i}",
                "entities": ents,
                "relations": rels,
                "events": events,
                "changes": changes,
            }
        )
        return Op(at, "publish", {"inp": inp})
    if spec["op"] == "edit" and entity_ids:
        eid = entity_ids[spec["target"] % len(entity_ids)]
        seq = live.entities[eid].seq
        field, value = spec["field"], spec["value"]
        edit = (
            EntityEdit(confirm=["description"])
            if field == "confirm"
            else EntityEdit(**{field: value})
        )
        return Op(at, "edit", {"id": eid, "edit": edit, "seen": seq - 1 if spec["stale"] else seq})
    if spec["op"] == "relation":
        rel_ids = sorted(r.id for r in live.relations.values() if r.scope == scope)
        if rel_ids:
            return Op(
                at,
                "relation",
                {"id": rel_ids[spec["target"] % len(rel_ids)], "action": spec["action"]},
            )
    if spec["op"] == "suggestion":
        sugg_ids = sorted(s.id for s in live.suggestions.values() if s.scope == scope)
        if sugg_ids:
            return Op(
                at,
                "suggestion",
                {"id": sugg_ids[spec["target"] % len(sugg_ids)], "accept": spec["accept"]},
            )
    return None


def on_replay(world: StoryReplay, scope: str, op: Op) -> type[Exception] | None:
    try:
        if op.kind == "publish":
            world.publish(op.args["inp"], RUN, op.at)
        elif op.kind == "edit":
            world.update_entity(
                scope, op.args["id"], op.args["edit"], op.args["seen"], ALICE, op.at
            )
        elif op.kind == "relation":
            world.act_on_relation(scope, op.args["id"], op.args["action"], ALICE, op.at)
        else:
            world.resolve_suggestion(scope, op.args["id"], op.args["accept"], ALICE, op.at)
    except StorygraphError as exc:
        return type(exc)
    return None


async def on_repo(repo: StoryRepository, scope: str, op: Op) -> type[Exception] | None:
    try:
        if op.kind == "publish":
            await repo.publish_result(op.args["inp"], by=RUN, now=op.at)
        elif op.kind == "edit":
            await repo.update_entity(
                scope,
                op.args["id"],
                op.args["edit"],
                seen_version=op.args["seen"],
                by=ALICE,
                now=op.at,
            )
        elif op.kind == "relation":
            await repo.correct_relation(
                scope, op.args["id"], op.args["action"], by=ALICE, now=op.at
            )
        else:
            await repo.resolve_suggestion(
                scope, op.args["id"], accept=op.args["accept"], by=ALICE, now=op.at
            )
    except StorygraphError as exc:
        return type(exc)
    return None


async def record_history(
    repo: StoryRepository, scope: str, specs: list[dict[str, Any]], start: datetime
) -> list[Op]:
    """Push the conversation source at `start`, then the drawn operations a minute apart,
    each on the repository and on the replay model, which must agree on every refusal;
    returns the operations that applied."""
    src = source(scope)
    await repo.upsert_source(src, now=start)
    live = StoryReplay()
    live.upsert_source(src, start)
    ops: list[Op] = []
    for i, spec in enumerate(specs):
        at = (start + timedelta(minutes=i + 1)).astimezone(spec["tz"])
        op = concretise(spec, scope, i, live, at)
        if op is None:
            continue
        expected = on_replay(live, scope, op)
        assert await on_repo(repo, scope, op) == expected, op
        ops.append(op)
    return ops
