"""``divergent diff``: every function a change touches, before against after, on small git
repositories made here (a changed body, a constant in a sibling module, a rename, a signature, methods,
a pure refactoring), the plan's reasons, the outputs (JSON, table, GitHub annotations, HTML, tests)
and the stored, resumable run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.changes import plan_diff
from divergent.cli import app

BASE = {
    # the package imports its module: the worker imports the module through it (not a half-run copy)
    "pkg/__init__.py": "from .util import slugify\n",
    "pkg/consts.py": 'SEP = "-"\nLIMIT = 10\n',
    "pkg/util.py": '''\
from . import consts
from .consts import SEP


def slugify(text: str) -> str:
    return SEP.join(text.lower().split())


def clamp(n: int) -> int:
    return min(n, consts.LIMIT)


def double(n: int) -> int:
    return n * 2


def quadruple(n: int) -> int:
    return double(double(n))


def untouched(n: int) -> int:
    return n - 1
''',
    "pkg/shapes.py": '''\
from dataclasses import dataclass


class Box:
    def __init__(self, size: int) -> None:
        self.size = size

    def area(self, k: int) -> int:
        return self.size * self.size * k

    @staticmethod
    def unit(x: int) -> int:
        return x + 1

    @classmethod
    def named(cls, x: int) -> str:
        return cls.__name__ + str(x)


class Loose:
    def __init__(self, size):
        self.size = size

    def grow(self, k: int) -> int:
        return self.size + k


def make_loose():
    return Loose(3)
''',
    "tests/test_util.py": "from pkg.util import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
}


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                          cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


def _write(repo: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _write(root, BASE)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    monkeypatch.chdir(root)
    monkeypatch.setenv("DIVERGENT_HOME", str(tmp_path / "home"))
    return root


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    file = repo / path
    text = file.read_text()
    assert old in text, old
    file.write_text(text.replace(old, new))


def _commit(repo: Path, message: str = "change") -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", message)


def _diff(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["diff", "--budget-per-function", "2.5", "--json", *args])
    assert result.exit_code in (0, 1, 4), result.output
    return result.exit_code, json.loads(result.stdout)


def _by_name(document: dict) -> dict[str, dict]:
    return {record["function"]: record for record in document["functions"]}


# -- the plan (no search) --------------------------------------------------------------------------


def test_a_constant_in_a_sibling_module_reaches_its_readers_through_both_import_forms(repo: Path) -> None:
    _edit(repo, "pkg/consts.py", 'SEP = "-"\nLIMIT = 10', 'SEP = "_"\nLIMIT = 12')
    plan = plan_diff()
    why = {f.qualname: f.why for f in plan.functions}
    assert set(why) == {"slugify", "clamp"}  # nothing else reads them; untouched functions are only counted
    assert why["slugify"] == "reaches pkg.consts:SEP (changed) via pkg.util:SEP"  # from .consts import SEP
    assert why["clamp"] == "reaches pkg.consts:LIMIT (changed)"  # consts.LIMIT
    assert plan.unchanged > 5


def test_a_callee_s_change_reaches_its_callers_and_tests_are_counted_not_compared(repo: Path) -> None:
    _edit(repo, "pkg/util.py", "return n * 2", "return n + n")
    plan = plan_diff()
    why = {f.qualname: f.why for f in plan.functions}
    assert why == {"double": "its code changed", "quadruple": "reaches pkg.util:double (changed)"}
    assert plan.tests == 1  # tests/test_util.py's test_double reads double: counted, not compared


def test_paths_after_the_revisions_limit_what_is_reported(repo: Path) -> None:
    _edit(repo, "pkg/util.py", "return n * 2", "return n + n")
    _edit(repo, "pkg/shapes.py", "return x + 1", "return x + 2")
    assert {f.qualname for f in plan_diff(paths=["pkg/shapes.py"]).functions} == {"Box.unit"}
    assert {f.qualname for f in plan_diff(paths=["pkg"]).functions} == {"double", "quadruple", "Box.unit"}


def test_a_docstring_or_comment_is_no_change(repo: Path) -> None:
    _edit(repo, "pkg/util.py", "def double(n: int) -> int:\n", 'def double(n: int) -> int:\n    """Twice n."""  # x\n')
    assert plan_diff().functions == ()


def test_methods_are_called_through_their_class_or_skipped_with_the_reason(repo: Path) -> None:
    _edit(repo, "pkg/shapes.py", "self.size + k", "k + self.size")
    _edit(repo, "pkg/shapes.py", "self.size * self.size * k", "self.size ** 2 * k")
    _edit(repo, "pkg/shapes.py", "return x + 1", "return 1 + x")
    _edit(repo, "pkg/shapes.py", "cls.__name__ + str(x)", "f'{cls.__name__}{x}'")
    planned = {f.qualname: f for f in plan_diff().functions}
    assert planned["Box.unit"].status == "check" and planned["Box.unit"].reason == "static method"
    assert planned["Box.named"].reason == "class method"
    assert planned["Box.area"].reason == "instance method, instances built from Box's annotations"
    assert [p.name for p in planned["Box.area"].new.signature.parameters] == ["size", "k"]
    assert planned["Loose.grow"].status == "skipped"
    assert "cannot be built from its annotations (size unannotated)" in planned["Loose.grow"].reason
    assert "--factory Loose=MODULE:CALLABLE" in planned["Loose.grow"].reason
    from divergent.changes import parse_factories

    with_factory = {f.qualname: f for f in plan_diff(factories=parse_factories(["Loose=pkg.shapes:make_loose"])).functions}
    assert with_factory["Loose.grow"].status == "check"
    assert with_factory["Loose.grow"].reason == "instance method, instances from pkg.shapes:make_loose()"


# -- the command, on each kind of change ----------------------------------------------------------


def test_a_changed_body_is_flagged_with_its_counterexample_and_check_s_fields(repo: Path) -> None:
    _edit(repo, "pkg/util.py", "return min(n, consts.LIMIT)", "return min(n, consts.LIMIT - 1)")
    code, document = _diff()
    assert code == 1
    record = _by_name(document)["pkg/util.py:clamp"]
    assert record["status"] == "changed" and record["verdict"] == "divergent"
    assert record["counterexample"]["outcomes"][0]["value"] != record["counterexample"]["outcomes"][1]["value"]
    # the fields of check --json, with the diff's own
    assert {"verdict", "counterexample", "classes", "engines", "inputs", "exit_reason", "implementations"} <= set(record)
    assert record["implementations"] == ["HEAD:pkg/util.py:clamp", "pkg/util.py:clamp"]
    assert (record["file"], record["line"], record["why"]) == ("pkg/util.py", 9, "its code changed")
    assert document["exit_code"] == 1 and document["summary"]["changed"] == 1


def test_a_constant_changed_in_a_sibling_module_changes_its_reader_between_two_commits(repo: Path) -> None:
    _edit(repo, "pkg/consts.py", 'SEP = "-"', 'SEP = "_"')
    _commit(repo)
    code, document = _diff("HEAD~1..HEAD", "--", "pkg/util.py")
    assert code == 1
    record = _by_name(document)["pkg/util.py:slugify"]
    assert record["status"] == "changed"
    assert record["implementations"] == ["HEAD~1:pkg/util.py:slugify", "HEAD:pkg/util.py:slugify"]
    assert (document["old"]["name"], document["new"]["name"]) == ("HEAD~1", "HEAD")


def test_a_renamed_function_is_followed_and_a_pure_refactoring_exits_0(repo: Path) -> None:
    _edit(repo, "pkg/util.py", "def double(n: int) -> int:\n    return n * 2",
          "def twice(n: int) -> int:\n    return n * 2")
    _edit(repo, "pkg/util.py", "return double(double(n))", "m = twice(n)\n    return twice(m)")
    _edit(repo, "tests/test_util.py", "double", "twice")
    code, document = _diff()
    records = _by_name(document)
    assert records["pkg/util.py:twice"]["why"] == "renamed from double"
    assert records["pkg/util.py:twice"]["implementations"] == ["HEAD:pkg/util.py:double", "pkg/util.py:twice"]
    assert {r["status"] for r in records.values()} == {"same"}
    assert code == 0, document["functions"]


def test_a_changed_signature_is_skipped_unless_the_new_parameters_have_defaults(repo: Path) -> None:
    _edit(repo, "pkg/util.py", "def double(n: int) -> int:\n    return n * 2",
          "def double(n: int, times: int = 2) -> int:\n    return n * times")
    _edit(repo, "pkg/util.py", "def untouched(n: int) -> int:", "def untouched(n: int, k: int) -> int:")
    code, document = _diff("--", "pkg/util.py")
    records = _by_name(document)
    assert records["pkg/util.py:double"]["status"] == "same"
    assert records["pkg/util.py:double"]["note"] == ("compared on the parameters both take; times left to "
                                                       "their defaults")
    skipped = records["pkg/util.py:untouched"]
    assert skipped["status"] == "skipped" and skipped["verdict"] is None
    assert skipped["note"] == skipped["reason"] == "signature changed: (n: int) → (n: int, k: int); k has no default"
    assert code == 4  # nothing changed, one function could not be judged


def test_methods_changed_behaviour_is_found_through_their_class(repo: Path) -> None:
    _edit(repo, "pkg/shapes.py", "return x + 1", "return x + 2")
    _edit(repo, "pkg/shapes.py", "self.size * self.size * k", "self.size * k")
    code, document = _diff("--factory", "Loose=pkg.shapes:make_loose")
    records = _by_name(document)
    assert code == 1
    assert records["pkg/shapes.py:Box.unit"]["status"] == "changed"
    area = records["pkg/shapes.py:Box.area"]
    assert area["status"] == "changed"
    size, k = area["counterexample"]["args"]
    assert size * size * k != size * k


# -- outputs -------------------------------------------------------------------------------------


def test_table_github_annotations_html_and_emitted_tests(repo: Path, tmp_path: Path) -> None:
    _edit(repo, "pkg/util.py", "return min(n, consts.LIMIT)", "return min(n, consts.LIMIT - 1)")
    _edit(repo, "pkg/shapes.py", "self.size + k", "k + self.size")
    tests = tmp_path / "emitted"
    tests.mkdir()
    html = tmp_path / "diff.html"
    result = CliRunner().invoke(app, ["diff", "--budget-per-function", "2.5", "--format", "github", "--emit-test",
                                      str(tests), "--html", str(html), "--", "pkg"])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    warning = next(line for line in lines if line.startswith("::warning "))
    assert warning.startswith("::warning file=pkg/util.py,line=9,title=divergent%3A clamp changed behaviour::clamp(")
    assert any(line.startswith("::notice file=pkg/shapes.py,line=") and "not judged" in line for line in lines)
    assert max(len(line) for line in lines if not line.startswith("::")) <= 80
    assert "pkg/util.py:clamp" in result.stdout and "CHANGED" in result.stdout
    assert "Loose.grow" in result.stdout and "skipped" in result.stdout
    page = html.read_text()
    assert "pkg/util.py:clamp" in page and 'id="counterexample-' in page and "Loose.grow" in page
    [emitted] = tests.glob("test_diff_*.py")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(emitted)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout  # fails while the sides differ


def test_a_stored_diff_resumes_with_what_it_finished(repo: Path, tmp_path: Path) -> None:
    _edit(repo, "pkg/util.py", "return n * 2", "return n + n")
    db = tmp_path / "store.sqlite3"
    first = CliRunner().invoke(app, ["diff", "--budget-per-function", "1", "--db", str(db), "--json"])
    assert first.exit_code == 0, first.output
    document = json.loads(first.stdout)
    assert document["run"] and document["summary"]["same"] == 2
    second = CliRunner().invoke(app, ["diff", "--budget-per-function", "1", "--db", str(db), "--json"])
    again = json.loads(second.stdout)
    assert again["run"] == document["run"]
    # nothing ran again: each function's report is the stored one
    assert [r["executions"] for r in again["functions"]] == [r["executions"] for r in document["functions"]]
    assert again["seconds"] < 1.0
    # divergent report shows it again, as every stored run
    shown = CliRunner().invoke(app, ["report", document["run"], "--db", str(db), "--json"])
    assert shown.exit_code == 0, shown.output
    assert [r["status"] for r in json.loads(shown.stdout)["functions"]] == ["same", "same"]
    listed = CliRunner().invoke(app, ["report", "--db", str(db)])
    assert "HEAD → work tree" in listed.output


def test_a_clean_work_tree_has_nothing_to_compare_and_bad_input_is_an_error_before_any_search(
        repo: Path, tmp_path: Path) -> None:
    clean = CliRunner().invoke(app, ["diff", "--budget-per-function", "1"])
    assert clean.exit_code == 0 and "0 changed, 0 same" in clean.output
    for args, message in ((["nosuchrev"], "bad git revision"), (["--format", "xml"], "choose table or github"),
                          (["--factory", "Loose"], "expected CLASS=MODULE:CALLABLE"),
                          (["--emit-test", str(tmp_path / "none")], "no such directory"),
                          (["a", "b", "c"], "diff compares two sides"),
                          (["--require", "n > 0"], "a diff checks many functions")):
        result = CliRunner().invoke(app, ["diff", *args])
        assert result.exit_code == 2 and message in result.output, (args, result.output)


def test_the_python_api_plans_and_runs_in_one_call(repo: Path) -> None:
    import divergent
    from divergent.changes import DiffSettings

    _edit(repo, "pkg/shapes.py", "return x + 1", "return x + 2")
    result = divergent.diff(settings=DiffSettings(budget_per_function=2.5))
    assert [(r.function.qualname, r.status) for r in result.results] == [("Box.unit", "changed")]
    assert result.exit_code == 1 and result.changed[0].counterexample().startswith("Box_unit(")


def test_a_module_the_build_generates_is_lent_to_the_revisions(repo: Path) -> None:
    # setuptools_scm's way: the package imports a version module git ignores, which only the work tree has
    _write(repo, {".gitignore": "pkg/_version.py\n", "pkg/_version.py": "VERSION = '1.0'\n",
                  "pkg/__init__.py": "from ._version import VERSION\nfrom .util import slugify\n"})
    _commit(repo, "versioned")
    _edit(repo, "pkg/consts.py", 'SEP = "-"', 'SEP = "_"')
    _commit(repo)
    code, document = _diff("HEAD~1..HEAD")
    # pkg/util.py imports its package (from . import consts), which imports pkg._version
    assert code == 1 and _by_name(document)["pkg/util.py:slugify"]["status"] == "changed"
    assert document["notes"] == [f"{side}: pkg/_version.py is not in the revision (git ignores it): the work "
                                 "tree's copy is used" for side in ("HEAD~1", "HEAD")]
