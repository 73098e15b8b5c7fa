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

Where a change goes: a new form of spec in :mod:`.targets`; a new language of whole programs in
:mod:`.whole_programs` (its extension; its build is in :mod:`divergent.sandbox.builds`); a new source of
seeds in :mod:`.seeds`.
"""

from __future__ import annotations

import importlib
from typing import Any

#: every name of the package, by the module that holds it: imported on first use, so a caller that
#: needs one room (the command line's early start reads a file's package layout) loads only that one
_EXPORTS: dict[str, str] = {
    "Seeds": "seeds",
    "Target": "targets",
    "annotation_warnings": "signatures",
    "check_generatable": "signatures",
    "common_signature": "signatures",
    "evaluate_literal": "literals",
    "fit_seeds": "seeds",
    "load_callable": "callables",
    "load_implementation": "python_files",
    "load_program": "whole_programs",
    "load_program_source": "whole_programs",
    "load_source": "python_files",
    "names_whole_program": "whole_programs",
    "parse_target": "targets",
    "seeds_from_asserts": "seeds",
    "seeds_from_docstring": "seeds",
    "seeds_from_file": "seeds",
    "signature_from_ast": "signatures",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'divergent.load' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"divergent.load.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
