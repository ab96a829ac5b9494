"""Navigation as a tree over the leaf batches (导航节点; docs/rules/reviews.md).

One merge request over every leaf would grow with the run; instead leaves are grouped into
nodes of at most `fanout` children, those nodes again, until one root covers every leaf.
Each node is its own model request (through the FIFO pool) and its own commit, so a
continued run keeps the nodes already committed and builds only the missing ones ("继续保留
成功叶子和导航节点"). Navigation never emits a facts array that replaces leaf facts; the
root's summary is the stage summary the publish step uses.

`plan_tree` is deterministic in the batch indices, so every execution of a run plans the
same node ids; `next_node` is the first planned node not yet committed (children always
come before their parent).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pydantic import Field

from engine.errors import InvalidInput
from engine.review.types import ReviewModel

DEFAULT_FANOUT = 8
ROOT = "root"


class NodePlan(ReviewModel):
    node_id: str
    leaves: frozenset[int]  # every leaf batch under this node
    children: tuple[str, ...] = ()  # child node ids; empty: merges its leaves directly
    is_root: bool = False
    depth: int = Field(ge=1)


def _groups(items: Sequence[str | int], fanout: int) -> list[Sequence[str | int]]:
    return [items[i : i + fanout] for i in range(0, len(items), fanout)]


def plan_tree(batch_indices: Collection[int], fanout: int = DEFAULT_FANOUT) -> tuple[NodePlan, ...]:
    """Nodes bottom-up: leaf groups first, then groups of nodes, the root last."""
    if fanout < 2:
        raise InvalidInput("a navigation node merges at least two children", fanout=fanout)
    leaves = sorted(batch_indices)
    if not leaves:
        raise InvalidInput("navigation needs at least one committed leaf")
    if len(leaves) <= fanout:
        return (NodePlan(node_id=ROOT, leaves=frozenset(leaves), is_root=True, depth=1),)
    plan: list[NodePlan] = []
    level = [
        NodePlan(node_id=f"n1.{i}", leaves=frozenset(int(x) for x in group), depth=1)
        for i, group in enumerate(_groups(leaves, fanout))
    ]
    plan.extend(level)
    depth = 1
    while len(level) > fanout:
        depth += 1
        level = [
            NodePlan(
                node_id=f"n{depth}.{i}",
                leaves=frozenset().union(*(n.leaves for n in group)),
                children=tuple(n.node_id for n in group),
                depth=depth,
            )
            for i, group in enumerate(level[j : j + fanout] for j in range(0, len(level), fanout))
        ]
        plan.extend(level)
    plan.append(
        NodePlan(
            node_id=ROOT,
            leaves=frozenset(leaves),
            children=tuple(n.node_id for n in level),
            is_root=True,
            depth=depth + 1,
        )
    )
    return tuple(plan)


def next_node(plan: Sequence[NodePlan], committed: Collection[str]) -> NodePlan | None:
    """The first planned node not committed yet; None when the root is committed."""
    return next((n for n in plan if n.node_id not in committed), None)
