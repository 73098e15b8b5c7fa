"""CETBench's Algorithm 1 on function-level tasks: original pairs from a task's ground truth and its
recorded LLM samples, then up to ``k_max`` validated perturbations.

Original pairs (each from the same task unless ``di``):

* ``id``: one correct program twice (the ground truth, or a sample passing every test);
* ``fe``: the ground truth and a correct sample that is syntactically different (another AST),
  behaving the same on the tests, and on which divergent finds no difference (budgeted);
* ``ne``: a correct program and a sample that fails a test (the failing test is the witness);
* ``di``: correct programs of two different tasks.

Then, as Algorithm 1: ``k ~ U(1, k_max)``; the pair's flag (sp or np) is fixed by the schedule (half
of each category each, as the paper's dataset); for np, ``k_neg ~ U(1, k)``; ``k - k_neg`` preserving
steps, each on a random side, then ``k_neg`` breaking steps on one random side (the other one when
the chosen program already fails every test, since no test could show it broken); each step a
random type that has a site in the program, tried up to ``max_tries`` times. A preserving step is kept only when the version passes and
fails exactly the tests it did before and divergent finds no difference between the two versions;
a breaking step only when a test that passed now fails. ``k`` in the label is the number of steps
actually applied. A pair labelled inequivalent is checked once more at the end (its two programs
must differ on a test, or divergent must find a witness), else it is dropped.

Every random choice comes from ``random.Random(f"{seed}/{index}/{attempt}")`` and divergent's check
has an execution budget, so a run is deterministic for its seed and data (up to tests that hit the
per-test time limit on a loaded machine: one of 30 pairs' steps went another way in two runs here).

Each pair has a time budget (``pair_budget`` seconds, all its attempts together): a task whose
programs are slow (a ground truth that takes most of the per-test limit, a check of 2,000 slow
executions) would otherwise take minutes for one pair. A pair past its budget is skipped, with the
reason counted (:attr:`GenerationStats.skipped`): never a pair whose steps were validated by a check
cut short. The tests and the checks run on warm sandboxed workers
(:class:`~divergent.search.warm.WarmWorkers`) kept across the steps and the pairs.
"""

from __future__ import annotations

import ast
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from divergent.bench.cetbench.perturb import Applied, PerturbationType, apply_perturbation
from divergent.bench.cetbench.validate import (
    OverBudget,
    TaskTests,
    VersionTester,
    WarmWorkers,
    find_difference,
    task_tests,
)
from divergent.datasets import Candidate, Task
from divergent.datasets.tasks import parse_or_none
from divergent.errors import DivergentError, InvalidArgument
from divergent.sandbox.limits import Limits

__all__ = ["CATEGORIES", "GeneratedPair", "GenerationStats", "GeneratorSettings", "PairGenerator", "schedule"]

#: the four original relationships, with the paper's proportions (400 : 2000 : 2000 : 400)
CATEGORIES: dict[str, int] = {"id": 1, "fe": 5, "ne": 5, "di": 1}


@dataclass(frozen=True)
class GeneratorSettings:
    count: int = 400
    seed: int = 1
    k_max: int = 5
    max_tries: int = 5
    #: divergent's budget per preserving step and per ``fe`` original pair, in executions
    check_executions: int = 2000
    #: seconds per test run (a breaking step often loops: it costs this per test)
    timeout: float = 1.0
    isolation: str | None = None
    #: original pairs tried per scheduled pair before giving it up
    max_attempts: int = 8
    #: seconds per scheduled pair (all its attempts); past it the pair is skipped. None: no limit
    pair_budget: float | None = 30.0

    def __post_init__(self) -> None:
        if self.count < 1:
            raise InvalidArgument(f"--count {self.count}: need at least 1")
        if not 1 <= self.k_max <= 20:
            raise InvalidArgument(f"--k-max {self.k_max}: choose 1..20")
        if self.max_tries < 1 or self.check_executions < 10:
            raise InvalidArgument("max_tries must be >= 1 and check_executions >= 10")
        if self.pair_budget is not None and self.pair_budget <= 0:
            raise InvalidArgument(f"--pair-budget {self.pair_budget:g}: need more than 0 seconds (or none)")

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "seed": self.seed, "k_max": self.k_max, "max_tries": self.max_tries,
                "check_executions": self.check_executions, "timeout": self.timeout, "pair_budget": self.pair_budget}


def schedule(count: int, seed: int) -> list[tuple[str, str]]:
    """(category, flag) for each pair: the paper's proportions, each category half sp and half np,
    in a seeded order."""
    total_weight = sum(CATEGORIES.values())
    sizes = {name: count * weight // total_weight for name, weight in CATEGORIES.items()}
    for name in ("fe", "ne", "id", "di"):
        if sum(sizes.values()) >= count:
            break
        sizes[name] += 1
    while sum(sizes.values()) < count:
        sizes["fe" if sizes["fe"] <= sizes["ne"] else "ne"] += 1
    plan = []
    for name, size in sizes.items():
        plan += [(name, "sp")] * ((size + 1) // 2) + [(name, "np")] * (size // 2)
    random.Random(f"{seed}/schedule").shuffle(plan)
    return plan


@dataclass(frozen=True)
class Step:
    side: int
    applied: Applied

    def as_dict(self) -> dict[str, Any]:
        return {"program": self.side + 1, "type": self.applied.kind.value, "flag": self.applied.flag,
                "description": self.applied.description}


@dataclass(frozen=True)
class GeneratedPair:
    index: int
    category: str
    flag: str
    programs: tuple[str, str]
    originals: tuple[str, str]
    tasks: tuple[str, str]
    entry_points: tuple[str, str]
    origins: tuple[str, str]
    steps: tuple[Step, ...]
    #: for an inequivalent original pair: what tells them apart
    original_witness: dict[str, Any] | None
    seconds: float
    #: the task's test code when both programs are for one task ("" otherwise)
    tests: str = ""

    @property
    def k(self) -> int:
        return len(self.steps)

    @property
    def equivalent(self) -> bool:
        return self.category in ("id", "fe") and self.flag == "sp"

    @property
    def label(self) -> str:
        return f"<{self.category}, {self.k}, {self.flag}>"

    def as_dict(self, seed: int) -> dict[str, Any]:
        return {
            "pair_id": f"cet-{self.index:05d}", "index": self.index, "label": self.label,
            "category": self.category, "k": self.k, "flag": self.flag, "equivalent": self.equivalent,
            "program_1": self.programs[0], "program_2": self.programs[1],
            "original_1": self.originals[0], "original_2": self.originals[1],
            "tasks": list(self.tasks), "entry_points": list(self.entry_points), "origins": list(self.origins),
            "steps": [s.as_dict() for s in self.steps], "original_witness": self.original_witness,
            # the task's tests: where divergent's execution judge takes its seed calls from
            "tests": self.tests,
            "seed": seed, "seconds": round(self.seconds, 3),
        }


@dataclass
class GenerationStats:
    pairs: int = 0
    dropped: int = 0
    seconds: float = 0.0
    #: (type, flag) -> [attempts, accepted]
    steps: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    #: why steps were rejected
    rejections: Counter[str] = field(default_factory=Counter)
    #: why original pairs were not usable
    originals_rejected: Counter[str] = field(default_factory=Counter)
    #: pairs given up before their attempts ran out, by why (past the per-pair budget)
    skipped: Counter[str] = field(default_factory=Counter)
    test_runs: int = 0
    checks: int = 0

    def step(self, kind: PerturbationType, preserving: bool, accepted: bool, reason: str = "") -> None:
        counts = self.steps.setdefault((kind.value, "sp" if preserving else "np"), [0, 0])
        counts[0] += 1
        counts[1] += accepted
        if not accepted:
            self.rejections[f"{'sp' if preserving else 'np'}: {reason}"] += 1

    def to_json(self) -> dict[str, Any]:
        """Every count, as stored per pair (:meth:`add` sums them back)."""
        return {"steps": [[kind, flag, tried, accepted] for (kind, flag), (tried, accepted) in self.steps.items()],
                "rejections": dict(self.rejections), "originals_rejected": dict(self.originals_rejected),
                "skipped": dict(self.skipped), "test_runs": self.test_runs, "checks": self.checks}

    def add(self, counts: dict[str, Any]) -> None:
        """Add the counts of :meth:`to_json` (one pair's) to these."""
        for kind, flag, tried, accepted in counts.get("steps", []):
            totals = self.steps.setdefault((kind, flag), [0, 0])
            totals[0] += int(tried)
            totals[1] += int(accepted)
        self.rejections.update(counts.get("rejections", {}))
        self.originals_rejected.update(counts.get("originals_rejected", {}))
        self.skipped.update(counts.get("skipped", {}))
        self.test_runs += int(counts.get("test_runs", 0))
        self.checks += int(counts.get("checks", 0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs, "dropped": self.dropped, "seconds": round(self.seconds, 3),
            "pairs_per_minute": round(60 * self.pairs / self.seconds, 3) if self.seconds else None,
            "steps": {f"{kind}/{flag}": {"tried": tried, "accepted": accepted,
                                         "rejection_rate": round(1 - accepted / tried, 4) if tried else None}
                      for (kind, flag), (tried, accepted) in sorted(self.steps.items())},
            "rejections": dict(self.rejections.most_common()),
            "originals_rejected": dict(self.originals_rejected.most_common()),
            "skipped": dict(self.skipped.most_common()),
            "test_runs": self.test_runs, "checks": self.checks,
        }


@dataclass
class _Side:
    task: Task
    source: str
    origin: str


class _TaskMaterial:
    """A task's tests, its tester, and its correct and incorrect programs (found lazily)."""

    def __init__(self, task: Task, samples: Sequence[Candidate], limits: Limits, isolation: str | None,
                 workers: WarmWorkers) -> None:
        self.task = task
        self.samples = list(samples)
        self.tests: TaskTests | None
        try:
            self.tests = task_tests(task)
        except DivergentError:
            self.tests = None
        self.tester = VersionTester(self.tests, limits=limits, isolation=isolation,
                                    workers=workers) if self.tests else None

    @property
    def usable(self) -> bool:
        return self.tests is not None and self.task.ground_truth is not None and self.ground_truth_passes()

    def ground_truth_passes(self) -> bool:
        assert self.tester is not None and self.task.ground_truth is not None
        return all(self.tester.result(self.task.ground_truth))

    def results(self, source: str) -> tuple[bool, ...]:
        assert self.tester is not None
        return self.tester.result(source)

    def first_failure(self, source: str) -> int | None:
        """The first test ``source`` fails (None: it passes them all). The tests stop there: a
        sample that loops costs one time limit, not one per test."""
        assert self.tester is not None and self.tests is not None
        return self.tester.first_change(source, (True,) * len(self.tests.tests), breaking=True)


def _same_syntax(a: str, b: str) -> bool:
    tree_a, tree_b = parse_or_none(a), parse_or_none(b)
    if tree_a is None or tree_b is None:
        return a == b
    return ast.dump(tree_a) == ast.dump(tree_b)


class PairGenerator:
    """Makes CETBench pairs from tasks and their recorded samples (see the module docstring)."""

    def __init__(
        self,
        tasks: Sequence[Task],
        samples: dict[str, list[Candidate]],
        settings: GeneratorSettings,
    ) -> None:
        if len(tasks) < 2:
            raise InvalidArgument("CETBench generation needs at least 2 tasks (the di category pairs two)")
        self.tasks = list(tasks)
        self.samples = samples
        self.settings = settings
        self.limits = Limits(timeout=settings.timeout)
        self.stats = GenerationStats()
        self._material: dict[str, _TaskMaterial] = {}
        #: sandboxed workers kept warm across the steps and the pairs (started by the first use)
        self.workers = WarmWorkers(self.limits, settings.isolation)
        #: the pair being made must be done by then (``time.monotonic()``), or it is skipped
        self.deadline: float | None = None
        #: why the last :meth:`generate_one` gave its pair up (None: made, or dropped)
        self.skipped: str | None = None

    def material(self, task: Task) -> _TaskMaterial:
        found = self._material.get(task.task_id)
        if found is None:
            found = self._material[task.task_id] = _TaskMaterial(
                task, self.samples.get(task.task_id, []), self.limits, self.settings.isolation, self.workers)
        if found.tester is not None:
            found.tester.deadline = self.deadline
        return found

    def close(self) -> None:
        """Stop the warm workers (a later use starts new ones)."""
        self.workers.close()

    def _difference(self, source_a: str, source_b: str, task: Task) -> Any:
        self.stats.checks += 1
        return find_difference(source_a, source_b, task, executions=self.settings.check_executions,
                               seed=self.settings.seed, limits=self.limits, isolation=self.settings.isolation,
                               workers=self.workers, deadline=self.deadline)

    # -- original pairs -----------------------------------------------------------------------------

    def _correct_sample(self, material: _TaskMaterial, rng: random.Random, *, differing: bool) -> Candidate | None:
        ground_truth = material.task.ground_truth or ""
        for candidate in rng.sample(material.samples, len(material.samples)):
            if differing and _same_syntax(candidate.source, ground_truth):
                continue
            if material.first_failure(candidate.source) is None:
                return candidate
        return None

    def _original(self, category: str, rng: random.Random) -> tuple[_Side, _Side, dict[str, Any] | None] | None:
        task = rng.choice(self.tasks)
        material = self.material(task)
        if not material.usable:
            self.stats.originals_rejected["task without passing ground truth or tests"] += 1
            return None
        ground_truth = _Side(task, task.ground_truth or "", "ground_truth")
        if category == "id":
            return ground_truth, _Side(task, ground_truth.source, "ground_truth"), None
        if category == "di":
            other = rng.choice([t for t in self.tasks if t.task_id != task.task_id])
            other_material = self.material(other)
            if not other_material.usable:
                self.stats.originals_rejected["task without passing ground truth or tests"] += 1
                return None
            return ground_truth, _Side(other, other.ground_truth or "", "ground_truth"), None
        if category == "fe":
            candidate = self._correct_sample(material, rng, differing=True)
            if candidate is None:
                self.stats.originals_rejected["fe: no correct, syntactically different sample"] += 1
                return None
            difference = self._difference(ground_truth.source, candidate.source, task)
            if difference.found or difference.error:
                self.stats.originals_rejected["fe: divergent found a difference (or could not check)"] += 1
                return None
            return ground_truth, _Side(task, candidate.source, candidate.label), None
        # ne: a sample that fails a test the ground truth passes
        for candidate in rng.sample(material.samples, len(material.samples)):
            failing = material.first_failure(candidate.source)
            if failing is not None:
                assert material.tests is not None
                witness = {"test": material.tests.tests[failing], "failed_by": 2}
                return ground_truth, _Side(task, candidate.source, candidate.label), witness
        self.stats.originals_rejected["ne: no incorrect sample"] += 1
        return None

    # -- steps --------------------------------------------------------------------------------------

    def _step(self, side: _Side, preserving: bool, rng: random.Random) -> Applied | None:
        """One validated step on ``side`` (a random type that has a site), up to ``max_tries`` tries."""
        material = self.material(side.task)
        before = material.results(side.source)
        kinds = list(PerturbationType)
        for _ in range(self.settings.max_tries):
            applied = None
            for kind in rng.sample(kinds, len(kinds)):
                applied = apply_perturbation(side.source, kind, preserving, rng)
                if applied is not None:
                    break
            if applied is None:
                self.stats.rejections[f"{'sp' if preserving else 'np'}: no site for any type"] += 1
                return None
            kind = applied.kind
            assert material.tester is not None
            change = material.tester.first_change(applied.source, before, breaking=not preserving)
            if preserving:
                if change is not None:
                    self.stats.step(kind, preserving, False, "tests changed")
                    continue
                difference = self._difference(side.source, applied.source, side.task)
                if difference.error:
                    self.stats.step(kind, preserving, False, "divergent could not check")
                    continue
                if difference.found:
                    self.stats.step(kind, preserving, False, "divergent found a difference")
                    continue
            elif change is None:
                self.stats.step(kind, preserving, False, "no test fails")
                continue
            self.stats.step(kind, preserving, True)
            return applied
        return None

    def _confirm_inequivalent(self, sides: tuple[_Side, _Side]) -> bool:
        if sides[0].task.task_id != sides[1].task.task_id:
            return True  # programs for different tasks
        material = self.material(sides[0].task)
        tester = material.tester
        assert tester is not None
        # compare against a version whose results are known; the other (maybe a looping breaking
        # step) runs only until it differs
        first, second = sides if tester.known(sides[0].source) is not None or tester.known(sides[1].source) is None \
            else (sides[1], sides[0])
        if tester.first_change(second.source, tester.result(first.source), breaking=False) is not None:
            return True
        return self._difference(sides[0].source, sides[1].source, sides[0].task).found

    def test_runs(self) -> int:
        """Versions tested so far, by every task's tester."""
        return sum(m.tester.runs for m in self._material.values() if m.tester is not None)

    def generate_one(self, index: int, category: str, flag: str) -> GeneratedPair | None:
        """The pair at position ``index`` of the schedule, or None: every attempt failed, or the
        per-pair budget ran out (then :attr:`skipped` says so, and the stats count it)."""
        started = time.monotonic()
        budget = self.settings.pair_budget
        # runs stop a little before the budget, so that the call in flight and the closing of a
        # check end within it
        self.deadline = None if budget is None else started + budget - min(0.5, 0.02 * budget)
        self.skipped = None
        try:
            return self._attempts(index, category, flag, started)
        except OverBudget:
            self.skipped = f"over the per-pair budget ({budget:g} s)"
            self.stats.skipped[self.skipped] += 1
            return None
        finally:
            self.deadline = None

    def _attempts(self, index: int, category: str, flag: str, started: float) -> GeneratedPair | None:
        for attempt in range(self.settings.max_attempts):
            rng = random.Random(f"{self.settings.seed}/{index}/{attempt}")
            original = self._original(category, rng)
            if original is None:
                continue
            first, second, witness = original
            if rng.random() < 0.5:
                first, second = second, first
                if witness is not None:
                    witness = {**witness, "failed_by": 3 - witness["failed_by"]}
            sides = [first, second]
            originals = (first.source, second.source)
            k = rng.randint(1, self.settings.k_max)
            k_neg = rng.randint(1, k) if flag == "np" else 0
            steps: list[Step] = []
            for _ in range(k - k_neg):
                chosen = rng.randrange(2)
                applied = self._step(sides[chosen], True, rng)
                if applied is not None:
                    sides[chosen] = _Side(sides[chosen].task, applied.source, sides[chosen].origin)
                    steps.append(Step(chosen, applied))
            breaking = 0
            chosen = rng.randrange(2)
            if k_neg and not any(self.material(sides[chosen].task).results(sides[chosen].source)):
                # a program that fails every test cannot be shown broken by one: break the other
                chosen = 1 - chosen
            for _ in range(k_neg):
                applied = self._step(sides[chosen], False, rng)
                if applied is not None:
                    sides[chosen] = _Side(sides[chosen].task, applied.source, sides[chosen].origin)
                    steps.append(Step(chosen, applied))
                    breaking += 1
            if not steps or (flag == "np" and breaking == 0):
                self.stats.originals_rejected["no step could be applied" if not steps else "no breaking step held"] += 1
                continue
            pair = GeneratedPair(
                index=index, category=category, flag=flag, programs=(sides[0].source, sides[1].source),
                originals=originals, tasks=(sides[0].task.task_id, sides[1].task.task_id),
                entry_points=(sides[0].task.entry_point, sides[1].task.entry_point),
                origins=(sides[0].origin, sides[1].origin), steps=tuple(steps), original_witness=witness,
                seconds=time.monotonic() - started,
                tests=sides[0].task.seeds_text if sides[0].task.task_id == sides[1].task.task_id else "",
            )
            if not pair.equivalent and not self._confirm_inequivalent((sides[0], sides[1])):
                self.stats.originals_rejected["inequivalence not confirmed"] += 1
                continue
            return pair
        return None

    def run(
        self,
        done: set[int] = frozenset(),  # type: ignore[assignment]
        on_pair: Callable[[GeneratedPair | None, int, int], None] | None = None,
    ) -> GenerationStats:
        """Generate every scheduled pair not in ``done``; ``on_pair(pair or None, position, total)``."""
        plan = schedule(self.settings.count, self.settings.seed)
        started = time.monotonic()
        for index, (category, flag) in enumerate(plan):
            if index in done:
                continue
            pair = self.generate_one(index, category, flag)
            if pair is None and self.skipped is None:
                self.stats.dropped += 1
            else:
                self.stats.pairs += 1
            self.stats.seconds = time.monotonic() - started
            self.stats.test_runs = self.test_runs()
            if on_pair is not None:
                on_pair(pair, index, len(plan))
        self.close()
        return self.stats
