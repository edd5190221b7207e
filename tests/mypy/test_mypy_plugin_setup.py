"""Never silent: each set-up in which the plugin could judge nothing is refused with its real cause, and
``plugins = ["jitcheck.mypy"]`` loads the same plugin under a name no project shadows.

Each test runs the real ``mypy`` in a new process, in a folder of its own, the way a user's
project runs it (``python -m mypy`` there: the folder first on the path): the plugin is
imported from this checkout (put on the plugin's ``sys.path`` after the folder, not on
PYTHONPATH, which mypy would also hand to the interpreter it searches).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mypy.harness import ROOT

APP = '''\
import dataclasses

from jitcheck import NodeDefinition


@dataclasses.dataclass(frozen=True)
class Layer:
    widths: list[int]


def dense(x: int) -> int:
    return x


short = NodeDefinition(dense, ("x",), ("y",), settings={"layer": Layer([1])})
long = NodeDefinition(dense, ("x",), ("y",), settings={"the_widths_of_every_layer_of_this_rather_large_model": Layer([1])})
shown = NodeDefinition(dense, ("x",), ("y",), settings={"sizes": [3, 4]})
'''
FAST = """
[mypy-jax.*]
follow_imports = skip
[mypy-jaxlib.*]
follow_imports = skip
[mypy-numpy.*]
follow_imports = skip
"""
SETUP = 'error: jitcheck\'s mypy plugin is enabled, but'


def mypy(folder: Path, *args: str, config: str | None = "", config_file: str = "mypy.ini") -> subprocess.CompletedProcess[str]:
    """``mypy app.py`` in ``folder`` reading ``config_file`` (written from ``config`` unless that is None)."""
    (folder / "app.py").write_text(APP)
    if config is not None:
        (folder / config_file).write_text(config)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # As `python -m mypy` run in the folder: the folder first on the path, then this checkout.
    runner = f"import sys; sys.path.insert(1, {str(ROOT)!r}); from mypy.main import main; main()"
    return subprocess.run([sys.executable, "-c", runner, "--no-incremental", "--no-error-summary", "--show-error-codes",
                           "--config-file", config_file, *args, "app.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def ini(plugin: str = "mypy_plugin", *extra: str) -> str:
    return "\n".join(["[mypy]", f"plugins = {plugin}", f"mypy_path = {ROOT}", *extra, FAST])


@pytest.mark.parametrize("where", ["global", "override"])
def test_follow_imports_skip_is_named_not_a_silent_success(tmp_path: Path, where: str) -> None:
    config = ini("mypy_plugin", "follow_imports = skip") if where == "global" else \
        ini("mypy_plugin") + "\n[mypy-jitcheck.*]\nfollow_imports = skip\n"
    done = mypy(tmp_path, config=config)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f'app.py:3: {SETUP} follow_imports = "skip"' in done.stdout
    assert ("globally" if where == "global" else 'section for "jitcheck"') in done.stdout
    assert "editable" not in done.stdout and "Success" not in done.stdout


def _venv(folder: Path, *reaches: Path) -> Path:
    """A new venv's python whose site-packages reach ``reaches`` (through a .pth file)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    if reaches:
        purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 check=True, capture_output=True, text=True, env={}).stdout.strip()
        Path(purelib, "reach.pth").write_text("".join(f"{path}\n" for path in reaches))
    return python


def test_no_site_packages_is_named_as_the_cause(tmp_path: Path) -> None:
    python = _venv(tmp_path / "venv", ROOT)  # jitcheck reachable through that python's site-packages only
    config = "\n".join(["[mypy]", "plugins = mypy_plugin", f"python_executable = {python}", FAST])
    found = mypy(tmp_path, config=config)
    assert SETUP not in found.stdout, found.stdout  # installed (editable, compat or this checkout's): found
    done = mypy(tmp_path, "--no-site-packages", config=config)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"app.py:3: {SETUP} mypy cannot find" in done.stdout and "--no-site-packages" in done.stdout
    assert "editable" not in done.stdout


def test_a_python_executable_without_jitcheck_is_named_as_the_cause(tmp_path: Path) -> None:
    python = _venv(tmp_path / "other-venv")
    config = "\n".join(["[mypy]", "plugins = mypy_plugin", f"python_executable = {python}", FAST])
    done = mypy(tmp_path, config=config)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"app.py:3: {SETUP} mypy cannot find" in done.stdout
    assert f"python_executable = {python}" in done.stdout and "editable" not in done.stdout


@pytest.mark.parametrize("plugin", ["jitcheck.mypy", "mypy_plugin"])
def test_either_entry_loads_the_plugin_and_the_error_line_names_the_part_at_fault(tmp_path: Path, plugin: str) -> None:
    done = mypy(tmp_path, config=ini(plugin))
    lines = {int(line.split(":")[1]): line for line in done.stdout.splitlines() if ": error: " in line}
    assert done.returncode == 1 and sorted(lines) == [15, 16, 17], done.stdout + done.stderr
    assert 'field "widths" of "Layer"' in lines[15]
    assert len(lines[16].split("  [")[0]) > 150 - len("app.py:16: error: ")  # too long to spell the type: the field stays
    assert lines[16].endswith('cannot be a jit cache key: field "widths" of "Layer" is a list  [jitcheck-setting]')
    assert lines[17].endswith('cannot be a jit cache key: it is a list  [jitcheck-setting]'), lines[17]
    assert "list[Any]" not in done.stdout


@pytest.mark.parametrize(("files", "unread", "read"), [
    ({"mypy.ini": "", "pyproject.toml": '[tool.jitcheck.mypy]\nignore = ["JC105"]\n'},
     "pyproject.toml: [tool.jitcheck.mypy]: never read", "[mypy.plugins.jitcheck]"),
    ({"mypy.ini": "\n[mypy.plugins.jitchek]\nignore = JC105\n"}, "mypy.ini: [mypy.plugins.jitchek]: never read",
     "[mypy.plugins.jitcheck]"),
    ({"pyproject.toml": '[tool.jitcheck.mypi]\nignore = ["JC105"]\n'}, "pyproject.toml: [tool.jitcheck.mypi]: never read",
     "[tool.jitcheck.mypy]"),
], ids=["toml-beside-ini", "ini-misspelled", "toml-misspelled"])
def test_options_that_are_never_read_are_named_once_with_the_table_that_is(
        tmp_path: Path, files: dict[str, str], unread: str, read: str) -> None:
    main = "pyproject.toml" if "mypy.ini" not in files else "mypy.ini"
    base = ini() if main == "mypy.ini" else \
        f'[tool.mypy]\nplugins = ["mypy_plugin"]\nmypy_path = "{ROOT}"\n' + "".join(
            f'[[tool.mypy.overrides]]\nmodule = ["{m}.*"]\nfollow_imports = "skip"\n' for m in ("jax", "jaxlib", "numpy"))
    for name, text in files.items():
        (tmp_path / name).write_text(base + text if name == main else text)
    done = mypy(tmp_path, config=None, config_file=main)
    assert done.stderr.count(unread) == 1, done.stderr
    assert read in done.stderr.split(unread)[1].split("\n")[0]
    assert done.returncode == 1 and "jitcheck-setting" in done.stdout  # the run itself goes on


def test_a_projects_own_mypy_plugin_shadows_the_plugin_and_jitcheck_doctor_names_it(tmp_path: Path) -> None:
    (tmp_path / "mypy_plugin.py").write_text("from mypy.plugin import Plugin\n\n\ndef plugin(version):\n    return Plugin\n")
    shadowed = mypy(tmp_path, config=ini("mypy_plugin"))
    assert "jitcheck-" not in shadowed.stdout and "dict-item" in shadowed.stdout  # mypy ran; jitcheck silent
    named = mypy(tmp_path, config=ini("jitcheck.mypy"))
    assert named.returncode == 1 and "jitcheck-setting" in named.stdout  # the unambiguous entry is not shadowed
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    doctor = subprocess.run([sys.executable, "-m", "jitcheck", "doctor", str(tmp_path)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert f"{tmp_path / 'mypy_plugin.py'}: shadows jitcheck's mypy plugin" in doctor.stdout
    assert 'plugins = ["jitcheck.mypy"]' in doctor.stdout
    (tmp_path / "mypy_plugin.py").unlink()
    clean = subprocess.run([sys.executable, "-m", "jitcheck", "doctor", str(tmp_path)], capture_output=True, text=True,
                           env=env, timeout=120)
    assert clean.returncode == 0 and "mypy_plugin is jitcheck's" in clean.stdout, clean.stdout + clean.stderr
