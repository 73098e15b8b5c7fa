"""The symbolic runner: CrossHair on pairs of implementations, inside the sandbox.

Started by :class:`divergent.sandbox.symbolic_process.SymbolicProcess` as ``symbolic LIMITS``; it
speaks the protocol of :mod:`.kit`. It runs next to untrusted code, so it applies the sandbox's
resource limits before loading anything, discards what the programs print, and sends only JSON
(built by :func:`divergent.values.encode`) to the parent. How a pair is explored is
:mod:`.symbolic_search`.

Command (the only one; the parent then closes the pipe)::

    ("explore", {"implementations": [<implementation payloads with a "label">, ...],
                 "pairs": [[0, 1], [0, 2], ...], "seconds": 20.0, "per_path_timeout": 2.0,
                 "strategy": "auto" | "paths" | "diff_behavior"})

Answers, one frame each, written whole and at once (the parent polls)::

    {"event": "diff", "pair": [0, j], "args": <encoded list>, "kwargs": <encoded dict>, "text": "..."}
    {"event": "note", "text": "..."}            something the user should know (a pair dropped)
    {"event": "progress", "paths": n, "seconds": s}   after every turn: how far it got (for the report)
    {"event": "unsupported", "text": "..."}     CrossHair cannot work on these implementations
    {"event": "failed", "text": "..."}          the runner itself went wrong
    {"event": "done", "text": "...", "paths": n, "seconds": s, "exhausted": bool, "strategy": "...",
     "diffs": n, "complete": bool}                          complete: every path of every ordering explored, run
                                                on both sides and compared, none dropped or cut
                                                (the programs run in this process and could write
                                                this frame themselves: the parent reads "complete"
                                                only for code it vetted, see engines/calls/provable.py)

The runner ends by itself when the time is up, when CrossHair has exhausted every pair's paths or has
nothing new to try (its coverage-guided search reached no new code for a long while: see
:data:`.symbolic_search.PATIENCE`), or after reporting too many diffs. A path that loops on concrete
values (where CrossHair's own path timeout never gets a say) is cut by a CPU-time watchdog; if the runner still cannot stop, its alarm
exits it a moment after its time (and the parent can kill it at any moment).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from divergent.sandbox.child.kit import (
    Alarm,
    Channel,
    Discard,
    TimeUp,
    forbid_inspection,
    import_implementation,
    start_child,
)
from divergent.sandbox.child.symbolic_search import (
    PATIENCE,
    DiffBehaviorExplorer,
    Loaded,
    Ordering,
    PathsExplorer,
    Reporter,
    Unsupported,
    describe,
    paths_strategy_available,
    short,
)

#: CPU seconds one ordered pair explores before the next one gets its turn
_SLICE_SECONDS = 1.0
#: a pair whose exploration breaks this many times in a row is dropped
_MAX_FAILURES = 3
#: how long past the end of the run a still-busy runner gets before the alarm exits it
_HARD_STOP_GRACE = 1.0


class RunAlarm(Alarm):
    """The runner's one wall-clock timer, whose meaning depends on the phase.

    While a module loads, it raises :class:`~.kit.TimeUp`. At the end of the run it asks the path
    in progress to stop (``on_end_of_run``: the watchdog's), so the search can still say "done"; if
    the runner has not stopped a moment later (a program CrossHair cannot interrupt), it exits at
    once.

    The handler reads no clock: under CrossHair's tracing ``time.monotonic()`` returns a symbolic
    value, so what the timer means is decided when it is armed (``phase``).
    """

    def __init__(self, end_of_run: float) -> None:
        super().__init__()
        self.end_of_run = end_of_run
        self.hard_stop = end_of_run + _HARD_STOP_GRACE
        self.phase = "idle"  # "load", "end of run" or "exit": what the next firing means
        self.on_end_of_run: Callable[[types.FrameType | None], None] | None = None
        self._exit = os._exit
        self._monotonic = time.monotonic

    def arm_for_load(self, seconds: float) -> None:
        remaining = self.hard_stop - self._monotonic()
        self.phase = "load" if seconds < remaining else "exit"
        # Keeps firing after the first time: a module's bare `except:` must not win.
        self.arm(max(0.001, min(seconds, remaining)))

    def disarm(self) -> None:
        super().disarm()
        self.phase = "idle"

    def arm_end_of_run(self) -> None:
        self.phase = "end of run"
        self.arm(max(0.001, self.end_of_run - self._monotonic()), repeat=0)

    def fire(self, signum: int, frame: types.FrameType | None) -> None:
        if self.phase == "exit":
            # Exit at once: the program may be looping where no exception would ever get out.
            self._exit(0)
        if self.phase == "load":
            raise TimeUp()
        if self.phase == "end of run":
            self.phase = "exit"
            self.arm(_HARD_STOP_GRACE, repeat=0)
            if self.on_end_of_run is not None:
                self.on_end_of_run(frame)


# ---------------------------------------------------------------------------------------------
# Loading: as the sandbox worker does, but several implementations in one process.


def _load_all(
    specs: list[dict], alarm: RunAlarm, load_timeout: float, channel: Channel
) -> dict[int, Loaded]:
    """Load every implementation; those that fail are left out (with a note to the parent).

    Each module loads with its own ``sys.path`` entries first and without the modules the others
    brought in, so two versions of a helper module (``old/util.py``, ``new/util.py``) both load.
    Afterwards the modules go back into ``sys.modules`` (the first implementation wins a shared
    name), because type-hint resolution looks classes' modules up there.
    """
    base_path = list(sys.path)
    loaded: dict[int, Loaded] = {}
    stashed: list[dict[str, types.ModuleType]] = []
    for index, spec in enumerate(specs):
        before = set(sys.modules)
        sys.path[:] = [*spec["sys_path"], *base_path]
        alarm.arm_for_load(load_timeout)
        try:
            function = _load_one(spec)
        except TimeUp:
            channel.send({"event": "note", "text": f"{spec['label']}: loading took longer than {load_timeout:g} s"})
            function = None
        except BaseException as error:  # noqa: BLE001 - whatever the module raises is the reason
            channel.send({"event": "note", "text": f"{spec['label']}: cannot load: {describe(error)}"})
            function = None
        finally:
            alarm.disarm()
        stashed.append({name: sys.modules.pop(name) for name in set(sys.modules) - before})
        if function is not None:
            loaded[index] = Loaded(index, spec["label"], function)
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

def _orderings(loaded: dict[int, Loaded], pairs: list[list[int]], channel: Channel) -> list[Ordering]:
    """Both orderings of every pair (as ``diff_behavior`` does: each side's paths lead once)."""
    orderings: list[Ordering] = []
    reasons: list[str] = []
    for i, j in pairs:
        if i not in loaded or j not in loaded:
            continue
        a, b = loaded[i], loaded[j]
        signature_a, signature_b = _annotated_signature(a.function), _annotated_signature(b.function)
        if isinstance(signature_a, str) and isinstance(signature_b, str):
            reasons.append(f"{b.label}: {signature_b}")
            channel.send({"event": "note", "text": f"{a.label} vs {b.label} skipped: {signature_b}"})
            continue
        # An unannotated side borrows the other's signature: the arguments bind alike.
        usable_a = signature_a if not isinstance(signature_a, str) else signature_b
        usable_b = signature_b if not isinstance(signature_b, str) else signature_a
        assert isinstance(usable_a, inspect.Signature) and isinstance(usable_b, inspect.Signature)
        orderings.append(Ordering((i, j), a, b, usable_a))
        orderings.append(Ordering((i, j), b, a, usable_b))
    if not orderings and reasons:
        raise Unsupported("symbolic execution needs annotated parameters; " + "; ".join(reasons))
    return orderings


def _search(
    orderings: list[Ordering],
    explorer: PathsExplorer | DiffBehaviorExplorer,
    end_of_run: float,
    channel: Channel,
) -> None:
    """Round-robin over the orderings until time is up or none has anything left to try (each is
    exhausted, dropped or saturated); a progress frame after every turn."""
    active = list(orderings)
    while active and not explorer.reporter.full:
        for ordering in list(active):
            remaining = end_of_run - time.monotonic()
            if remaining <= 0.05 or explorer.reporter.full:
                return
            try:
                explorer.explore(ordering, min(_SLICE_SECONDS, remaining), remaining)
                ordering.failures = 0
            except Unsupported:
                raise
            except BaseException as error:  # noqa: BLE001 - CrossHair gave up on this turn (its internal
                # errors are BaseExceptions); the pair gets another chance from a fresh tree
                ordering.failures += 1
                ordering.failures_seen += 1
                ordering.search_root = None  # the tree may be half-updated: start this pair afresh
                ordering.root_paths = 0
                if ordering.failures >= _MAX_FAILURES:
                    channel.send({
                        "event": "note",
                        "text": f"CrossHair stopped on {ordering.first.label} vs {ordering.second.label}: {describe(error)}",
                    })
                    ordering.exhausted = True
            explorer.reporter.progress(explorer.paths)
            if ordering.exhausted or ordering.saturated:
                active.remove(ordering)


def _closing_text(orderings: list[Ordering], explorer: PathsExplorer | DiffBehaviorExplorer, found: int,
                  full: bool) -> str:
    counts = f"{explorer.paths} paths, {found} diffs"
    if all(ordering.exhausted for ordering in orderings):
        return f"CrossHair explored every path ({counts})"
    if full:
        return f"stopped after {found} diffs ({explorer.paths} paths)"
    if all(ordering.exhausted or ordering.saturated for ordering in orderings):
        least, share = PATIENCE
        return (f"nothing new to try: no new code reached in the last {share:.0%} (at least {least}) of each "
                f"ordering's paths ({counts})")
    return f"time is up ({counts})"


def main() -> None:
    started = time.monotonic()
    channel, limits, _ = start_child()
    # No other process of this user may open this one's /proc entries (its descriptors, its memory).
    forbid_inspection()
    real_stderr = sys.__stderr__
    # fd 2 goes to a file the parent reads when the runner crashes; what programs print is discarded.
    sys.stdout = Discard()
    sys.stderr = Discard()
    # Past the file-size limit a write fails with EFBIG instead of killing the runner.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    message = channel.receive()
    if message is None:
        os._exit(0)
    command, request = message
    if command != "explore":
        channel.send({"event": "failed", "text": f"unknown command {command!r}"})
        os._exit(0)
    alarm = RunAlarm(started + float(request["seconds"]))
    alarm.arm_end_of_run()
    try:
        _run(request, float(limits["load_timeout"]), channel, alarm, started)
    except Unsupported as reason:
        channel.send({"event": "unsupported", "text": short(str(reason), 1000)})
    except BaseException as error:  # noqa: BLE001 - any failure becomes a message, never a hang
        channel.send({"event": "failed", "text": describe(error)})
        if real_stderr is not None:
            import traceback

            with contextlib.suppress(Exception):
                traceback.print_exc(file=real_stderr)
    # Exit without interpreter teardown: program objects' finalizers have nothing left to say.
    os._exit(0)


def _run(request: dict, load_timeout: float, channel: Channel, alarm: RunAlarm, started: float) -> None:
    try:
        import crosshair.core_and_libs  # noqa: F401 - registers CrossHair's symbolic types and patches
    except ImportError as error:
        raise Unsupported(f"crosshair-tool is not importable in the sandbox: {error}") from None
    strategy = request.get("strategy", "auto")
    if strategy == "auto":
        strategy = "paths" if paths_strategy_available() else "diff_behavior"
    specs = request["implementations"]
    loaded = _load_all(specs, alarm, load_timeout, channel)
    alarm.arm_end_of_run()
    if 0 not in loaded:
        channel.send({"event": "failed", "text": f"{specs[0]['label']} cannot be loaded"})
        return
    orderings = _orderings(loaded, request["pairs"], channel)
    if not orderings:
        channel.send({"event": "failed", "text": "no pair of implementations could be loaded"})
        return
    reporter = Reporter(channel, started)
    per_path_timeout = float(request["per_path_timeout"])
    explorer: PathsExplorer | DiffBehaviorExplorer = (
        PathsExplorer(reporter, per_path_timeout, alarm.end_of_run)
        if strategy == "paths"
        else DiffBehaviorExplorer(reporter, per_path_timeout)
    )
    if isinstance(explorer, PathsExplorer):
        alarm.on_end_of_run = explorer.watchdog.interrupt
    _search(orderings, explorer, alarm.end_of_run, channel)
    exhausted = all(ordering.exhausted for ordering in orderings)
    found = len(reporter.seen)
    if isinstance(explorer, PathsExplorer) and explorer.watchdog.fired:
        channel.send({
            "event": "note",
            "text": f"{explorer.watchdog.fired} paths ran past {explorer.watchdog.seconds:g} s of CPU and were cut",
        })
    text = _closing_text(orderings, explorer, found, reporter.full)
    channel.send({
        "event": "done", "text": text, "paths": explorer.paths, "seconds": round(time.monotonic() - started, 2),
        "exhausted": exhausted, "strategy": strategy, "diffs": found,
        # Every ordering of every pair explored to the end, each path ran both implementations and
        # compared them, none was dropped, cut or nondeterministic: the parent may call it a proof.
        "complete": exhausted and _complete(explorer, reporter, orderings, len(request["pairs"])),
    })


def _complete(
    explorer: PathsExplorer | DiffBehaviorExplorer, reporter: Reporter, orderings: list[Ordering], pairs: int
) -> bool:
    if not isinstance(explorer, PathsExplorer) or reporter.seen or reporter.unencodable:
        return False
    if explorer.incomplete or explorer.nondeterministic or explorer.watchdog.fired:
        return False
    return len(orderings) == 2 * pairs and not any(ordering.failures_seen for ordering in orderings)



if __name__ == "__main__":
    main()
