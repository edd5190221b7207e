"""The ``jitcheck`` command.

    jitcheck [check] [PATH ...] [--fix [--unsafe-fixes] | --diff] [--output-format FMT] [--statistics]
    jitcheck rule JC101            # a rule's documentation (``--all`` for every rule)
    jitcheck debug-report ...      # the runtime layer's import-time report (jitcheck.debug.report)
    jitcheck doctor [FOLDER]       # what would make the mypy plugin silent there (a shadowing mypy_plugin.py)
    jitcheck server                # a language server for editors (jitcheck.server; docs/editor.md)

Exit status: 0 no findings, 1 findings, 2 a usage, configuration or internal error.
The command imports neither jax nor (when every file is in the cache) libcst.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from typing import TYPE_CHECKING

from jitcheck import __version__
from jitcheck.pipes import quiet_on_closed_stdout

if TYPE_CHECKING:
    from jitcheck.lint.settings import FixMode

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    from jitcheck.lint.output import FORMATS

    parser = argparse.ArgumentParser(
        prog="jitcheck",
        description="Find (and fix) what makes bad JAX jit cache keys, before anything runs.",
        epilog="Subcommands: `jitcheck rule CODE` prints a rule's documentation; `jitcheck debug-report ...` "
        "runs the runtime layer's report. Exit status: 0 clean, 1 findings, 2 error.",
    )
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders to check (default: .)")
    parser.add_argument("--fix", action="store_true", help="apply the safe fixes")
    parser.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply the unsafe fixes")
    parser.add_argument("--diff", action="store_true", help="print the fixes as unified diffs, change nothing")
    parser.add_argument("--output-format", choices=FORMATS, default="text")
    parser.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of each finding")
    parser.add_argument("--select", type=_codes, help="comma-separated codes, prefixes or names to check (replaces the configured set)")
    parser.add_argument("--extend-select", type=_codes, default=[], help="add to the selected rules")
    parser.add_argument("--preview", action="store_true", default=None,
                        help="also report findings that rest on a guess (confidence \"low\"), as ruff's preview")
    parser.add_argument("--no-preview", dest="preview", action="store_false", help="report only findings whose evidence is shown")
    parser.add_argument("--ignore", type=_codes, default=[], help="comma-separated codes, prefixes or names to leave out")
    parser.add_argument("--exclude", type=_codes, default=[], help="extra gitignore-style patterns to leave out")
    parser.add_argument("--config", type=Path, help="the pyproject.toml to read (default: the nearest one with [tool.jitcheck])")
    parser.add_argument("--no-respect-gitignore", action="store_true", help="check files that .gitignore ignores")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument("--cache-dir", type=Path, help="where the cache lives (default: .jitcheck_cache at the project root)")
    parser.add_argument("--jobs", "-j", type=int, help="worker processes (default: one per core)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    parser.add_argument("--version", action="version", version=f"jitcheck {__version__}")
    return parser


def _codes(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def rule_command(argv: Sequence[str]) -> int:
    """``jitcheck rule CODE``: print a rule's documentation."""
    from jitcheck import rules
    from jitcheck.lint.rules_doc import rule_page

    parser = argparse.ArgumentParser(prog="jitcheck rule", description="Print a rule's documentation.")
    parser.add_argument("code", nargs="?", help="a code (JC101) or name (bound-method)")
    parser.add_argument("--all", action="store_true", help="every rule")
    args = parser.parse_args(list(argv))
    if args.all:
        print("\n".join(rule_page(r, heading="#") for r in rules.RULES))
        return EXIT_CLEAN
    if not args.code:
        parser.error("give a rule code, e.g. `jitcheck rule JC101`, or --all")
    try:
        found = rules.rule(args.code)
    except KeyError as error:
        print(f"jitcheck rule: {error.args[0]}", file=sys.stderr)
        return EXIT_ERROR
    print(rule_page(found, heading="#"))
    return EXIT_CLEAN


def debug_report_command(argv: Sequence[str]) -> int:
    """``jitcheck debug-report ...``: hand over to ``jitcheck.debug.report.main``, imported only now."""
    try:
        module = importlib.import_module("jitcheck.debug.report")
    except ModuleNotFoundError as error:
        if error.name not in ("jitcheck.debug", "jitcheck.debug.report"):
            raise
        print(
            "jitcheck debug-report: the runtime report (module jitcheck.debug.report) is not installed in this "
            f"copy of jitcheck ({error}); install a jitcheck that includes the debug layer",
            file=sys.stderr,
        )
        return EXIT_ERROR
    result = module.main(list(argv))
    return int(result) if result is not None else EXIT_CLEAN


@quiet_on_closed_stdout
def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (141 when a reader such as ``head`` closed stdout)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "rule":
        return rule_command(args_list[1:])
    if args_list and args_list[0] == "debug-report":
        return debug_report_command(args_list[1:])
    if args_list and args_list[0] == "doctor":  # what would make the mypy plugin silent (jitcheck/doctor.py)
        from jitcheck.doctor import main as doctor_main

        return doctor_main(args_list[1:])
    if args_list and args_list[0] == "server":  # the language server (jitcheck.server, needs jitcheck[server])
        from jitcheck.server import main as server_main

        return server_main(args_list[1:])
    if args_list and args_list[0] == "check":
        args_list = args_list[1:]
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exit_:
        return EXIT_CLEAN if exit_.code in (0, None) else EXIT_ERROR
    return check_command(args)


def check_command(args: argparse.Namespace) -> int:
    from jitcheck.lint import config as config_module
    from jitcheck.lint import output
    from jitcheck.lint.runner import Options, run

    if args.unsafe_fixes and not (args.fix or args.diff):
        print("jitcheck: --unsafe-fixes needs --fix or --diff", file=sys.stderr)
        return EXIT_ERROR
    if args.jobs is not None and args.jobs < 1:
        print("jitcheck: --jobs must be at least 1", file=sys.stderr)
        return EXIT_ERROR
    cwd = Path.cwd()
    paths: list[Path] = args.paths or [Path(".")]
    first = paths[0] if paths[0].is_absolute() else cwd / paths[0]
    try:
        start = first if first.is_dir() else first.parent
    except OSError:  # a folder that cannot be searched: reported as a finding by the run
        start = first.parent
    try:
        config = config_module.load(
            start.resolve(),
            config_file=args.config,
            select=args.select,
            extend_select=args.extend_select,
            ignore=args.ignore,
            exclude=args.exclude,
            respect_gitignore=False if args.no_respect_gitignore else None,
            cache_dir=args.cache_dir,
            preview=args.preview,
        )
    except config_module.ConfigError as error:
        print(f"jitcheck: {error}", file=sys.stderr)
        return EXIT_ERROR
    mode: FixMode = ("unsafe" if args.unsafe_fixes else "safe") if (args.fix or args.diff) else None
    options = Options(fix=mode, diff=args.diff, jobs=args.jobs, use_cache=not args.no_cache,
                      edits=args.output_format == "json" and not args.statistics)
    report = run(paths, config, options, cwd)
    for message in report.skipped:
        print(f"jitcheck: {message}", file=sys.stderr)
    out = sys.stdout
    if args.diff:
        out.write("".join(report.diffs))
        if not args.quiet:
            fixes = report.fixed
            print(f"Would fix {fixes} finding{'s' if fixes != 1 else ''} in {len(report.changed)} file"
                  f"{'s' if len(report.changed) != 1 else ''}.", file=sys.stderr)
        if report.internal_errors:
            return EXIT_ERROR
        return EXIT_CLEAN if (args.exit_zero or not report.diffs) else EXIT_FINDINGS
    if args.statistics:
        out.write(output.statistics(report.findings))
    else:
        out.write(output.render(report.findings, args.output_format))
    if not args.quiet and args.output_format == "text":
        print(output.summary(report.findings, report.fixed))
    if report.internal_errors:
        return EXIT_ERROR
    if report.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


if __name__ == "__main__":
    raise SystemExit(main())
