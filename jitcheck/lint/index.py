"""The project index: what every module of a run defines, so one file's names resolve in another's.

A file's *summary* is read with Python's C-speed ``ast`` (no libcst, no import): its
imports, its classes (bases, methods and their kinds, instance attributes and the
classes they hold) and its functions (jitted or not, with which static arguments,
and whether each call returns a fresh function: a factory). Summaries are plain JSON
values, cached by file content like the findings. :class:`ProjectIndex` joins them
by module name and answers the resolver's questions ("is ``pkg.env.Env.step`` a
method?", "what does ``pkg.make_step`` return?"), reading an installed package's
source (never importing it) when the code imports one the run does not check.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib.machinery
import json
import keyword
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from jitcheck.lint import depcache
from jitcheck.lint.astwalk import children, walk
from jitcheck.lint.callers import Site, call_records, call_sites
from jitcheck.lint.pytrees import compares_by_identity, made_in_init, registered
from jitcheck.lint.spelling import annotation_name as _annotation_name
from jitcheck.lint.spelling import dotted as _dotted

Summary = dict[str, Any]
"""``{"imports": {local: qualified}, "classes": {name: {...}}, "functions": {name: {...}}}``."""

_JIT_LAST = frozenset({"jit", "pmap", "pjit", "filter_jit"})
_PARTIAL_LAST = frozenset({"partial", "Partial"})
_TRANSFORMATION_LAST = frozenset({"grad", "value_and_grad", "vmap", "jacfwd", "jacrev", "hessian", "checkpoint", "remat"})
UNNAMED_MODULE = "\x00module"
"""The index's name for a module without a dotted name of its own (a notebook, a text judged alone): a NUL
cannot stand in Python source, so no summary's text spells it, and no module of the run is taken to name it."""

_KIND_DECORATORS = {"staticmethod": "static", "classmethod": "class", "property": "property", "cached_property": "property"}


def _literal(node: ast.expr) -> list[Any] | None:
    values = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    found = []
    for value in values:
        if not isinstance(value, ast.Constant) or isinstance(value.value, bool):
            return None
        found.append(value.value)
    return found


def _jit_spec(decorator: ast.expr) -> dict[str, Any] | None:
    """``{"nums": [...], "names": [...]}`` for a jit decorator (``@jax.jit``, ``@partial(jax.jit, ...)``), else None;
    with ``"all": True`` for equinox's ``filter_jit``, under which every argument that is not an array is static."""
    keywords: list[ast.keyword] = []
    wrapper: ast.expr = decorator
    if isinstance(decorator, ast.Call):
        head = (_dotted(decorator.func) or "").rsplit(".", 1)[-1]
        if head in _PARTIAL_LAST and decorator.args and (_dotted(decorator.args[0]) or "").rsplit(".", 1)[-1] in _JIT_LAST:
            keywords, wrapper = decorator.keywords, decorator.args[0]
        elif head in _JIT_LAST and not decorator.args:
            keywords, wrapper = decorator.keywords, decorator.func
        else:
            return None
    elif (_dotted(decorator) or "").rsplit(".", 1)[-1] not in _JIT_LAST:
        return None
    nums: list[int] = []
    argnames: list[str] = []
    for keyword in keywords:
        if keyword.arg in ("static_argnums", "static_broadcasted_argnums"):
            values = _literal(keyword.value)
            if values is None:
                return {"nums": None, "names": None}
            nums += [v for v in values if isinstance(v, int)]
        elif keyword.arg == "static_argnames":
            values = _literal(keyword.value)
            if values is None:
                return {"nums": None, "names": None}
            argnames += [v for v in values if isinstance(v, str)]
    if (_dotted(wrapper) or "").rsplit(".", 1)[-1] == "filter_jit":
        return {"nums": nums, "names": argnames, "all": True}
    return {"nums": nums, "names": argnames}


def _fresh_kind(value: ast.expr | None, nested: set[str]) -> str | None:
    """The kind of new function ``value`` is each time it is evaluated in its function, or None."""
    if isinstance(value, ast.Lambda):
        return "lambda"
    if isinstance(value, ast.Name) and value.id in nested:
        return "nested function"
    if isinstance(value, ast.Call):
        last = (_dotted(value.func) or "").rsplit(".", 1)[-1]
        if last in _JIT_LAST and value.args and _fresh_kind(value.args[0], nested) is not None:
            return "jitted function"  # `return jax.jit(inner)`: a new wrapper, with an empty cache, on every call
        if last == "Partial":
            return "pytree partial"  # equinox's or jax.tree_util's: a pytree, found again by value under filter_jit
        if last in _PARTIAL_LAST:
            return "partial"
        if last in _TRANSFORMATION_LAST:
            return "transformed function"
    return None


def _joined(kinds: set[str | None]) -> str | None:
    """One kind for every path: None when some path gives something else (or nothing)."""
    if None in kinds or not kinds:
        return None
    # Every path gives a fresh function, of one kind or several (``return lambda c: v`` on an early
    # exit, ``return schedule`` otherwise): "nested function or lambda".
    return " or ".join(sorted(k for k in kinds if k is not None))


def _returned(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[ast.expr | None], set[str]]:
    """The values of ``function``'s own return statements, and the names of the defs made directly in it. A
    returned name bound once in the function to a jit of a new function (``step = jax.jit(inner); return step``)
    is returned as that jit's call."""
    nested: set[str] = set()
    returned: list[ast.expr | None] = []
    bound: dict[str, list[ast.expr]] = {}
    stack: list[ast.AST] = list(function.body)
    while stack:  # one pass: the defs made directly in this function, and its own return statements
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ClassDef)) or isinstance(node, ast.expr):
            continue
        if isinstance(node, ast.Return):
            returned.append(node.value)
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bound.setdefault(node.targets[0].id, []).append(node.value)
        stack.extend(children(node))
    jits = {name: values[0] for name, values in bound.items() if len(values) == 1 and isinstance(values[0], ast.Call)
            and (_dotted(values[0].func) or "").rsplit(".", 1)[-1] in _JIT_LAST}

    def through(value: ast.expr | None) -> ast.expr | None:
        if isinstance(value, ast.Name) and value.id in jits:
            return jits[value.id]
        if isinstance(value, ast.Tuple) and any(isinstance(e, ast.Name) and e.id in jits for e in value.elts):
            return ast.Tuple(elts=[through(e) or e for e in value.elts], ctx=ast.Load())
        return value

    return [through(value) for value in returned], nested


def _jit_of_first_parameter(node: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str],
                            returned: list[ast.expr | None], nested: set[str]) -> str | None:
    """The jit-like wrapper, as the module spells it (``jax.jit``), of a function that hands its first parameter to
    it and returns what that makes, or a function of its own around it (``def my_jit(fn, **kw): return
    jax.jit(fn, **kw)``): a call of it keys its cache by the function it is handed, as a call of that wrapper does,
    so it is judged as one. None for anything else."""
    if not params or not returned or not all(
            isinstance(value, ast.Call) and (_dotted(value.func) or "").rsplit(".", 1)[-1] in _JIT_LAST
            or isinstance(value, ast.Name) and value.id in nested for value in returned):
        return None  # (most functions: no walk of the body)
    made: list[ast.Call] = []
    stack: list[ast.AST] = list(node.body)
    while stack:  # the function's own code, not the defs, lambdas or classes it makes
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(current, ast.Call) and current.args and isinstance(current.args[0], ast.Name) and \
                current.args[0].id == params[0] and (_dotted(current.func) or "").rsplit(".", 1)[-1] in _JIT_LAST:
            made.append(current)
        stack.extend(children(current))
    if len(made) != 1:
        return None
    if not all(value is made[0] or isinstance(value, ast.Name) and value.id in nested for value in returned):
        return None
    return _dotted(made[0].func)


def fresh_returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """What every call of ``function`` returns when it is a new function each time (a factory's product, as the
    index records it in ``returns``), or None."""
    return _returns(*_returned(function))


def _returns(returned: list[ast.expr | None], nested: set[str]) -> str | None:
    """What every call of a function returns when it is a new function each time, from its ``returned`` values and
    the defs ``nested`` in it (:func:`_returned`): a factory's product."""
    return _joined({_fresh_kind(value, nested) for value in returned})


def _returns_items(returned: list[ast.expr | None], nested: set[str]) -> list[str | None] | None:
    """Per position, what every call of a function returns there when every return is a tuple of one length
    (``return init_fn, apply_fn``): unpacked (``init, apply = make(...)``), each fresh item is a factory's product."""
    if not returned or not all(isinstance(v, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in v.elts)
                               for v in returned):
        return None
    tuples = [v for v in returned if isinstance(v, ast.Tuple)]
    if len({len(t.elts) for t in tuples}) != 1:
        return None
    items = [_joined({_fresh_kind(t.elts[i], nested) for t in tuples}) for i in range(len(tuples[0].elts))]
    return items if any(items) else None


def _types_items(annotation: ast.expr | None, returned: list[ast.expr | None]) -> list[str | None] | None:
    """Per position, the class a function's tuple holds there: by its return annotation (``-> Tuple[Fns, Callable]``,
    ``tuple[Fns, Callable]``), or, unannotated, what every ``return`` of a tuple of one length builds there
    (``return Fns(...), energy_fn``). Unpacked (``neighbor_fn, energy_fn = make(...)``), a name holds that class."""
    if annotation is not None:
        if not (isinstance(annotation, ast.Subscript) and (_dotted(annotation.value) or "").rsplit(".", 1)[-1]
                in ("Tuple", "tuple") and isinstance(annotation.slice, ast.Tuple)):
            return None
        if any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in annotation.slice.elts):
            return None  # `tuple[Env, ...]`: any length, not positions
        items = [_annotation_name(e) for e in annotation.slice.elts]
        return items if any(items) else None
    tuples = [v for v in returned if isinstance(v, ast.Tuple)]
    if not tuples or len(tuples) != len(returned) or len({len(t.elts) for t in tuples}) != 1:
        return None
    made = [_built([t.elts[i] for t in tuples]) for i in range(len(tuples[0].elts))]
    return made if any(made) else None


def _built(values: list[ast.expr | None]) -> str | None:
    """What every one of ``values`` builds, when each is a call of one dotted name (``Model(...)``): a class, if
    indexed; None for anything else."""
    made = {_dotted(value.func) if isinstance(value, ast.Call) else None for value in values}
    return made.pop() if len(made) == 1 else None


_APPLYING_LAST = _JIT_LAST | _TRANSFORMATION_LAST | {"make_jaxpr", "eval_shape", "jvp", "vjp", "linearize"}
"""Last names of jax's functions that apply the function they are handed first (or trace it)."""


def _applies_parameter(node: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> bool:
    """True when ``node`` (or a function it defines) calls one of its parameters ``params``, or hands one first to a
    transformation (``jax.make_jaxpr(fn)``): a transformation of what its caller chooses, not a fixed computation."""
    for inner in walk(node):
        if not isinstance(inner, ast.Call):
            continue
        if isinstance(inner.func, ast.Name) and inner.func.id in params:
            return True
        if inner.args and isinstance(inner.args[0], ast.Name) and inner.args[0].id in params and \
                (_dotted(inner.func) or "").rsplit(".", 1)[-1] in _APPLYING_LAST:
            return True
    return False


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Any]:
    args = node.args
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    facts: dict[str, Any] = {"params": params, "kind": "method"}
    for decorator in node.decorator_list:
        last = (_dotted(decorator.func if isinstance(decorator, ast.Call) else decorator) or "").rsplit(".", 1)[-1]
        if last in _KIND_DECORATORS:
            facts["kind"] = _KIND_DECORATORS[last]
        elif last in ("setter", "getter", "deleter"):
            facts["kind"] = "property"
        spec = _jit_spec(decorator)
        if spec is not None:
            facts["jit"] = spec
        if "cache" in last.lower() or "memo" in last.lower():
            facts["cached"] = True  # `@functools.cache`: one product per argument, kept
    returned, nested = _returned(node)  # one walk of its own returns serves every fact below
    returns = _returns(returned, nested)
    if returns is not None:
        facts["returns"] = returns
    items = _returns_items(returned, nested)
    if items is not None:
        facts["returns_items"] = items
    wrapper = _jit_of_first_parameter(node, params, returned, nested)
    if wrapper is not None:
        facts["jit_of"] = wrapper
    if _jitting(facts) and _applies_parameter(node, {*params, *(a.arg for a in args.kwonlyargs)}):
        facts["transform"] = True  # `forward_laplacian(fn)`: it jits what it is handed, judged where that is chosen
    if facts["kind"] == "class" and params and returned and all(
            isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == params[0] for v in returned):
        facts["maker"] = True  # a classmethod whose every return is `cls(...)`: an instance of its class
    types = _types_items(node.returns, returned)
    if types is not None:
        facts["types_items"] = types
    annotated = _annotation_name(node.returns)
    if annotated is None and node.returns is None:
        built = _built(returned) if returned else None
        if built is not None:
            facts["type"] = built  # every return builds one thing (`return Model(...)`): a class, if indexed
    elif annotated is not None and annotated != "None":
        facts["type"] = annotated  # the class its return annotation names: what a call of it returns
        passed = [i for i, a in enumerate((*args.posonlyargs, *args.args)) if _annotation_name(a.annotation) == annotated]
        if len(passed) == 1:
            facts["same_as"] = passed[0]  # `def f(t: T) -> T`: a call returns what its argument there is
    return facts


_BUILTINS = frozenset(dir(__import__("builtins")))


def _forwards(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[list[Any]]:
    """Where the function hands one of its parameters on unchanged to another function, by name: ``[param,
    callee, position or keyword]`` for each argument of a call in its own body (not in a nested ``def`` or
    lambda) that is a parameter the body never rebinds. The index asks whether that position of the callee is
    static under a jit (:meth:`ProjectIndex.static_forward`): then the parameter is a static argument as well,
    one step away. Callees spelled through a parameter, a local, a builtin or a well-known package's usual name
    are left out: they are not the run's jitted functions. (The module's imports are not read, so a statement
    summarized alone, as the language server does, gives the same facts.)"""
    args = node.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if not params:
        return []
    rebound: set[str] = set()
    calls: list[ast.Call] = []
    local_jits: dict[str, dict[str, Any]] = {}
    made_at: dict[str, int] = {}
    branches: list[ast.If] = []
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            rebound.add(current.name)
            continue
        if isinstance(current, ast.Lambda):
            continue
        if isinstance(current, ast.Name) and not isinstance(current.ctx, ast.Load):
            rebound.add(current.id)
        elif isinstance(current, ast.Call):
            calls.append(current)
        elif isinstance(current, (ast.Global, ast.Nonlocal)):
            rebound.update(current.names)
        elif isinstance(current, ast.If):
            branches.append(current)
        elif isinstance(current, ast.Assign) and len(current.targets) == 1 and isinstance(current.targets[0], ast.Name):
            spec = _made_jit(current.value)
            if spec is not None:
                local_jits[current.targets[0].id] = spec  # `fun = jax.jit(fun, static_argnums=(0, 1))`, then `fun(f, g)`
                made_at[current.targets[0].id] = id(current)
        stack.extend(children(current))
    # A jit made or called under an `if` (`if jit: fun = jax.jit(...)`) is made on the path the caller's arguments
    # choose, which a caller's literal (`jit=False`) may rule out: not followed.
    conditional = {id(inner) for branch in branches for inner in walk(branch)}
    local_jits = {name: spec for name, spec in local_jits.items() if made_at[name] not in conditional}
    found: list[list[Any]] = []
    for call in calls:
        made = local_jits.get(call.func.id) if isinstance(call.func, ast.Name) else _made_jit(call.func)
        if made is not None and id(call) not in conditional:
            # A jit the function makes itself, called with a parameter in a static position: hashed into its key
            # there, whatever function it wraps ("" for the callee: the index has nothing to follow).
            found += [[param, "", where] for param, where in _passed_params(call, params, rebound)
                      if where in made["nums"] or where in made["names"]]
            continue
        spelled = _dotted(call.func)
        if spelled is None:
            continue
        head = spelled.partition(".")[0]
        if head in params or head in rebound or head in ("self", "cls") or head in _EXTERNAL or head in _BUILTINS \
                or spelled == node.name:
            continue
        found += [[param, spelled, where] for param, where in _passed_params(call, params, rebound)]
    return found[:32]


def _made_jit(value: ast.expr) -> dict[str, Any] | None:
    """The static spec of ``jax.jit(f, static_argnums=...)`` (a jit made of a function, with static arguments given
    by literals), else None; never ``filter_jit``, under which only the value passed says what is static."""
    if not isinstance(value, ast.Call) or not value.args or (_dotted(value.func) or "").rsplit(".", 1)[-1] not in _JIT_LAST:
        return None
    spec = _jit_spec(ast.Call(func=value.func, args=[], keywords=value.keywords))
    if spec is None or spec.get("all") or not (spec.get("nums") or spec.get("names")):
        return None
    return spec


def _passed_params(call: ast.Call, params: set[str], rebound: set[str]) -> list[tuple[str, int | str]]:
    """The parameters ``call`` passes on unchanged (never rebound), with where: a position or a keyword."""
    passed: list[tuple[str, int | str]] = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if isinstance(arg, ast.Name) and arg.id in params and arg.id not in rebound:
            passed.append((arg.id, position))
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg is not None and isinstance(value, ast.Name) and value.id in params and value.id not in rebound:
            passed.append((value.id, keyword.arg))
    return passed


def _class(node: ast.ClassDef, walks: dict[int, list[ast.AST]] | None = None) -> dict[str, Any]:
    """The facts of a class (``walks`` receives each method's ``walk``, by ``id``, for the call records' reading)."""
    methods: dict[str, str] = {}
    stored: set[str] = set()
    types: dict[str, str] = {}
    makers: list[str] = []
    static_jits: dict[str, Any] = {}
    static_aliases: dict[str, str] = {}
    factories: dict[str, str] = {}
    jit_methods: dict[str, Any] = {}
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            method = _function(statement)
            methods[statement.name] = method["kind"]
            if method.get("maker"):
                makers.append(statement.name)
            if method["kind"] == "method" and method.get("returns"):
                factories[statement.name] = method["returns"]  # `def _make_rhs(self): ... return rhs`
            if method["kind"] == "method" and _static_jit(method) and not method["jit"].get("all"):
                # `@partial(jax.jit, static_argnums=(0, 7))` on a method: called on an instance elsewhere
                jit_methods[statement.name] = {"params": method["params"], "jit": method["jit"]}
            if method["kind"] == "static" and _static_jit(method):
                # `@staticmethod @partial(jax.jit, static_argnames=...)`: called as `Cls.name(...)`, its positions
                # are the function's own
                static_jits[statement.name] = {"params": method["params"], "jit": method["jit"]}
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            name = statement.target.id
            if isinstance(statement.value, ast.Lambda):
                methods[name] = "method"
            else:
                stored.add(name)
                annotated = _annotation_name(statement.annotation)
                if annotated is not None and annotated.rsplit(".", 1)[-1] not in ("Callable", "ClassVar", "Any"):
                    types[name] = annotated
        elif isinstance(statement, ast.Assign):
            assigned = statement.value
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    if isinstance(assigned, ast.Lambda):
                        methods[target.id] = "method"
                    else:
                        stored.add(target.id)
                    if isinstance(assigned, ast.Call) and _dotted(assigned.func) == "staticmethod" \
                            and len(assigned.args) == 1 and isinstance(assigned.args[0], ast.Name):
                        # `fit = staticmethod(_fit)`: the module's `_fit`, looked up when asked (ProjectIndex.function)
                        static_aliases[target.id] = assigned.args[0].id
    self_calls: dict[str, int] = {}
    defaults: dict[str, str] = {}
    bound: dict[str, list[str]] = {}  # `self.inverse = self._part.inverse`: a member of a part the instance holds
    other: set[str] = set(stored)  # attributes also given another value (class-level ones included)
    made: set[str] = set()  # attributes given a call's result: an object of the instance's own
    for statement in node.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = statement.args.posonlyargs + statement.args.args
        if not params:
            continue
        receiver = params[0].arg
        annotations = {a.arg: _annotation_name(a.annotation) for a in params[1:] if a.annotation is not None}
        nodes = walk(statement)  # one walk for the constructed parameters, the attributes and the call records
        if walks is not None:
            walks[id(statement)] = nodes
        made_locally = _constructed(nodes, {a.arg for a in params[1:]})
        for inner in nodes:
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            annotation: ast.expr | None = None
            if isinstance(inner, ast.Call):
                func = inner.func
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == receiver:
                    self_calls[func.attr] = self_calls.get(func.attr, 0) + 1
                continue
            if isinstance(inner, ast.Assign):
                targets, value = inner.targets, inner.value
            elif isinstance(inner, ast.AnnAssign):
                targets, value, annotation = [inner.target], inner.value, inner.annotation
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver:
                    stored.add(target.attr)
                    part = _self_member(value, receiver)
                    if part is not None and target.attr not in bound:
                        bound[target.attr] = part
                    elif part is None or bound[target.attr] != part:
                        other.add(target.attr)
                    if isinstance(value, ast.Call):
                        made.add(target.attr)
                    held = _annotation_name(annotation)
                    if held is None and isinstance(value, ast.Call):
                        held = _dotted(value.func)
                    if held is None and isinstance(value, ast.Name) and value.id in annotations:
                        held = annotations[value.id]
                    if held is not None:
                        types.setdefault(target.attr, held)
                    if isinstance(value, ast.Name) and value.id in made_locally:
                        defaults.setdefault(target.attr, made_locally[value.id])
    bases = [b for b in (_dotted(base) for base in node.bases) if b is not None]
    facts: dict[str, Any] = {"bases": bases, "methods": methods, "stored": sorted(stored), "types": types}
    if makers:
        facts["makers"] = makers  # classmethods returning `cls(...)`: `Model.create()` is a Model
    if static_jits:
        facts["static_jits"] = static_jits
    if static_aliases:
        facts["static_aliases"] = static_aliases
    if jit_methods:
        facts["jit_methods"] = jit_methods  # jitted methods with static arguments, judged at calls on instances
    if factories:
        facts["factories"] = factories  # methods returning a function they define, anew on each call: what kind
    if node.decorator_list:
        facts["decorated"] = True  # a decorator may give it value equality (dataclass, attrs): not a plain class
    fresh = made_in_init(node)
    if fresh:
        facts["fresh"] = fresh  # `self.data = NodeData()` in `__init__`: an object of each instance's own
    bound = {attr: part for attr, part in bound.items() if attr not in other and part[0] in made}
    if bound:
        facts["bound"] = bound  # `self.a = self.p.m` with `self.p = P(...)`: `a` is `m` of a part built per instance
    if defaults:
        facts["defaults"] = defaults  # `if p is None: p = C()` then `self.a = p`: the class `a` holds by default
    if self_calls:
        facts["self_calls"] = self_calls  # `self.m(...)` calls in its methods, by name: a subclass's reach a base's m
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (_dotted(target) or "").rsplit(".", 1)[-1] == "dataclass":
            options = {k.arg: k.value.value for k in getattr(decorator, "keywords", ())
                       if k.arg and isinstance(k.value, ast.Constant)}
            literal = all(isinstance(k.value, ast.Constant) for k in getattr(decorator, "keywords", ()))
            facts["dataclass"] = {"frozen": bool(options.get("frozen")), "eq": options.get("eq", True) is not False,
                                  "unsafe_hash": bool(options.get("unsafe_hash")), "literal": literal}
    return facts


def _self_member(value: ast.expr | None, receiver: str) -> list[str] | None:
    """``[part, name]`` when ``value`` reads ``receiver.part.name`` (a member of an object the instance holds)."""
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Attribute) \
            and isinstance(value.value.value, ast.Name) and value.value.value.id == receiver:
        return [value.value.attr, value.attr]
    return None


def _constructed(nodes: list[ast.AST], params: set[str]) -> dict[str, str]:
    """The parameters a method rebinds to a constructor call (``if solver is None: solver = Solver()``), each
    with the class its one such call names: the object the parameter holds when the caller passes none
    (``nodes``: the method's ``walk``)."""
    made: dict[str, set[str]] = {}
    for inner in nodes:
        if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name) \
                and inner.targets[0].id in params and isinstance(inner.value, ast.Call):
            spelled = _dotted(inner.value.func)
            if spelled is not None:
                made.setdefault(inner.targets[0].id, set()).add(spelled)
    return {name: next(iter(spelled)) for name, spelled in made.items() if len(spelled) == 1}


def python_tree(source: str | bytes) -> ast.Module | None:
    """Python's own syntax tree of ``source``, or None when Python's parser refuses it (or gives up)."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def summarize(source: str | bytes) -> Summary:
    """The summary of one module's source (an empty one when it does not parse)."""
    tree = python_tree(source)
    if tree is None:
        return {"imports": {}, "classes": {}, "functions": {}}
    return summarize_tree(tree)


def summarize_tree(tree: ast.Module, calls: bool = True) -> Summary:
    """The summary of a module Python's ``ast`` has already parsed (the tree is only read).

    ``calls=False`` leaves out ``loop_calls`` and ``calls``: the language server summarizes each top-level
    statement alone and joins them, and these two are spelled through the whole module's imports, made once for
    the module at the join (:mod:`jitcheck.server.summaries`)."""
    imports: dict[str, str] = {}
    classes: dict[str, Any] = {}
    functions: dict[str, Any] = {}
    stars: list[str] = []
    aliases: dict[str, str] = {}
    records: list[str] = []
    walks: dict[int, list[ast.AST]] = {}  # methods' walks made for their class's facts, read again by the call records
    defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in _top_level(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    imports[top] = top
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    joined = f"{base}.{alias.name}" if node.module else f"{base}{alias.name}"
                    imports[alias.asname or alias.name] = joined
                elif node.module:
                    stars.append(base)  # `from m import *`: m's names, looked up in m when asked
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = _class(node, walks)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts = _function(node)
            facts.pop("kind", None)
            functions[node.name] = facts
            defs.append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Attribute):
                dotted = _dotted(value)
                if dotted is not None:
                    aliases[node.targets[0].id] = dotted  # `jit = jax.jit`, `ops = backend.ops`: another name for it
            if isinstance(value, ast.Call) and (_dotted(value.func) or "").rsplit(".", 1)[-1] in ("namedtuple", "NamedTuple"):
                records.append(node.targets[0].id)  # `Fns = namedtuple("Fns", "f g")`: a class of fields only
            if isinstance(value, ast.Call) and (_dotted(value.func) or "").rsplit(".", 1)[-1] in _JIT_LAST and value.args:
                spec = _jit_spec(ast.Call(func=value.func, args=[], keywords=value.keywords))
                jitted = value.args[0]
                params = functions.get(jitted.id, {}).get("params") if isinstance(jitted, ast.Name) else None
                # `apply = jax.jit(_apply, static_argnums=1)`: the parameters of `_apply` when it is defined above
                functions[node.targets[0].id] = {"params": params, "jit": spec or {"nums": [], "names": []}, "stable": True}
    for function in defs:  # after the loop: a module-level `f = jax.jit(g)` below may name one jitted
        held = functions.get(function.name)
        if held is not None and "jit" not in held:
            forwards = _forwards(function)
            if forwards:
                held["forwards"] = forwards
    summary: Summary = {"imports": imports, "classes": classes, "functions": functions}
    if calls:
        add_pytree_aux(summary, tree)
        looped = loop_calls(tree, imports)
        if looped:
            summary["loop_calls"] = looped
        made = call_records(tree, imports, walks)
        if made:
            summary["calls"] = made
    del walks
    if stars:
        summary["stars"] = stars
    if aliases:
        summary["aliases"] = aliases
    if records:
        summary["records"] = records
    return summary


def add_pytree_aux(summary: Summary, tree: ast.Module) -> None:
    """Record in ``summary`` the attributes each class of the module keeps in its pytree aux data (``"aux"``), as
    the module's registrations say (:mod:`jitcheck.lint.pytrees`): read over the whole module, since a class, its
    flatten function and its registration are separate statements. A class's facts are copied before the change."""
    statements = list(_top_level(tree))
    classes = {node.name: node for node in statements if isinstance(node, ast.ClassDef)}
    functions = {node.name: node for node in statements if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = {name: attributes for name, attributes in registered(statements, classes, functions).items()
             if name in summary["classes"]}
    if found:  # new dicts: a joined summary's (the server's) share theirs with their statements' summaries
        summary["classes"] = {**summary["classes"],
                              **{name: {**summary["classes"][name], "aux": attributes} for name, attributes in found.items()}}


_EXTERNAL = ("jax", "numpy", "jnp", "np", "scipy", "functools", "itertools", "os", "sys", "math", "time", "typing",
             "collections", "optax", "flax", "equinox", "chex", "haiku", "torch", "tensorflow", "pytest", "absl", "unittest")


def loop_calls(tree: ast.Module, imports: Mapping[str, str]) -> list[str]:
    """The imported functions this module calls in a loop (``for T in temps: util.fit(T)``), spelled through its
    imports (``.util.fit``): another module's evidence that they run again and again. Names from well-known
    packages are left out (they are not the run's). Statements are walked, and expressions only inside loops
    and in a comprehension a statement holds (``return [fit(d) for d in data]``): cheap next to the parse."""
    wanted = {local: target for local, target in imports.items() if target.split(".", 1)[0].lstrip(".") not in _EXTERNAL}
    if not wanted:
        return []
    found: set[str] = set()

    def calls(node: ast.AST) -> None:
        for inner in walk(node):
            if isinstance(inner, ast.Call):
                spelled = _dotted(inner.func)
                head, _, rest = (spelled or "").partition(".")
                target = wanted.get(head)
                if target is not None and len(found) < 512:
                    found.add(f"{target}.{rest}" if rest else target)

    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            for statement in node.body:
                calls(statement)
            stack.extend(node.orelse)
            continue
        bodies = [getattr(node, field, None) for field in ("body", "orelse", "finalbody", "handlers", "cases")]
        nested = [child for body in bodies if isinstance(body, list) for child in body]
        if nested:
            stack.extend(child for child in nested if isinstance(child, ast.stmt))
            stack.extend(child for handler in nested if isinstance(handler, (ast.ExceptHandler, ast.match_case))
                         for child in handler.body)
            continue
        value = getattr(node, "value", None)
        held = [value, *(value.args if isinstance(value, ast.Call) else ())] if isinstance(value, ast.expr) else []
        for expr in held:
            if isinstance(expr, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                calls(expr)
    return sorted(found)


def _top_level(tree: ast.Module) -> Iterable[ast.AST]:
    """Module-level statements, looking into ``if``/``try`` blocks (imports guarded by a version test)."""
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If):
            stack.extend(reversed(node.body + node.orelse))
        elif isinstance(node, ast.Try):
            stack.extend(reversed(node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody))
        else:
            yield node


def module_name(path: Path) -> str:
    """The dotted module name of a file, from the packages around it (see :func:`module_name_cached`)."""
    return module_name_cached(path, {})


def summary_digest(summaries: Mapping[str, Summary]) -> str:
    """A digest of a whole index: part of every finding's cache key, so an edit elsewhere is seen."""
    text = json.dumps(summaries, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclasses.dataclass(frozen=True)
class Hints:
    """Names the ``ast`` prefilter must let through because of what other files define."""

    factories: frozenset[str] = frozenset()
    """Functions (by name) whose every call returns a new function."""
    static_jitted: frozenset[str] = frozenset()
    """Jitted functions (by name) with static arguments."""
    jit_aliases: tuple[tuple[str, str], ...] = ()
    """Module-level other names for a jit wrapper (``pkg.backend.jit`` for ``jit = jax.jit`` there), with
    the wrapper each one names (``jax.jit``)."""
    jit_factories: frozenset[str] = frozenset()
    """Functions (by name) whose every call returns a new jitted function (``return jax.jit(inner)``), alone or
    as an item of a tuple: called where the product is used, each call compiles again."""
    jit_methods: frozenset[str] = frozenset()
    """Jitted methods (by name) with static arguments: a call ``obj.m(...)`` on an instance the analysis can type
    has its static arguments judged there."""
    identity_aux: frozenset[str] = frozenset()
    """Classes (by name) whose pytree aux data holds an object of each instance's own that compares by identity
    (:meth:`ProjectIndex.identity_aux`): every instance is a new key of a jit that takes one."""


@dataclasses.dataclass(frozen=True)
class Forwarded:
    """The parameters a function hands on, unchanged, to static arguments of a jitted function of the run
    (:meth:`ProjectIndex.static_forward`): a static spec of its own, with where each one lands."""

    params: tuple[str, ...]
    """The function's positional parameters."""
    nums: frozenset[int]
    """The positions of those handed on."""
    names: frozenset[str]
    """Those handed on that are keyword-only."""
    to: Mapping[str, str]
    """For each parameter handed on, the static parameter and function it lands in (`` `func` of `solve` ``)."""

    def position(self, where: int | str) -> str | None:
        """The parameter a call's argument at ``where`` (a position or a keyword) binds, when it is handed on."""
        if isinstance(where, int):
            return self.params[where] if where in self.nums else None
        return where if where in self.to else None


class StaticReach:
    """What one module's calls can reach of the run's jitted functions with static arguments (:meth:`ProjectIndex.
    static_reach`): the prefilter asks it whether a call whose last name is one of :attr:`Hints.static_jitted` can be
    one of them, as the analysis resolves it (:meth:`~jitcheck.lint.resolver.Resolver.indexed_jit`: libcst's
    qualified names of the callee, followed by :meth:`ProjectIndex.function` through re-exports, star imports and
    installed packages), or the module's own."""

    def __init__(self, index: ProjectIndex, module: str) -> None:
        self.index = index
        self.module = module
        summary = index.modules[module]
        self.package = _is_package(summary)
        self.own = frozenset(name for name, facts in summary["functions"].items()
                             if index.keys_statics(f"{module}.{name}", facts))
        """The module's own jitted functions with static arguments (their calls stay sites: the analysis judges them
        with the index's facts of their arguments)."""

    def absolute(self, spelled: str) -> str:
        """An import's target (``.m.f``) with its leading dots resolved against the module."""
        return self.index.absolute(spelled, self.module, self.package)

    def static(self, qualified: str) -> bool:
        """Does ``qualified`` name a jitted function with static arguments, for the index (as ``indexed_jit`` asks)?"""
        return self.index.static_jitted_at(qualified)

    def is_root(self, name: str) -> bool:
        """Can a qualified name starting ``name.`` be a module's (one of the run's, or installed)?"""
        return self.index.is_root(name)


def _jitting(facts: Mapping[str, Any]) -> bool:
    """True when a function's every call returns a new jitted function, alone or as an item of its tuple."""
    kinds = [facts.get("returns"), *(facts.get("returns_items") or ())]
    return not facts.get("cached") and any(isinstance(kind, str) and "jitted function" in kind for kind in kinds)


def _static_jit(facts: Mapping[str, Any]) -> bool:
    spec = facts.get("jit")
    return bool(spec and (spec.get("nums") or spec.get("names") or spec.get("all")))


class ProjectIndex:
    """Summaries joined by module name, with the lookups the resolver needs."""

    def __init__(self, summaries: Mapping[str, Summary] | None = None, *, installed: bool = True) -> None:
        self.modules: dict[str, Summary] = dict(summaries or {})
        self.installed = installed
        self._external: dict[str, Summary | None] = {}
        self._hints: Hints | None = None
        self._subclasses: dict[str, list[tuple[str, str]]] | None = None
        self._loop_called: dict[str, set[str]] | None = None
        self._calls: dict[str, list[Site]] | None = None
        self._passing: frozenset[tuple[str, str]] | None = None
        self._callers_of: tuple[dict[str, set[str]], dict[str, set[str]]] | None = None
        self.paths: dict[str, str] = {}
        """The file each module of the run was read from (for evidence that names a caller's file:line)."""
        self.names: dict[Path, str] = {}
        """Each indexed file's module name (``build_index``): the one the run's checks use for it."""
        self._imported: dict[str, frozenset[str]] = {}
        """The indexed modules each module imports directly (resolved once, walked by every closure)."""
        self.contents: dict[str, str] = {}
        """Each indexed module's content digest (``build_index``): what its summary was made from."""
        self.installed_read: dict[str, list[int]] = {}
        """The installed files read for their summaries, each with its stamp when read (:mod:`depcache`)."""
        self.extends: tuple[ProjectIndex, str] | None = None
        """``(index, name)`` when this index is ``index`` plus the one module ``name`` (:func:`with_module`)."""
        self._named: dict[str, bool] = {}
        """:meth:`_may_name`'s answers, by first name."""
        self._static_at: dict[str, bool] = {}
        """:meth:`static_jitted_at`'s answers, by qualified name."""
        self._roots: dict[str, bool] = {}
        """:meth:`is_root`'s answers, by name."""
        self._reach: dict[str, StaticReach] = {}
        self._forward: dict[str, Forwarded | None] = {}
        """:meth:`static_forward`'s answers, by qualified name."""

    def add(self, name: str, summary: Summary) -> None:
        self.modules[name] = summary
        self.extends = None
        self._named.clear()
        self._static_at.clear()
        self._roots.clear()
        self._reach.clear()
        self._forward.clear()
        self._hints = None
        self._subclasses = None
        self._loop_called = None
        self._calls = None
        self._passing = None
        self._callers_of = None
        self._imported.clear()

    def _direct(self, name: str) -> frozenset[str]:
        found = self._imported.get(name)
        if found is None:
            summary = self.modules.get(name)
            targets = set()
            if summary is not None:
                for imported in [*summary["imports"].values(), *summary.get("stars", ())]:
                    target = self._indexed_prefix(self.absolute(imported, name, _is_package(summary)))
                    if target is not None:
                        targets.add(target)
            found = self._imported[name] = frozenset(targets)
        return found

    def dependencies(self, name: str) -> set[str]:
        """The indexed modules whose summaries module ``name``'s findings can depend on (its imports,
        transitively, and the modules that subclass its classes)."""
        seen = {name}
        stack = [name]
        while stack:
            for target in self._direct(stack.pop()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        # The modules calling its functions in a loop, and those subclassing its classes (their `self.m(...)`
        # calls count as calls of its methods); callers elsewhere: evidence that its functions run again.
        in_loops, calling = self._callers_by_module()
        seen.update(in_loops.get(name, ()))
        seen.update(calling.get(name, ()))
        own = self.modules.get(name)
        for cls in own["classes"] if own is not None else ():
            seen.update(module for module, _ in self.subclasses(f"{name}.{cls}"))
        return seen

    def _callers_by_module(self) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """The callers :meth:`dependencies` adds for a module ``m``, worked out once for every ``m``: the modules
        calling in a loop a function ``m.f`` (by ``m``: what the function's name has before its last dot), and the
        modules calling a function under ``m`` (by each ``m`` the function's name starts with, then a dot)."""
        if self._callers_of is None:
            in_loops: dict[str, set[str]] = {}
            for function, callers in self._loop_callers().items():
                in_loops.setdefault(function.rpartition(".")[0], set()).update(callers)
            calling: dict[str, set[str]] = {}
            for function, sites in self.call_sites().items():
                modules = {site.module for site in sites}
                dot = function.find(".")
                while dot >= 0:  # `a.b.f` is under `a` and `a.b`
                    calling.setdefault(function[:dot], set()).update(modules)
                    dot = function.find(".", dot + 1)
            self._callers_of = (in_loops, calling)
        return self._callers_of

    def _indexed_prefix(self, qualified: str) -> str | None:
        parts = qualified.split(".")
        while parts:
            candidate = ".".join(parts)
            if candidate in self.modules:
                return candidate
            parts.pop()
        return None

    def dependency_keys(self, cache_file: Path | None = None) -> dict[str, str]:
        """For every indexed module, a digest of the summaries its findings depend on (a cache key part).

        With ``cache_file``, the keys of a run over the same module contents (and the same installed
        files) are read from it instead of worked out again, and new ones are kept there (:mod:`depcache`).
        """
        digest = depcache.contents_digest(self.contents, self.installed) if cache_file is not None else ""
        if cache_file is not None and len(self.contents) == len(self.modules):
            kept = depcache.load(cache_file, digest)
            if kept is not None and kept.keys() == self.modules.keys():
                return kept
        keys = self._dependency_keys()
        if cache_file is not None and len(self.contents) == len(self.modules):
            depcache.save(cache_file, digest, keys, self.installed_read)
        return keys

    def _dependency_keys(self) -> dict[str, str]:
        own = {name: hashlib.blake2b(json.dumps(summary, sort_keys=True, separators=(",", ":")).encode(),
                                     digest_size=8).hexdigest() for name, summary in self.modules.items()}
        keys = {}
        for name in self.modules:
            text = ",".join(f"{dep}={own[dep]}" for dep in sorted(self.dependencies(name)))
            keys[name] = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
        return keys

    def hints(self) -> Hints:
        """What the prefilter must let through because of what the indexed modules define.

        An index that is another plus one module (a notebook's) takes the other's hints and adds the module's
        own, when no module of the other can name the added one (:meth:`_may_name`): then every alias of the
        other resolves as it did there, and the hints are those of a reading of every module."""
        if self._hints is None:
            base = self.extends
            if base is not None and not base[0]._may_name(base[1]):
                known = base[0].hints()
                factories, jitted, aliases, jitting, methods, aux = self._module_hints([base[1]])
                self._hints = Hints(known.factories | factories, known.static_jitted | jitted,
                                    tuple(sorted([*known.jit_aliases, *aliases])), known.jit_factories | jitting,
                                    known.jit_methods | methods, known.identity_aux | aux)
            else:
                factories, jitted, aliases, jitting, methods, aux = self._module_hints(self.modules)
                self._hints = Hints(frozenset(factories), frozenset(jitted), tuple(sorted(aliases)), frozenset(jitting),
                                    frozenset(methods), frozenset(aux))
        return self._hints

    def static_reach(self, module: str) -> StaticReach | None:
        """What ``module``'s calls can reach of the run's jitted functions with static arguments; None when the
        module is not indexed (then every call spelling one of :attr:`Hints.static_jitted` stays a site)."""
        if module not in self.modules:
            return None
        found = self._reach.get(module)
        if found is None:
            found = self._reach[module] = StaticReach(self, module)
        return found

    def static_jitted_at(self, qualified: str) -> bool:
        """Whether :meth:`function` of ``qualified`` (a dotted name) is a jitted function with static arguments."""
        found = self._static_at.get(qualified)
        if found is None:
            facts = self.function(qualified) if "." in qualified else None
            found = self._static_at[qualified] = facts is not None and self.keys_statics(qualified, facts)
        return found

    def keys_statics(self, qualified: str, facts: Mapping[str, Any]) -> bool:
        """Whether the function ``qualified``, whose facts are ``facts``, hashes an argument into a jit's cache key:
        jitted with static arguments, or handing a parameter on to one (:meth:`static_forward`)."""
        return _static_jit(facts) or ("forwards" in facts and self.static_forward(qualified) is not None)

    def static_forward(self, qualified: str, depth: int = 0) -> Forwarded | None:
        """What the run's function ``qualified`` hands on, unchanged, to a static argument of a jitted function of
        the run (its own ``forwards``, followed through up to three such functions): each such parameter is a
        static argument of ``qualified`` too, one call away, since every value passed there is hashed into that
        jit's cache key. None when it hands none on, or is itself jitted (its own spec says what is static)."""
        if qualified in self._forward:
            return self._forward[qualified]
        self._forward[qualified] = None  # (a cycle of forwarders reads None)
        found = self.lookup(qualified)
        if found is None or found[0] not in self.modules:
            return None
        module, name, summary = found
        facts = summary["functions"].get(name, {})
        forwards = facts.get("forwards")
        params = facts.get("params")
        if not forwards or not isinstance(params, list) or facts.get("jit"):
            return None
        to: dict[str, str] = {}
        for param, callee, where in forwards:
            if param in to:
                continue
            if not callee:
                place = f"`{where}`" if isinstance(where, str) else f"argument {where}"
                to[param] = f"{place} of the jit `{name.rsplit('.', 1)[-1]}` makes"
                continue
            target = self.resolve_in(module, callee)
            if "." not in target or self._indexed_prefix(target) is None:
                continue  # not a function of the run
            held = self.function(target)
            if held is None:
                continue
            spelled = self._static_position(held, where)
            if spelled is not None:
                to[param] = f"`{spelled}` of `{target.rsplit('.', 1)[-1]}`"
                continue
            further = self.static_forward(target, depth + 1) if depth < 3 else None
            inner = further.position(where) if further is not None else None
            if inner is not None:
                to[param] = further.to[inner]  # type: ignore[union-attr]
        if not to:
            return None
        answer = Forwarded(tuple(params), frozenset(i for i, p in enumerate(params) if p in to),
                           frozenset(p for p in to if p not in params), to)
        self._forward[qualified] = answer
        return answer

    @staticmethod
    def _static_position(facts: Mapping[str, Any], where: int | str) -> str | None:
        """The parameter at ``where`` (a position or a keyword) of a jitted function whose facts are ``facts``, when
        its jit makes it static (by number or by name); else None. (Under ``filter_jit`` every argument that is not
        an array is static, which only the value passed says: not followed.)"""
        if not _static_jit(facts) or facts["jit"].get("all"):
            return None
        spec = facts["jit"]
        held = facts.get("params")
        params: list[str] = held if isinstance(held, list) else []
        nums = set(spec.get("nums") or ())
        names = set(spec.get("names") or ())
        if isinstance(where, int):
            spelled = params[where] if where < len(params) else str(where)
            return spelled if where in nums or spelled in names else None
        if where in names or (where in params and params.index(where) in nums):
            return where
        return None

    def is_root(self, name: str) -> bool:
        """Whether a module's qualified name can start with ``name`` (a module of the run, or one on ``sys.path``)."""
        if not self._roots:
            self._roots.update((module.partition(".")[0], True) for module in self.modules)
        found = self._roots.get(name)
        if found is None:
            found = False
            if self.installed:
                try:
                    found = importlib.machinery.PathFinder.find_spec(name) is not None
                except (ImportError, ValueError, AttributeError):
                    found = True  # unsure: as if it were one
            self._roots[name] = found
        return found

    def _module_hints(self, modules: Iterable[str]
                      ) -> tuple[set[str], set[str], list[tuple[str, str]], set[str], set[str], set[str]]:
        """The factories, the jitted functions with static arguments, the jit aliases, the factories of new jitted
        functions, the jitted methods with static arguments and the classes with identity-compared aux data that
        ``modules`` define."""
        factories: set[str] = set()
        jitted: set[str] = set()
        jitting: set[str] = set()
        methods: set[str] = set()
        aux: set[str] = set()
        for module in modules:
            for name, held in self.modules[module]["classes"].items():
                jitted.update(held.get("static_jits", ()))
                jitted.update(held.get("static_aliases", ()))  # (a name the prefilter keeps: judged when asked)
                methods.update(held.get("jit_methods", ()))
                if "aux" in held and self.identity_aux(f"{module}.{name}"):
                    aux.add(name)
            for name, facts in self.modules[module]["functions"].items():
                if facts.get("returns"):
                    factories.add(name)
                if _jitting(facts):
                    jitting.add(name)
                if self.keys_statics(f"{module}.{name}", facts):
                    jitted.add(name)
        from jitcheck.lint.names import JIT_WRAPPERS

        aliases = []
        for module in modules:
            for name in self.modules[module].get("aliases", ()):
                target = self.canonical(f"{module}.{name}")
                if target in JIT_WRAPPERS:
                    aliases.append((f"{module}.{name}", target))
            for name, facts in self.modules[module]["functions"].items():
                spelled = facts.get("jit_of")  # `def my_jit(fn, **kw): return jax.jit(fn, **kw)`: another jax.jit
                target = self.canonical(self.resolve_in(module, spelled)) if isinstance(spelled, str) else ""
                if target in JIT_WRAPPERS:
                    aliases.append((f"{module}.{name}", target))
        return factories, jitted, aliases, jitting, methods, aux

    # -- modules ----------------------------------------------------------------

    def module(self, name: str) -> Summary | None:
        found = self.modules.get(name)
        if found is not None:
            return found
        if not self.installed or not name:
            return None
        if name not in self._external:
            path, folder = _installed_path(name)
            self._external[name] = _read_installed(path) if path is not None else None
            for consulted in (path, folder):
                if consulted is not None:
                    self.installed_read[str(consulted)] = depcache.stamp(str(consulted))
        return self._external[name]

    @staticmethod
    def absolute(name: str, current: str, is_package: bool = False) -> str:
        """``name`` with its leading dots resolved against the module ``current``."""
        if not name.startswith("."):
            return name
        level = len(name) - len(name.lstrip("."))
        parts = current.split(".")
        keep = len(parts) - level + (1 if is_package else 0)
        head = ".".join(parts[:max(keep, 0)])
        rest = name[level:]
        return f"{head}.{rest}" if head and rest else head or rest

    def lookup(self, qualified: str, depth: int = 0) -> tuple[str, str, Summary] | None:
        """``(module, name, summary)`` defining ``qualified`` (``pkg.mod.Cls``), through re-exports."""
        if depth > 8 or "." not in qualified:
            return None
        module, _, name = qualified.rpartition(".")
        summary = self.module(module)
        if summary is None:
            return None
        if name in summary["classes"] or name in summary["functions"]:
            return module, name, summary
        imported = summary["imports"].get(name)
        if imported is not None:
            return self.lookup(self.absolute(imported, module, is_package=_is_package(summary)), depth + 1)
        star = self._star_source(module, summary, name)
        if star is not None:
            return self.lookup(f"{star}.{name}", depth + 1)
        return None

    def _star_source(self, module: str, summary: Summary, name: str, seen: frozenset[str] = frozenset()) -> str | None:
        """The module of the run a ``from m import *`` of ``module`` takes ``name`` from, if any: ``m`` defines or
        imports it, or takes it in turn by a ``from n import *`` of its own (a chain of star imports)."""
        seen = seen | {module}
        for star in summary.get("stars", ()):
            target = self.absolute(star, module, is_package=_is_package(summary))
            found = self.modules.get(target)  # only modules the run checks: an installed package is not read for it
            if found is None or target in seen:
                continue
            if name in found["classes"] or name in found["functions"] or name in found["imports"] \
                    or name in found.get("aliases", ()) or self._star_source(target, found, name, seen) is not None:
                return target
        return None

    def canonical(self, qualified: str, depth: int = 0) -> str:
        """``qualified`` (``pkg.backend.ops.jit``) followed through the run's modules to what it names in the end:
        their imports, their star imports and their module-level aliases (``jit = jax.jit``), so the answer may be
        a name outside the run (``jax.jit``). Unchanged when no module of the run says more."""
        module = self._indexed_prefix(qualified)
        if module is None or module == qualified or depth > 8:
            return qualified
        summary = self.modules[module]
        head, _, rest = qualified[len(module) + 1:].partition(".")
        spelled = summary["imports"].get(head) or summary.get("aliases", {}).get(head)
        if spelled is not None:
            target = self.resolve_in(module, spelled) if head not in summary["imports"] else \
                self.absolute(spelled, module, is_package=_is_package(summary))
        else:
            star = self._star_source(module, summary, head)
            if star is None:
                return qualified
            target = f"{star}.{head}"
        joined = f"{target}.{rest}" if rest else target
        return joined if joined == qualified else self.canonical(joined, depth + 1)

    def cls(self, qualified: str) -> tuple[str, dict[str, Any]] | None:
        """``(module, facts)`` of the class ``qualified`` names, if indexed."""
        found = self.lookup(qualified)
        if found is None:
            return None
        module, name, summary = found
        facts = summary["classes"].get(name)
        return (module, facts) if facts is not None else None

    def identity_aux(self, qualified: str) -> list[tuple[str, str]]:
        """The attributes the class ``qualified`` keeps in its pytree aux data that hold an object of each
        instance's own (made in ``__init__``) of a class that compares by identity, each with that class as
        spelled: every instance, even one built alike, is a new jit cache key. Empty when none (or not indexed)."""
        found = self.cls(qualified)
        if found is None:
            return []
        module, facts = found
        held: list[tuple[str, str]] = []
        fresh = facts.get("fresh", {})
        for attribute in facts.get("aux", ()):
            spelled = fresh.get(attribute)
            made = self.class_named(module, spelled) if isinstance(spelled, str) else None
            made_facts = self.cls(made) if made is not None else None
            if made_facts is not None and compares_by_identity(made_facts[1]):
                held.append((attribute, spelled.rsplit(".", 1)[-1]))
        return held

    def function(self, qualified: str) -> dict[str, Any] | None:
        found = self.lookup(qualified)
        if found is None:
            return self._static_method(qualified)
        _, name, summary = found
        facts: dict[str, Any] | None = summary["functions"].get(name)
        return facts

    def _static_method(self, qualified: str) -> dict[str, Any] | None:
        """The facts of ``Cls.name`` when it is a jitted static method: decorated so, or ``name =
        staticmethod(f)`` of a jitted module-level ``f`` of the class's module."""
        owner, _, name = qualified.rpartition(".")
        held = self.cls(owner) if "." in owner else None
        if held is None:
            return None
        module, facts = held
        method: dict[str, Any] | None = facts.get("static_jits", {}).get(name)
        alias = facts.get("static_aliases", {}).get(name)
        if method is None and isinstance(alias, str):
            summary = self.module(module)
            aliased = summary["functions"].get(alias) if summary is not None else None
            method = aliased if aliased is not None and _static_jit(aliased) else None
        return method

    def returned_class(self, qualified: str) -> str | None:
        """The qualified class a call of the function ``qualified`` returns, by its return annotation, if indexed."""
        found = self.lookup(qualified)
        if found is None:
            return None
        module, name, summary = found
        spelled = summary["functions"].get(name, {}).get("type")
        if not isinstance(spelled, str):
            return None
        held = self.resolve_in(module, spelled)
        return held if self.cls(held) is not None else None

    def returned_item_class(self, qualified: str, item: int) -> str | None:
        """The qualified class a call of the function ``qualified`` returns at position ``item`` of its tuple
        (the index's ``types_items``), if that names an indexed class."""
        found = self.lookup(qualified)
        if found is None:
            return None
        module, name, summary = found
        items = summary["functions"].get(name, {}).get("types_items")
        if not isinstance(items, list) or item >= len(items) or not isinstance(items[item], str):
            return None
        return self.class_named(module, items[item])

    def class_named(self, module: str, spelled: str) -> str | None:
        """The qualified class ``spelled`` names in ``module`` (imported, defined, or a module-level alias such as
        ``NeighborListFns = partition.NeighborListFns``), if indexed."""
        held = self.resolve_in(module, spelled)
        if self.cls(held) is None:
            held = self.canonical(f"{module}.{spelled}")
        return held if self.cls(held) is not None else None

    def called_in_loops(self, qualified: str) -> bool:
        """True when some module of the run calls the function ``qualified`` in a loop."""
        return self.canonical(qualified) in self._loop_callers()

    def loop_callers(self, qualified: str) -> list[str]:
        """The modules of the run that call the function ``qualified`` in a loop (a finding's evidence)."""
        return sorted(self._loop_callers().get(self.canonical(qualified), ()))

    def _loop_callers(self) -> dict[str, set[str]]:
        """For each function of the run that some module calls in a loop, those modules."""
        if self._loop_called is None:
            called: dict[str, set[str]] = {}
            for module, summary in self.modules.items():
                for spelled in summary.get("loop_calls", ()):
                    name = self.absolute(spelled, module, is_package=_is_package(summary))
                    if self._indexed_prefix(name) is not None:
                        called.setdefault(self.canonical(name), set()).add(module)
            self._loop_called = called
        return self._loop_called

    def call_sites(self) -> dict[str, list[Site]]:
        """Every call the run's modules make of the run's functions and methods, by the function reached.

        An index that is another plus one module (a notebook's, a file judged apart from the run's index) takes
        the other's call sites and adds its module's own, when no module of the other can name the added one
        (:meth:`_may_name`): then each of their calls reaches what it reached there, and the added module's
        calls come last, as they would in a walk of every module."""
        if self._calls is None:
            base = self.extends
            if base is not None and not base[0]._may_name(base[1]):
                calls = {target: list(sites) for target, sites in base[0].call_sites().items()}
                for target, sites in call_sites(self, only=base[1]).items():
                    calls.setdefault(target, []).extend(sites)
                self._calls = calls
            else:
                self._calls = call_sites(self)
        return self._calls

    def passes_parameters_on(self, module: str, caller: str) -> bool:
        """Whether the function ``caller`` of ``module`` hands what its parameters hold to a call of the run's (the
        data a loop's changing argument may become): a caller that ignores them computes the same thing each time."""
        if self._passing is None:
            self._passing = frozenset((s.module, s.caller) for sites in self.call_sites().values() for s in sites if s.reading)
        return (module, caller) in self._passing

    def _may_name(self, module: str) -> bool:
        """Whether some indexed module's summary spells ``module``'s first name anywhere (an import, a call, a base
        class, an annotation: every name the index resolves comes from a summary's text), or an indexed module's
        name starts with it."""
        head = module.split(".", 1)[0]
        if "\0" in head:  # UNNAMED_MODULE: a summary's repr writes a NUL as an escape, so no repr need be made
            return any(head in name for name in self.modules)
        named = self._named.get(head)
        if named is None:
            named = self._named[head] = any(head in name or head in repr(summary) for name, summary in self.modules.items())
        return named

    def is_record(self, qualified: str) -> bool:
        """True when ``qualified`` names a class made by the functional ``namedtuple``/``NamedTuple`` form."""
        module, _, name = self.canonical(qualified).rpartition(".")
        summary = self.modules.get(module) if module else None
        return summary is not None and name in summary.get("records", ())

    def same_as_argument(self, qualified: str) -> int | None:
        """The position of the parameter whose annotation is the function's return annotation
        (``def without_rng(f: T) -> T``): a call returns the kind of thing it is handed there."""
        found = self.lookup(qualified)
        if found is None:
            return None
        position = found[2]["functions"].get(found[1], {}).get("same_as")
        return position if isinstance(position, int) else None

    def resolve_in(self, module: str, spelled: str) -> str:
        """The qualified name of ``spelled`` (``Env``, ``envs.Env``) as module ``module`` sees it."""
        summary = self.module(module)
        head, _, rest = spelled.partition(".")
        if summary is not None:
            if head in summary["classes"] or head in summary["functions"]:
                return f"{module}.{spelled}"
            imported = summary["imports"].get(head)
            if imported is not None:
                imported = self.absolute(imported, module, is_package=_is_package(summary))
                return f"{imported}.{rest}" if rest else imported
            star = self._star_source(module, summary, head)
            if star is not None:
                return f"{star}.{spelled}"
        return spelled

    # -- classes ----------------------------------------------------------------

    def subclasses(self, qualified_class: str) -> list[tuple[str, str]]:
        """``(module, name)`` of every indexed class that derives from ``qualified_class``, transitively."""
        if self._subclasses is None:
            direct: dict[str, list[tuple[str, str]]] = {}
            for module, summary in self.modules.items():
                for name, facts in summary["classes"].items():
                    for base in facts["bases"]:
                        resolved = self.resolve_in(module, base)
                        if self._indexed_prefix(resolved) is None:
                            continue  # a base from a package the run does not check: not asked about
                        found = self.lookup(resolved)
                        if found is not None:
                            direct.setdefault(f"{found[0]}.{found[1]}", []).append((module, name))
            self._subclasses = direct
        found_class = self.lookup(qualified_class)
        if found_class is None:
            return []
        result: list[tuple[str, str]] = []
        stack = [f"{found_class[0]}.{found_class[1]}"]
        while stack and len(result) < 256:
            for sub in self._subclasses.get(stack.pop(), []):
                if sub not in result:
                    result.append(sub)
                    stack.append(f"{sub[0]}.{sub[1]}")
        return result

    def subclass_self_calls(self, qualified_class: str, method: str) -> int:
        """How many ``self.method(...)`` calls the subclasses of a class make in their own methods."""
        total = 0
        for module, name in self.subclasses(qualified_class):
            facts = self.modules[module]["classes"][name]
            if method not in facts["methods"]:  # an override is what its own `self.method` reaches
                total += int(facts.get("self_calls", {}).get(method, 0))
        return total

    def base_self_calls(self, qualified_class: str, method: str, depth: int = 0) -> int:
        """How many ``self.method(...)`` calls the indexed bases of a class make in their own methods (a framework's
        loop calling the hook a subclass overrides), up the chain of bases."""
        found = self.cls(qualified_class)
        if found is None or depth > 12:
            return 0
        module, facts = found
        total = 0
        for base in facts["bases"]:
            held = self.resolve_in(module, base)
            based = self.cls(held)
            if based is not None:
                total += int(based[1].get("self_calls", {}).get(method, 0)) + self.base_self_calls(held, method, depth + 1)
        return total

    def member(self, qualified_class: str, attr: str, depth: int = 0) -> str | None:
        """What ``attr`` is on instances of the class: ``"method"``, ``"static"``, ``"class"``,
        ``"property"``, ``"stored"``, or None when neither the class nor its indexed bases say."""
        found = self.cls(qualified_class)
        if found is None or depth > 12:
            return None
        module, facts = found
        if attr in facts["stored"]:
            part = facts.get("bound", {}).get(attr)
            if part is not None:
                # A member of a part each instance builds: a bound method of that part is a new object per instance.
                held = self.attribute_type(qualified_class, part[0])
                if held is not None and self.member(held, part[1], depth + 1) == "method":
                    return "method"
            return "stored"
        kind: str | None = facts["methods"].get(attr)
        if kind is not None:
            return kind
        for base in facts["bases"]:
            kind = self.member(self.resolve_in(module, base), attr, depth + 1)
            if kind is not None:
                return kind
        return None

    def attribute_type(self, qualified_class: str, attr: str, depth: int = 0) -> str | None:
        """The qualified class an instance attribute holds (``self.env = Env(...)``), if known."""
        return self._attribute_class(qualified_class, attr, "types", depth)

    def attribute_default(self, qualified_class: str, attr: str, depth: int = 0) -> str | None:
        """The qualified class an instance attribute holds when its constructor's caller passes none
        (``if solver is None: solver = Solver()`` then ``self.solver = solver``), if known."""
        return self._attribute_class(qualified_class, attr, "defaults", depth)

    def _attribute_class(self, qualified_class: str, attr: str, facts_key: str, depth: int) -> str | None:
        """The class the summary's ``facts_key`` table (``types``, ``defaults``) gives ``attr``, on the class or its
        indexed bases, qualified."""
        found = self.cls(qualified_class)
        if found is None or depth > 12:
            return None
        module, facts = found
        held = facts.get(facts_key, {}).get(attr)
        if held is not None:
            return self.resolve_in(module, held)
        for base in facts["bases"]:
            held = self._attribute_class(self.resolve_in(module, base), attr, facts_key, depth + 1)
            if held is not None:
                return held
        return None


def with_module(index: ProjectIndex | None, name: str, source: ast.Module | str) -> ProjectIndex:
    """The index a module named ``name`` is judged with: ``index`` itself when it holds the module, else
    ``index`` (or nothing) plus the module's own summary, read from its ``source`` (text, or the tree
    Python's ``ast`` made of it) only then."""
    if index is not None and name in index.modules:
        return index
    summary = summarize_tree(source) if isinstance(source, ast.Module) else summarize(source)
    joined = ProjectIndex({**(index.modules if index is not None else {}), name: summary},
                          installed=index.installed if index is not None else True)
    joined.paths = dict(index.paths) if index is not None else {}
    if index is not None:
        joined.extends = (index, name)
    return joined


def _is_package(summary: Summary) -> bool:
    return bool(summary.get("package"))


def _installed_path(name: str) -> tuple[Path | None, Path | None]:
    """The source file of an installed module, found on ``sys.path`` by file name, never imported, and
    the package folder it was looked for in (whose listing decides whether a missing submodule exists)."""
    parts = name.split(".")
    try:
        spec = importlib.machinery.PathFinder.find_spec(parts[0])
    except (ImportError, ValueError, AttributeError):
        return None, None
    if spec is None:
        return None, None
    locations = list(spec.submodule_search_locations or [])
    folder = None
    if not locations:
        path = Path(spec.origin) if spec.origin and len(parts) == 1 else None
    else:
        base = Path(locations[0]).joinpath(*parts[1:])
        folder = base.parent
        path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    if path is None or path.suffix != ".py" or not path.is_file():
        return None, folder
    return path, folder


_INSTALLED: dict[str, tuple[depcache.Stamp, Summary | None]] = {}
"""Installed modules' summaries already made in this process, by file, with the file's stamp when read:
every index of the process (each notebook's, the language server's of each check) reads an installed file
once while its size and modification time are unchanged (summaries are never changed once made)."""


def _read_installed(path: Path) -> Summary | None:
    """The summary of an installed module's source file (none over 2 MB), made again only when the file changed."""
    key = str(path)
    now = depcache.stamp(key)
    kept = _INSTALLED.get(key)
    if kept is not None and kept[0] == now and now:
        return kept[1]
    summary = _summarize_installed(path)
    _INSTALLED[key] = (now, summary)
    return summary


def _summarize_installed(path: Path) -> Summary | None:
    try:
        if os.path.getsize(path) > 2_000_000:
            return None
        summary = summarize(path.read_bytes())
    except OSError:
        return None
    summary["package"] = path.name == "__init__.py"
    return summary




class SummaryCache:
    """Summaries of files already read, by content digest, in one JSON file beside the findings cache."""

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.entries: dict[str, Summary] = {}
        self.dirty = False
        self.parsed: set[str] = set()
        """The keys of the files Python's ``ast`` parsed in this run (a summary read from the cache says nothing of it)."""
        if file is not None:
            try:
                loaded = json.loads(file.read_text(encoding="utf-8"))
                if isinstance(loaded, dict):
                    self.entries = loaded
            except (OSError, ValueError):
                self.entries = {}

    def summary(self, key: str, data: bytes) -> Summary:
        found = self.entries.get(key)
        if isinstance(found, dict) and {"imports", "classes", "functions"} <= found.keys():
            return found
        tree = python_tree(data)
        summary: Summary = summarize_tree(tree) if tree is not None else {"imports": {}, "classes": {}, "functions": {}}
        if tree is not None:
            self.parsed.add(key)
        del tree
        self.entries[key] = summary
        self.dirty = True
        return summary

    def save(self, keep: Iterable[str]) -> None:
        if self.file is None or not self.dirty:
            return
        from jitcheck.atomic import write_atomic

        wanted = set(keep)
        entries = {k: v for k, v in self.entries.items() if k in wanted}
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.file, json.dumps(entries, separators=(",", ":")))
        except OSError:
            pass  # a cache that cannot be written only makes the next run slower


def build_index(files: Iterable[tuple[Path, str, bytes]], cache_file: Path | None = None,
                parsed: set[str] | None = None) -> ProjectIndex:
    """The index of a run's files (``(path, content digest, bytes)``), summaries cached by content digest.

    ``parsed`` receives the digests of the files Python's ``ast`` parsed here (their check need not parse
    them again to learn that they parse)."""
    cache = SummaryCache(cache_file)
    summaries: dict[str, Summary] = {}
    paths: dict[str, str] = {}
    packages: dict[Path, bool] = {}
    keys: list[str] = []
    read: list[tuple[Path, str, Summary, str]] = []
    for path, key, data in files:
        keys.append(key)
        summary = cache.summary(key, data)
        if path.name == "__init__.py":
            summary = {**summary, "package": True}
        read.append((path, module_name_cached(path, packages), summary, key))
    cache.save(keys)
    if parsed is not None:
        parsed |= cache.parsed
    imported = imported_modules(summary for _, _, summary, _ in read)
    names: dict[Path, str] = {}
    contents: dict[str, str] = {}
    named = run_names({path: name for path, name, _, _ in read}, imported)
    for path, name, summary, key in read:
        name = names[path] = named[path]
        if name not in summaries:
            summaries[name] = summary
            paths[name] = path.as_posix()
            contents[name] = key
    index = ProjectIndex(summaries)
    index.contents = contents
    index.paths = paths
    index.names = names
    return index


def imported_modules(summaries: Iterable[Summary]) -> set[str]:
    """Every dotted name the run's modules import, and each of its prefixes (the modules it may name)."""
    found: set[str] = set()
    for summary in summaries:
        for target in summary.get("imports", {}).values():
            parts = target.split(".")
            for end in range(1, len(parts) + 1):
                found.add(".".join(parts[:end]))
    return found


def namespace_name(path: Path, name: str, imported: set[str]) -> str:
    """The name the run's own imports give a module that no package holds: a file in folders without
    ``__init__.py`` is imported through them as namespace packages (PEP 420) from a folder on ``sys.path``
    (``from applications.plasticity.models import Model`` from the project's root), and by its file name
    from its own folder. The longest dotted path of identifier folders above it that some module of the run
    imports wins; otherwise its name from the packages around it."""
    if "." in name or path.stem == "__init__":
        return name
    best = name
    folders: list[str] = []
    for folder in list(path.parents)[:8]:
        if not _importable(folder.name):
            break
        folders.insert(0, folder.name)
        candidate = ".".join((*folders, name))
        if candidate in imported:
            best = candidate
    return best


def run_names(named: Mapping[Path, str], imported: set[str]) -> dict[Path, str]:
    """The module name of each file of a run (``named``: its name from the packages around it,
    :func:`module_name_cached`), as the run's own imports (``imported``, :func:`imported_modules`) name it.

    Two layouts are named by those imports rather than by their folders. A package whose folder is not its import name
    (an sdist unpacked as ``sofima-0.1/`` with its ``__init__.py`` at the top, an archive or clone named ``pkg-main``)
    cannot be imported through that folder, yet its modules import each other by the package's name (``from sofima
    import mesh``): the folder's name cut at a ``-`` (the longest cut first, each kept ``-`` read as ``_``) is that
    name when some module of the run imports one of the folder's modules through it, and every module of the folder
    is named under it. A file in folders without ``__init__.py`` is named by :func:`namespace_name`."""
    tops: dict[Path, list[tuple[Path, str]]] = {}
    for path, name in named.items():
        parts = [] if name == "__init__" else name.split(".")
        depth = len(parts) if path.stem == "__init__" else len(parts) - 1
        if depth < 0 or depth >= len(path.parents):
            continue
        top = path.parents[depth]
        if not _importable(top.name) and (top / "__init__.py").exists():
            tops.setdefault(top, []).append((path, name))
    renamed: dict[Path, str] = {}
    for top, members in tops.items():
        cuts = top.name.split("-")
        for end in range(len(cuts), 0, -1):
            package = "_".join(cuts[:end])
            if not _importable(package):
                continue
            if any(f"{package}.{name}" in imported for _, name in members if name != "__init__"):
                renamed.update((path, package if name == "__init__" else f"{package}.{name}") for path, name in members)
                break
    return {path: renamed.get(path) or namespace_name(path, name, imported) for path, name in named.items()}


def _importable(name: str) -> bool:
    """Whether an import statement can name this folder: an identifier that is not a keyword."""
    return name.isidentifier() and not keyword.iskeyword(name)


def module_name_cached(path: Path, packages: dict[Path, bool]) -> str:
    """The dotted module name of a file, from the packages around it: folders with ``__init__.py``, and a
    folder without one inside such a package (a namespace subpackage, as Python imports ``optax._src``
    when ``optax/_src`` has no ``__init__.py``). A folder whose name is no identifier (``pkg-1.0``, an unpacked
    sdist with an ``__init__.py`` at its root) is no package: Python can never import through it, so names
    start below it. ``packages`` caches which folders have an ``__init__.py``."""

    def is_package(folder: Path) -> bool:
        found = packages.get(folder)
        if found is None:
            found = packages[folder] = (folder / "__init__.py").exists()
        return found

    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while folder.parent != folder:
        if not _importable(folder.name):
            break
        if not is_package(folder) and not (folder.parent.parent != folder.parent and is_package(folder.parent)):
            break
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts)) or path.stem


__all__ = [
    "UNNAMED_MODULE", "Hints", "add_pytree_aux", "ProjectIndex", "StaticReach", "Summary", "SummaryCache", "build_index", "module_name", "module_name_cached", "python_tree", "run_names", "summarize", "summarize_tree", "summary_digest", "with_module"]
