"""The prompt templates: one syntax for every file, clear errors, and sources shown one way."""

from __future__ import annotations

import importlib.resources
import re
from string import Template

import pytest

from divergent.errors import InvalidArgument
from divergent.llm import prompts
from divergent.llm.prompts import MAX_SOURCE_CHARS, render, show_source, show_sources
from divergent.load import load_source

PROMPTS = importlib.resources.files("divergent.llm") / "prompts"


def test_every_template_is_a_string_template_with_valid_placeholders() -> None:
    names = sorted(entry.name for entry in PROMPTS.iterdir() if entry.name.endswith(".txt"))
    assert "spurious_filter.txt" in names and "probegen_task.txt" in names
    for name in names:
        template = prompts.template(name.removesuffix(".txt"))
        assert isinstance(template, Template)
        assert template.is_valid(), name  # no stray $
        # the old str.format syntax is gone: a {word} alone is never a placeholder any more
        assert not re.search(r"(?<![{$]){[a-z_]+}(?!})", template.template), name


def test_render_fills_placeholders_and_keeps_values_literal() -> None:
    text = render("randsearch_small_inputs", timeout="1.5")
    assert "1.5" in text and "$timeout" not in text
    filled = render("spurious_filter", count=2, problem="cost is $5 {x}", implementations="I", inputs="f()",
                    outcomes="O")
    assert "cost is $5 {x}" in filled and "behavior of 2 different implementations" in filled


def test_render_names_a_missing_placeholder() -> None:
    with pytest.raises(InvalidArgument, match=r"'randsearch_small_inputs' needs \$timeout.*given: none"):
        render("randsearch_small_inputs")
    with pytest.raises(InvalidArgument, match="no prompt template 'nonesuch'"):
        render("nonesuch")


def test_show_sources_fences_each_source_and_cuts_long_ones_with_one_marker() -> None:
    short = load_source("def f(x):\n    return x\n\n\n", function="f", label="a.py:f")
    long_body = "def f(x):\n    return x\n" + "# filler line\n" * 2000
    long = load_source(long_body, function="f", label="b.py:f")
    shown = show_sources([short, long])
    assert shown.startswith("**Version 1** (`a.py:f`)\n\n```python\ndef f(x):\n    return x\n```\n\n**Version 2**")
    assert shown.count("```python") == 2 and shown.endswith("\n```")
    assert f"# ... ({len(long_body) - MAX_SOURCE_CHARS} more characters)" in shown
    assert len(show_source(long_body)) < MAX_SOURCE_CHARS + 100
    headed = show_sources([short], heading=lambda index, impl: f"## {index}: {impl.label}")
    assert headed.startswith("## 0: a.py:f\n\n```python")


def test_each_benchmark_s_templates_live_with_its_harness_and_load_the_one_way() -> None:
    from divergent.bench.answers import TEMPLATES as SHARED
    from divergent.bench.cetbench.run import TEMPLATES as CETBENCH
    from divergent.bench.equibench.prompts import TEMPLATES as EQUIBENCH
    from divergent.bench.refute.prompts import TEMPLATES as REFUTE

    own = [entry.name for entry in PROMPTS.iterdir() if entry.name.endswith(".txt")]
    assert not [name for name in own if name.startswith(("refute_", "equibench_", "cetbench_", "bench_"))]
    counts = {}
    for templates in (SHARED, REFUTE, EQUIBENCH, CETBENCH):
        assert templates.where.startswith("bench")
        for name in templates.names():
            template = templates.template(name)
            assert template.is_valid(), (templates.where, name)
            assert not re.search(r"(?<![{$]){[a-z_]+}(?!})", template.template), (templates.where, name)
        counts[templates.where] = len(templates.names())
    assert counts == {"bench/templates": 1, "bench/refute/templates": 26, "bench/equibench/templates": 15,
                      "bench/cetbench/templates": 2}
    assert "FINAL_ANSWER_IS_YES" in CETBENCH.render("cot", program_1="a", program_2="b")
    with pytest.raises(InvalidArgument, match=r"no prompt template 'nonesuch' \(bench/refute/templates/nonesuch.txt\)"):
        REFUTE.render("nonesuch")
