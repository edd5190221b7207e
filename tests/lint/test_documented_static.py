"""Claims of docs/static.md that had no test: the other wrappers, the command-line and
pyproject options, and the JC202 / JC103 fixes. jax judges the fixes' advice."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from jitcheck.lint.check import Settings, check_source, check_text
from jitcheck.lint.cli import main


def findings(source: str, **options: object) -> list[tuple[int, str]]:
    """(line, code) of every finding in ``source``."""
    return [(f.line, f.code) for f in check_source(textwrap.dedent(source), "module.py", **options)]  # type: ignore[arg-type]


# --- the wrappers named in "How names are found" and "Transformations" -----------------


def test_pjit_keys_on_the_function_like_jax_jit() -> None:
    source = """\
    import jax
    from jax.experimental.pjit import pjit
    from jax.experimental.pjit import pjit as compile_sharded

    def scale(x):
        return x * 2

    def run(x):
        a = pjit(lambda v: v)(x)
        b = compile_sharded(lambda v: v)(x)
        c = pjit(scale)(x)
        return a, b, c
    """
    assert findings(source) == [(9, "JC104"), (10, "JC104")]


def test_pmap_static_broadcasted_argnums_are_static_positions() -> None:
    source = """\
    import jax

    def scale(x, n):
        return x * len(n)

    step = jax.pmap(scale, static_broadcasted_argnums=(1,))

    def run(x):
        a = step(x, [1, 2])
        b = step(x, (1, 2))
        c = jax.pmap(scale, static_broadcasted_argnums=1)(x, {1, 2})
        d = jax.pmap(scale)(x, [1, 2])
        return a, b, c, d
    """
    # the list and set at a static position are found; a tuple there, or a list at a
    # traced position (no static_broadcasted_argnums), is not a static value
    assert findings(source) == [(9, "JC202"), (11, "JC202")]


def test_shard_map_is_looked_through_to_the_callable_inside() -> None:
    source = """\
    import jax
    from jax.experimental.shard_map import shard_map

    def body(x):
        return x

    def run(x, mesh, spec):
        a = jax.jit(shard_map(lambda v: v, mesh=mesh, in_specs=spec, out_specs=spec))(x)
        b = jax.jit(shard_map(body, mesh=mesh, in_specs=spec, out_specs=spec))(x)
        return a, b
    """
    found = check_source(textwrap.dedent(source), "module.py")
    assert [(f.line, f.code) for f in found] == [(8, "JC104"), (9, "JC701")]
    assert "`shard_map`" in found[0].message and "built anew each time" in found[0].message
    assert found[0].fix is None  # fixed alone, the lambda would still be wrapped anew each time


def test_functools_update_wrapper_returns_the_wrapper_itself() -> None:
    source = """\
    import functools
    import jax

    def scale(x):
        return x * 2

    def forward(x):
        return scale(x)

    def run(x):
        def inner(v):
            return scale(v)

        a = jax.jit(functools.update_wrapper(inner, scale))(x)
        b = jax.jit(functools.update_wrapper(forward, scale))(x)
        return a, b
    """
    found = check_source(textwrap.dedent(source), "module.py")
    # update_wrapper(g, f) returns g: the nested g is rebuilt per call, the module-level one is not
    assert [(f.line, f.code) for f in found] == [(14, "JC105")]
    assert "`functools.update_wrapper`" in found[0].message


# --- the command line and [tool.jitcheck] ----------------------------------------------

LAMBDA_AND_LIST = """\
import jax


def scale(x, n):
    return x * len(n)


step = jax.jit(scale, static_argnums=1)


def run(x):
    a = jax.jit(lambda v: v)(x)
    return step(a, [1, 2])


for i in range(3):
    run(i)
"""

CUSTOM_WRAPPER = """\
from mylib import compile


def scale(x, n):
    return x * len(n)


step = compile(scale, static_argnums=1)


def run(x):
    return step(x, [1, 2])
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def codes_from_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    """The exit status and the codes reported, in order, by ``jitcheck <argv> --no-cache -q``."""
    capsys.readouterr()
    status = main([*argv, "--no-cache", "--quiet"])
    out = capsys.readouterr().out
    reported = [line.split()[1] for line in out.splitlines() if ": JC" in line]
    return status, reported


def test_ignore_and_extend_select_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "pyproject.toml", '[tool.jitcheck]\nselect = ["JC104"]\n')
    path = write(tmp_path, "m.py", LAMBDA_AND_LIST)
    assert codes_from_cli(capsys, str(path)) == (1, ["JC104"])
    assert codes_from_cli(capsys, str(path), "--extend-select", "JC202") == (1, ["JC104", "JC202"])
    assert codes_from_cli(capsys, str(path), "--extend-select", "mutable-container-static", "--ignore", "JC104") == (1, ["JC202"])
    assert codes_from_cli(capsys, str(path), "--ignore", "JC1") == (0, [])


def test_config_names_the_pyproject_to_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "project", "m.py", LAMBDA_AND_LIST)
    write(tmp_path / "project", "pyproject.toml", '[tool.jitcheck]\nselect = ["ALL"]\n')
    other = write(tmp_path / "elsewhere", "pyproject.toml", '[tool.jitcheck]\nignore = ["JC202"]\n')
    assert codes_from_cli(capsys, str(path)) == (1, ["JC104", "JC202"])
    assert codes_from_cli(capsys, str(path), "--config", str(other)) == (1, ["JC104"])
    missing = tmp_path / "nowhere" / "pyproject.toml"
    capsys.readouterr()
    assert main([str(path), "--no-cache", "--config", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err


def test_exclude_on_the_command_line_and_in_pyproject(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "pyproject.toml", '[tool.jitcheck]\nexclude = ["generated/"]\n')
    write(tmp_path, "generated/made.py", LAMBDA_AND_LIST)
    write(tmp_path, "src/kept.py", LAMBDA_AND_LIST)
    write(tmp_path, "src/old.py", LAMBDA_AND_LIST)
    capsys.readouterr()
    assert main([str(tmp_path), "--no-cache", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "kept.py" in out and "old.py" in out and "made.py" not in out
    assert main([str(tmp_path), "--no-cache", "--quiet", "--exclude", "src/old.py"]) == 1
    out = capsys.readouterr().out
    assert "kept.py" in out and "old.py" not in out and "made.py" not in out


def test_jit_wrappers_key_in_pyproject(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "m.py", CUSTOM_WRAPPER)
    write(tmp_path, "pyproject.toml", "[tool.jitcheck]\n")
    assert codes_from_cli(capsys, str(path)) == (0, [])
    write(tmp_path, "pyproject.toml", '[tool.jitcheck]\njit-wrappers = ["mylib.compile"]\n')
    assert codes_from_cli(capsys, str(path)) == (1, ["JC202"])


# --- the fixes table --------------------------------------------------------------------

SET_STATIC = """\
import jax

TRACES = []


def count(x, names):
    TRACES.append(names)
    return x * len(names)


step = jax.jit(count, static_argnums=1)


def run(x):
    return step(x, {"a", "b"})
"""


def test_jc202_set_literal_becomes_a_frozenset_as_an_unsafe_fix() -> None:
    safe = check_text(SET_STATIC, "m.py", Settings(fix="safe", select=frozenset({"JC202"})))
    assert safe.fixed_source is None  # an unsafe fix needs --unsafe-fixes
    unsafe = check_text(SET_STATIC, "m.py", Settings(fix="unsafe", select=frozenset({"JC202"})))
    assert unsafe.fixed_source == SET_STATIC.replace('{"a", "b"}', 'frozenset({"a", "b"})')
    assert unsafe.findings == ()
    # jax judges: the set is refused as a static argument, the frozenset is one cache key
    import jax.numpy as jnp

    before: dict[str, Any] = {}
    exec(compile(SET_STATIC, "before.py", "exec"), before)
    with pytest.raises((TypeError, ValueError), match="unhashable|hashable"):
        before["run"](jnp.float32(1.0))
    after: dict[str, Any] = {}
    exec(compile(unsafe.fixed_source, "after.py", "exec"), after)
    for _ in range(3):
        assert float(after["run"](jnp.float32(1.0))) == 2.0
    assert len(after["TRACES"]) == 1


PARTIALS = """\
import jax
import jax.numpy as jnp
from jax.tree_util import Partial


def scale(x, factor):
    return x * factor


def apply(f, x):
    return f(x)


step = jax.jit(apply, static_argnums=0)


def run(x, factor):
    a = step(Partial(scale, 2.0), x)
    b = step(Partial(scale, factor), x)
    c = step(Partial(scale, jnp.ones(3)), x)
    return a, b, c


for i in range(3):
    run(i, 2.0)
"""


def test_jc103_fix_is_safe_for_static_arguments_unsafe_for_unknown_ones_and_absent_for_arrays() -> None:
    found = {f.line: f for f in check_source(PARTIALS, "m.py")}
    assert {line: f.code for line, f in found.items()} == {18: "JC103", 19: "JC103", 20: "JC103"}
    assert found[18].fix == "safe"
    assert found[19].fix == "unsafe"
    assert found[20].fix is None
    assert "pass array arguments as traced inputs" in found[20].help
    safe = check_text(PARTIALS, "m.py", Settings(fix="safe", select=frozenset({"JC103"})))
    assert safe.fixed_count == 1
    assert safe.fixed_source is not None and "step(ValuePartial(scale, 2.0), x)" in safe.fixed_source
    assert "step(Partial(scale, factor), x)" in safe.fixed_source
    unsafe = check_text(PARTIALS, "m.py", Settings(fix="unsafe", select=frozenset({"JC103"})))
    assert unsafe.fixed_count == 2
    assert unsafe.fixed_source is not None and "step(ValuePartial(scale, factor), x)" in unsafe.fixed_source
    assert "step(Partial(scale, jnp.ones(3)), x)" in unsafe.fixed_source
    (left,) = unsafe.findings  # the array one, now a line lower (the import was added)
    assert left.code == "JC103" and "jnp.ones(3)" in unsafe.fixed_source.splitlines()[left.line - 1]
