"""ProbeGen's execution feedback (Appx. D): what a node's children are told about its generator.

Each input the generator yielded is one line: the outputs were equal (one shown) or different (each
shown); the lines are split into differentiating and non-differentiating inputs, capped at
:data:`MAX_FEEDBACK_LINES` each, with the inputs discarded by the preconditions and the yielded
items that were no valid call. The prompt templates (``probegen_feedback_*``) say what to do next:
try again, fix the generator, or — after a difference the filter judged irrelevant — look elsewhere.
"""

from __future__ import annotations

from divergent.llm.prompts import render as render_prompt
from divergent.probegen.tree import ProbeNode, ProbeResult
from divergent.programs import Signature
from divergent.records import Observation, Outcome, OutcomeKind
from divergent.sandbox.generators import GeneratedInputs
from divergent.values import render

__all__ = ["MAX_FEEDBACK_LINES", "MAX_OUTPUT_CHARS", "feedback", "render_outcome", "rendered_outputs", "shorten"]

#: longest rendering of one output in the feedback
MAX_OUTPUT_CHARS = 300
#: feedback lines kept per list (the counts are always given)
MAX_FEEDBACK_LINES = 20


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_outcome(outcome: Outcome) -> str:
    """An output as the feedback shows it: the value, ``ValueError: message``, or what went wrong."""
    if outcome.kind is OutcomeKind.RETURNED:
        return shorten(render(outcome.value, limit=MAX_OUTPUT_CHARS), MAX_OUTPUT_CHARS)
    if outcome.kind is OutcomeKind.RAISED:
        return shorten(f"raised {outcome.describe()}", MAX_OUTPUT_CHARS)
    return f"{outcome.kind.value} ({outcome.describe()})"


def rendered_outputs(observation: Observation) -> tuple[str, ...]:
    """Every implementation's output on one input, as the feedback shows them."""
    outputs = [render_outcome(o) for o in observation.outcomes]
    if observation.divergent and len(set(outputs)) == 1:
        # The values agree: the difference is in what the calls did to their arguments (or printed).
        extra = []
        for outcome in observation.outcomes:
            after = render(outcome.args_after, limit=120) if outcome.args_after is not None else "unchanged"
            printed = f", printed {outcome.stdout[:80]!r}" if outcome.stdout else ""
            extra.append(f"; arguments after the call: {after}{printed}")
        outputs = [o + e for o, e in zip(outputs, extra, strict=True)]
    return tuple(outputs)


def _line(probe: ProbeResult) -> str:
    if not probe.differentiating:
        shown = probe.outputs[0] if probe.outputs else "?"
        return f"- For input `{probe.call}` the outputs were equal: {shown}"
    if len(probe.outputs) == 2:
        return f"- For input `{probe.call}` the outputs were different: {probe.outputs[0]} vs. {probe.outputs[1]}"
    shown = " | ".join(f"Version {n}: {o}" for n, o in enumerate(probe.outputs, start=1))
    return f"- For input `{probe.call}` the outputs were different: {shown}"


def capped(lines: list[str], what: str) -> str:
    """Feedback lines, at most ``MAX_FEEDBACK_LINES`` of them, saying how many ``what`` were left out."""
    if not lines:
        return f"(no {what})"
    text = "\n".join(lines[:MAX_FEEDBACK_LINES])
    if len(lines) > MAX_FEEDBACK_LINES:
        text += f"\n- ... and {len(lines) - MAX_FEEDBACK_LINES} more {what}"
    return text


def _problems(generated: GeneratedInputs, rejected: list[ProbeResult], function: str, signature: Signature) -> str:
    notes = []
    if rejected:
        lines = [f"- Input `{p.call}` was discarded: {p.rejected}" for p in rejected]
        notes.append(
            f"{len(rejected)} input(s) were discarded because they do not fit the signature "
            f"`{function}{signature}` or the task's preconditions:\n"
            + capped(lines, "discarded inputs")
        )
    if generated.dropped:
        reasons = "; ".join(generated.drop_reasons)
        notes.append(f"{generated.dropped} yielded item(s) were not valid calls of `{function}`: {reasons}")
    return ("\n" + "\n\n".join(notes) + "\n") if notes else ""


def feedback(
    generated: GeneratedInputs,
    probes: list[ProbeResult],
    rejected: list[ProbeResult],
    node: ProbeNode,
    *,
    function: str,
    signature: Signature,
    function_name: str,
) -> str:
    """What the children of ``node`` are told: its generator's run (``generated``), the inputs that
    ran (``probes``) and those the preconditions discarded (``rejected``). ``function`` is the
    implementations' entry point, ``function_name`` the generator the model writes."""
    equal = [_line(p) for p in probes if not p.differentiating and not p.rejected]
    different = [_line(p) for p in probes if p.differentiating]
    values = {
        "function_name": function_name,
        "function": function,
        "equal_lines": capped(equal, "non-differentiating inputs"),
        "different_lines": capped(different, "differentiating inputs"),
        "problems": _problems(generated, rejected, function, signature),
    }
    if generated.error is not None:
        ran = [line for line in equal + different]
        produced = (
            f"It produced {len(generated.inputs)} input(s) before that:\n" + capped(ran, "inputs")
            if generated.inputs else "It produced no inputs."
        )
        return render_prompt("probegen_feedback_error", **values, error=generated.error, produced=produced)
    if not probes and not rejected:
        return render_prompt(
            "probegen_feedback_error", **values, error="it yielded no inputs", produced="It must yield at least one input."
        )
    if node.success:
        return render_prompt("probegen_feedback_different", **values)
    if node.differentiating:
        return render_prompt("probegen_feedback_irrelevant", **values)
    return render_prompt("probegen_feedback_same", **values)
