"""The passage writers' former address, kept while `graph/signal/answers.py` still imports it
from here; they live in `graph.story.passages`, beside the source writes that call them."""

from graph.story.passages import entry_version, remove_passages, write_passages

__all__ = ["entry_version", "remove_passages", "write_passages"]
