"""Jupyter notebooks, as ruff checks them: code cells joined, magics kept aside, findings placed in cells, fixes written back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jitcheck.lint.cli import main
from jitcheck.lint.notebook import Notebook, NotebookError


def code(source: list[str] | str, outputs: list[Any] | None = None, **metadata: Any) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": 1, "metadata": metadata, "outputs": outputs or [], "source": source}


def notebook(*cells: dict[str, Any]) -> dict[str, Any]:
    return {"cells": list(cells), "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"},
                                                "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}


MARKDOWN = {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n", "Some text `x = [1]`.\n"]}
OUTPUT = {"output_type": "stream", "name": "stdout", "text": ["step 1\n", "step 2\n"]}
SETUP = code(["%matplotlib inline\n", "import jax\n", "import jax.numpy as jnp\n", "!pip list | head\n", "\n",
              "def scale(x, n):\n", "    return x * len(n)\n", "\n", "step = jax.jit(scale, static_argnums=1)\n",
              "double = jax.jit(lambda v: v * 2)"], [OUTPUT], tags=["setup"])
LOOP = code(["for i in range(3):\n", "    %time y = step(jnp.ones(3), [i])\n", "    step(jnp.ones(3), [i])\n",
             "    double(i)\n", "    g = jax.jit(lambda v: v + i)\n", "    g(i)"])
SHELL = code("%%bash\necho [1, 2]\n")


def write(tmp_path: Path, data: dict[str, Any], name: str = "nb.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main([*argv, "--no-cache"])
    return status, capsys.readouterr().out


def test_findings_are_placed_in_cells_and_judged_as_the_notebook_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, notebook(MARKDOWN, SETUP, LOOP, SHELL))
    monkeypatch.chdir(tmp_path)
    status, out = run(capsys, ".")  # found by the folder walk
    lines = [line for line in out.splitlines() if ": JC" in line]
    # `step` is built in cell 2 and called with a list in cell 3's loop; the magic line is skipped.
    assert lines[0].startswith("nb.ipynb:cell 3:3:23: JC202 list `[i]` used as static argument 1 (`n`) of `step`")
    # A wrapper rebuilt in the loop is flagged; `double`, built once in cell 2, is not.
    assert lines[1].startswith("nb.ipynb:cell 3:5:17: JC104 lambda used as the function jitted by `jax.jit` on every iteration of the `for` loop")
    assert len(lines) == 2 and status == 1
    capsys.readouterr()
    main([str(tmp_path / "nb.ipynb"), "--no-cache", "--output-format", "json"])
    rows = json.loads(capsys.readouterr().out)
    assert [(r["cell"], r["location"]["row"], r["location"]["column"]) for r in rows] == [(3, 3, 23), (3, 5, 17)]
    # GitHub annotations: a cell's line is no line of the JSON file, so the message carries the cell.
    main(["nb.ipynb", "--no-cache", "--output-format", "github"])
    annotations = capsys.readouterr().out.splitlines()
    assert annotations[0].startswith("::error title=jitcheck (JC202),file=nb.ipynb,line=1,col=1::nb.ipynb:cell 3:3:23: JC202 list")
    assert len(annotations) == 2


def test_fix_writes_the_notebook_back_with_outputs_metadata_and_magics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = notebook(MARKDOWN, SETUP, LOOP, SHELL)
    path = write(tmp_path, original)
    status, out = run(capsys, str(path), "--fix", "--unsafe-fixes")
    assert "fixed" in out
    fixed = json.loads(path.read_text())
    assert fixed["metadata"] == original["metadata"] and fixed["nbformat"] == 4
    assert [c["cell_type"] for c in fixed["cells"]] == ["markdown", "code", "code", "code"]
    assert fixed["cells"][1]["outputs"] == [OUTPUT] and fixed["cells"][1]["metadata"] == {"tags": ["setup"]}
    assert fixed["cells"][0] == MARKDOWN and fixed["cells"][3] == SHELL
    setup = "".join(fixed["cells"][1]["source"])
    loop = "".join(fixed["cells"][2]["source"])
    assert setup.startswith("%matplotlib inline\n") and "!pip list | head\n" in setup
    assert "    %time y = step(jnp.ones(3), [i])\n" in loop  # the magic line is kept exactly
    assert "    step(jnp.ones(3), (i,))\n" in loop
    assert isinstance(fixed["cells"][2]["source"], list)
    # A second run finds nothing more to fix and the notebook stays as it is.
    before = path.read_text()
    run(capsys, str(path), "--fix", "--unsafe-fixes")
    assert path.read_text() == before


def test_a_json_file_that_is_not_a_notebook_gets_jc000(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "dict.ipynb").write_text('{"a": [1, 2]}\n')
    (tmp_path / "broken.ipynb").write_text("{not json\n")
    status, out = run(capsys, str(tmp_path))
    assert status == 1
    assert "dict.ipynb:1:1: JC000 could not check this file: it has no `cells` list" in out
    assert "broken.ipynb:1:1: JC000 could not check this file: it is not valid JSON" in out


def test_a_syntax_error_is_placed_in_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, notebook(code("x = 1\n"), MARKDOWN, code(["y = 2\n", "def f(:\n", "    pass\n"])))
    monkeypatch.chdir(tmp_path)
    status, out = run(capsys, "nb.ipynb")
    assert status == 1 and out.startswith("nb.ipynb:cell 3:2:7: JC000 could not check this cell: it does not parse")


def test_a_cell_that_does_not_parse_costs_the_other_cells_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Jupyter still runs the cells after a broken one; the loop's rebuilt lambda in cell 3 is still found.
    broken = code(["def f(:\n", "    pass\n"])
    loop = code(["import jax\n", "for i in range(3):\n", "    jax.jit(lambda x: x + 1)(i)\n"])
    write(tmp_path, notebook(MARKDOWN, broken, loop))
    monkeypatch.chdir(tmp_path)
    status, out = run(capsys, "nb.ipynb")
    lines = [line for line in out.splitlines() if ": JC" in line]
    assert status == 1 and len(lines) == 2
    assert lines[0].startswith("nb.ipynb:cell 2:1:7: JC000 could not check this cell: it does not parse")
    assert lines[1].startswith("nb.ipynb:cell 3:3:13: JC104 lambda used as the function jitted by `jax.jit` on every iteration")


def test_a_percent_line_inside_brackets_or_a_string_is_python_not_a_magic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # IPython reads magics only where a statement starts: `% (...)` continuing `print(` is the modulo operator,
    # and a `%` line in a triple-quoted string is text. Read as magics, the cell would not parse.
    cell = code(["import jax\n", "doc = \"\"\"\n", "%(name)s\n", "\"\"\"\n", "for i in range(3):\n",
                 "    print('step %d'\n", "          % (i,))\n", "    %time jax.jit(lambda x: x * 2)(i)\n",
                 "    jax.jit(lambda x: x + 1)(i)\n"])
    write(tmp_path, notebook(cell))
    monkeypatch.chdir(tmp_path)
    status, out = run(capsys, "nb.ipynb")
    lines = [line for line in out.splitlines() if ": JC" in line]
    assert lines == [line for line in lines if "JC104" in line] and len(lines) == 1, out
    assert lines[0].startswith("nb.ipynb:cell 1:9:13: JC104") and status == 1
    parsed = Notebook.parse(json.dumps(notebook(cell)))
    assert parsed.magics == ("    %time jax.jit(lambda x: x * 2)(i)",) and not parsed.broken


def test_notebook_api_maps_positions_and_round_trips() -> None:
    text = json.dumps(notebook(MARKDOWN, SETUP, LOOP, SHELL), indent=1)
    parsed = Notebook.parse(text)
    assert [span.number for span in parsed.spans] == [2, 3]
    lines = parsed.source.splitlines()
    assert lines[parsed.spans[1].first_line - 1] == "for i in range(3):"
    assert parsed.locate(parsed.spans[1].first_line + 2, 5).__dict__ == {"cell": 3, "line": 3, "column": 5}
    assert json.loads(parsed.with_source(parsed.source)) == json.loads(text)
    with pytest.raises(NotebookError):
        Notebook.parse("[]")
    with pytest.raises(NotebookError):
        parsed.with_source(parsed.source.replace("# jitcheck: cell 3\n", ""))


def test_a_hoisted_lambda_stays_in_its_cell_and_json_edits_count_in_the_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = ["%time x\n", "def run(x):\n", "    return jax.jit(lambda v: v * 2)(x)\n"]
    path = write(tmp_path, notebook(code(["import jax\n", "x = 1"]), MARKDOWN, code(source)))
    capsys.readouterr()
    # `run` is called by no cell: a guess that it runs again, reported under --preview
    main([str(path), "--no-cache", "--output-format", "json", "--preview"])
    [row] = json.loads(capsys.readouterr().out)
    assert (row["cell"], row["location"]) == (3, {"row": 3, "column": 20}) and row["confidence"] == "low"
    lines = list(source)
    for edit in reversed(row["fix"]["edits"]):  # applied to the cell's own lines, they give what --fix writes
        lines[edit["location"]["row"] - 1:edit["end_location"]["row"] - 1] = [edit["content"]]
    run(capsys, str(path), "--fix", "--preview")
    cells = json.loads(path.read_text())["cells"]
    assert "".join(cells[2]["source"]) == "".join(lines)
    assert "".join(cells[2]["source"]).startswith("%time x\n") and "def _run_lambda(v):" in "".join(cells[2]["source"])
    assert cells[0]["source"] == ["import jax\n", "x = 1"]


def test_a_cell_indented_as_a_whole_is_read_dedented_as_ipython_runs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # IPython strips the indent of a cell's first line from every line (its `leading_indent`), so a snippet pasted
    # from a method body runs; read as it stands it would not parse. Positions and fixes keep the cell's indent.
    source = ["\n", "    def run(x):\n", "        return jax.jit(lambda v: v * 2)(x)\n", "\n", "    run(1)\n", "    run(2)\n"]
    path = write(tmp_path, notebook(code(["import jax\n"]), code(source)))
    capsys.readouterr()
    main([str(path), "--no-cache", "--output-format", "json"])
    [row] = json.loads(capsys.readouterr().out)
    assert (row["code"], row["cell"], row["location"]) == ("JC104", 2, {"row": 3, "column": 24})
    run(capsys, str(path), "--fix")
    fixed = "".join(json.loads(path.read_text())["cells"][1]["source"])
    assert "    def _run_lambda(v):\n        return v * 2\n" in fixed
    assert "    def run(x):\n        return jax.jit(_run_lambda)(x)\n" in fixed
    assert all(not line.strip() or line.startswith("    ") for line in fixed.splitlines())
    assert Notebook.parse(path.read_text()).broken == ()
    status, out = run(capsys, str(path))
    assert status == 0, out
