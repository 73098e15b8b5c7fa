"""REFUTE's HTML page (issue I's report blocks; skipped where they are not in this divergent)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("divergent.report.evaluation", reason="HTML report blocks (issue I) are not in this divergent")

from divergent.bench.refute.html import refute_page, write_refute_html
from divergent.bench.refute.report import overlap, summarize_strategy


def test_the_page_shows_success_statuses_overlap_and_skipped_rows(tmp_path: Path) -> None:
    units = [{"problem_id": "A", "attempt": 0, "verdict": {"status": "success"}, "usage": {"cost": 0.5}, "seconds": 2},
             {"problem_id": "B", "attempt": 0, "verdict": {"status": "validation-failed"}, "seconds": 4}]
    summary = {"model": "m1", "problems": ["A", "B"], "skipped": [{"problem_id": "C", "reason": "no validator"}],
               "strategies": [summarize_strategy("zero-shot", units, ["A", "B"], 1),
                              summarize_strategy("divergent", [{"problem_id": "B", "attempt": 0,
                                                                "verdict": {"status": "success"}, "seconds": 1}],
                                                 ["A", "B"], 1)],
               "overlap": overlap({"zero-shot": ["A"], "divergent": ["B"]})}
    page = refute_page([{"summary": summary}, {"summary": {**summary, "model": "m2"}}])
    assert page.kind == "bench" and page.banner.headline.startswith("best: divergent")
    assert [s.id for s in page.sections][:2] == ["success", "statuses"]
    text = write_refute_html([{"summary": summary}], tmp_path / "r.html").read_text()
    assert "REFUTE" in text and "zero-shot" in text and "no validator" in text and "validation-failed" in text
