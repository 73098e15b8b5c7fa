"""Load the implementations to compare, and seed inputs for them, without running any of their code.

Implementation code is untrusted: this package reads it only as text, with :mod:`ast` (and ``git``
for revisions). Nothing is imported or executed in this process; annotations are resolved by the
safe resolver of :mod:`divergent.annotations`, and seed values are built by a literal-only
evaluator. The sandbox worker is the only place where implementation code runs.

The rooms:

* :mod:`~divergent.load.targets`: what a spec (``path.py:f``, ``module:f``, ``REV:path.py:f``) names;
* :mod:`~divergent.load.python_files`: reading source files, their functions and package layout;
* :mod:`~divergent.load.git`: files at a git revision;
* :mod:`~divergent.load.callables`: live functions and lambdas of the caller's process;
* :mod:`~divergent.load.signatures`: signatures from the AST, the common signature;
* :mod:`~divergent.load.literals`: the literal-only evaluator;
* :mod:`~divergent.load.seeds`: seed inputs from files, doctests and asserts;
* :mod:`~divergent.load.whole_programs`: whole programs (C, C++, Java, Python scripts, executables).
"""

from __future__ import annotations

from divergent.load.callables import load_callable
from divergent.load.literals import evaluate_literal
from divergent.load.python_files import load_implementation, load_source
from divergent.load.seeds import Seeds, fit_seeds, seeds_from_asserts, seeds_from_docstring, seeds_from_file
from divergent.load.signatures import (
    annotation_warnings,
    check_generatable,
    common_signature,
    signature_from_ast,
)
from divergent.load.targets import Target, parse_target
from divergent.load.whole_programs import load_program, load_program_source, names_whole_program

__all__ = [
    "Seeds",
    "Target",
    "annotation_warnings",
    "check_generatable",
    "common_signature",
    "evaluate_literal",
    "fit_seeds",
    "load_callable",
    "load_implementation",
    "load_program",
    "load_program_source",
    "load_source",
    "names_whole_program",
    "parse_target",
    "seeds_from_asserts",
    "seeds_from_docstring",
    "seeds_from_file",
    "signature_from_ast",
]
