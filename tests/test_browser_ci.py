"""The CI stream's pages (``build --ci``) in headless Chromium: from file:// and over http, at 1400 px and
at a phone's 390 px, no console error and no horizontal overflow; a trend chart is drawn when it comes
into view and follows the language; a kernel page's CI panel leads to its series.

Same browser and helpers as ``test_browser.py`` (Debian's ``/usr/bin/chromium``; skips without it)."""

from __future__ import annotations

import threading

import pytest

from test_browser import NO_OVERFLOW, Tab, browser, url  # noqa: F401  (fixture)
from test_ci_site import build_ci
from test_ci_stream import stream  # noqa: F401  (fixture)
from generator.commands import serve

PAGES = ["ci/index.html", "ci/speedups.html", "ci/devices.html"]


@pytest.fixture(scope="module")
def ci_site(stream, tmp_path_factory):
    out = tmp_path_factory.mktemp("ci-browser") / "site"
    assert build_ci(out, *stream) == 0
    return out


def sample(site) -> list[str]:
    """The landing, speedups and devices pages, the largest PR page and the largest op page."""
    biggest = lambda pattern: max(site.glob(pattern), key=lambda p: p.stat().st_size).relative_to(site).as_posix()
    return PAGES + [biggest("ci/pr-*.html"), biggest("ci/op-*.html")]


def test_pages_load_clean_at_desktop_and_phone_width(ci_site, browser):
    for width in (1400, 390):
        tab = Tab(browser, width=width)
        for rel in sample(ci_site):
            page = tab.open(url(ci_site, rel))  # waits for every chart of the page to be drawn
            assert page.evaluate(NO_OVERFLOW), (width, rel, page.evaluate("document.documentElement.scrollWidth"))
        assert tab.errors == []
        tab.close()


def test_a_trend_chart_draws_its_band_and_pairs_and_speaks_chinese(ci_site, browser):
    rel = "ci/op-linux-flydsl-mi355-1--moe-fp4-s2-atomic.html"
    if not (ci_site / rel).is_file():
        pytest.skip("the stream has no mi355 moe_fp4_s2_atomic series")
    tab = Tab(browser)
    page = tab.open(url(ci_site, rel))
    drawn = page.locator(".chart.js-plotly-plot")
    assert drawn.count() == page.locator(".chart").count() > 0
    legend = page.evaluate("() => Array.from(document.querySelector('.chart.js-plotly-plot').querySelectorAll('.legendtext')).map(e => e.textContent)")
    assert sorted(legend) == ["PR against main (paired)", "main against the tag", "noise band"]
    page.click("#lang-toggle")
    legend = page.evaluate("() => Array.from(document.querySelector('.chart.js-plotly-plot').querySelectorAll('.legendtext')).map(e => e.textContent)")
    assert sorted(legend) == sorted(["PR 对比 main（配对）", "main 对比标签", "噪声带"])
    assert page.inner_text("h1 + nav a") == "健康状况与拉取请求"
    assert tab.errors == []
    tab.close()


def test_served_over_http_a_pr_link_opens_its_check(ci_site, browser):
    server = serve.make_server(str(ci_site), 0)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        tab = Tab(browser, width=390)
        page = tab.open(f"http://127.0.0.1:{port}/")  # the front page opens ci/
        page.wait_for_url(f"http://127.0.0.1:{port}/ci/index.html")
        first = page.locator("#prs tbody a").first
        pr = first.inner_text()
        first.click()
        page.wait_for_load_state()
        assert page.url == f"http://127.0.0.1:{port}/ci/pr-{pr.lstrip('#')}.html"
        assert pr in page.inner_text("h1")
        assert page.evaluate(NO_OVERFLOW)
        assert tab.errors == []
        tab.close()
    finally:
        server.shutdown()


@pytest.mark.full_sweep
def test_the_kernel_panel_leads_to_its_ci_series(stream, sweep, tmp_path, browser):
    out = tmp_path / "site"
    assert build_ci(out, *stream, str(sweep), "--jobs", "1") == 0
    tab = Tab(browser, width=390)
    page = tab.open(url(out, "kernels/rmsnorm/index.html"))
    assert page.evaluate(NO_OVERFLOW)
    page.locator("#ci a").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("--rmsnorm.html") and page.inner_text("h1").startswith("rmsnorm")
    page.click("text=This op's kernel page in the sweep")
    page.wait_for_load_state()
    assert page.url.endswith("kernels/rmsnorm/index.html")
    assert tab.errors == []
    tab.close()


#: Words the 中文 CI pages keep as they are: the product names, git's branch and the stream's own terms.
CI_TOKENS = {"CI", "main", "PR", "FlyDSL", "AIter", "runs", "json", "wheel", "p90", "aiter_us", "flydsl_us",
             "flydsl", "aiter", "TFLOPS", "TB"}


def test_chinese_leaves_no_english_interface_word(ci_site, browser):
    from test_browser import english_left

    tab = Tab(browser)
    for rel in sample(ci_site):
        page = tab.open(url(ci_site, rel))
        page.click("#lang-toggle")
        left = [w for w in english_left(page) if w.split(" ", 1)[0] not in CI_TOKENS]
        assert left == [], (rel, left[:10])
        page.click("#lang-toggle")  # back to English for the next page
    assert tab.errors == []
    tab.close()
