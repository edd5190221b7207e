"""Fixtures of the mypy plugin's tests: one mypy cache per test session (and worker)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache directory shared by this session's mypy runs.

    Every run uses the same plugin entry and options, so typeshed, numpy and jax are
    analysed once per session; a run with other plugin options re-checks only the
    modules those options can change (see ``JitcheckPlugin.report_config_data``).
    """
    return tmp_path_factory.mktemp("mypy-cache")
