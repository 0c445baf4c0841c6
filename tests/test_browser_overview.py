"""The overview a reader scans (issue 34), measured in Chromium: the first screen defines the ratio and
its clock and names its counts, the sweep reading starts early, the kernel table fits 1440 px at a line
a kernel, a phone keeps every timed kernel's ratio in view, the charts' legend never lands on their
axis title, and no page is taller than 30,000 px as opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ON_SLICE  # the same test folder

from test_browser import Tab, browser, site, url  # noqa: F401  (fixtures of the same folder)
from test_browser_pages import CHART_GEOMETRY, overlap

DESK = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
VERDICTS = ("WIN", "PARITY", "HEADROOM", "BLOCKED")


def kernels(site: Path) -> list[dict]:
    return json.loads((site / "api" / "index.json").read_text(encoding="utf-8"))["kernels"]


def profiled(sweep: Path) -> set[str]:
    """Bundles with at least one ATT capture (a code.json) or NCU export, counted from the files."""
    ex = sweep / "examples"
    return {d.name for d in ex.iterdir() if d.is_dir() and (any(d.glob("att_viewer/*/ui_output_agent_*/code.json"))
                                                            or any(d.glob("ncu/*/*.csv")))}


def box(page, sel: str) -> dict:
    return page.evaluate("s => { const r = document.querySelector(s).getBoundingClientRect();"
                         " return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right}; }", sel)


def test_the_first_screen_defines_the_ratio_its_clock_and_its_counts(site, sweep, browser):  # noqa: F811
    tab = Tab(browser, **DESK)
    page = tab.open(url(site, "index.html"))
    page.evaluate("() => window.scrollTo(0, 0)")
    for sel in ("#metric", "#counts", "#reading-top"):
        assert box(page, sel)["bottom"] <= DESK["height"], sel  # all of it on the first screen
    metric = page.inner_text("#metric")
    assert "best comparable baseline's time ÷ flydsl's time" in metric and "above 1.00x, flydsl is faster" in metric
    assert "graph replay (median_us)" in metric and "launch overhead" in metric  # 1,900 of 1,953 rows graph-replayed
    rows = kernels(site)
    timed = {r["slug"] for r in rows if r["verdict"] in VERDICTS}
    prof = profiled(sweep)
    ledger = sum(r["n_shapes"] or 0 for r in rows)
    counts = page.inner_text("#counts")
    assert counts.startswith(f"{len(rows)} kernels: {len(prof)} profiled, {len(timed)} timed, {len(prof & timed)} both")
    assert f"{ledger:,} ledger shapes" in counts
    scope = page.inner_text("#measured")  # the same timed shapes as "How it was measured" counts them
    shapes = counts.rsplit(", ", 1)[1].split(" ")[0]
    assert f"{shapes} timed shapes" in scope
    if len(rows) == 19:  # the whole sweep: 13 bundles with a capture, 13 timed, pa_mqa_logits_fp4 without campaign
        assert counts == "19 kernels: 13 profiled, 13 timed, 12 both · 866 ledger shapes, 484 timed"
    # the top of the reading: its first three groups, each link landing on its group below
    links = page.eval_on_selector_all("#reading-top ol a", "as => as.map(a => [a.getAttribute('href'), a.innerText])")
    groups = page.eval_on_selector_all("#reading > ul > li", "ls => ls.map(l => [l.id, l.querySelector('strong').innerText])")
    assert len(links) == min(3, len(groups)) > 0
    assert [(h, t) for h, t in links] == [("#" + i, t) for i, t in groups[:len(links)]]
    assert box(page, "#reading")["top"] < 2700  # within the first three screens
    page.click("#reading-top ol a >> nth=1")
    assert page.evaluate("() => location.hash") == "#reading-2"
    page.click("#lang-toggle")
    assert "时钟" in page.inner_text("#metric") and "台账形状" in page.inner_text("#counts")
    assert tab.errors == []
    tab.shot("overview-first-screen")
    tab.close()


ROWS = """() => Array.from(document.querySelectorAll('#kernel-table tr.krow')).filter(r => r.offsetParent).map(r => {
    const lines = s => { const e = r.querySelector(s); return e ? e.getClientRects().length : 0; };
    const h = s => { const e = r.querySelector(s); return e ? e.getBoundingClientRect().height : 0; };
    return {id: r.id, height: r.getBoundingClientRect().height, badge: lines('td.verdict .badge'),
            ratio: lines('td.ratio > span'), ratio_h: h('td.ratio > span'), interval: h('td.interval'), launch: h('td.launch'),
            sev: h('td.sev-cell'), diag: r.querySelector('td.diag details:not([open])') !== null || !r.querySelector('td.diag .first-step')};
})"""


def test_the_kernel_table_fits_1440_px_at_a_line_a_kernel(site, browser):  # noqa: F811
    tab = Tab(browser, **DESK)
    page = tab.open(url(site, "index.html"))
    t = page.evaluate("() => { const t = document.getElementById('kernel-table');"
                      " return [t.scrollWidth, t.clientWidth, t.getBoundingClientRect().height]; }")
    assert t[0] <= t[1] + 1, t  # no sideways scroll
    rows = page.evaluate(ROWS)
    assert len(rows) == len(kernels(site))
    # a kernel a line: its row, and with the header and category rows over the whole sweep (on the slice's 8
    # kernels in 5 categories those rows alone would make the average)
    assert max(r["height"] for r in rows) <= 110 and (ON_SLICE or t[2] / len(rows) <= 110), (t[2], rows)
    line = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#kernel-table td.ratio > span')).lineHeight)"
                         " || 16")
    for r in rows:
        assert r["badge"] == 1 and r["ratio"] == 1, r  # the verdict and its ratio each on one line
        assert r["ratio_h"] <= 1.5 * line, r
        assert r["diag"], r  # the diagnosis's rest and first step folded
    # the two clock cells (rules 14 and 13): numbers only, their words in the title
    api = {k["slug"]: k for k in json.loads((site / "api" / "index.json").read_text())["kernels"]}
    cells = page.eval_on_selector_all("#kernel-table tr.krow", "rs => rs.map(r => [r.id.slice(2), "
                                      "r.querySelector('td.interval').innerText, r.querySelector('td.launch').innerText])")
    for slug, interval, launch in cells:
        ci, lo = api[slug].get("verdict_ci"), api[slug].get("launch_overhead_us")
        if api[slug].get("launch_reading") == "kernel":  # most of the call gap is kernel time: its launch path shown
            lo = api[slug]["launch_path_us"]
        if api[slug].get("launch_reading") == "scope":  # the fastest call times other work: none can be read (audit4)
            lo = None
        assert interval.replace("\n", "") == (f"{ci[0]:.2f}\u2013{ci[1]:.2f}" if ci else "\u2014"), slug
        assert launch.rstrip("\u2020") == (f"{lo[0]:+.0f}" if lo else "\u2014"), slug
    heads = page.eval_on_selector_all("#kernel-table thead th", "ts => ts.map(t => t.getAttribute('data-i18n'))")
    assert heads[:6] == ["col.kernel", "col.verdict", "col.geomean", "col.interval", "col.launch", "col.severity"]
    # the severity's sentence is the word's title; the diagnosis opens on demand
    sev = page.locator("#kernel-table td.sev-cell .sev").first
    assert "reach parity" in sev.get_attribute("title")
    d = page.locator("#kernel-table td.diag details").first
    rest = d.locator(".first-step")
    assert not rest.is_visible()
    d.locator("summary").click(position={"x": 2, "y": 6})
    assert rest.is_visible() and page.url.endswith("index.html")  # opening it did not follow the row's link
    assert tab.errors == []
    tab.close()


def test_on_a_phone_every_timed_kernel_s_ratio_is_in_view_and_groups_keep_their_label(site, browser):  # noqa: F811
    tab = Tab(browser, **PHONE)
    page = tab.open(url(site, "index.html"))
    seen = page.evaluate("""() => Array.from(document.querySelectorAll('#kernel-table tr.krow')).filter(r => r.offsetParent)
        .map(r => { const b = r.querySelector('td.ratio > span').getBoundingClientRect(), n = r.cells[0].getBoundingClientRect(),
                          v = r.querySelector('td.verdict .badge').getBoundingClientRect();
                    return [r.id, r.querySelector('td.ratio > span').innerText, b.left, b.right, n.left, v.right]; })""")
    timed = [s for s in seen if s[1] != "—"]
    assert len(timed) == len([r for r in kernels(site) if r["verdict_value"] is not None]) > 0
    for slug, _, left, right, name_left, verdict_right in seen:
        assert name_left >= 0 and verdict_right <= PHONE["width"], slug
    for slug, _, left, right, _, _ in timed:
        assert left >= 0 and right <= PHONE["width"], (slug, left, right)
    # scrolled sideways, each category row keeps its label in view (no blank band)
    page.evaluate("() => { document.getElementById('kernel-table').scrollLeft = 100000; }")
    page.wait_for_function("() => document.getElementById('kernel-table').scrollLeft > 0")
    labels = page.evaluate("""() => Array.from(document.querySelectorAll('#kernel-table tr.group-head .group-label'))
        .filter(e => e.offsetParent).map(e => { const r = e.getBoundingClientRect(); return [e.innerText, r.left, r.right]; })""")
    assert labels and all(left >= 0 and right > left + 20 and left < PHONE["width"] for _, left, right in labels), labels
    tab.shot("phone-overview-ratios")
    assert tab.errors == []
    tab.close()


def chart_boxes(browser, site: Path, viewport: dict) -> list[dict]:  # noqa: F811
    tab = Tab(browser, **viewport)
    page = tab.open(url(site, "index.html"))
    if page.locator('#rank-headline').count():
        page.check('input[name="rank"][value="headline"]')
    page.wait_for_function("() => Array.from(document.querySelectorAll('.chart')).filter(e => e.offsetParent)"
                           ".every(e => e.querySelector('.main-svg'))")
    out = page.evaluate(CHART_GEOMETRY)
    if page.locator('#rank-headline').count():
        page.check('input[name="rank"][value="geomean"]')
        out += page.evaluate(CHART_GEOMETRY)
    assert tab.errors == []
    tab.close()
    return out


@pytest.mark.parametrize("which", ["demo", "sweep"])
@pytest.mark.parametrize("viewport", [DESK, PHONE], ids=["1440", "390"])
def test_the_overview_charts_legend_never_lands_on_the_axis_title(which, viewport, request, browser):  # noqa: F811
    site = request.getfixturevalue("demo_site" if which == "demo" else "site")
    charts = chart_boxes(browser, site, viewport)
    assert {c["id"] for c in charts} >= {"fig-overview-speedups"}
    for c in charts:
        x, legend = c["titles"]["x"]["box"], c["legend"]
        assert x is not None and legend is not None, c
        assert overlap(x, legend) == 0 and legend["top"] >= x["bottom"] - 1, (c["id"], x, legend)
        assert legend["bottom"] <= c["height"] + 1 and x["top"] >= 0, c


def test_every_page_is_under_30000_px_as_opened(site, browser):  # noqa: F811
    tab = Tab(browser, **DESK)
    tall = {}
    for p in sorted(site.rglob("*.html")):
        tab.page.goto(p.as_uri(), wait_until="load")
        tall[p.relative_to(site).as_posix()] = tab.page.evaluate("() => document.documentElement.scrollHeight")
    assert max(tall.values()) < 30_000, max(tall.items(), key=lambda kv: kv[1])
    assert "docs/commands.html" in tall and "glossary.html" in tall  # the reference pages are in the site
    assert tab.errors == []
    tab.close()
