"""A prompt-grounded OpenAI-compatible `/v1/embeddings` stand-in for tests and the bench.

Its vector of a text is computed from that text alone: the text's character n-grams
(trigrams of each lower-cased word padded with spaces, and bigrams of Chinese runs), each
projected onto one of `dimensions` axes with a sign by a fixed hash, summed and normalised.
Texts sharing word pieces ("callbacks" and "callback", "timing" and "times") are close,
texts sharing none are orthogonal-ish; so a test that finds a paraphrase by its vector fails
when the product embeds the wrong text (or none). This is a TEST STAND-IN, never a product
embedding: storygraph without an endpoint is lexical (engine/search/vectors.py).

`down = True` answers 503 (an outage: the product's retries, then lexical search);
`inputs` lists every text it was sent.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.scripted_model import LoggedRequest, ScriptedModelServer

_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")


def grams(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word.isascii():
            padded = f" {word} "
            out.extend(padded[i : i + 3] for i in range(len(padded) - 2))
        else:
            out.extend(word[i : i + 2] for i in range(max(1, len(word) - 1)))
    return out


def vector_of(text: str, dimensions: int) -> list[float]:
    v = [0.0] * dimensions
    for g in grams(text):
        digest = hashlib.blake2b(g.encode(), digest_size=8).digest()
        axis = int.from_bytes(digest[:4], "big") % dimensions
        v[axis] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in v))
    if norm == 0:  # no word at all: a fixed unit vector (a real model answers something)
        v[0] = 1.0
        return v
    return [x / norm for x in v]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


EMBED_MODEL = "grounded-ngrams"  # the model name the tests configure for the stand-in
EMBED_DIMENSIONS = 256


class GroundedEmbeddingServer(ScriptedModelServer):
    """`POST /v1/embeddings` (and the scripted chat routes of its base)."""

    def __init__(self, dimensions: int = 256) -> None:
        super().__init__()
        self.dimensions = dimensions
        self.down = False
        self.inputs: list[str] = []
        self.embedding_calls = 0
        self.app.router.routes.append(Route("/v1/embeddings", self._embeddings, methods=["POST"]))

    async def _embeddings(self, request: Request) -> Response:
        body: dict[str, Any] = json.loads(await request.body())
        self.embedding_calls += 1
        self.requests.append(
            LoggedRequest(body=body, headers=dict(request.headers), at=time.monotonic())
        )
        if self.down:
            return JSONResponse({"error": {"message": "embedding model down"}}, status_code=503)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        self.inputs.extend(texts)
        data = [
            {"object": "embedding", "index": i, "embedding": vector_of(t, self.dimensions)}
            for i, t in enumerate(texts)
        ]
        tokens = sum(len(grams(t)) for t in texts)
        return JSONResponse(
            {
                "object": "list",
                "model": body.get("model", "grounded"),
                "data": data,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )
