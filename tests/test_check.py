"""End to end: divergent.check, cluster, assert_equivalent, and the CLI contract."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import divergent
from divergent.clustering import cluster
from divergent.errors import InvalidArgument, LoadError, MissingSeeds, SignatureMismatch
from divergent.records import Budget, OutcomeKind, Verdict

ROOT = Path(__file__).resolve().parents[1]
FAST = {"engines": "seeds,mutation", "budget": Budget(seconds=10)}


def write(directory: Path, name: str, source: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def test_check_finds_and_shrinks_a_rare_boundary(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def clamp(n: int) -> int:\n    return min(max(n, 0), 100)\n")
    b = write(tmp_path, "b.py", "def clamp(n: int) -> int:\n    return n if 0 <= n < 100 else (0 if n < 0 else 99)\n")
    report = divergent.check([a, b], **FAST)
    assert report.verdict is Verdict.DIVERGENT
    cx = report.counterexample
    assert cx is not None and cx.call == "clamp(100)"
    assert [o.value for o in cx.outcomes] == [100, 100] or cx.outcomes[0].value != cx.outcomes[1].value
    assert report.classes == ((0,), (1,))


def test_equivalent_implementations_give_no_difference(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def total(xs: list[int]) -> int:\n    return sum(xs)\n")
    b = write(tmp_path, "b.py", "def total(xs: list[int]) -> int:\n    t = 0\n    for x in xs:\n        t += x\n    return t\n")
    report = divergent.check([a, b], engines="seeds,mutation,hypothesis", budget=Budget(seconds=3))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND
    assert report.counterexample is None and report.inputs > 100


def test_n_implementations_give_behaviour_classes(tmp_path: Path) -> None:
    sources = {
        "a.py": "def sign(x: int) -> int:\n    return (x > 0) - (x < 0)\n",
        "b.py": "def sign(x: int) -> int:\n    return 0 if x == 0 else (1 if x > 0 else -1)\n",
        "c.py": "def sign(x: int) -> int:\n    return 1 if x >= 0 else -1\n",
        "d.py": "def sign(x: int) -> int:\n    return (x > 0) - (x < 0) if x != 7 else 0\n",
    }
    specs = [write(tmp_path, name, source) + ":sign" for name, source in sources.items()]
    report = divergent.check(specs, **FAST)
    assert report.divergent and report.counterexample is not None
    # the first split is reported as the counterexample; the rest of the classes are refined after it
    assert sorted(report.classes) == [(0, 1), (2,), (3,)]
    assert len(report.splits) == 2
    assert {split.input.call("sign") for split in report.splits} >= {"sign(7)"}


def test_exceptions_and_mutation_count_as_differences(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def first(xs: list[int]) -> int:\n    return xs[0]\n")
    b = write(tmp_path, "b.py", "def first(xs: list[int]) -> int:\n    if not xs:\n        raise ValueError('empty')\n    return xs[0]\n")
    report = divergent.check([a, b], **FAST)
    assert report.divergent and report.counterexample is not None
    assert report.counterexample.call == "first([])"
    kinds = {o.exception.type_name for o in report.counterexample.outcomes if o.kind is OutcomeKind.RAISED}
    assert kinds == {"IndexError", "ValueError"}

    c = write(tmp_path, "c.py", "def top(xs: list[int]) -> list[int]:\n    xs.sort()\n    return xs[:1]\n")
    d = write(tmp_path, "d.py", "def top(xs: list[int]) -> list[int]:\n    return sorted(xs)[:1]\n")
    report = divergent.check([c, d], **FAST)
    assert report.divergent
    assert divergent.check([c, d], policy=divergent.EqualityPolicy(compare_mutation=False), **FAST).verdict is (
        Verdict.NO_DIFFERENCE_FOUND
    )


def test_each_versions_own_exception_class_is_the_same_type(tmp_path: Path) -> None:
    """Two versions of one module, imported under different names, each raise their own class of
    one name: the same behaviour (a class of a library module keeps its module in the name)."""
    source = (
        "class InvalidName(ValueError):\n    pass\n\n"
        "def canon(name: str) -> str:\n    if not name.isidentifier():\n        raise InvalidName(name)\n"
        "    return name.lower(){tail}\n"
    )
    a = write(tmp_path, "a.py", source.format(tail=""))
    b = write(tmp_path, "b.py", source.format(tail="  # reworded"))
    report = divergent.check([a, b], engines="seeds,mutation", budget=Budget(seconds=10, executions=400))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND, report.counterexample
    c = write(tmp_path, "c.py", source.format(tail="").replace("raise InvalidName(name)", "raise ValueError(name)"))
    report = divergent.check([a, c], **FAST)
    assert report.divergent and report.counterexample is not None
    kinds = {o.exception.type_name for o in report.counterexample.outcomes}
    assert kinds == {"InvalidName", "ValueError"}


def test_require_filters_inputs(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def root(n: int) -> int:\n    return int(n ** 0.5) if n >= 0 else -1\n")
    b = write(tmp_path, "b.py", "import math\ndef root(n: int) -> int:\n    return math.isqrt(n) if n < 10**6 else int(n ** 0.5)\n")
    report = divergent.check([a, b], require="0 <= n < 10**6", **FAST)
    assert not report.divergent
    assert divergent.check([a, b], **FAST).divergent


def test_nondeterminism_is_never_a_difference(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(x: int) -> int:\n    return x\n")
    b = write(tmp_path, "b.py", "import os\ndef f(x: int) -> int:\n    return x + (os.urandom(1)[0] % 2)\n")
    report = divergent.check([a, b], engines="seeds,mutation", budget=Budget(seconds=4))
    if report.divergent:
        # a run may be lucky and see the same bit twice; then the difference is real on re-run too
        assert report.counterexample is not None
    assert report.nondeterministic or report.divergent


def test_assert_equivalent_shows_the_counterexample() -> None:
    def old(s: str) -> str:
        return s.strip().lower()

    def new(s: str) -> str:
        return s.strip().casefold()

    with pytest.raises(AssertionError, match=r"old\('ß'\)|old\('[^']*'\)"):
        divergent.assert_equivalent(old, new, budget=8, engines="seeds,mutation,hypothesis")

    def same(s: str) -> str:
        return s.lower()

    def also_same(s: str) -> str:
        return str.lower(s)

    report = divergent.assert_equivalent(same, also_same, budget=1, engines="seeds,mutation")
    assert not report.divergent


def test_bad_input_errors(tmp_path: Path) -> None:
    good = write(tmp_path, "good.py", "def f(x: int) -> int:\n    return x\n")
    with pytest.raises(LoadError):
        divergent.check([good, write(tmp_path, "syntax.py", "def f(x: int) -> int\n    return x\n")])
    with pytest.raises(LoadError, match="f"):
        divergent.check([good, write(tmp_path, "other.py", "def g(x: int) -> int:\n    return x\n") + ":f"])
    with pytest.raises(SignatureMismatch):
        divergent.check([good, write(tmp_path, "two.py", "def f(x: int, y: int) -> int:\n    return x\n")])
    with pytest.raises(MissingSeeds, match="x"):
        divergent.check([write(tmp_path, "u1.py", "def f(x):\n    return x\n"),
                         write(tmp_path, "u2.py", "def f(x):\n    return x\n")])
    with pytest.raises(InvalidArgument, match="engine"):
        divergent.check([good, good], engines="nope")
    with pytest.raises(InvalidArgument, match="at least 2"):
        divergent.check([good])


def test_unannotated_with_seed_file(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(x, y):\n    return x + y\n")
    b = write(tmp_path, "b.py", "def f(x, y):\n    return y + x\n")
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("f('a', 'b')\n(1, 2)\n")
    report = divergent.check([a, b], seeds=[str(seeds)], **FAST)
    assert report.divergent  # string concatenation is not commutative
    assert report.counterexample is not None and isinstance(report.counterexample.input.args[0], str)


def test_cluster_partitions_and_picks_the_largest_class(tmp_path: Path) -> None:
    variants = {
        "s1.py": "def f(x: int) -> int:\n    return abs(x)\n",
        "s2.py": "def f(x: int) -> int:\n    return x if x >= 0 else -x\n",
        "s3.py": "def f(x: int) -> int:\n    return max(x, -x)\n",
        "s4.py": "def f(x: int) -> int:\n    return x\n",
        "s5.py": "def f(x: int) -> int:\n    return x if x > -5 else -x\n",
    }
    specs = [write(tmp_path, name, source) for name, source in variants.items()]
    result = cluster(specs, engines="seeds,mutation", budget=Budget(seconds=6))
    labels = result.implementations
    assert sorted(len(c) for c in result.classes) == [1, 1, 3]
    assert {labels[i].rsplit("/", 1)[-1] for i in result.largest} == {"s1.py", "s2.py", "s3.py"}
    assert not result.tied and len(result.splits) == 2


def test_divergent_cluster_stays_the_function_once_the_clustering_package_is_imported(tmp_path: Path) -> None:
    import divergent.clustering.semantic

    assert not isinstance(divergent.cluster, types.ModuleType)

    specs = [write(tmp_path, "a.py", "def f(x: int) -> int:\n    return x\n"),
             write(tmp_path, "b.py", "def f(x: int) -> int:\n    return -x\n")]
    result = divergent.cluster(specs, engines="seeds,mutation", budget=Budget(seconds=3))
    assert isinstance(result, divergent.Clustering) and len(result.classes) == 2


def test_git_revision_spec(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    run = lambda *args: subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("config", "user.email", "t@example.com")
    run("config", "user.name", "t")
    util = repo / "pkg" / "util.py"
    (repo / "pkg" / "__init__.py").write_text("")
    util.write_text("def slugify(s: str) -> str:\n    return '-'.join(s.lower().split())\n")
    run("add", ".")
    run("commit", "-qm", "one")
    util.write_text("def slugify(s: str) -> str:\n    return s.lower().replace(' ', '-')\n")
    run("commit", "-qam", "two")
    # the loader resolves paths against the working directory: run the CLI from inside the repo
    result = subprocess.run(
        [sys.executable, "-m", "divergent", "check", "HEAD~1:pkg/util.py:slugify", "pkg/util.py:slugify",
         "--engines", "seeds,mutation", "--budget", "8", "--json"],
        cwd=repo, capture_output=True, text=True, env=_env(), timeout=120,
    )
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["verdict"] == "divergent"


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "divergent", *args], cwd=cwd, capture_output=True, text=True, env=_env(), timeout=180
    )


def test_cli_json_contract_on_the_bundled_example() -> None:
    result = cli("check", "examples/old.py", "examples/new.py", "--function", "normalize", "--budget", "10",
                 "--engines", "seeds,mutation", "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["verdict"] == "divergent"
    assert set(data) >= {"verdict", "counterexample", "classes", "engine", "seconds", "executions"}
    cx = data["counterexample"]
    assert set(cx) >= {"call", "args", "kwargs", "outcomes"}
    assert cx["call"].startswith("normalize(")
    assert [o["impl"] for o in cx["outcomes"]] == ["examples/old.py", "examples/new.py"]
    assert all(o["kind"] in ("returned", "raised", "timeout", "crash") and "value" in o for o in cx["outcomes"])
    assert data["engine"] in ("seeds", "mutation")
    assert len(data["classes"]) == 2


def test_cli_exit_codes() -> None:
    same = cli("check", "examples/old.py", "examples/old.py", "-f", "normalize", "--budget", "5",
               "--engines", "seeds", "--json", "--min-inputs", "1")
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["verdict"] == "no-difference-found"
    # the one seed input is no evidence under the default floor: too few inputs, exit 4, and why
    thin = cli("check", "examples/old.py", "examples/old.py", "-f", "normalize", "--budget", "5",
               "--engines", "seeds", "--json")
    assert thin.returncode == 4, thin.stderr
    data = json.loads(thin.stdout)
    assert (data["verdict"], data["evidence"], data["min_inputs"]) == ("too-few-inputs", "none", 100)
    assert data["reason"].startswith("the engines ran out of new inputs (seeds exhausted: all 1 seed inputs used")
    missing = cli("check", "examples/old.py", "examples/nope.py", "-f", "normalize")
    assert missing.returncode == 2
    assert missing.stderr.startswith("divergent: error:") and len(missing.stderr.strip().splitlines()) == 1
    wrong_flag = cli("check", "examples/old.py", "examples/new.py", "--frobnicate")
    assert wrong_flag.returncode == 2
    bad_engine = cli("check", "examples/old.py", "examples/new.py", "-f", "normalize", "--engines", "magic", "--json")
    assert bad_engine.returncode == 2 and json.loads(bad_engine.stdout)["verdict"] == "error"


def test_cli_quiet_and_rich_output() -> None:
    quiet = cli("check", "examples/old.py", "examples/new.py", "-f", "normalize", "--budget", "10",
                "--engines", "seeds,mutation", "--quiet")
    assert quiet.returncode == 1
    assert "implementations differ on normalize(" in quiet.stdout
    rich = cli("check", "examples/old.py", "examples/new.py", "-f", "normalize", "--budget", "10",
               "--engines", "seeds,mutation")
    assert "Implementations differ" in rich.stdout and "def test_normalize_implementations_agree" in rich.stdout


def test_cli_cluster(tmp_path: Path) -> None:
    for i, body in enumerate(["return x * 2", "return x + x", "return x << 1", "return x * 3"]):
        (tmp_path / f"s{i}.py").write_text(f"def f(x: int) -> int:\n    {body}\n")
    result = cli("cluster", *[str(p) for p in sorted(tmp_path.glob("s*.py"))], "--function", "f",
                 "--budget", "5", "--engines", "seeds,mutation", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [c["size"] for c in data["classes"]] == [3, 1]
    assert data["pick"].endswith("s0.py") and data["tied"] is False
    assert data["splits"] and data["splits"][0]["call"].startswith("f(")
    text = cli("cluster", *[str(p) for p in sorted(tmp_path.glob("s*.py"))], "--budget", "5",
               "--engines", "seeds,mutation")
    assert "self-consistency pick" in text.stdout


def test_a_crashing_implementation_is_a_reported_difference(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(x: int) -> int:\n    return x\n")
    b = write(tmp_path, "b.py", "import ctypes\ndef f(x: int) -> int:\n    if x == 3:\n        ctypes.string_at(0)\n    return x\n")
    c = write(tmp_path, "c.py", "def f(x: int) -> int:\n    while x == 3:\n        pass\n    return x\n")
    report = divergent.check([a, b, c], engines="seeds,mutation", budget=Budget(seconds=15),
                             limits=divergent.Limits(timeout=0.5))
    assert report.divergent and report.counterexample is not None
    assert report.counterexample.call == "f(3)"
    kinds = [o.kind for o in report.counterexample.outcomes]
    assert kinds == [OutcomeKind.RETURNED, OutcomeKind.CRASH, OutcomeKind.TIMEOUT]
    assert "SIGSEGV" in report.counterexample.outcomes[1].detail


def test_constants_computed_when_the_module_loads_are_harvested(tmp_path: Path) -> None:
    source = (
        "import zlib\n"
        "KNOWN = frozenset(zlib.crc32(name.encode()) & 0xFFFFF for name in {names})\n"
        "def is_known(build: int) -> bool:\n"
        "    return build in KNOWN\n"
    )
    a = write(tmp_path, "a.py", source.format(names="('alpha', 'beta', 'gamma')"))
    b = write(tmp_path, "b.py", source.format(names="('alpha', 'beta')"))
    report = divergent.check([a, b], engines="seeds,mutation", budget=Budget(seconds=10))
    import zlib

    assert report.divergent and report.counterexample is not None
    assert report.counterexample.input.args == (zlib.crc32(b"gamma") & 0xFFFFF,)


SLOW = "def f(n: int) -> int:\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n"
FAST_SUM = "def f(n: int) -> int:\n    return n * (n - 1) // 2 if n > 0 else 0\n"


def test_a_slow_implementation_is_not_a_different_one(tmp_path: Path) -> None:
    slow, fast = write(tmp_path, "slow.py", SLOW), write(tmp_path, "fast.py", FAST_SUM)
    # Large n runs past the search's first, small per-call limit; re-run with the escalated one, the
    # slow implementation finishes with the same value: no difference.
    report = divergent.check([slow, fast], engines="seeds,mutation", budget=Budget(seconds=4),
                             require="n < 2 * 10**6")
    assert not report.divergent
    limits = divergent.Limits(timeout=0.5)
    inconclusive = divergent.EqualityPolicy(timeouts="inconclusive")
    report = divergent.check([slow, fast], engines="seeds,mutation", budget=Budget(seconds=3), limits=limits,
                             policy=inconclusive)
    assert not report.divergent
    assert any(note.startswith("inconclusive:") for note in report.notes)
    assert report.seconds < 3 + 0.5 + 5  # a call running at the deadline may finish; nothing more
    differ = divergent.EqualityPolicy(timeouts="differ")
    report = divergent.check([slow, fast], engines="seeds,mutation", budget=Budget(seconds=3), limits=limits,
                             policy=differ)
    assert report.divergent and report.counterexample is not None
    assert [o.kind for o in report.counterexample.outcomes] == [OutcomeKind.TIMEOUT, OutcomeKind.RETURNED]


def test_a_hang_where_the_other_returns_is_a_difference(tmp_path: Path) -> None:
    returns = write(tmp_path, "returns.py", "def f(n: int) -> int:\n    return n\n")
    hangs = write(tmp_path, "hangs.py", "def f(n: int) -> int:\n    while n < 0:\n        pass\n    return n\n")
    report = divergent.check([returns, hangs], engines="seeds,mutation", budget=Budget(seconds=4),
                             limits=divergent.Limits(timeout=0.5))
    assert report.divergent and report.counterexample is not None
    assert report.counterexample.input.args[0] < 0
    hang = report.counterexample.outcomes[1]
    assert hang.kind is OutcomeKind.TIMEOUT and hang.hang and "0.5 s" in hang.detail
    assert report.seconds < 4 + 0.5
    # The old rule: a timeout is never a difference.
    report = divergent.check([returns, hangs], engines="seeds,mutation", budget=Budget(seconds=2),
                             limits=divergent.Limits(timeout=0.5),
                             policy=divergent.EqualityPolicy(timeouts="inconclusive"))
    assert not report.divergent
    assert any(note.startswith("inconclusive:") for note in report.notes)


def test_shrinking_keeps_a_difference_in_values(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(xs: list[int]) -> int:\n    total = sum(xs)\n    xs.clear()\n    return total\n")
    b = write(tmp_path, "b.py", "def f(xs: list[int]) -> int:\n    return sum(xs) + (1 if len(xs) > 3 else 0)\n")
    report = divergent.check([a, b], seeds=[([1, 2, 3, 4],)], engines="seeds")
    assert report.counterexample is not None
    values = [o.value for o in report.counterexample.outcomes]
    assert values[0] != values[1], "shrinking must not turn a value difference into a mutation-only one"
    assert report.counterexample.call == "f([0, 0, 0, 0])"


def test_an_engine_asked_for_by_name_must_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from divergent.kinds.functions import FUNCTION_ENGINES

    monkeypatch.setitem(FUNCTION_ENGINES, "seeds", "divergent.engines.no_such_module:Engine")
    a = write(tmp_path, "a.py", "def f(x: int) -> int:\n    return x\n")
    with pytest.raises(InvalidArgument, match="cannot run"):
        divergent.check([a, a], engines="seeds,mutation", budget=1)
    report = divergent.check([a, a], budget=1, engines=None)
    assert any("engine seeds not used" in note for note in report.notes)


def test_cli_user_comparison(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(x: int) -> list[int]:\n    return [x, -x]\n")
    b = write(tmp_path, "b.py", "def f(x: int) -> list[int]:\n    return [-x, x]\n")
    compare = write(tmp_path, "same_set.py", "def same(a, b):\n    return sorted(a) == sorted(b)\n")
    # a search ends at its first confirmed difference: a larger budget costs nothing here, and keeps
    # a loaded machine's slow start from eating the whole search
    differs = cli("check", a, b, "--budget", "10", "--engines", "seeds,mutation", "--json")
    assert differs.returncode == 1
    same = cli("check", a, b, "--budget", "3", "--engines", "seeds,mutation", "--compare", f"{compare}:same", "--json")
    assert same.returncode == 0, same.stderr
    missing = cli("check", a, b, "--compare", f"{compare}:nope")
    assert missing.returncode == 2 and "no function 'nope'" in missing.stderr


def test_cli_json_writes_nondeterministic_inputs_as_calls_of_the_function(tmp_path: Path) -> None:
    """Without a counterexample, the report's calls still carry the functions' name (they were
    written ``f(...)`` whatever the function was called)."""
    # four random bytes: a re-run never repeats a result, so no difference is ever confirmed
    source = "import os\ndef scramble(x: int) -> int:\n    return x + int.from_bytes(os.urandom(4), 'big')\n"
    a = write(tmp_path, "a.py", source)
    b = write(tmp_path, "b.py", source)
    result = cli("check", a, b, "--function", "scramble", "--budget", "5", "--engines", "seeds,mutation", "--json")
    data = json.loads(result.stdout)
    assert data["verdict"] != "divergent" and data["nondeterministic"], data["notes"]
    assert all(call.startswith("scramble(") for call in data["nondeterministic"])
