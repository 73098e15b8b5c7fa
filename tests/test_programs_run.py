"""Whole programs run in the sandbox: builds (real gcc, g++, javac), every outcome kind, limits from
outside, the launcher surviving what programs do."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from conftest import need_tool
from divergent.errors import LoadError
from divergent.load.whole_programs import load_program, load_program_source
from divergent.programs import BuildOptions, Language
from divergent.records import OutcomeKind, TextInput
from divergent.sandbox import builds
from divergent.sandbox.launch import ProgramLimits
from divergent.sandbox.process_runner import ProcessRunner

FAST = ProgramLimits(time_limit=0.5, memory_mb=128, output_bytes=1 << 20)


def source(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def run_one(path: str, build_cache: str, stdin: str = "", limits: ProgramLimits = FAST, runs: int = 1):
    program = load_program(path, build=BuildOptions(cache_dir=build_cache))
    with ProcessRunner([program], limits=limits) as runner:
        rows = runner.run([TextInput(stdin)] * runs)
        return [row[0] for row in rows], runner


SUM_CPP = """\
    #include <bits/stdc++.h>
    int main() { int n; std::cin >> n; long long s = 0; for (int i = 0; i < n; i++) { long long x; std::cin >> x; s += x; }
                 std::cout << s << "\\n"; }
"""


def test_a_cpp_program_is_built_once_and_reads_stdin(programs_dir, build_cache, monkeypatch):
    need_tool("g++")
    path = source(programs_dir, "sum.cpp", SUM_CPP)
    (outcome,), _ = run_one(path, build_cache, "3\n1 2 3\n")
    assert (outcome.kind, outcome.stdout, outcome.exit_code) == (OutcomeKind.OK, "6\n", 0)
    assert outcome.memory_kb and outcome.seconds > 0

    def no_second_build(*args, **kwargs):
        raise AssertionError("the build cache was not used")

    monkeypatch.setattr(builds, "_compile", no_second_build)
    (again,), _ = run_one(path, build_cache, "2\n5 5\n")
    assert again.stdout == "10\n"


@pytest.mark.parametrize(
    ("name", "text", "tool"),
    [
        ("sum.c", """\
            #include <stdio.h>
            int main(void) { int n; long long s = 0, x; scanf("%d", &n); while (n--) { scanf("%lld", &x); s += x; }
                             printf("%lld\\n", s); return 0; }
            """, "gcc"),
        ("Sum.java", """\
            import java.util.*;
            public class Sum {
                public static void main(String[] args) {
                    Scanner in = new Scanner(System.in);
                    int n = in.nextInt(); long s = 0;
                    for (int i = 0; i < n; i++) s += in.nextLong();
                    System.out.println(s);
                }
            }
            """, "javac"),
        ("sum.py", """\
            import sys
            n, *xs = map(int, sys.stdin.read().split())
            print(sum(xs[:n]))
            """, "python3"),
    ],
)
def test_c_java_and_python_programs_run(programs_dir, build_cache, name, text, tool):
    need_tool(tool)
    path = source(programs_dir, name, text)
    outcomes, _ = run_one(path, build_cache, "3\n1 2 3\n", limits=ProgramLimits(time_limit=5.0), runs=2)
    assert [(o.kind, o.stdout) for o in outcomes] == [(OutcomeKind.OK, "6\n")] * 2


def test_java_main_class_is_read_from_the_file(programs_dir, build_cache):
    program = load_program_source(
        "class Helper { }\n// public class Fake\npublic class Main { public static void main(String[] a) {} }\n",
        Language.JAVA, label="x.java",
    )
    assert program.main_class == "Main"
    nested = load_program_source("class Outer { public static void main(String[] a) {} }\n", Language.JAVA, label="y.java")
    assert nested.main_class == "Outer"


def test_a_compile_error_names_the_file_and_the_compilers_first_lines(programs_dir, build_cache):
    need_tool("g++")
    path = source(programs_dir, "broken.cpp", "int main() { return undefined_name; }\n")
    with pytest.raises(LoadError) as error:
        run_one(path, build_cache)
    message = str(error.value)
    assert "broken.cpp: compile error" in message and "undefined_name" in message


def test_a_python_syntax_error_is_a_load_error(programs_dir, build_cache):
    path = source(programs_dir, "broken.py", "print(\n")
    with pytest.raises(LoadError, match=r"broken\.py: syntax error"):
        run_one(path, build_cache)


def test_a_missing_compiler_names_the_package_to_install(programs_dir, build_cache, monkeypatch):
    builds.toolchain.cache_clear()
    monkeypatch.setattr(builds.shutil, "which", lambda command: None)
    path = source(programs_dir, "Any.java", "public class Any { public static void main(String[] a) {} }\n")
    try:
        with pytest.raises(LoadError, match="default-jdk-headless"):
            run_one(path, build_cache)
    finally:
        builds.toolchain.cache_clear()


def test_a_template_bomb_is_a_build_error_within_the_build_limits(programs_dir, build_cache):
    need_tool("g++")
    bomb = """\
        template <int N> struct B { static constexpr long v = B<N - 1>::v + B<N - 2>::v; };
        template <> struct B<0> { static constexpr long v = 0; };
        template <> struct B<1> { static constexpr long v = 1; };
        int main() { return (int) B<100000>::v; }
    """
    path = source(programs_dir, "bomb.cpp", bomb)
    program = load_program(path, build=BuildOptions(cache_dir=build_cache, seconds=3.0, memory_mb=512))
    with pytest.raises(LoadError, match=r"bomb\.cpp"):
        ProcessRunner([program], limits=FAST).close()


OUTCOMES = {
    "ok": ("ok.c", 'int main(void) { return 0; }', OutcomeKind.OK),
    "exit code": ("exit3.c", '#include <stdio.h>\nint main(void) { puts("partial"); return 3; }', OutcomeKind.RUNTIME_ERROR),
    "segfault": ("segv.c", 'int main(void) { volatile int *p = 0; *p = 1; return 0; }', OutcomeKind.RUNTIME_ERROR),
    "endless loop": ("loop.c", 'int main(void) { volatile unsigned long x = 0; for (;;) x++; }', OutcomeKind.TIMEOUT),
    "sleeps": ("sleep.c", '#include <unistd.h>\nint main(void) { sleep(60); return 0; }', OutcomeKind.TIMEOUT),
    "bad_alloc": ("alloc.cpp", '#include <vector>\nint main() { std::vector<long long> v; for (long long i = 0;; i++) v.push_back(i); }',
                  OutcomeKind.MEMORY_LIMIT),
    "writes 1 GB": ("gigabyte.c", """\
        #include <stdio.h>
        #include <string.h>
        int main(void) { static char block[1 << 20]; memset(block, 'x', sizeof block);
                         for (int i = 0; i < 1024; i++) fwrite(block, 1, sizeof block, stdout); return 0; }""",
                    OutcomeKind.OUTPUT_LIMIT),
}


@pytest.mark.parametrize("name", list(OUTCOMES))
def test_every_outcome_kind_of_a_compiled_program(programs_dir, build_cache, name):
    file_name, text, kind = OUTCOMES[name]
    need_tool("g++" if file_name.endswith(".cpp") else "gcc")
    path = source(programs_dir, file_name, text)
    (outcome,), _ = run_one(path, build_cache)
    assert outcome.kind is kind, outcome
    if name == "exit code":
        assert outcome.exit_code == 3 and outcome.stdout == "partial\n"
    if name == "segfault":
        assert outcome.signal == "SIGSEGV" and outcome.exit_code is None
    if name == "writes 1 GB":
        assert len(outcome.stdout) == FAST.output_bytes and outcome.seconds < 5
    if name == "bad_alloc":
        assert "bad_alloc" in outcome.stderr


def test_python_memory_error_and_java_out_of_memory_are_memory_limits(programs_dir, build_cache):
    need_tool("javac")
    python = source(programs_dir, "hog.py", "x = [0] * (10 ** 9)\nprint(len(x))\n")
    java = source(programs_dir, "Hog.java", """\
        import java.util.*;
        public class Hog { public static void main(String[] a) {
            List<long[]> l = new ArrayList<>(); while (true) l.add(new long[1 << 20]); } }
    """)
    limits = ProgramLimits(time_limit=5.0, memory_mb=128)
    for path in (python, java):
        (outcome,), _ = run_one(path, build_cache, limits=limits)
        assert outcome.kind is OutcomeKind.MEMORY_LIMIT, (path, outcome)


def test_a_fork_bomb_is_contained_and_the_launcher_goes_on(programs_dir, build_cache):
    need_tool("gcc")
    bomb = source(programs_dir, "forkbomb.c", "#include <unistd.h>\nint main(void) { for (;;) fork(); }\n")
    program = load_program(bomb, build=BuildOptions(cache_dir=build_cache))
    with ProcessRunner([program], limits=FAST) as runner:
        ((first,), (second,)) = runner.run([TextInput(""), TextInput("")])
        assert first.kind in (OutcomeKind.TIMEOUT, OutcomeKind.RUNTIME_ERROR)
        assert second.kind is first.kind  # the launcher survived and the bomb is gone between runs
        assert runner.restarts == 0


def test_programs_that_read_less_or_more_than_given(programs_dir, build_cache):
    need_tool("g++")
    less = source(programs_dir, "first.cpp", '#include <iostream>\nint main() { int a; std::cin >> a; std::cout << a << "\\n"; }')
    more = source(programs_dir, "more.cpp", """\
        #include <iostream>
        int main() { long long a = 0, s = 0; for (int i = 0; i < 5; i++) { a = 0; std::cin >> a; s += a; }
                     std::cout << s << "\\n"; }""")
    huge = "1 " * 200_000 + "\n"
    (read_less,), _ = run_one(less, build_cache, huge)
    assert read_less.kind is OutcomeKind.OK and read_less.stdout == "1\n"
    (read_more,), _ = run_one(more, build_cache, "1 2\n")
    assert read_more.kind is OutcomeKind.OK and read_more.stdout == "3\n"


def test_python_scripts_run_like_python_script_py(programs_dir, build_cache):
    script = source(programs_dir, "threads.py", """\
        import sys, threading
        sys.setrecursionlimit(100000)
        threading.stack_size(64 * 1024 * 1024)
        def depth(n):
            return 0 if n == 0 else 1 + depth(n - 1)
        def main():
            n = int(input())
            print(depth(n), __name__, sys.argv[0].endswith("threads.py"))
        threading.Thread(target=main).start()
    """)
    (outcome,), _ = run_one(script, build_cache, "20000\n", limits=ProgramLimits(time_limit=5.0))
    assert outcome.stdout == "20000 __main__ True\n", outcome
    exits = source(programs_dir, "exits.py", "import sys\nprint('bye')\nsys.exit(4)\n")
    (outcome,), _ = run_one(exits, build_cache)
    assert (outcome.kind, outcome.exit_code, outcome.stdout) == (OutcomeKind.RUNTIME_ERROR, 4, "bye\n")
    raises = source(programs_dir, "raises.py", "raise ValueError('no')\n")
    (outcome,), _ = run_one(raises, build_cache)
    assert outcome.exit_code == 1 and "ValueError: no" in outcome.stderr


def test_a_python_script_cannot_reach_the_launchers_protocol(programs_dir, build_cache):
    forge = source(programs_dir, "forge.py", """\
        import os, json, struct
        body = json.dumps({"i": 0, "r": {"k": "ok", "o": "forged"}}).encode()
        for fd in range(3, 64):
            try:
                os.write(fd, struct.pack(">I", len(body)) + body)
            except OSError:
                pass
        print("honest")
    """)
    (outcome,), _ = run_one(forge, build_cache)
    assert outcome.stdout == "honest\n"


def test_a_fresh_interpreter_gives_the_same_answer(programs_dir, build_cache):
    script = source(programs_dir, "double.py", "print(2 * int(input()))\n")
    program = load_program(script, build=BuildOptions(cache_dir=build_cache, fresh_interpreter=True))
    with ProcessRunner([program], limits=ProgramLimits(time_limit=5.0)) as runner:
        assert runner.built[0].mode == "exec"
        ((outcome,),) = runner.run([TextInput("21\n")])
    assert outcome.stdout == "42\n"


def test_an_executable_runs_as_it_is(tmp_path, build_cache):
    script = tmp_path / "echo.sh"
    script.write_text("#!/bin/sh\ncat\n")
    os.chmod(script, 0o755)
    (outcome,), _ = run_one(f"exec:{script}", build_cache, "hello\n")
    assert outcome.stdout == "hello\n"
    with pytest.raises(LoadError, match="no such file"):
        load_program(f"exec:{tmp_path / 'missing'}")


def test_unknown_extensions_are_load_errors(tmp_path):
    (tmp_path / "a.rs").write_text("fn main() {}\n")
    with pytest.raises(LoadError, match="extension"):
        load_program(str(tmp_path / "a.rs"))


def test_a_runner_closed_under_a_run_ends_the_run(programs_dir, build_cache):
    # The search runs a batch on a thread of its own and closes the runner when it is done with
    # it: the batch in flight must end then (a thread spinning on would keep the process alive).
    import threading
    import time

    slow = source(programs_dir, "slow.py", "import time\ntime.sleep(0.4)\nprint(input())\n")
    program = load_program(slow, build=BuildOptions(cache_dir=build_cache))
    runner = ProcessRunner([program], limits=ProgramLimits(time_limit=5.0))
    rows: list = []
    thread = threading.Thread(target=lambda: rows.extend(runner.run([TextInput(f"{i}\n") for i in range(50)])))
    thread.start()
    time.sleep(0.6)
    runner.close()
    thread.join(5.0)
    assert not thread.is_alive(), "the run went on after close"
    assert len(rows) == 50 and rows[-1] is None


def test_runs_past_the_deadline_are_stopped_and_the_runner_goes_on(programs_dir, build_cache):
    import time

    slow = source(programs_dir, "sleepy.py", "import time\nn = int(input())\ntime.sleep(n / 10)\nprint(n)\n")
    program = load_program(slow, build=BuildOptions(cache_dir=build_cache))
    with ProcessRunner([program], limits=ProgramLimits(time_limit=5.0)) as runner:
        started = time.monotonic()
        rows = runner.run([TextInput("0\n"), TextInput("30\n"), TextInput("0\n")], deadline=started + 0.5)
        assert time.monotonic() - started < 1.5, "the 3-second run was not stopped at the deadline"
        assert rows[0] is not None and rows[1] is None and rows[2] is None
        (again,) = runner.run([TextInput("1\n")])
        assert again is not None and again[0].stdout == "1\n"
