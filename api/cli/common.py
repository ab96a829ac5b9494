"""What every `storygraph` command shares: the settings read once from the environment, the
one-sentence failure, and the terminal's principal."""

from __future__ import annotations

from pydantic import ValidationError

from engine.principal import Principal
from engine.settings import Settings
from local.redis_server import with_redis_password

EXIT_USAGE = 2

# The operator at this machine's terminal, holding the service's own settings: every scope.
CLI_PRINCIPAL = Principal("cli", frozenset({"*"}), frozenset({"admin"}))


class CliError(Exception):
    """One sentence for the person at the terminal."""


def load_settings() -> Settings:
    try:
        settings = Settings.from_env()
    except ValidationError as exc:
        raise CliError(settings_problem(exc)) from None
    return with_redis_password(settings)


def settings_problem(exc: Exception) -> str:
    """One sentence naming the first bad setting, e.g. `API_TOKENS[0].roles: unknown role
    'edtor' (roles are reader, ...)`; never the value (it may be a secret)."""
    if not isinstance(exc, ValidationError) or not exc.errors():
        return f"the settings are invalid: {exc}"
    first = exc.errors()[0]
    loc = [str(p) for p in first["loc"]]
    where = (loc[0].upper() if loc else "settings") + "".join(
        f"[{p}]" if p.isdigit() else f".{p}" for p in loc[1:]
    )
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "missing":
        message = "it is missing"
        if loc[-1] == "scopes":
            message += ' (a token names its scopes: project ids, "global", or "*" for all)'
    more = len(exc.errors()) - 1
    tail = f" ({more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"the setting {where} is invalid: {message}{tail}."
