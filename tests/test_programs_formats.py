"""Input formats in a check of whole programs, end to end: a statement alone shapes the inputs, a
given format bounds every input run and is reported, a wrong format file names its line, and a
search that judged too few valid inputs says so instead of "no difference"."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from typer.testing import CliRunner

import divergent
from divergent.cli import app
from divergent.kinds.reports import report_json
from divergent.records import Budget, TextInput, Verdict

runner = CliRunner()


def write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


# |a - b|, and one that swaps the operands only for a > 5: two integers on one line tell them apart
DISTANCE = "a, b = map(int, input().split())\nprint(max(a, b) - min(a, b))\n"
SIGNED = "a, b = map(int, input().split())\nprint(a - b if a > 5 else b - a)\n"
TWO_INTEGERS = """\
    ## Input
    Two integers a and b on one line.
    - 1 <= a, b <= 1000
    ## Output
    |a - b|.
"""


def test_a_statement_with_no_sample_gives_inputs_of_the_shape_it_describes(programs_dir, build_cache):
    left = write(programs_dir, "distance.py", DISTANCE)
    right = write(programs_dir, "signed.py", SIGNED)
    statement = write(programs_dir, "two_integers.md", TWO_INTEGERS)
    report = divergent.check([left, right], stdin=True, statement=statement, budget=Budget(seconds=20.0),
                             build_cache=build_cache, time_limit=1.0)
    assert report.verdict is Verdict.DIVERGENT
    assert isinstance(report.counterexample.input, TextInput)
    a, b = (int(token) for token in report.counterexample.input.text.split())
    assert 1 <= a <= 1000 and 1 <= b <= 1000 and a != b
    inferred = report_json(report)["inferred_inputs"]["input_format"]
    assert inferred["origin"] == "statement" and inferred["format"] == "a:int[1,1000] b:int[1,1000]\n"
    assert any(note.startswith("input format inferred from the statement") for note in report.notes)


# n in [1, 9]: one program refuses anything else (a crash), the other does not care
STRICT = "n = int(input())\nassert 1 <= n <= 9\nprint(n * n)\n"
LOOSE = "n = int(input())\nprint(n * n)\n"


def test_a_given_format_bounds_every_input_run_and_is_reported(programs_dir, build_cache, tmp_path):
    strict = write(programs_dir, "strict.py", STRICT)
    loose = write(programs_dir, "loose.py", LOOSE)
    sample = write(programs_dir, "three.txt", "3\n")
    options = {"stdin": True, "examples": [sample], "build_cache": build_cache, "time_limit": 1.0,
               "budget": Budget(seconds=30.0, executions=40), "min_inputs": 0}
    # without a format, mutation soon leaves [1, 9] and the strict program crashes
    assert divergent.check([strict, loose], **options).verdict is Verdict.DIVERGENT
    given = tmp_path / "digit.fmt"
    given.write_text("# one digit\nn:int[1,9]\n")
    result = runner.invoke(app, ["check", strict, loose, "--stdin", "--example", sample, "--input-format", str(given),
                                 "--budget", "30", "--executions", "40", "--min-inputs", "0", "--json",
                                 "--build-cache", build_cache, "--time-limit", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    # the nine inputs the format allows all ran: judged whole
    assert data["verdict"] == "equivalent-on-all-inputs"
    assert data["space"]["inputs"] == 9 and data["space"]["judge"] == "the input format"
    assert data["inferred_inputs"]["input_format"]["format"] == "n:int[1,9]\n"
    assert any(note.startswith("input format: given (--input-format): n:int[1,9]") for note in data["notes"])


def test_a_wrong_format_file_is_exit_2_naming_its_line(programs_dir, build_cache, tmp_path):
    loose = write(programs_dir, "loose2.py", LOOSE)
    wrong = tmp_path / "wrong.fmt"
    wrong.write_text("n:int\na:int*m\n")
    result = runner.invoke(app, ["check", loose, loose, "--stdin", "--input-format", str(wrong), "--budget", "5",
                                 "--build-cache", build_cache])
    assert result.exit_code == 2, result.output
    assert "wrong.fmt" in result.stderr and "line 2" in result.stderr and "'m'" in result.stderr
    missing = runner.invoke(app, ["check", loose, loose, "--stdin", "--statement", str(tmp_path / "none.md"),
                                  "--budget", "5", "--build-cache", build_cache])
    assert missing.exit_code == 2 and "--statement" in missing.stderr and "cannot read it" in missing.stderr


# a 5x5 grid with exactly one 1; the validator rejects every other grid, so mutation makes few valid ones
CELL_SCAN = """\
    for i in range(5):
        row = input().split()
        for j in range(5):
            if row[j] == '1':
                print(abs(i - 2) + abs(j - 2))
"""
CELL_INDEX = """\
    import sys
    cells = sys.stdin.read().split()
    k = cells.index('1')
    print(abs(k // 5 - 2) + abs(k % 5 - 2))
"""
EXACTLY_ONE = """\
    import sys
    cells = sys.stdin.read().split()
    assert len(cells) == 25 and set(cells) <= {'0', '1'} and cells.count('1') == 1, 'exactly one 1'
"""


def test_a_search_with_too_few_valid_inputs_says_so_and_exits_4(programs_dir, build_cache):
    scan = write(programs_dir, "cell_scan.py", CELL_SCAN)
    index = write(programs_dir, "cell_index.py", CELL_INDEX)
    validator = write(programs_dir, "exactly_one.py", EXACTLY_ONE)
    grid = write(programs_dir, "grid.txt", "0 0 0 0 0\n0 0 0 0 1\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n")
    # a floor no short search reaches: the verdict does not depend on how loaded the machine is
    common = [scan, index, "--stdin", "--example", grid, "--validator", validator, "--budget", "4",
              "--min-inputs", "100000", "--build-cache", build_cache, "--time-limit", "1"]
    result = runner.invoke(app, ["check", *common, "--json"])
    assert result.exit_code == 4, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "too-few-inputs" and data["counterexample"] is None
    assert data["reason"].endswith("rejected as invalid: give examples, a generator or --input-format")
    assert (data["evidence"], data["min_inputs"]) == ("none", 100000)
    text = runner.invoke(app, ["check", *common])
    assert text.exit_code == 4
    headline = " ".join(text.stdout.replace("│", " ").split())  # the panel's lines joined
    assert headline.startswith("╭") and " Too few inputs to tell: " in headline and "rejected as invalid: give" in headline
    assert "fewer than 100000 (--min-inputs)" in headline
    assert "; no difference among 2 programs in" in headline
    assert "No difference found" not in headline
    enough = runner.invoke(app, ["check", *common[:-6], "--min-inputs", "1", "--json",
                                 "--build-cache", build_cache, "--time-limit", "1"])
    assert enough.exit_code == 0 and json.loads(enough.stdout)["verdict"] == "no-difference-found"


def test_a_search_that_saw_every_input_the_engines_can_make_is_not_too_thin(programs_dir, build_cache, tmp_path):
    # n in [1, 5]: five inputs in all; the engines run out of new ones long before the budget
    square = write(programs_dir, "square.py", "n = int(input())\nprint(n * n)\n")
    power = write(programs_dir, "power.py", "n = int(input())\nprint(n ** 2)\n")
    five = tmp_path / "five.fmt"
    five.write_text("n:int[1,5]\n")
    report = divergent.check([square, power], stdin=True, examples=[write(programs_dir, "three.txt", "3\n")],
                             input_format=str(five), budget=Budget(seconds=60.0), build_cache=build_cache,
                             time_limit=1.0)
    # a given format whose five inputs are listed and each judged: the whole space, its own verdict
    assert report.verdict is Verdict.EQUIVALENT_ON_ALL_INPUTS and report.exit_reason.value == "exhausted"
    assert report.inputs == 5 and report.rejected == 0
    assert report.space is not None and (report.space.inputs, report.space.listed) == (5, 5)
    assert any(note.startswith("equivalent on all 5 valid input(s)") for note in report.notes)


def test_every_valid_input_of_a_small_space_judged_is_no_difference_however_many_were_rejected(
        programs_dir, build_cache, tmp_path):
    # n in [1, 3] by the validator only (the examples show 1 and 2): the search finds the bound,
    # which costs more rejected inputs than there are valid ones, and judges all three
    square = write(programs_dir, "square.py", "n = int(input())\nprint(n * n)\n")
    power = write(programs_dir, "power.py", "n = int(input())\nprint(n ** 2)\n")
    validator = write(programs_dir, "one_to_three.py",
                      "import sys\nn = int(sys.stdin.read())\nassert 1 <= n <= 3, f'n = {n} is out of [1, 3]'\n")
    examples = [write(programs_dir, "one.txt", "1\n"), write(programs_dir, "two.txt", "2\n")]
    report = divergent.check([square, power], stdin=True, examples=examples, validator=validator,
                             budget=Budget(seconds=60.0), build_cache=build_cache, time_limit=1.0)
    assert report.inputs == 3 and report.rejected > report.inputs
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND, report.notes
    assert any(note.startswith("every valid input was judged: all 3 inputs of an integer in [1, 3], the "
                               "validator's bounds") for note in report.notes), report.notes
