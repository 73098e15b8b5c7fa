"""Input formats of whole programs: what one input is made of (lines of typed tokens, the counts that
say how many things follow, test cases, ranges), written in a small language (``--input-format
FILE``), inferred from the examples, a problem statement and what the programs read, and used by
the engines of texts to generate and mutate inputs that stay valid (docs/programs.md).
"""
