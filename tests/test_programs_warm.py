"""Warm runs give the outcomes of a fresh process per run: a Java program in a warm JVM (a class
loader per run) against a JVM per run, a Python script forked from the script zygote against
``python script.py``; and runs start through the spawn helper where a C compiler exists."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import need_tool
from divergent.load.whole_programs import load_program
from divergent.programs import BuildOptions
from divergent.records import Outcome, OutcomeKind, TextInput
from divergent.sandbox.launch import ProgramLimits
from divergent.sandbox.process_runner import ProcessRunner, start_launcher

LIMITS = ProgramLimits(time_limit=2.0, memory_mb=256, output_bytes=1 << 20)


def outcomes(path: Path, build_cache: str, inputs: list[str], *, fresh: bool,
             limits: ProgramLimits = LIMITS) -> tuple[list[Outcome], ProcessRunner]:
    program = load_program(str(path), build=BuildOptions(cache_dir=build_cache, fresh_interpreter=fresh))
    with ProcessRunner([program], limits=limits) as runner:
        rows = runner.run([TextInput(text) for text in inputs])
    return [row[0] for row in rows], runner  # type: ignore[index]


def same(warm: Outcome, cold: Outcome) -> tuple:
    """What must agree: the kind, the exit status, what was printed, the first line of stderr."""
    first = lambda text: text.strip().splitlines()[:2]  # noqa: E731
    if warm.kind is OutcomeKind.TIMEOUT:
        # past the CPU limit: killed at it, or (a loaded machine) ended just past it; either is a timeout
        return warm.kind == cold.kind
    return (warm.kind, warm.exit_code, warm.stdout, first(warm.stderr)) == (cold.kind, cold.exit_code, cold.stdout,
                                                                           first(cold.stderr))


JAVA = {
    # static state starts afresh in every run, as in a new JVM
    "Statics.java": ("""\
        public class Statics {
            static int calls;
            static java.util.List<String> seen = new java.util.ArrayList<>();
            public static void main(String[] args) {
                calls++;
                seen.add(new java.util.Scanner(System.in).next());
                System.out.println(calls + " " + seen);
            }
        }""", ["a\n", "b\n", "c\n"]),
    # System.exit ends the run where it is called: finally blocks and later prints are not output
    "Exits.java": ("""\
        public class Exits {
            public static void main(String[] args) {
                int n = new java.util.Scanner(System.in).nextInt();
                System.out.print("before ");
                try {
                    if (n > 0) System.exit(n);
                    System.out.println("no exit");
                } finally {
                    System.out.println("finally");
                }
            }
        }""", ["3\n", "0\n", "-1\n", "300\n"]),
    # an uncaught exception: exit status 1 and the JVM's message, nothing of the harness in it
    "Throws.java": ("""\
        public class Throws {
            static void fail(int n) { if (n > 2) throw new IllegalStateException("boom " + n); fail(n + 1); }
            public static void main(String[] args) {
                System.out.println("start");
                fail(new java.util.Scanner(System.in).nextInt());
            }
        }""", ["0\n", "5\n"]),
    # output a program never flushed is lost, as at a JVM's exit; FileDescriptor.out streams work
    "Buffers.java": ("""\
        import java.io.*;
        public class Buffers {
            public static void main(String[] args) throws IOException {
                DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in)));
                int n = in.read() - '0';
                PrintWriter fast = new PrintWriter(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
                fast.println("fast " + n);
                if (n == 1) fast.close();
                if (n == 2) fast.flush();
                System.out.write('x');
                if (n == 3) System.out.println();
            }
        }""", ["0\n", "1\n", "2\n", "3\n"]),
    # the big-stack thread idiom: main returns at once, the JVM waits for the thread
    "Stack.java": ("""\
        public class Stack {
            static int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }
            public static void main(String[] args) {
                int n = new java.util.Scanner(System.in).nextInt();
                new Thread(null, () -> {
                    System.out.println(depth(n));
                    if (n == 7) System.exit(7);
                }, "solver", 1 << 27).start();
            }
        }""", ["100000\n", "7\n"]),
    # what only a JVM of its own can do: a shutdown hook, a daemon thread left running, a property
    "Hooks.java": ("""\
        public class Hooks {
            public static void main(String[] args) {
                String n = new java.util.Scanner(System.in).next();
                System.out.println("property " + System.getProperty("divergent.seen"));
                System.setProperty("divergent.seen", n);
                if (n.equals("hook")) Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("hooked")));
                if (n.equals("daemon")) {
                    Thread t = new Thread(() -> { while (true) { Thread.onSpinWait(); } });
                    t.setDaemon(true);
                    t.start();
                }
            }
        }""", ["plain\n", "hook\n", "daemon\n", "plain\n"]),
    # limits: a loop is a timeout, a heap that does not fit is memory-limit, a flood output-limit
    "Limits.java": ("""\
        public class Limits {
            public static void main(String[] args) {
                String what = new java.util.Scanner(System.in).next();
                if (what.equals("loop")) { long x = 0; while (true) x++; }
                if (what.equals("heap")) { long[][] a = new long[1000][]; for (int i = 0; i < 1000; i++) a[i] = new long[1 << 20]; }
                if (what.equals("flood")) { while (true) System.out.print("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); }
                System.out.println("fine " + what);
            }
        }""", ["ok\n", "loop\n", "ok\n", "heap\n", "ok\n", "flood\n", "ok\n"]),
}


@pytest.mark.parametrize("name", sorted(JAVA))
def test_a_warm_jvm_gives_the_outcomes_of_a_jvm_per_run(programs_dir, build_cache, name):
    need_tool("javac")
    text, inputs = JAVA[name]
    path = programs_dir / name
    path.write_text(textwrap.dedent(text))
    warm, runner = outcomes(path, build_cache, inputs, fresh=False)
    assert runner.built[0].mode == "java", "no warm JVM for this program"
    cold, runner = outcomes(path, build_cache, inputs, fresh=True)
    assert runner.built[0].mode == "exec"
    for text_in, one, other in zip(inputs, warm, cold, strict=True):
        assert same(one, other), (text_in, one, other)
    if name == "Throws.java":
        assert warm[1].stderr.splitlines()[-1].strip() == "at Throws.main(Throws.java:5)", warm[1].stderr
    if name == "Limits.java":
        assert [o.kind for o in warm] == [OutcomeKind.OK, OutcomeKind.TIMEOUT, OutcomeKind.OK, OutcomeKind.MEMORY_LIMIT,
                                          OutcomeKind.OK, OutcomeKind.OUTPUT_LIMIT, OutcomeKind.OK]


def test_a_warm_jvm_is_many_times_faster_than_a_jvm_per_run(programs_dir, build_cache):
    """Not a timing assertion: the CPU a run costs, counted by the launcher (JVM start-up is
    about 40 ms of CPU at the least; a warm run of a trivial program a few)."""
    need_tool("javac")
    path = programs_dir / "Echo.java"
    path.write_text("public class Echo { public static void main(String[] a) {"
                    " System.out.println(new java.util.Scanner(System.in).nextLong()); } }\n")
    inputs = [f"{i}\n" for i in range(40)]
    warm, _ = outcomes(path, build_cache, inputs, fresh=False)
    cold, _ = outcomes(path, build_cache, inputs[:5], fresh=True)
    assert [o.stdout for o in warm] == inputs
    assert [o.stdout for o in cold] == inputs[:5]
    assert min(o.seconds for o in cold) > 4 * sorted(o.seconds for o in warm)[len(warm) // 2]


PYTHON = {
    # lines split at "\n" only, invalid UTF-8 kept (UTF-8 mode), as `python script.py` reads them
    "lines.py": ("import sys\nfor line in sys.stdin:\n    print(repr(line))\n",
                 ["a\r\nb\rc\n", "caf\xe9\n".encode("latin-1").decode("utf-8", "surrogateescape"), ""]),
    # the traceback of an uncaught exception names only the script's frames
    "raises.py": ("def f(n):\n    return 1 // n\nprint(f(int(input())))\n", ["1\n", "0\n"]),
    # no module of divergent's is to be seen; exit statuses; threads are waited for
    "world.py": (textwrap.dedent("""\
        import sys, threading
        threading.stack_size(1 << 20)  # the default is the stack limit, more than the memory limit allows
        n = int(input())
        print(sorted(m for m in sys.modules if m.startswith("divergent")), sys.argv[0].endswith("world.py"))
        threading.Thread(target=lambda: print("thread", n)).start()
        if n == 2:
            sys.exit("bye")
        if n == 3:
            raise SystemExit(3)
    """), ["1\n", "2\n", "3\n"]),
}


@pytest.mark.parametrize("name", sorted(PYTHON))
def test_a_script_forked_from_the_zygote_behaves_as_python_script_py(programs_dir, build_cache, name):
    text, inputs = PYTHON[name]
    path = programs_dir / name
    path.write_text(text)
    warm, runner = outcomes(path, build_cache, inputs, fresh=False)
    assert runner.built[0].mode == "python"
    cold, _ = outcomes(path, build_cache, inputs, fresh=True)
    for text_in, one, other in zip(inputs, warm, cold, strict=True):
        assert (one.kind, one.exit_code, one.stdout, one.stderr) == (other.kind, other.exit_code, other.stdout,
                                                                     other.stderr), (text_in, one, other)


def test_runs_start_through_the_spawn_helper_where_a_compiler_exists(programs_dir, build_cache):
    need_tool("gcc")
    path = programs_dir / "echo.c"
    path.write_text('#include <stdio.h>\nint main(void) { int x; if (scanf("%d", &x) == 1) printf("%d\\n", x); }\n')
    script = programs_dir / "echo_script.py"
    script.write_text("print(int(input()))\n")
    programs = [load_program(str(p), build=BuildOptions(cache_dir=build_cache)) for p in (path, script)]
    with ProcessRunner(programs, limits=LIMITS) as runner:
        assert all(built.spawner for built in runner.built)
        rows = runner.run([TextInput(f"{i}\n") for i in range(20)])
        for built in runner.built:
            launcher = start_launcher(built, LIMITS, runner.level)
            try:
                assert launcher.spawner_used
            finally:
                launcher.close()
    assert [(row[0].stdout, row[1].stdout) for row in rows] == [(f"{i}\n", f"{i}\n") for i in range(20)]
