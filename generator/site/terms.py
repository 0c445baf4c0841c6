"""Link each glossary term's first use on a page to its entry (issue 23, 4).

A rendered page's ``<main>`` is read once: the first English use of each term of
``views.glossary.TERMS`` in running text (whole words, any case) becomes ``<a class="term" href="ROOT/glossary.html#ID"
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

#: Elements skipped whole (their text is data or rows): from the opening tag to its closing tag,
#: found with ``str.find`` (the rows of a large kernel page are 90 % of its bytes).
_BLOCK_OPEN = re.compile(r"<(table|script|style|textarea|svg|pre|code)\b")
#: A tag (closing or opening, its name and attributes) or a run of text.
_TOKENS = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|[^<]+|<", re.S)
#: Elements whose text is never linked: links, controls, headings of the page.
_SKIP = frozenset({"a", "button", "select", "option", "label", "h1", "title", "summary"})
_DATA = re.compile(r'translate="no"|class="[^"]*\b(?:l-zh|zh-only)\b')
_VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col", "area", "base", "embed"})


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern:
    """Every term's forms in one alternation, searched in lower-cased text: an alternation of plain
    words lets the regular expression engine skip ahead by their first letters (80 ms a kernel page
    with ``re.I`` and a look-behind, 1 ms so)."""
    return re.compile("|".join(form for t in TERMS for form in t.en))


@lru_cache(maxsize=None)
def _term_of(word: str) -> int | None:
    """The index in ``TERMS`` of the term a matched word is a form of."""
    return next((i for i, t in enumerate(TERMS) if any(re.fullmatch(f, word) for f in t.en)), None)


def _uses(text: str):
    """``(start, end, term index)`` of each whole-word use of a term in ``text``, in order."""
    low = text.lower()
    if len(low) != len(text):  # a character whose lower case is longer: match the text as written
        low = text
    for m in _pattern().finditer(low):
        start, end = m.span()
        if (start and low[start - 1].isalnum()) or (end < len(low) and low[end].isalnum()):
            continue
        index = _term_of(m.group())
        if index is None:
            continue
        after = TERMS[index].not_after
        if after and low[max(0, start - len(after)):start] == after:
            continue
        yield start, end, index


def _link(term_index: int, text: str, root: str) -> str:
    t = TERMS[term_index]
    zh = escape("|".join(t.zh))
    return f'<a class="term" href="{root}glossary.html#{t.id}" data-zh-term="{zh}">{text}</a>'


def _link_text(text: str, root: str, done: set[int]) -> str:
    """``text`` (escaped HTML, no tag) with the first use of each term not in ``done`` linked."""
    out, at = [], 0
    for start, end, index in _uses(text):
        if index in done:
            continue
        done.add(index)
        out += [text[at:start], _link(index, text[start:end], root)]
        at = end
    if not out:
        return text
    out.append(text[at:])
    return "".join(out)


def _surely_skipped(html: str, pos: int) -> bool:
    """Whether a use at ``pos`` is certainly not linked, by the tag just before it: inside a tag, or
    the first text of an element whose text is skipped (``<span translate="no">HEADROOM``). Such uses
    no longer keep ``_link_region`` reading tags to reach them."""
    lt = html.rfind("<", 0, pos)
    if lt < 0:
        return False
    if html.find(">", lt, pos) < 0:
        return True
    m = _TOKENS.match(html, lt)
    if m is None or m.group(1) or not m.group(2):
        return False
    name = m.group(2).lower()
    return name not in _VOID and (name in _SKIP or _DATA.search(m.group(3)) is not None)


def _link_region(html: str, root: str, done: set[int]) -> str:
    """A stretch of HTML with no skipped block: its running text linked, tags kept as they are.
    Only read tag by tag up to the last use of a term still to link (the terms are searched in the
    whole stretch first): a kernel page's tags took 70 ms a page to walk one by one."""
    todo = [(start, index) for start, _, index in _uses(html) if index not in done and not _surely_skipped(html, start)]
    if not todo:
        return html
    out: list[str] = []
    limit = max(p for p, _ in todo)
    skip, depth = "", 0  # the element being skipped and how deep its own tag name nests
    for m in _TOKENS.finditer(html):
        if m.start() > limit:
            out.append(html[m.start():])
            break
        closing, name = m.group(1), (m.group(2) or "").lower()
        if not name:
            piece = m.group()
            if skip or piece == "<":
                out.append(piece)
            else:
                before = len(done)
                out.append(_link_text(piece, root, done))
                if len(done) > before:
                    limit = max((p for p, i in todo if i not in done), default=-1)
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


def _blocks(html: str) -> list[tuple[int, int]]:
    """Where the skipped elements are: (start, end) of each, in order (not nested in one another)."""
    out, at = [], 0
    while True:
        m = _BLOCK_OPEN.search(html, at)
        if m is None:
            return out
        close = html.find(f"</{m.group(1)}", m.end())
        end = len(html) if close < 0 else html.find(">", close) + 1 or len(html)
        out.append((m.start(), end))
        at = end


def link_terms(page: bytes, root: str) -> bytes:
    """A rendered page with each term's first use in its ``<main>`` linked to the glossary
    (``root``: the page's way back to the site root, "" or "../../")."""
    html = page.decode("utf-8")
    start, end = html.find("<main>"), html.rfind("</main>")
    if start < 0 or end < start:
        return page
    main, done, out, at = html[start:end], set(), [], 0
    for b_start, b_end in _blocks(main):
        out += [_link_region(main[at:b_start], root, done), main[b_start:b_end]]
        at = b_end
    out.append(_link_region(main[at:], root, done))
    return (html[:start] + "".join(out) + html[end:]).encode("utf-8")
