"""Issue 33 in headless Chromium: the history page of four weekly sweeps answers, on its first screen
at 1440 x 900, what the latest sweep changed, and lists every kernel of every sweep.

Same browser and helpers as ``test_browser.py`` (Debian's ``/usr/bin/chromium``; skips without it); the
sweeps are ``test_history_page.WEEKS``.
"""

from __future__ import annotations

import json

from test_browser import Tab, browser, english_left, url  # noqa: F401  (fixture)
from test_history_page import build_weeks

FIRST_SCREEN = {"width": 1440, "height": 900}


def test_the_first_screen_says_what_the_latest_sweep_changed(sweep, tmp_path, browser):
    out, hist, _ = build_weeks(sweep, tmp_path)
    tab = Tab(browser, **FIRST_SCREEN)
    page = tab.open(url(out, "history.html"))
    page.evaluate("() => window.scrollTo(0, 0)")
    seen = page.evaluate("""() => {
        const inView = e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; };
        const lead = document.getElementById('latest');
        return {lead: inView(lead),
                groups: Array.from(lead.querySelectorAll('.lead-group')).map(g => [g.className, inView(g),
                    Array.from(g.querySelectorAll('li > a')).map(a => a.textContent)]),
                summary: lead.querySelector('.lead-summary').innerText};
    }""")
    assert seen["lead"], "the lead does not fit the first screen"
    assert seen["groups"] == [["lead-group lead-regressed", True, ["Vector Add"]],
                              ["lead-group lead-compared", True, ["Per-Token Quant"]],
                              ["lead-group lead-new", True, ["Paged-Attn Decode (PS)"]],
                              ["lead-group lead-removed", True, ["MoE Block-Scale (2-stage)"]]]
    assert seen["summary"] == ("w4 against w3: regressions: 1 · improvements: 0 · comparison changes: 1 · "
                               "new kernels: 1 · removed kernels: 1")
    tab.shot("history-lead")
    # every kernel of every sweep has its section, those of this sweep in overview order, the removed one last
    rows = [k["slug"] for k in json.loads((out / "api/index.json").read_text())["kernels"]]
    assert page.eval_on_selector_all("section.panel", "ps => ps.map(p => p.id)") == [
        f"h-{s}" for s in rows] + ["h-moe_blockscale"]
    assert page.locator(".chart.js-plotly-plot").count() == 4  # each has a ratio in some sweep
    page.click('.lead-regressed a[href="#h-vec_add"]')
    assert page.evaluate("() => { const r = document.getElementById('h-vec_add').getBoundingClientRect();"
                         " return r.top >= -1 && r.top < window.innerHeight; }")
    page.click("#lang-toggle")
    assert english_left(page, "#latest") == []
    assert tab.errors == []
    tab.close()
