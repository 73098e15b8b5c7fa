"""``divergent diff [REV_A [REV_B]] [-- PATH...]``: check every Python function a change touches,
before against after (:mod:`divergent.changes`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from divergent.cli.application import DivergentCommand, app, input_errors, make_console, stderr_console
from divergent.cli.function_group import FunctionGroup
from divergent.cli.harness import AddressOpt, ExecutorOpt, JobsOpt
from divergent.cli.llm_options import ModelGroup
from divergent.cli.option_groups import OptionGroup, apply_groups, with_option_groups
from divergent.cli.outputs import OutputGroup
from divergent.cli.search_groups import ComparisonGroup, LimitsGroup, SearchGroup

__all__ = ["DiffFlags", "DiffGroup"]

#: the hidden option the paths after ``--`` become
_PATH_FLAG = "--diff-path"


@dataclass(frozen=True)
class DiffGroup(OptionGroup):
    """What a diff adds to the searching commands' groups: the per-function budget, where the
    functions run, how instances are built, how the result is written."""

    panel = "Diff"

    budget_per_function: Annotated[float, typer.Option(
        "--budget-per-function", min=0.1, metavar="SECONDS",
        help="Wall seconds of each function's search (less when --budget, the whole diff's, would not "
        "hold the functions still to come).")] = 5.0
    jobs: JobsOpt = None
    executor: ExecutorOpt = "threads"
    address: AddressOpt = None
    factory: Annotated[list[str] | None, typer.Option(
        "--factory", metavar="CLASS=MODULE:CALLABLE",
        help="How to get an instance of CLASS (pkg.mod:Class or Class) to check its instance methods: "
        "MODULE.CALLABLE() on each side (repeatable). Without it, a class is built from its annotated "
        "constructor.")] = None
    format: Annotated[str, typer.Option(
        "--format", metavar="FORMAT",
        help="table (the default), or github: GitHub Actions annotations on each changed function's line, "
        "then the table.")] = "table"
    shrink: Annotated[bool, typer.Option("--shrink/--no-shrink", help="Shrink each counterexample.")] = True
    emit_test: Annotated[Path | None, typer.Option(
        "--emit-test", metavar="DIR",
        help="Write a pytest module per function that changed behaviour into DIR (it fails while the "
        "sides differ).")] = None


@dataclass(frozen=True)
class DiffFlags:
    """The groups ``diff`` takes: the search (``--budget`` is the whole diff's), comparison, limits,
    Python functions, the model, the output, and the diff's own."""

    search: SearchGroup
    comparison: ComparisonGroup
    limits: LimitsGroup
    functions: FunctionGroup
    model: ModelGroup
    outputs: OutputGroup
    diff: DiffGroup

    def options(self) -> Any:
        """The options of each function's search (Python functions: the kind every group is read for)."""
        from divergent.errors import InvalidArgument
        from divergent.kinds.options import SearchOptions
        from divergent.kinds.registry import kind_named

        if self.functions.function is not None:
            raise InvalidArgument("--function: diff finds the functions itself (name files or folders after --)")
        one_function = [flag for flag, given in (("--seeds", self.search.seeds), ("--require", self.functions.require),
                                                 ("--input-regex", self.functions.input_regex)) if given]
        if one_function:
            raise InvalidArgument(f"{', '.join(one_function)}: a diff checks many functions, and these describe one "
                                  "(each function's doctests and assert lines are its seeds)")
        kind = kind_named("python-function")
        return apply_groups([getattr(self, field.name) for field in fields(self)], kind, self, SearchOptions())

    @property
    def whole_budget(self) -> float | None:
        """``--budget`` when given: the whole diff's seconds."""
        return self.search.budget if "--budget" in self.search.given() else None


class DiffCommand(DivergentCommand):
    """``diff``'s arguments: revisions, then the paths after ``--`` (set aside before parsing: the
    parser would mix them with the revisions)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if "--" in args:
            at = args.index("--")
            args = [*args[:at], *(part for path in args[at + 1:] for part in (_PATH_FLAG, path))]
        return super().parse_args(ctx, args)


@app.command(cls=DiffCommand)
@with_option_groups
def diff(
    revisions: Annotated[list[str] | None, typer.Argument(
        metavar="[REV_A [REV_B]] [-- PATH...]",
        help="None: the work tree against HEAD. REV: that revision against the work tree. A..B or A B: between "
        "two revisions. Paths after -- limit the functions reported (the analysis reads the whole repository).",
        show_default=False)] = None,
    flags: DiffFlags = None,  # type: ignore[assignment]
    paths: Annotated[list[str] | None, typer.Option(_PATH_FLAG, hidden=True)] = None,
) -> None:
    """Check every Python function a change touches, before against after: exit 1 when one changed
    behaviour, 4 when some could not be judged and none changed, 0 otherwise."""
    from divergent.changes.calling import parse_factories
    from divergent.changes.plan import plan_diff

    outputs, group = flags.outputs, flags.diff
    paths = list(paths or ())
    with input_errors(outputs.prints_json):
        if group.format not in ("table", "github"):
            from divergent.errors import InvalidArgument

            raise InvalidArgument(f"--format {group.format!r}: choose table or github")
        outputs.check_paths()
        if group.emit_test is not None and not group.emit_test.is_dir():
            from divergent.errors import InvalidArgument

            raise InvalidArgument(f"--emit-test {group.emit_test}: no such directory")
        from divergent.cli.harness import executor_settings

        where = executor_settings(group.executor, group.address, group.jobs)
        options = flags.options()
        plan = plan_diff(revisions or [], paths=paths, factories=parse_factories(group.factory or ()))
        options = flags.model.connect(options)
    try:
        result = _run(plan, flags, options, where)
    finally:
        if options.llm is not None:
            options.llm.close()
    _write(result, flags)
    raise typer.Exit(result.exit_code)


def _run(plan: Any, flags: DiffFlags, options: Any, where: Any) -> Any:
    """The plan run on its executor, with a progress bar; kept in the store with ``--store``."""
    from divergent.changes.running import DiffSettings, run_diff
    from divergent.cli.harness import interrupted
    from divergent.executors.settings import ExecutorKind, open_executor

    group, outputs = flags.diff, flags.outputs
    if where.kind is ExecutorKind.RAY and options.llm is not None:
        from divergent.errors import InvalidArgument

        raise _input_error(InvalidArgument("--model with --executor ray: diff runs the model's engines on threads "
                                           "only (drop --executor ray)"), outputs)
    settings = DiffSettings(options=options, budget_per_function=group.budget_per_function,
                            budget=flags.whole_budget, jobs=where.jobs or 1, shrink=group.shrink,
                            test_dir=str(group.emit_test.resolve()) if group.emit_test else None)
    stored = None
    if outputs.store or outputs.db is not None:
        from divergent.changes.stored import StoredDiff
        from divergent.store import Store

        store = Store(outputs.db)
        stored = StoredDiff.open(store, plan, _identity(flags))
    from divergent.cli.harness import item_progress

    console = stderr_console(outputs.quiet_display)
    total = len(plan.functions)
    try:
        with item_progress(console, "diff", quiet=outputs.quiet_display) as show, open_executor(where) as executor:
            from divergent.bench.common import ItemProgress

            state = ItemProgress(total=total)

            def advance(result: Any) -> None:
                state.done += 1
                show(state, description=result.function.qualname)

            result = run_diff(plan, settings, executor=executor, on_result=advance,
                              done=stored.done if stored else None, save=stored.save if stored else None)
    except KeyboardInterrupt:
        if stored is not None:
            stored.finish("interrupted")
            stored.store.close()
            raise interrupted("the functions done are stored") from None
        raise
    if stored is not None:
        from dataclasses import replace

        result = replace(result, run=stored.run.short_id)
        stored.finish(document=result.document())
        stored.store.close()
    return result


def _input_error(error: Exception, outputs: OutputGroup) -> typer.Exit:
    from divergent.cli.application import fail

    return fail(str(error), as_json=outputs.prints_json)


def _identity(flags: DiffFlags) -> dict[str, Any]:
    """The options that make a stored diff another run."""
    search, limits, group = flags.search, flags.limits, flags.diff
    return {"budget_per_function": group.budget_per_function, "budget": flags.whole_budget, "seed": search.seed,
            "engines": search.engines, "executions": search.executions, "timeout": limits.timeout,
            "shrink": group.shrink, "factories": sorted(group.factory or ()),
            "comparison": [repr(g) for g in (flags.comparison, flags.functions)]}


def _write(result: Any, flags: DiffFlags) -> None:
    """The table (or the JSON document), the annotations, the HTML report and the tests; a write
    that fails is said and loses nothing else (``Delivery``)."""
    from divergent.cli.outputs import Delivery
    from divergent.report.changes import github_annotations, render_diff_table

    outputs, group = flags.outputs, flags.diff
    document = result.document()
    delivery = Delivery(outputs.quiet)
    outputs.write_json(document, delivery)
    if group.format == "github" and not outputs.prints_json:
        delivery.to_stdout(lambda: print("\n".join(github_annotations(document))))
    if not outputs.prints_json:
        console = make_console(quiet=False) if not outputs.quiet else _plain_console()
        delivery.to_stdout(lambda: render_diff_table(document, console))
    tests = [r.test for r in result.results]
    if group.emit_test is not None:
        written = _write_tests(result, group.emit_test, delivery)
        if written:
            delivery.note(f"{written} reproducing test(s) written: pytest {group.emit_test}")
    if outputs.html is not None:
        from divergent.report.changes import diff_page

        delivery.html(diff_page(document, tests=tests), outputs.html)
    if result.run is not None:
        where = f" --db {outputs.db}" if outputs.db is not None else ""
        delivery.note(f"diff stored as run {result.run}: divergent report {result.run}{where} shows it again")
    delivery.finish(lambda: json.dumps(document, indent=1))


def _plain_console() -> Any:
    """--quiet: the table all the same (it is the result), without colours."""
    console = make_console()
    console.no_color = True
    return console


def _write_tests(result: Any, directory: Path, delivery: Any) -> int:
    """One reproducing test per changed function; how many were written."""
    written = 0
    for changed in result.changed:
        if not changed.test:
            continue
        name = "test_diff_" + "".join(c if c.isalnum() else "_" for c in changed.function.name.removesuffix(".py"))
        written += delivery.to_file("--emit-test", directory / f"{name}.py", changed.test)
    return written
