"""The ``jitcheck`` command: formats, configuration, exit codes, bad input, cache, subcommands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jitcheck import rules
from jitcheck.lint.cli import main

BAD = """\
import jax


def run(x):
    return jax.jit(lambda v: v * 2)(x)


for i in range(3):
    run(i)
"""

STATIC_LIST = """\
import jax


def scale(x, n):
    return x * len(n)


step = jax.jit(scale, static_argnums=1)


def run(x):
    return step(x, [1, 2])
"""


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_text_output_exit_codes_and_exit_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.py", BAD)
    good = write(tmp_path, "good.py", "import jax\n\n\ndef f(x):\n    return jax.jit(f)(x)\n")
    status, out, _ = run_cli(capsys, str(bad), "--no-cache")
    assert status == 1
    first, second = out.splitlines()[:2]
    assert first.startswith(f"{bad}:5:20: JC104 lambda used as the function jitted by `jax.jit` on every call of `run`")
    assert second == "  help: " + rules.LAMBDA.format_help()
    assert "Found 1 finding (1 fixable with `--fix`)." in out
    assert run_cli(capsys, str(good), "--no-cache")[0] == 0
    assert run_cli(capsys, str(bad), "--no-cache", "--exit-zero")[0] == 0
    status, out, _ = run_cli(capsys, str(tmp_path / "missing.py"), "--no-cache")
    assert status == 1 and "missing.py:1:1: JC000 could not check this file: no such file or folder" in out
    assert run_cli(capsys, str(bad), "--select", "JC999")[0] == 2
    assert run_cli(capsys, str(bad), "--unsafe-fixes")[0] == 2


def test_output_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.py", BAD)
    _, out, _ = run_cli(capsys, str(bad), "--no-cache", "--output-format", "json")
    [row] = json.loads(out)
    assert row["code"] == "JC104" and row["name"] == "lambda"
    assert row["location"] == {"row": 5, "column": 20} and row["noqa_row"] == 5
    # ruff's fields: an absolute filename, the rule's docs, the fix's message and its edits (which rebuild the fix).
    assert row["filename"] == str(bad.resolve()) and Path(row["filename"]).is_absolute()
    assert row["url"].startswith("file://") and row["url"].endswith("#jc104-lambda-a-lambda-used-as-a-cache-key")
    fix = row["fix"]
    assert fix["applicability"] == "safe" and fix["message"] == "Move the lambda to a module-level function"
    lines = BAD.splitlines(keepends=True)
    for edit in reversed(fix["edits"]):
        assert edit["location"]["column"] == edit["end_location"]["column"] == 1
        lines[edit["location"]["row"] - 1:edit["end_location"]["row"] - 1] = [edit["content"]]
    status, out, _ = run_cli(capsys, str(bad), "--no-cache", "--fix")
    assert "".join(lines) == bad.read_text() != BAD
    bad.write_text(BAD)
    _, out, _ = run_cli(capsys, str(bad), "--no-cache", "--output-format", "github")
    assert out.startswith(f"::error title=jitcheck (JC104),file={bad},line=5,col=20,endLine=5,endColumn=35::JC104 lambda used")
    _, out, _ = run_cli(capsys, str(bad), "--no-cache", "--output-format", "sarif")
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    result = sarif["runs"][0]["results"][0]
    assert result["ruleId"] == "JC104"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert "JC104" in {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == bad.resolve().as_uri()
    odd = write(tmp_path / "a folder", "hash#x é.py", BAD)
    _, out, _ = run_cli(capsys, str(odd), "--no-cache", "--output-format", "sarif")
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("/a%20folder/hash%23x%20%C3%A9.py") and " " not in uri and "#" not in uri


def test_statistics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "a.py", BAD)
    write(tmp_path, "b.py", BAD + STATIC_LIST.replace("import jax\n", ""))
    status, out, _ = run_cli(capsys, str(tmp_path), "--no-cache", "--statistics", "-q")
    assert status == 1
    assert out.splitlines() == ["2\tJC104\t[*] lambda", "1\tJC202\t[*] mutable-container-static"]


def test_pyproject_select_ignore_exclude_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "pkg/a.py", BAD)
    write(tmp_path, "pkg/b.py", STATIC_LIST)
    write(tmp_path, "vendor/c.py", BAD)
    write(tmp_path, "tests/test_d.py", STATIC_LIST)
    write(tmp_path, "pyproject.toml", "[tool.jitcheck]\n")

    def codes(*argv: str) -> list[tuple[str, str]]:
        _, out, _ = run_cli(capsys, str(tmp_path), "--no-cache", "--output-format", "json", *argv)
        return sorted((Path(r["filename"]).relative_to(tmp_path).as_posix(), r["code"]) for r in json.loads(out))

    everything = [("pkg/a.py", "JC104"), ("pkg/b.py", "JC202"), ("tests/test_d.py", "JC202"), ("vendor/c.py", "JC104")]
    assert codes() == everything
    write(tmp_path, "pyproject.toml", '[tool.jitcheck]\nselect = ["JC2"]\n')
    assert codes() == [("pkg/b.py", "JC202"), ("tests/test_d.py", "JC202")]
    write(tmp_path, "pyproject.toml", '[tool.jitcheck]\nignore = ["lambda"]\nexclude = ["vendor/"]\n'
                                      'per-file-ignores = { "tests/*" = ["JC202"] }\n')
    assert codes() == [("pkg/b.py", "JC202")]
    assert codes("--select", "JC104") == [("pkg/a.py", "JC104")]
    write(tmp_path, "pyproject.toml", '[tool.jitcheck]\nselecct = ["JC1"]\n')
    status, _, err = run_cli(capsys, str(tmp_path), "--no-cache")
    assert status == 2 and "unknown key(s) selecct" in err and "pyproject.toml" in err


def test_gitignore_is_respected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "build_out/\nskip_*.py\n")
    write(tmp_path, "sub/.gitignore", "local.py\n")
    write(tmp_path, "keep.py", BAD)
    write(tmp_path, "skip_me.py", BAD)
    write(tmp_path, "build_out/gen.py", BAD)
    write(tmp_path, "sub/local.py", BAD)
    write(tmp_path, "sub/other.py", BAD)

    def files(*argv: str) -> set[str]:
        _, out, _ = run_cli(capsys, str(tmp_path), "--no-cache", "--output-format", "json", *argv)
        return {Path(r["filename"]).relative_to(tmp_path).as_posix() for r in json.loads(out)}

    assert files() == {"keep.py", "sub/other.py"}
    assert files("--no-respect-gitignore") == {"keep.py", "skip_me.py", "build_out/gen.py", "sub/local.py", "sub/other.py"}
    # A file named on the command line is checked even when ignored.
    status, out, _ = run_cli(capsys, str(tmp_path / "skip_me.py"), "--no-cache")
    assert status == 1 and "JC104" in out


def test_bad_input_gets_jc000_and_the_run_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "good_bad.py", BAD)
    write(tmp_path, "syntax.py", "x = = 1\n")
    write(tmp_path, "latin.py", b"x = '\xe9'\n")
    write(tmp_path, "declared.py", b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")
    write(tmp_path, "empty.py", "")
    write(tmp_path, "blank.py", " \n\t\n")
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "huge.py", "x = 1\n" * 200)
    write(tmp_path, "pyproject.toml", "[tool.jitcheck]\nmax-file-size = 1000\n")
    os.symlink(tmp_path / "nowhere.py", tmp_path / "dangling.py")
    status, out, _ = run_cli(capsys, str(tmp_path), "--no-cache", "--output-format", "json")
    assert status == 1
    rows = {Path(r["filename"]).name: r for r in json.loads(out)}
    # An empty or whitespace-only module is valid Python: no JC000 (a real library's empty module must pass).
    assert set(rows) == {"good_bad.py", "syntax.py", "latin.py", "huge.py", "dangling.py"}
    assert rows["good_bad.py"]["code"] == "JC104"
    for name in ("syntax.py", "latin.py", "huge.py", "dangling.py"):
        assert rows[name]["code"] == "JC000", name
    assert "does not parse" in rows["syntax.py"]["message"] and rows["syntax.py"]["location"]["row"] == 1
    assert "not valid UTF-8 (byte 0xe9 at line 1, column 6)" in rows["latin.py"]["message"]
    assert "over the limit of 1,000" in rows["huge.py"]["message"] and "max-file-size" in rows["huge.py"]["help"]
    assert "broken symbolic link" in rows["dangling.py"]["message"]


def test_cache_makes_a_second_run_skip_analysis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    write(tmp_path, "pyproject.toml", "[tool.jitcheck]\n")
    for i in range(5):
        write(tmp_path, f"m{i}.py", BAD if i % 2 else STATIC_LIST)
    config = config_module.load(tmp_path)
    cold = run([tmp_path], config, Options(jobs=1), tmp_path)
    warm = run([tmp_path], config, Options(jobs=1), tmp_path)
    assert cold.analysed == 5 and warm.analysed == 0
    assert warm.findings == cold.findings and len(cold.findings) == 5
    assert (tmp_path / ".jitcheck_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    write(tmp_path, "m0.py", BAD + "# changed\n")  # new content: checked again
    again = run([tmp_path], config, Options(jobs=1), tmp_path)
    assert again.analysed == 1
    assert sorted(f.code for f in again.findings) == ["JC104"] * 3 + ["JC202"] * 2
    other = config_module.load(tmp_path, select=["JC104"])
    assert run([tmp_path], other, Options(jobs=1), tmp_path).analysed == 0  # select is applied after the cache
    uncached = run([tmp_path], config, Options(jobs=1, use_cache=False), tmp_path)
    assert uncached.analysed == 5


def test_cache_is_keyed_on_the_analysis_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    sources = [write(tmp_path / "src", name, "x = 1\n") for name in ("analysis.py", "rules.py")]
    before = config_module.source_digest(sources)
    sources[0].write_text("x = 2\n")
    assert config_module.source_digest(sources) != before  # an edited rule module: a new digest
    assert config_module.source_digest([tmp_path / "missing.py"]) == ""
    project = tmp_path / "project"
    write(project, "pyproject.toml", "[tool.jitcheck]\n")
    write(project, "m.py", BAD)
    config = config_module.load(project)
    assert run([project], config, Options(jobs=1), project).analysed == 1
    assert run([project], config, Options(jobs=1), project).analysed == 0
    monkeypatch.setattr(config_module, "analysis_digest", lambda: "another analysis")
    assert run([project], config, Options(jobs=1), project).analysed == 1  # the old results are not served


def test_the_cache_key_covers_every_module_of_the_static_pass() -> None:
    """A rule edited in a subpackage (``jitcheck/lint/checks/``) must key the cache too, or an upgraded
    checkout would serve findings the old rule made."""
    import jitcheck.lint
    import jitcheck.rules
    from jitcheck.lint import config as config_module

    package = Path(jitcheck.lint.__file__).resolve().parent
    covered = set(config_module.analysis_sources())
    modules = set(package.rglob("*.py"))
    assert any(path.parent.name == "checks" for path in modules)
    assert modules <= covered and Path(jitcheck.rules.__file__).resolve() in covered


def test_parallel_run_matches_serial(tmp_path: Path) -> None:
    from jitcheck.lint import config as config_module
    from jitcheck.lint.runner import Options, run

    for i in range(8):
        write(tmp_path, f"m{i}.py", (BAD, STATIC_LIST, "x = 1\n", "def f(:\n")[i % 4])
    config = config_module.load(tmp_path)
    serial = run([tmp_path], config, Options(jobs=1, use_cache=False), tmp_path)
    parallel = run([tmp_path], config, Options(jobs=2, use_cache=False), tmp_path)
    assert parallel.findings == serial.findings and len(serial.findings) == 6


def test_fix_writes_atomically_keeping_mode_and_comments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = (
        "from functools import partial  # used below\n"
        "\n"
        "from jitcheck import NodeDefinition\n"
        "\n"
        "\n"
        "def scale(x, f):  # keep me\n"
        "    return x * f\n"
        "\n"
        "\n"
        "# the node\n"
        "node = NodeDefinition(\n"
        "    partial(scale, f=2),  # the body\n"
        "    inputs=('x',),   outputs=('y',),\n"
        ")\n"
    )
    path = write(tmp_path, "nodes.py", source)
    path.chmod(0o640)
    status, out, _ = run_cli(capsys, str(path), "--fix", "--no-cache")
    assert status == 0 and "Found 1 finding (1 fixed, 0 remaining)." in out
    text = path.read_text()
    # The import left unused keeps its comment, so it stays; everything else is byte for byte.
    assert text == source.replace("from jitcheck import NodeDefinition", "from jitcheck import ValuePartial, NodeDefinition").replace(
        "    partial(scale", "    ValuePartial(scale")
    assert "ValuePartial(scale, f=2),  # the body" in text
    assert "inputs=('x',),   outputs=('y',)" in text
    assert "# keep me" in text and "# the node" in text
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_fix_refused_when_the_result_would_be_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ValuePartial is a local name here: importing jitcheck's would shadow it, so no fix is offered.
    source = (
        "from functools import partial\n"
        "from jitcheck import NodeDefinition\n"
        "ValuePartial = 3\n"
        "node = NodeDefinition(partial(print, 1), inputs=('x',), outputs=('y',))\n"
    )
    path = write(tmp_path, "shadow.py", source)
    status, out, _ = run_cli(capsys, str(path), "--fix", "--no-cache")
    assert status == 1 and "JC102" in out
    assert path.read_text() == source


def test_rule_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "rule", "JC101")
    assert status == 0
    assert out.startswith("# JC101 `bound-method`: A bound method used as a cache key")
    assert "**Why is this bad?**" in out and "```python" in out
    assert run_cli(capsys, "rule", "lambda")[1].startswith("# JC104")
    status, _, err = run_cli(capsys, "rule", "JC999")
    assert status == 2 and "no jitcheck rule 'JC999'" in err


def test_debug_report_dispatches_lazily(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    calls: list[list[str]] = []
    fake = types.ModuleType("jitcheck.debug.report")
    fake.main = lambda argv: calls.append(argv) or 7  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jitcheck.debug.report", fake)
    assert main(["debug-report", "pkg.module", "--flag"]) == 7
    assert calls == [["pkg.module", "--flag"]]


def test_debug_report_missing_is_a_clear_error(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    real = importlib.import_module

    def refuse(name: str, *args: object) -> object:
        if name == "jitcheck.debug.report":
            raise ModuleNotFoundError("No module named 'jitcheck.debug'", name="jitcheck.debug")
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib, "import_module", refuse)
    status, _, err = run_cli(capsys, "debug-report", "x")
    assert status == 2 and "jitcheck.debug.report" in err and "not installed" in err


def test_python_dash_m_without_jax(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    """``python -m jitcheck`` runs end to end, and the command never imports jax."""
    write(tmp_path, "bad.py", BAD)
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['jitcheck', sys.argv[1], '--no-cache']\n"
        "try:\n"
        "    runpy.run_module('jitcheck', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    print('exit', e.code, 'jax' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, env=subprocess_env, timeout=900)
    assert "JC104" in done.stdout
    assert done.stdout.strip().endswith("exit 1 False"), done.stdout + done.stderr
    plain = subprocess.run([sys.executable, "-m", "jitcheck", str(tmp_path / "bad.py"), "--no-cache", "-q"],
                           capture_output=True, text=True, env=subprocess_env, timeout=900)
    assert plain.returncode == 1 and plain.stdout.count("JC104") == 1
    # Over a warm cache the command does not even import libcst.
    warm_probe = probe.replace("'--no-cache'", "'--cache-dir', sys.argv[2]").replace("'jax' in sys.modules", "'libcst' in sys.modules")
    cache = str(tmp_path / "cache")
    first = subprocess.run([sys.executable, "-c", warm_probe, str(tmp_path), cache], capture_output=True, text=True, env=subprocess_env, timeout=900)
    assert first.stdout.strip().endswith("exit 1 True"), first.stdout + first.stderr
    second = subprocess.run([sys.executable, "-c", warm_probe, str(tmp_path), cache], capture_output=True, text=True, env=subprocess_env, timeout=900)
    assert "JC104" in second.stdout and second.stdout.strip().endswith("exit 1 False"), second.stdout + second.stderr


def test_pre_commit_hook_definition(repo_root: Path) -> None:
    import yaml  # PyYAML comes with libcst

    hooks = yaml.safe_load((repo_root / ".pre-commit-hooks.yaml").read_text())
    by_id = {hook["id"]: hook for hook in hooks}
    assert by_id["jitcheck"]["entry"] == "jitcheck" and by_id["jitcheck"]["language"] == "python"
    assert by_id["jitcheck-fix"]["entry"] == "jitcheck --fix"
    assert all(hook["types_or"] == ["python"] for hook in hooks)


def test_a_single_file_is_judged_with_its_projects_index_as_the_folder_and_the_editor_do(tmp_path: Path) -> None:
    """pre-commit passes only the staged files: `jitcheck pkg/b.py` reports what `jitcheck pkg/` reports in b.py."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')  # a project root, no [tool.jitcheck]
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("import jax\n\n\ndef f(x, k):\n    return x * k\n\n\nstep = jax.jit(f, static_argnums=1)\n")
    (tmp_path / "pkg" / "b.py").write_text("from pkg.a import step\n\n\ndef run(x):\n    return step(x, [1, 2])\n")

    def jitcheck(*args: str, cwd: Path = tmp_path) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "jitcheck", *args], cwd=cwd,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 1), done.stdout + done.stderr
        return [line for line in done.stdout.splitlines() if "JC" in line]

    folder = [line for line in jitcheck("pkg/") if line.startswith("pkg/b.py")]
    assert len(folder) == 1 and "JC202" in folder[0]
    assert jitcheck("pkg/b.py") == folder
    kept = [json.loads(f.read_text()) for f in tmp_path.glob("**/.jitcheck_cache/index/*.json")]
    assert any('"jit": {"nums": [1]' in json.dumps(entries) for entries in kept), kept  # a.py's summary kept for the next run
    assert jitcheck("pkg/b.py", "--no-cache") == folder
    assert jitcheck("b.py", cwd=tmp_path / "pkg") == [line.removeprefix("pkg/") for line in folder]
