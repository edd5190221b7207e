"""Fixtures of the mypy plugin's tests: one mypy cache per set of options (per session and worker)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

MypyCacheFor = Callable[[str], Path]


@pytest.fixture(scope="session")
def mypy_cache_for(tmp_path_factory: pytest.TempPathFactory) -> MypyCacheFor:
    """``mypy_cache_for(options)``: the cache directory of the runs made with ``options``.

    ``options`` is the text that decides the run (a config file's content, the flags):
    runs with the same options share a cache, so typeshed, numpy and jax are analysed
    once per option set; runs with other options never read a cache another set wrote.
    """
    root = tmp_path_factory.mktemp("mypy-caches")

    def cache_for(options: str) -> Path:
        folder = root / hashlib.sha256(options.encode()).hexdigest()[:16]
        folder.mkdir(exist_ok=True)
        return folder

    return cache_for


# The options of the runs checked with the repository's own configuration.
REPOSITORY_OPTIONS = "--strict --config-file pyproject.toml"


@pytest.fixture(scope="session")
def mypy_cache(mypy_cache_for: MypyCacheFor) -> Path:
    """The cache of the runs made with the repository's own options (``REPOSITORY_OPTIONS``)."""
    return mypy_cache_for(REPOSITORY_OPTIONS)
