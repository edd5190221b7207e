"""docs/debug.md shows the import report's real output: each report command in it is run and compared."""

from __future__ import annotations

import re

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
