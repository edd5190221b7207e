"""The server's parts without a server process: positions in the client's units, the noqa edit,
the notebook joining and the project's judgement."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from jitcheck.lint.check import check_source, check_text
from jitcheck.lint.settings import Settings
from jitcheck.lint.findings import Finding
from jitcheck.server import notebooks
from jitcheck.server.diagnostics import Made, converter, diagnostic
from jitcheck.server.noqa_edit import with_noqa
from jitcheck.server.positions import UTF8, UTF16, UTF32, code_points, replacement, span


@pytest.mark.parametrize(("encoding", "expected"), [(UTF16, 9), (UTF8, 11), (UTF32, 8)])
def test_a_column_after_a_wide_character_counts_in_the_clients_units(encoding: str, expected: int) -> None:
    line = 's = "😀"; jax.jit(lambda x: x)'
    where = span([line], 1, 9, 0, 0, encoding)
    assert where.character == expected
    assert code_points(line, expected, encoding) == 8


def test_a_diagnostic_made_before_is_reused_only_while_the_lines_it_covers_read_the_same() -> None:
    finding = Finding("m.py", 2, 9, "JC104", "lambda", "hoist it", end_line=2, end_column=30)
    lines = ["import jax", "y = 1 + jax.jit(lambda x: x)(2)"]
    made = Made()
    first = made.of([finding], lines, UTF16, None)
    assert first == [diagnostic(finding, lines, UTF16, None)]
    assert made.of([finding], list(lines), UTF16, None)[0] is first[0]  # the same line: the same diagnostic
    wide = ["import jax", 'y = "😀" + jax.jit(lambda x: x)(2)']  # the same finding, its line now wider
    assert made.of([finding], wide, UTF16, None) == [diagnostic(finding, wide, UTF16, None)] != first
    assert made.of([finding], lines, UTF8, None) == [diagnostic(finding, lines, UTF8, None)]


def test_a_made_diagnostics_json_data_is_made_once_and_is_what_pygls_makes() -> None:
    """A publish of diagnostics made before sends each one's kept JSON data: the same as pygls's own converter
    sends, for a diagnostic made again on other lines and for one not made by ``Made`` (a code action's)."""
    finding = Finding("m.py", 2, 9, "JC104", "lambda", "hoist it", end_line=2, end_column=30)
    lines = ["import jax", "y = 1 + jax.jit(lambda x: x)(2)"]
    made = Made()
    ours, theirs = converter(made), default_converter()  # type: ignore[no-untyped-call]
    for text in (lines, lines, ["", *lines]):
        moved = dataclasses.replace(finding, line=finding.line + len(text) - 2, end_line=finding.end_line + len(text) - 2)
        published = types.PublishDiagnosticsParams("file:///m.py", [*made.of([moved], text, UTF16, "https://x"),
                                                                     diagnostic(moved, text, UTF16, None)], 3)
        assert json.dumps(ours.unstructure(published)) == json.dumps(theirs.unstructure(published))
    first = made.of([finding], lines, UTF16, "https://x")[0]
    assert made.plain(first, theirs.unstructure) is made.plain(first, theirs.unstructure)  # made once, then kept


def test_a_replacement_is_the_smallest_single_edit() -> None:
    old = "a = 1\nb = [1, 2]\nc = 3\n"
    new = "a = 1\nb = (1, 2)\nc = 3\n"
    change = replacement(old, new, UTF16)
    assert (change.span.line, change.span.character, change.span.end_line, change.span.end_character) == (1, 4, 1, 10)
    assert change.text == "(1, 2)"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("f(x)", "f(x)  # noqa: JC104"),
        ("f(x)   ", "f(x)  # noqa: JC104"),
        ("f(x)  # noqa: JC101", "f(x)  # noqa: JC101, JC104"),
        ("f(x)  # noqa: JC101, JC102  # why", "f(x)  # noqa: JC101, JC102, JC104  # why"),
        ("f(x)  # noqa", None),
        ("f(x)  # noqa: JC104", None),
        ("y = f(x) + \\", None),
    ],
)
def test_noqa_is_added_to_what_the_line_has(line: str, expected: str | None) -> None:
    assert with_noqa(line, "JC104") == expected


def test_an_added_noqa_silences_the_finding_for_the_static_pass() -> None:
    source = "import jax\n\ndef run(xs):\n    for x in xs:\n        jax.jit(lambda v: v)(x)  # noqa: JC101\n"
    [finding] = check_source(source)
    lines = source.split("\n")
    silenced = with_noqa(lines[finding.line - 1], finding.code)
    assert silenced is not None
    lines[finding.line - 1] = silenced
    assert check_source("\n".join(lines)) == []


def test_notebook_findings_go_back_to_their_cells() -> None:
    cells = ["import jax\n!pip install jax", "for x in range(3):\n    %time jax.jit(lambda v: v)(x)\n    jax.jit(lambda v: v)(x)"]
    joined = notebooks.joined(cells)
    assert [cell for cell, _ in joined.starts] == [0, 1]
    findings = check_source(joined.text)
    per_cell = notebooks.split(findings, joined)
    assert per_cell[0] == [] and [(f.code, f.line, f.column) for f in per_cell[1]] == [("JC104", 3, 13)]


def test_the_project_judges_with_the_files_configuration_as_the_command_line_does(tmp_path: Path) -> None:
    from jitcheck.server.project import Project

    source = "import jax\n\ndef run(xs):\n    for x in xs:\n        jax.jit(lambda v: v)(x)\n"
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jitcheck]\nexclude = ["generated/"]\nper-file-ignores = { "tests/*" = ["JC104"] }\n')
    project = Project()
    assert [f.code for f in project.judge(tmp_path / "src.py", source).findings] == ["JC104"]
    assert project.judge(tmp_path / "tests" / "test_a.py", source).findings == ()
    assert project.judge(tmp_path / "generated" / "g.py", source).findings == ()
    assert project.judge(tmp_path / "src.py", "").findings == ()  # a new, empty buffer
    (tmp_path / "pyproject.toml").write_text('[tool.jitcheck]\nselect = ["JC9"]\n')
    assert project.judge(tmp_path / "src.py", source).error is None  # still the configuration read first
    project.reload_configuration()
    judged = project.judge(tmp_path / "src.py", source)
    assert judged.findings == () and judged.error is not None and "pyproject.toml" in str(judged.error)


def test_a_long_files_first_judgement_starts_the_helpers_as_it_begins_and_a_short_ones_does_not(tmp_path: Path) -> None:
    """The helpers take about a second to load the static pass: a long file's first judgement starts them before it
    reads its statements (here a file with nothing to judge in parts, which never handed them a batch before)."""
    from jitcheck.server.helpers import Helpers
    from jitcheck.server.project import Project

    for lines, started in ((50, False), (2_000, True)):
        project = Project()
        project.checker.helpers = Helpers(1)
        try:
            path = tmp_path / f"m{lines}.py"
            judged = project.judge(path, "".join(f"x_{i} = {i}\n" for i in range(lines)))
            assert judged.findings == () and project.checker.helpers.running is started
        finally:
            project.end()



def test_a_helper_warms_up_on_a_module_with_findings() -> None:
    """A helper judges ``WARM_SOURCE`` as it starts: a module with jit sites, so that its whole analysis runs once."""
    from jitcheck.server.helpers import WARM_SOURCE, warm

    warm()
    assert check_text(WARM_SOURCE, "warm.py", Settings()).findings
