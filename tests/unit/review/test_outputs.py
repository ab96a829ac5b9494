"""docs/rules/reviews.md: leaf and navigation output contracts."""

from __future__ import annotations

import json

import pytest

from engine.errors import InvalidInput
from engine.review.outputs import (
    InvalidModelOutput,
    parse_leaf_output,
    parse_navigation_output,
)
from engine.review.types import StageName


def test_leaf_output_with_facts_is_accepted_and_keeps_extra_story_keys() -> None:
    raw = json.dumps(
        {
            "facts": [
                {
                    "text": "Team chose Postgres",
                    "refs": [{"sourceId": "s1", "version": "v1", "start": 0, "end": 40}],
                }
            ],
            "summary": "decision",
            "events": [{"title": "chose db"}],
        }
    )
    out = parse_leaf_output(raw)
    assert out.facts[0].text == "Team chose Postgres"
    assert out.facts[0].refs[0].source_id == "s1"
    assert out.model_extra == {"events": [{"title": "chose db"}]}


def test_leaf_output_with_an_empty_facts_array_is_valid() -> None:
    assert parse_leaf_output('{"facts": []}').facts == []


def test_leaf_output_without_facts_fails_keeping_the_raw_text() -> None:
    raw = '{"summary": "no facts here"}'
    with pytest.raises(InvalidModelOutput) as info:
        parse_leaf_output(raw)
    err = info.value
    assert isinstance(err, InvalidInput)
    assert err.raw_output == raw
    assert err.stage is StageName.LEAVES
    assert any(p.startswith("facts") for p in err.problems)


@pytest.mark.parametrize("raw", ["not json at all", "[1, 2]", '{"facts": "x"}', '{"facts": [{}]}'])
def test_malformed_leaf_output_is_a_typed_error_with_raw(raw: str) -> None:
    with pytest.raises(InvalidModelOutput) as info:
        parse_leaf_output(raw)
    assert info.value.raw_output == raw
    assert info.value.code.value == "INVALID_INPUT"


def test_fenced_json_is_accepted() -> None:
    assert parse_leaf_output('```json\n{"facts": []}\n```').facts == []


def test_navigation_may_omit_facts_or_give_an_empty_array() -> None:
    assert parse_navigation_output('{"summary": "week 1", "children": ["b0"]}').facts is None
    assert parse_navigation_output('{"summary": "s", "facts": []}').facts == []


def test_navigation_with_non_empty_facts_fails_as_it_would_replace_leaf_facts() -> None:
    raw = '{"summary": "s", "facts": [{"text": "rewritten"}]}'
    with pytest.raises(InvalidModelOutput) as info:
        parse_navigation_output(raw)
    assert info.value.stage is StageName.NAVIGATION
    assert info.value.raw_output == raw


def test_navigation_needs_a_summary() -> None:
    with pytest.raises(InvalidModelOutput):
        parse_navigation_output('{"children": []}')
