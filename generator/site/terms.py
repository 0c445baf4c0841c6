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
#: A tag: closing or opening, its name and its attributes.
_TAGS = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>", re.S)
#: Elements whose text is never linked: links, controls, headings of the page.
_SKIP = frozenset({"a", "button", "select", "option", "label", "h1", "title", "summary"})
_DATA = re.compile(r'translate="no"|class="[^"]*\b(?:l-zh|zh-only)\b')
_VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col", "area", "base", "embed"})
#: An opening tag that may start a skipped element (``_SKIP``, or ``_DATA`` among its attributes; a void
#: element is let pass after the match): its name in group 1 or 2, its attributes in group 3.
_SKIP_START = re.compile(r'<(?:((?i:a|button|select|option|label|h1|title|summary))(?![a-zA-Z0-9])'
                         r'|([a-zA-Z][a-zA-Z0-9]*+)(?=[^>]*(?:translate="no"|class="[^">]*\b(?:l-zh|zh-only)\b)))'
                         r'([^>]*)>')


@lru_cache(maxsize=1)
def _forms() -> tuple[tuple[str, int], ...]:
    """Every term's English forms with the term's index in ``TERMS``."""
    return tuple((form, i) for i, t in enumerate(TERMS) for form in t.en)


@lru_cache(maxsize=1)
def _may_overlap() -> tuple[frozenset[int], ...]:
    """For each term, the other terms a use of it may overlap: those whose forms share a word with its own
    (two whole-word uses that overlap share whole words; a plural "s" set aside)."""
    words = [{w.rstrip("s") for form in t.en for w in re.findall(r"[a-z0-9]+", form)} for t in TERMS]
    return tuple(frozenset(j for j, other in enumerate(words) if j != i and own & other)
                 for i, own in enumerate(words))


def _uses(text: str, done: set[int] = frozenset()) -> list[tuple[int, int, int]]:
    """``(start, end, term index)`` of each whole-word use of a term in ``text`` (a plural "s"
    included), in order; of uses that overlap, the longer (``HBM roof`` over ``roof``). Each form is
    found with ``str.find`` in the lower-cased text. Measured over the shared sweep's 20 linked pages
    (CPU, a loaded 2-core machine): one case-insensitive regular expression with a look-behind took
    about 300 ms, an alternation over the lower-cased text 20 ms, these finds 13 ms. The forms of a term
    already linked (``done``) are not searched where no use of theirs can overlap a use still to link."""
    low = text.lower()
    if len(low) != len(text):  # a character whose lower case is longer: match the text as written
        low = text
    n, found = len(low), []
    overlap = _may_overlap()
    for form, index in _forms():
        if index in done and overlap[index] <= done:
            continue
        after = TERMS[index].not_after
        at = low.find(form)
        while at >= 0:
            end = at + len(form)
            if end < n and low[end] == "s" and (end + 1 == n or not low[end + 1].isalnum()):
                end += 1
            if (not (at and low[at - 1].isalnum()) and not (end < n and low[end].isalnum())
                    and not (after and low[max(0, at - len(after)):at] == after)):
                found.append((at, end, index))
            at = low.find(form, at + 1)
    found.sort(key=lambda u: (u[0], u[0] - u[1]))
    out, reach = [], -1
    for u in found:
        if u[0] >= reach:
            out.append(u)
            reach = u[1]
    return out


def _link(term_index: int, text: str, root: str) -> str:
    t = TERMS[term_index]
    zh = escape("|".join(t.zh))
    return f'<a class="term" href="{root}glossary.html#{t.id}" data-zh-term="{zh}">{text}</a>'


def _surely_skipped(html: str, pos: int) -> bool:
    """Whether a use at ``pos`` is certainly not linked, by the tag just before it: inside a tag, or
    the first text of an element whose text is skipped (``<span translate="no">HEADROOM``). Such uses
    no longer keep ``_link_region`` reading tags to reach them."""
    lt = html.rfind("<", 0, pos)
    if lt < 0:
        return False
    if html.find(">", lt, pos) < 0:
        return True
    m = _TAGS.match(html, lt)
    if m is None or m.group(1):
        return False
    name = m.group(2).lower()
    return name not in _VOID and (name in _SKIP or _DATA.search(m.group(3)) is not None)


def _link_region(html: str, root: str, done: set[int]) -> str:
    """A stretch of HTML with no skipped block, with the first use of each term not yet in ``done``
    linked where it is running text. The terms are searched in the whole stretch first; then, up to each
    use still to link, only the tags that matter are read: one that starts a skipped element, then the
    tags of that element's name up to its end (reading every tag and text of the 20 pages one by one took
    about 70 ms, every tag up to the last use about 10; these tags and ``_uses`` leaving the terms already
    linked take sweep25's 26 linked pages from 81 ms to 64 ms: issue 41)."""
    todo = [u for u in _uses(html, done) if u[2] not in done and not _surely_skipped(html, u[0])]
    if not todo:
        return html
    skip, depth, at, nxt = "", 0, 0, None  # the element being skipped, how deep its name nests; the next tag
    edits = []
    for start, end, index in todo:
        if index in done:
            continue
        while True:
            if nxt is None:
                nxt = (_same_name(skip) if skip else _SKIP_START).search(html, at) or False
            if nxt is False or nxt.start() >= start:
                break
            at, tag, nxt = nxt.end(), nxt, None
            if skip:
                if not tag.group(3).endswith("/"):
                    depth += -1 if tag.group(1) else 1
                    if depth == 0:
                        skip = ""
            elif (name := (tag.group(1) or tag.group(2)).lower()) not in _VOID:
                skip, depth = name, 1
        if skip:
            continue
        done.add(index)
        edits.append((start, end, _link(index, html[start:end], root)))
        if len(done) == len(TERMS):
            break
    out, at = [], 0
    for start, end, link in edits:
        out += [html[at:start], link]
        at = end
    out.append(html[at:])
    return "".join(out)


@lru_cache(maxsize=32)
def _same_name(name: str) -> re.Pattern:
    """An opening or closing tag of element ``name`` (any case): a closing ``/`` in group 1, its attributes in 3."""
    return re.compile(rf"<(/?)({re.escape(name)})(?![a-zA-Z0-9])([^>]*)>", re.I)


def _blocks(html: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where the skipped elements between ``start`` and ``end`` are: (start, end) of each, in order (not
    nested in one another)."""
    out, at = [], start
    while True:
        m = _BLOCK_OPEN.search(html, at, end)
        if m is None:
            return out
        close = html.find(f"</{m.group(1)}", m.end(), end)
        stop = end if close < 0 else html.find(">", close, end) + 1 or end
        out.append((m.start(), stop))
        at = stop


def link_terms(page: bytes, root: str) -> bytes:
    """A rendered page with each term's first use in its ``<main>`` linked to the glossary
    (``root``: the page's way back to the site root, "" or "../../"). The page is cut once, at the skipped
    blocks of its ``<main>``, and put together in one join (issue 41: the shared sweep's 19 kernel pages,
    50 ms -> 43 ms of CPU, A/B in one process)."""
    html = page.decode("utf-8")
    start, end = html.find("<main>"), html.rfind("</main>")
    if start < 0 or end < start:
        return page
    done: set[int] = set()
    out, at = [html[:start]], start
    for b_start, b_end in _blocks(html, start, end):
        out += [_link_region(html[at:b_start], root, done), html[b_start:b_end]]
        at = b_end
    out += [_link_region(html[at:end], root, done), html[end:]]
    return "".join(out).encode("utf-8")
