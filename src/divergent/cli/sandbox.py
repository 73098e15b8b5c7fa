"""``divergent sandbox``: which isolation levels this machine offers, and what each guarantees."""

from __future__ import annotations

from rich.table import Table

from divergent.cli.application import app, make_console
from divergent.report.tables import fitted


@app.command()
def sandbox() -> None:
    """Show the isolation levels available here (the strongest is used by default), what caps the
    processes and filters the system calls of a sandbox, and what removes what a run leaves behind."""
    import platform

    from divergent.errors import SandboxUnavailable
    from divergent.sandbox.child.kit import seccomp_program
    from divergent.sandbox.isolation import (
        GUARANTEES,
        Isolation,
        choose_level,
        level_statuses,
        process_cap,
        run_containment,
    )

    try:
        default: Isolation | None = choose_level("auto")
    except SandboxUnavailable:
        default = None
    table = Table(title="sandbox isolation levels (docs/sandbox.md)")
    for column in ("level", "available", "guarantees"):
        table.add_column(column)
    for status in level_statuses():
        mark = "default" if status.level is default else ("yes" if status.available else "no")
        if status.reason:
            mark += f" ({status.reason})"
        table.add_row(status.level.value, mark, GUARANTEES[status.level])
    console = make_console()
    console.print(fitted(table, prose=("available", "guarantees")))
    if default is None:
        console.print("[bold red]no level is used by default here[/bold red]: untrusted code would run as root; "
                      "install bubblewrap (apt-get install bubblewrap)")
    elif default is Isolation.RLIMITS:
        console.print("[bold red]the default level is NOT A SANDBOX[/bold red]: install bubblewrap for one")
    console.print(f"process cap: {process_cap()}")
    if default is not None:
        console.print(f"what a run leaves behind ({default.value}): {run_containment(default)}")
    machine = platform.machine()
    if seccomp_program(machine) is not None:
        console.print("system calls: sockets, io_uring, ptrace, kernel keyrings, bpf, perf_event_open, System V IPC "
                      "and POSIX message queues denied (seccomp, at every level)")
    else:
        console.print(f"system calls: NOT FILTERED (no seccomp program for {machine})")
