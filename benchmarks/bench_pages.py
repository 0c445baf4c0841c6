"""Print how fast the site's pages load in real Chromium, side by side with a page you pass in
(a benchmark, not a test).

Budgets (issue 23, point 1), each a ratio against the ANCHOR page's load event, all measured
in the same run, from file://, medians of 5 rounds:

* the overview's DOMContentLoaded <= 2x;
* the overview's first chart drawn <= 5x;
* a heavy kernel page's first chart drawn <= 6x.

The anchor defaults to the sweep's own hand-made dashboard, ``docs/index.html`` of the shared
sweep. It asks for web fonts an offline machine cannot reach: every host name resolves to
nothing (Chromium's ``--host-resolver-rules``), so those requests fail at once instead of
waiting for a timeout, and no request of any page is intercepted (that would slow file://).

Each load runs in a fresh browser context (no cache, no storage). "First chart drawn" is the
moment a chart's traces first appear in a page (a MutationObserver installed before the page's
own scripts): the site's own SVG sketch of the figure (``svg.chart-sketch g.trace``, issue 41) or a
plotly trace (``.js-plotly-plot .main-svg g.trace``), whichever comes first; ``plotly`` is when
plotly.js has drawn the first chart (interactive), the page scrolled to its first chart as soon
as its DOM is ready (as a reader who follows a link to it: the site draws a chart when it comes
into view, and a kernel page's first chart is below the fold); first contentful paint is the
browser's own.

    python3 benchmarks/bench_pages.py [--site DIR] [--anchor PAGE] [--kernel SLUG] [--rounds 5]

Without ``--site``, the shared sweep is built into a temporary folder first (removed after).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SWEEP = REPO.parent / "shared" / "mi350x-sweep"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--host-resolver-rules=MAP * ~NOTFOUND"]
BUDGETS = (("overview", "dcl", 2.0), ("overview", "chart", 5.0), ("kernel", "chart", 6.0))

# Installed before any script of the page: the time the first plotly trace is in the document.
WATCH = """(() => {
  const seen = () => document.querySelector('.js-plotly-plot .main-svg g.trace, .chart svg.chart-sketch g.trace');
  const live = () => document.querySelector('.js-plotly-plot .main-svg g.trace');
  const obs = new MutationObserver(() => {
    if (!window.__firstChart && seen()) { window.__firstChart = performance.now(); }
    if (live()) { window.__firstPlotly = performance.now(); obs.disconnect(); }
  });
  obs.observe(document, {subtree: true, childList: true});
  document.addEventListener('DOMContentLoaded', () => {
    const first = document.querySelector('.chart');
    if (first) { first.scrollIntoView({block: 'center'}); }
  });
})();"""

TIMES = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return {dcl: nav.domContentLoadedEventStart, load: nav.loadEventStart,
          fcp: fcp ? fcp.startTime : null, chart: window.__firstChart || null, plotly: window.__firstPlotly || null};
}"""


def heavy_kernel(site: Path) -> str:
    """The kernel page with the most charts (ties: the larger file)."""
    def weight(p: Path) -> tuple[int, int]:
        text = p.read_text(encoding="utf-8")
        return text.count('class="chart"'), len(text)
    return max(sorted(site.glob("kernels/*/index.html")), key=weight).parent.name


def measure(browser, url: str, charts: bool) -> dict[str, float | None]:
    """One cold load of ``url``: DOMContentLoaded, load, first contentful paint, first chart (ms)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(WATCH)
    page.goto(url, wait_until="load")
    if charts:
        page.wait_for_function("() => window.__firstChart", timeout=60_000)
    else:
        page.wait_for_timeout(200)  # a chart drawn just after load still counts
    times = page.evaluate(TIMES)
    context.close()
    return times


def local_size(address: str) -> int:
    """Bytes of a file:// address (a request the offline machine cannot answer fetches nothing)."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(address)
    if parsed.scheme != "file":
        return 0
    try:
        return Path(unquote(parsed.path)).stat().st_size
    except OSError:
        return 0


def view(browser, url: str, charts: bool) -> dict:
    """One cold load of ``url`` as ``measure`` does, with what the browser fetched for the first view
    (playwright's request events: every request started before the first chart was drawn, by its
    ``timing["startTime"]``, or before the load event for a page without charts): ``bytes``,
    ``requests`` (file names), and the page's height once loaded (``height``, px: the page as
    opened, every fold closed)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    asked: list = []
    page.on("requestfinished", lambda r: asked.append(r))
    page.on("requestfailed", lambda r: asked.append(r))
    page.add_init_script(WATCH)
    page.goto(url, wait_until="load")
    if charts:
        page.wait_for_function("() => window.__firstChart && window.__firstPlotly", timeout=60_000)
    else:
        page.wait_for_timeout(200)
    times = page.evaluate(TIMES)
    times["height"] = page.evaluate("() => document.documentElement.scrollHeight")
    origin = page.evaluate("() => performance.timeOrigin")
    context.close()
    until = origin + (times["chart"] if charts else times["load"])
    first = [r for r in asked if r.timing["startTime"] <= until]
    times["bytes"] = sum(local_size(r.url) for r in first)
    times["requests"] = [r.url.rsplit("/", 1)[-1][:40] for r in first]
    return times


def median(values: list[float | None]) -> float | None:
    """The median of the values measured (None when none was)."""
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


def run(site: Path, anchor: Path, slug: str, rounds: int, browser=None) -> dict[str, dict[str, float | None]]:
    """Medians over ``rounds`` rounds; each round loads the anchor, the overview, the kernel page
    (in ``browser``, a playwright Chromium, else one launched here)."""
    if browser is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            own = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                return run(site, anchor, slug, rounds, own)
            finally:
                own.close()
    pages = {"anchor": (anchor.resolve().as_uri(), False),
             "overview": ((site / "index.html").resolve().as_uri(), True),
             "kernel": ((site / "kernels" / slug / "index.html").resolve().as_uri(), True)}
    samples: dict[str, list[dict]] = {name: [] for name in pages}
    for name, (address, charts) in pages.items():  # one warm-up load each, not counted
        measure(browser, address, charts)
    for _ in range(rounds):
        for name, (address, charts) in pages.items():
            samples[name].append(measure(browser, address, charts))
    return {name: {k: median([s[k] for s in got]) for k in ("dcl", "load", "fcp", "chart")}
            for name, got in samples.items()}


def show(value: float | None) -> str:
    return "      -" if value is None else f"{value:7.0f}"


def report(result: dict[str, dict[str, float | None]], slug: str, anchor: Path, rounds: int) -> int:
    """Print the table and the ratios against the budgets; the number of budgets missed."""
    print(f"medians of {rounds} cold loads from file:// (ms)   anchor: {anchor}")
    print(f"{'page':<28}{'DOMContentLoaded':>17}{'load':>8}{'first paint':>12}{'first chart':>12}")
    names = {"anchor": "anchor", "overview": "overview", "kernel": f"kernel {slug}"}
    for key, row in result.items():
        print(f"{names[key]:<28}{show(row['dcl']):>17}{show(row['load']):>8}{show(row['fcp']):>12}{show(row['chart']):>12}")
    base = result["anchor"]["load"]
    missed = 0
    for page, what, budget in BUDGETS:
        value = result[page][what]
        ratio = value / base if value is not None and base else float("inf")
        ok = ratio <= budget
        missed += not ok
        label = "DOMContentLoaded" if what == "dcl" else "first chart"
        print(f"{names[page]} {label} / anchor load: {ratio:5.2f}x   budget {budget:.0f}x  {'ok' if ok else 'MISSED'}")
    return missed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, help="a built site (default: build the shared sweep into a temporary folder)")
    ap.add_argument("--anchor", type=Path, default=SWEEP / "docs" / "index.html", help="the page to compare with")
    ap.add_argument("--kernel", help="the kernel page's slug (default: the one with the most charts)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    if not args.anchor.is_file():
        ap.error(f"{args.anchor}: no such page (pass --anchor PAGE)")
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        site = args.site
        if site is None:
            from generator.site import build

            site = Path(tmp) / "site"
            build.build_site(SWEEP, site, progress=False, jobs=None)
        slug = args.kernel or heavy_kernel(site)
        result = run(site, args.anchor, slug, args.rounds)
    return 1 if report(result, slug, args.anchor, args.rounds) else 0


if __name__ == "__main__":
    sys.exit(main())
