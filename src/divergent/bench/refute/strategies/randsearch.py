"""RandSearch (the paper's Appx. A): the model writes a random input generator and a brute-force
solver; a stress loop runs the generator again and again and compares the wrong code with the
brute-force solver until they differ (one minute at most); the input found is then judged by the
success rule. RandSearch Oracle: the model writes only the generator, and the loop compares the
wrong code with the hidden correct code.

The loop takes the first input on which the outputs differ (or on which the wrong code fails while
the reference does not), without asking the validator, as the authors' loop does: an invalid
input found there is judged ``validation-failed``. An input on which the reference itself fails
(a brute-force solver too slow for it) is skipped. The generator gets a fresh seed in argv[1] on
every run (generators seeded from the clock alone would repeat themselves within a second).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from divergent.bench.refute.actions import ActionError, find_action
from divergent.bench.refute.dataset import RefuteTask
from divergent.bench.refute.evaluate import CandidateVerdict, Status, evaluate_input, first_lines
from divergent.bench.refute.execution import CodeRun, CodeRunner, Source
from divergent.bench.refute.strategies.base import AttemptResult, Context, RefuteStrategy

__all__ = ["GENERATOR_TIMEOUT", "LoopResult", "RandSearch", "stress_loop"]

#: seconds one generator run may take
GENERATOR_TIMEOUT = 10.0
#: seconds one run of the brute-force solver may take (it is slow by design)
BRUTE_TIMEOUT = 10.0
#: generator runs per round of the loop (the runner may run a round's programs side by side)
BATCH = 8


@dataclass
class LoopResult:
    """What a stress loop did, and the input it found (None: none within its time)."""

    found: str | None = None
    #: the reference's and the wrong code's runs on the found input
    inputs: int = 0
    generator_failures: int = 0
    reference_failures: int = 0
    rounds: int = 0
    seconds: float = 0.0
    #: the first generator failure (shown when the generator never worked)
    generator_error: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "step": "stress-loop",
            "inputs": self.inputs,
            "generator_failures": self.generator_failures,
            "reference_failures": self.reference_failures,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 3),
            "found": self.found is not None,
        }


def _describe(result: CodeRun) -> str:
    message = first_lines(result.stderr)
    return result.describe() + (f": {message}" if message else "")


def stress_loop(
    runner: CodeRunner,
    generator: Source,
    wrong: Source,
    reference: Source,
    *,
    seconds: float,
    timeout: float,
    reference_timeout: float,
    memory_mb: int,
    seed: int = 0,
) -> LoopResult:
    """Run ``generator`` and compare ``wrong`` with ``reference`` on its inputs until they differ or
    ``seconds`` pass. A generator that fails on every run of the first round ends the loop."""
    started = time.monotonic()
    loop = LoopResult()
    next_seed = seed * 1_000_003
    while time.monotonic() - started < seconds:
        loop.rounds += 1
        seeds = [str(next_seed + i) for i in range(BATCH)]
        next_seed += BATCH
        generated = runner.run_many(generator, [""] * BATCH, timeout=GENERATOR_TIMEOUT, memory_mb=2048,
                                    args=[[s] for s in seeds])
        inputs = []
        for run in generated:
            if run.ok and run.stdout.strip():
                inputs.append(run.stdout)
            else:
                loop.generator_failures += 1
                if not loop.generator_error:
                    loop.generator_error = _describe(run) if not run.ok else "printed nothing"
        if not inputs:
            if loop.rounds == 1:
                break
            continue
        references = runner.run_many(reference, inputs, timeout=reference_timeout, memory_mb=memory_mb)
        wrongs = runner.run_many(wrong, inputs, timeout=timeout, memory_mb=memory_mb)
        for candidate, expected, actual in zip(inputs, references, wrongs, strict=True):
            loop.inputs += 1
            if not expected.ok:
                loop.reference_failures += 1
                continue
            if not actual.ok or not runner.outputs_match(expected.stdout, actual.stdout):
                loop.found = candidate
                break
        if loop.found is not None:
            break
    loop.seconds = time.monotonic() - started
    return loop


class RandSearch(RefuteStrategy):
    needs_model = True

    def __init__(self, *, oracle: bool) -> None:
        self.oracle = oracle
        self.uses_correct = oracle
        self.name = "randsearch-oracle" if oracle else "randsearch"
        self.description = (
            "model writes a random generator; stress loop against the hidden correct code"
            if oracle else "model writes a brute-force solver and a random generator; stress loop"
        )

    def attempt(self, task: RefuteTask, index: int, context: Context) -> AttemptResult:
        started = time.monotonic()
        result = AttemptResult(verdict=CandidateVerdict(Status.UNPARSEABLE))
        method = "randsearch_oracle" if self.oracle else "randsearch"
        messages = context.prompts.messages(method, task, loop_seconds=context.loop_seconds)
        text = self.ask(context, messages, index, result)
        try:
            generator = find_action(text, "generate_tc")
            brute = None if self.oracle else find_action(text, "solve_brute")
        except ActionError as error:
            result.verdict = CandidateVerdict(Status.UNPARSEABLE, detail=str(error))
            result.seconds = time.monotonic() - started
            return result
        assert generator.build is not None and task.wrong_build is not None
        result.code["generator"] = generator.code
        wrong = Source(task.wrong_code, task.wrong_build, "wrong")
        if brute is not None:
            assert brute.build is not None
            result.code["brute"] = brute.code
            reference = Source(brute.code, brute.build, "brute")
            reference_timeout = BRUTE_TIMEOUT
        else:
            assert task.correct_code is not None and task.correct_build is not None
            reference = Source(task.correct_code, task.correct_build, "correct")
            reference_timeout = context.rules.run_timeout_for(task)
        loop = stress_loop(
            context.runner,
            Source(generator.code, generator.build, "generator"),
            wrong,
            reference,
            seconds=context.loop_seconds,
            timeout=context.rules.run_timeout_for(task),
            reference_timeout=reference_timeout,
            memory_mb=context.rules.memory_for(task),
            seed=context.seed + index,
        )
        result.trace.append(loop.to_json())
        if loop.found is not None:
            result.verdict = evaluate_input(context.runner, task, loop.found, context.rules)
        elif loop.inputs == 0:
            result.verdict = CandidateVerdict(Status.PRINTER_FAILED, detail=f"generator: {loop.generator_error}")
        else:
            what = "brute-force solver" if brute is not None else "correct code"
            result.verdict = CandidateVerdict(
                Status.NO_DIFFERENCE,
                detail=f"stress loop: no difference from the {what} on {loop.inputs} inputs in {loop.seconds:.0f} s"
                + (f" ({loop.reference_failures} on which the reference failed)" if loop.reference_failures else ""),
            )
        result.seconds = time.monotonic() - started
        return result
