"""The interface strings' catalogues (issue 13 point 5): one JSON per language,
``templates/i18n/en.json`` and ``templates/i18n/zh.json``, with the same keys and the same
placeholders; every ``data-i18n`` key a template or a built page uses is in both.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

from generator.site import i18n, render
from test_render import build_real_site  # same test folder

KEY_ATTR = re.compile(r'data-i18n(?:-placeholder)?="([^"{]+)"')
CALL = re.compile(r'''\b_\(\s*["']([^"']+)["']\s*\)''')  # _("unit." ~ name) is a prefix, not a key
# keys named in Python: i18n.en/zh/both("k"), i18n.marked("zh", "k"), Fact.of("label", "value"), charts' _t("en", "k")
PY_KEYS = (r'\bi18n\.(?:en|zh|pair|both)\(\s*"([^"]+)"', r'\bi18n\.marked\(\s*"(?:en|zh)",\s*"([^"]+)"',
           r'\bFact\.of\(\s*"([^"]+)"', r'\bFact\.of\(\s*"[^"]+",\s*"([^"]+)"', r'\b_t\(\s*"(?:en|zh)",\s*"([^"]+)"')


def placeholders(s: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(s) if f}


def test_catalogues_have_the_same_keys_and_placeholders():
    en, zh = i18n.catalogue("en"), i18n.catalogue("zh")
    assert sorted(set(en) - set(zh)) == [], "keys missing from zh.json"
    assert sorted(set(zh) - set(en)) == [], "keys missing from en.json"
    for key in en:
        assert en[key].strip() and zh[key].strip(), key
        assert placeholders(en[key]) == placeholders(zh[key]), key


def test_every_key_the_templates_and_views_use_is_in_the_catalogues():
    used: set[str] = set()
    root = render.templates_dir()
    sources = list(root.rglob("*.html")) + list((Path(i18n.__file__).parent).rglob("*.py"))
    for path in sources:
        text = path.read_text(encoding="utf-8")
        used |= set(KEY_ATTR.findall(text)) | set(CALL.findall(text))
        for pattern in PY_KEYS:
            used |= set(re.findall(pattern, text))
    assert used, "no key found"
    assert sorted(used - set(i18n.catalogue("en"))) == []


def test_every_key_on_the_built_pages_is_in_the_catalogues(tmp_path_factory, sweep):
    site = build_real_site(tmp_path_factory, sweep)
    used: set[str] = set()
    for page in site.rglob("*.html"):
        used |= set(KEY_ATTR.findall(page.read_text(encoding="utf-8")))
    assert {"nav.overview", "panel.speed"} <= used
    assert sorted(used - set(i18n.catalogue("zh"))) == []
