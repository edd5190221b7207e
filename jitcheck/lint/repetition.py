"""Why code runs again, in words and lines: the ``runs_again`` evidence of a finding, and its message's "where".

:class:`~jitcheck.lint.frequency.Frequency` decides whether the code that builds a
wrapper runs more than once; :class:`Repetition` says what shows it — the loop it is
in, the call sites of its function (in a loop, two or more, or one whose caller runs
again), subclasses' ``self.m()`` calls — or that it is only assumed: a public function
of a library taken to be called often, or a function nothing in the file calls. An
assumption makes the finding's confidence low (``--preview``). The message's "where"
words are made from this evidence only, so a message never claims a loop it has not seen.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from jitcheck.lint import names
from jitcheck.lint.callers import place, public_caller
from jitcheck.lint.collect import CallSite, Context
from jitcheck.lint.evidence import Evidence, Reason
from jitcheck.lint.frequency import Frequency, reads_inputs

_LOOP_WORDS = {cst.For: "`for` loop", cst.While: "`while` loop", cst.ListComp: "list comprehension",
               cst.SetComp: "set comprehension", cst.DictComp: "dict comprehension", cst.GeneratorExp: "generator expression"}


class Repetition(Frequency):
    """Explains why code judged to run more than once does (see :meth:`again`)."""

    def again(self, context: Context, depth: int = 0) -> Evidence:
        """The evidence that the code of ``context`` runs more than once (a loop, call sites, a caller that
        runs again), or the guess it rests on (a public function, a function nothing here calls)."""
        if context.in_loop:
            loop = context.loop
            line = self.line_of(loop) if loop is not None else 0
            words = _LOOP_WORDS.get(type(loop), "loop") if loop is not None else "loop"
            return Evidence((Reason("loop", f"it runs on every iteration of the {words} at line {line}", line),))
        function = context.function
        if isinstance(function, cst.Lambda):
            return Evidence((Reason("lambda", "it runs on every call of the lambda around it"),)).guessed(
                "that the lambda around it is called more than once")
        if not isinstance(function, cst.FunctionDef):
            return Evidence().guessed("that this code runs more than once")
        name = function.name.value
        drivers = self.amortising_drivers(function, context)
        if any(reads_inputs(site) for site in drivers):
            # Each driver builds the product once for its run, from its own inputs (a sampler's `pso` and `mcmc`
            # each prepare `self.chain.logL`): a run again compiles the same computation only if those are the same.
            return Evidence(tuple(
                Reason("driver", f"`{name}` is called at line {self.line_of(site.node)}, by "
                                 f"`{site.context.function_name}`, which builds its product once per run",
                       self.line_of(site.node)) for site in drivers)).guessed(
                "that a driver runs again with the same inputs: each builds the product from its own arguments, "
                "which may differ from run to run")
        rerun = [site for site in drivers if self.driver_again(site.context)]
        if rerun and depth < 6:
            # A driver that builds the product from constants and is shown to run again builds it again.
            site = rerun[0]
            line = self.line_of(site.node)
            outer = self.again(site.context, depth + 1)
            reason = Reason("called-from", f"`{name}` is called at line {line}, from `{site.context.function_name}`", line)
            return dataclasses.replace(outer, again=(reason, *outer.again))
        amortised = self.amortised_sites(function, context)
        # A driver that builds the product once for its own loop does not build it again: only the other sites count.
        sites = [site for site in self.callers(function, context) if site not in amortised]
        looping = [site for site in sites if site.context.in_loop]
        if looping:
            line = self.line_of(looping[0].node)
            if self.thread_run(looping[0].node):
                return Evidence((Reason("thread-in-loop", f"`{name}` is the target of a thread started in a loop at "
                                                          f"line {line}: each thread runs it", line),))
            return Evidence((Reason("called-in-loop", f"`{name}` is called in a loop at line {line}", line),))
        handler = self.registered(function, context)
        if handler is not None:
            line = self.line_of(handler)
            callee = cst.helpers.get_full_name_for_node(handler.func) or "a registration"
            return Evidence((Reason("handler", f"`{name}` is registered as an event handler at line {line} "
                                    f"(`{callee}`): it runs on every event", line),))
        elsewhere = self.elsewhere(function, context)
        if elsewhere is not None and elsewhere.sites[0].loop_kind is not None:
            return Evidence((Reason("called-elsewhere", elsewhere.words),))
        if self.called_in_other_loops(function):
            modules = self.index.loop_callers(f"{self.module_name}.{name}")
            where = ", ".join(f"`{m}`" for m in modules[:3]) or "another module"
            return Evidence((Reason("called-in-loop", f"`{name}` is called in a loop in {where}"),))
        subclass = self.subclass_calls(function, context)
        sites = self.runs_apart(sites)
        if len(sites) + subclass >= 2:
            reasons = [Reason("call-site", f"`{name}` is called at line {self.line_of(site.node)}", self.line_of(site.node))
                       for site in sites]
            if subclass:
                reasons.append(Reason("subclass-calls", f"subclasses in other files call `self.{name}(...)` {subclass} time(s)"))
            unseen = self.callers_not_seen_to_run(sites) if not self.called_from_other_modules(function, context) else []
            if unseen:
                # Two callers of a library that nothing runs (`to_grid`, `random_grid`) may be alternatives a user
                # picks among: that both run is a guess, which one caller's two calls, or callers that run, are not.
                return Evidence(tuple(reasons)).guessed(
                    f"that the calls in {', '.join(f'`{n}`' for n in unseen)} run as well as the others: nothing in "
                    f"the run calls {'it' if len(unseen) == 1 else 'them'}")
            return Evidence(tuple(reasons))
        if elsewhere is not None:
            return Evidence((Reason("called-elsewhere", elsewhere.words),))
        users = [site for site in self.product_elsewhere(function, context) if public_caller(self.index, site)] \
            if not sites and self.judged_as_factory(function) else []
        if users:
            # Another module's public function builds the product and uses it where it makes it: every call of that
            # function builds it again, and users call public API again and again (the guess).
            user = users[0]
            return Evidence((Reason("product-used", f"`{name}` is called at {place(self.index, user)}, by `{user.caller}`, "
                                    "which uses its product where it makes it"),)).guessed(
                f"that `{user.caller}` is called more than once: nothing in the run calls it in a loop or twice")
        chained: Evidence | None = None
        if len(sites) == 1 and depth < 6:
            site = sites[0]
            line = self.line_of(site.node)
            caller = site.context.function
            caller_name = caller.name.value if isinstance(caller, cst.FunctionDef) else "module level"
            outer = self.again(site.context, depth + 1)
            reason = Reason("called-from", f"`{name}` is called at line {line}, from `{caller_name}`", line)
            chained = dataclasses.replace(outer, again=(reason, *outer.again))
            if chained.confidence == "high":
                return chained  # its one caller is shown to run again: no need to guess from its being public
        defined = self.c.defs.get(function)
        if defined is not None and self.is_api(function, defined if defined.method_of is None else context):
            if names.step_like(name) and not sites and not subclass and not self.base_calls(context, name):
                # The convention the standard names: a training or environment loop calls its step once per step.
                return Evidence((Reason("step", f"`{name}` is a public step: a training or environment loop calls "
                                                "it once per step"),))
            if chained is not None:
                # Its one caller here is public too: the guess is that caller's, and the message names that call
                # rather than saying that no caller is in this file.
                return chained
            return Evidence((Reason("public-api", f"`{name}` is public API of a library module"),)).guessed(
                f"that `{name}` is called more than once: its callers are not in this file")
        if chained is not None:
            return chained
        if not sites:
            return Evidence().guessed(f"that `{name}` runs at all: nothing in this file calls it")
        return Evidence().guessed(f"that `{name}` runs more than once")

    def callers_not_seen_to_run(self, sites: list[CallSite]) -> list[str]:
        """The names of the module-level functions holding ``sites`` that nothing shows running, when the sites are
        in two functions or more (one function's two calls run together whenever it runs): a function nothing calls
        here or elsewhere in the run, that no test runner or ``__main__`` runs. Empty when every caller is seen to run."""
        callers = {id(site.context.function): site for site in sites}
        if len(callers) < 2:
            return []
        unseen: list[str] = []
        for site in callers.values():
            caller = site.context.function
            if not isinstance(caller, cst.FunctionDef) or site.context.method_of is not None:
                # Module level (runs), a lambda (judged where it is made), or a method: an object's methods run on
                # it in turn (`run` then `warmup`, a reset per key press), not as alternatives.
                continue
            name = caller.name.value
            if name in names.ONCE_FUNCTIONS or name.startswith("test"):
                continue
            if self.callers(caller, site.context) or self.subclass_calls(caller, site.context) or \
                    self.called_in_run(caller, site.context) or self.registered(caller, site.context) is not None:
                continue
            unseen.append(name)
        return unseen

    def called_from_other_modules(self, function: cst.FunctionDef, context: Context) -> bool:
        """True when another module of the run calls the module-level function or method ``function`` (a test
        calling a library function): it runs from there too, whatever its callers here are."""
        qualified = self.qualified(function, context)
        return qualified is not None and any(site.module != self.module_name
                                             for site in self.index.call_sites().get(qualified, ()))

    def called_in_run(self, function: cst.FunctionDef, context: Context) -> bool:
        """True when a module of the run (this one included) calls the module-level function or method ``function``."""
        qualified = self.qualified(function, context)
        return qualified is None or bool(self.index.call_sites().get(qualified))  # a nested function: judged where made

    def where(self, evidence: Evidence, context: Context) -> str:
        """How often, in the words the evidence supports: "on every iteration of the `for` loop", "on every call
        of `f`, called in a loop", "on every call of `f`, public API whose callers are not in this file".

        The lines are the evidence's (``runs_again``), not the message's: a message stays the same when code
        above it moves, as the editor's part-by-part judging needs.
        """
        first = evidence.again[0] if evidence.again else None
        if first is not None and first.kind == "loop":
            loop = context.loop
            return f"on every iteration of the {_LOOP_WORDS.get(type(loop), 'loop') if loop is not None else 'loop'}"
        function = context.function
        name = context.function_name if isinstance(function, cst.FunctionDef) else None
        if name is None:
            return "on every call of the lambda around it" if isinstance(function, cst.Lambda) else "more than once"
        phrase = {
            "call-site": "called at {n} sites that can both run",
            "subclass-calls": "called by subclasses in other files",
            "called-in-loop": "called in a loop",
            "thread-in-loop": "run by threads started in a loop",
            "called-elsewhere": "called again and again by the project's code",
            "called-from": "called by code that runs again",
            "handler": "an event handler, run on every event",
            "public-api": "public API whose callers are not in this file",
            "step": "a public step, run once per step of a training or environment loop",
            "driver": "called by drivers that each build it once per run, assumed to run again",
            "product-used": "called by public code elsewhere that uses its product where it makes it, assumed to run again",
        }.get(first.kind if first is not None else "", "assumed to run again")
        if first is not None and first.kind == "called-from" and evidence.confidence == "low":
            phrase = "called by code assumed to run again"
        if first is not None and first.kind == "call-site" and evidence.confidence == "low":
            phrase = "called at {n} sites in functions assumed to run"
        sites = sum(1 for r in evidence.again if r.kind == "call-site")
        if first is not None and first.kind == "call-site" and sites < 2:
            phrase = "called here and by subclasses in other files"
        return f"on every call of `{name}`, {phrase.format(n=sites)}"


__all__ = ["Repetition"]
