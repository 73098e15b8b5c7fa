"""The HTML reports: each kind opened in headless Chromium shows its verdict, its counterexample and
a chart, and asks the network for nothing; the blocks benchmarks share compute what they say."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from divergent.errors import InvalidArgument
from divergent.report import charts
from divergent.report.blocks import Table
from divergent.report.diff import Span, char_diff, output_diff
from divergent.report.evaluation import (
    ScoredAnswer,
    accuracy_by_category,
    bias_table,
    confusion_matrix,
    strategy_overlap,
)
from divergent.report.html import bench_page, check_page, render_html
from report_examples import BUILDERS, chromium, dump_dom

needs_chromium = pytest.mark.skipif(
    chromium() is None,
    reason="no chromium on this machine (Debian's package: `make browser-tools` installs it, as CI does)",
)


def element_text(dom: str, element_id: str) -> str:
    """The text inside the element with this id (Chromium's serialized DOM is regular enough)."""
    match = re.search(rf'<(\w+)[^>]*\bid="{element_id}"[^>]*>', dom)
    assert match, f"no element with id {element_id!r}"
    tag, start, depth = match.group(1), match.end(), 1
    for tag_match in re.finditer(rf"<(/?){tag}\b[^>]*>", dom[start:]):
        depth += -1 if tag_match.group(1) else 1
        if depth == 0:
            inner = dom[start:start + tag_match.start()]
            return html.unescape(re.sub(r"<[^>]+>", "", inner))
    raise AssertionError(f"element {element_id!r} is not closed")


@needs_chromium
@pytest.mark.parametrize("kind", list(BUILDERS))
def test_each_report_kind_shows_verdict_counterexample_and_a_chart_offline(kind: str, tmp_path: Path) -> None:
    example = BUILDERS[kind](tmp_path)
    page = tmp_path / f"{kind}.html"
    page.write_text(example.html, encoding="utf-8")
    dom, requests = dump_dom(page)
    assert requests == [], f"the page asked the network for {requests}"
    assert f'data-report-kind="{example.page_kind or kind}"' in dom
    assert example.verdict in element_text(dom, "verdict")
    assert example.counterexample in element_text(dom, example.section)
    pictures = re.findall(r'<figure class="block chart"[^>]*>\s*<svg', dom)
    assert pictures, "no chart drawn"


@needs_chromium
def test_the_network_trap_sees_a_page_that_fetches(tmp_path: Path) -> None:
    page = tmp_path / "fetching.html"
    page.write_text('<!DOCTYPE html><html><head><link rel="stylesheet" href="http://cdn.example.com/a.css">'
                    '</head><body><img src="http://images.example.com/b.png"></body></html>')
    _, requests = dump_dom(page)
    assert requests, "a page that fetches must be seen fetching"


def test_the_page_forbids_fetching_and_holds_no_script() -> None:
    document = {"verdict": "no-difference-found", "implementations": ["a.py", "b.py"], "engines": [],
                "inputs": 10, "executions": 20, "seconds": 1.0, "exit_reason": "budget-seconds"}
    text = render_html(check_page(document))
    assert "default-src 'none'" in text
    assert "<script" not in text and "http://" not in text and "https://" not in text.replace("https://packaging", "")
    assert "No difference found" in text


def test_program_output_is_escaped_and_its_differences_marked() -> None:
    outcomes = [
        {"impl": "a.py", "kind": "returned", "value": "'<b>x</b>'", "seconds": 0.001, "class": 1},
        {"impl": "b.py", "kind": "returned", "value": "'<b>y</b>'", "seconds": 0.002, "class": 2,
         "stdout": "line 1\nline 2\n"},
    ]
    document = {"verdict": "divergent", "implementations": ["a.py", "b.py"], "engine": "seeds",
                "counterexample": {"call": "f('<')", "outcomes": outcomes, "original_call": "f('<')",
                                   "shrink_steps": [], "engine": "seeds"}}
    text = render_html(check_page(document))
    assert "<b>x</b>" not in text and "&lt;b&gt;" in text
    assert "<del>x</del><ins>y</ins>" in text
    assert "<ins>line 1\nline 2\n</ins>" in text


def test_without_matplotlib_charts_become_tables_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(charts, "charts_available", lambda: False)
    judgements = [ScoredAnswer("p1", "dce", "equivalent", "equivalent", "m"),
                  ScoredAnswer("p2", "dce", "inequivalent", "equivalent", "m")]
    chart = accuracy_by_category(judgements)
    assert chart.svg is None
    from divergent.report.blocks import Banner, Section

    text = render_html(bench_page("b", Banner("x"), [Section("Accuracy", (chart,), id="a")]))
    assert "pip install &#39;divergent[plots]&#39;" in text and "<svg" not in text
    assert "dce (n=2)" in text and "0.500" in text


def test_accuracy_confusion_bias_and_overlap_count_right() -> None:
    judgements = [
        ScoredAnswer("p1", "dce", "equivalent", "equivalent", "m"),
        ScoredAnswer("p2", "dce", "inequivalent", "equivalent", "m"),
        ScoredAnswer("p3", "cuda", "inequivalent", "inequivalent", "m"),
        ScoredAnswer("p4", "cuda", "equivalent", None, "m"),
    ]
    chart = accuracy_by_category(judgements)
    assert chart.table.rows == (("dce (n=2)", 0.5), ("cuda (n=2)", 0.5), ("all (n=4)", 0.5))
    matrix = confusion_matrix(judgements)
    assert matrix.table.columns == ("true \\ predicted", "equivalent", "inequivalent", "no answer")
    assert matrix.table.rows == (("equivalent", 1, 0, 1), ("inequivalent", 1, 1, 0))
    (row,) = bias_table(judgements, positive="equivalent").rows
    # says "equivalent" 2 of 4 times, is equivalent 2 of 4: no bias; half right each way
    assert row == ("m", 4, 0.5, 0.5, 0.5, 1, 0.5, 0.5, 0.0)
    chart, table = strategy_overlap({"a": {"x", "y"}, "b": {"y", "z"}}, total=4)
    assert chart.table.rows == (("a", 2, 1), ("b", 1, 2))
    assert isinstance(table, Table)
    assert table.rows[0][:3] == ("a", 2, 1) and table.rows[-1] == ("none", 1, None, "")
    with pytest.raises(InvalidArgument):
        confusion_matrix(judgements, judge="nobody")


def test_diffs_mark_what_differs() -> None:
    assert char_diff("abc", "abd") == (Span("equal", "ab"), Span("delete", "c"), Span("insert", "d"))
    assert output_diff("1\n2\n3\n", "1\n2\n4\n") == (Span("equal", "1\n2\n"), Span("delete", "3"), Span("insert", "4"),
                                                    Span("equal", "\n"))
    assert output_diff("same", "same") == (Span("equal", "same"),)
