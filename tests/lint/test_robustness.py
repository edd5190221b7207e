"""The static pass never crashes and never stops on one file: crashes, hangs, limits, paths, permissions."""

from __future__ import annotations

import ctypes
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jitcheck.lint.cli import main
from jitcheck.lint.limits import expression_depth

BAD = "import jax\n\n\ndef run(x):\n    return jax.jit(lambda v: v * 2)(x)\n\n\nfor i in range(3):\n    run(i)\n"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]], str]:
    capsys.readouterr()
    status = main([*argv, "--no-cache", "--output-format", "json"])
    out = capsys.readouterr()
    return status, json.loads(out.out), out.err


def by_name(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {Path(str(r["filename"])).name: r for r in rows}


def test_a_worker_that_segfaults_costs_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 3,000 nested brackets overflow libcst's native parser's stack (SIGSEGV) when no depth limit stops them first.
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\nmax-expression-depth = 0\n")
    (tmp_path / "deep.py").write_text("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "other_bad.py").write_text(BAD)
    status, rows, _ = run_json(capsys, str(tmp_path), "--jobs", "2")
    found = by_name(rows)
    assert status == 1  # the exit status of findings, not of an internal error
    assert found["bad.py"]["code"] == found["other_bad.py"]["code"] == "JC104"
    assert found["deep.py"]["code"] == "JC000"
    assert "worker process died of SIGSEGV" in str(found["deep.py"]["message"])
    # Alone, with one job, the same: one finding, never a crash of the run.
    status, rows, _ = run_json(capsys, str(tmp_path / "deep.py"), "--jobs", "1")
    assert status == 1 and [r["code"] for r in rows] == ["JC000"]


def test_depth_limit_names_itself_and_is_configurable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "chain.py").write_text("def f():\n    pass\n\n\nx = " + " + ".join(["1"] * 4000) + "\n")
    (tmp_path / "deep.py").write_text("x = " + "(" * 1500 + "1" + ")" * 1500 + "\n")
    (tmp_path / "bad.py").write_text(BAD)
    status, rows, _ = run_json(capsys, str(tmp_path))
    found = by_name(rows)
    assert status == 1 and found["bad.py"]["code"] == "JC104"
    chain = found["chain.py"]
    assert chain["code"] == "JC000" and chain["location"] == {"row": 5, "column": 1}
    assert "over the limit of 1,000 (`max-expression-depth`)" in str(chain["message"])
    assert "max-expression-depth" in str(chain["help"])
    # Deeper than Python allows: Python's own error, where Python puts it.
    assert "too many nested parentheses" in str(found["deep.py"]["message"])
    assert found["deep.py"]["location"] == {"row": 1, "column": 205}
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\nmax-expression-depth = 5000\n")
    (tmp_path / "chain.py").write_text("x = " + " + ".join(["1"] * 1200) + "\n")
    status, rows, _ = run_json(capsys, str(tmp_path / "chain.py"))
    assert status == 0 and rows == []


def test_timeout_limit_stops_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A 60,000-element list takes libcst seconds; the limit is a hundredth of a second (a margin of hundreds).
    # The jit call makes the file one libcst must parse (a finding is possible).
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\nfile-timeout = 0.01\n")
    (tmp_path / "data.py").write_text("TABLE = [" + ", ".join(["1"] * 60000) + "]\n" + BAD)
    status, rows, _ = run_json(capsys, str(tmp_path / "data.py"))
    assert status == 1 and rows[0]["code"] == "JC000"
    assert "took longer than 0.01 s of CPU time, the limit (`file-timeout`)" in str(rows[0]["message"])
    assert "file-timeout" in str(rows[0]["help"])


def test_expression_depth_skips_strings_and_comments() -> None:
    assert expression_depth("s = '((((('  # ((((((\nt = '''\n+ + + +\n'''\n").depth <= 1
    assert expression_depth("x = [" + ", ".join(["-1"] * 5000) + "]\n").depth == 2
    assert expression_depth("a = 1\nb = " + " + ".join("x" * 50) + "\n") == expression_depth("b = " + " + ".join("x" * 50)).__class__(49, 2)


@pytest.mark.parametrize(
    ("source", "row", "column", "words"),
    [
        ('print "hello"\n', 1, 1, "Missing parentheses in call to 'print'"),
        ("if x:\n        a = 1\n\tb = 2\n", 3, 1, "inconsistent use of tabs and spaces"),
        ("x = 1\ndef f(:\n    pass\n", 2, 7, "invalid syntax"),
    ],
)
def test_syntax_errors_are_placed_where_python_places_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, row: int, column: int, words: str
) -> None:
    (tmp_path / "broken.py").write_text(source)
    status, rows, _ = run_json(capsys, str(tmp_path / "broken.py"))
    assert status == 1 and rows[0]["code"] == "JC000"
    assert rows[0]["location"] == {"row": row, "column": column}
    assert words in str(rows[0]["message"])
    try:
        compile(source, "broken.py", "exec")
    except SyntaxError as error:
        assert (error.lineno, error.offset) == (row, column)


def test_what_python_cannot_parse_libcst_judges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Python's ast reads a file first (to skip libcst where no rule can fire); where it cannot (here
    # Python 3.12's `type` statement, before 3.12), libcst's parser decides: it reads this file, and
    # the rules judge it as before.
    (tmp_path / "newer.py").write_text("type Batch = list[float]\n\n" + BAD)
    (tmp_path / "quiet.py").write_text("type Batch = list[float]\n\n\ndef scale(x):\n    return x * 2\n")
    status, rows, _ = run_json(capsys, str(tmp_path))
    assert status == 1 and [(Path(str(r["filename"])).name, r["code"]) for r in rows] == [("newer.py", "JC104")]


def test_empty_and_blank_files_are_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "blank.py").write_text("\n\n   \n")
    status, rows, _ = run_json(capsys, str(tmp_path))
    assert (status, rows) == (0, [])


def test_missing_paths_are_findings_and_the_rest_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    status, rows, _ = run_json(capsys, str(tmp_path / "nope.py"), str(tmp_path / "bad.py"), str(tmp_path / "gone"))
    found = by_name(rows)
    assert status == 1
    assert found["bad.py"]["code"] == "JC104"
    for name in ("nope.py", "gone"):
        assert found[name]["code"] == "JC000" and "no such file or folder" in str(found[name]["message"])


# Permissions: as root, drop the capabilities that let root read anything, for this thread (and the workers it forks).
_CAP_DAC = (1 << 1) | (1 << 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


@pytest.fixture
def permissions_apply() -> Iterator[None]:
    """File permissions bind this test even when it runs as root."""
    if os.geteuid() != 0:
        yield
        return
    if not sys.platform.startswith("linux"):
        pytest.skip("root elsewhere than Linux cannot drop its read-anything capabilities")
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = _Header(0x20080522, 0), (_Data * 2)()
    assert libc.capget(ctypes.byref(header), data) == 0
    saved = data[0].effective
    data[0].effective &= ~_CAP_DAC
    assert libc.capset(ctypes.byref(header), data) == 0
    try:
        yield
    finally:
        data[0].effective = saved
        libc.capset(ctypes.byref(header), data)


def test_unreadable_folders_and_files_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], permissions_apply: None
) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text(BAD)
    secret = tmp_path / "secret.py"
    secret.write_text(BAD)
    locked.chmod(0)
    secret.chmod(0)
    try:
        status, rows, err = run_json(capsys, str(tmp_path))
    finally:
        locked.chmod(0o755)
        secret.chmod(0o644)
    found = by_name(rows)
    assert status == 1 and "Traceback" not in err
    assert found["bad.py"]["code"] == "JC104"
    assert found["locked"]["code"] == "JC000" and "this folder cannot be read" in str(found["locked"]["message"])
    assert found["secret.py"]["code"] == "JC000" and "cannot be read" in str(found["secret.py"]["message"])


def test_unreadable_gitignore_and_pyproject_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], permissions_apply: None
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "bad.py").write_text(BAD)
    ignore = tmp_path / ".gitignore"
    ignore.write_text("bad.py\n")
    ignore.chmod(0)
    try:
        status, rows, err = run_json(capsys, str(tmp_path))
    finally:
        ignore.chmod(0o644)
    found = by_name(rows)
    assert status == 1 and "Traceback" not in err
    assert found[".gitignore"]["code"] == "JC000" and "cannot be read" in str(found[".gitignore"]["message"])
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.jitcheck]\n")
    pyproject.chmod(0)
    try:
        capsys.readouterr()
        status = main([str(tmp_path), "--no-cache"])
        err = capsys.readouterr().err
    finally:
        pyproject.chmod(0o644)
    assert status == 2 and "pyproject.toml: cannot read it" in err and "Traceback" not in err


def test_select_on_the_command_line_is_blamed_on_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\nselect = [\"JC1\"]\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    capsys.readouterr()
    assert main([str(tmp_path), "--select", "JC9", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "--select (command line): unknown rule selector 'JC9'" in err and "pyproject.toml" not in err


def test_cache_key_has_python_and_libcst_versions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    from jitcheck.lint import config as config_module

    versions = config_module.tool_versions()
    assert versions == {"python": sys.version, "libcst": metadata.version("libcst")}
    config = config_module.Config(root=tmp_path)
    before = config.fingerprint()
    monkeypatch.setattr(config_module, "tool_versions", lambda: {**versions, "libcst": "0.0.1"})
    assert config.fingerprint() != before
    monkeypatch.setattr(config_module, "tool_versions", lambda: {**versions, "python": "3.99.0"})
    assert config.fingerprint() != before


def test_two_trees_sharing_a_cache_folder_keep_each_others_entries(tmp_path: Path) -> None:
    from jitcheck.lint.cache import Cache
    from jitcheck.lint.config import Config
    from jitcheck.lint.runner import Options, run

    shared = tmp_path / "cache"
    trees = [tmp_path / "a", tmp_path / "b"]
    for number, tree in enumerate(trees):
        tree.mkdir()
        (tree / "m.py").write_text(BAD + f"\nVALUE = {number}\n")
    configs = [Config(root=tree, cache_dir=shared) for tree in trees]
    # Two runs that overlap: both load the cache before either saves.
    first, second = (Cache(shared, c.fingerprint()) for c in configs)
    first.put("from-a", [])
    second.put("from-b", [])
    first.save()
    second.save()
    assert {"from-a", "from-b"} <= set(Cache(shared, configs[0].fingerprint()).entries)
    # Whole runs, one tree after the other: each tree's second run is answered from the cache.
    for tree, config in zip(trees, configs):
        assert run([tree], config, Options(jobs=1), tree).analysed == 1
    for tree, config in zip(trees, configs):
        warm = run([tree], config, Options(jobs=1), tree)
        assert warm.analysed == 0 and [f.code for f in warm.findings] == ["JC104"]


LAMBDA_IN_LOOP = "import jax\n\ndef run(xs):\n    for x in xs:\n        jax.jit(lambda v: v)(x)\n"


def test_fix_never_writes_what_python_cannot_compile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # libcst parses both, Python's compiler refuses the first: a `from __future__` after code.
    late = tmp_path / "late_future.py"
    late.write_text("import os\nfrom __future__ import annotations\n" + LAMBDA_IN_LOOP)
    # A docstring made of two literals: the fix's `typing.Any` import must not land above the
    # `from __future__` line (found by the fuzz test); a fix that would not compile is refused.
    joined = tmp_path / "joined_docstring.py"
    joined.write_text('"a" "b"\nfrom __future__ import annotations\n' + LAMBDA_IN_LOOP)
    before = {p: p.read_bytes() for p in (late, joined)}
    capsys.readouterr()
    main([str(tmp_path), "--no-cache", "--fix", "--unsafe-fixes"])
    compile(before[joined], str(joined), "exec", dont_inherit=True)  # the joined docstring is valid Python
    for path, data in before.items():
        now = path.read_bytes()
        if now != data:
            compile(now, str(path), "exec", dont_inherit=True)  # raises if the fix broke the file
    assert late.read_bytes() == before[late]


@pytest.mark.parametrize(
    ("name", "label"),
    [("nul", '"a\x00b"'), ("bad_escape", '"\\N{NO SUCH CHARACTER}"')],
)
def test_a_literal_python_rejects_is_its_syntax_error_not_an_internal_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, label: str
) -> None:
    # libcst parses these; reading the label's value (found by the fuzz test) must give Python's own error.
    source = ("import jax.numpy as jnp\nfrom jitcheck import NodeDefinition\n\n\n"
              "def scale(x, factor):\n    return x * factor\n\n\n"
              "def build(w):\n"
              f"    return NodeDefinition(scale, ('x',), ('y',), {{{label}: jnp.ones(3)}})\n")
    (tmp_path / f"{name}.py").write_text(source)
    (tmp_path / "other.py").write_text(BAD)
    status, rows, _ = run_json(capsys, str(tmp_path))
    found = by_name(rows)
    assert status == 1
    assert found[f"{name}.py"]["code"] == "JC000"
    assert "internal error" not in str(found[f"{name}.py"]["message"])
    assert "does not parse" in str(found[f"{name}.py"]["message"])
    assert found["other.py"]["code"] != "JC000"  # the other file keeps its findings
