from engine.concern.advance import InboundMessage
from engine.concern.model import RaiseConcernInput
from engine.concern.tools import tool_definitions


def _params(name: str) -> dict:  # type: ignore[type-arg]
    tools = {t["function"]["name"]: t["function"] for t in tool_definitions()}
    return tools[name]["parameters"]  # type: ignore[no-any-return]


def test_the_three_conversation_tools_and_no_resolve() -> None:
    names = [t["function"]["name"] for t in tool_definitions()]
    assert names == ["raise_concern", "advance_concern", "check_concerns"]
    assert all(t["type"] == "function" for t in tool_definitions())


def test_raise_concern_requires_scope_title_and_goal_like_the_api() -> None:
    params = _params("raise_concern")
    assert {"scope", "title", "goal"} <= set(params["required"])
    assert set(params["properties"]) - {"scope"} == set(
        RaiseConcernInput.model_json_schema()["properties"]
    )


def test_advance_concern_carries_the_reply_fields_the_api_validates() -> None:
    params = _params("advance_concern")
    assert {"scope", "concern_id", "person_id", "text", "ts"} <= set(params["required"])
    assert set(params["properties"]) - {"scope", "concern_id"} == set(InboundMessage.model_fields)
