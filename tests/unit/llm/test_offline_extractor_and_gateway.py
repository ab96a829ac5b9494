"""The review extractor and the gateway factory (HTTP vs offline)."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from engine.concern.loop_output import LoopStep
from engine.llm.tasks import LogEntry, LoopContext, Person, ReviewDocument
from engine.offline.extractor import extract, sentences
from engine.settings import Settings
from jobs.llm.gateway import HttpModelGateway, OfflineModelGateway, build_gateway

TEXT = (
    "张三说后端支付模块卡在第三方回调接口。李四确认前端部分周四能提测！"
    "王五：v2.0 的接口文档已经完成了。\n我们决定先用 mock 跑通主流程，详见 #123 和 "
    "https://git.example.com/mr/42 。Alice will send the report tomorrow. "
    "Can you approve the 《支付方案》?"
)


def doc() -> ReviewDocument:
    return ReviewDocument(
        source_id="src-1",
        text=TEXT,
        ts=datetime(2026, 3, 17, 10, 0),
        known_entities=["支付模块"],
        people=["张三", "李四", "王五"],
    )


def test_sentences_keep_offsets_into_the_original() -> None:
    spans = list(sentences(TEXT))
    assert len(spans) == 6
    assert TEXT[spans[0][0] : spans[0][1]] == "张三说后端支付模块卡在第三方回调接口。"


def test_extractor_finds_entities_by_kind() -> None:
    found = {(e.name, e.kind) for e in extract(doc()).entities}
    assert {
        ("张三", "person"),
        ("李四", "person"),
        ("王五", "person"),
        ("v2.0", "version"),
        ("#123", "issue"),
        ("https://git.example.com/mr/42", "url"),
        ("支付方案", "term"),
        ("支付模块", "other"),
    } <= found
    assert not any(name == "周四" for name, _ in found)
    assert not any(name == "Alice" for name, _ in found)  # a capitalised word is no person


def test_extractor_classifies_facts_and_resolves_their_times() -> None:
    result = extract(doc())
    kinds = [f.kind for f in result.facts]
    assert kinds == ["blocker", "commitment", "done", "decision", "commitment", "question"]
    by_id = {e.local_id: e.name for e in result.entities}
    first = result.facts[0]
    assert {by_id[i] for i in first.entity_ids} == {"张三", "支付模块"}
    # a promise happened when it was made (周四 and tomorrow are due times, on the signal)
    assert result.facts[1].at == datetime(2026, 3, 17, 10, 0)
    assert result.facts[4].at == datetime(2026, 3, 17, 10, 0)
    for fact in result.facts:
        assert TEXT[fact.span.start : fact.span.end] == fact.text


def test_local_ids_are_per_answer_and_names_are_not_merged_across_kinds() -> None:
    result = extract(
        ReviewDocument(source_id="s", text="@张三 说好的。张三说明天给。", people=["张三"])
    )
    assert [e.local_id for e in result.entities] == ["e1"]
    assert len(result.entities[0].mentions) == 2


def test_without_a_base_url_the_gateway_is_the_offline_rule_model() -> None:
    gateway = build_gateway(Settings(model_base_url=None))
    assert isinstance(gateway, OfflineModelGateway) and gateway.offline


async def test_offline_gateway_answers_and_counts_calls() -> None:
    gateway = build_gateway(Settings(model_base_url=None))
    ctx = LoopContext(
        goal="让张三确认方案",
        initiator=Person(person_id="p0"),
        counterparts=[Person(person_id="p1", display_name="张三")],
        conversation_log=[
            LogEntry(person_id="p1", direction="inbound", text="好", ts=datetime(2026, 3, 17, 10))
        ],
        now=datetime(2026, 3, 17, 11),
    )
    judged = await gateway.judge_loop(ctx)
    assert judged.value.step is LoopStep.RESOLVE
    assert judged.stats.retries == 0
    extraction = await gateway.extract_review(doc())
    assert extraction.value.facts
    assert gateway.accounting.metrics.snapshot()["offline-rules"].calls == 2


async def test_with_a_base_url_the_gateway_uses_the_shared_http_client() -> None:
    settings = Settings(
        model_base_url="http://127.0.0.1:9/v1",
        model_name="qwen",
        model_api_key="secret",
        model_deadline_seconds=42,
        model_concurrency=3,
    )
    async with httpx.AsyncClient() as http:
        gateway = build_gateway(settings, http=http)
        assert isinstance(gateway, HttpModelGateway) and not gateway.offline
        assert gateway.client.url == "http://127.0.0.1:9/v1/chat/completions"
        assert gateway.model == "qwen"
        assert gateway.client.deadline_seconds == 42
        assert gateway.accounting.limiter.limit == 3
    with pytest.raises(ValueError, match="httpx.AsyncClient"):
        build_gateway(settings)
