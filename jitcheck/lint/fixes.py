"""The codemods behind ``--fix``, ``--unsafe-fixes`` and ``--diff``, and their safety checks.

Each :class:`~jitcheck.lint.analysis.FixPlan` names a node of the analysed module
and a rewrite. :func:`apply_fixes` runs them all in one libcst transformer (so
formatting and comments outside the rewritten nodes are kept byte for byte),
adds ``from jitcheck import ValuePartial`` with libcst's `AddImportsVisitor`, and
drops imports left unused with `RemoveImportsVisitor`. The new text is kept only
if it parses, re-checks without the findings it fixed and no new ones, keeps every
comment, and a second fix changes nothing.
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import tokenize
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, ParentNodeProvider

from jitcheck.lint.analysis import FixPlan, Located
from jitcheck.lint.notebook import CELL_MARKER

if TYPE_CHECKING:
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor


@dataclasses.dataclass(frozen=True)
class FixOutcome:
    """The fixed text (or the original when nothing could be fixed) and which findings it fixed."""

    source: str
    fixed: tuple[Located, ...]
    refused: tuple[Located, ...]
    """Fixable findings whose fix failed a safety check and was not applied."""


class _FixTransformer(cst.CSTTransformer):
    """Applies a batch of fix plans to the module they were made on."""

    METADATA_DEPENDENCIES = (ParentNodeProvider,)

    def __init__(self, plans: Sequence[FixPlan], context: CodemodContext, identifiers: set[str], annotate: bool) -> None:
        super().__init__()
        self.context = context
        self.annotate = annotate
        self.by_node: dict[cst.CSTNode, FixPlan] = {}
        for plan in plans:
            self.by_node.setdefault(plan.node, plan)
        self.hoisted: dict[cst.CSTNode, list[cst.FunctionDef]] = {}
        self.hoisted_names: dict[str, str] = {}
        """The name each lambda text was hoisted to (in source order: the first one's def comes first)."""
        self.taken = set(identifiers)

    def _plan(self, node: cst.CSTNode) -> FixPlan | None:
        return self.by_node.get(node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        plan = self._plan(original_node)
        if plan is None or plan.kind != "value-partial":
            return updated_node
        from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor  # (imported when a fix is made: _codemods)

        AddImportsVisitor.add_needed_import(self.context, "jitcheck", "ValuePartial")
        spelled = get_full_name_for_node(original_node.func) or ""
        if "." not in spelled:
            for module in ("functools", "jax.tree_util"):
                RemoveImportsVisitor.remove_unused_import(self.context, module, spelled)
        else:
            RemoveImportsVisitor.remove_unused_import(self.context, spelled.rsplit(".", 1)[0])
        return updated_node.with_changes(func=cst.Name("ValuePartial"))

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.BaseExpression:
        plan = self._plan(original_node)
        if plan is None or plan.kind != "hoist-lambda":
            return updated_node
        statement = self._top_statement(original_node)
        if statement is None:
            return updated_node
        text = " ".join(cst.Module([]).code_for_node(updated_node).split())
        if text in self.hoisted_names:
            # The same lambda written again (it reads nothing local, so the same text is the same function): one
            # def for both, so jax compiles it once where two defs would still compile twice.
            return cst.Name(self.hoisted_names[text], lpar=updated_node.lpar, rpar=updated_node.rpar)
        name = self._fresh_name(original_node)
        self.hoisted_names[text] = name
        params = updated_node.params
        returns = None
        if self.annotate:
            # The module is annotated: say what is known (nothing), so strict type checkers accept the new def.
            from libcst.codemod.visitors import AddImportsVisitor

            AddImportsVisitor.add_needed_import(self.context, "typing", "Any")
            params = _annotated(params)
            returns = cst.Annotation(cst.Name("Any"))
        definition = cst.FunctionDef(
            name=cst.Name(name),
            params=params,
            returns=returns,
            body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(updated_node.body.with_changes(lpar=[], rpar=[])
                                                                          if _parenthesized_safely(updated_node.body) else updated_node.body)])]),
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
        )
        self.hoisted.setdefault(statement, []).append(definition)
        return cst.Name(name, lpar=updated_node.lpar, rpar=updated_node.rpar)

    def _top_statement(self, node: cst.CSTNode) -> cst.CSTNode | None:
        current = node
        while True:
            parent = self.get_metadata(ParentNodeProvider, current, None)
            if parent is None:
                return None
            if isinstance(parent, cst.Module):
                return current
            current = parent

    def _fresh_name(self, node: cst.Lambda) -> str:
        function = None
        current: cst.CSTNode = node
        while function is None:
            parent = self.get_metadata(ParentNodeProvider, current, None)
            if parent is None or isinstance(parent, cst.Module):
                break
            if isinstance(parent, cst.FunctionDef):
                function = parent.name.value
            current = parent
        base = f"_{function.strip('_')}_lambda" if function else "_module_lambda"
        candidate, number = base, 1
        while candidate in self.taken:
            number += 1
            candidate = f"{base}{number}"
        self.taken.add(candidate)
        return candidate

    def leave_List(self, original_node: cst.List, updated_node: cst.List) -> cst.BaseExpression:
        plan = self._plan(original_node)
        if plan is None or plan.kind != "tuple":
            return updated_node
        elements = list(updated_node.elements)
        if len(elements) == 1 and elements[0].comma is cst.MaybeSentinel.DEFAULT:
            elements[0] = elements[0].with_changes(comma=cst.Comma())
        return cst.Tuple(
            elements=elements,
            lpar=[cst.LeftParen(whitespace_after=updated_node.lbracket.whitespace_after), *updated_node.lpar],
            rpar=[cst.RightParen(whitespace_before=updated_node.rbracket.whitespace_before), *updated_node.rpar],
        )

    def leave_Set(self, original_node: cst.Set, updated_node: cst.Set) -> cst.BaseExpression:
        plan = self._plan(original_node)
        if plan is None or plan.kind != "frozenset":
            return updated_node
        return cst.Call(func=cst.Name("frozenset"), args=[cst.Arg(updated_node.with_changes(lpar=[], rpar=[]))],
                        lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        plan = self._plan(original_node)
        if plan is None or plan.kind != "frozen-dataclass":
            return updated_node
        expr = updated_node.decorator
        frozen = cst.Arg(keyword=cst.Name("frozen"), value=cst.Name("True"),
                         equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        if isinstance(expr, cst.Call):
            args = [a for a in expr.args if not (a.keyword is not None and a.keyword.value == "frozen")]
            if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return updated_node.with_changes(decorator=expr.with_changes(args=[*args, frozen]))
        return updated_node.with_changes(decorator=cst.Call(func=expr, args=[frozen]))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.hoisted:
            return updated_node
        body: list[cst.CSTNode] = []
        for original, updated in zip(original_node.body, updated_node.body):
            definitions = self.hoisted.get(original)
            if definitions:
                if not body:
                    definitions = [definitions[0].with_changes(leading_lines=[]), *definitions[1:]]
                kept = list(updated.leading_lines)
                cell = _cell_marker(kept)
                if cell is not None:  # a notebook's cell boundary stays above the new def: it lands in the same cell
                    definitions = [definitions[0].with_changes(leading_lines=kept[:cell + 1]), *definitions[1:]]
                    kept = kept[cell + 1:]
                body.extend(definitions)
                blank: list[cst.EmptyLine] = []
                while kept and kept[0].comment is None:
                    blank.append(kept.pop(0))
                # Two blank lines above the statement: its own first (each keeps its line ending), new ones after.
                blank = [*blank[:2], *[cst.EmptyLine()] * max(0, 2 - len(blank))]
                updated = updated.with_changes(leading_lines=[*blank, *kept])
            body.append(updated)
        return updated_node.with_changes(body=body)


def _cell_marker(lines: Sequence[cst.EmptyLine]) -> int | None:
    """The index of the last notebook cell marker among a statement's leading lines (see :mod:`.notebook`)."""
    found = None
    for index, line in enumerate(lines):
        if line.comment is not None and line.comment.value.startswith(CELL_MARKER.rstrip()):
            found = index
    return found


def _annotated(params: cst.Parameters) -> cst.Parameters:
    """Lambda parameters with ``Any`` annotations (a lambda's ``*args``/``**kwargs`` too)."""

    def annotate(param: cst.Param) -> cst.Param:
        return param.with_changes(annotation=cst.Annotation(cst.Name("Any")))

    star = params.star_arg
    return params.with_changes(
        params=[annotate(p) for p in params.params],
        posonly_params=[annotate(p) for p in params.posonly_params],
        kwonly_params=[annotate(p) for p in params.kwonly_params],
        star_arg=annotate(star) if isinstance(star, cst.Param) else star,
        star_kwarg=annotate(params.star_kwarg) if params.star_kwarg is not None else None,
    )


def _parenthesized_safely(expr: cst.BaseExpression) -> bool:
    """A lambda body in parentheses that may go (it fits one line after ``return``)."""
    return bool(getattr(expr, "lpar", None)) and "\n" not in cst.Module([]).code_for_node(expr)


class _Identifiers(cst.CSTVisitor):
    """Every identifier a module spells (a hoisted function gets a name none of them is),
    and whether its functions carry return annotations (then a hoisted one does too)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.annotated = False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.returns is not None:
            self.annotated = True


def _codemods() -> tuple[type[CodemodContext], type[AddImportsVisitor], type[RemoveImportsVisitor]]:
    """libcst's codemod context and import visitors, imported when a fix is made: ``libcst.codemod`` imports
    ``libcst.matchers`` (about 0.35 s), which a check without a fix never needs (a worker, a helper, the server)."""
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

    return CodemodContext, AddImportsVisitor, RemoveImportsVisitor


def transform(module: cst.Module, wrapper: MetadataWrapper | None, plans: Sequence[FixPlan], *, prune_imports: bool = True) -> str:
    """The module's code with ``plans`` applied (imports added, and pruned when ``prune_imports``)."""
    if not plans:
        return module.code
    if wrapper is None:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    CodemodContext, AddImportsVisitor, RemoveImportsVisitor = _codemods()
    context = CodemodContext()
    identifiers = _Identifiers()
    module.visit(identifiers)
    changed = wrapper.visit(_FixTransformer(plans, context, identifiers.names, identifiers.annotated))
    if AddImportsVisitor.CONTEXT_KEY in context.scratch:
        changed = AddImportsVisitor(context).transform_module(changed)
    if prune_imports and RemoveImportsVisitor.CONTEXT_KEY in context.scratch:
        pruned = RemoveImportsVisitor(context).transform_module(changed)
        changed = _keep_blank_lines(changed, pruned)
    return changed.code


def _keep_blank_lines(before: cst.Module, after: cst.Module) -> cst.Module:
    """Give the blank lines above a removed import to the statement that now takes its place."""
    old = [before.code_for_node(s) for s in before.body]
    new = [after.code_for_node(s) for s in after.body]
    body = list(after.body)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag != "delete" or j1 >= len(body):
            continue
        removed = before.body[i1]
        blank = [line for line in removed.leading_lines if line.comment is None]
        following = body[j1]
        if blank and not any(line.comment is None for line in following.leading_lines[:1]):
            body[j1] = following.with_changes(leading_lines=[*blank, *following.leading_lines])
    return after.with_changes(body=body)


def comments(source: str) -> Counter[str]:
    """Every comment of a module, counted (what a fix must keep)."""
    found: Counter[str] = Counter()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                found[token.string] += 1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return found


Analyse = Callable[[str], "tuple[cst.Module, MetadataWrapper | None, list[Located]]"]
"""Parses and analyses a source text (the same rules and configuration as the first run)."""


def apply_fixes(source: str, module: cst.Module, wrapper: MetadataWrapper | None, findings: Sequence[Located],
                analyse: Analyse, allowed: Callable[[Located], bool]) -> FixOutcome:
    """Fix the ``allowed`` findings that have a plan, keeping only a result that passes every check."""
    chosen = [f for f in findings if f.fix is not None and allowed(f)]
    if not chosen:
        return FixOutcome(source, (), ())
    if not writable(source, module):
        return FixOutcome(source, (), tuple(chosen))
    new = _verified(source, module, wrapper, findings, chosen, analyse, allowed)
    if new is not None:
        return FixOutcome(new, tuple(chosen), ())
    # The batch failed a check: keep the fixes that pass one by one, then retry them together.
    good = [f for f in chosen if _verified(source, module, wrapper, findings, [f], analyse, allowed) is not None]
    refused = tuple(f for f in chosen if f not in good)
    if good:
        new = _verified(source, module, wrapper, findings, good, analyse, allowed)
        if new is not None:
            return FixOutcome(new, tuple(good), refused)
    return FixOutcome(source, (), tuple(chosen))


def _verified(source: str, module: cst.Module, wrapper: MetadataWrapper | None, findings: Sequence[Located],
              chosen: Sequence[Located], analyse: Analyse, allowed: Callable[[Located], bool]) -> str | None:
    plans = [f.fix for f in chosen if f.fix is not None]
    try:
        new = transform(module, wrapper, plans)
        if comments(source) - comments(new):
            new = transform(module, wrapper, plans, prune_imports=False)  # an unused import kept for its comment
        new_module, new_wrapper, after = analyse(new)
    except Exception:
        return None
    if new == source or not compiles(new):
        return None
    before = Counter(f.rule.code for f in findings)
    fixed = Counter(f.rule.code for f in chosen)
    remaining = Counter(f.rule.code for f in after)
    for code, count in remaining.items():
        if count > before[code] - fixed[code]:
            return None  # a fixed finding is still there, or the fix made a new one
    old_comments = comments(source)
    if old_comments - comments(new):
        return None
    fixable_before = sum(1 for f in findings if f.fix is not None and allowed(f))
    fixable_after = sum(1 for f in after if f.fix is not None and allowed(f))
    if fixable_after > fixable_before - len(chosen):
        return None  # not idempotent: a second --fix would find something new to rewrite
    return new


def parse_module(text: str) -> cst.Module:
    """libcst's parse of ``text``, whose code is ``text`` again (libcst drops a lone ``\\r`` that ends a file)."""
    module = cst.parse_module(text)
    if text.endswith("\r") and not module.has_trailing_newline:
        kept = module.with_changes(has_trailing_newline=True)
        if kept.code == text:
            return kept
    return module


def writable(source: str, module: cst.Module) -> bool:
    """Whether a fix of ``source`` can be written: Python's compiler accepts it (libcst also reads newer
    syntax, and a late ``from __future__``) and libcst gives back its text byte for byte."""
    return compiles(source) and module.code == source


def compiles(text: str) -> bool:
    """True when Python's own compiler accepts ``text`` (stricter than libcst's parser)."""
    try:
        compile(text, "<jitcheck fix>", "exec", dont_inherit=True)
    except Exception:  # SyntaxError, ValueError (a NUL byte), RecursionError, MemoryError, ...
        return False
    return True


__all__ = ["FixOutcome", "apply_fixes", "comments", "compiles", "parse_module", "transform", "writable"]
