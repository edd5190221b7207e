"""What a function jitted by ``jax.jit`` returns is a jax array, whatever its body computes: handed to another jitted
function as a static argument it cannot be hashed, and jax raises "Non-hashable static arguments are not supported"
on every call (JC201), with nothing needing to run again. Computing it in plain Python makes it a hashable number."""

from __future__ import annotations

import textwrap

import pytest

from jitcheck.lint.check import check_source

from .support import HEADER, compiles_of, shown

_DEPTH = """\
    @partial(jax.jit, static_argnums=(0, 1))
    def depth_of(dim, depth):
        offset = dim ** depth
        return offset, dim * (1 - offset) // (1 - dim)

    @partial(jax.jit, static_argnums=(1, 2))
    def term(sig, start, size):
        return jax.lax.dynamic_slice(sig, (start,), (size,))

    def term_at(sig, dim, depth):
        offset, start = depth_of(dim, depth)
        return term(sig, start, offset * dim)
    """


def test_an_array_a_jitted_function_returned_is_reported_as_a_static_argument() -> None:
    assert shown(_DEPTH) == [(12, "JC201"), (12, "JC201")]
    offset = HEADER.count("\n")
    found = [f for f in check_source(HEADER + textwrap.dedent(_DEPTH), "module.py") if f.code == "JC201"]
    assert "`start` (returned by the jitted `depth_of`) used as static argument 1 (`start`) of `term`" in found[0].message
    # no repetition needed: the reason is what the value is, as for a traced parameter (JC201's other evidence)
    assert [r.kind for r in found[0].evidence.again] == ["jit-result"] and found[0].confidence == "high"
    assert found[0].evidence.again[0].line - offset == 1  # the decorator that makes `depth_of` return arrays
    assert "compute it in plain Python or numpy" in found[0].help
    # jax refuses it on every call
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        compiles_of(_DEPTH, "term_at(jnp.arange(14.0), 2, 2)", "term")
    # The fix: the sizes in plain Python, hashable numbers: one compile for three equal calls.
    fixed = _DEPTH.replace("    @partial(jax.jit, static_argnums=(0, 1))\n    def depth_of", "    def depth_of")
    assert fixed != _DEPTH and shown(fixed) == []
    assert compiles_of(fixed, "[term_at(jnp.arange(14.0), 2, 2) for _ in range(3)]", "term") == 1


def test_a_value_from_a_plain_function_or_a_parameter_is_not_this_finding() -> None:
    plain = _DEPTH.replace("    @partial(jax.jit, static_argnums=(0, 1))\n    def depth_of", "    def depth_of")
    assert shown(plain) == []
    handed = _DEPTH.replace("offset, start = depth_of(dim, depth)", "offset, start = dim, depth")
    assert shown(handed) == []
