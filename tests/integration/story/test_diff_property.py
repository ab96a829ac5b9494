"""Property: `storyGraphDiff(since, until)` is exactly the difference of the as-of reads
`storyGraph(asOf: since)` and `storyGraph(asOf: until)`, all read through the public GraphQL
schema. A random history of publishes and corrections (at increasing record times) is
followed by reviews of a conversation that grows by lines a person writes — promises,
blockers, a question and its answer, small talk — run by a real worker with the offline
model, so the history holds signals added and signals answered (a new version) as the
product records them. Every pair of moments is diffed page by page (a small page, so the
keyset is exercised) and held against a model of the diff written here from its rules (the
table in `engine/story/diff.py`'s docstring) over the two reads: the same objects, the same
kind of change, the same fields with the same before/after values, who made it and through
which result, when, the total count, and the passages each change cites (the references
that result wrote for the object, as the read at `until` lists them; a signal carries its
passage as its own fields, so an added or answered signal shows it among its fields)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import pytest
from graphql import GraphQLEnumType, GraphQLList, GraphQLNonNull, GraphQLObjectType, build_schema
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL
from engine.review.types import Scope
from engine.settings import PROJECT_ROOT, Settings
from graph.story import StoryRepository
from jobs.deps import Deps
from jobs.review.runs import Opened, open_run
from jobs.story.writes import upsert_source
from tests.support.in_process import graphql
from tests.support.review_jobs import run_worker
from tests.support.story import T0
from tests.support.story_history import OPS, record_history

_counter = iter(range(10**9))

# the object kinds a story graph read lists, by the diff's name for each
LISTS = {
    "story": ("stories", "Story"),
    "event": ("events", "Event"),
    "entity": ("entities", "Entity"),
    "relation": ("relations", "Relation"),
    "suggestion": ("suggestions", "Suggestion"),
    "summary": ("summaries", "Summary"),
    "signal": ("signals(first: 100)", "Signal"),
}

# Lines a person writes in the reviewed conversation (speaker, words): a promise with a day,
# a blocker, a question to 李四 and 李四's answer, small talk.
LINES = [
    ("李四", "前端部分周四能提测"),
    ("张三", "后端支付模块卡在第三方回调接口"),
    ("张三", "李四，能不能把测试报告发我一下？"),
    ("李四", "刚发你邮箱了"),
    ("王五", "好的，收到"),
]
REVIEWS = st.lists(
    st.lists(st.integers(0, len(LINES) - 1), min_size=1, max_size=3), min_size=1, max_size=3
)


@cache
def public_schema() -> Any:
    return build_schema((PROJECT_ROOT / "schema.graphql").read_text(encoding="utf-8"))


def _named(t: Any) -> Any:
    while isinstance(t, GraphQLNonNull | GraphQLList):
        t = t.of_type
    return t


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", r"_\1", name).lower()


@cache
def value_fields(type_name: str) -> tuple[tuple[str, bool], ...]:
    """A type's value fields as the public schema declares them: (name, is an enum), without
    what every version carries (the `Versioned` interface: id, who, when, why, through what)
    and without fields that take arguments or answer objects (history, passage, concern…)."""
    schema = public_schema()
    kept = set(schema.type_map["Versioned"].fields) | {"id", "recordedAt"}
    out = []
    for name, field in schema.type_map[type_name].fields.items():
        named = _named(field.type)
        if name in kept or field.args or isinstance(named, GraphQLObjectType):
            continue
        out.append((name, isinstance(named, GraphQLEnumType)))
    return tuple(out)


def selection(kind: str) -> str:
    listed, type_name = LISTS[kind]
    fields = " ".join(name for name, _ in value_fields(type_name))
    versioned = "by { kind id } why viaResult viaConcern" if kind != "summary" else ""
    decision = "decision { kind concernId reason policyVersion }" if kind == "signal" else ""
    return f"{listed} {{ id recordedAt {versioned} {fields} {decision} }}"


READ = (
    "query($s: String!, $at: DateTime!) { storyGraph(scope: $s, asOf: $at, includeRemoved: true)"
    " { "
    + " ".join(selection(k) for k in LISTS)
    + " references { ownerId resultId sourceId sourceVersion locator } } }"
)
PUBLISHER = (
    "query($s: String!, $id: ID!) { result(scope: $s, id: $id) { result { by { kind id } } } }"
)
DIFF = """query($s: String!, $since: DateTime!, $until: DateTime!, $after: String) {
  storyGraphDiff(scope: $s, since: $since, until: $until, first: 3, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { objectKind objectId change changedAt why resultId viaConcern
      by { kind id } fields { field before after }
      references { sourceId sourceVersion locator } } } } }"""


def shown(value: Any, enum: bool) -> str | None:
    """A value as the diff shows it: lists joined, JSON booleans, an enum by its value (its
    public name in lower case); no value and an empty text are one (nothing to show)."""
    if isinstance(value, list):
        value = ", ".join(str(shown(v, enum)) for v in value)
    elif isinstance(value, bool):
        value = str(value).lower()
    elif value is not None:
        value = str(value).lower() if enum else str(value)
    return value if value != "" else None


def values(kind: str, obj: dict[str, Any] | None) -> dict[str, str | None]:
    """An object's values as the read answers them, by the diff's field names."""
    if obj is None:
        return {}
    out = {snake(n): shown(obj[n], enum) for n, enum in value_fields(LISTS[kind][1])}
    if kind == "signal":
        made = obj["decision"] or {}
        out["decision_kind"] = shown(made.get("kind"), True)
        out["decision_concern_id"] = shown(made.get("concernId"), False)
        out["decision_reason"] = shown(made.get("reason"), False)
        out["decision_policy_version"] = shown(made.get("policyVersion"), False)
    return out


@dataclass(frozen=True)
class Expected:
    change: str
    fields: tuple[tuple[str, str | None, str | None], ...]
    changed_at: str
    by: Any
    why: str
    result: str | None
    via_concern: str | None
    cites: tuple[tuple[str, str, str], ...]


def objects(read: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (kind, obj["id"]): obj
        for kind, (listed, _) in LISTS.items()
        for obj in read[listed.split("(")[0]]
    }


def expected_diff(before: dict[str, Any], after: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """The diff's rules over the two reads, object by object: added when it was not read at
    `since`; else by the fields whose values differ — removed / restored when `removed`
    turned, retracted when a confirmation turned rejected or a suggestion was dismissed,
    revised otherwise; no entry when every field is equal."""
    old_objects, out = objects(before), {}
    for key, obj in objects(after).items():
        kind = key[0]
        old, new = values(kind, old_objects.get(key)), values(kind, obj)
        fields = tuple(
            (name, old.get(name), new.get(name))
            for name in sorted(set(old) | set(new))
            if old.get(name) != new.get(name)
        )
        changed = {name for name, _, _ in fields}
        if key not in old_objects:
            change = "ADDED"
        elif not fields:
            continue
        elif "removed" in changed:
            change = "REMOVED" if new["removed"] == "true" else "RESTORED"
        elif "confirmation" in changed and new["confirmation"] == "rejected":
            change = "RETRACTED"
        elif "status" in changed and new["status"] == "dismissed":
            change = "RETRACTED"
        else:
            change = "REVISED"
        result = obj.get("viaResult") if kind != "summary" else obj["resultId"]
        # a signal's passage is its own value (sourceId, sourceVersion, locator: among the
        # fields when it is added or moves), not a reference record
        cites = tuple(
            sorted(
                (r["sourceId"], r["sourceVersion"], r["locator"])
                for r in after["references"]
                if r["ownerId"] == key[1] and result and r["resultId"] == result
            )
        )
        out[key] = Expected(
            change,
            fields,
            obj["recordedAt"],
            obj.get("by"),
            obj.get("why", ""),
            result,
            obj.get("viaConcern"),
            cites,
        )
    return out


async def read_diff(
    deps: Deps, scope: str, since: datetime, until: datetime
) -> tuple[list[dict[str, Any]], set[int]]:
    """Every page of the diff, and the totalCount each page answered."""
    nodes: list[dict[str, Any]] = []
    totals: set[int] = set()
    after = None
    while True:
        page = (
            await graphql(
                deps.settings,
                deps.driver,
                DIFF,
                {
                    "s": scope,
                    "since": since.isoformat(),
                    "until": until.isoformat(),
                    "after": after,
                },
            )
        )["storyGraphDiff"]
        nodes += [edge["node"] for edge in page["edges"]]
        totals.add(page["totalCount"])
        if not page["pageInfo"]["hasNextPage"]:
            return nodes, totals
        after = page["pageInfo"]["endCursor"]


def got_entry(node: dict[str, Any]) -> Expected:
    return Expected(
        node["change"],
        tuple(
            (f["field"], f["before"] or None, f["after"] or None)
            for f in node["fields"]
            if f["before"] or f["after"]
        ),
        node["changedAt"],
        node["by"],
        node["why"],
        node["resultId"],
        node["viaConcern"],
        tuple(
            sorted((r["sourceId"], r["sourceVersion"], r["locator"]) for r in node["references"])
        ),
    )


async def review_lines(deps: Deps, scope: str, steps: list[list[int]]) -> list[datetime]:
    """Each step: the conversation's next version, with the step's lines written after the
    earlier ones, pushed as an app pushes it, then a review of the hour around now run to
    its end by a burst worker. The moments before and after each step."""
    start = utcnow().replace(microsecond=0) - timedelta(minutes=50)
    text, n, moments = "", 0, []
    for version, step in enumerate(steps, 1):
        moments.append(utcnow())
        for line in step:
            speaker, words = LINES[line]
            text += f"[{(start + timedelta(minutes=n)).isoformat()}] {speaker}: {words}\n"
            n += 1
        data = {"scope": scope, "id": "chat-sig", "kind": "conversation", "text": text}
        await upsert_source(deps, OPEN_PRINCIPAL, {**data, "version": f"v{version}"})
        now = utcnow()
        got = await open_run(
            deps,
            Scope.projects(scope),
            interval=(now - timedelta(hours=1), now + timedelta(hours=1)),
        )
        assert isinstance(got, Opened)
        await run_worker(deps.settings)  # the review, then the effect jobs it enqueued
        moments.append(utcnow())
    return moments


@pytest.mark.timeout(900)  # 12 histories with up to three reviews each, on two busy cores
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# always once: a question, then its answer and a promise in a later review (a signal revised)
@example(
    specs=[
        {
            "op": "publish",
            "tz": UTC,
            "new": 2,
            "reuse": [],
            "malformed": False,
            "main": True,
            "desc": "测试",
            "rels": [(0, 1, "supports", "负责")],
            "events": 1,
        }
    ],
    steps=[[2, 4], [3, 0]],
    pairs=[(1, -1)],
)
@given(
    specs=OPS,
    steps=REVIEWS,
    pairs=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=5),
)
async def test_the_diff_equals_the_difference_of_the_as_of_reads(
    specs: list[dict[str, Any]],
    steps: list[list[int]],
    pairs: list[tuple[int, int]],
    repo: StoryRepository,
    offline_deps: Deps,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    deps = offline_deps
    sub = f"diff-{next(_counter)}-{utcnow().timestamp():.0f}"
    start = T0 + timedelta(days=30)
    try:
        ops = await record_history(repo, sub, specs, start)
        moments = [start - timedelta(seconds=1)] + [
            op.at + delta for op in ops for delta in (timedelta(0), timedelta(seconds=30))
        ]
        moments += await review_lines(deps, sub, steps)
        chosen = [(0, len(moments) - 1), (len(moments) - 2 * len(steps) - 1, len(moments) - 1)]
        for a, b in chosen + pairs:
            since, until = sorted((moments[a % len(moments)], moments[b % len(moments)]))
            since, until = since.astimezone(UTC), until.astimezone(UTC)
            reads = [
                (await graphql(deps.settings, deps.driver, READ, {"s": sub, "at": at.isoformat()}))[
                    "storyGraph"
                ]
                for at in (since, until)
            ]
            nodes, totals = await read_diff(deps, sub, since, until)
            got = {(n["objectKind"], n["objectId"]): got_entry(n) for n in nodes}
            assert len(got) == len(nodes), "an object appears twice in the diff"
            expected = expected_diff(*reads)
            # a stage summary has no author of its own: the diff names its result's publisher
            for key, entry in list(expected.items()):
                if key[0] == "summary" and entry.by is None and entry.result:
                    view = await graphql(
                        deps.settings, deps.driver, PUBLISHER, {"s": sub, "id": entry.result}
                    )
                    expected[key] = dataclasses.replace(entry, by=view["result"]["result"]["by"])
            wrong = [
                f"{key}:\n  diff: {got.get(key)}\n  reads: {expected.get(key)}"
                for key in sorted(set(got) | set(expected), key=lambda k: (k[0] != "signal", k))
                if got.get(key) != expected.get(key)
            ]
            assert not wrong, f"({since}, {until}]\n" + "\n".join(wrong[:6])
            assert totals == {len(expected)}, "totalCount counts the entries, on every page"
            keys = [(datetime.fromisoformat(n["changedAt"]), n["objectId"]) for n in nodes]
            assert keys == sorted(keys), "the diff is ordered by (changedAt, id)"
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=sub, database_=settings.neo4j_database
        )
