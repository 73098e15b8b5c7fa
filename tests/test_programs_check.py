"""check and cluster on whole programs: differences found and shrunk, comparison modes, the
validator's rejections never claimed, the generator, the checker, the JSON contract, the CLI."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import divergent
from conftest import need_tool
from divergent.cli import app
from divergent.errors import InvalidArgument
from divergent.kinds.reports import report_json
from divergent.records import Budget, OutcomeKind, TextInput, Verdict

runner = CliRunner()


def write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def quick(build_cache: str, **changes):
    """Options for a short search. A search that should find nothing stops after ``runs`` runs (the
    machine may be loaded: a count of runs, not seconds, says how much was tried). The budget counts
    the builds too (a first compile of ``bits/stdc++.h`` on a loaded machine takes seconds)."""
    runs = changes.pop("runs", None)
    budget = Budget(seconds=30.0, executions=runs) if runs else Budget(seconds=changes.pop("budget", 20.0))
    if runs:  # a search cut short on purpose: its few inputs are not the point (else: too-few-inputs)
        changes.setdefault("min_inputs", 0)
    return {"budget": budget, "build_cache": build_cache, "time_limit": 1.0, "stdin": True, **changes}


# A sum of n numbers: one in int (overflows), one in long long.
SUM_INT = """\
    #include <stdio.h>
    int main(void) { int n, s = 0, x; if (scanf("%d", &n) != 1) return 0;
                     for (int i = 0; i < n; i++) { scanf("%d", &x); s += x; } printf("%d\\n", s); return 0; }
"""
SUM_LONG = """\
    import sys
    data = sys.stdin.read().split()
    n = int(data[0])
    print(sum(int(x) for x in data[1 : 1 + n]))
"""


@pytest.fixture(scope="module")
def overflow_pair(programs_dir):
    return write(programs_dir, "sum_int.c", SUM_INT), write(programs_dir, "sum_long.py", SUM_LONG)


def test_check_finds_and_shrinks_an_overflow_with_counts_kept(overflow_pair, programs_dir, build_cache):
    need_tool("gcc")
    sample = write(programs_dir, "sample.txt", "3\n1 2 3\n")
    report = divergent.check(list(overflow_pair), examples=[sample], **quick(build_cache))
    assert report.verdict is Verdict.DIVERGENT
    cx = report.counterexample
    assert isinstance(cx.input, TextInput)
    tokens = cx.input.text.split()
    assert int(tokens[0]) == len(tokens) - 1  # the count still counts what follows
    c_out, py_out = (o.stdout.strip() for o in cx.outcomes)
    assert int(py_out) == sum(int(t) for t in tokens[1:])
    assert c_out != py_out
    data = report_json(report)
    counterexample = data["counterexample"]
    assert counterexample["stdin"] == cx.input.text
    assert "args" not in counterexample
    for outcome in counterexample["outcomes"]:
        assert {"impl", "kind", "stdout", "exit_code", "seconds"} <= set(outcome)
        assert outcome["kind"] == "ok" and outcome["exit_code"] == 0
    json.dumps(data)


def test_validator_rejected_inputs_are_never_counterexamples(overflow_pair, programs_dir, build_cache):
    need_tool("gcc")
    # Numbers within 1..1000 and n <= 100: the int sum cannot overflow, so no valid input tells them apart.
    validator = write(programs_dir, "valid_sum.py", """\
        import sys
        lines = sys.stdin.read().split("\\n")
        n = int(lines[0])
        xs = lines[1].split()
        assert 1 <= n <= 100 and len(xs) == n, "n out of range"
        assert all(1 <= int(x) <= 1000 for x in xs), "value out of range [1, 1000]"
        assert all(line.strip() == "" for line in lines[2:])
    """)
    sample = write(programs_dir, "sample2.txt", "3\n1 2 3\n")
    report = divergent.check(list(overflow_pair), examples=[sample], validator=validator,
                             **quick(build_cache, runs=160))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND, report.counterexample
    note = next(note for note in report.notes if "rejected" in note and "never counterexamples" in note)
    assert report.inputs >= 50
    # the count in a field (the note is for people): what REFUTE reports as the validator's rejections
    assert report.rejected > 0 and f"rejected {report.rejected} input(s)" in note
    assert report_json(report)["rejected"] == report.rejected


def test_equivalent_programs_in_two_languages_give_no_difference(programs_dir, build_cache):
    need_tool("g++")
    cpp = write(programs_dir, "max.cpp", """\
        #include <bits/stdc++.h>
        int main() { int n; std::cin >> n; long long best = LLONG_MIN;
                     for (int i = 0; i < n; i++) { long long x; std::cin >> x; best = std::max(best, x); }
                     std::cout << best << "\\n"; }""")
    py = write(programs_dir, "max.py", """\
        n = int(input())
        print(max(map(int, input().split())))
    """)
    validator = write(programs_dir, "valid_max.py", """\
        import sys
        rows = sys.stdin.read().splitlines()
        n = int(rows[0]); xs = list(map(int, rows[1].split()))
        assert 1 <= n == len(xs) and all(abs(x) <= 10**18 for x in xs) and len(rows) == 2
    """)
    sample = write(programs_dir, "max.txt", "4\n3 -1 7 2\n")
    report = divergent.check([cpp, py], examples=[sample], validator=validator, **quick(build_cache, runs=160))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND, report.counterexample
    assert report.inputs >= 50


def test_a_crash_where_another_prints_is_a_difference_and_kinds_are_shown(programs_dir, build_cache):
    need_tool("g++")
    crashes = write(programs_dir, "first_elem.cpp", """\
        #include <bits/stdc++.h>
        int main() { int n; std::cin >> n; std::vector<int> a(n); for (auto &x : a) std::cin >> x;
                     if (n == 1) { std::vector<int> empty; return empty.at(3); }
                     std::cout << *std::min_element(a.begin(), a.end()) << "\\n"; }""")
    fine = write(programs_dir, "first_elem.py", "n = int(input())\nprint(min(map(int, input().split())))\n")
    sample = write(programs_dir, "min.txt", "3\n5 2 9\n")
    report = divergent.check([crashes, fine], examples=[sample], **quick(build_cache))
    assert report.verdict is Verdict.DIVERGENT
    kinds = [o.kind for o in report.counterexample.outcomes]
    assert kinds == [OutcomeKind.RUNTIME_ERROR, OutcomeKind.OK]
    assert report.counterexample.input.text.split()[0] == "1"


@pytest.mark.parametrize(
    ("mode", "left", "right", "same"),
    [
        ("tokens", "1 2\n3\n", "1\n2 3", True),
        ("tokens", "1 2 3\n", "1 2 4\n", False),
        ("exact", "1 2\n", "1  2\n", False),
        ("exact", "yes\n", "YES\n", True),
        ("lines", "1 2  \n3\n\n", "1 2\n3\n", True),
        ("lines", "1 2\n3\n", "1\n2 3\n", False),
        ("float", "0.3333333\n", "0.333333333\n", True),
        ("float", "1000000.0\n", "1000000.5\n", True),
        ("float", "0.5\n", "0.6\n", False),
        ("tokens", "0.5\n", "0.50\n", False),
        ("tokens", "Yes\nNO\n", "YES\nno\n", True),
        ("tokens", "Yes 3\n", "YES 3\n", False),
    ],
)
def test_each_output_mode(mode, left, right, same):
    from divergent.records import Outcome
    from divergent.text_comparison import OutputComparison

    comparison = OutputComparison(mode=mode)
    a, b = Outcome(OutcomeKind.OK, stdout=left), Outcome(OutcomeKind.OK, stdout=right)
    assert comparison.outcomes_equal(a, b) is same
    assert comparison.partition([a, b]) == (((0, 1),) if same else ((0,), (1,)))


def test_float_output_mode_end_to_end(programs_dir, build_cache):
    need_tool("gcc")
    c = write(programs_dir, "third.c", '#include <stdio.h>\nint main(void) { double x; scanf("%lf", &x); printf("%.9f\\n", x / 3); return 0; }')
    py = write(programs_dir, "third.py", "print(float(input()) / 3)\n")
    sample = write(programs_dir, "third.txt", "1\n")
    report = divergent.check([c, py], examples=[sample], output="float", float_tol=1e-6,
                             engines="seeds", **quick(build_cache, runs=10))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND
    strict = divergent.check([c, py], examples=[sample], engines="seeds", **quick(build_cache))
    assert strict.verdict is Verdict.DIVERGENT  # tokens: "0.333333333" is not "0.3333333333333333"


def test_a_checker_accepts_any_valid_answer(programs_dir, build_cache):
    # Print any index of the maximum: the two programs choose different ones on ties.
    first = write(programs_dir, "argmax_first.py", """\
        n = int(input()); a = list(map(int, input().split()))
        print(a.index(max(a)) + 1)
    """)
    last = write(programs_dir, "argmax_last.py", """\
        n = int(input()); a = list(map(int, input().split()))
        print(n - a[::-1].index(max(a)))
    """)
    wrong = write(programs_dir, "argmax_wrong.py", """\
        n = int(input()); a = list(map(int, input().split()))
        print(a.index(max(a)) + 1 if n > 2 else 1)
    """)
    checker = write(programs_dir, "argmax_checker.py", """\
        import sys
        data = open(sys.argv[1]).read().split()
        a = list(map(int, data[1:]))
        answer = int(open(sys.argv[2]).read())
        sys.exit(0 if 1 <= answer <= len(a) and a[answer - 1] == max(a) else 1)
    """)
    sample = write(programs_dir, "argmax.txt", "4\n1 5 5 2\n")
    report = divergent.check([first, last], examples=[sample], checker=checker, **quick(build_cache, runs=200))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND, report.counterexample
    plain = divergent.check([first, last], examples=[sample], engines="seeds", **quick(build_cache))
    assert plain.verdict is Verdict.DIVERGENT  # without the checker "2" and "3" differ
    found = divergent.check([first, wrong], examples=[sample], checker=checker, **quick(build_cache))
    assert found.verdict is Verdict.DIVERGENT
    assert found.policy.startswith("checker=")


def test_the_generator_program_finds_what_the_examples_do_not(programs_dir, build_cache):
    # They differ only when n is a multiple of 7; the example has n = 3.
    a = write(programs_dir, "mod7_a.py", "n = int(input())\nprint(n * 2)\n")
    b = write(programs_dir, "mod7_b.py", "n = int(input())\nprint(n * 2 if n % 7 else -1)\n")
    generator = write(programs_dir, "gen_n.py", """\
        import random, sys
        random.seed(int(sys.argv[1]))
        print(random.randint(1, 100))
    """)
    report = divergent.check([a, b], generator=generator, engines="generator", **quick(build_cache))
    assert report.verdict is Verdict.DIVERGENT
    assert int(report.counterexample.input.text) % 7 == 0
    assert report.counterexample.engine == "generator"


def test_a_timeout_where_another_finishes_follows_the_timeout_rule(programs_dir, build_cache):
    slow = write(programs_dir, "slow.py", "n = int(input())\nwhile n == 5:\n    pass\nprint(n)\n")
    fast = write(programs_dir, "fast.py", "print(int(input()))\n")
    sample = write(programs_dir, "five.txt", "5\n")
    report = divergent.check([slow, fast], examples=[sample], engines="seeds",  # one input on purpose: no floor
                             **quick(build_cache, time_limit=0.3, min_inputs=0))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND
    assert any("inconclusive" in note for note in report.notes)
    policy = divergent.EqualityPolicy(timeouts="differ")
    differ = divergent.check([slow, fast], examples=[sample], engines="seeds", policy=policy,
                             **quick(build_cache, time_limit=0.3))
    assert differ.verdict is Verdict.DIVERGENT
    assert differ.counterexample.outcomes[0].kind is OutcomeKind.TIMEOUT


def test_cluster_splits_programs_by_behaviour(programs_dir, build_cache):
    sources = {
        "abs1.py": "print(abs(int(input())))\n",
        "abs2.py": "n = int(input())\nprint(n if n >= 0 else -n)\n",
        "abs3.py": "print(int(input()))\n",
    }
    paths = [write(programs_dir, name, text) for name, text in sources.items()]
    # (with the examples alone a split rests on inputs within their shape: one example is negative)
    samples = [write(programs_dir, "abs.txt", "5\n"), write(programs_dir, "abs_negative.txt", "-12\n")]
    clustering = divergent.cluster(paths, examples=samples, **quick(build_cache, runs=150))
    assert [[clustering.implementations[i] for i in c] for c in clustering.classes] == [paths[:2], paths[2:]]
    # with a positive example only, the difference on a negative number is set apart, not a split
    positive = divergent.cluster(paths, examples=samples[:1], **quick(build_cache, runs=150))
    assert len(positive.classes) == 1
    assert positive.report.filtered_out and any("not claimed" in note for note in positive.report.notes)


def test_functions_and_programs_are_not_mixed(programs_dir, build_cache):
    need_tool("gcc")
    function = write(programs_dir, "func.py", "def f(x: int) -> int:\n    return x\n")
    c = write(programs_dir, "ok2.c", "int main(void) { return 0; }\n")
    with pytest.raises(InvalidArgument, match="functions and whole programs"):
        divergent.check([divergent.load_implementation(function), c], **quick(build_cache))
    with pytest.raises(InvalidArgument, match="--stdin"):
        divergent.check([function, function], examples=["x.txt"], budget=1)


def test_cli_check_json_contract_for_programs(overflow_pair, programs_dir, build_cache):
    need_tool("gcc")
    sample = write(programs_dir, "cli_sample.txt", "2\n1 2\n")
    result = runner.invoke(app, ["check", *overflow_pair, "--example", sample, "--budget", "10", "--json",
                                 "--build-cache", build_cache, "--time-limit", "1"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "divergent"
    cx = data["counterexample"]
    assert cx["stdin"] and Path(cx["input_file"]).read_text() == cx["stdin"]
    assert [o["kind"] for o in cx["outcomes"]] == ["ok", "ok"]
    assert all("exit_code" in o and "seconds" in o for o in cx["outcomes"])
    assert any("<" in line and cx["input_file"] in line for line in cx["reproduce"])


def test_cli_compile_error_is_exit_2_naming_the_file(programs_dir, build_cache):
    need_tool("gcc")
    broken = write(programs_dir, "cli_broken.c", "int main(void) { return missing; }\n")
    ok = write(programs_dir, "cli_ok.c", "int main(void) { return 0; }\n")
    result = runner.invoke(app, ["check", broken, ok, "--budget", "10", "--build-cache", build_cache])
    assert result.exit_code == 2
    assert "cli_broken.c: compile error" in result.stderr and "missing" in result.stderr


def test_cli_text_report_marks_the_difference_and_shows_how_to_reproduce(overflow_pair, programs_dir, build_cache):
    need_tool("gcc")
    sample = write(programs_dir, "cli_sample3.txt", "2\n1 2\n")
    result = runner.invoke(app, ["check", *overflow_pair, "--example", sample, "--budget", "10", "-q",
                                 "--build-cache", build_cache, "--time-limit", "1"])
    assert result.exit_code == 1, result.output
    assert "programs differ" in result.stdout
    assert "⟦" in result.stdout  # the first differing token is marked
    assert "reproduce:" in result.stdout and "sum_long.py" in result.stdout


def test_cli_emits_a_test_and_an_html_report_for_programs(overflow_pair, programs_dir, build_cache, tmp_path,
                                                          monkeypatch):
    import subprocess
    import sys

    need_tool("gcc")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sample = write(programs_dir, "cli_sample4.txt", "2\n1 2\n")
    emitted, page = programs_dir / "test_emitted_overflow.py", tmp_path / "report.html"
    result = runner.invoke(app, ["check", *overflow_pair, "--example", sample, "--budget", "10", "-q", "--build-cache",
                                 build_cache, "--time-limit", "1", "--emit-test", str(emitted), "--html", str(page)])
    assert result.exit_code == 1, result.output
    assert "TextInput(INPUT)" in emitted.read_text() and "sum_int.c" in emitted.read_text()
    assert "differ" in page.read_text()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(emitted)],
                         capture_output=True, text=True, timeout=300, env={**__import__("os").environ})
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout[-2000:]


MODE_OF_CASES = """\
    from collections import Counter
    t = int(input())
    for _ in range(t):
        n = int(input())
        print(max(Counter(input().split()).values()))
"""
MODE_OF_CASES_TOO = """\
    import sys
    data = sys.stdin.read().split()
    t, at = int(data[0]), 1
    for _ in range(t):
        n = int(data[at]); at += 1
        counts = {}
        for x in data[at:at + n]:
            counts[x] = counts.get(x, 0) + 1
        at += n
        print(max(counts.values()))
"""
CASES_VALIDATOR = """\
    import sys
    rows = sys.stdin.read().split("\\n")
    t = int(rows[0]); assert 1 <= t <= 100, "t out of range"
    at = 1
    for _ in range(t):
        n = int(rows[at]); xs = rows[at + 1].split()
        assert 1 <= n <= 1000 and len(xs) == n and all(0 <= int(x) <= 1000 for x in xs), "bad case"
        at += 2
    assert all(not r.strip() for r in rows[at:]), "trailing data"
"""


def test_a_search_over_large_inputs_keeps_its_budget(programs_dir, build_cache):
    """Test cases of a thousand numbers each: every child of such an input costs in proportion to its
    size to make, to validate and to run. The search must end within its budget all the same (it
    once ran minutes past it: turns that proposed without looking at the clock, validator batches
    with no deadline)."""
    import random
    import time

    rng = random.Random(7)
    cases = [" ".join(str(rng.randint(0, 1000)) for _ in range(1000)) for _ in range(60)]
    example = write(programs_dir, "big_cases.txt", "60\n" + "".join(f"1000\n{case}\n" for case in cases))
    a = write(programs_dir, "mode_a.py", MODE_OF_CASES)
    b = write(programs_dir, "mode_b.py", MODE_OF_CASES_TOO)
    validator = write(programs_dir, "cases_validator.py", CASES_VALIDATOR)
    budget = 6.0
    started = time.monotonic()
    report = divergent.check([a, b], examples=[example], validator=validator, shrink=False,
                             **quick(build_cache, budget=budget))
    elapsed = time.monotonic() - started
    assert report.verdict is not Verdict.DIVERGENT, report.counterexample
    # a second of slack: the overruns this guards against were minutes; on a loaded 2-core machine the
    # last turn and the validator's last batch alone can take half a second
    assert elapsed <= budget + 1.0, f"the search took {elapsed:.1f} s with a budget of {budget:g} s"
