"""REPORT.md to HTML with Markdown (imported on first use by ``render.render_markdown``).

Raw HTML in the Markdown is shown as text, and only safe links survive (``_SafeTree``);
``render.clean_html`` then keeps an allowlist of tags and attributes (nh3).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

import markdown
from markdown.extensions import Extension
from markdown.extensions.fenced_code import FencedCodeExtension
from markdown.extensions.sane_lists import SaneListExtension
from markdown.extensions.tables import TableExtension
from markdown.extensions.toc import TocExtension, slugify
from markdown.treeprocessors import Treeprocessor

SAFE_SCHEMES = ("http://", "https://", "mailto:")
REPORT_ID_PREFIX = "report-"


class _SafeTree(Treeprocessor):
    """Keep only safe links: http(s)/mailto, or ``#`` fragments that exist in the report.

    A relative link points into the bundle, which the site does not copy: it becomes
    plain text. An image becomes a link to its http(s) address (the site loads
    nothing from elsewhere), or its alt text.
    """

    def run(self, root: etree.Element) -> None:
        ids = {el.get("id") for el in root.iter() if el.get("id")}
        for parent in list(root.iter()):
            for i, el in enumerate(list(parent)):
                if el.tag == "img":
                    src, alt = el.get("src", ""), el.get("alt", "") or "image"
                    new = etree.Element("a" if src.startswith(SAFE_SCHEMES[:2]) else "span")
                    if new.tag == "a":
                        new.set("href", src)
                        new.set("rel", "nofollow noopener")
                    new.text = f"[{alt}]"
                    new.tail = el.tail
                    parent.remove(el)
                    parent.insert(i, new)
                elif el.tag == "a":
                    href = el.get("href", "")
                    if href.startswith(SAFE_SCHEMES):
                        el.set("rel", "nofollow noopener")
                        continue
                    if href.startswith("#"):
                        target = href[1:]
                        if target in ids:
                            continue
                        if REPORT_ID_PREFIX + target in ids:
                            el.set("href", "#" + REPORT_ID_PREFIX + target)
                            continue
                    el.tag = "span"
                    el.attrib.pop("href", None)
                    el.set("class", "dead-link")
                    el.set("title", f"not published: {href}"[:200])
                for attr in list(el.attrib):
                    if attr.lower().startswith("on") or attr.lower() in ("style", "srcdoc"):
                        del el.attrib[attr]


HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


class _Demote(Treeprocessor):
    """Shift a report's headings so that its first level is ``top`` (an ``h1`` under the page's
    ``h2`` section becomes an ``h3``; the levels below it keep their order, ``h6`` at most)."""

    def __init__(self, md: markdown.Markdown, top: int) -> None:
        super().__init__(md)
        self.top = top

    def run(self, root: etree.Element) -> None:
        found = [el for el in root.iter() if el.tag in HEADINGS]
        shift = self.top - min((int(el.tag[1]) for el in found), default=self.top)
        if shift <= 0:
            return
        for el in found:
            el.tag = f"h{min(6, int(el.tag[1]) + shift)}"


class _NoRawHtml(Extension):
    """Treat raw HTML in Markdown as text (escaped) and keep only safe links; headings demoted to
    start at ``top`` when given."""

    def __init__(self, top: int | None = None) -> None:
        super().__init__()
        self.top = top

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_SafeTree(md), "kernel_atlas_safe", 0)
        if self.top is not None:
            md.treeprocessors.register(_Demote(md, self.top), "kernel_atlas_demote", 1)


def _report_slug(value: str, separator: str) -> str:
    """Heading ids of a report, prefixed so they never clash with the page's own ids."""
    return REPORT_ID_PREFIX + slugify(value, separator)


def to_html(text: str, top: int | None = None) -> str:
    """REPORT.md as HTML: tables and fenced code, raw HTML shown as text, unsafe links marked
    (``render.clean_html`` then applies the allowlist); its first heading level ``top`` when given
    (a report inside a page's section: no second ``<h1>`` on the page). The extensions are given as
    objects, not names: a name is looked up among the installed packages' entry points (issue 41:
    0.11 s -> 0.08 s of a cold build's CPU for the reference pages, the 25-kernel benchmark sweep)."""
    md = markdown.Markdown(
        extensions=[TableExtension(), FencedCodeExtension(), SaneListExtension(),
                    TocExtension(slugify=_report_slug, permalink=False), _NoRawHtml(top)],
        output_format="html",
    )
    return md.convert(text)
