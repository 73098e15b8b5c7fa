"""Assemble corpus.jsonl (REFUTE rows) from the problem directories beside this script.

Each problems/<ID>/ holds problem.md (# title, ## Statement, ## Input, ## Output, ## Note),
example.in, example.out, wrong.cpp or wrong.py, correct.cpp or correct.py, validator.py,
meta.json (time_limit ms, memory_limit MB, wrong_code_lang, problem_rating, tags, bug) and
fail_printer.py (a printer of one known counterexample, used to check the corpus, never shown to a
strategy). Run: python examples/refute/build_corpus.py (tests check the file is up to date).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def sections(markdown: str) -> dict[str, str]:
    title = re.search(r"^# (.+)$", markdown, re.MULTILINE)
    found = {"title": title.group(1).strip() if title else ""}
    for match in re.finditer(r"^## (\w+)\n\n(.*?)(?=^## |\Z)", markdown, re.MULTILINE | re.DOTALL):
        found[match.group(1).lower()] = match.group(2).strip()
    return found


def row(directory: Path) -> dict[str, object]:
    text = sections((directory / "problem.md").read_text(encoding="utf-8"))
    meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    wrong = next(directory.glob("wrong.*"))
    correct = next(directory.glob("correct.*"))
    correct_code = correct.read_text(encoding="utf-8")
    return {
        "problem_id": directory.name,
        "title": text["title"],
        "statement": text["statement"],
        "input": text["input"],
        "output": text["output"],
        "note": text.get("note", ""),
        "example_input": (directory / "example.in").read_text(encoding="utf-8"),
        "example_output": (directory / "example.out").read_text(encoding="utf-8"),
        "time_limit": meta["time_limit"],
        "memory_limit": meta["memory_limit"],
        "wrong_code": wrong.read_text(encoding="utf-8"),
        "wrong_code_lang": meta["wrong_code_lang"],
        "correct_cpp": correct_code if correct.suffix == ".cpp" else None,
        "correct_python": correct_code if correct.suffix == ".py" else None,
        "validator": (directory / "validator.py").read_text(encoding="utf-8"),
        "problem_rating": meta.get("problem_rating"),
        "tags": meta.get("tags", []),
        "bug": meta.get("bug", ""),
        "fail_printer": (directory / "fail_printer.py").read_text(encoding="utf-8"),
    }


def corpus_lines(root: Path = HERE / "problems") -> list[str]:
    return [json.dumps(row(d), ensure_ascii=False) for d in sorted(p for p in root.iterdir() if p.is_dir())]


def main() -> int:
    lines = corpus_lines()
    (HERE / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} rows to {HERE / 'corpus.jsonl'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
