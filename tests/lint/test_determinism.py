"""The pass finds the same things on every run: nothing it decides may hang on the order of a set, which Python
changes from run to run (string hashes are salted per process, ``PYTHONHASHSEED``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from jitcheck.lint.resolver import Resolver

_MODULE = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from functools import partial


    def optimise(x, steps, mode):
        for step in range(steps):
            if mode == 0:
                b = np.empty(x.shape)
            elif mode == 1:
                b = x / 2
            elif mode == 2:
                b = x * 3
            else:
                b = x + step
            scale = np.ones(b.shape)
            scale = scale / 2
            scale = scale * b

            @partial(jax.jit, static_argnums=(1,))
            def solve(v, apply):
                return apply(v) * 2

            def matvec(v):
                return v * scale

            solve(jnp.asarray(b), matvec)
        return x
    """)


def test_the_assignments_a_name_reads_come_in_the_order_the_code_makes_them() -> None:
    wrapper = MetadataWrapper(cst.parse_module(_MODULE))
    resolver = Resolver.__new__(Resolver)
    resolver.scopes = wrapper.resolve(ScopeProvider)  # type: ignore[attr-defined]
    positions = wrapper.resolve(PositionProvider)

    class _Reads(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Name] = []

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "asarray":
                self.found += [a.value for a in node.args if isinstance(a.value, cst.Name)]

    reads = _Reads()
    wrapper.module.visit(reads)
    assert len(reads.found) == 1  # `jnp.asarray(b)`
    made = [ref.node for ref in resolver.referents(reads.found[0])]  # type: ignore[attr-defined]
    lines = [positions[node].start.line for node in made]
    assert lines == [10, 12, 14, 16]  # the four `b = ...`, in the order the code binds them


def test_findings_are_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    source = tmp_path / "optimise.py"
    source.write_text(_MODULE)
    outputs = set()
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-m", "jitcheck", "--no-cache", "--preview", "--exit-zero",
                              "--output-format", "json", str(source)], capture_output=True, text=True, env=env,
                             cwd=tmp_path, check=True)
        found = json.loads(run.stdout)
        outputs.add(json.dumps([(f["code"], f["location"], f["confidence"], f["message"]) for f in found]))
    assert len(outputs) == 1
