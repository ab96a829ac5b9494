"""The fault tests' one audit (the chaos test's worker kills and restarts, the Redis
failover test's killed primary): they start work through the API, then count what they
started (tickets), not what they find. The parts that judge records are plain functions, so
a unit test holds the audit itself to known cases (tests/unit/platform/test_chaos_audit.py).

- `Tally`: what the run did and what the audit found; `record_kill` notes, at each kill,
  the jobs it interrupted and the moment of the kill (the first kill that found a job).
- `ran_again`: an interrupted job counts as redelivered when arq kept a result of a later
  try, or of a first try begun after the kill (a job the killed worker had claimed but not
  yet begun: arq never counted that try), or the worker kept its failure.
- `owner_told`: every concern told its owner once that it was raised, unless the daily
  report cap withheld it — then its timeline says so and the owner had had the cap's worth
  of reports; never more than the cap.
- `Tickets`, `settle` and `audit`: what a run started; letting the last worker finish
  (continuing failed reviews: BUSY is the only refusal `attempt` accepts); and the count —
  every concern asked both people and told its owner (`owner_told`), every outbox row sent
  and delivered, one message never sent under two keys, every watch check run once, every
  heartbeat report and review ended, nothing stored twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from neo4j import AsyncDriver

from engine.concern.policy import ConcernPolicy
from engine.settings import Settings
from tests.support.polling import reached_async
from tests.support.processes import Server
from tests.support.webhook import Webhook

SKIPPED_CREATED = "汇报（created）：daily cap reached"
T0 = datetime(2035, 5, 7, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # concerns' own clock


class ResultInfo(Protocol):
    """What the audit reads of arq's `JobResult`."""

    job_try: int
    start_time: datetime


@dataclass
class Tally:
    label: str = "chaos"  # the run's kind, at the head of its line
    seed: int | None = None  # a random run's seed (replayed with CHAOS_SEED)
    kills: int = 0
    restarts: list[str] = field(default_factory=list)
    jobs: Counter[str] = field(default_factory=Counter)
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)  # job ids a kill landed in
    killed_at: dict[str, datetime] = field(default_factory=dict)  # each one's kill, wall clock
    redelivered: int = 0  # of those, the jobs that ran again to their end
    reposted: int = 0  # POSTs the receiver got again under the same key

    def record_kill(self, in_progress: Iterable[str], at: datetime) -> None:
        """After a kill at `at`: the jobs whose in-progress key outlived the worker. A key of
        an earlier kill may still be alive: that job keeps its first kill's moment."""
        self.kills += 1
        for job_id in in_progress:
            if job_id not in self.killed_at:
                self.interrupted.append(job_id)
                self.killed_at[job_id] = at

    def line(self) -> str:
        return (
            f"{self.label}{'' if self.seed is None else f' seed={self.seed}'}: kills={self.kills} restarts={len(self.restarts)} "
            f"({', '.join(self.restarts) or '-'}) jobs={sum(self.jobs.values())} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.jobs.items()))}) "
            f"lost={len(self.lost)} duplicated={len(self.duplicated)} "
            f"interrupted={len(self.interrupted)} redelivered={self.redelivered} "
            f"reposted={self.reposted}"
            + (f" | lost: {self.lost}" if self.lost else "")
            + (f" | duplicated: {self.duplicated}" if self.duplicated else "")
        )


def ran_again(info: ResultInfo | None, *, failed: bool, killed_at: datetime) -> bool:
    if failed:
        return True
    return info is not None and (info.job_try > 1 or info.start_time >= killed_at)


def owner_told(
    tally: Tally,
    rows: Iterable[Mapping[str, Any]],
    concerns: Iterable[str],
    timelines: Mapping[str, list[str]],
    *,
    owner: str,
    cap: int,
) -> None:
    """`rows`: the scope's outbox (`concern`, `person`, `kind`, `report_kinds`);
    `timelines`: each concern's timeline details."""
    reports = [r for r in rows if r["person"] == owner and r["kind"] == "report"]
    created = Counter(r["concern"] for r in reports if "created" in (r["report_kinds"] or []))
    concerns = list(concerns)
    if len(reports) > cap:
        tally.duplicated.append(f"the owner got {len(reports)} reports, over the cap of {cap}")
    for concern in concerns:
        skipped = any(d.startswith(SKIPPED_CREATED) for d in timelines.get(concern, []))
        if created[concern] == 1 and not skipped:
            continue
        if created[concern] == 0 and skipped and len(reports) >= cap:
            tally.jobs["report withheld by the daily cap"] += 1
            continue
        why = "its timeline names the skip" if skipped else "no skip on its timeline"
        tally.lost.append(
            f"the owner of {concern} was told {created[concern]} times"
            f" ({why}; {len(reports)} reports, cap {cap})"
        )
    tally.duplicated += [f"concern {c} outside the test" for c in created if c not in concerns]


BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=6)  # the chat's messages
SETTLE_S = 240


@dataclass
class Tickets:
    """Everything the test started, by the id it was given."""

    concerns: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    reviews: list[str] = field(default_factory=list)
    heartbeats: list[str] = field(default_factory=list)


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body["errors"]
    return body["data"]  # type: ignore[no-any-return]


def attempt(api: Server, query: str, **variables: Any) -> dict[str, Any] | None:
    """A request whose refusal is a legitimate answer — BUSY, one review (or heartbeat
    report) at a time: its data, or None when refused so. Any other error fails the run."""
    body = api.graphql(query, variables).json()
    errors = body.get("errors")
    if errors:
        codes = {(e.get("extensions") or {}).get("code") for e in errors}
        assert codes == {"BUSY"}, errors
        return None
    return body["data"]  # type: ignore[no-any-return]


def chat(lines: int) -> str:
    people = ["张三", "李四", "王五"]
    said = ["支付模块卡在第三方回调", "前端部分周四能提测", "我来协调沙箱", "回归测试明天开始"]
    return "".join(
        f"[{(BASE + timedelta(minutes=3 * i)).isoformat()}] {people[i % 3]}: "
        f"{said[i % 4]}（第{i}条）\n"
        for i in range(lines)
    )


UPSERT = "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }"
RAISE = "mutation($i: RaiseConcernInput!) { raiseConcern(input: $i) { id } }"
SCHEDULER = "mutation($now: DateTime!, $s: String!) { runConcernScheduler(now: $now, scope: $s) }"
RUN_CHECK = (
    "mutation($s: String!, $id: ID!, $r: String) {"
    " runWatchNow(scope: $s, id: $id, requestId: $r) { runId enqueued } }"
)
START_REVIEW = (
    "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
    " startReview(scope: $sc, from: $f, to: $t) { id } }"
)
RUN_PLAN = "mutation($id: String!) { runPlanNow(configId: $id) { id } }"
FINAL_HEARTBEAT = ("completed", "failed", "skipped", "no_change")
RUNS = (
    "query($sc: ReviewScopeInput!) { supervisionRuns(scope: $sc, first: 100) {"
    " edges { node { id status resultId error { kind message } } } } }"
)


async def wait_until(what: str, done: Callable[[], bool | Awaitable[bool]], tally: Tally) -> None:
    """Poll `done` until it holds; past the deadline the audit records `what` as lost."""

    async def read() -> bool:
        answer = done()
        return answer if isinstance(answer, bool) else await answer

    if not await reached_async(read, within=SETTLE_S, every=1):
        tally.lost.append(f"{what} never settled within {SETTLE_S} s")


async def settle(
    api: Server,
    scope: str,
    tally: Tally,
    watch_id: str,
    tickets: Tickets,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    """Let the last worker finish; continue failed reviews (they must be continuable)."""
    checks, concerns = tickets.checks, tickets.concerns
    observed = (
        "query($s: String!, $id: ID!) { watch(scope: $s, id: $id) {"
        " observations(first: 100) { runId } } }"
    )

    def checks_done() -> bool:
        seen = {
            o["runId"] for o in gql(api, observed, s=scope, id=watch_id)["watch"]["observations"]
        }
        return set(checks) <= seen

    await wait_until("watch checks", checks_done, tally)

    async def heartbeats_done() -> bool:
        rows, _, _ = await neo4j_driver.execute_query(
            "MATCH (h:HeartbeatRun {deployment: $d}) WHERE h.state = 'claimed' RETURN count(h) AS n",
            d=settings.queue_name,
            database_=settings.neo4j_database,
        )
        return rows[0]["n"] == 0

    await wait_until("heartbeat reports", heartbeats_done, tally)

    last: list[Any] = []
    superseded: set[str] = set()
    continued: set[str] = set()
    continue_review = "mutation($id: String!) { continueReview(id: $id) { id } }"

    def reviews_done() -> bool:
        """Every run ends: completed, or failed and continued until it completes; a failed run
        whose sources changed since is refused continuation (CONFLICT: start a new review) and
        stays visibly failed."""
        runs = [
            e["node"]
            for e in gql(api, RUNS, sc={"projectIds": [scope]})["supervisionRuns"]["edges"]
        ]
        last[:] = runs
        for run in runs:
            if run["status"] == "failed" and run["id"] not in superseded:
                answer = api.graphql(continue_review, {"id": run["id"]}).json()
                errors = answer.get("errors") or []
                codes = {(e.get("extensions") or {}).get("code") for e in errors}
                if codes == {"CONFLICT"} and "sources changed" in str(errors):
                    superseded.add(run["id"])
                elif errors:  # BUSY: another run holds the lease; anything else is a fault
                    assert codes == {"BUSY"}, errors
                else:
                    continued.add(run["id"])
        started = {r["id"] for r in runs} >= set(tickets.reviews)
        return started and all(r["status"] == "completed" or r["id"] in superseded for r in runs)

    await wait_until("supervision runs", reviews_done, tally)
    if tally.lost and tally.lost[-1].startswith("supervision runs"):
        tally.lost[-1] += f": {last}"
    tally.jobs["review (failed, sources changed since)"] = len(superseded)
    tickets.reviews += [r["id"] for r in last if r["id"] not in tickets.reviews]  # automatic

    # the lease is free and reviewing works after the faults: one more review completes
    final: list[str] = []

    def final_started() -> bool:
        answer = attempt(
            api,
            START_REVIEW,
            sc={"projectIds": [scope]},
            f=(BASE - timedelta(hours=1)).isoformat(),
            t=(BASE + timedelta(days=1)).isoformat(),
        )
        if answer is None:
            return False
        final.append(answer["startReview"]["id"])
        return True

    await wait_until("a review after the faults to start", final_started, tally)
    tickets.reviews += final
    status = "query($id: String!) { supervisionRun(id: $id) { status } }"
    await wait_until(
        "the review after the faults",
        lambda: (
            bool(final) and gql(api, status, id=final[0])["supervisionRun"]["status"] == "completed"
        ),
        tally,
    )
    await wait_until("supervision runs, again", reviews_done, tally)
    status_of = {r["id"]: r["status"] for r in last}
    tally.lost += [
        f"review {run_id}: {status_of.get(run_id)}"
        for run_id in tickets.reviews
        if status_of.get(run_id) != "completed" and run_id not in superseded
    ]
    tally.jobs["review (failed, continued to completion)"] = len(
        [r for r in continued if status_of.get(r) == "completed"]
    )

    pokes = iter(range(1, 10_000))

    def scheduler_tick() -> None:
        """The concern scheduler's minute tick, on the concerns' own (moved) clock."""
        tick = T0 + timedelta(minutes=31 + len(concerns), seconds=next(pokes))
        gql(api, SCHEDULER, now=tick.isoformat(), s=scope)

    async def everyone_asked() -> bool:
        """Every concern raised has asked both people. A concern's first turn may have been
        killed: its job is taken over once its in-progress key lapses (resilient_worker), or
        queued again by a scheduler tick, and until then the concern holds only the owner's
        note, so an outbox with nothing left to send does not yet mean the work is done (a
        fresh-clone run, seed 935258954, audited such a concern as never asking anybody)."""
        scheduler_tick()
        rows, _, _ = await neo4j_driver.execute_query(
            "MATCH (o:OutboxMessage {scope: $s}) WHERE o.concern_id IN $ids"
            " AND o.recipient_person_id IN ['p_zhangsan', 'p_lisi']"
            " RETURN count(DISTINCT [o.concern_id, o.recipient_person_id]) AS n",
            s=scope,
            ids=concerns,
            database_=settings.neo4j_database,
        )
        return int(rows[0]["n"]) == 2 * len(concerns)

    await wait_until("every concern asking both people", everyone_asked, tally)

    def outbox_done() -> bool:
        scheduler_tick()
        statuses = "pending sending failed".split()
        for person in ("p_owner", "p_zhangsan", "p_lisi"):
            left = gql(
                api,
                "query($s: String!, $p: String!, $st: [String!]) {"
                " concernMessages(scope: $s, personId: $p, status: $st) { totalCount } }",
                s=scope, p=person, st=statuses,
            )["concernMessages"]["totalCount"]  # fmt: skip
            if left:
                return False
        return True

    await wait_until("outbox", outbox_done, tally)


async def audit(
    api: Server,
    scope: str,
    tally: Tally,
    receiver: Webhook,
    driver: AsyncDriver,
    settings: Settings,
    watch_id: str,
    tickets: Tickets,
) -> None:
    db = settings.neo4j_database
    rows, _, _ = await driver.execute_query(
        "MATCH (o:OutboxMessage {scope: $s}) RETURN o.key AS key, o.status AS status,"
        " o.concern_id AS concern, o.recipient_person_id AS person, o.kind AS kind,"
        " o.text AS text, o.report_kinds AS report_kinds",
        s=scope,
        database_=db,
    )
    delivered = receiver.by_key()
    tally.jobs["outbox send"] += len(rows)
    seen: Counter[tuple[str, str, str, str]] = Counter()
    for r in rows:
        if r["status"] != "sent" or r["key"] not in delivered:
            tally.lost.append(
                f"outbox {r['key']} ({r['status']}, delivered: {r['key'] in delivered})"
            )
        seen[(r["concern"], r["person"], r["kind"], r["text"])] += 1
        tally.reposted += max(0, len(delivered.get(r["key"], [])) - 1)
    tally.duplicated += [f"message {k[:3]} stored {n} times" for k, n in seen.items() if n > 1]
    people = Counter((b["concern_id"], b["recipient"]["person_id"], b["kind"], b["text"])
                     for posts in delivered.values() for b in posts[:1])  # fmt: skip
    tally.duplicated += [f"message {k[:3]} sent under {n} keys" for k, n in people.items() if n > 1]
    asked = {(b["concern_id"], b["recipient"]["person_id"]) for posts in delivered.values()
             for b in posts if b["recipient"]["person_id"] != "p_owner"}  # fmt: skip
    for concern in tickets.concerns:  # the concerns raised, not the ones the outbox names
        for person in ("p_zhangsan", "p_lisi"):
            if (concern, person) not in asked:
                tally.lost.append(f"{person} was never asked for {concern}")
    timeline = "query($id: ID!) { concern(id: $id) { timeline { detail } } }"
    owner_told(
        tally,
        rows,
        tickets.concerns,
        {
            c: [t["detail"] for t in gql(api, timeline, id=c)["concern"]["timeline"]]
            for c in tickets.concerns
        },  # fmt: skip
        owner="p_owner",
        cap=ConcernPolicy().daily_report_cap,
    )

    runs, _, _ = await driver.execute_query(
        "MATCH (r:WatchRun {scope: $s, watch_id: $w}) RETURN r.id AS id, r.status AS status",
        s=scope, w=watch_id, database_=db,
    )  # fmt: skip
    per_check = Counter(r["id"] for r in runs)
    status = {r["id"]: r["status"] for r in runs}
    tally.lost += [f"watch check {c}: {status.get(c)}" for c in tickets.checks
                   if status.get(c) not in ("completed", "failed")]  # fmt: skip
    tally.duplicated += [f"watch check {c} ran {n} times" for c, n in per_check.items() if n > 1]
    # a heartbeat round of the app (every half hour) may check the watch too: its runs are
    # the app's own, not requests of this test
    tally.duplicated += [f"watch run {c} never requested" for c in per_check
                         if c not in tickets.checks and not c.startswith("round:")]  # fmt: skip

    beats, _, _ = await driver.execute_query(
        "MATCH (h:HeartbeatRun {deployment: $d}) RETURN h.id AS id, h.state AS state",
        d=settings.queue_name, database_=db,
    )  # fmt: skip
    per_beat = Counter(b["id"] for b in beats)
    state = {b["id"]: b["state"] for b in beats}
    tally.lost += [f"heartbeat {h}: {state.get(h)}" for h in tickets.heartbeats
                   if state.get(h) not in FINAL_HEARTBEAT]  # fmt: skip
    tally.duplicated += [f"heartbeat {h} stored {n} times" for h, n in per_beat.items() if n > 1]

    graph = gql(
        api,
        "query($s: String!) { storyGraph(scope: $s) { entities { name } events { title at } } }",
        s=scope,
    )["storyGraph"]
    names = Counter(e["name"] for e in graph["entities"])
    events = Counter((e["title"], e["at"]) for e in graph["events"])
    tally.duplicated += [f"entity {n} x{c}" for n, c in names.items() if c > 1]
    tally.duplicated += [f"event {t} x{c}" for t, c in events.items() if c > 1]
    results, _, _ = await driver.execute_query(
        "MATCH (r:SupervisionRun {deployment: $d}) WHERE r.result_id IS NOT NULL"
        " RETURN r.result_id AS result, count(*) AS runs",
        d=settings.queue_name, database_=db,
    )  # fmt: skip
    tally.duplicated += [
        f"result {r['result']} of {r['runs']} runs" for r in results if r["runs"] > 1
    ]
