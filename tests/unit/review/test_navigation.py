"""Navigation as a tree of bounded nodes (导航节点; 继续保留成功叶子和导航节点; docs/rules/reviews.md)."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.review.navigation import ROOT, next_node, plan_tree


def test_few_leaves_merge_straight_into_the_root() -> None:
    plan = plan_tree([2, 0, 1], fanout=4)
    assert [(n.node_id, sorted(n.leaves), n.is_root) for n in plan] == [(ROOT, [0, 1, 2], True)]


def test_many_leaves_become_bounded_nodes_under_one_root() -> None:
    plan = plan_tree(range(9), fanout=2)
    by_id = {n.node_id: n for n in plan}
    assert all(len(n.children) <= 2 for n in plan)
    assert all(len(n.leaves) <= 2 for n in plan if n.depth == 1)
    assert [n.node_id for n in plan if n.depth == 1] == ["n1.0", "n1.1", "n1.2", "n1.3", "n1.4"]
    root = plan[-1]
    assert root.node_id == ROOT and root.is_root and root.leaves == frozenset(range(9))
    assert len(root.children) <= 2
    for node in plan:  # every child comes before its parent and covers part of it
        for child in node.children:
            assert plan.index(by_id[child]) < plan.index(node)
            assert by_id[child].leaves <= node.leaves
    assert sum(1 for n in plan if n.is_root) == 1


def test_the_plan_is_the_same_every_time_and_resumes_at_the_first_missing_node() -> None:
    plan = plan_tree(range(5), fanout=2)
    assert plan == plan_tree([4, 3, 2, 1, 0], fanout=2)
    assert next_node(plan, set()) == plan[0]
    done = {n.node_id for n in plan[:3]}
    assert next_node(plan, done) == plan[3]
    assert next_node(plan, {n.node_id for n in plan}) is None


def test_a_tree_needs_leaves_and_a_fanout_of_two() -> None:
    with pytest.raises(InvalidInput):
        plan_tree([], fanout=2)
    with pytest.raises(InvalidInput):
        plan_tree([0, 1], fanout=1)
