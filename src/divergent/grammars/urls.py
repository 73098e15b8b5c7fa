"""URLs: schemes other than http (``rtmp://``, ``ftp://``, ``file:``, ``data:``, protocol-relative
``//host``), hosts (names, IPv4, IPv6, IDN and punycode, a trailing dot), ports, user info, nested
paths (dot segments, doubled slashes, trailing slashes, percent escapes), queries and fragments.

:func:`generate` puts one together from the parts; :func:`mutate` swaps, drops, repeats or escapes
one part of a URL it is given.
"""

from __future__ import annotations

import re
import urllib.parse
from random import Random

__all__ = ["EXAMPLES", "generate", "looks_like", "mutate"]

SCHEMES = ("http", "https", "ftp", "rtmp", "rtmpe", "rtsp", "mms", "ws", "wss", "file", "git+ssh", "HTTP", "hTtPs",
           "s3", "ftps", "rtmpt", "f4m")  # fmt: skip
HOSTS = ("example.com", "www.example.com", "sub.domain.example.co.uk", "localhost", "127.0.0.1", "[::1]",
         "[2001:db8::7]", "bücher.example", "xn--bcher-kva.example", "EXAMPLE.COM", "example.com.", "a-b.c_d.example",
         "192.168.0.1", "0x7f.1", "host")  # fmt: skip
PORTS = ("", ":80", ":8080", ":443", ":0", ":65535", ":99999", ":")
USERS = ("", "user@", "user:pass@", "us%40er:p%3Ass@", ":@", "@")
PATHS = ("", "/", "/a", "/a/b/c", "/a/b/", "/path/to/video.mp4", "/a//b", "/a/./b/../c", "/%7Euser/file%20name.mp4",
         "/index.html", "/a;param=1/b", "/watch", "/v/abc123", "/dir/sub/dir/file.tar.gz", "/ü/ñ", "/a b",
         "/embed/", "/..", "/.hidden/x.")  # fmt: skip
QUERIES = ("", "?", "?a=1", "?a=1&b=2", "?a=1&a=2", "?q=a%20b+c", "?x", "?v=abc&list=PL1&t=1m2s", "?a=&b", "?=&&",
           "?next=http%3A%2F%2Fexample.com%2F")  # fmt: skip
FRAGMENTS = ("", "#", "#frag", "#a=b", "#t=30", "#/route?x=1")
#: whole URLs that are not put together from the parts above
SPECIAL = ("//example.com/path", "//cdn.example.com/a/b.js", "mailto:user@example.com", "data:text/plain;base64,SGk=",
           "file:///etc/hosts", "about:blank", "javascript:void(0)", "www.example.com/path", "example.com",
           "/relative/path", "relative/path", "../up/one", "./here", "?only=query", "#only-fragment", "http://",
           "http:///path", "http:example.com", "https://example.com:8080", "HTTP://EXAMPLE.COM/A?B#C",
           "rtmp://fms.example.com/vod/mp4:video.mp4", "rtmpe://example.com/app/playpath", "mms://example.com/stream",
           "https://user@example.com", "https://[::1]:8080/x", "https://example.com/a/b/c/d/e/f/g",
           "  https://example.com/  ", "https://example.com/%zz", "https://ex ample.com/", "")  # fmt: skip
_LOOKS = re.compile(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//|www\.)")


def _compose(rng: Random) -> str:
    scheme = rng.choice(SCHEMES)
    return (
        f"{scheme}://{rng.choice(USERS) if rng.random() < 0.2 else ''}{rng.choice(HOSTS)}"
        f"{rng.choice(PORTS) if rng.random() < 0.25 else ''}{rng.choice(PATHS)}"
        f"{rng.choice(QUERIES) if rng.random() < 0.4 else ''}{rng.choice(FRAGMENTS) if rng.random() < 0.2 else ''}"
    )


def _examples() -> tuple[str, ...]:
    found: dict[str, None] = {}
    # every scheme, host, path and query at least once, with the plainest other parts
    for scheme in SCHEMES:
        found[f"{scheme}://example.com/a/b/c"] = None
    for host in HOSTS:
        found[f"https://{host}/"] = None
    for path in PATHS:
        found[f"http://example.com{path}"] = None
    for port, user in zip(PORTS, USERS * 2, strict=False):
        found[f"rtmp://{user}example.com{port}/live/stream"] = None
    for query, fragment in zip(QUERIES, FRAGMENTS * 2, strict=False):
        found[f"https://www.example.com/watch{query}{fragment}"] = None
    found.update(dict.fromkeys(SPECIAL))
    return tuple(found)


EXAMPLES: tuple[str, ...] = _examples()


def generate(rng: Random) -> str:
    return rng.choice(SPECIAL) if rng.random() < 0.2 else _compose(rng)


def looks_like(value: str) -> bool:
    return bool(_LOOKS.match(value)) and ("/" in value or ":" in value)


def _escape(text: str, rng: Random) -> str:
    """One character of ``text`` percent-escaped."""
    if not text:
        return text
    at = rng.randrange(len(text))
    char = text[at]
    escaped = f"%{ord(char):02X}" if ord(char) < 128 else urllib.parse.quote(char)
    return text[:at] + escaped + text[at + 1 :]


def mutate(value: str, rng: Random) -> str | None:
    """One part of the URL ``value`` swapped, dropped, repeated or escaped; None if it is no URL."""
    if not looks_like(value):
        return None
    try:
        parts = urllib.parse.urlsplit(value.strip())
    except ValueError:
        return None
    scheme, netloc, path, query, fragment = parts
    choice = rng.randrange(9)
    if choice == 0:
        scheme = rng.choice((*SCHEMES, ""))
    elif choice == 1:
        netloc = rng.choice(USERS) + rng.choice(HOSTS) + (rng.choice(PORTS) if rng.random() < 0.3 else "")
    elif choice == 2:
        segments = path.split("/")
        if len(segments) > 1:
            at = rng.randrange(1, len(segments))
            segments.insert(at, segments[at] or "x")  # a segment repeated: a nested path
        else:
            segments = ["", "a", "b"]
        path = "/".join(segments)
    elif choice == 3:
        path = rng.choice(PATHS)
    elif choice == 4:
        query = rng.choice(QUERIES).lstrip("?")
    elif choice == 5:
        fragment = rng.choice(FRAGMENTS).lstrip("#")
    elif choice == 6:
        # drop one part
        which = rng.randrange(4)
        scheme, netloc, path, query = (
            "" if which == 0 else scheme, "" if which == 1 else netloc, "" if which == 2 else path, "" if which == 3 else query,
        )
    elif choice == 7:
        path = _escape(path, rng) if path else "/%7E"
    else:
        path = path + ("/" if not path.endswith("/") else "") + rng.choice(("x", "a/b", "..", ".", "", "index.html"))
    if netloc and path and not path.startswith("/"):
        path = "/" + path
    return urllib.parse.urlunsplit((scheme, netloc, path, query, fragment))
