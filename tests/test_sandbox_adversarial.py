"""Hostile programs against the sandbox: one test per finding of two security reviews (docs/sandbox.md's
table): functions first, then whole programs (stdin to stdout).

Each test plays an attack as an attacker would and asserts what the user would see: the secret
never appears, the listener records no connection, the forger is reported as different or crashed
(never equivalent), an internal failure exits 3 with one line or a JSON object, a planted FIFO
cannot hang divergent, no cgroup is left behind, no raw ESC byte reaches the terminal, a huge
literal is refused at once, the response store is private. The last section attacks the warm
machinery (the script zygote, the warm JVM, workers reused across versions, the launchers of
validators, checkers and generators) and asserts from the host that nothing of a run outlives it.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from divergent.errors import SandboxUnavailable
from divergent.programs import PythonFunction, Signature
from divergent.records import Input, OutcomeKind
from divergent.sandbox import isolation
from divergent.sandbox.isolation import Isolation, available_levels
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool
from divergent.values import canonical_text

pytestmark = pytest.mark.adversarial

ROOT = Path(__file__).resolve().parents[1]
LEVELS = available_levels()
needs_bwrap = pytest.mark.skipif(Isolation.BUBBLEWRAP not in LEVELS, reason="bubblewrap not available")
AS_ROOT = os.geteuid() == 0
SECRET = "divergent-adversarial-secret-7f3a9c"


def program(directory: Path, name: str, source: str) -> PythonFunction:
    """A program in its own file (so the sandbox binds its directory, as for a user's file)."""
    directory.mkdir(parents=True, exist_ok=True)
    file = directory / f"{name}.py"
    file.write_text(textwrap.dedent(source))
    return PythonFunction(label=name, entry_point="f", source=file.read_text(), signature=Signature(),
                          path=str(file), module_name=name, sys_path=(str(directory),))


def run_one(impl: PythonFunction, args: tuple = (1,), *, isolation_level: str | None = None,
            limits: Limits = Limits(timeout=5.0)):
    with WorkerPool([impl], limits=limits, isolation=isolation_level) as pool:
        (row,) = pool.run([Input(args=args)])
    return row[0]


def divergent(*args: str, cwd: Path, env: dict[str, str] | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "divergent", *args], cwd=cwd, capture_output=True,
                          env=environment, timeout=timeout)


REFERENCE = "def f(x: int) -> str:\n    return 'GOOD'\n"


# -- 1. untrusted code runs unprivileged, and sees none of the host's secrets ----------------------


@needs_bwrap
def test_programs_run_unprivileged_and_read_no_host_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIVERGENT_ADVERSARIAL_TOKEN", SECRET)
    elsewhere = tmp_path / "elsewhere" / "notes.txt"  # not the program's directory
    elsewhere.parent.mkdir()
    elsewhere.write_text(SECRET)
    spy = program(tmp_path / "project", "spy", f"""
        import glob, os
        def attempt(path):
            try:
                with open(path, errors="replace") as stream:
                    return stream.read(100_000)
            except OSError as error:
                return type(error).__name__
        def f(x):
            found = {{"uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid()}}
            for path in ["/etc/shadow", "/etc/passwd", {str(elsewhere)!r}, os.path.expanduser("~/.bash_history"),
                         "/root/.bash_history", "./.ssh/id_rsa", {str(tmp_path / "project" / ".ssh" / "id_rsa")!r}]:
                found[path] = attempt(path)
            for pattern in ["/proc/*/environ", "/proc/*/cmdline"]:
                found[pattern] = [attempt(p) for p in glob.glob(pattern)]
            found["/"] = sorted(os.listdir("/"))
            found["/root"] = sorted(os.listdir("/root")) if os.path.isdir("/root") else None
            for place in ["/", "/etc", "/usr", "/root", {str(tmp_path / "project")!r}, {str(tmp_path)!r}]:
                try:
                    open(os.path.join(place, "planted"), "w").write("x")
                    found["wrote " + place] = True
                except OSError:
                    found["wrote " + place] = False
            return found
    """)
    key = tmp_path / "project" / ".ssh" / "id_rsa"
    key.parent.mkdir()
    key.write_text(SECRET)
    outcome = run_one(spy, isolation_level="bubblewrap")
    assert outcome.kind is OutcomeKind.RETURNED, outcome
    text = canonical_text(outcome.value)
    assert SECRET not in text  # not the file elsewhere, not the masked key, not the parent's environment
    found = dict(outcome.value[1])
    assert found["uid"] == found["euid"] == 65534 and found["gid"] == 65534
    assert found["/etc/shadow"] == "FileNotFoundError"
    assert "nobody" in found["/etc/passwd"] and "root:" not in found["/etc/passwd"]
    assert not {"home", "run", "var", "boot", "mnt"} & set(found["/"][1])
    for place in ["/", "/etc", "/usr", "/root", str(tmp_path / "project")]:
        assert found["wrote " + place] is False, place
    # what it wrote at the path of the host's tmp_path went to its own /tmp, never to the host's
    assert not (tmp_path / "planted").exists() and not (tmp_path / "project" / "planted").exists()


# -- 2. no host socket is reachable, at any level -------------------------------------------------


@pytest.fixture
def listeners(tmp_path: Path) -> Iterator[tuple[list[str], list[str]]]:
    """Unix sockets listening on a file in the program's own directory, on a file in the host's
    /tmp, and in the abstract namespace, and a TCP socket on the host's loopback; yields (their
    addresses, the connections they accepted)."""
    (tmp_path / "project").mkdir()
    addresses = [str(tmp_path / "project" / "agent.sock"), f"/tmp/divergent-adversarial-{os.getpid()}.sock",
                 f"\0divergent-adversarial-{os.getpid()}"]
    servers = []
    for address in addresses:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if not address.startswith("\0") and os.path.exists(address):
            os.unlink(address)
        server.bind(address)
        if not address.startswith("\0"):
            os.chmod(address, 0o777)
        server.listen(8)
        server.settimeout(0.05)
        servers.append(server)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    tcp.settimeout(0.05)
    servers.append(tcp)
    addresses.append(tcp.getsockname())
    accepted: list[str] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            for server, address in zip(servers, addresses, strict=True):
                try:
                    connection, _ = server.accept()
                except OSError:
                    continue
                accepted.append(address)
                connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield addresses, accepted
    finally:
        stop.set()
        thread.join()
        for server, address in zip(servers, addresses, strict=True):
            server.close()
            if isinstance(address, str) and not address.startswith("\0"):
                Path(address).unlink(missing_ok=True)


@pytest.mark.parametrize("level", [level.value for level in LEVELS])
def test_no_host_socket_is_reachable(level: str, tmp_path: Path, listeners) -> None:
    """Unix sockets (a Docker or systemd socket would be an escape) and the host's loopback."""
    addresses, accepted = listeners
    dialer = program(tmp_path / "project", "dialer", f"""
        import socket
        def f(x):
            results = []
            for address in {addresses!r}:
                try:
                    family = socket.AF_INET if isinstance(address, tuple) else socket.AF_UNIX
                    client = socket.socket(family, socket.SOCK_STREAM)
                    client.settimeout(1)
                    client.connect(address)
                    results.append("connected")
                except OSError as error:
                    results.append(type(error).__name__)
            return results
    """)
    outcome = run_one(dialer, isolation_level=level)
    time.sleep(0.2)  # let the listener see a connection, were there one
    assert accepted == []
    assert outcome.kind is OutcomeKind.RETURNED and "connected" not in outcome.value[1], outcome


# -- 3. no unsandboxed root: unshare refused as root, rlimits never automatic and loud --------------


def test_no_level_runs_untrusted_code_as_root_unless_asked_and_rlimits_says_it_is_not_a_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isolation.GUARANTEES[Isolation.RLIMITS].startswith("NOT A SANDBOX")
    if AS_ROOT:
        unshare = next(s for s in isolation.level_statuses() if s.level is Isolation.UNSHARE)
        assert not unshare.available and "root" in unshare.reason
        with pytest.raises(SandboxUnavailable, match="bubblewrap"):
            isolation.choose_level("unshare")
        assert isolation.choose_level() is not Isolation.RLIMITS
        # Without bubblewrap, as root, "auto" refuses rather than run code unconfined as root.
        only_rlimits = (isolation.LevelStatus(Isolation.RLIMITS, True),)
        monkeypatch.setattr(isolation, "level_statuses", lambda: only_rlimits)
        with pytest.raises(SandboxUnavailable, match="install bubblewrap"):
            isolation.choose_level()
        monkeypatch.undo()
    shown = divergent("sandbox", cwd=tmp_path)
    assert shown.returncode == 0 and b"NOT A SANDBOX" in shown.stdout and b"process cap:" in shown.stdout
    (tmp_path / "a.py").write_text(REFERENCE)
    (tmp_path / "b.py").write_text(REFERENCE)
    result = divergent("check", "a.py", "b.py", "--isolation", "rlimits", "--budget", "1", "--json", cwd=tmp_path)
    assert result.returncode in (0, 4), result.stderr  # (4: a loaded machine judged too few inputs in 1 s)
    assert any("NOT A SANDBOX" in note for note in json.loads(result.stdout)["notes"])


# -- signals, processes, memory, disk: what the table of docs/sandbox.md says of bubblewrap ----------


@needs_bwrap
def test_signals_never_reach_host_processes() -> None:
    host = subprocess.Popen(["sleep", "60"])
    try:
        killer = PythonFunction(label="killer", entry_point="f", signature=Signature(), source=textwrap.dedent(f"""
            import os, signal
            def f(x):
                try:
                    os.kill({host.pid}, signal.SIGKILL)
                    return "killed"
                except ProcessLookupError:
                    pass
                os.kill(-1, signal.SIGKILL)  # everything it can signal: only its own sandbox
                return "alive"
        """))
        outcome = run_one(killer, isolation_level="bubblewrap")
        assert outcome.kind is OutcomeKind.CRASH, outcome
        time.sleep(0.2)
        assert host.poll() is None  # the host's process lives on
    finally:
        host.kill()
        host.wait()


@needs_bwrap
@pytest.mark.skipif(not os.access("/sys/fs/cgroup/memory", os.W_OK), reason="no writable memory cgroup")
def test_the_memory_of_the_whole_sandbox_is_capped() -> None:
    """Each process stays under RLIMIT_AS; together they may not pass the sandbox's memory cgroup
    (memory + disk + 128 MiB: here 272 MiB for six processes of 80 MiB each)."""
    hog = PythonFunction(label="hog", entry_point="f", signature=Signature(), source=textwrap.dedent("""
        import os, time
        def f(x):
            children = []
            for _ in range(6):
                pid = os.fork()
                if pid == 0:
                    try:
                        block = bytearray(80 * 1024 * 1024)
                        for i in range(0, len(block), 4096):
                            block[i] = 1
                        time.sleep(1.5)
                        os._exit(0)
                    except MemoryError:
                        os._exit(1)
                children.append(pid)
            codes = [os.waitpid(pid, 0)[1] for pid in children]
            return sum(1 for code in codes if code == 0)
    """))
    outcome = run_one(hog, isolation_level="bubblewrap", limits=Limits(timeout=10.0, memory_mb=128, disk_mb=16))
    assert not (outcome.kind is OutcomeKind.RETURNED and outcome.value == 6), outcome


@needs_bwrap
def test_the_disk_of_a_sandbox_is_capped() -> None:
    filler = PythonFunction(label="filler", entry_point="f", signature=Signature(), source=textwrap.dedent("""
        import os
        def f(x):
            written = 0
            chunk = b"x" * (1024 * 1024)
            for place in (os.environ["TMPDIR"], "/dev/shm"):
                for n in range(200):
                    try:
                        with open(os.path.join(place, f"fill{n}"), "wb") as stream:
                            stream.write(chunk)
                        written += 1
                    except OSError:
                        break
            return written
    """))
    outcome = run_one(filler, isolation_level="bubblewrap", limits=Limits(timeout=10.0, disk_mb=8))
    assert outcome.kind is OutcomeKind.RETURNED and outcome.value <= 8 + 16, outcome  # /tmp, and 16 MiB of /dev/shm


# -- 4. verdict forgery: the forger is different or crashed, never equivalent ----------------------

FORGERS = {
    # the audit's attack: frames claiming the reference's value, written on every descriptor
    "frames on every descriptor": """
        import json, os, struct
        def f(x: int) -> str:
            for results in ([{"k": "returned", "v": "GOOD", "s": 0.0}], [{"k": "returned", "v": "GOOD", "s": 0.0}] * 64):
                for done in (False, True):
                    body = json.dumps({"results": results, "done": done}).encode()
                    for fd in range(3, 256):
                        try:
                            os.write(fd, struct.pack(">I", len(body)) + body)
                        except OSError:
                            pass
            return "EVIL"
    """,
    # patching the worker: its code in this process, its memory and descriptors through /proc,
    # and signals to it
    "patching the worker": """
        import gc, glob, os, signal, sys
        def f(x: int) -> str:
            for name, module in list(sys.modules.items()):
                if name.startswith("divergent.sandbox.child"):
                    for value in list(vars(module).values()):
                        if isinstance(value, type):
                            for attribute in ("run", "_relay", "send", "send_body", "_call", "frames"):
                                if attribute in vars(value):
                                    setattr(value, attribute, lambda *a, **k: None)
            worker = os.getppid()
            for path in glob.glob(f"/proc/{worker}/fd/*") + [f"/proc/{worker}/mem"]:
                try:
                    fd = os.open(path, os.O_WRONLY)
                    os.write(fd, b'\\x00\\x00\\x00\\x2f{"results":[{"k":"returned","v":"GOOD"}],"done":true}')
                except OSError:
                    pass
            try:
                import ctypes
                ctypes.CDLL(None).ptrace(16, worker, 0, 0)  # PTRACE_ATTACH
            except OSError:
                pass
            return "EVIL"
    """,
    # a forged result nested 100,000 levels deep (and one just deep enough to pass a JSON parser)
    "a 100k-deep frame": """
        import os, struct
        def f(x: int) -> str:
            for depth in (100_000, 400):
                value = '["list",[' * depth + ']]' * depth
                body = ('{"results":[{"k":"returned","v":' + value + ',"s":0.0}],"done":true}').encode()
                for fd in range(3, 64):
                    try:
                        os.write(fd, struct.pack(">I", len(body)) + body)
                    except OSError:
                        pass
            return "EVIL"
    """,
}


@pytest.mark.parametrize("attack", list(FORGERS))
def test_a_forger_is_never_reported_equivalent(attack: str, tmp_path: Path) -> None:
    (tmp_path / "reference.py").write_text(REFERENCE)
    (tmp_path / "forger.py").write_text(textwrap.dedent(FORGERS[attack]))
    started = time.monotonic()
    result = divergent("check", "reference.py", "forger.py", "--budget", "10", "--json", cwd=tmp_path)
    assert time.monotonic() - started < 60
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    data = json.loads(result.stdout)
    assert data["verdict"] == "divergent"
    forged = data["counterexample"]["outcomes"][1]
    assert forged["kind"] == "crash" or (forged["kind"] == "returned" and "EVIL" in forged["value"]), forged


def test_a_program_cannot_reach_the_protocol_or_the_worker(tmp_path: Path) -> None:
    """What the forgers above try, seen from inside: the process running the program holds no
    descriptor of the protocol (the worker's pipes to divergent), and the worker's memory and
    descriptors are out of its reach."""
    probe = program(tmp_path / "project", "probe", """
        import os
        def f(x):
            worker = os.getppid()
            opened = []
            for path in [f"/proc/{worker}/mem", f"/proc/{worker}/fd/0", f"/proc/{worker}/fd/1", f"/proc/{worker}/environ"]:
                try:
                    os.close(os.open(path, os.O_RDONLY))
                    opened.append(path)
                except OSError:
                    pass
            targets = []
            for fd in os.listdir("/proc/self/fd"):
                try:
                    targets.append(os.readlink(f"/proc/self/fd/{fd}"))
                except OSError:
                    pass
            return opened, targets
    """)
    with WorkerPool([probe], limits=Limits(timeout=5.0)) as pool:
        popen = pool._workers[0].process.popen
        protocol = {f"pipe:[{os.fstat(stream.fileno()).st_ino}]" for stream in (popen.stdin, popen.stdout)}
        (row,) = pool.run([Input(args=(1,))])
    outcome = row[0]
    assert outcome.kind is OutcomeKind.RETURNED, outcome
    opened, targets = outcome.value[1]
    assert opened == ["list", []]
    assert not protocol & set(targets[1]), (protocol, targets)


@pytest.mark.parametrize("signal_name", ["SIGSTOP", "SIGKILL"])
def test_a_program_that_stops_or_kills_its_worker_is_a_crash(signal_name: str) -> None:
    saboteur = PythonFunction(label="saboteur", entry_point="f", signature=Signature(), source=textwrap.dedent(f"""
        import os, signal
        def f(x):
            os.kill(os.getppid(), signal.{signal_name})
            return "EVIL"
    """))
    started = time.monotonic()
    with WorkerPool([saboteur], limits=Limits(timeout=1.0)) as pool:
        rows = pool.run([Input(args=(1,)), Input(args=(2,))])
    assert time.monotonic() - started < 20
    assert [row[0].kind for row in rows] == [OutcomeKind.CRASH, OutcomeKind.CRASH], rows


# -- 5. an internal error is never a verdict ----------------------------------------------------------

EXPLODING_CLI = """
import sys
import divergent.search
def explode(*args, **kwargs):
    raise RecursionError("maximum recursion depth exceeded while comparing")
divergent.search.check = explode
from divergent.cli import main
sys.argv = ["divergent", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("as_json", [True, False])
def test_an_internal_error_exits_3_with_one_line_and_no_verdict(as_json: bool, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(REFERENCE)
    (tmp_path / "explode.py").write_text(EXPLODING_CLI)
    args = ["explode.py", "check", "a.py", "a.py", "--budget", "1"] + (["--json"] if as_json else [])
    result = subprocess.run([sys.executable, *args], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert result.returncode == 3
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("divergent: internal error: RecursionError")
    if as_json:
        data = json.loads(result.stdout)
        assert data["verdict"] == "error" and data["counterexample"] is None and "RecursionError" in data["error"]
    else:
        assert result.stdout == ""


# -- 6. divergent reads nothing the sandbox can replace ------------------------------------------


@pytest.mark.parametrize("level", [level.value for level in LEVELS])
def test_a_planted_fifo_or_link_cannot_hang_or_flood_divergent(level: str, tmp_path: Path) -> None:
    planter = program(tmp_path / "project", "planter", """
        import os
        def f(x):
            for name in (".divergent-progress", "progress", ".divergent-stderr"):
                for place in (os.getcwd(), os.environ.get("TMPDIR", "/tmp")):
                    path = os.path.join(place, name)
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
                    try:
                        os.mkfifo(path) if x == 1 else os.symlink("/dev/zero", path)
                    except OSError:
                        pass
            os._exit(7)
    """)
    started = time.monotonic()
    with WorkerPool([planter], limits=Limits(timeout=2.0), isolation=level) as pool:
        rows = pool.run([Input(args=(1,)), Input(args=(2,))])
    assert time.monotonic() - started < 20
    assert [row[0].kind for row in rows] == [OutcomeKind.CRASH, OutcomeKind.CRASH]
    assert all("exit code 7" in row[0].detail for row in rows)


# -- 7. no cgroup is left behind -----------------------------------------------------------------


def _our_cgroups() -> set[Path]:
    root = Path("/sys/fs/cgroup")
    return {path for controller in ("pids", "memory", "cpuacct")
            for path in (root / controller).glob(f"divergent-{os.getpid()}-*")}


@pytest.mark.skipif(not os.access("/sys/fs/cgroup/pids", os.W_OK), reason="no writable cgroup v1 controllers")
def test_no_cgroup_is_left_behind(tmp_path: Path) -> None:
    from divergent.sandbox.generators import run_generator
    from divergent.sandbox.matrix import ImplementationMatrix

    before = _our_cgroups()
    forker = textwrap.dedent("""
        import os, subprocess
        def f(x):
            subprocess.Popen(["sleep", "30"], start_new_session=True)
            if x == 1:
                os.kill(os.getppid(), 9)  # the worker itself: the parent replaces it
            if x == 2:
                os._exit(3)
            return x
    """)
    impl = PythonFunction(label="forker", entry_point="f", source=forker, signature=Signature())
    with WorkerPool([impl, impl], limits=Limits(timeout=2.0)) as pool:
        pool.run([Input(args=(x,)) for x in range(4)])
        assert pool.restarts >= 2
        during = _our_cgroups() - before
        assert during  # the workers have their cgroups
    with ImplementationMatrix([impl], limits=Limits(timeout=2.0)) as matrix:
        matrix.run([Input(args=(x,)) for x in range(4)])
    run_generator("def create_fn_inputs():\n    yield 1\n", signature=Signature(), max_inputs=1, seconds=2.0)
    assert _our_cgroups() - before == set()


# -- 8. terminal escapes are shown, never obeyed -------------------------------------------------

HOSTILE_TEXT = """
class Shown:
    def __repr__(self):
        return "\\x1b]0;owned\\x07\\x1b[2J"
def f(x: int) -> str:
    print("\\x1b[31mprinted\\x1b[0m")
    raise ValueError("\\x1b[1A\\x1b[2Kmessage \\x9b31m \\u202eevil")
"""


def test_no_raw_escape_byte_reaches_human_readable_output_and_json_stays_exact(tmp_path: Path) -> None:
    (tmp_path / "reference.py").write_text(REFERENCE)
    (tmp_path / "hostile.py").write_text(HOSTILE_TEXT)
    for mode in ([], ["-q"]):
        result = divergent("check", "reference.py", "hostile.py", "--budget", "10", *mode, cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        for stream in (result.stdout, result.stderr):
            assert b"\x1b" not in stream and "\x9b".encode() not in stream and "\u202e".encode() not in stream
    assert b"raised ValueError: \\x1b[1A\\x1b[2Kmessage \\x9b31m \\u202eevil" in result.stdout  # shown, escaped
    result = divergent("check", "reference.py", "hostile.py", "--budget", "10", "--json", cwd=tmp_path)
    outcome = json.loads(result.stdout)["counterexample"]["outcomes"][1]
    assert outcome["exception"]["message"] == "\x1b[1A\x1b[2Kmessage \x9b31m \u202eevil"
    assert outcome["stdout"] == "\x1b[31mprinted\x1b[0m\n"


# -- 9. the literal evaluator is bounded ------------------------------------------------------------


def test_a_huge_literal_does_not_stall_the_parent(tmp_path: Path) -> None:
    from divergent.errors import InvalidArgument
    from divergent.load.seeds import seeds_from_asserts, seeds_from_file

    started = time.monotonic()
    seeds = seeds_from_asserts(
        "assert f(int(Decimal('1e1000000'))) == 1\nassert f(Fraction('1e-1000000')) == 2\nassert f(3) == 4\n", "f"
    )
    assert time.monotonic() - started < 1.0
    assert [seed.args for seed in seeds] == [(3,)]
    file = tmp_path / "seeds.txt"
    file.write_text("f(int(Decimal('1e1000000')))\n")
    started = time.monotonic()
    with pytest.raises(InvalidArgument, match="more than 4300 digits"):
        seeds_from_file(file, Signature())
    assert time.monotonic() - started < 1.0


# -- 10. the response store is private; a model run says what left the machine ---------------------


def test_the_store_is_private_and_a_model_run_says_what_it_sent(tmp_path: Path, llm_home: Path) -> None:
    from scripted_openai import ScriptedOpenAI

    (tmp_path / "a.py").write_text(REFERENCE)
    (tmp_path / "b.py").write_text(REFERENCE)
    config = tmp_path / "llm.toml"
    config.write_text("[llm]\nmax_retries = 0\nbackoff_base = 0.0\ntimeout = 5.0\n")
    with ScriptedOpenAI(lambda received: "Sorry, I cannot help with that.") as server:
        result = divergent("check", "a.py", "b.py", "--engines", "llm", "--model", "scripted", "--base-url",
                           server.base_url, "--llm-config", str(config), "--no-filter", "--budget", "10", "--json",
                           cwd=tmp_path, env={"DIVERGENT_HOME": str(llm_home)})
    assert result.returncode == 4, result.stderr  # the model wrote no code: no input judged
    notes = json.loads(result.stdout)["notes"]
    assert any("were sent to" in note and server.base_url in note for note in notes), notes
    files = [path for path in llm_home.iterdir() if path.name.startswith("divergent.sqlite3")]
    assert files
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(llm_home.stat().st_mode) == 0o700


HOSTILE_PROGRAM = 'import sys\nprint("\\x1b]0;owned\\x07\\x1b[2J" + sys.stdin.read().strip())\n'
PLAIN_PROGRAM = "import sys\nprint(sys.stdin.read().strip())\n"


def test_a_whole_programs_output_is_escaped_in_text_reports_too(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(PLAIN_PROGRAM)
    (tmp_path / "hostile.py").write_text(HOSTILE_PROGRAM)
    (tmp_path / "sample.txt").write_text("7\n")
    for mode in ([], ["-q"]):
        result = divergent("check", "plain.py", "hostile.py", "--stdin", "--example", "sample.txt", "--budget", "10",
                           "--build-cache", str(tmp_path / "builds"), *mode, cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        for stream in (result.stdout, result.stderr):
            assert b"\x1b" not in stream, stream
        assert b"\\x1b]0;owned" in result.stdout  # shown, escaped


@pytest.mark.skipif(not os.access("/sys/fs/cgroup/pids", os.W_OK), reason="no writable cgroup v1 controllers")
def test_the_cgroups_of_a_killed_divergent_are_swept_away() -> None:
    # A divergent process killed with SIGKILL cannot remove its cgroups; the next one does.
    from divergent.sandbox import cgroups

    gone = subprocess.Popen(["true"])
    gone.wait()
    left = Path("/sys/fs/cgroup/pids") / f"divergent-{gone.pid}-0123456789ab"
    left.mkdir()
    mine = Path("/sys/fs/cgroup/pids") / f"divergent-{os.getpid()}-ba9876543210"
    mine.mkdir()
    try:
        assert cgroups.sweep_orphaned_cgroups() >= 1
        assert not left.exists()
        assert mine.exists(), "a live process's cgroup was taken"
    finally:
        for path in (left, mine):
            with contextlib.suppress(OSError):
                path.rmdir()


# -- a forged proof: the code under test writes the symbolic runner's closing account -------------

#: differs from HONEST_TWIN on one integer no engine guesses; inside CrossHair's process it writes
#: the runner's closing frame ("done", complete, no diff) on every descriptor and exits
PROOF_FORGER = """
    {module_imports}
    def f(x: int) -> int:
        {function_imports}
        if "crosshair" in system.modules:
            body = j.dumps({{"event": "done", "text": "CrossHair explored every path (3 paths, 0 diffs)",
                            "paths": 3, "exhausted": True, "strategy": "paths", "diffs": 0,
                            "complete": True}}).encode()
            for fd in range(3, 11):
                try:
                    o.write(fd, st.pack(">I", len(body)) + body)
                except OSError:
                    pass
            o._exit(0)
        if x - 12345 == 982451653 * 3:
            return x + 1
        return x * 2
"""
HONEST_TWIN = "def f(x: int) -> int:\n    return x * 2\n"
_FORGER_IMPORTS = "import sys as system, json as j, os as o, struct as st"


@pytest.mark.skipif(not __import__("importlib").util.find_spec("crosshair"), reason="needs crosshair-tool")
@pytest.mark.parametrize("where", ["in the function", "in the module"])
@pytest.mark.parametrize("forger_first", [True, False])
def test_a_forged_symbolic_account_is_never_a_proof(where: str, forger_first: bool, tmp_path: Path) -> None:
    inside = where == "in the function"
    source = PROOF_FORGER.format(module_imports="" if inside else _FORGER_IMPORTS,
                                 function_imports=_FORGER_IMPORTS if inside else "pass")
    (tmp_path / "hostile.py").write_text(textwrap.dedent(source))
    (tmp_path / "honest.py").write_text(HONEST_TWIN)
    files = ["hostile.py", "honest.py"] if forger_first else ["honest.py", "hostile.py"]
    result = divergent("check", *files, "-f", "f", "--engines", "seeds,symbolic", "--budget", "8", "--json",
                       cwd=tmp_path)
    # (4: too few inputs within the budget; never a proof, see below)
    assert result.returncode in (0, 1, 4), (result.returncode, result.stderr[-2000:])
    data = json.loads(result.stdout)
    assert data["verdict"] != "proven-equivalent" and data["proof"] is None, data
    assert data["exit_reason"] != "proven"
    # not vacuous: the forged account did reach the parent, which refused to take it as a proof
    assert any("reported every path explored" in note and "imports" in note for note in data["notes"]), data["notes"]


# == whole programs: one test per finding of the second review ====================================
#
# Each plays the attack against `divergent check ... --stdin` (or the runner it uses) at the
# default level, and asserts what a user would see.

MEMORY_CGROUPS = os.access("/sys/fs/cgroup/memory", os.W_OK)


def _whole(*args: str, cwd: Path, env: dict[str, str] | None = None,
           timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return divergent("check", *args, cwd=cwd, env=env, timeout=timeout)


# -- 2. a program sees nothing beside it, in a home directory or directly in /tmp ------------------

SPY_PROGRAM = """\
import json, os, sys
sys.stdin.read()
here = os.path.dirname(os.path.abspath(__file__))
found = {"uid": os.getuid(), "file": os.path.abspath(__file__), "here": sorted(os.listdir(here)),
         "tmp": sorted(os.listdir("/tmp"))}
for path in %s:
    try:
        with open(path, errors="replace") as stream:
            found[path] = stream.read(1000)
    except OSError as error:
        found[path] = type(error).__name__
for place in (here, %r):
    try:
        with open(os.path.join(place, "planted"), "w") as stream:
            stream.write("x")
        found["wrote " + place] = True
    except OSError:
        found["wrote " + place] = False
print(json.dumps(found))
"""


@needs_bwrap
def test_a_whole_program_sees_nothing_beside_it_in_a_home_directory_or_in_tmp(tmp_path: Path) -> None:
    import uuid

    home = tmp_path / "home"
    (home / ".config" / "openai").mkdir(parents=True)
    (home / ".config" / "openai" / "key").write_text(SECRET + "\n")
    (home / ".bash_history").write_text(f"export OPENAI_API_KEY={SECRET}\n")
    in_tmp = Path("/tmp") / f"divergent-adversarial-{uuid.uuid4().hex[:8]}"
    tmp_secret = Path(f"{in_tmp}-secret.txt")
    tmp_secret.write_text(SECRET)
    targets = [str(home / ".bash_history"), str(home / ".config/openai/key"), str(tmp_secret),
               os.path.expanduser("~/.bash_history"), "/tmp/run/../" + tmp_secret.name]
    spy = SPY_PROGRAM % (targets, str(home))
    (home / "sol.py").write_text(spy)
    (home / "ref.py").write_text("print('reference')\n")
    (home / "sample.txt").write_text("1\n")
    # a C file beside the secret, including it by its absolute path: the compiler cannot see it
    (home / "inc.c").write_text(f'#include "{home}/.config/openai/key"\nint main(void) {{ return 0; }}\n')
    Path(f"{in_tmp}.py").write_text(spy)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "DIVERGENT_HOME": str(tmp_path / "store")}
    try:
        results = [
            _whole("sol.py", "ref.py", "--stdin", "--example", "sample.txt", "--budget", "12", "--json", "--store",
                   cwd=home, env=env),
            _whole(f"{in_tmp}.py", str(home / "ref.py"), "--stdin", "--example", str(home / "sample.txt"),
                   "--budget", "12", "--json", cwd=Path("/tmp"), env=env),
        ]
        compiled = _whole("inc.c", "ref.py", "--stdin", "--example", "sample.txt", "--budget", "20", cwd=home, env=env)
    finally:
        for path in (Path(f"{in_tmp}.py"), tmp_secret):
            path.unlink(missing_ok=True)
    assert compiled.returncode == 2 and b"inc.c" in compiled.stderr, compiled.stderr
    for result in [*results, compiled]:
        assert SECRET.encode() not in result.stdout + result.stderr
    for result, name in zip(results, ["sol.py", f"{in_tmp.name}.py"], strict=True):
        assert result.returncode == 1, result.stderr  # the launcher started, with or without a host /tmp/run
        outcome = json.loads(result.stdout)["counterexample"]["outcomes"][0]
        seen = json.loads(outcome["stdout"])
        assert seen["uid"] == 65534
        assert [entry for entry in seen["here"] if not entry.startswith(".")] == [name]  # only its own file
        assert all(seen[target] in ("FileNotFoundError", "PermissionError") for target in targets), seen
        assert seen["wrote " + os.path.dirname(seen["file"])] is False, seen  # its own copy is read-only
    assert not (home / "planted").exists()  # what it wrote at the home's path went to its private /tmp
    store = tmp_path / "store"
    assert any(store.iterdir())
    for path in store.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


# -- 3. the launcher cannot be read, taken over, stopped or killed by its program ------------------

LAUNCHER_ATTACK = r"""
import ctypes, json, os, signal, socket, sys
line = sys.stdin.read().strip()
if line == "attack":
    found = {"parent": os.getppid()}
    # the launcher (its sandbox's init) and the process that forked this one (a script's zygote)
    for who, target in (("launcher", 1), ("parent", os.getppid())):
        for name in ("mem", "environ", "fd/0", "fd/1", "fd/3", "fd/4", "fd/5", "fdinfo/3"):
            path = f"/proc/{target}/{name}"
            try:
                with open(path, "rb") as stream:
                    stream.read(16)
                found[f"{who} {name}"] = "opened"
            except OSError as error:
                found[f"{who} {name}"] = type(error).__name__
            try:
                found[f"{who} link {name}"] = os.readlink(path)
            except OSError as error:
                found[f"{who} link {name}"] = type(error).__name__
        libc = ctypes.CDLL(None, use_errno=True)
        pidfd = libc.syscall(434, target, 0)  # pidfd_open
        found[f"{who} pidfd_getfd"] = [libc.syscall(438, pidfd, fd, 0) for fd in range(3, 12)] if pidfd >= 0 else "no pidfd"
        buffer = ctypes.create_string_buffer(64)
        class Vector(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]
        local, remote = Vector(ctypes.cast(buffer, ctypes.c_void_p), 64), Vector(0x400000, 64)
        found[f"{who} process_vm_readv"] = libc.syscall(310, target, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        found[f"{who} ptrace"] = libc.ptrace(16, target, 0, 0)  # PTRACE_ATTACH
    try:
        socket.socket()
        found["socket"] = "made"
    except OSError as error:
        found["socket"] = type(error).__name__
    for number in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):
        for target in (1, os.getppid(), -1):
            try:
                os.kill(target, number)
            except OSError:
                pass
    print(json.dumps(found))
else:
    print("honest", line)
"""


@needs_bwrap
def test_the_launcher_cannot_be_read_taken_over_or_stopped_by_its_program(tmp_path: Path) -> None:
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.records import TextInput
    from divergent.sandbox.launch import ProgramLimits
    from divergent.sandbox.process_runner import ProcessRunner

    (tmp_path / "attack.py").write_text(LAUNCHER_ATTACK)
    program = load_program(str(tmp_path / "attack.py"), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    with ProcessRunner([program], limits=ProgramLimits(time_limit=2.0), isolation="bubblewrap") as runner:
        rows = runner.run([TextInput("attack\n"), TextInput("after\n"), TextInput("attack\n"), TextInput("last\n")])
        assert runner.restarts == 0  # the launcher was neither stopped nor killed
    outcomes = [row[0] for row in rows]  # type: ignore[index]
    assert [o.kind for o in outcomes] == [OutcomeKind.OK] * 4, outcomes
    assert outcomes[1].stdout == "honest after\n" and outcomes[3].stdout == "honest last\n"
    found = json.loads(outcomes[0].stdout)
    # a script is forked by its zygote, which is no more reachable than the launcher (its sandbox's
    # init); killing it costs the run nothing (the launcher was not restarted, the runs went on)
    assert found["parent"] != 1
    for who in ("launcher", "parent"):
        for name in ("mem", "environ", "fd/0", "fd/1", "fd/3", "fd/4", "fd/5", "fdinfo/3"):
            assert found[f"{who} {name}"] in ("PermissionError", "FileNotFoundError"), (name, found)
            # no descriptor's target (a pipe or socket of the protocol) could be read either (FileNotFoundError:
            # no such descriptor)
            assert found[f"{who} link {name}"] in ("PermissionError", "OSError", "FileNotFoundError"), (who, name, found)
        for n in (0, 1, 3, 4, 5):
            assert found[f"{who} link fd/{n}"] in ("PermissionError", "FileNotFoundError"), (n, found)
        assert found[f"{who} pidfd_getfd"] == "no pidfd" or set(found[f"{who} pidfd_getfd"]) == {-1}, found
        assert found[f"{who} process_vm_readv"] == -1 and found[f"{who} ptrace"] == -1, found
    assert found["socket"] == "PermissionError"


# -- 4. the memory limit holds for a run's whole process family, Java's native memory included -----

FORKS_200 = """\
import os, sys, time
sys.stdin.read()
children = []
for _ in range(8):
    pid = os.fork()
    if pid == 0:
        block = bytearray(200 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(0.5)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
print("done")
"""
NATIVE_JAVA = """\
public class Native {
    public static void main(String[] args) throws Exception {
        java.lang.reflect.Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        field.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) field.get(null);
        long size = 1L << 30, address = unsafe.allocateMemory(size);
        for (long i = 0; i < size; i += 4096) unsafe.putByte(address + i, (byte) 1);
        System.out.println("done");
    }
}
"""


@needs_bwrap
@pytest.mark.skipif(not MEMORY_CGROUPS, reason="no writable memory cgroup (not covered: docs/sandbox.md)")
@pytest.mark.parametrize("name", ["forks.py", "Native.java"])
def test_the_memory_limit_holds_for_a_runs_whole_process_family(name: str, tmp_path: Path) -> None:
    from conftest import need_tool
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.records import TextInput
    from divergent.sandbox.launch import ProgramLimits
    from divergent.sandbox.process_runner import ProcessRunner

    if name.endswith(".java"):
        need_tool("javac")
    (tmp_path / name).write_text(FORKS_200 if name == "forks.py" else NATIVE_JAVA)
    program = load_program(str(tmp_path / name), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    with ProcessRunner([program], limits=ProgramLimits(time_limit=10.0, memory_mb=256)) as runner:
        rows = runner.run([TextInput("1\n"), TextInput("2\n")])
    for row in rows:
        assert row is not None and row[0].kind is OutcomeKind.MEMORY_LIMIT, row


# -- 5. builds obey the budget ------------------------------------------------------------------------

CONSTEXPR_BOMB = """\
#include <cstdio>
constexpr long long work(long long n, int k) { long long s = 0; for (long long i = 0; i < n; i++) s += i % k; return s; }
template <int K> struct Sum { static constexpr long long value = work(250000, K) + Sum<K - 1>::value; };
template <> struct Sum<0> { static constexpr long long value = 0; };
int main() { std::printf("%lld\\n", Sum<850>::value); }
"""


@needs_bwrap
def test_a_build_never_outlives_the_budget_and_leaves_nothing_in_the_cache(tmp_path: Path) -> None:
    from conftest import need_tool
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.sandbox import builds

    need_tool("g++")
    (tmp_path / "bomb.cpp").write_text(CONSTEXPR_BOMB)
    (tmp_path / "ok.py").write_text("print(input())\n")
    (tmp_path / "sample.txt").write_text("3\n")
    cache = tmp_path / "builds"
    started = time.monotonic()
    result = _whole("bomb.cpp", "ok.py", "--stdin", "--example", "sample.txt", "--budget", "4", "--build-cache",
                    str(cache), cwd=tmp_path)
    elapsed = time.monotonic() - started
    # the budget ended while the program was built: nothing judged, too few inputs to tell (exit 4), why
    assert result.returncode == 4, result.stderr
    assert elapsed < 4 + 5, elapsed
    headline = b" ".join(result.stdout.replace("│".encode(), b" ").split())
    assert b"Too few inputs to tell: the budget ended while bomb.cpp was built: raise --budget" in headline
    key = builds.build_key(load_program(str(tmp_path / "bomb.cpp"), build=BuildOptions(cache_dir=str(cache))))
    assert not (cache / key).exists()
    assert not [path for path in cache.glob(f".{key}*")]  # no half-published staging either


# -- 6. no raw control character in the HTML report or the emitted test -------------------------------

CONTROLS = ("\x1b", "\x9b", "\x07", "\u202e", "\u2066")
HOSTILE_OUTPUT = (
    "def f(x: int) -> str:\n"
    "    return '\\x1b]8;;https://evil.example/\\x07link\\x1b]8;;\\x07 \\x1b]52;c;ZXZpbA==\\x07 "
    "\\u202eevil \\u2066x \\x9b31m'\n"
)


def test_no_raw_control_character_in_the_html_report_or_the_emitted_test(tmp_path: Path) -> None:
    (tmp_path / "reference.py").write_text(REFERENCE)
    hostile = "hostile\x1b[2J\u202egnp.py"  # the file name itself reaches headings and comments
    (tmp_path / hostile).write_text(HOSTILE_OUTPUT)
    result = divergent("check", "reference.py", hostile, "-f", "f", "--budget", "10", "--html", "report.html",
                       "--emit-test", "test_emitted.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    for name in ("report.html", "test_emitted.py"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert not [c for c in CONTROLS if c in text], name
        assert "\\x1b" in text and "\\u202e" in text, name  # shown, as escapes
    compile((tmp_path / "test_emitted.py").read_text(), "test_emitted.py", "exec")  # still valid Python


# -- 7. huge outputs are decoded and kept in bounded amounts, within the budget ------------------------

SIXTEEN_MIB = "import sys\nsys.stdin.read()\nsys.stdout.write('1234567 ' * (2 * 1024 * 1024))\n"
INVALID_UTF8 = "import sys\nsys.stdin.read()\nsys.stdout.buffer.write(b'\\xff' * (16 * 1024 * 1024))\n"


@needs_bwrap
def test_huge_outputs_stay_within_the_budget(tmp_path: Path) -> None:
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.records import TextInput
    from divergent.sandbox.process_runner import ProcessRunner

    for name, text in (("a.py", SIXTEEN_MIB), ("b.py", SIXTEEN_MIB), ("junk.py", INVALID_UTF8)):
        (tmp_path / name).write_text(text)
    (tmp_path / "sample.txt").write_text("1\n")
    started = time.monotonic()
    result = _whole("a.py", "b.py", "--stdin", "--example", "sample.txt", "--budget", "4", "-q", "--min-inputs", "0",
                    cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert elapsed < 4 + 3, elapsed
    # 16 MiB that are not UTF-8 (every byte shown as \xff): an outcome, not a broken protocol
    program = load_program(str(tmp_path / "junk.py"), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    with ProcessRunner([program]) as runner:
        (row,) = runner.run([TextInput("1\n")])
    assert row is not None and row[0].kind is OutcomeKind.OK, row
    assert len(row[0].stdout) == 4 * 16 * 1024 * 1024 and row[0].stdout.startswith("\\xff\\xff")


# -- 8. a clean exit removes its own cgroups ----------------------------------------------------------


@pytest.mark.skipif(not os.access("/sys/fs/cgroup/pids", os.W_OK), reason="no writable cgroup v1 controllers")
def test_a_clean_exit_leaves_no_cgroup_behind(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print(int(input()) + 1)\n")
    (tmp_path / "b.py").write_text("x = int(input())\nprint(x + 1 if x != 5 else 0)\n")
    (tmp_path / "sample.txt").write_text("3\n")
    (tmp_path / "reference.py").write_text(REFERENCE)
    (tmp_path / "same.py").write_text(REFERENCE)
    for args in (["a.py", "b.py", "--stdin", "--example", "sample.txt", "--budget", "4"],
                 ["reference.py", "same.py", "-f", "f", "--budget", "2"]):
        process = subprocess.Popen([sys.executable, "-m", "divergent", "check", *args, "-q"], cwd=tmp_path,
                                   env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        assert process.wait(timeout=120) in (0, 1)
        left = [path for controller in ("pids", "memory", "cpuacct")
                for path in (Path("/sys/fs/cgroup") / controller).glob(f"divergent-{process.pid}-*")]
        assert left == [], left


# -- 9. the emitted test says plainly when it runs the implementations unsandboxed --------------------


def test_the_emitted_in_process_test_says_it_runs_the_code_unsandboxed(tmp_path: Path) -> None:
    (tmp_path / "reference.py").write_text(REFERENCE)
    (tmp_path / "other.py").write_text("def f(x: int) -> str:\n    return 'BAD' if x == 3 else 'GOOD'\n")
    result = divergent("check", "reference.py", "other.py", "-f", "f", "--budget", "10", "--emit-test", "test_f.py",
                       cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    header = []
    for line in (tmp_path / "test_f.py").read_text().splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    assert "OUTSIDE divergent's sandbox" in "\n".join(header)


# -- 10. the warm machinery is contained like a fresh run ------------------------------------------
# (the script zygote, the warm JVM, workers reused across versions, and the launchers of validators,
# checkers and generators: nothing a run starts outlives it, and no file it writes reaches the next)

CGROUPS = os.access("/sys/fs/cgroup/pids", os.W_OK) and MEMORY_CGROUPS


@pytest.fixture(params=["cgroups", "pid-namespace"])
def containment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways a launcher finds what a run left: the runs' cgroups (as root, cgroup v1), and its
    PID namespace alone (a user who cannot make cgroups)."""
    from divergent.sandbox import launch

    if request.param == "cgroups" and not CGROUPS:
        pytest.skip("no writable cgroup v1 controllers")
    if request.param == "pid-namespace":
        monkeypatch.setattr(launch, "make_run_cgroup", lambda *args: None)
    return request.param


def _alive_with(marker: str) -> list[str]:
    """The host's processes (zombies too) whose command line or name holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/cmdline").read_bytes() + Path(f"/proc/{entry}/comm").read_bytes()
        except OSError:
            continue
        if marker.encode() in text:
            found.append(entry)
    return found


def _marker(what: str) -> str:
    return f"dvg{what}{os.getpid() % 100000}"


LEAVER = """\
import ctypes, os, platform, sys, time
line = sys.stdin.readline().strip()
libc = ctypes.CDLL(None, use_errno=True)
CLONE = 56 if platform.machine() == "x86_64" else 220

def clone_parent():
    # a process whose parent is this one's parent (the script zygote), not this one
    return libc.syscall(CLONE, 0x00008000 | 17, 0, 0, 0, 0)

def leftover():
    os.setsid()  # out of the run's process group too
    libc.prctl(15, b"MARKER", 0, 0, 0)
    if "HOW" == "sleeper":
        time.sleep(60)
    while True:  # burn CPU, and before its CPU limit, clone again and leave
        started = time.process_time()
        while time.process_time() - started < 0.3:
            pass
        if clone_parent() == 0:
            libc.prctl(15, b"MARKER", 0, 0, 0)
            continue
        os._exit(0)

pid = clone_parent()
if pid == 0:
    leftover()
print(line, "cloned" if pid > 0 else "failed")
"""


@needs_bwrap
@pytest.mark.parametrize("how", ["sleeper", "burner"])
def test_no_process_a_script_starts_outlives_its_run(how: str, containment: str, tmp_path: Path) -> None:
    """Finding 1 of the warm machinery: a script's ``clone(CLONE_PARENT)`` + ``setsid`` made a process
    whose parent is the script zygote; nobody killed it (a sleep lived 17-19 s into a 20 s check, a
    re-cloning CPU burner used 4.5 CPU-seconds outside any run). Now nothing of a run is alive once
    the run has ended, seen from the host, whether it ran as a program or as a validator, checker or
    generator (the same launcher, :class:`ProgramService`)."""
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.records import TextInput
    from divergent.sandbox.launch import Job, ProgramLimits
    from divergent.sandbox.process_runner import ProcessRunner, ProgramService

    marker = _marker(how[0])
    (tmp_path / "leaver.py").write_text(LEAVER.replace("MARKER", marker).replace("HOW", how))
    program = load_program(str(tmp_path / "leaver.py"), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    limits = ProgramLimits(time_limit=2.0)
    with ProcessRunner([program], limits=limits, isolation="bubblewrap") as runner:
        for k in range(3):
            (row,) = runner.run([TextInput(f"{k}\n")])
            assert row is not None and row[0].kind is OutcomeKind.OK and row[0].stdout == f"{k} cloned\n", row
            time.sleep(0.3)  # a leftover would be alive (and burning) by now
            assert _alive_with(marker) == [], f"run {k} left a process behind"
    service = ProgramService(program, limits=limits, level=Isolation.BUBBLEWRAP, workers=2)
    try:
        results = service.run([Job(stdin=f"{k}\n".encode()) for k in range(6)])
        assert [result.stdout if result else None for result in results] == [f"{k} cloned\n" for k in range(6)]
        time.sleep(0.3)
        assert _alive_with(marker) == []
    finally:
        service.close()


ESCAPE_JAVA = """\
import java.lang.reflect.Field;

public class Escape {
    public static void main(String[] args) throws Exception {
        String line = new java.util.Scanner(System.in).next();
        try {  // in a warm JVM: switch its harness off, as a program can by reflection
            Class<?> harness = ClassLoader.getSystemClassLoader().loadClass("DivergentHarness");
            Field current = harness.getDeclaredField("current");
            current.setAccessible(true);
            current.set(null, null);
        } catch (ReflectiveOperationException absent) {
            // a JVM of its own: no harness to switch off
        }
        String started;
        try {
            new ProcessBuilder("setsid", "sh", "-c", "sleep 60", "MARKER").start();
            started = "started";
        } catch (java.io.IOException refused) {
            started = "refused";
        }
        System.out.println(line + " " + started);
    }
}
"""


@needs_bwrap
def test_a_java_program_that_switches_off_the_harness_starts_no_process_that_outlives_its_run(
        containment: str, tmp_path: Path) -> None:
    """Finding 2: a program set the harness's static ``current`` to null by reflection, and its warm
    JVM's security manager let ``setsid sleep`` through; it lived 20-22 s, under the JVM's lifetime
    CPU limit. Now the warm JVM runs under a system-call filter installed before its first
    instruction (threads, no process): the attempt kills the JVM, the input runs in a JVM of its
    own (where it may start processes: the launcher kills them when the run ends), and the
    outcome is that JVM's."""
    from conftest import need_tool
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.records import TextInput
    from divergent.sandbox.launch import ProgramLimits
    from divergent.sandbox.process_runner import ProcessRunner

    need_tool("javac")
    marker = _marker("j")
    (tmp_path / "Escape.java").write_text(ESCAPE_JAVA.replace("MARKER", marker))
    program = load_program(str(tmp_path / "Escape.java"), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    with ProcessRunner([program], limits=ProgramLimits(time_limit=5.0), isolation="bubblewrap") as runner:
        assert runner.built[0].mode == "java"  # runs go to a warm JVM first
        for k in range(3):
            (row,) = runner.run([TextInput(f"{k}\n")])
            assert row is not None and row[0].kind is OutcomeKind.OK and row[0].stdout == f"{k} started\n", row
            time.sleep(0.3)
            assert _alive_with(marker) == [], f"run {k} left a process behind"


PROBE_JAVA = """\
import java.nio.file.Files;
import java.nio.file.Path;

public class Probe {
    public static void main(String[] args) throws Exception {
        String line = new java.util.Scanner(System.in).next();
        String warm = "cold";
        try {
            ClassLoader.getSystemClassLoader().loadClass("DivergentHarness");
            warm = "warm";
        } catch (ClassNotFoundException absent) {
            // a JVM of its own
        }
        String secret, write;
        try {
            secret = Files.readString(Path.of("SECRET_FILE"));
        } catch (java.io.IOException unseen) {
            secret = "unseen";
        }
        try {
            Files.writeString(Path.of("/usr/planted"), line);
            write = "wrote";
        } catch (java.io.IOException refused) {
            write = "refused";
        }
        String[] tmp = new java.io.File("/tmp").list();
        java.util.Arrays.sort(tmp);
        Files.writeString(Path.of("/tmp/planted-" + line), line);  // the next run must not see it
        System.out.println(warm + " " + secret + " " + write + " " + String.join(",", tmp));
    }
}
"""


@needs_bwrap
def test_a_warm_jvm_is_sandboxed_as_a_fresh_run(tmp_path: Path) -> None:
    """The warm JVM lives across runs in the sandbox a fresh run gets: no host file to read, nothing
    but its scratch to write, and what one run writes there is gone for the next. (A socket is
    refused by the same filter, inherited; the harness sends a run that loads the JDK's network
    library to a JVM of its own, so a warm run never gets that far.)"""
    from conftest import need_tool
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.records import TextInput
    from divergent.sandbox.launch import ProgramLimits
    from divergent.sandbox.process_runner import ProcessRunner

    need_tool("javac")
    (tmp_path / "secret.txt").write_text(SECRET)
    (tmp_path / "Probe.java").write_text(PROBE_JAVA.replace("SECRET_FILE", str(tmp_path / "secret.txt")))
    program = load_program(str(tmp_path / "Probe.java"), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    with ProcessRunner([program], limits=ProgramLimits(time_limit=5.0), isolation="bubblewrap") as runner:
        rows = [runner.run([TextInput(f"{k}\n")])[0] for k in range(3)]
    outputs = {row[0].stdout if row is not None else None for row in rows}
    assert len(outputs) == 1, outputs  # every run saw the same /tmp
    (output,) = outputs
    assert output is not None and output.startswith("warm unseen refused "), output
    assert "planted" not in output and SECRET not in output


PLANTER = """\
import os, time

PLANT = 'def heappush(heap, item):\\n    heap.append(424242)\\n'

def f(x):
    with open('/tmp/heapq.py', 'w') as handle:  # the working directory, once first on sys.path
        handle.write(PLANT)
    os.makedirs('/dev/shm/planted', exist_ok=True)
    if os.fork() == 0:  # and a process that plants it again, later
        os.setsid()
        for _ in range(1000):
            try:
                with open('/tmp/heapq.py', 'w') as handle:
                    handle.write(PLANT)
            except OSError:
                pass
            time.sleep(0.005)
        os._exit(0)
    return 1
"""
HONEST_HEAP = """\
import os, sys

def f(x):
    import heapq
    heap = []
    heapq.heappush(heap, 7)
    return [heap[0], sorted(os.listdir('/tmp')), sorted(os.listdir('/dev/shm')), '' in sys.path]
"""


@needs_bwrap
def test_a_module_planted_in_tmp_never_changes_the_next_versions_result(tmp_path: Path) -> None:
    """Finding 3: CETBench's warm workers loaded version 2 where version 1 had written
    ``/tmp/heapq.py``; ``''`` (the working directory, ``/tmp``) was first on ``sys.path``, so the honest
    version's ``import heapq`` got 424242 on the warm worker and 7 on a fresh one. Now every
    version loads into a sandbox put back as it was (no process, no file of the one before, no
    writable directory on ``sys.path``): the same result as on a fresh worker."""
    from divergent.bench.cetbench.validate import WarmWorkers

    planter = program(tmp_path / "versions", "planter", PLANTER)
    honest = program(tmp_path / "versions", "honest", HONEST_HEAP)
    warm = WarmWorkers(Limits(timeout=5.0), isolation="bubblewrap")
    try:
        (row,) = warm.pool([planter], compare_mutation=False).run([Input(args=(1,))])
        assert row is not None and row[0].value == 1, row
        time.sleep(0.05)  # the planter's leftover is planting again
        (warm_row,) = warm.pool([honest], compare_mutation=False).run([Input(args=(1,))])
        assert warm.started == 1 and warm.reloaded == 1  # the same worker, reused
    finally:
        warm.close()
    with WorkerPool([honest], limits=Limits(timeout=5.0), isolation="bubblewrap") as pool:
        (fresh_row,) = pool.run([Input(args=(1,))])
    assert warm_row is not None and fresh_row is not None
    assert warm_row[0].value == fresh_row[0].value, (warm_row[0], fresh_row[0])
    assert warm_row[0].value[1][0] == 7 and warm_row[0].value[1][3] is False, warm_row[0]  # ("list", [...])


RESET_SCRIPT = """\
import ctypes, os, sys
line = sys.stdin.readline().strip()
seen = sorted(os.listdir('/tmp')) + ['|'] + sorted(os.listdir('/dev/shm')) + ['|'] + sorted(os.listdir('.'))
for place in ('/tmp/planted', '/dev/shm/planted', 'here'):
    with open(place, 'w') as handle:
        handle.write(line)
os.makedirs('/tmp/deep', exist_ok=True)
os.chdir('/tmp/deep')
for _ in range(300):
    os.mkdir('d')
    os.chdir('d')
open('f', 'w').close()
os.chdir('/tmp')
os.mkdir('/tmp/locked')
open('/tmp/locked/f', 'w').close()
os.chmod('/tmp/locked', 0)
os.symlink('/tmp/run', '/tmp/link')  # removed, never followed
libc = ctypes.CDLL(None, use_errno=True)
segment = libc.shmget(0, 4096, 0o1600)  # System V shared memory would outlive the run: denied
print(' '.join(seen), segment, ctypes.get_errno())
"""


@needs_bwrap
def test_a_file_a_run_writes_never_reaches_the_next_run(containment: str, tmp_path: Path) -> None:
    """The same for whole programs, validators, checkers and generators: each run starts with the
    sandbox's ``/tmp``, ``/dev/shm`` and working directory as they were before any untrusted code ran
    (a deep tree, an unreadable directory and a link included), and System V IPC, which no reset
    could list, is denied."""
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.records import TextInput
    from divergent.sandbox.launch import ProgramLimits
    from divergent.sandbox.process_runner import ProcessRunner

    (tmp_path / "planter.py").write_text(RESET_SCRIPT)
    program = load_program(str(tmp_path / "planter.py"), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    with ProcessRunner([program], limits=ProgramLimits(time_limit=5.0), isolation="bubblewrap") as runner:
        rows = [runner.run([TextInput(f"{k}\n")])[0] for k in range(3)]
    outputs = [row[0].stdout if row is not None else None for row in rows]
    assert all(row is not None and row[0].kind is OutcomeKind.OK for row in rows), rows
    assert len(set(outputs)) == 1, outputs  # every run saw the same sandbox
    assert "planted" not in outputs[0] and "deep" not in outputs[0] and "here" not in outputs[0]
    assert outputs[0].rstrip().endswith("-1 1"), outputs[0]  # shmget: EPERM


BURNERS = """\
import os, sys, time
sys.stdin.read()
for _ in range(4):
    if os.fork() == 0:
        if os.fork() == 0:  # a grandchild nobody waits for: its time is on no process's clock
            while True:
                pass
        os._exit(0)
    os.wait()
time.sleep(60)
"""


@needs_bwrap
@pytest.mark.skipif(not os.access("/sys/fs/cgroup/cpuacct", os.W_OK), reason="no writable cpuacct cgroup")
def test_a_runs_cpu_time_is_its_whole_familys(tmp_path: Path) -> None:
    """CPU time is counted per cgroup, not on one process's clock: a run whose orphaned grandchildren
    burn while it sleeps is a timeout with their CPU seconds, not a run of no CPU time."""
    from divergent.load.whole_programs import load_program
    from divergent.programs import BuildOptions
    from divergent.sandbox.launch import Job, ProgramLimits
    from divergent.sandbox.process_runner import ProgramService

    (tmp_path / "burners.py").write_text(BURNERS)
    program = load_program(str(tmp_path / "burners.py"), build=BuildOptions(cache_dir=str(tmp_path / "builds")))
    limits = ProgramLimits(time_limit=0.5, wall_factor=20.0)  # a wall clock far away, even on a loaded machine
    service = ProgramService(program, limits=limits, level=Isolation.BUBBLEWRAP)
    try:
        (result,) = service.run([Job(stdin=b"1\n")])
    finally:
        service.close()
    assert result is not None and result.kind is OutcomeKind.TIMEOUT, result
    assert result.cpu_seconds >= 0.5, result
    assert result.seconds < limits.wall_seconds, result  # stopped on the family's CPU time, not the wall clock
    assert "processes together" in result.detail, result
