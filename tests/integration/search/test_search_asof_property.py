"""Property (docs/rules/story-graph.md#time): search as of T equals what the as-of reads knew at T.

Random histories of publishes (entities and events named from a small mixed Chinese/English
vocabulary), renames and re-descriptions by a person, new source versions and withdrawals
are written to Neo4j and replayed in memory (tests/support/story_replay.py, the reference model).
For every checkpoint T and every word, `search(asOf=T)` must return exactly:
- the entities whose text at any version recorded by T held the word, each answering with
  its version believed at T (its name then), `current` exactly when that version holds it;
- the events believed at T whose title or description holds it;
- the lines of source versions recorded by T (and not withdrawn: their text is gone) that
  hold it, each at its locator; a line repeated unchanged in later versions once, in the
  latest version recorded by T.
Nothing recorded after T and no version retracted before T is ever returned.

Hybrid search is held to the same slice: once every version written has its
vector (the grounded embeddings stand-in, vectors of texts recorded after T included), a
hybrid search as of T returns every hit the lexical one does, and each of its hits — vector
hits too — is an entity or event as believed at T, or a line of a version recorded by T and
not withdrawn."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver

from engine.errors import StorygraphError
from engine.principal import WORKER, Principal
from engine.search.passages import passage_key, split_passages
from engine.search.ranking import HitKind
from engine.settings import Settings
from engine.story.inputs import EntityEdit, PublishResultInput
from engine.story.models import Entity
from graph.story import StoryRepository
from jobs.deps import Deps
from jobs.search.embed import embed_scope
from jobs.search.reads import SearchAsk, search
from tests.support.story import ALICE, RUN, T0, source
from tests.support.story_replay import StoryReplay


class Refused(Exception):
    """The model and the store both refused an operation, with the same kind of error."""


async def both_or_neither(
    model: Callable[[], object], store: Callable[[], Awaitable[object]]
) -> None:
    """Apply one operation to the reference model and to the store: both accept it, or both
    refuse it with the same error (the store writing nothing the model did not); a refusal
    of one side alone fails the property."""
    refused: list[type[StorygraphError] | None] = []
    try:
        model()
        refused.append(None)
    except StorygraphError as exc:
        refused.append(type(exc))
    try:
        await store()
        refused.append(None)
    except StorygraphError as exc:
        refused.append(type(exc))
    assert refused[0] == refused[1], f"model refused {refused[0]}, store refused {refused[1]}"
    if refused[0] is not None:
        raise Refused(refused[0].__name__)


READER = Principal("reader-p", frozenset({"*"}), frozenset({"reader"}))
WORDS = ["alpha", "bravo", "charlie", "灰度", "回调", "网关"]
_phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(" ".join)
_ops = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {
                "op": st.just("publish"),
                "names": st.lists(_phrase, max_size=2),
                "desc": _phrase,
                "event": st.one_of(st.none(), _phrase),
            }
        ),
        st.fixed_dictionaries(
            {
                "op": st.just("edit"),
                "target": st.integers(0, 9),
                "field": st.sampled_from(["name", "description"]),
                "value": _phrase,
            }
        ),
        st.fixed_dictionaries(
            {"op": st.just("source"), "lines": st.lists(_phrase, min_size=1, max_size=3)}
        ),
        st.fixed_dictionaries({"op": st.just("withdraw"), "target": st.integers(0, 9)}),
    ),
    min_size=1,
    max_size=7,
)


def _holds(text: str, word: str) -> bool:
    if re.match(r"[a-z]", word):
        return word in re.findall(r"[a-z0-9]+", text.lower())
    return word in text


def _texts(e: Entity) -> list[str]:
    return [e.name, e.description]


_counter = iter(range(10**9))


@pytest.mark.timeout(360)  # 15 histories, each searched lexically and hybrid at every checkpoint
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=_ops)
async def test_search_as_of_equals_the_replay_of_the_operations_before_it(
    specs: list[dict[str, Any]],
    repo: StoryRepository,
    deps: Deps,
    hybrid_deps: Deps,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    sub = f"{scope}-{next(_counter)}"
    start = T0 + timedelta(days=30)
    world = StoryReplay()
    # after each operation: every entity text seen so far, and the world (for the as-of T)
    seen: dict[str, set[str]] = {}
    moments: list[tuple[Any, StoryReplay, dict[str, set[str]]]] = []
    versions: list[str] = []
    try:
        for i, spec in enumerate(specs):
            at = start + timedelta(minutes=i + 1)
            try:
                if spec["op"] == "publish":
                    inp = PublishResultInput.model_validate(
                        {
                            "scope": sub,
                            "key": f"k{i}",
                            "entities": [
                                {"ref": f"n{j}", "name": n, "description": spec["desc"]}
                                for j, n in enumerate(spec["names"])
                            ],
                            "events": (
                                []
                                if spec["event"] is None
                                else [{"ref": "e", "title": spec["event"], "at": at}]
                            ),
                        }
                    )
                    await both_or_neither(
                        partial(world.publish, inp, RUN, at),
                        partial(repo.publish_result, inp, by=RUN, now=at),
                    )
                elif spec["op"] == "edit":
                    ids = sorted(e.id for e in world.entities.values())
                    if not ids:
                        continue
                    eid = ids[spec["target"] % len(ids)]
                    edit = EntityEdit(**{spec["field"]: spec["value"]})
                    seq = world.entities[eid].seq
                    await both_or_neither(
                        partial(world.update_entity, sub, eid, edit, seq, ALICE, at),
                        partial(
                            repo.update_entity, sub, eid, edit, seen_version=seq, by=ALICE, now=at
                        ),
                    )
                elif spec["op"] == "source":
                    version = f"v{i}"
                    inp_s = source(sub, version=version, text="\n".join(spec["lines"]))
                    await both_or_neither(
                        partial(world.upsert_source, inp_s, at),
                        partial(repo.upsert_source, inp_s, now=at),
                    )
                    versions.append(version)
                else:
                    if not versions:
                        continue
                    version = versions[spec["target"] % len(versions)]
                    await both_or_neither(
                        partial(
                            world.withdraw_source, sub, "conv-1", version, "redacted", ALICE, at
                        ),
                        partial(
                            repo.withdraw_source,
                            sub,
                            "conv-1",
                            version,
                            reason="redacted",
                            by=ALICE,
                            now=at,
                        ),
                    )
            except Refused:
                continue
            for e in world.entities.values():
                seen.setdefault(e.id, set()).update(_texts(e))
            snapshot = StoryReplay(events=dict(world.events), entities=dict(world.entities))
            moments.append((at, snapshot, {k: set(v) for k, v in seen.items()}))
        withdrawn_now = {
            v for (_, _), vs in world.versions.items() for v, sv in vs.items() if not sv.available
        }
        recorded = {
            v: sv.recorded_at for (_, _), vs in world.versions.items() for v, sv in vs.items()
        }
        texts = {v: sv.text for (_, _), vs in world.versions.items() for v, sv in vs.items()}
        assert hybrid_deps.embedder is not None
        await embed_scope(hybrid_deps, WORKER, hybrid_deps.embedder, sub)
        checkpoints = [(start, StoryReplay(), {})] + [
            (at + delta, snap, known)
            for at, snap, known in moments
            for delta in (timedelta(0), timedelta(seconds=30))
        ]
        for t, snap, known in checkpoints:
            for word in WORDS:
                _, page = await search(deps, READER, sub, SearchAsk(text=word, first=500), as_of=t)
                got = {(h.kind, h.key): h for h in page.items}
                want_entities = {
                    eid for eid, ts in known.items() if any(_holds(x, word) for x in ts)
                }
                want_events = {
                    e.id
                    for e in snap.events.values()
                    if _holds(e.title, word) or _holds(e.description, word)
                }
                latest: dict[tuple[str, str], tuple[Any, str]] = {}  # one hit per line
                for v, at_v in recorded.items():
                    if at_v > t or v in withdrawn_now or texts[v] is None:
                        continue
                    for p in split_passages(texts[v] or ""):
                        if _holds(p.text, word):
                            line = (p.locator, p.text)
                            if line not in latest or latest[line][0] < at_v:
                                latest[line] = (at_v, passage_key("conv-1", v, p.locator))
                want_passages = {key for _, key in latest.values()}
                assert {k for (kind, k) in got if kind is HitKind.ENTITY} == want_entities, (
                    t,
                    word,
                )
                assert {k for (kind, k) in got if kind is HitKind.EVENT} == want_events, (t, word)
                assert {k for (kind, k) in got if kind is HitKind.PASSAGE} == want_passages, (
                    t,
                    word,
                )
                for eid in want_entities:
                    hit = got[(HitKind.ENTITY, eid)]
                    now = snap.entities[eid]
                    assert isinstance(hit.obj, Entity)
                    assert (hit.obj.seq, hit.obj.name) == (now.seq, now.name), (t, word)
                    assert hit.current == any(_holds(x, word) for x in _texts(now)), (t, word)
                for h in page.items:
                    stamp = h.passage_ref.recorded_at if h.passage_ref else None
                    if h.obj is not None:
                        stamp = h.obj.recorded_at
                    assert stamp is not None and stamp <= t
                _, mixed = await search(
                    hybrid_deps, READER, sub, SearchAsk(text=word, first=500), as_of=t
                )
                both = {(h.kind, h.key): h for h in mixed.items}
                assert set(got) <= set(both), (t, word)
                for (kind, key), h in both.items():
                    if kind is HitKind.ENTITY:
                        assert key in snap.entities, (t, word, key)
                        assert h.obj is not None and h.obj.seq == snap.entities[key].seq
                    elif kind is HitKind.EVENT:
                        assert key in snap.events, (t, word, key)
                        assert h.obj is not None and h.obj.seq == snap.events[key].seq
                    elif kind is HitKind.PASSAGE:
                        version = key.split("@", 1)[1].split("#", 1)[0]
                        assert recorded[version] <= t and version not in withdrawn_now, (t, key)
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=sub, database_=settings.neo4j_database
        )
