"""divergent as an EquiBench judge: decide a pair by running it.

Three answers, never a guess:

* **inequivalent**, with a witness: an input on which the two programs were seen to differ under the
  category's definition (the input, and what each program did);
* **no difference found** within the budget: evidence for equivalence, not a proof;
* **not executable** here, with the reason (CUDA needs a GPU and a launch harness; an assembly
  snippet that calls out; a program that does not build);
* **too few inputs**: it ran, but judged fewer inputs than the verdict's floor (the one rule of
  :mod:`divergent.search.verdict`, as ``divergent check`` holds it), so it says nothing.

For accuracy, inequivalent counts as NO and no-difference as YES; not-executable and too-few-inputs
pairs get no prediction and lower the coverage (:func:`divergent.bench.equibench.run.summarize`
reports both).

Per category (each in its own module, which alone talks to the whole-program machinery):

* OJ_A, OJ_V, OJ_VA (:mod:`.exec_oj`): Python programs reading stdin, run on the statement's sample
  inputs and on inputs divergent's text engines derive from them; outputs compared as tokens;
* DCE (:mod:`.exec_dce`): C programs built and run; output and exit status compared. This is
  weaker than the category's definition, which compares the program *state* at every pair of
  corresponding points: a removed statement that executes but whose effect never reaches the output
  (a store later overwritten, a write to a variable never printed) is invisible to it, so such
  inequivalent pairs get "no difference found";
* x86-64 (:mod:`.exec_x86`): each snippet assembled into a function called from a C harness that
  sets the live-in registers (and a memory arena the snippet may dereference) to generated values
  and prints the live-out registers; both run in the sandbox;
* CUDA: not executable here.
"""

from __future__ import annotations

from divergent.bench.equibench.data import Category, Pair
from divergent.bench.equibench.verdicts import (
    ExecutionResult,
    ExecutionSettings,
    ExecutionVerdict,
    not_executable,
)

__all__ = ["ExecutionResult", "ExecutionSettings", "ExecutionVerdict", "execute_pair", "not_executable"]


def execute_pair(pair: Pair, settings: ExecutionSettings) -> ExecutionResult:
    """Judge one pair by running it (see the module docstring)."""
    if pair.category is Category.CUDA:
        return not_executable("CUDA kernels need a GPU and a launch harness (not available here)")
    if pair.category.online_judge:
        from divergent.bench.equibench.exec_oj import execute_oj

        return execute_oj(pair, settings)
    if pair.category is Category.DCE:
        from divergent.bench.equibench.exec_dce import execute_dce

        return execute_dce(pair, settings)
    from divergent.bench.equibench.exec_x86 import execute_x86

    return execute_x86(pair, settings)
