"""Charts of a balance study (``bellica simulate``): what a batch of campaigns came to.

:func:`outcome_plot` draws, from the summary of :func:`bellica.engine.core.simulate.summarise`
and the runs' rows (plain data: this module knows no ruleset):

1. the distribution of the final score (Rome's Civic Development), with the verdict bounds
   drawn as vertical lines;
2. the share of runs ending in each verdict;
3. a series per turn (provinces held): the median, the 25-75% and 10-90% bands.

matplotlib draws on a bare :class:`matplotlib.figure.Figure` (the Agg canvas; pyplot and its
global state are never used), and the files carry no date, so the same runs give the same
bytes.  The format follows the file's suffix (``.png``, ``.svg``, ``.pdf``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from bellica.geo.errors import InputError

__all__ = ["FORMATS", "nations_plot", "outcome_plot"]

FORMATS = (".png", ".svg", ".pdf")

#: Colours of the verdict bars, best first (colour-blind-safe, from the Okabe-Ito palette).
PALETTE = ("#009E73", "#56B4E9", "#E69F00", "#D55E00", "#555555", "#CC79A7", "#0072B2", "#F0E442")


def outcome_plot(summary: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], path: str | Path, *,
                 title: str, score: str = "civic", score_label: str = "final Civic Development",
                 verdict: str = "verdict", verdict_labels: Mapping[str, str] | None = None,
                 bounds: Mapping[str, float] | None = None, series: str = "provinces",
                 series_label: str = "provinces held", index_label: str = "turn (0: the start)",
                 dpi: int = 120) -> Path:
    """Write the three-panel chart of a study to ``path`` (module doc); returns the path.

    ``bounds``: named score thresholds drawn on the histogram (a verdict's lower bound);
    ``verdict_labels``: shorter words for the verdict names on the bar chart."""
    from matplotlib.figure import Figure

    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"{path}: a plot is written as {', '.join(FORMATS)}: give one of those suffixes")
    runs = summary.get("runs", len(rows))
    fig = Figure(figsize=(13, 4.4), layout="constrained")
    fig.suptitle(title, fontsize=11)
    ax1, ax2, ax3 = fig.subplots(1, 3, width_ratios=(1.2, 0.9, 1.2))

    # 1. The score.
    scores = [r[score] for r in rows if r.get(score) is not None]
    if scores:
        lo, hi = min(scores), max(scores)
        for b in (bounds or {}).values():
            lo, hi = min(lo, b), max(hi, b)
        width = max(1, round((hi - lo) / 30))
        edges = list(range(int(lo) - width, int(hi) + 2 * width, width))
        ax1.hist(scores, bins=edges, color="#4C72B0", edgecolor="white", linewidth=0.4)
    for name, b in sorted((bounds or {}).items(), key=lambda kv: kv[1]):
        ax1.axvline(b, color="#333333", linestyle="--", linewidth=0.8)
        ax1.annotate(name, (b, 1), xycoords=("data", "axes fraction"), xytext=(2, -2), textcoords="offset points",
                     rotation=90, va="top", ha="left", fontsize=7, color="#333333")
    med = summary.get("numbers", {}).get(score, {}).get("median")
    ax1.set_title(f"{score_label} (median {med:g})" if med is not None else score_label, fontsize=9)
    ax1.set_xlabel(score_label)
    ax1.set_ylabel("runs")

    # 2. The verdicts.
    counts = summary.get("counts", {}).get(verdict, {})
    names = list(counts)
    shares = [counts[n]["share"] or 0 for n in names]
    labels = [(verdict_labels or {}).get(n, n) for n in names]
    bars = ax2.bar(range(len(names)), [s * 100 for s in shares],
                   color=[PALETTE[i % len(PALETTE)] for i in range(len(names))])
    for bar, n in zip(bars, names):
        ax2.annotate(str(counts[n]["runs"]), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                     xytext=(0, 2), textcoords="offset points", ha="center", fontsize=7)
    ax2.set_xticks(range(len(names)), labels, rotation=30, ha="right", fontsize=8)
    ax2.set_ylabel("% of runs")
    ax2.set_ylim(0, max([s * 100 for s in shares] + [1]) * 1.15)
    ax2.set_title(f"verdicts ({runs} runs)", fontsize=9)

    # 3. The series.
    points = summary.get("series", {}).get(series, [])
    if points:
        xs = [p["index"] for p in points]
        ax3.fill_between(xs, [p["p10"] for p in points], [p["p90"] for p in points], color="#4C72B0", alpha=0.18,
                         linewidth=0, label="10-90%")
        ax3.fill_between(xs, [p["p25"] for p in points], [p["p75"] for p in points], color="#4C72B0", alpha=0.32,
                         linewidth=0, label="25-75%")
        ax3.plot(xs, [p["median"] for p in points], color="#1B3A6B", linewidth=1.8, label="median")
        ax3.plot(xs, [p["mean"] for p in points], color="#1B3A6B", linewidth=0.9, linestyle=":", label="mean")
        ax3.set_xticks(xs)
        ax3.legend(fontsize=7, loc="upper left", frameon=False)
    ax3.set_xlabel(index_label)
    ax3.set_ylabel(series_label)
    ax3.set_ylim(bottom=0)
    ax3.set_title(f"{series_label} per turn", fontsize=9)

    return _save(fig, path, dpi)


def nations_plot(summary: Mapping[str, Any], path: str | Path, *, title: str, nations: Sequence[str],
                 winner: str = "winner", series_prefix: str = "provinces_", series_label: str = "provinces held",
                 index_label: str = "turn (0: the start)", dpi: int = 120) -> Path:
    """Write the two-panel chart of a study where several players compete (Mare Nostrum) to
    ``path``: the share of runs each player won (``summary["counts"][winner]``), and each
    player's ``series_prefix + nation`` series per turn (median line, 25-75% band).  Plain data
    from :func:`bellica.engine.core.simulate.summarise`; same runs, same bytes."""
    from matplotlib.figure import Figure

    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"{path}: a plot is written as {', '.join(FORMATS)}: give one of those suffixes")
    runs = summary.get("runs", 0)
    colours = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(nations)}
    fig = Figure(figsize=(12, 4.6), layout="constrained")
    fig.suptitle(title, fontsize=11)
    ax1, ax2 = fig.subplots(1, 2, width_ratios=(0.8, 1.4))

    counts = summary.get("counts", {}).get(winner, {})
    names = list(counts)
    shares = [(counts[n]["share"] or 0) * 100 for n in names]
    bars = ax1.bar(range(len(names)), shares, color=[colours.get(n, "#999999") for n in names])
    for bar, n in zip(bars, names):
        ax1.annotate(str(counts[n]["runs"]), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                     xytext=(0, 2), textcoords="offset points", ha="center", fontsize=7)
    ax1.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=8)
    ax1.set_ylabel("% of runs")
    ax1.set_ylim(0, max(shares + [1]) * 1.15)
    ax1.set_title(f"wins ({runs} runs)", fontsize=9)

    for n in nations:
        points = summary.get("series", {}).get(series_prefix + n, [])
        if not points:
            continue
        xs = [p["index"] for p in points]
        ax2.fill_between(xs, [p["p25"] for p in points], [p["p75"] for p in points], color=colours[n], alpha=0.15,
                         linewidth=0)
        ax2.plot(xs, [p["median"] for p in points], color=colours[n], linewidth=1.6, label=n)
        ax2.set_xticks(xs)
    if ax2.get_lines():  # no run recorded the series (games cut short): an empty panel, not a warning
        ax2.legend(fontsize=7, loc="upper left", frameon=False, ncols=2)
    ax2.set_xlabel(index_label)
    ax2.set_ylabel(series_label)
    ax2.set_ylim(bottom=0)
    ax2.set_title(f"{series_label} per turn (median, 25-75%)", fontsize=9)

    return _save(fig, path, dpi)


def _save(fig, path: Path, dpi: int) -> Path:
    """Write ``fig`` to ``path`` (its folder made), the same bytes for the same chart: no date in an
    SVG's or a PDF's metadata, and fixed SVG ids."""
    from matplotlib import rc_context

    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"Date": None} if path.suffix.lower() == ".svg" else (
        {"CreationDate": None} if path.suffix.lower() == ".pdf" else None)
    with rc_context({"svg.hashsalt": "bellica"}):
        fig.savefig(path, dpi=dpi, metadata=metadata)
    return path
