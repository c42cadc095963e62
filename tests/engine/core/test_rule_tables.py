"""engine/core/rule_tables.py: a rules table read into the frozen dataclass that types it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import pytest

from bellica.engine.core.rule_tables import from_table, shaped


@dataclass(frozen=True)
class _Inner:
    low: int
    high: int


@dataclass(frozen=True)
class _Section:
    turns: int
    names: tuple[str, ...]
    weights: Mapping[str, float]
    lists: Mapping[str, tuple[str, ...]]
    inner: _Inner
    note: str = ""


TABLE = {"turns": 3, "names": ["a", "b"], "weights": {"x": 1, "y": 0.5},
         "lists": {"k": ["p", "q"]}, "inner": {"low": 1, "high": 6}}


def test_each_value_takes_its_fields_shape():
    s = from_table(_Section, TABLE)
    assert s == _Section(3, ("a", "b"), {"x": 1.0, "y": 0.5}, {"k": ("p", "q")}, _Inner(1, 6))
    assert isinstance(s.weights["x"], float) and isinstance(s.turns, int)


def test_a_missing_key_takes_the_default_and_a_missing_required_one_is_the_dataclass_error():
    assert from_table(_Section, TABLE).note == ""
    with pytest.raises(TypeError, match="turns"):
        from_table(_Section, {k: v for k, v in TABLE.items() if k != "turns"})
    with pytest.raises(TypeError, match="unknown"):
        from_table(_Section, {**TABLE, "unknown": 1})


def test_what_the_type_does_not_shape_passes_through():
    assert shaped(int, 2.0) == 2.0
    assert shaped(bool, 1) == 1
    assert shaped(float, True) is True  # a bool is no number to widen
    assert shaped(tuple[str, ...], "ab") == "ab"
    built = _Inner(1, 2)
    assert shaped(_Inner, built) is built
