"""A GraphQL operation run in process on the real schema (no HTTP), as the open principal:
for integration tests that read what the API answers over the real Neo4j."""

from __future__ import annotations

from typing import Any

from api.context import Context
from api.schema import build_schema
from engine.principal import OPEN_PRINCIPAL
from engine.settings import Settings


async def graphql(
    settings: Settings,
    driver: Any,
    query: str,
    variables: dict[str, Any] | None = None,
    *,
    pool: Any = None,
) -> dict[str, Any]:
    """The operation's data; any error fails the test with the errors."""
    context = Context(
        request=None,  # type: ignore[arg-type]
        settings=settings,
        driver=driver,
        pool=pool,
        principal=OPEN_PRINCIPAL,
    )
    result = await build_schema().execute(query, variable_values=variables, context_value=context)
    assert result.errors is None, result.errors
    assert result.data is not None
    return result.data
