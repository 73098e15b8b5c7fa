"""Python functions: a function in a module, called with arguments; its outcome is what it returns
or raises (and, under the default comparison, how it leaves its arguments).

Specs: ``path.py[:function]``, ``module:function``, ``REV:path.py:function``, a live function, or a
loaded :class:`~divergent.programs.PythonFunction`. Their signatures are merged (an annotated one
wins); seeds come from the caller, doctests and assert lines; the user's precondition
(``--require``) and the annotations are checked before an input runs. Each function runs in a warm
sandboxed worker (:class:`~divergent.sandbox.pool.WorkerPool`), which takes a per-batch time limit.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from divergent import load
from divergent.comparison import Comparison
from divergent.errors import InvalidArgument
from divergent.kinds.base import Subjects, records_of
from divergent.kinds.calls import CallKind, CallSubjects, requirement_predicate
from divergent.kinds.options import SearchOptions, SeedSpec
from divergent.policy import DEFAULT_POLICY, EqualityPolicy
from divergent.preconditions import bind_arguments, conforms
from divergent.programs import Program, PythonFunction, Signature, with_distinct_labels
from divergent.records import AnyInput, Counterexample, Input
from divergent.report.reproduce import call_reproduction
from divergent.sandbox.pool import WorkerPool
from divergent.sandbox.runner import Runner
from divergent.structure import mine_structure, parse_input_regexes
from divergent.structure.findings import INFERRED_KINDS
from divergent.structure.inputs import ShapedInputs

#: the engines of Python functions, in the portfolio's order (cheap ones first)
FUNCTION_ENGINES: dict[str, str] = {
    "seeds": "divergent.engines.calls.seeds:SeedEngine",
    "mutation": "divergent.engines.calls.mutation:MutationEngine",
    "hypothesis": "divergent.engines.calls.hypothesis:HypothesisEngine",
    "symbolic": "divergent.engines.calls.symbolic:SymbolicEngine",
    "llm": "divergent.engines.calls.llm_probes:LLMProbeEngine",
    "randsearch": "divergent.engines.calls.randsearch:RandSearchEngine",
}


class PythonFunctions(CallKind):
    name = "python-function"
    noun = "Python function"
    engines = FUNCTION_ENGINES
    semantic_clustering = True
    option_groups = frozenset({"functions"})
    brute_force = True

    def claims(self, spec: object) -> bool:
        return isinstance(spec, PythonFunction) or (callable(spec) and not isinstance(spec, type))

    def load(self, specs: Sequence[object], options: SearchOptions) -> tuple[Program, ...]:
        if options.programs.used:
            raise InvalidArgument(
                "--example, --inputs, --generator, --validator and --checker are for whole programs reading "
                "stdin: add --stdin (a .py file is then a script)"
            )
        functions: list[Program] = []
        for spec in specs:
            if isinstance(spec, PythonFunction):
                functions.append(spec)
            elif isinstance(spec, str | Path):
                functions.append(load.load_implementation(str(spec), function=options.function))
            elif callable(spec):
                functions.append(load.load_callable(spec))
            else:
                raise InvalidArgument(
                    f"implementation {spec!r}: expected a spec string, a function or a PythonFunction"
                )
        return tuple(with_distinct_labels(functions))

    def set_up(self, programs: Sequence[Program], options: SearchOptions) -> Subjects:
        functions = _functions(programs)
        signature = load.common_signature(functions)
        return FunctionSubjects(self, functions, options, comparison=options.comparison, signature=signature,
                                requirement=requirement_predicate(options.require, signature))

    def open_runner(self, programs: Sequence[Program], options: SearchOptions) -> Runner:
        return WorkerPool(_functions(programs), limits=options.limits, isolation=options.isolation,
                          compare_mutation=options.comparison.record_arguments)

    def with_memory(self, options: SearchOptions, mib: int) -> SearchOptions:
        if mib < self.least_memory_mb:
            raise InvalidArgument(f"--memory {mib}: a Python function's worker needs at least {self.least_memory_mb} "
                                  "MiB of address space")
        return super().with_memory(options, mib)

    def brute_force_reference(self, programs: Sequence[Program], chat: Any, spec: str | None) -> Program:
        from divergent.engines.calls.randsearch import brute_force_reference

        return brute_force_reference(_functions(programs), chat, spec=spec)

    def reproduction(self, cx: Counterexample, programs: Sequence[Program], options: SearchOptions, *,
                     test_dir: Path) -> str:
        functions = _functions(programs)
        # Files at a git revision go into the test as source text (no path names them for long).
        embed = []
        for index, function in enumerate(functions):
            try:
                if function.path is not None and load.parse_target(function.origin).kind == "git":
                    embed.append(index)
            except Exception:  # noqa: BLE001 - a live function's origin is no spec: nothing to embed
                continue
        return call_reproduction(cx, functions, test_dir=test_dir, policy=_policy(options.comparison), embed=embed)


def _functions(programs: Sequence[Program]) -> list[PythonFunction]:
    return records_of(programs, PythonFunction, PythonFunctions.noun)


def _policy(comparison: Comparison) -> EqualityPolicy:
    """The equality policy a reproducing test writes down (a comparison of another kind: the default)."""
    return comparison if isinstance(comparison, EqualityPolicy) else DEFAULT_POLICY


class FunctionSubjects(CallSubjects):
    """Python functions under test: their common signature, the annotations and the user's
    precondition as preconditions, seeds from the caller, doctests and assert lines."""

    def gather_seeds(self) -> None:
        functions = _functions(self.programs)
        signature = self.signature
        seeds, notes = function_seeds(functions, signature, self.options.seeds)
        structure = mine_structure(functions, signature, parse_input_regexes(self.options.input_regexes, signature))
        inferred = [p.name for p in signature.parameters if structure.of(p.name).kind in INFERRED_KINDS]
        load.check_generatable(signature, seeds, inferred)
        if not structure.empty:
            self.shaped = ShapedInputs(structure, seed=self.options.seed)
            self.shaped.build_in_background([p.name for p in signature.parameters])  # drawn while the workers start
        self.seeds = tuple(seeds)
        self.notes.extend([*notes, *structure.notes()])

    def acceptable(self, item: AnyInput) -> bool:
        """The annotations (typeguard) and the user's requirement; a given seed need only bind."""
        assert isinstance(item, Input)
        if item.key not in self.given:
            return super().acceptable(item)
        return bind_arguments(item, self.signature) is not None and (self.requirement is None or self.requirement(item))

    @functools.cached_property
    def given(self) -> frozenset[str]:
        """The keys of the given seeds (the task's own inputs)."""
        return frozenset(seed.key for seed in self.seeds)


def function_seeds(
    functions: Sequence[PythonFunction], signature: Signature, seeds: Sequence[SeedSpec] | SeedSpec | None
) -> tuple[list[Input], list[str]]:
    """Seeds from the caller (files, inputs, argument tuples), doctests and assert lines; those that
    do not fit the signature are dropped (and the notes say how many)."""
    notes: list[str] = []
    found: list[Input] = []
    for item in SearchOptions.of(seeds=seeds).seeds:
        if isinstance(item, Input):
            found.append(item)
        elif isinstance(item, tuple):
            found.append(Input(args=item, how_generated="seeds"))
        elif isinstance(item, str | Path):
            found.extend(load.seeds_from_file(Path(item), signature))
        else:
            raise InvalidArgument(f"seed {item!r}: a function's seed is a file of calls, an Input or a tuple")
    for function in functions:
        found.extend(load.seeds_from_docstring(function))
        found.extend(load.seeds_from_asserts(function.source, function.entry_point))
    unique: dict[str, Input] = {}
    dropped = unannotated = 0
    for item in found:
        if bind_arguments(item, signature) is None:
            dropped += 1
            continue
        if item.key not in unique and not conforms(item, signature):
            unannotated += 1
        unique.setdefault(item.key, item)
    if dropped:
        notes.append(f"{dropped} seed input(s) cannot be called with the signature {signature} and were dropped")
    if unannotated:
        # the task's own inputs: an implementation's annotation (list where the tests pass a tuple)
        # is no reason to drop them
        notes.append(f"{unannotated} seed input(s) do not fit the annotations of {signature}; run all the same "
                     "(the annotations are no precondition on the given inputs)")
    return list(unique.values()), notes


#: the kind, as :data:`divergent.kinds.registry.KINDS` names it
PYTHON_FUNCTIONS = PythonFunctions()
