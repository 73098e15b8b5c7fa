"""The prompting strategies: one answer, one candidate printer (zero-shot, few-shot with expert
rationales, zero-shot with the correct code)."""

from __future__ import annotations

import time

from divergent.bench.refute.actions import ActionError, find_action
from divergent.bench.refute.dataset import RefuteTask
from divergent.bench.refute.evaluate import CandidateVerdict, Status, evaluate_printer
from divergent.bench.refute.execution import Source
from divergent.bench.refute.strategies.base import AttemptResult, Context, RefuteStrategy

__all__ = ["Prompting"]


class Prompting(RefuteStrategy):
    def __init__(self, name: str, method: str, *, uses_correct: bool, description: str) -> None:
        self.name = name
        self.method = method
        self.uses_correct = uses_correct
        self.description = description

    def attempt(self, task: RefuteTask, index: int, context: Context) -> AttemptResult:
        started = time.monotonic()
        result = AttemptResult(verdict=CandidateVerdict(Status.UNPARSEABLE))
        text = self.ask(context, context.prompts.messages(self.method, task), index, result)
        try:
            action = find_action(text, "print_fail_case")
        except ActionError as error:
            result.verdict = CandidateVerdict(Status.UNPARSEABLE, detail=str(error))
        else:
            assert action.build is not None
            result.code["printer"] = action.code
            result.verdict = evaluate_printer(
                context.runner, task, Source(action.code, action.build, "printer"), context.rules
            )
        result.seconds = time.monotonic() - started
        return result
