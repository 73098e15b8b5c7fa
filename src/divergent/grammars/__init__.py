"""Well-known input grammars (URLs, HTML/XML, JSON and JavaScript literals, numbers, dates,
durations and file sizes, versions), strings drawn from regular expressions, and edits of
structured strings by their parts. Plain values only: nothing here runs code under test.

Where a change goes: a new grammar is a module here and a line in :mod:`.catalog`; what in the code
points to it goes to :mod:`.hints`.
"""
