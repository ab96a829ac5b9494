"""Redaction of tool results and resume summaries (last paragraphs; docs/rules/watches.md).

- JSON tool results are redacted field by field ("JSON 工具结果逐字段脱敏"): a credential
  field has its own value replaced and nothing else, so it can never swallow the evidence
  fields that follow it. Non-JSON text is redacted token by token; a credential value ends
  at the first character that cannot belong to a token.
- URLs end before Chinese punctuation, Markdown code boundaries (backticks) and line
  breaks; the text after them is kept. Inside a URL only the credential parts (user info,
  credential query parameters) are replaced.
- Resume summaries have a length cap; a cut summary says what was cut and lists the sources
  to re-read ("续跑摘要仍有长度上限，截断部分必须重读").
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from engine.watch.model import Frozen

REDACTED = "[REDACTED]"
MAX_RESUME_CHARS = 4000

_CREDENTIAL_WORDS = (
    "password|passwd|pwd|secret|token|apikey|api_key|access_key|private_key|authorization"
    "|cookie|set_cookie|credential|credentials|client_secret|signature|sig|session|sessionid"
)
_CREDENTIAL_KEY = re.compile(rf"(?:^|_)(?:{_CREDENTIAL_WORDS})(?:$|_)")

# Characters that end a URL: whitespace, Markdown code boundary, quotes/brackets, and
# Chinese (full-width) punctuation.
_URL_STOP = "\\s`\"'<>\\[\\]（）()。，；：！？、）」』】《》〈〉“”‘’「『【…—"
_URL = re.compile(rf"https?://[^{_URL_STOP}]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?"

_TOKEN_CHARS = r"[A-Za-z0-9\-._~+/=%]+"
_BEARER = re.compile(rf"\b(Bearer|Basic)\s+{_TOKEN_CHARS}", re.IGNORECASE)
_ASSIGNMENT = re.compile(
    rf"(?P<key>\b[A-Za-z][A-Za-z0-9_\-]*)(?P<sep>\s*[:=]\s*)(?P<quote>[\"']?)(?P<value>{_TOKEN_CHARS})",
)
_USERINFO = re.compile(r"^(?P<scheme>https?://)(?P<userinfo>[^/@]+)@", re.IGNORECASE)
_QUERY_PARAM = re.compile(r"(?P<sep>[?&;])(?P<key>[^=&;#]+)=(?P<value>[^&;#]*)")


_CREDENTIAL_WORDS_ZH = ("密码", "口令", "令牌", "密钥", "凭据", "凭证")


def is_credential_key(key: str) -> bool:
    if any(word in key for word in _CREDENTIAL_WORDS_ZH):
        return True
    normal = re.sub(r"[^a-z0-9]+", "_", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower())
    return bool(_CREDENTIAL_KEY.search(normal.strip("_")))


# --- URLs ---------------------------------------------------------------------------------


def find_urls(text: str) -> list[str]:
    """URLs in text, each ending before Chinese punctuation, a backtick or a line break."""
    return [m.group(0).rstrip(_URL_TRAILING) for m in _URL.finditer(text)]


def _redact_url(url: str) -> str:
    url = _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", url)

    def param(m: re.Match[str]) -> str:
        if is_credential_key(m["key"]) and m["value"]:
            return f"{m['sep']}{m['key']}={REDACTED}"
        return m.group(0)

    return _QUERY_PARAM.sub(param, url)


def _redact_urls(text: str) -> tuple[str, list[tuple[int, int]]]:
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    last = 0
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(_URL_TRAILING)
        start = m.start()
        out.append(text[last:start])
        redacted = _redact_url(url)
        spans.append((sum(len(p) for p in out), sum(len(p) for p in out) + len(redacted)))
        out.append(redacted)
        last = start + len(url)
    out.append(text[last:])
    return "".join(out), spans


# --- text and JSON ------------------------------------------------------------------------


def redact_text(text: str) -> str:
    """Redact credentials in free text without touching what follows them."""
    text, url_spans = _redact_urls(text)

    def outside_urls(pos: int) -> bool:
        return not any(a <= pos < b for a, b in url_spans)

    def bearer(m: re.Match[str]) -> str:
        return f"{m.group(1)} {REDACTED}" if outside_urls(m.start()) else m.group(0)

    def assignment(m: re.Match[str]) -> str:
        if not outside_urls(m.start()) or not is_credential_key(m["key"]):
            return m.group(0)
        if m["value"].lower() in ("bearer", "basic"):
            return m.group(0)
        return f"{m['key']}{m['sep']}{m['quote']}{REDACTED}"

    text = _BEARER.sub(bearer, text)
    return _ASSIGNMENT.sub(assignment, text)


def redact_json(value: Any) -> Any:
    """Redact a parsed JSON value field by field."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if (
                is_credential_key(str(key))
                and isinstance(item, str | int | float)
                and not (isinstance(item, bool))
            ):
                out[key] = REDACTED if item != "" else item
            else:
                out[key] = redact_json(item)
        return out
    if isinstance(value, list):
        return [redact_json(item) for item in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def redact_tool_result(result: str) -> str:
    """Redact one tool result: as JSON field by field when it parses, else as text."""
    try:
        parsed = json.loads(result)
    except ValueError:
        return redact_text(result)
    if not isinstance(parsed, dict | list):
        return redact_text(result)
    return json.dumps(redact_json(parsed), ensure_ascii=False)


# --- resume summaries ---------------------------------------------------------------------


class ToolSummary(Frozen):
    """One tool result as remembered for a resumed check."""

    tool: str
    source_key: str | None = None
    text: str

    def render(self) -> str:
        where = f" {self.source_key}" if self.source_key else ""
        return f"[{self.tool}{where}] {self.text}"


class ResumeSummary(Frozen):
    text: str
    truncated: bool = False
    omitted_chars: int = 0
    reread: tuple[str, ...] = Field(default=())


def build_resume_summary(
    entries: Sequence[ToolSummary], cap: int = MAX_RESUME_CHARS
) -> ResumeSummary:
    """Redacted tool summaries within `cap` characters, cut ones marked for re-reading."""
    if cap < 200:
        raise ValueError("a cap below 200 characters leaves no room to say what was cut")
    rendered = [e.model_copy(update={"text": redact_tool_result(e.text)}).render() for e in entries]
    full = "\n".join(rendered)
    if len(full) <= cap:
        return ResumeSummary(text=full)
    reserve = min(cap // 3, 600)
    body_cap = cap - reserve
    body: list[str] = []
    used = 0
    cut: list[ToolSummary] = []
    for entry, line in zip(entries, rendered, strict=True):
        needed = len(line) + (1 if body else 0)
        if not cut and used + needed <= body_cap:
            body.append(line)
            used += needed
            continue
        if not cut and body_cap - used > 40:
            room = body_cap - used - (1 if body else 0)
            body.append(line[:room])
            used = body_cap
        cut.append(entry)
    reread = tuple(dict.fromkeys(e.source_key or e.tool for e in cut))
    omitted = len(full) - used
    marker = f"\n[截断/truncated: {omitted} characters omitted; re-read: {', '.join(reread)}]"
    if len(marker) > reserve:
        marker = marker[: reserve - 2] + "…]"
    return ResumeSummary(
        text="\n".join(body) + marker, truncated=True, omitted_chars=omitted, reread=reread
    )
