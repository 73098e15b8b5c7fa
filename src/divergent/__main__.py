"""The ``divergent`` program (``python -m divergent``, and the ``divergent`` script).

Before it imports the command line (typer and the search's modules: most of a quick answer's
time; rich only when a report is drawn), it starts the sandboxed workers the command will most likely need
(:mod:`divergent.sandbox.early`), so they boot on the other core meanwhile."""

import sys


def main() -> None:
    try:
        _main()
    except KeyboardInterrupt:
        # Ctrl-C before the command line's own handling (imports, the early start): exit 130 too
        print("divergent: interrupted", file=sys.stderr)
        sys.exit(130)


def _main() -> None:
    from divergent.trace import mark

    mark("program started")
    from divergent.sandbox.early import start_workers

    start_workers(sys.argv[1:])
    mark("early start")
    from divergent.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
