"""The symbolic engine: CrossHair looks for inputs where the implementations differ.

Symbolic execution runs the implementations, so it runs in the sandbox: on its first
:meth:`~SymbolicEngine.propose` the engine starts the CrossHair runner
(:class:`divergent.sandbox.symbolic_process.SymbolicProcess`) at the run's isolation level and
limits, and from then on only polls it. The runner explores implementation 0 against each other
one, round-robin, for the run's seconds, and reports each diff it finds, the diff's arguments in the
safe encoding of :mod:`divergent.values`; the engine rebuilds them with
:func:`~divergent.values.decode_builtin` (never by unpickling) and proposes them like any other
engine's inputs. The search loop runs them
in its own workers and judges them: CrossHair's word is a candidate, never a verdict. The one
exception, "every path explored without a difference" (:meth:`~SymbolicEngine.proof`), is taken
only when the parent vetted the sources before the runner started (:mod:`divergent.engines.calls.provable`:
code that can reach nothing of the runner's process, so cannot forge its account) and the runner
ran those very sources.

Needs the ``symbolic`` extra (``crosshair-tool``) and annotated parameters (CrossHair builds its
symbolic values from the annotations); without either the engine stops as "unsupported".
"""

from __future__ import annotations

import importlib
import importlib.util
from collections import deque
from collections.abc import Callable

from divergent.engines.base import CallContext, Engine
from divergent.engines.calls.proofs import proof_limits, proof_problem
from divergent.errors import DivergentError, EngineCannotProceed, StopReason
from divergent.preconditions import conforms
from divergent.records import Input, Proof
from divergent.sandbox.isolation import choose_level
from divergent.sandbox.limits import Limits
from divergent.sandbox.symbolic_process import SymbolicProcess
from divergent.values import NotBuiltin, decode_builtin

__all__ = ["SymbolicEngine"]

_DEFAULT_SECONDS = 20.0


class SymbolicEngine(Engine):
    """Proposes the inputs CrossHair's symbolic search finds to split the implementations."""

    name = "symbolic"
    checks_preconditions = True
    background = True

    def __init__(self, context: CallContext) -> None:
        super().__init__(context)
        self._process: SymbolicProcess | None = None
        self._ready: deque[Input] = deque()
        self._seen: set[str] = set()
        self._stop: EngineCannotProceed | None = None
        self._proposed = 0
        self._rejected = 0
        self._undecodable = 0
        self._preconditions: Callable[[Input], bool] | None = None
        self._proof: Proof | None = None
        #: why an exploration of every path would be no proof here (floats, an import...); decided
        #: from the sources before the runner starts, None when it would be one
        self._proof_problem: str | None = None
        #: why an exploration of every path is not a proof here (floats, say), once there was one
        self.not_a_proof = ""

    @property
    def runner_pid(self) -> int | None:
        """The process id of the sandboxed runner (its wrapper at namespace levels), once started."""
        return self._process.pid if self._process is not None else None

    # -- Engine interface ----------------------------------------------------------------------

    def propose(self, n: int) -> list[Input]:
        if self._stop is not None:
            raise self._stop
        if self._process is None:
            self._start()
        assert self._process is not None
        self._take(self._process.poll())
        if self._process.finished():
            self._take(self._process.stop())
            if not self._ready:
                self._stop = self._stop_reason()
                self.close()
                raise self._stop
        batch = [self._ready.popleft() for _ in range(min(n, len(self._ready)))]
        self._proposed += len(batch)
        return batch

    @property
    def explored(self) -> str:
        """CrossHair's own work so far: paths and seconds, and whether it was still at it."""
        if self._process is None:
            return ""
        progress = self._process.progress
        text = f"CrossHair: {progress['paths']:,} paths in {progress['seconds']:.1f} s"
        if self._process.summary is None and self._stop is None:
            text += ", still exploring when the search ended"
        return text

    def proof(self) -> Proof | None:
        """A proof of equivalence, once the runner has explored every path without a difference
        and the types and operations involved are modelled exactly (:mod:`divergent.engines.calls.proofs`);
        None until then, or when the exploration is no proof (then :attr:`not_a_proof` says why)."""
        if self._proof is not None or self._process is None:
            return self._proof
        summary = self._process.summary
        if summary is None or not summary["claimed"] or self.not_a_proof:
            return None
        if self._proposed or self._rejected or self._undecodable or summary["diffs"] != 0:
            return None
        problem = self._proof_problem
        if problem is None and not summary["complete"]:
            problem = "the runner did not run vetted sources"
        if problem is not None:
            self.not_a_proof = (
                f"the symbolic runner reported every path explored ({summary['paths']}) without a difference, but that is "
                f"no proof here: {problem}"
            )
            return None
        context = self.context
        self._proof = Proof(
            engine=self.name,
            paths=summary["paths"],
            limits=proof_limits(context.signature, requirement=context.require is not None),
        )
        return self._proof

    def close(self) -> None:
        """Kill the runner and everything it started (it may be looping in an implementation)."""
        if self._process is not None:
            self._process.close()
        if self._stop is None:
            self._stopping("exhausted", "closed")

    # -- starting the runner -------------------------------------------------------------------

    def _start(self) -> None:
        context = self.context
        if importlib.util.find_spec("crosshair") is None:
            raise self._stopping(
                "unsupported", "symbolic needs crosshair-tool: pip install 'divergent[symbolic]'"
            )
        if len(context.implementations) < 2:
            raise self._stopping("exhausted", "fewer than two implementations: nothing to compare")
        if any(impl.language != "python" for impl in context.implementations):
            raise self._stopping("unsupported", "symbolic execution works on Python functions only")
        unannotated = [p.name for p in context.signature.parameters if not p.annotated]
        if unannotated:
            raise self._stopping(
                "unsupported",
                f"symbolic execution needs annotated parameters ({', '.join(unannotated)} have none)",
            )
        # Decided before anything runs: only code that can reach nothing of the runner's process
        # (engines/calls/provable.py) leaves the runner's account trustworthy enough for a proof.
        self._proof_problem = proof_problem(context.implementations, context.signature, context.comparison)
        try:
            self._process = SymbolicProcess(
                context.implementations,
                limits=context.limits or Limits(),
                level=choose_level(context.isolation),
                seconds=context.seconds if context.seconds is not None else _DEFAULT_SECONDS,
                strategy=context.settings.symbolic_strategy,
                vetted=self._proof_problem is None,
            )
        except DivergentError as error:  # no sandbox, no symbolic engine; the others go on
            self.close()
            raise self._stopping("failed", f"cannot start the symbolic runner: {error}") from error

    # -- what the runner reports ---------------------------------------------------------------

    def _take(self, diffs: list[dict]) -> None:
        for message in diffs:
            self._add_candidate(message)

    def _add_candidate(self, message: dict) -> None:
        try:
            args = decode_builtin(message.get("args"))
            kwargs = decode_builtin(message.get("kwargs"))
        except (NotBuiltin, TypeError, ValueError, IndexError, KeyError, OverflowError, RecursionError):
            self._undecodable += 1
            return
        if (
            not isinstance(args, list)
            or not isinstance(kwargs, dict)
            or not all(isinstance(k, str) for k in kwargs)
        ):
            self._undecodable += 1
            return
        candidate = Input(args=tuple(args), kwargs=kwargs, how_generated=self.name)
        try:
            key = candidate.key
        except Exception:  # noqa: BLE001 - a value with no canonical key is not proposed
            self._undecodable += 1
            return
        if key in self._seen:
            return
        self._seen.add(key)
        if not self._meets_preconditions(candidate):
            self._rejected += 1
            return
        self._ready.append(candidate)

    def _meets_preconditions(self, candidate: Input) -> bool:
        if self._preconditions is None:
            self._preconditions = _preconditions(self.context)
        try:
            return self._preconditions(candidate)
        except Exception:  # noqa: BLE001 - a predicate that raises does not hold
            return False

    # -- stopping ------------------------------------------------------------------------------

    def _stop_reason(self) -> EngineCannotProceed:
        assert self._process is not None
        counts = f"{self._proposed} inputs proposed"
        if self._rejected:
            counts += f", {self._rejected} not meeting the preconditions"
        if self._undecodable:
            counts += f", {self._undecodable} not rebuildable outside the sandbox"
        notes = "".join(f"; {note}" for note in self._process.notes)
        if self._process.verdict is not None:
            event, text = self._process.verdict
            if event == "unsupported":
                return self._stopping("unsupported", text + notes)
            if event == "failed":
                return self._stopping("failed", text + notes)
            return self._stopping("exhausted", f"CrossHair: {text} ({counts}){notes}")
        if self._process.returncode == 0:
            # The runner's alarm ends it at once when an implementation holds it past its time.
            return self._stopping("exhausted", f"CrossHair: time is up ({counts}){notes}")
        status = self._process.exit_description()
        return self._stopping(
            "failed", f"the symbolic runner ended with {status}{self._process.stderr_tail()}{notes}"
        )

    def _stopping(self, reason: StopReason, message: str) -> EngineCannotProceed:
        self._stop = EngineCannotProceed(reason, message)
        return self._stop


def _preconditions(context: CallContext) -> Callable[[Input], bool]:
    """The checks every proposed input must pass: the annotations and the user's requirement."""
    signature, require = context.signature, context.require

    def check(candidate: Input) -> bool:
        if not conforms(candidate, signature):
            return False
        return require is None or bool(require(candidate))

    return check
