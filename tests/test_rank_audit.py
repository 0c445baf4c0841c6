"""rank13: a plan ranks its patterns by the share their suggestion acts on, and says "no next tile" only where the
exec counts show a wave runs its loop once. Every expected number is worked here from the capture's raw files
(code.json rows ``[asm, _, pc, source, codeobj, vaddr, hit, latency, stall, idle]``, the wave files for pa's
working waves), never read back from the generator's own evidence."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from generator.site.views import advice as advice_views
from test_capture_wording import PA, code_rows, working_rows  # same test folder
from test_next_step_audit import four_places  # same test folder

FULL = pytest.mark.full_sweep
REPO = Path(__file__).resolve().parents[1]
FLASH_BIG = "examples/flash_attn_func/att_viewer/big/ui_output_agent_55287_dispatch_44_after_loc_fix"
FLASH_SMALL = "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44"
ROPE = "examples/fused_rope_cache/att_viewer/big/ui_output_agent_4253_dispatch_8781"
HGEMM = "examples/hgemm_splitk/att_viewer/big/ui_output_agent_4716_dispatch_319"
LOAD = re.compile(r"^(?:buffer|global)_load")


def raw(cap) -> dict[int, list]:
    """pc -> code.json row."""
    return {r[2]: r for r in json.loads((cap / "code.json").read_text())["code"] if type(r[2]) is int and r[2] > 0}


def target(rows: dict[int, list], pc: int) -> int | None:
    """The pc a branch at ``pc`` goes to: vaddr + 4 + 4 x its signed 16-bit offset."""
    m = re.match(r"s_(?:branch|cbranch_\w+) (\d+)$", rows[pc][0])
    if not m:
        return None
    off = int(m.group(1)) - (65536 if int(m.group(1)) >= 32768 else 0)
    at = {r[5]: p for p, r in rows.items()}
    return at.get(rows[pc][5] + 4 + 4 * off)


def back_edges(rows: dict[int, list]) -> list[tuple[int, int]]:
    """(target pc, branch pc) of each backward branch."""
    return sorted((t, pc) for pc in rows if (t := target(rows, pc)) is not None and t <= pc)


def hits(rows: dict[int, list], span: tuple[int, int]) -> tuple[int, int]:
    """(exec count of a span's first instruction, of the instruction after its backward branch)."""
    lo, hi = span
    return rows[lo][6], rows[hi + 1][6] if hi + 1 in rows else 0


def findings(kernel, slug: str, capture: str) -> list[dict]:
    k, _ = kernel(slug)
    (c,) = [c for c in k.captures if c.analysis.capture == capture.rsplit("/", 1)[1]]
    return c.findings


def finding(found: list[dict], detector: str) -> dict:
    (f,) = [f for f in found if f["detector"] == detector]
    return f


# ---------------------------------------------------------------- loops each wave runs once (pa)

def test_pa_runs_each_loop_once_per_working_wave(sweep):
    """pa's three backward branches: 284 -> 141, 934 -> 350, 935 -> 141. Each body's first instruction runs 8 times
    and the instruction after each branch at least as often (8, 8, 56: pc 936 is the s_endpgm every wave ends on):
    the 8 working waves run each once. Read from the ISA: pc 140 jumps to 179, the branches at 284 and 934 are never
    taken (pc 141 and 350 run 8 times, no more than the 8 that reach them from pc 935 and 349), and the test at
    pc 141-178 leaves for pc 936 on the second pass."""
    rows = raw(sweep / PA)
    assert back_edges(rows) == [(141, 284), (141, 935), (350, 934)]
    assert {s: hits(rows, s) for s in back_edges(rows)} == {(141, 284): (8, 8), (141, 935): (8, 56), (350, 934): (8, 8)}
    assert (target(rows, 140), target(rows, 178), target(rows, 11)) == (179, 936, 936)
    assert (rows[349][6], rows[935][6], rows[936][0], rows[1][6]) == (8, 8, "s_endpgm", 56)
    assert all(rows[p][6] == 8 for p in range(141, 936))  # no instruction of any body runs twice per wave


def test_pa_back_to_back_and_exposed_latency_say_no_next_tile(kernel, sweep):
    """pa's back-to-back runs (pc 202-206, 298-312, 325-329) and exposed-latency waits (pc 9, 191, 195, 362, 366)
    sit in those loops or before them: no "prefetch the next tile", no "software-pipeline the next row or tile"."""
    rows = raw(sweep / PA)
    found = findings(kernel, "pa", PA)
    b2b = finding(found, "back_to_back_loads")
    assert [(r["first_pc"], r["last_pc"]) for r in b2b["evidence"]["runs"]] == [(202, 206), (298, 312), (325, 329)]
    assert all(LOAD.match(rows[p][0]) for p in (202, 206, 298, 312, 325, 329))
    assert b2b["i18n"]["suggestion"][0] == "finding.back_to_back_loads.try"
    assert "next tile" not in b2b["suggestion"]
    lat = finding(found, "vmem_latency_exposed")
    assert sorted(w["pc"] for w in lat["evidence"]["waits"]) == [9, 191, 195, 362, 366]
    assert all(rows[p][0].startswith("s_waitcnt vmcnt") for p in (9, 191, 195, 362, 366))
    assert "software-pipeline" not in lat["suggestion"]


def test_pa_loads_past_its_early_exit_are_not_offered_as_late_loads(kernel, sweep):
    """The loads at pc 298-312 read nothing a global load returned, but they ran 8 times against the 56 of the
    first stalling wait at pc 9: 48 waves leave at the branch at pc 11. Moving them before that wait would have
    every early-exit wave issue them, so the suggestion names no load to move and says each wave runs its loop
    once."""
    rows = raw(sweep / PA)
    assert rows[9][0].startswith("s_waitcnt vmcnt") and rows[9][6] == 56 and rows[9][8] > 0
    assert rows[11][0].startswith("s_cbranch") and all(rows[p][6] == 8 for p in (298, 299, 304, 305, 310, 312))
    lat = finding(findings(kernel, "pa", PA), "vmem_latency_exposed")
    assert "late_loads" not in lat["evidence"]
    assert lat["i18n"]["suggestion"][1]["head"][0] == "finding.vmem_latency_exposed.head.once"
    assert lat["suggestion"].startswith("Keep more bytes in flight per wave before the first wait: each wave runs "
                                        "the loop holding the waits once at the profiled shape")


def test_pa_interleaved_loads_get_no_previous_iteration(kernel, sweep):
    """pa's loads between the MFMAs of its loop at pc 350-934: the loop's first instruction and the one after its
    back edge both ran 8 times (once per working wave), so "or at the end of the previous iteration" has no
    iteration to mean; an iterating loop (preshuffle_gemm's, 1,020 runs for 68 exits) keeps it."""
    rows = raw(sweep / PA)
    assert hits(rows, (350, 934)) == (8, 8) and any("mfma" in rows[p][0] for p in range(350, 935))
    f = finding(findings(kernel, "pa", PA), "loads_interleaved_with_mfma")
    assert (f["evidence"]["loops"][0]["first_pc"], f["evidence"]["loops"][0]["last_pc"]) == (350, 934)
    assert f["i18n"]["suggestion"][0] == "finding.loads_interleaved_with_mfma.try.once"
    assert "previous iteration" in f["suggestion"] and "no previous iteration" in f["suggestion"]


@pytest.mark.parametrize("path, span, counts", [
    pytest.param("examples/preshuffle_gemm/att_viewer/big/ui_output_agent_58177_dispatch_135", (206, 346), (1020, 68),
                 marks=FULL),
    pytest.param("examples/moe_gemm/att_viewer/big/ui_output_agent_56573_dispatch_87", (239, 470), (176, 16), marks=FULL),
    pytest.param(FLASH_BIG, (471, 1781), (264, 32), marks=FULL),
    (FLASH_SMALL, (471, 1781), (20, 4)),
])
def test_loops_that_iterate(sweep, path, span, counts):
    """The loops that do run their body more often than they are left (the loop wording stays theirs)."""
    rows = raw(sweep / path)
    assert span in back_edges(rows) and hits(rows, span) == counts and counts[0] > counts[1]


# ---------------------------------------------------------------- backward branches that are no loop

def test_fused_rope_cache_branch_back_to_its_s_endpgm_is_an_exit(kernel, sweep):
    """fused_rope_cache's only backward branch (pc 159, s_cbranch_vccnz) lands on the s_endpgm at pc 94, which no
    wave ran (exec 0): an early exit, not a loop. Its waits are straight-line code; the wait at pc 109 (vmcnt(1),
    368 stall cycles) then waits on global loads read in program order, so the exposed-latency finding holds 8
    waits, not the 7 the wrap-around through pc 94 gave."""
    cap = sweep / ROPE
    rows = raw(cap)
    assert back_edges(rows) == [(94, 159)]
    assert (rows[94][0], rows[94][6], rows[159][6], rows[160][6]) == ("s_endpgm", 0, 4, 4)
    assert target(rows, 93) == 95  # the waves jump over the s_endpgm
    total = sum(r[8] for r in rows.values())
    lat = finding(findings(kernel, "fused_rope_cache", ROPE), "vmem_latency_exposed")
    waits = sorted(lat["evidence"]["premise_pcs"])
    assert waits == [26, 41, 50, 63, 109, 126, 156, 202]
    assert all(rows[p][0].startswith("s_waitcnt vmcnt") and rows[p][8] > 0 for p in waits)
    assert (rows[109][0], rows[109][8]) == ("s_waitcnt vmcnt(1)", 368)
    assert lat["stall_cycles"] == sum(rows[p][8] for p in waits) == 2292
    assert lat["stall_share"] == pytest.approx(2292 / total)
    assert "software-pipeline" not in lat["suggestion"]


@FULL
def test_flash_attn_func_prologue_runs_get_no_double_buffering(kernel, sweep):
    """flash_attn_func's s_branch at pc 1912 goes back to pc 123, but its block (pc 1911-1912, after the s_branch
    at pc 1910) is entered only by the jump at pc 11, before pc 123: the way into the main body, not a way back.
    The big captures' back-to-back runs (pc 194-215, 243-250) sit in that prologue, run once per wave (exec 32 of
    32 waves): no "Prefetch the next tile during this tile's MFMAs". The small capture's runs at pc 954-1733 sit in
    the loop at pc 471-1781 (20 runs for 4 exits), which keeps it."""
    rows = raw(sweep / FLASH_BIG)
    assert (target(rows, 1912), target(rows, 11), rows[1910][0].split()[0]) == (123, 1911, "s_branch")
    assert [pc for pc in rows if target(rows, pc) in (1911, 1912)] == [11]
    assert rows[1][6] == 32 and all(rows[p][6] == 32 for p in range(123, 471))
    b2b = finding(findings(kernel, "flash_attn_func", FLASH_BIG), "back_to_back_loads")
    assert [(r["first_pc"], r["last_pc"]) for r in b2b["evidence"]["runs"]] == [(194, 215), (243, 250)]
    assert b2b["i18n"]["suggestion"][0] == "finding.back_to_back_loads.try"
    small = finding(findings(kernel, "flash_attn_func", FLASH_SMALL), "back_to_back_loads")
    assert any(471 <= r["first_pc"] <= 1781 for r in small["evidence"]["runs"])
    assert small["i18n"]["suggestion"][0] == "finding.back_to_back_loads.try.mfma"


def test_hgemm_splitk_spin_loop_runs_once(sweep):
    """hgemm_splitk's only loop (pc 420-425, s_cbranch_execnz) runs 2 times for 8 at pc 426 and 2 at pc 419 falling
    into it: its back edge is never taken."""
    rows = raw(sweep / HGEMM)
    assert back_edges(rows) == [(420, 425)] and hits(rows, (420, 425)) == (2, 8) and rows[419][6] == 2


# ---------------------------------------------------------------- ranked by the share acted on (pa)

def test_pa_plan_is_ranked_by_the_share_each_step_acts_on(kernel, sweep):
    """pa's working waves (8 of 56) stall 44,892 cycles. Back-to-back loads: 14 loads in the runs plus the waits at
    pc 160, 210, 219, 332 = 5,676 (12.6 %). Exposed latency: the waits at pc 9, 191, 195, 362, 366 = 4,704 (10.5 %).
    Scalar loads: the lgkmcnt waits at pc 6 (5,336) and 87 (2,104) = 7,440 (16.6 %), but its step (issue the
    s_loads at pc 40-51 before the wait at pc 6) leaves the wait at pc 6 as it is and acts on 2,104 (4.7 %)."""
    cap = sweep / PA
    work, rows = working_rows(cap), code_rows(cap)
    total = sum(v[0] for v in work.values())
    stall = lambda pcs: sum(work.get(p, [0])[0] for p in pcs)  # noqa: E731
    runs = [p for p in list(range(202, 207)) + list(range(298, 313)) + list(range(325, 330)) if LOAD.match(rows[p][0])]
    assert (total, len(runs), stall(runs + [160, 210, 219, 332])) == (44892, 14, 5676)
    assert stall([9, 191, 195, 362, 366]) == 4704
    assert [p for p, (asm, _, _) in sorted(rows.items()) if asm.startswith("s_waitcnt lgkmcnt")][:2] == [6, 87]
    assert (stall([6]), stall([87])) == (5336, 2104)
    assert sorted(p for p, (asm, _, _) in rows.items() if asm.startswith("s_load") and p > 6) == list(range(40, 52))
    k, row = kernel("pa")
    plan = [f for f in k.primary.findings if f["kind"] == "pattern"]
    assert [f["detector"] for f in plan] == ["back_to_back_loads", "vmem_latency_exposed", "loads_interleaved_with_mfma",
                                            "scalar_load_waits", "snop_hazard"]
    by = {f["detector"]: f for f in plan}
    assert by["back_to_back_loads"]["acted_share"] == pytest.approx(5676 / total)
    assert by["vmem_latency_exposed"]["acted_share"] == pytest.approx(4704 / total)
    scalar = by["scalar_load_waits"]
    assert scalar["stall_share"] == pytest.approx(7440 / total)
    assert scalar["acted_share"] == pytest.approx(2104 / total)  # 16.6 % held, 4.7 % acted on
    assert [f["acted_share"] for f in plan] == sorted((f["acted_share"] for f in plan), reverse=True)
    fs = row.first_step
    assert (fs["detector"], fs["stall_share"]) == ("back_to_back_loads", pytest.approx(5676 / total))
    assert fs["text"].startswith("Interleave independent work between the loads")
    assert (fs["share_text"], fs["share_zh"]) == ("13% of working-wave stalls", "占在工作的 wave 停顿的 13%")


def test_pa_page_shows_the_share_acted_on_beside_the_share_held(kernel, built):
    """The plan's pill reads "16.6% of stalls, acts on 4.7%" (中文 "16.6% 的停顿，建议只作用于其中的 4.7%") where the
    share ranked by differs from the share held; the API finding carries ``acted_share``, which docs/ describes."""
    k, _ = kernel("pa")
    scalar = advice_views.finding_view(finding(k.primary.findings, "scalar_load_waits"))
    assert (scalar.share, scalar.acts) == ("16.6%", "4.7%")
    assert advice_views.finding_view(finding(k.primary.findings, "back_to_back_loads")).acts == ""
    cat = {lang: json.loads((REPO / f"templates/i18n/{lang}.json").read_text()) for lang in ("en", "zh")}
    assert (cat["en"]["advice.acts"], cat["zh"]["advice.acts"]) == (", acts on", "，建议只作用于其中的")
    page = re.sub(r"<[^>]+>", "", (built / "kernels" / "pa" / "index.html").read_text())
    assert "16.6% of stalls, acts on 4.7%" in page
    assert "acted_share" in (REPO / "docs" / "commands.md").read_text()
    api = json.loads((built / "api" / "kernels" / "pa.json").read_text())
    assert finding(api["captures"][0]["advice"], "scalar_load_waits")["acted_share"] == pytest.approx(2104 / 44892)


# ---------------------------------------------------------------- the other kernels the ranking moves

def lgkm_share(cap, first: int, late_waits: list[int]) -> tuple[float, float, float]:
    """(the first wait's share, the late waits' share, all of it) of code.json's stall cycles."""
    rows = code_rows(cap)
    total = sum(s for _, _, s in rows.values())
    assert rows[first][0].startswith("s_waitcnt") and "lgkmcnt" in rows[first][0]
    assert all(rows[p][0].startswith("s_waitcnt") and "lgkmcnt" in rows[p][0] for p in late_waits)
    return rows[first][2] / total, sum(rows[p][2] for p in late_waits) / total, total


@pytest.mark.parametrize("slug, path, first, late, order", [
    pytest.param("layernorm", "examples/layernorm/att_viewer/big/ui_output_agent_22257_dispatch_23", 6, [245],
                 ["vmem_latency_exposed", "scalar_load_waits", "cross_lane_reduction"], marks=FULL),
    pytest.param("rmsnorm", "examples/rmsnorm/att_viewer/big/ui_output_agent_19276_dispatch_18", 6, [224],
                 ["vmem_latency_exposed", "back_to_back_loads", "cross_lane_reduction", "scalar_load_waits"], marks=FULL),
    pytest.param("quant", "examples/quant/att_viewer/big/ui_output_agent_34678_dispatch_8", 6, [191, 248],
                 ["vmem_latency_exposed", "cross_lane_reduction", "scalar_load_waits"], marks=FULL),
    pytest.param("moe_gemm", "examples/moe_gemm/att_viewer/big/ui_output_agent_56573_dispatch_87", 6, [18, 54, 586],
                 ["loads_interleaved_with_mfma", "lds_read_into_mfma", "back_to_back_loads", "scalar_load_waits"],
                 marks=FULL),
    ("hgemm_splitk", HGEMM, 26, [76, 118, 439], ["lds_dma_drain", "back_to_back_loads", "scalar_load_waits"]),
    pytest.param("pa_mqa_logits_fp4", "examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 6,
                 [17, 62, 103], ["vmem_latency_exposed", "cross_lane_reduction", "back_to_back_loads",
                                 "scalar_load_waits"], marks=FULL),
])
def test_scalar_load_step_ranks_by_the_waits_it_acts_on(kernel, sweep, slug, path, first, late, order):
    """Each of these kernels' scalar-load step leaves its first lgkmcnt wait as it is: it is ranked by the later
    waits' share, worked here from code.json (layernorm: 49.6 % held, 26.8 % at pc 6, 22.8 % acted on, under the
    exposed latency's 27.9 %; hgemm_splitk: 11.3 %, 11.1 % at pc 26, 0.1 % acted on, under back-to-back's 2.2 %)."""
    stays, acted, total = lgkm_share(sweep / path, first, late)
    f = finding(findings(kernel, slug, path), "scalar_load_waits")
    assert f["evidence"]["late_scalar_loads"]["first_wait_pc"] == first
    assert f["stall_share"] == pytest.approx(stays + acted)
    assert f["acted_share"] == pytest.approx(acted)
    plan = [g for g in findings(kernel, slug, path) if g["kind"] == "pattern"]
    assert [g["detector"] for g in plan] == order
    assert [g["acted_share"] for g in plan] == sorted((g["acted_share"] for g in plan), reverse=True)


# ---------------------------------------------------------------- DOMAIN §1.7: one first step, four places

@pytest.fixture(scope="module")
def built(sweep, tmp_path_factory):
    from generator.site import build

    out = tmp_path_factory.mktemp("rank13") / "site"
    build.build_site(sweep, out, progress=False)
    return out


def test_every_kernel_names_one_first_step_in_four_places(built):
    """The overview row, the kernel page and the PR snippet show the API's first step; a HEADROOM kernel's sweep
    group is that step's (a finding's detector, a shape to profile, or none when the capture is another
    configuration)."""
    api = json.loads((built / "api" / "index.json").read_text())
    checked = 0
    for k in api["kernels"]:
        fs = k.get("first_step")
        if not fs:
            continue
        row, page, pr, groups = four_places(built, k["slug"])
        text = fs["text"].rstrip("\u2026")
        assert text in row and text in page and text.replace("_", "\\_") in html.unescape(pr), k["slug"]
        if k.get("verdict") == "HEADROOM":
            want = {"finding": [g for g in groups if g.endswith(":" + str(fs["detector"]))],
                    "profile": ["where:unprofiled"], "config": []}[fs["kind"]]
            assert groups == want and (groups or fs["kind"] == "config"), k["slug"]
        checked += 1
    assert checked >= 3
