"""The plan's shares say their basis (audit of the shared sweep's site, pa).

pa's primary capture: 48 of 56 sampled waves exit early (DOMAIN §1.5), so the advice ranks on the 8
working waves' 44,892 stall cycles while the capture's other tables share out all 56 waves' 70,036.
The Optimization plan, "Why not winning" and the overview's first step say so; every number below is
worked from the raw wave files and code.json (both in the slice).
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from generator.site import i18n, render
from generator.site.views import advice, base, why

from test_capture_wording import PA, code_rows, working_rows  # same test folder

PA_BASIS = ("The stall shares of the plan's findings are of the 8 working waves' 44,892 stall cycles: 48 of the 56 "
            "sampled waves exit early, so the plan is ranked on the waves that do the work. The capture's other "
            "stall tables and its source and ISA pages share out all 56 waves' 70,036.")


def wave_counts(cap):
    """(sampled, working) wave files: a wave exits early under 5 % of the longest wave's rows or 2 % of
    code.json's instructions (DOMAIN §1.5; the rule ``working_rows`` applies)."""
    static = sum(1 for r in json.loads((cap / "code.json").read_text())["code"] if type(r[2]) is int and r[2] > 0)
    lengths = [len(json.loads(f.read_text())["wave"]["instructions"]) for f in sorted(cap.glob("se*_sm*_sl*_wv*.json"))]
    longest = max(lengths)
    return len(lengths), sum(1 for n in lengths if n >= 0.05 * longest and n >= 0.02 * static)


def panel_html(name, data):
    """One kernel-page panel rendered alone."""
    return render.environment().get_template(f"panels/{name}.html").render(panel=SimpleNamespace(data=data))


@pytest.fixture(scope="module")
def pa_raw(sweep):
    """pa from the raw files: 56 waves, 8 working; stall 44,892 on the working waves, 70,036 in code.json;
    scalar_load_waits waits at pc 6 and 87: 5,336 + 2,104 = 7,440 of 44,892 = 16.57 %."""
    rows, code = working_rows(sweep / PA), code_rows(sweep / PA)
    assert wave_counts(sweep / PA) == (56, 8)
    assert sum(v[0] for v in rows.values()) == 44892 and sum(r[2] for r in code.values()) == 70036
    assert rows[6][0] + rows[87][0] == 7440 and f"{7440 / 44892:.1%}" == "16.6%"


def test_pa_plan_says_once_its_shares_are_of_the_working_waves(kernel, pa_raw):
    k, row = kernel("pa")
    (plan,) = advice._advice_panel(k, row, base.SiteContext())
    assert str(plan.basis) == PA_BASIS and i18n.message_of(plan.basis).key == "advice.basis.working"
    top = plan.findings[0]
    assert (top.detector, top.share) == ("scalar_load_waits", "16.6%")
    html = panel_html("advice", [plan])
    assert html.count("plan-basis") == 1 and "44,892" in html and "70,036" in html
    assert "以 <span translate=\"no\">8</span> 个在工作的 wave" in html


def test_pa_why_panel_says_its_shares_are_of_the_working_waves(kernel, pa_raw):
    k, row = kernel("pa")
    view = why._why_panel(k, row, base.SiteContext())
    assert view.source == "advice" and view.findings[0].share == "16.6%"
    assert str(view.basis) == PA_BASIS
    html = panel_html("why", view)
    assert html.count("plan-basis") == 1 and html.count("44,892") == 2  # the note, English and 中文


def test_pa_first_step_share_names_the_working_waves(kernel, pa_raw):
    # 7,440 / 44,892 = 16.57 %: the first step's whole percentage, 17 %, of the working waves' stalls
    _, row = kernel("pa")
    fs = row.first_step
    assert fs["detector"] == "scalar_load_waits" and fs["stall_share"] == pytest.approx(7440 / 44892)
    assert (fs["share_text"], fs["share_zh"]) == ("17% of working-wave stalls", "占在工作的 wave 停顿的 17%")


def test_a_plan_on_all_waves_says_no_basis(kernel, sweep):
    """vec_add's waves all work (DOMAIN §1.5), so its plan's shares are of all waves: no note, plain share."""
    n, working = wave_counts(sweep / "examples/vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25")
    assert n == working
    k, row = kernel("vec_add")
    plans = advice._advice_panel(k, row, base.SiteContext())
    assert plans and all(p.basis == "" for p in plans) and "plan-basis" not in panel_html("advice", plans)
    assert row.first_step is None or "working" not in row.first_step["share_text"]
