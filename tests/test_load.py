"""Tests of divergent.load and divergent.annotations: loading without running anything."""

from __future__ import annotations

import ast
import collections
import collections.abc
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import typing
from pathlib import Path

import pytest

from divergent.annotations import analyze_annotation, resolve_annotation
from divergent.datasets import default_data_dir
from divergent.errors import InvalidArgument, LoadError, MissingSeeds, SignatureMismatch
from divergent.load import (
    Seeds,
    annotation_warnings,
    check_generatable,
    common_signature,
    evaluate_literal,
    fit_seeds,
    load_callable,
    load_implementation,
    load_source,
    parse_target,
    seeds_from_asserts,
    seeds_from_docstring,
    seeds_from_file,
)
from divergent.programs import Parameter, ParameterKind, Signature
from divergent.records import Input

FIXTURES = Path(__file__).parent / "fixtures" / "load"
HUMANEVAL = (default_data_dir() or Path("/nonexistent")) / "HumanEval" / "data" / "human-eval-v2-20210705.jsonl"


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def args_of(seeds: list[Input]) -> list[tuple]:
    return [seed.args for seed in seeds]


# ---------------------------------------------------------------------------------------------
# The annotation resolver


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("int", int),
        ("float", float),
        ("complex", complex),
        ("bytes", bytes),
        ("bytearray", bytearray),
        ("object", object),
        ("None", type(None)),
        ("NoneType", type(None)),
        ("list[int]", list[int]),
        ("List[int]", list[int]),
        ("typing.List[int]", list[int]),
        ("t.Dict[str, int]", dict[str, int]),
        ("Dict[str, List[Tuple[int, ...]]]", dict[str, list[tuple[int, ...]]]),
        ("tuple[int, ...]", tuple[int, ...]),
        ("Tuple[int, str]", tuple[int, str]),
        ("tuple[()]", tuple[()]),
        ("Set[int]", set[int]),
        ("FrozenSet[str]", frozenset[str]),
        ("frozenset[int]", frozenset[int]),
        ("Optional[int]", int | None),
        ("int | None", int | None),
        ("Union[int, str, None]", int | str | None),
        ("list[int] | dict[str, float] | None", list[int] | dict[str, float] | None),
        ("Any", typing.Any),
        ("typing.Any", typing.Any),
        ("Sequence[int]", collections.abc.Sequence[int]),
        ("typing.Mapping[str, int]", collections.abc.Mapping[str, int]),
        ("collections.abc.Iterable[str]", collections.abc.Iterable[str]),
        ("Iterator[int]", collections.abc.Iterator[int]),
        ("abc.Set[int]", collections.abc.Set[int]),
        ("Callable[[int, str], bool]", collections.abc.Callable[[int, str], bool]),
        ("Callable[..., int]", collections.abc.Callable[..., int]),
        ("Literal[1, -2, 'a', b'x', None, True]", typing.Literal[1, -2, "a", b"x", None, True]),
        ("Deque[int]", collections.deque[int]),
        ("Annotated[int, some_call()]", int),
        ("type[int]", type[int]),
        ("'List[int]'", list[int]),
        ("List['int']", list[int]),
        (
            "Dict[str, List[Dict[str, Optional[Tuple[int, ...]]]]]",
            dict[str, list[dict[str, tuple[int, ...] | None]]],
        ),
    ],
)
def test_resolver_understands_common_forms(source: str, expected: object) -> None:
    resolved = analyze_annotation(source)
    assert resolved.value == expected
    assert resolved.complete, resolved.unresolved


def test_resolver_accepts_ast_nodes_and_raw_strings() -> None:
    node = ast.parse("def f(x: 'Optional[List[int]]'): pass").body[0].args.args[0].annotation  # type: ignore[attr-defined]
    assert resolve_annotation(node) == list[int] | None
    assert resolve_annotation(ast.parse("int | str", mode="eval").body) == int | str


def test_equivalent_spellings_resolve_equal() -> None:
    assert resolve_annotation("List[int]") == resolve_annotation("list[int]")
    assert resolve_annotation("Optional[Dict[str, int]]") == resolve_annotation("dict[str, int] | None")
    assert resolve_annotation("typing.Sequence[int]") == resolve_annotation("collections.abc.Sequence[int]")


@pytest.mark.parametrize(
    ("source", "unknown"),
    [
        ("np.ndarray", "np.ndarray"),
        ("MyClass", "MyClass"),
        ("MyBox[int]", "MyBox"),
        ("Literal[Color.RED]", "Literal[Color.RED]"),
        ("Dict[int]", "Dict[int]"),
        ("int[str]", "int[str]"),
        ("'[broken'", "'[broken'"),
        ("lambda: 1", "lambda: 1"),
    ],
)
def test_unknown_names_become_any_and_are_reported(source: str, unknown: str) -> None:
    resolved = analyze_annotation(source)
    assert resolved.value is typing.Any
    assert resolved.unresolved == (unknown,)
    assert not resolved.complete


def test_unknown_parts_inside_known_generics_are_any() -> None:
    resolved = analyze_annotation("list[pd.DataFrame] | None")
    assert resolved.value == list[typing.Any] | None
    assert resolved.unresolved == ("pd.DataFrame",)


def test_annotation_code_is_never_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    marker = tmp_path / "marker"
    hostile = f"__import__('os').system('touch {marker}')"
    resolved = analyze_annotation(hostile)
    assert resolved.value is typing.Any
    assert len(resolved.unresolved) == 1 and resolved.unresolved[0].startswith("__import__('os').system(")
    # also through a string annotation and through a whole file
    assert resolve_annotation(repr(hostile)) is typing.Any
    write(tmp_path, "evil.py", f'def f(x: {hostile}, y: "{hostile}") -> {hostile}:\n    return x\n')
    impl = load_implementation("evil.py", cwd=tmp_path)
    assert [p.annotation for p in impl.signature.parameters] == [typing.Any, typing.Any]
    assert impl.signature.parameters[0].annotation_source == hostile
    assert calls == []
    assert not marker.exists()


def test_absurdly_nested_annotation_does_not_crash() -> None:
    assert resolve_annotation("List[" * 500 + "int" + "]" * 500) is typing.Any
    assert resolve_annotation("'" + "x" * 20_000 + "'") is typing.Any


# ---------------------------------------------------------------------------------------------
# Specs


def test_parse_target_shapes(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "def f(x): return x\n")
    write(tmp_path, "odd:name.py", "def f(x): return x\n")
    assert parse_target("a.py", cwd=tmp_path).kind == "path"
    target = parse_target("a.py:f", cwd=tmp_path)
    assert (target.kind, target.path, target.function) == ("path", "a.py", "f")
    assert parse_target("a.py", function="f", cwd=tmp_path).function == "f"
    target = parse_target("pkg.sub:slugify", cwd=tmp_path)
    assert (target.kind, target.module, target.function) == ("module", "pkg.sub", "slugify")
    target = parse_target("HEAD~1:pkg/util.py:slugify", cwd=tmp_path)
    assert (target.kind, target.revision, target.path, target.function) == (
        "git",
        "HEAD~1",
        "pkg/util.py",
        "slugify",
    )
    target = parse_target("main:util.py", function="g", cwd=tmp_path)
    assert (target.kind, target.revision, target.path, target.function) == ("git", "main", "util.py", "g")
    # a path that exists wins, even with a colon in it
    target = parse_target("odd:name.py:f", cwd=tmp_path)
    assert (target.kind, target.path, target.function) == ("path", "odd:name.py", "f")
    assert parse_target("odd:name.py", cwd=tmp_path).kind == "path"
    # a missing file is still a path (the loader then says "no such file")
    assert parse_target("missing.py:f", cwd=tmp_path).kind == "path"


def test_parse_target_rejects_conflicts_and_bad_names(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "def f(x): return x\n")
    with pytest.raises(InvalidArgument, match="names function 'f' but --function 'g'"):
        parse_target("a.py:f", function="g", cwd=tmp_path)
    with pytest.raises(LoadError, match="top-level functions"):
        parse_target("a.py:Klass.method", cwd=tmp_path)
    with pytest.raises(LoadError, match="not a function name"):
        parse_target("a.py:1f", cwd=tmp_path)
    with pytest.raises(InvalidArgument):
        parse_target("  ", cwd=tmp_path)


# ---------------------------------------------------------------------------------------------
# Loading files


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    write(tmp_path, "broken.py", "import os\n\ndef f(x:\n    return x\n")
    with pytest.raises(LoadError) as error:
        load_implementation("broken.py", cwd=tmp_path)
    assert str(error.value).startswith("broken.py:3: syntax error: ")
    assert "was never closed" in str(error.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match=re.escape("nope.py: no such file")):
        load_implementation("nope.py:f", cwd=tmp_path)


def test_missing_function_lists_the_existing_ones(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "def f(x): ...\ndef g(x): ...\nclass C:\n    def h(self): ...\n")
    with pytest.raises(LoadError) as error:
        load_implementation("a.py:h", cwd=tmp_path)
    assert str(error.value) == "a.py has no function 'h'; it defines: f, g"


def test_no_function_at_all(tmp_path: Path) -> None:
    write(tmp_path, "empty.py", "X = 1\n")
    with pytest.raises(LoadError, match=re.escape("empty.py defines no top-level function")):
        load_implementation("empty.py", cwd=tmp_path)


def test_several_functions_are_ambiguous(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "def f(x): ...\ndef g(x): ...\n")
    with pytest.raises(LoadError) as error:
        load_implementation("a.py", cwd=tmp_path)
    assert str(error.value) == "ambiguous: a.py defines f, g; pass --function or a.py:NAME"
    assert load_implementation("a.py", function="g", cwd=tmp_path).entry_point == "g"


def test_single_function_is_the_default(tmp_path: Path) -> None:
    write(
        tmp_path,
        "only.py",
        """\
        import math

        LIMIT = 3

        def clamp(value: int, low: int = 0, *rest: int, high: int = LIMIT, **options) -> int:
            return max(low, min(value, high))
        """,
    )
    impl = load_implementation("only.py", cwd=tmp_path)
    assert impl.entry_point == "clamp"
    assert impl.label == impl.origin == "only.py"
    assert impl.path == str(tmp_path / "only.py")
    assert impl.module_name == "only"
    assert impl.sys_path == (str(tmp_path),)
    assert "LIMIT = 3" in impl.source
    kinds = [(p.name, p.kind, p.has_default, p.default_source) for p in impl.signature.parameters]
    assert kinds == [
        ("value", ParameterKind.POSITIONAL_OR_KEYWORD, False, None),
        ("low", ParameterKind.POSITIONAL_OR_KEYWORD, True, "0"),
        ("rest", ParameterKind.VAR_POSITIONAL, False, None),
        ("high", ParameterKind.KEYWORD_ONLY, True, "LIMIT"),
        ("options", ParameterKind.VAR_KEYWORD, False, None),
    ]
    assert impl.signature.parameters[0].annotation is int
    assert impl.signature.parameters[4].annotation is None
    assert impl.signature.return_annotation_source == "int"
    assert (
        str(impl.signature) == "(value: int, low: int = 0, *rest: int, high: int = LIMIT, **options) -> int"
    )


def test_positional_only_and_label(tmp_path: Path) -> None:
    write(tmp_path, "p.py", "def f(a, b=2, /, c=3): ...\n")
    impl = load_implementation("p.py", label="mine", cwd=tmp_path)
    assert impl.label == "mine"
    assert [p.kind for p in impl.signature.parameters] == [
        ParameterKind.POSITIONAL_ONLY,
        ParameterKind.POSITIONAL_ONLY,
        ParameterKind.POSITIONAL_OR_KEYWORD,
    ]
    assert [p.has_default for p in impl.signature.parameters] == [False, True, True]


def test_conditional_definitions_and_lambda_assignments_count(tmp_path: Path) -> None:
    write(
        tmp_path,
        "c.py",
        """\
        import sys
        if sys.version_info >= (3, 11):
            def f(x): return 1
        else:
            def f(x): return 2
        try:
            from fast import g
        except ImportError:
            def g(x, y): return 3
        square = lambda n: n * n
        """,
    )
    with pytest.raises(LoadError, match="defines f, g, square;"):
        load_implementation("c.py", cwd=tmp_path)
    assert [p.name for p in load_implementation("c.py:square", cwd=tmp_path).signature.parameters] == ["n"]
    assert len(load_implementation("c.py:g", cwd=tmp_path).signature.parameters) == 2


def test_async_functions_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "async def f(x): return x\n")
    with pytest.raises(LoadError, match="async def"):
        load_implementation("a.py", cwd=tmp_path)


def test_package_module_gets_dotted_name_and_package_root(tmp_path: Path) -> None:
    write(tmp_path, "src/pkg/__init__.py", "")
    write(tmp_path, "src/pkg/sub/__init__.py", "")
    write(
        tmp_path,
        "src/pkg/sub/util.py",
        "from ..helpers import lower\n\ndef slugify(text: str) -> str:\n    return lower(text)\n",
    )
    write(tmp_path, "src/pkg/helpers.py", "def lower(t): return t.lower()\n")
    impl = load_implementation("src/pkg/sub/util.py", cwd=tmp_path)
    assert impl.module_name == "pkg.sub.util"
    assert impl.sys_path == (str(tmp_path / "src"),)
    # the package's own __init__ loads as the package
    write(tmp_path, "src/pkg/sub/__init__.py", "def init_function(x): return x\n")
    init = load_implementation("src/pkg/sub/__init__.py", cwd=tmp_path)
    assert (init.module_name, init.sys_path) == ("pkg.sub", (str(tmp_path / "src"),))
    # a directory whose name is not an identifier ends the package
    write(tmp_path, "my-project/__init__.py", "")
    write(tmp_path, "my-project/tool.py", "def t(x): return x\n")
    tool = load_implementation("my-project/tool.py", cwd=tmp_path)
    assert (tool.module_name, tool.sys_path) == ("tool", (str(tmp_path / "my-project"),))
    # a file name that is not a module name still gets a usable one
    write(tmp_path, "old-version.py", "def f(x): return x\n")
    assert load_implementation("old-version.py", cwd=tmp_path).module_name == "old_version"


def test_module_spec_is_located_without_importing(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    write(tmp_path, "modpkg_xq/__init__.py", f"open({str(marker)!r}, 'w').close()\n")
    write(
        tmp_path,
        "modpkg_xq/inner.py",
        f"open({str(marker)!r}, 'w').close()\n\ndef work(x: int) -> int:\n    return x\n",
    )
    impl = load_implementation("modpkg_xq.inner:work", cwd=tmp_path)
    assert impl.entry_point == "work"
    assert impl.module_name == "modpkg_xq.inner"
    assert impl.sys_path == (str(tmp_path),)
    assert impl.path == str(tmp_path / "modpkg_xq" / "inner.py")
    assert impl.origin == "modpkg_xq.inner:work"
    assert not marker.exists()
    assert "modpkg_xq" not in sys.modules
    with pytest.raises(LoadError, match="has no module nothing"):
        load_implementation("modpkg_xq.nothing:work", cwd=tmp_path)
    with pytest.raises(LoadError, match="no file or module named 'no_such_module_xq'"):
        load_implementation("no_such_module_xq:f", cwd=tmp_path)


# ---------------------------------------------------------------------------------------------
# Git revisions


def git(repo: Path, *arguments: str) -> str:
    completed = subprocess.run(
        [
            "git",
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
            *arguments,
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    # exports go to the temporary directory: keep this test's own, so pytest cleans them up
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/text.py", "def lower(t): return t.lower()\n")
    write(
        root,
        "pkg/util.py",
        "from .text import lower\n\ndef slugify(text: str) -> str:\n    return lower(text).replace(' ', '-')\n",
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    write(
        root,
        "pkg/util.py",
        "def slugify(text: str, sep: str = '_') -> str:\n    return text.replace(' ', sep)\n",
    )
    git(root, "commit", "-q", "-am", "second")
    return root


def test_git_revision_is_exported_and_loaded(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD~1")
    impl = load_implementation("HEAD~1:pkg/util.py:slugify", cwd=repo)
    assert impl.label == impl.origin == "HEAD~1:pkg/util.py:slugify"
    assert "from .text import lower" in impl.source
    assert [p.name for p in impl.signature.parameters] == ["text"]
    assert impl.module_name == "pkg.util"
    exported = Path(impl.sys_path[0])
    assert exported == Path(tempfile.gettempdir()) / "divergent-git" / first
    assert impl.path == str(exported / "pkg" / "util.py")
    # the whole tree is there, so the relative import resolves in the worker
    assert (exported / "pkg" / "text.py").is_file()
    # the export is reused, not redone
    (exported / "reused").touch()
    again = load_implementation("HEAD~1:pkg/util.py", cwd=repo)
    assert again.path == impl.path and again.entry_point == "slugify"
    assert (exported / "reused").exists()
    # HEAD is the second version; a path relative to a subdirectory works, as on disk
    current = load_implementation("HEAD:util.py:slugify", cwd=repo / "pkg")
    assert [p.name for p in current.signature.parameters] == ["text", "sep"]
    assert "def slugify(text: str, sep: str = '_')" in current.source


def test_bad_git_revision_reports_git_message(repo: Path) -> None:
    with pytest.raises(LoadError) as error:
        load_implementation("HEAD~7:pkg/util.py:slugify", cwd=repo)
    message = str(error.value)
    assert message.startswith("HEAD~7:pkg/util.py:slugify: bad git revision 'HEAD~7': ")
    assert "HEAD~7" in message.split(": ", 2)[2]


def test_missing_file_at_revision(repo: Path) -> None:
    with pytest.raises(LoadError, match=re.escape("nothere.py does not exist at revision HEAD")):
        load_implementation("HEAD:pkg/nothere.py:f", cwd=repo)


# ---------------------------------------------------------------------------------------------
# Live functions (the Python API)


@pytest.fixture
def geometry(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(FIXTURES / "callables"))
    import pkgc.geometry

    return pkgc.geometry


def test_load_callable_module_function(geometry) -> None:
    impl = load_callable(geometry.area)
    assert impl.entry_point == "area"
    assert impl.path == str(FIXTURES / "callables" / "pkgc" / "geometry.py")
    assert impl.module_name == "pkgc.geometry"
    assert impl.sys_path == (str(FIXTURES / "callables"),)
    assert impl.label == "geometry.py:area"
    assert impl.signature.parameters[0].annotation is float
    # a decorated (wrapped) function is found through __wrapped__
    cached = load_callable(geometry.cached_area, label="cached")
    assert (cached.entry_point, cached.module_name, cached.label) == (
        "cached_area",
        "pkgc.geometry",
        "cached",
    )


def test_load_callable_nested_function_travels_as_source() -> None:
    def add_one(x: int) -> int:
        """Adds one."""
        return x + 1

    impl = load_callable(add_one)
    assert impl.path is None
    assert impl.entry_point == "add_one"
    assert impl.source.startswith("def add_one(x: int) -> int:")
    assert impl.signature.parameters[0].annotation is int
    assert impl.label.endswith("<locals>.add_one")


def test_load_callable_brings_the_imports_a_nested_function_needs() -> None:
    def hypotenuse(a: float, b: float) -> float:
        return math.sqrt(a * a + b * b)

    impl = load_callable(hypotenuse)
    assert impl.source.startswith("import math\n\ndef hypotenuse(a: float, b: float) -> float:\n")
    assert impl.entry_point == "hypotenuse"

    def tell(where: Path = Path("."), ratio: float = math.pi) -> Local:  # noqa: F821 - never defined
        return where

    impl = load_callable(tell)
    header = "from __future__ import annotations\nimport math\nfrom pathlib import Path\n\n"
    assert impl.source.startswith(header + "def tell(")
    assert [p.annotation for p in impl.signature.parameters] == [typing.Any, float]


def test_load_callable_allows_recursion_but_not_closures() -> None:
    def factorial(n: int) -> int:
        return 1 if n <= 1 else n * factorial(n - 1)

    assert load_callable(factorial).entry_point == "factorial"

    offset = 3

    def shifted(x: int) -> int:
        return x + offset

    with pytest.raises(LoadError, match="closure over offset"):
        load_callable(shifted)


def test_load_callable_refuses_unknown_module_globals() -> None:
    def uses_helper(x):
        return write(x, "", "")

    with pytest.raises(LoadError, match=r"uses the name\(s\) write from outside the function"):
        load_callable(uses_helper)


def test_load_callable_lambdas() -> None:
    pair = [lambda x: x + 1, lambda x: x * 2]  # two on one line: each is found by its position
    first, second = (load_callable(f) for f in pair)
    assert first.source == "f = lambda x: x + 1\n"
    assert second.source == "f = lambda x: x * 2\n"
    assert first.entry_point == "f"
    square = lambda n: n * n  # noqa: E731 - a named lambda keeps its name
    assert load_callable(square).entry_point == "square"


def test_load_callable_refuses_builtins_and_methods() -> None:
    with pytest.raises(LoadError, match="builtin or C function"):
        load_callable(len)
    with pytest.raises(LoadError, match="builtin or C function"):
        load_callable(str.lower)

    class Box:
        def get(self) -> int:
            return 1

    with pytest.raises(LoadError, match="bound method"):
        load_callable(Box().get)
    with pytest.raises(LoadError, match="not a Python function"):
        load_callable(Box)


# ---------------------------------------------------------------------------------------------
# Source strings


def test_load_source() -> None:
    impl = load_source(
        "def helper(x): ...\ndef solve(a: list[int]) -> int:\n    return len(a)\n",
        function="solve",
        label="sample 1",
    )
    assert (impl.entry_point, impl.label, impl.path) == ("solve", "sample 1", None)
    assert impl.signature.parameters[0].annotation == list[int]
    with pytest.raises(LoadError, match="ambiguous: sample 2 defines a, b"):
        load_source("def a(): ...\ndef b(): ...\n", function=None, label="sample 2")
    with pytest.raises(LoadError, match="sample 3:1: syntax error"):
        load_source("def (:\n", function=None, label="sample 3")


# ---------------------------------------------------------------------------------------------
# Common signature


def impl_of(source: str, label: str):
    return load_source(source, function=None, label=label)


def test_signature_mismatch_names_both_and_the_annotations() -> None:
    old = impl_of("def f(items: List[int], key: str): ...", "old.py:f")
    new = impl_of("def g(values: list[str], key: str): ...", "new.py:g")
    with pytest.raises(SignatureMismatch) as error:
        common_signature([old, new])
    assert str(error.value) == (
        "old.py:f and new.py:g annotate parameter 1 (items / values) differently: List[int] vs list[str]"
    )


def test_a_widened_annotation_takes_the_narrower_one() -> None:
    old = impl_of("def f(items: list) -> list: ...", "old.py:f")
    new = impl_of("from typing import Iterable\ndef f(items: Iterable) -> list: ...", "new.py:f")
    for order in ([old, new], [new, old]):
        (items,) = common_signature(order).parameters
        assert items.annotation_source == "list"  # inputs both accept
    with pytest.raises(SignatureMismatch):  # neither accepts all of the other's
        common_signature([impl_of("def f(x: int): ...", "a"), impl_of("def f(x: str): ...", "b")])


def test_annotated_parameter_wins_and_spellings_agree() -> None:
    bare = impl_of("def f(a, b, c=1, *, flag=False): ...", "bare")
    typed = impl_of(
        "def g(x: List[int], y, z: Optional[int] = None, *, flag: bool = True) -> int: ...", "typed"
    )
    modern = impl_of("def h(p: list[int], q: str, r: int | None = 2, *, flag: bool = False): ...", "modern")
    merged = common_signature([bare, typed, modern])
    assert [p.name for p in merged.parameters] == ["a", "b", "c", "flag"]
    assert [p.annotation_source for p in merged.parameters] == ["List[int]", "str", "Optional[int]", "bool"]
    assert merged.parameters[0].annotation == list[int]
    assert merged.parameters[3].kind is ParameterKind.KEYWORD_ONLY
    assert merged.return_annotation_source == "int"
    assert common_signature([bare]) == bare.signature


def test_shape_mismatches() -> None:
    two = impl_of("def f(a, b): ...", "two")
    with pytest.raises(SignatureMismatch, match="two takes 2 positional parameter"):
        common_signature([two, impl_of("def f(a): ...", "one")])
    with pytest.raises(SignatureMismatch, match="two requires 2 positional argument"):
        common_signature([two, impl_of("def f(a, b=1): ...", "defaulted")])
    with pytest.raises(SignatureMismatch, match="keyword-only parameters: key vs other"):
        common_signature([impl_of("def f(*, key): ...", "k1"), impl_of("def f(*, other): ...", "k2")])
    with pytest.raises(SignatureMismatch, match=r"accepts \*args"):
        common_signature([two, impl_of("def f(a, b, *more): ...", "star")])
    with pytest.raises(InvalidArgument):
        common_signature([])
    loose = common_signature([impl_of("def f(a, **kw): ...", "x"), impl_of("def f(a): ...", "y")])
    assert [p.kind for p in loose.parameters] == [ParameterKind.POSITIONAL_OR_KEYWORD]
    both = common_signature(
        [impl_of("def f(*a: int, **kw): ...", "x"), impl_of("def f(*b, **other: str): ...", "y")]
    )
    assert [(p.name, p.annotation_source) for p in both.parameters] == [("a", "int"), ("kw", "str")]


def test_unknown_annotations_compare_by_source() -> None:
    same = [impl_of("def f(a: np.ndarray): ...", "x"), impl_of("def f(a: np.ndarray): ...", "y")]
    assert common_signature(same).parameters[0].annotation_source == "np.ndarray"
    with pytest.raises(SignatureMismatch, match=re.escape("np.ndarray vs pd.Series")):
        common_signature([same[0], impl_of("def f(a: pd.Series): ...", "z")])
    assert annotation_warnings(common_signature(same)) == [
        "parameter a: np.ndarray has unknown part(s) np.ndarray; inputs for it are generated as if unannotated (Any)"
    ]


# ---------------------------------------------------------------------------------------------
# Seeds


SIGNATURE_2 = impl_of("def f(items, key): ...", "s").signature


def test_seeds_from_file() -> None:
    seeds = seeds_from_file(FIXTURES / "seeds_example.txt", SIGNATURE_2)
    assert isinstance(seeds, Seeds)
    values = args_of(seeds)
    assert values[:4] == [([3, 1, 2], "a"), ([], "b"), ([1], "c"), (set(), frozenset({1, 2}))]
    assert values[4][0][:2] == [-1, -2.5] and math.isnan(values[4][0][2])
    assert values[5] == ([1 + 2j, -1j, -math.inf], "e")
    assert len(values) == 6
    assert all(seed.how_generated == "seeds" and not seed.kwargs for seed in seeds)
    assert (seeds.wrong_arity, seeds.duplicates) == (1, 1)
    assert seeds.describe_dropped() == "1 seed dropped: wrong arity"


def test_single_parameter_lines_are_the_argument(tmp_path: Path) -> None:
    one = impl_of("def f(xs): ...", "one").signature
    path = write(tmp_path, "seeds.txt", "[1, 2]\n(1, 2)\nf((3, 4))\n'text'\nset()\n")
    assert args_of(seeds_from_file(path, one)) == [([1, 2],), ((1, 2),), ((3, 4),), ("text",), (set(),)]


def test_seed_file_errors_name_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "seeds.txt", "# fine\nf(1, 2)\n\nf(1, os.getcwd())\n")
    with pytest.raises(InvalidArgument, match=r"seeds.txt:4: not a seed \(only literal values"):
        seeds_from_file(path, SIGNATURE_2)
    path = write(tmp_path, "seeds.txt", "f(1, 2\n")
    with pytest.raises(InvalidArgument, match=re.escape("seeds.txt:1: not a seed")):
        seeds_from_file(path, SIGNATURE_2)
    with pytest.raises(InvalidArgument, match="cannot read seeds"):
        seeds_from_file(tmp_path / "absent.txt", SIGNATURE_2)


def test_arity_is_checked_against_the_signature() -> None:
    signature = impl_of("def f(a, b=0, *, c, d=1): ...", "s").signature
    candidates = [
        Input((1,), {"c": 2}),
        Input((1, 2), {"c": 3, "d": 4}),
        Input((), {"a": 5, "c": 6}),  # a by name becomes positional
        Input((1,), {}),  # c missing
        Input((1, 2, 3), {"c": 1}),  # too many
        Input((1,), {"a": 1, "c": 1}),  # a twice
        Input((1,), {"c": 1, "zzz": 1}),  # unknown keyword
    ]
    seeds = fit_seeds(candidates, signature)
    assert [(s.args, dict(s.kwargs)) for s in seeds] == [
        ((1,), {"c": 2}),
        ((1, 2), {"c": 3, "d": 4}),
        ((5,), {"c": 6}),
    ]
    assert seeds.wrong_arity == 4
    assert seeds.describe_dropped() == "4 seeds dropped: wrong arity"
    assert fit_seeds([Input((1, 2, 3, 4))], impl_of("def f(a, *rest): ...", "v").signature).wrong_arity == 0


def test_dedup_tells_types_apart() -> None:
    seeds = fit_seeds(
        [Input((1,)), Input((1.0,)), Input((True,)), Input((1,)), Input((math.nan,)), Input((math.nan,))],
        None,
    )
    assert [type(s.args[0]) for s in seeds] == [int, float, bool, float]
    assert seeds.duplicates == 2


def test_evaluate_literal_is_literal_only() -> None:
    assert evaluate_literal("float('nan')") != evaluate_literal("float('nan')")  # nan, not an error
    assert evaluate_literal("-3") == -3
    assert evaluate_literal("1-2j") == 1 - 2j
    assert evaluate_literal("frozenset([1, 2])") == frozenset({1, 2})
    assert evaluate_literal("dict(a=1)") == {"a": 1}
    assert evaluate_literal("math.inf") == math.inf
    assert evaluate_literal("Decimal('1.5')") == __import__("decimal").Decimal("1.5")
    for hostile in [
        "__import__('os').system('x')",
        "open('f')",
        "x",
        "2 ** 100",
        "bytes(10000000000)",
        "{[1]: 2}",
        "[*a]",
        "-'x'",
    ]:
        with pytest.raises(ValueError):
            evaluate_literal(hostile)


def test_seeds_from_docstring() -> None:
    impl = impl_of(
        '''\
def slugify(text: str, sep: str = "-") -> str:
    """Make a slug.

    >>> slugify("Hello World")
    'hello-world'
    >>> slugify('a b', sep='_')
    'a_b'
    >>> print(slugify('x y'))
    x-y
    >>> slugify(some_variable)
    >>> other('not', 'ours')
    >>> slugify("Hello World")
    'hello-world'
    """
    return text
''',
        "doc",
    )
    seeds = seeds_from_docstring(impl)
    assert [(s.args, dict(s.kwargs)) for s in seeds] == [
        (("Hello World",), {}),
        (("a b", "_"), {}),
        (("x y",), {}),
    ]
    assert seeds.duplicates == 1
    assert seeds_from_docstring(impl_of("def f(x): return x\n", "plain")) == []


ASSERTS = """
def check(candidate):
    assert candidate([1, 2], 3) == 4
    assert f([5], 6) == 4
    assert abs(f([1.5], 0.5) - 2.0) < 1e-6
    assert not f([], 0)
    assert f([0], -1)
    assert set(f([7, 7], 1)) == {1}
    assert math.isclose(candidate([2.5], 2), 1.0)
    assert f(x, 1) == 2
    assert f(f([1], 1), 1) == 3
    g([9], 9)
"""


def test_seeds_from_asserts_forms() -> None:
    seeds = seeds_from_asserts(ASSERTS, "f", signature=SIGNATURE_2)
    assert args_of(seeds) == [
        ([1, 2], 3),
        ([5], 6),
        ([1.5], 0.5),
        ([], 0),
        ([0], -1),
        ([7, 7], 1),
        ([2.5], 2),
        ([1], 1),
    ]
    # MBPP: a list of assert lines, not necessarily a program
    mbpp = "assert f([1], 2) == 3\nassert f([2], 3) == 4\nthis is not python"
    assert args_of(seeds_from_asserts(mbpp, "f")) == [([1], 2), ([2], 3)]
    assert seeds_from_asserts(mbpp, "f", signature=impl_of("def f(a): ...", "a").signature).wrong_arity == 2


def test_seeds_from_a_real_humaneval_test() -> None:
    if not HUMANEVAL.is_file():
        pytest.skip("HumanEval data is not available")
    with HUMANEVAL.open() as lines:
        task = json.loads(next(lines))
    assert task["task_id"] == "HumanEval/0"
    impl = load_source(
        task["prompt"] + task["canonical_solution"], function=task["entry_point"], label="HumanEval/0"
    )
    seeds = seeds_from_asserts(task["test"], task["entry_point"], signature=impl.signature)
    assert len(seeds) == 7
    assert seeds[0].args == ([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)
    assert seeds.wrong_arity == 0
    assert args_of(seeds_from_docstring(impl)) == [
        ([1.0, 2.0, 3.0], 0.5),
        ([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3),
    ]
    assert impl.signature.parameters[0].annotation == list[float]


# ---------------------------------------------------------------------------------------------
# Can inputs be generated at all?


def test_missing_seeds_message() -> None:
    signature = impl_of("def f(items, key: str, limit=3, *rest, **options): ...", "s").signature
    with pytest.raises(MissingSeeds) as error:
        check_generatable(signature, [])
    message = str(error.value)
    assert message.startswith("cannot generate inputs: parameter items has no type annotation")
    for hint in ("type annotations", "--seeds FILE", ">>> f(", "assert f("):
        assert hint in message
    two = impl_of("def f(a, b): ...", "s").signature
    with pytest.raises(MissingSeeds, match="parameters a, b have no type annotation"):
        check_generatable(two, [])
    check_generatable(two, [Input((1, 2))])
    check_generatable(impl_of("def f(a: int, b=1): ...", "s").signature, [])
    check_generatable(Signature(), [])


def test_seed_files_accept_assert_lines(tmp_path: Path) -> None:
    from divergent.load import seeds_from_file

    signature = Signature(parameters=(Parameter(name="w"), Parameter(name="h")))
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(
        'assert area(2.0, 3.0) == "6.00 m2"\n'
        "assert abs(area(1.5, 2) - 3.0) < 1e-9\n"
        "assert math.isclose(area(0.5, 4), 2.0)\n"
        "area(7, 8)\n"
    )
    assert [s.args for s in seeds_from_file(seeds, signature)] == [(2.0, 3.0), (1.5, 2), (0.5, 4), (7, 8)]
    seeds.write_text("assert area(x, 1) == 2\n")
    with pytest.raises(InvalidArgument, match=r"seeds.txt:1: no call with literal arguments"):
        seeds_from_file(seeds, signature)
