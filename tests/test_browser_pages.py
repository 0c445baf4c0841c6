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


# ---------------------------------------------------------------- 1: load like a hand-made page

def handmade_dashboard_page(folder: Path) -> Path:
    """A HAND-MADE fixture standing in for a sweep's hand-made dashboard (the real one, the shared
    sweep's ``docs/index.html``, asks for web fonts; this one is offline by construction): one
    static page (~115 KB) that loads in about the same time, its own CSS, a table of results and a bar chart
    its inline script draws as SVG from embedded JSON."""
    rows = "".join(f"<tr><td>kernel_{i:04d}</td><td>shape {i % 37} x {i % 11}</td><td>{0.5 + (i % 97) / 50:.3f}x</td>"
                   f"<td>{(i * 7919) % 1000 / 10:.1f} us</td><td>{'WIN' if i % 3 else 'HEADROOM'}</td>"
                   f"<td>baseline_{i % 5}</td></tr>\n" for i in range(1000))
    bars = [round(0.5 + (i % 23) / 10, 2) for i in range(60)]
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>hand-made dashboard</title>
<style>body{{font:14px sans-serif;margin:2em}}table{{border-collapse:collapse}}td{{padding:2px 8px;border-bottom:1px solid #ddd}}
#chart rect{{fill:#3d5a98}}</style></head><body><h1>Kernels</h1><svg id="chart" width="900" height="240"></svg>
<table>{rows}</table>
<script>const data = {bars};
const svg = document.getElementById('chart');
data.forEach((v, i) => {{ const r = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  r.setAttribute('x', i * 15); r.setAttribute('width', 12); r.setAttribute('y', 240 - v * 80); r.setAttribute('height', v * 80);
  svg.appendChild(r); }});</script></body></html>"""
    path = folder / "handmade-dashboard.html"
    path.write_text(page, encoding="utf-8")
    return path


# Generous ratios for a shared CI machine: the budgets of bench_pages.py (2x, 5x, 6x against the
# real dashboard) are for a quiet machine; this anchor is lighter than the real one (no failing
# font requests), so the ratios here are larger for the same pages.
# Measured here (2 shared cores): about 1.9x, 9x and 12x.
GENEROUS = {("overview", "dcl"): 6.0, ("overview", "chart"): 24.0, ("kernel", "chart"): 30.0}


@pytest.fixture(scope="module")
def bench_browser(browser):
    """Chromium as bench_pages.py launches it (every host name unresolvable), beside ``browser``."""
    b = browser.browser_type.launch(executable_path=str(CHROMIUM), args=bench_pages.ARGS)
    yield b
    b.close()


def test_pages_load_within_a_generous_ratio_of_a_handmade_page(site, tmp_path, bench_browser):
    anchor = handmade_dashboard_page(tmp_path)
    result = bench_pages.run(site, anchor, "flash_attn_func", rounds=3, browser=bench_browser)
    base = result["anchor"]["load"]
    ratios = {(page, what): result[page][what] / base for page, what in GENEROUS}
    assert all(ratios[k] <= GENEROUS[k] for k in GENEROUS), (result, ratios)
    # plotly.js does not hold the overview's first paint (DOMContentLoaded before it is loaded)
    assert result["overview"]["dcl"] < result["overview"]["load"]


def test_a_page_without_charts_never_fetches_plotly(site, browser):
    tab = Tab(browser)
    page = tab.open(url(site, "kernels/flash_attn_func/src/c0/isa.html"))
    page.wait_for_load_state("load")
    assert page.evaluate("() => Array.from(document.scripts).map(s => s.src).filter(s => s.includes('plotly'))") == []
    assert page.evaluate("() => window.Plotly === undefined")
    page = tab.open(url(site, "index.html"))
    page.wait_for_function("() => window.Plotly !== undefined")
    assert tab.errors == []
    tab.close()
