"""Where jitted functions and their static positions are found, without judging anything.

The names mypy reports ``jax.jit``, ``jax.pmap`` and their wrappers under, and the
static positions of a module's jitted functions read from its source with :mod:`ast`
once per module (``@partial(jax.jit, static_argnames=...)``, ``@jax.jit(static_argnums=...)``,
``@partial(jax.pmap, static_broadcasted_argnums=...)``, ``@eqx.filter_jit``), so that a
function imported from a module mypy reads from its cache is judged as when that module
was checked. Kept apart from :mod:`.jit`, which judges the calls, so that the plugin
loads the judging modules only when it has something to judge.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from typing import Final

from mypy.nodes import CallExpr, Decorator, Expression, RefExpr

JIT_WRAPPER_CALL: Final = "jax._src.pjit.JitWrapped.__call__"
"""The method mypy checks a call of a ``jax.jit`` result through."""

JIT_BUILDERS: Final = {"jax._src.api.jit": "jax.jit", "jax._src.pmap.pmap": "jax.pmap", "jax._src.api.pmap": "jax.pmap"}
"""Functions whose first argument becomes a jitted wrapper, by full name, with the name users write."""

JIT_WRAPPER: Final = "jax._src.pjit.JitWrapped"
"""The type ``jax.jit`` returns (``lower``, ``trace``, ``__call__`` of anything)."""

PARTIAL_CALL: Final = "functools.partial.__call__"
_PMAP_BUILDERS: Final = frozenset(name for name, written in JIT_BUILDERS.items() if written == "jax.pmap")

_JIT_NAMES: Final = frozenset({"jit", "pmap"})
_FILTER_NAMES: Final = frozenset({"filter_jit", "filter_pmap"})
_STATIC_NUMS: Final = ("static_argnums", "static_broadcasted_argnums")


@dataclasses.dataclass(frozen=True)
class StaticSpec:
    """Which arguments of a jitted function are static, from its decorator."""

    wrapper: str
    """The decorator as users write it (``jax.jit``, ``eqx.filter_jit``)."""
    argnums: frozenset[int] = frozenset()
    argnames: frozenset[str] = frozenset()
    every_leaf: bool = False
    """``eqx.filter_jit``: every non-array leaf is static."""


class SourceSpecs:
    """The static specs of the jitted functions of each module, read from its source once."""

    def __init__(self) -> None:
        self._by_path: dict[str, dict[str, StaticSpec]] = {}

    def spec(self, path: str | None, name: str) -> StaticSpec | None:
        """The spec of module-level function ``name`` in the module at ``path``, None if not jitted with static arguments."""
        if not path or not path.endswith(".py"):
            return None
        specs = self._by_path.get(path)
        if specs is None:
            specs = self._by_path[path] = _read_specs(path)
        return specs.get(name)


_SPEC_MARKERS: Final = (b"static_arg", b"static_broadcasted", b"filter_jit", b"filter_pmap")
"""Text every spec's decorator contains (a static keyword, or equinox's filter): a module without any has none."""


def _read_specs(path: str) -> dict[str, StaticSpec]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if not any(marker in data for marker in _SPEC_MARKERS):
            return {}  # most modules: no parse
        tree = ast.parse(data, path)
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, StaticSpec] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in statement.decorator_list:
                spec = _decorator_spec(decorator)
                if spec is not None:
                    found[statement.name] = spec
                    break
    return found


def _last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def _decorator_spec(decorator: ast.expr) -> StaticSpec | None:
    """The spec a decorator gives: ``jax.jit(...)``, ``partial(jax.jit, ...)``, ``eqx.filter_jit``."""
    if _last_name(decorator) in _FILTER_NAMES:
        return StaticSpec(f"eqx.{_last_name(decorator)}", every_leaf=True)
    if not isinstance(decorator, ast.Call):
        return None
    callee = _last_name(decorator.func)
    if callee in _FILTER_NAMES:
        return StaticSpec(f"eqx.{callee}", every_leaf=True)
    if callee == "partial" and decorator.args and _last_name(decorator.args[0]) in _JIT_NAMES | _FILTER_NAMES:
        inner = _last_name(decorator.args[0])
        if inner in _FILTER_NAMES:
            return StaticSpec(f"eqx.{inner}", every_leaf=True)
        return _keywords_spec(f"jax.{inner}", decorator.keywords)
    if callee in _JIT_NAMES:
        return _keywords_spec(f"jax.{callee}", decorator.keywords)
    return None


def _keywords_spec(wrapper: str, keywords: list[ast.keyword]) -> StaticSpec | None:
    nums: set[int] = set()
    names: set[str] = set()
    for keyword in keywords:
        values = _literal(keyword.value)
        if keyword.arg in _STATIC_NUMS:
            nums.update(v for v in values if isinstance(v, int))
        elif keyword.arg == "static_argnames":
            names.update(v for v in values if isinstance(v, str))
    if not nums and not names:
        return None
    return StaticSpec(wrapper, frozenset(nums), frozenset(names))


def _literal(expr: ast.expr) -> list[object]:
    try:
        value = ast.literal_eval(expr)
    except ValueError:
        return []
    return list(value) if isinstance(value, (tuple, list)) else [value]


def applies_static_pmap(decorator: Decorator) -> bool:
    """Whether ``decorator`` applies ``functools.partial(jax.pmap, static_broadcasted_argnums=...)``.

    jax types ``pmap`` as returning ``Any``, and mypy hands calls of ``Any`` to no plugin:
    the plugin gives such a function :data:`JIT_WRAPPER`'s type instead, so that its
    static arguments are judged where it is called.
    """
    for expr in decorator.decorators:
        if (
            isinstance(expr, CallExpr)
            and isinstance(expr.callee, RefExpr)
            and expr.callee.fullname == "functools.partial"
            and expr.args
            and isinstance(expr.args[0], RefExpr)
            and expr.args[0].fullname in _PMAP_BUILDERS
            and "static_broadcasted_argnums" in expr.arg_names
        ):
            return True
    return False


def refers_to_decorator(expr: Expression) -> Decorator | None:
    """The decorated function ``expr`` names, if it does."""
    if isinstance(expr, RefExpr) and isinstance(expr.node, Decorator):
        return expr.node
    return None


def module_of(fullname: str, modules: Callable[[str], bool]) -> str | None:
    """The module part of a function's full name (the longest prefix that is a module)."""
    head = fullname
    while "." in head:
        head = head.rpartition(".")[0]
        if modules(head):
            return head
    return None


__all__ = [
    "JIT_BUILDERS",
    "JIT_WRAPPER",
    "JIT_WRAPPER_CALL",
    "PARTIAL_CALL",
    "SourceSpecs",
    "StaticSpec",
    "applies_static_pmap",
    "module_of",
    "refers_to_decorator",
]
