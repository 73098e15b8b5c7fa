"""Input formats of whole programs (divergent.formats): the language, inputs read and drawn by a
format, formats learnt from examples, read from statements and from how programs read, and the
engines of texts working within them. No sandbox: nothing here runs a program."""

from __future__ import annotations

import itertools
import random
import re
import textwrap

import pytest

from divergent.engines.base import TextContext
from divergent.engines.text.feedback import MIN_TRIES, Rejections
from divergent.engines.text.grammar import GrammarEngine
from divergent.engines.text.lessons import LearntOrder, LearntRange, Lessons, Word
from divergent.engines.text.mutation import TextMutationEngine
from divergent.engines.text.patterns import LearntDigits, LearntRelations, LearntShape, shape_of
from divergent.errors import EngineCannotProceed, InvalidArgument
from divergent.formats.examples import format_from_examples
from divergent.formats.infer import infer_format
from divergent.formats.instances import generate, read, violation
from divergent.formats.model import Kind
from divergent.formats.reading import program_format
from divergent.formats.statement_text import constraints
from divergent.formats.statements import statement_format
from divergent.formats.syntax import parse_format
from divergent.formats.text_structure import counts, render
from divergent.records import TextInput

TEST_CASES = """\
    # t test cases: n and k, n numbers, a bit string of length n
    t:int[1,10^4]
    repeat t:
        n:int[1,2*10^5] k:int[0,n]
        a:int[-10^9,10^9]*n
        s:word[n]{01}
"""


def fmt(text: str):
    return parse_format(textwrap.dedent(text))


# -- the language -------------------------------------------------------------------------------


def test_a_format_prints_in_its_own_language_and_reads_back_the_same():
    parsed = fmt(TEST_CASES)
    assert parse_format(parsed.text()) == parsed
    assert parsed.text().splitlines()[0] == "t:int[1,10^4]"
    assert "    s:word[n]{01}" in parsed.text()
    choices = fmt("d:(L|R)\nx:float[0,1].3 w:word[~2,~8]{a-z.#}\nrepeat *:\n    int*\n")
    assert parse_format(choices.text()) == choices
    assert choices.text().splitlines()[1] == "x:float[0,1].3 w:word[~2,~8]{\\#.a-z}"  # '#' alone starts a comment


@pytest.mark.parametrize(("text", "message"), [
    ("a:int*n\n", "line 1: 'n' is used before"),
    ("n:int\n  int*n\n", "line 2: indented"),
    ("n:int\nint[1,2,3]\n", "line 2: the range"),
    ("n:int\nrepeat n:\n", "line 2: a repeat needs"),
    ("n:int\nfoo\n", "line 2: cannot read the token 'foo'"),
    ("# nothing\n", "describes no line"),
])
def test_a_wrong_format_names_its_line(text, message):
    with pytest.raises(InvalidArgument, match=message):
        parse_format(text)


# -- inputs read, drawn and checked by a format ------------------------------------------------


def test_an_input_read_by_its_format_renders_back_with_counts_tied_to_what_they_count():
    text = "2\n3 1\n1 2 3\n010\n1 0\n5\n1\n"
    tree = read(fmt(TEST_CASES), text)
    assert tree is not None and render(tree) == text
    assert [c.value for c in counts(tree)] == [2, 3, 1]  # t, then each case's n
    assert read(fmt(TEST_CASES), "2\n3 1\n1 2\n010\n") is None  # two numbers where n = 3


def test_drawn_inputs_keep_every_stated_bound_and_reach_past_sixteen_with_ties():
    leaderboard = fmt("n:int[1,2*10^5]\ns:int[0,10^9]*n\n")
    rng = random.Random(4)
    sizes, tied = [], 0
    for _ in range(300):
        text = render(generate(leaderboard, rng, cap=70))
        assert violation(leaderboard, text) is None, text
        values = text.split("\n")[1].split()
        sizes.append(len(values))
        tied += len(values) > 16 and len(set(values)) <= len(values) // 2
    assert {17, 33, 65} & set(sizes) and max(sizes) <= 70
    assert tied >= 20  # many equal keys in long lists: an unstable sort shows
    for _ in range(100):
        assert violation(fmt(TEST_CASES), render(generate(fmt(TEST_CASES), rng, cap=20))) is None


def test_violation_says_what_breaks_a_stated_format():
    grid = fmt("repeat 2:\n    int[0,1]*2\n")
    assert violation(grid, "0 1\n1 0\n") is None
    assert "out of [0, 1]" in violation(grid, "0 1\n5 0\n")
    assert "fewer tokens" in violation(grid, "0 1\n1\n")
    assert "more lines" in violation(grid, "0 1\n1 0\n1 1\n")
    assert "not in its alphabet" in violation(fmt("w:word[3]{01}\n"), "102\n")


# -- formats learnt from examples -----------------------------------------------------------------


def test_examples_give_counts_test_cases_and_soft_ranges():
    learnt = format_from_examples(["3\n3\n1 3 5\n2\n2 3\n4\n2 4 6 8\n"])
    assert learnt.text() == "t:int[~1,~3]\nrepeat t:\n    n:int[~1,~4]\n    int[~1,~8]*n\n"
    edges = format_from_examples(["5\n1 2\n1 3\n3 4\n3 5\n"])
    assert edges.text() == "n:int[~1,~5]\nrepeat n-1:\n    int[~1,~3] int[~1,~5]\n"
    queries = format_from_examples(["5 3\n0 4 0 2 7\n1 3\n3 5\n1 5\n"])
    assert queries.text().splitlines()[-3:] == ["int[~0,~7]*n", "repeat m:", "    int[~1,~3] int[~1,~5]"]


def test_cells_always_zero_or_one_and_fixed_width_bit_strings_stay_what_they_are():
    grid = format_from_examples(["0 0 0 0 0\n0 0 0 0 1\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n"])
    assert grid.text() == "repeat 5:\n    int[0,1]*5\n"
    seats = format_from_examples(["3\n101\n010\n110\n"])
    assert "word[3]{01}" in seats.text()


# -- statements ---------------------------------------------------------------------------------


def test_constraints_are_read_in_every_notation():
    found = constraints("($$$1 \\le n \\le 2 \\cdot 10^5$$$, $$$-10^9 \\le a_i, b_i \\le 10^9$$$)\n"
                        "- 1 <= k <= n <= 50\n- |x| <= 10^9\n- 0 <= m < 10^{18}\n- c_ij is 0 or 1\n")
    assert [str(e) for e in found["n"].highs][:1] == ["2*10^5"]
    assert [str(e) for e in found["a"].lows] == ["-10^9"] and [str(e) for e in found["b"].highs] == ["10^9"]
    assert [str(e) for e in found["k"].highs] == ["n", "50"]
    assert [str(e) for e in found["x"].lows] == ["-10^9"]
    assert [str(e) for e in found["m"].highs] == ["999999999999999999"]
    assert found["c"].choices == ("0", "1")


def test_a_statement_reads_into_a_format_with_its_bounds():
    codeforces = ("The first line contains $$$t$$$ ($$$1 \\le t \\le 10^4$$$). Each test case consists of a line with "
                  "$$$n$$$ ($$$1 \\le n \\le 2 \\cdot 10^5$$$) and a line with $$$a_1, \\ldots, a_n$$$ "
                  "($$$1 \\le a_i \\le n$$$).")
    assert statement_format(codeforces).text() == (
        "t:int[1,10^4]\nrepeat t:\n    n:int[1,2*10^5]\n    a:int[1,n]*n\n")
    plain = ("## Input\n\nThe first line holds n and m. Then n lines of m integers a_ij: 1 for a good cell.\n\n"
             "- 3 <= n, m <= 50\n- a_ij is 0 or 1\n\n## Output\n\nThe answer (1 <= answer <= 10^9).\n")
    assert statement_format(plain).text() == "n:int[3,50] m:int[3,50]\nrepeat n:\n    a:int[0,1]*m\n"
    words = "The first line is L or R. The second line is a string of lowercase letters.\n- 1 <= length <= 100\n"
    assert statement_format(words).text() == "(L|R)\nword[1,100]{a-z}\n"
    tree = ("The first line contains $$$n$$$ ($$$2 \\le n \\le 10^5$$$). Each of the next $$$n - 1$$$ lines "
            "contains an edge $$$u$$$ $$$v$$$ ($$$1 \\le u, v \\le n$$$).")
    assert statement_format(tree).text() == "n:int[2,10^5]\nrepeat n-1:\n    u:int[1,n] v:int[1,n]\n"
    counted = ("The first line holds n. The second line holds b, then the b distinct indices x_1 .. x_b.\n"
               "- 1 <= n <= 100\n- 0 <= b <= n, 0 <= x_i < n\n")
    assert statement_format(counted).text() == "n:int[1,100]\nb:int[0,n] x:int[0,n-1]*b\n"  # a count and its list on one line


# -- how programs read ------------------------------------------------------------------------------


@pytest.mark.parametrize(("language", "source", "expected"), [
    ("python", "n = int(input())\na = list(map(int, input().split()))\nprint(sum(a))\n", "n:int\na:int*n\n"),
    ("python", "import sys\ninput = sys.stdin.readline\nfor _ in range(int(input())):\n"
               "    n, k = map(int, input().split())\n    s = input().strip()\n",
     "t:int\nrepeat t:\n    n:int k:int\n    s:word\n"),
    ("cpp", "#include <bits/stdc++.h>\nusing namespace std;\nint main(){int t;cin>>t;while(t--){int n;cin>>n;"
            "vector<long long>a(n);for(auto&x:a)cin>>x;string s;cin>>s;}}\n",
     "t:int\nrepeat t:\n    n:int\n    int*n\n    word\n"),
    ("c", "#include <stdio.h>\nint a[105][105];\nint main(){int n,m,i,j;scanf(\"%d %d\",&n,&m);"
          "for(i=0;i<n;i++)for(j=0;j<m;j++)scanf(\"%d\",&a[i][j]);char s[10];scanf(\"%s\",s);}\n",
     "n:int m:int\nrepeat n:\n    int*m\nword\n"),
    ("java", "import java.util.*;\npublic class Main { public static void main(String[] x) {\n"
             "Scanner sc = new Scanner(System.in); int n = sc.nextInt(); long[] a = new long[n];\n"
             "for (int i = 0; i < n; i++) a[i] = sc.nextLong(); double d = sc.nextDouble(); } }\n",
     "n:int\nint*n\nd:float\n"),
])
def test_what_a_program_reads_is_its_format(language, source, expected):
    assert program_format(source, language).text() == expected


def test_a_program_read_it_cannot_follow_gives_no_format():
    assert program_format("import sys\nd = sys.stdin.read().split()\nif d[0] == '1':\n    x = input()\n",
                          "python") is None
    assert program_format("int main(){int c; while((c=getchar())!=EOF){}}", "c") is None


def test_inference_prefers_a_statement_every_example_fits_and_words_the_programs_read_as_strings():
    statement = ("The first line contains $$$n$$$ ($$$1 \\le n \\le 100$$$). The second line contains "
                 "$$$a_1, \\ldots, a_n$$$ ($$$1 \\le a_i \\le 10^9$$$).")
    inferred = infer_format(["3\n5 5 1\n"], statement=statement)
    assert inferred.text() == "n:int[1,100]\na:int[1,10^9]*n\n" and inferred.origin == "statement+examples"
    seats = infer_format(["101\n"], programs=[("s = input()\nprint(s.count('1'))\n", "python")])
    assert seats.text() == "word[1]{01}\n" or seats.tokens().__next__().type.kind is Kind.WORD


# -- engines within a format -------------------------------------------------------------------------


class _Services:
    generator = None

    def __init__(self, input_format, rejects=lambda text: ""):
        self.input_format = input_format
        self._rejects = rejects
        self.lessons = Lessons()

    def admit(self, items):
        return [not self._rejects(item.text) for item in items]

    def rejection_messages(self):
        return []

    def rejection_reason(self, item):
        return self._rejects(item.text)


def _context(services, seeds=()):
    return TextContext(implementations=(), seeds=tuple(seeds), constants=None,  # type: ignore[arg-type]
                       services=services)


def test_mutation_within_a_stated_format_never_breaks_a_stated_bound():
    stated = fmt("n:int[1,50]\na:int[-5,5]*n\nrepeat 2:\n    word[3]{ab}\n")
    engine = TextMutationEngine(_context(_Services(stated), [TextInput("3\n1 2 3\naba\nbbb\n")]))
    children = [child for _ in range(20) for child in engine.propose(20)]
    assert len(children) >= 200
    broken = [c.text for c in children if violation(stated, c.text)]
    assert not broken, broken[:3]


def test_mutation_stops_making_what_the_validator_always_rejects():
    # the validator takes any list but only k = 0: every change of k is rejected
    stated = fmt("k:int[0,9]\na:int[0,99]*6\n")

    def k_is_zero(text: str) -> str:
        return "" if text.split()[0] == "0" else "k must be 0"

    engine = TextMutationEngine(_context(_Services(stated, k_is_zero), [TextInput("0\n1 2 3 4 5 6\n")]))
    early = engine.propose(60)
    for _ in range(6):
        engine.propose(40)
    late = engine.propose(60)
    assert "number:0.0:inside" in engine.feedback.given_up()
    assert sum(bool(k_is_zero(c.text)) for c in late) < sum(bool(k_is_zero(c.text)) for c in early) / 2
    assert "stopped making what the validator always rejected: " in engine.explored


def test_rejections_give_up_a_kind_only_on_its_own_evidence():
    feedback = Rejections()
    services = _Services(None, lambda text: "no")
    for i in range(MIN_TRIES):
        feedback.made(TextInput(f"{i}\n"), ["number:x"])
        feedback.made(TextInput(f"{i} {i}\n"), ["number:x", "arrange:swap"])
    feedback.settle(services)
    assert feedback.given_up() == ["number:x"]
    assert sum(not feedback.allowed("number:x", random.Random(i)) for i in range(200)) > 150


def test_the_grammar_engine_draws_long_lists_of_ties_from_the_format():
    engine = GrammarEngine(_context(_Services(fmt("n:int[1,2*10^5]\ns:int[0,10^9]*n\n"))))
    drawn = [item.text for _ in range(5) for item in engine.propose(40)]
    long_ties = [t for t in drawn if len(t.split()) > 17 and len(set(t.split()[1:])) < len(t.split()) // 2]
    assert long_ties


def test_the_grammar_engine_needs_a_format():
    from divergent.errors import EngineCannotProceed

    with pytest.raises(EngineCannotProceed, match="no input format"):
        GrammarEngine(_context(_Services(None)))


def _ran(engine, items):
    """The search ran these inputs (each a behaviour of its own) and tells the engine."""
    from divergent.records import Observation, Outcome, OutcomeKind

    engine.observe([Observation(input=item, outcomes=(Outcome(OutcomeKind.OK, stdout=item.text),), classes=((0,),))
                    for item in items])


def _search_round(engine, rejects, n=20):
    """One round as a search plays it: the children the validator takes run (and are observed),
    the others are rejected and never run."""
    batch = engine.propose(n)
    _ran(engine, [item for item in batch if not rejects(item.text)])
    return batch


def test_mutation_learns_a_bound_only_the_validator_knows_and_stays_within_it():
    # the examples show n in [1, 20]; the validator takes [1, 25] (an inferred, soft bound)
    learnt = format_from_examples(["1\n", "7\n", "20\n"])
    assert learnt is not None

    def out_of_range(text: str) -> str:
        return "" if 1 <= int(text.split()[0]) <= 25 else "n is out of [1, 25]"

    services = _Services(learnt, out_of_range)
    seeds = [TextInput(t) for t in ("1\n", "7\n", "20\n")]
    engine = TextMutationEngine(_context(services, seeds))
    _ran(engine, seeds)
    made = []
    with pytest.raises(EngineCannotProceed, match="exhausted"):  # past the bound, only values tried before
        for _ in range(60):
            made.extend(_search_round(engine, out_of_range))
    values = {int(item.text) for item in made if not out_of_range(item.text)}
    assert values | {1, 7, 20} == set(range(1, 26))
    assert engine.feedback.lessons.ranges["0.0"].known() == (1, 25)
    # finding the bound cost some rejections (the first children go far), then none were new
    assert sum(bool(out_of_range(item.text)) for item in made) < 60
    what, inputs = engine.valid_space()
    assert what == "all 25 inputs of an integer in [1, 25], the validator's bounds"
    assert sorted(int(item.text) for item in inputs) == list(range(1, 26))


def test_mutation_with_a_format_keeps_a_count_then_list_input_valid():
    # n then n numbers in [1, 9] (the examples say so; the validator agrees): resized lists keep
    # their count, numbers stay where the validator takes them
    examples = ["3\n1 5 9\n", "5\n2 2 3 8 1\n"]
    learnt = format_from_examples(examples)
    assert learnt is not None and "*n" in learnt.text()

    def count_then_list(text: str) -> str:
        tokens = text.split()
        n = int(tokens[0])
        if len(tokens) != n + 1:
            return "bad count"
        if not 1 <= n <= 100:
            return "n is out of [1, 100]"
        return "" if all(1 <= int(v) <= 9 for v in tokens[1:]) else "a value is out of [1, 9]"

    engine = TextMutationEngine(_context(_Services(learnt, count_then_list), [TextInput(t) for t in examples]))
    early = [item for _ in range(2) for item in _search_round(engine, count_then_list)]
    for _ in range(20):
        _search_round(engine, count_then_list)
    late = [item for _ in range(5) for item in _search_round(engine, count_then_list)]
    assert not [item.text for item in early + late if count_then_list(item.text) == "bad count"]
    valid_late = sum(not count_then_list(item.text) for item in late)
    assert valid_late >= 0.8 * len(late), (valid_late, len(late))
    assert sum(not count_then_list(item.text) for item in early) < valid_late * len(early) / len(late) + len(early)


def test_characters_the_validator_rejects_are_no_longer_drawn():
    # the examples show B and G; the inferred alphabet is A-Z; the validator takes B and G only
    examples = ["5\nBGGBG\n", "4\nGGGB\n"]
    learnt = format_from_examples(examples)
    assert learnt is not None

    def only_b_and_g(text: str) -> str:
        n, word = [*text.split(), ""][:2]
        return "" if set(word) <= {"B", "G"} and len(word) == int(n) and 1 <= int(n) <= 50 else "B or G"

    services = _Services(learnt, only_b_and_g)
    services.lessons = Lessons()
    mutation = TextMutationEngine(_context(services, [TextInput(t) for t in examples]))
    for _ in range(40):
        _search_round(mutation, only_b_and_g)
    late = [item for _ in range(5) for item in _search_round(mutation, only_b_and_g)]
    assert sum(not only_b_and_g(item.text) for item in late) >= 0.8 * len(late)
    grammar = GrammarEngine(_context(services))  # draws steered by what mutation learnt
    drawn = grammar.propose(100)
    assert sum(not only_b_and_g(item.text) for item in drawn) >= 0.9 * len(drawn)


def test_a_learnt_range_bisects_the_gap_then_holds_the_bound():
    learnt = LearntRange()
    for value in (1, 20):
        learnt.accepted(value)
    learnt.refused(10**18)
    learnt.refused(-(10**18))
    rng = random.Random(0)
    tries = 0
    while learnt.known() is None and tries < 200:
        value = learnt.steer(10**18 if tries % 2 else -(10**18), rng)
        (learnt.accepted if 1 <= value <= 25 else learnt.refused)(value)
        tries += 1
    assert learnt.known() == (1, 25) and tries < 100, tries
    steered = [learnt.steer(10**9, rng) for _ in range(500)]
    assert all(1 <= v <= 26 for v in steered) and steered.count(25) > 200


def test_lists_the_validator_takes_in_one_order_only_are_made_in_it():
    # scores in non-increasing order: the examples have them so, the validator rejects any other
    examples = ["8 5\n10 9 8 7 7 7 5 5\n", "4 2\n0 0 0 0\n", "5 3\n9 7 7 3 1\n"]
    learnt = format_from_examples(examples)
    assert learnt is not None

    def non_increasing(text: str) -> str:
        tokens = [int(t) for t in text.split()]
        n, scores = tokens[0], tokens[2:]
        if len(scores) != n or not 1 <= tokens[1] <= n:
            return "bad shape"
        return "" if all(a >= b for a, b in itertools.pairwise(scores)) else "not in non-increasing order"

    services = _Services(learnt, non_increasing)
    services.lessons = Lessons()
    mutation = TextMutationEngine(_context(services, [TextInput(t) for t in examples]))
    early = [item for _ in range(3) for item in _search_round(mutation, non_increasing)]
    for _ in range(20):
        _search_round(mutation, non_increasing)
    assert services.lessons.order("1.0") == "descending"
    late = [item for _ in range(5) for item in _search_round(mutation, non_increasing)]
    share = sum(not non_increasing(item.text) for item in late) / len(late)
    assert share >= 0.8 and share > sum(not non_increasing(item.text) for item in early) / len(early)
    drawn = GrammarEngine(_context(services)).propose(100)  # (k <= n is another matter)
    assert sum(non_increasing(item.text) == "not in non-increasing order" for item in drawn) <= 0.1 * len(drawn)


def test_an_order_is_not_kept_once_an_unordered_list_was_valid():
    order = LearntOrder()
    for _ in range(10):
        order.accepted([3, 2, 1])
    order.refused = 10
    assert order.order() == "descending"
    order.accepted([1, 3, 2])
    assert order.order() is None


# -- patterns within tokens and relations between them --------------------------------------------


def test_a_word_shape_is_its_punctuation_and_the_lengths_between():
    assert shape_of("2A:13") == ((":",), (2, 2))
    assert shape_of("000B:00001") == ((":",), (4, 5))
    assert shape_of("a--b.c") == (("--", "."), (1, 1, 1))
    assert shape_of("abc") == ((), (3,))


def test_a_shape_is_kept_only_once_words_without_it_were_rejected_and_none_was_valid():
    shape = LearntShape()
    for word in ("11:20", "2A:13", "000B:00001"):
        shape.accepted(word)
    for word in ("1120", "2A::13", "ZZZ", "1:2:3"):
        shape.rejected(word)
    assert shape.kept() is None  # four rejections are not yet the evidence
    shape.rejected("A")
    assert shape.kept() == (":",)
    rng = random.Random(0)
    mended = [shape.mend(word, rng, 25) for word in ("Z5IN7P6P", "::", "ABCDEFGHIJKL", "2A:13") * 25]
    kept = [word for word in mended if shape_of(word)[0] == (":",) and all(1 <= n <= 5 for n in shape_of(word)[1])]
    assert len(kept) >= 0.9 * len(mended)
    shape.accepted("AB")  # a valid word without the colon: the shape was not the validator's
    assert shape.kept() is None


def test_a_relation_between_two_integers_holds_on_its_own_evidence_only():
    relations = LearntRelations()
    for n, m in ((3, 1), (4, 3), (10, 10), (7, 2), (100, 5)):
        relations.accepted([("n", n), ("m", m)])
    for n, m in ((1, 5), (2, 9), (3, 4), (10, 11)):
        relations.rejected([("n", n), ("m", m)])
    assert relations.kept() == []
    relations.rejected([("n", 5), ("m", 6)])
    assert relations.kept() == [("m", "n")]
    relations.accepted([("n", 1), ("m", 2)])
    assert relations.kept() == []


def _learnt_share(examples, rejects, rounds=30):
    """Mutation and the grammar from the examples, ``rounds`` rounds of each against ``rejects``:
    the share of valid inputs among what each made in the last five, and the lessons."""
    learnt = format_from_examples(examples)
    assert learnt is not None
    services = _Services(learnt, rejects)
    services.lessons = Lessons()
    seeds = [TextInput(t) for t in examples]
    mutation = TextMutationEngine(_context(services, seeds))
    grammar = GrammarEngine(_context(services))
    _ran(mutation, seeds)
    for _ in range(rounds):
        _search_round(mutation, rejects)
        _search_round(grammar, rejects)
    shares = []
    for engine in (mutation, grammar):
        late = [item for _ in range(5) for item in _search_round(engine, rejects)]
        shares.append(sum(not rejects(item.text) for item in late) / len(late))
    return shares, services.lessons


def test_words_of_one_shape_are_made_in_it():
    # a:b with 1 to 5 digits or capitals on each side, as in the examples
    pattern = re.compile(r"[0-9A-Z]{1,5}:[0-9A-Z]{1,5}")

    def time_like(text: str) -> str:
        return "" if pattern.fullmatch(text.strip()) else "not a:b"

    (mutation, grammar), lessons = _learnt_share(["11:20\n", "2A:13\n", "000B:00001\n"], time_like)
    assert lessons.shapes["0.0"].kept() == (":",)
    assert "0.0 words shaped x:x" in lessons.learnt()  # (reported beside the format)
    assert mutation >= 0.8 and grammar >= 0.8, (mutation, grammar)


def test_two_integers_are_made_in_the_relation_the_validator_keeps():
    def m_at_most_n(text: str) -> str:
        n, m = (int(t) for t in text.split())
        return "" if 1 <= m <= n <= 10**9 else "m exceeds n, or out of range"

    (mutation, grammar), lessons = _learnt_share(["30 10\n", "400 300\n", "1000 1\n"], m_at_most_n)
    assert ("0.1", "0.0") in lessons.relations.kept()
    assert "0.1 <= 0.0" in lessons.learnt()
    assert mutation >= 0.75 and grammar >= 0.75, (mutation, grammar)


def test_lists_strictly_in_order_are_made_without_ties_and_counts_drawn_where_valid():
    def increasing(text: str) -> str:
        tokens = [int(t) for t in text.split()]
        n, minutes = tokens[0], tokens[1:]
        if not 1 <= n <= 90 or len(minutes) != n or not all(1 <= t <= 90 for t in minutes):
            return "out of range"
        return "" if all(a < b for a, b in itertools.pairwise(minutes)) else "not strictly increasing"

    (_, grammar), lessons = _learnt_share(["3\n7 20 88\n", "9\n16 20 30 40 50 60 70 80 90\n"], increasing,
                                                  rounds=40)
    assert lessons.orders["1.0"].strict()
    assert "1.0 lists strictly ascending" in lessons.learnt()
    assert grammar >= 0.75, grammar


def test_a_rejected_draw_blames_the_one_value_unlike_the_valid_ones():
    lessons = Lessons()
    for n in (6, 7, 8):
        lessons.accepted("0.0", n)
    lessons.accepted("1.0", Word("abc"))
    feedback = Rejections(lessons)
    services = _Services(None, lambda text: "no")
    feedback.made(TextInput("3\nabc\n"), ["drawn:0"], [("0.0", 3), ("1.0", Word("abc"))], whole=True)
    feedback.made(TextInput("2\nxyz\n"), ["drawn:0"], [("0.0", 2), ("1.0", Word("xyz"))], whole=True)
    feedback.settle(services)
    assert lessons.ranges["0.0"].too_low() == 3  # the second draw had two new values: no blame
    assert not lessons.alphabets["1.0"].refused


def test_drawn_counts_can_be_steered():
    learnt = fmt("n:int[1,100]\na:int[0,9]*n\n")
    drawn = [generate(learnt, random.Random(seed), cap=50, steer=lambda spec, value: 7) for seed in range(20)]
    assert {len(tree[1].parts[0].items) for tree in drawn} == {7}


def test_integers_written_with_few_digits_are_kept_to_them():
    digits = LearntDigits()
    for value in (7, 47, 74):
        digits.accept(value)
    for value in (46, 15, 33, 40):
        digits.rejected(value)
    assert not digits.kept()
    digits.rejected(8)
    assert digits.kept()
    rng = random.Random(0)
    mended = [digits.mend(value, rng, 25) for value in (12345, 46, 0, 777) * 50]
    assert sum(set(str(v)) <= {"4", "7"} for v in mended) >= 0.9 * len(mended)

    def lucky(text: str) -> str:
        a, b = (int(t) for t in text.split())
        return "" if 1 <= a <= 10**5 and 1 <= b <= 10**5 and set(str(b)) <= {"4", "7"} else "b is not lucky"

    (mutation, grammar), lessons = _learnt_share(["1 7\n", "100 47\n"], lucky, rounds=40)
    assert "0.1 written with the digits 47" in lessons.learnt()
    assert mutation >= 0.7 and grammar >= 0.7, (mutation, grammar)


def test_a_relation_is_suspected_only_where_the_rejected_change_was():
    relations = LearntRelations()
    for n, m in ((3, 1), (4, 3), (10, 10), (7, 2), (100, 5)):
        relations.accepted([("n", n), ("m", m), ("k", 0)])
    for _ in range(10):  # k changed: n and m are no suspects
        relations.rejected([("n", 3), ("m", 5), ("k", 9)], "k")
    assert ("m", "n") not in relations.kept()
    for _ in range(5):
        relations.rejected([("n", 3), ("m", 5), ("k", 0)], "m")
    assert ("m", "n") in relations.kept()


def test_words_keep_the_length_the_validator_takes():
    def direction_and_word(text: str) -> str:
        direction, word = [*text.split("\n"), ""][:2]
        return "" if direction in ("L", "R") and word.isalpha() and word.islower() else "L or R, then a word"

    (mutation, grammar), lessons = _learnt_share(["R\nabcd\n", "L\nxyz\n"], direction_and_word, rounds=40)
    assert lessons.ranges["0.0#length"].too_high() == 2  # one letter: a second is rejected
    assert mutation >= 0.8 and grammar >= 0.8, (mutation, grammar)


def test_the_corners_of_a_grid_keep_the_one_value_the_validator_takes_there():
    def corners_empty(text: str) -> str:
        rows = [[int(t) for t in line.split()] for line in text.strip().split("\n")]
        (n, m), grid = rows[0], rows[1:]
        if not (3 <= n <= 50 and 3 <= m <= 50 and len(grid) == n and all(len(row) == m for row in grid)):
            return "bad shape"
        if any(cell not in (0, 1) for row in grid for cell in row) or not any(1 in row for row in grid):
            return "cells are 0 or 1, one at least 1"
        return "a corner is good" if grid[0][0] or grid[0][-1] or grid[-1][0] or grid[-1][-1] else ""

    examples = ["3 3\n0 0 0\n0 1 0\n0 0 0\n", "4 3\n0 0 0\n0 0 1\n1 0 0\n0 0 0\n"]
    (_, grammar), lessons = _learnt_share(examples, corners_empty, rounds=40)
    corners = [end for end in lessons.learnt() if end.endswith("@first.first is 0") or end.endswith("@last.last is 0")]
    assert len(corners) == 2, lessons.learnt()
    assert grammar >= 0.6, grammar
