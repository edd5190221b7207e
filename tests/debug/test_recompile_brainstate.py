"""brainstate's ``transform.jit`` under the recompile recorder: each wrapper at the user's line, counts equal jax's own.

brainstate builds its ``jax.jit`` inside ``brainstate/transform/_jit.py`` (over a
StatefulFunction's ``jaxpr_call``); the recorder names the line of the user's code that
called ``brainstate.transform.jit`` (or decorated with it) as the site, and the user's
function as the function, so that a closure per iteration is told from a decorator.
"""

from __future__ import annotations

from pathlib import Path

from tests.debug.jax_compile_count import COUNT_COMPILES, REPORT, run_recorded

SCRIPT = COUNT_COMPILES + """
import brainstate

def make(t):
    def scaled(x):
        return x * t
    return scaled

for t in (1.0, 2.0, 3.0):
    brainstate.transform.jit(make(t))(jnp.ones(2))  # SITE loop

@brainstate.transform.jit  # SITE decorated
def once(x):
    return x + 1.0

once(jnp.ones(2))
once(jnp.ones(2))
named = brainstate.transform.jit(lambda x: x - 1.0, name="named_step")  # SITE named
named(jnp.ones(2))
named(jnp.ones(3))
""" + REPORT


def test_brainstate_jit_sites_are_the_users_lines_with_jaxs_compile_counts(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    script, records, jax_compiles, lines = run_recorded(tmp_path, subprocess_env, SCRIPT)
    compiled = [s for s in records["sites"] if s["wrapper"] == "brainstate.transform.jit"]
    found = {s["function"]: (s["line"], s["compiles"], s["avoidable_compiles"], s["cause"], s["rule"]) for s in compiled}
    assert found == {
        # one program, three constants baked in: a closure per iteration, pass t as an argument
        "make.<locals>.scaled": (lines["loop"], 3, 2, "constants", "JC105"),
        "once": (lines["decorated"], 1, 0, None, None),
        "<lambda>": (lines["named"], 2, 0, None, None),  # two shapes: two programs
    }
    # jax compiles brainstate's jits as jit(jaxpr_call), or under the name given
    assert sum(found[f][1] for f in ("make.<locals>.scaled", "once")) == jax_compiles["jit(jaxpr_call)"]
    assert found["<lambda>"][1] == jax_compiles["jit(named_step)"]
    # every site of the user's (its make_jaxpr traces too) is a line of the script, never brainstate/transform/_jit.py
    assert {s["path"] for s in records["sites"] if not s["internal"]} == {str(script)}
