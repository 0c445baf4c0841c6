"""Cyclic garbage collection paused while a reader builds a large tree of small objects.

A reader that parses a file into thousands of lists or dicts would otherwise have the
collector scan them again and again while it works, and promote the ones it drops a moment
later to the old generation, whose full scans then cost the whole process. The readers make
no reference cycles, so reference counting frees all they drop; output is unchanged.
"""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def gc_paused():
    """No cyclic collection inside (usable as ``with`` or as a decorator)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
