"""Well-known input grammars (URLs, HTML/XML, JSON and JavaScript literals, numbers, dates,
durations and file sizes, versions), strings drawn from regular expressions, and edits of
structured strings by their parts. Plain values only: nothing here runs code under test.
"""
