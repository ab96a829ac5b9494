"""The heartbeat-watch jobs the worker registers (seed 000 持续关注).

- `run_watch_check`: one check of one watch under a stable run id (jobs/tasks/watch_check.py);
  arq's own retries are for deferral after a 429 only — the model request retries live in
  the gateway, so the two are never stacked for the same failure.
- `run_watch_round`: one heartbeat round over a scope's candidate watches: closes verified
  items and enqueues this round's check(s) (jobs/tasks/watch_round.py).
- `sync_watch_checkpoint`: the independent record sync of one checkpoint, with its own
  12-round cap (jobs/tasks/watch_sync.py).
"""

from __future__ import annotations

from arq.worker import Function, func

from engine.watch.budget import RECORD_SYNC_ROUNDS
from jobs.tasks.watch_check import run_watch_check
from jobs.tasks.watch_round import run_watch_round
from jobs.tasks.watch_sync import sync_watch_checkpoint

WATCH_FUNCTIONS: list[Function] = [
    func(run_watch_check, name="run_watch_check", max_tries=3),
    func(run_watch_round, name="run_watch_round", max_tries=3),
    func(sync_watch_checkpoint, name="sync_watch_checkpoint", max_tries=RECORD_SYNC_ROUNDS),
]
