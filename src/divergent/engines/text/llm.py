"""The language-model engines for whole programs: ProbeGen and RandSearch writing Python code that
produces text inputs.

* ``llm`` (:class:`TextProbeEngine`): ProbeGen's tree search (:mod:`divergent.probegen`) where the
  model's ``create_inputs()`` yields whole inputs as strings. Each node's inputs go through the
  validator first (its verdict and the first line of its stderr are the model's feedback for the
  inputs it rejected), then run on every program (a runner of the engine's own, at the search's
  limits), and the feedback shows each program's output and how it ended.
* ``randsearch`` (:class:`TextRandSearchEngine`): RandSearch where the model's ``random_input(rng)``
  returns one input's text; a first run whose inputs the validator rejects all is sent back to the
  model with the validator's message, like a generator that fails.

The generated code runs in the sandbox (:func:`divergent.sandbox.generators.run_generator` in text
mode); the search loop runs, confirms and shrinks what these engines propose like any input.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from divergent.engines.base import TextContext
from divergent.engines.calls.llm_probes import LLMProbeEngine
from divergent.engines.calls.randsearch import GENERATOR_FUNCTION, RandSearchEngine
from divergent.llm.chat import Completion, Message, Usage
from divergent.llm.extract import extract_code
from divergent.llm.prompts import render as render_prompt
from divergent.llm.prompts import show_sources
from divergent.probegen.feedback import capped, shorten
from divergent.probegen.session import ProbeGenSession
from divergent.probegen.tree import ProbeNode, ProbeResult
from divergent.programs import Signature
from divergent.records import AnyInput, Observation, Outcome, OutcomeKind, TextInput
from divergent.sandbox.generators import GeneratedInputs, run_generator

__all__ = ["TEXT_GENERATOR_FUNCTION", "TextProbeEngine", "TextProbeGenSession", "TextRandSearchEngine"]

#: the function ProbeGen's model writes for whole programs: it yields inputs as strings
TEXT_GENERATOR_FUNCTION = "create_inputs"
_OUTPUT_CHARS = 200


def _task_section(spec: str | None) -> str:
    return f"**Task description**\n\n{spec.strip()}\n\n" if spec and spec.strip() else ""


def render_run(outcome: Outcome) -> str:
    """How one program's run is shown to the model."""
    if outcome.kind is OutcomeKind.OK:
        return f"printed {shorten(outcome.stdout, _OUTPUT_CHARS)!r}"
    what = f"{outcome.kind.value} ({outcome.detail or outcome.status})"
    if outcome.stderr:
        lines = [line for line in outcome.stderr.strip().splitlines() if line.strip()]
        if lines:
            what += f", stderr: {shorten(lines[-1], 120)!r}"
    return what


class TextProbeGenSession(ProbeGenSession):
    """ProbeGen's tree search over whole programs: the model yields input texts."""

    def __init__(self, context: TextContext, **settings: object) -> None:
        services = context.services
        self.support = services
        self._runner = services.open_runner()
        super().__init__(
            context.implementations, signature=Signature(), function_name=TEXT_GENERATOR_FUNCTION,
            executor=self._runner.run, **settings,  # type: ignore[arg-type]
        )
        self._system = render_prompt("probegen_text_system", function_name=self.function_name,
                                     max_inputs=self.max_inputs)
        self.root.prompt = self._task_prompt()

    def _task_prompt(self) -> str:
        return render_prompt(
            "probegen_text_task", task_section=_task_section(self.spec),
            versions=show_sources(self.implementations), function_name=self.function_name,
        )

    def _call(self, item: AnyInput) -> str:
        return item.call(max_length=200)

    def _evaluate(self, node: ProbeNode, completion: Completion) -> None:
        evaluated = time.monotonic()
        self.calls += 1
        node.usage = completion.usage()
        self.usage = self.usage + (Usage(cached_calls=1) if completion.cached else node.usage)
        node.answer = completion.text
        node.code = extract_code(node.answer, self.function_name)
        seconds = completion.seconds
        if node.code is None:
            node.error = "the answer contains no code"
            node.feedback = render_prompt("probegen_feedback_no_code", function_name=self.function_name)
            node.seconds = seconds + time.monotonic() - evaluated
            return
        generated = run_generator(
            node.code, function=self.function_name, signature=None, max_inputs=self.max_inputs,
            seconds=self.generator_time(), limits=self.limits, isolation=self.isolation, seed=self.seed,
            how_generated="llm",
        )
        node.generator = generated.as_dict()
        texts = [item for item in generated.inputs if isinstance(item, TextInput)]
        verdicts = self.support.admit(texts)
        accepted = [item for item, valid in zip(texts, verdicts, strict=True) if valid]
        rejected = [
            ProbeResult(call=self._call(item),
                        rejected=f"the input validator rejected it ({self.support.rejection_reason(item) or 'no message'})")
            for item, valid in zip(texts, verdicts, strict=True) if not valid
        ]
        observations = self._run(accepted)
        probes: list[ProbeResult] = []
        for item, observation in zip(accepted, observations, strict=True):
            if observation is None:
                probes.append(ProbeResult(call=self._call(item), rejected="not run (the run's time is up)"))
                continue
            probe = ProbeResult(call=self._call(item), outputs=tuple(render_run(o) for o in observation.outcomes),
                                classes=observation.classes, differentiating=observation.divergent)
            if observation.divergent:
                node.differentiating = True
                if not node.success:
                    probe.accepted = self._accepts(observation)
                    node.success = probe.accepted
            probes.append(probe)
        node.probes = probes + rejected
        node.inputs = tuple(accepted)  # type: ignore[arg-type]
        node.observations = tuple(o for o in observations if o is not None)
        node.feedback = text_feedback(generated, probes, rejected, node, function_name=self.function_name)
        node.seconds = seconds + time.monotonic() - evaluated

    def close(self) -> None:
        super().close()
        self._runner.close()


def _line(probe: ProbeResult) -> str:
    if not probe.differentiating:
        shown = probe.outputs[0] if probe.outputs else "?"
        return f"- On input {probe.call} every program {shown}"
    shown = " | ".join(f"program {n}: {o}" for n, o in enumerate(probe.outputs, start=1))
    return f"- On input {probe.call}: {shown}"


def text_feedback(generated: GeneratedInputs, probes: list[ProbeResult], rejected: list[ProbeResult],
                  node: ProbeNode, *, function_name: str) -> str:
    """What the children of ``node`` are told about its generator's inputs."""
    equal = [_line(p) for p in probes if not p.differentiating and not p.rejected]
    different = [_line(p) for p in probes if p.differentiating]
    notes = []
    if rejected:
        notes.append(f"{len(rejected)} input(s) were discarded:\n" + capped(
            [f"- Input {p.call}: {p.rejected}" for p in rejected], "discarded inputs"))
    if generated.dropped:
        notes.append(f"{generated.dropped} yielded item(s) were not strings: {'; '.join(generated.drop_reasons)}")
    values = {
        "function_name": function_name,
        "equal_lines": capped(equal, "inputs on which they agreed"),
        "different_lines": capped(different, "inputs on which they differed"),
        "problems": ("\n" + "\n\n".join(notes) + "\n") if notes else "",
    }
    if generated.error is not None:
        produced = (f"It produced {len(generated.inputs)} input(s) before that." if generated.inputs
                    else "It produced no inputs.")
        return render_prompt("probegen_text_feedback_error", **values, error=generated.error, produced=produced)
    if not probes and not rejected:
        return render_prompt("probegen_text_feedback_error", **values, error="it yielded no inputs",
                             produced="It must yield at least one input.")
    if node.success:
        return render_prompt("probegen_text_feedback_different", **values)
    if node.differentiating:
        return render_prompt("probegen_text_feedback_irrelevant", **values)
    return render_prompt("probegen_text_feedback_same", **values)


class TextProbeEngine(LLMProbeEngine):
    """ProbeGen for whole programs, in a background thread (see :mod:`divergent.engines.calls.llm_probes`)."""

    context: TextContext

    def _open_session(self, accept: Callable[[Observation], bool] | None) -> TextProbeGenSession:
        context = self.context
        return TextProbeGenSession(
            context, chat=self.chat, comparison=context.comparison, spec=self.model.spec, accept=accept,
            limits=context.limits, isolation=context.isolation, seed=context.seed,
            should_stop=self._should_stop, on_node=self._take, on_observed=self._observed, deadline=self.deadline,
            store=self.model.store,
            run_parameters={"strategy": str(self.strategy), "k": self.k, "d": self.d, "engine": self.name,
                            "inputs": "text"},
        )


class TextRandSearchEngine(RandSearchEngine):
    """RandSearch for whole programs: ``random_input(rng)`` returns one input's text."""

    repair_template = "randsearch_text_repair"

    def __init__(self, context: TextContext) -> None:
        super().__init__(context)
        self.support = context.services
        # The validator judges in _run: what reaches the queue is valid.
        self._precondition = lambda item: True

    def _first_messages(self) -> list[Message]:
        timeout = self.context.limits.timeout if self.context.limits else 2.0
        size_note = render_prompt("randsearch_small_inputs", timeout=f"{timeout:g}") if self.small_inputs else ""
        return [
            {"role": "system", "content": render_prompt("randsearch_text_system", function_name=GENERATOR_FUNCTION)},
            {"role": "user", "content": render_prompt(
                "randsearch_text_task", task_section=_task_section(self.spec),
                versions=show_sources(self.context.implementations), size_note=size_note,
                function_name=GENERATOR_FUNCTION,
            )},
        ]

    def _generator_signature(self) -> Signature | None:
        return None

    def _run(self, source: str, deadline: float) -> GeneratedInputs:
        result = super()._run(source, deadline)
        texts: Sequence[AnyInput] = result.inputs
        if not texts:
            return result
        verdicts = self.support.admit(texts)
        valid = tuple(item for item, ok in zip(texts, verdicts, strict=True) if ok)
        if not valid and result.error is None:
            why = self.support.rejection_reason(texts[0]) if isinstance(texts[0], TextInput) else ""
            why = why or "no reason given"
            return replace(result, inputs=(), error=f"the input validator rejected all {len(texts)} inputs it returned "
                           f"(the validator said: {why})", error_kind="invalid")
        return replace(result, inputs=valid)
