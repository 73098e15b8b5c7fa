"""The bubblewrap level's file system: what a sandbox sees, and the ``bwrap`` command line.

Only what the interpreter and the programs need is bound, read-only: ``/usr`` (and the top-level
directories that point into it), a few files of ``/etc``, the Python prefixes and site-packages,
the divergent package, each program's own directory (never a shared one such as a home directory
or ``/tmp``: then only the program's file), and what a runner asks for besides (a build cache).
Inside each bound directory the usual places of secrets (``.ssh``, ``.aws``...) are hidden. A
private, size-capped tmpfs is ``/tmp`` (also HOME and the working directory); ``/dev`` is
bubblewrap's minimal one with a small ``/dev/shm``; ``/proc`` belongs to the sandbox's own PID
namespace; everything else (``/run``, ``/var``, ``/home``, ``/root``, host sockets) does not exist.
The program runs as uid 65534 in a user namespace, without capabilities, unable to make further
user namespaces, with no network.
"""

from __future__ import annotations

import contextlib
import os
import site
import sys
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

#: the unprivileged user (nobody) untrusted code runs as inside the user namespace
SANDBOX_UID = SANDBOX_GID = 65534
#: where a bubblewrap sandbox's private, size-capped temporary directory is (also HOME and cwd)
SANDBOX_TMP = "/tmp"
#: bytes of /dev/shm in a bubblewrap sandbox (POSIX semaphores and shared memory need a little)
_SHM_BYTES = 16 * 1024 * 1024
#: files of /etc the interpreter and toolchains read; none holds a secret
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives")
#: directories never bound whole: they hold other users' files, sockets or secrets. A program
#: that lives directly in one of them gets only its own file.
_SHARED_DIRECTORIES = frozenset({
    "/", "/tmp", "/var/tmp", "/dev", "/dev/shm", "/run", "/var/run", "/var", "/etc", "/proc", "/sys",
    "/home", "/root", "/boot", "/mnt", "/media", "/srv",
})  # fmt: skip
#: names hidden (an empty read-only mount over them) inside every bound directory: the secrets a
#: program's directory is most likely to hold. A courtesy, not a guarantee: docs/sandbox.md
_SECRET_NAMES = (
    ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials", ".pypirc",
    ".npmrc", ".env", ".password-store", ".vault-token", ".config/gcloud", ".local/share/keyrings",
)  # fmt: skip


def running_as_root() -> bool:
    return os.geteuid() == 0


def package_root() -> str:
    return str(Path(__file__).resolve().parents[2])


def _is_shared(directory: str) -> bool:
    if directory in _SHARED_DIRECTORIES:
        return True
    home = os.path.expanduser("~")
    return directory == home or os.path.dirname(directory) == "/home"


@cache
def interpreter_paths(narrow: bool = False) -> tuple[str, ...]:
    """What the interpreter needs to run divergent's children: its prefixes, site-packages, the
    divergent package and (unless ``narrow``) the other directories of this process's
    ``sys.path`` (packages a function may import; among them the directory divergent was started
    from, with ``python -m``). Whole programs get the narrow set: nothing of where they or
    divergent were started from."""
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, package_root()]
    with contextlib.suppress(AttributeError):
        candidates += site.getsitepackages()
    if not narrow:
        candidates += [entry for entry in sys.path if entry and os.path.isabs(entry)]
    executable = os.path.realpath(sys.executable)
    candidates.append(os.path.dirname(os.path.dirname(executable)))
    found = []
    for path in candidates:
        path = os.path.abspath(path)
        if os.path.isdir(path) and not _is_shared(path):
            found.append(path)
            real = os.path.realpath(path)
            if real != path and not _is_shared(real):
                found.append(real)
    return tuple(dict.fromkeys(found))


def program_paths(directories: Iterable[str], files: Iterable[str]) -> list[str]:
    """What to bind for programs: their directories (``sys.path`` roots), except shared ones such
    as a home directory or ``/tmp``, where only the program's own file is bound."""
    paths = []
    for directory in directories:
        directory = os.path.abspath(directory)
        if os.path.isdir(directory) and not _is_shared(directory):
            paths.append(directory)
    for file in files:
        file = os.path.abspath(file)
        if os.path.exists(file) and not any(_inside(file, d) for d in paths):
            paths.append(file)
    return paths


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _top_level_binds() -> list[str]:
    """``/usr`` and the top-level directories that point into it (merged /usr) or live beside it."""
    arguments = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = f"/{name}"
        if os.path.islink(path):
            arguments += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            arguments += ["--ro-bind", path, path]
    return arguments


def _bind_arguments(paths: Iterable[str]) -> list[str]:
    """Read-only binds of ``paths`` (deduplicated, parents first), with the secret names inside
    each bound directory hidden."""
    chosen: list[str] = []
    for path in sorted({os.path.abspath(p) for p in paths}):
        if _inside(path, "/usr") or any(_inside(path, parent) for parent in chosen):
            continue
        if os.path.exists(path):
            chosen.append(path)
    arguments = []
    for path in chosen:
        arguments += ["--ro-bind", path, path]
        if os.path.isdir(path):
            for name in _SECRET_NAMES:
                secret = os.path.join(path, name)
                if os.path.isdir(secret) and not os.path.islink(secret):
                    arguments += ["--size", "4096", "--tmpfs", secret, "--remount-ro", secret]
                elif os.path.lexists(secret) and not os.path.isdir(secret):
                    arguments += ["--ro-bind", "/dev/null", secret]
    return arguments


def bubblewrap_command(
    argv: Sequence[str], *, disk_bytes: int, read_only: Iterable[str], data_fds: dict[str, int] | None = None,
    writable: Iterable[str] = (), as_pid_1: bool = False, narrow: bool = False,
) -> list[str]:
    """The ``bwrap`` command line that runs ``argv`` at the bubblewrap level.

    ``read_only``: paths to bind read-only besides the interpreter's; ``data_fds``: files of the
    sandbox (``/etc/passwd``...) to fill from descriptors; ``writable``: host directories bound
    read-write at the same path (a fresh directory made for one sandbox, e.g. a build's output:
    whatever is written there is untrusted and read back by the parent as such); ``as_pid_1``:
    ``argv`` is PID 1 of the sandbox's PID namespace (no bubblewrap init above it); ``narrow``:
    see :func:`interpreter_paths`."""
    command = [
        "bwrap",
        "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID), "--disable-userns",
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session",
    ]  # fmt: skip
    if running_as_root():
        command += ["--cap-drop", "ALL"]
    if as_pid_1:
        command += ["--as-pid-1"]
    command += _top_level_binds()
    command += ["--dir", "/etc"]
    for name in _ETC_FILES:
        command += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for destination, fd in (data_fds or {}).items():
        command += ["--ro-bind-data", str(fd), destination]
    # /tmp first: a program's directory may be under /tmp, and is then bound over it.
    command += ["--size", str(disk_bytes), "--tmpfs", SANDBOX_TMP]
    command += _bind_arguments([*interpreter_paths(narrow), *read_only])
    for path in sorted({os.path.abspath(p) for p in writable}):
        command += ["--bind", path, path]
    command += [
        "--dev", "/dev",
        "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm",
        "--proc", "/proc",
        "--chdir", SANDBOX_TMP,
        "--remount-ro", "/dev",
        "--remount-ro", "/",
        "--",
        *argv,
    ]  # fmt: skip
    return command


def identity_files() -> dict[str, bytes]:
    """A minimal ``/etc/passwd`` and ``/etc/group`` naming the sandbox's one user."""
    return {
        "/etc/passwd": f"nobody:x:{SANDBOX_UID}:{SANDBOX_GID}:nobody:{SANDBOX_TMP}:/usr/sbin/nologin\n".encode(),
        "/etc/group": f"nogroup:x:{SANDBOX_GID}:\n".encode(),
    }
