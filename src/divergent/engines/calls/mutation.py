"""Type-aware mutation of a growing pool of inputs (DiffTrust Table 6, in the manner of EvalPlus).

The pool starts from the seeds (or, without seeds, from a minimal value per annotated parameter)
and grows with feedback: an input that showed a behaviour not seen before, or split the
implementations, becomes a parent. Each child is a parent with one to three mutations stacked, made
by the type-aware operators of :mod:`divergent.engines.calls.mutators`.

Every child is checked against the preconditions (:func:`divergent.preconditions.conforms` and the user's
requirement) before it is proposed.
"""

from __future__ import annotations

import copy
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

from divergent import preconditions
from divergent.comparison import behaviour_fingerprint
from divergent.engines.base import CallContext, Engine
from divergent.engines.calls.mutators import TABLE6_OPERATORS, Mutator
from divergent.engines.calls.seeds import infer_annotation, parameter_values, satisfies_requirement
from divergent.engines.calls.shaped import coupled_dict, inferred_annotation, shaped_calls, words_appended
from divergent.engines.calls.shapes import ANY_SHAPE, NONE_TYPE, CannotGenerate, minimal_value, shape_of
from divergent.engines.settings import MutationOperators
from divergent.errors import EngineCannotProceed
from divergent.programs import Parameter, ParameterKind
from divergent.records import Input, Observation, OutcomeKind

__all__ = ["MutationEngine"]


#: attempts in a row that yield nothing new (duplicate or not meeting the preconditions) before giving up
_MAX_FRUITLESS_ATTEMPTS = 3000
_MAX_POOL = 5000
_MAX_FAVOURED = 256
_MAX_RECENT = 1000
#: the size of new values at the start, its least, and its growth per 64 of the engine's inputs
#: that ran within the per-call limit
_FIRST_SIZE = 0.1
#: the first size of a restarted engine, by restart (in turn): large values, then the usual start.
#: Never tiny: the instance it replaces began small, and one starting tiny would need thousands of
#: inputs to grow back to the lengths it had reached (a 40-character digest was missed that way)
_RESTART_SIZES = (0.6, _FIRST_SIZE)
_MIN_SIZE = 0.02
_SIZE_STEP = 0.02


class MutationEngine(Engine):
    """Type-aware mutation of a pool of inputs that grows with the inputs that show new behaviour."""

    name = "mutation"
    checks_preconditions = True
    restartable = True

    def __init__(self, context: CallContext) -> None:
        super().__init__(context)
        self._rng = context.rng("mutation")
        #: how often each operator ran, as "family:operator" (e.g. "str:insert-char")
        self.operator_counts: Counter[str] = Counter()
        self._mutator = Mutator(self._rng, context.constants, self.operator_counts, context.shaped)
        #: Gen(d) mode (Table 6): parents drawn uniformly from everything generated so far, as
        #: EvalPlus-style type-aware mutation does; inputs then stay near the task's own tests
        #: instead of drifting away along a chain of mutants of mutants
        self._gen_children: list[Input] | None = None
        if context.settings.mutation_operators is MutationOperators.TABLE6:
            self._mutator.restrict(TABLE6_OPERATORS)
            self._gen_children = []
        else:
            restart = context.restart
            self._mutator.size = _RESTART_SIZES[(restart - 1) % len(_RESTART_SIZES)] if restart else _FIRST_SIZE
        signature = context.signature
        self._parameters = signature.parameters
        #: whether a call can have another shape (optional parameters, *args): else no step tries it
        self._shape_changes = any(
            p.has_default or p.kind in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD)
            for p in signature.parameters
        )
        self._positional = signature.positional
        self._var_positional = next(
            (p for p in self._parameters if p.kind is ParameterKind.VAR_POSITIONAL), None
        )
        #: keys of every input tried or known
        self._seen: set[str] = set()
        self._behaviours: set[str] = set()
        self._kinds_of_behaviour: set[str] = set()
        self._pool: list[Input] = []
        #: inputs that split the implementations or first showed a new kind of outcome: parents more often
        self._favoured: deque[Input] = deque(maxlen=_MAX_FAVOURED)
        #: this engine's own latest children: parents too, so the search walks on between feedback rounds
        self._recent: deque[Input] = deque(maxlen=_MAX_RECENT)
        #: proposed before any mutation (the minimal input when there are no seeds)
        self._pending: list[Input] = []
        self._fruitless = 0
        self._problem: str | None = None

        seeds = [s for s in context.seeds if preconditions.conforms(s, signature)]
        for seed in seeds:
            self._seen.add(seed.key)
        self._pool.extend(seeds)
        # The calls shaped by the code's structure are parents from the start (the seed engine runs
        # them); again once the regexes are sampled (``_refresh_shaped``).
        shaped = [] if self._gen_children is not None else shaped_calls(context, seeds, how=self.name)
        self._pool.extend(shaped)
        self._shaped_final = context.shaped is None or context.shaped.complete or self._gen_children is not None
        self._seed_count = len(self._pool)
        seed_values = parameter_values(seeds or shaped, signature)
        self._annotations = {p.name: self._annotation_for(p, seed_values[p.name]) for p in self._parameters}
        #: parameters whose values are dicts beside strings: keys can be taken from the strings
        self._dict_parameters = [p.name for p in self._parameters if shape_of(self._annotations[p.name]).family == "dict"]
        if not self._pool:
            self._start_without_seeds()
        elif self._gen_children is None:
            # A word added at the end of a string argument is among the first things tried.
            words = tuple(w for w in context.constants.strings[:50] if 0 < len(w) <= 12)
            self._pending.extend(words_appended(seeds, context.rng("mutation:words"), words))

    def _annotation_for(self, parameter: Parameter, seed_values: list[Any]) -> Any:
        if parameter.annotated:
            # An annotation written as `None` may resolve to None itself: it means NoneType.
            return NONE_TYPE if parameter.annotation is None else parameter.annotation
        if not seed_values:
            return inferred_annotation(self.context.shaped, parameter.name) or Any
        return infer_annotation(seed_values)

    def _start_without_seeds(self) -> None:
        """Without seeds, start from the minimal value of each required parameter's annotation."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for parameter in self.context.signature.required:
            if not parameter.annotated and shape_of(self._annotations[parameter.name]) == ANY_SHAPE:
                self._problem = (
                    f"parameter {parameter.name} has no annotation and no seeds that fit the signature"
                )
                return
            try:
                value = minimal_value(self._annotations[parameter.name])
            except CannotGenerate as error:
                self._problem = f"parameter {parameter.name}: {error} without seed inputs"
                return
            if parameter.kind is ParameterKind.KEYWORD_ONLY:
                kwargs[parameter.name] = value
            else:
                args.append(value)
        start = Input(tuple(args), kwargs, how_generated=self.name)
        self._pool.append(start)
        self._seed_count = 1
        self._pending.append(start)

    # -- proposing -------------------------------------------------------------------------

    def _refresh_shaped(self) -> None:
        """Once the shaped banks are final, their new calls join the pool as parents."""
        if self._shaped_final or self.context.shaped is None or not self.context.shaped.complete:
            return
        self._shaped_final = True
        seeds = [s for s in self.context.seeds if preconditions.conforms(s, self.context.signature)]  # calls: shaped values exist for them only
        known = {item.key for item in self._pool}
        for call in shaped_calls(self.context, seeds, how=self.name):
            if call.key not in known:
                self._add_to_pool(call)

    def propose(self, n: int) -> list[Input]:
        self._refresh_shaped()
        if self._problem:
            raise EngineCannotProceed("unsupported", self._problem)
        batch: list[Input] = []
        while self._pending and len(batch) < n:
            candidate = self._pending.pop(0)
            if self._acceptable(candidate):
                batch.append(candidate)
        made = 0
        while len(batch) < n and self._fruitless < _MAX_FRUITLESS_ATTEMPTS:
            child = self._child()
            made += 1
            if self._acceptable(child):
                batch.append(child)
                self._recent.append(child)
                if self._gen_children is not None:
                    self._gen_children.append(child)
                self._mutator.credit(self._mutator.applied)
                self._fruitless = 0
            else:
                self._fruitless += 1
        if made > 2 * len(batch) + 16 and not self._mutator.table6:
            # Mostly repeats: the values this size allows are used up; go larger.
            self._mutator.size = min(1.0, self._mutator.size + 0.1)
        if not batch and n > 0:
            raise EngineCannotProceed(
                "exhausted",
                f"{_MAX_FRUITLESS_ATTEMPTS} mutations in a row gave only inputs already tried "
                f"or not meeting the preconditions (pool of {len(self._pool)} inputs)",
            )
        return batch

    def _acceptable(self, candidate: Input) -> bool:
        # Most rejected children are repeats of simple values, whose key is a cheap repr.
        key = candidate.key
        if key in self._seen:
            return False
        # Seen either way: a rejected input stays rejected, no need to judge it twice.
        self._seen.add(key)
        return preconditions.conforms(candidate, self.context.signature) and satisfies_requirement(
            self.context, candidate
        )

    def _parent(self) -> Input:
        if self._gen_children is not None:
            pick = self._rng.randrange(len(self._pool) + len(self._gen_children))
            return self._pool[pick] if pick < len(self._pool) else self._gen_children[pick - len(self._pool)]
        roll = self._rng.random()
        if self._favoured and roll < 0.3:
            return self._rng.choice(self._favoured)
        if roll > 0.8 or not self._recent:
            return self._rng.choice(self._pool)
        return self._rng.choice(self._recent)

    def _child(self) -> Input:
        parent = self._parent()
        self._mutator.applied = []
        args = list(parent.args)
        kwargs = dict(parent.kwargs)
        # Gen(d) (Table 6) applies one basic mutation per input; the search stacks a few.
        steps = 1 if self._mutator.table6 else self._rng.randint(1, 3)
        for _ in range(steps):
            self._mutation_step(args, kwargs)
        return Input(tuple(args), kwargs, how_generated=self.name)

    def _mutation_step(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        """Mutate one argument in place in ``args``/``kwargs``, or (rarely) the shape of the call."""
        table6 = self._mutator.table6  # Table 6 changes values, not calls
        if not (args or kwargs) or (not table6 and self._shape_changes and self._rng.random() < 0.08):
            self._change_call_shape(args, kwargs)
            return
        if not table6 and len(args) > 1 and self._rng.random() < 0.1 and self._copy_across(args):
            return
        if not table6 and self._dict_parameters and self._rng.random() < 0.05 and self._couple(args, kwargs):
            return
        slots = len(args) + len(kwargs)
        slot = self._rng.randrange(slots) if slots > 1 else 0
        if slot < len(args):
            self._mutator.parameter = self._name_at(slot)
            args[slot] = self._mutator.mutate(args[slot], self._annotation_at(slot), 0)
        else:
            name = list(kwargs)[slot - len(args)]
            self._mutator.parameter = name if name in self._annotations else None
            kwargs[name] = self._mutator.mutate(kwargs[name], self._annotation_of_keyword(name), 0)

    def _name_at(self, index: int) -> str | None:
        if index < len(self._positional):
            return self._positional[index].name
        return self._var_positional.name if self._var_positional is not None else None

    def _couple(self, args: list[Any], kwargs: dict[str, Any]) -> bool:
        """A dict argument given keys from the words of a string argument (and values from its
        numbers): code that reads a filter or a template from one and looks names up in the other."""
        values = {**{self._name_at(i): v for i, v in enumerate(args)}, **kwargs}
        texts = [v for v in values.values() if isinstance(v, str) and v]
        targets = [name for name in self._dict_parameters if isinstance(values.get(name), dict)]
        if not texts or not targets:
            return False
        target = self._rng.choice(targets)
        coupled = coupled_dict(self._rng.choice(texts), self._rng)
        if target in kwargs:
            kwargs[target] = coupled
        else:
            args[[self._name_at(i) for i in range(len(args))].index(target)] = coupled
        self._mutator.applied.append("call:couple-keys")
        return True

    def _copy_across(self, args: list[Any]) -> bool:
        """Copy one argument over another of the same type: functions often compare their arguments
        (``same_word(a, b)``), and equal or related arguments are where such code differs."""
        source, target = self._rng.sample(range(len(args)), 2)
        if type(args[source]) is not type(args[target]) or self._annotation_at(source) != self._annotation_at(target):
            return False
        args[target] = copy.deepcopy(args[source])
        self._mutator.applied.append("call:copy-across")
        return True

    def _annotation_at(self, index: int) -> Any:
        if index < len(self._positional):
            return self._annotations[self._positional[index].name]
        if self._var_positional is not None:
            return self._annotations[self._var_positional.name]
        return Any

    def _annotation_of_keyword(self, name: str) -> Any:
        if name in self._annotations:
            return self._annotations[name]
        var_keyword = next((p for p in self._parameters if p.kind is ParameterKind.VAR_KEYWORD), None)
        return self._annotations[var_keyword.name] if var_keyword else Any

    def _change_call_shape(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        """Supply or drop an optional argument, or add or drop an extra ``*args`` item."""
        rng = self._rng
        present = set(kwargs) | {p.name for p in self._positional[: len(args)]}
        changes: list[tuple[str, Any]] = []
        for parameter in self._parameters:
            if not parameter.has_default or parameter.kind in (
                ParameterKind.VAR_POSITIONAL,
                ParameterKind.VAR_KEYWORD,
            ):
                continue
            if parameter.name in kwargs:
                changes.append(("drop-optional", parameter.name))
            elif parameter.name not in present and shape_of(self._annotations[parameter.name]) != ANY_SHAPE:
                # Only optional parameters whose type is known (annotated or seen in seeds) get a value.
                changes.append(("supply-optional", parameter))
        if args and len(args) <= len(self._positional) and self._positional[len(args) - 1].has_default:
            changes.append(("drop-optional", len(args) - 1))
        if self._var_positional is not None:
            if len(args) > len(self._positional):
                changes.append(("drop-vararg", None))
            elif len(args) == len(self._positional) and not (
                set(kwargs) & {p.name for p in self._positional}
            ):
                changes.append(("append-vararg", None))
        if not changes:
            return
        change, target = rng.choice(changes)
        self._mutator.record(f"call:{change}")
        try:
            if change == "drop-optional":
                if isinstance(target, int):
                    del args[target]
                else:
                    del kwargs[target]
            elif change == "supply-optional":
                self._mutator.parameter = target.name
                value = self._mutator.generate(self._annotations[target.name])
                if target.kind is ParameterKind.POSITIONAL_ONLY:
                    if len(args) == self._positional.index(target):
                        args.append(value)
                else:
                    kwargs[target.name] = value
            elif change == "drop-vararg":
                del args[rng.randrange(len(self._positional), len(args))]
            else:
                assert self._var_positional is not None
                self._mutator.parameter = self._var_positional.name
                args.append(self._mutator.generate(self._annotations[self._var_positional.name]))
        except CannotGenerate:
            return

    # -- feedback ----------------------------------------------------------------------------

    def observe(self, observations: Sequence[Observation]) -> None:
        # Every observed input met the preconditions (the search runs no other).
        own = slow = 0
        for observation in observations:
            input = observation.input
            timed_out = any(outcome.kind is OutcomeKind.TIMEOUT for outcome in observation.outcomes)
            if input.how_generated == self.name:
                own += 1
                slow += timed_out
            if timed_out:
                # A slow input makes slow children: never a parent (the search re-runs it itself).
                self._seen.add(input.key)
                continue
            self._seen.add(input.key)
            behaviour = behaviour_fingerprint(observation)
            kind_of_behaviour = behaviour_fingerprint(observation, with_values=False)
            new_behaviour = behaviour not in self._behaviours
            new_kind = kind_of_behaviour not in self._kinds_of_behaviour
            self._behaviours.add(behaviour)
            self._kinds_of_behaviour.add(kind_of_behaviour)
            if not (new_behaviour or observation.divergent):
                continue
            self._add_to_pool(input)
            if observation.divergent or new_kind:
                self._favoured.append(input)
            # New parents may have new children: the search is no longer fruitless.
            self._fruitless = 0
        self._adjust_size(own, slow)

    def _adjust_size(self, own: int, slow: int) -> None:
        """Grow new values while this engine's inputs run fast (and faster when small values are
        used up, see :meth:`propose`); halve their size when more than a tenth ran past the search's
        per-call limit (small inputs first, as Hypothesis does)."""
        if self._mutator.table6 or not own:
            return
        if slow > 0.1 * own:
            self._mutator.size = max(_MIN_SIZE, self._mutator.size * 0.5)
        else:
            self._mutator.size = min(1.0, self._mutator.size + _SIZE_STEP * own / 64)

    def _add_to_pool(self, input: Input) -> None:
        if len(self._pool) < _MAX_POOL:
            self._pool.append(input)
        else:
            # Replace a random non-seed entry: the pool stays diverse and bounded.
            self._pool[self._rng.randrange(self._seed_count, _MAX_POOL)] = input
