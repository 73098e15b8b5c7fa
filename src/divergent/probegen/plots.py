"""Figure 4-style plots of a ProbeGen strategy analysis (matplotlib, an optional extra).

:func:`plot_analysis` draws, for a :class:`~divergent.probegen.analysis.StrategyAnalysis`, each
strategy's success over K and D with its Pareto front traced, and every front's cost against success.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from divergent.errors import MissingExtra
from divergent.probegen.analysis import StrategyAnalysis
from divergent.probegen.strategies import strategy_name

__all__ = ["plot_analysis"]


def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtra(
            "plots need matplotlib: pip install 'divergent[plots]' (or pip install matplotlib)"
        ) from None
    return Figure


def plot_analysis(analysis: StrategyAnalysis, directory: Path) -> list[Path]:
    """Figure 4-style plots, each as PNG and SVG: ``strategies.*`` (success over K and D per
    strategy, with its Pareto front traced) and ``pareto.*`` (each front's cost against success)."""
    figure_class = _figure_class()
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, figure in (
        ("strategies", _strategy_grids(figure_class, analysis)),
        ("pareto", _pareto_plot(figure_class, analysis)),
    ):
        for suffix in ("png", "svg"):
            path = directory / f"{name}.{suffix}"
            figure.savefig(path, dpi=150, bbox_inches="tight")
            written.append(path)
    return written


def _strategy_grids(figure_class: Any, analysis: StrategyAnalysis) -> Any:
    import numpy as np

    strategies = list(analysis.fronts)
    columns = min(3, len(strategies))
    rows = math.ceil(len(strategies) / columns)
    figure = figure_class(figsize=(4.2 * columns, 3.6 * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False)
    image = None
    for index, strategy in enumerate(strategies):
        ax = axes[index // columns][index % columns]
        grid = np.full((analysis.max_depth, analysis.max_k), np.nan)
        for point in analysis.points:
            if point.strategy is strategy:
                grid[point.depth - 1, point.k - 1] = point.success
        masked = np.ma.masked_invalid(grid)
        edges_k = np.arange(0.5, analysis.max_k + 1)
        edges_d = np.arange(0.5, analysis.max_depth + 1)
        image = ax.pcolormesh(edges_k, edges_d, masked, vmin=0.0, vmax=1.0, cmap="viridis")
        for (row, column), value in np.ndenumerate(grid):
            if not np.isnan(value):
                ax.text(column + 1, row + 1, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if value > 0.6 else "white")
        front = analysis.fronts[strategy]
        ax.plot([p.k for p in front], [p.depth for p in front], color="red", marker="o", markersize=3, linewidth=1.0,
                alpha=0.8)
        ax.set_title(strategy_name(strategy))
        ax.set_xlabel("K")
        ax.set_ylabel("D (depth)")
        ax.set_xticks(range(1, analysis.max_k + 1))
        ax.set_yticks(range(1, analysis.max_depth + 1))
    for index in range(len(strategies), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    if image is not None:
        figure.colorbar(image, ax=axes, label="probability of success σ", shrink=0.8)
    figure.suptitle(f"success over K and D ({analysis.trees_used} trees; red: Pareto front by {analysis.cost_measure})")
    return figure


def _pareto_plot(figure_class: Any, analysis: StrategyAnalysis) -> Any:
    figure = figure_class(figsize=(6.0, 4.2), layout="constrained")
    ax = figure.subplots()
    markers, dashes = "os^vDx", ["-", "--", "-.", ":"]
    for index, (strategy, front) in enumerate(analysis.fronts.items()):
        # small K and D are one chain for every strategy: the styles keep overlapping fronts apart
        costs = [point.cost(analysis.cost_measure) for point in front]
        ax.step(costs, [point.success for point in front], where="post", marker=markers[index % len(markers)],
                markersize=4, linestyle=dashes[index % len(dashes)], alpha=0.85, label=strategy_name(strategy))
    ax.set_xscale("log")
    ax.set_xlabel({"calls": "LLM calls (most)", "expected_calls": "LLM calls (expected)",
                   "tokens": "tokens (expected)"}[analysis.cost_measure])
    ax.set_ylabel("probability of success σ")
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title("best success for a cost, per strategy")
    return figure
