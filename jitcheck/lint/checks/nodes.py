"""Graph nodes: a ``NodeDefinition``'s body and every setting are cache keys.

The body is judged as a callable (JC1xx) and each setting of a settings mapping
written out in this file as a static value (JC2xx), then as a callable.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from jitcheck.lint import names
from jitcheck.lint.checks.base import snippet
from jitcheck.lint.checks.callables import Callables
from jitcheck.lint.collect import CallSite


class Nodes(Callables):
    """Judges graph node definitions."""

    def node_call(self, site: CallSite) -> None:
        """``NodeDefinition(body, inputs, outputs, settings)``: the body and every setting are cache keys."""
        call = site.node
        positional = [a for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        constructor = snippet(self.module, call.func, 40)
        body = keywords.get("body") or (positional[0] if positional else None)
        if body is not None:
            found = self.callable_problem(body.value, rebuilt=True, context=site.context, position=f"the body of a `{constructor}`")
            if found is not None:
                self.report_problem(body.value, found, self.node_key(site))
        settings = keywords.get("settings") or (positional[3] if len(positional) > 3 else None)
        if settings is not None:
            for key, value in self.setting_items(settings.value):
                position = f"node setting `{key}` of a `{constructor}`"
                found = self.value_problem(value, position)
                if found is not None:
                    self.report_problem(value, found, self.unhashable(value))
                    continue
                found = self.callable_problem(value, rebuilt=True, context=site.context, position=position)
                if found is not None:
                    self.report_problem(value, found, self.node_key(site))

    def setting_items(self, expr: cst.BaseExpression, depth: int = 0) -> Iterator[tuple[str, cst.BaseExpression]]:
        """The (key, value) pairs of a settings mapping written out in this file."""
        if isinstance(expr, cst.Dict):
            for element in expr.elements:
                if isinstance(element, cst.DictElement):
                    key = element.key
                    label = key.evaluated_value if isinstance(key, cst.SimpleString) else snippet(self.module, key, 30)
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
