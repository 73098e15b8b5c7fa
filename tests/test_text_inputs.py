"""Text inputs: the structure read from an example, mutation that keeps counts true, shrinking."""

from __future__ import annotations

import random

import pytest

from divergent.engines.base import TextContext
from divergent.engines.constants import Constants, program_literals
from divergent.engines.text.feedback import Rejections
from divergent.engines.text.lessons import Lessons
from divergent.engines.text.mutation import (
    TextMutationEngine,
    boundary_numbers,
    numbers_in_text,
    source_words,
)
from divergent.engines.text.operators import TreeMutator
from divergent.formats.instances import read
from divergent.formats.syntax import parse_format
from divergent.formats.text_structure import counts, parse, render
from divergent.kinds.text_shrink import shrink_text
from divergent.programs import Language, StdinProgram
from divergent.records import TextInput

EXAMPLES = [
    "3\n1 2 3\n",
    "2\n1 2\n3 4\n",
    "2\n3\n1 2 3\n2\n5 6\n",
    "5\nabcde\n",
    "3 4\n....\n.#..\n....\n",
    "2 3\n1 2 3\n4 5 6\n",
    "2\n3 1 2 3\n2 5 6\n",
    "4 2\n1 2 3 4\n5 6\n",
    "hello world\n",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_the_structure_renders_the_example_back(text):
    assert render(parse(text)) == text


def test_counts_are_found_where_inputs_say_how_many_things_follow():
    assert [c.value for c in counts(parse("3\n1 2 3\n"))] == [3]
    assert [c.value for c in counts(parse("2\n3\n1 2 3\n2\n5 6\n"))] == [2, 3, 2]  # t test cases, each with n
    assert [c.value for c in counts(parse("3 4\n....\n.#..\n....\n"))] == [3, 4]  # a grid and its width
    assert [c.value for c in counts(parse("1 2\n"))] == []


class _Services:
    """The engines' view of a search over whole programs, without a validator."""

    generator = None

    def __init__(self, messages=(), input_format=None):
        self.messages = list(messages)
        self.input_format = input_format
        self.lessons = Lessons()

    def admit(self, items):
        return [True] * len(items)

    def rejection_messages(self):
        return self.messages

    def rejection_reason(self, item):
        return ""


def engine(seeds, messages=(), source="const int MAXN = 200005;") -> TextMutationEngine:
    program = StdinProgram(label="p.cpp", source=source, language=Language.CPP)
    context = TextContext(implementations=(program,), seeds=tuple(TextInput(s) for s in seeds),
                          constants=Constants(), seed=3, services=_Services(messages))  # type: ignore[arg-type]
    return TextMutationEngine(context)


def consistent(text: str) -> bool:
    rows = [row.split() for row in text.splitlines()]
    cases = int(rows[0][0])
    position, seen = 1, 0
    while position < len(rows):
        n = int(rows[position][0])
        if len(rows[position + 1]) != n:
            return False
        position, seen = position + 2, seen + 1
    return seen == cases


def test_mutation_keeps_test_counts_and_list_lengths_true():
    mutation = engine(["2\n3\n1 2 3\n2\n5 6\n"])
    children = [item.text for item in mutation.propose(300)]
    assert len(children) == 300 and len(set(children)) == 300
    assert all(consistent(text) for text in children), [t for t in children if not consistent(t)][:3]
    sizes = {int(text.split()[0]) for text in children}
    assert len(sizes) > 3  # test cases were added and removed, not only values changed


def test_mutation_reaches_boundaries_from_examples_sources_and_the_validator():
    mutation = engine(["1\n5\n"], messages=["n = 100001 out of range [1, 100000]"])
    numbers = {int(tok) for item in mutation.propose(2000) for tok in item.text.split()[1:] if tok.lstrip("-").isdigit()}
    assert {0, 2**31, 10**9, 10**18} & numbers
    assert {100000, 100001} & numbers  # learned from the validator's message
    assert {200004, 200005} & numbers  # a constant of the program's source
    assert 200005 in boundary_numbers(numbers_in_text("#define N 200005"))
    assert numbers_in_text("MOD = 1e9 + 7, x[2e5]") == [1000000000, 7, 200000]


C_SOURCE = r"""#include <stdio.h>
#include "local.h"
// it's a 'comment'
int main(void) {
    char *keys = "qwertyuiop;,./"; /* 'x' "y" */
    int c = getchar(), big = 1'000'000;
    if (c == '+' || c == '\\' || c == '\'') printf("%d\n", big);
    if (c == '\x41') puts("YES");
    return 0;
}
"""


def test_the_literals_of_c_java_and_python_sources_are_read_without_running_them():
    assert program_literals(C_SOURCE, "cpp") == ("qwertyuiop;,./", "+", "\\", "'", "%d\n", "A", "YES")
    assert program_literals('String v = "aeiouy"; char q = \'Q\'; // "no"', "java") == ("aeiouy", "Q")
    assert program_literals('s = input()\nprint("YES" if "H" in s else "NO")\n', "python") == ("YES", "NO", "H")
    assert program_literals("print('unterminated\n", "python") == ()  # a syntax error: nothing, no exception
    assert program_literals('x = "a', "c") == ()
    program = StdinProgram(label="p.c", source=C_SOURCE, language=Language.C)
    assert source_words([program]) == ["qwertyuiop;,./", "+", "\\", "'", "A", "YES"]  # not the printf format


def test_mutation_tries_the_characters_and_words_the_programs_compare_against():
    # samples rarely hold the character a wrong solution mishandles ('y' among the vowels)
    mutation = engine(["tour\n", "Codeforces\n"], source='if (strchr("aoyeui", c) || c == \'+\') n++;')
    words = [item.text.strip() for item in mutation.propose(1000)]
    assert any("y" in word for word in words) and any("+" in word for word in words)
    assert any("aoyeui" in word for word in words)
    plain = engine(["tour\n", "Codeforces\n"], source="int main(void) { return 0; }")
    assert not any("y" in item.text or "+" in item.text for item in plain.propose(1000))


def test_the_programs_words_are_tried_where_the_validator_rejects_other_word_changes():
    eevee = parse_format("n:int[6,8]\nword[n]{.a-z}\n")
    feedback = Rejections()
    mutator = TreeMutator(random.Random(1), numbers=lambda: [0], named=lambda: [], alphabet=list("j."),
                          feedback=feedback, size_cap=lambda: 20, literals=["umbreon", "+"])
    feedback.tried["char:1.0"] = feedback.rejected["char:1.0"] = 100  # every random change was rejected
    made = []
    for _ in range(400):
        tree = read(eevee, "7\nj......\n")
        if mutator.word(tree) is not None:
            made.append(render(tree))
    assert any("umbreon" in text for text in made)
    assert len(made) < 200  # the other word changes are (nearly all) no longer made


def test_mutation_makes_lists_of_all_zeros_and_all_ones():
    children = {item.text for item in engine(["5\n2 5 4 3 4\n"]).propose(1000)}
    assert "5\n0 0 0 0 0\n" in children and "5\n1 1 1 1 1\n" in children


def test_without_examples_mutation_starts_from_small_inputs():
    mutation = engine([])
    first = [item.text for item in mutation.propose(10)]
    assert first[0] == "1\n" and len(first) == 10


def test_shrinking_keeps_counts_and_reaches_the_smallest_input():
    # The difference: some element is a multiple of 7 and larger than 20.
    def differs(text: str) -> bool:
        rows = text.split("\n")
        values = [int(v) for v in rows[1].split()]
        return int(rows[0]) == len(values) and any(v % 7 == 0 and v > 20 for v in values)

    start = TextInput("6\n5 98 13 700 2 8\n", how_generated="mutation")
    shrunk = shrink_text(start, still_divergent=lambda batch: [differs(item.text) for item in batch], seconds=10)
    assert shrunk.text == "1\n21\n"
    assert shrunk.how_generated == "mutation"
