"""Link each glossary term's first use on a page to its entry (issue 23, 4).

A rendered page's ``<main>`` is read once: the first English use of each term of
``views.glossary.TERMS`` in running text becomes ``<a class="term" href="ROOT/glossary.html#ID"
data-zh-term="...">``. Not linked: text in tables, scripts, code, text areas and SVG (data and the
long rows: a table's first use is its own column header, which sorts on click), text inside a link,
a button or a form control, data (``translate="no"``) and the 中文 half of a two-language text
(``l-zh``, ``zh-only``). ``data-zh-term`` names the term's 中文 forms, so that ``site.js`` links it
again when the language switch rewrites the text around it.

Example: ``<span data-i18n="head.vsbest">geomean vs the best baseline</span>`` becomes
``<span data-i18n="head.vsbest"><a class="term" href="glossary.html#geomean" data-zh-term="几何平均">geomean</a>
vs the best baseline</span>``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import escape

from generator.site.views.glossary import TERMS

#: Elements skipped whole, fast (their text is data or rows): from the opening tag to its end.
_BLOCKS = re.compile(r"<(table|script|style|textarea|svg|pre|code)\b.*?</\1\s*>", re.S | re.I)
#: A tag (closing or opening, its name and attributes) or a run of text.
_TOKENS = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|[^<]+|<", re.S)
#: Elements whose text is never linked: links, controls, headings of the page.
_SKIP = frozenset({"a", "button", "select", "option", "label", "h1", "title", "summary"})
_DATA = re.compile(r'translate="no"|class="[^"]*\b(?:l-zh|zh-only)\b')
_VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col", "area", "base", "embed"})


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern:
    """Every term's English forms, one named group each, whole words, any case."""
    return re.compile("|".join(rf"(?P<t{i}>\b(?:{t.en})\b)" for i, t in enumerate(TERMS)), re.I)


def _link(term_index: int, text: str, root: str) -> str:
    t = TERMS[term_index]
    zh = escape("|".join(t.zh))
    return f'<a class="term" href="{root}glossary.html#{t.id}" data-zh-term="{zh}">{text}</a>'


def _link_text(text: str, root: str, done: set[int]) -> str:
    """``text`` (escaped HTML, no tag) with the first use of each term not in ``done`` linked."""
    out, at = [], 0
    for m in _pattern().finditer(text):
        index = int(m.lastgroup[1:])
        if index in done:
            continue
        done.add(index)
        out += [text[at:m.start()], _link(index, m.group(), root)]
        at = m.end()
    if not out:
        return text
    out.append(text[at:])
    return "".join(out)


def _link_region(html: str, root: str, done: set[int]) -> str:
    """A stretch of HTML with no skipped block: its running text linked, tags kept as they are."""
    out: list[str] = []
    skip, depth = "", 0  # the element being skipped and how deep its own tag name nests
    for m in _TOKENS.finditer(html):
        closing, name = m.group(1), (m.group(2) or "").lower()
        if not name:
            piece = m.group()
            out.append(piece if skip or piece == "<" else _link_text(piece, root, done))
            continue
        out.append(m.group())
        if skip:
            if name == skip and name not in _VOID and not m.group(3).endswith("/"):
                depth += -1 if closing else 1
                if depth == 0:
                    skip = ""
        elif not closing and name not in _VOID and (name in _SKIP or _DATA.search(m.group(3))):
            skip, depth = name, 1
    return "".join(out)


def link_terms(page: bytes, root: str) -> bytes:
    """A rendered page with each term's first use in its ``<main>`` linked to the glossary
    (``root``: the page's way back to the site root, "" or "../../")."""
    html = page.decode("utf-8")
    start, end = html.find("<main>"), html.rfind("</main>")
    if start < 0 or end < start:
        return page
    main, done, out, at = html[start:end], set(), [], 0
    for m in _BLOCKS.finditer(main):
        out += [_link_region(main[at:m.start()], root, done), m.group()]
        at = m.end()
    out.append(_link_region(main[at:], root, done))
    return (html[:start] + "".join(out) + html[end:]).encode("utf-8")
