"""docs/debug.md shows real output: each report command, and each run of the example project, in it is run and compared."""

from __future__ import annotations

import os
import re
import shlex

from tests.debug.conftest import ROOT, RunPython

_COMMAND = re.compile(r"^\$ python -m jitcheck\.debug report (\S+)\n", re.MULTILINE)


def _shown_reports() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "debug.md").read_text()
    found = []
    for block in re.findall(r"```text\n(.*?)```", text, re.DOTALL):
        matches = list(_COMMAND.finditer(block))
        for i, match in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(block)
            found.append((match.group(1), block[match.end():end].strip()))
    return found


def test_report_output_in_the_docs_is_current(run_python: RunPython) -> None:
    shown = _shown_reports()
    assert [target for target, _ in shown] == [
        "fixtures/debug_packages/debug_clean_pkg",
        "fixtures/debug_packages/debug_shape_bug_pkg",
        "fixtures/debug_packages/debug_mutable_label_pkg",
    ]
    for target, output in shown:
        done = run_python("-m", "jitcheck.debug", "report", target)
        assert done.stdout.strip() == output, f"docs/debug.md shows an outdated report of {target}:\n{done.stdout}"


_RUN = re.compile(r"^\$ PYTHONPATH=(\S+) python (-m jitcheck\.debug run .*)\n", re.MULTILINE)


def _shown_runs() -> list[tuple[str, str, str]]:
    """Each ``$ PYTHONPATH=... python -m jitcheck.debug run ...`` of the page: its path, its command line, its output."""
    text = (ROOT / "docs" / "debug.md").read_text()
    found = []
    for block in re.findall(r"```text\n(.*?)```", text, re.DOTALL):
        matches = list(_RUN.finditer(block))
        for i, match in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(block)
            found.append((match.group(1), match.group(2), block[match.end():end].strip()))
    return found


def test_run_output_of_the_example_project_in_the_docs_is_current(run_python: RunPython) -> None:
    shown = _shown_runs()
    assert [path for path, _, _ in shown] == ["fixtures/example_project", "fixtures/example_project"]
    assert ["example_buggy" in command for _, command, _ in shown] == [True, False]
    for path, command, output in shown:
        done = run_python(*shlex.split(command), env={"PYTHONPATH": os.pathsep.join([str(ROOT / path), str(ROOT)])})
        assert done.returncode == 0, done.stderr
        printed = done.stderr.replace(f"{ROOT}{os.sep}", "").splitlines()
        # Every line the page shows, in its order (jax may add lines of its own around them).
        at = 0
        for line in output.splitlines():
            assert line in printed[at:], f"docs/debug.md shows a line that `{command}` no longer prints:\n{line}\n\nit printed:\n{done.stderr}"
            at = printed.index(line, at) + 1
        if "example_fixed" in command:
            assert "JC503" not in done.stderr and "RetraceWarning" not in done.stderr
        else:
            assert done.stderr.count("RetraceWarning") == 1  # warned once, though it retraced at every step
