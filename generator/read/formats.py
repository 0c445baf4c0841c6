"""Registry of capture formats (AMD ATT, NVIDIA Nsight Compute).

A format module calls ``register(CaptureFormat(...))`` at import time. Discovery asks
each registered format for the captures of a bundle; analysis calls the format's
``analyze`` when the format brings one, else its own analyzer in
``generator.analyze.analysis`` (ATT, NCU: the readers only read). Adding a format means
adding a module name to ``FORMAT_MODULES``.
"""

from __future__ import annotations

import importlib
from typing import Callable

from generator.model import Bundle, CaptureAnalysis, CaptureRef, record

#: Modules that register a format, in display order.
FORMAT_MODULES = ("generator.read.att", "generator.read.ncu")


@record(frozen=True)
class CaptureFormat:
    """How to find and analyze one kind of capture.

    find(bundle_dir) -> list of (label, capture_dir) in the bundle, sorted.
    is_capture(dir) -> True when dir itself is one capture of this format.
    empty_reason(dir) -> None, or why the capture is an empty shell to skip.
    analyze(ref, bundle) -> one CaptureAnalysis per profiled dispatch (NCU exports may
    hold several launches); raises InputError on bad input. None: analysis has its own.
    """

    name: str
    vendor: str
    order: int
    find: Callable[[str], list[tuple[str, str]]]
    is_capture: Callable[[str], bool]
    empty_reason: Callable[[str], str | None]
    analyze: Callable[[CaptureRef, Bundle | None], list[CaptureAnalysis]] | None = None


_REGISTRY: dict[str, CaptureFormat] = {}


def register(fmt: CaptureFormat) -> None:
    """Add a format to the registry (called by format modules at import)."""
    _REGISTRY[fmt.name] = fmt


def all_formats() -> list[CaptureFormat]:
    """Every registered format, importing the known format modules first."""
    for mod in FORMAT_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as err:
            if err.name != mod:
                raise
    return sorted(_REGISTRY.values(), key=lambda f: (f.order, f.name))


def get(name: str) -> CaptureFormat:
    """The format registered under ``name``."""
    for fmt in all_formats():
        if fmt.name == name:
            return fmt
    raise KeyError(name)
