"""The story graph domain (docs/rules/story-graph.md): objects, versions, identity and corrections.

Pure code: models and decisions only. `graph.story` loads state from Neo4j, calls the
decisions here and writes what they return; the tests' reference model of the time
semantics replays the same decisions on an in-memory state.
"""
