from prometheus_client import CollectorRegistry, generate_latest

from engine.llm.accounting import Accounting, AttemptRecord, CallStats
from jobs.llm.metrics import ModelCollector


def test_model_counters_are_exported_for_prometheus() -> None:
    accounting = Accounting(2)
    accounting.metrics.record(
        CallStats(
            model="qwen",
            outcome="ok",
            prompt_tokens=120,
            completion_tokens=30,
            latency_seconds=1.5,
            attempts=[
                AttemptRecord(number=1, outcome="transient", status=503),
                AttemptRecord(number=2, outcome="ok"),
            ],
        )
    )
    accounting.metrics.record(
        CallStats(
            model="qwen",
            outcome="rate_limited",
            attempts=[AttemptRecord(number=1, outcome="rate_limited", status=429)],
        )
    )
    registry = CollectorRegistry()
    registry.register(ModelCollector(accounting))
    text = generate_latest(registry).decode()
    assert 'storygraph_model_calls_total{model="qwen"} 2.0' in text
    assert 'storygraph_model_retries_total{model="qwen"} 1.0' in text
    assert 'storygraph_model_prompt_tokens_total{model="qwen"} 120.0' in text
    assert 'storygraph_model_failures_total{model="qwen",outcome="rate_limited"} 1.0' in text
