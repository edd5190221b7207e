"""Why each run compiles the same computation: the ``same_computation`` evidence of a finding.

A wrapper rebuilt on each run is only a bug when the rebuilt callables compute the
same thing: the same code, closing over values that vary only as data (a closure
baking a different temperature into otherwise identical programs is one: pass it as
an argument). When each repetition builds a structurally different object, each
compile is a different program, and no restructuring shares them.
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib
import re
import textwrap
from collections.abc import Callable, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from jitcheck.lint import names
from jitcheck.lint.arms import arms_around, branch_tests, holds, literal
from jitcheck.lint.callers import Elsewhere, selected_names
from jitcheck.lint.collect import CallSite, Context
from jitcheck.lint.evidence import Evidence, Reason
from jitcheck.lint.frequency import runs_of
from jitcheck.lint.repetition import Repetition
from jitcheck.lint.resolver import param_names
from jitcheck.lint.shapes import SIZED_CONSTRUCTORS, size_arguments

_DATA_ITERABLES = frozenset({"range", "numpy.arange", "numpy.linspace", "numpy.logspace", "jax.numpy.arange",
                             "jax.numpy.linspace", "jax.numpy.logspace"})
"""Iterables whose items are numbers: a closure over one varies only as data (pass it as an argument)."""

_PROGRESS_BARS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm",
                            "tqdm.rich.tqdm"})
"""Progress bars: iterating one yields the items of the iterable it is handed (``tqdm(range(n))`` is ``range(n)``)."""
_PROGRESS_RANGES = frozenset({"tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange", "trange"})
"""``trange(n)``: a progress bar over ``range(n)``, numbers."""


class Sameness(Repetition):
    """Says why the callables a site rebuilds are the same computation, or that a value cannot be hashed."""

    @staticmethod
    def def_params(function: cst.FunctionDef) -> tuple[str, ...]:
        """The names of a function's positional parameters, in order."""
        return tuple(p.name.value for p in (*function.params.posonly_params, *function.params.params))

    def same_code(self, evidence: Evidence, built: cst.CSTNode, what: str = "the jitted callable", why: str = "") -> Evidence:
        """``evidence`` with the reason each run is the same computation: ``what`` (built at ``built``) is
        made from the same code every time, and ``why`` nothing it reads changes."""
        line = self.line_of(built)
        reason = Reason("same-code", f"each run builds {what} from the same code at line {line}" + (f": {why}" if why else ""),
                        line)
        return dataclasses.replace(evidence, same=(*evidence.same, reason))

    def same_wrapper(self, evidence: Evidence, call: cst.Call) -> Evidence:
        return self.same_code(evidence, call, "a new wrapper of the same function")

    # -- is each repetition the same computation? -------------------------------------

    def sameness(self, evidence: Evidence, fun: cst.CSTNode, context: Context,
                 arguments: cst.Call | None = None, static: Sequence[cst.BaseExpression] = (),
                 read: set[str] | None = None, depth: int = 0) -> Evidence | None:
        """See :meth:`sameness_here`; where each iteration of a loop builds a different computation (or one not
        known to be the same), a loop around it that runs it again over the same items (:meth:`outer_repeats`)
        compiles each of them again."""
        judged = self.sameness_here(evidence, fun, context, arguments, static, read, depth)
        if (judged is None or judged.confidence == "low") and context.in_loop and context.loop is not None \
                and not self.observes_compiles(context.function, fun):
            # Whether or not each item is one program, a loop around that runs them all again compiles each again.
            return self.outer_repeats(evidence, fun, context.loop, context, arguments, read) or judged
        return judged

    def outer_repeats(self, evidence: Evidence, fun: cst.CSTNode, loop: cst.CSTNode, context: Context,
                      arguments: cst.Call | None, read: set[str] | None) -> Evidence | None:
        """``evidence`` with why each pass of the loop around ``loop`` builds the same computations again, or None.
        ``for phase in range(2): for cfg in configs: jax.jit(make(cfg))``: each ``cfg`` is another program, but the
        outer loop changes nothing the callable reads (through what the inner loop's body derives from its items,
        and the items themselves), so every program is compiled again on each of its passes (jax: 4 compiles, 2
        programs). The outer loop must change neither what the inner loop runs over nor what the call reads."""
        outer = self.c.outer_loops.get(loop)
        if outer is None or not isinstance(loop, cst.For):
            return None
        inner_changing = self.loop_names(loop, context)
        outer_only = self.loop_names(outer, context) - inner_changing
        if not outer_only:
            return None
        wanted = set(read if read is not None else self.names_read(fun)) | self.names_read(loop.iter)
        if arguments is not None:
            wanted |= self.names_read(arguments)
        values = _Values()
        loop.body.visit(values)
        grown = True
        while grown:
            grown = False
            for name in list(wanted & inner_changing):
                for value in values.bound.get(name, ()):
                    more = self.names_read(value) - wanted
                    if more:
                        wanted |= more
                        grown = True
        if wanted & outer_only or not (wanted & inner_changing) \
                or self.carried_callables(loop, fun, wanted & inner_changing):
            return None
        line = self.line_of(outer)
        reason = Reason("same-code", f"the loop at line {line} runs this loop again over the same items, changing "
                        f"nothing the callable reads: each item's program is compiled again on every pass of it", line)
        return dataclasses.replace(evidence, same=(*evidence.same, reason))

    def sameness_here(self, evidence: Evidence, fun: cst.CSTNode, context: Context,
                      arguments: cst.Call | None = None, static: Sequence[cst.BaseExpression] = (),
                      read: set[str] | None = None, depth: int = 0) -> Evidence | None:
        """``evidence`` with why each run of ``context`` builds the same computation as ``fun``, or None when
        each run builds a different one (a loop over differently-built objects, configurations or functions).

        What ``fun`` reads from the code that repeats (the loop's variables, or the function's parameters and
        what it derives from them) is what can change between runs. Nothing read: the same program each time.
        A number (a loop over ``range`` or a literal of numbers): the same program with a different constant
        baked in, which an argument would share. A literal of other objects: a different program each time.
        Anything else is not known either way: the finding then rests on a guess (low confidence).
        ``arguments`` is the call of the wrapper where it is built, when it is called at once: arguments built
        differently on each pass (other shapes, other pytrees) compile a different program whatever is hoisted,
        and so does a ``static`` argument of that call (:func:`~jitcheck.lint.static_args.static_arguments`) that
        changes on each pass: a new cache key whatever is hoisted. Code that times its compiles or counts its traces does it on purpose: None.
        ``read`` stands for what ``fun`` reads when ``context`` is a caller's, judged through one call site
        (:meth:`through_one_site`, ``depth`` callers up): the names that call's arguments read.
        """
        if self.observes_compiles(context.function, fun):
            return None
        if read is None:
            read = self.names_read(fun)
        if context.in_loop and context.loop is not None:
            loop = context.loop
            changing = self.loop_names(loop, context)
            used = sorted(read & changing)
            kind = self.items_kind(self.loop_iterable(loop))
            if kind == "objects" and arguments is not None and self.names_read(arguments) & changing:
                return None  # called on a differently-built argument each pass: a different program each time
            if arguments is not None and self.sized_by(arguments, loop, changing):
                return None  # called on an array whose size the loop changes: another shape, another program
            if arguments is None:
                # `fn = jax.jit(lambda m, r: ...)`, then `fn(model_for(kind), r)`: what it is called on is part of
                # the program as it is where the wrapper is called at once.
                calls = self.product_calls(fun, loop)
                if kind == "objects" and calls:
                    items = self.from_items(loop)
                    if all(any(self.names_read(arg.value) & items for arg in call.args) for call in calls):
                        return None  # every call of it is on what the loop's items build: another program each pass
                if any(self.sized_by(call, loop, changing) for call in calls):
                    return None
            if any(self.names_read(a) & changing for a in static):
                # A static argument that changes on each pass is a new cache key on each pass, whatever is hoisted.
                return None
            if not used:
                return self.same_code(evidence, fun, why="it reads nothing that changes between iterations")
            if self.carried_callables(loop, fun, set(used)):
                # `f = jax.jacfwd(f)` at the end of each pass: the function jitted is another one each time.
                return None
            handed = self.counters_handed_on(loop, fun, set(used)) if kind == "numbers" else set()
            if handed:
                # `for n in range(4): jax.jit(lambda z: spec.fastpath(z, n))`: an integer handed to a function of the
                # project may be an order, a size or a count (another program each pass) as well as a value.
                return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                    f"that each iteration builds the same program: the loop's integer {_names(sorted(handed))} is "
                    "handed to a function that may use it as a size or an order, not only as a value")), confidence="low")
            picked = self.items_picked_by_numbers(loop, fun, changing) if kind == "numbers" else []
            if picked:
                # `make(shapes[level])`: what reaches the callable is an item the number picks, not the number: each
                # pass may build another program.
                return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                    f"that each iteration builds the same program: the loop's number picks an item of {_names(picked)}, "
                    "not known to hold numbers (a shape or a configuration as well as a value), which a function "
                    "makes the callable from")), confidence="low")
            configured = self.built_from_written_numbers(loop, set(used)) if kind == "numbers" else []
            if configured:
                # `for alpha in [-1.0, 0.0, 2.0]: p = PowerLaw(alpha)`: numbers written out one by one, each made
                # into an object of a class, which may branch on it (a configuration) as well as compute with it.
                return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                    f"that each iteration builds the same program: {_names(configured)} is built by a class from "
                    "numbers written out one by one, which it may hold as a configuration as well as a value")),
                    confidence="low")
            made = self.built_anew(loop, set(used), changing) if kind == "numbers" else []
            if made:
                # `M = build_preconditioner(J)` or `fns = create_solver(params)` on each pass of a loop over steps: a
                # new structure (a shape, a sparsity, a configuration), which may differ as well as its values.
                return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                    f"that each iteration builds the same program: {_names(made)} is made anew by a builder on each "
                    "pass, and may differ in structure as well as in value")),
                    confidence="low")
            return self.judged(evidence, fun, kind, used, "iteration")
        function = context.function
        if not isinstance(function, cst.FunctionDef):
            return self.same_code(evidence, fun)
        # `if solver == "Adam": @jax.jit def J(...)`: which calls reach it rests on what the `if`s around it test
        # (`train("Adam")` and `train("LBFGS")` build it once between them): read as the callable's own inputs.
        arms = arms_around(function, fun)
        read = read | {name for test, _ in arms for name in self.names_read(test)}
        params = {p for p in self.def_params(function) if p != context.self_name} | {
            p.name.value for p in function.params.kwonly_params}
        derived = self.derived(function, params)
        changing = params | set(derived)
        used = sorted(read & changing)
        sources = _sources(set(used), params, derived)
        sites = runs_of(self.callers(function, context))
        if arms and evidence.again and evidence.again[0].kind == "call-site":
            # `train("adam")` and `train("sgd")` around `if solver == "adam": @jax.jit def step`: a call whose
            # literal arguments take another arm does not build it.
            tested = self.tested_params(function, arms)
            reaching = [site for site in sites if self.reaches(site, function, context, arms, tested)]
            if len(reaching) < 2 and not any(site.context.in_loop for site in reaching):
                return None
            sites = reaching
        configured = sorted({name for site in sites if site.context.in_loop for name in _attributes_set(site.context.loop)})
        if configured and _reads_configured(function, {name.rsplit(".", 1)[-1] for name in configured}, context.self_name):
            # `for w in ...: config.width = w; train(...)`: each call may read another configuration.
            return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                f"that each call builds the same program: the caller's loop sets {_names(configured)} on each "
                "iteration")), confidence="low")
        once = [site for site in sites if self.site_runs_once(site)]
        alike = self.calls_alike(sites)
        if alike is not None:
            # Two calls in one run (one function's body, or one script's or notebook's top level) spelled alike,
            # reading names bound once there: the same values, so the same program compiled at each.
            return self.same_code(evidence, fun, why=f"the calls at lines {self.line_of(alike[0].node)} and "
                                  f"{self.line_of(alike[1].node)} run in one run and pass the same arguments")
        if len(sites) >= 2 and len(once) == len(sites) and len({self.call_shape(site) for site in sites}) > 1:
            # Each call runs once (module level, a notebook cell, a test) on other inputs: not a loop over one program.
            lines = ", ".join(str(self.line_of(site.node)) for site in sites)
            return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                f"that the calls at lines {lines}, each run once, compute the same thing: they pass different "
                "arguments")), confidence="low")
        elsewhere = self.elsewhere(function, context) if evidence.again and evidence.again[0].kind == "called-elsewhere" \
            else None
        if elsewhere is not None:
            return self.judged_elsewhere(evidence, fun, function, context, elsewhere, sources, read)
        fed = self.fed_names(fun, context, arguments) & changing
        if fed and "objects" in self.caller_kinds(sites, function, context, _sources(fed, params, derived)):
            # The wrapper is called on arguments made from a differently-built object on each pass of a caller's
            # loop (other shapes, other static values): a different program each time, whatever is hoisted.
            return None
        if not used:
            return self.same_code(evidence, fun, why="it reads none of its function's parameters")
        passed = {name: [self.argument_text(site, function, context, name) for site in sites] for name in sources}
        if not sites and evidence.again and evidence.again[0].kind == "step":
            # A run's loop calls its step with the same model, optimizer and loss each time; its batch is data.
            return self.same_code(evidence, fun, why="a step is called with the same model and functions on every "
                                  "step of a run, only its data changing")
        if not sites or not passed:
            return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                f"that each call builds the same program: it reads {_names(used)}, which callers may vary")),
                confidence="low")
        kinds = self.caller_kinds(sites, function, context, sources)
        if kinds:
            # A caller's loop hands in what changes on each iteration: judged by what that loop runs over.
            kind = "objects" if "objects" in kinds else "numbers" if kinds == {"numbers"} else "unknown"
            return self.judged(evidence, fun, kind, used, "call")
        looping = [site for site in sites if site.context.in_loop]
        if looping:
            # A caller's loop hands in nothing that changes for what the callable reads (`caller_kinds` found none):
            # that loop alone compiles the same program on every pass, whatever the other call sites pass.
            return self.same_code(evidence, fun, why="the arguments it reads do not change in the caller's loop at line "
                                  f"{self.line_of(looping[0].node)}")
        if all(len(set(texts)) == 1 and None not in texts for texts in passed.values()) and not any(
                _words(text or "") & self.rebound_names()
                for texts in passed.values() for site, text in zip(sites, texts) if site.context.function is None) \
                and all(self.bound_once_before(first) for first, second in zip(sites, sites[1:])
                        if first.context.function is second.context.function is not None):
            callers_of = self.handed_from_callers(sites, passed)
            if not callers_of:
                return self.same_code(evidence, fun, why="every call site passes the same arguments")
            # `def _run(config): model = build(config); train(model)`, `_run` called by two tests: the one call of
            # `train` passes `model` each time, but `model` is made from what `_run`'s own callers hand in.
            chained = self.through_one_site(fun, function, context, sites, sources, read, depth)
            if chained is not None:
                return chained
            return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                f"that each call builds the same program: the arguments it reads come from {_names(callers_of)}'s "
                "parameters, which its callers may vary")), confidence="low")
        chained = self.through_one_site(fun, function, context, sites, sources, read, depth)
        if chained is not None:
            return chained
        return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
            f"that the calls compute the same thing: they pass different {_names(sorted(passed))}")), confidence="low")

    def site_runs_once(self, site: CallSite) -> bool:
        """Whether the call ``site`` runs once per program or test: not in a loop, at module level (a script's top
        level, a notebook cell) or in code that runs once (:meth:`~jitcheck.lint.frequency.Frequency.runs_once`)."""
        return not site.context.in_loop and (site.context.function is None or self.runs_once(site.context))

    def handed_from_callers(self, sites: list[CallSite], passed: dict[str, list[str | None]]) -> list[str]:
        """The functions (by name) of ``sites`` whose arguments, as passed there (``passed``: each read parameter's
        text at each site), read a parameter of that function, or a name it derives from one, that the function's own
        calls in the run pass differently (other texts, or star arguments) from code that runs once each (tests,
        notebook cells, a script's top level): the same text at ``sites`` is then not the same value on each run,
        as two tests on other inputs are not a loop over one program. So is a function called in a loop that hands it,
        for one of them, what changes on each iteration (``run(**kwargs)`` after ``kwargs["backend"] = name``). A
        function with no call in the run (a callback, a public function), or one called from other code that runs
        again, is not counted: what it is handed is not known to vary."""
        found: list[str] = []
        for index, site in enumerate(sites):
            caller = site.context.function
            if not isinstance(caller, cst.FunctionDef):
                continue
            words = set().union(*(_words(texts[index] or "") for texts in passed.values()))
            params = set(self.def_params(caller)) | {p.name.value for p in caller.params.kwonly_params}
            params.discard(site.context.self_name or "")
            derived = self.derived(caller, params)
            handed = _sources(words & (params | set(derived)), params, derived)
            if not handed:
                continue
            calls = runs_of(self.callers(caller, site.context))
            once = all(self.site_runs_once(call) for call in calls)
            # (a name a call leaves out is its default, the same at each; a star argument may hand in anything)
            starred = any(arg.star for call in calls for arg in call.node.args)
            texts = [[self.argument_text(call, caller, site.context, name) for call in calls] for name in handed]
            varied = any(self.varies_in_loop(call, caller, site.context, handed) for call in calls)
            if calls and (varied or once and (starred or any(len(set(each)) > 1 for each in texts))):
                name = site.context.function_name or caller.name.value
                if name not in found:
                    found.append(name)
        return found

    def varies_in_loop(self, call: CallSite, function: cst.FunctionDef, context: Context, names: list[str]) -> bool:
        """Whether ``call``, in a loop, hands ``function`` something that changes on each iteration (:meth:`loop_names`)
        for one of the parameters ``names``: its argument there, or a star argument that may pass it."""
        loop = call.context.loop
        if not call.context.in_loop or loop is None:
            return False
        texts = [self.argument_text(call, function, context, name) for name in names]
        read = set().union(*(_words(text) for text in texts if text is not None))
        if None in texts:  # not passed by name or position: a star argument may pass it
            read |= set().union(*(_words(self.module.code_for_node(arg.value)) for arg in call.node.args if arg.star))
        return bool(read & self.loop_names(loop, call.context))

    def through_one_site(self, fun: cst.CSTNode, function: cst.FunctionDef, context: Context, sites: list[CallSite],
                         sources: list[str], read: set[str], depth: int) -> Evidence | None:
        """The evidence through one call of ``function`` when its calls pass different arguments (two programs,
        perhaps): a call whose own function is shown to run again, handing on what the rebuilt ``fun`` reads
        unchanged each time (``predict_mixture(draws, prob)`` called once per rung of a loop that keeps ``prob``),
        compiles the same program on every one of those runs. None when no call is shown to do so."""
        if depth >= 3:
            return None
        name = context.function_name or "it"
        for site in sites:
            caller = site.context
            if not isinstance(caller.function, cst.FunctionDef) or any(arg.star for arg in site.node.args):
                continue
            texts = [self.argument_text(site, function, context, source) or "" for source in sources]
            if context.self_name is not None and context.self_name in read:
                # A method reading its receiver: the object it is called on is read too.
                if not isinstance(site.node.func, cst.Attribute):
                    continue
                texts.append(self.module.code_for_node(site.node.func.value))
            outer = self.again(caller, depth + 1)
            if outer.confidence != "high" or not outer.again:
                continue
            judged = self.sameness(outer, fun, caller, read=set().union(*map(_words, texts)), depth=depth + 1)
            if judged is None or judged.confidence != "high" or not judged.same:
                continue
            line = self.line_of(site.node)
            reason = Reason("called-from", f"`{name}` is called at line {line}, from `{caller.function_name}`", line)
            return dataclasses.replace(judged, again=(reason, *judged.again))
        return None

    def from_items(self, loop: cst.CSTNode) -> set[str]:
        """The names ``loop`` (a ``for``) binds to its items, and those its body assigns from them, directly or
        through other such names (``for kind in kinds: m = model_for(kind)``: ``kind`` and ``m``); not what it
        carries from pass to pass (``key, rng = split(key)``)."""
        if not isinstance(loop, cst.For):
            return set()
        reader = _Reader()
        loop.target.visit(reader)
        bindings = _Bindings()
        loop.body.visit(bindings)
        return _grow(set(reader.names), bindings.reads)

    def product_calls(self, fun: cst.CSTNode, loop: cst.CSTNode) -> list[cst.Call]:
        """The calls in ``loop`` of the names the wrapper built around ``fun`` is bound to there (``fn =
        jax.jit(fun)``; a ``def`` decorated with the jit)."""
        products = _ProductNames(fun)
        loop.visit(products)
        found = _CallsOf({id(use) for use in products.uses})
        loop.visit(found)
        return found.calls

    def sized_by(self, arguments: cst.Call, loop: cst.CSTNode, changing: set[str]) -> bool:
        """True when an argument of ``arguments`` (the call of a wrapper built in ``loop``) is, or is built in the
        loop from, an array whose size reads a name in ``changing`` (:mod:`.shapes`): ``m = np.arange(npix(nside))``,
        then ``jax.jit(f)(m)``: another shape on each pass. Names are followed back through their bindings."""
        bound_here: set[int] | None = None  # the names the loop's body holds, worked out when a name has two bindings
        pending: list[cst.CSTNode] = [arg.value for arg in arguments.args]
        seen: set[int] = set()
        while pending and len(seen) < 32:
            expr = pending.pop()
            if id(expr) in seen:
                continue
            seen.add(id(expr))
            parts = _parts(expr)
            for call in parts.calls:
                for qualified in self.qnames(call.func) & SIZED_CONSTRUCTORS:
                    if any(self.names_read(size) & changing for size in size_arguments(call, qualified)):
                        return True
            for name in parts.names:
                if name.value not in changing:
                    continue
                definitions = [getattr(r, "node", None) for r in self.referents(name)]
                if len(definitions) > 1:
                    # bound again elsewhere (a second loop over the sizes): the bindings in this loop are the ones read
                    if bound_here is None:
                        body = getattr(loop, "body", None)
                        bound_here = {id(n) for n in _parts(body).names} if isinstance(body, cst.CSTNode) else set()
                    definitions = [d for d in definitions if id(d) in bound_here]
                for definition in definitions:
                    bound = self.c.assigned.get(definition) if definition is not None else None
                    unpacked = self.c.unpacked.get(definition) if definition is not None else None
                    if bound is not None:
                        pending.append(bound[0])
                    elif unpacked is not None:
                        pending.append(unpacked[0])
        return False

    def caller_kinds(self, sites: list[CallSite], function: cst.FunctionDef, context: Context, sources: list[str]) -> set[str]:
        """What the callers' loops run over (:meth:`items_kind`), for each call site in a loop that hands in, for one
        of the parameters ``sources``, something that changes on each of its iterations."""
        kinds: set[str] = set()
        for site in sites:
            caller_loop = site.context.loop
            if not site.context.in_loop or caller_loop is None:
                continue
            outer_changing = self.loop_names(caller_loop, site.context)
            handed = set().union(*(_words(self.argument_text(site, function, context, name) or "") for name in sources))
            moving = handed & outer_changing
            if moving and moving & self.selected_in(caller_loop):
                kinds.add("unknown")  # an array selected by a mask made on each pass: its size may change
            elif moving and self.built_anew(caller_loop, moving, outer_changing):
                kinds.add("unknown")  # a new object built on each pass (`M = build(J)`): its structure may change
            elif moving:
                kinds.add(self.items_kind(self.loop_iterable(caller_loop)))
        return kinds

    def selected_in(self, loop: cst.CSTNode) -> frozenset[str]:
        """The names ``loop``'s body binds to an array selected by a mask it computes (:func:`~jitcheck.lint.callers.
        selected_names`, on Python's reading of the loop's code)."""
        cache: dict[int, frozenset[str]] = self.__dict__.setdefault("_selected", {})
        if id(loop) not in cache:
            found: frozenset[str] = frozenset()
            try:
                parsed = ast.parse(textwrap.dedent(self.module.code_for_node(loop)))
            except (SyntaxError, ValueError):
                parsed = None
            if parsed is not None and parsed.body and isinstance(parsed.body[0], (ast.For, ast.AsyncFor, ast.While)):
                found = selected_names(parsed.body[0].body)
            cache[id(loop)] = found
        return cache[id(loop)]

    def fed_names(self, fun: cst.CSTNode, context: Context, arguments: cst.Call | None) -> set[str]:
        """The names read by the arguments the wrapper of ``fun`` is called with where it is built: ``arguments``
        (the wrapper called at once), or the calls of a decorated nested ``def`` in the function that defines it.
        Their shapes and static values are part of what is compiled."""
        calls: list[cst.Call] = [arguments] if arguments is not None else []
        if arguments is None and isinstance(fun, cst.FunctionDef):
            calls = [site.node for site in self.calls_of(fun) if site.context.function is context.function]
        reader = _Reader()
        for call in calls:
            for arg in call.args:
                arg.value.visit(reader)
        return reader.names

    def judged_elsewhere(self, evidence: Evidence, fun: cst.CSTNode, function: cst.FunctionDef, context: Context,
                         elsewhere: Elsewhere, sources: list[str], read: set[str]) -> Evidence | None:
        """The sameness verdict of a function whose repetition the run's callers show (:mod:`.callers`): whether the
        arguments of the parameters the rebuilt callable reads (and the receiver, when it reads ``self``) change
        between the runs those callers make."""
        params = self.def_params(function)
        shift = 1 if context.self_name is not None and params and params[0] == context.self_name else 0
        keys = [(str(params.index(name) - shift), name) if name in params else (name,) for name in sources]
        if context.self_name is not None:
            keys.append(("self",))  # a method: another receiver may hold another computation, whatever reads it
        verdict, why = elsewhere.verdict(keys)
        if verdict == "same":
            return self.same_code(evidence, fun, why=why)
        if verdict == "objects":
            return None  # a differently-built object on each pass of the caller's loop: a different program
        if verdict == "numbers":
            reason = Reason("data", f"only numbers change from one call to the next ({why}), baked into the same code: "
                            "pass them as arguments", self.line_of(fun))
            return dataclasses.replace(evidence, same=(*evidence.same, reason))
        return dataclasses.replace(evidence, unproven=(*evidence.unproven, f"that each call builds the same program: {why}"),
                                   confidence="low")

    def judged(self, evidence: Evidence, fun: cst.CSTNode, kind: str, used: list[str], unit: str) -> Evidence | None:
        """The verdict on a loop whose items ``kind`` describes: numbers are data, other literals are
        different programs (None), anything else is unknown (low confidence)."""
        if kind == "numbers":
            branched = self.branched_on(fun, set(used))
            if branched:
                # `if initial_step > 0:` in the jitted code: a value its Python control flow tests is not data that an
                # argument could carry (a traced argument cannot be tested in Python; a static one is a key per value).
                return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
                    f"that each {unit} builds the same program: the jitted code tests {_names(branched)} in Python "
                    f"control flow, which changes on each, so another value may be another program")), confidence="low")
            line = self.line_of(fun)
            # What changes is judged by what the loop runs over (numbers), not read off the names: a loop variable is
            # a number, a name its body rebinds (`params = step(params)`) only data like one.
            reason = Reason("data", f"only {_names(used)} changes from one {unit} to the next, in a loop over numbers: "
                            "data baked into the same code; pass it as an argument", line)
            return dataclasses.replace(evidence, same=(*evidence.same, reason))
        if kind == "objects":
            return None  # a differently-built object, configuration or function on each pass: a different program
        return dataclasses.replace(evidence, unproven=(*evidence.unproven, (
            f"that each {unit} builds the same program: it reads {_names(used)}, which may change from one {unit} to the "
            "next")), confidence="low")

    def branched_on(self, fun: cst.CSTNode, changing: set[str]) -> list[str]:
        """The names of ``changing`` that the rebuilt callable ``fun`` tests in Python control flow (an ``if``,
        ``while`` or conditional expression's test), read directly by a nested ``def`` or lambda, or bound by a
        ``functools.partial`` of a function of this file to a parameter that function tests."""
        if isinstance(fun, (cst.FunctionDef, cst.Lambda)):
            return sorted((_tested_names(fun) - param_names(fun)) & changing)
        if not isinstance(fun, cst.Call) or not self.is_kind(fun.func, names.FUNCTOOLS_PARTIALS) or not fun.args:
            return []
        target = fun.args[0].value
        function = self.definition_of(target) if isinstance(target, cst.Name) else None
        if not isinstance(function, cst.FunctionDef):
            return []
        tested = _tested_names(function)
        positional = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        found: set[str] = set()
        for number, arg in enumerate(fun.args[1:]):
            if arg.star:
                continue
            param = arg.keyword.value if arg.keyword is not None else (
                positional[number] if number < len(positional) else None)
            if param is not None and param in tested:
                found |= self.names_read(arg.value) & changing
        return sorted(found)

    def names_read(self, node: cst.CSTNode) -> set[str]:
        """The names an expression, or a function's body, reads (a bound method: its receiver's first name). A name
        bound just above, in the same block, to a callable built there (a partial or a transformation:
        ``g = partial(f, k=2); g = jax.vmap(g)``) is read as what it is built from."""
        reader = _Reader(self.built_callable)
        defaults = _Reader(self.built_callable)
        target = node.body if isinstance(node, (cst.FunctionDef, cst.Lambda)) else node
        own: set[str] = set()
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            params = node.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                if param.default is not None:
                    # `lambda t, c=cov_type: ...` reads `cov_type` where it is made; `lambda x, fn=fn: ...` reads the
                    # outer `fn`, though the parameter has its name.
                    param.default.visit(defaults)
            own = param_names(node)
            if isinstance(node, cst.FunctionDef):
                assigned = _Assigned()
                node.body.visit(assigned)
                own |= assigned.names
        if isinstance(node, cst.Name):
            definition = self.definition_of(node)
            bound = self.c.assigned.get(definition) if definition is not None else None
            if bound is not None:
                target = bound[0]
            ref = self.single_referent(node)
            referent = getattr(ref, "node", None)
            if isinstance(referent, cst.FunctionDef):
                return self.names_read(referent)
        target.visit(reader)
        return (reader.names - own) | defaults.names

    def definition_of(self, name: cst.Name) -> cst.CSTNode | None:
        ref = self.single_referent(name)
        return getattr(ref, "node", None)

    def built_callable(self, name: cst.Name) -> cst.BaseExpression | None:
        """What the read ``name`` holds when only one binding reaches it, a plain ``name = call(...)`` above it in
        the same block (the collector's ``reaching``), and that call builds a callable: a partial, or a jax or
        equinox transformation of a function. Such a name changes between runs only as what it is built from does
        (a callable rebuilt the same way is the same computation); None for anything else, which may hold another
        object each time (``cfg = configs.pop()``)."""
        reaching = self.c.reaching.get(name)
        bound = self.c.assigned.get(reaching) if reaching is not None else None
        value = bound[0] if bound is not None else None
        if isinstance(value, cst.Call) and self.is_kind(value.func, _CALLABLE_BUILDERS):
            return value
        return None

    def carried_callables(self, loop: cst.CSTNode, fun: cst.CSTNode, used: set[str]) -> set[str]:
        """The names in ``used`` that ``fun`` calls or hands to a call (a function, not a value it reads) and that the
        loop's body binds anew from a call reading the name itself (``f = jax.jacfwd(f)``, ``g = compose(h, g)``):
        a function carried from pass to pass and changed on each, so each pass jits another function."""
        body = getattr(loop, "body", None)
        if not isinstance(body, cst.CSTNode):
            return set()
        rebound = _SelfRebound(used)
        body.visit(rebound)
        if not rebound.names:
            return set()
        callables = _CalledNames()
        fun.visit(callables)
        return rebound.names & callables.names

    def items_picked_by_numbers(self, loop: cst.CSTNode, fun: cst.CSTNode, changing: set[str]) -> list[str]:
        """The collections whose items a loop's number picks (``shapes[level]``) on the way to ``fun``, when the item
        then goes through a function other than jax's, numpy's or the builtins' (``make(shapes[level])``): a
        collection not known to hold numbers may hold shapes or configurations, so each pass may build another
        program. Empty when the numbers reach ``fun`` as they are, through arithmetic, through functions alone (a
        sample loaded by its index is data as often as not), or as an item of numbers (``temperatures[i]`` of an
        array), which is data baked into one program."""
        body = getattr(loop, "body", None)
        if not isinstance(body, cst.CSTNode):
            return []
        values = _Values()
        body.visit(values)
        levels: dict[str, int | None] = {}
        through: list[str] = []

        def name_level(name: str) -> int | None:
            if name not in changing:
                return None
            if name not in values.bound:
                return 0  # a loop target: the number itself
            if name not in levels:
                levels[name] = 0  # a name its own value reads (`x = f(x)`) starts from the number
                found = [expr_level(value) for value in values.bound[name]]
                known = [level for level in found if level is not None]
                levels[name] = max(known) if known else None
            return levels[name]

        def counts(call: cst.Call) -> bool:
            qualified = self.qnames(call.func) | {get_full_name_for_node(call.func) or ""}
            qualified.discard("")
            return not qualified or not all(q.split(".")[0] in _ARRAY_ROOTS or q in _BUILTIN_VALUES for q in qualified)

        def expr_level(node: cst.CSTNode) -> int | None:
            if isinstance(node, cst.Name):
                return name_level(node.value)
            if isinstance(node, (cst.Attribute, cst.Arg)):
                return expr_level(node.value)  # not the attribute's name, nor the keyword's
            if isinstance(node, (cst.Lambda, cst.FunctionDef)):
                read = [name_level(name) for name in self.names_read(node)]
                known = [level for level in read if level is not None]
                return max(known) if known else None
            if isinstance(node, cst.Subscript):
                value = expr_level(node.value)
                index = [expr_level(element.slice) for element in node.slice]
                picked = [level for element, level in zip(node.slice, index)
                          if level is not None and isinstance(element.slice, cst.Index)]  # a slice is a batch: data
                if picked and value is None and not self.numeric(node.value):
                    name = get_full_name_for_node(node.value)
                    if name:
                        through.append(name)
                    return max(picked) + 1  # an item picked by the number: whatever the collection holds
                known = [level for level in (value, *index) if level is not None]
                return max(known) if known else None
            children = [expr_level(child) for child in node.children]
            known = [level for level in children if level is not None]
            if not known:
                return None
            level = max(known)
            if isinstance(node, cst.Call) and counts(node):
                if isinstance(node.func, cst.Attribute) and expr_level(node.func.value) is not None and \
                        node.func.attr.value in _VALUE_METHODS:
                    return level
                return level + 1
            return level

        top = name_level(fun.value) if isinstance(fun, cst.Name) and fun.value in values.bound else expr_level(fun)
        if top is None or top < 2 or not through:
            # Numbers handed through functions alone stay data as often as not (a sample loaded by its index, a
            # temperature drawn on each pass, then the system built from it): only an item picked is unknown.
            return []
        return sorted(set(through))

    def built_from_written_numbers(self, loop: cst.CSTNode, used: set[str]) -> list[str]:
        """The names among ``used`` that a ``for`` loop over a literal of numbers (``[-1.0, 0.0, 2.0]``, not a
        ``range``) binds in its body to an instance of a class made from its variable (``p = Prior(alpha)``)."""
        if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name) \
                or not isinstance(loop.iter, (cst.List, cst.Tuple, cst.Set)):
            return []
        target = loop.target.value
        found: set[str] = set()
        for node, value in self.bound_in(loop, used):
            if isinstance(value, cst.Call) and self.names_a_class(value.func) \
                    and any(target in self.names_read(arg.value) for arg in value.args):
                found.add(node.value)
        return sorted(found)

    def bound_in(self, loop: cst.CSTNode, used: set[str]) -> list[tuple[cst.Name, cst.BaseExpression]]:
        """The plain bindings ``name = value`` that ``loop``'s own body makes of the names in ``used``."""
        return [(node, value) for node, (value, where) in self.c.assigned.items()
                if isinstance(node, cst.Name) and node.value in used and where.loop is loop]

    def array_function(self, func: cst.BaseExpression) -> bool:
        """True when ``func`` names a function of jax, numpy, math or the builtins: one that makes or takes arrays
        and numbers as data."""
        return any(q.split(".")[0] in _ARRAY_ROOTS for q in self.qnames(func))

    def built_anew(self, loop: cst.CSTNode, used: set[str], changing: set[str]) -> list[str]:
        """The names among ``used`` that ``loop``'s body binds to what a builder (``create_...``, ``build_...``,
        ``make_...``, ``new_...``) makes on each pass from something that changes (``changing``, the loop's number
        among them), in a call that does not read the name itself: a builder makes a structure (a solver, an
        environment, a grid) from its inputs, which may differ from pass to pass. State carried from pass to pass
        (``params = step(params)``), arrays made by jax or numpy, and what is built from an item of one array
        (``create_bijector(masks[i])``: items of one shape) or from what stays the same are data."""
        found: set[str] = set()
        for node, value in self.bound_in(loop, used):
            if node.value in self.names_read(value):
                continue
            # `env = create_env(kind) if ... else env0`: either arm may run, so a builder in one is enough
            made = [value.body, value.orelse] if isinstance(value, cst.IfExp) else [value]
            for call in made:
                if not isinstance(call, cst.Call) or self.array_function(call.func):
                    continue
                last = call.func.attr.value if isinstance(call.func, cst.Attribute) else \
                    call.func.value if isinstance(call.func, cst.Name) else ""
                inputs = [arg.value for arg in call.args if not isinstance(arg.value, cst.Subscript)]
                if last.startswith(_BUILDER_VERBS) and any(self.names_read(given) & changing for given in inputs):
                    found.add(node.value)
        return sorted(found)

    def numeric(self, collection: cst.BaseExpression) -> bool:
        """Whether an item of ``collection`` is data: a literal or range of numbers, or a name some binding of which
        is an array made by jax or numpy (``diag = jnp.broadcast_to(...).reshape(...)``) or a parameter annotated as
        an array; a name whose bindings say nothing (a fixture's list of shapes) is not known to be."""
        if self.items_kind(collection) == "numbers":
            return True
        if not isinstance(collection, cst.Name):
            return False
        for ref in self.referents(collection):
            node = getattr(ref, "node", None)
            if isinstance(node, cst.Param):
                annotation = node.annotation
                text = self.module.code_for_node(annotation.annotation) if annotation is not None else ""
                if re.search(r"Array|ndarray|Tensor", text):
                    return True
                continue
            bound = self.c.assigned.get(node) if node is not None else None
            value = bound[0] if bound is not None else None
            while isinstance(value, cst.Call):
                func = value.func
                if self.array_function(func):
                    return True
                value = func.value if isinstance(func, cst.Attribute) else None  # `.reshape(...)` of an array call
        return False

    def counters_handed_on(self, loop: cst.CSTNode, fun: cst.CSTNode, used: set[str]) -> set[str]:
        """The targets of an integer loop (``for n in range(...)``) among ``used`` that ``fun`` hands, as they are, to a
        call of something other than jax's or numpy's array functions."""
        iterable = self.loop_iterable(loop)
        if not isinstance(iterable, cst.Call) or not (
                self.qnames(iterable.func) | {get_full_name_for_node(iterable.func) or ""}) & {"range", "builtins.range"}:
            return set()
        target = loop.target if isinstance(loop, cst.For) else getattr(getattr(loop, "for_in", None), "target", None)
        if not isinstance(target, cst.Name) or target.value not in used:
            return set()
        calls = _CallsHanding(target.value)
        fun.visit(calls)
        return {target.value} if any(not self.array_function(call.func) for call in calls.calls) else set()

    def loop_names(self, loop: cst.CSTNode, context: Context) -> set[str]:
        """The names that change on each iteration of ``loop``: its targets and what its body assigns."""
        changing: set[str] = set()
        targets: list[cst.CSTNode] = []
        if isinstance(loop, cst.For):
            targets.append(loop.target)
        for_in = getattr(loop, "for_in", None)
        while isinstance(for_in, cst.CompFor):
            targets.append(for_in.target)
            for_in = for_in.inner_for_in
        for target in targets:
            reader = _Reader()
            target.visit(reader)
            changing |= reader.names
        body = getattr(loop, "body", None)
        if isinstance(body, cst.CSTNode):
            assigned = _Assigned()
            body.visit(assigned)
            changing |= assigned.names
            # A `def` in the body closing over what changes is a different closure each iteration.
            bindings = _Bindings()
            body.visit(bindings)
            _grow(changing, [(d.name.value, self.names_read(d)) for d in bindings.defs])
        return changing

    def loop_iterable(self, loop: cst.CSTNode) -> cst.BaseExpression | None:
        if isinstance(loop, cst.For):
            return loop.iter
        for_in = getattr(loop, "for_in", None)
        return for_in.iter if isinstance(for_in, cst.CompFor) else None

    def items_kind(self, iterable: cst.BaseExpression | None, depth: int = 0) -> str:
        """``"numbers"``, ``"objects"`` (a literal of other things: calls, strings, names) or ``"unknown"``."""
        if iterable is None or depth > 3:
            return "unknown"
        if isinstance(iterable, cst.Call):
            qualified = self.qnames(iterable.func) | {get_full_name_for_node(iterable.func) or ""}
            if qualified & (_DATA_ITERABLES | _PROGRESS_RANGES):
                return "numbers"
            if qualified & _PROGRESS_BARS:
                handed = [a.value for a in iterable.args if a.keyword is None or a.keyword.value == "iterable"]
                return self.items_kind(handed[0], depth + 1) if handed else "unknown"
            if qualified & {"enumerate", "builtins.enumerate", "zip", "builtins.zip", "reversed", "sorted"} and iterable.args:
                kinds = {self.items_kind(arg.value, depth + 1) for arg in iterable.args if arg.keyword is None}
                return "objects" if "objects" in kinds else ("numbers" if kinds == {"numbers"} else "unknown")
            func = iterable.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("keys", "values", "items") and not iterable.args:
                # A view of a dict literal: its keys, its values, or both (each item a different pair if either differs).
                table = self.dict_literal(func.value)
                if table is not None:
                    return self.view_kind(table, func.attr.value, depth)
            return "unknown"
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
            items = [e.value for e in iterable.elements if not isinstance(e, cst.StarredElement)]
            if not items:
                return "unknown"
            if all(_number(item) for item in items):
                # Floats are values; a literal list of integers is as often sizes (other shapes, other programs).
                return "numbers" if any(_float(item) for item in items) else "unknown"
            rows = [[e.value for e in item.elements] if isinstance(item, (cst.Tuple, cst.List)) else None for item in items]
            if all(row and all(_number(value) for value in row) for row in rows) and not any(
                    _float(value) for row in rows for value in row or ()):
                return "unknown"  # rows of integers (`(64, 64, 8, 2)`): as often sizes as a list of integers is
            shapes = {_NUMBER.sub("#", " ".join(self.module.code_for_node(item).split())) for item in items}
            if len(shapes) == 1 and not any(isinstance(item, (cst.SimpleString, cst.ConcatenatedString, cst.Name,
                                                                  cst.Attribute, cst.Lambda)) for item in items):
                return "numbers"  # built by one expression, up to the numbers in it: the same structure, data apart
            return "objects"
        if isinstance(iterable, cst.Dict):
            return self.view_kind(iterable, "keys", depth)  # iterating a dict: its keys
        if isinstance(iterable, cst.Name):
            found = self.value_of(iterable)
            if found is not None:
                return self.items_kind(found[0], depth + 1)
            # Bound more than once (`gammas = jnp.logspace(...)` in two notebook cells): what every binding holds.
            bound = [self.c.assigned.get(getattr(r, "node", None)) for r in self.referents(iterable)]  # type: ignore[arg-type]
            kinds = {self.items_kind(b[0], depth + 1) if b is not None else "unknown" for b in bound}
            if len(kinds) == 1 and bound:
                return kinds.pop()
        return "unknown"

    def view_kind(self, table: cst.Dict, view: str, depth: int) -> str:
        """:meth:`items_kind` of a dict literal's keys, values or items (a different pair if either differs)."""
        pairs = [e for e in table.elements if isinstance(e, cst.DictElement)]
        keys = self.items_kind(cst.List([cst.Element(e.key) for e in pairs]), depth + 1)
        values = self.items_kind(cst.List([cst.Element(e.value) for e in pairs]), depth + 1)
        kinds = {"keys": {keys}, "values": {values}}.get(view, {keys, values})
        return "objects" if "objects" in kinds else ("numbers" if kinds == {"numbers"} else "unknown")

    def dict_literal(self, expr: cst.BaseExpression) -> cst.Dict | None:
        """The dict literal ``expr`` is, or that the name ``expr`` is bound to once in this file."""
        if isinstance(expr, cst.Name):
            found = self.value_of(expr)
            expr = found[0] if found is not None else expr
        return expr if isinstance(expr, cst.Dict) else None

    def derived(self, function: cst.FunctionDef, params: set[str]) -> dict[str, set[str]]:
        """Local names of ``function`` assigned from expressions that read some of ``params``, directly or
        through other such names (``xs = simulate(n); data = Dataset(xs)``: ``data`` derives from ``n``), with
        the parameters each derives from."""
        bindings = _Bindings()
        function.body.visit(bindings)
        # A nested `def` binds its name to a closure over what its body reads from around it.
        reads = bindings.reads + [(d.name.value, self.names_read(d)) for d in bindings.defs]
        found: dict[str, set[str]] = {}
        changed = True
        while changed:
            changed = False
            for name, read in reads:
                sources = (read & params).union(*(found[r] for r in read if r in found and r != name))
                if sources - found.get(name, set()):
                    found.setdefault(name, set()).update(sources)
                    changed = True
        return found

    def calls_alike(self, sites: list[CallSite]) -> tuple[CallSite, CallSite] | None:
        """Two of ``sites`` that run in one run of the same code (both at module level, or both in one function's
        body, not in exclusive branches) and pass the same arguments: the same text, reading no name bound more than
        once there (at module level, :meth:`rebound_names`; in a function, a name it assigns twice, a loop target
        or a name it binds after the first call may hold another value). None when no two are alike."""
        seen: dict[tuple[int, str], CallSite] = {}
        for site in sites:
            if site.context.in_loop or any(isinstance(arg.value, (cst.Lambda, cst.Call)) for arg in site.node.args):
                continue  # a loop's calls are judged by the loop; a call or lambda written twice builds two objects
            text = " ".join(" ".join(self.module.code_for_node(arg).split()) for arg in site.node.args)
            key = (id(site.context.function), text)
            first = seen.get(key)
            if first is None:
                seen[key] = site
                continue
            if first.exclusive(site) or not self.bound_once_before(first):
                continue
            return first, site
        return None

    def bound_once_before(self, first: CallSite) -> bool:
        """Whether every name the arguments of ``first`` read holds one value from that call on, for every later call
        in the same code: at module level, not bound twice (:meth:`rebound_names`); in a function, not bound there at
        all (a parameter or a name from around it), or bound once and before ``first``."""
        reader = _Reader()
        for arg in first.node.args:
            arg.value.visit(reader)
        function = first.context.function
        if function is None:
            return not reader.names & self.rebound_names()
        if not isinstance(function, cst.FunctionDef):
            return False
        start = self.line_of(first.node)
        finder = _BindingStatements(reader.names)  # one walk of the body for every name read
        function.body.visit(finder)
        return not any(len(bound) > 1 or any(self.line_of(node) >= start for node in bound)
                       for bound in finder.found.values())

    def call_shape(self, site: CallSite) -> str:
        """A call's arguments up to the numbers in them: calls that differ only in numbers pass data. Names read
        in two functions (two tests) are two variables, whatever they are called: the function is part of it."""
        text = _NUMBER.sub("#", " ".join(" ".join(self.module.code_for_node(arg).split()) for arg in site.node.args))
        reader = _Reader()
        for arg in site.node.args:
            arg.value.visit(reader)
        local = site.context.function is not None and bool(reader.names - self.module_names())
        return f"{text}@{id(site.context.function)}" if local else text

    def rebound_names(self) -> set[str]:
        """The names bound more than once at module level (``num_envs = 16`` in one notebook cell, ``= 64`` in the
        next): two module-level calls spelling one of them alike may pass two values."""
        cached: set[str] | None = self.__dict__.get("_rebound_names")
        if cached is None:
            scope = self.scopes.get(self.module)
            cached = set()
            if scope is not None:
                counts: dict[str, int] = {}
                for assignment in scope.assignments:
                    counts[assignment.name] = counts.get(assignment.name, 0) + 1
                cached = {name for name, count in counts.items() if count > 1}
            self.__dict__["_rebound_names"] = cached
        return cached

    def module_names(self) -> set[str]:
        """The names bound at module level (assigned, defined or imported): the same object in every function."""
        cached = getattr(self, "_module_names", None)
        if cached is None:
            scope = self.scopes.get(self.module)
            cached = {a.name for a in scope.assignments} if scope is not None else set()
            self._module_names = cached
        return cached

    def tested_params(self, function: cst.FunctionDef, arms: Sequence[tuple[cst.BaseExpression, bool]]) -> set[str]:
        """The parameters of ``function`` that the tests of ``arms`` read as passed: not bound again above the test
        (``if host is None: host = ...`` above ``if host:``: what it reads is no longer what was passed)."""
        params = {p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                         *function.params.kwonly_params)}
        rebinding = _BindingStatements(params)
        function.body.visit(rebinding)
        tested: set[str] = set()
        for test, _ in arms:
            line = self.line_of(test)
            rebound = {name for name, nodes in rebinding.found.items() if any(self.line_of(n) < line for n in nodes)}
            tested |= self.names_read(test) & params - rebound
        return tested

    def reaches(self, site: CallSite, function: cst.FunctionDef, context: Context,
                arms: Sequence[tuple[cst.BaseExpression, bool]], tested: set[str]) -> bool:
        """False when the literal arguments the call ``site`` passes ``function`` for the parameters ``tested``
        (:meth:`tested_params`), or those parameters' literal defaults, make an ``if`` of ``arms`` take the other
        arm: that call never reaches the code inside."""
        defaults = {p.name.value: p.default for p in (*function.params.posonly_params, *function.params.params,
                                                      *function.params.kwonly_params)}
        values: dict[str, object] = {}
        for name in tested:
            text = self.argument_text(site, function, context, name)
            if text is None and any(arg.star for arg in site.node.args):
                continue  # `*args`/`**kwargs` may pass it
            default = defaults.get(name)
            if text is None and default is not None:
                text = self.module.code_for_node(default)
            known, value = literal(text)
            if known:
                values[name] = value
        return all(holds(test, values) in (None, in_body) for test, in_body in arms)

    def tests_around_uses(self, target: cst.FunctionDef, context: Context) -> set[str]:
        """The names the ``if`` tests around every eager use of the jitted ``target`` read, in the function that
        builds it (``elif solver == "LBFGS": ... loss(z)``, where the other arm calls it only inside a jit): which
        runs of that function compile it rests on them. Empty when a use stands outside every ``if``, or none is
        eager (a use only while an outer function is traced compiles nothing of its own)."""
        outer = context.function
        if not isinstance(outer, cst.FunctionDef) or context.in_loop:
            return set()
        uses = [site for site in self.uses_of(target) if self.within(site.context.function, outer)
                and not self.under_trace(site)]
        read: set[str] = set()
        for site in uses:
            node: cst.CSTNode = site.node
            current = site.context.function
            while current is not outer and isinstance(current, (cst.FunctionDef, cst.Lambda)):
                defined = self.c.defs.get(current)
                if defined is None:
                    return set()
                node, current = current, defined.function
            tests = branch_tests(outer, node)
            if not tests:
                return set()
            read |= {name for test in tests for name in self.names_read(test)}
        return read

    def observes_compiles(self, function: object, at: cst.CSTNode | None = None) -> bool:
        """True when ``function`` times its compiles or counts its traces on purpose (``assert_max_traces``,
        ``_cache_size``, an explicit ``.lower(...).compile()``, a harness timing each pass of the body
        (``@google_benchmark.register``), and a clock,
        ``time.time()``/``perf_counter``, in a function or module named for measuring): a test or a benchmark of
        compiling, where compiling again is the point.
        With ``at`` (the site judged, in ``function``), a clock counts only where it may time that site's compiles
        (:meth:`times_site`): an evaluation loop that reads the clock to give up after a timeout, or to time other
        work, before it rebuilds a wrapper, does not."""
        if not isinstance(function, cst.FunctionDef):
            return False
        cached: dict[int, _Observer] = self.__dict__.setdefault("_observing", {})
        if "_may_observe" not in self.__dict__:
            self.__dict__["_may_observe"] = _may_observe(self._source())
        if not self.__dict__["_may_observe"]:
            return False
        finder = cached.get(id(function))
        if finder is None:
            finder = cached[id(function)] = _Observer()
            function.visit(finder)
        if finder.found:
            return True
        clocks = finder.measuring()
        if not clocks:
            return False
        # A clock read around work times it for someone who wants the work done: a library's `fit` reporting its
        # `compile_time`, a training script logging each update's rollout time. Compiling again is the point only
        # where measuring is: a function or a module named for it (a test, a benchmark, a profile, a timing).
        if _MEASURING.search(function.name.value) is None and not _measuring_place(self.path):
            return False
        if at is None:
            return True
        timed: dict[tuple[int, int], bool] = self.__dict__.setdefault("_timed", {})  # asked again by `sameness`
        key = (id(function), id(at))
        if key not in timed:
            timed[key] = self.times_site(function, clocks, at)
        return timed[key]

    def times_site(self, function: cst.FunctionDef, clocks: Sequence[_Clock], at: cst.CSTNode) -> bool:
        """Whether the clock reads ``clocks`` of ``function`` (those that measure: :class:`_Clock`) may time the jit
        site ``at``: a read in a loop around the site times each of its passes; a read in another loop times what
        that loop runs, which may be the site's product (the ``def`` decorated there, the name its statement binds);
        reads outside loops time what lies between the first and the last. Unknown positions: True."""
        first, last = self.lines_of(function)
        line = self.line_of(at)
        if not line or not first <= line <= last:
            return True
        products = _ProductNames(at)
        function.visit(products)
        places = [line, *(self.line_of(use) for use in products.uses)]  # the site, and where its product is used
        straight: list[int] = []
        for clock in clocks:
            if clock.loop is None:
                straight.append(self.line_of(clock.node))
                continue
            start, end = self.lines_of(clock.loop)
            if any(start <= place <= end for place in places):
                return True  # each pass of a loop around the site, or around a use of its product, is timed
        return bool(straight) and any(min(straight) <= place <= max(straight) for place in places)

    def argument_text(self, site: CallSite, function: cst.FunctionDef, context: Context, name: str) -> str | None:
        """The source of the argument ``site`` passes for parameter ``name`` (None when not passed or unknown)."""
        params = self.def_params(function)
        shift = 1 if context.self_name is not None and isinstance(site.node.func, cst.Attribute) and params \
            and params[0] == context.self_name else 0
        index = params.index(name) - shift if name in params else -1
        for arg in site.node.args:
            if not arg.star and arg.keyword is not None and arg.keyword.value == name:
                return self.module.code_for_node(arg.value)  # named: no `*args` or `**kwargs` can pass it too
        position = 0
        for arg in site.node.args:
            if arg.star == "*":
                return None  # what it unpacks moves every position after it
            if arg.star or arg.keyword is not None:
                continue
            if position == index:
                return self.module.code_for_node(arg.value)
            position += 1
        return None

    def unhashable(self, expr: cst.CSTNode) -> Evidence:
        """A static value that cannot be hashed: jax hashes it on every call and raises (no repetition needed)."""
        line = self.line_of(expr)
        return Evidence((Reason("hashed", f"the value at line {line} is hashed into the cache key each time it is passed", line),))

    def node_key(self, site: object) -> Evidence:
        """A graph node's body or setting: part of the graph's cache key wherever the node is defined."""
        node = getattr(site, "node", None)
        line = self.line_of(node) if isinstance(node, cst.CSTNode) else 0
        return Evidence((Reason("node-key", f"the node defined at line {line} is compared into its graph's cache key", line),))


_NUMBER = re.compile(r"(?<![\w.])\d+(\.\d*)?([eE][-+]?\d+)?")


_OBSERVING = frozenset({
    "assert_max_traces", "clear_trace_counter", "_cache_size", "cache_size", "log_compiles", "explain_cache_misses",
    "timeit", "trace_count", "n_traces", "num_traces", "compile_count", "count_traces", "count_compiles",
})
"""Names that count traces or time compiles: code reading them observes compiling on purpose."""

_CALLABLE_BUILDERS = names.FUNCTOOLS_PARTIALS | names.TREE_PARTIALS | frozenset(names.TRANSFORMATIONS)
"""Calls that build a callable from a function: a partial, or a jax or equinox transformation."""

_CLOCKS = frozenset({"perf_counter", "perf_counter_ns", "process_time"})
"""Clocks: reading one observes compiling on purpose where measuring is the point (:data:`_MEASURING`), not where
work is timed for a log or for a caller."""

_MEASURING = re.compile(r"bench|profil|tim(e|ing)|measure|tune|test", re.IGNORECASE)
"""The name of a function that measures what it runs: its clock readings are its point."""

_MEASURING_PLACE = re.compile(r"bench|profil|perf|timing|speed|measure", re.IGNORECASE)
"""A path of a module that measures what it runs (``benchmarks/``, ``profile_step.py``, ``speed_test.py``)."""


def _measuring_place(path: str) -> bool:
    """Whether the module at ``path`` is named for measuring, by its file name or its two folders above (not by the
    folders a checkout happens to sit in)."""
    return any(_MEASURING_PLACE.search(part) for part in pathlib.PurePath(path).parts[-3:])


_OBSERVER_WORDS = ("time", "compile", "trace", "cache_size", "perf_counter", "explain_cache_misses", "bench")
"""A word of every name :class:`_Observer` reacts to (each of :data:`_OBSERVING` and :data:`_CLOCKS`, ``time.time``,
``timeit.default_timer``, ``.lower(...).compile()``, a callee spelling ``time`` between underscores,
``google_benchmark``), lower case."""


def _tested_names(function: cst.FunctionDef | cst.Lambda) -> set[str]:
    """The names read in the tests of the ``if``, ``while`` and conditional expressions of ``function``'s own body
    (not of the functions nested in it)."""
    tests = _Tests()
    function.body.visit(tests)
    return tests.names


class _Tests(cst.CSTVisitor):
    """The names the ``if``, ``while`` and conditional-expression tests of the code visited read, nested functions
    and lambdas apart (:func:`_tested_names`)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def _read(self, test: cst.BaseExpression) -> None:
        reader = _Reader()
        test.visit(reader)
        self.names |= reader.names

    def visit_If(self, node: cst.If) -> None:
        self._read(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._read(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._read(node.test)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _may_observe(source: str) -> bool:
    """False when ``source`` spells no word of :data:`_OBSERVER_WORDS` (in any case): then no function of it observes
    compiling, and none needs :class:`_Observer`'s walk (most modules: the walk was a tenth of a check's node visits)."""
    lowered = source.lower()
    return any(word in lowered for word in _OBSERVER_WORDS)


@dataclasses.dataclass(frozen=True)
class _Clock:
    """A read of the clock that measures: where (``node``), and the innermost loop around it (None: none)."""

    node: cst.CSTNode
    loop: cst.CSTNode | None


class _Observer(cst.CSTVisitor):
    """Finds a deliberate observation of tracing or compiling under a node (see ``observes_compiles``)."""

    def __init__(self) -> None:
        super().__init__()
        self.found = False
        self.reads: list[tuple[cst.CSTNode, cst.CSTNode | None, bool, tuple[str, ...]]] = []
        """Each clock read: its node, its innermost loop, whether it is in a comparison, the names it is bound to."""
        self.compared: dict[str, bool] = {}
        """For each name read: whether every read of it is in a comparison."""
        self.loop_stack: list[cst.CSTNode] = []
        self.comparisons = 0
        self.binding: tuple[cst.BaseExpression, tuple[str, ...]] | None = None
        self.targets = 0
        self.attribute_name: cst.Name | None = None

    def measuring(self) -> list[_Clock]:
        """The clock reads (``perf_counter``, ``time.time()``), in order, that measure time: not those that only check
        a deadline (``time.time() - start > timeout``: in a comparison, or bound to names read only in comparisons)."""
        return [_Clock(node, loop) for node, loop, compared, bound in self.reads
                if not (compared or bound and all(self.compared.get(name, False) for name in bound))]

    def visit_For(self, node: cst.For) -> None:
        self.loop_stack.append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.loop_stack.pop()

    def visit_While(self, node: cst.While) -> None:
        self.loop_stack.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self.loop_stack.pop()

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.comparisons += 1

    def leave_Comparison(self, original_node: cst.Comparison) -> None:
        self.comparisons -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        bound = tuple(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
        self.binding = (node.value, bound)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self.binding = None

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.targets += 1

    def leave_AssignTarget(self, original_node: cst.AssignTarget) -> None:
        self.targets -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if node is self.attribute_name:
            return  # the `perf_counter` of `time.perf_counter`, seen with its attribute
        if not self.targets:
            self.compared[node.value] = self.compared.get(node.value, True) and self.comparisons > 0
        self._saw(node.value, node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = node.attr.value
        if name in ("time", "default_timer") and isinstance(node.value, cst.Name) and node.value.value in ("time", "timeit"):
            self._saw("perf_counter", node)  # `time.time()`, `timeit.default_timer()`: a clock, not a benchmark of `timeit`'s
            return False
        self._saw(name, node)
        self.attribute_name = node.attr
        return True

    def _saw(self, name: str, node: cst.CSTNode) -> None:
        if name in _CLOCKS:
            value = self.binding[0] if self.binding is not None else None
            bound = self.binding[1] if self.binding is not None and isinstance(value, cst.Call) and value.func is node else ()
            self.reads.append((node, self.loop_stack[-1] if self.loop_stack else None, self.comparisons > 0, bound))
        elif name in _OBSERVING:
            self.found = True

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "compile" and isinstance(func.value, cst.Call) \
                and isinstance(func.value.func, cst.Attribute) and func.value.func.attr.value == "lower":
            self.found = True  # jax.jit(f).lower(x).compile(): an ahead-of-time compile, made on purpose
        spelled = get_full_name_for_node(func) or ""
        if "time" in spelled.rsplit(".", 1)[-1].lower().split("_") and spelled.rsplit(".", 1)[-1] != "time":
            self.found = True  # `_time_call(f, ...)`, `time_it(...)`: a helper that times what it is handed

    def visit_Decorator(self, node: cst.Decorator) -> None:
        expr = node.decorator
        spelled = get_full_name_for_node(expr.func if isinstance(expr, cst.Call) else expr) or ""
        if spelled.split(".", 1)[0] == "google_benchmark":
            self.found = True  # `@google_benchmark.register`: the harness times each pass of the body's `while state:`


class _ProductNames(cst.CSTVisitor):
    """The uses, under the node visited, of the names a jit site's product is bound to: the ``def`` decorated at the
    site, or the names its statement assigns (``fn = jax.jit(...)``)."""

    def __init__(self, site: cst.CSTNode) -> None:
        super().__init__()
        self.site = site
        self.names: set[str] = {site.name.value} if isinstance(site, cst.FunctionDef) else set()
        self.uses: list[cst.Name] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        finder = _Contains(self.site)
        node.value.visit(finder)
        if finder.found:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.names.add(target.target.value)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.uses.append(node)


class _CallsOf(cst.CSTVisitor):
    """The calls, under the node visited, whose callee is one of the name nodes ``uses`` (by ``id``)."""

    def __init__(self, uses: set[int]) -> None:
        super().__init__()
        self.uses = uses
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if id(node.func) in self.uses:
            self.calls.append(node)


class _Contains(cst.CSTVisitor):
    """Whether ``node`` is under the node visited."""

    def __init__(self, node: cst.CSTNode) -> None:
        super().__init__()
        self.node = node
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.node:
            self.found = True
        return not self.found


def _grow(found: set[str], reads: Sequence[tuple[str, set[str]]]) -> set[str]:
    """``found`` grown, in place, by every name of ``reads`` (each a name and the names its value reads) whose value
    reads a name already in it, directly or through others, until none is added; returned."""
    grown = True
    while grown:
        grown = False
        for name, read in reads:
            if name not in found and read & found:
                found.add(name)
                grown = True
    return found


def _reads_configured(fun: cst.CSTNode, attributes: set[str], self_name: str | None) -> bool:
    """True when ``fun`` (the function that builds the jit: what it reads reaches the jit through closures) may
    read one of ``attributes`` (a caller's loop sets them): it reads ``x.attr`` for one, or calls a method of its
    receiver (``self.m(...)``), which may. A function that reads none builds the same program each call."""
    found = False

    class _Reads(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            nonlocal found
            found = found or node.attr.value in attributes

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            func = node.func
            found = found or (self_name is not None and isinstance(func, cst.Attribute)
                              and isinstance(func.value, cst.Name) and func.value.value == self_name)

    fun.visit(_Reads())
    return found


def _attributes_set(loop: cst.CSTNode | None) -> set[str]:
    """The attributes a loop's body assigns (``args.lr = ...``), spelled out: configuration set per iteration."""
    body = getattr(loop, "body", None)
    if not isinstance(body, cst.CSTNode):
        return set()
    found: set[str] = set()

    class _Setters(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, cst.Attribute):
                found.add(get_full_name_for_node(node.target) or node.target.attr.value)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    body.visit(_Setters())
    return found


def _sources(names: set[str], params: set[str], derived: dict[str, set[str]]) -> list[str]:
    """The parameters ``names`` are, or derive from."""
    return sorted({p for name in names for p in ({name} if name in params else derived.get(name, set()))})


class _Parts(cst.CSTVisitor):
    """The calls and the names under a node (not an attribute's name, nor inside a lambda), in order, in one walk."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.names: list[cst.Name] = []

    def visit_Call(self, call: cst.Call) -> None:
        self.calls.append(call)

    def visit_Name(self, name: cst.Name) -> None:
        self.names.append(name)

    def visit_Attribute(self, attribute: cst.Attribute) -> bool:
        attribute.value.visit(self)
        return False

    def visit_Lambda(self, lam: cst.Lambda) -> bool:
        return False


def _parts(node: cst.CSTNode) -> _Parts:
    visitor = _Parts()
    node.visit(visitor)
    return visitor


def _float(node: cst.BaseExpression) -> bool:
    inner = node.expression if isinstance(node, cst.UnaryOperation) else node
    return isinstance(inner, cst.Float)


def _number(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    return isinstance(node, cst.UnaryOperation) and isinstance(node.expression, (cst.Integer, cst.Float))


def _words(text: str) -> set[str]:
    """The words of an argument's source (names and attribute names): what it may read."""
    return set(re.findall(r"[A-Za-z_]\w*", text))


def _names(used: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in used)


class _Reader(cst.CSTVisitor):
    """The names read under a node (attribute names excluded). With ``through``, a name it gives a value for is read
    as the names that value reads (see :meth:`Sameness.built_callable`), a few bindings deep."""

    def __init__(self, through: Callable[[cst.Name], cst.BaseExpression | None] | None = None, depth: int = 0) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.through = through
        self.depth = depth

    def visit_Name(self, node: cst.Name) -> None:
        value = self.through(node) if self.through is not None and self.depth < 4 else None
        if value is None:
            self.names.add(node.value)
            return
        inner = _Reader(self.through, self.depth + 1)
        value.visit(inner)
        self.names |= inner.names

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        # A lambda's parameters are its own, not names it reads from around it (its defaults are).
        params = node.params
        inner = _Reader(self.through, self.depth)
        node.body.visit(inner)
        self.names |= inner.names - param_names(node)
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                param.default.visit(self)
        return False


_BUILDER_VERBS = ("create_", "build_", "make_", "new_")
"""How the names of functions that build an object start (``create_env``, ``build_preconditioner``)."""

_ARRAY_ROOTS = frozenset({"jax", "jnp", "numpy", "np", "math", "builtins"})
"""The roots of qualified names whose functions take an integer as a value (an index, a scale, a count of data)."""


_BUILTIN_VALUES = frozenset({"float", "int", "abs", "round", "min", "max", "sum", "len", "complex", "bool", "tuple",
                             "list", "dict", "str", "divmod", "pow"})
"""Builtins spelled without their module that make values of values (``float(t)``): not a step of a project's own."""

_VALUE_METHODS = frozenset({"item", "astype", "reshape", "squeeze", "copy"})
"""Methods of an array that give back its value in another form: not a step of a project's own."""


class _Values(cst.CSTVisitor):
    """The values bound to each name under a loop's body (``=``, tuple targets, ``:=``, augmented, annotated, a
    nested ``for`` target from its iterable, an object changed by a method call as a statement from that call);
    nested functions and lambdas are not entered."""

    def __init__(self) -> None:
        super().__init__()
        self.bound: dict[str, list[cst.CSTNode]] = {}

    def _bind(self, target: cst.CSTNode, value: cst.CSTNode | None) -> None:
        if value is None:
            return
        names = _Reader()
        target.visit(names)
        if isinstance(target, (cst.Name, cst.Tuple, cst.List)):
            for name in names.names:
                self.bound.setdefault(name, []).append(value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, node.iter)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):
            self.bound.setdefault(call.func.value.value, []).append(cst.Tuple([cst.Element(a.value) for a in call.args]))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _CallsHanding(cst.CSTVisitor):
    """The calls that take the name ``name`` itself as an argument."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if any(isinstance(arg.value, cst.Name) and arg.value.value == self.name for arg in node.args):
            self.calls.append(node)


class _SelfRebound(cst.CSTVisitor):
    """The names among ``wanted`` bound by a plain assignment from a call that reads the name itself
    (``f = jax.jacfwd(f)``); nested functions are not entered."""

    def __init__(self, wanted: set[str]) -> None:
        super().__init__()
        self.wanted = wanted
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name) or not isinstance(node.value, cst.Call):
            return
        name = node.targets[0].target.value
        if name in self.wanted:
            reader = _Reader()
            node.value.visit(reader)
            if name in reader.names:
                self.names.add(name)


class _CalledNames(cst.CSTVisitor):
    """The plain names an expression calls (``f(x)``) or hands to a call (``jax.vmap(f)``)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.names.add(node.func.value)
        for arg in node.args:
            if isinstance(arg.value, cst.Name):
                self.names.add(arg.value.value)


class _Bindings(cst.CSTVisitor):
    """Each name a function's body binds (``=``, tuple targets included, ``:=``, augmented, annotated, a ``for``
    target), with the names its value reads; nested functions are not entered. A local object changed by a method
    call made for its effect (``builder.add(...)`` as a statement) is bound anew too, from what the call reads and
    what the loops and branches around it test: ``for _ in range(n): builder.add()`` makes ``builder`` depend on ``n``."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[tuple[str, set[str]]] = []
        self.defs: list[cst.FunctionDef] = []
        self._control: list[set[str]] = []

    def _tested(self, node: cst.CSTNode) -> None:
        reader = _Reader()
        node.visit(reader)
        self._control.append(reader.names)

    def visit_If(self, node: cst.If) -> None:
        self._tested(node.test)

    def leave_If(self, original_node: cst.If) -> None:
        self._control.pop()

    def visit_While(self, node: cst.While) -> None:
        self._tested(node.test)

    def leave_While(self, original_node: cst.While) -> None:
        self._control.pop()

    def leave_For(self, original_node: cst.For) -> None:
        self._control.pop()

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        receiver = call.func.value
        while isinstance(receiver, cst.Attribute):
            receiver = receiver.value  # `builder.shapes.append(x)` changes `builder`
        if not isinstance(receiver, cst.Name):
            return
        reader = _Reader()
        for arg in call.args:
            arg.value.visit(reader)
        read = reader.names.union(*self._control)
        if read:
            self.reads.append((receiver.value, read))

    def _bind(self, targets: list[cst.CSTNode], value: cst.CSTNode | None) -> None:
        if value is None:
            return
        reader = _Reader()
        value.visit(reader)
        for target in targets:
            if isinstance(target, cst.Subscript):
                # `hparams[key] = int(part)`: the local object changed by an item assignment is bound anew from the
                # value, the key, and what the loops and branches around it test, as a method call on it is.
                base: cst.BaseExpression = target
                while isinstance(base, (cst.Subscript, cst.Attribute)):
                    base = base.value
                if isinstance(base, cst.Name):
                    keys = _Reader()  # the key's names, for this target only (not for the other targets' reads)
                    target.visit(keys)
                    self.reads.append((base.value, (reader.names | keys.names).union(*self._control) - {base.value}))
                continue
            bound = _Reader()
            target.visit(bound)
            self.reads += [(name, reader.names) for name in bound.names if isinstance(target, (cst.Name, cst.Tuple, cst.List))]

    def visit_Assign(self, node: cst.Assign) -> None:
        self._bind([t.target for t in node.targets], node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind([node.target], node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind([node.target], node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind([node.target], node.value)

    def visit_For(self, node: cst.For) -> None:
        self._bind([node.target], node.iter)
        self._tested(node.iter)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.defs.append(node)
        return False


class _BindingStatements(cst.CSTVisitor):
    """The statements under a node that bind each of ``names`` (nested functions apart), by name: assignments,
    ``for`` loops, ``with`` items, and a method call made for its effect on it (``name.append(x)``), which changes
    its value."""

    def __init__(self, names: set[str]) -> None:
        super().__init__()
        self.names = names
        self.found: dict[str, list[cst.CSTNode]] = {}

    def _binds(self, node: cst.CSTNode, target: cst.CSTNode) -> None:
        reader = _Reader()
        target.visit(reader)
        for name in reader.names & self.names:
            self.found.setdefault(name, []).append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._binds(node, target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._binds(node, node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._binds(node, node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._binds(node, node.target)

    def visit_For(self, node: cst.For) -> None:
        self._binds(node, node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._binds(node, node.asname.name)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
            self._binds(node, call.func.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


class _Assigned(cst.CSTVisitor):
    """The names assigned (``=``, ``:=``, augmented, loop targets) under a node, not in nested functions."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        reader = _Reader()
        node.target.visit(reader)
        self.names |= reader.names

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_For(self, node: cst.For) -> None:
        reader = _Reader()
        node.target.visit(reader)
        self.names |= reader.names

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


__all__ = ["Sameness"]
