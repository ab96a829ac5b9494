"""The checker's conversation: instructions, the opening context and the final answer.

The final observation is a JSON object in the model's last text answer:
`{"summary": str, "changed": bool, "workflowChecks": [{stepId, status, evidence}]}` —
`workflowChecks` may also arrive in the closing round without tools (docs/rules/watches.md).
Nothing here names a site, proxy or publishing platform (docs/rules/watches.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.watch.handoff import HandOffLedger
from engine.watch.model import Watch
from engine.watch.outcome import ReferenceEvidence, reference_note

SYSTEM = """You are a heartbeat checker (持续关注). You decide whether the bound sources changed
and whether follow-up execution may start; you never execute steps yourself.
1. Read every bound source to its end with heartbeat_read_note_source /
   heartbeat_read_knowledge_source (paged; each read returns a sourceKey). Titles are exact.
2. Register the check and execute steps you find with heartbeat_check_workflow `steps` (whole
   list; each step cites the sourceKey it came from, its method/preconditions and completion
   criteria). A condition the document says must be verified during the check is a check step.
3. Record status and evidence from the sources with heartbeat_check_workflow `update.updates`
   (one batch) or in the final answer's workflowChecks. Execute steps stay pending.
   Save a check artefact for the record location with heartbeat_record_checkpoint.
   There is no command tool: you run no commands.
4. Answer without tools with one JSON object:
   {"summary": "...", "changed": true|false, "workflowChecks": [{"stepId", "status", "evidence"}]}
Old evidence is reference only; verify again now."""

CLOSING = (
    "No tool rounds are left. Give the final JSON observation now, without tools; "
    "include workflowChecks for the steps you verified."
)


def opening(
    watch: Watch,
    references: tuple[ReferenceEvidence, ...],
    ledger: HandOffLedger,
    resume_summary: str,
    resume_truncated: bool,
    resume_reread: tuple[str, ...],
) -> str:
    """The first user message: the watch, what was delivered before and earlier material."""
    lines = [f"Watch {watch.watch_id}: {watch.title}".rstrip(": ")]
    lines.append("Bound sources:")
    for b in watch.bindings:
        key = b.key.value if b.key is not None else f"library {b.library_id} (documents inside)"
        lines.append(f"- {key} 「{b.title}」")
    if watch.tag_limits:
        lines.append("Tag limits: " + ", ".join(sorted(watch.tag_limits)))
    if ledger.delivered:
        lines.append(
            "Already handed off (check what was delivered before proposing the same work): "
            + ", ".join(sorted(ledger.delivered))
        )
    note = reference_note(references)
    if note:
        lines.append(note)
    if resume_summary:
        lines.append("Previous tool summaries (redacted, reference only):")
        lines.append(resume_summary)
        if resume_truncated:
            lines.append("The summary was cut; re-read: " + ", ".join(resume_reread))
    return "\n".join(lines)


@dataclass(frozen=True)
class FinalAnswer:
    summary: str
    changed: bool
    workflow_checks: list[dict[str, Any]] | None


_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_answer(text: str) -> FinalAnswer:
    """The observation in the model's answer; plain text is a summary without checks."""
    match = _OBJECT.search(text or "")
    if match is not None:
        try:
            value = json.loads(match.group(0))
        except ValueError:
            value = None
        if isinstance(value, dict):
            checks = value.get("workflowChecks")
            return FinalAnswer(
                summary=str(value.get("summary") or ""),
                changed=bool(value.get("changed")),
                workflow_checks=[c for c in checks if isinstance(c, dict)]
                if isinstance(checks, list)
                else None,
            )
    return FinalAnswer(summary=(text or "").strip(), changed=False, workflow_checks=None)
