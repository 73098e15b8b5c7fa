"""Whole programs: what a spec names when it is a program that reads stdin.

Specs understood by :func:`load_program`::

    path.c                  C        (gcc)
    path.cc path.cpp path.cxx  C++   (g++)
    path.java               Java     (javac; the class holding main is read from the file)
    path.py                 a Python script (with --stdin; a .py file is a function otherwise)
    exec:PATH               any executable, run as it is

Nothing is compiled or run here: the source is read as text (the build happens in the sandbox, see
:mod:`divergent.sandbox.builds`). :func:`names_whole_program` says whether a spec can only be a
whole program (which implies ``--stdin``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from divergent.errors import LoadError
from divergent.programs import BuildOptions, Language, StdinProgram

__all__ = ["EXTENSIONS", "java_main_class", "load_program", "load_program_source", "names_whole_program"]

#: source extensions of the compiled languages
EXTENSIONS: dict[str, Language] = {
    ".c": Language.C,
    ".cc": Language.CPP,
    ".cpp": Language.CPP,
    ".cxx": Language.CPP,
    ".c++": Language.CPP,
    ".java": Language.JAVA,
    ".py": Language.PYTHON,
}
_EXEC_PREFIX = "exec:"
#: a source larger than this is not a program anyone meant to compare
_MAX_SOURCE_BYTES = 8 * 1024 * 1024
_JAVA_PUBLIC_CLASS = re.compile(r"^\s*public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)", re.MULTILINE)
_JAVA_ANY_CLASS = re.compile(r"\bclass\s+([A-Za-z_$][\w$]*)")
_JAVA_MAIN = re.compile(r"\bpublic\s+static\s+void\s+main\s*\(|\bstatic\s+public\s+void\s+main\s*\(")


def names_whole_program(spec: object) -> bool:
    """Whether ``spec`` can only name a whole program: a C, C++ or Java file, or ``exec:PATH`` (a
    loaded program's kind says itself what it is: :meth:`divergent.kinds.base.ProgramKind.claims`)."""
    if not isinstance(spec, str | os.PathLike):
        return False
    text = str(spec)
    if text.startswith(_EXEC_PREFIX):
        return True
    return EXTENSIONS.get(Path(text).suffix.lower()) not in (None, Language.PYTHON)


def load_program(spec: str | os.PathLike[str], *, build: BuildOptions = BuildOptions()) -> StdinProgram:
    """The whole program a spec names (a source file by its extension, or ``exec:PATH``)."""
    text = str(spec).strip()
    if text.startswith(_EXEC_PREFIX):
        target = text[len(_EXEC_PREFIX) :]
        path = Path(target).expanduser()
        if not path.is_file():
            raise LoadError(f"{text}: no such file")
        if not os.access(path, os.X_OK):
            raise LoadError(f"{text}: not executable (chmod +x it)")
        return StdinProgram(label=text, source="", language=Language.EXEC, path=str(path.resolve()),
                            build=build, origin=text)
    path = Path(text).expanduser()
    language = EXTENSIONS.get(path.suffix.lower())
    if language is None:
        raise LoadError(
            f"{text}: cannot tell the language from the extension (use .c, .cpp, .cc, .cxx, .java, .py, "
            "or exec:PATH for a ready executable)"
        )
    if not path.is_file():
        raise LoadError(f"{text}: no such file")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise LoadError(f"{text}: cannot read: {error.strerror or error}") from None
    if len(data) > _MAX_SOURCE_BYTES:
        raise LoadError(f"{text}: {len(data):,} bytes is too large for a source file")
    return load_program_source(data.decode("utf-8", "surrogateescape"), language, label=text,
                               path=str(path.resolve()), build=build)


def load_program_source(source: str, language: Language | str, *, label: str, path: str | None = None,
                        build: BuildOptions = BuildOptions()) -> StdinProgram:
    """A whole program from its source text (``path``: where it lives, if it is a file)."""
    try:
        language = Language(language)
    except ValueError:
        choices = ", ".join(item.value for item in Language if item is not Language.EXEC)
        raise LoadError(f"{label}: unknown language {language!r}; choose from {choices}") from None
    if language is Language.EXEC:
        raise LoadError(f"{label}: an executable is loaded from a file (exec:PATH)")
    main_class = ""
    program = StdinProgram(label=label, source=source, language=language, path=path, build=build, origin=label)
    if language is Language.JAVA:
        main_class = java_main_class(program)
        program = StdinProgram(label=label, source=source, language=language, path=path, build=build,
                               origin=label, main_class=main_class)
    return program


def java_main_class(program: StdinProgram) -> str:
    """The class a Java source's ``main`` is in: its public class, else the one class with main."""
    source = _without_comments(program.source)
    public = _JAVA_PUBLIC_CLASS.findall(source)
    if public:
        return public[0]
    main = _JAVA_MAIN.search(source)
    if main is not None:
        # the class whose declaration comes last before main (the one holding it, unless nested)
        before = [m.group(1) for m in _JAVA_ANY_CLASS.finditer(source, 0, main.start())]
        if before:
            return before[-1]
    classes = _JAVA_ANY_CLASS.findall(source)
    if len(classes) == 1:
        return classes[0]
    raise LoadError(f"{program.label}: no class found (a Java program needs a class with public static void main)")


def _without_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.DOTALL)
    source = re.sub(r"//[^\n]*", " ", source)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)
