"""Input formats of whole programs: what one input is made of (lines of typed tokens, the counts that
say how many things follow, test cases, ranges), written in a small language (``--input-format
FILE``), inferred from the examples, a problem statement and what the programs read, and used by
the engines of texts to generate and mutate inputs that stay valid (docs/programs.md).

Where a change goes: a new construct of the format language in :mod:`.model` and :mod:`.syntax`; a statement's
wording or format block in :mod:`.statements` and :mod:`.format_blocks`; what a program's reads say in
:mod:`.reading` (Python) or :mod:`.reading_c` (C, C++, Java); how an input is read into a tree in
:mod:`.text_structure`; what a claim may rest on in :mod:`.claims`.
"""
