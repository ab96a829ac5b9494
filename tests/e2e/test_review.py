"""Supervision review across real processes: `storygraph serve`, `storygraph worker` (two of
them, one killed with SIGKILL mid-leaf), Neo4j, Redis and the scripted model server.

docs/rules/reviews.md: 重开应用将没有完成的监督运行标为失败 … 继续保留成功叶子和导航节点. The run
is continued on the second worker with nothing lost (every batch committed) and nothing
duplicated (the batch committed before the kill is not asked again, one event per batch).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import uuid
from datetime import UTC, datetime, timedelta

import redis

from engine.settings import Settings
from tests.support.grounded_review import sent_texts
from tests.support.polling import until
from tests.support.processes import forget_queue, process_env, spawn, stop
from tests.support.review_api import RUN, gql, leaf, wait_run
from tests.support.scripted_model import ScriptedModelServer, text

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)


def test_worker_killed_mid_leaf_then_run_continues_with_nothing_lost_or_duplicated(
    services: Settings,
    start_server,  # type: ignore[no-untyped-def]
    model_server: ScriptedModelServer,
    scope: str,
) -> None:
    queue = f"{services.queue_name}:review-e2e-{uuid.uuid4().hex[:6]}"
    api = start_server(QUEUE_NAME=queue)
    env = process_env(services, QUEUE_NAME=queue, MODEL_BASE_URL=model_server.base_url)
    r = redis.Redis.from_url(services.effective_redis_url)
    workers = []
    try:
        gql(api, "mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }")
        lines = "".join(
            f"[{(BASE + timedelta(minutes=i)).isoformat()}] 成员{i % 4}: "
            f"第{i}条 v2.0 提测进展说明，问题 #{1000 + i} 已处理，等待回归\n"
            for i in range(160)
        )
        gql(
            api,
            "mutation($s: UpsertSourceInput!) { upsertSource(input: $s) { id } }",
            s={
                "scope": scope,
                "id": "chat-e2e",
                "kind": "CONVERSATION",
                "version": "v1",
                "text": lines,
            },
        )
        # batch 1's answer is held (never released): the worker is killed while it waits
        model_server.script(leaf("批0"), leaf("批1-慢", hold=threading.Event()))
        started = gql(
            api,
            "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
            " startReview(scope: $sc, from: $f, to: $t) { id status } }",
            sc={"projectIds": [scope]},
            f=(BASE - timedelta(hours=1)).isoformat(),
            t=(BASE + timedelta(days=1)).isoformat(),
        )["startReview"]
        run_id = started["id"]
        assert started["status"] == "running"
        workers.append(spawn(["worker"], env))
        until(lambda: model_server.calls, lambda n: n >= 2, "the second leaf at the model")
        assert model_server.calls == 2
        before = gql(api, RUN, id=run_id)["supervisionRun"]
        assert [b["state"] for b in before["batches"]][:2] == ["committed", "pending"]
        n = len(before["batches"])
        assert n >= 3
        os.kill(workers[0].pid, signal.SIGKILL)  # mid-leaf: batch 1 is with the model
        workers[0].wait(timeout=10)

        alive = f"storygraph:alive:{queue}:*"
        until(lambda: list(r.scan_iter(match=alive)), lambda keys: not keys, "liveness lapsed", 20)
        model_server.script(
            *[leaf(f"批{i}") for i in range(1, n)],
            text(json.dumps({"summary": "阶段总结"}, ensure_ascii=False)),
        )
        workers.append(spawn(["worker"], env))
        failed = wait_run(api, run_id, "failed")  # worker-start recovery
        assert failed["error"]["kind"] == "worker_lost"
        assert [b["state"] for b in failed["batches"]][0] == "committed"

        gql(api, "mutation($id: String!) { continueReview(id: $id) { id status } }", id=run_id)
        done = wait_run(api, run_id, "completed")
        assert [b["state"] for b in done["batches"]] == ["committed"] * n
        assert [b["attempts"] for b in done["batches"]] == [1] * n  # nothing redone twice
        assert [s["state"] for s in done["stages"]] == ["saved"] * 4
        assert model_server.calls == 2 + (n - 1) + 1
        # each scripted leaf answer stood for the messages its request carried: the batch cut
        # by the kill was sent again with the same messages, and the batches sent cover the
        # conversation once, in order
        sent = sent_texts(model_server)
        assert len(sent) == n + 1 and sent[1] == sent[2]
        assert "".join(sent[:1] + sent[2:]) == lines
        result = gql(
            api,
            "query($s: String!, $id: ID!) { result(scope: $s, id: $id) { events { id } } }",
            s=scope,
            id=done["resultId"],
        )
        assert len(result["result"]["events"]) == n  # one event per batch, no duplicates
    finally:
        for proc in workers:
            if proc.poll() is None:
                stop(proc)
            elif proc.stderr is not None:
                proc.stderr.close()
        forget_queue(r, queue)
        r.close()
