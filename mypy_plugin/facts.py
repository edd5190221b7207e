"""What a class's own definition says about hashing, read from mypy's view of it.

Python decides at class creation whether instances hash: a body that defines
``__eq__`` without ``__hash__`` gets ``__hash__ = None``, ``@dataclass`` with
``eq=True, frozen=False`` sets it to None, a frozen one generates it. mypy models
none of this (its ``Hashable`` protocol sees ``object.__hash__``), so the plugin
reads it from the class: its body, its decorators and dataclass_transform bases.

Some of it is syntax that mypy does not keep in its cache (decorator keywords such
as ``eq=False``, ``__hash__ = None`` before inference), so :func:`record` stores it
in the class's plugin metadata while the class is analysed, and :func:`class_facts`
reads that record first: a class judged from the cache is judged the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Final

from mypy.nodes import (
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Decorator,
    DictExpr,
    Expression,
    FuncBase,
    MemberExpr,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    Statement,
    StrExpr,
    TempNode,
    TypeInfo,
    Var,
)
from mypy.semanal_shared import find_dataclass_transform_spec
from mypy.types import NoneType, UnboundType, get_proper_type

METADATA_KEY: Final = "jitcheck"
FROZEN_BASE: Final = "jitcheck.core.frozen.Frozen"
"""jitcheck's `Frozen`: a dataclass_transform base whose subclasses set ``eq`` from their body."""

_KEYWORDS: Final = ("eq", "frozen", "unsafe_hash", "hash", "cmp")
_DATACLASS_DECORATORS: Final = frozenset({"dataclasses.dataclass"})
ATTRS_MODULES: Final = frozenset({"attr", "attrs"})
_ATTRS_DECORATORS: Final = frozenset({"s", "attrs", "attributes", "dataclass", "define", "mutable", "frozen"})
_ATTRS_BARE: Final = frozenset({"define", "mutable", "frozen"})
"""attrs decorators by their last name; the bare names are recognised unqualified too (``from attrs import define``)."""
BASE_MODEL: Final = "pydantic.main.BaseModel"
_MODEL_CONFIGS: Final = frozenset({"ConfigDict", "SettingsConfigDict", "dict"})


@dataclasses.dataclass(frozen=True)
class ClassFacts:
    """One class's own statements about equality and hashing (not its bases')."""

    name: str
    fullname: str
    hash: str | None = None
    """``"defined"`` (a ``__hash__`` in the body), ``"none"`` (``__hash__ = None``) or None."""
    defines_eq: bool = False
    is_stub: bool = False
    """Defined in a ``.pyi`` stub: stubs leave out an inherited ``__hash__``, so ``__eq__`` alone proves nothing."""
    dataclass: DataclassParams | None = None
    model_frozen: bool | None = None
    """A pydantic model's own ``frozen`` setting (``model_config``, a class keyword), None when it sets none."""
    is_protocol: bool = False


DATACLASS: Final = "dataclass"
ATTRS: Final = "attrs"
ATTR_S: Final = "attr.s"
PYDANTIC: Final = "pydantic"


@dataclasses.dataclass(frozen=True)
class DataclassParams:
    """The parameters that decide the ``__hash__`` of a dataclass, an attrs class or a pydantic model."""

    eq: bool = True
    frozen: bool = False
    unsafe_hash: bool = False
    kind: str = DATACLASS
    """``"dataclass"`` (and dataclass_transform classes), ``"attrs"``, ``"attr.s"`` or ``"pydantic"``: the fix is written for it."""
    keeps_hash: bool = False
    """attrs' ``hash=False``: no ``__hash__`` written, the inherited one (identity) kept."""

    @property
    def generates_hash(self) -> bool:
        """The decorator writes a ``__hash__`` from the fields."""
        return self.unsafe_hash or (self.eq and self.frozen)

    @property
    def clears_hash(self) -> bool:
        """The decorator sets ``__hash__`` to None (unless the body defines one)."""
        return self.eq and not self.frozen and not self.unsafe_hash and not self.keeps_hash


def record(defn: ClassDef, is_stub: bool) -> None:
    """Keep what the class's syntax says about hashing in its metadata (cached by mypy), when it says something."""
    hash_state, defines_eq, model = _body_facts(defn.defs.body, is_stub)
    keywords = _keywords(defn) if defn.decorators or defn.keywords else {}
    if not (defn.decorators or keywords or hash_state is not None or defines_eq or model is not None):
        return
    defn.info.metadata[METADATA_KEY] = {
        "keywords": keywords,
        "hash": hash_state,
        "defines_eq": defines_eq,
        "is_stub": is_stub,
        "decorators": _decorator_names(defn),
        "model_frozen": model,
    }


_TYPING_MODULES: Final = frozenset({"typing", "typing_extensions"})
_TYPING_DECORATORS: Final = frozenset({"final", "type_check_only", "disjoint_base", "runtime_checkable", "deprecated"})
"""Class decorators of ``typing`` that say nothing about equality or hashing."""


def symbols_suffice(info: TypeInfo) -> bool:
    """Whether a class's syntax adds nothing to its symbols, for judging it: nothing to record.

    mypy keeps ``__eq__``, ``__hash__`` and ``__hash__: ClassVar[None]`` as symbols in its
    cache; what it does not keep is class keywords, the decorators that make a dataclass
    or an attrs class (with their keywords), and a pydantic model's ``model_config``. So a
    class with no keywords, whose decorators are typing's or resolved to anything else,
    and that is no pydantic model, is fully described by its symbols.
    """
    defn = info.defn
    if defn.keywords:
        return False
    for decorator in defn.decorators:
        callee = _callee(decorator)  # @deprecated("...") too
        if not isinstance(callee, RefExpr):
            return False
        if not callee.fullname:
            if not (isinstance(callee, (NameExpr, MemberExpr)) and callee.name in _TYPING_DECORATORS):
                return False  # not resolved yet: what it is cannot be told
        elif callee.fullname.rpartition(".")[0] not in _TYPING_MODULES and (
            callee.fullname in _DATACLASS_DECORATORS
            or _attrs_style(callee.fullname) is not None
            or find_dataclass_transform_spec(decorator) is not None
        ):
            return False
    return not info.has_base(BASE_MODEL)


def decorators_resolved(defn: ClassDef) -> bool:
    """Whether mypy has resolved every decorator of the class: its record then says all it will say."""
    for decorator in defn.decorators:
        callee = _callee(decorator)
        if not (isinstance(callee, RefExpr) and callee.fullname):
            return False
    return True


def class_facts(info: TypeInfo, is_stub: Callable[[str], bool], is_library: Callable[[str], bool]) -> ClassFacts:
    """The facts of ``info``: from its record when there is one, else from mypy's symbols.

    ``is_stub`` tells whether a module is a stub, for classes without a record;
    ``is_library`` whether it is one of typeshed's or an installed package's, whose
    unrecorded classes are judged from their symbols even while their syntax is at hand
    (analysed before any user code, so the symbols are complete), as from a cache.
    """
    recorded = info.metadata.get(METADATA_KEY)
    if recorded is not None:
        keywords: dict[str, bool] = dict(recorded.get("keywords", {}))
        hash_state = recorded.get("hash")
        defines_eq = bool(recorded.get("defines_eq"))
        stub = bool(recorded.get("is_stub"))
        decorators: list[str] = list(recorded.get("decorators", []))
        model_frozen = recorded.get("model_frozen")
    elif info.defn.defs.body and not is_library(info.module_name):
        # Analysed in this run, not recorded (nothing notable, or a class mypy builds
        # without the MRO hook): its syntax is at hand.
        keywords = _keywords(info.defn)
        stub = is_stub(info.module_name)
        hash_state, defines_eq, model_frozen = _body_facts(info.defn.defs.body, stub)
        decorators = _decorator_names(info.defn)
    else:
        keywords = {}
        hash_state, defines_eq = _symbol_facts(info)
        stub = is_stub(info.module_name)
        decorators, model_frozen = [], None
    if "frozen" in keywords and any(b.fullname == BASE_MODEL for b in info.mro[1:]):
        model_frozen = keywords["frozen"]  # class Model(BaseModel, frozen=True)
    return ClassFacts(
        name=info.name,
        fullname=info.fullname,
        hash=hash_state,
        defines_eq=defines_eq,
        is_stub=stub,
        dataclass=_attrs_params(info, keywords, decorators) or _dataclass_params(info, keywords, defines_eq),
        model_frozen=model_frozen,
        is_protocol=info.is_protocol,
    )


def _attrs_params(info: TypeInfo, keywords: dict[str, bool], decorators: list[str]) -> DataclassParams | None:
    """An attrs class's parameters, from its decorator (as attrs decides ``__hash__``), else None."""
    style = next((s for s in map(_attrs_style, decorators) if s is not None), None)
    stored = info.metadata.get("attrs")
    if style is None and stored is None:
        return None
    if stored is not None and "frozen" in stored:
        frozen = bool(stored["frozen"])
    else:
        frozen = style == "frozen" or keywords.get("frozen", False)
    hashing = keywords.get("unsafe_hash", keywords.get("hash"))
    return DataclassParams(
        eq=keywords.get("eq", keywords.get("cmp", True)),
        frozen=frozen,
        unsafe_hash=hashing is True,
        kind=ATTR_S if style == ATTR_S else ATTRS,
        keeps_hash=hashing is False,
    )


def _attrs_style(name: str) -> str | None:
    """``"frozen"``, ``"attr.s"`` or ``"mutable"`` for an attrs class decorator's name, None for another decorator."""
    parts = name.split(".")
    if (parts[0] in ATTRS_MODULES and parts[-1] in _ATTRS_DECORATORS and len(parts) > 1) or name in _ATTRS_BARE:
        if parts[-1] == "frozen":
            return "frozen"
        return ATTR_S if parts[-1] in ("s", "attrs", "attributes", "dataclass") else "mutable"
    return None


def model_frozen(info: TypeInfo, is_stub: Callable[[str], bool], is_library: Callable[[str], bool]) -> bool | None:
    """Whether a pydantic model is frozen (its own or an inherited setting); None for another class."""
    if not info.has_base(BASE_MODEL):
        return None
    for base in info.mro:
        if base.fullname == BASE_MODEL:
            break
        own = class_facts(base, is_stub, is_library).model_frozen
        if own is not None:
            return own
    stored = info.metadata.get("pydantic-mypy-metadata", {}).get("config", {}).get("frozen")
    return bool(stored)


def _dataclass_params(info: TypeInfo, keywords: dict[str, bool], defines_eq: bool) -> DataclassParams | None:
    if info.has_base(BASE_MODEL):
        return None  # a pydantic model: see model_frozen
    spec = None
    is_dataclass = "dataclass" in info.metadata or "dataclass_tag" in info.metadata
    for decorator in info.defn.decorators:
        callee = _callee(decorator)
        if isinstance(callee, RefExpr) and (
            callee.fullname in _DATACLASS_DECORATORS
            or (not callee.fullname and isinstance(callee, (NameExpr, MemberExpr)) and callee.name == "dataclass")
        ):
            # Not analysed yet (the class is judged while its own module is analysed): by name.
            is_dataclass = True
        found = find_dataclass_transform_spec(decorator)
        if found is not None:
            is_dataclass, spec = True, found
    if spec is None and info.mro:
        spec = find_dataclass_transform_spec(info)
        is_dataclass = is_dataclass or spec is not None
    if not is_dataclass:
        return None
    stored = info.metadata.get("dataclass")
    frozen_default = spec.frozen_default if spec is not None else False
    eq_default = spec.eq_default if spec is not None else True
    if any(base.fullname == FROZEN_BASE for base in info.mro[1:]):
        # Frozen.__init_subclass__ keeps a body's own __eq__ (eq=False) and then the
        # body's implicit `__hash__ = None` stands.
        eq_default = not defines_eq
    frozen = bool(stored["frozen"]) if stored is not None and "frozen" in stored else keywords.get("frozen", frozen_default)
    return DataclassParams(
        eq=keywords.get("eq", eq_default),
        frozen=frozen,
        unsafe_hash=keywords.get("unsafe_hash", False),
    )


def _keywords(defn: ClassDef) -> dict[str, bool]:
    """``eq``/``frozen``/``unsafe_hash`` written as decorator arguments or class keywords."""
    found: dict[str, bool] = {}
    sources: list[tuple[str | None, Expression]] = []
    for decorator in defn.decorators:
        if isinstance(decorator, CallExpr):
            sources.extend(zip(decorator.arg_names, decorator.args))
    sources.extend(defn.keywords.items())
    for name, value in sources:
        if name in _KEYWORDS and isinstance(value, NameExpr) and value.name in ("True", "False"):
            found[name] = value.name == "True"
    return found


def _decorator_names(defn: ClassDef) -> list[str]:
    """Each class decorator's full name when mypy has resolved it, else as written (``attrs.define``)."""
    names = []
    for decorator in defn.decorators:
        callee = _callee(decorator)
        if isinstance(callee, RefExpr) and callee.fullname:
            names.append(callee.fullname)
        elif isinstance(callee, NameExpr):
            names.append(callee.name)
        elif isinstance(callee, MemberExpr) and isinstance(callee.expr, NameExpr):
            names.append(f"{callee.expr.name}.{callee.name}")
    return names


def _body_facts(body: list[Statement], is_stub: bool) -> tuple[str | None, bool, bool | None]:
    """(what the body says of ``__hash__``, whether it defines ``__eq__``, a pydantic ``frozen``), from syntax.

    In a stub, ``__hash__: ClassVar[None]`` declares an unhashable class; in source, an
    annotation without a value sets nothing and is left out. ``frozen`` is the first one
    written in a ``model_config = ConfigDict(...)`` / ``{...}`` or a v1 ``class Config``.
    One pass over the body, with no call per statement: it runs for every class mypy
    analyses that :func:`symbols_suffice` does not spare, jax's generated classes included.
    """
    hash_state: str | None = None
    defines_eq = False
    model: bool | None = None
    model_found = False
    for statement in body:
        if isinstance(statement, FuncBase):
            name = statement.name
        elif isinstance(statement, Decorator):
            name = statement.func.name
        elif isinstance(statement, AssignmentStmt):
            names = [lv.name for lv in statement.lvalues if isinstance(lv, NameExpr)]
            if "__hash__" in names and not (isinstance(statement.rvalue, TempNode) and not is_stub):
                hash_state = "none" if _is_none(statement) else "defined"
            if "model_config" in names and not model_found:
                model_found, model = _config_frozen(statement.rvalue)
            continue
        elif isinstance(statement, ClassDef) and statement.name == "Config" and not model_found:
            for inner in statement.defs.body:
                if isinstance(inner, AssignmentStmt) and any(isinstance(lv, NameExpr) and lv.name == "frozen" for lv in inner.lvalues):
                    model_found, model = True, _bool(inner.rvalue)
                    break
            continue
        else:
            continue
        if name == "__eq__":
            defines_eq = True
        elif name == "__hash__":
            hash_state = "defined"
    return hash_state, defines_eq, model


def _config_frozen(value: Expression) -> tuple[bool, bool | None]:
    """Whether a ``model_config`` value writes ``frozen``, and what (None: not a literal bool)."""
    if isinstance(value, CallExpr) and isinstance(value.callee, (NameExpr, MemberExpr)) and value.callee.name in _MODEL_CONFIGS:
        for name, arg in zip(value.arg_names, value.args):
            if name == "frozen":
                return True, _bool(arg)
    elif isinstance(value, DictExpr):
        for key, arg in value.items:
            if isinstance(key, StrExpr) and key.value == "frozen":
                return True, _bool(arg)
    return False, None


def _callee(decorator: Expression) -> Expression:
    """What a decorator names: ``f`` for ``@f`` and for ``@f(...)``."""
    return decorator.callee if isinstance(decorator, CallExpr) else decorator


def _bool(expr: Expression) -> bool | None:
    return expr.name == "True" if isinstance(expr, NameExpr) and expr.name in ("True", "False") else None


def _is_none(statement: AssignmentStmt) -> bool:
    """``__hash__ = None``, ``__hash__: None`` or ``__hash__: ClassVar[None]``."""
    value = statement.rvalue
    if isinstance(value, NameExpr):
        return value.name == "None"
    if isinstance(value, TempNode):
        annotation = statement.unanalyzed_type
        if isinstance(annotation, UnboundType) and annotation.name.endswith("ClassVar") and annotation.args:
            annotation = annotation.args[0]
        if isinstance(annotation, UnboundType):
            return annotation.name == "None"
        return annotation is not None and isinstance(get_proper_type(annotation), NoneType)
    return False


def _symbol_facts(info: TypeInfo) -> tuple[str | None, bool]:
    """The same facts from the class's symbol table (classes with no syntax at hand)."""
    hash_state: str | None = None
    symbol = info.names.get("__hash__")
    if symbol is not None and not symbol.plugin_generated:
        node = symbol.node
        if isinstance(node, Var):
            typ = get_proper_type(node.type) if node.type is not None else None
            hash_state = "none" if isinstance(typ, NoneType) else "defined"
        elif node is not None:
            hash_state = "defined"
    eq = info.names.get("__eq__")
    defines_eq = eq is not None and not eq.plugin_generated and isinstance(eq.node, (FuncBase, Decorator, OverloadedFuncDef))
    return hash_state, defines_eq


__all__ = ["ATTRS", "DATACLASS", "PYDANTIC", "ClassFacts", "DataclassParams", "METADATA_KEY", "class_facts", "model_frozen", "decorators_resolved", "record", "symbols_suffice"]
