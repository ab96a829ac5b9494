from api.schema import sdl
from engine.settings import PROJECT_ROOT


def test_exported_sdl_matches_the_code() -> None:
    exported = (PROJECT_ROOT / "schema.graphql").read_text(encoding="utf-8")
    assert exported == sdl(), "schema.graphql drifted: run `storygraph schema export`"
