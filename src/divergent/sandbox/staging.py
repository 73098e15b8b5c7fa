"""Staging a whole program: the files it may see, and nothing of what lies beside it.

A whole program never sees the directory it lives in: a solution kept in a home directory or
directly in ``/tmp`` sits beside keys, histories and other users' files. What a program may read is
its own source (or executable) and the files the *user* declared for it
(:attr:`~divergent.programs.BuildOptions.files`, ``--with-file``: a script's helper modules, a Java
program's other classes, a C program's headers), each taken from under the program's own directory
and kept at its path relative to it. The program's source cannot declare anything (it is
untrusted); a declared symbolic link counts where it points, and must point under the directory too.

Everything is read once, when the program is built, and then only copies are used: the compiler gets
them as files of its private build directory (:func:`build_files`), and a script or an executable
runs from a staged copy in the build cache (:func:`staged_entry`, a directory named by the hash of the
files, bound read-only into the sandbox). No directory of the user's is ever bound.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from divergent.errors import LoadError
from divergent.programs import StdinProgram

#: at most this many declared files per program (a directory counts its files)
MAX_FILES = 1000
#: at most this many bytes of declared files per program
MAX_BYTES = 64 * 1024 * 1024
#: the largest executable an ``exec:`` program may be (it is copied)
MAX_EXECUTABLE_BYTES = 256 * 1024 * 1024

#: a staged file: its path relative to the program's directory, and its content
StagedFile = tuple[str, bytes]


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def declared_files(program: StdinProgram) -> list[StagedFile]:
    """The files declared for ``program`` that lie under its directory, read now, in a stable
    order (directories walked without following links; only regular files)."""
    declared = program.build.files
    if not declared or not program.directory:
        return []
    root = os.path.realpath(program.directory)
    found: dict[str, bytes] = {}
    total = 0
    for name in declared:
        path = os.path.realpath(name)
        if not _inside(path, root) or path == root:
            continue
        for file in _regular_files(path, name):
            relative = os.path.relpath(file, root)
            if relative in found:
                continue
            data = _read(file, f"{program.label}: --with-file {name}")
            total += len(data)
            if len(found) >= MAX_FILES or total > MAX_BYTES:
                raise LoadError(f"{program.label}: more than {MAX_FILES} declared files or "
                                f"{MAX_BYTES // (1 << 20)} MiB (--with-file)")
            found[relative] = data
    return sorted(found.items())


def _regular_files(path: str, shown: str) -> list[str]:
    if os.path.isdir(path):
        files = []
        for directory, subdirectories, names in os.walk(path, followlinks=False):
            subdirectories.sort()
            files += [os.path.join(directory, n) for n in sorted(names)
                      if stat.S_ISREG(os.lstat(os.path.join(directory, n)).st_mode)]
        return files
    if not os.path.isfile(path):
        raise LoadError(f"--with-file {shown}: no such file or directory")
    return [path]


def _read(path: str, what: str, limit: int = MAX_BYTES) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise LoadError(f"{what}: cannot read {path} ({error.strerror})") from None
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise LoadError(f"{what}: {path} is not a regular file")
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise LoadError(f"{what}: {path} is larger than {limit:,} bytes")
    return data


def check_declared(programs: list[StdinProgram]) -> None:
    """Every declared file must lie under the directory of some program (else it is a mistake:
    it would be staged nowhere)."""
    declared = {name for program in programs for name in program.build.files}
    roots = [os.path.realpath(p.directory) for p in programs if p.directory]
    for name in sorted(declared):
        path = os.path.realpath(name)
        if not os.path.exists(path):
            raise LoadError(f"--with-file {name}: no such file or directory")
        if not any(_inside(path, root) and path != root for root in roots):
            raise LoadError(f"--with-file {name}: not under the directory of any program (a program sees only "
                            "its own file and the files declared under its directory)")


def main_file(program: StdinProgram, name: str) -> StagedFile:
    """The program's own source (or executable) as a staged file called ``name``."""
    if program.source or program.path is None:
        return name, program.source.encode("utf-8", "surrogateescape")
    return name, _read(program.path, program.label, MAX_EXECUTABLE_BYTES)


def files_key(files: list[StagedFile], *more: str) -> str:
    """A hash of staged files (and of ``more``: what else decides a build)."""
    digest = hashlib.sha256()
    for part in more:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0\1\0")
    for relative, data in files:
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0\2\0")
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()[:32]


def staged_entry(cache: Path, files: list[StagedFile], *, executable: str = "") -> Path:
    """The build cache's copy of ``files`` (made once, atomically; ``executable``: the one staged
    file to mark executable): a directory holding them alone, for the sandbox to bind read-only."""
    entry = cache / files_key(files, "staged", executable)
    if (entry / ".complete").is_file():
        return entry
    entry.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=entry.parent))
    try:
        for relative, data in files:
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, 0o755 if relative == executable else 0o644)
        (staging / ".complete").write_text("")
        os.chmod(staging, 0o755)
        try:
            os.rename(staging, entry)
        except OSError:
            if not (entry / ".complete").is_file():  # else another process staged the same first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return entry
