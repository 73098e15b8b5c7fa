"""A pytest module that reproduces a counterexample (``--emit-test FILE``, and the snippet the
terminal report prints).

The test fails while the implementations differ on the counterexample and passes once they agree.
It names every implementation by a path relative to the test file's own directory (or by module
name), never by an absolute path, so it can be committed next to the code.

Two forms:

* **in-process** (Python functions that returned or raised): the test loads each function, calls it
  on the input and compares what it returned (or the exception's type) and, when the run compared
  them, the arguments after the call. It needs nothing but Python and pytest, and so it runs the
  implementations unsandboxed, in the pytest process: its header says so plainly. (It stays the
  form for these outcomes because it is what can be committed to a project whose tests do not
  install divergent, and the only one that can carry a source embedded from a git revision.)
* **through divergent** (a timeout or a crash, which an in-process call cannot survive, and every
  kind of program that is not a Python function, such as whole programs reading stdin): the test
  runs the programs in divergent's sandbox with :func:`divergent.search.outcomes_on` and compares
  the outcomes as the run did. :func:`program_spec` says how each program is named.

The module's text has its control characters written as escapes (:func:`divergent.values.printable`,
as :func:`divergent.report.terminal.escaped_file` does for every file meant for a person).

Each kind of program makes its test with the form that fits it (``ProgramKind.reproduction``):
:func:`call_reproduction` for Python functions, :func:`run_reproduction` for programs reading a text.
"""

from __future__ import annotations

import enum
import keyword
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, cast

from divergent.policy import DEFAULT_POLICY, EqualityPolicy, ExceptionEquality
from divergent.programs import Program, PythonFunction
from divergent.records import Counterexample, Input, OutcomeKind, TextInput
from divergent.values import printable, to_source

#: outcome kinds an in-process call can reproduce (the others need the sandbox)
_IN_PROCESS_KINDS = (OutcomeKind.RETURNED, OutcomeKind.RAISED)
#: iterators are compared on this many items, as the policy's iterable_limit does by default
_ITERABLE_LIMIT = DEFAULT_POLICY.iterable_limit


def identifier(label: str, index: int) -> str:
    """A Python name for an implementation: its file's stem (``old`` for ``examples/old.py``)."""
    name = re.sub(r"\W+", "_", label.rsplit(":", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")).strip("_")
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = f"impl_{index}"
    return name


def _names(programs: Sequence[Program]) -> list[str]:
    names: list[str] = []
    for i, program in enumerate(programs):
        name = identifier(program.label, i)
        while name in names:
            name += f"_{i}"
        names.append(name)
    return names


def relative_path(path: str, test_dir: Path) -> str:
    """``path`` relative to the test's directory, with forward slashes (``../examples/old.py``)."""
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(test_dir))).as_posix()


def program_spec(program: Program, test_dir: Path, entry_point: str = "") -> str:
    """How the test names a program for :func:`divergent.search.outcomes_on`: a Python expression
    giving its spec, with a path joined to the test's own directory (``HERE``) at run time.

    A program with a file is named by its ``path`` relative to the test (and ``entry_point``, a
    function's name in it); one without is named by its origin (``exec:`` keeps its prefix)."""
    path = program.path
    if path is None:
        return repr(program.origin or program.label)
    expression = f"(HERE / {relative_path(path, test_dir)!r}).as_posix()"
    if str(program.label).startswith("exec:"):
        return f"'exec:' + {expression}"
    return f"{expression} + {':' + entry_point!r}" if entry_point else expression


def shown_label(program: Program, test_dir: Path, entry_point: str = "") -> str:
    """The program's label, with an absolute path made relative to the test (no absolute path in
    the test, which is meant to be committed)."""
    label = program.label
    path = program.path
    if path is None or not os.path.isabs(label.split(":", 1)[0]):
        return label
    return relative_path(path, test_dir) + (f":{entry_point}" if entry_point else "")


def _differences(cx: Counterexample, labels: Sequence[str]) -> str:
    return "\n".join(f"    {label}: {outcome.kind.value} {outcome.describe()}"[:200]
                     for label, outcome in zip(labels, cx.outcomes, strict=True))


def _header(cx: Counterexample, labels: Sequence[str], form: str) -> str:
    """The module's opening comment: the input and what each program did (comments need no escaping)."""
    lines = [
        f"Reproduces a difference divergent found between {len(labels)} implementations:",
        "",
        f"    {cx.call}",
        "",
        *_differences(cx, labels).splitlines(),
        "",
        f"The test fails while they differ and passes once they agree ({form}).",
        "Paths are relative to this file's directory.",
    ]
    return "\n".join(f"# {line}".rstrip() for line in lines) + "\n"


#: said at the top of a test that runs the programs through divergent
_NEEDS_DIVERGENT = (
    "#\n"
    "# It imports divergent, which runs the programs in its sandbox: run pytest with the Python that has\n"
    "# divergent installed (pip install divergent; e.g. .venv/bin/pytest), not one without it.\n"
)


def _divergent_imports(*lines: str) -> str:
    """The test's imports of divergent, failing with a clear message where it is not installed
    (pytest shows it as the module's collection error, not as a bare ModuleNotFoundError)."""
    body = "".join(f"    {line}\n" for line in lines)
    return (
        "try:\n" + body
        + "except ModuleNotFoundError as error:  # pragma: no cover - pytest outside divergent's environment\n"
        + "    raise ImportError(\"this test runs the programs through divergent's sandbox: run pytest with the \"\n"
        + "                      \"Python that has divergent installed (pip install divergent)\") from error\n"
    )


def call_reproduction(
    cx: Counterexample,
    functions: Sequence[PythonFunction],
    *,
    test_dir: str | Path | None = None,
    policy: EqualityPolicy | None = None,
    embed: Collection[int] = (),
) -> str:
    """The text of a pytest module reproducing ``cx`` on Python ``functions`` (in the report's order).

    ``test_dir``: the directory the module will live in (paths are made relative to it; default:
    the current directory). ``policy``: the run's equality policy (tolerances, exception rule,
    argument mutation; default: divergent's). ``embed``: indices of functions whose source goes into
    the test instead of a path (e.g. a file at a git revision, which no path names for long)."""
    directory = Path(test_dir) if test_dir is not None else Path.cwd()
    rules = policy or DEFAULT_POLICY
    if all(outcome.kind in _IN_PROCESS_KINDS for outcome in cx.outcomes):
        return printable(_in_process_test(cx, list(functions), directory, rules, set(embed)))
    return printable(_sandboxed_test(cx, functions, directory, rules))


def run_reproduction(
    cx: Counterexample,
    programs: Sequence[Program],
    *,
    settings: Any,
    test_dir: str | Path | None = None,
    comparison: tuple[str, str] = ("from divergent.text_comparison import OutputComparison",
                                   'OutputComparison(mode=OPTIONS["output"], rel_tol=OPTIONS["rel_tol"], '
                                   'abs_tol=OPTIONS["abs_tol"], checker={checker})'),
    workdir: str | None = None,
) -> str:
    """The text of a pytest module reproducing ``cx`` on programs reading a text (whole programs): it
    runs them in the sandbox on the input and compares their outputs as the run did. ``settings``:
    the run's ``ProgramOptions`` (output mode, tolerance, checker, limits), which the test passes on;
    ``comparison``: the import line and the expression that build the run's comparison in the test
    (over ``OPTIONS``; ``{checker}`` is filled in); ``workdir``: the directory the programs ran from,
    which the test runs them from too (commands name files relative to it)."""
    directory = Path(test_dir) if test_dir is not None else Path.cwd()
    return printable(_program_test(cx, programs, directory, settings, comparison, workdir))



def _loader(program: PythonFunction, index: int, directory: Path, embedded: bool, shared_modules: set[str]) -> str:
    name = f"reproduced_{index}_{identifier(program.label, index)}"
    if embedded or program.path is None:
        source = program.source + (f"\n{program.setup_code}\n" if program.setup_code else "")
        return f"_from_source({source!r}, {program.entry_point!r}, {name!r})  # from {program.origin or program.label}"
    path = relative_path(program.path, directory)
    # the code that defines the entry point in the module (a method called through its class)
    setup = f", setup={program.setup_code!r}" if program.setup_code else ""
    if "." in program.module_name and program.module_name not in shared_modules and program.sys_path:
        root = relative_path(program.sys_path[0], directory)
        return f"_load({path!r}, {program.entry_point!r}, module={program.module_name!r}, root={root!r}{setup})"
    return f"_load({path!r}, {program.entry_point!r}, name={name!r}{setup})"


#: said plainly at the top of an in-process test: pytest runs the implementations itself
_UNSANDBOXED = (
    "#\n"
    "# WARNING: this test imports and calls the implementations in the pytest process itself, with\n"
    "# your privileges and files, OUTSIDE divergent's sandbox. Run it only on code you trust (or as\n"
    "# an unprivileged user in a throwaway container); divergent check runs them sandboxed.\n"
)

_IN_PROCESS_HELPERS = '''
import copy
import importlib
import importlib.util
import itertools
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
{settings}


def _load(relative_path, function, *, name=None, module=None, root=None, setup=""):
    """The function from a file; a module inside a package is imported under its dotted name (from
    ``root``), so its relative imports work; ``setup`` runs in the module first (it defines the
    entry point of a method)."""
    path = (HERE / relative_path).resolve()
    search = str((HERE / root).resolve()) if root is not None else str(path.parent)
    sys.path.insert(0, search)
    try:
        if module is not None:
            loaded = importlib.import_module(module)
        else:
            spec = importlib.util.spec_from_file_location(name, path)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
        if setup:
            exec(compile(setup, "<setup>", "exec"), loaded.__dict__)
        return getattr(loaded, function)
    finally:
        sys.path.remove(search)


def _from_source(source, function, name):
    namespace = {{"__name__": name}}
    exec(compile(source, name, "exec"), namespace)
    return namespace[function]


def _outcome(function, args, kwargs):
    """What one call did: what it returned (iterators: their first items) or the exception{mutation_doc}."""
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    try:
        value = function(*args, **kwargs)
        if hasattr(value, "__next__"):
            value = list(itertools.islice(value, ITERABLE_LIMIT))
        result = ("returned", value)
    except Exception as error:
        result = ("raised", {exception})
    return result{mutation}


def _same(a, b):
    """Equal as divergent compared them: floats within the tolerances, containers item by item."""
    if isinstance(a, float) or isinstance(b, float):
        if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in (a, b)):
            return False
        if math.isnan(a) or math.isnan(b):
            return NAN_EQUAL and math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if type(a) in (list, tuple) and type(b) is type(a):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    return a == b
'''


def _in_process_test(
    cx: Counterexample, programs: list[PythonFunction], directory: Path, policy: EqualityPolicy, embed: set[int]
) -> str:
    names = _names(programs)
    labels = [shown_label(p, directory, p.entry_point) for p in programs]
    call = cast(Input, cx.input)
    modules = [p.module_name for p in programs]
    shared = {m for m in modules if modules.count(m) > 1}
    exception = {
        ExceptionEquality.ANY: '"an exception"',
        ExceptionEquality.TYPE: "type(error).__name__",
        ExceptionEquality.TYPE_AND_MESSAGE: "f\"{type(error).__name__}: {error}\"",
    }[policy.exceptions]
    settings = (f"REL_TOL, ABS_TOL, NAN_EQUAL = {policy.rel_tol!r}, {policy.abs_tol!r}, {policy.nan_equal!r}\n"
                f"ITERABLE_LIMIT = {policy.iterable_limit!r}")
    unsupported = _unsupported(policy)
    if unsupported:
        settings += f"\n# the run also compared with {', '.join(unsupported)}: this test does not"
    helpers = _IN_PROCESS_HELPERS.format(
        settings=settings,
        exception=exception,
        mutation=" + ((args, kwargs),)" if policy.compare_mutation else "",
        mutation_doc=", and the arguments after it" if policy.compare_mutation else "",
    )
    loads = [f"    {name} = {_loader(p, i, directory, i in embed, shared)}"
             for i, (name, p) in enumerate(zip(names, programs, strict=True))]
    outcomes = [f"    {name}_did = _outcome({name}, args, kwargs)" for name in names]
    reference = names[0]
    checks = [
        f"    assert _same({name}_did, {reference}_did), (\n"
        f"        {labels[i] + ' did '!r} + repr({name}_did) + {', ' + labels[0] + ' did '!r}"
        f" + repr({reference}_did)\n    )"
        for i, name in enumerate(names) if i
    ]
    function = identifier(cx.function_name, 0)
    return (
        _header(cx, labels, "pytest, nothing else needed")
        + _UNSANDBOXED
        + helpers
        + f"\n\ndef test_{function}_implementations_agree():\n"
        + f"    args = {to_source(tuple(call.args))}\n"
        + f"    kwargs = {to_source(dict(call.kwargs))}\n"
        + "\n".join(loads) + "\n"
        + "\n".join(outcomes) + "\n"
        + "\n".join(checks) + "\n"
    )


def _unsupported(policy: EqualityPolicy) -> list[str]:
    """Settings of the run's policy the in-process test cannot apply."""
    shown = []
    if policy.unordered:
        shown.append("--unordered")
    if policy.list_equals_tuple:
        shown.append("--list-equals-tuple")
    if policy.compare_stdout:
        shown.append("--compare-stdout")
    if policy.compare is not None:
        shown.append("--compare (your comparison)")
    if type(policy.values).name != "default":
        shown.append(f"values={type(policy.values).name}")
    return shown


def policy_source(policy: EqualityPolicy) -> str:
    """``EqualityPolicy(...)`` with the settings that differ from the defaults (those a test can
    write down: numbers, flags and enumerations)."""
    changed = []
    for field in fields(policy):
        value: Any = getattr(policy, field.name)
        if value == getattr(DEFAULT_POLICY, field.name):
            continue
        if isinstance(value, enum.Enum):
            value = value.value  # the policy takes its enumerations' values
        if isinstance(value, bool | int | float | str):
            changed.append(f"{field.name}={value!r}")
    return f"EqualityPolicy({', '.join(changed)})"


def _sandboxed_test(cx: Counterexample, functions: Sequence[PythonFunction], directory: Path,
                    policy: EqualityPolicy) -> str:
    call = cast(Input, cx.input)
    specs = [program_spec(function, directory, function.entry_point) for function in functions]
    function = identifier(cx.function_name, 0)
    unsupported = [name for name in ("--compare (your comparison)",) if policy.compare is not None]
    note = f"# the run also compared with {', '.join(unsupported)}: this test does not\n" if unsupported else ""
    return (
        _header(cx, [shown_label(f, directory, f.entry_point) for f in functions],
                "the programs run in divergent's sandbox")
        + _NEEDS_DIVERGENT
        + "\nfrom pathlib import Path\n\n"
        + _divergent_imports("from divergent import Input", "from divergent.policy import EqualityPolicy",
                             "from divergent.search import outcomes_on") + "\n"
        + "HERE = Path(__file__).resolve().parent\n"
        + "PROGRAMS = [\n" + "".join(f"    {spec},\n" for spec in specs) + "]\n"
        + note
        + f"POLICY = {policy_source(policy)}\n\n\n"
        + f"def test_{function}_implementations_agree():\n"
        + f"    item = Input(args={to_source(tuple(call.args))}, kwargs={to_source(dict(call.kwargs))})\n"
        + "    outcomes = outcomes_on(PROGRAMS, item, comparison=POLICY)\n"
        + "    observation = POLICY.observe(item, outcomes)\n"
        + "    assert not observation.divergent, \"\\n\".join(\n"
        + "        f\"{spec}: {outcome.kind.value} {outcome.describe()}\" for spec, outcome in zip(PROGRAMS, outcomes)\n"
        + "    )\n"
    )


def _program_test(cx: Counterexample, programs: Sequence[Program], directory: Path, settings: Any,
                  comparison: tuple[str, str], workdir: str | None) -> str:
    """Whole programs: run them in the sandbox on the input text and compare their outputs as the
    run did (output mode, tolerance, checker)."""
    text = cast(TextInput, cx.input).text
    specs = [program_spec(program, directory) for program in programs]
    function = identifier(cx.function_name, 0)
    options = [f'"stdin": True, "output": {settings.output!r}, "rel_tol": {settings.rel_tol!r}, '
               f'"abs_tol": {settings.abs_tol!r}']
    time_limit = settings.time_limit
    if time_limit is not None:
        options.append(f'"time_limit": {time_limit!r}')
    memory_limit = settings.memory_limit
    if memory_limit is not None:
        options.append(f'"memory_limit": {memory_limit!r}')
    # the programs are rebuilt with the run's compiler flags and see the files it declared
    flags = {"cflags": settings.cflags, "cxxflags": settings.cxxflags, "javacflags": settings.javacflags,
             "std": settings.std}
    options.extend(f'"{name}": {value!r}' for name, value in flags.items() if value is not None)
    if settings.with_files:
        joined = ", ".join(f"(HERE / {relative_path(f, directory)!r}).as_posix()" for f in settings.with_files)
        options.append(f'"with_files": [{joined}]')
    checker = settings.checker
    checker_label = "None"
    if checker is not None:
        options.append(f'"checker": (HERE / {relative_path(checker, directory)!r}).as_posix()')
        checker_label = 'OPTIONS["checker"]'
    return (
        _header(cx, [shown_label(p, directory) for p in programs], "the programs run in divergent's sandbox")
        + _NEEDS_DIVERGENT
        + "\nfrom pathlib import Path\n\n"
        + _divergent_imports("from divergent import TextInput", "from divergent.search import outcomes_on",
                             comparison[0]) + "\n"
        + "HERE = Path(__file__).resolve().parent\n"
        + "PROGRAMS = [\n" + "".join(f"    {spec},\n" for spec in specs) + "]\n"
        + "OPTIONS = {" + ", ".join(options) + "}\n"
        + f"INPUT = {text!r}\n\n\n"
        + (f"def test_{function}_programs_agree(monkeypatch):\n"
           f"    monkeypatch.chdir(HERE / {relative_path(workdir, directory)!r})  # they ran from there\n"
           if workdir is not None else f"def test_{function}_programs_agree():\n")
        + "    item = TextInput(INPUT)\n"
        + "    outcomes = outcomes_on(PROGRAMS, item, **OPTIONS)\n"
        + f"    comparison = {comparison[1].format(checker=checker_label)}\n"
        + "    observation = comparison.observe(item, outcomes)\n"
        + "    assert not observation.divergent, \"\\n\".join(\n"
        + "        f\"{spec}: {outcome.kind.value} {outcome.describe()}\" for spec, outcome in zip(PROGRAMS, outcomes)\n"
        + "    )\n"
    )
