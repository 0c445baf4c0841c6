"""The source and ISA pages and the kernel page's hotspot parts, recomputed from the raw files (audit9).

Every expected value is worked here from the capture's own files with json and arithmetic alone, never by the
generator's code: ``code.json`` rows ``[asm, _, pc_index, source, codeobj, vaddr, hit, latency, stall, idle]``
(label rows, whose asm starts with ``;``, skipped), the DOMAIN §1.2 taxonomy written out below, the wave files
(rows ``[time, type, stall, duration, pc_index]``) and ``wstates<K>.json`` (K = 1 IDLE, 2 EXEC, 3 WAIT, 4 STALL).

Found right on all 17 captures and pinned: every source line's stall, share, dominant type, heat class and
instruction count, the instructions folded under it (pcs, stalls, links) and a cold line's link to its first
instruction; every ISA row's stall / total / idle / exec / type columns, heat class, part page, its line's link
and a branch's link to its target (``pc + 4 + 4 * SIMM16``); the stall-type chart's bars and shares, the wave-state
bar, the top-lines and top-instructions tables, and pa's working-waves tables (8 of 56 waves, 44,892 cycles).

Fixed here:

* "Jump to the hottest line" said of flash_attn_func.py:257/258 "the hotter entry/catch-all line: the advice flags
  its stalls as a debug-info artifact". The line is not the entry (the kernel's first instruction maps to
  numeric.py:872) but holds 1,895 (1,402 after the location fix) of the 2,069 instructions, and the advice calls it
  "a catch-all, not one operation", no artifact: the note now says the count;
* the MFMA note "32-cycle MFMA" on v_mfma_f32_32x32x16_bf16 (flash_attn_func) and "16-cycle MFMA" on
  v_mfma_f32_16x16x32_bf16 (hgemm_splitk) stated latencies DOMAIN §1.4's table does not give (inferred from the
  output tile): the note and its title now say "inferred";
* "Jump to the hottest line" on pa_mqa_logits_fp4, whose 726 instructions map to no source line, went to the top
  of the ISA listing: no line is there to jump to, and the link is gone (the listing keeps its own link);
* each part of a long ISA listing said "870 instructions, 1.75M stall" (flash_attn_func's second part): its count
  beside the whole capture's stall. A part now gives its own instructions' stall (772,348 cycles there);
* the source page's line table had no column heads: its "0.8%" (the line's share of the capture's stall cycles)
  could be read as the line's stall rate, which the kernel page shows beside it (pa_decode_fp8.py:151: 9.9 %).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import pytest

from conftest import in_slice
from generator.site import render, source_pages
from generator.site.views import base as base_views
from generator.site.views import captures as captures_views
from generator.site.views import source as source_views

CAPTURES = [
    ("flash_attn_func", "big/ui_output_agent_38430_dispatch_44"),
    ("flash_attn_func", "big/ui_output_agent_55287_dispatch_44_after_loc_fix"),
    ("flash_attn_func", "small/ui_output_agent_32235_dispatch_44"),
    ("flash_attn_func", "small/ui_output_agent_58550_dispatch_44_after_loc_fix"),
    ("fused_rope_cache", "big/ui_output_agent_4253_dispatch_8781"),
    ("hgemm_splitk", "big/ui_output_agent_4716_dispatch_319"),
    ("layernorm", "big/ui_output_agent_22257_dispatch_23"),
    ("moe_blockscale", "big/ui_output_agent_39345_dispatch_668"),
    ("moe_gemm", "big/ui_output_agent_56573_dispatch_87"),
    ("pa", "big/ui_output_agent_10886_dispatch_209"),
    ("pa_mqa_logits_fp4", "big/ui_output_agent_55351_dispatch_426"),
    ("pa_mqa_logits_fp4", "small/ui_output_agent_32435_dispatch_197"),
    ("preshuffle_gemm", "big/ui_output_agent_58177_dispatch_135"),
    ("quant", "big/ui_output_agent_34678_dispatch_8"),
    ("rmsnorm", "big/ui_output_agent_19276_dispatch_18"),
    ("softmax", "big/ui_output_agent_47920_dispatch_13"),
    ("vec_add", "big/ui_output_agent_14705_dispatch_25"),
]
PARAMS = [in_slice(f"examples/{b}/att_viewer/{rel}", b, rel) for b, rel in CAPTURES]


def stall_type(asm: str) -> str:
    """DOMAIN §1.2, first match wins."""
    a = asm.lower()
    if "s_waitcnt" in a:
        return ("VMEM-wait" if "vmcnt" in a else "LDS/SMEM-wait" if "lgkmcnt" in a else
                "EXP-wait" if "expcnt" in a else "waitcnt")
    for words, name in ((("s_barrier", "s_wait_idle"), "barrier"),
                        (("buffer_load", "global_load", "flat_load"), "VMEM-load"),
                        (("buffer_store", "global_store"), "VMEM-store"), (("ds_read", "ds_write"), "LDS"),
                        (("s_load", "s_store"), "SMEM"), (("v_mfma", "v_fma"), "MFMA/FMA")):
        if any(w in a for w in words):
            return name
    return "other"


def raw_rows(cap) -> list[dict]:
    """code.json's instruction rows, label rows skipped."""
    out = []
    for r in json.loads((cap / "code.json").read_text())["code"]:
        if str(r[0]).startswith(";") or not isinstance(r[2], int) or r[2] <= 0:
            continue
        out.append({"asm": r[0], "pc": r[2], "loc": r[3] or "<unknown>", "addr": r[5], "hit": r[6], "lat": r[7],
                    "stall": r[8], "idle": r[9], "type": stall_type(r[0])})
    return out


def raw_lines(rows: list[dict]) -> dict[str, dict]:
    """Per source line: stall, total, pcs and the type with most stall among its stalling instructions."""
    out: dict[str, dict] = {}
    for r in rows:
        ln = out.setdefault(r["loc"], {"stall": 0, "total": 0, "pcs": [], "types": Counter()})
        ln["stall"] += r["stall"]
        ln["total"] += r["lat"]
        ln["pcs"].append(r["pc"])
        if r["stall"] > 0:
            ln["types"][r["type"]] += r["stall"]
    for ln in out.values():
        ln["dominant"] = max(ln["types"], key=ln["types"].get) if ln["types"] else "-"
    return out


def cycles(v: int) -> str:
    """The reference's print of a count: 364, 25.3K, 41.65M."""
    return f"{v / 1e6:.2f}M" if v >= 1e6 else f"{v / 1e3:.1f}K" if v >= 1e3 else str(v)


def heat(v: int, top: int) -> str:
    return f"h{max(1, min(8, math.ceil(8 * v / top)))}" if v > 0 and top > 0 else ""


def capture_of(kernel, bundle, rel):
    k, _ = kernel(bundle)
    ci = next(i for i, c in enumerate(k.captures) if c.rel.endswith(rel))
    return k, ci, k.captures[ci]


@pytest.mark.parametrize("bundle, rel", PARAMS)
def test_every_line_and_instruction_shows_its_raw_numbers(bundle, rel, sweep, kernel):
    rows = raw_rows(sweep / "examples" / bundle / "att_viewer" / rel)
    lines = raw_lines(rows)
    total = sum(r["stall"] for r in rows)
    top_ins, top_line = max(r["stall"] for r in rows), max(ln["stall"] for ln in lines.values())
    k, ci, c = capture_of(kernel, bundle, rel)
    pages = source_views.capture_pages(ci, c, k, base_views.SiteContext(), "t")
    isa = {r.pc: (r, p.rel) for p in pages if p.kind == "isa" for r in p.isa}
    assert sorted(isa) == sorted(r["pc"] for r in rows)
    for r in rows:
        row, page = isa[r["pc"]]
        assert (row.stall, row.total, row.idle, row.execs, row.type, row.heat) == (
            cycles(r["stall"]) if r["stall"] else "", cycles(r["lat"]) if r["lat"] else "",
            cycles(r["idle"]) if r["idle"] else "", str(r["hit"]) if r["hit"] else "", r["type"],
            heat(r["stall"], top_ins))
        assert page.endswith("isa.html" if r["pc"] < 1200 else f"isa-{r['pc'] // 1200 + 1}.html")
        if r["loc"] != "<unknown>":
            assert row.loc_href.endswith(f"#L{r['loc'].rsplit(':', 1)[1]}")
    by_addr = {r["addr"]: r["pc"] for r in rows}
    for r in rows:  # a branch links its target: byte address pc + 4 + 4 * SIMM16
        op = r["asm"].split()
        if op[0] == "s_branch" or op[0].startswith("s_cbranch"):
            off = int(op[1])
            want = by_addr.get(r["addr"] + 4 + 4 * (off - 65536 if off >= 32768 else off))
            assert isa[r["pc"]][0].target == want
    shown = 0
    for p in pages:
        if p.kind != "source":
            continue
        for ln in (x for b in p.blocks for x in b.lines):
            raw = lines[f"{p.path}:{ln.number}"]
            shown += 1
            hot = raw["stall"] > 0
            assert (ln.stall, ln.share, ln.dominant, ln.heat) == (
                cycles(raw["stall"]) if hot else "", f"{100 * raw['stall'] / total:.1f}%" if hot else "",
                raw["dominant"] if hot else "", heat(raw["stall"], top_line))
            assert ln.isa_label == f"{len(raw['pcs'])} instruction" + ("s" if len(raw["pcs"]) > 1 else "")
            if hot:
                assert [i.pc for i in ln.isa] == raw["pcs"]
            else:
                assert ln.isa_href.endswith(f"#pc{raw['pcs'][0]}")
    rendered = {p.path for p in pages if p.kind == "source"}
    assert shown == sum(1 for loc in lines if loc.rsplit(":", 1)[0] in rendered)


@pytest.mark.parametrize("bundle, rel", PARAMS)
def test_the_kernel_page_hotspot_tables_and_chart(bundle, rel, sweep, kernel):
    cap = sweep / "examples" / bundle / "att_viewer" / rel
    rows = raw_rows(cap)
    total = sum(r["stall"] for r in rows)
    by_type = Counter()
    for r in rows:
        by_type[r["type"]] += r["stall"]
    ranked = [(t, v) for t, v in by_type.most_common() if v]
    k, ci, c = capture_of(kernel, bundle, rel)
    view = captures_views.capture_view(ci, c, None, "")
    bars = json.loads(str(view.stall_chart.json))["data"][0]  # largest on top: drawn bottom-up
    assert list(zip(bars["y"], bars["x"]))[::-1] == ranked
    assert bars["customdata"][::-1] == [round(100 * v / total, 2) for _, v in ranked]
    assert [(s.name, s.cycles, s.share) for s in view.stall_types] == [
        (t, cycles(v), f"{100 * v / total:.1f}%") for t, v in ranked]
    lines = raw_lines(rows)
    top = sorted(lines.items(), key=lambda kv: -kv[1]["stall"])[:15]
    assert [(ln.title, ln.stall, ln.share, ln.rate, ln.dominant) for ln in view.top_lines] == [
        (loc, cycles(x["stall"]), f"{100 * x['stall'] / total:.2f}%",
         f"{100 * x['stall'] / x['total']:.1f}%" if x["total"] else "0.0%", x["dominant"])
        for loc, x in top if x["stall"] > 0]
    ins = sorted(rows, key=lambda r: -r["stall"])[:15]
    assert [(i.pc, i.stall, i.share, i.type) for i in view.top_instructions] == [
        (r["pc"], cycles(r["stall"]), f"{100 * r['stall'] / total:.2f}%", r["type"]) for r in ins if r["stall"] > 0]
    area = {}
    for kk, name in ((1, "IDLE"), (2, "EXEC"), (3, "WAIT"), (4, "STALL")):
        f = cap / f"wstates{kk}.json"
        if f.exists():
            d = json.loads(f.read_text())
            area[name] = sum(n * (t1 - t0) for n, t0, t1 in zip(d["state"], d["time"], d["time"][1:]))
    assert [(w.name, w.pct) for w in view.wave_states] == [
        (n, round(100 * v / sum(area.values()), 2)) for n, v in area.items()]


@pytest.mark.parametrize("slug", [in_slice("examples/pa", "pa")])
def test_pa_working_waves_tables(slug, sweep, kernel):
    """48 of pa's 56 sampled waves run fewer than 2 % of its 936 static instructions (or 5 % of the longest
    wave's): the other 8 hold 44,892 of 70,036 stall cycles; their tables are summed from their wave rows."""
    cap = sweep / "examples" / "pa" / "att_viewer" / "big/ui_output_agent_10886_dispatch_209"
    rows = raw_rows(cap)
    waves = [json.loads(f.read_text())["wave"]["instructions"] for f in sorted(cap.glob("se*_sm*_sl*_wv*.json"))]
    longest = max(map(len, waves))
    working = [w for w in waves if len(w) >= 0.05 * longest and len(w) >= 0.02 * len(rows)]
    stall, dur = Counter(), Counter()
    for w in working:
        for _t, _k, s, d, pc in w:
            stall[pc] += s
            dur[pc] += d
    assert (len(waves), len(working), sum(stall.values())) == (56, 8, 44892)
    mine = [dict(r, stall=stall[r["pc"]], lat=dur[r["pc"]]) for r in rows]
    lines = sorted(raw_lines(mine).items(), key=lambda kv: -kv[1]["stall"])[:15]
    k, _ = kernel(slug)
    view = captures_views.capture_view(0, k.primary, None, "")
    assert [(ln.title, ln.stall, ln.share, ln.rate, ln.dominant) for ln in view.working.top_lines] == [
        (loc, cycles(x["stall"]), f"{100 * x['stall'] / 44892:.2f}%", f"{100 * x['stall'] / x['total']:.1f}%",
         x["dominant"]) for loc, x in lines if x["stall"] > 0]
    ins = sorted(mine, key=lambda r: -r["stall"])[:15]
    assert [(i.pc, i.stall, i.type) for i in view.working.top_instructions] == [
        (r["pc"], cycles(r["stall"]), r["type"]) for r in ins]


@pytest.mark.parametrize("bundle, rel, loc, n, entry", [
    in_slice("examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", "flash_attn_func",
             "small/ui_output_agent_32235_dispatch_44", "flash_attn_func.py:257", 1895, False),
    in_slice("examples/flash_attn_func/att_viewer/big/ui_output_agent_55287_dispatch_44_after_loc_fix", "flash_attn_func",
             "big/ui_output_agent_55287_dispatch_44_after_loc_fix", "flash_attn_func.py:258", 1402, False),
    in_slice("examples/pa", "pa", "big/ui_output_agent_10886_dispatch_209", "pa_decode_fp8.py:1170", 608, True),
])
def test_the_jump_note_says_what_the_skipped_line_is(bundle, rel, loc, n, entry, sweep, kernel):
    rows = raw_rows(sweep / "examples" / bundle / "att_viewer" / rel)
    held = Counter(r["loc"].rsplit("/", 1)[-1] for r in rows)
    first = rows[0]["loc"].rsplit("/", 1)[-1]
    assert (held.most_common(1)[0], first == loc) == ((loc, n), entry)  # flash: the entry is numeric.py:872
    k, ci, c = capture_of(kernel, bundle, rel)
    note = source_views.jump_note(c, source_views.hottest_loc(c))
    if entry:
        assert note.en == (f"(skips {loc}, the hotter entry/catch-all line: the advice flags its stalls as a "
                           "debug-info artifact)")
    else:
        assert note.en == f"(skips {loc}, the hotter catch-all line: {n} of the {len(rows)} instructions map to it)"
        assert "artifact" not in note.en and "假象" not in "".join(s.text for s in note.zh)


@pytest.mark.parametrize("bundle, rel, pc, note, zh", [
    in_slice("examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", "flash_attn_func",
             "small/ui_output_agent_32235_dispatch_44", 788, "32-cycle MFMA (inferred)", "32 周期的 MFMA（推断）"),
    in_slice("examples/hgemm_splitk", "hgemm_splitk", "big/ui_output_agent_4716_dispatch_319", 267,
             "16-cycle MFMA (inferred)", "16 周期的 MFMA（推断）"),
    in_slice("examples/pa", "pa", "big/ui_output_agent_10886_dispatch_209", 372, "16-cycle MFMA", "16 周期的 MFMA"),
])
def test_an_mfma_latency_outside_the_domain_table_is_marked_inferred(bundle, rel, pc, note, zh, sweep, kernel):
    rows = {r["pc"]: r for r in raw_rows(sweep / "examples" / bundle / "att_viewer" / rel)}
    form = rows[pc]["asm"].split()[0]
    table = ("v_mfma_f32_16x16x32_fp8_fp8",)  # of the forms here, the one DOMAIN §1.4 lists (16 cycles)
    assert (form in table) == (not note.endswith("(inferred)"))
    k, ci, c = capture_of(kernel, bundle, rel)
    row = next(r for p in source_views.capture_pages(ci, c, k, base_views.SiteContext(), "t") if p.kind == "isa"
               for r in p.isa if r.pc == pc)
    assert (row.note, row.note_zh) == (note, zh)
    assert ("latency inferred" in row.note_title) == note.endswith("(inferred)")
    if pc == 372:  # pa: pcs 373-375 write v[6:9]; pc 376 takes a[0:3] as srcC: an accumulator chain after 3
        assert [rows[p]["asm"].split()[0] for p in (373, 374, 375)] == ["v_lshl_add_u64"] * 3
        assert rows[376]["asm"].endswith("a[0:3]")
        assert row.note_title.endswith("pc 376 reads the result after 3 (accumulator chain)")


@pytest.mark.parametrize("slug", [in_slice("examples/pa", "pa")])
def test_the_source_table_names_its_columns(slug, kernel):
    k, _ = kernel(slug)
    out = source_pages.kernel_source_files(k, base_views.SiteContext(), render.load_assets())
    page = out["kernels/pa/src/c0/pa_decode_fp8.py.html"].decode()
    head = re.search(r'<table class="source">\s*<thead><tr>(.*?)</tr></thead>', page)
    assert re.findall(r'data-i18n="([^"]+)"', head[1]) == ["col.line", "src.col.stall", "col.share", "col.dominant"]
    # pa_decode_fp8.py:151: 544 of 70,036 stall cycles (0.8 %), 544 of its own 5,476 cycles (9.9 %)
    assert '<tr id="L151" class="h1"><td><a href="#L151">151</a></td><td>544</td><td>0.8%</td><td>other</td>' in page


@pytest.mark.parametrize("rel, parts", [
    in_slice("examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44",
             "small/ui_output_agent_32235_dispatch_44", [(1199, 61140), (870, 46744)]),
    in_slice("examples/flash_attn_func/att_viewer/big/ui_output_agent_55287_dispatch_44_after_loc_fix",
             "big/ui_output_agent_55287_dispatch_44_after_loc_fix", [(1199, 981888), (870, 772348)]),
])
def test_each_isa_part_says_the_stall_of_what_it_lists(rel, parts, sweep, kernel):
    rows = raw_rows(sweep / "examples" / "flash_attn_func" / "att_viewer" / rel)
    split = [[r for r in rows if r["pc"] < 1200], [r for r in rows if r["pc"] >= 1200]]
    assert [(len(p), sum(r["stall"] for r in p)) for p in split] == parts
    k, ci, c = capture_of(kernel, "flash_attn_func", rel)
    pages = [p for p in source_views.capture_pages(ci, c, k, base_views.SiteContext(), "t") if p.kind == "isa"]
    assert [(len(p.isa), p.stall) for p in pages] == [(n, cycles(s)) for n, s in parts]


@pytest.mark.parametrize("rel", [
    in_slice("examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426",
             "big/ui_output_agent_55351_dispatch_426"),
    in_slice("examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197",
             "small/ui_output_agent_32435_dispatch_197"),
])
def test_no_jump_to_a_line_where_no_instruction_maps_to_one(rel, sweep, kernel):
    rows = raw_rows(sweep / "examples" / "pa_mqa_logits_fp4" / "att_viewer" / rel)
    assert (len(rows), {r["loc"] for r in rows}) == (726, {"<unknown>"})
    k, ci, c = capture_of(kernel, "pa_mqa_logits_fp4", rel)
    view = captures_views.capture_view(ci, c, None, "")
    assert (view.hottest_href, view.jump_note, view.isa_href) == ("", None, f"src/c{ci}/isa.html")
