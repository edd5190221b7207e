"""Every file is read as Python reads it: its encoding, its lines, its whitespace; notebooks as ruff reads them.

Issue 26's defects, each reproduced: a fix that changed a string in a ``# coding:`` file,
lines counted at characters Python does not end a line at, a form feed before an indented
block, line endings lost by a fix, cell magics and non-Python notebooks, a NUL byte, a fix
counted that is never written, a time limit measured on the wall clock, stubs in folders.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from jitcheck.lint.cli import main
from jitcheck.lint.workers import Failure, Pool

LOOP = "def run():\n    for i in range(3):\n        jax.jit(lambda x: x + 1)(i)\n"
"""One JC104 (a lambda jitted anew per iteration) with a safe fix: the lambda moves to a module-level def."""


def lines(text: str, keepends: bool = False) -> list[str]:
    """``text``'s lines as Python's tokenizer ends them (``\\n``, ``\\r\\n``, ``\\r``), written here apart from jitcheck's own."""
    found = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+", text)
    return found if keepends else [line.rstrip("\r\n") for line in found]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]]]:
    capsys.readouterr()
    status = main([*argv, "--no-cache", "--output-format", "json"])
    return status, json.loads(capsys.readouterr().out)


def fix(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    main([*argv, "--no-cache", "--fix"])
    return capsys.readouterr().out


def strings(data: bytes) -> list[str]:
    """Every string constant of a module, as Python reads its bytes."""
    return [node.value for node in ast.walk(ast.parse(data)) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def lambda_position(data: bytes) -> tuple[int, int]:
    """Python's 1-based line and character column of the module's lambda."""
    tree = ast.parse(data)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.Lambda))
    text = lines(data.decode(_codec(data)).lstrip("\ufeff"))[node.lineno - 1]
    return node.lineno, len(text.encode("utf-8")[:node.col_offset].decode("utf-8")) + 1


def _codec(data: bytes) -> str:
    import io
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


# (codec, BOM, where the coding line is, a string the codec holds). The latin-1 and cp1252 cases hold bytes
# that are also valid UTF-8 (Python reads "Ã©", two characters, where a UTF-8 reading sees one).
ENCODINGS = [
    ("utf-8", b"", None, "é ü ☃"),
    ("utf-8", b"\xef\xbb\xbf", None, "é ü ☃"),
    ("utf-8", b"\xef\xbb\xbf", 1, "é ü"),
    ("latin-1", b"", 1, "Ã©"),
    ("latin-1", b"", 2, "Ã© ÿ Ã©"),
    ("cp1252", b"", 1, "Ã© â€œ"),
    ("cp1252", b"", 2, "€ “q” Ã©"),
    ("cp1251", b"", 2, "Привет"),
    ("koi8-r", b"", 1, "Привет"),
    ("iso-8859-15", b"", 1, "€ Ã©"),
    ("shift_jis", b"", 1, "日本語"),
    ("euc-jp", b"", 2, "日本語"),
    ("gbk", b"", 1, "中文"),
]


def _the_lambda_found_and_fixed(capsys: pytest.CaptureFixture[str], path: Path, data: bytes) -> bytes:
    """Write ``data`` to ``path``, assert its one finding is JC104 at the lambda, fix it, and return the file's new bytes."""
    path.write_bytes(data)
    _, rows = run_json(capsys, str(path))
    assert [(r["code"], r["location"]["row"], r["location"]["column"]) for r in rows] == [("JC104", *lambda_position(data))]
    assert "1 fixed" in fix(capsys, str(path))
    return path.read_bytes()


@pytest.mark.parametrize(("codec", "bom", "cookie_line", "text"), ENCODINGS, ids=[f"{c}-{bool(b)}-{n}" for c, b, n, _ in ENCODINGS])
def test_a_fix_keeps_every_string_and_the_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str], codec: str, bom: bytes,
                                                     cookie_line: int | None, text: str) -> None:
    header = ["#!/usr/bin/env python\n"] if cookie_line == 2 else []
    if cookie_line is not None:
        header.append(f"# -*- coding: {codec} -*-\n")
    source = "".join(header) + f"import jax\nS = {text!r}\n\n" + LOOP.replace("jax.jit(", f"T = {text!r}; jax.jit(")
    data = bom + source.encode(codec)
    path = tmp_path / "m.py"
    now = _the_lambda_found_and_fixed(capsys, path, data)
    assert now != data and now.startswith(bom)
    assert strings(now) == strings(data)  # not one character of a string changed
    assert _codec(now) == _codec(data)
    now.decode(codec)  # written back in the file's own encoding
    compile(now, "m.py", "exec", dont_inherit=True)


def test_a_coding_line_python_refuses_is_jc000(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.py").write_bytes(b"# coding: no-such-codec\nimport jax\n" + LOOP.encode())
    (tmp_path / "bad.py").write_bytes(b"# coding: ascii\nS = '\xe9'\n")
    _, rows = run_json(capsys, str(tmp_path))
    assert [(Path(r["filename"]).name, r["code"]) for r in rows] == [("bad.py", "JC000"), ("m.py", "JC000")]
    assert "not valid ascii" in rows[0]["message"] and rows[0]["location"] == {"row": 2, "column": 6}
    assert "encoding cannot be read" in rows[1]["message"]


@pytest.mark.parametrize("char", ["\x0c", "\u2028", "\x85", "\x1c", "\u2029"])
def test_lines_are_counted_as_python_counts_them(tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str) -> None:
    """A character that str.splitlines breaks at, inside a string: noqa, positions and edits stay on Python's lines."""
    head = f"import jax\nS = 'a{char}b'\n\n"
    silenced = tmp_path / "silenced.py"
    silenced.write_text(head + LOOP.replace("(i)\n", "(i)  # noqa: JC104\n"), encoding="utf-8", newline="")
    above = tmp_path / "above.py"
    above.write_text(head + LOOP.replace("range(3):", "range(3):  # noqa: JC104"), encoding="utf-8", newline="")
    _, rows = run_json(capsys, str(silenced), str(above))
    assert [Path(r["filename"]).name for r in rows] == ["above.py"]  # the right line's noqa holds, the one above does not
    assert (rows[0]["location"]["row"], rows[0]["location"]["column"]) == lambda_position(above.read_bytes())
    # The JSON edits, applied to Python's lines, give exactly what --fix writes.
    edited = lines(above.read_bytes().decode("utf-8"), keepends=True)
    for edit in sorted(rows[0]["fix"]["edits"], key=lambda e: e["location"]["row"], reverse=True):
        start, end = edit["location"]["row"] - 1, edit["end_location"]["row"] - 1
        edited[start:end] = [edit["content"]]
    fix(capsys, str(above))
    assert "".join(edited) == above.read_bytes().decode("utf-8")


def test_a_form_feed_before_an_indented_block_is_python(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = b"import jax\n\x0cS = 1\n\ndef run():\n\x0c    for i in range(3):\n        jax.jit(lambda x: x + 1)(i)\n"
    path = tmp_path / "m.py"
    now = _the_lambda_found_and_fixed(capsys, path, data)
    assert b"\x0cS = 1\n" in now and b"\x0c    for i in range(3):\n" in now and b"lambda x" not in now
    compile(now, "m.py", "exec", dont_inherit=True)
    # A form feed on the rewritten line itself keeps its place.
    path.write_bytes(b"import jax\n\ndef run():\n    for i in range(3):\n\x0c        jax.jit(lambda x: x + 1)(i)\n")
    _, rows = run_json(capsys, str(path))
    assert (rows[0]["location"]["row"], rows[0]["location"]["column"]) == (5, 18)
    assert "1 fixed" in fix(capsys, str(path))
    assert b"\x0c        jax.jit(_run_lambda)(i)\n" in path.read_bytes()


def test_each_line_keeps_its_own_ending(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cr = tmp_path / "cr.py"
    cr.write_bytes(("import jax\n\n" + LOOP).replace("\n", "\r").encode())
    mixed = tmp_path / "mixed.py"
    mixed_data = b"import jax\r\n\nS = 1\n\r\ndef run():\r\n    for i in range(3):\n\n        jax.jit(lambda x: x + 1)(i)\r\n"
    mixed.write_bytes(mixed_data)
    assert "2 fixed" in fix(capsys, str(cr), str(mixed))
    now = cr.read_bytes()
    assert now.endswith(b"(i)\r") and b"\n" not in now and b"lambda x" not in now
    # Every line the fix did not rewrite is still there, in order, with its own ending.
    kept = [line for line in lines(mixed_data.decode(), keepends=True) if "lambda" not in line]
    fixed = iter(lines(mixed.read_bytes().decode(), keepends=True))
    assert all(any(line == other for other in fixed) for line in kept)
    assert mixed.read_bytes().endswith(b"jax.jit(_run_lambda)(i)\r\n")


def test_a_nul_byte_is_pythons_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.py").write_bytes(b"import jax\n# a\x00b\n\n" + LOOP.encode())
    _, rows = run_json(capsys, str(tmp_path))
    assert [r["code"] for r in rows] == ["JC000"]
    assert "null bytes" in rows[0]["message"]


def test_a_fix_that_will_not_be_written_is_not_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.py"
    data = ("import jax\n\ntype Pair = tuple[int, int]\n\n" + LOOP).encode()
    path.write_bytes(data)
    _, rows = run_json(capsys, str(path))
    assert [r["code"] for r in rows] == ["JC104"]
    out = fix(capsys, str(path))
    if sys.version_info >= (3, 12):  # Python reads PEP 695: the fix is written
        assert rows[0]["fix"] is not None and "1 fixed" in out
        return
    # This Python cannot compile the file, so no fix is written: none is offered either, on any run.
    assert rows[0]["fix"] is None
    assert "fixable" not in out and path.read_bytes() == data
    assert "fixable" not in fix(capsys, str(path))


def test_stubs_are_checked_in_folder_walks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.pyi").write_text("import jax\n\n" + LOOP)
    _, rows = run_json(capsys, str(tmp_path))
    assert [(Path(r["filename"]).name, r["code"]) for r in rows] == [("m.pyi", "JC104")]


def _sleep(seconds: float) -> str:
    time.sleep(seconds)  # wall-clock time, no CPU
    return "done"


def _spin(seconds: float) -> str:
    start = time.process_time()
    while time.process_time() - start < seconds:  # CPU time
        pass
    return "done"


def test_the_file_timeout_counts_cpu_time_not_the_wall_clock() -> None:
    """A check waiting (as under a loaded machine) is not out of time; one computing past the limit is."""
    # The first item takes the fresh worker's start (a forked child copying pages it touches costs CPU time).
    slept = dict(Pool(_sleep, 1, timeout=0.5).run([0.0, 1.5]))
    assert slept == {0: "done", 1: "done"}
    spun = dict(Pool(_spin, 1, timeout=0.5).run([0.0, 2.0]))
    assert isinstance(spun[1], Failure) and spun[1].timed_out and "of CPU time" in spun[1].reason


# Notebooks.

def code(source: list[str] | str) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": source}


def notebook(*cells: dict[str, Any], metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"}} if metadata is None else metadata
    return {"cells": list(cells), "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def write(tmp_path: Path, data: dict[str, Any], name: str = "nb.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def placed(rows: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    return [(r["code"], r["cell"], r["location"]["row"]) for r in rows]


CELL_LOOP = ["for i in range(3):\n", "    jax.jit(lambda x: x + 1)(i)\n"]


@pytest.mark.parametrize("char", ["\x0c", "\u2028", "\x85"])
def test_a_notebook_cell_is_cut_into_pythons_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str) -> None:
    write(tmp_path, notebook(code(["import jax\n", f"S = 'a{char}b'\n", *CELL_LOOP])))
    _, rows = run_json(capsys, str(tmp_path))
    assert placed(rows) == [("JC104", 1, 4)]


def test_cell_magics_whose_body_is_python_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, notebook(code("import jax"), code(["%%time\n", *CELL_LOOP]), code(["%%capture out\n", *CELL_LOOP]),
                             code(["%%bash\n", *CELL_LOOP]), code(["%%html\n", "<b>for i in range(3):</b>\n"])))
    _, rows = run_json(capsys, str(tmp_path))
    assert placed(rows) == [("JC104", 2, 3), ("JC104", 3, 3)]


def test_a_shell_line_continued_by_a_backslash_is_skipped_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, notebook(code(["import jax\n", "!echo a \\\n", "    b\n", *CELL_LOOP])))
    _, rows = run_json(capsys, str(tmp_path))
    assert placed(rows) == [("JC104", 1, 5)]


def test_a_notebook_in_another_language_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r_kernel = {"kernelspec": {"name": "ir", "display_name": "R", "language": "R"}}
    write(tmp_path, notebook(code(["x <- c(1, 2)\n", "for (i in x) { print(i) }\n"]), metadata=r_kernel))
    status, rows = run_json(capsys, str(tmp_path))
    assert rows == [] and status == 0


def test_a_crlf_cell_stays_crlf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cell = ["import jax\r\n", "\r\n", "for i in range(3):\r\n", "    jax.jit(lambda x: x + 1)(i)\r\n", "print(1)"]
    path = write(tmp_path, notebook(code(cell)))
    assert "1 fixed" in fix(capsys, str(path))
    source = json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"]
    assert "lambda x" not in "".join(source)
    assert all(line.endswith("\r\n") for line in source[:-1]) and source[-1] == "print(1)"
