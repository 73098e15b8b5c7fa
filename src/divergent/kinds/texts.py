"""What the kinds whose input is a text read on stdin share (whole programs, commands): the engines
of texts, the seeds (examples, test files), the helper programs (a validator judging inputs, a
generator printing them, a checker judging outputs), text shrinking, the output comparison, the
reports' runs and reproduction, and :class:`TextSubjects`, which is also what the engines of texts
see (``TextContext.services``: :class:`divergent.engines.base.TextServices`).

A kind of text programs subclasses :class:`TextKind` and says how its specs load, how its programs
are prepared (built) and how a runner of them starts.
"""

from __future__ import annotations

import abc
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from divergent.comparison import Comparison
from divergent.engines.base import TextContext
from divergent.errors import InvalidArgument, LoadError
from divergent.kinds.base import ProgramKind, Subjects
from divergent.kinds.options import SearchOptions
from divergent.kinds.text_claims import (
    FormatCheck,
    claim_checks,
    claim_notes,
    listed_space,
    permutation_keys,
    statement_format_check,
)
from divergent.load.whole_programs import load_program
from divergent.programs import BuildOptions, Program, StdinProgram
from divergent.records import AnyInput, Counterexample, Report, TextInput
from divergent.report.presentation import ReportExtras
from divergent.report.reproduce import run_reproduction
from divergent.report.runs import RUNS, save_input
from divergent.sandbox.isolation import Isolation, choose_level
from divergent.sandbox.launch import Job, ProgramLimits
from divergent.sandbox.runner import Runner
from divergent.text_comparison import OutputComparison

if TYPE_CHECKING:
    # (imported where used: choosing the kind of a check of functions imports this module)
    from divergent.engines.text.lessons import Lessons
    from divergent.formats.claims import ExampleShape
    from divergent.formats.model import InputFormat
    from divergent.sandbox.process_runner import ProgramService

#: the engines of text inputs, in the portfolio's order (the others generate Python values)
TEXT_ENGINES: dict[str, str] = {
    "seeds": "divergent.engines.text.seeds:TextSeedEngine",
    "mutation": "divergent.engines.text.mutation:TextMutationEngine",
    "grammar": "divergent.engines.text.grammar:GrammarEngine",
    "generator": "divergent.engines.text.generator:GeneratorEngine",
    "llm": "divergent.engines.text.llm:TextProbeEngine",
    "randsearch": "divergent.engines.text.llm:TextRandSearchEngine",
}
#: the largest input file read as an example or test file
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: validator verdicts remembered (by input), so an input is judged once
_VERDICT_CACHE = 100_000
#: validator (and generator) processes sharing a batch (the programs under test wait for them)
VALIDATOR_WORKERS = 2
#: rejection messages kept for the engines (limits a validator names are boundaries)
_KEPT_REJECTIONS = 64


def read_input_file(path: Path, what: str) -> TextInput:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InvalidArgument(f"{what} {path}: cannot read it ({error.strerror or error})") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InvalidArgument(f"{what} {path}: {len(data):,} bytes is more than an input may be")
    return TextInput(data.decode("utf-8", "surrogateescape"), how_generated="seeds")


def text_seeds(options: SearchOptions) -> list[TextInput]:
    """The examples, the seeds (a file is one input, a directory holds test files) and the test
    files of ``inputs_dir``, in that order, each once."""
    found: list[TextInput] = []
    settings = options.programs
    for example in (*settings.examples, *options.seeds):
        if isinstance(example, TextInput):
            found.append(example if example.how_generated else replace(example, how_generated="seeds"))
        elif isinstance(example, str | Path) and Path(example).is_dir():
            found.extend(_test_files(Path(example)))
        elif isinstance(example, str | Path):
            found.append(read_input_file(Path(example), "seed"))
        else:
            raise InvalidArgument(f"seed {example!r}: expected a file or a TextInput (whole programs read text)")
    if settings.inputs_dir is not None:
        directory = Path(settings.inputs_dir)
        if not directory.is_dir():
            raise InvalidArgument(f"--inputs {directory}: not a directory")
        found.extend(_test_files(directory))
    unique: dict[str, TextInput] = {}
    for item in found:
        unique.setdefault(item.key, item)
    return list(unique.values())


def _test_files(directory: Path) -> list[TextInput]:
    """Every regular file of ``directory`` as one input, but answer files."""
    files = sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))
    # Answer files sit next to the inputs in many test sets: they are not inputs.
    files = [p for p in files if p.suffix not in (".a", ".ans", ".out", ".answer", ".expected")]
    return [read_input_file(p, "test file") for p in files]


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

    def known_verdict(self, item: TextInput) -> bool | None:
        """The validator's verdict on ``item`` if it judged it (and still remembers), else None."""
        return self._verdicts.get(item.key)

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


def format_note(fmt: InputFormat) -> str:
    """The report's note on the input format: where it came from and the format itself."""
    if fmt.stated:
        return "input format: given (--input-format): " + " | ".join(fmt.text().strip().splitlines())
    how = "; ".join(fmt.notes)
    return (f"input format inferred from the {fmt.origin.replace('+', ', the ')}" + (f" ({how})" if how else "")
            + ": " + " | ".join(fmt.text().rstrip().splitlines())
            + "  (wrong? write it to a file, correct it and pass --input-format FILE)")


def valid_seeds(seeds: list[TextInput], validator: Validator | None) -> tuple[list[TextInput], list[str]]:
    """The seeds the validator accepts (all without one), and a note on those it rejected."""
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


def judged_format(fmt: InputFormat, seeds: Sequence[TextInput], validator: Validator, seed: int) -> InputFormat:
    """The inferred format, or another explanation of the examples (a count's expression, a
    layout) whose drawn inputs the validator accepts more (formats/layouts.py); judged before the
    search, so not counted among its rejections."""
    from divergent.formats.layouts import judged_explanation
    from divergent.formats.model import InputFormat

    counts = validator.accepted, validator.rejected, validator.first_rejection
    chosen = judged_explanation(fmt, [item.text for item in seeds],
                                lambda texts: validator.verdicts([TextInput(text) for text in texts]), seed)
    validator.accepted, validator.rejected, validator.first_rejection = counts
    if chosen is None:
        return fmt
    return InputFormat(chosen[0].body, origin=fmt.origin, notes=(*fmt.notes, chosen[1]))


def load_helper(spec: str | None, what: str, build: BuildOptions) -> StdinProgram | None:
    """A helper program (validator, generator, checker): a script or a program like the ones under
    test (a .py helper is a script)."""
    if spec is None:
        return None
    try:
        return load_program(spec, build=build)
    except LoadError as error:
        raise LoadError(f"{what}: {error}") from None


def statement_of(spec: str | None) -> str | None:
    """A statement given as a file (or as its text: anything with a line break)."""
    if spec is None:
        return None
    if "\n" in spec:
        return spec
    path = Path(spec)
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise InvalidArgument(f"--statement {spec}: cannot read it ({error.strerror or error})") from None


def input_format_of(options: SearchOptions, seeds: Sequence[TextInput], programs: Sequence[Program]) -> InputFormat | None:
    """The format the user gave, else the one the examples, the statement and the programs say."""
    from divergent.formats.infer import infer_format, load_format
    from divergent.formats.model import InputFormat

    settings = options.programs
    given = settings.input_format
    if isinstance(given, InputFormat):
        return given
    if given is not None:
        return load_format(given)
    sources = [(program.source, str(program.language)) for program in programs if program.source]
    return infer_format([seed.text for seed in seeds], statement=statement_of(settings.statement), programs=sources)


class TextKind(ProgramKind):
    """A kind whose programs read one text on stdin and whose outcome is what they printed and how
    they ended. Subclasses load their specs, prepare their programs and start their runner."""

    engines = TEXT_ENGINES
    presentation = RUNS
    option_groups = frozenset({"programs"})
    #: a judge's limits go down to a few MiB (one run, all its processes together)
    least_memory_mb = 8

    @abc.abstractmethod
    def prepare(self, programs: Sequence[Program], helpers: Sequence[StdinProgram], *, level: Isolation,
                limits: ProgramLimits, deadline: float | None = None) -> None:
        """Make the programs and the helpers ready to run (build them, in the sandbox, into the
        cache), so a build error is an input error before the search starts; a build still going at
        ``deadline`` (``time.monotonic()``) is a build error."""

    @abc.abstractmethod
    def start_runner(self, programs: Sequence[Program], *, limits: ProgramLimits, level: Isolation,
                     checker: StdinProgram | None) -> Runner:
        """A started runner of the programs: each run under ``limits``; the checker (if any) decides
        which outputs are the same answer."""

    def with_memory(self, options: SearchOptions, mib: int) -> SearchOptions:
        """One run's memory, all its processes together (``ProgramOptions.memory_limit``)."""
        self.check_memory(mib)
        return options.with_(programs=replace(options.programs, memory_limit=mib))

    def comparison(self, options: SearchOptions, checker: StdinProgram | None) -> Comparison:
        """How outputs compare: the options' comparison when it is one of outputs, else the output
        mode (``--output``, ``--rel-tol``/``--abs-tol``, the checker) under the options' timeout rule."""
        if isinstance(options.comparison, OutputComparison):
            return options.comparison
        return OutputComparison(mode=options.programs.output, rel_tol=options.programs.rel_tol,
                                abs_tol=options.programs.abs_tol, checker=checker.label if checker else None, timeouts=options.comparison.timeouts)

    def engine_names(self, options: SearchOptions) -> tuple[str, ...]:
        names = super().engine_names(options)
        if isinstance(options.engines, tuple) or options.programs.generator is not None:
            return names
        return tuple(name for name in names if name != "generator")

    def set_up(self, programs: Sequence[Program], options: SearchOptions) -> Subjects:
        from divergent.sandbox.process_runner import ProgramService

        settings = options.programs
        build = settings.build_options()
        # Helpers are scripts or programs like the ones under test (a .py validator is a script).
        validator_program = load_helper(settings.validator, "--validator", build)
        generator_program = load_helper(settings.generator, "--generator", build)
        checker = load_helper(settings.checker, "--checker", build)
        limits = settings.limits(options.limits.timeout)
        level = choose_level(options.isolation)
        helper_limits = ProgramLimits(time_limit=max(5.0, 2 * limits.time_limit),
                                      memory_mb=max(1024, limits.memory_mb), output_bytes=64 * 1024)
        generator_limits = replace(helper_limits, output_bytes=limits.output_bytes)
        # Built now (in the sandbox, into the cache): a compile error is an input error before the
        # search starts. The budget bounds the whole run, builds included: a build that cannot finish
        # within it is a build error.
        seconds = options.budget.seconds
        deadline = None if seconds is None or options.started is None else options.started + seconds
        self.prepare(programs, [p for p in (validator_program, generator_program, checker) if p is not None],
                     level=level, limits=limits, deadline=deadline)
        validator = generator = None
        try:
            if validator_program is not None:
                validator = Validator(ProgramService(validator_program, limits=helper_limits, level=level,
                                                     workers=VALIDATOR_WORKERS, deadline=deadline))
            if generator_program is not None:
                generator = ProgramService(generator_program, limits=generator_limits, level=level,
                                           workers=VALIDATOR_WORKERS, deadline=deadline)
            return TextSubjects(self, programs, options.with_(isolation=level.value),
                                comparison=self.comparison(options, checker), limits=limits, level=level,
                                helpers=Helpers(validator=validator, generator=generator, checker=checker))
        except BaseException:
            for helper in (validator, generator):
                if helper is not None:
                    helper.close()
            raise

    def open_runner(self, programs: Sequence[Program], options: SearchOptions) -> Runner:
        settings = options.programs
        checker = load_helper(settings.checker, "--checker", settings.build_options())
        return self.start_runner(programs, limits=settings.limits(options.limits.timeout),
                                 level=choose_level(options.isolation), checker=checker)

    def input_of(self, item: object) -> AnyInput:
        if isinstance(item, TextInput):
            return item
        if isinstance(item, str):
            return TextInput(item)
        raise InvalidArgument(f"input {item!r}: a whole program's input is a TextInput (or its text)")

    def shrink(
        self, item: AnyInput, *, still_divergent: Callable[[Sequence[AnyInput]], list[bool]],
        acceptable: Callable[[AnyInput], bool], seconds: float, on_step: Callable[[AnyInput], None],
    ) -> AnyInput:
        from divergent.kinds.text_shrink import shrink_text

        assert isinstance(item, TextInput)
        return shrink_text(item, still_divergent=still_divergent, seconds=seconds, on_step=on_step)

    #: how the reproducing test builds its comparison: (import line, expression over OPTIONS)
    test_comparison: ClassVar[tuple[str, str]] = (
        "from divergent.text_comparison import OutputComparison",
        'OutputComparison(mode=OPTIONS["output"], rel_tol=OPTIONS["rel_tol"], abs_tol=OPTIONS["abs_tol"], '
        'checker={checker})',
    )

    def reproduction(self, cx: Counterexample, programs: Sequence[Program], options: SearchOptions, *,
                     test_dir: Path) -> str:
        # the test runs the programs under the run's time limit (``--timeout`` unless the options set one)
        settings = replace(options.programs, time_limit=options.programs.limits(options.limits.timeout).time_limit)
        return run_reproduction(cx, programs, test_dir=test_dir, settings=settings,
                                comparison=self.test_comparison, workdir=self.workdir(programs))

    def workdir(self, programs: Sequence[Program]) -> str | None:
        """The directory the programs run from, when it matters (they name files relative to it):
        a reproducing test runs them from there too. None: it does not matter."""
        return None

    def run_commands(self, programs: Sequence[Program], options: SearchOptions, input_file: str) -> list[str]:
        """The command lines that run each program on ``input_file`` by hand."""
        return []

    def extras(self, report: Report, programs: Sequence[Program], options: SearchOptions) -> ReportExtras:
        """The counterexample's input saved to a file, and the commands that run each program on it."""
        cx = report.counterexample
        if cx is None:
            return ReportExtras()
        assert isinstance(cx.input, TextInput)
        input_file = save_input(cx.input)
        if input_file is None:
            return ReportExtras()
        return ReportExtras(input_file=input_file, reproduce=tuple(self.run_commands(programs, options, input_file)))


@dataclass(frozen=True)
class Helpers:
    """The helper programs of one search over texts, each optional: the validator (started), the
    generator (started) and the checker (its runner starts it)."""

    validator: Validator | None = None
    generator: ProgramService | None = None
    checker: StdinProgram | None = None


class TextSubjects(Subjects):
    """Programs reading a text on stdin, with their helpers: the validator as a batch precondition,
    the generator, the checker, each run's limits. Also what the engines of texts use
    (:class:`divergent.engines.base.TextServices`)."""

    # A whole program's time limit is the judge's (--time-limit): its runs are not given smaller,
    # adaptive limits, and its timeouts are not re-run longer (docs/programs.md).
    adaptive_limits = False

    def __init__(self, kind: TextKind, programs: Sequence[Program], options: SearchOptions, *,
                 comparison: Comparison, limits: ProgramLimits, level: Isolation, helpers: Helpers = Helpers()) -> None:
        super().__init__(kind, programs, options, comparison=comparison)
        self.text_kind = kind
        self.limits = limits
        self.level = level
        self.validator = helpers.validator
        self.generator = helpers.generator
        self.checker = helpers.checker
        #: what an input is made of (given, or inferred when the seeds are read), or None
        self.input_format: InputFormat | None = None
        #: the given format, or without a validator the statement's, judging inputs before the validator
        self.format_check: FormatCheck | None = None
        #: without a validator or a statement's format: the examples' shape, outside which no
        #: difference is claimed (formats/claims.py)
        self.shape: ExampleShape | None = None
        #: every input of a small space with sure edges (the seed engine proposes them all)
        self.space: tuple[str, list[TextInput], str] | None = None
        from divergent.engines.text.lessons import Lessons

        #: what the validator taught the engines of texts about the format's slots
        self.lessons: Lessons = Lessons()

    @property
    def time_limit(self) -> float:
        return self.limits.time_limit

    def engine_context(self, **shared: object) -> TextContext:
        return TextContext(**shared, services=self)  # type: ignore[arg-type]

    def open_runner(self, timeout_factor: float = 1.0, *, reference: bool = False) -> Runner:
        limits = self.limits if timeout_factor == 1.0 else self.limits.scaled(timeout_factor)
        return self.text_kind.start_runner(self.runnable(reference), limits=limits, level=self.level,
                                           checker=self.checker)

    def gather_seeds(self) -> None:
        seeds, notes = valid_seeds(text_seeds(self.options), self.validator)
        self.input_format = input_format_of(self.options, seeds, self.programs)
        if self.validator is not None and self.input_format is not None and not self.input_format.stated:
            self.input_format = judged_format(self.input_format, seeds, self.validator, self.options.seed)
        self.format_check, self.shape = claim_checks(self.input_format, seeds, self.validator is not None,
                                                     statement_of(self.options.programs.statement))
        lister = self.format_check
        if lister is None and self.validator is not None:
            # with a validator, the statement's format lists the candidates and the validator judges them
            lister = statement_format_check(self.input_format, statement_of(self.options.programs.statement))
            if lister is not None:
                lister.judges = False
        self.space = listed_space(lister, self.shape, seeds)
        self.lessons.permutations = permutation_keys(self.input_format, lister, self.shape)
        if self.format_check is not None:
            kept = [seed for seed, fits in zip(seeds, self.format_check.verdicts(seeds), strict=True) if fits]
            if len(kept) < len(seeds):
                notes.append(f"the input format rejected {len(seeds) - len(kept)} of the {len(seeds)} examples and "
                             f"test files (first: {self.format_check.first_rejection[1] if self.format_check.first_rejection else ''})")
            self.format_check.rejected, self.format_check.first_rejection = 0, None
            seeds = kept
        self.seeds = tuple(seeds)
        self.notes.extend(notes)

    def admit(self, items: Sequence[AnyInput]) -> list[bool]:
        """The given format's and the validator's verdicts (every input is admitted without them)."""
        if not items or (self.validator is None and self.format_check is None):
            return [True] * len(items)
        texts = []
        for item in items:
            assert isinstance(item, TextInput)
            texts.append(item)
        verdicts = self.format_check.verdicts(texts) if self.format_check is not None else [True] * len(texts)
        if self.validator is not None:
            fitting = [item for item, fits in zip(texts, verdicts, strict=True) if fits]
            judged = iter(self.validator.verdicts(fitting) if fitting else [])
            verdicts = [fits and next(judged) for fits in verdicts]
        return verdicts

    def verdict_of(self, item: AnyInput) -> bool | None:
        """Whether ``item`` is valid: the given format's (or the statement's) verdict, then the
        validator's remembered one (None: the validator has not judged it yet)."""
        assert isinstance(item, TextInput)
        if self.format_check is not None and self.format_check.problem(item.text) is not None:
            return False
        return self.validator.known_verdict(item) if self.validator is not None else True

    def claimable(self, item: AnyInput) -> str | None:
        assert isinstance(item, TextInput)
        return self.shape.problem(item.text) if self.shape is not None else None

    def rejected(self) -> int:
        """Inputs the given format or the validator rejected during the search."""
        return ((self.validator.rejected if self.validator is not None else 0)
                + (self.format_check.rejected if self.format_check is not None else 0))

    def rejection_messages(self) -> list[str]:
        return list(self.validator.messages) if self.validator is not None else []

    def rejection_reason(self, item: AnyInput) -> str:
        assert isinstance(item, TextInput)
        if self.format_check is not None and (reason := self.format_check.reason(item)):
            return reason
        return self.validator.reason(item) if self.validator is not None else ""

    def inferred_inputs(self) -> dict[str, object] | None:
        """The input format used (``--json``: ``inferred_inputs.input_format``) and what the
        validator taught the engines beyond it (``inferred_inputs.learnt``)."""
        if self.input_format is None:
            return None
        return {"input_format": self.input_format.to_json(), "learnt": self.lessons.learnt()}

    def report_notes(self, runner: Runner) -> list[str]:
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
        if self.format_check is not None and self.format_check.rejected:
            text, message = self.format_check.first_rejection or ("", "")
            what = "the input format" if self.format_check.format.stated else "the statement's format and constraints"
            notes.append(f"{what} rejected {self.format_check.rejected} input(s) (never run); "
                         f"first: {TextInput(text).call(max_length=40)}: {message}")
        notes.extend(claim_notes(self.format_check, self.shape))
        if self.input_format is not None:
            notes.append(format_note(self.input_format))
            if learnt := self.lessons.learnt():
                notes.append("the validator taught the engines (by line.token): " + "; ".join(learnt))
        if slow := self.lessons.slowness.note():
            notes.append(slow)
        if validator is not None and validator.failures:
            notes.append(f"validator {validator.label} crashed or timed out on {validator.failures} input(s) "
                         "(counted as rejections)")
        return [*notes, *runner.notes]

    def close(self) -> None:
        if self.validator is not None:
            self.validator.close()
        if self.generator is not None:
            self.generator.close()
