"""The few private jax names the stateful layer needs, kept in one place.

Collecting a `State` the moment a traced function first reads it means adding an
input to the jaxpr being built, mid-trace: jax does this with its tracing
context's ``new_arg``, which has no public spelling. The concrete array class is
also named here, so the cache-hit path can test ``type(x) is ArrayImpl`` (one
pointer comparison) without building an array at import. jitcheck pins jax to
0.10.x; :func:`check_available` fails loudly, with the jax version, if a jax
release moves these names.
"""

from __future__ import annotations

from typing import Any

import jax
from jax._src import core as _core
from jax._src import source_info_util as _source_info
from jax._src.array import ArrayImpl as _ArrayImpl

ArrayImpl: type[Any] = _ArrayImpl
"""The class of a concrete jax array (what ``jnp.zeros(3)`` returns)."""

Tracer: type[Any] = jax.core.Tracer
"""The base class of every jax tracer."""


def current_trace() -> Any:
    """The jax trace in effect now (the trace that ``jax.make_jaxpr`` set up, inside it)."""
    return _core.trace_ctx.trace


def new_input(trace: Any, aval: Any) -> Any:
    """A fresh input of the jaxpr ``trace`` is building, of abstract value ``aval``, as a tracer.

    The input is appended after the inputs that trace already has, so a jaxpr
    traced by ``jax.make_jaxpr(f)(*args)`` takes ``args``' leaves first, then one
    input per leaf added here, in the order they were added.
    """
    new_arg = getattr(trace, "new_arg", None)
    if new_arg is None:
        raise RuntimeError(
            f"a State was read under a {type(trace).__name__}, which cannot take new inputs; "
            "jitcheck's StatefulFunction must be the transformation that collects it "
            "(wrap the function in jitcheck.StatefulFunction, or pass the value explicitly)"
        )
    return new_arg(aval, _source_info.current())


def trace_of(tracer: Any) -> Any:
    """The trace a tracer belongs to."""
    return getattr(tracer, "_trace", None)


_TRANSFORMATIONS = {
    "DynamicJaxprTrace": "jax.jit (or another staging transformation: make_jaxpr, scan, cond, while_loop)",
    "JaxprTrace": "a jax differentiation (grad, vjp, linearize)",
    "JVPTrace": "a jax differentiation (grad, jvp, vjp)",
    "LinearizeTrace": "a jax differentiation (grad, vjp, linearize)",
    "BatchTrace": "jax.vmap",
}


def transformation_of(tracer: Any) -> str:
    """The jax transformation a tracer belongs to, in words (``"jax.vmap"``)."""
    name = type(trace_of(tracer)).__name__
    return _TRANSFORMATIONS.get(name, f"a jax transformation ({name})")


def is_ancestor_or_self(candidate: Any, trace: Any) -> bool:
    """True when ``candidate`` is ``trace`` or one of the traces it is nested in."""
    while trace is not None:
        if candidate is trace:
            return True
        trace = getattr(trace, "parent_trace", None)
    return False


def check_available() -> None:
    """Raise ImportError naming the jax version if the private names above have moved."""
    missing = [
        name
        for name, present in (
            ("jax._src.core.trace_ctx", hasattr(_core, "trace_ctx")),
            ("jax._src.source_info_util.current", hasattr(_source_info, "current")),
        )
        if not present
    ]
    if missing:
        raise ImportError(
            f"jitcheck.stateful needs {', '.join(missing)}, which jax {jax.__version__} does not have; "
            "jitcheck supports jax 0.10.x"
        )


check_available()
