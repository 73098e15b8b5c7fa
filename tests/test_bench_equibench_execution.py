"""EquiBench's execution judge: the x86-64 harness as text, the three verdicts, and (when this build
has whole programs, issue D) the exemplars and OJ-style pairs with statements run in the sandbox."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.bench.equibench.data import Category, Pair, load_exemplars
from divergent.bench.equibench.exec_x86 import (
    ARENA_BASE,
    NotRunnable,
    harness_source,
    register,
    register_inputs,
)
from divergent.bench.equibench.execution import ExecutionSettings, ExecutionVerdict, execute_pair
from divergent.cli import app

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (ROOT.parent.parent / "shared", ROOT.parent / "shared") if (p / "data").is_dir()), None)
EXEMPLARS = SHARED / "data" / "equibench" / "fewshot_exemplars.jsonl" if SHARED else None
WHOLE_PROGRAMS = importlib.util.find_spec("divergent.load.whole_programs") is not None
needs_programs = pytest.mark.skipif(not WHOLE_PROGRAMS or shutil.which("gcc") is None,
                                    reason="whole programs (issue D) or gcc not available in this build")
needs_exemplars = pytest.mark.skipif(EXEMPLARS is None or not EXEMPLARS.is_file(), reason="shared/data absent")


# -- the harness as text ---------------------------------------------------------------------------------


def test_registers_by_width() -> None:
    assert register("%rax").bits == 64 and register("%eax").slot == 0 and register("%eax").bits == 32
    assert register("%r10d").slot == 10 and register("%r10d").bits == 32
    assert register("%ah").shift == 8 and register("%sil").slot == 4
    assert register("%xmm3").slot == 19 and register("%xmm3").bits == 128
    with pytest.raises(NotRunnable, match="ymm0"):
        register("%ymm0")


def test_harness_renames_labels_turns_ret_into_a_jump_and_drops_layout() -> None:
    snippet = ("  .text\n  .globl _Z6popcntm\n  .type _Z6popcntm, @function\n_Z6popcntm:\n  xorl %eax,%eax\n"
               "  testq %rdi,%rdi\n  je .L_4005b0\n.L_4005a0:\n  shrq $0x1,%rdi\n  jne .L_4005a0\n  retq\n"
               ".L_4005b0:\n  retq  # done\n  .size _Z6popcntm, .-_Z6popcntm\n")
    source = harness_source(snippet, ("%rax", "%eax"), tag="7")
    assert ".globl _Z6popcntm" not in source and ".size" not in source
    assert "je .Ldv7_2" in source and "jne .Ldv7_1" in source and ".Ldv7_0: " in source and "xorl %eax,%eax" in source
    assert source.count("jmp .Ldv7_end") == 2 and "retq" not in source
    assert f"{ARENA_BASE:#x}" in source and "MAP_FIXED_NOREPLACE" in source
    assert '"rax", (unsigned long long)((dv_out.gpr[0] >> 0) & 0xffffffffffffffffULL)' in source
    assert "0xffffffffULL" in source  # %eax: the low 32 bits


@pytest.mark.parametrize(("snippet", "reason"), [
    (".incbin \"/etc/passwd\"\nmovq %rdi, %rax", "directive .incbin"),
    ("call malloc", "calls out"),
    ("syscall", "calls out"),
    ("vmovdqa %ymm0, %ymm1", "register the harness does not set"),
    ("  .text\n", "no instructions"),
])
def test_snippets_that_cannot_run_say_why(snippet: str, reason: str) -> None:
    with pytest.raises(NotRunnable, match=reason):
        harness_source(snippet, ("%rax",))


def test_register_inputs_are_seeded_and_shaped() -> None:
    inputs = register_inputs(("%rdi",), 20, seed=4)
    assert inputs == register_inputs(("%rdi",), 20, seed=4) and inputs != register_inputs(("%rdi",), 20, seed=5)
    lines = inputs[0].splitlines()
    assert len(lines) == 3 and len(lines[1].split()) == 16 and len(lines[2].split()) == 32
    rdi_values = {int(text.splitlines()[1].split()[5]) for text in inputs}
    assert len(rdi_values) > 5 and all(0 <= v < 1 << 64 for v in rdi_values)


def test_cuda_is_not_executable_here() -> None:
    pair = Pair(Category.CUDA, "0", "__global__ void k() {}", "__global__ void k() {}", True)
    result = execute_pair(pair, ExecutionSettings())
    assert result.verdict is ExecutionVerdict.NOT_EXECUTABLE and "GPU" in result.reason
    assert result.prediction is None


def test_execution_judge_run_reports_coverage(tmp_path, llm_home) -> None:
    root = tmp_path / "data"
    (root / "TVM").mkdir(parents=True)
    (root / "TVM" / "pairs.jsonl").write_text(json.dumps(
        {"pair_id": 0, "program_1_code": "__global__ void k() {}", "program_2_code": "__global__ void k() {}",
         "truth_label": True}) + "\n")
    out = tmp_path / "out.json"
    result = CliRunner().invoke(app, ["bench", "equibench", "--data", str(root), "--judge", "execution",
                                      "--json", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())["summary"]
    assert summary["overall"]["coverage"] == 0.0 and summary["overall"]["execution"] == {"not-executable": 1}
    assert summary["overall"]["accuracy"] is None


# -- in the sandbox (needs issue D's whole programs) -------------------------------------------------------

STATEMENT = ("<h3>Problem</h3><p>Read <var>n</var> (1 &le; n &le; 10<sup>5</sup>) and print 1 + 2 + ... + n.</p>"
             "<h3>Sample Input 1</h3><pre>3\n</pre><h3>Sample Output 1</h3><pre>6\n</pre>"
             "<h3>Sample Input 2</h3><pre>1\n</pre><h3>Sample Output 2</h3><pre>1\n</pre>")
LOOP = "n = int(input())\ntotal = 0\nfor i in range(1, n + 1):\n    total += i\nprint(total)\n"


@needs_programs
@pytest.mark.slow
@pytest.mark.parametrize(("program_2", "equivalent"), [
    ("n = int(input())\nprint(n * (n + 1) // 2)\n", True),
    ("n = int(input())\nprint(n * (n + 1) // 2 if n < 50 else n * n // 2)\n", False),
    ("v = int(input())\nprint(v * (v + 1) / 2)\n", False),
])
def test_oj_pairs_with_statements(program_2: str, equivalent: bool) -> None:
    pair = Pair(Category.OJ_A, "t", LOOP, program_2, equivalent, problem_html=STATEMENT)
    result = execute_pair(pair, ExecutionSettings(budget=4.0))
    assert result.prediction is equivalent, result
    if not equivalent:
        assert result.witness is not None and result.witness["input"]
    assert "2 sample input(s)" in result.notes[0]


@needs_programs
@needs_exemplars
@pytest.mark.slow
def test_the_x86_and_dce_exemplars() -> None:
    assert EXEMPLARS is not None
    pairs = {p.key: p for p in load_exemplars(EXEMPLARS)}
    settings = ExecutionSettings(budget=8.0, x86_inputs=64)
    for number in (1, 2, 3, 4):
        pair = pairs[f"x86-64/STOKE-fewshot-{number}"]
        assert execute_pair(pair, settings).prediction is pair.equivalent, pair.key
    # DCE by output and exit status: right on the equivalent exemplars; the inequivalent ones
    # differ only in state that never reaches the output, so nothing tells them apart
    for number in (1, 2, 3, 4):
        result = execute_pair(pairs[f"DCE/DCE-fewshot-{number}"], settings)
        assert result.verdict is ExecutionVerdict.NO_DIFFERENCE, result
