"""The one-wave timeline: the closing s_endpgm is issued once and then the wave waits to end; the cycles
its row lasts past its stall are not issue cycles (vec_add's longest wave: 3,816 of 3,892). Expected
values are read here from the raw wave file and code.json, not through the reader."""

from __future__ import annotations

import json

import pytest

from conftest import in_slice


def _raw(sweep, c):
    """(rows, asm by pc index) of the capture's drawn wave, from the files as written."""
    folder = sweep / c.rel
    rows = json.loads((folder / c.timeline.wave.file).read_text())["wave"]["instructions"]
    code = json.loads((folder / "code.json").read_text())["code"]
    return rows, {r[2]: r[0] for r in code if isinstance(r[0], str)}


@pytest.mark.parametrize("slug, end, issue", [in_slice("examples/vec_add", "vec_add", 3816, 76),
                                              in_slice("examples/quant", "quant", 2652, 1236),
                                              in_slice("examples/softmax", "softmax", 2192, 2640)])
def test_the_closing_s_endpgm_is_not_issue(slug, end, issue, sweep, kernel):
    c = next(c for c in kernel(slug)[0].captures if c.is_primary)
    rows, asm = _raw(sweep, c)
    past = [max(dur - max(st, 0), 0) for _t, _kind, st, dur, _pc in rows]
    assert asm[rows[-1][4]].startswith("s_endpgm") and past[-1] == end
    assert sum(past) - past[-1] == issue
    t = c.timeline
    assert (t.total_issue, t.total_end, sum(t.end)) == (issue, end, end)
    assert t.total_stall == sum(max(r[2], 0) for r in rows)


def test_the_fact_and_the_chart_name_it(kernel):
    from generator.site import charts
    from generator.site.views import base as base_views, kernel as kernel_views
    from generator.site.views.index_row import index_row

    k, _row = kernel("vec_add")
    page = kernel_views.kernel_page(k, index_row(k, base_views.SiteContext()), base_views.SiteContext())
    caps = next(p.data for p in page.panels if p.name == "captures")
    facts = [f.value for cap in caps for f in cap.timeline_facts]
    assert any(v == "76 issue, 5.5K stall cycles; the closing s_endpgm lasts 3.8K more (bins of 78 cycles)" for v in facts), facts
    t = next(c for c in k.captures if c.is_primary).timeline
    names = [d["name"] for d in charts.timeline(t)["data"]]
    assert names[:2] == ["issue", "s_endpgm"]
