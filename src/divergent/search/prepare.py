"""From what the caller named to a running :class:`~divergent.search.loop.Search`: load the
implementations, merge their signatures, gather seeds, build the precondition, start the engines."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from divergent import load
from divergent.engines.registry import NEEDS_MODEL, TEXT_ONLY, parse_engine_list
from divergent.errors import InvalidArgument
from divergent.model import Input
from divergent.preconditions import conforms, make_requirement
from divergent.programs import Program, PythonFunction, Signature, with_distinct_labels
from divergent.search.fresh import start_runner
from divergent.search.loop import Search
from divergent.search.options import ImplementationSpec, SearchOptions, SeedSpec
from divergent.structure import mine_structure, parse_input_regexes
from divergent.structure.inputs import ShapedInputs


def resolve_implementations(
    specs: Sequence[ImplementationSpec], *, function: str | None, stdin: bool = False
) -> list[Program]:
    """Load every implementation from a spec string, a live function, or a loaded program. With
    ``stdin`` (implied by a spec that can only be a whole program: a .c, .cpp or .java file,
    ``exec:PATH``) every spec is a whole program reading stdin, a .py file a script."""
    if stdin or any(load.names_whole_program(spec) for spec in specs):
        from divergent.search.programs import resolve_programs

        return list(resolve_programs(specs, SearchOptions().programs.build_options()))
    impls = []
    for spec in specs:
        if isinstance(spec, PythonFunction):
            impls.append(spec)
        elif isinstance(spec, str | Path):
            impls.append(load.load_implementation(str(spec), function=function))
        elif callable(spec):
            impls.append(load.load_callable(spec))
        else:
            raise InvalidArgument(f"implementation {spec!r}: expected a spec string, a function or a PythonFunction")
    return with_distinct_labels(impls)


def gather_seeds(
    impls: Sequence[PythonFunction], signature: Signature, seeds: Sequence[SeedSpec] | SeedSpec | None
) -> tuple[list[Input], list[str]]:
    """Seeds from the caller (files, inputs, argument tuples), doctests and assert lines."""
    notes: list[str] = []
    found: list[Input] = []
    for item in SearchOptions.of(seeds=seeds).seeds:
        if isinstance(item, Input):
            found.append(item)
        elif isinstance(item, tuple):
            found.append(Input(args=item, how_generated="seeds"))
        else:
            found.extend(load.seeds_from_file(Path(item), signature))
    for impl in impls:
        found.extend(load.seeds_from_docstring(impl))
        found.extend(load.seeds_from_asserts(impl.source, impl.entry_point))
    unique: dict[str, Input] = {}
    dropped = 0
    for item in found:
        if not conforms(item, signature):
            dropped += 1
            continue
        unique.setdefault(item.key, item)
    if dropped:
        notes.append(f"{dropped} seed input(s) did not fit the signature {signature} and were dropped")
    return list(unique.values()), notes


def requirement_predicate(
    require: str | Callable[..., bool] | None, signature: Signature
) -> Callable[[Input], bool] | None:
    """The user's precondition as a predicate on inputs: an expression over the parameters, or a
    function called with the arguments (one that raises rejects the input)."""
    if require is None:
        return None
    if isinstance(require, str):
        return make_requirement(require, signature)

    def predicate(item: Input) -> bool:
        try:
            return bool(require(*item.args, **item.kwargs))
        except Exception:  # noqa: BLE001 - a predicate that raises rejects the input
            return False

    return predicate


def engine_names(options: SearchOptions) -> tuple[str, ...]:
    """The engines a search starts: the named ones, or the default portfolio (without the engines
    that need a model when there is none)."""
    if isinstance(options.engines, tuple):
        return options.engines
    names = parse_engine_list(options.engines)
    # Engines for whole programs only (the generator program) have nothing to do for functions.
    names = tuple(name for name in names if name not in TEXT_ONLY)
    if options.llm is None:
        # Without a model the default portfolio is the offline one (no note about LLM engines).
        names = tuple(name for name in names if name not in NEEDS_MODEL)
    return names


def prepare(
    implementations: Sequence[ImplementationSpec], options: SearchOptions | None = None, *, minimum: int = 2,
    **changes: Any,
) -> Search:
    """Load, validate and start a :class:`Search` (shared by check, cluster and the benchmarks).

    ``options`` (or the defaults) with ``changes`` applied: see :class:`SearchOptions`."""
    options = SearchOptions.of(options, **changes)
    from divergent.search.programs import prepare_programs, wants_programs

    if wants_programs(implementations, options):
        return prepare_programs(implementations, options, minimum=minimum)
    impls = resolve_implementations(implementations, function=options.function)
    if len(impls) < minimum:
        raise InvalidArgument(f"need at least {minimum} implementations to compare, got {len(impls)}")
    signature = load.common_signature(impls)
    names = engine_names(options)
    # The workers start (and load the implementations) while the rest is read and checked; the
    # engines' libraries are imported only when an engine's first turn comes.
    runner = start_runner(impls, options)
    try:
        seed_inputs, notes = gather_seeds(impls, signature, options.seeds)
        structure = mine_structure(impls, signature, parse_input_regexes(options.input_regexes, signature))
        inferred = [p.name for p in signature.parameters if structure.of(p.name).kind in ("str", "bytes", "dict")]
        load.check_generatable(signature, seed_inputs, inferred)
        shaped = None if structure.empty else ShapedInputs(structure, seed=options.seed)
        if shaped is not None:  # drawn while the workers start
            shaped.build_in_background([p.name for p in signature.parameters])
        return Search(
            implementations=tuple(impls),
            signature=signature,
            options=options,
            engine_names=names,
            seeds=tuple(seed_inputs),
            requirement=requirement_predicate(options.require, signature),
            notes=[*notes, *structure.notes()],
            runner=runner,
            shaped=shaped,
        )
    except BaseException:
        runner.discard()
        raise
