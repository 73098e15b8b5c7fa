"""Gen(d): the inputs an incoherence measurement runs a task's programs on.

The task's test inputs (from its asserts) are the seeds; further inputs are draws of type-aware
mutation restricted to the paper's Table 6 basic operators (:class:`~divergent.engines.mutation.MutationEngine`
with ``operators="table6"``), reproducible from the seed. Only the ground truth's source is read
(for its signature and constants); nothing runs here.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from divergent.datasets import Task
from divergent.engines.base import EngineContext
from divergent.engines.constants import Constants
from divergent.engines.mutation import MutationEngine
from divergent.engines.settings import EngineSettings, MutationOperators
from divergent.errors import EngineCannotProceed, InvalidArgument
from divergent.preconditions import conforms
from divergent.programs import PythonFunction
from divergent.records import Input

__all__ = ["InputMode", "TaskInputs", "generate_inputs"]


class InputMode(enum.StrEnum):
    #: n draws from one mutation process; repeats kept (the distribution does not depend on n)
    DRAWS = "draws"
    #: n distinct inputs (mutation goes on until it has found that many new ones)
    DISTINCT = "distinct"


@dataclass(frozen=True)
class TaskInputs:
    inputs: tuple[Input, ...]
    #: inputs generated before the validity filter
    generated: int
    note: str = ""


def generate_inputs(
    task: Task, reference: PythonFunction | None, n: int, seed: int, mode: InputMode = InputMode.DRAWS
) -> TaskInputs:
    """Gen(d): the task's test inputs, then type-aware mutations of them, up to ``n`` inputs.

    ``mode`` DRAWS keeps repeated draws (see :meth:`MutationEngine.draw`); DISTINCT asks for ``n``
    different inputs, which for small input spaces means inputs far from the task's tests."""
    signature = reference.signature if reference is not None else None
    if signature is None:
        raise InvalidArgument(f"{task.task_id}: no ground truth to read the signature from")
    seeds = [s for s in task.seed_inputs(signature) if conforms(s, signature)]
    context = EngineContext(
        implementations=(reference,),
        signature=signature,
        seeds=tuple(seeds),
        constants=Constants.harvest([reference.source]),
        seed=seed,
        # The paper's Gen(d): Table 6's basic mutations only, not the boundary values and harvested
        # constants `check` uses to hunt rare differences (those would measure another input distribution).
        settings=EngineSettings(mutation_operators=MutationOperators.TABLE6),
    )
    if mode is InputMode.DRAWS:
        drawn = list(seeds[:n])
        note = ""
        try:
            drawn += MutationEngine(context).draw(n - len(drawn))
        except EngineCannotProceed as stop:
            note = f"input generation stopped early: {stop}"
        return TaskInputs(inputs=tuple(drawn), generated=len(drawn), note=note)
    inputs: dict[str, Input] = {s.key: s for s in seeds[:n]}
    note = ""
    try:
        engine = MutationEngine(context)
        fruitless = 0
        while len(inputs) < n and fruitless < 20:
            before = len(inputs)
            for item in engine.propose(min(256, 2 * (n - len(inputs)))):
                if conforms(item, signature):
                    inputs.setdefault(item.key, item)
                    if len(inputs) >= n:
                        break
            fruitless = fruitless + 1 if len(inputs) == before else 0
    except EngineCannotProceed as stop:
        note = f"input generation stopped early: {stop}"
    chosen = tuple(list(inputs.values())[:n])
    return TaskInputs(inputs=chosen, generated=len(chosen), note=note)
