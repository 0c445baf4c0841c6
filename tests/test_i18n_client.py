"""site.js carries the labels the browser swaps, not the sentences the server words in both languages
(issue 41: load only what a view uses; ``i18n.SERVER_ONLY``).

Every ``data-i18n`` / ``data-i18n-<attr>`` key on every page of three real builds must be in the client
catalogue in both languages, or the language switch would leave it in English: the shared sweep with a
history and the FlyDSL CI stream (overview, kernel, source, ISA, history and CI pages) and the NVIDIA
demo of ``bundles/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.site import build, ci_site, i18n

KEY = re.compile(r'data-i18n(?:-[a-z-]+)?="([^"]+)"')
CI = Path(__file__).resolve().parent.parent.parent / "shared" / "flydsl-ci"


def page_keys(site: Path) -> set[str]:
    """The catalogue keys the pages of a built site name for the browser to swap."""
    keys: set[str] = set()
    for page in site.rglob("*.html"):
        keys.update(KEY.findall(page.read_text(encoding="utf-8")))
    return keys


def shipped(site: Path) -> dict:
    """The catalogues site.js carries (``window.KA_I18N``)."""
    (js,) = (site / "static").glob("site.*.js")
    head = js.read_text(encoding="utf-8").split("\n", 1)[0]
    return json.loads(head[len("window.KA_I18N = "):-1])


@pytest.fixture(scope="module")
def sweep_site(tmp_path_factory, sweep) -> Path:
    if not (CI / "history.json").is_file():
        pytest.skip("../shared/flydsl-ci is absent: the CI pages are not built")
    out = tmp_path_factory.mktemp("client") / "site"
    ci = ci_site.load(CI / "history.json", CI / "runs.json")
    build.build_site(sweep, out, progress=False, history_dir=out.parent / "history", ci=ci)
    return out


def test_every_key_a_page_swaps_is_shipped_in_both_languages(sweep_site, demo_site):
    for site in (sweep_site, demo_site):
        keys, cat = page_keys(site), shipped(site)
        assert len(keys) > 100, site
        for lang in ("en", "zh"):
            assert keys <= set(cat[lang]), (site, lang, sorted(keys - set(cat[lang]))[:5])


def test_site_js_leaves_out_the_sentences_the_server_words(sweep_site):
    cat = shipped(sweep_site)
    full = {lang: i18n.catalogue(lang) for lang in ("en", "zh")}
    for lang in ("en", "zh"):
        assert not [k for k in cat[lang] if k.startswith(("msg.", "finding."))]
        assert cat[lang] == {k: v for k, v in full[lang].items() if not k.startswith(("msg.", "finding."))}
    # what it saves: the sentences were more than a third of every catalogue's keys
    gone = sum(1 for k in full["en"] if k.startswith(("msg.", "finding.")))
    assert gone > len(full["en"]) / 3
