"""The ReAct agent (the paper's "Agent w/o Demo"): the model may run code on inputs of its choice
(up to 10 runs, outputs cut to 2,000 characters, 30 s each), then submits a printer; a submission
the validator rejects comes back with the validator's message, up to 5 times.

Every run happens in the sandbox through the code runner. The feedback shows the run's status and
output but never its time, so the conversation (and with it the response cache's keys) is the
same when the attempt is replayed.
"""

from __future__ import annotations

import json
import time

from divergent.bench.refute.actions import Action, parse_actions
from divergent.bench.refute.dataset import RefuteTask
from divergent.bench.refute.evaluate import (
    CandidateVerdict,
    Status,
    evaluate_input,
    first_lines,
    run_printer,
    validate,
)
from divergent.bench.refute.execution import CodeRun, RunKind, Source
from divergent.bench.refute.prompts import TEMPLATES
from divergent.bench.refute.strategies.base import AttemptResult, Context, RefuteStrategy
from divergent.llm.chat import Message

__all__ = ["Agent", "run_feedback"]

#: answers in a row that hold no usable action before the attempt ends as unparseable
MAX_FORMAT_ERRORS = 3
_STATUS_NAMES = {
    RunKind.OK: "OK",
    RunKind.RUNTIME_ERROR: "RUNTIME_ERROR",
    RunKind.TIMEOUT: "TIME_LIMIT_EXCEEDED",
    RunKind.MEMORY_LIMIT: "MEMORY_LIMIT_EXCEEDED",
    RunKind.OUTPUT_LIMIT: "OUTPUT_LIMIT_EXCEEDED",
    RunKind.BUILD_ERROR: "COMPILATION_ERROR",
}


def run_feedback(result: CodeRun, output_chars: int, *, stage: str = "") -> str:
    """A run as the agent sees it: ``{"status": ..., "output": ...}`` (output cut to
    ``output_chars``; stderr is shown when the run failed, as a judge shows errors)."""
    output = result.stdout if result.ok else (result.stderr or result.stdout)
    cut = output[:output_chars]
    document: dict[str, object] = {"status": _STATUS_NAMES[result.kind], "output": cut}
    if len(output) > output_chars:
        document["truncated"] = f"{len(output) - output_chars} more characters not shown"
    if result.exit_code is not None and not result.ok:
        document["return_code"] = result.exit_code
    if result.signal:
        document["signal"] = result.signal
    if stage:
        document["stage"] = stage
    return json.dumps(document, ensure_ascii=False)


def _usable(action: Action) -> str | None:
    if not action.code.strip():
        return f"the {action.name} action has no <code>"
    if action.build is None:
        return f"the {action.name} action's language {action.lang!r} is not one of Python 3, C++"
    return None


class Agent(RefuteStrategy):
    name = "agent"
    needs_model = True
    uses_correct = False
    description = "ReAct agent: runs code (10 runs), resubmits after validation errors (5)"

    def attempt(self, task: RefuteTask, index: int, context: Context) -> AttemptResult:
        started = time.monotonic()
        limits = context.agent
        result = AttemptResult(verdict=CandidateVerdict(Status.UNPARSEABLE, detail="the agent never submitted"))
        messages: list[Message] = context.prompts.messages("agent", task, agent=limits)
        runs = resubmissions = format_errors = 0
        max_calls = limits.max_runs + limits.max_resubmissions + MAX_FORMAT_ERRORS + 2
        for _call in range(max_calls):
            text = self.ask(context, messages, index, result)
            messages = [*messages, {"role": "assistant", "content": text}]
            actions = parse_actions(text)
            submissions = [a for a in actions if a.name == "print_fail_case"]
            programs = [a for a in actions if a.name == "run_code"]
            printers = [a for a in actions if a.name == "input_print"]
            if submissions:
                problem = _usable(submissions[-1])
                if problem is None:
                    reply, verdict = self._submit(task, submissions[-1], context, result, resubmissions)
                    if verdict is not None:
                        result.verdict = verdict
                        break
                    resubmissions += 1
                    format_errors = 0
                    messages = [*messages, {"role": "user", "content": reply}]
                    continue
            elif programs and printers and runs < limits.max_runs:
                problem = _usable(programs[-1]) or _usable(printers[-1])
                if problem is None:
                    runs += 1
                    format_errors = 0
                    feedback = self._run(programs[-1], printers[-1], context, result)
                    reply = TEMPLATES.render("agent_run_result", result=feedback, runs_left=limits.max_runs - runs)
                    if runs == limits.max_runs:
                        reply += "\n\n" + TEMPLATES.render("agent_no_runs_left", max_runs=limits.max_runs)
                    messages = [*messages, {"role": "user", "content": reply}]
                    continue
            elif programs and printers:
                problem = f"no runs left (all {limits.max_runs} used)"
            elif programs or printers:
                problem = "a run needs both a run_code and an input_print action"
            else:
                problem = "no action found" if not actions else f"unknown action {actions[-1].name!r}"
            format_errors += 1
            result.trace.append({"step": "format-error", "problem": problem})
            if format_errors >= MAX_FORMAT_ERRORS:
                result.verdict = CandidateVerdict(Status.UNPARSEABLE, detail=f"{format_errors} unusable answers in a row: {problem}")
                break
            reply = (TEMPLATES.render("agent_no_runs_left", max_runs=limits.max_runs) if runs >= limits.max_runs
                     else TEMPLATES.render("agent_format_error", problem=problem))
            messages = [*messages, {"role": "user", "content": reply}]
        result.seconds = time.monotonic() - started
        return result

    def _run(self, program: Action, printer: Action, context: Context, result: AttemptResult) -> str:
        """One use of the execution tool: the printer's output is the program's stdin."""
        assert program.build is not None and printer.build is not None
        seconds = context.agent.run_seconds
        chars = context.agent.output_chars
        printed = context.runner.run(Source(printer.code, printer.build, "input_print"), "", timeout=seconds,
                                     memory_mb=2048)
        if not printed.ok:
            result.trace.append({"step": "run", "stage": "input_print", "kind": printed.kind.value})
            return run_feedback(printed, chars, stage="input_print")
        ran = context.runner.run(Source(program.code, program.build, "code"), printed.stdout, timeout=seconds,
                                 memory_mb=2048)
        result.trace.append({"step": "run", "stage": "run_code", "kind": ran.kind.value,
                             "input_chars": len(printed.stdout)})
        return run_feedback(ran, chars)

    def _submit(
        self, task: RefuteTask, action: Action, context: Context, result: AttemptResult, resubmissions: int
    ) -> tuple[str, CandidateVerdict | None]:
        """A submission: the final verdict, or (when the validator or the printer failed and
        resubmissions are left) the feedback to send back and None."""
        assert action.build is not None
        result.code["printer"] = action.code
        left = context.agent.max_resubmissions - resubmissions
        candidate, why = run_printer(context.runner, Source(action.code, action.build, "printer"), context.rules)
        if candidate is None:
            result.trace.append({"step": "submit", "outcome": "printer-failed", "detail": why})
            if left <= 0:
                return "", CandidateVerdict(Status.PRINTER_FAILED, detail=why)
            return TEMPLATES.render("agent_printer_error", message=why, submissions_left=left), None
        valid, message = validate(context.runner, task, candidate, context.rules)
        if not valid:
            result.trace.append({"step": "submit", "outcome": "validation-failed", "detail": message})
            if left <= 0:
                return "", CandidateVerdict(Status.VALIDATION_FAILED, detail=f"validator: {message}",
                                   input=candidate[:4000], input_chars=len(candidate))
            shown = first_lines(message, lines=20, chars=context.agent.output_chars)
            return TEMPLATES.render("agent_validation_error", message=shown, submissions_left=left), None
        result.trace.append({"step": "submit", "outcome": "valid"})
        return "", evaluate_input(context.runner, task, candidate, context.rules, validated=True)
