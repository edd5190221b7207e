"""A pytree whose aux data is new for every object, passed to a jitted function object after object (JC208).

jax keys a jit by its arguments' tree structure, aux data included, and compares aux data
with ``==``. A class that keeps in its aux data an object of each instance's own, of a class
compared by identity (``self.data = NodeData()``), is a new key for every instance. A module-level
jitted function whose parameter is annotated with such a class, called in a loop with another
object on each pass, compiles once per object: the finding is reported at the jit's decorator,
with the loop as its evidence. The loop is this module's, another module's, or one that calls
a function handing its own parameter on to the jit (both from the index's call records). The
class's facts come from the project index (:meth:`jitcheck.lint.index.ProjectIndex.identity_aux`),
wherever it is defined.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from jitcheck import rules
from jitcheck.lint.callers import Site
from jitcheck.lint.checks.base import Checker
from jitcheck.lint.evidence import Evidence, Reason


class IdentityAux(Checker):
    """Judges the calls a module makes of its jitted functions whose parameters take such pytrees."""

    def identity_aux_calls(self, function: cst.FunctionDef, decorator: cst.Decorator) -> None:
        """Report ``decorator`` (a jit of the module-level ``function``) when a call of ``function`` in a loop passes
        the loop's object, one after another, where ``function`` takes a class with identity-compared aux data."""
        held = self._held_by_params(function)
        if not held:
            return
        positional = self.def_params(function)
        if self._looped_here(function, decorator, held, positional):
            return
        self._looped_elsewhere(function, decorator, held, positional)

    def _looped_here(self, function: cst.FunctionDef, decorator: cst.Decorator, held: dict[str, tuple[str, str, str]],
                     positional: tuple[str, ...]) -> bool:
        """Report when this module calls ``function`` in a loop with the loop's object (True: reported)."""
        for called in self.calls_of(function):
            loop = called.context.loop if called.context.in_loop else None
            if loop is None:
                continue
            targets = _loop_targets(loop)
            for param, (cls, attribute, made) in held.items():
                argument = _argument(called.node, positional, param)
                if not isinstance(argument, cst.Name) or argument.value not in targets:
                    continue
                kind = "the `for` loop" if isinstance(loop, cst.For) else "the comprehension"
                loop_line, call_line = self.line_of(loop), self.line_of(called.node)
                again = Reason("loop", f"line {call_line} calls `{function.name.value}` with each `{argument.value}` of "
                                       f"{kind} at line {loop_line}: another object on every iteration", loop_line)
                self.report(decorator, rules.IDENTITY_AUX, {
                    "callee": function.name.value,
                    "name": argument.value, "loop": f"{kind} at line {loop_line}", "type": cls, "attribute": attribute,
                    "held": made}, evidence=Evidence((again,), (_kept(cls, attribute, made),)))
                return True
        return False

    def _looped_elsewhere(self, function: cst.FunctionDef, decorator: cst.Decorator,
                          held: dict[str, tuple[str, str, str]], positional: tuple[str, ...]) -> None:
        """Report when the run's call records show ``function`` called in a loop of another module with another
        object on each pass, or called by a function that hands it its own parameter and is called so."""
        calls = self.index.call_sites()
        for param, (cls, attribute, made) in held.items():
            keys = _keys(param, positional)
            for site in calls.get(f"{self.module_name}.{function.name.value}", ()):
                text: str | None = None
                if site.loop_kind is not None and site.module != self.module_name and keys & set(site.varying):
                    text = (f"`{site.module}` calls `{function.name.value}` in a loop at line {site.line}, with "
                            f"another `{param}` on each pass")
                else:
                    text = self._handed_on(site, keys, calls) if site.loop_kind is None else None
                if text is None:
                    continue
                loop = f"a loop of `{site.module}`" if site.loop_kind is not None else \
                    f"the loops that call `{site.caller.rsplit('.', 1)[-1]}`"
                self.report(decorator, rules.IDENTITY_AUX, {
                    "callee": function.name.value, "name": param, "loop": loop, "type": cls, "attribute": attribute,
                    "held": made}, evidence=Evidence((Reason("called-in-loop", text),), (_kept(cls, attribute, made),)))
                return

    def _handed_on(self, site: Site, keys: set[str], calls: Mapping[str, list[Site]]) -> str | None:
        """The words for a call of the jitted function that passes the calling function's own parameter, where
        some module calls that function in a loop with another value of it on each pass; None otherwise."""
        passed = next((text for text in (site.text(key) for key in keys) if text is not None), None)
        caller = f"{site.module}.{site.caller}"
        facts = self.index.function(caller) if site.caller and "." not in site.caller else None
        params = facts.get("params") if facts is not None else None
        if passed is None or not isinstance(params, list) or passed not in params:
            return None
        outer_keys = _keys(passed, tuple(params))
        for outer in calls.get(caller, ()):
            if outer.loop_kind is not None and outer_keys & set(outer.varying):
                return (f"`{site.caller}` hands its `{passed}` to it (`{site.module}`, line {site.line}), and `{outer.module}` "
                        f"calls `{site.caller}` in a loop at line {outer.line}, with another `{passed}` on each pass")
        return None

    def _held_by_params(self, function: cst.FunctionDef) -> dict[str, tuple[str, str, str]]:
        """Each parameter of ``function`` annotated with a class with identity-compared aux data: the class's name,
        the attribute and the class of the object it holds (the first such attribute)."""
        held: dict[str, tuple[str, str, str]] = {}
        params = function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.annotation is None:
                continue
            for spelled in _annotated_names(param.annotation.annotation):
                found = self._identity_aux(spelled)
                if found:
                    held[param.name.value] = found
                    break
        return held

    def _identity_aux(self, spelled: cst.BaseExpression) -> tuple[str, str, str] | None:
        """The class ``spelled`` names, its first identity-compared aux attribute and that object's class, from the
        index (this module's class or an imported one); None when it has none."""
        candidates = [self.absolute(name) for name in self.qnames(spelled)]
        if isinstance(spelled, cst.Name):
            candidates.append(f"{self.module_name}.{spelled.value}")
        for qualified in candidates:
            found = self.index.identity_aux(qualified)
            if found:
                attribute, made = found[0]
                return qualified.rsplit(".", 1)[-1], attribute, made
        return None


def _kept(cls: str, attribute: str, made: str) -> Reason:
    """Why every object is another key: the evidence that each call is the same computation compiled again."""
    return Reason("identity-aux", f"`{cls}` keeps `{attribute}` in its pytree aux data, a new `{made}` for each object, "
                                  f"compared by identity: no object finds another's compile")


def annotated_with(function: cst.FunctionDef, classes: frozenset[str]) -> bool:
    """True when a parameter of ``function`` is annotated with one of ``classes`` (by last name): a module that
    jits it needs the scope analysis even where no jit is rebuilt (:func:`jitcheck.lint.analysis.analyze`)."""
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.annotation is None:
            continue
        for spelled in _annotated_names(param.annotation.annotation):
            last = spelled.value if isinstance(spelled, cst.Name) else spelled.attr.value if isinstance(spelled, cst.Attribute) else None
            if last in classes:
                return True
    return False


def _annotated_names(annotation: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The names an annotation spells a class with: itself, each side of ``A | B``, the items of ``Optional[A]`` or
    ``Union[A, B]`` (a quoted annotation is not read)."""
    if isinstance(annotation, (cst.Name, cst.Attribute)):
        return [annotation]
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return [*_annotated_names(annotation.left), *_annotated_names(annotation.right)]
    if isinstance(annotation, cst.Subscript):
        found: list[cst.BaseExpression] = []
        for element in annotation.slice:
            if isinstance(element.slice, cst.Index):
                found.extend(_annotated_names(element.slice.value))
        return found
    return []


def _keys(param: str, positional: tuple[str, ...] | list[str]) -> set[str]:
    """How a call record names the argument of ``param``: its keyword, and its position when it has one."""
    return {param, *([str(list(positional).index(param))] if param in positional else [])}


def _argument(call: cst.Call, positional: tuple[str, ...], param: str) -> cst.BaseExpression | None:
    """The argument ``call`` binds to ``param`` (by position among ``positional``, or by keyword)."""
    index = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == param:
                return arg.value
            continue
        if index < len(positional) and positional[index] == param:
            return arg.value
        index += 1
    return None


def _loop_targets(loop: cst.CSTNode) -> set[str]:
    """The names a ``for`` loop or a comprehension binds on each iteration (a ``while`` loop binds none)."""
    found: set[str] = set()
    targets: list[cst.BaseExpression] = []
    if isinstance(loop, cst.For):
        targets.append(loop.target)
    elif isinstance(loop, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        clause: cst.CompFor | None = loop.for_in
        while clause is not None:
            targets.append(clause.target)
            clause = clause.inner_for_in
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Name):
            found.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(element.value for element in target.elements)
    return found
