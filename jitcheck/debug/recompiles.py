"""The recompile recorder: every trace and compile of every jit-like wrapper, attributed, fingerprinted, judged.

`install` hooks the few places inside jax where every jit-like wrapper ends up:
building a jit (``pjit._cpp_pjit``: ``jax.jit``, ``pjit``, ``jax.pmap``, equinox's
and jitcheck's own), tracing one (``pjit._trace_for_jit``), running a compile
(``pjit._pjit_call_impl_python``) and jax's own compile event
(``/jax/core/compile/backend_compile_duration``, through ``jax.monitoring``).
``equinox.filter_jit`` is hooked too, for the site that built each wrapper (equinox
shares one ``jax.jit`` between wrappers of the same name).

Each trace becomes a `Trace`: the site that built the wrapper and the site that
called it (the user's frames, not jax's or equinox's), whether it ran inside another
trace (then it costs no compile of its own), and a fingerprint of the jaxpr jax made
(`jitcheck.debug.fingerprint`): the recorder never traces anything again. A compile
of a fingerprint its site compiled before is avoidable; `jitcheck.debug.recompile_causes`
says why. With the recorder off nothing is hooked, so a jit call costs what it costs.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import importlib
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable
from typing import Any

from jitcheck.debug.location import Location, user_frame
from jitcheck.debug.recompile_causes import Cause, Subject, classify

KEPT_TRACES = 20000
"""The most traces kept one by one (the per-site counts are always complete)."""

SUBJECTS_KEPT = 64
"""Per site, the most programs whose function and static arguments are kept to explain a recompile."""

WRAPPER_LIBRARIES = ("equinox", "flax", "brainstate.transform._jit", "brainstate.transform._make_jaxpr")
"""Packages and modules whose frames are the inside of a jit wrapper, skipped when looking for the user's site
(brainstate's ``transform.jit`` builds its ``jax.jit`` in ``_jit``, over a ``StatefulFunction`` of ``_make_jaxpr``)."""

BRAINSTATE_JIT = "brainstate.transform.jit"
FLAX_NNX_JIT = "flax.nnx.jit"

BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

_lock = threading.RLock()
_local = threading.local()
_originals: dict[str, Any] = {}
_builds: collections.OrderedDict[int, tuple[Any, Location | None, str]] = collections.OrderedDict()
_wrapper_sites: dict[int, tuple[weakref.ref[Any], Location | None]] = {}
"""Per equinox ``_JitWrapper`` (by id) or pmap's wrapped function (by the id of its ``WrappedFun``): the site that built it."""
_by_jaxpr: dict[int, tuple[weakref.ref[Any], Trace]] = {}


@dataclasses.dataclass
class Trace:
    """One trace of a jitted function, and the compiles of the program it made."""

    index: int
    wrapper: str
    function: str
    site: Location | None
    call_site: Location | None
    nested: bool
    internal: bool
    fingerprint: str
    constants: str
    avals: tuple[str, ...]
    statics: tuple[tuple[str, str], ...]
    trace_seconds: float
    compiles: int = 0
    compile_seconds: float = 0.0
    avoidable: bool = False
    cause: Cause | None = None
    repeats: int | None = None
    """The index of the earlier trace of this site whose program this one compiled again."""
    context: str | None = None
    """What the program was doing (under pytest: the test's node id), from `set_context`."""

    @property
    def site_key(self) -> tuple[str, str, str]:
        where = self.site if self.site is not None else self.call_site
        return (str(where) if where is not None else "<unknown>", self.wrapper, self.function)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the ``traces`` entries of the recorder's JSON, see docs/debug.md)."""
        return {
            "index": self.index,
            "site": str(self.site) if self.site is not None else None,
            "call_site": str(self.call_site) if self.call_site is not None else None,
            "function": self.function,
            "wrapper": self.wrapper,
            "nested": self.nested,
            "internal": self.internal,
            "fingerprint": self.fingerprint,
            "constants": self.constants,
            "avals": list(self.avals[:32]),
            "static": [{"path": path, "type": kind} for path, kind in self.statics],
            "trace_seconds": round(self.trace_seconds, 6),
            "compiles": self.compiles,
            "compile_seconds": round(self.compile_seconds, 6),
            "avoidable": self.avoidable,
            "cause": self.cause.kind if self.cause is not None else None,
            "rule": self.cause.rule.code if self.cause is not None and self.cause.rule is not None else None,
            "repeats": self.repeats,
            "test": self.context,
        }


@dataclasses.dataclass
class Site:
    """Everything one site (the place that built a wrapper, its kind, its function) traced and compiled."""

    key: tuple[str, str, str]
    site: Location | None
    wrapper: str
    function: str
    internal: bool
    traces: int = 0
    nested_traces: int = 0
    compiles: int = 0
    avoidable: int = 0
    avoidable_in_one_test: int = 0
    """Avoidable compiles whose earlier compile ran in the same test (the same `set_context`)."""
    compile_seconds: float = 0.0
    lost_seconds: float = 0.0
    fingerprints: set[str] = dataclasses.field(default_factory=set)
    causes: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    """How many avoidable compiles each cause explains."""
    first_cause: dict[str, Cause] = dataclasses.field(default_factory=dict)
    """The first avoidable compile's cause, per kind of cause."""
    call_sites: dict[str, None] = dataclasses.field(default_factory=dict)
    compiled: dict[str, tuple[Trace, Subject | None]] = dataclasses.field(default_factory=dict, repr=False)
    """Per fingerprint, the last trace that compiled it and what jax keyed it on (kept for the last `SUBJECTS_KEPT`)."""
    holding: collections.OrderedDict[str, None] = dataclasses.field(default_factory=collections.OrderedDict, repr=False)

    def remember(self, fingerprint: str, trace: Trace, subject: Subject) -> None:
        """Keep what jax keyed this compile on, letting go of the oldest beyond `SUBJECTS_KEPT` (they hold user objects)."""
        self.compiled[fingerprint] = (trace, subject)
        self.holding[fingerprint] = None
        self.holding.move_to_end(fingerprint)
        while len(self.holding) > SUBJECTS_KEPT:
            old, _ = self.holding.popitem(last=False)
            self.compiled[old] = (self.compiled[old][0], None)


_context: list[str | None] = [None]


def set_context(name: str | None) -> None:
    """Label the traces from now on (the pytest plugin sets each test's node id, and None between tests)."""
    _context[0] = name


_traces: list[Trace] = []
_sites: dict[tuple[str, str, str], Site] = {}
_counts = {"traces": 0, "dropped": 0, "unattributed_compiles": 0, "errors": 0}
_unattributed_seconds = [0.0]
_subjects: dict[int, Subject] = {}
"""Per trace index, what jax keyed it on, until its compile (or the next trace of its thread) takes it."""


def _module(frame: types.FrameType) -> str:
    name = frame.f_globals.get("__name__", "")
    return name if isinstance(name, str) else ""


_MACHINERY = ("jax._src.pjit", "jax._src.api", "jax._src.traceback_util", "jax._src.util", "jax.experimental.pjit", "jitcheck.debug.compiles")


def _builder(frame: types.FrameType | None, use_resource_env: bool) -> tuple[str, bool]:
    """The kind of wrapper being built and whether jax itself builds it, from the frame that called ``jax.jit``."""
    while frame is not None and (_module(frame) in _MACHINERY or _module(frame) == "functools"):
        frame = frame.f_back
    return _wrapper_of(_module(frame) if frame is not None else "", use_resource_env)


def _wrapper_of(module: str, use_resource_env: bool = False) -> tuple[str, bool]:
    """The kind of wrapper a jit built by code of ``module`` is, and whether it is jax's own."""
    head = module.split(".", 1)[0]
    if head == "equinox":
        return "equinox.filter_jit", False
    if head == "flax":
        return FLAX_NNX_JIT, False
    if module == "brainstate.transform._jit":
        return BRAINSTATE_JIT, False
    if module == "jax._src.pmap":
        return "jax.pmap", False
    if module.startswith("jitcheck.stateful"):
        return "jitcheck.StatefulFunction", False
    if module.startswith("jitcheck.core"):
        return "jitcheck.JitGraph", False
    if head == "jitcheck":
        return "jitcheck", False
    if head in ("jax", "jaxlib"):
        return "jax", True
    return ("pjit" if use_resource_env else "jax.jit"), False


def _hooked_cpp_pjit(fun: Any, jit_info: Any) -> Any:
    wrapped = _originals["_cpp_pjit"](fun, jit_info)
    try:
        frame = sys._getframe(1)
        wrapper, internal = _builder(frame, bool(getattr(jit_info, "use_resource_env", False)))
        site = None if internal else user_frame(frame, WRAPPER_LIBRARIES)
        with _lock:
            _builds[id(jit_info)] = (jit_info, site, "jax" if internal else wrapper)
            while len(_builds) > 16384:
                _builds.popitem(last=False)
    except Exception:  # the recorder never breaks the program it records
        _counts["errors"] += 1
    return wrapped


def _definition(fun: Any) -> Location | None:
    """Where ``fun`` was defined: the site of a wrapper built before the recorder was installed."""
    inner = fun
    for _ in range(8):
        inner = getattr(inner, "func", None) or getattr(inner, "__func__", None) or getattr(inner, "__wrapped__", None) or inner
        if hasattr(inner, "__code__"):
            break
    code = getattr(inner, "__code__", None)
    if code is None:
        return None
    return Location(code.co_filename, code.co_firstlineno, 1, str(getattr(inner, "__module__", "") or ""), code.co_name)


def _frame_of(frame: types.FrameType | None, module: str, name: str) -> types.FrameType | None:
    """The innermost frame of function ``name`` of ``module`` on the stack from ``frame`` outward, if any."""
    while frame is not None:
        if frame.f_code.co_name == name and _module(frame) == module:
            return frame
        frame = frame.f_back
    return None


def _pmapped(frame: types.FrameType | None) -> Any:
    """The ``WrappedFun`` of the user's function that pmap's ``wrapped`` (or ``lower``) frame on the stack calls, if any."""
    call = _frame_of(frame, "jax._src.pmap", "wrapped") or _frame_of(frame, "jax._src.pmap", "lower")
    infer_params = call.f_locals.get("infer_params") if call is not None else None
    cells = dict(zip(getattr(getattr(infer_params, "__code__", None), "co_freevars", ()), getattr(infer_params, "__closure__", None) or ()))
    cell = cells.get("wrapped_fun")
    return cell.cell_contents if cell is not None else None


def _brainstate_function(fun: Any) -> Any:
    """The user's function under brainstate's ``transform.jit``: the ``fun`` of the StatefulFunction whose
    ``jaxpr_call`` it jits (bound, or called by a ``run_fn`` closure when the jit is named)."""
    stateful = getattr(fun, "__self__", None)
    if stateful is None:
        cells = dict(zip(getattr(getattr(fun, "__code__", None), "co_freevars", ()), getattr(fun, "__closure__", None) or ()))
        cell = cells.get("fun")
        stateful = cell.cell_contents if cell is not None else None
    inner = getattr(stateful, "fun", None)
    return inner if callable(inner) else fun


def _remember_site(key: int, referent: Any, site: Location | None) -> None:
    with _lock:
        _wrapper_sites[key] = (weakref.ref(referent, functools.partial(_drop_site, key)), site)


def _drop_site(key: int, _: object) -> None:
    _wrapper_sites.pop(key, None)


def _site_of(key: int, referent: Any) -> tuple[bool, Location | None]:
    found = _wrapper_sites.get(key)
    if found is None or found[0]() is not referent:
        return False, None
    return True, found[1]


def _is_data(value: Any) -> bool:
    from jitcheck.core.keys import is_array

    if is_array(value):
        return True
    import jax.tree_util

    leaves = jax.tree_util.tree_leaves(value)
    return bool(leaves) and all(is_array(leaf) for leaf in leaves)


def _static_part(value: Any) -> Any:
    """What equinox keys an argument on: the argument with its arrays taken out (equinox traces those)."""
    import equinox

    try:
        return equinox.partition(value, equinox.is_array)[1]
    except Exception:  # not a pytree equinox can split: the value itself
        return value


def _statics(ji: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    found = [(f"args[{i}]", args[i]) for i in ji.static_argnums if 0 <= i < len(args)]
    found += [(name, kwargs[name]) for name in ji.static_argnames if name in kwargs]
    return tuple(found)


def _hooked_trace_for_jit(fun: Any, ji: Any, ctx_mesh: Any, dbg: Any, avals: Any, args: Any, kwargs: Any) -> Any:
    from jax._src import core

    nested = not core.trace_state_clean()
    start = time.perf_counter()
    params = _originals["_trace_for_jit"](fun, ji, ctx_mesh, dbg, avals, args, kwargs)
    seconds = time.perf_counter() - start
    try:
        _record_trace(fun, ji, params, args, kwargs, nested, seconds, sys._getframe(1))
    except Exception:  # the recorder never breaks the program it records
        _counts["errors"] += 1
    return params


def _record_trace(fun: Any, ji: Any, params: Any, args: Any, kwargs: Any, nested: bool, seconds: float, frame: types.FrameType) -> None:
    from jitcheck.core.keys import describe
    from jitcheck.debug.fingerprint import fingerprint

    jaxpr = params.params["jaxpr"]
    with _lock:
        seen = _by_jaxpr.get(id(jaxpr))
        if seen is not None and seen[0]() is jaxpr:
            return  # jax found this jaxpr in its own cache: nothing was traced
    build = _builds.get(id(ji))
    if build is not None and build[0] is ji:
        site, wrapper = build[1], build[2]
    else:
        wrapper, internal = _wrapper_of(str(getattr(fun, "__module__", "") or ""), bool(getattr(ji, "use_resource_env", False)))
        wrapper = "jax" if internal else wrapper
        site = _definition(fun) if not internal else None
    subject_fun: Any = fun
    while getattr(subject_fun, "_jitcheck_traced", False):  # debug mode's counting wrappers: the user's function
        subject_fun = subject_fun.__wrapped__
    statics = _statics(ji, args, kwargs)
    function = describe(subject_fun)
    if wrapper == "jax.pmap":
        wrapped_fun = _pmapped(frame)
        if wrapped_fun is not None:
            subject_fun = wrapped_fun.f
            known, built = _site_of(id(wrapped_fun), subject_fun)
            site = built if known else site
            function = describe(subject_fun)
    if wrapper == BRAINSTATE_JIT:  # it jits its StatefulFunction's jaxpr_call (or a run_fn calling it): the user's function
        subject_fun = _brainstate_function(subject_fun)
        function = describe(subject_fun)
    if wrapper == FLAX_NNX_JIT and type(subject_fun).__name__ == "JitFn" and callable(getattr(subject_fun, "f", None)):
        subject_fun = subject_fun.f  # nnx.jit jits a new JitFn around the user's function per wrapper: the user's function
        function = describe(subject_fun)
    if wrapper == "equinox.filter_jit":
        call = _frame_of(frame, "equinox._jit", "_call")
        if call is not None:
            jit_wrapper = call.f_locals.get("jit_wrapper")
            known, built = _site_of(id(jit_wrapper), jit_wrapper)
            site = built if known else site
            try:
                subject_fun = jit_wrapper.__wrapped__  # type: ignore[union-attr]
            except Exception:
                subject_fun = jit_wrapper
            function = describe(subject_fun)
            user_args = call.f_locals.get("args", ()) or ()
            user_kwargs = call.f_locals.get("kwargs", {}) or {}
            named = [*((f"args[{i}]", a) for i, a in enumerate(user_args)), *user_kwargs.items()]
            statics = tuple((path, _static_part(value)) for path, value in named if not _is_data(value))
    structure, constants = fingerprint(jaxpr, statics)
    internal = wrapper == "jax"
    call_site = user_frame(frame, WRAPPER_LIBRARIES)
    if wrapper.startswith("jitcheck"):  # JitGraph.jit_call, StatefulFunction: jitcheck builds the jit, your line runs it
        site = call_site
    with _lock:
        _counts["traces"] += 1
        trace = Trace(
            index=_counts["traces"] - 1,
            wrapper=wrapper,
            function=function,
            site=site,
            call_site=call_site,
            nested=nested,
            internal=internal,
            fingerprint=structure,
            constants=constants,
            avals=tuple(str(a) for a in jaxpr.in_avals),
            statics=tuple((path, type(value).__qualname__) for path, value in statics),
            trace_seconds=seconds,
            context=_context[0],
        )
        _keep(trace)
        entry = _site(trace)
        entry.traces += 1
        entry.nested_traces += nested
        entry.fingerprints.add(structure)
        if call_site is not None and len(entry.call_sites) < 10:
            entry.call_sites[str(call_site)] = None
        key = id(jaxpr)
        _by_jaxpr[key] = (weakref.ref(jaxpr, functools.partial(_forget, key)), trace)
        if not nested:
            _subjects[trace.index] = Subject(subject_fun, statics, constants)
            previous = getattr(_local, "last", None)
            if previous is not None and previous.compiles == 0:
                _subjects.pop(previous.index, None)
            _local.last = trace


def _forget(key: int, _: object = None) -> None:
    with _lock:
        found = _by_jaxpr.get(key)
        if found is not None and found[0]() is None:
            del _by_jaxpr[key]


def _keep(trace: Trace) -> None:
    _traces.append(trace)
    if len(_traces) > KEPT_TRACES:
        del _traces[: len(_traces) - KEPT_TRACES]
        _counts["dropped"] += 1


def _site(trace: Trace) -> Site:
    key = trace.site_key
    entry = _sites.get(key)
    if entry is None:
        entry = _sites[key] = Site(key, trace.site if trace.site is not None else trace.call_site, trace.wrapper, trace.function, trace.internal)
    return entry


def _hooked_call_impl_python(*args: Any, jaxpr: Any, **params: Any) -> Any:
    stack = _local.__dict__.setdefault("jaxprs", [])
    stack.append((jaxpr, params.get("name")))
    try:
        return _originals["_pjit_call_impl_python"](*args, jaxpr=jaxpr, **params)
    finally:
        stack.pop()


def _on_event(event: str, duration_secs: float, **_: str | int) -> None:
    if event != BACKEND_COMPILE_EVENT or not _originals:
        return
    try:
        _record_compile(duration_secs)
    except Exception:  # the recorder never breaks the program it records
        _counts["errors"] += 1


def _derived(jaxpr: Any, name: object) -> Trace:
    """A trace record for a program jax derived itself (a jit under ``vmap`` or ``grad`` called at top level)."""
    from jitcheck.debug.fingerprint import fingerprint

    structure, constants = fingerprint(jaxpr)
    call_site = user_frame(sys._getframe(1), WRAPPER_LIBRARIES)
    _counts["traces"] += 1
    trace = Trace(
        index=_counts["traces"] - 1, wrapper="transformed", function=f"{name} (transformed)", site=None, call_site=call_site,
        nested=False, internal=False, fingerprint=structure, constants=constants,
        avals=tuple(str(a) for a in jaxpr.in_avals), statics=(), trace_seconds=0.0, context=_context[0],
    )
    _keep(trace)
    entry = _site(trace)
    entry.traces += 1
    entry.fingerprints.add(structure)
    key = id(jaxpr)
    _by_jaxpr[key] = (weakref.ref(jaxpr, functools.partial(_forget, key)), trace)
    _subjects[trace.index] = Subject(None, (), constants)
    return trace


def _record_compile(duration: float) -> None:
    stack = getattr(_local, "jaxprs", None)
    with _lock:
        trace: Trace | None = None
        if stack:
            jaxpr, name = stack[-1]
            found = _by_jaxpr.get(id(jaxpr))
            trace = found[1] if found is not None and found[0]() is jaxpr else _derived(jaxpr, name)
        else:
            trace = getattr(_local, "last", None)  # lower().compile(): the thread's last top-level trace
        if trace is None:
            _counts["unattributed_compiles"] += 1
            _unattributed_seconds[0] += duration
            return
        trace.compiles += 1
        trace.compile_seconds += duration
        entry = _site(trace)
        entry.compiles += 1
        entry.compile_seconds += duration
        subject = _subjects.pop(trace.index, None)
        if subject is None:
            return
        earlier = entry.compiled.get(trace.fingerprint)
        if earlier is not None and earlier[0] is not trace:
            cause = classify(earlier[1], subject, trace.wrapper)
            trace.avoidable = True
            trace.cause = cause
            trace.repeats = earlier[0].index
            entry.avoidable += 1
            entry.avoidable_in_one_test += earlier[0].context == trace.context
            entry.lost_seconds += duration + trace.trace_seconds
            entry.causes[cause.kind] += 1
            entry.first_cause.setdefault(cause.kind, cause)
        entry.remember(trace.fingerprint, trace, subject)


def _hooked_filter_jit(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def filter_jit(*args: Any, **kwargs: Any) -> Any:
        made = original(*args, **kwargs)
        try:
            if type(made).__name__ == "_JitWrapper":
                _remember_site(id(made), made, user_frame(sys._getframe(1), WRAPPER_LIBRARIES))
            elif callable(made) and not args:  # filter_jit(donate=...): a decorator that calls filter_jit again
                return _hooked_filter_jit(made)
        except Exception:
            _counts["errors"] += 1
        return made

    filter_jit._jitcheck_recorder_original = original  # type: ignore[attr-defined]
    return filter_jit


def _hooked_pmap_wrap_init(f: Any, static_broadcasted_tuple: Any) -> Any:
    wrapped_fun = _originals["_pmap_wrap_init"](f, static_broadcasted_tuple)
    try:
        _remember_site(id(wrapped_fun), f, user_frame(sys._getframe(1), WRAPPER_LIBRARIES))
    except TypeError:  # a callable that takes no weak reference: its site is where it was first called
        pass
    return wrapped_fun


def _patch_equinox(module: Any) -> None:
    jit_module = sys.modules.get("equinox._jit")
    current = getattr(module, "filter_jit", None)
    if current is None or hasattr(current, "_jitcheck_recorder_original"):
        return
    hooked = _hooked_filter_jit(current)
    _originals["equinox.filter_jit"] = current
    module.filter_jit = hooked
    if jit_module is not None and getattr(jit_module, "filter_jit", None) is current:
        setattr(jit_module, "filter_jit", hooked)


_HOOKED = {
    "jax._src.pjit": ("_cpp_pjit", "_trace_for_jit", "_pjit_call_impl_python"),
    "jax._src.pmap": ("_pmap_wrap_init",),
}
"""The private functions of jax the recorder replaces while it records."""


def install() -> None:
    """Start recording (idempotent): hook jax's jit building, tracing and compiling, and ``equinox.filter_jit``."""
    import jax
    import jax.monitoring
    from jax._src import pjit
    from jax._src import pmap as pmap_module

    missing = [f"{module}.{name}" for module, names in _HOOKED.items() for name in names if not hasattr(importlib.import_module(module), name)]
    if missing:
        raise RuntimeError(
            f"the recompile recorder cannot hook this jax ({jax.__version__}): {', '.join(missing)} moved or is gone; "
            "it is written for jax 0.10 (pip install 'jax~=0.10.2'); run without the recorder on this jax"
        )
    with _lock:
        if _originals:
            return
        _originals["_cpp_pjit"] = pjit._cpp_pjit
        _originals["_trace_for_jit"] = pjit._trace_for_jit
        _originals["_pjit_call_impl_python"] = pjit._pjit_call_impl_python
        pjit._cpp_pjit = _hooked_cpp_pjit
        pjit._trace_for_jit = _hooked_trace_for_jit
        pjit._pjit_call_impl_python = _hooked_call_impl_python
        _originals["_pmap_wrap_init"] = pmap_module._pmap_wrap_init
        pmap_module._pmap_wrap_init = _hooked_pmap_wrap_init
        if not _state["listening"]:
            jax.monitoring.register_event_duration_secs_listener(_on_event)
            _state["listening"] = True
    from jitcheck.debug.import_watch import when_imported

    when_imported("equinox", _patch_equinox)


_state = {"listening": False}


def uninstall() -> None:
    """Stop recording and put jax's and equinox's functions back (the records stay)."""
    from jax._src import pjit
    from jax._src import pmap as pmap_module

    with _lock:
        if not _originals:
            return
        pmap_module._pmap_wrap_init = _originals.pop("_pmap_wrap_init")
        pjit._cpp_pjit = _originals.pop("_cpp_pjit")
        pjit._trace_for_jit = _originals.pop("_trace_for_jit")
        pjit._pjit_call_impl_python = _originals.pop("_pjit_call_impl_python")
        original = _originals.pop("equinox.filter_jit", None)
    from jitcheck.debug.import_watch import forget

    forget("equinox", _patch_equinox)
    if original is not None:
        for name in ("equinox", "equinox._jit"):
            module = sys.modules.get(name)
            if module is not None and hasattr(getattr(module, "filter_jit", None), "_jitcheck_recorder_original"):
                setattr(module, "filter_jit", original)


def recording() -> bool:
    """True while the recorder is installed."""
    return bool(_originals)


def clear() -> None:
    """Forget every trace and site recorded so far."""
    with _lock:
        _traces.clear()
        _sites.clear()
        _subjects.clear()
        _by_jaxpr.clear()
        _counts.update(traces=0, dropped=0, unattributed_compiles=0, errors=0)
        _unattributed_seconds[0] = 0.0
        _local.__dict__.pop("last", None)


def traces() -> list[Trace]:
    """The traces recorded, oldest first (the last `KEPT_TRACES`)."""
    with _lock:
        return list(_traces)


def sites() -> list[Site]:
    """Every site recorded, first seen first."""
    with _lock:
        return list(_sites.values())


def counts() -> dict[str, Any]:
    """Totals the per-site records do not hold: traces dropped from the list, compiles no trace claimed, hook errors."""
    with _lock:
        return {**_counts, "unattributed_seconds": _unattributed_seconds[0]}


__all__ = ["KEPT_TRACES", "SUBJECTS_KEPT", "Site", "Trace", "clear", "counts", "install", "recording", "set_context", "sites", "traces", "uninstall"]
