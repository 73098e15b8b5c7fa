"""How the symbolic runner explores one ordered pair of implementations, and reports what differs.

Part of the symbolic runner (:mod:`.symbolic`, which says how it talks to the parent); it runs inside
the sandbox. Two strategies, chosen by the runner:

``paths`` (the default)
    CrossHair's own path-exploration loop (``crosshair.core.explore_paths``, the loop under
    ``diff_behavior``), with a completion callback written here: each path runs both functions,
    compares them, and when they differ realizes the *pre-call* arguments with
    :func:`crosshair.deep_realize` while the path's solver state is still alive. The values are
    real Python objects, encoded and sent at once; nothing goes through ``repr``. Each ordered pair
    keeps its search tree between turns, so the round-robin resumes a pair where it left it.
``diff_behavior``
    CrossHair's public ``diff_behavior``, in growing time slices, for CrossHair versions whose
    internal loop has another interface. It reports arguments only as ``repr`` text: they are read
    back with :func:`ast.literal_eval` (plus ``nan``/``inf``), and a diff whose arguments are not
    literals is dropped.

Either way a diff goes to the :class:`Reporter`, which encodes its arguments with
:func:`divergent.values.encode` and sends each distinct one once.
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import os
import signal
import time
import types
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from divergent.sandbox.child.kit import Channel, describe_exception
from divergent.values import EncodeLimits, canonical_text, encode

#: after this many diffs the runner stops: the parent has plenty to confirm and shrink
MAX_REPORTED_DIFFS = 1000
#: an ordering has nothing new to try once CrossHair's last paths reached no code location it had not
#: reached before, for at least this many paths and this share of all its paths (CrossHair's own
#: command line stops after 5 such paths; the share lets a long, fruitful exploration go on longer)
PATIENCE = (10, 0.5)
_TEXT_LIMIT = 200
_ENCODE_LIMITS = EncodeLimits(max_nodes=20_000, max_string=20_000)


class Unsupported(Exception):
    """CrossHair cannot analyse these implementations."""


@dataclass
class Loaded:
    """An implementation the runner loaded: its position in the request, its label, its function."""

    index: int
    label: str
    function: Callable[..., Any]


@dataclass
class Ordering:
    """One ordered pair: CrossHair explores paths of ``first`` (with its signature), then ``second``."""

    pair: tuple[int, int]
    first: Loaded
    second: Loaded
    signature: inspect.Signature
    search_root: Any = None
    exhausted: bool = False
    #: CrossHair has nothing new to try here: no new code reached for a long while (:data:`PATIENCE`)
    saturated: bool = False
    #: paths explored from the current search tree
    root_paths: int = 0
    #: failures in a row (the pair is dropped after a few) and in all
    failures: int = 0
    failures_seen: int = 0


def describe(error: BaseException) -> str:
    """One short line about an exception (a program's, or CrossHair's)."""
    return short(describe_exception(error))


def short(text: str, limit: int = _TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an untrusted __repr__
        return "<unrepresentable>"
    return short(text, 80) if isinstance(text, str) else "<unrepresentable>"


# ---------------------------------------------------------------------------------------------
# Reporting a diff.


class Reporter:
    """Sends each distinct diff to the parent once, its arguments encoded."""

    def __init__(self, channel: Channel, started: float | None = None) -> None:
        self.channel = channel
        self.seen: set[str] = set()
        self.unencodable = 0
        #: when the runner started (its progress counts seconds from there)
        self.started = time.monotonic() if started is None else started

    def progress(self, paths: int) -> None:
        """How far the runner has got (call it untraced: traced, the clock is a symbolic value)."""
        self.channel.send({"event": "progress", "paths": paths, "seconds": round(time.monotonic() - self.started, 2)})

    @property
    def full(self) -> bool:
        return len(self.seen) >= MAX_REPORTED_DIFFS

    def report(self, pair: tuple[int, int], args: tuple, kwargs: dict, text: str) -> None:
        try:
            encoded_args = encode(list(args), _ENCODE_LIMITS)
            encoded_kwargs = encode(dict(kwargs), _ENCODE_LIMITS)
        except Exception:  # noqa: BLE001 - an argument whose encoding runs (and breaks) program code
            self.unencodable += 1
            return
        key = canonical_text([encoded_args, encoded_kwargs])
        if key in self.seen:
            return
        self.seen.add(key)
        self.channel.send({"event": "diff", "pair": list(pair), "args": encoded_args, "kwargs": encoded_kwargs,
                           "text": text})

    def describe(self, ordering: Ordering, call: str, first: str, second: str) -> str:
        return short(f"{call}: {ordering.first.label} {first}; {ordering.second.label} {second}", 400)


def _call_text(args: tuple, kwargs: dict) -> str:
    return (
        "("
        + ", ".join([_safe_repr(a) for a in args] + [f"{k}={_safe_repr(v)}" for k, v in kwargs.items()])
        + ")"
    )

# ---------------------------------------------------------------------------------------------
# Strategy "paths": CrossHair's exploration loop with a callback that sees the values.


def paths_strategy_available() -> bool:
    """True when CrossHair's internals have the shape this runner drives (they change across versions)."""
    try:
        from crosshair.behavior_compare import flexible_equal  # noqa: F401
        from crosshair.core import ExceptionFilter, explore_paths  # noqa: F401
        from crosshair.options import DEFAULT_OPTIONS  # noqa: F401
        from crosshair.statespace import RootNode  # noqa: F401
    except ImportError:
        return False
    names = list(inspect.signature(explore_paths).parameters)
    return names[:5] == ["fn", "sig", "options", "search_root", "on_path_complete"]


class _PathWatchdog:
    """Ends a path whose program code runs too long between symbolic branches.

    CrossHair checks its per-path timeout only where a symbolic value forks the path, so a loop on
    concrete values (``while True: pass``) would hold the runner until the end of the run. This
    CPU-time timer raises CrossHair's ``PathTimeout`` into the program instead, but only while the
    program's own code runs (tracing on, no opcode being handled, not a CrossHair frame): raised in
    the middle of CrossHair's bookkeeping, it could tear the search tree. Otherwise it retries soon.
    """

    _RETRY_SECONDS = 0.005

    def __init__(self, seconds: float, end_of_run: float) -> None:
        import crosshair
        from crosshair.tracers import COMPOSITE_TRACER, is_tracing

        try:
            from crosshair.util import PathTimeout as timeout_type
        except ImportError:  # older CrossHair: any unexplored-path signal ends the path alike
            from crosshair.util import UnexploredPath as timeout_type
        self.seconds = seconds
        self.end_of_run = end_of_run
        self.watching = False
        self.fired = 0
        #: what asked the path to stop: "too long" (the CPU timer) or "end of run" (the alarm)
        self._why = ""
        self._timeout_type = timeout_type
        self._is_tracing = is_tracing
        self._is_handling = getattr(COMPOSITE_TRACER.ctracer, "is_handling", lambda: False)
        self._crosshair_dir = os.path.dirname(crosshair.__file__)
        signal.signal(signal.SIGPROF, self._fire)

    def start(self) -> None:
        self.watching = True
        self._why = ""
        # No path outlasts the run either (CPU time never runs ahead of the wall clock).
        signal.setitimer(signal.ITIMER_PROF, max(0.01, min(self.seconds, self.end_of_run - time.monotonic())))

    def stop(self) -> None:
        self.watching = False
        signal.setitimer(signal.ITIMER_PROF, 0)

    def interrupt(self, frame: types.FrameType | None) -> None:
        """End the path in progress (the run is over): now if the program's code runs, else soon."""
        self._why = self._why or "end of run"
        self._stop_path(frame)

    def _fire(self, signum: int, frame: types.FrameType | None) -> None:
        self._why = self._why or "too long"
        self._stop_path(frame)

    def _stop_path(self, frame: types.FrameType | None) -> None:
        if not self.watching:
            return
        in_program = (
            self._is_tracing()
            and not self._is_handling()
            and frame is not None
            and not frame.f_code.co_filename.startswith(self._crosshair_dir)
        )
        if not in_program:
            signal.setitimer(signal.ITIMER_PROF, self._RETRY_SECONDS)
            return
        if self._why == "too long":
            self.fired += 1
        self.watching = False
        raise self._timeout_type()


class PathsExplorer:
    """The "paths" strategy: CrossHair's path loop over one ordering at a time, resumable."""

    def __init__(self, reporter: Reporter, per_path_timeout: float, end_of_run: float) -> None:
        from crosshair.core import explore_paths
        from crosshair.options import DEFAULT_OPTIONS

        self.reporter = reporter
        self.per_path_timeout = per_path_timeout
        self.paths = 0
        #: the CrossHair counters of the turn in progress (its paths so far)
        self._slice_stats: Counter = Counter()
        self.nondeterministic = 0
        #: paths that did not run both implementations to the end and compare them (CrossHair
        #: dropped them, or they ran out of time): exhausting the tree proves nothing past them
        self.incomplete = 0
        self._explore_paths = explore_paths
        self._defaults = DEFAULT_OPTIONS
        self._takes_nondeterminism = "on_nondeterminism" in inspect.signature(explore_paths).parameters
        # Later than CrossHair's own path timeout: that one ends a path more gracefully when it can.
        self.watchdog = _PathWatchdog(per_path_timeout + 0.5, end_of_run)

    def explore(self, ordering: Ordering, seconds: float, remaining: float) -> None:
        """Explore ``ordering`` for about ``seconds`` (CPU, and wall clock as a bound), resuming its tree."""
        from crosshair.statespace import RootNode

        if ordering.search_root is None:
            ordering.search_root = RootNode()
        options = self._defaults.overlay(
            per_condition_timeout=seconds,
            per_path_timeout=self.per_path_timeout,
        )
        options.stats = Counter()
        self._slice_stats = options.stats
        wall_end = time.monotonic() + seconds
        run_both, on_path_complete = self._callbacks(ordering, wall_end)
        extra: dict[str, Any] = {}
        if self._takes_nondeterminism:
            extra["on_nondeterminism"] = self._count_nondeterminism
        try:
            self._explore_paths(
                run_both, ordering.signature, options, ordering.search_root, on_path_complete, **extra
            )
        finally:
            self.watchdog.stop()
        explored = options.stats.get("num_paths", 0)
        self.paths += explored
        self._slice_stats = Counter()
        ordering.root_paths += explored
        if options.stats.get("exhaustion", 0):
            ordering.exhausted = True
        elif _nothing_new(ordering):
            ordering.saturated = True

    def _count_nondeterminism(self) -> None:
        self.nondeterministic += 1

    def _callbacks(self, ordering: Ordering, wall_end: float) -> tuple[Callable, Callable]:
        from crosshair import IgnoreAttempt, NoTracing, deep_realize
        from crosshair.behavior_compare import flexible_equal
        from crosshair.core import ExceptionFilter

        first, second = ordering.first.function, ordering.second.function
        # What the current path did; filled by run_both, read by on_path_complete.
        record: dict[str, Any] = {}

        def behave(
            function: Callable[..., Any], bound: inspect.BoundArguments
        ) -> tuple[Any, BaseException | None]:
            try:
                with ExceptionFilter() as efilter:
                    return function(*bound.args, **bound.kwargs), None
            except (SystemExit, KeyboardInterrupt, GeneratorExit) as exit_request:
                # BaseExceptions a program may raise on purpose: behaviour, not the end of the runner.
                return None, exit_request
            if efilter.user_exc is not None:
                return None, efilter.user_exc[0]
            raise IgnoreAttempt()  # CrossHair wants this path dropped

        watchdog = self.watchdog

        def past_wall_end() -> bool:
            with NoTracing():  # traced, time.monotonic() would be a symbolic value
                return time.monotonic() > wall_end

        def run_both(bound: inspect.BoundArguments) -> None:
            record.clear()
            with NoTracing():
                watchdog.start()  # stopped once the path's outcomes are compared
            try:
                bound_second = copy.deepcopy(bound)  # symbolic copy: both calls see the same inputs
                record["first"] = behave(first, bound)
                record["second"] = behave(second, bound_second)
            except BaseException:
                with NoTracing():
                    self.incomplete += 1
                raise
            record["bound_second"] = bound_second

        def same_exception(a: BaseException | None, b: BaseException | None) -> bool:
            if a is None or b is None:
                return a is None and b is None
            if type(a) is not type(b):
                return False
            try:
                return str(a) == str(b)
            except Exception:  # noqa: BLE001 - an untrusted __str__: the types agree, call them alike
                return True

        def on_path_complete(
            space: Any, pre_args: inspect.BoundArguments, bound: inspect.BoundArguments, *rest: Any
        ) -> bool:
            if "bound_second" not in record:
                # CrossHair swallowed the reason this path stopped short (an ignored attempt).
                watchdog.stop()
                self.incomplete += 1
                return past_wall_end()
            (value_a, error_a), (value_b, error_b) = record["first"], record["second"]
            try:
                alike = (
                    same_exception(error_a, error_b)
                    and (error_a is not None or flexible_equal(value_a, value_b))
                    and flexible_equal(bound.arguments, record["bound_second"].arguments)
                )
            except Exception:  # noqa: BLE001 - comparing ran program code (__eq__) that raised: not a diff we can trust
                alike = True
            watchdog.stop()
            space.detach_path()
            if not alike:
                self._report(ordering, deep_realize, NoTracing, pre_args, record)
            return past_wall_end() or self.reporter.full

        return run_both, on_path_complete

    def _report(
        self, ordering: Ordering, deep_realize: Callable, no_tracing: Callable, pre_args: Any, record: dict
    ) -> None:
        try:
            realized = deep_realize(pre_args)
        except Exception:  # noqa: BLE001 - realizing can fail on exotic symbolic values: drop this diff
            return
        shown = []
        for value, error in (record["first"], record["second"]):
            try:
                real_value, real_error = deep_realize(value), deep_realize(error)
            except Exception:  # noqa: BLE001 - only the description suffers
                shown.append("behaves differently")
                continue
            with no_tracing():
                # Plain values: repr them untraced, as ordinary code.
                shown.append(
                    f"raises {describe(real_error)}"
                    if error is not None
                    else f"returns {_safe_repr(real_value)}"
                )
        with no_tracing():
            args, kwargs = tuple(realized.args), dict(realized.kwargs)
            text = self.reporter.describe(ordering, _call_text(args, kwargs), shown[0], shown[1])
            self.reporter.report(ordering.pair, args, kwargs, text)
            # The search may end on this diff before the turn does: say how far the runner got.
            self.reporter.progress(self.paths + self._slice_stats.get("num_paths", 0))


# ---------------------------------------------------------------------------------------------
# Strategy "diff_behavior": CrossHair's public function; arguments come back as repr text.


def _nothing_new(ordering: Ordering) -> bool:
    """Whether CrossHair's coverage-guided search has gone :data:`PATIENCE` paths without new code."""
    quiet = getattr(getattr(ordering.search_root, "pathing_oracle", None), "iters_since_discovery", None)
    least, share = PATIENCE
    return type(quiet) is int and quiet >= max(least, share * ordering.root_paths)


class _ReprTooRich(ValueError):
    """An argument's repr is not a literal this runner can read back."""


class _SpecialFloats(ast.NodeTransformer):
    _NAMES: ClassVar[dict[str, float]] = {"nan": math.nan, "inf": math.inf}

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self._NAMES:
            return ast.copy_location(ast.Constant(self._NAMES[node.id]), node)
        return node


def literal_from_repr(text: str) -> Any:
    """The value a repr shows, for literals (and the float specials ``nan``, ``inf``, ``-inf``)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return ast.literal_eval(_SpecialFloats().visit(tree))
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as error:
        raise _ReprTooRich(text[:80]) from error


def _call_from_reprs(signature: inspect.Signature, reprs: dict[str, str]) -> tuple[tuple, dict]:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for name, parameter in signature.parameters.items():
        if name not in reprs:
            raise _ReprTooRich(f"no value for {name}")
        value = literal_from_repr(reprs[name])
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            args.append(value)
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[name] = value
        else:
            kwargs.update(value)
    return tuple(args), kwargs


class DiffBehaviorExplorer:
    """The "diff_behavior" strategy: CrossHair's public function, in growing time slices."""

    def __init__(self, reporter: Reporter, per_path_timeout: float) -> None:
        self.reporter = reporter
        self.per_path_timeout = per_path_timeout
        self.paths = 0
        self.unreadable = 0
        self._slices: dict[int, float] = {}

    def explore(self, ordering: Ordering, seconds: float, remaining: float) -> None:
        """One call of ``diff_behavior`` (it explores both orderings itself, so the second is skipped)."""
        from crosshair.diff_behavior import diff_behavior
        from crosshair.fnutil import FunctionInfo
        from crosshair.options import DEFAULT_OPTIONS

        if ordering.first.index > ordering.second.index:
            ordering.exhausted = True  # diff_behavior covers this ordering with the other one
            return
        # diff_behavior starts over on every call: give it twice as long each turn to go deeper.
        budget = min(self._slices.get(id(ordering), seconds / 2) * 2, remaining)
        self._slices[id(ordering)] = budget
        options = DEFAULT_OPTIONS.overlay(
            per_condition_timeout=budget, per_path_timeout=self.per_path_timeout
        )
        options.stats = Counter()
        diffs = diff_behavior(
            FunctionInfo.from_fn(ordering.first.function),
            FunctionInfo.from_fn(ordering.second.function),
            options,
        )
        self.paths += options.stats.get("num_paths", 0)
        if options.stats.get("exhaustion", 0) >= 2:
            ordering.exhausted = True
        if isinstance(diffs, str):
            raise Unsupported(diffs)
        for diff in diffs:
            try:
                args, kwargs = _call_from_reprs(ordering.signature, diff.args)
            except _ReprTooRich:
                self.unreadable += 1
                continue
            shown = [result.describe(set()) for result in (diff.result1, diff.result2)]
            text = self.reporter.describe(
                ordering, _call_text(args, kwargs), short(shown[0], 120), short(shown[1], 120)
            )
            self.reporter.report(ordering.pair, args, kwargs, text)
