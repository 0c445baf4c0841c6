"""A large overview in pages (issue 25): the first page of the kernel table stays in ``index.html``,
the other rows and the sweep-wide parts that grow with the sweep (charts' figures, coverage
matrix, disagreements, sweep reading) move to ``index-data.js``.

Naming rule shared with ``templates/static/site.js``: a part moved out leaves
``<template data-deferred="KEY"></template>`` where it stood, and ``index-data.js`` sets
``window.KA_DEFERRED = {KEY: html}``; site.js puts each part back before anything else runs, then
shows the table a page at a time (``#pager``, ``data-page-size``) with filters, sorting and
search over every row. A script file, not a fetch: the site works from ``file://``. A sweep of
at most ``PAGE_ROWS`` kernels is rendered as before, in one file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any

from markupsafe import Markup, escape

from generator.model import record
from generator.read import jsonio

#: Rows of the overview table per page; a sweep with more kernels is paged.
PAGE_ROWS = 100
#: The overview's moved parts, beside index.html.
DATA_FILE = "index-data.js"


@record
class Deferred:
    """What the overview template moves out of ``index.html`` (nothing when not ``active``)."""

    active: bool
    page_rows: int = PAGE_ROWS
    parts: dict[str, str] = field(default_factory=dict)
    row: Callable[[Any], str] | None = None  # one table row as HTML (the template's ``kernel_row`` macro)
    _inline: int = 0  # table rows printed in index.html so far

    @classmethod
    def for_rows(cls, n_rows: int, page_rows: int | None = None) -> Deferred:
        """Paged when the table holds more than one page of rows."""
        size = page_rows or PAGE_ROWS
        return cls(active=n_rows > size, page_rows=size)

    def __call__(self, key: str, html: str) -> Markup:
        """``html`` where it stands, or its placeholder when the overview is paged."""
        if not self.active:
            return Markup(html)
        self.parts[key] = str(html)
        return Markup(f'<template data-deferred="{escape(key)}"></template>')

    def rows(self, key: str, rows: Sequence) -> Markup:
        """A group's table rows: those of the first page in the page, the rest moved out."""
        if not self.active:
            return self._html(rows)
        keep = max(0, min(len(rows), self.page_rows - self._inline))
        self._inline += keep
        html = self._html(rows[:keep])
        if keep < len(rows):
            html += self(key, self._html(rows[keep:]))
        return html

    def _html(self, rows: Sequence) -> Markup:
        return Markup("".join(str(self.row(r)) for r in rows))

    def script(self, root: str) -> Markup:
        """The ``<script>`` loading the moved parts (before site.js), or nothing."""
        return Markup(f'<script src="{escape(root)}{DATA_FILE}"></script>\n') if self.active else Markup("")

    def data_js(self) -> bytes | None:
        """``index-data.js``: the moved parts as one JSON object (sorted keys), or None."""
        if not self.active:
            return None
        return b"window.KA_DEFERRED = " + jsonio.dumps_sorted(self.parts, indent=False) + b";\n"
