"""The project index's dependency keys kept between runs (jitcheck.lint.depcache): used again only while
the modules' contents, the installed files read and the folders on sys.path are as they were."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from jitcheck.lint import config as config_module
from jitcheck.lint import depcache
from jitcheck.lint.index import build_index
from jitcheck.lint.runner import Options, run


def _touch_later(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with a modification time surely after the one it had."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def test_kept_keys_are_used_while_everything_they_came_from_is_unchanged(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    installed = tmp_path / "site" / "fakepkg" / "__init__.py"
    installed.parent.mkdir(parents=True)
    installed.write_text("def make():\n    return lambda x: x\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    file = tmp_path / "cache" / "deps.json"
    digest = depcache.contents_digest({"app": "aaa", "app.util": "bbb"}, installed=True)
    keys = {"app": "k1", "app.util": "k2"}
    depcache.save(file, digest, keys, {str(installed): depcache.stamp(str(installed))})

    assert depcache.load(file, digest) == keys
    assert depcache.load(file, depcache.contents_digest({"app": "aaa", "app.util": "ccc"}, installed=True)) is None
    assert depcache.load(file, depcache.contents_digest({"app": "aaa", "app.util": "bbb"}, installed=False)) is None
    _touch_later(installed, "def f(x):\n    return x\n\ndef make():\n    return f\n")
    assert depcache.load(file, digest) is None  # an installed file it read changed

    depcache.save(file, digest, keys, {str(installed): depcache.stamp(str(installed))})
    assert depcache.load(file, digest) == keys
    site = tmp_path / "site"
    os.utime(site, ns=(site.stat().st_mtime_ns + 10**9,) * 2)  # a package installed or removed there
    assert depcache.load(file, digest) is None


def test_a_missing_or_damaged_cache_file_is_a_miss(tmp_path: Path) -> None:
    file = tmp_path / "deps.json"
    digest = depcache.contents_digest({"m": "1"}, installed=False)
    assert depcache.load(file, digest) is None
    file.write_text('{"digest": ')
    assert depcache.load(file, digest) is None
    file.write_text('{"entries": [1, {"digest": 3}]}')
    assert depcache.load(file, digest) is None


def test_the_index_records_the_installed_files_it_reads_and_reuses_its_keys(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    (site / "fakepkg").mkdir(parents=True)
    installed = site / "fakepkg" / "models.py"
    installed.write_text("class Model:\n    def step(self, x):\n        return x\n")
    (site / "fakepkg" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(site))
    project = tmp_path / "project"
    project.mkdir()
    app = project / "app.py"
    app.write_text(textwrap.dedent("""\
        from fakepkg.models import Model
        class Mine(Model):
            def run(self, xs):
                for x in xs:
                    self.step(x)
        """))
    data = app.read_bytes()
    index = build_index([(app, "digest-of-app", data)])
    cache = tmp_path / "deps.json"
    keys = index.dependency_keys(cache)
    assert str(installed) in index.installed_read  # `self.step` was looked for in the installed base class
    assert depcache.load(cache, depcache.contents_digest(index.contents, True)) == keys
    again = build_index([(app, "digest-of-app", data)])
    assert again.dependency_keys(cache) == keys
    assert again.installed_read == {}  # answered from the cache: nothing installed was read
    _touch_later(installed, "class Model:\n    def step(self, x):\n        return x + 1\n")
    third = build_index([(app, "digest-of-app", data)])
    assert third.dependency_keys(cache) == keys  # worked out again (the same keys: only a body changed)
    assert str(installed) in third.installed_read


def test_a_warm_run_follows_a_change_in_the_module_a_finding_depends_on(tmp_path: Path) -> None:
    """The finding in ``app.py`` rests on what ``factory.py`` returns: a warm run after ``factory.py``
    changes must judge ``app.py`` again, not answer from the kept keys."""
    (tmp_path / "pyproject.toml").write_text("[tool.jitcheck]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    factory = tmp_path / "pkg" / "factory.py"
    factory.write_text("def make():\n    return lambda x: x + 1\n")
    (tmp_path / "pkg" / "app.py").write_text(textwrap.dedent("""\
        import jax
        from pkg.factory import make

        def run(xs):
            for x in xs:
                jax.jit(make())(x)
        """))

    def codes() -> list[tuple[str, str]]:
        report = run([tmp_path], config_module.load(tmp_path), Options(jobs=1), tmp_path)
        return sorted((Path(f.path).name, f.code) for f in report.findings)

    assert codes() == [("app.py", "JC703")]
    assert codes() == [("app.py", "JC703")]  # warm
    assert list((tmp_path / ".jitcheck_cache").rglob("*.deps.json"))
    _touch_later(factory, "def step(x):\n    return x + 1\n\ndef make():\n    return step\n")
    assert codes() == []


def test_two_environments_keep_an_entry_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``jitcheck`` and ``python -m jitcheck`` search different folders: each keeps its own entry."""
    file = tmp_path / "deps.json"
    digest = depcache.contents_digest({"m": "1"}, installed=True)
    depcache.save(file, digest, {"m": "first"}, {})
    other = tmp_path / "other-site"
    other.mkdir()
    with monkeypatch.context() as patched:
        patched.syspath_prepend(str(other))
        assert depcache.load(file, digest) is None
        depcache.save(file, digest, {"m": "second"}, {})
        assert depcache.load(file, digest) == {"m": "second"}
    assert depcache.load(file, digest) == {"m": "first"}


def test_a_modules_dependencies_are_those_of_a_scan_of_every_caller() -> None:
    """The callers a module's dependencies take in (loop callers of ``m.f``, callers of anything under ``m``),
    grouped by module once, are those a scan of every called function finds for each module."""
    from jitcheck.lint.index import ProjectIndex, summarize

    sources = {
        "pkg": "",
        "pkg.sub": "",
        "pkg.sub.lib": "import jax\n\ndef step(x):\n    return jax.jit(lambda y: y + x)(x)\n\n"
                       "class Model:\n    def fit(self, x):\n        return step(x)\n",
        "pkg.use": "from pkg.sub.lib import Model, step\nfrom pkg.sub import lib\n\ndef run(xs):\n    for x in xs:\n"
                   "        step(x)\n        lib.step(x)\n        Model().fit(x)\n",
        "pkg.other": "from pkg.sub.lib import Model\n\nclass Big(Model):\n    def go(self):\n        return self.fit(1)\n",
        "app": "import pkg.use\n\nfor i in range(3):\n    pkg.use.run([i])\n",
    }
    index = ProjectIndex({name: summarize(text) for name, text in sources.items()})
    for name in sources:
        expected = {name}
        stack = [name]
        while stack:
            for target in index._direct(stack.pop()):
                if target not in expected:
                    expected.add(target)
                    stack.append(target)
        for function, callers in index._loop_callers().items():
            if function.rpartition(".")[0] == name:
                expected.update(callers)
        for function, sites in index.call_sites().items():
            if function.startswith(f"{name}."):
                expected.update(site.module for site in sites)
        for cls in index.modules[name]["classes"]:
            expected.update(module for module, _ in index.subclasses(f"{name}.{cls}"))
        assert index.dependencies(name) == expected, name
    assert "pkg.use" in index.dependencies("pkg.sub") and "app" in index.dependencies("pkg.use")
