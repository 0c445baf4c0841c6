"""Word a message (``generator.analyze.message.Msg`` or its JSON) from a catalogue, data kept as data.

A message is ``[key, {param: value}]``: the catalogue string of ``key`` with its ``{param}``
placeholders filled. A value is data (a number, an instruction, a file:line: shown as is,
``translate="no"``), a nested message, or ``{"list": [...]}`` (joined by ``finding.sep``, or by the catalogue
string its ``"sep"`` names).
The result is a list of :class:`Seg`, which the templates print with data in
``<span translate="no">`` (macro ``said``).

English placeholders may carry a form (the 中文 never needs one): ``{n:~wait}`` is
"1 wait" / "3 waits", ``{n:~vmcnt(0)~vmcnt(0)}`` names the plural, ``{n:#}`` is "3rd".
In 中文 strings every run of Latin letters or digits is a term or code (VGPR, s_waitcnt,
vmcnt(N), 16) and is printed as data too.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

from generator.analyze.message import LIST_SEP, Items, fields, form
from generator.model import record
from generator.site import i18n
from generator.site.escaping import escaped

#: A Latin run in a 中文 string: a technical term, an instruction or a number, kept as is.
LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.*()/+%\-]*(?: [A-Za-z0-9][A-Za-z0-9_.*()/+%\-]*)*")


@record(frozen=True)
class Seg:
    """A run of worded text: interface words, or data (printed ``translate="no"``)."""

    text: str
    data: bool = False


def _as_message(m: Any) -> tuple[str, dict[str, Any]]:
    if hasattr(m, "to_json"):
        m = m.to_json()
    key, params = m
    return key, params


def _is_message(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], dict)


def _literal(lang: str, text: str) -> list[Seg]:
    if lang != "zh":
        return [Seg(text)] if text else []
    return list(_zh_runs(text))


@lru_cache(maxsize=4096)
def _zh_runs(text: str) -> tuple[Seg, ...]:
    """A 中文 text's runs, its Latin runs as data (the catalogue's literals recur on every page)."""
    out, at = [], 0
    for m in LATIN.finditer(text):
        if m.start() > at:
            out.append(Seg(text[at:m.start()]))
        out.append(Seg(m.group(), True))
        at = m.end()
    if at < len(text):
        out.append(Seg(text[at:]))
    return tuple(out)


def _value(lang: str, v: Any, spec: str) -> list[Seg]:
    if _is_message(v) or hasattr(v, "to_json"):
        return segments(lang, v)
    sep = LIST_SEP
    if isinstance(v, Items):
        v, sep = v.items, v.sep
    elif isinstance(v, dict) and "list" in v:
        v, sep = v["list"], v.get("sep", LIST_SEP)
    if isinstance(v, (list, tuple)):
        out: list[Seg] = []
        between = _literal(lang, i18n.text(lang, sep))
        for k, x in enumerate(v):
            if k:
                out += between
            out += _value(lang, x, "")
        return out
    if v is None or v == "":
        return []
    text = form(v, spec) if spec and lang != "zh" else str(v)
    return [Seg(text, lang == "zh" or not spec.startswith("~"))]


def segments(lang: str, m: Any) -> list[Seg]:
    """Message ``m`` worded in ``lang``, as runs of words and data (adjacent runs merged)."""
    key, params = _as_message(m)
    out: list[Seg] = []
    for literal, field, spec, _conv in fields(i18n.text(lang, key)):
        out += _literal(lang, literal)
        if field is not None:
            out += _value(lang, params[field], spec or "")
    merged: list[Seg] = []
    for s in out:
        if merged and merged[-1].data == s.data:
            merged[-1] = Seg(merged[-1].text + s.text, s.data)
        else:
            merged.append(s)
    return merged


def plain(lang: str, m: Any) -> str:
    """Message ``m`` worded in ``lang`` as plain text."""
    return "".join(s.text for s in segments(lang, m))


@record(frozen=True)
class Said:
    """Computed text in both languages: the English, and the 中文 as runs (None: English only)."""

    en: str
    zh: list[Seg] | None = None


def said(m: Any, en: str | None = None) -> Said:
    """Message ``m`` in both languages; ``en`` when the English was written where it was computed."""
    return Said(plain("en", m) if en is None else en, segments("zh", m))


def runs(zh: str) -> list[Seg]:
    """Worded 中文 text as runs: its Latin runs (terms, code, numbers) as data."""
    return _literal("zh", zh)


def html(segs: list[Seg]) -> Markup:
    """Runs as HTML: interface words escaped, data in ``translate="no"`` spans."""
    return Markup("".join(f'<span translate="no">{escaped(s.text)}</span>' if s.data else escaped(s.text)
                          for s in segs))



def said_html(en: object, segs: list[Seg] | None) -> Markup:
    """The templates' ``said(en, segs)``: text in both languages, the English and the 中文 runs (``html``) each in
    its language's span, or the English alone without 中文. Written here, not as a Jinja macro: a cold build of
    the shared sweep says 1,678 texts so (issue 41: 46 -> 21 ms of CPU, timed in one process)."""
    if not segs:
        return escape(en)
    return Markup(f'<span class="l-en">{escape(en)}</span><span class="l-zh" lang="zh-CN">{html(segs)}</span>')
