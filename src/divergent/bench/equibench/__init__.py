"""EquiBench (Wei et al.): is a pair of programs equivalent? :mod:`.data` (the six categories'
pairs), :mod:`.prompts` and :mod:`.statement` (asking a model), :mod:`.execution` (divergent as a
judge, by running the pair: :mod:`.exec_dce`, :mod:`.exec_oj`, :mod:`.exec_x86`, through
:mod:`.exec_programs`; its records in :mod:`.verdicts`), :mod:`.run` (the stored, resumable run and
its metrics), :mod:`.html` (its page). Import from the module that holds a name.
"""
