"""``findings.html``: the sweep's hand-written ``FINDINGS.md``, rendered and sanitized as a REPORT.md is."""

from __future__ import annotations

import datetime
import re

from markupsafe import Markup

from generator.model import record

FINDINGS = "FINDINGS.md"
_ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


@record
class FindingsLink:
    """The overview's link to the findings page: where, and the date of the notes."""

    href: str
    date: str


@record
class FindingsPage:
    """``findings.html``: the rendered notes, marked as hand-written with their date."""

    title: str
    site_title: str
    root: str
    file: str
    date: str
    html: Markup
    history_nav: bool = False


def findings_date(text: str, mtime: float) -> str:
    """The notes' date: the first ISO date (``2026-06-01``) written in them, else the file's
    modification day (UTC)."""
    m = _ISO_DATE.search(text)
    if m:
        return m.group(1)
    return datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc).strftime("%Y-%m-%d")


def findings_page(site_title: str, html: str, date: str, history_nav: bool = False) -> FindingsPage:
    """The page of the sweep's findings (``html`` already sanitized)."""
    return FindingsPage(title=f"{FINDINGS} \u2014 {site_title}", site_title=site_title, root="", file=FINDINGS,
                        date=date, html=Markup(html), history_nav=history_nav)
