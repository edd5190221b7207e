"""Jit-like call sites and decorators (JC1xx, JC702): the function jitted where the wrapper is rebuilt.

A ``jax.jit(f)`` built on every call of a function or in a loop is a new cache each
time unless ``f`` is found again; a StatefulFunction rebuilt there starts empty
(JC702). A nested def decorated with a jit is rebuilt with its parent. Each site's
static spec is handed to :mod:`.static_arguments`, including that of jitted
functions other modules define (from the project index).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import ClassScope

from jitcheck import rules
from jitcheck.lint import names
from jitcheck.lint.checks.base import snippet
from jitcheck.lint.checks.identity_aux import IdentityAux
from jitcheck.lint.checks.static_arguments import StaticArguments
from jitcheck.lint.collect import CallSite, Context
from jitcheck.lint.static_args import every_argument, static_arguments


class JitSites(StaticArguments, IdentityAux):
    """Judges ``jax.jit(...)`` calls, ``partial(jax.jit, ...)`` and jit decorators."""

    def imported_jit_calls(self) -> None:
        """Calls of jitted functions with static arguments that another module defines (known from the index)."""
        hints = self.index.hints()
        for func, site in self.calls_named(hints.static_jitted | hints.jit_methods):
            found = self.indexed_jit(func)
            if found is None:
                if not self.indexed_method_call(func, site):
                    self.forwarder_call(func, site)
                continue
            facts, qualified = found
            spec_facts = facts["jit"]
            assert isinstance(spec_facts, dict)
            params = facts.get("params")
            known = tuple(params) if isinstance(params, list) else None
            every = bool(spec_facts.get("all"))
            spec = every_argument(known) if every else _spec_of(spec_facts)
            self.check_static_arguments(site.node, site.context, spec, known, snippet(self.module, func, 40), every=every)

    def calls_named(self, wanted: frozenset[str]) -> Iterator[tuple[cst.BaseExpression, CallSite]]:
        """The calls whose function is spelled with a last name in ``wanted``: ``masked_apply(...)``, or through its
        module (``util.masked_apply(...)``, ``pkg.util.masked_apply(...)``), with the spelling and the site."""
        for func, site in self.c.call_of_func.items():
            last = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
            if last in wanted and site.node.func is func:
                yield func, site

    def made_jit_calls(self) -> None:
        """Calls of another module's factory of new jitted functions (``fn, idx = make_gather(mask)``, then
        ``fn(x)``) whose product is used where it is made: every call builds a new wrapper, with an empty cache,
        and compiles again. The run's own factories are judged at their jit, where the index shows their callers
        (:meth:`~jitcheck.lint.frequency.Frequency.product_elsewhere`), unless they jit what their callers hand
        them (``forward_laplacian(fn)``, a transformation): those, and installed packages' factories, are judged here."""
        for func, site in self.calls_named(self.index.hints().jit_factories):
            if not site.context.per_call or self.exempt(site.context):
                continue
            facts = self.function_facts(func)
            if facts is None or facts.get("cached") or any(name.startswith(f"{self.module_name}.")
                                                           for name in self.indexed_names(func)):
                continue
            if not facts.get("transform") and self.defined_in_run(func):
                continue
            parent = site.parent
            unpacked = isinstance(parent, cst.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0].target, cst.Tuple)
            kinds = [facts.get("returns"), *(facts.get("returns_items") or () if unpacked else ())]
            kind = next((k for k in kinds if isinstance(k, str) and "jitted function" in k), None)
            if kind is None or not self.product_used(site):
                continue
            evidence = self.again(site.context)
            judged = self.sameness(evidence, site.node, site.context)
            if judged is None:
                continue
            position = f"a jitted function called where it is made, {self.where(judged, site.context)}"
            self.report(site.node, rules.FACTORY_RESULT_REBUILT, {
                "position": position, "subject": snippet(self.module, site.node, 40),
                "factory": snippet(self.module, func, 40), "kind": kind}, evidence=judged)

    def forwarder_call(self, func: cst.BaseExpression, site: CallSite) -> None:
        """A call of a function of the run that hands some of its parameters on, unchanged, to static arguments
        of a jitted function: those arguments are that jit's keys, judged as its own call's would be."""
        found = self.indexed_forwarder(func)
        if found is None:
            return
        forwarded, _ = found
        self.check_static_arguments(site.node, site.context, (forwarded.nums, forwarded.names), forwarded.params,
                                    snippet(self.module, func, 40), via=forwarded.to)

    def jit_call(self, site: CallSite, wrapper: names.Wrapper) -> None:
        call = site.node
        positional = [a for a in call.args if a.keyword is None and not a.star]
        spec = self.static_spec(call.args, wrapper)
        if not positional:
            return  # jax.jit(static_argnums=...) used as a decorator: see decorated_def
        fun = positional[0].value
        context = site.context
        if context.per_call and not self.exempt(context) and self.used_here(call, site.parent, wrapper, context):
            evidence = self.again(context)
            where = self.where(evidence, context)
            if wrapper.keys == "wrapper":
                position = f"the function wrapped by `{site.spelled}` {where} (a new wrapper, with an empty cache, each time)"
            else:
                position = f"the function jitted by `{site.spelled}` {where}"
            found = self.callable_problem(fun, rebuilt=True, context=context, position=position, allow_value_partial=False,
                                          keys=wrapper.keys, jitted=True)
            if found is not None and wrapper.keys == "identity" and found.rule in (rules.FUNCTOOLS_PARTIAL, rules.TREE_UTIL_PARTIAL):
                found = dataclasses.replace(found, jitted=True)  # a ValuePartial would not help a rebuilt jax.jit
            if found is not None and wrapper.keys == "wrapper":
                # Fixed alone, the callable would still be wrapped anew, with an empty cache, each time.
                note = f"and build the `{site.spelled}` once, at module level or in `__init__`: a new one starts with an empty cache"
                found = dataclasses.replace(found, plan=None, note=note)
            applied = site.parent if isinstance(site.parent, cst.Call) and site.parent.func is call else None
            static = [value for _, value in static_arguments(applied, spec, self.params_of(fun, context))] \
                if applied is not None and spec is not None else []
            # The wrapper's options are part of its cache key: shardings made from what changes between runs
            # (`jax.jit(lambda x: x, (original,), mirrored)` per parameter group) make another program each run.
            options = set().union(*(self.names_read(arg.value) for arg in call.args if arg.value is not fun)) \
                if found is not None else set()
            judged = self.sameness(evidence, fun, context, applied, static,
                                   read=self.names_read(fun) | options if options else None) if found is not None else None
            if found is not None and judged is not None and judged.again != evidence.again:
                # Judged through one of its call sites (a caller that runs again): the message says so.
                found = found.reworded(where, self.where(judged, context))
            if found is not None and judged is not None:
                self.report_problem(fun, found, judged)
            elif found is None and wrapper.keys == "wrapper":
                self.report(call, rules.STATEFUL_FUNCTION_REBUILT, {
                    "subject": snippet(self.module, call), "where": where, "function": snippet(self.module, fun, 40)},
                    evidence=self.same_wrapper(evidence, call))
        if wrapper.static_all:
            params = self.params_of(fun, context)
            self.static_call_sites(call, site.parent, every_argument(params), params, snippet(self.module, call, 50),
                                   site.context, every=True)
        elif spec is not None:
            self.static_call_sites(call, site.parent, spec, self.params_of(fun, context), snippet(self.module, call, 50), site.context,
                                   fun=fun)

    def partial_jit_call(self, site: CallSite, wrapper: names.Wrapper) -> None:
        """``partial(jax.jit, static_argnums=...)``: a decorator, or applied at once."""
        spec = self.static_spec(site.node.args[1:], wrapper)
        applied = site.parent
        if spec is not None and isinstance(applied, cst.Call) and applied.func is site.node and applied.args:
            self.static_call_sites(applied, self.c.applied_parent.get(applied), spec,
                                   self.params_of(applied.args[0].value), snippet(self.module, applied, 50), site.context,
                                   fun=applied.args[0].value)

    def decorated_def(self, function: cst.FunctionDef, decorator: cst.Decorator, context: Context) -> None:
        expr = decorator.decorator
        found = self.jit_decorator(expr)
        if found is None:
            return
        wrapper, args = found
        if isinstance(expr, cst.Call) and args is expr.args and any(a.keyword is None for a in args):
            return  # `@jax.jit(f)`-like: the wrapper called on something, not set up by keywords
        spec = self.static_spec(args, wrapper)
        every = wrapper.static_all
        if every:
            spec = every_argument(self.def_params(function))
        if context.per_call and not self.exempt(context) and self.called_per_build(function, context):
            tested = self.tests_around_uses(function, context)
            judged = self.sameness(self.again(context), function, context,
                                   read=self.names_read(function) | tested if tested else None)
            if judged is not None:
                position = f"the function jitted by `@{snippet(self.module, expr, 40)}` {self.where(judged, context)}"
                self.report(decorator, rules.NESTED_FUNCTION, {"subject": function.name.value, "position": position},
                            evidence=judged)
        if context.function is None and not isinstance(self.scopes.get(function), ClassScope):
            self.identity_aux_calls(function, decorator)
        if spec is not None and self.scopes.get(function) is not None:
            scope = self.scopes[function]
            if isinstance(scope, ClassScope):
                if not every and isinstance(scope.node, cst.ClassDef):
                    self.method_static_calls(function, decorator, scope.node, spec)
                    self.typed_method_calls(function, scope.node, spec)
                return
            params = self.def_params(function)
            for called in self.calls_of(function):
                self.check_static_arguments(called.node, called.context, spec, params, function.name.value, every=every,
                                            definition=function, declared=decorator)
            for alias in self.vmapped(function):
                # `batched = jax.vmap(solve, in_axes=...)`: a call of `batched` hands `solve` its arguments in the same
                # positions (vmap maps over the arrays only), so its static ones are keys of `solve`'s cache.
                for called in self.calls_of(alias):
                    self.check_static_arguments(called.node, called.context, spec, params, alias.value, every=every,
                                                definition=function, declared=decorator)

    def vmapped(self, function: cst.FunctionDef) -> list[cst.Name]:
        """The names this module binds, at its top level, to ``jax.vmap(function, ...)``: the module's assignments are
        read once, for every jitted function asked about."""
        found: dict[str, list[cst.Name]] | None = self.__dict__.get("_vmapped")
        if found is None:
            found = {}
            for target, (value, context) in self.c.assigned.items():
                if not isinstance(target, cst.Name) or context.function is not None or not isinstance(value, cst.Call) \
                        or not value.args or not isinstance(value.args[0].value, cst.Name) or value.args[0].keyword is not None:
                    continue
                if "jax.vmap" in self.qnames(value.func):
                    found.setdefault(value.args[0].value.value, []).append(target)
            self.__dict__["_vmapped"] = found
        return found.get(function.name.value, [])

    def method_static_calls(self, function: cst.FunctionDef, decorator: cst.Decorator, cls: cst.ClassDef,
                            spec: tuple[frozenset[int], frozenset[str]]) -> None:
        """The calls ``self.m(...)`` (or ``cls.m(...)``) the class makes of its jitted method ``m``, for JC207: the
        receiver is bound first, so the call's positions are the method's shifted by one (a static method's not)."""
        spec, params = self.bound_spec(spec, self.def_params(function),
                                       self.class_method_kind(self.c.classes.get(cls), function.name.value, set()) == "static")
        for called in self.c.self_calls.get((cls, function.name.value), ()):
            self.changing_calls(called.node, called.context, spec, params, function, decorator)

    def typed_method_calls(self, function: cst.FunctionDef, cls: cst.ClassDef, spec: tuple[frozenset[int], frozenset[str]]
                           ) -> None:
        """The calls ``obj.m(...)`` this file makes of the jitted method ``m`` of ``cls`` on an object it knows to be
        an instance of ``cls`` (annotated, built here, or narrowed by ``isinstance``): each static argument is
        judged as a jitted function's would be (a list there makes jax refuse the call)."""
        info = self.c.classes.get(cls)
        if info is None:
            return
        shifted, params = self.bound_spec(spec, self.def_params(function),
                                          self.class_method_kind(info, function.name.value, set()) == "static")
        for func, site in self.calls_named(frozenset({function.name.value})):
            if not isinstance(func, cst.Attribute) or isinstance(func.value, cst.Name) \
                    and func.value.value in (site.context.self_name, "cls"):
                continue  # `self.m(...)`: JC207's (method_static_calls)
            tag, refs = self.receiver(func.value, site.context)
            if tag == "instances" and refs and all(ref is info for ref in refs):
                self.check_static_arguments(site.node, site.context, shifted, params,
                                            f"{cls.name.value}.{function.name.value}")

    def indexed_method_call(self, func: cst.BaseExpression, site: CallSite) -> bool:
        """A call ``obj.m(...)`` of a jitted method with static arguments of another module's class, on an object
        known to be its instance: its static arguments judged (True), else False."""
        if not isinstance(func, cst.Attribute):
            return False
        tag, refs = self.receiver(func.value, site.context)
        if tag != "instances" or len(refs) != 1 or not isinstance(refs[0], str):
            return False
        found = self.index.cls(refs[0])
        method = found[1].get("jit_methods", {}).get(func.attr.value) if found is not None else None
        if not isinstance(method, dict) or not isinstance(method.get("params"), list):
            return False
        shifted, params = self.bound_spec(_spec_of(method["jit"]), tuple(method["params"]), False)
        self.check_static_arguments(site.node, site.context, shifted, params,
                                    f"{refs[0].rsplit('.', 1)[-1]}.{func.attr.value}")
        return True

    @staticmethod
    def bound_spec(spec: tuple[frozenset[int], frozenset[str]], params: tuple[str, ...], static: bool
                   ) -> tuple[tuple[frozenset[int], frozenset[str]], tuple[str, ...]]:
        """A method's static spec and parameters as a call on an instance binds them: the receiver is bound first,
        so the positions shift by one and a static receiver's name drops out (a static method's stay)."""
        if static:
            return spec, params
        nums, argnames = spec
        shifted = (frozenset(n - 1 for n in nums if n >= 1), argnames | {params[n] for n in nums if 0 < n < len(params)})
        return shifted, params[1:]

    def changing_calls(self, call: cst.Call, context: Context, spec: tuple[frozenset[int], frozenset[str]],
                       params: tuple[str, ...], function: cst.FunctionDef, decorator: cst.Decorator) -> None:
        """JC207 alone for each static argument of ``call`` (a method's: the other JC2xx rules keep to functions)."""
        for key, value in static_arguments(call, spec, params):
            param = params[key] if isinstance(key, int) and key < len(params) else key if isinstance(key, str) else None
            label = f"static argument `{param}`" if param is not None else f"static argument {key}"
            self.changing_static(value, f"{label} of `{function.name.value}`", param, call, context, function,
                                 function.name.value, decorator)


def _spec_of(jit: dict[str, object]) -> tuple[frozenset[int], frozenset[str]]:
    """The static positions and names of a jit the index records (``{"nums": [...], "names": [...]}``)."""
    nums, argnames = jit.get("nums"), jit.get("names")
    return frozenset(nums if isinstance(nums, list) else ()), frozenset(argnames if isinstance(argnames, list) else ())
