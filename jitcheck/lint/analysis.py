"""The rules of the static pass: resolve names with libcst's scope analysis and judge.

:func:`analyze` parses nothing itself: it takes a parsed module, runs the cheap
walk of :mod:`jitcheck.lint.collect`, and only where a finding is possible
resolves libcst's `ScopeProvider` (qualified names, assignments, accesses) and
judges each candidate against the rules of :mod:`jitcheck.rules`. Positions come
from `PositionProvider`, resolved only when there is something to report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Literal

import libcst as cst
from libcst.metadata import (
    BuiltinScope,
    ClassScope,
    GlobalScope,
    ImportAssignment,
    MetadataWrapper,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from jitcheck import rules
from jitcheck.lint import names
from jitcheck.lint.collect import CallSite, ClassInfo, Collector, Context, collect
from jitcheck.lint.index import ProjectIndex, summarize
from jitcheck.lint.prefilter import possible
from jitcheck.lint.frequency import Frequency

FixKind = Literal["value-partial", "hoist-lambda", "tuple", "frozenset", "frozen-dataclass"]


@dataclasses.dataclass(frozen=True)
class FixPlan:
    """A rewrite that removes a finding: what to change, and how safe it is."""

    kind: FixKind
    node: cst.CSTNode
    applicability: Literal["safe", "unsafe"]


@dataclasses.dataclass(frozen=True)
class RawFinding:
    """A finding before positions: the node it is about, its rule and message fields."""

    node: cst.CSTNode
    rule: rules.Rule
    fields: Mapping[str, object]
    fix: FixPlan | None = None
    note: str | None = None
    """Added to the rule's help line: what else the fix takes here."""
    jitted: bool = False
    """The finding is the function handed to a rebuilt ``jax.jit``: the rule's ``jitted_help`` applies."""


@dataclasses.dataclass(frozen=True)
class Located:
    """A finding with its position (1-based line and column) and rendered text."""

    line: int
    column: int
    end_line: int
    end_column: int
    rule: rules.Rule
    message: str
    help: str
    fix: FixPlan | None


@dataclasses.dataclass
class Analysis:
    """What :func:`analyze` found in one module, with the wrapper the fixes run on."""

    module: cst.Module
    wrapper: MetadataWrapper | None
    findings: list[Located]


@dataclasses.dataclass(frozen=True)
class Problem:
    """A rule broken by an expression, before it is reported."""

    rule: rules.Rule
    fields: dict[str, object]
    plan: FixPlan | None = None
    node: cst.CSTNode | None = None
    """Where to report it, when not at the expression judged (a partial inside ``jax.grad(...)``)."""
    note: str | None = None
    """Added to the rule's help line (a partial inside a rebuilt ``jax.grad``: build that once too)."""
    jitted: bool = False


def _text(module: cst.Module, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(module.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Analyzer(Frequency):
    """Judges the candidates one module's :class:`Collector` found, asking the :class:`Resolver` what names are."""

    def __init__(self, module: cst.Module, collector: Collector, scopes: Mapping[cst.CSTNode, Scope | None],
                 graph_constructors: Sequence[str], jit_wrappers: Sequence[str], index: ProjectIndex | None = None,
                 module_name: str = "", path: str = "") -> None:
        super().__init__(module, collector, scopes, jit_wrappers, index, module_name)
        self.path = path
        self.node_constructors = names.NODE_CONSTRUCTORS | frozenset(graph_constructors)
        self.found: list[RawFinding] = []
        self._seen: set[tuple[int, str]] = set()
        self._hoist_names: set[str] = set()

    # -- reporting -------------------------------------------------------------------

    def report(self, node: cst.CSTNode, rule: rules.Rule, fields: dict[str, object], fix: FixPlan | None = None,
               note: str | None = None, jitted: bool = False) -> None:
        key = (id(node), rule.code)
        if key in self._seen:
            return
        self._seen.add(key)
        self.found.append(RawFinding(node, rule, fields, fix, note, jitted))

    def report_problem(self, expr: cst.CSTNode, problem: Problem) -> None:
        self.report(problem.node if problem.node is not None else expr, problem.rule, problem.fields, problem.plan, problem.note,
                    problem.jitted)

    # -- callables in positions that are cache keys ------------------------------------

    def transformation_of(self, call: cst.Call) -> tuple[bool, cst.BaseExpression] | None:
        """``(rebuilds, wrapped)`` when ``call`` applies a function transformation, else None.

        ``rebuilds`` is True when the result is a new identity-compared function on
        every call (``jax.grad(f)``), False when it is ``f`` itself or compares by value
        (``functools.wraps(g)(f)``, ``equinox.filter_grad(f)``).
        """
        func = call.func
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if isinstance(func, cst.Call) and self.is_kind(func.func, names.WRAPS):
            return (False, positional[0]) if positional else None
        if self.is_kind(func, names.UPDATE_WRAPPER):
            return (False, positional[0]) if positional else None
        for name in self.qnames(func):
            transformation = names.TRANSFORMATIONS.get(name)
            if transformation is None:
                continue
            if positional:
                return transformation.rebuilds, positional[0]
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in transformation.keywords:
                    return transformation.rebuilds, arg.value
            return None
        return None

    def transformed_problem(self, call: cst.Call, rebuilds: bool, wrapped: cst.BaseExpression, *, context: Context,
                            position: str, keys: names.Keys, depth: int) -> Problem | None:
        """What breaks when a transformation of ``wrapped``, built here, is used in a cache-key position.

        Nested transformations (``jax.vmap(jax.grad(f))``) are looked through to the
        callable inside, which is judged first: a partial inside ``jax.grad`` is
        reported as a partial, where it is written. A jax transformation of a good
        callable is still a new function each time (JC701), unless the wrapper's own
        cache is the problem (a StatefulFunction, reported by the caller).
        """
        layers = [(call, rebuilds)]
        while isinstance(wrapped, cst.Call) and len(layers) < 16:
            inner = self.transformation_of(wrapped)
            if inner is None:
                break
            layers.append((wrapped, inner[0]))
            wrapped = inner[1]
        spelled = [_text(self.module, layer.func, 40) for layer, _ in layers]
        chain = " inside ".join(f"`{name}`" for name in reversed(spelled))
        rebuilding = [(layer, name) for (layer, again), name in zip(layers, spelled) if again]
        inner_position = f"the function wrapped by {chain}, built anew each time and used as {position}"
        inner_keys: names.Keys = "identity" if rebuilding and keys == "value" else keys
        found = self.callable_problem(wrapped, rebuilt=True, context=context, position=inner_position,
                                      allow_value_partial=False, depth=depth, keys=inner_keys)
        if found is not None and found.rule is not rules.TRANSFORMATION_REBUILT:
            node = found.node if found.node is not None else wrapped
            if not rebuilding:
                return dataclasses.replace(found, node=node)
            # Fixing the callable alone leaves a rebuilt jax transformation: no fix, and say so.
            note = (f"and build the `{spelled[0]}` wrapper once, at module level or in `__init__`: "
                    f"built per call, `{rebuilding[0][1]}` is a new cache key whatever it wraps")
            return dataclasses.replace(found, node=node, plan=None, note=note)
        if rebuilding and keys != "wrapper":
            layer, name = rebuilding[0]
            fields: dict[str, object] = {"position": position, "subject": _text(self.module, layer), "transformation": name}
            return Problem(rules.TRANSFORMATION_REBUILT, fields, node=None if layer is call else layer)
        return found

    def callable_problem(self, expr: cst.BaseExpression, *, rebuilt: bool, context: Context, position: str,
                         allow_value_partial: bool = True, depth: int = 0, keys: names.Keys = "identity",
                         jitted: bool = False) -> Problem | None:
        """The rule ``expr`` breaks as a callable in a cache-key position, or None.

        ``rebuilt`` says the position is evaluated again whenever the code runs again
        (a node body, or a jitted function in a function or loop): then a lambda or
        a partial built right there is a new key every time. ``keys`` says how the
        position finds a callable again (see :data:`names.Keys`).
        """
        if isinstance(expr, cst.Lambda):
            if not rebuilt:
                return None
            plan = FixPlan("hoist-lambda", expr, "safe") if self.hoistable(expr) else None
            return Problem(rules.LAMBDA, {"position": position, "subject": _text(self.module, expr)}, plan)
        if isinstance(expr, cst.Call):
            if not rebuilt:
                return None
            if self.is_kind(expr.func, names.FUNCTOOLS_PARTIALS):
                if expr.args and self.wrapper_for(expr.args[0].value) is not None:
                    return None  # partial(jax.jit, ...) is a jit decorator, not a jitted partial
                plan = None
                if allow_value_partial and self.can_import_value_partial():
                    # ValuePartial hashes its arguments: safe only when they are plainly hashable; an array never is.
                    static = self.arguments_static(expr)
                    plan = FixPlan("value-partial", expr, "safe" if static else "unsafe") if static is not False else None
                return Problem(rules.FUNCTOOLS_PARTIAL, {"position": position, "subject": _text(self.module, expr), "args": self.args_text(expr), **self.partial_parts(expr)}, plan)
            if self.is_kind(expr.func, names.TREE_PARTIALS):
                plan = None
                if allow_value_partial and self.can_import_value_partial():
                    static = self.arguments_static(expr)
                    if static is True:
                        plan = FixPlan("value-partial", expr, "safe")
                    elif static is None:
                        plan = FixPlan("value-partial", expr, "unsafe")
                return Problem(rules.TREE_UTIL_PARTIAL, {"position": position, "subject": _text(self.module, expr),
                                                         "args": self.args_text(expr), **self.partial_parts(expr)}, plan)
            transformed = self.transformation_of(expr)
            if transformed is not None:
                rebuilds, wrapped = transformed
                return self.transformed_problem(expr, rebuilds, wrapped, context=context, position=position, keys=keys, depth=depth)
            kind = self.factory_kind(expr.func)
            if kind is not None and keys != "wrapper":
                return Problem(rules.FACTORY_RESULT_REBUILT, {"position": position, "subject": _text(self.module, expr),
                                                               "factory": _text(self.module, expr.func, 40), "kind": kind})
            return None
        if isinstance(expr, cst.Name):
            referents = self.referents(expr)
            if len(referents) > 1 and depth == 0:
                return self.branches_problem(expr, referents, context=context, position=position, keys=keys)
            ref = referents[0] if len(referents) == 1 else None
            node = getattr(ref, "node", None)
            if isinstance(node, cst.FunctionDef):
                def_scope = getattr(ref, "scope", None)
                if def_scope is None or isinstance(def_scope, (GlobalScope, ClassScope)):
                    return None
                defined_in = self.c.defs.get(node)
                if defined_in is None or defined_in.function is not context.function:
                    return None  # defined by an outer function: the same object on every call here
                if not rebuilt:
                    return None
                if keys != "wrapper" and context.in_loop and not defined_in.in_loop and self.exempt(defined_in):
                    # Defined before the loop: the same function object on every iteration, and jax's
                    # cache (keyed on it) hits after the first; only a new call of the parent defines it anew.
                    return None
                return Problem(rules.NESTED_FUNCTION, {"position": position, "subject": expr.value})
            if isinstance(node, cst.Param) and depth == 0 and jitted and rebuilt and not context.in_loop:
                # A parameter is bound once per call: rebuilt in a loop of the helper, the wrapper finds it again.
                return self.parameter_problem(expr, node, context=context, position=position, keys=keys)
            if depth == 0 and node is not None and node in self.c.assigned:
                value, bound_in = self.c.assigned[node]
                if isinstance(getattr(ref, "scope", None), GlobalScope) and not bound_in.in_loop:
                    return None  # one module-level object: the same key every time
                if bound_in.function is not context.function:
                    return None  # bound by an outer function: the same object on every call here
                found = self.callable_problem(value, rebuilt=True, context=bound_in, position=position,
                                              allow_value_partial=False, depth=1, keys=keys)
                if found is not None:
                    if found.node is not None:
                        return found  # inside a transformation bound here: reported where it is written
                    return Problem(found.rule, {**found.fields, "subject": expr.value})
            return None
        if isinstance(expr, cst.Attribute):
            kind = self.member_kind(expr, context)
            if kind == "method":
                if keys == "value" and not self.receiver_rebuilt(expr, context):
                    return None  # compared by value: the same receiver's method is the same key
                return Problem(rules.BOUND_METHOD, {"position": position, "subject": _text(self.module, expr)})
            if kind == "unknown" and jitted and rebuilt and context.in_loop and keys == "identity" and depth == 0:
                # Hoisting the wrapper out of the loop is right whatever the attribute is (see JC107).
                return Problem(rules.UNRESOLVED_METHOD, {"position": position, "subject": _text(self.module, expr),
                                                         "receiver": _text(self.module, expr.value, 40),
                                                         "name": expr.attr.value})
        return None

    def parameter_problem(self, expr: cst.Name, param: cst.Param, *, context: Context, position: str,
                          keys: names.Keys) -> Problem | None:
        """A parameter jitted where the wrapper is rebuilt on every call: what the callers this file
        shows hand in for it. A lambda, partial, nested function, bound method or factory result
        passed there is a new key on each call of this function (a module-level function is not)."""
        function = context.function
        if not isinstance(function, cst.FunctionDef):
            return None
        params = self.def_params(function)
        keyword_only = [p.name.value for p in function.params.kwonly_params]
        name = param.name.value
        if name not in params and name not in keyword_only:
            return None  # a parameter of a lambda or of an outer function
        found: list[Problem] = []
        for site in self.callers(function, context):
            call = site.node
            shift = 1 if context.method_of is not None and isinstance(call.func, cst.Attribute) and params \
                and params[0] == context.self_name else 0
            index = params.index(name) - shift if name in params else -1
            argument: cst.BaseExpression | None = None
            position_index = 0
            for arg in call.args:
                if arg.star:
                    break
                if arg.keyword is None:
                    if position_index == index:
                        argument = arg.value
                    position_index += 1
                elif arg.keyword.value == name:
                    argument = arg.value
            if argument is None:
                continue
            problem = self.callable_problem(argument, rebuilt=True, context=site.context,
                                            position=f"{position}, through its parameter `{name}`",
                                            allow_value_partial=False, keys=keys)
            if problem is not None:
                found.append(problem)
        if not found:
            return None
        first = found[0]
        note = f"the callers of `{function.name.value}` hand `{name}` a new one on each call: fix it where they build it"
        return dataclasses.replace(first, plan=None, node=expr, note=note)

    def branches_problem(self, expr: cst.Name, referents: list[object], *, context: Context, position: str,
                         keys: names.Keys) -> Problem | None:
        """A name bound on several branches (``if a: f = lambda ...`` / ``else: f = lambda ...``) in this function:
        reported when every binding breaks the same rule."""
        found: list[Problem] = []
        for ref in referents:
            node = getattr(ref, "node", None)
            if node is None or node not in self.c.assigned:
                return None
            value, bound_in = self.c.assigned[node]
            if bound_in.function is not context.function or bound_in.function is None:
                return None
            problem = self.callable_problem(value, rebuilt=True, context=bound_in, position=position,
                                            allow_value_partial=False, depth=1, keys=keys)
            if problem is None or problem.node is not None:
                return None
            found.append(problem)
        if len({p.rule.code for p in found}) != 1:
            return None
        return Problem(found[0].rule, {**found[0].fields, "subject": expr.value})

    def partial_parts(self, call: cst.Call) -> dict[str, str]:
        """The partial's function and its bound values, for the help of a jitted partial."""
        if not call.args:
            return {"function": "f", "bound": "its bound values"}
        rest = [_text(self.module, arg, 40).rstrip(",") for arg in call.args[1:]]
        bound = ", ".join(f"`{r}`" for r in rest) or "none"
        return {"function": _text(self.module, call.args[0].value, 40), "bound": bound}

    def args_text(self, call: cst.Call) -> str:
        text = ", ".join(_text(self.module, arg, 40).rstrip(",") for arg in call.args)
        return text if len(text) <= 80 else text[:77] + "..."

    def arguments_static(self, call: cst.Call) -> bool | None:
        """True when every argument is plainly static, False when one is an array, None when unknown."""
        verdict: bool | None = True
        for arg in call.args:
            kind = self.static_kind(arg.value)
            if kind is False:
                return False
            if kind is None:
                verdict = None
        return verdict

    def static_kind(self, expr: cst.BaseExpression) -> bool | None:
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
            return True
        if isinstance(expr, cst.Name):
            if expr.value in ("None", "True", "False"):
                return True
            ref = self.single_referent(expr)
            if isinstance(getattr(ref, "node", None), (cst.FunctionDef, cst.ClassDef)) and isinstance(getattr(ref, "scope", None), GlobalScope):
                return True
            if isinstance(ref, ImportAssignment):
                return True
            return None
        if isinstance(expr, cst.Attribute):
            base = expr.value
            while isinstance(base, cst.Attribute):
                base = base.value
            if isinstance(base, cst.Name) and isinstance(self.single_referent(base), ImportAssignment):
                return True
            return None
        if isinstance(expr, cst.Tuple):
            kinds = [self.static_kind(e.value) for e in expr.elements]
            return False if False in kinds else (True if all(kinds) else None)
        if isinstance(expr, cst.UnaryOperation):
            return self.static_kind(expr.expression)
        if isinstance(expr, cst.Call) and self.array_call(expr):
            return False
        return None

    def can_import_value_partial(self) -> bool:
        """``ValuePartial`` can be imported: the module does not bind that name to something else."""
        global_scope = self.scopes.get(self.module)
        if not isinstance(global_scope, GlobalScope) or "ValuePartial" not in global_scope:
            return True
        return all(
            isinstance(a, ImportAssignment) and any(q.name in names.VALUE_PARTIALS for q in a.get_qualified_names_for("ValuePartial"))
            for a in global_scope["ValuePartial"]
        )

    def hoistable(self, node: cst.Lambda) -> bool:
        """True when the lambda reads nothing of the functions around it: it can move to module level."""
        for param in (*node.params.params, *node.params.posonly_params, *node.params.kwonly_params):
            if param.default is not None and self.static_kind(param.default) is not True:
                return False
        outer = self.scopes.get(node)
        inner = self.scopes.get(node.body)
        if outer is None or inner is None:
            return False
        if _in_class(outer) and _mangles(node):
            return False  # in a class body `__name` is mangled to `_Class__name`; at module level it is not
        reader = _Names()
        node.body.visit(reader)
        for name in reader.names:
            for ref in self.referents(name):
                scope = getattr(ref, "scope", None)
                if scope is None or isinstance(scope, (GlobalScope, BuiltinScope)):
                    continue
                if _inside(scope, inner):
                    continue  # a parameter of this lambda or of a lambda inside it
                return False
        return True

    # -- static values ----------------------------------------------------------------------

    def array_call(self, call: cst.Call) -> bool:
        for name in self.qnames(call.func):
            if name in names.ARRAY_FACTORIES:
                return True
            if name.startswith(names.ARRAY_MODULES) and name not in names.NOT_ARRAY_IN_RANDOM and name.count(".") == 2:
                return True
        return False

    def value_problem(self, expr: cst.BaseExpression, position: str, depth: int = 0) -> Problem | None:
        """The rule ``expr`` breaks as a static value (hashed into a cache key), or None."""
        subject = _text(self.module, expr)
        if isinstance(expr, (cst.List, cst.ListComp)):
            plan = FixPlan("tuple", expr, "unsafe") if isinstance(expr, cst.List) else None
            return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": "list", "subject": f"`{subject}`", "position": position}, plan)
        if isinstance(expr, (cst.Set, cst.SetComp)):
            plan = FixPlan("frozenset", expr, "unsafe") if isinstance(expr, cst.Set) else None
            return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": "set", "subject": f"`{subject}`", "position": position}, plan)
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": "dict", "subject": f"`{subject}`", "position": position})
        if isinstance(expr, cst.Tuple):
            for element in expr.elements:
                found = self.value_problem(element.value, position, depth + 1)
                if found is not None:
                    return found
            return None
        if isinstance(expr, cst.Call):
            for name in self.qnames(expr.func):
                if name in names.CONTAINER_BUILTINS:
                    kind = names.CONTAINER_BUILTINS[name]
                    return Problem(rules.MUTABLE_CONTAINER_STATIC, {"kind": kind, "subject": f"`{subject}`", "position": position})
            if self.array_call(expr):
                return Problem(rules.ARRAY_STATIC, {"subject": f"`{subject}`", "position": position})
            info = self.local_class(expr.func)
            if info is not None:
                return self.class_problem(info, subject, position)
            ref = self.class_ref(expr.func)
            if isinstance(ref, str):
                return self.indexed_class_problem(ref, subject, position)
            return None
        if isinstance(expr, cst.Name) and depth < 2:
            bound = self.value_of(expr)
            if bound is not None:
                value, _, _ = bound
                found = self.value_problem(value, position, depth + 1)
                if found is not None:
                    return Problem(found.rule, {**found.fields, "subject": f"`{expr.value}`"})
        return None

    def indexed_class_problem(self, qualified: str, subject: str, position: str) -> Problem | None:
        """A class of another module (from the index) as a static value: a mutable dataclass, or ``__eq__`` without ``__hash__``."""
        found = self.index.cls(qualified)
        if found is None:
            return None
        _, facts = found
        methods = facts["methods"]
        name = qualified.rsplit(".", 1)[-1]
        options = facts.get("dataclass")
        if options is not None:
            if options["frozen"] or not options["eq"] or options["unsafe_hash"] or "__hash__" in methods or not options["literal"]:
                return None
            return Problem(rules.MUTABLE_DATACLASS, {"subject": subject, "type": name, "position": position})
        if "__eq__" in methods and "__hash__" not in methods and "__hash__" not in facts["stored"]:
            return Problem(rules.EQ_WITHOUT_HASH, {"subject": subject, "type": name, "position": position})
        return None

    def class_problem(self, info: ClassInfo, subject: str, position: str) -> Problem | None:
        name = info.node.name.value
        for decorator in info.node.decorators:
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            if self.is_kind(call.func if call else expr, names.DATACLASS_DECORATORS):
                options = {a.keyword.value: a.value for a in (call.args if call else ()) if a.keyword is not None}
                if _is_true(options.get("frozen")) or _is_false(options.get("eq")) or _is_true(options.get("unsafe_hash")):
                    return None
                if "__hash__" in info.defines:
                    return None
                if any(not _is_literal(v) for v in options.values()):
                    return None
                plan = FixPlan("frozen-dataclass", decorator, "unsafe") if self.can_freeze(info) else None
                return Problem(rules.MUTABLE_DATACLASS, {"subject": subject, "type": name, "position": position}, plan)
        if "__eq__" in info.defines and "__hash__" not in info.defines:
            return Problem(rules.EQ_WITHOUT_HASH, {"subject": subject, "type": name, "position": position})
        return None

    def can_freeze(self, info: ClassInfo) -> bool:
        """Freezing this dataclass keeps its program running: no method assigns to ``self``, every base is a
        class of this module, and no dataclass base or subclass is left non-frozen (dataclasses refuses to mix them)."""
        if info.instance_values:
            return False  # `self.x = ...` in __post_init__ or a method raises FrozenInstanceError once frozen
        name = info.node.name.value
        bases = {b.value.value for b in info.node.bases if isinstance(b.value, cst.Name)}
        known = {other.node.name.value for other in self.c.classes.values()}
        if len(bases) != len(info.node.bases) or not bases <= known | {"object"}:
            return False  # a base from another module may be a mutable dataclass: unknown, so no fix
        for other in self.c.classes.values():
            if other is info:
                continue
            is_base = other.node.name.value in bases
            is_subclass = any(isinstance(b.value, cst.Name) and b.value.value == name for b in other.node.bases)
            if (is_base or is_subclass) and self.is_dataclass(other) is False:
                return False  # a non-frozen dataclass base or subclass: dataclasses refuses to mix them
        return True

    def is_dataclass(self, info: ClassInfo) -> bool | None:
        """True for a frozen dataclass, False for a non-frozen one, None for a class that is not a dataclass."""
        for decorator in info.node.decorators:
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            if self.is_kind(call.func if call else expr, names.DATACLASS_DECORATORS):
                options = {a.keyword.value: a.value for a in (call.args if call else ()) if a.keyword is not None}
                return _is_true(options.get("frozen"))
        return None

    # -- the positions ----------------------------------------------------------------------

    def run(self) -> list[RawFinding]:
        for site in self.c.candidates:
            call = site.node
            wrapper = self.wrapper_for(call.func)
            if wrapper is not None:
                self.jit_call(site, wrapper)
                continue
            if self.is_kind(call.func, self.node_constructors):
                self.node_call(site)
                continue
            if self.is_kind(call.func, names.FUNCTOOLS_PARTIALS) and call.args:
                inner = self.wrapper_for(call.args[0].value)
                if inner is not None:
                    self.partial_jit_call(site, inner)
        for function, decorator, context in self.c.decorated:
            self.decorated_def(function, decorator, context)
        self.imported_jit_calls()
        return self.found

    def imported_jit_calls(self) -> None:
        """Calls of jitted functions with static arguments that another module defines (known from the index)."""
        wanted = self.index.hints().static_jitted
        for func, site in self.c.call_of_func.items():
            if not isinstance(func, cst.Name) or func.value not in wanted or site.node.func is not func:
                continue
            found = self.indexed_jit(func)
            if found is None:
                continue
            facts, qualified = found
            spec_facts = facts["jit"]
            assert isinstance(spec_facts, dict)
            spec = (frozenset(spec_facts.get("nums") or ()), frozenset(spec_facts.get("names") or ()))
            params = facts.get("params")
            self.check_static_arguments(site.node, site.context, spec, tuple(params) if isinstance(params, list) else None,
                                        func.value)

    def jit_call(self, site: CallSite, wrapper: names.Wrapper) -> None:
        call = site.node
        positional = [a for a in call.args if a.keyword is None and not a.star]
        spec = self.static_spec(call.args, wrapper)
        if not positional:
            return  # jax.jit(static_argnums=...) used as a decorator: see decorated_def
        fun = positional[0].value
        context = site.context
        if context.per_call and not self.exempt(context) and self.used_here(call, site.parent, wrapper, context):
            if wrapper.keys == "wrapper":
                position = f"the function wrapped by `{site.spelled}` {context.where()} (a new wrapper, with an empty cache, each time)"
            else:
                position = f"the function jitted by `{site.spelled}` {context.where()}"
            found = self.callable_problem(fun, rebuilt=True, context=context, position=position, allow_value_partial=False,
                                          keys=wrapper.keys, jitted=True)
            if found is not None and wrapper.keys == "identity" and found.rule in (rules.FUNCTOOLS_PARTIAL, rules.TREE_UTIL_PARTIAL):
                found = dataclasses.replace(found, jitted=True)  # a ValuePartial would not help a rebuilt jax.jit
            if found is not None and wrapper.keys == "wrapper":
                # Fixed alone, the callable would still be wrapped anew, with an empty cache, each time.
                note = f"and build the `{site.spelled}` once, at module level or in `__init__`: a new one starts with an empty cache"
                found = dataclasses.replace(found, plan=None, note=note)
            if found is not None:
                self.report_problem(fun, found)
            elif wrapper.keys == "wrapper":
                self.report(call, rules.STATEFUL_FUNCTION_REBUILT, {
                    "subject": _text(self.module, call), "where": context.where(), "function": _text(self.module, fun, 40)})
        if spec is not None:
            self.static_call_sites(call, site.parent, spec, self.params_of(fun, context), _text(self.module, call, 50), site.context)

    def partial_jit_call(self, site: CallSite, wrapper: names.Wrapper) -> None:
        """``partial(jax.jit, static_argnums=...)``: a decorator, or applied at once."""
        spec = self.static_spec(site.node.args[1:], wrapper)
        applied = site.parent
        if spec is not None and isinstance(applied, cst.Call) and applied.func is site.node and applied.args:
            self.static_call_sites(applied, self.c.applied_parent.get(applied), spec,
                                   self.params_of(applied.args[0].value), _text(self.module, applied, 50), site.context)

    def decorated_def(self, function: cst.FunctionDef, decorator: cst.Decorator, context: Context) -> None:
        expr = decorator.decorator
        spec: tuple[frozenset[int], frozenset[str]] | None = None
        if isinstance(expr, cst.Call):
            wrapper = self.wrapper_for(expr.func)
            if wrapper is not None:
                if any(a.keyword is None for a in expr.args):
                    return
                spec = self.static_spec(expr.args, wrapper)
            elif self.is_kind(expr.func, names.FUNCTOOLS_PARTIALS) and expr.args:
                wrapper = self.wrapper_for(expr.args[0].value)
                if wrapper is None:
                    return
                spec = self.static_spec(expr.args[1:], wrapper)
            else:
                return
        else:
            wrapper = self.wrapper_for(expr)
            if wrapper is None:
                return
        if context.per_call and not self.exempt(context) and self.called_per_build(function, context):
            position = f"the function jitted by `@{_text(self.module, expr, 40)}` {context.where()}"
            self.report(decorator, rules.NESTED_FUNCTION, {"subject": function.name.value, "position": position})
        if spec is not None and self.scopes.get(function) is not None:
            scope = self.scopes[function]
            if isinstance(scope, ClassScope):
                return  # methods: the receiver shifts the positions
            params = self.def_params(function)
            for called in self.calls_of(function):
                self.check_static_arguments(called.node, called.context, spec, params, function.name.value)

    def static_spec(self, args: Sequence[cst.Arg], wrapper: names.Wrapper) -> tuple[frozenset[int], frozenset[str]] | None:
        """The static positions and names a wrapper call declares, or None when it declares none (or we cannot read them).

        ``args`` are the wrapper's arguments, its function first when given; options
        it takes by position after the function (:attr:`names.Wrapper.positional`) count.
        """
        nums: set[int] = set()
        argnames: set[str] = set()
        options: list[tuple[str, cst.Arg]] = []
        index = 0
        for arg in args:
            if arg.star:
                break
            if arg.keyword is None:
                if 0 < index <= len(wrapper.positional):
                    options.append((wrapper.positional[index - 1], arg))
                index += 1
            else:
                options.append((arg.keyword.value, arg))
        for key, arg in options:
            if wrapper.static_argnums is not None and key == wrapper.static_argnums:
                values = _literal_ints(arg.value)
                if values is None:
                    return None
                nums |= values
            elif wrapper.static_argnames is not None and key == wrapper.static_argnames:
                strings = _literal_strings(arg.value)
                if strings is None:
                    return None
                argnames |= strings
        if not nums and not argnames:
            return None
        return frozenset(nums), frozenset(argnames)

    def params_of(self, fun: cst.BaseExpression, context: Context | None = None, depth: int = 0) -> tuple[str, ...] | None:
        """The positional parameter names of the function ``fun`` evaluates to, when resolved in this file.

        Transformations keep their function's arguments (``jax.grad(f)`` takes ``f``'s),
        and ``self.method`` in a method drops the receiver.
        """
        if isinstance(fun, cst.Name):
            node = getattr(self.single_referent(fun), "node", None)
            if isinstance(node, cst.FunctionDef):
                return self.def_params(node)
        if isinstance(fun, cst.Lambda):
            return tuple(p.name.value for p in (*fun.params.posonly_params, *fun.params.params))
        if isinstance(fun, cst.Call) and depth < 8:
            transformed = self.transformation_of(fun)
            if transformed is not None:
                return self.params_of(transformed[1], context, depth + 1)
        if isinstance(fun, cst.Attribute) and context is not None and context.method_of is not None \
                and isinstance(fun.value, cst.Name) and fun.value.value == context.self_name:
            info = self.c.classes.get(context.method_of)
            method = info.methods.get(fun.attr.value) if info is not None else None
            if method is not None and self.class_method_kind(info, fun.attr.value, set()) == "method":
                return self.def_params(method)[1:]
        return None

    @staticmethod
    def def_params(function: cst.FunctionDef) -> tuple[str, ...]:
        return tuple(p.name.value for p in (*function.params.posonly_params, *function.params.params))

    def static_call_sites(self, wrapper_call: cst.Call, parent: cst.CSTNode | None, spec: tuple[frozenset[int], frozenset[str]],
                          params: tuple[str, ...] | None, spelled: str, context: Context) -> None:
        """Check every call of the jitted wrapper this file makes: right away, via a name, or via ``self.name``."""
        if isinstance(parent, cst.Call) and parent.func is wrapper_call:
            self.check_static_arguments(parent, context, spec, params, spelled)
            return
        if not isinstance(parent, (cst.Assign, cst.AnnAssign)):
            return
        targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
        for target in targets:
            if isinstance(target, cst.Name):
                for called in self.calls_of(target):
                    self.check_static_arguments(called.node, called.context, spec, params, target.value)
            elif isinstance(target, cst.Attribute) and target in self.c.assigned:
                _, context = self.c.assigned[target]
                if context.method_of is not None and isinstance(target.value, cst.Name) and target.value.value == context.self_name:
                    for called in self.c.self_calls.get((context.method_of, target.attr.value), ()):
                        self.check_static_arguments(called.node, called.context, spec, params, f"self.{target.attr.value}")

    def check_static_arguments(self, call: cst.Call, context: Context, spec: tuple[frozenset[int], frozenset[str]],
                               params: tuple[str, ...] | None, callee: str) -> None:
        nums, argnames = spec
        static_names = set(argnames)
        static_nums = set(nums)
        if params is not None:
            static_names |= {params[i] for i in nums if 0 <= i < len(params)}
            static_nums |= {i for i, p in enumerate(params) if p in argnames}
        index = 0
        for arg in call.args:
            if arg.star:
                break
            if arg.keyword is None:
                if index in static_nums:
                    label = f"static argument {index}" + (f" (`{params[index]}`)" if params and index < len(params) else "")
                    self.static_value(arg.value, f"{label} of `{callee}`", context)
                index += 1
            elif arg.keyword.value in static_names:
                self.static_value(arg.value, f"static argument `{arg.keyword.value}` of `{callee}`", context)

    def static_value(self, expr: cst.BaseExpression, position: str, context: Context) -> None:
        found = self.value_problem(expr, position)
        if found is None:
            rebuilt = context.per_call and not self.exempt(context)
            found = self.callable_problem(expr, rebuilt=rebuilt, context=context, position=position)
        if found is not None:
            self.report_problem(expr, found)

    def node_call(self, site: CallSite) -> None:
        """``NodeDefinition(body, inputs, outputs, settings)``: the body and every setting are cache keys."""
        call = site.node
        positional = [a for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        constructor = _text(self.module, call.func, 40)
        body = keywords.get("body") or (positional[0] if positional else None)
        if body is not None:
            found = self.callable_problem(body.value, rebuilt=True, context=site.context, position=f"the body of a `{constructor}`")
            if found is not None:
                self.report_problem(body.value, found)
        settings = keywords.get("settings") or (positional[3] if len(positional) > 3 else None)
        if settings is not None:
            for key, value in self.setting_items(settings.value):
                position = f"node setting `{key}` of a `{constructor}`"
                found = self.value_problem(value, position)
                if found is None:
                    found = self.callable_problem(value, rebuilt=True, context=site.context, position=position)
                if found is not None:
                    self.report_problem(value, found)

    def setting_items(self, expr: cst.BaseExpression, depth: int = 0) -> Iterator[tuple[str, cst.BaseExpression]]:
        """The (key, value) pairs of a settings mapping written out in this file."""
        if isinstance(expr, cst.Dict):
            for element in expr.elements:
                if isinstance(element, cst.DictElement):
                    key = element.key
                    label = key.evaluated_value if isinstance(key, cst.SimpleString) else _text(self.module, key, 30)
                    yield str(label), element.value
        elif isinstance(expr, cst.Call):
            qualified = self.qnames(expr.func)
            if qualified & ({"builtins.dict"} | names.ORDERED_MAPS):
                for arg in expr.args:
                    if arg.keyword is not None:
                        yield arg.keyword.value, arg.value
                    elif not arg.star and depth < 2:
                        yield from self.setting_items(arg.value, depth + 1)
        elif isinstance(expr, cst.Name) and depth < 2:
            bound = self.value_of(expr)
            if bound is not None:
                yield from self.setting_items(bound[0], depth + 1)


class _Names(cst.CSTVisitor):
    """Every ``Name`` read under a node."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node)


def _in_class(scope: Scope) -> bool:
    """True when ``scope`` is a class body or nested in one."""
    current: Scope | None = scope
    while current is not None and not isinstance(current, GlobalScope):
        if isinstance(current, ClassScope):
            return True
        current = getattr(current, "parent", None)
    return False


def _mangles(node: cst.CSTNode) -> bool:
    """True when ``node`` spells a private name (``__x``, not ``__x__``), which Python mangles in a class."""

    class _Private(cst.CSTVisitor):
        found = False

        def visit_Name(self, name: cst.Name) -> None:
            if name.value.startswith("__") and not name.value.endswith("__"):
                self.found = True

    visitor = _Private()
    node.visit(visitor)
    return visitor.found


def _inside(scope: Scope, outer: Scope) -> bool:
    current: Scope | None = scope
    while current is not None:
        if current is outer:
            return True
        parent = current.parent
        current = None if parent is current else parent
    return False


def _literal_ints(expr: cst.BaseExpression) -> set[int] | None:
    if isinstance(expr, cst.Integer):
        return {int(expr.evaluated_value)}
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(expr.expression, cst.Integer):
        return {-int(expr.expression.evaluated_value)}
    if isinstance(expr, (cst.Tuple, cst.List)):
        found: set[int] = set()
        for element in expr.elements:
            inner = _literal_ints(element.value)
            if inner is None:
                return None
            found |= inner
        return found
    return None


def _literal_strings(expr: cst.BaseExpression) -> set[str] | None:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return {value} if isinstance(value, str) else None
    if isinstance(expr, (cst.Tuple, cst.List)):
        found: set[str] = set()
        for element in expr.elements:
            inner = _literal_strings(element.value)
            if inner is None:
                return None
            found |= inner
        return found
    return None


def _is_true(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _is_false(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def _is_literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("True", "False", "None")


def analyze(module: cst.Module, source: str, *, graph_constructors: Sequence[str] = (), jit_wrappers: Sequence[str] = (),
            prefilter: bool = True, index: ProjectIndex | None = None, module_name: str = "", path: str = "") -> Analysis:
    """Every finding of the static rules in a parsed module, in source order.

    ``index`` is the project index of the run (what the other files define); without
    one, the module is indexed alone, as ``module_name``. ``prefilter=False`` skips
    the ``ast`` test of :mod:`.prefilter` (the tests use it to show that the test
    never hides a finding).
    """
    module_name = module_name or "__module__"
    if index is None or module_name not in index.modules:
        index = ProjectIndex({**(index.modules if index is not None else {}), module_name: summarize(source)},
                             installed=index.installed if index is not None else True)
    hints = index.hints()
    if prefilter and not possible(source, graph_constructors, jit_wrappers, hints=hints):
        return Analysis(module, None, [])
    collector = collect(module, source, graph_constructors, jit_wrappers)
    if not collector.needs_scope and not any(
            (cst.helpers.get_full_name_for_node(func) or "").rsplit(".", 1)[-1] in hints.static_jitted
            for func in collector.call_of_func):
        return Analysis(module, None, [])
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = wrapper.resolve(ScopeProvider)
    raw = Analyzer(module, collector, scopes, graph_constructors, jit_wrappers, index, module_name, path).run()
    if not raw:
        return Analysis(module, wrapper, [])
    positions = wrapper.resolve(PositionProvider)
    located = []
    for item in raw:
        where = positions[item.node]
        located.append(
            Located(
                where.start.line,
                where.start.column + 1,
                where.end.line,
                where.end.column + 1,
                item.rule,
                item.rule.format(**item.fields),
                (item.rule.format_jitted_help(**item.fields) if item.jitted else item.rule.format_help(**item.fields))
                + (f"; {item.note}" if item.note else ""),
                item.fix,
            )
        )
    located.sort(key=lambda f: (f.line, f.column, f.rule.code))
    return Analysis(module, wrapper, located)


__all__ = ["Analysis", "Analyzer", "FixPlan", "Located", "RawFinding", "analyze"]
