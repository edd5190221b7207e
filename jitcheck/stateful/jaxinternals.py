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


EvalTrace: type[Any] = _core.EvalTrace
"""The class of the trace in effect outside every transformation (eager execution)."""

TRACE_CONTEXT: Any = _core.trace_ctx
"""jax's tracing context; ``TRACE_CONTEXT.trace`` is the trace in effect now."""

_STAGING = "DynamicJaxprTrace"


def staging_trace() -> Any | None:
    """The innermost staging trace in effect now (a ``jax.jit``, ``scan``, ``cond``... being traced), or None.

    A staging trace builds a program jax may cache and run again later: a value
    read from outside its arguments is baked into that program as a constant. The
    eager transformations (``grad``, ``vmap``, ``jvp``) are walked through to the
    trace they are nested in.
    """
    trace = _core.trace_ctx.trace
    while trace is not None:
        if type(trace).__name__ == _STAGING:
            return trace
        trace = getattr(trace, "parent_trace", None)
    return None


def staged_inside(outer: Any) -> Any | None:
    """The innermost staging trace in effect now that is nested inside the trace ``outer``, or None.

    Inside a StatefulFunction's trace, such a trace is a body jax stages out on its
    own (a ``cond`` branch, a ``scan`` or ``while_loop`` body, a nested ``jax.jit``);
    eager transformations in between (``grad``, ``vmap``) are walked through.
    """
    trace = _core.trace_ctx.trace
    while trace is not None and trace is not outer:
        if type(trace).__name__ == _STAGING:
            return trace
        trace = getattr(trace, "parent_trace", None)
    return None


_STAGED_FOR = {
    "jit": "jax.jit",
    "pjit": "jax.jit",
    "scan": "jax.lax.scan",
    "cond": "jax.lax.cond",
    "switch": "jax.lax.switch",
    "while_body": "jax.lax.while_loop",
    "while_cond": "jax.lax.while_loop",
    "fori_loop": "jax.lax.fori_loop",
    "checkpoint / remat": "jax.checkpoint",
    "shard_map": "jax.pmap or shard_map",
    "make_jaxpr": "jax.make_jaxpr",
}


def staged_for(trace: Any) -> str:
    """What a staging trace is tracing, in words: ``"jax.jit of `outer` (model.py:12)"``."""
    info = getattr(getattr(trace, "frame", None), "debug_info", None)
    kind = getattr(info, "traced_for", None)
    what = _STAGED_FOR.get(str(kind), f"a staging jax transformation ({kind})" if kind else "a staging jax transformation")
    source = getattr(info, "func_src_info", None)
    if not source or "/jax/_src/" in str(source):
        return what
    name, _, place = str(source).partition(" at ")
    if name in ("", "<unknown>"):
        return what + (f" ({place})" if place else "")
    return f"{what} of `{name}`" + (f" ({place})" if place else "")


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
            ("jax._src.core.EvalTrace", hasattr(_core, "EvalTrace")),
        )
        if not present
    ]
    if missing:
        raise ImportError(
            f"jitcheck.stateful needs {', '.join(missing)}, which jax {jax.__version__} does not have; "
            "jitcheck supports jax 0.10.x"
        )


check_available()
