"""Hostile programs against the sandbox: one test per finding of two security reviews (docs/sandbox.md's
table): functions first, then whole programs (stdin to stdout).

Each test plays an attack as an attacker would and asserts what the user would see: the secret
never appears, the listener records no connection, the forger is reported as different or crashed
(never equivalent), an internal failure exits 3 with one line or a JSON object, a planted FIFO
cannot hang divergent, no cgroup is left behind, no raw ESC byte reaches the terminal, a huge
literal is refused at once, the response store is private.
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
    return {path for controller in ("pids", "memory") for path in (root / controller).glob(f"divergent-{os.getpid()}-*")}


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
        left = [path for controller in ("pids", "memory")
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
