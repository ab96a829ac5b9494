"""Benchmark: what a review states on conversations no one here wrote, against hand labels.

`bench/data/review_precision.json` holds 345 messages of four public corpora (an English
IRC support channel, a Chinese film chat, the first ten English and ten Chinese dialogues of
MADial-Bench; sources, commits and licences named in the file),
each labelled by hand: the entities it names or is said by, whether it states something that
happened, was done, decided or promised (an event), and the signal it carries. The messages
are pushed the way an app writes them ("[time] speaker: text"), cut into leaf batches and
answered by the review's own leaf (`jobs.review.model.leaf_answer`) with the default offline
model; each fact's signal is derived as the publish stage derives it.

MADial-Bench's labels were written before the rules for what happened were; its dialogues
0-4 were the rules' development part and 5-9 are held out, printed apart.
Printed per corpus and overall: entity, event and signal precision with recall beside them,
and, as the baseline measured in the same run, the same figures for "every sentence is a fact
and every capitalised word a person" (what the rules did before precision came first).
Targets: entity precision >= 0.95, event >= 0.8, signal >= 0.9 (docs/rules/precision.md).
No service is needed. Run: `.venv/bin/python -m bench.review_precision`.
`--standin` runs the same set through the leaf with a model endpoint, the prompt-grounded
stand-in on loopback: it proves the pipeline, not a model (no targets apply).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from engine.offline.extractor import sentences
from engine.review.types import Segment
from engine.settings import Settings
from engine.signal.derive import from_fact
from engine.signal.model import Passage
from jobs.llm.gateway import build_gateway
from jobs.review.model import Gateway, leaf_answer
from tests.support.grounded_review import review_answer
from tests.support.scripted_model import ScriptedModelServer

DATA = Path(__file__).parent / "data" / "review_precision.json"
BATCH = 20  # messages per leaf batch
TARGETS = {"entity": 0.95, "event": 0.8, "signal": 0.9}
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")


@dataclass
class Tally:
    tp: int = 0
    predicted: int = 0
    gold: int = 0
    found: int = 0

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.predicted += other.predicted
        self.gold += other.gold
        self.found += other.found

    def precision(self) -> float:
        """1.0 when nothing was stated (no false statement); printed as n/a beside it."""
        return self.tp / self.predicted if self.predicted else 1.0

    def shown(self) -> str:
        if not self.predicted:
            return "n/a (nothing stated)"
        return f"{self.precision():.3f} ({self.tp}/{self.predicted})"

    def recall(self) -> float:
        return self.found / self.gold if self.gold else 1.0


def _norm(name: str) -> str:
    return " ".join(name.split()).strip().lower()


async def review(
    messages: Sequence[dict[str, Any]], gateway: Gateway | None = None
) -> dict[str, Tally]:
    """The review's leaf over the messages, batch by batch, scored against their labels:
    with the offline model unless `gateway` is given (`--standin`: the prompt-grounded
    stand-in over HTTP, which can name only what the request carries)."""
    gateway = gateway or build_gateway(Settings(model_base_url=None))
    tallies = {"entity": Tally(), "event": Tally(), "signal": Tally()}
    for first in range(0, len(messages), BATCH):
        batch = messages[first : first + BATCH]
        text, starts, times, segments = "", [], {}, []
        for m in batch:
            line = f"[{m['at']}] {m['speaker']}: {' '.join(m['text'].split())}\n"
            start = len(text)
            text += line
            starts.append(start)
            seg = Segment(source_id="chat", version="v1", start=start, end=len(text))
            segments.append(seg)
            times[("chat", "v1", start)] = datetime.fromisoformat(m["at"])
        raw = await leaf_answer(gateway, segments, {("chat", "v1"): text}, times=times)
        out = json.loads(raw)

        def owner(
            pos: int, batch: Sequence[dict[str, Any]] = batch, starts: list[int] = starts
        ) -> dict[str, Any]:
            return batch[max(i for i, s in enumerate(starts) if s <= pos)]

        gold_names = {_norm(n) for m in batch for n in m["entities"]}
        predicted = {_norm(e["name"]) for e in out["entities"]}
        tallies["entity"].add(
            Tally(
                len(predicted & gold_names),
                len(predicted),
                len(gold_names),
                len(predicted & gold_names),
            )
        )
        with_event: set[int] = set()
        signals: dict[int, set[str]] = {}
        for fact in out["facts"]:
            m = owner(fact["refs"][0]["start"])
            with_event.add(m["n"])
            passage = Passage(source_id="chat", source_version="v1", locator="chars:0-1")
            draft = from_fact(
                fact.get("kind", "statement"),
                fact["text"],
                passage,
                times[("chat", "v1", starts[batch.index(m)])],
                "UTC",
            )
            if draft is not None:
                signals.setdefault(m["n"], set()).add(str(draft.kind))
        gold_events = {m["n"] for m in batch if m["event"]}
        tallies["event"].add(
            Tally(
                len(with_event & gold_events),
                len(with_event),
                len(gold_events),
                len(with_event & gold_events),
            )
        )
        gold_signals = {m["n"]: m["signal"] for m in batch if m["signal"]}
        hits = sum(1 for n, kinds in signals.items() for k in kinds if gold_signals.get(n) == k)
        tallies["signal"].add(
            Tally(
                hits,
                sum(len(k) for k in signals.values()),
                len(gold_signals),
                sum(1 for n, k in gold_signals.items() if k in signals.get(n, set())),
            )
        )
    return tallies


def baseline(messages: Sequence[dict[str, Any]]) -> dict[str, Tally]:
    """Every sentence a fact, every capitalised word and every speaker a person; no signal."""
    tallies = {"entity": Tally(), "event": Tally(), "signal": Tally()}
    for first in range(0, len(messages), BATCH):
        batch = messages[first : first + BATCH]
        gold_names = {_norm(n) for m in batch for n in m["entities"]}
        predicted = {_norm(m["speaker"]) for m in batch} | {
            _norm(w) for m in batch for w in _CAPITALISED.findall(m["text"])
        }
        tallies["entity"].add(
            Tally(
                len(predicted & gold_names),
                len(predicted),
                len(gold_names),
                len(predicted & gold_names),
            )
        )
        stated = {m["n"] for m in batch if any(True for _ in sentences(m["text"]))}
        gold_events = {m["n"] for m in batch if m["event"]}
        tallies["event"].add(
            Tally(
                len(stated & gold_events), len(stated), len(gold_events), len(stated & gold_events)
            )
        )
        tallies["signal"].gold += sum(1 for m in batch if m["signal"])
    return tallies


def table(name: str, tallies: dict[str, Tally], base: dict[str, Tally]) -> list[str]:
    rows = []
    for kind, t in tallies.items():
        b = base[kind]
        rows.append(
            f"{name:<12} {kind:<7} precision {t.shown()}"
            f"  recall {t.recall():.3f} ({t.found}/{t.gold})"
            f"  | baseline precision {b.shown()} recall {b.recall():.3f}"
        )
    return rows


async def standin() -> None:
    """The same labelled set through the review's leaf with a model endpoint: the
    prompt-grounded stand-in (tests/support/grounded_review.py), one fact per message it was
    sent, entities only the speakers and names the request carries. Its figures prove the
    pipeline (what the product sends and reads back), not a model: event precision is the
    share of messages that state something, recall is 1.0 only if every message reached the
    model and came back cited."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    with ScriptedModelServer() as model:
        model.answer_with(review_answer)
        async with httpx.AsyncClient() as http:
            gateway = build_gateway(Settings(model_base_url=model.base_url), http=http)
            overall = {k: Tally() for k in TARGETS}
            total = 0
            for corpus in data["corpora"]:
                got = await review(corpus["messages"], gateway)
                total += len(corpus["messages"])
                for k in TARGETS:
                    overall[k].add(got[k])
                print("\n".join(table(f"{corpus['name']}", got, baseline(corpus["messages"]))))
            print("\n".join(table(f"all ({total})", overall, overall)))
            print(f"stand-in requests: {model.calls} (the pipeline, not a model)")


async def main() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    overall = {k: Tally() for k in TARGETS}
    overall_base = {k: Tally() for k in TARGETS}
    total = 0
    for corpus in data["corpora"]:
        messages = corpus["messages"]
        total += len(messages)
        got = await review(messages)
        base = baseline(messages)
        for k in TARGETS:
            overall[k].add(got[k])
            overall_base[k].add(base[k])
        print("\n".join(table(f"{corpus['name']}", got, base)))
        if "held_out_from_dialogue" in corpus:  # the rules were written on the part before it
            cut = corpus["held_out_from_dialogue"]
            for part, rows in (
                ("dev", [m for m in messages if m["dialogue"] < cut]),
                ("held-out", [m for m in messages if m["dialogue"] >= cut]),
            ):
                print("\n".join(table(f"  {part}", await review(rows), baseline(rows))))
    print("\n".join(table(f"all ({total})", overall, overall_base)))
    for kind, target in TARGETS.items():
        p = overall[kind].precision()
        verdict = ">=" if p >= target else "<"
        print(f"{kind} precision {overall[kind].shown()} {verdict} target {target}")


if __name__ == "__main__":
    asyncio.run(standin() if "--standin" in sys.argv[1:] else main())
