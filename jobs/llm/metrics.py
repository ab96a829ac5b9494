"""Prometheus export of the model gateway's counters (calls, retries, tokens, latency)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from engine.llm.accounting import Accounting
from jobs.llm.ledger import STAGE_TOKENS


class ModelCollector(Collector):
    """Reads a snapshot at scrape time, so the gateway never waits on the exporter."""

    def __init__(self, accounting: Accounting) -> None:
        self.accounting = accounting

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        snap = self.accounting.metrics.snapshot()
        counters = {
            "calls": ("storygraph_model_calls", "model calls (one per gateway request)"),
            "attempts": ("storygraph_model_attempts", "HTTP attempts including retries"),
            "retries": ("storygraph_model_retries", "retries after transient failures"),
            "prompt_tokens": ("storygraph_model_prompt_tokens", "prompt tokens"),
            "completion_tokens": ("storygraph_model_completion_tokens", "completion tokens"),
            "latency_seconds_sum": ("storygraph_model_latency_seconds", "total call latency"),
        }
        for attr, (name, doc) in counters.items():
            family = CounterMetricFamily(name, doc, labels=["model"])
            for model, c in snap.items():
                family.add_metric([model], float(getattr(c, attr)))
            yield family
        failures = CounterMetricFamily(
            "storygraph_model_failures", "failed calls by outcome", labels=["model", "outcome"]
        )
        in_flight = GaugeMetricFamily(
            "storygraph_model_in_flight", "calls holding a slot", labels=["model"]
        )
        for model, c in snap.items():
            for outcome, n in c.failures.items():
                failures.add_metric([model, outcome], float(n))
            in_flight.add_metric([model], float(c.in_flight))
        yield failures
        yield in_flight


class StageTokenCollector(Collector):
    """Tokens of the metered model calls (cost ledger) by stage and model, this process."""

    def collect(self) -> Iterator[CounterMetricFamily]:
        tokens = CounterMetricFamily(
            "storygraph_model_stage_tokens",
            "tokens of model calls by stage, model and kind (prompt, completion)",
            labels=["stage", "model", "kind"],
        )
        calls = CounterMetricFamily(
            "storygraph_model_stage_calls",
            "model calls by stage and model",
            labels=["stage", "model"],
        )
        for (stage, model), (prompt, completion, n) in sorted(STAGE_TOKENS.snapshot().items()):
            tokens.add_metric([stage, model, "prompt"], float(prompt))
            tokens.add_metric([stage, model, "completion"], float(completion))
            calls.add_metric([stage, model], float(n))
        yield tokens
        yield calls


class LedgerTotalsCollector(Collector):
    """The cost ledger's deployment-wide totals by stage and model (read before a scrape),
    so the API's /metrics counts the calls every worker made."""

    def __init__(self, totals: list[tuple[str, str, int, int, int]]) -> None:
        self.totals = totals

    def collect(self) -> Iterator[CounterMetricFamily]:
        tokens = CounterMetricFamily(
            "storygraph_ledger_tokens",
            "tokens of recorded model calls by stage, model and kind, all workers",
            labels=["stage", "model", "kind"],
        )
        calls = CounterMetricFamily(
            "storygraph_ledger_calls",
            "recorded model calls by stage and model, all workers",
            labels=["stage", "model"],
        )
        for stage, model, n, prompt, completion in self.totals:
            tokens.add_metric([stage, model, "prompt"], float(prompt))
            tokens.add_metric([stage, model, "completion"], float(completion))
            calls.add_metric([stage, model], float(n))
        yield tokens
        yield calls
