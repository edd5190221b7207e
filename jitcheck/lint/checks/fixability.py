"""What the findings and fixes of a partial or a lambda need to know (JC102-JC104).

A partial's help line names its function and bound values; a ``ValuePartial`` fix
is safe only when every bound value is plainly static and the name can be imported;
a lambda can be hoisted to module level only when it reads nothing of the
functions around it.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import BuiltinScope, ClassScope, GlobalScope, ImportAssignment, Scope

from jitcheck.lint import names
from jitcheck.lint.checks.base import snippet
from jitcheck.lint.checks.static_values import StaticValues


class Fixability(StaticValues):
    """The parts and the rewritability of partials and lambdas."""

    def partial_parts(self, call: cst.Call) -> dict[str, str]:
        """The partial's function and its bound values, for the help of a jitted partial."""
        if not call.args:
            return {"function": "f", "bound": "its bound values"}
        rest = [snippet(self.module, arg, 40).rstrip(",") for arg in call.args[1:]]
        bound = ", ".join(f"`{r}`" for r in rest) or "none"
        return {"function": snippet(self.module, call.args[0].value, 40), "bound": bound}

    def args_text(self, call: cst.Call) -> str:
        text = ", ".join(snippet(self.module, arg, 40).rstrip(",") for arg in call.args)
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
