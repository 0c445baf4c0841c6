"""REPORT.md's occupancy and wave-state claims, checked (issue 21, point 9).

The real reports are not in ../shared, so the reports here are hand-made (named so), written
the way the FlyDSL reports state these two things; the occupancies they are checked against
are the shared sweep's (expected/occupancy.json: flash_attn_func 242 arch VGPRs -> 248 ->
2 waves/SIMD, VGPR-bound, LDS 3, SGPR 7; kernel trace CSV 124; pa 176 + 12 -> 192 -> 2).
"""

from __future__ import annotations

import shutil

import pytest

from generator.analyze import analysis, report_checks
from generator.read import discover
from generator.site.wording import plain

FLASH = "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44"  # in the slice too; every
# flash_attn_func capture has the same occupancy in expected/occupancy.json

HANDMADE_REPORT_WRONG = """# flash_attn_func on MI350X

## Register pressure
- VGPRs: 248 (arch 242, accum 0)
- **Occupancy: 1 wave/SIMD** (VGPR-bound; 256 registers per SIMD)

## Wave states
Mapping used below: 1=EXEC, 2=WAIT, 3=STALL, 4=SLEEP.
EXEC 34.8 %, WAIT 16.4 %, SLEEP 0.4 %.

The grid launches 0.5 waves/SIMD on the small shape.
"""

HANDMADE_REPORT_RIGHT = """# notes
Occupancy is 2 waves/SIMD, VGPR-bound.
wstates files: 1 = IDLE, 2 = EXEC, 3 = WAIT, 4 = STALL
"""


@pytest.fixture(scope="module")
def flash_occ(sweep):
    a = analysis.analyze_sweep(discover.discover(sweep / FLASH))[0].analyses[0]
    return a.occupancy


def test_handmade_wrong_report_differs_on_both_claims_and_says_why(flash_occ):
    occ = flash_occ
    assert (occ.waves_per_simd, occ.vgpr_total, occ.arch) == (2, 248, "gfx950")
    checks = report_checks.check_report(HANDMADE_REPORT_WRONG, occ)
    assert [c.to_json() | {"why": None} for c in checks] == [
        {"what": "occupancy", "report": "Occupancy: 1 wave/SIMD (VGPR-bound; 256 registers per SIMD)",
         "computed": "2 waves/SIMD", "holds": False, "why": None},
        {"what": "wave states", "report": "Mapping used below: 1=EXEC, 2=WAIT, 3=STALL, 4=SLEEP.",
         "computed": "1=IDLE 2=EXEC 3=WAIT 4=STALL", "holds": False, "why": None},
    ]  # "0.5 waves/SIMD" is about the grid, not the occupancy: not a claim
    occ_why, states_why = (c.why for c in checks)
    assert plain("en", occ_why) == ("1 is what a 256-register pool gives (256 // 248); gfx950 has one pool "
                                    "of 512 VGPRs per SIMD for arch and accum registers together: 512 // 248 gives 2.")
    assert plain("en", states_why) == ("Shifted by one: the trace decoder's wave states are 1=IDLE 2=EXEC 3=WAIT 4=STALL "
                                       "(rocprofv3 names the files wstates1..4 by them); it has no SLEEP state.")
    assert plain("zh", occ_why).startswith("1 正是每个 SIMD 只有 256 个寄存器时的结果")
    assert checks[0].to_json()["why"][0] == "report.why.pool256"


def test_handmade_right_report_holds(flash_occ):
    checks = report_checks.check_report(HANDMADE_REPORT_RIGHT, flash_occ)
    assert [(c.what, c.report, c.computed, c.holds, c.why) for c in checks] == [
        ("occupancy", "Occupancy is 2 waves/SIMD, VGPR-bound.", "2 waves/SIMD", True, None),
        ("wave states", "wstates files: 1 = IDLE, 2 = EXEC, 3 = WAIT, 4 = STALL", "1=IDLE 2=EXEC 3=WAIT 4=STALL",
         True, None),
    ]


def test_handmade_report_that_read_the_csv_vgprs(flash_occ):
    """3 waves/SIMD is what the CSV's 124 VGPRs give (512 // 128 = 4, LDS caps at 3)."""
    (c,) = report_checks.check_report("Theoretical occupancy: 3 waves per SIMD\n", flash_occ)
    assert not c.holds and c.why.key == "report.why.csv"
    assert plain("en", c.why) == ("3 is what the kernel trace CSV's 124 VGPRs give; rocprofv3 1.1 halves that count on "
                                  "gfx950, and the ISA uses 242, which gives 2.")
    (c,) = report_checks.check_report("occupancy 6 waves/SIMD\n", flash_occ)
    assert plain("en", c.why) == "Our limits per SIMD: VGPR 2, LDS 3, SGPR 7 waves; the lowest is 2."
    assert report_checks.check_report(HANDMADE_REPORT_WRONG, None)[0].what == "wave states"  # no capture
    assert report_checks.check_report("Plan: 1: load tiles, 2: compute, 3: store\n", flash_occ) == []


def test_the_kernel_page_and_api_show_the_checks_above_the_report(tmp_path, sweep):
    """A hand-made sweep: the real pa bundle (2 waves/SIMD: 192 VGPRs) with a hand-made REPORT.md."""
    import json
    from generator.site import build
    src = tmp_path / "handmade_report_sweep"
    shutil.copytree(sweep / "examples" / "pa", src / "examples" / "pa", copy_function=shutil.copy)
    (src / "examples" / "pa" / "REPORT.md").write_text(
        "# pa decode\n\nOccupancy: 1 wave/SIMD (192 VGPRs).\n\nWave states: 1=EXEC 2=WAIT 3=STALL 4=SLEEP\n")
    out = tmp_path / "site"
    build.build_site(src, out, progress=False)
    doc = json.loads((out / "api" / "kernels" / "pa.json").read_text())
    assert [(c["what"], c["computed"], c["holds"], c["why"][0]) for c in doc["report_checks"]] == [
        ("occupancy", "2 waves/SIMD", False, "report.why.pool256"),
        ("wave states", "1=IDLE 2=EXEC 3=WAIT 4=STALL", False, "report.why.states.shifted")]
    html = (out / "kernels" / "pa" / "index.html").read_text()
    checks_at, report_at = html.index('class="report-checks"'), html.index('class="report markdown"')
    assert checks_at < report_at
    assert "256 // 192" in html[checks_at:report_at] and "<q>Occupancy: 1 wave/SIMD (192 VGPRs).</q>" in html
