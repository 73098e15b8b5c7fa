"""``divergent probegen``: sample full ProbeGen trees, then compare search strategies (Sec. 4.1).

::

    divergent probegen sample pairs/clamp pairs/average --model gpt-4o-mini -K 5 -D 5 --out trees/
    divergent probegen analyze trees/ --strategies all --plots plots/ --json analysis.json
    divergent probegen costs -K 5 -D 5
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from divergent.cli.application import DivergentTyper, app, input_errors, make_console, stderr_console
from divergent.cli.llm_options import ModelAccess
from divergent.cli.option_groups import OptionGroup, with_option_groups
from divergent.report.tables import fitted

if TYPE_CHECKING:
    from divergent.probegen.tree import ProbeTree

probegen_app = DivergentTyper(
    help="ProbeGen search strategies: sample full trees with an LLM, then estimate each strategy's success.",
    no_args_is_help=True,
)
app.add_typer(probegen_app, name="probegen")


@dataclass(frozen=True)
class AnalyzeOptions(OptionGroup):
    """Which strategies, up to which K and D, at which cost, and what is written."""

    strategies: Annotated[
        str, typer.Option("--strategies", "-s", help="all, or comma-separated: Full,Top,Decreasing,...")
    ] = "all"
    max_k: Annotated[int | None, typer.Option("--max-k", help="Largest K to evaluate (default: the trees').")] = None
    max_depth: Annotated[
        int | None, typer.Option("--max-depth", help="Largest D to evaluate (default: the trees').")
    ] = None
    cost: Annotated[
        str, typer.Option("--cost", help="Cost for the Pareto fronts: calls (most), expected_calls or tokens.")
    ] = "calls"
    plots: Annotated[Path | None, typer.Option("--plots", help="Write Figure 4-style plots (PNG, SVG) here.")] = None
    as_json: Annotated[Path | None, typer.Option(
        "--json-file", metavar="FILE", help="Also write every point and front as JSON to FILE (- prints it on "
        "stdout, as --json does).")] = None
    include_undisproved: Annotated[
        bool, typer.Option("--include-undisproved", help="Also average over trees where nothing differentiated.")
    ] = False
    skip_malformed: Annotated[
        bool, typer.Option("--skip-malformed", help="Skip unreadable tree files (listed) instead of stopping.")
    ] = False


@probegen_app.command("analyze")
@with_option_groups
def analyze_command(
    locations: Annotated[list[Path], typer.Argument(help="Tree files or directories of them (*.json).")],
    options: AnalyzeOptions,
) -> None:
    """Estimate each strategy's probability of success for every K and D the trees allow."""
    from divergent.cli.outputs import Delivery, check_output_paths
    from divergent.probegen.analysis import analyze, load_trees
    from divergent.probegen.plots import plot_analysis
    from divergent.probegen.strategies import parse_strategies

    as_json, plots = options.as_json, options.plots
    on_stdout = as_json is not None and str(as_json) == "-"
    console = make_console(quiet=on_stdout)
    with input_errors(on_stdout):
        check_output_paths(("--json-file", as_json))
        chosen = parse_strategies(options.strategies)
        loaded = load_trees(locations, skip_malformed=options.skip_malformed)
        analysis = analyze(
            loaded.trees, chosen, max_k=options.max_k, max_depth=options.max_depth, cost_measure=options.cost,
            include_undisproved=options.include_undisproved,
        )
        for file, reason in loaded.skipped:
            console.print(Text(f"skipped {file}: {reason}", style="yellow"))
        delivery = Delivery()
        delivery.to_stdout(lambda: _render_analysis(console, analysis))
        text = json.dumps(analysis.to_json(), indent=1)
        if on_stdout:
            delivery.to_stdout(lambda: print(text))
        elif as_json is not None:
            delivery.to_file("--json-file", as_json, text, written="results written to {path}")
        delivery.finish(lambda: text)
        if plots is not None:
            written = plot_analysis(analysis, plots)
            console.print(f"plots written: {', '.join(str(path) for path in written)}")


def _render_analysis(console: Console, analysis: Any) -> None:
    from divergent.probegen.analysis import cheapest_reaching
    from divergent.probegen.strategies import strategy_name

    measure = analysis.cost_measure
    console.print(
        f"{analysis.trees_used} tree(s) with a difference, K ≤ {analysis.max_k}, D ≤ {analysis.max_depth}"
        + (f"; {analysis.trees_undisproved} tree(s) without any left out" if analysis.trees_undisproved else "")
    )
    for strategy, front in analysis.fronts.items():
        table = Table(title=f"{strategy_name(strategy)}: Pareto front (cost = {measure})")
        for column in ("K", "D", "children per turn", "calls (most)", "calls (expected)", "tokens (expected)",
                       "success σ", "± s.e."):
            table.add_column(column, justify="right")
        for point in front:
            table.add_row(
                str(point.k), str(point.depth), ",".join(map(str, point.schedule)), str(point.calls),
                f"{point.expected_calls:.1f}",
                "-" if point.expected_tokens is None else f"{point.expected_tokens:,.0f}",
                f"{point.success:.3f}", f"{point.stderr:.3f}",
            )
        console.print(fitted(table))
    summary = Table(title="cheapest way to reach a success probability")
    summary.add_column("strategy")
    targets = (0.5, 0.8, 0.9)
    for target in targets:
        summary.add_column(f"σ ≥ {target:g}", justify="right")
    for strategy, front in analysis.fronts.items():
        cells = []
        for target in targets:
            point = cheapest_reaching(front, target, measure)
            cells.append("-" if point is None else f"{point.cost(measure):g} (K={point.k}, D={point.depth})")
        summary.add_row(strategy_name(strategy), *cells)
    console.print(summary)


@probegen_app.command("costs")
def costs_command(
    k: Annotated[int, typer.Option("-K", help="Largest K in the table.", min=1)] = 5,
    depth: Annotated[int, typer.Option("-D", help="Largest D in the table.", min=1)] = 5,
    strategies: Annotated[str, typer.Option("--strategies", "-s", help="all, or comma-separated names.")] = "all",
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table (for docs).")] = False,
) -> None:
    """The most LLM calls a ProbeGen search makes, per strategy, K and D (no counterexample found)."""
    from divergent.probegen.strategies import max_calls, parse_strategies, strategy_name

    with input_errors(False):
        chosen = parse_strategies(strategies)
    depths = range(1, depth + 1)
    rows = [
        (strategy_name(strategy), str(branching), *(str(max_calls(strategy, branching, d)) for d in depths))
        for strategy in chosen
        for branching in range(1, k + 1)
    ]
    headers = ("strategy", "K", *(f"D={d}" for d in depths))
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join(["---"] * 2 + ["---:"] * depth) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    table = Table(title="most LLM calls per search")
    for header in headers:
        table.add_column(header, justify="left" if header == "strategy" else "right")
    for row in rows:
        table.add_row(*row)
    make_console().print(fitted(table))


@dataclass(frozen=True)
class SampleOptions(OptionGroup):
    """Where the trees go, their shape, and how each is sampled."""

    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the tree files (one per pair).")] = Path(
        "trees"
    )
    k: Annotated[int, typer.Option("-K", help="Samples per node (branching).", min=1)] = 5
    depth: Annotated[int, typer.Option("-D", help="Turns (depth).", min=1)] = 5
    function: Annotated[
        str | None, typer.Option("--function", "-f", help="Function name (else meta.json's \"function\").")
    ] = None
    temperature: Annotated[float, typer.Option("--temperature", help="Sampling temperature.", min=0.0)] = 0.8
    force: Annotated[bool, typer.Option("--force", help="Sample again pairs whose tree file exists.")] = False
    isolation: Annotated[str | None, typer.Option("--isolation", help="Sandbox isolation (docs/sandbox.md).")] = None
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No notes on stderr (failures are still said).")] = False


@probegen_app.command("sample")
@with_option_groups
def sample_command(
    pairs: Annotated[
        list[str],
        typer.Argument(help="Pairs: a directory with a.py and b.py (meta.json, task.md optional), or A.py,B.py."),
    ],
    options: SampleOptions,
    model: ModelAccess,
) -> None:
    """Grow a full ProbeGen tree (K children per node that finds nothing, down to depth D) per pair.

    A full tree costs up to (K^(D+1) - 1)/(K - 1) - 1 calls (3905 for K = D = 5). Finished trees are
    kept: a rerun skips them, and the response cache answers the calls of an interrupted tree again.
    """
    from divergent.errors import InvalidArgument

    console = stderr_console(False)
    with input_errors(False):
        chat = model.client()
        if chat is None:
            raise InvalidArgument("sampling trees needs a model: pass --model (see docs/llm.md)")
        resolved = [_resolve_pair(text, options.function) for text in pairs]
    try:
        failures = _sample_pairs(resolved, chat, options, console=console, notes=stderr_console(options.quiet))
    finally:
        chat.close()
    if failures:
        raise typer.Exit(2)


def _sample_pairs(resolved: list[_Pair], chat: Any, options: SampleOptions, *, console: Console, notes: Console) -> int:
    """Sample and write each pair's tree; the number of pairs that failed (said on ``console``; the
    rest on ``notes``)."""
    from divergent.errors import DivergentError, LLMError
    from divergent.probegen.analysis import require_full
    from divergent.probegen.tree import write_tree

    failures = 0
    for pair in resolved:
        target = options.out / f"{pair.name}.json"
        if target.exists() and not options.force:
            notes.print(f"{pair.name}: {target} exists, skipped (--force samples it again)")
            continue
        try:
            tree = _sample_tree(pair, chat, options)
        except LLMError as error:
            # later pairs may still work (a rerun answers this pair's finished calls from the cache)
            failures += 1
            console.print(Text(f"{pair.name}: the model failed, tree not written: {error}", style="red"))  # never markup
            continue
        except DivergentError as error:
            failures += 1
            console.print(Text(f"{pair.name}: {' '.join(str(error).split())}", style="red"))
            continue
        write_tree(require_full(tree), target)
        nodes = tree.node_count
        found = sum(1 for node in tree.nodes() if node.success)
        notes.print(f"{pair.name}: {nodes} nodes, {found} differentiating, written to {target}")
    usage = chat.usage()
    notes.print(
        f"model usage: {usage.calls} calls ({usage.cached_calls} from the cache), "
        f"{usage.prompt_tokens + usage.completion_tokens:,} tokens, ${usage.cost:.4f}"
    )
    return failures


@dataclass(frozen=True)
class _Pair:
    name: str
    sources: tuple[str, ...]
    function: str | None
    spec: str | None


def _resolve_pair(text: str, function: str | None) -> _Pair:
    from divergent.errors import InvalidArgument

    if "," in text:
        sources = tuple(part.strip() for part in text.split(",") if part.strip())
        if len(sources) < 2:
            raise InvalidArgument(f"pair {text!r}: name two implementations, A.py,B.py")
        name = "_vs_".join(Path(source.split(":")[0]).stem for source in sources)
        return _Pair(name=name, sources=sources, function=function, spec=None)
    directory = Path(text)
    if not directory.is_dir():
        raise InvalidArgument(f"pair {text!r}: not a directory (with a.py and b.py) nor A.py,B.py")
    sources = tuple(str(directory / name) for name in ("a.py", "b.py"))
    missing = [source for source in sources if not Path(source).is_file()]
    if missing:
        raise InvalidArgument(f"pair {text!r}: missing {', '.join(missing)}")
    meta_file = directory / "meta.json"
    meta: dict[str, Any] = {}
    if meta_file.is_file():
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise InvalidArgument(f"{meta_file}: not JSON ({error.msg})") from None
        if not isinstance(meta, dict):
            raise InvalidArgument(f"{meta_file}: expected a JSON object")
    specs = [directory / name for name in ("task.md", "spec.md") if (directory / name).is_file()]
    return _Pair(
        name=directory.resolve().name, sources=sources, function=function or meta.get("function"),
        spec=specs[0].read_text(encoding="utf-8") if specs else None,
    )


def _sample_tree(pair: _Pair, chat: Any, options: SampleOptions) -> ProbeTree:
    from divergent.probegen.session import ProbeGenSession
    from divergent.probegen.strategies import TreeStrategy
    from divergent.search import load_programs

    implementations = load_programs(list(pair.sources), function=pair.function)
    recorder = _IndependentSamples(chat)
    k, depth = options.k, options.depth
    with ProbeGenSession(
        implementations, chat=recorder, spec=pair.spec, temperature=options.temperature, isolation=options.isolation,
        run_parameters={"analysis": "sample", "K": k, "D": depth},
    ) as session:
        session.sample_tree(strategy=TreeStrategy.FULL, k=k, d=depth)
        return session.tree(pair=pair.name, k=k, d=depth)


def _conversation_key(messages: Any) -> str:
    return json.dumps([dict(message) for message in messages], sort_keys=True)


#: sample indices of a repeated conversation are moved on by this much per repetition
_REPEAT_STRIDE = 1000


class _IndependentSamples:
    """The model, such that every node of a sampled tree is an independent sample.

    Two siblings that answered alike give their children the same conversation; with the same
    sample indices the response cache would hand both the same answers, and the tree's branches
    would not be independent draws (the estimator assumes they are). A repeated conversation gets
    fresh sample indices instead, in the tree's deterministic order, so a rerun still hits the cache.
    """

    def __init__(self, chat: Any) -> None:
        self._chat = chat
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, int], int] = {}

    @property
    def model(self) -> str:
        return self._chat.model

    def complete(
        self, messages: Any, *, temperature: float = 0.0, max_tokens: int | None = None, sample_index: int = 0,
        deadline: float | None = None,
    ) -> Any:
        conversation = _conversation_key(messages)
        with self._lock:
            repetition = self._seen.get((conversation, sample_index), 0)
            self._seen[(conversation, sample_index)] = repetition + 1
        return self._chat.complete(
            messages, temperature=temperature, max_tokens=max_tokens,
            sample_index=sample_index + repetition * _REPEAT_STRIDE, deadline=deadline,
        )

    def usage(self) -> Any:
        return self._chat.usage()
