"""Whole-program inputs that generalize (issue 34), on problems of our own: a difference is claimed
only on an input the problem allows (the statement's format and constraints as a validator; else the
examples' shape, with differences outside it set apart), AtCoder-style format blocks and
constraints, counts that are expressions, layouts from the programs' reads and the validator's
verdicts, small spaces judged whole (the exhaustive verdict), sizes that fall back when runs hit
the time limit."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import divergent
from divergent.engines.text.slowness import Slowness
from divergent.formats.claims import ExampleShape, StatementCheck, statement_rules
from divergent.formats.examples import format_from_examples
from divergent.formats.format_blocks import block_format, index_expr
from divergent.formats.infer import infer_format
from divergent.formats.layouts import explanations, judged_explanation
from divergent.formats.model import Expr
from divergent.formats.spaces import hot_cells, listed
from divergent.formats.statement_text import constraints
from divergent.formats.syntax import parse_format
from divergent.formats.text_structure import parse, render
from divergent.records import Budget, Observation, Outcome, OutcomeKind, TextInput, Verdict


def write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


# -- a permutation's index: P_i = X (N X, then P_1 ... P_N) ----------------------------------------

FIND_PY = """\
n, x = map(int, input().split())
p = list(map(int, input().split()))
print(p.index(x) + 1)
"""
# the same answer on every valid input; on X outside P it prints 0 where the script crashes
FIND_CPP = """\
#include <cstdio>
int main() { int n, x; scanf("%d %d", &n, &x); int answer = 0;
  for (int i = 1; i <= n; i++) { int v; scanf("%d", &v); if (v == x) answer = i; }
  printf("%d\\n", answer); }
"""
FIND_STATEMENT = r"""
# ^{-1}

## Input

The input is given from Standard Input in the following format:

    N X
    P_1 P_2 \ldots P_N

## Constraints

- $1 \leq N \leq 100$
- $1 \leq X \leq N$
- $P$ is a permutation of $(1, 2, \ldots, N)$.
- All values in input are integers.
"""
FIND_SAMPLES = ("4 3\n2 3 1 4\n", "5 2\n3 5 1 4 2\n")


def test_an_atcoder_format_block_and_its_constraints_read_into_a_format_and_list_rules():
    fmt = block_format(FIND_STATEMENT)
    assert fmt is not None
    assert fmt.text() == "N:int[1,100] X:int[1,N]\nP:int*N\n"
    rules = statement_rules(FIND_STATEMENT, fmt)
    check = StatementCheck(fmt, rules)
    assert check.problem("4 3\n2 3 1 4\n") is None
    assert "permutation" in (check.problem("4 3\n2 3 0 4\n") or "")
    assert "out of" in (check.problem("2 -1\n1 2\n") or "")
    assert "out of" in (check.problem("2 3\n1 2\n") or "")  # 1 <= X <= N


def test_records_of_a_format_block_and_counts_that_are_expressions():
    statement = r"""
    ## Input
    Input is given from Standard Input in the following format:

        N M T
        A_1 A_2 \ldots A_{N-1}
        X_1 Y_1
        X_2 Y_2
        \vdots
        X_M Y_M

        K
        B_1 B_2 \ldots B_{4K-1}

    ## Constraints
    - $2 \leq N \leq 10^5$
    - $0 \leq M \leq N-2$
    - $1 \leq T \leq 10^9$
    - $1 \leq K \leq 2 \times 10^5$
    """
    fmt = block_format(textwrap.dedent(statement))
    assert fmt is not None
    assert fmt.text().splitlines()[:4] == ["N:int[2,10^5] M:int[0,N-2] T:int[1,10^9]", "A:int*N-1", "repeat M:",
                                           "    X:int Y:int"]
    assert index_expr("4K-1") == Expr(-1, "K", 4) and index_expr("N") == Expr(0, "N")


def test_constraints_in_atcoder_notations():
    found = constraints("- $-2^{63} \\leq N < 2^{63}$\n- $1 \\leq A, B \\leq 2 \\times 10^5$\n- 1 <= K <= 2 x 10^5\n")
    assert found["N"].lows[0].constant == -(2 ** 63) and found["N"].highs[0].constant == 2 ** 63 - 1
    assert found["A"].highs[0].constant == found["B"].highs[0].constant == found["K"].highs[0].constant == 200_000


def test_the_examples_shape_names_what_an_input_breaks():
    fmt = infer_format(list(FIND_SAMPLES))
    shape = ExampleShape.learn(fmt, FIND_SAMPLES)
    assert shape is not None
    assert shape.problem("3 1\n3 1 2\n") is None
    assert "every example has" in (shape.problem("3 -1\n3 1 2\n") or "") and ">= 1" in shape.problem("3 -1\n3 1 2\n")
    assert "permutation" in (shape.problem("3 1\n3 1 1\n") or "")
    assert "<=" in (shape.problem("1 2\n1\n") or "")  # X <= N in every example
    assert "32-bit" in (shape.problem("3 2147800000\n3 1 2\n") or "")
    assert shape.problem("3 1\n3 1\n") is not None  # the line holds fewer than N
    # with several examples: a list's items within a number read once, numbers that always differ
    cards = ["3\n1 3 2 3 3 2 2 1 1 1 2\n", "1\n1 1 1\n", "4\n3 2 1 1 2 4 4 4 4 3 1 3 2 1 3\n"]
    assert "<= n" in (ExampleShape.learn(infer_format(cards), cards).problem("1\n4 4 1\n") or "")
    hammer = ["10 -10 1\n", "20 10 -10\n", "100 1 1000\n"]
    assert "repeat a value" in (ExampleShape.learn(infer_format(hammer), hammer).problem("100 100 100\n") or "")
    # one example of a sorted list says nothing of its items' bounds, nor that it is a permutation
    single = ["3\n1 2 3\n"]
    assert ExampleShape.learn(infer_format(single), single).problem("2\n2147483647 1\n") is None
    words = ExampleShape.learn(infer_format(["abc\n", "zz\n"]), ["abc\n", "zz\n"])
    assert words is not None and "upper-case" in (words.problem("aBc\n") or "")


def test_accepted_pairs_in_two_languages_are_never_claimed_different_samples_only_or_with_the_statement(
        programs_dir, build_cache):
    left = write(programs_dir, "find.py", FIND_PY)
    right = write(programs_dir, "find.cpp", FIND_CPP)
    samples = [write(programs_dir, f"find{i}.txt", text) for i, text in enumerate(FIND_SAMPLES)]
    statement = write(programs_dir, "find.md", FIND_STATEMENT)
    common = {"stdin": True, "examples": samples, "build_cache": build_cache, "time_limit": 1.0,
              "budget": Budget(seconds=8.0)}
    alone = divergent.check([left, right], **common)
    assert alone.verdict is not Verdict.DIVERGENT
    # the differences mutation found outside the examples' shape are set apart, with what they break
    assert alone.filtered_out and all("outside the examples' shape" in cx.filter.rationale for cx in alone.filtered_out)
    assert any(note.startswith("a difference outside the examples' shape, not claimed") for note in alone.notes)
    told = divergent.check([left, right], statement=statement, **common)
    assert told.verdict is not Verdict.DIVERGENT and told.rejected > 0
    assert any("the statement's format and constraints judged every input" in note for note in told.notes)


def test_a_difference_inside_the_shape_is_still_claimed(programs_dir, build_cache):
    # wrong on X = N only: an input every example's shape allows
    wrong = FIND_PY.replace("print(p.index(x) + 1)", "print(p.index(x) + 1 if x < n else 0)")
    left = write(programs_dir, "find_wrong.py", wrong)
    right = write(programs_dir, "find_right.py", FIND_PY)
    samples = [write(programs_dir, "find_wrong_sample.txt", "4 3\n2 3 1 4\n")]
    report = divergent.check([left, right], stdin=True, examples=samples, build_cache=build_cache,
                             budget=Budget(seconds=20.0), time_limit=1.0)
    assert report.verdict is Verdict.DIVERGENT


# -- counts that are expressions, layouts ---------------------------------------------------------


def test_a_2n_minus_1_count_is_fitted_across_examples_and_read_from_the_programs():
    fmt = format_from_examples(["2\n5 1 4\n", "3\n1 2 3 4 5\n"])
    assert fmt is not None and fmt.text().splitlines()[1].endswith("*2*n-1")
    # one example fits n+1 as well as 2n-1: the program's loop says which
    reads = "#include <cstdio>\nint main(){int n; scanf(\"%d\",&n); for(int i=0;i<2*n-1;i++){int x; scanf(\"%d\",&x);} }"
    told = infer_format(["2\n5 1 4\n"], programs=[(reads, "cpp")])
    assert told is not None and told.text().splitlines()[1].endswith("*2*n-1")
    assert any("2*n-1" in note for note in told.notes)
    # and without the programs, the validator's verdicts on drawn inputs choose among the explanations
    guessed = format_from_examples(["2\n5 1 4\n"])
    assert guessed is not None
    assert any("2*n-1" in what for _, what in explanations(guessed, ["2\n5 1 4\n"]))
    chosen = judged_explanation(guessed, ["2\n5 1 4\n"], lambda texts: [_two_n_minus_one(t) for t in texts])
    assert chosen is not None and chosen[0].text().splitlines()[1].endswith("*2*n-1")


def test_a_number_sizing_a_list_it_is_not_tied_to_teaches_no_range():
    from divergent.formats.instances import unlinked_counts

    # changing n alone in "n, then 2n-1 numbers" always breaks the input: the validator's no to it
    # is no bound of n (a lesson would fix n to the examples' one value)
    assert unlinked_counts(parse_format("n:int[1,10]\nint*2*n-1\n")) == {"0.0"}
    assert unlinked_counts(parse_format("n:int[1,10]\nint*n\n")) == set()


def _two_n_minus_one(text: str) -> bool:
    lines = text.split("\n")
    return len(lines) >= 2 and lines[0].isdigit() and len(lines[1].split()) == 2 * int(lines[0]) - 1


def test_a_2n_minus_1_search_with_a_validator_does_not_collapse_to_the_samples_size(programs_dir, build_cache):
    validator = write(programs_dir, "odd_validator.py", """\
        import sys
        lines = sys.stdin.read().split("\\n")
        n = int(lines[0])
        assert 1 <= n <= 1000
        values = lines[1].split()
        assert len(values) == 2 * n - 1 and all(1 <= int(v) <= 10**6 for v in values)
        """)
    total = write(programs_dir, "odd_sum.py", "n = int(input())\nprint(sum(map(int, input().split())))\n")
    looped = write(programs_dir, "odd_sum.cpp", """\
        #include <cstdio>
        int main(){int n; scanf("%d",&n); long long s=0; for(int i=0;i<2*n-1;i++){long long x; scanf("%lld",&x); s+=x;} printf("%lld\\n",s);}
        """)
    samples = [write(programs_dir, "odd1.txt", "2\n5 1 4\n"), write(programs_dir, "odd2.txt", "3\n1 2 3 4 5\n")]
    report = divergent.check([total, looped], stdin=True, examples=samples, validator=validator,
                             build_cache=build_cache, budget=Budget(seconds=15.0), time_limit=1.0)
    assert report.verdict is not Verdict.DIVERGENT
    assert report.inputs >= 100 and report.verdict is not Verdict.TOO_FEW_INPUTS
    assert "*2*n-1" in report.inferred_inputs["input_format"]["format"]


def test_one_statement_per_line_with_n_1_samples_takes_the_layout_the_programs_read():
    samples = ["1\nX++\n", "1\n--X\n"]
    reads = "n = int(input())\nx = 0\nfor _ in range(n):\n    s = input()\n    x += 1 if '++' in s else -1\nprint(x)\n"
    fmt = infer_format(samples, programs=[(reads, "python")])
    assert fmt is not None and fmt.text().splitlines()[1] == "repeat n:"
    # programs that read tokens cannot tell: the validator's verdicts on drawn inputs can
    guessed = format_from_examples(samples)
    assert guessed is not None
    judged = judged_explanation(guessed, samples, lambda texts: [_one_per_line(t) for t in texts])
    if guessed.text().splitlines()[1] != "repeat n:":
        assert judged is not None and judged[0].text().splitlines()[1] == "repeat n:"


def _one_per_line(text: str) -> bool:
    lines = text.rstrip("\n").split("\n")
    return lines[0].isdigit() and len(lines) == int(lines[0]) + 1 and all(len(line.split()) == 1 for line in lines[1:])


# -- the exhaustive verdict ---------------------------------------------------------------------

MOVES_PY = """\
rows = [input().split() for _ in range(5)]
for i, row in enumerate(rows):
    if "1" in row:
        print(abs(i - 2) + abs(row.index("1") - 2))
"""
MOVES_CPP = """\
#include <cstdio>
#include <cstdlib>
int main(){ for(int i=0;i<5;i++) for(int j=0;j<5;j++){ int v; scanf("%d",&v); if(v) printf("%d\\n", abs(i-2)+abs(j-2)); } }
"""


def test_a_one_hot_grid_is_listed_and_judged_whole(programs_dir, build_cache):
    grids = ["0 0 0 0 0\n0 0 0 0 1\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n",
             "0 0 0 0 0\n0 0 0 0 0\n0 1 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n"]
    space = hot_cells(grids)
    assert space is not None and len(space[1]) == 25
    samples = [write(programs_dir, f"grid{i}.txt", text) for i, text in enumerate(grids)]
    left = write(programs_dir, "moves.py", MOVES_PY)
    right = write(programs_dir, "moves.cpp", MOVES_CPP)
    report = divergent.check([left, right], stdin=True, examples=samples, build_cache=build_cache,
                             budget=Budget(seconds=30.0), time_limit=1.0)
    assert report.verdict is Verdict.EQUIVALENT_ON_ALL_INPUTS
    assert report.space is not None and report.space.inputs == 25 and "one(s)" in report.space.description
    # a wrong program is still found within that space
    wrong = write(programs_dir, "moves_wrong.py", MOVES_PY.replace("abs(i - 2)", "(i - 2)"))
    found = divergent.check([wrong, right], stdin=True, examples=samples, build_cache=build_cache,
                            budget=Budget(seconds=30.0), time_limit=1.0)
    assert found.verdict is Verdict.DIVERGENT


def test_a_stated_format_lists_its_inputs_with_relations_and_permutations():
    fmt = parse_format("a:int[1,9] b:int[a+1,10]\n")
    texts = listed(fmt)
    assert texts is not None and len(texts) == 45 and "1 10\n" in texts
    perms = listed(parse_format("n:int[1,3]\np:int*n\n"), permutations=["p"])
    assert perms is not None and len(perms) == 1 + 2 + 6
    assert listed(parse_format("n:int[1,10^9]\n")) is None  # too large to list
    assert listed(parse_format("n:int[~1,~5]\n")) is None  # soft bounds: the edges are not sure


def test_an_edge_checker_with_its_statement_is_equivalent_on_all_45_inputs(programs_dir, build_cache):
    statement = write(programs_dir, "edge.md", """\
        ## Input
        The input is given from Standard Input in the following format:

            a b

        ## Constraints
        - $1 \\leq a < b \\leq 10$
        """)
    left = write(programs_dir, "edge.py", 'a, b = map(int, input().split())\nprint("Yes" if b - a == 1 or (a, b) == (1, 10) else "No")\n')
    right = write(programs_dir, "edge.cpp", '#include <cstdio>\nint main(){int a,b; scanf("%d %d",&a,&b); puts((b-a)%9==1 || b-a==9 ? "Yes" : "No");}\n')
    samples = [write(programs_dir, "edge1.txt", "4 5\n"), write(programs_dir, "edge2.txt", "3 5\n")]
    report = divergent.check([left, right], stdin=True, examples=samples, statement=statement,
                             build_cache=build_cache, budget=Budget(seconds=30.0), time_limit=1.0)
    assert report.verdict is Verdict.EQUIVALENT_ON_ALL_INPUTS
    assert report.space is not None and report.space.inputs == 45


# -- sizes that fall back ---------------------------------------------------------------------


def _slow(text: str) -> Observation:
    outcome = Outcome(kind=OutcomeKind.TIMEOUT, stdout="", seconds=1.0)
    return Observation(input=TextInput(text), outcomes=(outcome, Outcome(kind=OutcomeKind.OK, stdout="1")),
                       classes=((0, 1),), inconclusive=(0,))


def test_runs_past_the_time_limit_cap_the_integers_written_after_them():
    slowness = Slowness()
    slowness.observe([_slow(f"1 {10**9 - i}\n") for i in range(5)])
    assert slowness.cap is not None and slowness.cap <= 10 ** 8
    assert "hit the time limit" in (slowness.note() or "")
    tree = slowness.capped(parse("1 1000000000\n"), random.Random(0))
    assert all(abs(int(v)) <= slowness.cap for v in render(tree).split())


def test_a_slow_program_s_sizes_fall_back_and_the_report_says_so(programs_dir, build_cache):
    slow = write(programs_dir, "slow_sum.py", "l, r = map(int, input().split())\nt = 0\nfor i in range(l, r + 1):\n"
                                              "    t += i % 7\nprint(t)\n")
    fast = write(programs_dir, "fast_sum.py", "l, r = map(int, input().split())\n"
                                              "f = lambda n: (n // 7) * 21 + sum(range(n % 7 + 1)) if n >= 0 else 0\n"
                                              "print(f(r) - f(l - 1))\n")
    fmt = write(programs_dir, "lr.fmt", "l:int[1,10^9] r:int[l,10^9]\n")
    report = divergent.check([slow, fast], stdin=True, examples=[write(programs_dir, "lr.txt", "1 10\n")],
                             input_format=fmt, build_cache=build_cache, budget=Budget(seconds=15.0), time_limit=0.25)
    assert report.verdict is not Verdict.DIVERGENT
    assert any("hit the time limit: the engines then kept integers within" in note for note in report.notes)


def test_the_statement_s_sentences_on_lists_and_groups_judge_inputs():
    statement = textwrap.dedent(r"""
        Print Yes when $-2^{31} \leq N < 2^{31}$.

        ## Input
        The input is given from Standard Input in the following format:

            L_1 R_1 L_2 R_2
            X Y Z
            M
            A_1 A_2 \ldots A_M

        ## Constraints
        - $0 \leq L_1 < R_1 \leq 100$
        - $0 \leq L_2 < R_2 \leq 100$
        - $-1000 \leq X, Y, Z \leq 1000$
        - $X$, $Y$ and $Z$ are distinct, and none of them is $0$.
        - $1 \leq M \leq 10$
        - $1 \leq A_1 < A_2 < \ldots < A_M \leq 10^9$

        ## Output
        Yes or No.
        """)
    fmt = block_format(statement)
    assert fmt is not None
    assert fmt.text().splitlines()[0] == "L1:int[0,99] R1:int[L1+1,100] L2:int[0,99] R2:int[L2+1,100]"
    check = StatementCheck(fmt, statement_rules(statement, fmt))
    assert check.problem("0 3 1 5\n1 2 3\n2\n1 5\n") is None
    assert check.problem("3 3 1 5\n1 2 3\n2\n1 5\n") is not None  # L_1 < R_1
    assert "is 0" in (check.problem("0 3 1 5\n1 0 3\n2\n1 5\n") or "")
    assert "distinct" in (check.problem("0 3 1 5\n1 1 3\n2\n1 5\n") or "")
    assert "increasing" in (check.problem("0 3 1 5\n1 2 3\n2\n5 5\n") or "")
    # the task's own text names a bound that is not a constraint
    assert "N" not in constraints(statement)
    cards = "## Input\nin the following format:\n\n    A B C\n\n## Constraints\n- 1 <= A, B, C <= 13\n- Not all of A, B and C are the same.\n"
    fmt = block_format(cards)
    assert fmt is not None
    assert "not all" in (StatementCheck(fmt, statement_rules(cards, fmt)).problem("3 3 3\n") or "")


# -- the exhaustive verdict for functions ------------------------------------------------------

FLAGS = """\
from typing import Literal

def a(x: bool, y: bool, mode: Literal["r", "w"], n: int) -> int:
    return (x and y) + (mode == "w") * n

def b(x: bool, y: bool, mode: Literal["r", "w"], n: int) -> int:
    return int(x and y) + (n if mode == "w" else 0)

def c(x: bool, y: bool, mode: Literal["r", "w"], n: int) -> int:
    return int(x and y) + (n if mode == "w" and n != 7 else 0)

def d(x: bool, y: bool, mode: Literal["r", "w"], n: int = 0) -> int:
    return int(x and y)
"""


def test_functions_of_bools_literals_and_ranges_by_precondition_are_judged_whole(tmp_path):
    from divergent.engines.calls.spaces import call_space
    from divergent.load.python_files import load_implementation

    source = tmp_path / "flags.py"
    source.write_text(FLAGS)
    report = divergent.check([f"{source}:a", f"{source}:b"], require="0 <= n <= 9", budget=Budget(seconds=20.0))
    assert report.verdict is Verdict.EQUIVALENT_ON_ALL_INPUTS
    assert report.space is not None and report.space.inputs == 2 * 2 * 2 * 10
    assert divergent.check([f"{source}:a", f"{source}:c"], require="0 <= n <= 9",
                           budget=Budget(seconds=20.0)).verdict is Verdict.DIVERGENT
    # an unbounded int, or an optional parameter, lists nothing
    signature = load_implementation(f"{source}:a").signature
    assert call_space(signature, None, lambda call: True) is None
    assert call_space(signature, "n in range(3) and n >= 1", lambda call: True)[2] == 2 * 2 * 2 * 2
    assert call_space(load_implementation(f"{source}:d").signature, None, lambda call: True) is None


def test_lists_the_statement_calls_permutations_are_mended_into_permutations():
    from divergent.engines.text.lessons import Lessons
    from divergent.engines.text.mending import mend_permutations
    from divergent.formats.instances import read

    fmt = parse_format("n:int[1,10] x:int[1,n]\np:int*n\n")
    tree = read(fmt, "4 2\n1 1 0 9\n")
    assert tree is not None
    lessons = Lessons()
    lessons.permutations = {"1.0"}
    assert mend_permutations(tree, lessons, random.Random(0))
    assert sorted(render(tree).split("\n")[1].split(), key=int) == ["1", "2", "3", "4"]
