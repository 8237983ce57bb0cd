"""Plots of simulated games, as PNG and SVG files (matplotlib, imported only here and
only when a plot is drawn, with the non-interactive Agg backend).

``length_histogram`` draws the distribution of a game length measure, one outline per
rule set; ``seat_win_rates`` draws the win rate of each seat with its 95% interval and
the line of a fair game (1 / players).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from unokit.sim.stats import Report

FORMATS = ("png", "svg")


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, folder: Path, stem: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in FORMATS:
        path = folder / f"{stem}.{fmt}"
        fig.savefig(path, format=fmt, dpi=120, bbox_inches="tight")
        paths.append(path)
    return paths


def length_histogram(reports: Sequence[Report], folder: Path, measure: str = "turns",
                     ) -> list[Path]:
    """The histogram of ``measure`` (turns, plays, draws or actions) per game."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        for rep in reports:
            dist = rep.lengths[measure]
            if not dist.counts:
                continue
            total = max(1, dist.count)
            shares = [c / total for c in dist.counts]
            ax.stairs(shares, dist.edges, label=f"{rep.label} (mean {dist.mean:.1f}, "
                      f"median {dist.median:g})", linewidth=1.6)
        ax.set_xlabel(f"{measure} per game (up to the 99th percentile)")
        ax.set_ylabel("share of games")
        ax.set_title(f"Game length: {measure}")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        return _save(fig, folder, f"length_{measure}")
    finally:
        plt.close(fig)


def seat_win_rates(reports: Sequence[Report], folder: Path) -> list[Path]:
    """Win rate by seat with 95% Wilson intervals, one group of bars per seat."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        groups = max(1, len(reports))
        width = 0.8 / groups
        players = max((rep.players for rep in reports), default=0)
        for index, rep in enumerate(reports):
            xs = [seat - 0.4 + width * (index + 0.5) for seat in range(rep.players)]
            rates = [r.rate for r in rep.seats]
            errors = [[r.rate - r.low for r in rep.seats], [r.high - r.rate for r in rep.seats]]
            ax.bar(xs, rates, width=width, yerr=errors, capsize=3, label=rep.label)
            ax.hlines(rep.expected_first, -0.5, rep.players - 0.5, linestyles="dashed",
                      linewidth=1, colors="grey")
        ax.set_xticks(range(players))
        ax.set_xlabel("seat")
        ax.set_ylabel("win rate (95% interval)")
        ax.set_title("Win rate by seat (dashed: 1 / players)")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        return _save(fig, folder, "seat_win_rates")
    finally:
        plt.close(fig)


def all_plots(reports: Sequence[Report], folder: Path) -> list[Path]:
    """Every plot: the turn and action histograms and the seat win rates."""
    paths = length_histogram(reports, folder, "turns")
    paths += length_histogram(reports, folder, "actions")
    paths += seat_win_rates(reports, folder)
    return paths


__all__ = ["FORMATS", "all_plots", "length_histogram", "seat_win_rates"]
