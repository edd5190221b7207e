"""The plugin's advice on ``jax.pmap`` static arguments, judged by mypy and then by jax.

A function decorated with ``functools.partial(jax.pmap, static_broadcasted_argnums=...)``
is called with a list, then with a mutable dataclass, in its static position: mypy
(with the plugin) reports each with its fix, and jax refuses each. Written as the fix
says (a tuple, ``@dataclass(frozen=True)``), mypy is silent and jax compiles once for
three calls.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.lint.test_help_compiles import Compiles, compiles  # noqa: F401 (compiles: the fixture)
from tests.mypy.conftest import REPOSITORY_OPTIONS
from tests.mypy.harness import run_mypy

MODULE = """\
import dataclasses
import functools

import jax
import jax.numpy as jnp


@dataclasses.dataclass{frozen}
class Config:
    width: int


@functools.partial(jax.pmap, axis_name="batch", static_broadcasted_argnums=(1,))
def step(x: jax.Array, setting: object) -> jax.Array:
    return x


def run() -> None:
    x = jnp.ones((jax.local_device_count(), 3))
    for _ in range(3):
        step(x, {value})
"""

CASES = {
    # rule: (the bad value, the fixed value, the frozen decorator arguments, a phrase of the fix)
    "JC202": ("[64, 64]", "(64, 64)", "", "a tuple instead of a list"),
    "JC203": ("Config(64)", "Config(64)", "(frozen=True)", '"@dataclass(frozen=True)"'),
}


def _mypy_notes(path: Path, cache: Path) -> tuple[list[str], list[str]]:
    """(error lines, note lines) mypy reports for ``path`` with the repository's config (plugin on)."""
    report = run_mypy([*REPOSITORY_OPTIONS.split(), "--cache-dir", str(cache), str(path)])
    assert report.status in (0, 1), report.stdout + report.stderr
    errors = [f"{m.message} [{m.code}]" for m in report.messages if m.severity == "error"]
    notes = [m.message for m in report.messages if m.severity == "note"]
    return errors, notes


def _run(path: Path, counter: Compiles) -> int:
    """jax's compiles during one ``run()`` of the module at ``path`` (imported as a module: dataclasses need one)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
        counter.count = 0
        module.run()
    finally:
        del sys.modules[path.stem]
    return counter.count


@pytest.mark.parametrize("code", sorted(CASES))
def test_pmap_static_advice_is_what_jax_accepts(code: str, tmp_path: Path, mypy_cache: Path, compiles: Compiles) -> None:
    bad_value, fixed_value, frozen, phrase = CASES[code]
    bad = MODULE.format(frozen="", value=bad_value)
    fixed = MODULE.format(frozen=frozen, value=fixed_value)
    (tmp_path / "bad_case.py").write_text(bad)
    (tmp_path / "fixed_case.py").write_text(fixed)

    errors, notes = _mypy_notes(tmp_path / "bad_case.py", mypy_cache)
    assert len(errors) == 1 and errors[0].endswith("[jitcheck-setting]") and '(jax.pmap)' in errors[0], errors
    assert any(n.startswith(f"{code} (") for n in notes), notes
    assert any(n.startswith("Fix: ") and phrase in n for n in notes), notes
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        _run(tmp_path / "bad_case.py", compiles)

    assert _mypy_notes(tmp_path / "fixed_case.py", mypy_cache) == ([], [])
    assert _run(tmp_path / "fixed_case.py", compiles) == 1

