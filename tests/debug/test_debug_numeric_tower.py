"""beartype in debug mode accepts what Python accepts: an int for a float (PEP 484's numeric tower); the user's conf wins."""

from __future__ import annotations

from pathlib import Path

from tests.debug.conftest import RunPython

_MODULE = """
def scale(x: float, factor: float) -> float:
    return x * factor


def as_complex(z: complex) -> complex:
    return z


RESULT = scale(3, 2)          # ints for floats: fine in Python, mypy and jax
Z = as_complex(1.5)
"""


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "tower_pkg"
    package.mkdir()
    (package / "__init__.py").write_text(_MODULE)
    return package


def test_an_int_for_a_float_passes_in_debug_mode(run_python: RunPython, tmp_path: Path) -> None:
    _package(tmp_path)
    done = run_python(
        "-c",
        "import jitcheck.debug as d; d.enable(packages=['tower_pkg']); import tower_pkg; print(tower_pkg.RESULT, tower_pkg.Z)",
        env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["6", "1.5"]


def test_a_str_for_a_float_is_still_refused(run_python: RunPython, tmp_path: Path) -> None:
    package = _package(tmp_path)
    (package / "__init__.py").write_text(_MODULE + "\nBAD = scale('3', 2)\n")
    done = run_python(
        "-c",
        "import jitcheck.debug as d; d.enable(packages=['tower_pkg']); import tower_pkg",
        env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"},
    )
    assert done.returncode != 0 and "Beartype" in done.stderr


def test_the_users_own_conf_wins(run_python: RunPython, tmp_path: Path) -> None:
    _package(tmp_path)
    done = run_python(
        "-c",
        "from beartype import BeartypeConf; import jitcheck.debug as d; "
        "d.enable(packages=['tower_pkg'], conf=BeartypeConf()); import tower_pkg",
        env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"},
    )
    assert done.returncode != 0
    assert "scale()" in done.stderr and "int 3" in done.stderr  # beartype's strict default, chosen by the user
