"""The interface strings, one catalogue per language: ``templates/i18n/en.json`` and
``templates/i18n/zh.json`` (same keys; ``tests/test_i18n.py`` checks them).

Keys are dotted ("panel.speed"); a string may hold ``{name}`` placeholders filled by
``str.format``. Templates print English with ``_(KEY)`` on an element that carries
``data-i18n=KEY``; ``site.js`` swaps in the 中文 from ``window.KA_I18N`` (the catalogue is
prepended to the site.js asset, so no page fetches anything and file:// works). Text computed
with numbers carries its 中文 in ``data-zh``, made here by :func:`zh` from the same catalogue.
Data (kernel, file and GPU names, numbers, code, verdict words) is marked ``translate="no"``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

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


def zh_or(key: str, default: str) -> str:
    """The 中文 of ``key``, or ``default`` for labels read from the data (provenance keys)."""
    return catalogue("zh").get(key, default)


def install(env) -> None:
    """Jinja globals: ``_`` (English), ``zh`` (中文) and ``zh_or``."""
    env.globals["_"] = en
    env.globals["zh"] = zh
    env.globals["zh_or"] = zh_or


def bundle_js(site_js: bytes) -> bytes:
    """site.js with the catalogues in front of it (``window.KA_I18N = {"en": ..., "zh": ...}``)."""
    data = json.dumps({lang: catalogue(lang) for lang in LANGS}, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":"))
    return ("window.KA_I18N = " + data + ";\n").encode("utf-8") + site_js
