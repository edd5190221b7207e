"""A fix is offered only when its result runs: the fixed programs here are executed, the refused ones say why not."""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from jitcheck.lint.check import check_text
from jitcheck.lint.cli import main
from jitcheck.lint.settings import Settings

ALL = frozenset({"JC101", "JC102", "JC103", "JC104", "JC105", "JC201", "JC202", "JC203", "JC204"})


def fixed(source: str, mode: str = "unsafe") -> tuple[str | None, list[tuple[str, str | None]]]:
    checked = check_text(textwrap.dedent(source), "m.py", Settings(fix=mode, select=ALL, preview=True))  # type: ignore[arg-type]
    findings = checked.unfixed if checked.fixed_source is not None else checked.findings
    return checked.fixed_source, [(f.code, f.fix) for f in findings]


def execute(source: str) -> dict[str, Any]:
    """Run a module's source as a real module (dataclasses look their module up in sys.modules)."""
    module = types.ModuleType("jitcheck_fixed_module")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, "fixed.py", "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return module.__dict__


MANGLED = """\
import jax


class Model:
    __SCALE = 3.0

    def run(self, x):
        return jax.jit(lambda v: v * Model.__SCALE)(x)


RESULT = float(Model().run(2.0))
"""


def test_a_lambda_with_a_mangled_name_stays_in_its_class() -> None:
    assert execute(MANGLED)["RESULT"] == 6.0
    new, findings = fixed(MANGLED)
    assert findings == [("JC104", None)]  # reported, but no fix: at module level `__SCALE` would not be mangled
    assert new is None
    plain = MANGLED.replace("Model.__SCALE", "Model.SCALE").replace("__SCALE = 3.0", "SCALE = 3.0")
    new, findings = fixed(plain)
    assert findings == [("JC104", "safe")] and new is not None and "jax.jit(_run_lambda)(x)" in new
    assert execute(new)["RESULT"] == 6.0


ARRAY_PARTIAL = """\
import functools
import jax
import jax.numpy as jnp


def scale(x, factor):
    return x * factor


def apply(x, fn):
    return fn(x)


step = jax.jit(apply, static_argnums=1)


def run(x, factor):
    return step(x, functools.partial(scale, factor={arg}))


RESULT = float(run(2.0, 3.0))
"""


@pytest.mark.parametrize(("arg", "applicability"), [("jnp.array(3.0)", None), ("factor", "unsafe"), ("3.0", "safe")])
def test_value_partial_is_safe_only_when_its_arguments_hash(arg: str, applicability: str | None) -> None:
    source = ARRAY_PARTIAL.format(arg=arg)
    assert execute(source)["RESULT"] == 6.0
    new, findings = fixed(source)
    assert findings == [("JC102", applicability)]
    if applicability == "safe":
        assert new is not None and "ValuePartial(scale, factor=3.0)" in new
        assert execute(new)["RESULT"] == 6.0
    if applicability is None:
        assert new is None  # ValuePartial(scale, factor=jnp.array(3.0)) would raise when jax hashes it


DATACLASS = """\
import dataclasses
import jax


{classes}


def scale(x, config):
    return x * config.width


step = jax.jit(scale, static_argnums=1)


def run(x):
    return step(x, Config(3)), step(x, Config(3))


RESULT = float(run(2.0)[0])
"""

PLAIN = "@dataclasses.dataclass\nclass Config:\n    width: int"
HIERARCHIES = {
    "base is a mutable dataclass": "@dataclasses.dataclass\nclass Base:\n    depth: int = 1\n\n\n"
                                   "@dataclasses.dataclass\nclass Config(Base):\n    width: int = 0",
    "subclass is a mutable dataclass": PLAIN + "\n\n\n@dataclasses.dataclass\nclass Wide(Config):\n    extra: int = 0",
    "__post_init__ assigns": PLAIN + "\n\n    def __post_init__(self):\n        self.width = int(self.width)",
    "base from another module": "from types import SimpleNamespace as Base\n\n\n"
                                "@dataclasses.dataclass\nclass Config(Base):\n    width: int = 0",
}


@pytest.mark.parametrize("name", sorted(HIERARCHIES))
def test_frozen_dataclass_fix_checks_the_hierarchy(name: str) -> None:
    source = DATACLASS.format(classes=HIERARCHIES[name])
    with pytest.raises(ValueError):
        execute(source)  # jax refuses the unhashable static argument: the finding is real
    new, findings = fixed(source)
    assert findings == [("JC203", None), ("JC203", None)] and new is None


def test_frozen_dataclass_fix_runs_and_one_edit_counts_every_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = DATACLASS.format(classes=PLAIN)
    new, findings = fixed(source)
    assert findings == [("JC203", "unsafe"), ("JC203", "unsafe")]
    assert new is not None and "@dataclasses.dataclass(frozen=True)" in new
    assert execute(new)["RESULT"] == 6.0
    path = tmp_path / "m.py"
    path.write_text(source)
    capsys.readouterr()
    status = main([str(path), "--fix", "--unsafe-fixes", "--no-cache"])
    # One edit (the decorator) fixes both findings: two fixed.
    out = capsys.readouterr().out
    assert "Found 2 findings (2 fixed, 0 remaining)." in out, out
    assert status == 0
