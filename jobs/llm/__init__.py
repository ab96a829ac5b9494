"""The language model seen from the shell: the OpenAI-compatible HTTP client, its retry policy,
the SSE reader and the gateway the use cases call (contracts, prompts and the offline rule
model stay in `engine.llm`)."""
