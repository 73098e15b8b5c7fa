"""Which well-known grammar a piece of code points to: a call (``urlparse(x)``), a literal
(``'://'``, ``'&amp;'``), a regular expression (``https?://``), a parameter's name (``url``).

Each function returns grammar names of :mod:`divergent.grammars.catalog` (``url``, ``markup``,
``json``, ``number``, ``date``, ``duration``, ``filesize``, ``version``, ``email``), most telling first.
"""

from __future__ import annotations

import re

__all__ = ["call_hints", "literal_hints", "name_hints", "regex_hints"]

#: the last part of a called name → grammars its first argument is written in
_CALLS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("urlparse", "urlsplit", "urljoin", "urldefrag", "parse_qs", "parse_qsl", "unquote", "unquote_plus", "quote",
         "quote_plus", "urlopen", "Request", "sanitize_url", "url_basename", "urlhandle_detect_ext", "idna_encode"),
        ("url",),
    ),
    **dict.fromkeys(
        ("unescape", "unescapeHTML", "escape", "fromstring", "HTMLParser", "feed", "get_element_by_attribute",
         "extract_attributes", "clean_html", "parseString", "XML"),
        ("markup",),
    ),
    **dict.fromkeys(("loads", "load", "js_to_json", "literal_eval", "JSONDecoder", "raw_decode"), ("json",)),
    **dict.fromkeys(("strptime", "parsedate", "parsedate_tz", "parsedate_to_datetime", "fromisoformat", "parse_date"), ("date",)),
    **dict.fromkeys(("Decimal", "Fraction", "parse_float", "str_to_int", "int_or_none", "float_or_none"), ("number",)),
    **dict.fromkeys(("parse_duration", "timedelta"), ("duration",)),
    **dict.fromkeys(("parse_filesize", "parse_size"), ("filesize",)),
    **dict.fromkeys(("Version", "parse_version", "LooseVersion", "StrictVersion", "version_tuple"), ("version",)),
}
#: words in a parameter's name → grammars (matched as whole parts of a snake_case or camelCase name)
_NAMES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("url", "urls", "uri", "href", "link", "endpoint", "host", "netloc", "domain"), ("url",)),
    **dict.fromkeys(("html", "xml", "tag", "element", "markup", "attr", "attrs", "webpage", "node"), ("markup",)),
    **dict.fromkeys(("json", "js", "jsonp", "payload"), ("json",)),
    **dict.fromkeys(("date", "datetime", "time", "timestamp", "day", "when", "dt"), ("date",)),
    **dict.fromkeys(("duration", "dur", "interval", "elapsed", "timeout", "period", "delay"), ("duration",)),
    **dict.fromkeys(("size", "filesize", "bytes", "bitrate"), ("filesize",)),
    **dict.fromkeys(("num", "number", "count", "amount", "price", "int", "float", "digits", "quantity"), ("number",)),
    **dict.fromkeys(("version", "ver", "release", "semver"), ("version",)),
    **dict.fromkeys(("email", "mail", "addr", "address", "recipient", "sender", "mailbox"), ("email",)),
}
_LITERALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"://|^(?:https?|ftp|rtmp\w*|mms|rtsp|file|mailto|data):?$|^www\.|^//$"), "url"),
    (re.compile(r"^</?[A-Za-z!?]|/>$|&(?:amp|lt|gt|quot|apos|nbsp|#x?[0-9a-fA-F]+);|^<$|^>$|CDATA"), "markup"),
    (re.compile(r"^(?:true|false|null|undefined)$|^[{}\[\]]$"), "json"),
    (re.compile(r"^(?:[kKmMgGtTpPeE]i?[bB]|[bB]ytes?|[KMGTP]B|kilo|mega|giga|tera)", re.ASCII), "filesize"),
    (re.compile(r"^(?:h|hours?|hrs?|m|mins?|minutes?|s|secs?|seconds?|ms|d|days?|w|weeks?)$|^PT?$|^\d+:\d+"), "duration"),
    (re.compile(r"^(?:inf|infinity|nan|[eE]|0x|0o|0b|[+-]|[.,_])$", re.IGNORECASE), "number"),
    (re.compile(r"^(?:a|b|rc|dev|post|alpha|beta|pre|v)$"), "version"),
    (re.compile(r"^[@＠﹫]$|^mailto:"), "email"),
)
_REGEXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"https?|://|\(\?:\[a-zA-Z\]|//"), "url"),
    (re.compile(r"<(?:[a-zA-Z/!?]|\\w|\[|\\s\*[a-zA-Z\[(])|&#|&amp|\\s\*/?>"), "markup"),
    (re.compile(r"(?:\\d|\[0-9\]|\[\\d\]|\[0-9\.\])[+*{]"), "number"),
    (re.compile(r"\[kKmMgG|\[KMGT|[KMG]i\?B|bytes", re.IGNORECASE), "filesize"),
    (re.compile(r"hours?|minutes?|seconds?|\bmins?\b|\bsecs?\b"), "duration"),
    (re.compile(r"\\d\{4\}|\\d\{1,2\}[-/.:]|\(\?P<(?:year|month|day)>"), "date"),
)
#: named groups and lookbehinds: their ``<`` is no tag
_GROUP_SYNTAX = re.compile(r"\(\?P?<[!=]?(?:\w+>)?|\(\?P=\w+\)")
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def call_hints(name: str) -> tuple[str, ...]:
    """Grammars the first argument of a call to ``name`` (its last dotted part) is written in."""
    return _CALLS.get(name.rsplit(".", 1)[-1], ())


def name_hints(name: str) -> tuple[str, ...]:
    """Grammars a parameter's name suggests (``page_url`` → url, ``upload_date`` → date)."""
    found: dict[str, None] = {}
    for part in _NAME_PARTS.findall(name):
        for grammar in _NAMES.get(part.lower(), ()):
            found[grammar] = None
    return tuple(found)


def literal_hints(literal: str) -> tuple[str, ...]:
    """Grammars a literal the code uses belongs to (``'://'`` → url, ``'KiB'`` → filesize)."""
    if not literal or len(literal) > 100:
        return ()
    return tuple(dict.fromkeys(grammar for pattern, grammar in _LITERALS if pattern.search(literal)))


def regex_hints(pattern: str | bytes) -> tuple[str, ...]:
    """Grammars a regular expression's text points to."""
    if isinstance(pattern, bytes):
        pattern = pattern.decode("latin-1")
    dates = ("date",) if re.search(r"\(\?P<(?:year|month|day)>", pattern) else ()
    pattern = _GROUP_SYNTAX.sub("(", pattern)
    return dates + tuple(dict.fromkeys(grammar for rule, grammar in _REGEXES if rule.search(pattern)))
