"""Property-based generation with Hypothesis, from the parameters' annotations.

This is the PBT baseline of the ProbeGen paper (type annotations as the only preconditions,
Hypothesis' generators) with one addition: the constants harvested from the implementations, and
their neighbours, are mixed into the draws, because implementations that differ on a rare value
usually name it.

Hypothesis drives generation through ``@given``; :meth:`HypothesisEngine.propose` runs a
``@given``-decorated collector synchronously, one *round* at a time, each round with its own seed
derived from the run's seed, and keeps what it draws. Every round starts from Hypothesis' simplest
example and small ones, so rounds are sized generously and their surplus is kept for the next calls
rather than starting a new round for each small batch.

Hypothesis writes caches (its Unicode table, constants of local modules) under ``.hypothesis`` in
the working directory; the engine points it at divergent's cache directory while it runs
(:mod:`divergent.grammars.drawing`), unless ``HYPOTHESIS_STORAGE_DIRECTORY`` says where Hypothesis
should write.
"""

from __future__ import annotations

import copy
import pickle
import re
import typing
from collections import deque
from collections.abc import Sequence
from typing import Any

import hypothesis
import hypothesis.errors
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

from divergent import preconditions
from divergent.annotations import MAPPING_ORIGINS, SEQUENCE_ORIGINS, SET_ORIGINS, UNION_ORIGINS
from divergent.engines.base import CallContext, Engine
from divergent.engines.calls.seeds import infer_annotation, parameter_values, satisfies_requirement
from divergent.engines.calls.shaped import inferred_annotation
from divergent.engines.calls.shapes import (
    FLOAT_SPECIALS,
    INT_BOUNDARIES,
    NEAR_POWERS,
    RUN_LENGTHS,
    TRICKY_CHARACTERS,
)
from divergent.engines.constants import Constants
from divergent.errors import EngineCannotProceed
from divergent.grammars.drawing import skip_scanning_loaded_modules, storage_outside_working_directory
from divergent.programs import ParameterKind
from divergent.records import Input, Observation

__all__ = ["HypothesisEngine", "storage_outside_working_directory", "strategy_for"]

#: examples per Hypothesis run at least (the surplus is buffered for the next calls)
_MIN_ROUND = 25
#: rounds in a row that bring nothing new before the engine gives up
_MAX_FRUITLESS_ROUNDS = 3
#: items in a generated collection at most: bigger inputs cost Hypothesis much and rarely find more
_MAX_SIZE = 8
_NONE_TYPE = type(None)
_BUILTIN_LEAVES = (_NONE_TYPE, bool, int, float, complex, str, bytes, bytearray)
#: every character UTF-8 can encode, like text()'s default alphabet; spelled by category because
#: the default (by codec) makes Hypothesis scan all of Unicode once per process, which takes seconds
_CHARACTERS = st.characters(exclude_categories=("Cs",))
#: the characters of drawn regex matches: printable ASCII, tabs and newlines (real code's test text)
_PRINTABLE = st.characters(codec="ascii", exclude_categories=("Cc",), include_characters="\t\n")


class _NoStrategy(Exception):
    """An annotation the engine cannot build values for."""


# ---------------------------------------------------------------------------------------------
# Strategies from annotations.


def strategy_for(annotation: Any, constants: Constants = Constants()) -> st.SearchStrategy[Any]:
    """A Hypothesis strategy for values of ``annotation`` (a resolved typing object; None or Any:
    any simple value), with the harvested ``constants`` mixed into ints, floats, strings and bytes."""
    return _Strategies(constants).build(annotation)


class _Strategies:
    """Builds strategies for one set of harvested constants (the scalar ones are built once)."""

    def __init__(self, constants: Constants) -> None:
        self.constants = constants
        #: whether some annotation was left to ``st.from_type``
        self.used_from_type = False
        # The harvested values first: Hypothesis' simplest pick from sampled_from is the first item.
        special_ints = tuple(dict.fromkeys((*constants.int_neighbourhood(), *INT_BOUNDARIES)))
        # Values next to powers of two and ten (and their negatives), small ones first.
        self.int = st.integers() | st.sampled_from(special_ints) | st.sampled_from(NEAR_POWERS)
        special_floats = dict.fromkeys(constants.floats)
        for value in constants.ints:
            try:
                special_floats[float(value)] = None  # `if x > 100` compares a float parameter to an int
            except OverflowError:
                continue
        special_floats.update(dict.fromkeys(FLOAT_SPECIALS))
        powers = tuple(float(value) for value in NEAR_POWERS if abs(value) <= 2**80)
        self.float = st.floats() | st.sampled_from(tuple(special_floats)) | st.sampled_from(powers)
        self.str = (
            st.text(_CHARACTERS)
            | st.text(alphabet=st.sampled_from(TRICKY_CHARACTERS), max_size=4)
            | _runs_of(st.characters(exclude_categories=("Cs",))).map("".join)
        )
        if constants.strings:
            self.str = self.str | _variations_of(constants.strings, st.text(_CHARACTERS, max_size=2))
        # Strings whose length is a harvested number, made of harvested characters: code that checks
        # `len(text) == DIGEST_LENGTH and all(c in HEX_DIGITS ...)` needs both at once.
        lengths = sorted({n for n in constants.ints if 0 < n <= 256})
        if lengths:
            alphabet = "".join(sorted({c for text in constants.strings for c in text})) or "abc01"
            self.str = self.str | st.sampled_from(lengths).flatmap(
                lambda n: st.text(st.sampled_from(alphabet), min_size=n, max_size=n)
            )
        self.bytes = st.binary()
        if constants.bytes_:
            self.bytes = self.bytes | _variations_of(constants.bytes_, st.binary(max_size=2))
        scalars = st.none() | st.booleans() | self.int | self.float | self.str | self.bytes
        self.any = scalars | st.lists(scalars, max_size=4)

    def build(self, annotation: Any) -> st.SearchStrategy[Any]:
        if annotation is None or annotation is typing.Any or annotation is object:
            return self.any
        if isinstance(annotation, typing.TypeVar):
            return self.any
        if hasattr(annotation, "__supertype__"):  # typing.NewType
            return self.build(annotation.__supertype__)
        scalar = {
            _NONE_TYPE: st.none(),
            bool: st.booleans(),
            int: self.int,
            float: self.float,
            complex: st.complex_numbers(),
            str: self.str,
            bytes: self.bytes,
            bytearray: self.bytes.map(bytearray),
        }.get(annotation)
        if scalar is not None:
            return scalar
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin is typing.Annotated:
            return self.build(args[0])
        if origin in UNION_ORIGINS:
            return st.one_of([self.build(member) for member in args])
        if origin is typing.Literal:
            return st.sampled_from(args)
        if annotation in (list, set, frozenset, dict, tuple):
            origin, args = annotation, ()
        element = args[0] if args else Any
        if origin in SEQUENCE_ORIGINS:
            items = self.build(element)
            return st.lists(items, max_size=_MAX_SIZE) | _runs_of(items)
        if origin in SET_ORIGINS:
            return st.sets(self._hashable(element), max_size=_MAX_SIZE)
        if origin is frozenset:
            return st.frozensets(self._hashable(element), max_size=_MAX_SIZE)
        if origin in MAPPING_ORIGINS:
            keys, values = args if len(args) == 2 else (Any, Any)
            return st.dictionaries(self._hashable(keys), self.build(values), max_size=_MAX_SIZE)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return st.lists(self.build(args[0]), max_size=_MAX_SIZE).map(tuple)
            if annotation is tuple or annotation is typing.Tuple:  # noqa: UP006 - the bare alias itself
                return st.lists(self.any, max_size=_MAX_SIZE).map(tuple)
            return st.tuples(*(self.build(item) for item in args if item != ()))
        # Hypothesis' own resolution may build values (functions, say) that cannot reach the sandbox.
        self.used_from_type = True
        try:
            return st.from_type(annotation)
        except (hypothesis.errors.InvalidArgument, hypothesis.errors.ResolutionFailed, TypeError) as error:
            raise _NoStrategy(f"Hypothesis cannot generate {annotation!r}: {error}") from None

    def _hashable(self, annotation: Any) -> st.SearchStrategy[Any]:
        """Dict keys and set items: ``Any`` ones must at least be hashable."""
        if annotation is Any or annotation is None:
            return st.none() | st.booleans() | self.int | self.str
        return self.build(annotation)


def _runs_of(items: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    """Lists of one item repeated 10 to 100 times (each a copy): buffer sizes, limits, quadratic code."""
    return st.tuples(items, st.sampled_from(RUN_LENGTHS)).map(
        lambda pair: [copy.deepcopy(pair[0]) for _ in range(pair[1])]
    )


def _variations_of(harvested: Sequence[Any], affix: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Harvested strings (or bytes) as they are, cased differently, cut short, or with a short affix."""
    exact = st.sampled_from(tuple(harvested))
    recased = st.tuples(exact, st.sampled_from(("upper", "lower", "swapcase"))).map(
        lambda pair: getattr(pair[0], pair[1])()
    )
    prefixes = st.tuples(exact, st.integers(min_value=0, max_value=100)).map(
        lambda pair: pair[0][: pair[1] % (len(pair[0]) + 1)]
    )
    affixed = st.tuples(affix, exact, affix).map(lambda parts: parts[0] + parts[1] + parts[2])
    return exact | recased | prefixes | affixed


def _either(strategy: st.SearchStrategy[Any], shaped: st.SearchStrategy[Any] | None) -> st.SearchStrategy[Any]:
    """``strategy``, or (as often as any of its branches) a value shaped by the code."""
    return strategy if shaped is None else strategy | shaped


def _only_builtins(annotation: Any) -> bool:
    """True when every leaf of ``annotation`` is a builtin scalar (or Any): inferable from seeds."""
    if annotation is Any or annotation in _BUILTIN_LEAVES:
        return True
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (list, set, frozenset, dict, tuple, *UNION_ORIGINS) and args:
        return all(arg is Ellipsis or _only_builtins(arg) for arg in args)
    return False


def _picklable(call: Input) -> bool:
    """Whether the sandbox can receive the arguments (it pickles them, in this trusted process)."""
    try:
        pickle.dumps((call.args, dict(call.kwargs)))
    except Exception:  # noqa: BLE001 - pickling fails with many exception types
        return False
    return True


# ---------------------------------------------------------------------------------------------
# The engine.


class HypothesisEngine(Engine):
    """Draws inputs from strategies built from the annotations (or the seeds' shapes)."""

    name = "hypothesis"
    checks_preconditions = True
    restartable = True

    def __init__(self, context: CallContext) -> None:
        super().__init__(context)
        self._rounds = 0
        self._fruitless_rounds = 0
        self._buffer: deque[Input] = deque()
        self._seen: set[str] = {seed.key for seed in context.seeds}
        self._problem: str | None = None
        self._strategies = _Strategies(context.constants)
        #: whether the strategy holds the final shaped banks (else it is rebuilt once they are)
        self._shaped_final = context.shaped is None or context.shaped.complete
        try:
            self._strategy = self._input_strategy()
        except _NoStrategy as error:
            self._problem = str(error)

    def _parameter_strategies(self) -> dict[str, st.SearchStrategy[Any]]:
        """A strategy per parameter that can get a value (annotated, or seen in the seeds)."""
        signature = self.context.signature
        seeds = [seed for seed in self.context.seeds if preconditions.conforms(seed, signature)]
        seed_values = parameter_values(seeds, signature)
        strategies = self._strategies
        by_name: dict[str, st.SearchStrategy[Any]] = {}
        for parameter in signature.parameters:
            if parameter.kind is ParameterKind.VAR_KEYWORD:
                continue  # the names such a call would use are unknown
            shaped = self._shaped_strategy(parameter.name)
            if parameter.annotated:
                annotation = _NONE_TYPE if parameter.annotation is None else parameter.annotation
                by_name[parameter.name] = _either(strategies.build(annotation), shaped)
                continue
            values = seed_values[parameter.name]
            if not values:
                inferred = inferred_annotation(self.context.shaped, parameter.name)
                if inferred is not None:
                    by_name[parameter.name] = _either(strategies.build(inferred), shaped)
                elif not parameter.has_default and parameter.kind is not ParameterKind.VAR_POSITIONAL:
                    raise _NoStrategy(f"parameter {parameter.name} has no annotation and no seeds")
                continue
            # The seeds' own values (copied: drawn inputs must not share objects), and values of their shape.
            reused = st.sampled_from(values).map(copy.deepcopy)
            inferred = infer_annotation(values)
            by_name[parameter.name] = _either(
                (reused | strategies.build(inferred)) if _only_builtins(inferred) else reused, shaped
            )
        return by_name

    def _shaped_strategy(self, name: str) -> st.SearchStrategy[Any] | None:
        """Values shaped by the code for ``name``: its bank, and fresh draws from the regexes applied to it."""
        shaped = self.context.shaped
        if shaped is None:
            return None
        parts: list[st.SearchStrategy[Any]] = []
        bank = shaped.values(name)
        if bank:
            parts.append(st.sampled_from(bank).map(copy.deepcopy))
        for use in shaped.sampled_regexes(name):
            compiled = re.compile(use.pattern, use.flags)
            if isinstance(use.pattern, bytes):
                parts.append(st.from_regex(compiled, fullmatch=True))
            else:
                parts.append(st.from_regex(compiled, fullmatch=True, alphabet=_PRINTABLE))
        return st.one_of(parts) if parts else None

    def _input_strategy(self) -> st.SearchStrategy[Input]:
        parameters = self.context.signature.parameters
        by_name = self._parameter_strategies()
        takes_var_positional = any(p.kind is ParameterKind.VAR_POSITIONAL for p in parameters)
        if not any(p.name in by_name for p in parameters):
            # Nothing to draw: a composite strategy that never draws is deprecated in Hypothesis.
            return st.just(Input((), {}, how_generated=self.name))

        @st.composite
        def calls(draw: st.DrawFn) -> Input:
            args: list[Any] = []
            kwargs: dict[str, Any] = {}
            # Positional arguments bind in order: once one is left out (or given by keyword),
            # the later ones can only go by keyword, and *args gets nothing.
            positional_open = True
            for parameter in parameters:
                strategy = by_name.get(parameter.name)
                kind = parameter.kind
                if kind is ParameterKind.VAR_POSITIONAL:
                    if strategy is not None and positional_open:
                        args.extend(draw(st.lists(strategy, max_size=3)))
                    continue
                if kind is ParameterKind.VAR_KEYWORD:
                    continue
                included = not parameter.has_default or (strategy is not None and draw(st.booleans()))
                if not included or strategy is None:
                    if kind is not ParameterKind.KEYWORD_ONLY:
                        positional_open = False
                    continue
                value = draw(strategy)
                if kind is ParameterKind.KEYWORD_ONLY:
                    kwargs[parameter.name] = value
                elif kind is ParameterKind.POSITIONAL_ONLY:
                    if positional_open:
                        args.append(value)
                elif positional_open and (not parameter.has_default or takes_var_positional):
                    args.append(value)
                else:
                    # An optional argument by keyword, as a caller would write it.
                    kwargs[parameter.name] = value
                    positional_open = False
            return Input(tuple(args), kwargs, how_generated=self.name)

        return calls()

    # -- proposing -------------------------------------------------------------------------

    def propose(self, n: int) -> list[Input]:
        if not self._shaped_final and self.context.shaped is not None and self.context.shaped.complete:
            self._shaped_final = True
            try:
                self._strategy = self._input_strategy()
                self._problem = None
            except _NoStrategy as error:
                self._problem = str(error)
        if self._problem:
            raise EngineCannotProceed("unsupported", self._problem)
        batch: list[Input] = []
        while len(batch) < n:
            if not self._buffer:
                if self._fruitless_rounds >= _MAX_FRUITLESS_ROUNDS:
                    break
                fresh = self._run_round(max(n - len(batch), _MIN_ROUND))
                self._fruitless_rounds = 0 if fresh else self._fruitless_rounds + 1
                continue
            candidate = self._buffer.popleft()
            if preconditions.conforms(candidate, self.context.signature) and satisfies_requirement(
                self.context, candidate
            ):
                batch.append(candidate)
        if not batch and n > 0:
            raise EngineCannotProceed(
                "exhausted",
                f"{_MAX_FRUITLESS_ROUNDS} Hypothesis runs in a row drew no input not tried before "
                f"({len(self._seen)} distinct inputs so far)",
            )
        return batch

    def _run_round(self, examples: int) -> int:
        """Run Hypothesis once for up to ``examples`` draws; buffer the new ones and count them."""
        drawn: list[Input] = []
        round_seed = self.context.rng(f"hypothesis:{self._rounds}").getrandbits(64)
        self._rounds += 1

        @settings(
            max_examples=examples,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            print_blob=False,
            report_multiple_bugs=False,
        )
        @hypothesis.seed(round_seed)
        @given(call=self._strategy)
        def collect(call: Input) -> None:
            drawn.append(call)

        skip_scanning_loaded_modules()
        try:
            with storage_outside_working_directory():
                collect()
        except hypothesis.errors.Unsatisfiable:
            return 0
        except (hypothesis.errors.ResolutionFailed, hypothesis.errors.InvalidArgument) as error:
            self._problem = f"Hypothesis cannot generate these parameters: {error}"
            raise EngineCannotProceed("unsupported", self._problem) from error
        except Exception as error:
            raise EngineCannotProceed(
                "failed", f"Hypothesis stopped: {type(error).__name__}: {error}"
            ) from error

        fresh = 0
        unsendable = 0
        for call in drawn:
            key = call.key
            if key in self._seen:
                continue
            self._seen.add(key)
            if self._strategies.used_from_type and not _picklable(call):
                unsendable += 1
                continue
            self._buffer.append(call)
            fresh += 1
        if drawn and unsendable == len(drawn):
            self._problem = "Hypothesis builds values of these annotations that cannot be sent to the sandbox"
            raise EngineCannotProceed("unsupported", self._problem)
        return fresh

    def observe(self, observations: Sequence[Observation]) -> None:
        # Inputs other engines tried need not be drawn again.
        for observation in observations:
            self._seen.add(observation.input.key)
