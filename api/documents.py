"""Every parse of request text, and the one cache of parsed documents.

A GraphQL document is parsed only after its length is checked (at most
`graphql_max_document_bytes` UTF-8 bytes) and always with the token limit
(`graphql_max_tokens`): an oversized text is refused before any work, a text of too many
tokens stops the parser at the limit. The schema, the past cache and the protocol checks
(is it a subscription? does it parse?) all parse through here, so one text is parsed once.

Parsed documents are kept in one LRU bounded by bytes (`graphql_document_cache_bytes`), each
weighed by its text and its tokens (`TOKEN_BYTES` each, the memory one token's nodes take,
measured by `bench/document_memory.py`): distinct texts can fill it but never grow the
process past it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

from graphql import DocumentNode, GraphQLError, parse
from graphql.language import Token
from strawberry.extensions import SchemaExtension

from engine.settings import Settings

# bytes one token of a parsed document holds (its Token and its share of the nodes); a
# 4,000-token document of single-letter fields measured ~560 (bench/document_memory.py)
TOKEN_BYTES = 600


class DocumentTooLarge(GraphQLError):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            f"the GraphQL document is {size} bytes long; at most {limit} are accepted",
            extensions={"code": "INVALID_INPUT", "argument": "query", "limit": limit},
        )


def _tokens(document: DocumentNode) -> int:
    loc = document.loc
    token: Token | None = loc.start_token if loc is not None else None
    count = 0
    while token is not None:
        count += 1
        token = token.next
    return count


class Documents:
    """Parses request texts within the limits and keeps the parsed ones (module note)."""

    def __init__(self, max_bytes: int, max_tokens: int, cache_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.max_tokens = max_tokens
        self.cache_bytes = cache_bytes
        self._held: OrderedDict[str, tuple[DocumentNode, int]] = OrderedDict()
        self.size = 0

    @classmethod
    def of(cls, settings: Settings) -> Documents:
        return cls(
            settings.graphql_max_document_bytes,
            settings.graphql_max_tokens,
            settings.graphql_document_cache_bytes,
        )

    def check_size(self, text: str) -> None:
        """DocumentTooLarge when `text` is longer than the limit (counted without encoding
        when even its characters are within it)."""
        if len(text) * 4 <= self.max_bytes:
            return
        size = len(text.encode())
        if size > self.max_bytes:
            raise DocumentTooLarge(size, self.max_bytes)

    def parse(self, text: str) -> DocumentNode:
        """The parsed document, or a GraphQLError (too long, too many tokens, bad syntax)."""
        held = self._held.get(text)
        if held is not None:
            self._held.move_to_end(text)
            return held[0]
        self.check_size(text)
        document = parse(text, max_tokens=self.max_tokens)
        self._keep(text, document)
        return document

    def try_parse(self, text: str) -> DocumentNode | None:
        try:
            return self.parse(text)
        except GraphQLError:
            return None

    def _keep(self, text: str, document: DocumentNode) -> None:
        weight = 2 * len(text) + TOKEN_BYTES * _tokens(document)
        if weight > self.cache_bytes:
            return
        self._held[text] = (document, weight)
        self.size += weight
        while self.size > self.cache_bytes:
            _, (_, dropped) = self._held.popitem(last=False)
            self.size -= dropped

    def __len__(self) -> int:
        return len(self._held)


class ParseWithin(SchemaExtension):
    """The schema's parse step through `Documents` (strawberry's own parser cache counts
    entries, not bytes)."""

    def __init__(self, documents: Documents) -> None:
        self.documents = documents

    def on_parse(self) -> Iterator[None]:
        ctx = self.execution_context
        if ctx.graphql_document is None and ctx.query:
            self.documents.check_size(ctx.query)  # raised: the operation's only error
            # a text that does not parse is left to strawberry's own parse (token-limited
            # too), which answers its syntax error as it always has
            ctx.graphql_document = self.documents.try_parse(ctx.query)
        yield
