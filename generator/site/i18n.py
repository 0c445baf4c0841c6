"""The interface strings, one catalogue per language: ``templates/i18n/en.json`` and
``templates/i18n/zh.json`` (same keys; ``tests/test_i18n.py`` checks them).

Keys are dotted ("panel.speed"); a string may hold ``{name}`` placeholders filled by
``str.format``. Templates print English with ``_(KEY)`` on an element that carries
``data-i18n=KEY``; ``site.js`` swaps in the 中文 from ``window.KA_I18N`` (the catalogue is
prepended to the site.js asset, so no page fetches anything and file:// works). Text computed
with numbers carries its 中文 in ``data-zh``, made here by :func:`zh` from the same catalogue.
Data (kernel, file and GPU names, numbers, code, verdict words) is marked ``translate="no"``.

Text that mixes words and data (``6 hard failures``, ``flydsl and an independent library``) is
printed in both languages, ``<span class="en-only">`` and ``<span class="zh-only">`` (site.css
shows the one of ``html[data-lang]``), the 中文 made by :func:`marked` with every value in a
``translate="no"`` span. Sentences other layers compute in English (notes, flags, missing parts)
find their 中文 by :func:`zh_msg`: the ``msg.`` key whose English template prints them.
"""

from __future__ import annotations

import json
import re
import string
from functools import lru_cache
from pathlib import Path

from markupsafe import Markup, escape

LANGS = ("en", "zh")
# the templates folder as render.py finds it: top-level templates/, or the wheel's kernel_atlas_templates/
_ROOT = Path(__file__).resolve().parent.parent.parent
FOLDER = next((p for p in (_ROOT / "templates", _ROOT / "kernel_atlas_templates")
               if (p / "base.html").is_file()), _ROOT / "templates") / "i18n"


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """The catalogue of one language (key -> string)."""
    return json.loads((FOLDER / f"{lang}.json").read_text(encoding="utf-8"))


def text(lang: str, key: str, **kw) -> str:
    """The string ``key`` in ``lang``, placeholders filled; a missing key fails the build."""
    s = catalogue(lang)[key]
    return s.format(**kw) if kw else s


def en(key: str, **kw) -> str:
    return text("en", key, **kw)


def zh(key: str, **kw) -> str:
    return text("zh", key, **kw)


def both(key: str, **kw) -> tuple[str, str]:
    """``(English, 中文)`` of ``key``: computed text and its ``data-zh``."""
    return en(key, **kw), zh(key, **kw)


def zh_or(key: str, default: str) -> str:
    """The 中文 of ``key``, or ``default`` for labels read from the data (provenance keys)."""
    return catalogue("zh").get(key, default)


#: What a field of a ``msg.`` template matches: ``loc`` a source location (``file.py:12``), ``label``,
#: ``label_b`` and ``suffix`` a capture's label (one word), ``g`` a speedup (``0.87x``), any other
#: field the shortest text that lets the whole sentence match (possibly none). A sentence another
#: layer computed has its own key: no template is a catch-all that would pass unknown English off as
#: data (a ``msg_*`` field holds a nested sentence, translated by its own key or left visible).
FIELD_PATTERNS = {"loc": r"\S+:\d+", "label": r"\S+", "label_b": r"\S+", "suffix": r"\S+", "g": r"\d[\d.]*x"}


def _template_pattern(s: str) -> re.Pattern:
    """A regular expression matching what ``s.format(...)`` can print; each field a named group."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(s):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>{FIELD_PATTERNS.get(name, '.*?')})")
    return re.compile("^" + "".join(parts) + "$", re.S)


@lru_cache(maxsize=None)
def _sentences() -> tuple[tuple[str, str, str], ...]:
    """The ``msg.`` keys, the longest English first (the most specific wins), each with the literal
    text its sentence starts with and ends with: a cheap test before its pattern is compiled and tried
    (compiling every pattern cost each build process tens of milliseconds)."""
    en_ = catalogue("en")
    keys = sorted((k for k in en_ if k.startswith("msg.")), key=lambda k: (-len(en_[k]), k))
    out = []
    for k in keys:
        parts = list(string.Formatter().parse(en_[k]))
        first = parts[0][0] if parts else ""
        last = parts[-1][0] if parts and parts[-1][1] is None else ""
        out.append((k, first, last))
    return tuple(out)


@lru_cache(maxsize=None)
def _pattern(key: str) -> re.Pattern:
    """The pattern of a ``msg.`` key's English (compiled on first use)."""
    return _template_pattern(catalogue("en")[key])


def _may_match(text: str, first: str, last: str) -> bool:
    """Whether ``text`` starts and ends as a template's literals require (``$`` also matches before a
    final newline)."""
    return text.startswith(first) and (text.endswith(last) or text.endswith(last + "\n"))


def marked(lang: str, key: str, **kw) -> Markup:
    """The string ``key`` in ``lang`` as HTML, each filled value escaped in a ``translate="no"`` span;
    a ``msg_*`` field holds a nested sentence, translated in its turn (:func:`zh_msg`)."""
    out = []
    for literal, name, spec, conv in string.Formatter().parse(catalogue(lang)[key]):
        out.append(str(escape(literal)))
        if name is not None:
            value = format(kw[name], spec or "") if not conv else str(kw[name])
            if name.startswith("msg_"):
                out.append(str((zh_msg(value) if lang == "zh" else "") or escape(value)))
            else:
                out.append(f'<span translate="no">{escape(value)}</span>')
    return Markup("".join(out))


def msg_key(text: str) -> tuple[str, dict[str, str]] | None:
    """The ``msg.`` key whose English template prints ``text``, with the values it was filled with."""
    found = _msg_key(text)
    return (found[0], dict(found[1])) if found else None


@lru_cache(maxsize=4096)
def _msg_key(text: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """``msg_key`` kept per sentence (notes and flags recur on every kernel; each match tries every key)."""
    for key, first, last in _sentences():
        m = _pattern(key).match(text) if _may_match(text, first, last) else None
        if m:
            return key, tuple(m.groupdict().items())
    return None


def zh_msg(text: str) -> Markup:
    """The 中文 of an English sentence another layer computed (a note, a flag, a missing part), as
    HTML with its values marked (data stay as they are); empty when no key matches (the sentence
    stays English, and the browser test names it)."""
    found = msg_key(str(text))
    return marked("zh", found[0], **found[1]) if found else Markup("")


def zh_msg_text(text: str) -> str:
    """:func:`zh_msg` as plain text (a chart's hover); a sentence no key matches comes back as it is."""
    found = msg_key(str(text))
    if not found:
        return str(text)
    key, values = found
    return zh(key, **{k: zh_msg_text(v) if k.startswith("msg_") else v for k, v in values.items()})


def install(env) -> None:
    """Jinja globals: ``_`` (English), ``zh`` (中文), ``zh_or``; the filter ``zh_msg``."""
    env.globals["_"] = en
    env.globals["zh"] = zh
    env.globals["zh_or"] = zh_or
    env.filters["zh_msg"] = zh_msg


def bundle_js(site_js: bytes) -> bytes:
    """site.js with the catalogues in front of it (``window.KA_I18N = {"en": ..., "zh": ...}``)."""
    data = json.dumps({lang: catalogue(lang) for lang in LANGS}, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":"))
    return ("window.KA_I18N = " + data + ";\n").encode("utf-8") + site_js
