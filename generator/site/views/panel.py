"""The kernel page's panel registry: panels register a name, title and order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any

from generator.model import record
from generator.site.views.base import KernelData, SiteContext
from generator.site.views.index_row import IndexRow


# ---------------------------------------------------------------- kernel page: panels

@record(frozen=True)
class Panel:
    """A section of the kernel page: template ``panels/<name>.html``, section id ``<name>``."""

    name: str
    title: str
    order: int
    build: Callable[[KernelData, IndexRow, SiteContext], Any]
    i18n: str = ""
_PANELS: dict[str, Panel] = {}


def register_panel(name: str, title: str, order: int, i18n: str = ""):
    """Decorator: register a panel builder (returns the panel's data, or None to omit it)."""
    def wrap(fn):
        _PANELS[name] = Panel(name, title, order, fn, i18n or f"panel.{name}")
        return fn
    return wrap


def registered_panels() -> list[Panel]:
    """Every panel in page order."""
    return sorted(_PANELS.values(), key=lambda p: (p.order, p.name))


@record
class NavItem:
    """A link of the page's table of contents."""

    title: str
    href: str
    i18n: str = ""
    children: list[NavItem] = field(default_factory=list)
    primary: bool = False  # a capture's link: the primary capture


@record
class PanelView:
    """One built panel of a page."""

    name: str
    title: str
    i18n: str
    data: Any
