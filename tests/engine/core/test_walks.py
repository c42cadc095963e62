"""engine/core/walks.py: breadth-first ways over a map of named places."""

from __future__ import annotations

from bellica.engine.core.walks import fewest_steps, steps_from

#   a - b - c
#   |       |
#   d - e - f     g (alone)
MAP = {"a": ["b", "d"], "b": ["a", "c"], "c": ["b", "f"], "d": ["a", "e"], "e": ["d", "f"], "f": ["c", "e"], "g": []}


def test_the_fewest_steps_to_a_place_the_first_neighbours_first():
    assert fewest_steps("a", "f", MAP.__getitem__) == ["b", "c", "f"]
    assert fewest_steps("a", "a", MAP.__getitem__) == []
    assert fewest_steps("a", "g", MAP.__getitem__) is None


def test_the_fewest_steps_to_the_first_place_that_passes_a_test():
    assert fewest_steps("a", lambda p: p in ("e", "f"), MAP.__getitem__) == ["d", "e"]
    assert fewest_steps("a", lambda p: p == "a", MAP.__getitem__) == []


def test_a_way_round_what_the_neighbours_leave_out():
    around_b = lambda p: [q for q in MAP[p] if q != "b"]  # noqa: E731
    assert fewest_steps("a", "c", around_b) == ["d", "e", "f", "c"]


def test_steps_from_a_place_to_every_place_a_way_leads_to():
    assert steps_from("a", MAP.__getitem__) == {"a": 0, "b": 1, "d": 1, "c": 2, "e": 2, "f": 3}
