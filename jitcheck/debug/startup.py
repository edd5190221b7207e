"""The startup hook: ``JITCHECK_DEBUG=mypkg python train.py`` with no runner, through one ``.pth`` line.

beartype must hook a package before its first import, and a plain ``python train.py``
imports ``mypkg`` before jitcheck has a say. Python runs the ``import`` lines of
``.pth`` files in site-packages at startup, so ``python -m jitcheck.debug
startup-hook install`` writes ``jitcheck-debug.pth`` there: one line that reads
``JITCHECK_DEBUG`` and, only when it is set, switches debug mode on. With the
variable unset it costs one dictionary look-up per interpreter start.
"""

from __future__ import annotations

import os
import sysconfig

PTH_NAME = "jitcheck-debug.pth"
PTH_LINE = (
    "import os; os.environ.get('JITCHECK_DEBUG') and "
    "__import__('jitcheck.debug.switch').debug.switch.enable_from_environment()\n"
)


def default_site_dir() -> str:
    """The site-packages folder of the running interpreter (its virtualenv's, in one)."""
    return sysconfig.get_paths()["purelib"]


def pth_path(site_dir: str | None = None) -> str:
    """Where the startup hook's ``.pth`` file lives."""
    return os.path.join(site_dir or default_site_dir(), PTH_NAME)


def install(site_dir: str | None = None) -> str:
    """Write the startup hook into ``site_dir`` (default: this interpreter's site-packages); returns its path."""
    path = pth_path(site_dir)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(PTH_LINE)
    return path


def uninstall(site_dir: str | None = None) -> str | None:
    """Remove the startup hook; returns the path removed, or None when there was none."""
    path = pth_path(site_dir)
    if not os.path.exists(path):
        return None
    os.remove(path)
    return path


def installed(site_dir: str | None = None) -> bool:
    """True when the startup hook is in ``site_dir``."""
    return os.path.exists(pth_path(site_dir))


__all__ = ["PTH_LINE", "PTH_NAME", "default_site_dir", "install", "installed", "pth_path", "uninstall"]
