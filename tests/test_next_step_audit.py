"""What the site tells a kernel engineer to do next (audit12), each step re-read from the raw files.

* quant (full sweep): code.json holds 4 global loads, pc 10, 11, 16, 19, and no backward branch. The load at
  pc 19 comes after the stalling ``s_waitcnt vmcnt(2)`` at pc 17 (368,504 cycles) and its address (v10) comes
  from ``v_lshlrev_b32 v10, 4, v35`` / ``v_or_b32 v35, 0x300, v0``: no loaded value. Its only wait, the
  ``vmcnt(0)`` at pc 65, holds 269,480 of the 2,030,844 stall cycles (13.3 %). The old step ("issue the loads
  earlier, software-pipeline the next row or tile") named a loop the kernel does not have and showed the
  finding's 36 % beside a sentence that acts on 13 %.
* pa (slice): the wait at pc 6 drains the one s_load at pc 1 (``s[44:45], s[0:1], 0x128``); the 12 s_loads at
  pc 40-51, all off the same s[0:1] (never written), come after it and are drained by the wait at pc 87. On the
  8 working waves the plan ranks on (DOMAIN §1.5), pc 87 holds 2,104 of 44,892 stall cycles (4.7 %), pc 6 5,336
  (11.9 %). "Issue all s_loads together before the first wait" claimed the finding's whole 16.6 % for a batching
  that moves only pc 87's part.
* vec_add (slice): 2 loads at pc 13 / 14, the wait at pc 18, no loop: no load to move, no next tile to
  software-pipeline; the suggestion says so (each wave must carry more bytes).
"""

from __future__ import annotations

import html
import json
import re

import pytest

from generator.site.views import kernel as kernel_views

from test_capture_wording import PA, VEC_ADD, code_rows, working_rows  # same test folder

QUANT = "examples/quant/att_viewer/big/ui_output_agent_34678_dispatch_8"
FULL = pytest.mark.full_sweep
LOAD = re.compile(r"^(?:buffer|global)_load")


def has_loop(cap) -> bool:
    """A backward branch: SIMM16 (the last operand) as a signed 16-bit number below 0."""
    for asm, _, _ in code_rows(cap).values():
        if "branch" in asm.split(" ")[0]:
            off = int(asm.split(" ")[-1])
            if (off - 65536 if off > 32767 else off) < 0:
                return True
    return False


def total_stall(cap) -> int:
    return sum(r[2] for r in code_rows(cap).values())


@FULL
def test_quant_first_step_is_the_load_issued_after_a_wait_it_does_not_need(kernel, sweep):
    cap = sweep / QUANT
    rows = code_rows(cap)
    assert not has_loop(cap)
    assert [pc for pc, (asm, _, _) in sorted(rows.items()) if LOAD.match(asm)] == [10, 11, 16, 19]
    assert rows[17][0] == "s_waitcnt vmcnt(2)" and rows[17][2] == 368504  # stalls, before the load at pc 19
    assert rows[19][0].startswith("buffer_load_dwordx4 v[40:43], v10,")
    assert rows[15][0] == "v_lshlrev_b32_e32 v10, 4, v35" and rows[13][0] == "v_or_b32_e32 v35, 0x300, v0"
    assert rows[65][0] == "s_waitcnt vmcnt(0)" and total_stall(cap) == 2030844
    share = rows[65][2] / total_stall(cap)
    assert rows[65][2] == 269480 and f"{share:.1%}" == "13.3%"
    k, row = kernel("quant")
    fs = row.first_step
    assert fs["detector"] == "vmem_latency_exposed"
    assert fs["text"] == ("Issue the 1 global load at pc 19 before the wait at pc 17, so the round trips overlap "
                          "the earlier loads' instead of following them.")
    assert fs["stall_share"] == pytest.approx(share) and fs["share_text"] == "13% of stalls"
    f = next(f for f in k.primary.findings if f["detector"] == "vmem_latency_exposed")
    assert "software-pipeline" not in f["suggestion"]
    assert "13.3% of the stall cycles wait on them at pc 65" in f["suggestion"]
    assert f["stall_share"] == pytest.approx(730044 / 2030844)  # the finding's own share is unchanged (35.9 %)
    pr = [ln for ln in kernel_views.pr_snippet(row, "").split("\n") if ln.startswith("- first step:")]
    assert pr == ["- first step: [Issue the 1 global load at pc 19 before the wait at pc 17, so the round trips "
                  "overlap the earlier loads' instead of following them.](kernels/quant/#advice-c0-f0) (13% of stalls)"]


def test_pa_first_step_names_the_s_loads_issued_after_the_first_wait(kernel, sweep):
    cap = sweep / PA
    rows, work = code_rows(cap), working_rows(cap)
    s_loads = {pc: asm for pc, (asm, _, _) in rows.items() if asm.startswith("s_load")}
    assert sorted(s_loads) == [1] + list(range(40, 52))
    assert all(", s[0:1], " in asm for asm in s_loads.values())
    # s[0:1] is first written at pc 53 (s_movk_i32 s0, 0x80), after the last of them
    assert [pc for pc, (asm, _, _) in sorted(rows.items()) if re.match(r"s_\w+ (s\[0:1\]|s[01]),", asm)][0] == 53
    lgkm = [pc for pc, (asm, _, _) in sorted(rows.items()) if asm.startswith("s_waitcnt lgkmcnt")]
    assert lgkm[:2] == [6, 87]
    assert (work[87][0], work[6][0], sum(v[0] for v in work.values())) == (2104, 5336, 44892)
    k, row = kernel("pa")
    # rank13: the step acts on the wait at pc 87 only (4.7 %): it is ranked by that share, below back-to-back loads
    # (12.6 %), so it is no longer pa's first step (tests/test_rank_audit.py)
    assert row.first_step["detector"] == "back_to_back_loads"
    f = next(f for f in k.primary.findings if f["detector"] == "scalar_load_waits")
    assert f["stall_share"] == pytest.approx(7440 / 44892)  # the finding's share stays 16.6 %
    assert f["acted_share"] == pytest.approx(2104 / 44892) == pytest.approx(f["evidence"]["step_share"])
    assert "The waits at pc 87 (4.7% of the stall cycles) then no longer wait on them; the wait at pc 6 (11.9%) " \
           "stays" in f["suggestion"]
    assert f["evidence"]["late_scalar_loads"] == {"pcs": list(range(40, 52)), "first_wait_pc": 6, "wait_pcs": [87]}


def test_vec_add_loop_free_latency_names_no_next_tile(kernel, sweep):
    cap = sweep / VEC_ADD
    rows = code_rows(cap)
    assert not has_loop(cap)
    assert [pc for pc, (asm, _, _) in sorted(rows.items()) if LOAD.match(asm)] == [13, 14]
    assert rows[18][0] == "s_waitcnt vmcnt(0)" and f"{rows[18][2] / total_stall(cap):.1%}" == "82.3%"
    k, _ = kernel("vec_add")
    f = next(f for f in k.primary.findings if f["detector"] == "vmem_latency_exposed")
    assert f["suggestion"] == ("Keep more bytes in flight per wave before the first wait: the waits sit in no loop, "
                               "so a wave has no next row or tile to load early; give each wave more of the data, its "
                               "loads issued before the first wait. The kernel already runs the hardware maximum of 8 "
                               "waves per SIMD: more resident waves cannot hide it.")
    assert f["i18n"]["suggestion"][0] == "finding.vmem_latency_exposed.try.parts"


@pytest.fixture(scope="module")
def built(sweep, tmp_path_factory):
    """The site of the sweep (the slice without ../shared), built once for this module."""
    from generator.site import build

    out = tmp_path_factory.mktemp("audit12") / "site"
    build.build_site(sweep, out, progress=False)
    return out


def four_places(site, slug: str) -> tuple[str, str, str, list[str]]:
    """(the overview row's first-step cell, the kernel page's, the PR snippet's line, the sweep-reading groups
    that name it the kernel's first step) as shown."""
    def first_div(page: str, cls: str) -> list[str]:
        return [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in re.findall(rf'<(?:div|p) class="{cls}">(.*?)</(?:div|p)>', page, re.S)]
    row = first_div((site / "index.html").read_text(), "first-step small")
    page = first_div((site / "kernels" / slug / "index.html").read_text(), "first-step")
    pr = [ln for ln in (site / "pr" / f"{slug}.md").read_text().splitlines() if ln.startswith("- first step:")]
    api = json.loads((site / "api" / "index.json").read_text())
    groups = [g["key"] for g in api["sweep_findings"] if slug in (g.get("headroom_kernels") or [])]
    text = next(k["first_step"]["text"] for k in api["kernels"] if k["slug"] == slug)
    return next(c for c in row if text in c), page[0], pr[0], groups


@pytest.mark.parametrize("slug, step, share, group", [
    # rank13: pa's scalar-load step acts on 4.7 % of the working waves' stalls, back-to-back loads on 12.6 %
    ("pa", "Interleave independent work between the loads, or issue them in two batches",
     "(13% of working-wave stalls)", "pattern:back_to_back_loads"),
    pytest.param("quant", "Issue the 1 global load at pc 19 before the wait at pc 17, so the round trips overlap",
                  "(13% of stalls)", "pattern:vmem_latency_exposed", marks=FULL),
])
def test_four_places_name_one_step(built, slug, step, share, group):
    row, page, pr, groups = four_places(built, slug)
    assert step in row and step in page and step in pr
    assert share in row and pr.endswith(share)
    assert groups == [group]


@FULL
def test_rmsnorm_weight_loads_wait_right_after_issue(kernel, sweep):
    """rmsnorm: x is read at pc 10-16 (buffer s[4:7]); after the reduction the weight (s[8:11]) is loaded one
    dwordx4 at a time, each waited on with vmcnt(0) at once: pc 228/250, 268/270, 288/298, 316/318, the last three
    waits also draining the store just before each load. Nothing an earlier load returns feeds their addresses."""
    cap = sweep / "examples/rmsnorm/att_viewer/big/ui_output_agent_19276_dispatch_18"
    rows = code_rows(cap)
    assert not has_loop(cap)
    loads = [pc for pc, (asm, _, _) in sorted(rows.items()) if LOAD.match(asm)]
    assert loads == [10, 12, 15, 16, 228, 268, 288, 316]
    assert all(", s[8:11], " in rows[pc][0] for pc in loads[4:]) and all(", s[4:7], " in rows[pc][0] for pc in loads[:4])
    assert [pc for pc in (267, 287, 315) if rows[pc][0].startswith("buffer_store")] == [267, 287, 315]
    waits = (250, 270, 298, 318)
    assert all(rows[pc][0] == "s_waitcnt vmcnt(0)" for pc in waits) and rows[22][0] == "s_waitcnt vmcnt(3)"
    share = sum(rows[pc][2] for pc in waits) / total_stall(cap)
    assert f"{share:.1%}" == "36.6%"
    k, _ = kernel("rmsnorm")
    f = next(f for f in k.primary.findings if f["detector"] == "vmem_latency_exposed")
    assert f["suggestion"].startswith("Issue the 4 global loads at pc 228, 268, 288, 316 before the wait at pc 22, ")
    assert "36.6% of the stall cycles wait on them (and on 3 stores issued before them) at pc 250, 270, 298, 318" \
        in f["suggestion"]
    assert f["evidence"]["step_share"] == pytest.approx(share)
