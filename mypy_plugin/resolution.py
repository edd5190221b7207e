"""Whether mypy can find the jitcheck package the checked code imports, and the fix when it cannot.

setuptools' default editable install (``pip install -e path/to/jitcheck``) puts an
import hook on ``sys.path``, not a folder: Python imports jitcheck (and so loads this
plugin), but mypy, which searches folders, does not find it. With
``ignore_missing_imports`` every jitcheck type is then ``Any`` and mypy reports
success on code full of bad labels. The plugin refuses that run, once, with the fix.
"""

from __future__ import annotations

import os
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


def unresolved_messages(path: str, line: int) -> list[str]:
    """mypy-style lines: the error at the import, then why and the fixes as notes."""
    import jitcheck

    checkout = os.path.dirname(os.path.dirname(os.path.abspath(jitcheck.__file__)))
    where = f"{path}:{line}"
    return [
        f'{where}: error: jitcheck\'s mypy plugin is enabled, but mypy cannot find the "jitcheck" package '
        "this module imports: nothing jitcheck defines would be checked  [jitcheck-setup]",
        f"{where}: note: Python imports jitcheck from {checkout} through an import hook "
        "(setuptools' default editable install), which mypy does not follow",
        f"{where}: note: Fix: reinstall it with "
        f'"pip install -e {checkout} --config-settings editable_mode=compat" (or editable_mode=strict), '
        f'or without -e; or add mypy_path = "{checkout}" to your mypy config',
    ]


__all__ = ["found_by_mypy", "imports_jitcheck", "unresolved_messages"]
