"""Python code out of a model's answer: markdown fences first, else the answer itself if it parses.

Models answer in many shapes: prose then one ```python block; several blocks (the function, then
a usage example, then tests); ```py or a bare ``` fence; an unclosed fence cut off by the token
limit; or code with no fence at all. :func:`extract_code` picks the block that defines the wanted
function when a name is given, else the first block that parses, else the first block.
Nothing here runs the code: it is only parsed, and only when it is small (:data:`MAX_PARSED_CHARS`):
an answer is untrusted, and parsing a hostile one (``"x=" * 10**6``) costs this process seconds of
CPU, or a RecursionError or MemoryError of the parser; such a block does not parse here (the
sandbox parses what it runs).
"""

from __future__ import annotations

import ast
import re

__all__ = ["code_blocks", "extract_code", "extract_function_source"]

#: an opening fence (```python, ```py, ```python3, ``` ...) then everything up to a closing fence
#: alone on its line, or the end of the answer (a block cut off by the token limit)
_FENCE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+.-]*)[^\n]*\n(?P<body>.*?)(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL,
)
#: the longest text parsed to pick a block (a generator is a few kilobytes)
MAX_PARSED_CHARS = 100_000
#: the most blocks of one answer considered (an answer of 400,000 tiny blocks is not a program)
MAX_BLOCKS = 100
_PYTHON_LANGS = frozenset({"", "python", "py", "python3", "py3", "ipython", "pycon"})
_PROMPT_PREFIX = re.compile(r"^(>>>|\.\.\.) ?")


def code_blocks(text: str) -> list[str]:
    """The bodies of the fenced blocks that may be Python (untagged or tagged python/py), in order
    (the first :data:`MAX_BLOCKS`)."""
    blocks: list[str] = []
    for match in _FENCE.finditer(text):
        if len(blocks) == MAX_BLOCKS:
            break
        if match["lang"].lower() not in _PYTHON_LANGS:
            continue
        body = match["body"]
        if match["lang"].lower() == "pycon" or body.lstrip().startswith(">>>"):
            body = _strip_prompts(body)
        body = body.rstrip() + "\n"
        if body.strip():
            blocks.append(body)
    return blocks


def _strip_prompts(body: str) -> str:
    """Keep the input lines of an interactive session, without their >>> / ... prompts."""
    return "\n".join(
        _PROMPT_PREFIX.sub("", line) for line in body.splitlines() if _PROMPT_PREFIX.match(line)
    )


def _tree(source: str) -> ast.Module | None:
    """The syntax tree of ``source``, or None when it does not parse (or is too large to try)."""
    if len(source) > MAX_PARSED_CHARS:
        return None
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _parses(source: str) -> bool:
    return _tree(source) is not None


def _defines(source: str, name: str) -> bool:
    tree = _tree(source)
    if tree is None:
        # a block cut off mid-way may still be the one with the function: look at the text
        return re.search(rf"^\s*(?:async\s+)?def\s+{re.escape(name)}\s*\(", source, re.MULTILINE) is not None
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name for node in tree.body
    )


def _looks_like_code(tree: ast.Module) -> bool:
    """Prose rarely parses as Python, but one bare word or a sentence-like expression can."""
    return any(not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Name | ast.Constant)
               for node in tree.body)


def extract_code(text: str, function_name: str | None = None) -> str | None:
    """The Python code in an answer, or None when there is none.

    Fenced blocks first: the first that defines ``function_name`` (when given), else the first
    that parses, else the first. Without fences, the whole answer when it parses as Python.
    """
    blocks = code_blocks(text)
    if blocks:
        if function_name is not None:
            for block in blocks:
                if _defines(block, function_name):
                    return block
        for block in blocks:
            if _parses(block):
                return block
        return blocks[0]
    stripped = text.strip()
    if not stripped:
        return None
    tree = _tree(stripped)
    if tree is None or not tree.body or not _looks_like_code(tree):
        return None
    return stripped + "\n"


def extract_function_source(text: str, name: str) -> str | None:
    """The source of the top-level function ``name`` (decorators included) in an answer, or None.

    Only the function itself: the imports and helpers around it are left out (use
    :func:`extract_code` for the whole program).
    """
    for source in [*code_blocks(text), text]:
        tree = _tree(source)
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                segment_start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = source.splitlines()
                assert node.end_lineno is not None
                return "\n".join(lines[segment_start - 1 : node.end_lineno]) + "\n"
    return None
