"""REFUTE's success rule, and the status of every attempt.

A candidate is a program that prints the counterexample (the printer). It is judged so (the
authors' rule, all of it sandboxed here):

1. run the printer with empty stdin: what it prints is the candidate input
   (it fails: ``printer-failed``);
2. the validator must accept the input: exit 0 with it on stdin (else ``validation-failed``,
   with the validator's message);
3. run the correct and the wrong code on it, up to :attr:`Rules.repeats` times (for
   nondeterministic code), and compare the outputs by tokens (blank lines dropped; YES/NO in any
   case when every expected token is yes or no): outputs that differ are a ``success``.
   The correct code failing is ``correct-failed`` (the input is too big for it, or it is broken);
   outputs equal every time are ``no-difference``.

The wrong code crashing, timing out or exceeding the memory limit on a valid input where the
correct code is fine: by default a ``success`` (a Codeforces hack counts it); with
``compat="refute"`` the authors' rule, ``wrong-failed`` (their code does not count it).
``unparseable-answer`` is the strategies' own: the model's answer held no usable action.
"""

from __future__ import annotations

import enum
import hashlib
import time
from dataclasses import dataclass, field, replace
from typing import Any

from divergent.bench.refute.dataset import PYTHON, RefuteTask
from divergent.bench.refute.execution import CodeRun, CodeRunner, Source
from divergent.errors import InvalidArgument

__all__ = [
    "COMPAT_MODES",
    "CandidateVerdict",
    "Rules",
    "Status",
    "evaluate_input",
    "evaluate_printer",
    "first_lines",
    "run_printer",
    "validate",
]

COMPAT_MODES = ("default", "refute")
#: characters of an input (and of each output) kept in a stored verdict; the printer's code is
#: stored too, so a longer input can be printed again
STORED_CHARS = 4000


class Status(enum.StrEnum):
    SUCCESS = "success"
    VALIDATION_FAILED = "validation-failed"
    NO_DIFFERENCE = "no-difference"
    PRINTER_FAILED = "printer-failed"
    WRONG_FAILED = "wrong-failed"
    CORRECT_FAILED = "correct-failed"
    UNPARSEABLE = "unparseable-answer"


@dataclass(frozen=True)
class Rules:
    """How candidates are judged, and the limits of the runs that judge them."""

    #: "default" (a crash/timeout/memory-limit of the wrong code is a success) or "refute"
    compat: str = "default"
    #: runs of the wrong and the correct code per candidate (nondeterministic code)
    repeats: int = 5
    #: seconds the printer may take (the paper tells the model one minute)
    printer_timeout: float = 60.0
    validator_timeout: float = 30.0
    #: seconds per run of the wrong and correct code; None: from the problem (see run_timeout)
    run_timeout: float | None = None
    #: MiB for the wrong and correct code; None: the problem's memory limit
    memory_mb: int | None = None
    #: without a validator every printed input counts as valid (rows that have none)
    require_validator: bool = True

    def __post_init__(self) -> None:
        if self.compat not in COMPAT_MODES:
            raise InvalidArgument(f"--compat {self.compat!r}: choose {' or '.join(COMPAT_MODES)}")
        if self.repeats < 1:
            raise InvalidArgument(f"--repeats {self.repeats}: must be >= 1")
        for name in ("printer_timeout", "validator_timeout"):
            if getattr(self, name) <= 0:
                raise InvalidArgument(f"{name}={getattr(self, name)!r} must be > 0 seconds")
        if self.run_timeout is not None and self.run_timeout <= 0:
            raise InvalidArgument(f"--run-timeout {self.run_timeout!r}: must be > 0 seconds")

    def run_timeout_for(self, task: RefuteTask) -> float:
        """Seconds per run of the wrong and correct code. The authors allowed a liberal 30 s (the
        ``refute`` compat mode does too); by default three times the problem's limit, at least
        2 s and at most 30 s: enough for a slower machine, while a wrong solution that loops
        still counts as failed, as it would in a hack."""
        if self.run_timeout is not None:
            return self.run_timeout
        if self.compat == "refute":
            return 30.0
        return min(30.0, max(2.0, 3 * task.time_limit_ms / 1000))

    def memory_for(self, task: RefuteTask) -> int:
        if self.memory_mb is not None:
            return self.memory_mb
        # the authors set no memory limit: give their mode room; ours is the problem's limit
        return max(2048, task.memory_limit_mb) if self.compat == "refute" else max(64, task.memory_limit_mb)

    def parameters(self) -> dict[str, Any]:
        return {
            "compat": self.compat,
            "repeats": self.repeats,
            "printer_timeout": self.printer_timeout,
            "validator_timeout": self.validator_timeout,
            "run_timeout": self.run_timeout,
            "memory_mb": self.memory_mb,
            "require_validator": self.require_validator,
        }


@dataclass(frozen=True)
class CandidateVerdict:
    """The judgement of one candidate."""

    status: Status
    #: one line saying why ("validator: n must be <= 10^5", "wrong code: runtime-error (signal
    #: SIGSEGV)", "outputs differ on repeat 1")
    detail: str = ""
    #: the candidate input, cut at STORED_CHARS (``input_chars`` and ``input_sha256`` are of the whole)
    input: str | None = None
    input_chars: int = 0
    input_sha256: str = ""
    wrong_output: str | None = None
    correct_output: str | None = None
    #: runs of the wrong and correct code made
    repeats: int = 0
    seconds: float = 0.0
    #: facts gathered on the way (which run failed, the search's counts)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.status is Status.SUCCESS

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "detail": self.detail,
            "input": self.input,
            "input_chars": self.input_chars,
            "input_sha256": self.input_sha256,
            "wrong_output": self.wrong_output,
            "correct_output": self.correct_output,
            "repeats": self.repeats,
            "seconds": round(self.seconds, 3),
            **({"extra": self.extra} if self.extra else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CandidateVerdict:
        return cls(
            status=Status(data["status"]),
            detail=data.get("detail", ""),
            input=data.get("input"),
            input_chars=int(data.get("input_chars", 0)),
            input_sha256=data.get("input_sha256", ""),
            wrong_output=data.get("wrong_output"),
            correct_output=data.get("correct_output"),
            repeats=int(data.get("repeats", 0)),
            seconds=float(data.get("seconds", 0.0)),
            extra=dict(data.get("extra", {})),
        )


def first_lines(text: str, lines: int = 3, chars: int = 300) -> str:
    """The start of a message on one line (validators and compilers can be verbose)."""
    kept = " | ".join(line.strip() for line in text.strip().splitlines()[:lines] if line.strip())
    return kept if len(kept) <= chars else kept[: chars - 1] + "…"


def _cut(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= STORED_CHARS else text[:STORED_CHARS]


def _failure(role: str, result: CodeRun) -> str:
    message = first_lines(result.stderr)
    return f"{role}: {result.describe()}" + (f": {message}" if message else "")


def validate(
    runner: CodeRunner, task: RefuteTask, candidate: str, rules: Rules
) -> tuple[bool, str]:
    """Whether the validator accepts ``candidate``, and its message (stderr, else stdout) when not.
    A task without a validator accepts everything (only when the rules allow it)."""
    if not task.validator:
        if rules.require_validator:
            raise InvalidArgument(f"problem {task.problem_id} has no validator")
        return True, ""
    result = runner.run(
        Source(task.validator, PYTHON, "validator"), candidate, timeout=rules.validator_timeout, memory_mb=2048
    )
    if result.ok:
        return True, ""
    message = first_lines(result.stderr) or first_lines(result.stdout)
    if result.kind.value in ("timeout", "memory-limit", "output-limit", "build-error"):
        message = f"the validator ended with {result.describe()}" + (f": {message}" if message else "")
    return False, message or f"rejected (exit {result.exit_code})"


def evaluate_input(
    runner: CodeRunner, task: RefuteTask, candidate: str, rules: Rules, *, validated: bool = False
) -> CandidateVerdict:
    """Steps 2-3 of the rule for an input given directly (``validated``: the validator already
    accepted it, as divergent's search only claims valid inputs; it is checked again anyway unless
    this is set)."""
    started = time.monotonic()
    base = CandidateVerdict(
        status=Status.NO_DIFFERENCE,
        input=_cut(candidate),
        input_chars=len(candidate),
        input_sha256=hashlib.sha256(candidate.encode("utf-8", "surrogateescape")).hexdigest(),
    )

    def done(status: Status, detail: str, **changes: Any) -> CandidateVerdict:
        return replace(base, status=status, detail=detail, seconds=time.monotonic() - started, **changes)

    if not validated:
        valid, message = validate(runner, task, candidate, rules)
        if not valid:
            return done(Status.VALIDATION_FAILED, f"validator: {message}")
    wrong_build, correct_build = task.wrong_build, task.correct_build
    if wrong_build is None or correct_build is None or task.correct_code is None:
        raise InvalidArgument(f"problem {task.problem_id}: {task.unusable(require_validator=False)}")
    wrong = Source(task.wrong_code, wrong_build, "wrong")
    correct = Source(task.correct_code, correct_build, "correct")
    timeout, memory = rules.run_timeout_for(task), rules.memory_for(task)
    correct_output: str | None = None
    wrong_output: str | None = None
    for repeat in range(1, rules.repeats + 1):
        correct_run = runner.run(correct, candidate, timeout=timeout, memory_mb=memory)
        if not correct_run.ok:
            return done(Status.CORRECT_FAILED, _failure("correct code", correct_run), repeats=repeat,
                        correct_output=_cut(correct_run.stdout))
        correct_output = correct_run.stdout
        wrong_run = runner.run(wrong, candidate, timeout=timeout, memory_mb=memory)
        wrong_output = wrong_run.stdout
        if not wrong_run.ok:
            status = Status.WRONG_FAILED if rules.compat == "refute" else Status.SUCCESS
            return done(status, _failure("wrong code", wrong_run), repeats=repeat,
                        wrong_output=_cut(wrong_output), correct_output=_cut(correct_output),
                        extra={"wrong_kind": wrong_run.kind.value})
        if not runner.outputs_match(correct_output, wrong_output):
            return done(Status.SUCCESS, f"outputs differ (repeat {repeat})", repeats=repeat,
                        wrong_output=_cut(wrong_output), correct_output=_cut(correct_output))
    return done(Status.NO_DIFFERENCE, f"same output {rules.repeats} time(s)", repeats=rules.repeats,
                wrong_output=_cut(wrong_output), correct_output=_cut(correct_output))


def run_printer(runner: CodeRunner, printer: Source, rules: Rules) -> tuple[str | None, str]:
    """Step 1: the printer's output with empty stdin, or None and why it failed."""
    result = runner.run(printer, "", timeout=rules.printer_timeout, memory_mb=2048)
    if not result.ok:
        return None, _failure("printer", result)
    if not result.stdout.strip():
        return None, "printer: printed nothing"
    return result.stdout, ""


def evaluate_printer(runner: CodeRunner, task: RefuteTask, printer: Source, rules: Rules) -> CandidateVerdict:
    """The whole rule for a candidate printer."""
    started = time.monotonic()
    candidate, why = run_printer(runner, printer, rules)
    if candidate is None:
        return CandidateVerdict(status=Status.PRINTER_FAILED, detail=why, seconds=time.monotonic() - started)
    verdict = evaluate_input(runner, task, candidate, rules)
    return replace(verdict, seconds=time.monotonic() - started)
