"""The reference pages (issue 34): the tool's own ``docs/*.md``, rendered into the site as
``docs/<name>.html`` by the Markdown a REPORT.md goes through, and linked from the glossary."""

from __future__ import annotations

import re
from dataclasses import field

from markupsafe import Markup

from generator.model import record

DOCS_DIR = "docs"
_TITLE = re.compile(r"^#\s+(.+?)\s*$", re.M)
_CODE = re.compile(r"`([^`]*)`")


@record
class DocLink:
    """One reference page: its name (the file's stem), its title and its address from the site root."""

    name: str
    title: str
    href: str


@record
class DocPage:
    """``docs/<name>.html``: one rendered reference file, and the list of all of them."""

    title: str
    site_title: str
    root: str
    file: str
    html: Markup
    docs: list[DocLink] = field(default_factory=list)
    history_nav: bool = False


def doc_title(text: str, name: str) -> str:
    """A reference file's title: its first level-one heading, without code marks (else its name)."""
    m = _TITLE.search(text)
    return _CODE.sub(r"\1", m.group(1)) if m else name


def doc_links(texts: dict[str, str]) -> list[DocLink]:
    """The reference pages by name (``texts``: name -> Markdown), in name order."""
    return [DocLink(n, doc_title(t, n), f"{DOCS_DIR}/{n}.html") for n, t in sorted(texts.items())]


def doc_page(site_title: str, link: DocLink, html: str, links: list[DocLink], history_nav: bool = False) -> DocPage:
    """The page of one reference file (``html`` already sanitized)."""
    return DocPage(title=f"{link.title} \u2014 {site_title}", site_title=site_title, root="../",
                   file=f"{link.name}.md", html=Markup(html), docs=links, history_nav=history_nav)
