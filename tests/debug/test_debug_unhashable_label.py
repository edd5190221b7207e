"""An import failing with ``unhashable type: 'LayerName'`` is reported under the label rule (JC301) with its fix."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.debug.conftest import RunPython

_MODULE = """
import dataclasses
import jax
from jitcheck.core import JitGraph, NestingGraph, NodeDefinition, OrderedMap


{label_class}


def double(x: jax.Array) -> jax.Array:
    return x * 2


MODEL = JitGraph(NestingGraph(OrderedMap({{LayerName("double"): NodeDefinition(double, inputs=("x",), outputs=("y",))}})))
"""

_NOT_FROZEN = """
@dataclasses.dataclass
class LayerName:
    name: str
"""

_EQ_ONLY = """
class LayerName:
    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LayerName) and other.name == self.name
"""


def _package(tmp_path: Path, name: str, label_class: str) -> Path:
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(_MODULE.format(label_class=label_class)))
    return package


@pytest.mark.parametrize(
    ("label_class", "fix"),
    [(_NOT_FROZEN, "@dataclasses.dataclass(frozen=True)"), (_EQ_ONLY, "define `__hash__` on `LayerName`")],
)
def test_the_report_names_the_label_rule_and_the_fix(run_python: RunPython, tmp_path: Path, label_class: str, fix: str) -> None:
    package = _package(tmp_path, "layer_name_pkg", label_class)
    done = run_python("-m", "jitcheck.debug", "report", "--json", "--no-beartype", str(package))
    assert done.returncode == 1, done.stderr
    (finding,) = json.loads(done.stdout)["modules"][0]["findings"]
    assert finding["code"] == "JC301"
    assert "unhashable type: 'LayerName'" in finding["message"] and "JitGraph" in finding["message"]
    assert fix in finding["help"]
    assert "fix the error" not in finding["help"]
    source = (package / "__init__.py").read_text().splitlines()
    assert source[finding["line"] - 1].startswith("MODEL = JitGraph(")  # the user's line


def test_an_unhashable_value_outside_graph_code_stays_an_import_failure(run_python: RunPython, tmp_path: Path) -> None:
    package = tmp_path / "other_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("TABLE = {[1, 2]: 'x'}\n")
    done = run_python("-m", "jitcheck.debug", "report", "--json", "--no-beartype", str(package))
    (finding,) = json.loads(done.stdout)["modules"][0]["findings"]
    assert finding["code"] == "JC505"


def test_the_runner_adds_the_rule_to_the_traceback(run_python: RunPython, tmp_path: Path) -> None:
    _package(tmp_path, "layer_name_run_pkg", _NOT_FROZEN)
    script = tmp_path / "main.py"
    script.write_text("import layer_name_run_pkg\n")
    done = run_python("-m", "jitcheck.debug", "run", str(script))
    assert done.returncode != 0
    assert "TypeError: unhashable type: 'LayerName'" in done.stderr
    assert "JC301" in done.stderr and "@dataclasses.dataclass(frozen=True)" in done.stderr
