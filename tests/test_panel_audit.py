"""Audit of the capture panel's words and the diagnosis line against the raw files (audit3).

Every expected number below is worked here from the bundle's raw files, never by the generator's code:
the wave files (``se*_sm*_sl*_wv*.json``: rows ``[time, type, stall, duration, pc_index]``), ``wstates<K>.json``
(K = 1 IDLE, 2 EXEC, 3 WAIT, 4 STALL), code.json (stall cycles per instruction, DOMAIN §1.2 taxonomy), the
kernel trace row of the captured dispatch and the agent info (256 CUs of 4 SIMDs), and the campaign's
``benchmark_results.jsonl``. Claims corrected:

- The primary-choice sentence said "source/hotspot_output.txt names no usable capture" on flash_attn_func and
  pa_mqa_logits_fp4, whose bundles have no such file: it now says the bundle has none that names one.
- "8 waves/SIMD (hardware max)" on fused_rope_cache (256 one-wave workgroups on 256 CUs: the grid asks 1) and
  rmsnorm (1,024 four-wave workgroups: asks 4) read as if 8 waves ran: the grid's ask now stands beside it.
- "memory-bound (capture stalls)" stood beside "41% VMEM-wait" on moe_blockscale, while the rule read the VMEM
  types' 78 %: the clause now says the share it read.
- The REPORT.md check's 256-register-pool explanation said "512 // total gives N" with N an LDS-bound count.
Claims found right are pinned too: wave-state shares, sampled / early-exit / working waves, the longest wave,
the capture-configuration match, the diagnosis stall shares.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from dataclasses import replace
from types import SimpleNamespace

import pytest

from conftest import in_slice
from generator.analyze import report_checks
from generator.site.views import captures as captures_views
from generator.site.views import diagnosis

STATES = {1: "IDLE", 2: "EXEC", 3: "WAIT", 4: "STALL"}
MEMORY = ("VMEM-wait", "VMEM-load", "VMEM-store")


def wave_state_shares(cap) -> dict[str, float]:
    """Integral of each wstates<K> step function over the sum of the four (DOMAIN §1.1)."""
    area = {}
    for k, name in STATES.items():
        path = cap / f"wstates{k}.json"
        d = json.loads(path.read_text()) if path.exists() else {"state": [], "time": []}
        s, t = d["state"], d["time"]
        area[name] = sum(s[i] * (t[i + 1] - t[i]) for i in range(len(t) - 1))
    total = sum(area.values())
    return {k: v / total for k, v in area.items()}


def wave_rows(cap) -> dict[str, list]:
    return {p.name: json.loads(p.read_text())["wave"]["instructions"] for p in sorted(cap.glob("se*_sm*_sl*_wv*.json"))}


def static_rows(cap) -> list:
    code = json.loads((cap / "code.json").read_text())["code"]
    return [r for r in code if isinstance(r[2], int) and r[2] > 0 and not str(r[0]).startswith(";")]


def stall_type(asm: str) -> str:
    """DOMAIN §1.2, first match wins."""
    a = asm.lower()
    if "s_waitcnt" in a:
        return "VMEM-wait" if "vmcnt" in a else "LDS/SMEM-wait" if "lgkmcnt" in a else "EXP-wait" if "expcnt" in a else "waitcnt"
    for words, name in ((("s_barrier", "s_wait_idle"), "barrier"), (("buffer_load", "global_load", "flat_load"), "VMEM-load"),
                        (("buffer_store", "global_store"), "VMEM-store"), (("ds_read", "ds_write"), "LDS"),
                        (("s_load", "s_store"), "SMEM"), (("v_mfma", "v_fma"), "MFMA/FMA")):
        if any(w in a for w in words):
            return name
    return "other"


def stalls_by_type(cap) -> Counter:
    out = Counter()
    for r in static_rows(cap):
        out[stall_type(r[0])] += r[8] if isinstance(r[8], int) else 0
    return out


def grid_ask(sweep, kernel: str, cap) -> int:
    """Waves per SIMD the captured dispatch's grid gives its busiest CU (workgroups dealt round-robin)."""
    d = int(re.search(r"dispatch_(\d+)", cap.name).group(1))
    cv = sweep / "examples" / kernel / "compute_viewer"
    with (cv / "discover_kernel_trace.csv").open(newline="") as fh:
        row = next(r for r in csv.DictReader(fh) if int(r["Dispatch_Id"]) == d)
    with (cv / f"{cap.parent.name}_agent_info.csv").open(newline="") as fh:
        agent = next(r for r in csv.DictReader(fh) if r["Agent_Type"] == "GPU")
    wgs = 1
    for ax in "XYZ":
        wgs *= -(-int(row[f"Grid_Size_{ax}"]) // int(row[f"Workgroup_Size_{ax}"]))
    wpw = -(-int(row["Workgroup_Size_X"]) * int(row["Workgroup_Size_Y"]) * int(row["Workgroup_Size_Z"]) // 64)
    per_cu = -(-wgs // int(agent["Cu_Count"]))
    return -(-per_cu * wpw // int(agent["Simd_Per_Cu"]))


def only_capture(sweep, kernel: str):
    (cap,) = sorted((sweep / "examples" / kernel / "att_viewer").glob("*/ui_output_agent_*"))
    return cap


# ---------------------------------------------------------------- found right: wave states and sampled waves

#: kernel -> (sampled, early exit, working): pa 48 of 56 exit early, moe_gemm 8 of 24 (DOMAIN §1.5)
WAVES = {"pa": (56, 48, 8), "vec_add": (632, 0, 632), "hgemm_splitk": (8, 0, 8), "moe_gemm": (24, 8, 16)}


@pytest.mark.parametrize("slug", [in_slice(f"examples/{k}", k) for k in WAVES])
def test_wave_states_and_sampled_waves_recomputed(slug, sweep, primaries):
    cap = only_capture(sweep, slug)
    a, _ = primaries[slug]
    shares = wave_state_shares(cap)
    assert all(abs(a.wave_states[k] - v) < 1e-12 for k, v in shares.items())
    rows = wave_rows(cap)
    longest = max(len(r) for r in rows.values())
    static = len(static_rows(cap))
    early = sum(1 for r in rows.values() if len(r) < 0.05 * longest or len(r) < 0.02 * static)
    assert (len(rows), early, len(rows) - early) == WAVES[slug]
    ws = a.waves_summary
    assert (ws.sampled, ws.early_exit, ws.working) == WAVES[slug]


# ---------------------------------------------------------------- the primary-choice sentence

@pytest.mark.parametrize("slug, key", [in_slice("examples/flash_attn_func", "flash_attn_func", "msg.cap.primary.last"),
                                         in_slice("examples/pa_mqa_logits_fp4", "pa_mqa_logits_fp4", "msg.cap.primary.label")])
def test_primary_sentence_without_a_hotspot_output(slug, key, sweep, kernel):
    assert not (sweep / "examples" / slug / "source" / "hotspot_output.txt").exists()
    k, _ = kernel(slug)
    usable = [c for c in k.captures if c.status != "skipped"]
    said = captures_views.primary_rule_sentence(k.primary_rule, usable)
    if len(usable) == 1:  # the slice keeps flash_attn_func's small capture alone
        key = "msg.cap.primary.only"
    assert said.msg.key == key
    assert "the bundle has no source/hotspot_output.txt that names a usable capture" in said
    assert "source/hotspot_output.txt names" not in said


@pytest.mark.parametrize("slug", [in_slice("examples/pa", "pa"), in_slice("examples/vec_add", "vec_add")])
def test_primary_named_by_the_hotspot_output(slug, sweep, kernel):
    text = (sweep / "examples" / slug / "source" / "hotspot_output.txt").read_text()
    named = re.search(r"^Loading:\s*(\S+)", text, re.M).group(1).rsplit("/", 1)[-1]
    k, _ = kernel(slug)
    assert [c.name for c in k.captures if c.is_primary] == [named]
    assert captures_views.primary_rule_sentence(k.primary_rule, k.captures) == \
        "Primary: the capture source/hotspot_output.txt names."


# ---------------------------------------------------------------- occupancy at the hardware maximum

#: slug -> the grid's ask: fused_rope_cache 512x32 work-items in 64-thread workgroups = 256 one-wave workgroups on
#: 256 CUs: 1; rmsnorm 262144 / 256 = 1,024 four-wave workgroups: 4 per CU, 16 waves, 4 per SIMD; vec_add
#: 2,560,000 / 256 = 10,000: 40 per CU, 160 waves: 40 per SIMD (the 8 is reached: nothing added)
MAX_CASES = {"fused_rope_cache": 1, "rmsnorm": 4, "vec_add": 40}


@pytest.mark.parametrize("slug", [in_slice(f"examples/{k}", k) for k in MAX_CASES])
def test_hardware_max_says_the_grid_ask_where_it_is_lower(slug, sweep, primaries):
    a, _ = primaries[slug]
    expected = json.loads((sweep / "expected" / "occupancy.json").read_text())[a.path]
    assert (expected["waves"], expected["limiter"]) == (8, "NONE")
    ask = grid_ask(sweep, slug, only_capture(sweep, slug))
    assert ask == MAX_CASES[slug] == a.occupancy.grid_waves_per_simd
    c, data = diagnosis.occupancy_clause(SimpleNamespace(analysis=a), "#c0")
    view = captures_views.occupancy_view(a)
    if ask >= 8:
        assert c.text == "8 waves/SIMD (hardware max)"
        assert view.headline == "8 waves/SIMD, limited by hardware max"
        return
    assert c.text == f"8 waves/SIMD allowed (hardware max; the grid asks at most {ask})"
    assert c.zh == f"每 SIMD 最多 8 个 wave（硬件上限；网格最多只要 {ask} 个）"
    assert view.headline == f"8 waves/SIMD allowed (hardware max); the grid asks at most {ask} on its busiest CU"
    assert (data["waves_per_simd"], data["limiter"], data["grid_waves_per_simd"]) == (8, "NONE", ask)


# ---------------------------------------------------------------- the diagnosis line's bound and stall share

#: slug -> (bound the capture's stalls give, top type, its share, VMEM types' share) from code.json
CAPTURE_BOUNDS = {"moe_gemm": ("memory-bound", "VMEM-wait", "55%", "70%"),
                  "moe_blockscale": ("memory-bound", "VMEM-wait", "41%", "78%"),
                  "pa_mqa_logits_fp4": ("latency-bound", "VMEM-wait", "35%", "41%")}


@pytest.mark.full_sweep
@pytest.mark.parametrize("slug", list(CAPTURE_BOUNDS))
def test_a_bound_from_the_capture_says_the_share_it_read(slug, sweep, kernel):
    caps = sorted((sweep / "examples" / slug / "att_viewer" / "big").glob("ui_output_agent_*"))
    by = stalls_by_type(caps[-1])
    total = sum(by.values())
    vmem = sum(by[t] for t in MEMORY) / total
    top, cycles = by.most_common(1)[0]
    bound = "memory-bound" if vmem >= 0.5 else "compute-bound" if top == "MFMA/FMA" else "latency-bound"
    assert (bound, top, f"{100 * cycles / total:.0f}%", f"{100 * vmem:.0f}%") == CAPTURE_BOUNDS[slug]
    _, row = kernel(slug)
    d = row.diagnosis
    # audit6: moe_blockscale's 40 workgroups leave 216 of 256 CUs idle, so its VMEM waits read latency-bound,
    # with the grid said (tests/test_left_audit.py works the grid from the kernel trace and agent info)
    bound, grid = ("latency-bound", ", with 40 workgroups for 256 CUs: 216 CUs idle") if slug == "moe_blockscale" else (bound, "")
    assert (d["bound"], d["bound_source"]) == (bound, "capture stalls")
    assert d["text"].startswith(f"{bound} (capture stalls: {100 * vmem:.0f}% in VMEM types{grid}), "
                                f"{100 * cycles / total:.0f}% {top}, ")


#: slug -> the diagnosis's stall clause from code.json (pa: over its 8 working waves, from the wave rows)
STALL_CLAUSES = {"hgemm_splitk": "56% VMEM-wait", "vec_add": "82% VMEM-wait", "fused_rope_cache": "80% LDS/SMEM-wait",
                 "pa": "35% other (working waves)"}


@pytest.mark.parametrize("slug", [in_slice(f"examples/{k}", k) for k in STALL_CLAUSES])
def test_diagnosis_stall_clause_recomputed(slug, sweep, kernel):
    cap = only_capture(sweep, slug)
    by = stalls_by_type(cap)
    suffix = ""
    rows = wave_rows(cap)
    longest = max(len(r) for r in rows.values())
    working = [r for r in rows.values() if len(r) >= 0.05 * longest and len(r) >= 0.02 * len(static_rows(cap))]
    if len(working) < len(rows):  # pa: 48 of 56 exit early, 36% of the stalls: the working waves are read
        asm = {r[2]: r[0] for r in static_rows(cap)}
        by = Counter()
        for w in working:
            for ins in w:
                by[stall_type(asm.get(ins[4], ""))] += ins[2]
        assert sum(by.values()) == 44_892  # DOMAIN §1.5
        suffix = " (working waves)"
    top, cycles = by.most_common(1)[0]
    said = f"{100 * cycles / sum(by.values()):.0f}% {top}{suffix}"
    assert said == STALL_CLAUSES[slug]
    _, row = kernel(slug)
    assert said in row.diagnosis["text"]


# ---------------------------------------------------------------- capture configuration (DOMAIN §1.7)

def timed_configs(sweep, op: str) -> Counter:
    """The candidate's timed (status ok) rows by the configuration their provider_detail carries."""
    out = Counter()
    for line in (sweep / "benchmarks" / "examples" / op / "benchmark_results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r.get("provider") != "flydsl" or r.get("benchmark_status") != "ok":
            continue
        d = r.get("provider_detail") or ""
        kw = re.search(r"kwargs=\{([^{}]*)\}", d)
        vals = dict(re.findall(r"'?(\w+)'?\s*[:=]\s*(\d+)", kw.group(1) if kw else d))
        vals = {k.lower(): int(v) for k, v in vals.items()}
        tile = "x".join(str(vals[f"tile_{a}"]) for a in "mnk")
        out[(tile, vals.get("stages"), vals.get("split_k"))] += 1
    return out


@pytest.mark.parametrize("slug, op, capture, matches", [
    in_slice("benchmarks/examples/gemm", "hgemm_splitk", "gemm", ("32x64x256", 2, 14), False),
    in_slice("examples/moe_blockscale", "moe_blockscale", "moe_blockscale", ("16x256x128", None, None), True)])
def test_capture_configuration_against_the_timed_rows(slug, op, capture, matches, sweep, kernel):
    label = json.loads((only_capture(sweep, slug) / "code.json").read_text())["code"][0][0]
    tile = re.search(r"t?(\d+x\d+x\d+)", label).group(1)
    stages = re.search(r"_S(\d+)_", label)
    split = re.search(r"_SPK(\d+)_", label)
    assert (tile, stages and int(stages[1]), split and int(split[1])) == capture
    timed = timed_configs(sweep, op)
    k, _ = kernel(slug)
    cfg = k.capture_config
    assert cfg["matches"] is matches
    assert sorted((t["config"]["tile"], t["rows"]) for t in cfg["timed"]) == sorted(
        (c[0], n) for c, n in timed.items())
    if not matches:  # hgemm_splitk: 25 rows 128x128x64 and 5 rows 16x64x128, all 4 stages, split-K 1
        assert timed == {("128x128x64", 4, 1): 25, ("16x64x128", 4, 1): 5}
        assert cfg["differs"] == ["tile", "stages", "split_k"]
    else:
        assert timed == {("16x256x128", None, None): 4}


# ---------------------------------------------------------------- REPORT.md checks

@pytest.mark.parametrize("slug", [in_slice("examples/hgemm_splitk", "hgemm_splitk")])
def test_report_check_pool_arithmetic_only_where_vgpr_binds(slug, primaries, sweep):
    """No bundle of the sweep has a REPORT.md (nothing is checked on its pages); the check's arithmetic is pinned on
    hgemm_splitk's real occupancy (VGPR total 136 -> 512 // 136 = 3, LDS 98,304 B -> 1, SGPR 7) made to bind at 2
    by LDS: a report's "1 wave/SIMD" is 256 // 136 = 1, but "512 // 136 gives 2" would be wrong (it gives 3)."""
    assert not list((sweep / "examples").glob("*/REPORT.md"))
    occ = primaries[slug][0].occupancy
    assert (occ.vgpr_total, occ.vgpr_limit, occ.lds_limit, occ.waves_per_simd) == (136, 3, 1, 1)
    lds2 = replace(occ, lds_limit=2, waves_per_simd=2, grid_waves_per_simd=None)  # its real grid gives 1: a report's
    # "1 wave/SIMD" would then be the waves that run (it holds, tests/test_speed_audit.py); an unknown grid keeps the cap
    (c,) = report_checks.check_report("Occupancy: 1 wave/SIMD\n", lds2)
    assert not c.holds and c.why.key == "report.why.limits"
    vgpr2 = replace(occ, vgpr_total=248, vgpr_limit=2, lds_limit=3, waves_per_simd=2, limiter="VGPR", limiters=["VGPR"],
                    grid_waves_per_simd=None)
    (c,) = report_checks.check_report("Occupancy: 1 wave/SIMD\n", vgpr2)
    assert c.why.key == "report.why.pool256" and (512 // 248, 256 // 248) == (2, 1)


@pytest.mark.full_sweep
def test_a_grid_borrowed_from_another_dispatch_is_said(sweep, kernel):
    """pa_mqa_logits_fp4's small capture is dispatch 197 of another run: the trace's row 197 is another kernel and its
    12 rows of pa_mqa_logits_fp4_kernel_0 all launch the big grid, so its "grid asks at most 2" is the big run's."""
    with (sweep / "examples" / "pa_mqa_logits_fp4" / "compute_viewer" / "discover_kernel_trace.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert "pa_mqa_logits_fp4" not in next(r for r in rows if r["Dispatch_Id"] == "197")["Kernel_Name"]
    own = [r for r in rows if r["Kernel_Name"] == "pa_mqa_logits_fp4_kernel_0"]
    assert len(own) == 12 and {(r["Grid_Size_X"], r["Grid_Size_Y"], r["Grid_Size_Z"]) for r in own} == {("129792", "1", "1")}
    k, _ = kernel("pa_mqa_logits_fp4")
    notes = {c.name: c.analysis.occupancy.notes for c in k.captures}
    said = ("the kernel trace holds no row of dispatch 197 for pa_mqa_logits_fp4_kernel_0: the grid's ask is read from "
            "its most common launch among its 12 rows (129792x1x1 work-items), not from the captured dispatch")
    assert [str(n) for n in notes["ui_output_agent_32435_dispatch_197"] if "dispatch 197" in str(n)] == [said]
    assert not [n for n in notes["ui_output_agent_55351_dispatch_426"] if "no row of dispatch" in str(n)]  # its own row


@pytest.mark.parametrize("slug", [in_slice("examples/pa", "pa"), in_slice("examples/vec_add", "vec_add")])
def test_the_longest_wave_names_its_simd(slug, sweep, kernel):
    """A wave file's ``sm`` is the SIMD (its own ``simd`` field; every wave sits on CU 1, the att_target_cu): the
    panel said "SM 3", a CU's name elsewhere. The longest wave, its instruction count and stall cycles are recomputed."""
    cap = only_capture(sweep, slug)
    assert "att_target_cu: 1" in (sweep / "examples" / slug / "source" / "input_trace.yaml").read_text()
    files = {p.name: json.loads(p.read_text()) for p in sorted(cap.glob("se*_sm*_sl*_wv*.json"))}
    for name, w in files.items():
        se, sm, sl, wv = map(int, re.search(r"se(\d+)_sm(\d+)_sl(\d+)_wv(\d+)", name).groups())
        assert (w["wave"]["simd"], w["wave"]["slot"], w["wave"]["id"], w["wave"]["cu"]) == (sm, sl, wv, 1)
    name, w = max(files.items(), key=lambda kv: kv[1]["duration"])
    se, sm, sl, wv = map(int, re.search(r"se(\d+)_sm(\d+)_sl(\d+)_wv(\d+)", name).groups())
    k, row = kernel(slug)
    view = captures_views.capture_view(0, next(c for c in k.captures if c.is_primary), None, "")
    facts = {f.label: f.value for f in view.timeline_facts}
    assert facts["wave"] == f"{name} (SE {se}, SIMD {sm}, slot {sl}, wave {wv}): the longest sampled wave"
    rows = w["wave"]["instructions"]
    assert facts["duration"].endswith(f"{len(rows):,} instructions issued")
    assert k.primary.timeline.total_stall == sum(r[2] for r in rows)


@pytest.mark.parametrize("slug", [in_slice("examples/pa", "pa")])
def test_the_skipped_hot_line_is_named_by_what_the_data_shows(slug, sweep, kernel):
    """pa_decode_fp8.py:1170 holds the kernel's first instruction and 608 of its 936; no snapshot source is kept, so
    nothing shows a decorator there: the note says entry/catch-all line, as the advice measured it."""
    rows = static_rows(only_capture(sweep, slug))
    first = rows[0][3].rsplit("/", 1)[-1]
    held = Counter(r[3].rsplit("/", 1)[-1] for r in rows)
    assert (first, held[first], len(rows)) == ("pa_decode_fp8.py:1170", 608, 936)
    assert not list((sweep / "examples" / slug).rglob("source_*.py"))
    k, _ = kernel(slug)
    view = captures_views.capture_view(0, k.primary, None, "")
    assert str(view.jump_note.en) == ("(skips pa_decode_fp8.py:1170, the hotter entry/catch-all line: the advice flags "
                                      "its stalls as a debug-info artifact)")
    assert "decorator" not in str(view.jump_note.en)


@pytest.mark.parametrize("slug", [in_slice("examples/flash_attn_func", "flash_attn_func")])
def test_report_check_csv_explanation_only_on_gfx950(slug, primaries, sweep):
    """flash_attn_func: CSV 124 VGPRs -> 128 -> 512 // 128 = 4, LDS 163,840 // 49,152 = 3 WGs x 4 waves / 4 = 3, so a
    report's "3 waves/SIMD" is the CSV reading; the message names rocprofv3 1.1's gfx950 halving, so on another
    architecture it falls back to the limits."""
    occ = primaries[slug][0].occupancy
    assert (occ.arch, occ.arch_vgpr_csv, occ.lds_limit, occ.waves_per_simd) == ("gfx950", 124, 3, 2)
    assert min(512 // 128, (160 * 1024 // 49152) * 4 // 4, 800 // 112) == 3
    (c,) = report_checks.check_report("Occupancy: 3 waves/SIMD\n", occ)
    assert c.why.key == "report.why.csv"
    (c,) = report_checks.check_report("Occupancy: 3 waves/SIMD\n", replace(occ, arch="gfx942"))
    assert c.why.key == "report.why.limits"
