"""The overview's chart lays out at any number of kernels (issue 34): drawn by the vendored plotly.js in
Chromium for 1, 5, 40 and 2,000 HAND-MADE kernel rows (the real sweep has 13 on its chart, the demo 5:
tests/test_browser_overview.py measures those), its legend never meets its x-axis title, and neither
leaves the figure."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from generator.site import charts, render
from test_browser import browser  # noqa: F401  (fixture of the same folder)
from test_browser_pages import overlap

GEOMETRY = """() => { const e = document.getElementById('fig'), box = e.getBoundingClientRect();
  const rel = r => ({left: r.left - box.left, right: r.right - box.left, top: r.top - box.top, bottom: r.bottom - box.top});
  return {height: box.height, x: rel(e.querySelector('.g-xtitle text').getBoundingClientRect()),
          legend: rel(e.querySelector('.legend').getBoundingClientRect()),
          ticks: Math.max(...Array.from(e.querySelectorAll('.xtick text')).map(t => rel(t.getBoundingClientRect()).bottom)),
          plot: e._fullLayout._size}; }"""


def handmade_rows(n: int) -> list[SimpleNamespace]:
    """``n`` HAND-MADE overview rows, a quarter of them WIN, the rest HEADROOM, with a few shape dots."""
    rows = []
    for i in range(n):
        win = i % 4 == 0
        ratio = 1.2 + i % 7 / 10 if win else 0.5 + i % 9 / 20
        rows.append(SimpleNamespace(
            name=f"kernel {i:04d}", ratio=ratio, ratio_text=f"{ratio:.2f}x", verdict="WIN" if win else "HEADROOM", verdict_label="WIN" if win else "HEADROOM",
            shape_speedups=[ratio * 0.9, ratio * 1.1], floor_speedups=[1.0] if i % 5 == 0 else [], shape_baselines=[],
            wins_text="1 of 2", wins_zh="", flags=[], flag_keys=[], basis_text="", basis_zh=""))
    return rows


@pytest.mark.parametrize("n", [1, 5, 40, 2000])
def test_the_overview_chart_keeps_its_legend_off_the_axis_title_at_any_number_of_kernels(n, tmp_path, browser):  # noqa: F811
    fig = charts.speedup_overview(handmade_rows(n), 1.05, 0.95)
    assert fig["layout"]["height"] == max(200, 34 * n) + 10 + charts.FOOT_AXIS + charts.FOOT_LEGEND
    page_file = tmp_path / "chart.html"
    page_file.write_text(
        f'<!doctype html><html><body style="margin:0"><div id="fig" style="width:1360px"></div>'
        f'<script src="{render.PLOTLY_BASIC.as_uri()}"></script>'
        f'<script>const f = {json.dumps(fig)}; Plotly.newPlot("fig", f.data, f.layout).then(() => {{ window.drawn = true; }});</script>'
        f'</body></html>', encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(page_file.as_uri())
    page.wait_for_function("() => window.drawn === true", timeout=60_000)
    g = page.evaluate(GEOMETRY)
    page.close()
    x, legend = g["x"], g["legend"]
    assert overlap(x, legend) == 0 and legend["top"] >= x["bottom"] - 1, (n, x, legend)
    assert x["top"] >= g["ticks"] - 1, (n, x, g["ticks"])  # the title below the tick labels
    assert legend["bottom"] <= g["height"] + 1 and g["plot"]["h"] >= 34 * n - 1, (n, g)  # a row of 34 px each
