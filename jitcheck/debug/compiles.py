"""Every compile of a plain ``jax.jit``, ``jax.pmap`` or ``eqx.filter_jit`` in the user's packages, attributed.

jax's own ``jax_explain_cache_misses`` reports a cache miss from inside jax, with
whole reprs. In debug mode, `install` replaces ``jax.jit``, ``jax.pmap`` and
``equinox.filter_jit`` with versions that, when called from the user's code (the
packages debug mode checks, or any code that is not a library when none are
named), jit the same function through a traced wrapper: jax still builds and
caches the program exactly as before (the same function object, or an equal one,
keys the same cache entry), but each trace reports its cache key argument by
argument to the retrace tracker. A compile is thus counted under the user's
function and source line (`compile_records`), and a retrace is explained by the
argument that changed: a rebuilt callable or a changed static argument with the
rule and its fix (JC503 plus JC10x/JC20x). Calls from libraries (jax itself,
jitcheck, equinox's internals) get the original. With debug mode off nothing is
replaced, so nothing costs anything.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import sys
import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from jitcheck.debug.import_watch import forget, when_imported
from jitcheck.debug.location import Location, is_library, user_frame

KEPT = 1024
"""The most distinct (function, line) compile records kept."""

_lock = threading.Lock()
_installed: dict[str, Any] = {}
_packages: set[str] = set()
_COMPILES: collections.OrderedDict[Hashable, CompileRecord] = collections.OrderedDict()


@dataclasses.dataclass(frozen=True)
class CompileRecord:
    """A function jitted in the user's code, traced (compiled) ``count`` times from ``location``."""

    transformation: str
    function: str
    location: Location | None
    count: int = 1

    def __str__(self) -> str:
        where = f"{self.location}" if self.location is not None else "<unknown>"
        times = f"{self.count} compile{'s' if self.count != 1 else ''}"
        return f"{where}: {self.transformation} of `{self.function}`: {times}"


def compile_records() -> list[CompileRecord]:
    """Every (function, call line) compiled through a replaced ``jax.jit``/``pmap``/``filter_jit``, first seen first."""
    with _lock:
        return list(_COMPILES.values())


def clear_compile_records() -> None:
    """Forget the compile records."""
    with _lock:
        _COMPILES.clear()


def _count(transformation: str, name: str) -> None:
    location = user_frame(sys._getframe(2))
    key = (transformation, name, location)
    with _lock:
        found = _COMPILES.get(key)
        _COMPILES[key] = (
            CompileRecord(transformation, name, location)
            if found is None
            else dataclasses.replace(found, count=found.count + 1)
        )
        while len(_COMPILES) > KEPT:
            _COMPILES.popitem(last=False)


def _from_user(depth: int = 2) -> bool:
    """True when the caller ``depth`` frames up is the user's code: a checked package, or not a library."""
    frame = sys._getframe(depth)
    module = frame.f_globals.get("__name__", "")
    module = module if isinstance(module, str) else ""
    if _packages:
        return module.split(".", 1)[0] in _packages or module == "__main__"
    return not is_library(module, frame.f_code.co_filename)


def _traced(fn: Callable[..., Any], transformation: str) -> Callable[..., Any]:
    """``fn`` wrapped so that each trace is counted and its cache key reported (the same wrapper for an equal ``fn``)."""
    from jitcheck.core.keys import describe
    from jitcheck.debug.owners import owner_for, traced_for

    owner = owner_for(fn)
    traced = traced_for(fn, owner)
    counted = getattr(traced, "_jitcheck_counted", None)
    if counted is not None:
        return counted  # type: ignore[no-any-return]
    name = describe(fn)

    @functools.wraps(fn)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        _count(transformation, name)
        return traced(*args, **kwargs)

    traced._jitcheck_counted = compiled  # type: ignore[attr-defined]
    compiled._jitcheck_traced = True  # type: ignore[attr-defined]  # the recompile recorder looks through it
    return compiled


def _replace_jit(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def jit(fun: Any = _MISSING, /, **options: Any) -> Any:
        if fun is _MISSING:  # @jax.jit(static_argnums=...): decide at the decoration, from here
            user = _from_user()
            return lambda f: original(_traced(f, "jax.jit") if user and callable(f) else f, **options)
        if callable(fun) and _from_user():
            return original(_traced(fun, "jax.jit"), **options)
        return original(fun, **options)

    jit._jitcheck_original = original  # type: ignore[attr-defined]
    return jit


def _replace_pmap(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def pmap(fun: Any = _MISSING, *args: Any, **options: Any) -> Any:
        if fun is _MISSING:
            user = _from_user()
            return lambda f: original(_traced(f, "jax.pmap") if user and callable(f) else f, *args, **options)
        if callable(fun) and _from_user():
            return original(_traced(fun, "jax.pmap"), *args, **options)
        return original(fun, *args, **options)

    pmap._jitcheck_original = original  # type: ignore[attr-defined]
    return pmap


def _replace_filter_jit(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def filter_jit(fun: Any = _MISSING, **options: Any) -> Any:
        if fun is _MISSING:
            user = _from_user()
            return lambda f: original(_traced(f, "eqx.filter_jit") if user and callable(f) else f, **options)
        if callable(fun) and _from_user():
            return original(_traced(fun, "eqx.filter_jit"), **options)
        return original(fun, **options)

    filter_jit._jitcheck_original = original  # type: ignore[attr-defined]
    return filter_jit


class _Missing:
    def __repr__(self) -> str:
        return "<not given>"


_MISSING: Any = _Missing()


def _patch_equinox(module: Any) -> None:
    current = getattr(module, "filter_jit", None)
    if current is None or hasattr(current, "_jitcheck_original"):
        return
    module.filter_jit = _replace_filter_jit(current)
    _installed["equinox.filter_jit"] = current


def install(packages: Iterable[str] = ()) -> None:
    """Replace ``jax.jit``, ``jax.pmap`` and ``equinox.filter_jit`` (now or when equinox is imported); idempotent.

    ``packages``: the top-level packages whose calls are counted (added to those of
    earlier calls); none means every caller that is not a library.
    """
    import jax

    _packages.update(p.split(".", 1)[0] for p in packages)
    if "jax.jit" not in _installed:
        _installed["jax.jit"] = jax.jit
        jax.jit = _replace_jit(jax.jit)
    if "jax.pmap" not in _installed:
        _installed["jax.pmap"] = jax.pmap
        jax.pmap = _replace_pmap(jax.pmap)
    when_imported("equinox", _patch_equinox)


def uninstall() -> None:
    """Put the original ``jax.jit``, ``jax.pmap`` and ``equinox.filter_jit`` back."""
    import jax

    if "jax.jit" in _installed:
        jax.jit = _installed.pop("jax.jit")
    if "jax.pmap" in _installed:
        jax.pmap = _installed.pop("jax.pmap")
    if "equinox.filter_jit" in _installed:
        setattr(sys.modules["equinox"], "filter_jit", _installed.pop("equinox.filter_jit"))
    forget("equinox", _patch_equinox)
    _packages.clear()


def installed() -> bool:
    """True while ``jax.jit`` is replaced."""
    return "jax.jit" in _installed


__all__ = ["CompileRecord", "KEPT", "clear_compile_records", "compile_records", "install", "installed", "uninstall"]
