"""A check parses only the regions a finding can depend on (jitcheck/lint/regions.py), and finds exactly what
the whole module's analysis finds."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from jitcheck.lint.check import check_text
from jitcheck.lint.prefilter import positive_sites
from jitcheck.lint.regions import pruned
from jitcheck.lint.settings import Settings
from tests.lint.checks import test_callables, test_nodes, test_static_values
from tests.lint.checks.support import HEADER

ROOT = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent('''\
    import jax
    import numpy as np

    LIMIT = 3


    def independent(x):
        y = np.sum(x)
        z = y * 2
        return jax.numpy.abs(z)


    def uses_the_module(x):
        y = x + LIMIT
        z = y * 2
        return z


    def hot(xs):
        for x in xs:
            jax.jit(lambda v: v + 1)(x)
        return xs


    class Model:
        def stores(self, x):
            self.w = x
            y = x * 2
            return y

        def reads_only_its_own(self, x):
            y = np.mean(x)
            z = y * 2
            return z
    ''')


def test_only_bodies_nothing_depends_on_are_left_out_and_every_line_keeps_its_number() -> None:
    tree = ast.parse(MODULE)
    reduced = pruned(MODULE, tree, positive_sites(MODULE, tree))
    assert reduced is not None
    compile(reduced, "reduced.py", "exec")
    before, after = MODULE.splitlines(), reduced.splitlines()
    assert len(before) == len(after)
    changed = {before[i].strip() for i in range(len(before)) if before[i] != after[i]}
    # The independent function and the method reading only its own names lose their bodies; the rest is kept.
    assert changed == {"y = np.sum(x)", "z = y * 2", "return jax.numpy.abs(z)", "y = np.mean(x)", "return z"}
    assert "    for x in xs:" in after and "        self.w = x" in after and "    y = x + LIMIT" in after
    settings = Settings()
    assert check_text(MODULE, "m.py", settings).findings == check_text(MODULE, "m.py", settings, prune=False).findings


def _sources() -> list[tuple[str, str]]:
    found = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in sorted((ROOT / "fixtures").rglob("*.py"))]
    for family in (test_callables, test_nodes, test_static_values):
        for name, (body, _) in family.TRUE_POSITIVES.items():
            found.append((f"{family.__name__}:{name}", HEADER + textwrap.dedent(body)))
    return found


@pytest.mark.parametrize(("name", "source"), _sources(), ids=[name for name, _ in _sources()])
def test_pruning_changes_no_finding(name: str, source: str) -> None:
    settings = Settings()
    assert check_text(source, name, settings).findings == check_text(source, name, settings, prune=False).findings
