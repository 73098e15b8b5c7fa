"""EquiBench's and CETBench's HTML pages (``--html``): what they say matches the harness's metrics,
the run and ``show RUN`` write them, and a bad output path is refused before any work.
(tests/test_report_html.py opens both pages in headless Chromium.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.bench.cetbench.html import cetbench_page
from divergent.bench.equibench.html import equibench_page
from divergent.cli import app
from divergent.report.blocks import Chart, Table
from divergent.report.html import render_html
from report_examples import cetbench_document, equibench_document


def section(page, section_id: str):
    return next(s for s in page.sections if s.id == section_id)


def test_the_equibench_page_says_what_the_summary_says(tmp_path: Path) -> None:
    document = equibench_document(tmp_path)
    page = equibench_page(document)
    overall = document["summary"]["overall"]
    assert page.kind == "bench" and page.title == "EquiBench"
    assert page.banner.headline == "hybrid: execution, then scripted-judge (zero-shot): 73.3% accurate on 30 pairs"
    assert [s.id for s in page.sections] == ["accuracy", "bias", "execution", "model", "misjudged", "settings"]
    chart, table = section(page, "accuracy").blocks
    assert isinstance(chart, Chart) and chart.table.columns == ("category", "accuracy", "paper's best model (0-shot)")
    assert chart.table.rows[-1][:2] == ("overall (n=30)", overall["accuracy"])
    assert [row[0] for row in table.rows] == ["DCE", "CUDA", "OJ_A", "overall"]
    bias, confusion = section(page, "bias").blocks
    # the bias table's last row is every pair: the accuracy on each class is the summary's
    assert bias.rows[-1][:5] == ("all", 30, *(pytest.approx(overall[field]) for field in (
        "accuracy", "accuracy_equivalent", "accuracy_inequivalent")))
    matrix = overall["confusion"]
    assert confusion.table.rows == (("equivalent", matrix["tp"], matrix["fn"]),
                                    ("inequivalent", matrix["fp"], matrix["tn"]))
    verdicts, reasons, witnesses = section(page, "execution").blocks
    assert verdicts.rows[-1][:5] == ("all", 30, 6, 16, 8)
    assert reasons.rows == (("CUDA kernels need a GPU and a launch harness (not available here)", 8),)
    assert [row[0] for row in witnesses.rows] == ["OJ_A/4"]  # the witness on a pair labelled equivalent
    (usage,) = section(page, "model").blocks
    assert usage.rows[-1][:3] == ("overall", 24, 2) and usage.rows[-1][-1] == pytest.approx(0.0048)
    (misjudged,) = section(page, "misjudged").blocks
    wrong = [item["key"] for item in document["items"] if item["prediction"] != item["truth"]]
    assert [row[0] for row in misjudged.rows] == wrong


def test_the_cetbench_page_holds_the_papers_table_and_the_perturbation_breakdowns(tmp_path: Path) -> None:
    document = cetbench_document(tmp_path)
    page = cetbench_page(document, price_known=False)
    perturbed, originals = document["summary"]["perturbed"], document["summary"]["originals"]
    assert page.banner.headline.startswith("scripted-judge (basic): Avg ")
    assert "before perturbation" in page.banner.detail
    assert [s.id for s in page.sections] == ["categories", "perturbations", "bias", "model", "misjudged", "settings"]
    _, table = section(page, "categories").blocks
    assert table.columns[:4] == ("pairs", "n", "id np", "id sp")
    assert table.columns[-7:] == ("Avg", "W-Avg", "Mac-F1", "Mic-F1", "PosF1", "NegF1", "coverage")
    original_row, perturbed_row = table.rows
    assert perturbed_row[2] == perturbed["cells"]["id/np"]["accuracy"]
    assert original_row[2] == original_row[3] == originals["cells"]["id"]["accuracy"]  # no flag before perturbing
    assert perturbed_row[-7:] == tuple(perturbed[f] for f in ("accuracy", "w_avg", "macro_f1", "micro_f1",
                                                              "f1_positive", "f1_negative", "coverage"))
    _, by_k, by_type_chart, by_type = section(page, "perturbations").blocks
    assert [row[:2] for row in by_k.rows] == [(k, row["pairs"]) for k, row in perturbed["by_k"].items()]
    assert [row[0] for row in by_type.rows] == list(perturbed["by_type"])
    assert by_type_chart.table.columns == ("type", "Avg", "W-Avg")
    bias, _ = section(page, "bias").blocks
    assert [row[0] for row in bias.rows] == ["id", "fe", "ne", "di", "all perturbed"]
    usage, unknown = section(page, "model").blocks
    assert [row[0] for row in usage.rows] == ["original", "perturbed"] and usage.rows[0][-1] == pytest.approx(0.0064)
    assert "price is not known" in unknown.text


def _equibench_data(tmp_path: Path) -> Path:
    root = tmp_path / "equibench"
    (root / "DCE").mkdir(parents=True)
    (root / "DCE" / "pairs.jsonl").write_text("\n".join(json.dumps(
        {"pair_id": i, "program_1_code": f"int main(void) {{ return {i}; }}",
         "program_2_code": "int main(void) { return 0; }", "truth_label": i == 0}) for i in range(3)))
    (root / "CUDA").mkdir()
    (root / "CUDA" / "pairs.jsonl").write_text(json.dumps(
        {"pair_id": 7, "program_1_code": "__global__ void k() {}", "program_2_code": "__global__ void k() {}",
         "truth_label": True}) + "\n")
    return root


def test_equibench_run_and_show_write_the_page(openai_server, llm_home, tmp_path: Path) -> None:
    openai_server.responder = lambda received: "NO" if "return 1" in received.last_user else "YES"
    page, again, out = tmp_path / "run.html", tmp_path / "show.html", tmp_path / "out.json"
    result = CliRunner().invoke(app, ["bench", "equibench", "--data", str(_equibench_data(tmp_path)),
                                      "--categories", "DCE,CUDA", "--model", "gpt-4o-mini", "--base-url", openai_server.base_url,
                                      "--json", str(out), "--html", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    # pair 2 (return 2 against return 0) is judged equivalent: 3 of 4 right
    assert "gpt-4o-mini (zero-shot): 75.0% accurate on 4 pairs" in text and "<svg" in text and "DCE/2" in text
    run = json.loads(out.read_text())["run"]
    result = CliRunner().invoke(app, ["bench", "equibench", "show", run[:8], "--html", str(again)])
    assert result.exit_code == 0, result.output
    assert _without_footer(again.read_text()) == _without_footer(text)


def _without_footer(text: str) -> str:
    return re.sub(r"<footer>.*</footer>", "", text, flags=re.S)


def test_the_execution_judges_page_shows_its_coverage(llm_home, tmp_path: Path) -> None:
    page = tmp_path / "exec.html"
    result = CliRunner().invoke(app, ["bench", "equibench", "--data", str(_equibench_data(tmp_path)),
                                      "--categories", "CUDA", "--judge", "execution", "--html", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert "execution (divergent): no pair got a prediction" in text
    assert "CUDA kernels need a GPU" in text and "not executable" in text


@pytest.mark.parametrize("command", [["bench", "equibench", "--data", "{data}", "--model", "m"],
                                     ["bench", "equibench", "show", "abc"],
                                     ["bench", "cetbench", "run", "--pairs", "{pairs}", "--model", "m"],
                                     ["bench", "cetbench", "show", "abc"]])
@pytest.mark.parametrize("option", ["--html", "--json"])
def test_a_bad_output_path_is_refused_before_any_work(command, option, openai_server, llm_home, tmp_path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("")
    data = _equibench_data(tmp_path)
    arguments = [part.format(data=data, pairs=pairs) for part in command]
    if "--model" in arguments:
        arguments += ["--base-url", openai_server.base_url]
    # (.json: on a command taking a run id, the older --json FILE is read only for a .json file)
    result = CliRunner().invoke(app, [*arguments, option, str(tmp_path / "no such directory" / "out.json")])
    assert result.exit_code == 2
    named = "--json-file" if option == "--json" else option  # the older --json FILE is read as --json-file FILE
    assert f"{named} " in result.output and "no directory" in result.output
    assert openai_server.chat_requests == []


def test_cetbench_run_and_show_write_the_page(openai_server, llm_home, tmp_path: Path) -> None:
    openai_server.responder = lambda received: "No" if "abs(x)" in received.last_user else "Yes"
    rows = [
        {"pair_id": "p0", "category": "id", "flag": "sp", "k": 1, "equivalent": True,
         "program_1": "def f(x):\n    return x + 1\n", "program_2": "def f(x):\n    y = x\n    return y + 1\n",
         "original_1": "def f(x):\n    return x + 1\n", "original_2": "def f(x):\n    return x + 1\n",
         "entry_points": ["f", "f"], "steps": [{"program": 2, "type": "expression_reformat", "flag": "sp"}]},
        {"pair_id": "p1", "category": "fe", "flag": "np", "k": 2, "equivalent": False,
         "program_1": "def f(x):\n    return abs(x)\n", "program_2": "def f(x):\n    return x if x > 0 else x\n",
         "original_1": "def f(x):\n    return abs(x)\n", "original_2": "def f(x):\n    return x if x > 0 else -x\n",
         "entry_points": ["f", "f"], "steps": [{"program": 2, "type": "expression_reformat", "flag": "np"},
                                              {"program": 1, "type": "variable_renaming", "flag": "sp"}]},
    ]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(row) + "\n" for row in rows))
    page, again, out = tmp_path / "run.html", tmp_path / "show.html", tmp_path / "out.json"
    result = CliRunner().invoke(app, ["bench", "cetbench", "run", "--pairs", str(pairs), "--originals", "--model", "gpt-4o-mini",
                                      "--base-url", openai_server.base_url, "--json", str(out), "--html", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert "gpt-4o-mini (basic): Avg 100.0%, W-Avg 100.0% on 2 perturbed pairs" in text
    assert "Accuracy by perturbation type" in text and "variable_renaming" in text
    # the fe original is equivalent and judged NO: the one misjudged pair
    assert "original/p1" in text and "1 of 4 pairs" in text
    run = json.loads(out.read_text())["run"]
    result = CliRunner().invoke(app, ["bench", "cetbench", "show", run[:8], "--html", str(again)])
    assert result.exit_code == 0, result.output
    assert _without_footer(again.read_text()) == _without_footer(text)


def test_pages_render_without_charts_as_tables(monkeypatch, tmp_path: Path) -> None:
    from divergent.report import charts

    monkeypatch.setattr(charts, "charts_available", lambda: False)
    document = cetbench_document(tmp_path)
    text = render_html(cetbench_page(document))
    assert "<svg" not in text and "Accuracy by number of perturbations" in text
    assert all(isinstance(block, Table | Chart) for s in cetbench_page(document).sections[:2] for block in s.blocks)
