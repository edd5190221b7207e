"""Callables in cache-key positions (JC101-JC107, JC701, JC703): a function must be found again.

jax finds a jitted function, a node body or a callable static argument again by
identity (or by ``==`` for a value-compared wrapper). A bound method, a partial, a
lambda, a nested def, a factory result or a rebuilt transformation is a new object
wherever the code that builds it runs again, so the cache misses every time.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
from libcst.metadata import ClassScope, GlobalScope

from jitcheck import rules
from jitcheck.lint import names
from jitcheck.lint.checks.base import FixPlan, Problem, snippet
from jitcheck.lint.checks.fixability import Fixability
from jitcheck.lint.collect import Context
from jitcheck.lint.evidence import Evidence


class Callables(Fixability):
    """Judges an expression as a callable in a cache-key position."""

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
        spelled = [snippet(self.module, layer.func, 40) for layer, _ in layers]
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
            fields: dict[str, object] = {"position": position, "subject": snippet(self.module, layer), "transformation": name}
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
            return Problem(rules.LAMBDA, {"position": position, "subject": snippet(self.module, expr)}, plan)
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
                return Problem(rules.FUNCTOOLS_PARTIAL, {"position": position, "subject": snippet(self.module, expr), "args": self.args_text(expr), **self.partial_parts(expr)}, plan)
            if keys == "value" and (self.is_kind(expr.func, names.TREE_PARTIALS) or self.is_kind(expr.func, names.EQUINOX_PARTIALS)):
                # A pytree partial under a wrapper that compares by value (`equinox.filter_jit`): its function is
                # static, compared by equality, and its arguments are leaves; found again when its function is.
                inner = [a.value for a in expr.args if a.keyword is None and not a.star]
                if not inner:
                    return None
                return self.callable_problem(inner[0], rebuilt=True, context=context, position=position,
                                             allow_value_partial=False, depth=depth + 1, keys=keys)
            if self.is_kind(expr.func, names.TREE_PARTIALS):
                plan = None
                if allow_value_partial and self.can_import_value_partial():
                    static = self.arguments_static(expr)
                    if static is True:
                        plan = FixPlan("value-partial", expr, "safe")
                    elif static is None:
                        plan = FixPlan("value-partial", expr, "unsafe")
                return Problem(rules.TREE_UTIL_PARTIAL, {"position": position, "subject": snippet(self.module, expr),
                                                         "args": self.args_text(expr), **self.partial_parts(expr)}, plan)
            transformed = self.transformation_of(expr)
            if transformed is not None:
                rebuilds, wrapped = transformed
                return self.transformed_problem(expr, rebuilds, wrapped, context=context, position=position, keys=keys, depth=depth)
            kind = self.factory_kind(expr.func) or self.method_factory_kind(expr.func, context)
            if kind == "pytree partial" and keys == "value":
                return None  # compared by value: a pytree partial of the same function is found again
            if kind is not None and keys != "wrapper":
                return Problem(rules.FACTORY_RESULT_REBUILT, {"position": position, "subject": snippet(self.module, expr),
                                                               "factory": snippet(self.module, expr.func, 40), "kind": kind})
            return None
        if isinstance(expr, cst.IfExp):
            return self.either_problem(expr, rebuilt=rebuilt, context=context, position=position,
                                       allow_value_partial=allow_value_partial, depth=depth, keys=keys, jitted=jitted)
        if isinstance(expr, cst.Name):
            referents = self.referents(expr)
            reaching = self.c.reaching.get(expr)
            if reaching is not None and len(referents) > 1:
                # the unpacking just above it in the same block is the only binding this read can see
                referents = [r for r in referents if getattr(r, "node", None) is reaching] or referents
            if len(referents) > 1 and depth == 0:
                return self.branches_problem(expr, referents, context=context, position=position, keys=keys,
                                             rebuilt=rebuilt)
            ref = referents[0] if len(referents) == 1 else None
            node = getattr(ref, "node", None)
            if isinstance(node, cst.FunctionDef):
                def_scope = getattr(ref, "scope", None)
                if def_scope is None or isinstance(def_scope, (GlobalScope, ClassScope)):
                    return None
                defined_in = self.c.defs.get(node)
                if defined_in is None:
                    return None
                if defined_in.function is not context.function:
                    if rebuilt and keys != "wrapper" and not defined_in.in_loop and depth == 0 \
                            and self.encloses(defined_in.function, context.function):
                        # Jitted in a function nested in the one that defines it (`body_fn` jitting its definer's
                        # `loss_fn`): the same object on every call of the nested one, a new one on every run of
                        # the definer, found again by the first jit of each run when the definer runs again.
                        return self.built_before_loop(Problem(rules.NESTED_FUNCTION, {"position": position,
                                                                                      "subject": expr.value}),
                                                      context, defined_in, node)
                    return None  # defined by an outer function: the same object on every call here
                if not rebuilt:
                    return None
                if keys != "wrapper" and context.in_loop and not defined_in.in_loop:
                    return self.built_before_loop(Problem(rules.NESTED_FUNCTION, {"position": position, "subject": expr.value}),
                                                  context, defined_in, node)
                return Problem(rules.NESTED_FUNCTION, {"position": position, "subject": expr.value})
            if depth == 0 and rebuilt and node is not None and node in self.c.loop_iters:
                return self.loop_items_problem(expr, node, context=context, position=position, keys=keys)
            if isinstance(node, cst.Param) and depth == 0 and jitted and rebuilt and not context.in_loop:
                # A parameter is bound once per call: rebuilt in a loop of the helper, the wrapper finds it again.
                return self.parameter_problem(expr, node, context=context, position=position, keys=keys)
            if depth <= 2 and node is not None and node in self.c.assigned:
                # Read through a few bindings: `g = partial(f, k); g = jax.vmap(g); jax.jit(g)` is the inline chain.
                value, bound_in = self.c.assigned[node]
                if isinstance(getattr(ref, "scope", None), GlobalScope) and not bound_in.in_loop:
                    return None  # one module-level object: the same key every time
                if bound_in.function is not context.function:
                    return None  # bound by an outer function: the same object on every call here
                found = self.callable_problem(value, rebuilt=True, context=bound_in, position=position,
                                              allow_value_partial=False, depth=depth + 1, keys=keys)
                if found is not None and found.node is None:
                    found = Problem(found.rule, {**found.fields, "subject": expr.value})
                if found is not None and keys != "wrapper" and context.in_loop and not bound_in.in_loop:
                    return self.built_before_loop(found, context, bound_in, value)
                return found  # (inside a transformation bound here: reported where it is written)
            if depth == 0 and rebuilt and node is not None and node in self.c.unpacked and keys != "wrapper":
                call, item, bound_in = self.c.unpacked[node]
                if bound_in.function is not context.function or (
                        isinstance(getattr(ref, "scope", None), GlobalScope) and not bound_in.in_loop):
                    return None  # bound once, or by an outer function: the same object on every call here
                kind = self.factory_item_kind(call.func, item)
                if kind is None or kind == "pytree partial" and keys == "value":
                    return None
                found = Problem(rules.FACTORY_RESULT_REBUILT, {"position": position, "subject": expr.value,
                                                                "factory": snippet(self.module, call.func, 40), "kind": kind})
                if context.in_loop and not bound_in.in_loop:
                    return self.built_before_loop(found, context, bound_in, call)
                return found
            return None
        if isinstance(expr, cst.Attribute):
            kind = self.member_kind(expr, context)
            if kind == "method":
                if keys in ("value", "equality") and not self.receiver_rebuilt(expr, context) or \
                        keys == "value" and self.module_receiver(expr, context):
                    # compared by equality: the same receiver's method is the same key; compared by value, an equinox
                    # Module's method is a Module compared by its fields, whatever instance holds them
                    return None
                return Problem(rules.BOUND_METHOD, {"position": position, "subject": snippet(self.module, expr)})
            if kind == "unknown" and jitted and rebuilt and keys == "identity" and depth == 0 \
                    and (context.in_loop or self.again(context).confidence == "high"):
                # Hoisting the wrapper out of the loop is right whatever the attribute is (see JC107).
                # An attribute jitted on an object is a method far more often than a function held in a field, and a
                # method re-wrapped per pass traces again even on the same object; the names records give their
                # function fields (`opt.update`, `net.apply`, `apply_fn`) stay a guess.
                receiver = snippet(self.module, expr.value, 40)
                evidence = Evidence()
                if names.function_field(expr.attr.value):
                    evidence = evidence.guessed(f"what `{receiver}` is, and so that `{expr.attr.value}` is a method "
                                                "(a new bound method on each read)")
                name = expr.attr.value
                where = {"each": "each iteration", "hoist": "before the loop", "name": name, "use": "in the loop"}
                if not context.in_loop:  # a function shown to run again (a public step): built where the object is
                    method = context.method_of is not None and context.self_name is not None
                    where = {"each": "each call", "use": "there",
                             "hoist": "in `__init__`" if method else "outside the function that runs again",
                             "name": f"{context.self_name}._{name}" if method else name}
                return Problem(rules.UNRESOLVED_METHOD, {"position": position, "subject": snippet(self.module, expr),
                                                         "receiver": receiver, **where}, evidence=evidence)
        return None

    def either_problem(self, expr: cst.IfExp, *, rebuilt: bool, context: Context, position: str,
                       allow_value_partial: bool, depth: int, keys: names.Keys, jitted: bool) -> Problem | None:
        """``a if test else b`` in a cache-key position: a problem when both arms are new callables each time. In
        ``g = jax.checkpoint(g) if checkpoint else g`` one arm keeps the callable as it was: the other arm's
        problem holds for both when it is the callable's own (a nested def or a lambda, new either way)."""
        arms = (expr.body, expr.orelse)
        found = [None if isinstance(arm, cst.Name) else self.callable_problem(
            arm, rebuilt=rebuilt, context=context, position=position, allow_value_partial=allow_value_partial,
            depth=depth + 1, keys=keys, jitted=jitted) for arm in arms]
        kept = [arm for arm in arms if isinstance(arm, cst.Name)]
        made = [problem for problem in found if problem is not None]
        if len(made) == 2:
            return made[0]
        if len(made) == 1 and len(kept) == 1:
            other = next(arm for arm in arms if not isinstance(arm, cst.Name))
            if kept[0].value in self.names_read(other) and made[0].rule is rules.NESTED_FUNCTION:
                # `wrap(g) if c else g` over a nested `g`: a new function on either arm, the nested def's own
                return Problem(rules.NESTED_FUNCTION, {"position": position, "subject": kept[0].value})
        return None

    def encloses(self, outer: cst.CSTNode | None, inner: cst.CSTNode | None) -> bool:
        """True when the ``def`` ``inner`` is defined, at any depth, inside the ``def`` ``outer`` (not the same one):
        :meth:`~jitcheck.lint.frequency.Frequency.within`, for two functions defined with ``def``."""
        return isinstance(outer, cst.FunctionDef) and isinstance(inner, cst.FunctionDef) and inner is not outer \
            and self.within(inner, outer)

    def built_before_loop(self, found: Problem, context: Context, built: Context, node: cst.CSTNode) -> Problem | None:
        """A callable built once before the loop that jits it (at ``node``): the same object on every iteration,
        found again after the first (counted: one compile for the loop). Only a new call of the function builds
        it anew, so it is a finding when that function visibly runs again, and the evidence and the message say
        so (its calls, not the loop)."""
        if not self.repeated(built, functions_are_api=False):
            return None
        loop_words = self.where(self.again(context), context)
        repeats = self.again(built)
        judged = self.sameness(repeats, node, built)
        if judged is None:
            return None  # each call builds a different computation
        return dataclasses.replace(found.reworded(loop_words, self.where(repeats, built)), repeats_with=judged)

    def loop_items_problem(self, expr: cst.Name, target: cst.CSTNode, *, context: Context, position: str,
                           keys: names.Keys) -> Problem | None:
        """A loop variable over a literal of callables built right there (``for fn in (lambda x: x, lambda x: -x):``).
        Each iteration is a different function, a different computation; but each call of the function that
        runs the loop builds them all anew, so they compile again when that function runs again."""
        iterable = self.c.loop_iters[target]
        if not isinstance(iterable, (cst.Tuple, cst.List)) or not iterable.elements:
            return None
        built = next((ctx for node, ctx in self.c.defs.items() if isinstance(node, cst.Lambda)
                      and node in [e.value for e in iterable.elements]), None)
        outer = dataclasses.replace(built if built is not None else context, in_loop=False)
        if outer.function is not context.function or not self.repeated(outer, functions_are_api=False):
            return None
        found = [self.callable_problem(e.value, rebuilt=True, context=outer, position=position, allow_value_partial=False,
                                       depth=1, keys=keys) if not isinstance(e, cst.StarredElement) else None
                 for e in iterable.elements]
        first = found[0]
        if first is None or any(f is None or f.rule is not first.rule or f.node is not None for f in found):
            return None
        repeats = self.sameness(self.again(outer), iterable, outer)
        if repeats is None:
            return None
        position = str(position).replace(self.where(self.again(context), context), self.where(repeats, outer))
        return Problem(first.rule, {**first.fields, "position": position, "subject": expr.value}, repeats_with=repeats)

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
                         keys: names.Keys, rebuilt: bool = True) -> Problem | None:
        """A name bound on several branches (``if a: f = lambda ...`` / ``else: f = lambda ...``) in this function:
        reported when every binding breaks the same rule."""
        found: list[Problem] = []
        for ref in referents:
            node = getattr(ref, "node", None)
            problem: Problem | None
            if isinstance(node, cst.FunctionDef) and node in self.c.defs:
                # `if a: def f(...)` / `else: def f(...)`: a nested def on every branch
                bound_in = self.c.defs[node]
                problem = Problem(rules.NESTED_FUNCTION, {"position": position, "subject": expr.value})
            elif node is not None and node in self.c.assigned:
                value, bound_in = self.c.assigned[node]
                problem = self.callable_problem(value, rebuilt=True, context=bound_in, position=position,
                                                allow_value_partial=False, depth=1, keys=keys)
            else:
                return None
            if bound_in.function is None:
                return None
            if bound_in.function is not context.function:
                # bound on each branch of a function this one is nested in (see `callable_problem`'s nested def)
                if problem is None or not rebuilt or keys == "wrapper" or bound_in.in_loop \
                        or not self.encloses(bound_in.function, context.function):
                    return None
                problem = self.built_before_loop(problem, context, bound_in,
                                                 node if isinstance(node, cst.FunctionDef) else value)
            elif problem is not None and keys != "wrapper" and context.in_loop and not bound_in.in_loop:
                problem = self.built_before_loop(problem, context, bound_in, node if isinstance(node, cst.FunctionDef) else value)
            if problem is None or problem.node is not None:
                return None
            found.append(problem)
        if len({p.rule.code for p in found}) != 1:
            return None
        return Problem(found[0].rule, {**found[0].fields, "subject": expr.value}, repeats_with=found[0].repeats_with)
