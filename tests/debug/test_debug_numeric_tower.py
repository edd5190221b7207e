"""beartype in debug mode accepts what Python accepts: an int for a float (PEP 484's numeric tower); the user's conf wins.

One fresh interpreter holds three packages: one under debug mode's default
configuration, one whose module passes a str for a float (still refused), and one
hooked with the user's own strict ``BeartypeConf()`` (beartype's default, no tower).
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.debug.conftest import ROOT, RunPython

_MODULE = """
def scale(x: float, factor: float) -> float:
    return x * factor


def as_complex(z: complex) -> complex:
    return z


RESULT = scale(3, 2)          # ints for floats: fine in Python, mypy and jax
Z = as_complex(1.5)
"""

_CHILD = """
from beartype import BeartypeConf
import jitcheck.debug as d
from jitcheck.debug.hook import install_import_hook

d.enable(packages=["tower_pkg", "tower_str_pkg"])
install_import_hook("tower_strict_pkg", conf=BeartypeConf())
import tower_pkg
print("default:", tower_pkg.RESULT, tower_pkg.Z)
for name in ("tower_str_pkg", "tower_strict_pkg"):
    try:
        __import__(name)
        print(name, "imported")
    except Exception as error:
        print(name, "refused:", type(error).__name__, " ".join(str(error).split())[:200])
"""


def test_an_int_passes_for_a_float_unless_the_users_conf_says_otherwise(run_python: RunPython, tmp_path: Path) -> None:
    for name, extra in (("tower_pkg", ""), ("tower_str_pkg", "\nBAD = scale('3', 2)\n"), ("tower_strict_pkg", "")):
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text(_MODULE + extra)
    done = run_python("-c", _CHILD, env={"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "default: 6 1.5"  # debug mode's default: PEP 484's tower, as Python
    assert lines[1].startswith("tower_str_pkg refused: BeartypeCallHintParamViolation")  # a str is still refused
    # the user's own BeartypeConf() (no tower) wins: the int is refused there
    assert lines[2].startswith("tower_strict_pkg refused: BeartypeCallHintParamViolation") and "int 3" in lines[2]
