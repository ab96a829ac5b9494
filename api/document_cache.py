"""Validation of a GraphQL document once, not on every request.

graphql-core validates each request's document against the schema and the limit rules
(depth, aliases): for a 50-row page that was a sixth of the server's time, the same work
for the same text every time. A document that passed is remembered by its text (an LRU of
`size` texts), since validity depends only on the text, the schema and the rules, which are
fixed for a schema; it is remembered by the text's SHA-256, so the set holds 32 bytes a
text whatever the texts' length. A document that failed is validated again each time (its errors are
answered as they are found, never from a cache). A check that already answered before
validation (the variables' token budget) is left as it is.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterator

from graphql import validate
from strawberry.extensions import SchemaExtension

VALID_DOCUMENTS = 512


class ValidDocuments:
    """The texts known to validate (LRU), shared by every request of one schema."""

    def __init__(self, size: int = VALID_DOCUMENTS) -> None:
        self.size = size
        self._known: OrderedDict[bytes, None] = OrderedDict()

    def __contains__(self, text: str) -> bool:
        digest = hashlib.sha256(text.encode()).digest()
        if digest in self._known:
            self._known.move_to_end(digest)
            return True
        return False

    def add(self, text: str) -> None:
        self._known[hashlib.sha256(text.encode()).digest()] = None
        if len(self._known) > self.size:
            self._known.popitem(last=False)


class CachedValidation(SchemaExtension):
    """Validates the operation's document unless its text validated before."""

    def __init__(self, known: ValidDocuments) -> None:
        self.known = known

    def on_validate(self) -> Iterator[None]:
        ctx = self.execution_context
        text, document = ctx.query, ctx.graphql_document
        if ctx.pre_execution_errors is None and text is not None and document is not None:
            if text in self.known:
                ctx.pre_execution_errors = []
            else:
                errors = validate(ctx.schema._schema, document, ctx.validation_rules)
                ctx.pre_execution_errors = errors
                if not errors:
                    self.known.add(text)
        yield
