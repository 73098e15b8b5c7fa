"""The symbolic engine's child: CrossHair on pairs of implementations, inside the sandbox.

Started by :class:`divergent.engines.symbolic.SymbolicEngine` as
``python_command("divergent.sandbox.child.symbolic")``. It runs next to untrusted code, so it
applies the sandbox worker's resource limits before loading anything, keeps its protocol on a
private descriptor, and sends only JSON (built by :func:`divergent.values.encode`) to the parent.

Protocol. Parent → runner: one JSON object on stdin, then end of file::

    {"implementations": [{"label", "path", "module_name", "sys_path", "source", "entry_point",
                          "setup_code"}, ...],
     "pairs": [[0, 1], [0, 2], ...], "seconds": 20.0, "per_path_timeout": 2.0,
     "memory_mb": 2048, "file_bytes": ..., "load_timeout": 10.0, "recursion_limit": 10000,
     "strategy": "auto" | "paths" | "diff_behavior"}

Runner → parent: JSON lines, each written whole and at once (the parent polls)::

    {"event": "diff", "pair": [0, j], "args": <encoded list>, "kwargs": <encoded dict>, "text": "..."}
    {"event": "note", "text": "..."}            something the user should know (a pair dropped)
    {"event": "unsupported", "text": "..."}     CrossHair cannot work on these implementations
    {"event": "failed", "text": "..."}          the runner itself went wrong
    {"event": "done", "text": "...", "paths": n, "exhausted": bool}

The runner ends by itself when the time is up, when CrossHair has exhausted every pair's paths, or
after reporting too many diffs. A path that loops on concrete values (where CrossHair's own path
timeout never gets a say) is cut by a CPU-time watchdog; if the runner still cannot stop, an alarm
exits it a moment after its time (and the parent can kill it at any moment).

How diffs are found, and how their arguments come back as values:

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
"""

from __future__ import annotations

import ast
import contextlib
import copy
import inspect
import io
import json
import math
import os
import signal
import sys
import time
import types
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from divergent.sandbox.child.kit import apply_limits as _apply_limits
from divergent.sandbox.child.kit import import_implementation
from divergent.values import EncodeLimits, canonical_text, encode

#: CPU seconds one ordered pair explores before the next one gets its turn
_SLICE_SECONDS = 1.0
#: after this many diffs the runner stops: the parent has plenty to confirm and shrink
_MAX_REPORTED_DIFFS = 1000
#: a pair whose exploration breaks this many times in a row is dropped
_MAX_FAILURES = 3
_TEXT_LIMIT = 200
_ENCODE_LIMITS = EncodeLimits(max_nodes=20_000, max_string=20_000)


# A BaseException: a module's own `except Exception` must not swallow it.
class _LoadTimeout(BaseException):
    """Raised by the alarm when an implementation's module takes too long to load."""


class _Unsupported(Exception):
    """CrossHair cannot analyse these implementations."""


class _Protocol:
    """The private channel to the parent: whole JSON lines on a descriptor the programs never see."""

    def __init__(self, fd: int) -> None:
        # Bound now, before untrusted code runs: a program that patches os or json cannot reach them.
        self._fd = fd
        self._write = os.write
        self._dumps = json.dumps

    def send(self, **message: Any) -> None:
        data = (self._dumps(message, separators=(",", ":"), ensure_ascii=True) + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            written = self._write(self._fd, view)
            view = view[written:]


class _Discard(io.TextIOBase):
    """sys.stdout and sys.stderr while programs run: what they print must not reach the protocol."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


#: how long past the end of the run a still-busy runner gets before the alarm exits it
_HARD_STOP_GRACE = 1.0


class _Alarm:
    """The runner's one wall-clock timer.

    While a module loads, it raises :class:`_LoadTimeout`. At the end of the run it asks the path in
    progress to stop (``on_end_of_run``: the watchdog's), so the search can still say "done"; if the
    runner has not stopped a moment later (a program CrossHair cannot interrupt), it exits at once.

    The handler reads no clock: under CrossHair's tracing ``time.monotonic()`` returns a symbolic
    value, so what the timer means is decided when it is armed (``phase``).
    """

    def __init__(self, end_of_run: float) -> None:
        self.end_of_run = end_of_run
        self.hard_stop = end_of_run + _HARD_STOP_GRACE
        self.phase = "idle"  # "load", "end of run" or "exit": what the next firing means
        self.on_end_of_run: Callable[[types.FrameType | None], None] | None = None
        self._exit = os._exit
        self._monotonic = time.monotonic
        self._setitimer = signal.setitimer
        signal.signal(signal.SIGALRM, self._fire)

    def arm_for_load(self, seconds: float) -> None:
        remaining = self.hard_stop - self._monotonic()
        self.phase = "load" if seconds < remaining else "exit"
        # Keeps firing after the first time: a module's bare `except:` must not win.
        self._setitimer(signal.ITIMER_REAL, max(0.001, min(seconds, remaining)), 0.05)

    def disarm(self) -> None:
        self._setitimer(signal.ITIMER_REAL, 0, 0)
        self.phase = "idle"

    def arm_end_of_run(self) -> None:
        self.phase = "end of run"
        self._setitimer(signal.ITIMER_REAL, max(0.001, self.end_of_run - self._monotonic()))

    def _fire(self, signum: int, frame: types.FrameType | None) -> None:
        if self.phase == "exit":
            # Exit at once: the program may be looping where no exception would ever get out.
            self._exit(0)
        if self.phase == "load":
            raise _LoadTimeout()
        if self.phase == "end of run":
            self.phase = "exit"
            self._setitimer(signal.ITIMER_REAL, _HARD_STOP_GRACE)
            if self.on_end_of_run is not None:
                self.on_end_of_run(frame)


# ---------------------------------------------------------------------------------------------
# Loading: as the sandbox worker does, but several implementations in one process.


@dataclass
class _Loaded:
    index: int
    label: str
    function: Callable[..., Any]


def _load_all(
    specs: list[dict], alarm: _Alarm, load_timeout: float, protocol: _Protocol
) -> dict[int, _Loaded]:
    """Load every implementation; those that fail are left out (with a note to the parent).

    Each module loads with its own ``sys.path`` entries first and without the modules the others
    brought in, so two versions of a helper module (``old/util.py``, ``new/util.py``) both load.
    Afterwards the modules go back into ``sys.modules`` (the first implementation wins a shared
    name), because type-hint resolution looks classes' modules up there.
    """
    base_path = list(sys.path)
    loaded: dict[int, _Loaded] = {}
    stashed: list[dict[str, types.ModuleType]] = []
    for index, spec in enumerate(specs):
        before = set(sys.modules)
        sys.path[:] = [*spec["sys_path"], *base_path]
        alarm.arm_for_load(load_timeout)
        try:
            function = _load_one(spec)
        except _LoadTimeout:
            protocol.send(event="note", text=f"{spec['label']}: loading took longer than {load_timeout:g} s")
            function = None
        except BaseException as error:  # noqa: BLE001 - whatever the module raises is the reason
            protocol.send(event="note", text=f"{spec['label']}: cannot load: {_describe(error)}")
            function = None
        finally:
            alarm.disarm()
        stashed.append({name: sys.modules.pop(name) for name in set(sys.modules) - before})
        if function is not None:
            loaded[index] = _Loaded(index, spec["label"], function)
    extra_paths = [entry for spec in specs for entry in spec["sys_path"]]
    sys.path[:] = list(dict.fromkeys([*extra_paths, *base_path]))
    for modules in stashed:
        for name, module in modules.items():
            sys.modules.setdefault(name, module)
    return loaded


def _load_one(spec: dict) -> Callable[..., Any]:
    module = import_implementation(spec, spec["module_name"])
    function = getattr(module, spec["entry_point"], None)
    if function is None:
        raise LookupError(f"the module defines no {spec['entry_point']!r}")
    if not callable(function):
        raise TypeError(f"{spec['entry_point']!r} is not callable")
    return function


def _describe(error: BaseException) -> str:
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - an untrusted __str__
        message = ""
    name = type(error).__name__
    return _short(f"{name}: {message}" if message else name)


def _short(text: str, limit: int = _TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an untrusted __repr__
        return "<unrepresentable>"
    return _short(text, 80) if isinstance(text, str) else "<unrepresentable>"


# ---------------------------------------------------------------------------------------------
# Signatures: CrossHair builds symbolic arguments from annotations, so every parameter needs one.


def _annotated_signature(function: Callable[..., Any]) -> inspect.Signature | str:
    """The function's signature with resolved annotations, or why CrossHair cannot use it."""
    from crosshair.fnutil import resolve_signature

    signature = resolve_signature(function)
    if isinstance(signature, str):
        return f"cannot resolve the annotations: {signature}"
    missing = [p.name for p in signature.parameters.values() if p.annotation is inspect.Parameter.empty]
    if missing:
        return f"parameter(s) {', '.join(missing)} have no annotation"
    return signature


@dataclass
class _Ordering:
    """One ordered pair: CrossHair explores paths of ``first`` (with its signature), then ``second``."""

    pair: tuple[int, int]
    first: _Loaded
    second: _Loaded
    signature: inspect.Signature
    search_root: Any = None
    exhausted: bool = False
    failures: int = 0


def _orderings(loaded: dict[int, _Loaded], pairs: list[list[int]], protocol: _Protocol) -> list[_Ordering]:
    """Both orderings of every pair (as ``diff_behavior`` does: each side's paths lead once)."""
    orderings: list[_Ordering] = []
    reasons: list[str] = []
    for i, j in pairs:
        if i not in loaded or j not in loaded:
            continue
        a, b = loaded[i], loaded[j]
        signature_a, signature_b = _annotated_signature(a.function), _annotated_signature(b.function)
        if isinstance(signature_a, str) and isinstance(signature_b, str):
            reasons.append(f"{b.label}: {signature_b}")
            protocol.send(event="note", text=f"{a.label} vs {b.label} skipped: {signature_b}")
            continue
        # An unannotated side borrows the other's signature: the arguments bind alike.
        usable_a = signature_a if not isinstance(signature_a, str) else signature_b
        usable_b = signature_b if not isinstance(signature_b, str) else signature_a
        assert isinstance(usable_a, inspect.Signature) and isinstance(usable_b, inspect.Signature)
        orderings.append(_Ordering((i, j), a, b, usable_a))
        orderings.append(_Ordering((i, j), b, a, usable_b))
    if not orderings and reasons:
        raise _Unsupported("symbolic execution needs annotated parameters; " + "; ".join(reasons))
    return orderings


# ---------------------------------------------------------------------------------------------
# Reporting a diff.


class _Reporter:
    def __init__(self, protocol: _Protocol) -> None:
        self.protocol = protocol
        self.seen: set[str] = set()
        self.unencodable = 0

    @property
    def full(self) -> bool:
        return len(self.seen) >= _MAX_REPORTED_DIFFS

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
        self.protocol.send(event="diff", pair=list(pair), args=encoded_args, kwargs=encoded_kwargs, text=text)

    def describe(self, ordering: _Ordering, call: str, first: str, second: str) -> str:
        return _short(f"{call}: {ordering.first.label} {first}; {ordering.second.label} {second}", 400)


def _call_text(args: tuple, kwargs: dict) -> str:
    return (
        "("
        + ", ".join([_safe_repr(a) for a in args] + [f"{k}={_safe_repr(v)}" for k, v in kwargs.items()])
        + ")"
    )


# ---------------------------------------------------------------------------------------------
# Strategy "paths": CrossHair's exploration loop with a callback that sees the values.


def _paths_strategy_available() -> bool:
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


class _PathsExplorer:
    def __init__(self, reporter: _Reporter, per_path_timeout: float, end_of_run: float) -> None:
        from crosshair.core import explore_paths
        from crosshair.options import DEFAULT_OPTIONS

        self.reporter = reporter
        self.per_path_timeout = per_path_timeout
        self.paths = 0
        self.nondeterministic = 0
        self._explore_paths = explore_paths
        self._defaults = DEFAULT_OPTIONS
        self._takes_nondeterminism = "on_nondeterminism" in inspect.signature(explore_paths).parameters
        # Later than CrossHair's own path timeout: that one ends a path more gracefully when it can.
        self.watchdog = _PathWatchdog(per_path_timeout + 0.5, end_of_run)

    def explore(self, ordering: _Ordering, seconds: float, remaining: float) -> None:
        """Explore ``ordering`` for about ``seconds`` (CPU, and wall clock as a bound), resuming its tree."""
        from crosshair.statespace import RootNode

        if ordering.search_root is None:
            ordering.search_root = RootNode()
        options = self._defaults.overlay(
            per_condition_timeout=seconds,
            per_path_timeout=self.per_path_timeout,
        )
        options.stats = Counter()
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
        self.paths += options.stats.get("num_paths", 0)
        if options.stats.get("exhaustion", 0):
            ordering.exhausted = True

    def _count_nondeterminism(self) -> None:
        self.nondeterministic += 1

    def _callbacks(self, ordering: _Ordering, wall_end: float) -> tuple[Callable, Callable]:
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
            bound_second = copy.deepcopy(bound)  # symbolic copy: both calls see the same inputs
            record["first"] = behave(first, bound)
            record["second"] = behave(second, bound_second)
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
                watchdog.stop()
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
        self, ordering: _Ordering, deep_realize: Callable, no_tracing: Callable, pre_args: Any, record: dict
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
                    f"raises {_describe(real_error)}"
                    if error is not None
                    else f"returns {_safe_repr(real_value)}"
                )
        with no_tracing():
            args, kwargs = tuple(realized.args), dict(realized.kwargs)
            text = self.reporter.describe(ordering, _call_text(args, kwargs), shown[0], shown[1])
            self.reporter.report(ordering.pair, args, kwargs, text)


# ---------------------------------------------------------------------------------------------
# Strategy "diff_behavior": CrossHair's public function; arguments come back as repr text.


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


class _DiffBehaviorExplorer:
    def __init__(self, reporter: _Reporter, per_path_timeout: float) -> None:
        self.reporter = reporter
        self.per_path_timeout = per_path_timeout
        self.paths = 0
        self.unreadable = 0
        self._slices: dict[int, float] = {}

    def explore(self, ordering: _Ordering, seconds: float, remaining: float) -> None:
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
            raise _Unsupported(diffs)
        for diff in diffs:
            try:
                args, kwargs = _call_from_reprs(ordering.signature, diff.args)
            except _ReprTooRich:
                self.unreadable += 1
                continue
            shown = [result.describe(set()) for result in (diff.result1, diff.result2)]
            text = self.reporter.describe(
                ordering, _call_text(args, kwargs), _short(shown[0], 120), _short(shown[1], 120)
            )
            self.reporter.report(ordering.pair, args, kwargs, text)


# ---------------------------------------------------------------------------------------------


def _search(
    orderings: list[_Ordering],
    explorer: _PathsExplorer | _DiffBehaviorExplorer,
    end_of_run: float,
    protocol: _Protocol,
) -> bool:
    """Round-robin over the orderings until time is up; True when every one was exhausted."""
    active = list(orderings)
    while active and not explorer.reporter.full:
        for ordering in list(active):
            remaining = end_of_run - time.monotonic()
            if remaining <= 0.05 or explorer.reporter.full:
                return False
            try:
                explorer.explore(ordering, min(_SLICE_SECONDS, remaining), remaining)
                ordering.failures = 0
            except _Unsupported:
                raise
            except BaseException as error:  # noqa: BLE001 - CrossHair gave up on this turn (its internal
                # errors are BaseExceptions); the pair gets another chance from a fresh tree
                ordering.failures += 1
                ordering.search_root = None  # the tree may be half-updated: start this pair afresh
                if ordering.failures >= _MAX_FAILURES:
                    protocol.send(
                        event="note",
                        text=f"CrossHair stopped on {ordering.first.label} vs {ordering.second.label}: {_describe(error)}",
                    )
                    ordering.exhausted = True
            if ordering.exhausted:
                active.remove(ordering)
    return not active


def _silence_standard_streams() -> int:
    """Move the protocol off fd 1 and point the programs' stdin/stdout at /dev/null.

    fd 2 stays (it goes to a file the parent reads when the runner crashes); what programs print
    through ``sys.stderr`` is discarded like their stdout.
    """
    protocol_fd = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    sys.stdout = _Discard()
    sys.stderr = _Discard()
    return protocol_fd


def main() -> None:
    started = time.monotonic()
    request = json.loads(sys.stdin.buffer.read())
    protocol = _Protocol(_silence_standard_streams())
    real_stderr = sys.__stderr__
    _apply_limits(int(request["memory_mb"]), int(request["file_bytes"]))
    sys.setrecursionlimit(int(request.get("recursion_limit", 10_000)))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the parent
    # Past the file-size limit a write fails with EFBIG instead of killing the runner.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    alarm = _Alarm(started + float(request["seconds"]))
    alarm.arm_end_of_run()
    try:
        _run(request, protocol, alarm)
    except _Unsupported as reason:
        protocol.send(event="unsupported", text=_short(str(reason), 1000))
    except BaseException as error:  # noqa: BLE001 - any failure becomes a message, never a hang
        protocol.send(event="failed", text=_describe(error))
        if real_stderr is not None:
            import traceback

            with contextlib.suppress(Exception):
                traceback.print_exc(file=real_stderr)
    # Exit without interpreter teardown: program objects' finalizers have nothing left to say.
    os._exit(0)


def _run(request: dict, protocol: _Protocol, alarm: _Alarm) -> None:
    try:
        import crosshair.core_and_libs  # noqa: F401 - registers CrossHair's symbolic types and patches
    except ImportError as error:
        raise _Unsupported(f"crosshair-tool is not importable in the sandbox: {error}") from None
    strategy = request.get("strategy", "auto")
    if strategy == "auto":
        strategy = "paths" if _paths_strategy_available() else "diff_behavior"
    specs = request["implementations"]
    loaded = _load_all(specs, alarm, float(request["load_timeout"]), protocol)
    alarm.arm_end_of_run()
    if 0 not in loaded:
        protocol.send(event="failed", text=f"{specs[0]['label']} cannot be loaded")
        return
    orderings = _orderings(loaded, request["pairs"], protocol)
    if not orderings:
        protocol.send(event="failed", text="no pair of implementations could be loaded")
        return
    reporter = _Reporter(protocol)
    per_path_timeout = float(request["per_path_timeout"])
    explorer: _PathsExplorer | _DiffBehaviorExplorer = (
        _PathsExplorer(reporter, per_path_timeout, alarm.end_of_run)
        if strategy == "paths"
        else _DiffBehaviorExplorer(reporter, per_path_timeout)
    )
    if isinstance(explorer, _PathsExplorer):
        alarm.on_end_of_run = explorer.watchdog.interrupt
    exhausted = _search(orderings, explorer, alarm.end_of_run, protocol)
    found = len(reporter.seen)
    if isinstance(explorer, _PathsExplorer) and explorer.watchdog.fired:
        protocol.send(
            event="note",
            text=f"{explorer.watchdog.fired} paths ran past {explorer.watchdog.seconds:g} s of CPU and were cut",
        )
    if exhausted:
        text = f"CrossHair explored every path ({explorer.paths} paths, {found} diffs)"
    elif reporter.full:
        text = f"stopped after {found} diffs ({explorer.paths} paths)"
    else:
        text = f"time is up ({explorer.paths} paths, {found} diffs)"
    protocol.send(event="done", text=text, paths=explorer.paths, exhausted=exhausted, strategy=strategy)


if __name__ == "__main__":
    main()
