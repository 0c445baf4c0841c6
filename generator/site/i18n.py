"""The interface strings, one catalogue per language: ``templates/i18n/en.json`` and
``templates/i18n/zh.json`` (same keys; ``tests/test_i18n.py`` checks them).

Keys are dotted ("panel.speed"); a string may hold ``{name}`` placeholders filled by
``str.format``. Templates print English with ``_(KEY)`` on an element that carries
``data-i18n=KEY``; ``site.js`` swaps in the 中文 from ``window.KA_I18N`` (the catalogue less its
sentences, ``SERVER_ONLY``, is prepended to the site.js asset, so no page fetches anything and file://
works). Text computed
with numbers carries its 中文 in ``data-zh``, made here by :func:`zh` from the same catalogue.
Data (kernel, file and GPU names, numbers, code, verdict words) is marked ``translate="no"``.

Text that mixes words and data (``6 hard failures``, ``flydsl and an independent library``) is
printed in both languages, ``<span class="en-only">`` and ``<span class="zh-only">`` (site.css
shows the one of ``html[data-lang]``), the 中文 made by :func:`marked` with every value in a
``translate="no"`` span. Sentences other layers make (notes, flags, missing parts) are
``message.Sentence``: English text carrying the message (a ``msg.`` key and its values) it was made
from, which :func:`zh_said` words in 中文; nothing is ever matched back from English.
"""

from __future__ import annotations

import json

from markupsafe import Markup, escape

from generator.analyze.message import CATALOGUES, FORMS, Msg, catalogue, fields, form

LANGS = ("en", "zh")
FOLDER = CATALOGUES


def text(lang: str, key: str, **kw) -> str:
    """The string ``key`` in ``lang``, placeholders filled; a missing key fails the build."""
    s = catalogue(lang)[key]
    return FORMS.format(s, **kw) if kw else s


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


def marked(lang: str, key: str, **kw) -> Markup:
    """The string ``key`` in ``lang`` as HTML, each filled value escaped in a ``translate="no"`` span;
    a ``msg_*`` field holds a nested sentence, worded in its turn (:func:`zh_said`)."""
    out = []
    for literal, name, spec, conv in fields(catalogue(lang)[key]):
        out.append(str(escape(literal)))
        if name is not None:
            value = form(kw[name], spec or "") if not conv else str(kw[name])
            if name.startswith("msg_"):
                m = getattr(kw[name], "msg", None) if lang == "zh" else None  # a nested sentence, or data
                out.append(str(marked("zh", m.key, **m.kw) if m is not None else escape(value)))
            else:
                out.append(f'<span translate="no">{escape(value)}</span>')
    return Markup("".join(out))


#: Set by the tests: a shown text that is no sentence (``message.Sentence``) fails the build.
STRICT = False


def message_of(text: object) -> Msg | None:
    """The message a shown sentence was made from; None for other text (under ``STRICT``, an error)."""
    m = getattr(text, "msg", None)
    if m is None and STRICT and text:
        raise ValueError(f"a shown sentence has no message key: {str(text)!r}")
    return m


def zh_said(text: object) -> Markup:
    """The 中文 of a sentence another layer made (``message.sentence``: a note, a flag, a missing
    part), as HTML with its values marked; empty for other text (it stays English)."""
    m = message_of(text)
    return marked("zh", m.key, **m.kw) if m is not None else Markup("")


def zh_said_text(text: object) -> str:
    """:func:`zh_said` as plain text (a chart's hover); other text comes back as it is."""
    m = message_of(text)
    if m is None:
        return str(text)
    return zh(m.key, **{k: zh_said_text(v) if k.startswith("msg_") else v for k, v in m.params})


def install(env) -> None:
    """Jinja globals: ``_`` (English), ``zh`` (中文), ``zh_or``; the filter ``zh_said``."""
    env.globals["_"] = en
    env.globals["zh"] = zh
    env.globals["zh_or"] = zh_or
    env.filters["zh_said"] = zh_said


#: Catalogue namespaces no page swaps in the browser: sentences (``msg.``) and findings (``finding.``) are
#: worded in both languages here (``data-zh``, ``zh_said``), never named by a ``data-i18n`` attribute. Leaving
#: them out of site.js (issue 41: load only what a view uses) takes it from 332 KB to 178 KB, and so the
#: bytes every page fetches before its first chart (flash_attn_func's 1,025 KB to 871 KB).
SERVER_ONLY = ("msg.", "finding.")


def client_catalogue(lang: str) -> dict[str, str]:
    """The strings of ``lang`` that site.js swaps in: the catalogue less ``SERVER_ONLY``."""
    return {k: v for k, v in catalogue(lang).items() if not k.startswith(SERVER_ONLY)}


def bundle_js(site_js: bytes) -> bytes:
    """site.js with the client catalogues in front of it (``window.KA_I18N = {"en": ..., "zh": ...}``)."""
    data = json.dumps({lang: client_catalogue(lang) for lang in LANGS}, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":"))
    return ("window.KA_I18N = " + data + ";\n").encode("utf-8") + site_js
