"""The review precision bench with a model endpoint (bench/review_precision.py --standin):
the labelled public messages go through the review's leaf to the prompt-grounded stand-in,
which answers only from what the request carries. On a slice of MADial-Bench (English and
Chinese) every labelled event comes back cited to its own message and every speaker is an
entity: the product sent each message and read the answer back. A request that withheld
the messages gets nothing back, and this fails."""

from __future__ import annotations

import json

import httpx

from bench.review_precision import DATA, review
from engine.settings import Settings
from jobs.llm.gateway import build_gateway
from tests.support.grounded_review import leaf_requests, review_answer
from tests.support.scripted_model import ScriptedModelServer


async def test_the_labelled_slice_goes_through_the_stand_in_and_comes_back_cited() -> None:
    corpora = json.loads(DATA.read_text(encoding="utf-8"))["corpora"]
    slices = [c["messages"][:20] for c in corpora if c["name"].startswith("madial")]
    assert len(slices) == 2
    with ScriptedModelServer() as model:
        model.answer_with(review_answer)
        async with httpx.AsyncClient() as http:
            gateway = build_gateway(Settings(model_base_url=model.base_url), http=http)
            for messages in slices:
                model.reset()
                model.answer_with(review_answer)
                got = await review(messages, gateway)
                [sent] = leaf_requests(model)
                assert len(sent["segments"]) == len(messages)
                labelled = sum(1 for m in messages if m["event"])
                assert labelled > 0
                assert (got["event"].found, got["event"].gold) == (labelled, labelled)
                speakers = {m["speaker"] for m in messages}
                assert got["entity"].tp >= len(speakers)
                assert got["entity"].precision() == 1.0  # nothing the request did not carry
