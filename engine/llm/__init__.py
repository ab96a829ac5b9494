"""The model (LLM) gateway: the engine's one I/O edge.

`build_gateway(settings, http=...)` (jobs/llm/gateway.py) returns the HTTP gateway when a
model endpoint is configured and the offline rule model (engine/offline/) otherwise.
Retry policy: jobs/llm/retry.py (docs/rules/watches.md).
"""
