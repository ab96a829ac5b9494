"""The domain: models, state machines, policies and validators.

Nothing here talks to Neo4j or Redis; the model (LLM) client is the one I/O edge.
"""
