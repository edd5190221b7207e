"""Installed modules' summaries are made once per process (jitcheck.lint.index's _INSTALLED), shared by every
index the process builds (each notebook's, the language server's), and made again when the file changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jitcheck.lint.index import ProjectIndex, with_module


def _touch_later(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with a modification time surely after the one it had."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def _installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> Path:
    installed = tmp_path / "site" / name / "__init__.py"
    installed.parent.mkdir(parents=True)
    installed.write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return installed


def test_two_indexes_share_an_installed_module_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _installed(tmp_path, monkeypatch, "sharedpkg_one", "def make():\n    return 1\n")
    first = ProjectIndex({})
    summary = first.module("sharedpkg_one")
    assert summary is not None and "make" in summary["functions"] and summary["package"] is True
    joined = with_module(first, "notebook", "import sharedpkg_one\n")
    assert joined is not first
    assert joined.module("sharedpkg_one") is summary  # the same summary object: the file was not read again
    assert ProjectIndex({}).module("sharedpkg_one") is summary


def test_a_changed_installed_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed = _installed(tmp_path, monkeypatch, "sharedpkg_two", "def make():\n    return 1\n")
    before = ProjectIndex({}).module("sharedpkg_two")
    assert before is not None and set(before["functions"]) == {"make"}
    _touch_later(installed, "def make():\n    return 1\n\n\ndef build():\n    return 2\n")
    after = ProjectIndex({}).module("sharedpkg_two")
    assert after is not None and set(after["functions"]) == {"make", "build"}
    assert ProjectIndex({}).module("sharedpkg_two") is after


def test_an_installed_file_replaced_by_one_of_the_same_size_is_read_again(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    installed = _installed(tmp_path, monkeypatch, "sharedpkg_three", "def aaaa():\n    return 1\n")
    assert set(ProjectIndex({}).module("sharedpkg_three")["functions"]) == {"aaaa"}  # type: ignore[index]
    _touch_later(installed, "def bbbb():\n    return 1\n")
    assert set(ProjectIndex({}).module("sharedpkg_three")["functions"]) == {"bbbb"}  # type: ignore[index]


def test_a_removed_installed_file_is_no_longer_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed = _installed(tmp_path, monkeypatch, "sharedpkg_four", "def make():\n    return 1\n")
    assert ProjectIndex({}).module("sharedpkg_four") is not None
    installed.unlink()
    installed.parent.rmdir()
    assert ProjectIndex({}).module("sharedpkg_four") is None
