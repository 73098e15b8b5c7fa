"""EquiBench: the loader (shipped CUDA pairs, exemplars), prompts, answer parsing, the stored run
through the loopback OpenAI-compatible server, and the metrics against hand-computed tables."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.bench.answers import AnswerFormat, AnswerSource, from_sentences, parse_answer, parse_exact
from divergent.bench.binary import Confusion
from divergent.bench.equibench.data import (
    Category,
    load_equibench,
    load_exemplars,
    parse_categories,
    parse_registers,
)
from divergent.bench.equibench.prompts import (
    PromptStyle,
    build_messages,
    load_authors_prompts,
    worked_examples,
)
from divergent.bench.equibench.statement import numeric_bounds, sample_tests, statement_text
from divergent.cli import app
from divergent.errors import InvalidArgument, LoadError
from scripted_openai import Reply

SHARED = Path(__file__).resolve().parents[1].parent.parent / "shared" / "data" / "equibench"
if not SHARED.is_dir():  # a source checkout next to shared/ (CI) or the worktree layout
    SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "equibench"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="shared/data/equibench is not next to the checkout")


# -- loader -------------------------------------------------------------------------------------


@needs_shared
def test_the_shipped_cuda_category_loads_whole() -> None:
    data = load_equibench(SHARED, "CUDA")
    assert data.files[Category.CUDA].name == "pairs.jsonl.gz"
    assert len(data.pairs) == 400 and not data.problems
    assert sum(p.equivalent for p in data.pairs) == 200
    assert {p.category for p in data.pairs} == {Category.CUDA}
    assert data.pairs[0].key == "CUDA/0" and data.pairs[0].equivalent and not data.pairs[1].equivalent
    assert all("__global__" in p.program_1 and "__global__" in p.program_2 for p in data.pairs)


@needs_shared
def test_missing_categories_are_problems_not_errors() -> None:
    data = load_equibench(SHARED)
    assert len(data.pairs) == 400
    missing = sorted(str(p) for p in data.problems)
    assert len(missing) == 5 and any("x86-64/ or STOKE/" in m for m in missing)


@needs_shared
def test_exemplars_resolve_same_as_references() -> None:
    pairs = load_exemplars(SHARED / "fewshot_exemplars.jsonl")
    assert len(pairs) == 24
    by_key = {p.key: p for p in pairs}
    second = by_key["OJ_A/OJ_A-fewshot-2"]
    assert second.program_1 == by_key["OJ_A/OJ_A-fewshot-1"].program_1 and "bubble_sort" in second.program_1
    x86 = by_key["x86-64/STOKE-fewshot-3"]
    assert x86.def_in == ("%rdi",) and x86.live_out == ("%rax",) and x86.equivalent
    assert sum(p.equivalent for p in pairs) == 12
    assert all(p.problem_html for p in pairs if p.category.online_judge)


def test_json_array_layout_config_names_and_bad_rows(tmp_path: Path) -> None:
    rows = [
        {"pair_id": 1, "program_1_code": "movq %rdi, %rax", "program_2_code": "leaq (%rdi), %rax",
         "truth_label": True, "problem_def_in": "{ %rdi }", "problem_live_out": "{ %rax }"},
        {"pair_id": 2, "program_1_code": "nop", "program_2_code": "nop", "truth_label": "maybe",
         "problem_live_out": "%rax"},
        {"pair_id": 3, "program_1_code": "nop", "program_2_code": "nop", "truth_label": False},
        {"pair_id": 1, "program_1_code": "nop", "program_2_code": "nop", "truth_label": False,
         "problem_live_out": "%rax"},
        "not an object",
    ]
    (tmp_path / "STOKE").mkdir()
    (tmp_path / "STOKE" / "pairs.json").write_text(json.dumps(rows))
    (tmp_path / "OJ_A").mkdir()
    with gzip.open(tmp_path / "OJ_A" / "pairs.jsonl.gz", "wt") as stream:
        stream.write(json.dumps({"pair_id": "p9", "program_1_code": "print(1)", "program_2_code": "print(2)",
                                 "truth_label": 0, "problem_html_content": "<p>x</p>"}) + "\n\n{broken\n")
    data = load_equibench(tmp_path, "x86-64,OJ_A")
    assert [p.key for p in data.pairs] == ["x86-64/1", "OJ_A/p9"]
    assert data.pairs[0].def_in == ("%rdi",) and data.pairs[0].live_out == ("%rax",)
    assert data.pairs[1].problem_html == "<p>x</p>" and data.pairs[1].equivalent is False
    messages = " | ".join(str(p) for p in data.problems)
    assert "truth_label" in messages and "problem_live_out" in messages and "duplicate pair_id" in messages
    assert "expected a JSON object" in messages and len(data.problems) == 5


def test_loader_errors_and_category_names(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no such directory"):
        load_equibench(tmp_path / "nowhere")
    with pytest.raises(LoadError, match="none of the categories"):
        load_equibench(tmp_path)
    assert parse_categories("tvm,STOKE,oj_va") == (Category.CUDA, Category.X86_64, Category.OJ_VA)
    assert parse_categories(None) == tuple(Category)
    with pytest.raises(InvalidArgument, match="unknown EquiBench category"):
        parse_categories("OJ_B")
    assert parse_registers(["%rdi", "%rsi"]) == ("%rdi", "%rsi")
    assert parse_registers("{ %rax %rdx }") == ("%rax", "%rdx")


# -- statements -------------------------------------------------------------------------------------


def test_statement_samples_from_html_and_text() -> None:
    page = ("<H1>Sum</H1><p>Read <var>a</var> &amp; b.</p><H2>Sample Input 1</H2><pre>1 2\n</pre>"
            "<H2>Sample Output 1</H2><pre>3\n</pre><h3>入力例 2</h3><pre>5 5</pre><h3>出力例 2</h3><pre>10</pre>"
            "<h3>Sample Input 2</h3><pre>5 5</pre><script>alert(1)</script>")
    tests = sample_tests(page)
    assert [(t.input, t.output) for t in tests] == [("1 2\n", "3\n"), ("5 5\n", "10\n")]
    assert "alert" not in statement_text(page) and "Read a & b." in statement_text(page)
    text = "Sort them.\nExample Input:\n4 2 5\nExample Output:\n2 4 5\n"
    assert [(t.input, t.output) for t in sample_tests(text)] == [("4 2 5\n", "2 4 5\n")]
    assert sample_tests("no samples here") == []


@pytest.mark.parametrize(
    ("statement", "bounds"),
    [
        ("Read n.\n1 <= n <= 10^5\n", (1, 100000)),  # a constraint that starts a line
        ("Input\n\n1 ≤ n ≤ 2 × 10^5\n-10^9 ≤ a_i ≤ 10^9", (-10**9, 10**9)),
        ("## Input\n\n- 1 <= n <= 100\n- 0 <= a_i <= 10^4\n", (0, 10**4)),  # list markers, not minus signs
        ("<h3>Input</h3><ul><li>1 &le; n &le; 10<sup>5</sup></li><li>1 &le; k &le; n</li></ul>", (1, 100000)),
        ("The first line holds n (1 <= n <= 50).", (1, 50)),
        ("Any number will do.", None),
    ],
)
def test_numeric_bounds_read_constraints_wherever_a_line_puts_them(statement: str, bounds) -> None:
    assert numeric_bounds(statement) == bounds


# -- prompts ----------------------------------------------------------------------------------------


@needs_shared
def test_every_prompt_style_for_every_category() -> None:
    pairs = {p.category: p for p in load_exemplars(SHARED / "fewshot_exemplars.jsonl")}
    authors = load_authors_prompts(SHARED / "prompts.yaml")
    for category, pair in pairs.items():
        assert len(worked_examples(category)) == 4
        assert sum(e.equivalent for e in worked_examples(category)) == 2
        for style in PromptStyle:
            ours = build_messages(pair, style)[0]["content"]
            assert pair.program_1.strip() in ours and pair.program_2.strip() in ours
            assert ("Worked examples" in ours) == style.few_shot
            assert ("step by step" in ours) == style.chain_of_thought
            if category.online_judge:
                assert "problem the programs solve" in ours
            if category is Category.X86_64:
                assert ("%rdi" in ours and "%rax" in ours) or "%rdi" in pair.live_out
            theirs = build_messages(pair, style, authors)[0]["content"]
            assert pair.program_1.strip() in theirs and "{program_1_code}" not in theirs
            assert "{{" not in theirs


def test_authors_prompt_file_is_data_only(tmp_path: Path) -> None:
    bad = tmp_path / "prompts.yaml"
    bad.write_text("DCE:\n  ZERO: 'leak {program_1_code.__class__}'\n")
    with pytest.raises(LoadError, match="placeholder"):
        load_authors_prompts(bad)
    bad.write_text("- a list\n")
    with pytest.raises(LoadError, match="mapping"):
        load_authors_prompts(bad)


# -- answers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "verdict"), [
    ("YES", True), ("no", False), ("**NO**", False), ("Yes.", True), ("`YES`", True),
])
def test_exact_answers(text: str, verdict: bool) -> None:
    assert parse_exact(text) is verdict


@pytest.mark.parametrize(("text", "verdict"), [
    ("Program 2 sorts in place.\nThe answer is NO.", False),
    ("Both compute the same sum, so the answer is YES.", True),
    ("There is no difference in behaviour. The answer is YES", True),
    ("Step 1 ... Step 2 ...\n\n**Answer:** NO", False),
    ("They differ on n = 1. Therefore the programs are not equivalent.", False),
    ("After checking every branch, the two programs are equivalent.", True),
    ("Let me think. No.", False),
])
def test_verdicts_in_the_last_sentences(text: str, verdict: bool) -> None:
    assert from_sentences(text) is verdict


def test_cetbench_markers_and_unreadable_answers() -> None:
    cot = AnswerFormat(yes=("FINAL_ANSWER_IS_YES",), no=("FINAL_ANSWER_IS_NO",))
    assert from_sentences("They read input the same way.\nFINAL_ANSWER_IS_NO", cot) is False
    assert from_sentences("No difference is visible here, I am unsure") is None
    parsed, usage, raw = parse_answer("Hmm, hard to say.", seed=3, key="OJ_A/1")
    assert parsed.source is AnswerSource.RANDOM and parsed.unparseable and usage.calls == 0 and raw == []
    again, _, _ = parse_answer("Hmm, hard to say.", seed=3, key="OJ_A/1")
    assert again == parsed  # the coin is seeded by the run and the item


# -- metrics ----------------------------------------------------------------------------------------


def test_confusion_metrics_match_a_hand_computed_table() -> None:
    # 10 equivalent pairs: 7 judged YES; 6 inequivalent pairs: 2 judged YES
    decisions = [(True, True)] * 7 + [(True, False)] * 3 + [(False, True)] * 2 + [(False, False)] * 4
    c = Confusion.of(decisions)
    assert (c.tp, c.fn, c.fp, c.tn) == (7, 3, 2, 4)
    assert c.accuracy == pytest.approx(11 / 16)
    assert c.accuracy_equivalent == pytest.approx(0.7) and c.accuracy_inequivalent == pytest.approx(4 / 6)
    assert c.balanced_accuracy == pytest.approx((0.7 + 4 / 6) / 2)
    assert c.f1_positive == pytest.approx(14 / 19)  # 2*7 / (2*7 + 2 + 3)
    assert c.f1_negative == pytest.approx(8 / 13)  # 2*4 / (2*4 + 3 + 2)
    assert c.macro_f1 == pytest.approx((14 / 19 + 8 / 13) / 2)
    assert c.micro_f1 == pytest.approx(11 / 16)
    empty = Confusion.of([(False, False)])
    assert empty.accuracy_equivalent is None and empty.f1_positive is None and empty.balanced_accuracy == 1.0


# -- the stored run through the scripted server ------------------------------------------------------


def _small_dataset(tmp_path: Path) -> Path:
    root = tmp_path / "equibench"
    (root / "OJ_A").mkdir(parents=True)
    rows = [
        {"pair_id": i, "program_1_code": f"print({i})", "program_2_code": f"print({i} + 0)" if i % 2 == 0 else
         f"print({i} + 1)", "truth_label": i % 2 == 0, "problem_html_content": f"<p>Print {i}.</p>"}
        for i in range(6)
    ]
    (root / "OJ_A" / "pairs.json").write_text(json.dumps(rows))
    (root / "DCE").mkdir()
    (root / "DCE" / "pairs.jsonl").write_text("\n".join(json.dumps(
        {"pair_id": i, "program_1_code": f"int main(void) {{ return {i}; }}",
         "program_2_code": "int main(void) { return 0; }", "truth_label": i == 0}) for i in range(2)))
    return root


def _answers(received) -> Reply | str:
    prompt = received.last_user
    if "A model was asked" in prompt:  # the extractor
        return "UNKNOWN" if "shrug" in prompt else "YES"
    if "print(3" in prompt:
        return "I would shrug at this one."
    if "print(1" in prompt:
        return "Program 2 adds one, so its output differs.\nThe answer is NO."
    if "print(5" in prompt:
        return "They look alike to me, I think."  # read by the extractor: YES
    if "return 1" in prompt:
        return "NO"
    return "YES"


def test_llm_judge_run_resumes_and_costs_nothing_the_second_time(openai_server, llm_home, tmp_path) -> None:
    openai_server.responder = _answers
    data = _small_dataset(tmp_path)
    out = tmp_path / "out.json"
    arguments = ["bench", "equibench", "--data", str(data), "--categories", "OJ_A,DCE", "--model", "judge-model",
                 "--base-url", openai_server.base_url, "--prompt", "cot", "--json", str(out)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["benchmark"] == "equibench" and document["status"] == "finished"
    items = {item["key"]: item for item in document["items"]}
    assert len(items) == 8
    assert items["OJ_A/1"]["prediction"] is False and items["OJ_A/1"]["llm"]["votes"][0]["source"] == "sentences"
    assert items["OJ_A/0"]["llm"]["votes"][0]["source"] == "exact"
    assert items["OJ_A/5"]["llm"]["votes"][0]["source"] == "extractor" and items["OJ_A/5"]["prediction"] is True
    assert items["OJ_A/3"]["llm"]["unparseable"] == 1 and items["OJ_A/3"]["llm"]["votes"][0]["source"] == "random"
    oj = document["summary"]["categories"][0]
    assert oj["category"] == "OJ_A" and oj["pairs"] == 6 and oj["unparseable"] == 1
    dce = document["summary"]["categories"][1]
    assert dce["accuracy"] == 1.0 and dce["confusion"] == {"tp": 1, "fn": 0, "fp": 0, "tn": 1}
    calls = len(openai_server.chat_requests)
    assert document["usage"]["calls"] == calls
    # the same command again: the stored run is reused, nothing is asked
    again = CliRunner().invoke(app, arguments)
    assert again.exit_code == 0, again.output
    assert len(openai_server.chat_requests) == calls
    assert json.loads(out.read_text())["run"] == document["run"]


def test_self_consistency_takes_the_majority(openai_server, llm_home, tmp_path) -> None:
    votes = iter(["YES", "NO", "NO"] * 8)
    openai_server.responder = lambda received: next(votes)
    data = _small_dataset(tmp_path)
    out = tmp_path / "sc.json"
    result = CliRunner().invoke(app, [
        "bench", "equibench", "--data", str(data), "--categories", "DCE", "--model", "m", "--base-url",
        openai_server.base_url, "--samples", "3", "--prompt", "few-shot", "--json", str(out)])
    assert result.exit_code == 0, result.output
    items = json.loads(out.read_text())["items"]
    assert all(item["prediction"] is False and len(item["llm"]["votes"]) == 3 for item in items)
    assert all(request.body["temperature"] == 1.0 for request in openai_server.chat_requests)


def test_cli_input_errors(llm_home, tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "equibench", "--data", str(tmp_path), "--judge", "llm"])
    assert result.exit_code == 2
    result = runner.invoke(app, ["bench", "equibench", "--data", str(_small_dataset(tmp_path)), "--prompt", "two-shot",
                                 "--model", "m", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and "--prompt" in result.output


@pytest.mark.parametrize("style", ["zero-shot", "few-shot", "cot", "few-shot-cot", "authors-cot", "authors-few-shot"])
def test_every_prompt_variant_through_the_scripted_server(style, openai_server, llm_home, tmp_path) -> None:
    openai_server.responder = lambda received: ("Step by step: they differ.\nThe answer is NO." if "print(1" in
                                                received.last_user else "YES")
    data = _small_dataset(tmp_path)
    arguments = ["bench", "equibench", "--data", str(data), "--categories", "OJ_A", "--limit", "2", "--model", "m",
                 "--base-url", openai_server.base_url, "--json", str(tmp_path / "o.json")]
    if style.startswith("authors-"):
        if not SHARED.is_dir():
            pytest.skip("shared/data/equibench absent")
        arguments += ["--prompts", str(SHARED / "prompts.yaml"), "--prompt", style.removeprefix("authors-")]
    else:
        arguments += ["--prompt", style]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    items = json.loads((tmp_path / "o.json").read_text())["items"]
    assert [item["prediction"] for item in items] == [True, False]
    prompt = openai_server.chat_requests[0].last_user
    if style.startswith("authors-"):
        assert "[Program 1]:" in prompt and "print(0)" in prompt
    else:
        assert ("Worked examples" in prompt) == ("few-shot" in style)
        assert ("step by step" in prompt) == ("cot" in style)


def test_hybrid_asks_the_model_only_without_a_witness(openai_server, llm_home, tmp_path) -> None:
    openai_server.responder = lambda received: "NO"
    root = tmp_path / "data"
    (root / "CUDA").mkdir(parents=True)
    (root / "CUDA" / "pairs.jsonl").write_text(json.dumps(
        {"pair_id": 7, "program_1_code": "__global__ void k() {}", "program_2_code": "__global__ void k() {}",
         "truth_label": True}) + "\n")
    out = tmp_path / "h.json"
    result = CliRunner().invoke(app, ["bench", "equibench", "--data", str(root), "--judge", "hybrid", "--model", "m",
                                      "--base-url", openai_server.base_url, "--json", str(out)])
    assert result.exit_code == 0, result.output
    item = json.loads(out.read_text())["items"][0]
    assert item["execution"]["verdict"] == "not-executable" and item["decided_by"] == "llm"
    assert item["prediction"] is False and len(openai_server.chat_requests) == 1
