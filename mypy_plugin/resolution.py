"""Whether mypy can find the jitcheck package the checked code imports, and the fix when it cannot.

setuptools' default editable install (``pip install -e path/to/jitcheck``) puts an
import hook on ``sys.path``, not a folder: Python imports jitcheck (and so loads this
plugin), but mypy, which searches folders, does not find it. With
``ignore_missing_imports`` every jitcheck type is then ``Any`` and mypy reports
success on code full of bad labels. The plugin refuses that run, once, with the fix,
naming the real cause: the import hook, ``no_site_packages``, a ``python_executable``
without jitcheck, or ``follow_imports = "skip"`` (mypy finds jitcheck but never reads it).
"""

from __future__ import annotations

import os
import sys
from typing import Final

from mypy.nodes import Import, ImportAll, ImportFrom, MypyFile
from mypy.options import Options

PACKAGE: Final = "jitcheck"


def imports_jitcheck(tree: MypyFile) -> int | None:
    """The line of the first import of jitcheck in a module, None when there is none."""
    # Asked for every module mypy parses until one imports jitcheck: no list or generator per import.
    for node in tree.imports:
        if isinstance(node, Import):
            for name, _ in node.ids:
                if name.partition(".")[0] == PACKAGE:
                    return node.line
        elif isinstance(node, (ImportFrom, ImportAll)) and node.id.partition(".")[0] == PACKAGE:
            return node.line
    return None


def found_by_mypy(options: Options) -> bool:
    """Whether mypy's module search (mypy_path, the target Python's site-packages) finds jitcheck."""
    from mypy.build import default_data_dir
    from mypy.fscache import FileSystemCache
    from mypy.modulefinder import FindModuleCache, compute_search_paths

    paths = compute_search_paths([], options, default_data_dir())
    return isinstance(FindModuleCache(paths, FileSystemCache(), options).find_module(PACKAGE), str)


def skipped_by(options: Options) -> str | None:
    """Where ``follow_imports = "skip"`` comes from when it applies to jitcheck (None when mypy follows it).

    mypy then never reads jitcheck: every jitcheck type is ``Any`` and the plugin, and the jit call-site
    checks, have nothing to judge, while mypy reports success.
    """
    if options.follow_imports == "skip":
        return "your mypy config (globally, or --follow-imports=skip)"
    for name in (PACKAGE, f"{PACKAGE}.core", f"{PACKAGE}.core.graphs"):
        if options.clone_for_module(name).follow_imports == "skip":
            return f'your mypy config\'s section for "{name}" (a per-module override such as "{PACKAGE}.*")'
    return None


def skipped_messages(path: str, line: int, where: str) -> list[str]:
    """mypy-style lines for a jitcheck that mypy skips (follow_imports = "skip")."""
    at = f"{path}:{line}"
    return [
        f'{at}: error: jitcheck\'s mypy plugin is enabled, but follow_imports = "skip" makes mypy skip the "jitcheck" '
        "package this module imports: nothing jitcheck defines would be checked  [jitcheck-setup]",
        f'{at}: note: follow_imports = "skip" is set in {where}: every jitcheck type is Any, so neither the graphs '
        "nor the jit call sites can be judged",
        f'{at}: note: Fix: follow jitcheck\'s imports: add [[tool.mypy.overrides]] module = ["jitcheck", "jitcheck.*"] '
        'with follow_imports = "silent" (or [mypy-jitcheck.*] follow_imports = silent in an ini file)',
    ]


def unresolved_messages(path: str, line: int, options: Options) -> list[str]:
    """mypy-style lines: the error at the import, then why (the real cause) and the fixes as notes."""
    import jitcheck

    checkout = os.path.dirname(os.path.dirname(os.path.abspath(jitcheck.__file__)))
    where = f"{path}:{line}"
    first = (f'{where}: error: jitcheck\'s mypy plugin is enabled, but mypy cannot find the "jitcheck" package '
             "this module imports: nothing jitcheck defines would be checked  [jitcheck-setup]")
    if options.no_site_packages or options.python_executable is None:  # --no-site-packages: no executable either
        return [
            first,
            f"{where}: note: mypy runs with --no-site-packages (or no_site_packages = true): it does not search the "
            f"installed packages, where jitcheck is (Python imports it from {checkout})",
            f'{where}: note: Fix: drop no_site_packages, or add mypy_path = "{checkout}" to your mypy config',
        ]
    if os.path.abspath(options.python_executable) != os.path.abspath(sys.executable):
        return [
            first,
            f"{where}: note: mypy searches the packages of python_executable = {options.python_executable}, which "
            f"has no jitcheck; the plugin was loaded by {sys.executable}, from {checkout}",
            f'{where}: note: Fix: install jitcheck there ("{options.python_executable} -m pip install {checkout}"), '
            f"or point python_executable at {sys.executable}, "
            f'or add mypy_path = "{checkout}" to your mypy config',
        ]
    if _through_import_hook(checkout):
        return [
            first,
            f"{where}: note: Python imports jitcheck from {checkout} through an import hook "
            "(setuptools' default editable install), which mypy does not follow",
            f"{where}: note: Fix: reinstall it with "
            f'"pip install -e {checkout} --config-settings editable_mode=compat" (or editable_mode=strict), '
            f'or without -e; or add mypy_path = "{checkout}" to your mypy config',
        ]
    return [
        first,
        f"{where}: note: Python imports jitcheck from {checkout}, a folder that is neither on mypy_path nor among "
        "the installed packages mypy searches",
        f'{where}: note: Fix: add mypy_path = "{checkout}" to your mypy config, or install jitcheck '
        "into the environment mypy checks",
    ]


def _through_import_hook(checkout: str) -> bool:
    """Whether Python found jitcheck through a finder on sys.meta_path, not a folder on sys.path."""
    on_path = {os.path.realpath(p or os.getcwd()) for p in sys.path}
    return os.path.realpath(checkout) not in on_path


__all__ = ["found_by_mypy", "imports_jitcheck", "skipped_by", "skipped_messages", "unresolved_messages"]
