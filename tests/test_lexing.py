"""The one lexer of C, C++ and Java sources (formats/lexing.py), and the two readers built on it: the
input format a program reads (formats/reading_c.py) and the literals mutation borrows
(engines/constants.py)."""

from __future__ import annotations

from divergent.engines.constants import program_literals
from divergent.formats.lexing import lex
from divergent.formats.reading_c import c_family_format


def _kinds(source: str, language: str = "cpp") -> list[tuple[str, str]]:
    return [(lexeme.kind, lexeme.value if lexeme.value is not None else lexeme.text) for lexeme in lex(source, language)]


def test_a_comment_marker_inside_a_string_is_part_of_the_string() -> None:
    assert _kinds('cout << "see http://x" << n;') == [
        ("ident", "cout"), ("op", "<<"), ("string", "see http://x"), ("op", "<<"), ("ident", "n"), ("op", ";")]


def test_a_quote_inside_a_comment_is_part_of_the_comment() -> None:
    assert _kinds('/* say "hi */ int a; // it\'s "x\nint b;') == [
        ("ident", "int"), ("ident", "a"), ("op", ";"), ("ident", "int"), ("ident", "b"), ("op", ";")]


def test_raw_strings_run_to_their_own_delimiter() -> None:
    assert _kinds('auto s = R"(a "b" // c)"; auto t = R"x(y)" z)x";') == [
        ("ident", "auto"), ("ident", "s"), ("op", "="), ("string", 'a "b" // c'), ("op", ";"),
        ("ident", "auto"), ("ident", "t"), ("op", "="), ("string", 'y)" z'), ("op", ";")]


def test_digit_separators_belong_to_their_number() -> None:
    assert _kinds("long n = 1'000'000; char c = 'y'; auto h = 0xFF'FF;") == [
        ("ident", "long"), ("ident", "n"), ("op", "="), ("number", "1'000'000"), ("op", ";"),
        ("ident", "char"), ("ident", "c"), ("op", "="), ("char", "y"), ("op", ";"),
        ("ident", "auto"), ("ident", "h"), ("op", "="), ("number", "0xFF'FF"), ("op", ";")]


def test_preprocessor_lines_and_their_continuations_are_dropped_in_c_not_in_java() -> None:
    assert _kinds('#include "a.h"\n#define N \\\n  5\nint x;') == [("ident", "int"), ("ident", "x"), ("op", ";")]
    assert ("op", "#") in _kinds("# x", "java")


def test_escapes_and_java_text_blocks() -> None:
    assert _kinds(r'"a\tb\x41\101\n"') == [("string", "a\tbAA\n")]
    assert _kinds('String s = """\n  hi "there"\n""";', "java")[3] == ("string", '  hi "there"\n')


def test_a_url_printed_before_the_reads_no_longer_hides_them() -> None:
    source = """
    #include <bits/stdc++.h>
    using namespace std;
    int main() {
        int n; cin >> n;
        cout << "see http://x" << endl;
        vector<int> a(n);
        for (int i = 0; i < n; i++) cin >> a[i];
        string s; cin >> s;
        cout << s << endl;
    }
    """
    fmt = c_family_format(source, "cpp")
    assert fmt is not None
    assert [line.strip() for line in fmt.text().splitlines()] == ["n:int", "int*n", "word"]


def test_literals_of_raw_strings_and_not_of_comments() -> None:
    source = 'int main() { // "comment"\n auto v = R"(ae"iou)"; char c = \'y\'; long m = 1\'000; }'
    assert program_literals(source, "cpp") == ('ae"iou', "y")
