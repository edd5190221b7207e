"""The beartype import hook: a package type-checked by beartype as it is imported.

`install_import_hook` registers ``beartype.claw``'s path hook for the named packages,
so every annotated function, class and module-level annotated assignment of theirs
is checked by beartype when it runs, including the ``Label``/``Place`` TypeVar bounds
(a non-frozen dataclass is not ``Hashable``). beartype rewrites a module when it is
imported, so the hook must come first: installing it for a package already imported
is refused with `HookTooLate`, which names the modules.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from jitcheck.debug.settings import package_names

if TYPE_CHECKING:
    from beartype import BeartypeConf

_HOOKED: dict[str, BeartypeConf] = {}


class HookTooLate(RuntimeError):
    """The import hook was asked for after (part of) the package was imported."""

    def __init__(self, package: str, modules: list[str]) -> None:
        self.package = package
        self.modules = tuple(modules)
        shown = ", ".join(modules[:8]) + (f" and {len(modules) - 8} more" if len(modules) > 8 else "")
        super().__init__(
            f"jitcheck debug mode cannot type-check {package!r}: these modules are already imported: {shown}. "
            "beartype checks a module as it is imported, so the hook must be installed before the first "
            f"`import {package}`. Switch debug mode on earlier: call jitcheck.debug.enable(packages=[{package!r}]) "
            f"at the top of your entry script, before importing {package}; or run "
            f"`python -m jitcheck.debug run --packages {package} your_script.py`; or "
            f"`pytest --jitcheck-packages={package}`; or, for JITCHECK_DEBUG={package} with a plain `python`, "
            "install the startup hook once with `python -m jitcheck.debug startup-hook install`"
        )


def imported_modules(package: str) -> list[str]:
    """The modules of ``package`` (itself and its submodules) already in ``sys.modules``, sorted."""
    prefix = package + "."
    return sorted(name for name in list(sys.modules) if name == package or name.startswith(prefix))


def default_conf() -> BeartypeConf:
    """beartype's configuration when the user gives none: its defaults, with ``is_pep484_tower=True``.

    PEP 484 lets an ``int`` stand for a ``float`` (and an ``int`` or ``float`` for a
    ``complex``); Python, mypy and jax accept ``scale(x, 2)`` for ``factor: float``.
    beartype's own default refuses it, which would make debug mode fail programs
    that are correct.
    """
    from beartype import BeartypeConf

    return BeartypeConf(is_pep484_tower=True)


def install_import_hook(packages: str | Iterable[str], *, conf: BeartypeConf | None = None) -> None:
    """Type-check ``packages`` (a name or several) with beartype as they are imported.

    ``conf`` is the ``beartype.BeartypeConf`` the checks run under. When None, it is
    `default_conf`: beartype's defaults with PEP 484's implicit numeric tower, so an
    ``int`` passes for a ``float`` parameter as it does in Python (debug mode must
    not kill a program that runs without it). A conf of the user's own is used as it is. Raises `HookTooLate` if one of the packages was already imported
    (nothing is installed then), and ``ValueError`` if a package was hooked before
    under another configuration. Installing the same hook twice does nothing.
    """
    from beartype import BeartypeConf
    from beartype.claw import beartype_package

    names = package_names(packages, "install_import_hook")
    if not names:
        raise ValueError("install_import_hook needs at least one package name, e.g. install_import_hook('mypkg')")
    config = default_conf() if conf is None else conf
    if not isinstance(config, BeartypeConf):
        raise TypeError(f"install_import_hook conf must be a beartype.BeartypeConf, got {type(conf).__name__}")
    todo = []
    for name in names:
        previous = _HOOKED.get(name)
        if previous is not None:
            if previous != config:
                raise ValueError(
                    f"package {name!r} is already type-checked under {previous!r}; "
                    f"it cannot be hooked again under {config!r}"
                )
            continue
        already = imported_modules(name)
        if already:
            raise HookTooLate(name, already)
        todo.append(name)
    for name in todo:
        beartype_package(name, conf=config)
        _HOOKED[name] = config


def hooked_packages() -> dict[str, BeartypeConf]:
    """The packages hooked in this process, with their beartype configuration."""
    return dict(_HOOKED)


__all__ = ["HookTooLate", "default_conf", "hooked_packages", "imported_modules", "install_import_hook"]
