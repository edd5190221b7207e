"""Never silent: with setuptools' default editable install, mypy cannot find jitcheck; the plugin says so.

A real ``pip install -e`` (no dependencies, no build isolation: nothing downloaded)
of a copy of this checkout into a temporary venv that reuses this environment's
packages; mypy then runs outside the checkout with ``ignore_missing_imports``, where
it would otherwise report success on a bad label.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.checkout import copy_checkout

USER = '''\
import dataclasses

from jitcheck import JitGraph


@dataclasses.dataclass
class Loose:
    text: str


graph: JitGraph[Loose, str]
'''
CONFIG = """\
[tool.mypy]
plugins = ["mypy_plugin"]
ignore_missing_imports = true

[[tool.mypy.overrides]]
module = ["jax", "jax.*", "jaxlib.*", "numpy", "numpy.*", "beartype", "beartype.*", "libcst", "libcst.*"]
follow_imports = "skip"
"""


def _own_paths() -> dict[str, str]:
    """This environment without PYTHONPATH: the venv must find jitcheck only through what was installed into it."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def _venv(tmp_path: Path) -> Path:
    """A venv whose site-packages reach this environment's (mypy, jax, setuptools) through a .pth file."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _install(python: Path, source: Path, *extra: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-e", str(source), *extra],
        capture_output=True,
        text=True,
        check=False,
        env=_own_paths(),
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _mypy(python: Path, work: Path, cache: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "mypy", "--config-file", "pyproject.toml", "--cache-dir", cache, "user.py"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        env=_own_paths(),
    )


@pytest.mark.slow
def test_default_editable_install_is_refused_loudly_and_compat_mode_fixes_it(tmp_path: Path) -> None:
    source = copy_checkout(tmp_path / "jitcheck-src")
    work = tmp_path / "project"
    work.mkdir()
    (work / "user.py").write_text(USER)
    (work / "pyproject.toml").write_text(CONFIG)
    python = _venv(tmp_path)

    _install(python, source)
    refused = _mypy(python, work, str(tmp_path / "cache-default"))
    out = refused.stdout
    assert refused.returncode == 2, out + refused.stderr
    assert "Success" not in out
    assert out.count('mypy cannot find the "jitcheck" package') == 1, out
    assert f"user.py:3: error: jitcheck's mypy plugin is enabled" in out
    assert "editable_mode=compat" in out and f'mypy_path = "{source}"' in out

    _install(python, source, "--config-settings", "editable_mode=compat")
    fixed = _mypy(python, work, str(tmp_path / "cache-compat"))
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert 'user.py:11: error: "Loose" is not a valid Label of "JitGraph": it is not frozen  [jitcheck-label]' in fixed.stdout
