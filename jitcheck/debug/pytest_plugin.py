"""The pytest plugin: ``pytest --jitcheck-packages=mypkg`` runs the tests with debug mode on; ``--jitcheck-recompiles`` records every compile.

Registered through the ``pytest11`` entry point, so installing jitcheck is enough.
Debug mode is switched on in ``pytest_load_initial_conftests``, before any
``conftest.py`` or test module imports the packages, so beartype's hook sees their
first import. ``JITCHECK_DEBUG`` works here too. ``--jitcheck-recompiles`` (or
``--jitcheck-recompiles-json FILE``) starts the recompile recorder
(`jitcheck.debug.recompiles`) at the same moment, with or without debug mode, and
prints its table at the end (merged over pytest-xdist's workers); its JSON file is
rewritten after each test that traced, so a run killed by its time limit keeps the
records of the tests that ran (`jitcheck.debug.recompile_file`). The plugin imports
nothing heavy unless one of them is asked for.
"""

from __future__ import annotations

from typing import Any

import pytest

from jitcheck.debug.settings import ON_RETRACE, DebugSettingError

_STATE: dict[str, Any] = {"on": False, "recording": False, "worker_records": [], "target": None}
_RECORDS_KEY = "jitcheck_recompiles"


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
    group.addoption(
        "--jitcheck-recompiles",
        action="store_true",
        default=False,
        help="record every trace and compile of every jit-like wrapper (jax.jit, pmap, pjit, equinox.filter_jit, flax.nnx.jit, brainstate.transform.jit) and "
        "print, at the end, the sites that compiled the same program more than once, with the cause and the rule",
    )
    group.addoption(
        "--jitcheck-recompiles-json",
        default=None,
        metavar="FILE",
        help="write the recorded traces and compiles to FILE as JSON (implies --jitcheck-recompiles; schema in docs/debug.md)",
    )
    group.addoption(
        "--jitcheck-recompiles-top", type=int, default=None, metavar="N", help="rows of the recompile table (default 20)"
    )
    parser.addini("jitcheck_packages", "packages jitcheck debug mode type-checks (as --jitcheck-packages)", type="args", default=[])


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    options = early_config.known_args_namespace
    target = getattr(options, "jitcheck_recompiles_json", None)
    if getattr(options, "jitcheck_recompiles", False) or target:
        import os

        from jitcheck.debug import recompiles

        folder = os.path.dirname(os.path.abspath(target)) if target else ""
        if target and not os.path.isdir(folder):
            raise pytest.UsageError(f"--jitcheck-recompiles-json {target}: the folder {folder} does not exist; create it or write the file elsewhere")

        try:
            recompiles.install()
        except RuntimeError as error:
            raise pytest.UsageError(f"--jitcheck-recompiles: {error}") from error
        _STATE["recording"] = True
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


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    lines = []
    if _STATE["recording"]:
        lines.append("jitcheck recompile recorder: on")
    if not _STATE["on"]:
        return lines or None
    from jitcheck.debug.hook import hooked_packages
    from jitcheck.debug.retrace import TRACKER

    hooked = ", ".join(hooked_packages()) or "no package"
    policy = TRACKER.default
    lines.append(f"jitcheck debug mode: on (beartype on {hooked}; max traces {policy.max_traces}, on retrace {policy.on_retrace})")
    return lines


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    if not _STATE["recording"]:
        return (yield)
    from jitcheck.debug.recompiles import set_context

    set_context(item.nodeid)
    try:
        return (yield)
    finally:
        set_context(None)


def pytest_configure(config: pytest.Config) -> None:
    target = config.getoption("jitcheck_recompiles_json", None)
    if not _STATE["recording"] or not target or getattr(config, "workerinput", None) is not None:
        return  # a pytest-xdist worker hands its records to the controller, which writes the file
    import os

    from jitcheck.debug.recompile_file import write_on_termination

    _STATE["target"] = os.path.abspath(target)
    write_on_termination(_STATE["target"])


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    target = _STATE.get("target")
    if target:  # the records so far survive a run killed by its time limit
        from jitcheck.debug.recompile_file import checkpoint

        checkpoint(target)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _STATE["recording"]:
        return
    from jitcheck.debug.recompile_table import to_json

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: the controller prints and writes
        workeroutput[_RECORDS_KEY] = to_json()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    found = getattr(node, "workeroutput", {}).get(_RECORDS_KEY)
    if found is not None:
        _STATE["worker_records"].append(found)


def _recompile_summary(terminalreporter: Any, config: pytest.Config, exitstatus: int) -> None:
    from jitcheck.debug.recompile_file import write
    from jitcheck.debug.recompile_table import TOP, merge, render_table, to_json

    found = [*_STATE["worker_records"]]
    if not found or to_json(with_traces=False)["totals"]["traces"]:
        found.append(to_json())
    data = merge(found)
    data["complete"] = data.get("complete", True) and exitstatus != pytest.ExitCode.INTERRUPTED
    top = config.getoption("jitcheck_recompiles_top")
    terminalreporter.section("jitcheck recompiles")
    for text in render_table(data, TOP if top is None else top, shown_path=lambda p: _relative(p, config)):
        terminalreporter.write_line(text)
    target = config.getoption("jitcheck_recompiles_json")
    if target:
        write(target, data)
        terminalreporter.write_line(f"recorded traces and compiles written to {target}")


def _relative(path: str, config: pytest.Config) -> str:
    import os

    root = str(config.rootpath)
    return os.path.relpath(path, root) if path.startswith(root + os.sep) else path


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _STATE["recording"] and getattr(config, "workerinput", None) is None:
        _recompile_summary(terminalreporter, config, exitstatus)
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
