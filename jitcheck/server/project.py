"""The static pass's warm state in the server: configurations, the project index, and the judge.

One :class:`Project` lives as long as the server. It judges a file's current text
with the command line's own check (:func:`jitcheck.lint.check.check_text`) under the
file's ``[tool.jitcheck]`` and the project index of the static pass (what the project's
other files define, with the unsaved text of open files), part by part (:mod:`jitcheck.server.slices`: a change
re-judges only the statements it can affect), keeps the project index up to date, and
says which open files to judge again after a change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from jitcheck.lint.cache import digest
from jitcheck.lint.config import ConfigError
from jitcheck.lint.findings import Finding
from jitcheck.server.configs import Configs, FileConfig
from jitcheck.server.helpers import Helpers
from jitcheck.server.index import ProjectIndex
from jitcheck.server.slices import SlicedChecker
from jitcheck.server.statements import edited
from jitcheck.server.stored import PartStore
from jitcheck.server.summaries import Summaries


@dataclasses.dataclass(frozen=True)
class Judgement:
    """A file's findings (selected codes only), the settings they were made under, or the config error."""

    findings: tuple[Finding, ...]
    file: FileConfig | None
    error: ConfigError | None = None
    judged_parts: int = 0
    """How many of its parts were judged anew (the others' findings were kept)."""
    stored_summary: bool = False
    """Whether the file's summary was read from the cache folder (it is summarized statement by statement later)."""


class Project:
    """Configurations and the project index, kept warm between requests."""

    def __init__(self, helpers: Helpers | None = None) -> None:
        self.configs = Configs()
        self.summaries = Summaries()
        self.index: ProjectIndex = self.summaries
        self.checker = SlicedChecker(helpers=helpers if helpers is not None else Helpers())
        self.stored = PartStore()
        """Parts judged in earlier sessions, by configuration (touched by the analysis thread only)."""
        self._last: dict[Path, str] = {}
        """Each file's text last judged: the next text is read as an edit of it."""
        self._unwarmed: list[tuple[Path, str]] = []
        """Files whose stored summary was used: summarized statement by statement later (:meth:`persist`)."""
        self._completed: set[Path] = set()
        """The files judged to the end in this session (one given up for a newer text reads the store again)."""

    def judge(self, path: Path, text: str, stale: Callable[[], bool] | None = None) -> Judgement:
        """What ``jitcheck`` says about ``text`` as the content of ``path``; :class:`~jitcheck.server.slices.Superseded`
        when ``stale()`` says a newer text came before it was done.

        An empty buffer has no findings (the command line's "the file is empty" is
        for files on disk, not for a file being started in the editor).
        """
        file = self.configs.for_file(path)
        if isinstance(file, ConfigError):
            return Judgement((), None, file)
        if file.excluded or not text.strip():
            return Judgement((), file)
        text = text[1:] if text.startswith("\ufeff") else text
        helpers = self.checker.helpers
        store = self.stored.for_config(file.config)
        if (helpers is not None and path not in self._last and text.count("\n") > 2 * self.checker.batch_lines
                and (store is None or not store.entries)):  # (with parts stored, they start if parts are missing)
            helpers.start()  # a long file's first judgement: they load while its statements and summary are read
        self.summaries.load_project(file.config, opened=path)
        # Once per change, for the summary and the parts alike: only the statements the edit touched are parsed.
        edited(self._last.get(path), text)
        first = path not in self._completed
        self._last[path] = text
        # A file's first judgement in a session reads and adds to the stored parts (an edit's parts are not stored:
        # the store stays the size of the files opened). Its summary for the project index is a function of its
        # text: stored with them.
        summary_key = f"summary:{digest(text.encode('utf-8', 'surrogatepass'), package_init=False)}"
        stored = store.entries.get(summary_key) if store is not None and first else None
        known = stored[0][0] if stored and stored[0] and isinstance(stored[0][0], dict) else None
        summary = self.summaries.update(path, text, known=known)
        if known is not None:
            self._unwarmed.append((path, text))
        elif first and summary is not None and store is not None:
            store.put_rows(summary_key, [[summary]])
        before = self.checker.judged_parts
        findings = self.checker.check(text, str(path), file.settings, index=self.summaries.joined(),
                                      module_name=self.summaries.module(path), depends=self.summaries.key(path),
                                      stale=stale, store=store if first else None)
        self._completed.add(path)
        return Judgement(tuple(f for f in findings if f.code in file.select), file,
                         judged_parts=self.checker.judged_parts - before, stored_summary=known is not None)

    def changed(self, path: Path, text: str) -> frozenset[Path]:
        """Record ``path``'s new text in the index; the other files to judge again."""
        self.index.update(path, text)
        return self.index.dependents(path)

    def closed(self, path: Path) -> frozenset[Path]:
        """``path`` closed in the editor (its saved text counts again); the open files to judge again."""
        before = self.index.dependents(path)
        self.index.remove(path)
        return before | self.index.dependents(path)

    def on_disk(self, path: Path) -> frozenset[Path]:
        """``path`` created, changed or deleted on disk; the open files to judge again (none while it is open)."""
        before = self.index.dependents(path)
        if not self.index.on_disk(path):
            return frozenset()
        return before | self.index.dependents(path)

    def persist(self) -> None:
        """After a publication: write the parts judged since the last call to the cache folder, for the next
        session, and summarize statement by statement the files whose stored summary was used."""
        self.checker.store_judged()
        self.stored.save()
        while self._unwarmed:
            self.summaries.warm(*self._unwarmed.pop())

    def end(self) -> None:
        """End the helper processes (the server is ending)."""
        if self.checker.helpers is not None:
            self.checker.helpers.stop(terminate=True)

    def reload_configuration(self) -> None:
        """Forget every configuration (a pyproject.toml changed); the next judgement loads it again."""
        self.configs.forget()


__all__ = ["Judgement", "Project"]
