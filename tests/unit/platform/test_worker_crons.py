"""WORKER_CRONS=false gives a worker that runs only the jobs it is given (tests that script a
model need it: a cron's job would spend a scripted answer); by default every cron runs."""

from engine.settings import Settings
from jobs.worker import worker_for


def test_a_worker_runs_the_crons_unless_told_not_to() -> None:
    default = worker_for(Settings.model_construct())
    names = {job.name for job in default.cron_jobs}
    assert {"reconcile"} <= names and len(names) >= 3, names
    quiet = worker_for(Settings.model_construct(worker_crons=False))
    assert quiet.cron_jobs == []
    crons = {
        "reconcile",
        "concern_scheduler",
        "heartbeat_tick",
        "heartbeat_retention",
        "watch_heartbeat_tick",
        "embed_sweep",
    }
    assert set(quiet.functions) == set(default.functions) - crons  # every job kind still runs


def test_worker_crons_is_read_from_the_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("WORKER_CRONS", "false")
    assert Settings().worker_crons is False
