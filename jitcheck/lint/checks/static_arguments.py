"""Static arguments of jitted functions (JC2xx at call sites): each call's static values are keys.

A wrapper that declares ``static_argnums``/``static_argnames`` hashes those
arguments into its cache key. The calls this file makes of it (right away, through
a name, or through ``self.name``) are found and each static argument is judged as
a value, then as a callable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import libcst as cst
from libcst.metadata import ClassScope

from jitcheck import rules
from jitcheck.lint import names
from jitcheck.lint.checks.callables import Callables
from jitcheck.lint.checks.static_changes import ChangingStatics
from jitcheck.lint.collect import Context
from jitcheck.lint.evidence import Evidence, Reason
from jitcheck.lint.resolver import has_param
from jitcheck.lint.static_args import static_arguments

_T = TypeVar("_T")


class StaticArguments(Callables, ChangingStatics):
    """Reads a wrapper's static spec and judges the static arguments of its calls."""

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

    def static_call_sites(self, wrapper_call: cst.Call, parent: cst.CSTNode | None, spec: tuple[frozenset[int], frozenset[str]],
                          params: tuple[str, ...] | None, spelled: str, context: Context, *, every: bool = False,
                          fun: cst.BaseExpression | None = None) -> None:
        """Check every call of the jitted wrapper this file makes: right away, via a name, or via ``self.name``
        (``every``: a wrapper under which every argument that is not an array is static; ``fun``: the function
        wrapped, whose ``def`` JC207 reads when it is this file's)."""
        definition = self.own_def_of(fun) if fun is not None and not every else None
        declared = wrapper_call if definition is not None else None
        if isinstance(parent, cst.Call) and parent.func is wrapper_call:
            self.check_static_arguments(parent, context, spec, params, spelled, every=every, definition=definition,
                                        declared=declared)
            return
        if not isinstance(parent, (cst.Assign, cst.AnnAssign)):
            return
        targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
        for target in targets:
            if isinstance(target, cst.Name):
                for called in self.calls_of(target):
                    self.check_static_arguments(called.node, called.context, spec, params, target.value, every=every,
                                                definition=definition, declared=declared)
            elif isinstance(target, cst.Attribute) and target in self.c.assigned:
                _, context = self.c.assigned[target]
                if context.method_of is not None and isinstance(target.value, cst.Name) and target.value.value == context.self_name:
                    for called in self.c.self_calls.get((context.method_of, target.attr.value), ()):
                        self.check_static_arguments(called.node, called.context, spec, params, f"self.{target.attr.value}",
                                                    every=every, definition=definition, declared=declared)

    def own_def_of(self, fun: cst.BaseExpression) -> cst.FunctionDef | None:
        """The ``def`` of this file that ``fun`` names (a plain function: not a method, whose receiver shifts the
        positions), or None."""
        if not isinstance(fun, cst.Name):
            return None
        node = getattr(self.single_referent(fun), "node", None)
        if not isinstance(node, cst.FunctionDef) or isinstance(self.scopes.get(node), ClassScope):
            return None
        return node

    def check_static_arguments(self, call: cst.Call, context: Context, spec: tuple[frozenset[int], frozenset[str]],
                               params: tuple[str, ...] | None, callee: str, *, every: bool = False,
                               definition: cst.FunctionDef | None = None, declared: cst.CSTNode | None = None,
                               via: Mapping[str, str] | None = None) -> None:
        """Judge each static argument of ``call`` (``every``: each argument, under a wrapper that keys every
        argument that is not an array by hash and ``==``, where only callables are judged). ``definition`` is the
        jitted function's ``def`` when this file has it (``params`` are then its parameters as the call binds them),
        ``declared`` the decorator that makes it static there. ``via``: ``callee`` is not jitted itself but hands
        these parameters on to static arguments of a jitted function, each named there (`` `func` of `solve` ``)."""
        noun = "static argument" if via is None else "argument"  # (a forwarder's: static where it lands)
        for key, value in static_arguments(call, spec, params):
            if isinstance(key, int):
                label = f"{noun} {key}" + (f" (`{params[key]}`)" if params and key < len(params) else "")
                param = params[key] if params and key < len(params) else None
            else:
                label = f"{noun} `{key}`"
                param = key
            suffix = " (not an array, so static under `equinox.filter_jit`)" if every else ""
            if via is not None:
                suffix = f", handed on unchanged to the static {via.get(param or '', 'argument')}"
            if not every and via is None and self.traced_static(value, f"{label} of `{callee}`", context, declared):
                continue
            if not every and self.returned_array_static(value, f"{label} of `{callee}`{suffix}"):
                continue
            self.static_value(value, f"{label} of `{callee}`{suffix}", context, every=every, call=call)
            self.changing_static(value, f"{label} of `{callee}`{suffix}", param, call, context, definition, callee,
                                 declared)

    def traced_static(self, value: cst.BaseExpression, position: str, context: Context, declared: cst.CSTNode | None) -> bool:
        """Report JC201 when ``value`` is a parameter of the jitted function whose body holds the call, not among that
        function's static arguments: a tracer while that body is traced, and a tracer cannot be hashed (jax raises
        "Non-hashable static arguments are not supported"). Reported at ``declared``, the decorator that makes the
        argument static, where the fix goes, when this file has it."""
        function = context.function
        if not isinstance(value, cst.Name) or not isinstance(function, cst.FunctionDef) or value.value == context.self_name:
            return False
        traced = self.traced_parameters(function)
        node = getattr(self.single_referent(value), "node", None)
        if traced is None or value.value not in traced or not isinstance(node, cst.Param) or not has_param(function, node):
            return False
        line = self.line_of(function.decorators[0]) if function.decorators else self.line_of(function)
        evidence = Evidence((Reason("traced", f"`{value.value}` is a parameter of `{function.name.value}`, jitted at line {line} "
                                    "without it among its static arguments: a tracer while its body is traced, which "
                                    "cannot be hashed", line),))
        if node.default is not None and not self.passed_by_a_caller(function, context, node):
            # jax traces only the arguments a call passes: left at its default, the parameter is a Python value there.
            evidence = evidence.guessed(
                f"that a caller passes `{value.value}`: every call of `{function.name.value}` in the run leaves it at "
                "its default, which jax does not trace")
        self.report(declared if declared is not None else value, rules.ARRAY_STATIC, {
            "subject": f"`{value.value}` (a traced parameter of the jitted `{function.name.value}`)", "position": position},
            evidence=evidence)
        return True

    def returned_array_static(self, value: cst.BaseExpression, position: str) -> bool:
        """Report JC201 when ``value`` is what a function jitted by ``jax.jit``, ``jax.pmap`` or ``pjit`` returned
        (a name bound to its call or unpacked from it, or arithmetic on one): such a function returns jax arrays,
        and an array cannot be hashed, so jax raises "Non-hashable static arguments are not supported" on every
        call, whatever runs again."""
        for name in _operands(value):
            found = self.jitted_result(name)
            if found is None:
                continue
            function, line = found
            evidence = Evidence((Reason("jit-result", f"`{name.value}` is returned by `{function}`, jitted at line {line}: "
                                        "what a jitted function returns is a jax array, which cannot be hashed", line),))
            note = (f"where it must stay static (a size, a count), compute it in plain Python or numpy: `{function}` "
                    "is jitted, so what it returns is a jax array")
            self.report(value, rules.ARRAY_STATIC, {
                "subject": f"`{name.value}` (returned by the jitted `{function}`)", "position": position}, note=note,
                evidence=evidence)
            return True
        return False

    def jitted_result(self, name: cst.Name) -> tuple[str, int] | None:
        """The name and line of the function of this file, jitted by a wrapper that returns arrays, whose call
        ``name`` is bound to (``x = f(...)``, ``a, b = f(...)``), or None."""
        node = getattr(self.single_referent(name), "node", None)
        if node is None:
            return None
        bound = self.c.assigned.get(node)
        unpacked = self.c.unpacked.get(node)
        call = bound[0] if bound is not None else unpacked[0] if unpacked is not None else None
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None
        definition = getattr(self.single_referent(call.func), "node", None)
        if not isinstance(definition, cst.FunctionDef):
            return None
        jitted = self.jitted_by(definition)
        if jitted is None or jitted[1].name not in _ARRAY_RETURNING:
            return None
        return definition.name.value, self.line_of(jitted[0])

    def passed_by_a_caller(self, function: cst.FunctionDef, context: Context, param: cst.Param) -> bool:
        """Whether a call of ``function`` in the run (here, or another module's through the index) passes
        ``param``: by its position, by its keyword, or through ``*args``/``**kwargs`` (which may hold it)."""
        name = param.name.value
        positional = self.def_params(function)
        index = positional.index(name) if name in positional else None
        for site in self.calls_of(function):
            for position, arg in enumerate(site.node.args):
                if arg.star or (arg.keyword is None and index is not None and position == index) or \
                        (arg.keyword is not None and arg.keyword.value == name):
                    return True
        qualified = self.qualified(function, context)
        keys = {name, "*", *([str(index)] if index is not None else [])}
        return qualified is not None and any(text.partition("=")[0] in keys
                                             for site in self.index.call_sites().get(qualified, ()) for text in site.texts)

    def traced_parameters(self, function: cst.FunctionDef) -> set[str] | None:
        """The parameters of ``function`` that hold tracers while it runs under the jit its decorator applies (those
        not declared static), or None when no jit decorates it or its static arguments cannot be read."""
        jitted = self.jitted_by(function)
        if jitted is None:
            return None
        _, wrapper, args = jitted
        if wrapper.static_all:
            return None  # every argument that is not an array is static (equinox's filter_jit)
        spec = self.static_spec(args, wrapper)
        if spec is None and any(a.keyword is not None and a.keyword.value in (wrapper.static_argnums, wrapper.static_argnames)
                                for a in args):
            return None  # declared, but not as literals
        nums, argnames = spec if spec is not None else (frozenset(), frozenset())
        params = self.def_params(function)
        return {name for index, name in enumerate(params) if index not in nums and name not in argnames} | {
            p.name.value for p in function.params.kwonly_params if p.name.value not in argnames}

    def jitted_by(self, function: cst.FunctionDef) -> tuple[cst.Decorator, names.Wrapper, Sequence[cst.Arg]] | None:
        """The first decorator of ``function`` that applies a jit wrapper, with that wrapper and the arguments that
        set its options (:meth:`jit_decorator`), or None when none does."""
        for decorator in function.decorators:
            found = self.jit_decorator(decorator.decorator)
            if found is not None:
                return decorator, *found
        return None

    def static_value(self, expr: cst.BaseExpression, position: str, context: Context, *, every: bool = False,
                     call: cst.Call | None = None) -> None:
        if not every:  # (an array or a list is traced under filter_jit, not hashed)
            found = self.value_problem(expr, position)
            if found is not None:
                self.report_problem(expr, found, self.unhashable(expr))
                return
        context = self.built_where(expr, context)
        rebuilt = context.per_call and not self.exempt(context)
        found = self.callable_problem(expr, rebuilt=rebuilt, context=context, position=position,
                                      keys="value" if every else "identity")
        if found is None and rebuilt and not every:
            found = self.identity_problem(expr, position)  # a plain object built anew: a new key each time
        if found is not None and found.rule is rules.BOUND_METHOD and isinstance(expr, cst.Attribute) \
                and not self.receiver_rebuilt(expr, context):
            # A static argument is keyed by hash and ==, and a bound method equals another of the same receiver:
            # `update(model.apply, ...)` in a loop over one `model` is found again (counted: one compile).
            found = None
        judged = self.sameness(self.again(context), expr, context) if found is not None and found.repeats_with is None \
            else self.again(context)
        if found is not None and found.rule is rules.IDENTITY_VALUE and judged is not None \
                and any(reason.kind == "data" for reason in judged.same):
            # Built from numbers that change on each pass: equal values would still be other keys, so making the
            # class value-compared (the help) would not compile it once. Not this rule's recompile.
            judged = None
        if found is not None and judged is not None:
            self.report_problem(expr, found, judged)  # (none: each run passes a different computation)
        elif found is None and not rebuilt and isinstance(expr, cst.Lambda) and self.hoistable(expr):
            self.lambda_written_again(expr, position, context, call)

    def built_where(self, expr: cst.BaseExpression, context: Context) -> Context:
        """Where the callable a static argument names is built: the context of the nested ``def`` (or of the one
        assignment of a lambda) that the name ``expr`` refers to, when that is in the function of the call's
        ``context``; else ``context``. A `def` made once before a loop is one object on every pass of it, however
        often the loop passes it (``def energy(...)`` above ``for seed in seeds: optimize(..., energy)``)."""
        if not isinstance(expr, cst.Name):
            return context
        for ref in self.referents(expr):
            node = getattr(ref, "node", None)
            built = self.c.defs.get(node) if isinstance(node, cst.FunctionDef) else \
                self.c.assigned[node][1] if node in self.c.assigned and isinstance(self.c.assigned[node][0], cst.Lambda) \
                else None
            if built is not None and built.function is context.function:
                return built
        return context

    def other_arguments(self, call: cst.Call, expr: cst.BaseExpression) -> tuple[tuple[str, str], ...]:
        """``call``'s arguments other than ``expr``, by keyword or position: a name or attribute read (data, as
        often as not) as a placeholder, anything else by its text."""
        found: list[tuple[str, str]] = []
        for index, arg in enumerate(call.args):
            if arg.value is expr:
                continue
            where = arg.keyword.value if arg.keyword is not None else str(index)
            value = arg.value
            text = "." if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)) \
                else " ".join(self.module.code_for_node(value).split())
            found.append((where, text))
        return tuple(sorted(found))

    def lambda_written_again(self, expr: cst.Lambda, position: str, context: Context, call: cst.Call | None) -> None:
        """In code that runs once, the same lambda (the same text, reading nothing of the functions around it, in
        the same function) passed again in the same static position: each is a new key for one computation,
        compiled again (counted: two compiles for two `f(x, lambda v: v)` calls); one `def` compiles it once.
        The calls must agree on their other arguments up to the names they read (data): a literal or a call that
        differs (``extrapolate=False``, ``adjoint=DirectAdjoint()``) is another static value, another program."""
        seen: dict[tuple[str, int, str, tuple[tuple[str, str], ...]], cst.Lambda] = \
            self.__dict__.setdefault("_static_lambdas", {})
        key = (position, id(context.function), " ".join(self.module.code_for_node(expr).split()),
               self.other_arguments(call, expr) if call is not None else ())
        first = seen.setdefault(key, expr)
        if first is expr:
            return
        lines = (self.line_of(first), self.line_of(expr))
        evidence = Evidence(tuple(Reason("written-again", f"the same lambda is passed at line {line}", line) for line in lines),
                            (Reason("same-code", "both are the same text, reading nothing of the functions around them",
                                    lines[0]),))
        for node in (first, expr):
            found = self.callable_problem(node, rebuilt=True, context=context, position=position)
            if found is not None:
                self.report_problem(node, found, evidence)


_ARRAY_RETURNING = frozenset({"jax.jit", "jax.pmap", "pjit"})
"""Wrappers whose calls return jax arrays (or pytrees of them), whatever the function returns."""


def _operands(expr: cst.BaseExpression) -> list[cst.Name]:
    """The names an expression of arithmetic on names and numbers reads (``offset * dim``: both); [] for any
    other expression (a call, an attribute, a subscript: what they give is not known here)."""
    if isinstance(expr, cst.Name):
        return [expr]
    if isinstance(expr, cst.BinaryOperation):
        left, right = _operands(expr.left), _operands(expr.right)
        literal = (cst.Integer, cst.Float)
        if (left or isinstance(expr.left, literal)) and (right or isinstance(expr.right, literal)):
            return left + right
        return []
    if isinstance(expr, cst.UnaryOperation):
        return _operands(expr.expression)
    return []


def _literal_ints(expr: cst.BaseExpression) -> set[int] | None:
    """The ints a literal ``static_argnums`` spells (``1``, ``-1``, ``(0, 2)``); None for anything else."""
    return _literals(expr, _int_value)


def _literal_strings(expr: cst.BaseExpression) -> set[str] | None:
    """The names a literal ``static_argnames`` spells (``"n"``, ``("n", "mode")``); None for anything else."""
    return _literals(expr, _string_value)


def _int_value(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.evaluated_value)
    return None


def _string_value(expr: cst.BaseExpression) -> str | None:
    value = expr.evaluated_value if isinstance(expr, cst.SimpleString) else None
    return value if isinstance(value, str) else None


def _literals(expr: cst.BaseExpression, leaf: Callable[[cst.BaseExpression], _T | None]) -> set[_T] | None:
    """The values of one literal or of a tuple or list of them, each read by ``leaf``; None if any is not one."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        found: set[_T] = set()
        for element in expr.elements:
            inner = _literals(element.value, leaf)
            if inner is None:
                return None
            found |= inner
        return found
    value = leaf(expr)
    return None if value is None else {value}
