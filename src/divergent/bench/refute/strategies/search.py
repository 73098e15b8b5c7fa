"""Ours: ``divergent`` (no model) and ``hybrid`` (a model-written generator, then divergent).

``divergent``: divergent's search on the wrong and the correct code as two stdin programs, the
statement's example as the seed, the validator as the precondition (inputs it rejects are never
claimed), structure-aware mutation of the example (numbers toward boundaries, lines added and
removed with their counts kept consistent, sizes grown), and the shrinking of what it finds. The
correct code is its oracle, as in RandSearch Oracle. The input it finds is then judged by the same
success rule as every other strategy's.

``hybrid``: the model writes a generator aimed at the submission's weak spots; its outputs that
the validator accepts join the example as seeds, and the generator itself becomes one more engine
of the search (a fresh seed per run). When every output is rejected, the validator's message goes
back to the model (up to :data:`FEEDBACK_ROUNDS` times); a generator that never works leaves the
search with the example alone.
"""

from __future__ import annotations

import time

from divergent.bench.refute.actions import Action, ActionError, find_action
from divergent.bench.refute.dataset import RefuteTask
from divergent.bench.refute.evaluate import CandidateVerdict, Status, evaluate_input, validate
from divergent.bench.refute.execution import SearchResult, Source
from divergent.bench.refute.prompts import TEMPLATES
from divergent.bench.refute.strategies.base import AttemptResult, Context, RefuteStrategy
from divergent.bench.refute.strategies.randsearch import GENERATOR_TIMEOUT
from divergent.llm.chat import Message

__all__ = ["FEEDBACK_ROUNDS", "GENERATED_SEEDS", "DivergentSearch", "Hybrid"]

#: times the model is told that the validator rejected all of its generator's inputs
FEEDBACK_ROUNDS = 2
#: generator runs whose valid outputs become seeds
GENERATED_SEEDS = 8


def _search(
    task: RefuteTask, index: int, context: Context, result: AttemptResult, examples: list[str],
    generator: Source | None,
) -> None:
    """The search, and the judgement of what it found (sets ``result.verdict``)."""
    assert task.wrong_build is not None and task.correct_build is not None and task.correct_code is not None
    found: SearchResult = context.runner.search(
        Source(task.wrong_code, task.wrong_build, "wrong"),
        Source(task.correct_code, task.correct_build, "correct"),
        examples=examples,
        validator=context.validator(task),
        generator=generator,
        seconds=context.search_seconds,
        timeout=context.rules.run_timeout_for(task),
        memory_mb=context.rules.memory_for(task),
        seed=context.seed + index,
    )
    result.trace.append({
        "step": "search", "inputs": found.inputs, "rejected": found.rejected, "seconds": round(found.seconds, 3),
        "engine": found.engine, "notes": list(found.notes)[:10], "found": found.input is not None,
    })
    if found.input is None:
        result.verdict = CandidateVerdict(
            Status.NO_DIFFERENCE,
            detail=f"divergent: no difference in {found.seconds:.0f} s ({found.inputs} inputs, "
            f"{found.rejected} rejected by the validator)",
        )
        return
    verdict = evaluate_input(context.runner, task, found.input, context.rules)
    verdict.extra["engine"] = found.engine
    result.verdict = verdict


class DivergentSearch(RefuteStrategy):
    name = "divergent"
    needs_model = False
    uses_correct = True
    description = "divergent's search (no model): example as seed, validator, mutation, correct code as oracle"

    def attempt(self, task: RefuteTask, index: int, context: Context) -> AttemptResult:
        started = time.monotonic()
        result = AttemptResult(verdict=CandidateVerdict(Status.NO_DIFFERENCE))
        _search(task, index, context, result, [task.example_input], None)
        result.seconds = time.monotonic() - started
        return result


class Hybrid(RefuteStrategy):
    name = "hybrid"
    needs_model = True
    uses_correct = True
    description = "the model writes a generator; divergent mutates around its valid outputs"

    def attempt(self, task: RefuteTask, index: int, context: Context) -> AttemptResult:
        started = time.monotonic()
        result = AttemptResult(verdict=CandidateVerdict(Status.UNPARSEABLE))
        messages: list[Message] = context.prompts.messages("hybrid", task)
        generator: Source | None = None
        seeds: list[str] = []
        for round_number in range(FEEDBACK_ROUNDS + 1):
            text = self.ask(context, messages, index, result)
            try:
                action = find_action(text, "generate_tc")
            except ActionError as error:
                result.trace.append({"step": "generator", "round": round_number, "problem": str(error)})
                if round_number == 0:
                    result.verdict = CandidateVerdict(Status.UNPARSEABLE, detail=str(error))
                    result.seconds = time.monotonic() - started
                    return result
                break
            candidate = self._source(action)
            result.code["generator"] = action.code
            seeds, feedback = self._valid_outputs(task, candidate, context, index)
            result.trace.append({"step": "generator", "round": round_number, "valid": len(seeds)})
            if seeds:
                generator = candidate
                break
            messages = [*messages, {"role": "assistant", "content": text}, {"role": "user", "content": feedback}]
        _search(task, index, context, result, [task.example_input, *seeds], generator)
        result.seconds = time.monotonic() - started
        return result

    @staticmethod
    def _source(action: Action) -> Source:
        assert action.build is not None
        return Source(action.code, action.build, "generator")

    @staticmethod
    def _valid_outputs(task: RefuteTask, generator: Source, context: Context, index: int) -> tuple[list[str], str]:
        """The generator's outputs the validator accepts, and the feedback to give when none is."""
        first_seed = (context.seed + index) * 1_000_003
        runs = context.runner.run_many(generator, [""] * GENERATED_SEEDS, timeout=GENERATOR_TIMEOUT, memory_mb=2048,
                                       args=[[str(first_seed + i)] for i in range(GENERATED_SEEDS)])
        valid: list[str] = []
        first_message, first_input = "", ""
        for run in runs:
            if not run.ok or not run.stdout.strip():
                if not first_message:
                    first_message = f"the generator ended with {run.describe()}: {run.stderr.strip()[:500]}"
                continue
            accepted, message = validate(context.runner, task, run.stdout, context.rules)
            if accepted:
                if run.stdout not in valid:
                    valid.append(run.stdout)
            elif not first_message:
                first_message, first_input = message, run.stdout
        feedback = TEMPLATES.render("hybrid_feedback", tried=len(runs), message=first_message or "(no message)",
                          example=first_input[:2000].rstrip("\n"))
        return valid, feedback
