"""flax.nnx.jit under the recompile recorder: each wrapper at the user's line, the user's function, counts equal jax's own.

flax is no test dependency (installed, it would change what the static pass reads of
installed packages, and the corpus scores with it), so this test runs where the
interpreter can import flax, as the environments of benchmarks/observed.py can
(docs/debug.md says how it was run); elsewhere it says why it did not run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.debug.jax_compile_count import COUNT_COMPILES, REPORT, run_recorded

SCRIPT = COUNT_COMPILES + """
from flax import nnx

def make(t):
    def scaled(m, x):
        return m(x) * t
    return scaled

model = nnx.Linear(2, 3, rngs=nnx.Rngs(0))
for t in (1.0, 2.0, 3.0):
    nnx.jit(make(t))(model, jnp.ones((1, 2)))  # SITE loop

@nnx.jit  # SITE decorated
def shifted(m, x):
    return m(x) + 1.0

for seed in range(3):  # three new models of one structure: nnx keys on the structure, one program
    shifted(nnx.Linear(2, 3, rngs=nnx.Rngs(seed)), jnp.ones((1, 2)))
""" + REPORT


def test_nnx_jit_sites_are_the_users_lines_with_jaxs_compile_counts(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    probe = subprocess.run([sys.executable, "-c", "import flax.nnx"], env=subprocess_env, capture_output=True, text=True, timeout=300)
    if probe.returncode:
        pytest.skip(f"flax is not installed for {sys.executable} (no test dependency; see this module's docstring)")
    script, records, jax_compiles, lines = run_recorded(tmp_path, subprocess_env, SCRIPT)
    found = {s["function"]: (s["line"], s["compiles"], s["avoidable_compiles"], s["cause"], s["rule"])
             for s in records["sites"] if s["wrapper"] == "flax.nnx.jit" and s["compiles"]}
    assert found == {
        # one program, three constants baked in: a closure per iteration; the rule is the closure's, not nnx's JitFn's
        "make.<locals>.scaled": (lines["loop"], 3, 2, "constants", "JC105"),
        "shifted": (lines["decorated"], 1, 0, None, None),
    }
    assert found["make.<locals>.scaled"][1] == jax_compiles["jit(scaled)"]
    assert found["shifted"][1] == jax_compiles["jit(shifted)"]
    assert {s["path"] for s in records["sites"] if not s["internal"] and s["compiles"]} == {str(script)}  # never flax's own files
