"""Issue 23 in headless Chromium: pages that load like a hand-made one, a phone as a first-class
reader (390 x 844), and an address that keeps the reader's choices.

Same browser and helpers as ``test_browser.py`` (Debian's ``/usr/bin/chromium``; skips without it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from test_browser import CHARTS_DRAWN, CHROMIUM, Tab, browser, site, url, visible_rows  # noqa: F401  (fixtures)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bench_pages  # noqa: E402  (the benchmark's own measurement, one definition)

PHONE = {"width": 390, "height": 844}


# ---------------------------------------------------------------- 6: the address keeps the choices

def view_of(page) -> dict:
    """What a reader sees of the overview's choices."""
    return page.evaluate("""() => ({
        rows: Array.from(document.querySelectorAll('tr.krow')).filter(r => !r.hidden && r.offsetParent !== null).map(r => r.id),
        verdict: document.getElementById('filter-verdict').value,
        category: document.getElementById('filter-category').value,
        severity: document.getElementById('filter-severity').value,
        search: document.getElementById('search').value,
        grouped: document.getElementById('group-toggle').checked,
        rank: document.querySelector('input[name="rank"]:checked').value,
        sorted: Array.from(document.querySelectorAll('th.sorted-asc, th.sorted-desc')).map(th => th.getAttribute('data-i18n') + ' ' + th.className),
        lang: document.documentElement.getAttribute('data-lang'),
        theme: document.documentElement.getAttribute('data-theme'),
        headlineShown: !document.getElementById('rank-headline').hidden,
    })""")


def test_a_shared_address_opens_the_same_overview(site, browser):
    tab = Tab(browser)
    page = tab.open(url(site, "index.html"))
    page.check('input[name="rank"][value="headline"]')
    page.select_option("#filter-verdict", "HEADROOM")
    page.fill("#search", "gemm")
    page.click('th[data-i18n="col.wins"]')  # ascending
    page.click("#lang-toggle")
    page.click("#theme-toggle")
    seen = view_of(page)
    assert seen["rank"] == "headline" and seen["lang"] == "zh" and seen["theme"] == "dark" and not seen["grouped"]
    # HEADROOM kernels matching 'gemm', by wins ascending: hgemm_splitk 0, preshuffle_gemm 1, fp8_gemm_rowscale 2
    assert seen["rows"] == ["k-hgemm_splitk", "k-preshuffle_gemm", "k-fp8_gemm_rowscale"]
    address = page.url
    assert "?" in address and "rank=headline" in address and "verdict=HEADROOM" in address and "lang=zh" in address
    tab.close()
    fresh = Tab(browser)  # a new browser context: nothing remembered, only the address
    page = fresh.open(address)
    assert view_of(page) == seen
    assert page.inner_text("#lang-toggle") == "EN"
    assert fresh.errors == [] and tab.errors == []
    fresh.close()


def test_the_default_view_leaves_the_address_alone_and_a_kernel_page_keeps_its_language(site, browser):
    tab = Tab(browser)
    page = tab.open(url(site, "index.html"))
    assert page.url == url(site, "index.html")
    page = tab.open(url(site, "kernels/pa/index.html") + "?lang=zh&theme=dark#speed")
    assert page.get_attribute("html", "data-lang") == "zh" and page.get_attribute("html", "data-theme") == "dark"
    assert page.url.endswith("?lang=zh&theme=dark#speed")
    page.click("#lang-toggle")
    assert page.url.endswith("?lang=en&theme=dark#speed")
    assert tab.errors == []
    tab.close()
