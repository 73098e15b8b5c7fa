"""Searches over whole programs (stdin to stdout): loading them, their inputs, the validator.

:func:`prepare_programs` is :func:`divergent.search.prepare` for whole programs: it loads the
programs (:mod:`divergent.load.programs`), the examples and test files (the seeds), the helper
programs (validator, generator, checker; each built now, so a compile error is an input error
before the search starts), chooses the output comparison and the engines that handle text, and
starts a :class:`~divergent.search.loop.Search` with a :class:`ProgramSupport`: what whole programs
add to the search loop (the validator as a batch precondition, the runner's limits and checker) and
to the engines (the generator, the validator's rejections).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from divergent.engines.registry import NEEDS_MODEL, OPT_IN, TEXT_ENGINES, parse_engine_list
from divergent.errors import InvalidArgument, LoadError
from divergent.load.programs import load_program, names_whole_program
from divergent.model import AnyInput, Outcome, TextInput
from divergent.policy import EqualityPolicy
from divergent.programs import BuildOptions, PythonFunction, Signature, StdinProgram, with_distinct_labels
from divergent.sandbox.isolation import Isolation, choose_level
from divergent.sandbox.launch import Job, ProgramLimits
from divergent.sandbox.process_runner import ProgramService, build_all
from divergent.sandbox.runner import Runner, open_runner
from divergent.search.loop import Search
from divergent.search.options import ImplementationSpec, SearchOptions
from divergent.search.program_options import ProgramOptions
from divergent.text_comparison import OutputComparison

#: the largest input file read as an example or test file
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: validator verdicts remembered (by input), so an input is judged once
_VERDICT_CACHE = 100_000
#: validator (and generator) processes sharing a batch (the programs under test wait for them)
VALIDATOR_WORKERS = 2
#: rejection messages kept for the engines (limits a validator names are boundaries)
_KEPT_REJECTIONS = 64


def wants_programs(implementations: Sequence[ImplementationSpec], options: SearchOptions) -> bool:
    """Whether the search is over whole programs: ``stdin`` asked, or a spec that can only be one.
    Options of whole programs (examples, validator...) without either are an input error."""
    if options.programs.stdin or any(names_whole_program(spec) for spec in implementations):
        return True
    if options.programs.used:
        raise InvalidArgument(
            "--example, --inputs, --generator, --validator and --checker are for whole programs reading stdin: "
            "add --stdin (a .py file is then a script)"
        )
    return False


def resolve_programs(specs: Sequence[ImplementationSpec], build: BuildOptions) -> list[StdinProgram]:
    """Every spec as a whole program (a .py file is a script); repeated labels get ``#n``."""
    programs: list[StdinProgram] = []
    for spec in specs:
        if isinstance(spec, StdinProgram):
            # loaded before the options were known (the CLI loads first): the options' flags apply
            programs.append(replace(spec, build=build) if spec.build == BuildOptions() else spec)
        elif isinstance(spec, PythonFunction) or callable(spec):
            raise InvalidArgument(
                f"{getattr(spec, 'label', spec)!r} is a function: functions and whole programs cannot be compared "
                "(give a script with --stdin, or compare functions without it)"
            )
        elif isinstance(spec, str | os.PathLike):
            programs.append(load_program(spec, build=build))
        else:
            raise InvalidArgument(f"implementation {spec!r}: expected a path, exec:PATH or a StdinProgram")
    return with_distinct_labels(programs)  # type: ignore[return-value]


def read_input_file(path: Path, what: str) -> TextInput:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InvalidArgument(f"{what} {path}: cannot read it ({error.strerror or error})") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InvalidArgument(f"{what} {path}: {len(data):,} bytes is more than an input may be")
    return TextInput(data.decode("utf-8", "surrogateescape"), how_generated="seeds")


def gather_text_seeds(options: SearchOptions) -> list[TextInput]:
    """The examples, the test files of ``inputs_dir`` and text seeds, in that order, each once."""
    found: list[TextInput] = []
    settings = options.programs
    for example in (*settings.examples, *options.seeds):
        if isinstance(example, TextInput):
            found.append(example if example.how_generated else replace(example, how_generated="seeds"))
        elif isinstance(example, str | Path):
            found.append(read_input_file(Path(example), "example"))
        else:
            raise InvalidArgument(f"example {example!r}: expected a file or a TextInput (whole programs read text)")
    if settings.inputs_dir is not None:
        directory = Path(settings.inputs_dir)
        if not directory.is_dir():
            raise InvalidArgument(f"--inputs {directory}: not a directory")
        files = sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))
        # Answer files sit next to the inputs in many test sets: they are not inputs.
        files = [p for p in files if p.suffix not in (".a", ".ans", ".out", ".answer", ".expected")]
        found.extend(read_input_file(p, "test file") for p in files)
    unique: dict[str, TextInput] = {}
    for item in found:
        unique.setdefault(item.key, item)
    return list(unique.values())


class Validator:
    """The validator program: an input is valid when it exits 0 reading it on stdin."""

    def __init__(self, service: ProgramService) -> None:
        self.service = service
        self.rejected = 0
        self.accepted = 0
        self.failures = 0
        self._verdicts: dict[str, bool] = {}
        self.messages: deque[str] = deque(maxlen=_KEPT_REJECTIONS)
        #: why recent inputs were rejected, by input
        self._reasons: dict[str, str] = {}
        self.first_rejection: tuple[str, str] | None = None
        # The search loop and the LLM engines' threads ask it; its launcher serves one at a time.
        self._lock = threading.Lock()

    @property
    def label(self) -> str:
        return self.service.label

    def verdicts(self, items: Sequence[TextInput]) -> list[bool]:
        """Whether each input is valid (run in one batch; known inputs are not run again)."""
        with self._lock:
            return self._verdicts_of(items)

    def _verdicts_of(self, items: Sequence[TextInput]) -> list[bool]:
        unknown = [item for item in dict.fromkeys(i.key for i in items) if item not in self._verdicts]
        texts = {item.key: item.text for item in items}
        if unknown:
            jobs = [Job(stdin=texts[key].encode("utf-8", "surrogateescape")) for key in unknown]
            for key, result in zip(unknown, self.service.run(jobs), strict=True):
                valid = result is not None and result.ok
                if result is not None and result.kind.value not in ("ok", "runtime-error"):
                    self.failures += 1
                if not valid:
                    message = _message(result.stderr or result.stdout) if result is not None else "not run"
                    if result is not None and not message:
                        message = result.detail
                    self.messages.append(message)
                    if len(self._reasons) >= _VERDICT_CACHE // 10:
                        self._reasons.clear()
                    self._reasons[key] = message
                    if self.first_rejection is None:
                        self.first_rejection = (texts[key], message)
                if len(self._verdicts) >= _VERDICT_CACHE:
                    self._verdicts.clear()
                if result is not None:  # not run (the budget's end) is no verdict to keep
                    self._verdicts[key] = valid
        verdicts = [self._verdicts.get(item.key, False) for item in items]
        self.accepted += sum(verdicts)
        self.rejected += len(verdicts) - sum(verdicts)
        return verdicts

    def reason(self, item: TextInput) -> str:
        """What the validator said when it rejected ``item`` ("" if it did not, or long ago)."""
        return self._reasons.get(item.key, "")

    def close(self) -> None:
        self.service.close()


def _message(text: str) -> str:
    """A validator's message: its first line, or the last line of a Python traceback."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0].startswith("Traceback (most recent call last)"):
        return lines[-1][:300]
    return lines[0][:300]


class ProgramSupport:
    """What whole programs add to a search: the validator, the generator, the checker, the runs'
    limits. The search loop and the text engines use it; :meth:`close` ends its helpers."""

    def __init__(self, programs: Sequence[StdinProgram], settings: ProgramOptions, *, limits: ProgramLimits,
                 level: Isolation, validator: Validator | None, generator: ProgramService | None,
                 checker: StdinProgram | None) -> None:
        self.programs = tuple(programs)
        self.settings = settings
        self.limits = limits
        self.level = level
        self.validator = validator
        self.generator = generator
        self.checker = checker

    def runner_options(self, timeout_factor: float = 1.0) -> dict[str, Any]:
        """What :func:`~divergent.sandbox.runner.open_runner` needs for these programs."""
        limits = self.limits if timeout_factor == 1.0 else self.limits.scaled(timeout_factor)
        return {"program_limits": limits, "checker": self.checker}

    def open_runner(self, timeout_factor: float = 1.0) -> Runner:
        """A runner of these programs (for engines that run inputs themselves)."""
        from divergent.sandbox.limits import Limits

        return open_runner(self.programs, limits=Limits(), isolation=self.level, **self.runner_options(timeout_factor))

    def admit(self, items: Sequence[AnyInput]) -> list[bool]:
        """The validator's verdicts (every input is admitted without a validator)."""
        if self.validator is None or not items:
            return [True] * len(items)
        return self.validator.verdicts([item for item in items if isinstance(item, TextInput)])

    def rejected(self) -> int:
        """Inputs the validator rejected during the search (0 without a validator)."""
        return self.validator.rejected if self.validator is not None else 0

    def rejection_messages(self) -> list[str]:
        return list(self.validator.messages) if self.validator is not None else []

    def rejection_reason(self, item: TextInput) -> str:
        return self.validator.reason(item) if self.validator is not None else ""

    def notes(self) -> list[str]:
        notes = []
        validator = self.validator
        if validator is not None and validator.rejected:
            first = ""
            if validator.first_rejection is not None:
                text, message = validator.first_rejection
                first = f"; first: {TextInput(text).call(max_length=40)}: {message or 'rejected'}"
            notes.append(
                f"validator {validator.label} rejected {validator.rejected} input(s) (never counterexamples){first}"
            )
        if validator is not None and validator.failures:
            notes.append(f"validator {validator.label} crashed or timed out on {validator.failures} input(s) "
                         "(counted as rejections)")
        return notes

    def details(self) -> dict[str, Any]:
        """For the report: the validator's counts."""
        validator = self.validator
        return {
            "validator": validator.label if validator else None,
            "rejected": validator.rejected if validator else 0,
            "accepted": validator.accepted if validator else None,
        }

    def close(self) -> None:
        if self.validator is not None:
            self.validator.close()
        if self.generator is not None:
            self.generator.close()


def _helper(spec: str | None, what: str, build: BuildOptions) -> StdinProgram | None:
    if spec is None:
        return None
    try:
        return load_program(spec, build=build)
    except LoadError as error:
        raise LoadError(f"{what}: {error}") from None


def program_comparison(options: SearchOptions, checker: StdinProgram | None) -> OutputComparison:
    """The comparison of the programs' outputs: the one given as ``policy`` when it is an
    :class:`OutputComparison`, else the output mode, with the policy's timeout rule."""
    if isinstance(options.policy, OutputComparison):
        return options.policy
    policy = options.policy if isinstance(options.policy, EqualityPolicy) else EqualityPolicy()
    return OutputComparison(mode=options.programs.output, float_tol=options.programs.float_tol,
                            checker=checker.label if checker else None, timeout_policy=policy)


def text_engine_names(options: SearchOptions) -> tuple[str, ...]:
    """The engines of a search over whole programs: the named ones, or the default portfolio of the
    engines that handle text (with ``generator`` when there is a generator program)."""
    if isinstance(options.engines, tuple):
        return options.engines
    names = tuple(name for name in parse_engine_list(options.engines) if name in TEXT_ENGINES)
    if options.engines is None:
        names = tuple(n for n in names if n not in OPT_IN)
    if options.llm is None:
        names = tuple(n for n in names if n not in NEEDS_MODEL)
    if options.programs.generator is None:
        names = tuple(n for n in names if n != "generator")
    return names


def prepare_programs(implementations: Sequence[ImplementationSpec], options: SearchOptions, *,
                     minimum: int = 2) -> Search:
    """Load, build and start a search over whole programs (input errors raise before anything runs)."""
    # the budget counts from here when the caller gave no start (the CLI gives the process's)
    options = options if options.started is not None else options.with_(started=time.monotonic())
    settings = options.programs
    build = settings.build_options()
    programs = resolve_programs(implementations, build)
    if len(programs) < minimum:
        raise InvalidArgument(f"need at least {minimum} programs to compare, got {len(programs)}")
    # Helpers are scripts or programs like the ones under test (a .py validator is a script).
    validator_program = _helper(settings.validator, "--validator", build)
    generator_program = _helper(settings.generator, "--generator", build)
    checker = _helper(settings.checker, "--checker", build)
    limits = settings.limits(options.limits.timeout)
    level = choose_level(options.isolation)
    helper_limits = ProgramLimits(time_limit=max(5.0, 2 * limits.time_limit), memory_mb=max(1024, limits.memory_mb),
                                  output_bytes=64 * 1024)
    generator_limits = ProgramLimits(time_limit=max(5.0, 2 * limits.time_limit), memory_mb=max(1024, limits.memory_mb),
                                     output_bytes=limits.output_bytes)
    # Built now (in the sandbox, into the cache): a compile error is an input error before the
    # search starts. The budget bounds the whole run, builds included: a build that cannot finish
    # within it is a build error.
    seconds = options.budget.seconds
    deadline = None if seconds is None or options.started is None else options.started + seconds
    build_all([*programs, *(p for p in (validator_program, generator_program, checker) if p is not None)],
              level=level, limits=limits, deadline=deadline)
    validator = generator = None
    try:
        if validator_program is not None:
            validator = Validator(ProgramService(validator_program, limits=helper_limits, level=level,
                                                 workers=VALIDATOR_WORKERS, deadline=deadline))
        if generator_program is not None:
            generator = ProgramService(generator_program, limits=generator_limits, level=level,
                                       workers=VALIDATOR_WORKERS, deadline=deadline)
        support = ProgramSupport(programs, settings, limits=limits, level=level, validator=validator,
                                 generator=generator, checker=checker)
        seeds, notes = _valid_seeds(gather_text_seeds(options), validator)
        comparison = program_comparison(options, checker)
        search = Search(
            implementations=tuple(programs),
            signature=Signature(),
            options=options.with_(policy=comparison, isolation=level.value),
            engine_names=text_engine_names(options),
            seeds=tuple(seeds),
            notes=notes,
            programs=support,
        )
    except BaseException:
        for helper in (validator, generator):
            if helper is not None:
                helper.close()
        raise
    return search


def _valid_seeds(seeds: list[TextInput], validator: Validator | None) -> tuple[list[TextInput], list[str]]:
    if validator is None or not seeds:
        return seeds, []
    verdicts = validator.verdicts(seeds)
    # They were judged before the search: they do not count among the search's rejections.
    validator.rejected = validator.accepted = 0
    kept = [seed for seed, valid in zip(seeds, verdicts, strict=True) if valid]
    notes = []
    if len(kept) < len(seeds):
        dropped = [seed for seed, valid in zip(seeds, verdicts, strict=True) if not valid]
        shown = ", ".join(seed.call(max_length=30) for seed in dropped[:3])
        notes.append(f"the validator rejected {len(dropped)} of the {len(seeds)} examples and test files ({shown})")
    return kept, notes



def outcomes_of_programs(implementations: Sequence[ImplementationSpec], item: TextInput,
                         options: SearchOptions) -> tuple[Outcome, ...]:
    """Every program run once on ``item`` (fresh launchers), with the options' limits, build flags
    and checker: :func:`divergent.search.outcomes_on` for whole programs."""
    settings = options.programs
    build = settings.build_options()
    programs = resolve_programs(implementations, build)
    checker = _helper(settings.checker, "--checker", build)
    runner = open_runner(programs, limits=options.limits, isolation=options.isolation,
                         program_limits=settings.limits(options.limits.timeout), checker=checker)
    try:
        outcomes = runner.run([item])[0]
    finally:
        runner.close()
    assert outcomes is not None  # no deadline: every program ran
    return outcomes
