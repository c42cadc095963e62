"""The simulation charts (web_maps/plots.py) on summaries written in the test."""

from __future__ import annotations

import warnings

from bellica.web_maps.plots import nations_plot


def _summary(series: dict) -> dict:
    return {"runs": 2, "counts": {"winner": {"Russia": {"runs": 1, "share": 0.5}, "Ottoman Porte": {"runs": 1, "share": 0.5}}},
            "series": series}


def test_a_nations_chart_without_series_is_drawn_without_a_warning(tmp_path):
    """Runs that recorded no series (games cut short) give an empty right panel, and nothing on stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nations_plot(_summary({}), tmp_path / "empty.png", title="t", nations=["Russia", "Ottoman Porte"])
    assert out.stat().st_size > 1000


def test_a_nations_chart_draws_each_nations_series(tmp_path):
    point = {"index": 0, "p25": 1, "median": 2, "p75": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nations_plot(_summary({"provinces_Russia": [point, {**point, "index": 1}]}), tmp_path / "one.svg",
                           title="t", nations=["Russia", "Ottoman Porte"])
    assert "Russia" in out.read_text()


def test_the_same_chart_is_the_same_file(tmp_path):
    """No date in an SVG's or a PDF's metadata and fixed SVG ids: a study's charts diff cleanly."""
    point = {"index": 0, "p25": 1, "median": 2, "p75": 3}
    summary = _summary({"provinces_Russia": [point, {**point, "index": 1}]})
    for suffix in ("svg", "pdf"):
        first, second = (nations_plot(summary, tmp_path / name / f"chart.{suffix}", title="t",
                                      nations=["Russia", "Ottoman Porte"]) for name in ("a", "b"))
        assert first.read_bytes() == second.read_bytes(), suffix
