"""The domain: models, state machines, policies, validators, prompts and the offline rule model.

Nothing here does I/O: Neo4j, Redis and the language model's HTTP client all belong to the
shell (`jobs/`, `graph/`). A decision takes state and an event (and `now`) and returns the new
state plus the effects for the shell to perform.
"""
