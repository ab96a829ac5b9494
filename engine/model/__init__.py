"""The model (LLM) gateway: the engine's one I/O edge.

`build_gateway(settings, http=...)` (engine/model/gateway.py) returns the HTTP gateway when a
model endpoint is configured and the offline rule model (engine/model/offline/) otherwise.
Retry policy: engine/model/retry.py (seed 000 模型连接异常).
"""
