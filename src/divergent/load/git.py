"""Files at a git revision: the revision resolved to a commit, whose whole tree is exported once
(``git archive``) into a private cache directory and reused afterwards. Nothing is checked out.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from divergent.errors import LoadError
from divergent.load.targets import Target

__all__ = ["commit_of", "file_at_revision", "git_output", "repository_root", "tree_at_revision"]


def _git(arguments: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *arguments], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise LoadError(
            "git is not installed, so revisions such as HEAD~1:path.py cannot be loaded"
        ) from None
    except subprocess.TimeoutExpired:
        raise LoadError(f"git {' '.join(arguments)} took too long") from None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "unknown error"


def _resolve_commit(revision: str, cwd: Path, spec: str) -> str:
    if revision.startswith("-"):
        raise LoadError(f"{spec}: {revision!r} is not a git revision")
    named = _git(["rev-parse", "--verify", "--quiet", revision], cwd)
    if named.returncode == 0:
        # peel separately: appending ^{commit} to ':/message' would change the search
        peeled = _git(["rev-parse", "--verify", "--quiet", f"{named.stdout.strip()}^{{commit}}"], cwd)
        if peeled.returncode == 0:
            return peeled.stdout.strip()
        raise LoadError(f"{spec}: git revision {revision!r} does not name a commit")
    # --verify --quiet says nothing: ask again for git's own explanation
    explained = _git(["rev-parse", revision, "--"], cwd)
    reason = _first_line(explained.stderr) if explained.returncode else f"{revision} does not name a commit"
    raise LoadError(f"{spec}: bad git revision {revision!r}: {reason}")


def _private_cache_root() -> Path:
    """A directory for exported trees that only we can write to (a shared /tmp is hostile)."""
    temporary = Path(tempfile.gettempdir())
    for name in ("divergent-git", f"divergent-git-{os.getuid()}"):
        root = temporary / name
        try:
            root.mkdir(mode=0o755, exist_ok=True)
            status = root.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o022:
            return root
    raise LoadError(f"cannot create a private cache directory for git revisions under {temporary}")


def _export_commit(commit: str, cwd: Path, spec: str) -> Path:
    """The whole tree at ``commit``, exported once into a cache directory and reused afterwards."""
    import tarfile  # (only for revisions: most loads read files)

    root = _private_cache_root()
    final = root / commit
    if final.is_dir():
        return final
    staging = Path(tempfile.mkdtemp(prefix=f".{commit}.", dir=root))
    try:
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(
                ["git", "archive", "--format=tar", commit], cwd=cwd, stdout=subprocess.PIPE, stderr=errors
            )
            assert process.stdout is not None
            try:
                with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
                    for member in archive:
                        try:
                            archive.extract(member, staging, filter="data")
                        except tarfile.FilterError:
                            continue  # a link leaving the tree: never needed to import the code
            except tarfile.TarError as error:
                process.kill()
                raise LoadError(f"{spec}: cannot export {commit[:12]}: {error}") from None
            finally:
                process.stdout.close()
                returncode = process.wait()
            if returncode != 0:
                errors.seek(0)
                message = _first_line(errors.read().decode(errors="replace"))
                raise LoadError(f"{spec}: git archive failed: {message}")
        staging.chmod(0o755)
        try:
            staging.rename(final)
        except OSError:
            # another process exported the same commit first: use theirs
            if not final.is_dir():
                raise
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def file_at_revision(target: Target, cwd: Path) -> Path:
    """The file a ``REV:path`` target names, inside the exported tree of that revision."""
    assert target.revision is not None and target.path is not None
    commit = _resolve_commit(target.revision, cwd, target.spec)
    prefix = _git(["rev-parse", "--show-prefix"], cwd).stdout.strip()
    tree = _export_commit(commit, cwd, target.spec)
    inside = target.path
    if os.path.isabs(inside):
        toplevel = _git(["rev-parse", "--show-toplevel"], cwd).stdout.strip()
        inside = os.path.relpath(inside, toplevel)
    # like a path on disk, the path is relative to the current directory; the repository root
    # is tried second because that is how `git show REV:path` spells it
    for candidate in (os.path.join(prefix, inside), inside):
        normal = os.path.normpath(candidate)
        if normal.startswith(".."):
            continue
        file = tree / normal
        if file.is_file():
            return file
    raise LoadError(
        f"{target.spec}: {target.path} does not exist at revision {target.revision} ({commit[:12]})"
    )


def git_output(arguments: Sequence[str], cwd: Path, what: str) -> str:
    """What ``git ARGUMENTS`` prints in ``cwd`` (LoadError naming ``what`` when it fails)."""
    done = _git(arguments, cwd)
    if done.returncode != 0:
        raise LoadError(f"{what}: {_first_line(done.stderr)}")
    return done.stdout


def repository_root(cwd: Path) -> Path:
    """The top of the work tree ``cwd`` is in (LoadError outside a git repository)."""
    return Path(git_output(["rev-parse", "--show-toplevel"], cwd, f"{cwd} is not in a git work tree").strip())


def commit_of(revision: str, cwd: Path) -> str:
    """The commit ``revision`` names (LoadError with git's own reason when it names none)."""
    return _resolve_commit(revision, cwd, revision)


def tree_at_revision(revision: str, cwd: Path) -> tuple[str, Path]:
    """The commit ``revision`` names and its whole tree, exported once into the private cache
    (the directory ``REV:path`` specs load from)."""
    commit = _resolve_commit(revision, cwd, revision)
    return commit, _export_commit(commit, cwd, revision)
