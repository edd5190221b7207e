"""Python's cyclic garbage collector around a run's phases: paused where nothing cyclic is made, and the
objects every file's check keeps (the project index) set aside from its full passes.

A cold run makes many objects that live to its end: every module's summary, and Python's syntax trees
while they are summarized. The collector's full passes scan every tracked object, and a growing heap
triggers them again and again: a fifth of a cold run's CPU went there (gc callbacks on 7 libraries),
to find nothing, since syntax trees and summaries hold no cycles (reference counting frees them).
Neither helper changes what is computed, only when the collector looks: :func:`paused` turns it off
around a phase that makes no cycles (garbage that is cyclic after all is collected once it is back
on), and :func:`set_aside` freezes what exists when the checks start (the index, which worker
processes inherit), so the checks' full passes scan only what the checks make.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No collection inside (when the collector was on, it is on again after, also on an exception)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@contextlib.contextmanager
def set_aside() -> Iterator[None]:
    """Inside, the objects that exist on entry are left out of the collector's passes (``gc.freeze``); on exit
    they are put back. A caller that froze objects itself manages the collector: then nothing is done."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


__all__ = ["paused", "set_aside"]
