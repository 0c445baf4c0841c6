"""Issue 23 in headless Chromium: pages that load like a hand-made one, a phone as a first-class
reader (390 x 844), and an address that keeps the reader's choices.

Same browser and helpers as ``test_browser.py`` (Debian's ``/usr/bin/chromium``; skips without it).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from test_browser import (CHARTS_DRAWN, CHROMIUM, Tab, browser, index_rows, shared_view_rows, site,  # noqa: F401  (fixtures)
                          url, visible_rows)

from test_pages import split_site  # noqa: F401,E402  (fixture: the real sweep with ISA pages of 500 pcs)

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
    rows = index_rows(site)
    # HEADROOM kernels matching 'a', by wins ascending (the slice: pa 0/12, vec_add 0/12, quant 1/12, moe_blockscale 4/4)
    want = shared_view_rows(rows, "HEADROOM", "a")
    assert len(want) >= 4 and len({r["wins"] for r in rows if "k-" + r["slug"] in want}) >= 3
    tab = Tab(browser)
    page = tab.open(url(site, "index.html"))
    page.check('input[name="rank"][value="headline"]')
    page.select_option("#filter-verdict", "HEADROOM")
    page.fill("#search", "a")
    page.click('th[data-i18n="col.wins"]')  # ascending
    page.click("#lang-toggle")
    page.click("#theme-toggle")
    seen = view_of(page)
    assert seen["rank"] == "headline" and seen["lang"] == "zh" and seen["theme"] == "dark" and not seen["grouped"]
    assert seen["rows"] == want
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


# ---------------------------------------------------------------- 5: a phone is a first-class reader

PHONE_PAGES = ("index.html", "kernels/flash_attn_func/index.html", "kernels/rmsnorm/index.html",
               "kernels/flash_attn_func/src/c0/isa.html", "history.html")

# Per drawn chart: its box, each axis title's box (and whether the figure has that title), the
# toolbar's box and the plot area's top, all relative to the chart's box.
CHART_GEOMETRY = """() => Array.from(document.querySelectorAll('.chart.js-plotly-plot')).filter(e => e.checkVisibility()).map(e => {
    const box = e.getBoundingClientRect();
    const rel = r => ({left: r.left - box.left, right: r.right - box.left, top: r.top - box.top, bottom: r.bottom - box.top});
    const titles = {};
    for (const ax of ['x', 'y']) {
        const want = ((e.layout[ax + 'axis'] || {}).title || {}).text;
        const el = e.querySelector('.g-' + ax + 'title text');
        titles[ax] = {want: !!want, box: el && el.textContent ? rel(el.getBoundingClientRect()) : null};
    }
    const bar = e.querySelector('.modebar'), legend = e.querySelector('.legend');
    return {id: e.getAttribute('data-figure'), width: box.width, height: box.height, titles,
            legend: legend ? rel(legend.getBoundingClientRect()) : null,
            modebar: bar ? rel(bar.getBoundingClientRect()) : null, plotTop: e._fullLayout._size.t};
})"""


def overlap(a: dict, b: dict) -> float:
    """The area two boxes share (px²)."""
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, w) * max(0.0, h)


def phone_tab(browser) -> Tab:
    return Tab(browser, width=PHONE["width"], height=PHONE["height"])


def test_on_a_phone_the_top_bar_takes_at_most_15_percent_of_the_screen(tmp_path, sweep, browser):
    from generator.site import build

    out = tmp_path / "site"
    build.build_site(sweep, out, progress=False, history_dir=tmp_path / "history", history_label="one")
    tab = phone_tab(browser)
    pages = [rel for rel in PHONE_PAGES if (out / rel).is_file()]  # the slice has no rmsnorm
    assert {"index.html", "history.html", "kernels/flash_attn_func/src/c0/isa.html"} <= set(pages)
    for rel in pages:
        page = tab.open(url(out, rel))
        bar = page.evaluate("() => document.querySelector('.topbar').getBoundingClientRect().height")
        assert 0 < bar <= 0.15 * PHONE["height"], (rel, bar)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"], rel
        # the bar keeps its links and toggles on one line
        tops = page.evaluate("() => Array.from(document.querySelectorAll('.topbar a, .topbar button')).map(e => Math.round(e.getBoundingClientRect().top))")
        assert max(tops) - min(tops) <= 12, (rel, tops)
    tab.shot("phone-overview")
    assert tab.errors == []
    tab.close()


def test_on_a_phone_the_kernel_table_keeps_each_name_in_view_when_scrolled_sideways(site, browser):
    tab = phone_tab(browser)
    page = tab.open(url(site, "index.html"))
    page.locator("#kernel-table").scroll_into_view_if_needed()
    width = page.evaluate("() => { const t = document.getElementById('kernel-table'); return [t.scrollWidth, t.clientWidth]; }")
    assert width[0] > 2 * width[1]  # the table is much wider than the phone
    page.evaluate("() => { document.getElementById('kernel-table').scrollLeft = 100000; }")
    page.wait_for_function("() => document.getElementById('kernel-table').scrollLeft > 0")
    names = page.evaluate("""() => {
        const t = document.getElementById('kernel-table').getBoundingClientRect();
        return Array.from(document.querySelectorAll('tr.krow')).filter(r => !r.hidden && r.offsetParent).map(r => {
            const c = r.cells[0].getBoundingClientRect();
            return [r.id, c.left >= t.left - 1 && c.right <= t.right + 1 && c.width > 40, getComputedStyle(r.cells[0]).backgroundColor];
        });
    }""")
    # every kernel's row (19 in the sweep, 8 in the slice)
    assert len(names) == len(list((site / "kernels").glob("*/index.html"))) and all(inside for _, inside, _ in names), names
    assert all(bg not in ("rgba(0, 0, 0, 0)", "transparent") for _, _, bg in names)  # opaque over the cells below
    tab.shot("phone-kernel-table-scrolled")
    assert tab.errors == []
    tab.close()


def test_on_a_phone_charts_keep_their_axis_titles_and_the_toolbar_stays_off_the_plot(site, browser):
    tab = phone_tab(browser)
    seen = shown = 0
    pages = [rel for rel in ("index.html", "kernels/flash_attn_func/index.html", "kernels/pa/index.html",
                             "kernels/rmsnorm/index.html") if (site / rel).is_file()]  # the slice has no rmsnorm
    assert len(pages) >= 3
    for rel in pages:
        page = tab.open(url(site, rel))
        # a capture that is not the primary opens on demand (flash_attn_func's three others): opened here, drawn too
        if page.evaluate("() => { const f = document.querySelectorAll('details.capture-body'); f.forEach(d => d.open = true);"
                         " return f.length; }"):
            page.wait_for_function(CHARTS_DRAWN)
        here = page.evaluate("() => Array.from(document.querySelectorAll('.chart')).filter(e => e.checkVisibility()).length")
        # a chart at least on each page; a kernel page's captures each draw their stalls and timeline
        assert here >= max(1, 2 * page.locator("article.capture").count()), (rel, here)
        if rel.startswith("kernels/"):  # a kernel page shows every chart it holds (flash_attn_func: 13 on the whole sweep)
            assert here == (site / rel).read_text(encoding="utf-8").count('<div class="chart"'), rel
        shown += here
        for chart in page.evaluate(CHART_GEOMETRY):
            seen += 1
            assert chart["width"] <= PHONE["width"], (rel, chart)
            for axis, t in chart["titles"].items():
                if not t["want"]:
                    continue
                b = t["box"]
                assert b is not None, (rel, chart["id"], axis)
                assert b["left"] >= -1 and b["right"] <= chart["width"] + 1, (rel, chart["id"], axis, b, chart["width"])
                assert b["top"] >= -1 and b["bottom"] <= chart["height"] + 1, (rel, chart["id"], axis, b)
                legend = chart["legend"]
                assert legend is None or overlap(b, legend) < 2, (rel, chart["id"], axis, b, legend)  # not under the legend
            assert chart["modebar"] is not None and chart["modebar"]["bottom"] <= chart["plotTop"] + 1, (rel, chart)
    assert seen == shown  # every chart shown was drawn and measured
    tab.page.locator(".chart").first.scroll_into_view_if_needed()
    tab.shot("phone-kernel-chart")
    assert tab.errors == []
    tab.close()


# ---------------------------------------------------------------- 2: a long ISA listing in parts

def test_a_link_into_a_split_listing_lands_on_its_part(split_site, browser):
    tab = Tab(browser)
    page = tab.open(url(split_site, "kernels/flash_attn_func/src/c0/isa.html") + "#pc1500")
    page.wait_for_url("**/kernels/flash_attn_func/src/c0/isa-4.html#pc1500")
    page.wait_for_function("() => document.getElementById('pc1500') !== null")
    assert page.locator("#pc1500").is_visible()
    # the kernel page's old in-page anchor goes on to the listing, then to the part
    tab.open(url(split_site, "kernels/flash_attn_func/index.html") + "#c0-pc1200")
    tab.page.wait_for_url("**/kernels/flash_attn_func/src/c0/isa-3.html#pc1200")
    assert tab.page.locator("#pc1200").is_visible()
    assert tab.errors == []
    tab.close()


# ---------------------------------------------------------------- issue 41: the first chart before plotly.js

#: Holds plotly.js back (its script tag is never added) and says whether site.js asked for it.
HOLD_PLOTLY = """(() => { const add = Node.prototype.appendChild;
  Node.prototype.appendChild = function (n) {
    if (n && n.tagName === 'SCRIPT' && /plotly/.test(n.src || '')) { window.__plotlyAsked = true; return n; }
    return add.call(this, n); }; })();"""

SKETCH = """(id) => { const svg = document.querySelector(`.chart[data-figure="${id}"] svg.chart-sketch`);
  return svg && {points: svg.querySelectorAll('g.trace .point').length,
                 labels: Array.from(svg.querySelectorAll(':scope > text')).map(t => t.textContent)}; }"""


def figure_of(site: Path, rel: str, fig_id: str) -> dict:
    """A chart's figure as the page embeds it (its JSON script)."""
    text = (site / rel).read_text(encoding="utf-8")
    return json.loads(re.search(rf'<script type="application/json" id="{fig_id}">(.*?)</script>', text, re.S).group(1))


@pytest.mark.parametrize("rel, fig_id", [("kernels/pa/index.html", "fig-shapes"), ("index.html", "fig-overview-speedups")])
def test_a_chart_is_sketched_before_plotly_arrives_and_plotly_takes_its_place(site, browser, rel, fig_id):
    """The first chart of pa's page and of the overview, with plotly.js held back: site.js has drawn
    every marker of the figure's traces (a point a shape with a positive value, as the log axis
    shows them) and the axis labels the figure names, and asked for plotly.js after it; without the
    hold, plotly.js redraws the chart and the sketch is gone."""
    fig = figure_of(site, rel, fig_id)
    points = sum(1 for t in fig["data"] if "markers" in t.get("mode", "") and t.get("visible", True) is True
                 for x, y in zip(t["x"], t["y"]) if x is not None and y is not None
                 and all(v > 0 for v, ax in ((x, "xaxis"), (y, "yaxis"))
                         if fig["layout"][ax].get("type") == "log" and not isinstance(v, str)))
    axis = fig["layout"]["yaxis"]
    labels = axis.get("ticktext") or axis["categoryarray"]
    held = browser.new_page(viewport={"width": 1400, "height": 1000})
    held.add_init_script(HOLD_PLOTLY)
    held.goto(url(site, rel))
    held.locator(f'.chart[data-figure="{fig_id}"]').scroll_into_view_if_needed()
    held.wait_for_function("() => window.__plotlyAsked", timeout=30_000)
    # pa's page draws its where-it-loses chart first: wait for this chart's own sketch
    held.wait_for_function(f"""() => document.querySelector('.chart[data-figure="{fig_id}"] svg.chart-sketch')""",
                           timeout=30_000)
    sketch = held.evaluate(SKETCH, fig_id)
    held.close()
    assert sketch["points"] == points > 0
    assert set(labels) <= set(sketch["labels"])
    tab = Tab(browser)
    page = tab.open(url(site, rel))
    chart = page.locator(f'.chart[data-figure="{fig_id}"]')
    chart.scroll_into_view_if_needed()
    page.wait_for_function(f"""() => document.querySelector('.chart[data-figure="{fig_id}"] .main-svg g.trace')""")
    assert chart.locator("svg.chart-sketch").count() == 0 and tab.errors == []
    tab.close()


def test_a_capture_that_is_not_the_primary_opens_on_demand(site, browser):
    """flash_attn_func (four captures on the whole sweep, its primary the second): the primary's readings show,
    the others' fold under one line; a link into a folded capture opens it."""
    rel = "kernels/flash_attn_func/index.html"
    tab = Tab(browser)
    page = tab.open(url(site, rel))
    caps = page.evaluate("() => Array.from(document.querySelectorAll('article.capture')).map(a => [a.id,"
                         " !!a.querySelector('h3 .pill[data-i18n=\"cap.primary\"]'), a.querySelector('details.capture-body') ? a.querySelector("
                         "'details.capture-body').open : null])")
    primary = [c for c in caps if c[1]]
    assert len(primary) == 1 and primary[0][2] is None  # the primary is never folded
    assert all(c[2] is False for c in caps if not c[1])  # every other capture folded
    if len(caps) > 1:
        other = next(c[0] for c in caps if not c[1])
        page.goto(url(site, rel) + f"#{other}-f0")  # a file row inside the folded capture
        page.wait_for_function(f"() => document.querySelector('#{other} details.capture-body').open")
        page.wait_for_function(CHARTS_DRAWN)  # its charts draw once shown
    assert tab.errors == []
    tab.close()
