"""The pytest plugin: ``pytest --jitcheck-packages=mypkg`` runs the tests with debug mode on.

Registered through the ``pytest11`` entry point, so installing jitcheck is enough.
Debug mode is switched on in ``pytest_load_initial_conftests``, before any
``conftest.py`` or test module imports the packages, so beartype's hook sees their
first import. ``JITCHECK_DEBUG`` works here too. The plugin imports nothing heavy
unless debug mode is asked for.
"""

from __future__ import annotations

from typing import Any

import pytest

from jitcheck.debug.settings import ON_RETRACE, DebugSettingError

_STATE: dict[str, Any] = {"on": False}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jitcheck", "jitcheck debug mode")
    group.addoption(
        "--jitcheck-packages",
        action="append",
        default=[],
        metavar="PKG[,PKG...]",
        help="switch jitcheck debug mode on: beartype checks these packages from their first import, "
        "every graph is checked in full and traced as it is built, retraces are reported",
    )
    group.addoption("--jitcheck-max-traces", type=int, default=None, metavar="N", help="traces allowed per jitted function (default 1)")
    group.addoption(
        "--jitcheck-on-retrace", choices=ON_RETRACE, default=None, help="what a retrace beyond the limit does (default: warn)"
    )
    parser.addini("jitcheck_packages", "packages jitcheck debug mode type-checks (as --jitcheck-packages)", type="args", default=[])


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    options = early_config.known_args_namespace
    asked = [*getattr(options, "jitcheck_packages", []), *early_config.getini("jitcheck_packages")]
    max_traces = getattr(options, "jitcheck_max_traces", None)
    on_retrace = getattr(options, "jitcheck_on_retrace", None)
    from jitcheck.debug.settings import from_environment, package_names

    try:
        settings = from_environment()
        packages = package_names(",".join(asked), "--jitcheck-packages")
        if not (asked or settings.enabled or max_traces is not None or on_retrace is not None):
            return
        from jitcheck.debug.hook import hooked_packages
        from jitcheck.debug.mode import enable
        from jitcheck.debug.switch import enable_from_environment

        enable_from_environment()
        enable([p for p in packages if p not in hooked_packages()], max_traces=max_traces, on_retrace=on_retrace)
    except (DebugSettingError, RuntimeError, ValueError) as error:
        raise pytest.UsageError(str(error)) from error
    _STATE["on"] = True


def pytest_report_header(config: pytest.Config) -> str | None:
    if not _STATE["on"]:
        return None
    from jitcheck.debug.hook import hooked_packages
    from jitcheck.debug.retrace import TRACKER

    hooked = ", ".join(hooked_packages()) or "no package"
    policy = TRACKER.default
    return f"jitcheck debug mode: on (beartype on {hooked}; max traces {policy.max_traces}, on retrace {policy.on_retrace})"


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not _STATE["on"]:
        return
    from jitcheck.debug.records import graph_records
    from jitcheck.debug.retrace import render_collapsed, retrace_reports

    found = graph_records()
    traced = sum(1 for r in found if r.kind == "traced")
    retraces = retrace_reports()
    terminalreporter.section("jitcheck debug mode")
    terminalreporter.write_line(f"{traced} graph{'s' if traced != 1 else ''} traced as built, {len(retraces)} retrace{'s' if len(retraces) != 1 else ''} reported")
    for text in render_collapsed(retraces):
        terminalreporter.write_line(text)
