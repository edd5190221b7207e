"""Parts' findings kept on disk between server sessions: a file opened again is not judged again.

The parts of a module (:mod:`jitcheck.server.slices`) are keyed by the exact text of their
statements and imports and by what their findings depend on (the wrappers and constructors
configured, the module's name, the digest of the project index's summaries it imports). The
same key gives the same findings, so they are kept in the command line's cache folder
(``cache-dir``, default ``.jitcheck_cache``), in a file of their own named for the server and
the configuration's fingerprint (jitcheck's version, a digest of the analysis's source, the
libcst and Python versions, the configuration): a new version or another configuration reads
another file. Writing merges with what other sessions wrote (the command line's
:class:`jitcheck.lint.cache.Cache`, atomic and locked).
"""

from __future__ import annotations

from pathlib import Path

from jitcheck.lint.cache import Cache
from jitcheck.lint.config import Config


class PartStore:
    """Each configuration's stored parts (a :class:`Cache` of JSON rows), loaded when first asked for."""

    def __init__(self) -> None:
        self._caches: dict[tuple[Path | None, str], Cache] = {}

    def for_config(self, config: Config) -> Cache | None:
        """The stored parts under ``config`` (None: no cache folder)."""
        if config.cache_dir is None:
            return None
        name = f"server-{config.fingerprint()}"
        key = (config.cache_dir, name)
        found = self._caches.get(key)
        if found is None:
            found = self._caches[key] = Cache(config.cache_dir, name)
        return found

    def save(self) -> None:
        """Write what was added since the last save."""
        for cache in self._caches.values():
            cache.save()


__all__ = ["PartStore"]
