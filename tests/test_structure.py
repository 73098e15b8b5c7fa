"""Inputs shaped like the code expects: folding, mining, the grammars, the banks, the engines' use
of them, and the check end to end (regexes, date formats, valueless attributes, dict keys)."""

from __future__ import annotations

import ast
import datetime
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from random import Random

import pytest

import divergent
from divergent.engines.base import CallContext
from divergent.engines.calls.mutation import MutationEngine
from divergent.engines.calls.seeds import SeedEngine
from divergent.engines.constants import Constants
from divergent.errors import EngineCannotProceed, InvalidArgument
from divergent.grammars import markup, numbers, urls
from divergent.grammars.dates import DateFields, date_strings, neighbour_formats, render
from divergent.grammars.edits import reshape
from divergent.grammars.hints import literal_hints, name_hints, regex_hints
from divergent.grammars.regex import sample_regex
from divergent.load.signatures import signature_from_ast
from divergent.programs import Parameter, PythonFunction, Signature
from divergent.records import Budget, Input, Verdict
from divergent.structure import mine_structure, parse_input_regexes
from divergent.structure.folding import CompiledPattern, Folder
from divergent.structure.inputs import ShapedInputs, literal_strings
from divergent.structure.mining import Collected, is_date_format, mine_function
from divergent.structure.scope import ModuleIndex

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''
import datetime
import operator
import re

DATE_FORMATS = ('%d %B %Y', '%Y-%m-%d', '%Y/%m/%d %H:%M:%S')
DAY_FIRST = list(DATE_FORMATS)
DAY_FIRST.extend(['%d.%m.%Y'])
SCHEME_RE = re.compile(r'^(?:https?:)?//', re.I)

def date_formats(day_first=True):
    return DAY_FIRST if day_first else DATE_FORMATS

def unified(date_str, day_first=True):
    date_str = date_str.replace(',', ' ').strip()
    for expression in date_formats(day_first):
        try:
            return datetime.datetime.strptime(date_str, expression).strftime('%Y%m%d')
        except ValueError:
            pass

def is_url(url):
    return bool(SCHEME_RE.match(url.strip()))

def match_one(filter_part, dct):
    OPERATORS = {'<': operator.lt, '>=': operator.ge, '!=': operator.ne}
    rex = re.compile(r'(?P<key>[a-z_]+)\\s*(?P<op>%s)\\s*(?P<value>[0-9]+)$' % '|'.join(map(re.escape, OPERATORS.keys())))
    m = rex.search(filter_part)
    return m and OPERATORS[m.group('op')](dct.get(m.group('key')), int(m.group('value')))

def lookup(table, s):
    units = '|'.join(re.escape(u) for u in table)
    return re.match(r'(?P<num>[0-9]+)\\s*(?P<unit>%s)\\b' % units, s)

def parse_size(s):
    return lookup({'KiB': 1024, 'MB': 1000 ** 2}, s)

def settings(d, path):
    if d['mode'] == 'fast' and d.get('level') and 'name' in d:
        return path.split('/')
    return path.startswith('/admin')
'''


def mined(name: str, target: str) -> object:
    return mine_function(ModuleIndex(MODULE), name)[target]


# -- folding and mining ----------------------------------------------------------------------------


def test_folding_builds_patterns_from_pieces() -> None:
    names = {"OPS": [{"<": 1, ">=": 2}], "BASE": ["ab"]}
    folder = Folder(lambda name: names[name])
    expression = ast.parse("re.compile(r'(?P<op>%s)' % '|'.join(map(re.escape, OPS.keys())) + f'{BASE}!', re.I | re.X)", mode="eval").body
    (value,) = folder.values(expression)
    assert value == CompiledPattern("(?P<op><|>=)ab!", re.I | re.X)
    assert folder.values(ast.parse("undefined_call(1)", mode="eval").body) == []
    # a replacement field that would read attributes of its argument is not folded
    assert folder.values(ast.parse("'{0.__class__}'.format('x')", mode="eval").body) == []


def test_mining_ties_patterns_formats_and_literals_to_parameters() -> None:
    dates = mined("unified", "date_str")
    formats = {use.format for use in dates.formats}
    assert {"%d %B %Y", "%Y-%m-%d", "%d.%m.%Y"} <= formats  # a loop over a list a helper returns, extended
    assert (",", "replace") in dates.literals and dates.kinds["str"] > 0
    assert "date" in dates.grammars
    url = mined("is_url", "url")
    assert [(use.pattern, use.flags) for use in url.regexes] == [(r"^(?:https?:)?//", re.I)]
    assert "url" in url.grammars
    filter_part = mined("match_one", "filter_part")
    (use,) = filter_part.regexes
    assert "(?P<op><|>=|!=)" in use.pattern  # folded from the operators' keys
    assert mined("match_one", "dct").kinds["dict"] > 0
    size = mined("parse_size", "s")  # the helper's pattern, with the unit table the caller passes
    assert any("KiB|MB" in use.pattern for use in size.regexes)
    record = mined("settings", "d")
    assert set(record.keys) == {"mode", "level", "name"}
    path = mined("settings", "path")
    assert ("/", "split") in path.literals and ("/admin", "startswith") in path.literals


def test_mine_structure_merges_implementations_and_given_regexes() -> None:
    function = PythonFunction(label="m.py:is_url", entry_point="is_url", source=MODULE,
                              signature=Signature(parameters=(Parameter("url"),)))
    structure = mine_structure([function, function], function.signature, {"url": ("ftp://\\w+",)})
    record = structure.of("url")
    assert record.regexes[0].user and record.regexes[0].pattern == "ftp://\\w+"
    assert len(record.regexes) == 2 and record.kind == "str"
    summary = structure.to_json()["url"]
    assert summary["regexes"][0] == {"pattern": "ftp://\\w+", "flags": 0, "how": "given", "given": True}
    assert any("given regex" in note for note in structure.notes())


def test_input_regexes_are_checked() -> None:
    signature = Signature(parameters=(Parameter("url"),))
    assert parse_input_regexes(["url=a+", "url=b"], signature) == {"url": ("a+", "b")}
    for bad in ("url", "nope=a", "url=(unclosed"):
        with pytest.raises(InvalidArgument):
            parse_input_regexes([bad], signature)


def test_date_format_detection() -> None:
    assert is_date_format("%Y-%m-%d") and is_date_format("%d %b %Y %H:%M")
    assert not is_date_format("%d items") and not is_date_format("%s: %d")


# -- the grammars ----------------------------------------------------------------------------------


def test_regex_samples_match_fully_partly_or_nearly() -> None:
    pattern = r"(?P<num>[0-9]+)\s*(?P<unit>KiB|MB)"
    samples = sample_regex(pattern, count=12, seed=3)
    assert samples.full and all(re.fullmatch(pattern, s) for s in samples.full)
    assert samples.ascii_drawable
    assert samples.partial and all(re.search(pattern, s) for s in samples.partial)
    assert samples.near and any(not re.fullmatch(pattern, s) for s in samples.near)
    assert sample_regex("(unclosed").problem.startswith("does not compile")


def test_dates_in_each_format_with_edges_and_neighbours() -> None:
    texts = date_strings(["%Y-%m-%d", "%d/%m/%Y"])
    assert "2004-02-29" in texts and "29/02/2004" in texts  # a leap day in each
    assert "2021-13-01" in texts and "2023-02-29" in texts  # month 13, 29 February of a common year
    for text in texts[:8]:
        if re.fullmatch(r"\d{4}-\d\d-\d\d", text):
            datetime.datetime.strptime(text, "%Y-%m-%d")
    assert "%m/%d/%Y" in neighbour_formats("%d/%m/%Y")
    assert render("%H:%M %p", DateFields(hour=24)) == "24:00 PM"


def test_grammar_edits_change_one_part() -> None:
    rng = Random(1)
    assert any(re.search(r"<input [a-z]+>", markup.mutate('<input type="checkbox">', rng) or "") for _ in range(60))
    url = "http://example.com/a/b"
    changed = {urls.mutate(url, rng) for _ in range(60)}
    assert any(c and not c.startswith("http://") for c in changed) and any(c and "/a/a" in c for c in changed)
    assert "1,000" in numbers.spellings(1000) and "0x3e8" in numbers.spellings(1000)
    edits = {reshape("duration > 30", rng, words=("views",))[1] for _ in range(80)}
    assert {"swap-tokens", "drop-token", "add-word"} <= edits
    assert any(name.startswith("grammar-") for name in edits)


def test_hints_point_to_grammars() -> None:
    assert "url" in name_hints("page_url") and "date" in name_hints("uploadDate")
    assert "url" in literal_hints("://") and "markup" in literal_hints("&amp;")
    assert "markup" not in regex_hints(r"(?P<op><|>=)")  # a named group's angle bracket is no tag
    assert "url" in regex_hints(r"^(?:https?:)?//")


def test_literal_strings_follow_the_use() -> None:
    texts = literal_strings([("/", "split"), ("v", "startswith"), (".mp4", "endswith")])
    assert {"a/b/c", "/a", "a//b", "vabc", "abc.mp4"} <= set(texts)


# -- the banks and the engines ---------------------------------------------------------------------


def context_for(name: str, seeds: tuple[Input, ...] = ()) -> CallContext:
    function = PythonFunction(label=f"m.py:{name}", entry_point=name, source=MODULE,
                              signature=load_signature(name))
    structure = mine_structure([function], function.signature)
    return CallContext(
        implementations=(function,), signature=function.signature, seeds=seeds,
        constants=Constants.harvest([MODULE]), shaped=ShapedInputs(structure, seed=1),
    )


def load_signature(name: str) -> Signature:
    return signature_from_ast(next(n for n in ast.parse(MODULE).body if isinstance(n, ast.FunctionDef) and n.name == name))


def test_banks_interleave_their_sources() -> None:
    shaped = context_for("unified").shaped
    assert shaped is not None
    bank = shaped.values("date_str")
    assert "2004-02-29" in bank[:60] and "14 March 2021" in bank[:60]
    assert shaped.values("day_first") == ()  # a flag with a bool default takes no text
    dicts = context_for("settings").shaped.values("d")  # type: ignore[union-attr]
    assert {"mode": 1, "level": -1, "name": 0} in dicts or any(set(d) == {"mode", "level", "name"} for d in dicts)


def test_regexes_are_sampled_into_the_bank() -> None:
    shaped = context_for("is_url").shaped
    assert shaped is not None
    bank = shaped.values("url")
    assert not shaped.problems, shaped.problems  # a sampling failure is a problem, never silent
    assert shaped.sampled_regexes("url")
    assert any(isinstance(v, str) and re.match(r"^(?:https?:)?//", v, re.I) for v in bank)


def test_seed_engine_proposes_shaped_calls_without_seeds() -> None:
    engine = SeedEngine(context_for("match_one"))
    calls = []
    try:
        while True:
            calls.extend(engine.propose(50))
    except EngineCannotProceed:
        pass
    assert len(calls) >= 20
    coupled = [c for c in calls if isinstance(c.args[1], dict) and c.args[1] and
               any(key in c.args[0] for key in c.args[1])]
    assert coupled  # dicts keyed by the words of the filter beside them


def test_mutation_tries_a_trailing_word_first_and_uses_the_banks() -> None:
    context = context_for("is_url", seeds=(Input(("abc",)),))
    engine = MutationEngine(context)
    first = [c.args[0] for c in engine.propose(4)]
    assert any(value.startswith("abc") and len(value) > 3 for value in first)  # a word added
    values = {c.args[0] for c in draw(engine, 600)}
    assert any(v.startswith("//") or "://" in v for v in values)
    assert any(name.startswith(("shaped:", "reshape:")) for name in engine._mutator.applied) or any(
        name.startswith("str:shaped-value") for name in engine.operator_counts
    )


def test_hypothesis_draws_from_the_banks_and_the_regexes() -> None:
    from divergent.engines.calls.hypothesis import HypothesisEngine

    engine = HypothesisEngine(context_for("is_url"))  # unannotated, no seeds: the regex says text
    values = [c.args[0] for c in draw(engine, 300)]
    assert all(isinstance(v, str) for v in values)
    assert sum(bool(re.match(r"^(?:https?:)?//", v, re.I)) for v in values) >= 20


def draw(engine: object, count: int) -> list[Input]:
    found: list[Input] = []
    while len(found) < count:
        found.extend(engine.propose(100))  # type: ignore[attr-defined]
    return found


# -- end to end --------------------------------------------------------------------------------------


def write(directory: Path, name: str, source: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return str(path)


FIXED_URL = r"""
import re

def url_or_none(url):
    if not url or not isinstance(url, str):
        return None
    url = url.strip()
    return url if re.match(r'^(?:(?:https?|rt(?:m(?:pt?[es]?|fp)|sp[su]?)|mms|ftps?):)?//', url) else None
"""
BUGGY_URL = FIXED_URL.replace("(?:https?|rt(?:m(?:pt?[es]?|fp)|sp[su]?)|mms|ftps?)", "https?")

FIXED_ATTRIBUTES = r"""
import re

def tag_attributes(html_element):
    found = {}
    for m in re.finditer(r'''\s+(?P<key>[a-zA-Z0-9:._-]+)(?:=(?P<value>"[^"]*"|'[^']*'))?''', html_element):
        found[m.group('key')] = (m.group('value') or '').strip('"\'') or None
    return found
"""
BUGGY_ATTRIBUTES = FIXED_ATTRIBUTES.replace(r"""(?:=(?P<value>"[^"]*"|'[^']*'))?""", r"""=(?P<value>"[^"]*"|'[^']*')""")


def test_the_kind_of_an_unannotated_parameter_comes_from_its_uses() -> None:
    source = textwrap.dedent('''
        def scale(value, unit, items, flag, label):
            if isinstance(flag, (int, float)):
                flag = -flag
            total = value / 1024
            for item in items:
                total += item
            return str(int(unit)) + (label + "s")
    ''')
    found = mine_function(ModuleIndex(source), "scale")
    kinds = {name: found[name].kinds.most_common(1)[0][0] for name in ("value", "unit", "items", "flag", "label")}
    assert kinds == {"value": "number", "unit": "number", "items": "list", "flag": "number", "label": "str"}
    more = mine_function(ModuleIndex(textwrap.dedent('''
        import itertools, unicodedata
        from urllib.parse import urlparse
        def f(url, label, pos, left, text, raw):
            parts = urlparse(url)
            code = ord(label[pos])
            head = list(itertools.takewhile(str.isdigit, left))
            found = PATTERNS[0].match(text)
            return unicodedata.normalize("NFKD", raw)
    ''')), "f")
    assert {name: more[name].kinds.most_common(1)[0][0] for name in ("url", "label", "pos", "left", "text", "raw")} == {
        "url": "str", "label": "str", "pos": "number", "left": "list", "text": "str", "raw": "str"}
    # formatting and joining are no arithmetic
    formatting = mine_function(ModuleIndex("def f(x, y):\n    return '%s!' % x + y\n"), "f")
    assert "number" not in formatting.get("x", Collected()).kinds


def test_an_unannotated_number_needs_no_seed(tmp_path: Path) -> None:
    body = "    value = int(value)\n    if not 0 {} value < 10:\n        return str(value)\n    return 'n' * value\n"
    a = write(tmp_path, "a.py", "def apnumber(value):\n" + body.format("<="))
    b = write(tmp_path, "b.py", "def apnumber(value):\n" + body.format("<"))
    report = divergent.check([f"{a}:apnumber", f"{b}:apnumber"], engines="seeds,mutation", budget=Budget(seconds=20))
    assert report.verdict is Verdict.DIVERGENT, report.notes
    assert report.inferred_inputs["value"]["kind"] == "number"


@pytest.mark.parametrize(("fixed", "buggy", "function"), [
    (FIXED_URL, BUGGY_URL, "url_or_none"),
    (FIXED_ATTRIBUTES, BUGGY_ATTRIBUTES, "tag_attributes"),
])
def test_check_finds_bugs_that_need_structured_strings(tmp_path: Path, fixed: str, buggy: str, function: str) -> None:
    a = write(tmp_path, "fixed.py", fixed)
    b = write(tmp_path, "buggy.py", buggy)
    # unannotated and no seeds: the kinds come from the code's own uses
    report = divergent.check([f"{a}:{function}", f"{b}:{function}"], engines="seeds,mutation", budget=Budget(seconds=20))
    assert report.verdict is Verdict.DIVERGENT, report.notes
    assert report.inferred_inputs and any(p.get("regexes") for p in report.inferred_inputs.values())


def test_cli_input_regex_and_the_json_report(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def f(code: str) -> bool:\n    return code.startswith('ZX-')\n")
    b = write(tmp_path, "b.py", "def f(code: str) -> bool:\n    return code[:3] == 'ZX-' and len(code) < 9\n")
    command = [sys.executable, "-m", "divergent", "check", a, b, "--function", "f", "--budget", "20", "--json",
               "--engines", "seeds,mutation", "--input-regex", r"code=ZX-\d{6,8}"]
    completed = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    payload = json.loads(completed.stdout)
    assert payload["verdict"] == "divergent"
    assert payload["inferred_inputs"]["code"]["regexes"][0]["given"] is True
    assert any("given regex" in note for note in payload["notes"])
    bad = subprocess.run([*command[:-2], "--input-regex", "nope=x"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert bad.returncode == 2 and "no parameter 'nope'" in bad.stdout + bad.stderr
    assert not (tmp_path / ".hypothesis").exists()
