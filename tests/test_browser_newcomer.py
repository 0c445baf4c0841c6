"""What a newcomer sees in Chromium (issue 23, 3, 4 and 7): the glossary reached from a page, term
links that survive the language switch, the flagged-verdict marker explained and visible in dark mode."""

from __future__ import annotations

import json

from test_browser import CHARTS_DRAWN, Tab, browser, site, url  # noqa: F401  (fixtures of the same folder)

TERMS = "() => Array.from(document.querySelectorAll('main a.term')).map(a => [a.getAttribute('href'), a.textContent])"


def test_the_glossary_is_one_click_away_and_its_links_land_on_entries(site, browser):  # noqa: F811
    tab = Tab(browser)
    page = tab.open(url(site, "kernels/pa/index.html"))
    links = dict(page.evaluate(TERMS))
    assert links["../../glossary.html#working-waves"] == "working waves"
    page.click("main a.term[href$='#working-waves']")
    page.wait_for_url("**/glossary.html#working-waves")
    assert page.evaluate("() => document.querySelector(':target').id") == "working-waves"
    assert "exits early" in page.inner_text("dt#working-waves + dd")
    page.click(".topbar a[href='index.html']")
    page.wait_for_function(CHARTS_DRAWN)
    page.click(".topbar a[href='glossary.html']")
    assert page.inner_text("h1") == "Glossary"
    assert tab.errors == []
    tab.close()


def test_term_links_follow_the_language_switch(site, browser):  # noqa: F811
    tab = Tab(browser)
    page = tab.open(url(site, "index.html"))
    english = page.evaluate(TERMS)
    assert ["glossary.html#geomean", "geomean"] in english
    # issue 34: geomean's first use is the first screen's metric line, computed text in two halves: its
    # English half is linked (a 中文 half never is, terms.py)
    assert page.get_attribute("#metric a.term", "href") == "glossary.html#geomean"
    page.click("#lang-toggle")
    chinese = dict(page.evaluate(TERMS))
    assert chinese["glossary.html#headline-pair"] == "代表性对比"  # the chart's help, rewritten in 中文, linked again
    page.click("#lang-toggle")
    assert page.evaluate(TERMS) == english
    assert tab.errors == []
    tab.close()


def test_the_overview_says_how_it_was_measured_in_both_languages(site, browser):  # noqa: F811
    tab = Tab(browser)
    page = tab.open(url(site, "index.html"))
    block = page.inner_text("#measured")
    assert "How it was measured" in block and "rows graph-replayed, L2 flushed before each sample" in block
    page.click("#lang-toggle")
    block = page.inner_text("#measured")
    assert "测量方式" in block and "行以图重放计时，每次采样前清空 L2" in block and "graph-replayed" not in block
    assert tab.errors == []
    tab.close()


STROKE = {"WIN": "rgb(45, 164, 78)", "HEADROOM": "rgb(212, 116, 44)"}  # the verdict colors in dark mode
# the points of the verdict traces (named WIN, PARITY, HEADROOM, BLOCKED), as drawn: fill, stroke, width
OPEN_POINTS = """() => { const gd = document.querySelector('#rank-geomean .chart');
  const traces = Array.from(gd.querySelectorAll('.scatterlayer .trace'));
  return gd.data.flatMap((t, i) => ['WIN', 'PARITY', 'HEADROOM', 'BLOCKED'].includes(t.name)
    ? Array.from(traces[i].querySelectorAll('.point')).map(p => {
        const s = getComputedStyle(p); return [s.fill, s.stroke, s.strokeWidth]; }) : []); }"""


def test_open_diamonds_stand_out_in_dark_mode(site, browser):  # noqa: F811
    tab = Tab(browser, scheme="dark")
    page = tab.open(url(site, "index.html"))
    assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") != "rgb(255, 255, 255)"
    points = page.evaluate(OPEN_POINTS)
    hollow = [p for p in points if p[0] in ("none", "rgba(0, 0, 0, 0)")]
    # moe_gemm (WIN), moe_blockscale, fused_rope_cache (HEADROOM): by the headline pair; on the slice moe_blockscale
    kernels = json.loads((site / "api" / "index.json").read_text())["kernels"]
    flagged = [k["verdict"] for k in kernels  # a BLOCKED verdict (fused_rope_cache: its pair is call time) has no dot
               if (k["verdict_basis"] not in (None, "shapes") or "not_like_for_like" in k["flags"])
               and k["verdict_value"] is not None]
    assert len(hollow) == len(flagged) > 0
    assert sorted(p[1] for p in hollow) == sorted(STROKE[v] for v in flagged), hollow
    assert all(float(p[2].rstrip("px")) >= 2.5 for p in hollow), hollow
    assert page.is_visible('p[data-i18n="chart.overview.open"]')
    tab.shot("overview-dark-open-diamonds")
    assert tab.errors == []
    tab.close()


BROKEN_LABELS = """() => Array.from(document.querySelectorAll('.facts dt')).filter(dt => dt.checkVisibility()).map(dt => {
  const r = document.createRange(); r.selectNodeContents(dt);
  const tops = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0).map(x => Math.round(x.top)));
  return [dt.textContent.trim(), tops.size]; }).filter(([text, lines]) => !/\\s/.test(text) && lines > 1)"""


def test_labels_never_wrap_inside_a_word_on_a_phone(site, browser):  # noqa: F811
    # moe_gemm's facts hold the longest labels; the slice has the campaign page of moe_blockscale instead
    kernel_pages = [f"kernels/{slug}/index.html" for slug in ("moe_gemm", "moe_blockscale")]
    for rel in ["index.html", "kernels/pa/index.html"] + [p for p in kernel_pages if (site / p).is_file()][:1]:
        tab = Tab(browser, width=390, height=844)
        page = tab.open(url(site, rel))
        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        labels = page.evaluate("() => Array.from(document.querySelectorAll('.facts dt')).map(dt => dt.textContent.trim())")
        assert "commits" in labels or rel == "index.html", labels
        assert page.evaluate(BROKEN_LABELS) == [], rel
        tab.close()
