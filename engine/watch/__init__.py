"""Heartbeat watches (docs/rules/watches.md): the pure rules of a checker run.

No I/O here; `now` is always passed in. Entry points for the jobs and graph layers
(state + event + now -> new state + effects):

- run.start_run / read_page / register_workflow / record_evidence / finish_round / conclude:
  one `CheckRun` value through a check (composes the modules below).
- access.authorize_read, stop_watch, delete_watch, resume_watch, replace_bindings,
  recover_grants, resolve_title: read grants and their revocation effects.
- paging.record_page: a page read; revision changes revoke the step list.
- steps.check_workflow: the whole step list or an InvalidInput naming every problem.
- evidence.apply_evidence: `updates` / `workflowChecks`, all or nothing.
- outcome.judge_check, correction_prompt, record_execution_result, as_reference,
  facts_recorded / deliverable_done / delivery_state (事实已记录 vs 交付物已完成).
- budget.spend, spend_sync_round; canonical (the tool an older name stands for).
- handoff.complete_observation, deliver, execution_key.
- delivery.delivered / failed (retry after 1, 3, 9 s, then dead), webhook_payload: how a
  stored hand-off reaches the partner session.
- checkpoint.record_checkpoint, apply_sync_result, run_report.
- redaction.redact_tool_result, build_resume_summary.
- candidates.plan_round, settle_round; heartbeat_round.decide_round (one round over a
  scope's candidates: close verified items, check one, or all on full verification).
- receipts.recognize_receipt; report.settle_report (the partner session's report on a
  hand-off).
- offline.OfflineWatchChecker (with offline_steps): the deterministic checker used instead
  of the HTTP model when no MODEL_BASE_URL is set.
"""
