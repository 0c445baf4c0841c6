"""A kernel without a capture: said once on its page (its captures panel), and no finding with a
priority badge in the overview's advice list (the shared sweep: fp8_gemm_rowscale, HEADROOM, timed by
its campaign, profiled by no bundle)."""

from __future__ import annotations

import re

import pytest

from generator.site import gather
from generator.site.views import base as base_views
from generator.site.views import kernel as kernel_views
from generator.site.views import overview as overview_views


@pytest.mark.full_sweep
def test_the_advice_list_holds_no_missing_capture(site_env):
    env, plans = site_env
    extras, rows = {}, {}
    for slug, p in plans.items():
        k, extras[slug] = gather.gather_kernel(p, env)
        rows[slug] = overview_views.index_row(k, base_views.SiteContext())
    headroom_alone = sorted(s for s, r in rows.items() if r.verdict == "HEADROOM" and s not in
                            {s for s, p in plans.items() if p.bundle is not None})
    assert headroom_alone == ["fp8_gemm_rowscale"]  # the one HEADROOM kernel without a capture
    items = gather.sweep_reading(extras, rows, env.mods["advice"])
    keys = [i["json"]["key"] for i in items]
    assert "capture:none" not in keys and keys  # the other groups stay
    assert not any(i["title"] == "No capture" for i in items)
    assert not any("fp8_gemm_rowscale" in [k["name"] for k in i["kernels"]] for i in items)
    # the analysis still counts its gap: the listed shares add up to less than the whole
    shares = [i["json"]["headroom_share"] for i in items if i["json"]["headroom_share"] is not None]
    assert 0 < sum(shares) < 1


def test_a_kernel_without_a_bundle_says_so_once(kernel, site_env):
    slug = next((s for s, p in site_env[1].items() if p.bundle is None and p.op), None)
    if slug is None:
        pytest.skip("every campaign of this sweep has a bundle")
    k, row = kernel(slug)
    assert [getattr(m, "msg").key for m in row.missing if hasattr(m, "msg")].count("msg.missing.bundle") == 1
    page = kernel_views.kernel_page(k, row, base_views.SiteContext())
    assert page.header_missing == [m for m in row.missing if m.msg.key != "msg.missing.bundle"]
    from generator.site import render

    html = render.render_kernel(page, render.load_assets()).decode()
    text = re.sub(r"<[^>]+>", " ", html)
    assert text.count("No profiling bundle for this kernel") == 1
    assert "nothing was captured" not in text
