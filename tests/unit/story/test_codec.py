"""Story rows decode only their models' own instant fields (graph.story.codec.from_props):
that is complete only while every story model holds an instant in a `datetime` field (not
in a list, a tuple or another model), which this checks for every model there is."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from neo4j.time import DateTime
from pydantic import BaseModel

from engine.story import models
from graph.story.codec import from_props, instant_fields

MODELS = sorted(
    (
        c
        for c in vars(models).values()
        if isinstance(c, type) and issubclass(c, BaseModel) and c.__module__ == models.__name__
    ),
    key=lambda c: c.__name__,
)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_a_story_model_holds_instants_only_in_datetime_fields(cls: type[BaseModel]) -> None:
    nested = {
        n
        for n, f in cls.model_fields.items()
        if "datetime" in repr(f.annotation) and n not in instant_fields(cls)
    }
    assert nested == set(), cls


def test_an_event_row_decodes_epoch_microseconds_and_driver_datetimes_alike() -> None:
    at = datetime(1899, 12, 31, 15, 59, 59, 987654, tzinfo=UTC)
    recorded = datetime(2026, 12, 4, 10, 0, 0, 123456, tzinfo=UTC)
    row = {"id": "evt_1", "scope": "p1", "seq": 1, "by": "user:u1", "title": "t"}
    row |= {"result_id": "res_1", "retracted_at": 253402214400000000}
    as_ints = from_props(
        models.Event,
        {**row, "at": -2209017600012346, "recorded_at": 1796378400123456},
    )
    as_driver = from_props(
        models.Event,
        {**row, "at": DateTime.from_native(at), "recorded_at": DateTime.from_native(recorded)},
    )
    assert as_ints.at == as_driver.at == at
    assert as_ints.recorded_at == as_driver.recorded_at == recorded
    assert as_ints.by == models.Actor.user("u1")
    assert as_ints.retracted_at is None  # the open end: not retracted
