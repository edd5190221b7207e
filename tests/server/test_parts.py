"""The server's pure parts: positions in the client's units, the noqa edit, the import index
and the notebook joining (no server process needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitcheck.lint.check import check_source
from jitcheck.server import notebooks
from jitcheck.server.index import ImportIndex, module_names
from jitcheck.server.noqa_edit import with_noqa
from jitcheck.server.positions import UTF8, UTF16, UTF32, code_points, replacement, span


@pytest.mark.parametrize(("encoding", "expected"), [(UTF16, 9), (UTF8, 11), (UTF32, 8)])
def test_a_column_after_a_wide_character_counts_in_the_clients_units(encoding: str, expected: int) -> None:
    line = 's = "😀"; jax.jit(lambda x: x)'
    where = span([line], 1, 9, 0, 0, encoding)
    assert where.character == expected
    assert code_points(line, expected, encoding) == 8


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


def test_the_import_index_finds_absolute_and_relative_importers() -> None:
    index = ImportIndex()
    index.update(Path("/w/pkg/model.py"), "x = 1")
    index.update(Path("/w/pkg/train.py"), "from .model import x")
    index.update(Path("/w/run.py"), "import pkg.model as m")
    index.update(Path("/w/pkg/sub/deep.py"), "from ..model import x")
    index.update(Path("/w/other.py"), "import os\nfrom pkg import train")
    assert index.dependents(Path("/w/pkg/model.py")) == {Path("/w/pkg/train.py"), Path("/w/run.py"), Path("/w/pkg/sub/deep.py")}
    index.update(Path("/w/pkg/train.py"), "from .model import x\ndef broken(:")  # its imports read while it does not parse
    assert Path("/w/pkg/train.py") in index.dependents(Path("/w/pkg/model.py"))
    index.update(Path("/w/pkg/train.py"), "from .model import (x,\n")  # an import being typed: the last ones kept
    assert Path("/w/pkg/train.py") in index.dependents(Path("/w/pkg/model.py"))
    index.remove(Path("/w/run.py"))
    assert Path("/w/run.py") not in index.dependents(Path("/w/pkg/model.py"))
    assert module_names(Path("/w/pkg/__init__.py")) == {"pkg", "w.pkg"}


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
