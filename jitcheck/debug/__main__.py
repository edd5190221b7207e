"""``python -m jitcheck.debug``: ``report`` (the import report), ``run`` (a program in debug mode), ``startup-hook``."""

from __future__ import annotations

import argparse
import sys

from jitcheck.pipes import quiet_on_closed_stdout

_USAGE = """usage: python -m jitcheck.debug COMMAND ...

commands:
  report MODULE_OR_PATH... [--json]   import in debug mode; print each graph traced at import, its shapes, every finding
  run [--packages PKG] [--report] [--recompiles] [--recompiles-json FILE] (-m MODULE | -c CODE | SCRIPT) [ARGS...]
                                      run a program with debug mode on from its first line
                                      (--recompiles: record every compile, print the avoidable ones)
  startup-hook {install,uninstall,status} [--site-dir DIR]
                                      make JITCHECK_DEBUG work for a plain `python` (a .pth line in site-packages)
"""


def _startup_hook(argv: list[str]) -> int:
    from jitcheck.debug import startup

    parser = argparse.ArgumentParser(prog="python -m jitcheck.debug startup-hook")
    parser.add_argument("action", choices=("install", "uninstall", "status"))
    parser.add_argument("--site-dir", default=None, help="the site-packages folder (default: this interpreter's)")
    args = parser.parse_args(argv)
    if args.action == "install":
        print(f"installed {startup.install(args.site_dir)}: JITCHECK_DEBUG now works for every `python` of this environment")
    elif args.action == "uninstall":
        removed = startup.uninstall(args.site_dir)
        print(f"removed {removed}" if removed else f"no startup hook at {startup.pth_path(args.site_dir)}")
    else:
        path = startup.pth_path(args.site_dir)
        print(f"{'installed' if startup.installed(args.site_dir) else 'not installed'}: {path}")
    return 0


@quiet_on_closed_stdout
def main(argv: list[str] | None = None) -> int:
    """Dispatch to a subcommand; returns the exit status (141 when stdout's reader left early, as with ``| head``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_USAGE, end="")
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "report":
        from jitcheck.debug.report import main as report_main

        return report_main(rest, prog="python -m jitcheck.debug report")
    if command == "run":
        from jitcheck.debug.runner import main as run_main

        return run_main(rest)
    if command == "startup-hook":
        return _startup_hook(rest)
    print(f"python -m jitcheck.debug: unknown command {command!r}\n\n{_USAGE}", file=sys.stderr, end="")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
