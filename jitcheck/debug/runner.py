"""``python -m jitcheck.debug run``: a script, module or command run with debug mode on from its first line.

Like ``python script.py``, ``python -m module`` or ``python -c CODE``, but debug mode is switched on (and
beartype's hook installed for ``--packages`` or ``JITCHECK_DEBUG``) before anything
of the program is imported, so no runner or startup hook is needed. ``--recompiles``
starts the recompile recorder instead (`jitcheck.debug.recompiles`) and prints its
table when the program ends (or is interrupted; SIGTERM writes its JSON too); debug mode is then on only if one of its own options
(or ``JITCHECK_DEBUG``) asks for it too.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys

from jitcheck.debug.settings import ON_RETRACE, DebugSettingError


_WITH_VALUE = ("--packages", "--max-traces", "--on-retrace", "--recompiles-json", "--recompiles-top")


def split_program(argv: list[str]) -> tuple[list[str], list[str]]:
    """The runner's own options, and the program to run with its arguments (``-m MODULE ...``, ``-c CODE ...`` or ``SCRIPT ...``).

    Everything from ``-m``, ``-c`` or the first argument that is not an option on
    belongs to the program, as with ``python`` itself.
    """
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-m", "-c") or not arg.startswith("-"):
            return argv[:i], argv[i:]
        if arg in _WITH_VALUE:
            i += 2
            continue
        i += 1
    return argv, []


def main(argv: list[str], *, prog: str = "python -m jitcheck.debug run") -> int:
    """Run the program in debug mode; returns its exit status (2 for a usage error)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run a Python script or module with jitcheck debug mode on from the start.",
        usage=f"{prog} [--packages PKG[,PKG...]] [--max-traces N] [--on-retrace MODE] [--report] "
        "[--recompiles] [--recompiles-json FILE] [--recompiles-top N] (-m MODULE | -c CODE | SCRIPT) [ARGS...]",
    )
    parser.add_argument("--packages", default="", help="packages beartype checks, comma-separated (added to JITCHECK_DEBUG's)")
    parser.add_argument("--max-traces", type=int, default=None, help="traces allowed per function before a retrace is reported")
    parser.add_argument("--on-retrace", choices=ON_RETRACE, default=None, help="what a retrace beyond the limit does (default: warn)")
    parser.add_argument("--report", action="store_true", help="print the graphs traced and the retraces when the program ends")
    parser.add_argument(
        "--recompiles",
        action="store_true",
        help="record every trace and compile of every jit-like wrapper; print the sites that compiled a program again when the program ends",
    )
    parser.add_argument("--recompiles-json", default=None, metavar="FILE", help="write the records to FILE as JSON (implies --recompiles)")
    parser.add_argument("--recompiles-top", type=int, default=None, metavar="N", help="rows of the recompile table (default 20)")
    parser.add_argument("-m", dest="module", default=None, help="run a module, as python -m does (the rest are its arguments)")
    parser.add_argument("-c", dest="code", default=None, help="run this code, as python -c does (the rest are its arguments)")
    options, program = split_program(argv)
    args = parser.parse_args(options)
    if program and program[0] in ("-m", "-c"):
        if len(program) < 2:
            parser.error("-m needs a module name" if program[0] == "-m" else "-c needs the code to run")
        args.rest = program[2:]
        if program[0] == "-m":
            args.module = program[1]
        else:
            args.code = program[1]
    else:
        args.rest = program
    if args.module is None and args.code is None and not args.rest:
        parser.error("give a script to run, -m MODULE or -c CODE")
    recording = args.recompiles or args.recompiles_json is not None
    if args.recompiles_json is not None and not os.path.isdir(os.path.dirname(os.path.abspath(args.recompiles_json))):
        parser.error(f"--recompiles-json {args.recompiles_json}: its folder does not exist; create it or write the file elsewhere")
    debug = not recording or bool(args.packages or args.max_traces is not None or args.on_retrace or args.report)
    try:
        if recording:
            from jitcheck.debug import recompiles

            recompiles.install()
            if args.recompiles_json is not None:
                from jitcheck.debug.recompile_file import write_on_termination

                write_on_termination(os.path.abspath(args.recompiles_json))
        from jitcheck.debug.hook import hooked_packages
        from jitcheck.debug.mode import enable
        from jitcheck.debug.settings import package_names
        from jitcheck.debug.switch import enable_from_environment

        enable_from_environment()
        packages = [p for p in package_names(args.packages, "--packages") if p not in hooked_packages()]
        if debug:
            enable(packages, max_traces=args.max_traces, on_retrace=args.on_retrace)
    except (DebugSettingError, RuntimeError, ValueError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    status = 0
    finished = False
    try:
        if args.module is not None:
            sys.argv = [args.module, *args.rest]
            runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        elif args.code is not None:
            sys.argv = ["-c", *args.rest]
            sys.path.insert(0, "")
            exec(compile(args.code, "<string>", "exec"), {"__name__": "__main__"})
        else:
            script = args.rest[0]
            sys.argv = list(args.rest)
            sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
            runpy.run_path(script, run_name="__main__")
        finished = True
    except SystemExit as exit_:
        code = exit_.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        finished = True
    except TypeError as error:
        from jitcheck.debug.unhashable import explain

        label = explain(error)
        if label is not None:
            error.add_note(f"{label.rule.code} {label.message}\n  help: {label.help}")
        raise
    finally:
        if args.report:
            _print_report()
        if recording:
            _print_recompiles(args.recompiles_json, args.recompiles_top, finished)
    return status


def _print_recompiles(target: str | None, top: int | None, finished: bool) -> None:
    from jitcheck.debug.recompile_file import write
    from jitcheck.debug.recompile_table import TOP, render_table, to_json

    data = to_json(complete=finished)
    print("jitcheck recompiles:", file=sys.stderr)
    print("\n".join(render_table(data, TOP if top is None else top)), file=sys.stderr)
    if target is not None:
        write(target, data)
        print(f"recorded traces and compiles written to {target}", file=sys.stderr)


def _print_report() -> None:
    from jitcheck.debug.hook import hooked_packages
    from jitcheck.debug.report import from_records, render_text

    print(render_text(from_records(("the program",), tuple(hooked_packages()))), file=sys.stderr)


__all__ = ["main"]
