"""How a C, C++ or Java program reads its input, from its statements: a small scanner (comments and
strings set aside, statements and blocks split by their braces) and a walk of ``main`` (and the
functions it calls, once) that follows ``cin >>``, ``scanf``, ``getline``, ``Scanner.nextInt``,
``Integer.parseInt(st.nextToken())`` and ``readLine`` through ``for``, ``while (t--)`` and
``while (cin >> x)`` loops. Token types come from the variables' declarations (``long long``,
``double``, ``char s[105]``, ``string``) or from the call (``%lld``, ``%s``, ``nextDouble``).

These languages read tokens regardless of lines, so the lines of the format are a layout: the
scalars read one after another share a line, a list read by a loop has its own line, and each
repetition of a loop that reads several tokens is a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from divergent.formats.lexing import lex
from divergent.formats.model import ANY, Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType

__all__ = ["c_family_format"]

_FLOATS = {"double", "float"}
_WORDS = {"string", "String"}
_INTEGERS = {"int", "long", "short", "unsigned", "signed", "size_t", "int64_t", "uint64_t", "int32_t", "ll", "LL",
             "lli", "ull", "i64", "Integer", "Long", "BigInteger", "bool", "boolean"}
_SCANF = re.compile(r"%[-+ #0]*\d*(?:\[[^\]]*\]|hh|h|ll|l|L|I64|j|z|t)?([diouxXeEfgGaAcsp\[])")
_MAX_STEPS = 20_000


class _Unfollowed(Exception):
    pass


@dataclass
class _Stmt:
    kind: str  # "simple", "for", "while", "do", "if", "block"
    head: list[str]
    body: list[_Stmt]
    other: list[_Stmt] | None = None


def _tokens(source: str, language: str = "cpp") -> tuple[list[str], list[str]]:
    """The tokens of a source without comments and preprocessor lines (:func:`lex`, left to
    right); strings become ``"#k`` tokens, where k indexes the returned list of their texts."""
    strings: list[str] = []
    tokens: list[str] = []
    for lexeme in lex(source, language):
        if lexeme.kind == "string":
            strings.append(lexeme.value or "")
            tokens.append(f'"#{len(strings) - 1}')
        elif lexeme.kind == "char":
            tokens.append("'c")
        else:
            tokens.append(lexeme.text)
    return tokens, strings


def _statements(tokens: list[str], start: int, end: int) -> list[_Stmt]:
    out: list[_Stmt] = []
    i = start
    while i < end:
        stmt, i = _statement(tokens, i, end)
        if stmt is not None:
            out.append(stmt)
    return out


def _matching(tokens: list[str], i: int, end: int) -> int:
    """The index of the bracket closing the one at ``i``."""
    opening = tokens[i]
    closing = {"(": ")", "{": "}", "[": "]"}[opening]
    depth = 0
    for j in range(i, end):
        if tokens[j] == opening:
            depth += 1
        elif tokens[j] == closing:
            depth -= 1
            if depth == 0:
                return j
    raise _Unfollowed("unbalanced brackets")


def _statement(tokens: list[str], i: int, end: int) -> tuple[_Stmt | None, int]:
    token = tokens[i]
    if token == "{":
        close = _matching(tokens, i, end)
        return _Stmt("block", [], _statements(tokens, i + 1, close)), close + 1
    if token == ";":
        return None, i + 1
    if token in ("for", "while", "if", "switch") and i + 1 < end and tokens[i + 1] == "(":
        close = _matching(tokens, i + 1, end)
        body, after = _statement(tokens, close + 1, end)
        head = tokens[i + 2:close]
        other = None
        if token == "if" and after < end and tokens[after] == "else":
            other_stmt, after = _statement(tokens, after + 1, end)
            other = [other_stmt] if other_stmt is not None else []
        return _Stmt(token, head, [body] if body is not None else [], other), after
    if token == "try":  # try (resources) { body } catch (...) { ... } finally { ... }: the body
        j = i + 1
        if j < end and tokens[j] == "(":
            j = _matching(tokens, j, end) + 1
        body, after = _statement(tokens, j, end)
        while after < end and tokens[after] in ("catch", "finally"):
            k = after + 1
            if k < end and tokens[k] == "(":
                k = _matching(tokens, k, end) + 1
            _, after = _statement(tokens, k, end)
        return _Stmt("block", [], [body] if body is not None else []), after
    if token == "do":
        body, after = _statement(tokens, i + 1, end)
        if after < end and tokens[after] == "while":
            close = _matching(tokens, after + 1, end)
            return _Stmt("do", tokens[after + 2:close], [body] if body is not None else []), close + 2
        raise _Unfollowed("do without while")
    j = i
    while j < end and tokens[j] != ";":
        if tokens[j] == "{":  # a lambda, an initializer, a local class: skip its body as part of the statement
            j = _matching(tokens, j, end)
        j += 1
    return _Stmt("simple", tokens[i:j], []), j + 1


def _functions(tokens: list[str]) -> dict[str, tuple[int, int]]:
    """Every function body in the source (name -> the body's token range), methods included."""
    found: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(tokens):
        if (tokens[i] == "(" and i > 0 and re.fullmatch(r"[A-Za-z_]\w*", tokens[i - 1])
                and tokens[i - 1] not in ("if", "for", "while", "switch", "return", "catch", "sizeof")):
            close = _matching(tokens, i, len(tokens))
            k = close + 1
            while k < len(tokens) and tokens[k] in ("const", "throws", "noexcept", "IOException", "Exception", ","):
                k += 1
            if k < len(tokens) and tokens[k] == "{":
                body_end = _matching(tokens, k, len(tokens))
                found.setdefault(tokens[i - 1], (k + 1, body_end))
                i = k + 1
                continue
        i += 1
    return found


class _Walker:
    def __init__(self, source: str, language: str) -> None:
        self.tokens, self.strings = _tokens(source, language)
        self.language = language
        self.functions = _functions(self.tokens)
        self.types = self._declared_types()
        self.sizes = self._vector_sizes()
        self.defined: set[str] = set()
        self.steps = 0
        self.inlined: set[str] = set()

    def _declared_types(self) -> dict[str, Kind | str]:
        """Each variable's kind from its declaration (``char`` for single characters)."""
        types: dict[str, Kind | str] = {}
        aliases = {"ll": Kind.INT, "LL": Kind.INT, "ld": Kind.FLOAT, "db": Kind.FLOAT}
        tokens = self.tokens
        for i, token in enumerate(tokens):
            kind: Kind | str | None = None
            if token in _FLOATS or aliases.get(token) is Kind.FLOAT:
                kind = Kind.FLOAT
            elif token in _WORDS:
                kind = Kind.WORD
            elif token == "char":
                kind = "char"
            elif token in _INTEGERS or token in aliases:
                kind = Kind.INT
            if kind is None:
                continue
            j = i + 1
            while j < len(tokens) and tokens[j] not in (";", ")", "{"):
                if re.fullmatch(r"[A-Za-z_]\w*", tokens[j]) and tokens[j - 1] in (",", "*", "&", token, "long", "]",
                                                                                    "unsigned", ">"):
                    name = tokens[j]
                    array = j + 1 < len(tokens) and tokens[j + 1] == "["
                    types.setdefault(name, Kind.WORD if kind == "char" and array else kind)
                if tokens[j] in ("(", "[", "{"):
                    try:
                        j = _matching(tokens, j, len(tokens))
                    except _Unfollowed:
                        break
                elif tokens[j] == "=":  # skip the initializer to the next declarator
                    while j + 1 < len(tokens) and tokens[j + 1] not in (",", ";"):
                        j += 1
                j += 1
        return types

    def _vector_sizes(self) -> dict[str, list[str]]:
        """``vector<int> a(n)``, ``new int[n]``: a container's size expression, by name."""
        sizes: dict[str, list[str]] = {}
        tokens = self.tokens
        for i in range(len(tokens) - 2):
            if re.fullmatch(r"[A-Za-z_]\w*", tokens[i]) and tokens[i + 1] == "(" and i > 0 and tokens[i - 1] == ">":
                close = _matching(tokens, i + 1, len(tokens))
                args = tokens[i + 2:close]
                if args and "," not in args:
                    sizes[tokens[i]] = args
            if tokens[i] == "=" and i + 3 < len(tokens) and tokens[i + 1] == "new" and i > 0:
                bracket = tokens.index("[", i) if "[" in tokens[i:i + 5] else -1
                if bracket > 0:
                    close = _matching(tokens, bracket, len(tokens))
                    sizes[tokens[i - 1]] = tokens[bracket + 1:close]
        return sizes

    # -- reads -------------------------------------------------------------------------------

    def reads(self, head: list[str]) -> list[Token] | None:
        """The tokens one simple statement reads (None: it reads nothing; raises when it reads in
        a way not followed)."""
        text = " ".join(head)
        found: list[Token] = []
        if "cin" in head and ">>" in head:
            start = head.index("cin")
            for target in _split(head[start + 1:], ">>")[1:]:
                found.append(self._target_token(target, None))
        elif any(t in ("scanf", "scanf_s") for t in head):
            call = head.index("scanf") if "scanf" in head else head.index("scanf_s")
            close = _matching(head, call + 1, len(head))
            args = _split(head[call + 2:close], ",")
            if not args or not args[0] or not args[0][0].startswith('"#'):
                raise _Unfollowed("scanf without a literal format")
            conversions = _SCANF.findall(self.strings[int(args[0][0][2:])])
            for conversion, target in zip(conversions, args[1:], strict=False):
                kind: Kind | str = {"s": Kind.WORD, "c": "char", "[": Kind.WORD}.get(conversion, Kind.INT)
                if conversion in "eEfgGaA":
                    kind = Kind.FLOAT
                found.append(self._target_token([t for t in target if t != "&"], kind))
        elif re.search(r"\bnext(?:Int|Long|Double|Float|Short|Byte|BigInteger)?\s*\(|\bnextToken\s*\(", text):
            found.extend(self._java_reads(head))
        elif re.fullmatch(r"\w+ \. (?:nextLine|readLine) \( \)", text):
            return []  # the rest of a line read and thrown away (after nextInt): no token
        elif re.search(r"\breadLine\s*\(|\bgetline\s*\(|\bgets\s*\(|\bfgets\s*\(|\bnextLine\s*\(", text):
            name = head[0] if len(head) > 2 and head[1] == "=" else None
            listed = "split" in head
            kind = Kind.INT if re.search(r"parse(?:Int|Long)|stoi|stoll|atoi", text) else Kind.WORD
            if re.search(r"StringTokenizer", text):
                return []  # a line of tokens: its nextToken calls read them
            found.append(Token(TokenType(kind), name=name, count=ANY if listed else None))
            return found  # a line of its own: marked by a line break below
        elif re.search(r"\bgetchar\s*\(|\bgetc\s*\(|\bread\s*\(|\bSystem\s*\.\s*in\s*\.\s*read", text):
            raise _Unfollowed("reads characters one by one")
        return found or None

    def _java_reads(self, head: list[str]) -> list[Token]:
        found = []
        for i, token in enumerate(head):
            if re.fullmatch(r"next(?:Int|Long|Double|Float|Short|Byte|BigInteger)?|nextToken", token) and \
                    i + 1 < len(head) and head[i + 1] == "(" and i > 0 and head[i - 1] == ".":
                if token == "nextToken":
                    context = " ".join(head[max(0, i - 8):i])
                    kind = Kind.FLOAT if "parseDouble" in context else Kind.INT if re.search(r"parse(?:Int|Long)", context) \
                        else Kind.WORD
                else:
                    kind = {"nextInt": Kind.INT, "nextLong": Kind.INT, "nextShort": Kind.INT, "nextByte": Kind.INT,
                            "nextBigInteger": Kind.INT, "nextDouble": Kind.FLOAT, "nextFloat": Kind.FLOAT}.get(token, Kind.WORD)
                name = self._assigned(head, i)
                found.append(self._target_token([name] if name else [], kind))
        return found

    @staticmethod
    def _assigned(head: list[str], i: int) -> str | None:
        """The variable an expression at ``i`` is assigned to (``int n = sc.nextInt()``, ``a[i] = ...``)."""
        j = i
        while j > 0 and head[j] not in ("=", ",", "("):
            j -= 1
        if j > 0 and head[j] == "=":
            k = j - 1
            if head[k] == "]":
                while k > 0 and head[k] != "[":
                    k -= 1
                k -= 1
            if re.fullmatch(r"[A-Za-z_]\w*", head[k]):
                return head[k]
        return None

    def _target_token(self, target: list[str], kind: Kind | str | None) -> Token:
        names = [t for t in target if re.fullmatch(r"[A-Za-z_]\w*", t)]
        name = names[0] if names else None
        indexed = "[" in target or len(names) > 1
        if kind is None:
            kind = self.types.get(name or "", Kind.INT)
        if kind == "char":
            return Token(TokenType(Kind.WORD, low=Expr(1), high=Expr(1)), name=None)
        assert isinstance(kind, Kind)
        return Token(TokenType(kind), name=None if indexed or kind is Kind.WORD else name)

    # -- the walk ----------------------------------------------------------------------------

    def function(self, name: str) -> list[Node]:
        if name not in self.functions or name in self.inlined:
            return []
        self.inlined.add(name)
        start, end = self.functions[name]
        return self.block(_statements(self.tokens, start, end))

    def block(self, statements: list[_Stmt]) -> list[Node]:
        nodes: list[Node] = []
        for stmt in statements:
            self.steps += 1
            if self.steps > _MAX_STEPS:
                raise _Unfollowed("too long")
            nodes.extend(self.statement(stmt))
        return _joined(nodes)

    def statement(self, stmt: _Stmt) -> list[Node]:
        if stmt.kind == "block":
            return self.block(stmt.body)
        if stmt.kind == "simple":
            called = [t for i, t in enumerate(stmt.head) if t in self.functions and i + 1 < len(stmt.head)
                      and stmt.head[i + 1] == "(" and t != "main"]
            tokens = self.reads(stmt.head)
            nodes: list[Node] = []
            if tokens:
                for token in tokens:
                    if token.name and token.count is None:
                        self.defined.add(token.name)
                nodes.append(Line(tuple(tokens)))
            for name in called:
                nodes.extend(self.function(name))
            return nodes
        if stmt.kind in ("for", "while", "do"):
            return self.loop(stmt)
        if stmt.kind in ("if", "switch"):
            inside = self.block(stmt.body) + self.block(stmt.other or [])
            if inside:
                raise _Unfollowed("a read inside a condition")
            return []
        return []

    def loop(self, stmt: _Stmt) -> list[Node]:
        head = stmt.head
        prefix: list[Node] = []
        count: Expr | None = None
        if stmt.kind == "for" and ":" in head:  # for (auto &x : a)
            container = head[-1]
            size = self.sizes.get(container)
            count = _expr(size, self.defined) if size else None
        elif stmt.kind == "for":
            parts = _split(head, ";")
            if len(parts) == 3:
                count = _for_count(parts, self.defined)
        else:
            reads = self.reads(head) if head else None
            if reads:  # while (cin >> x), while (scanf(...) != EOF)
                prefix = [Line(tuple(reads))]
                count = ANY
            elif head and head[0] in self.defined and (head[1:2] == ["--"] or head[1:3] == [">", "0"]):
                count = Expr(variable=head[0])  # while (t--), while (t > 0)
        body = self.block(stmt.body)
        if count is None:
            if body or prefix:
                raise _Unfollowed("a loop whose count is not followed")
            return []
        if prefix:
            return [Repeat(ANY, tuple(_joined(prefix + body)))]
        if not body:
            return []
        if len(body) == 1 and isinstance(body[0], Line) and len(body[0].tokens) == 1 and body[0].tokens[0].count is None:
            token = body[0].tokens[0]
            if token.type.kind is Kind.WORD and token.type.low == Expr(1) == token.type.high:
                return [Line((Token(TokenType(Kind.WORD, low=count, high=count)),))]  # characters: a word
            if token.type.kind is Kind.WORD:
                return [Repeat(count, (Line((Token(token.type),)),))]  # a word per turn: a line each
            return [Line((Token(token.type, count=count),))]  # one token per turn: a list
        return [Repeat(count, tuple(body))]


def _split(tokens: list[str], separator: str) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    depth = 0
    for token in tokens:
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        if token == separator and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _expr(tokens: list[str], defined: set[str]) -> Expr | None:
    text = "".join(tokens)
    match = re.fullmatch(r"(?:(\d+)\*)?([A-Za-z_]\w*)([+-]\d+)?|(\d+)", text)
    if match is None:
        return None
    if match.group(4):
        return Expr(int(match.group(4)))
    if match.group(2) not in defined:
        return None
    return Expr(int(match.group(3) or 0), match.group(2), int(match.group(1) or 1))


def _for_count(parts: list[list[str]], defined: set[str]) -> Expr | None:
    """``i = 0; i < n; i++`` (n), ``i = 1; i <= n; ++i`` (n), ``i = 0; i < n - 1`` (n - 1)."""
    init, condition, _ = parts
    if "=" not in init or len(condition) < 3:
        return None
    start = _expr(init[init.index("=") + 1:], defined)
    variable = init[init.index("=") - 1]
    if start is None or start.variable is not None or condition[0] != variable or condition[1] not in ("<", "<="):
        return None
    bound = _expr(condition[2:], defined)
    if bound is None:
        return None
    shift = (1 if condition[1] == "<=" else 0) - start.constant
    return Expr(bound.constant + shift, bound.variable, bound.scale)


def _joined(nodes: list[Node]) -> list[Node]:
    """Scalars read one after another share a line (the language does not see lines)."""
    out: list[Node] = []
    for node in nodes:
        if (isinstance(node, Line) and out and isinstance(out[-1], Line) and all(t.count is None for t in node.tokens)
                and all(t.count is None for t in out[-1].tokens) and out[-1].tokens and node.tokens
                and node.tokens[0].type.kind is not Kind.WORD and out[-1].tokens[-1].type.kind is not Kind.WORD):
            out[-1] = Line(out[-1].tokens + node.tokens)
        else:
            out.append(node)
    return out


def c_family_format(source: str, language: str) -> InputFormat | None:
    """The format a C, C++ or Java program reads (None: not followed, or it reads nothing)."""
    try:
        walker = _Walker(source, language)
        nodes = walker.function("main")
    except (_Unfollowed, ValueError, IndexError):
        return None
    if not nodes:
        return None
    return InputFormat(tuple(nodes), origin="programs")
