"""fix12: five items of an earlier audit, each checked against numbers recounted here from the raw files.

1. The NVIDIA opportunities lead with what the rule's metric shows; Nsight Compute's rule sentence is
   quoted as its own (gemm's CPIStall says "CTA barrier" where the sampling shows wgmma waits).
2. vec_add's L2 write counter reads 100.33 %: said as the counter's value, never as a rate.
3. The ISA counts use the site's number format (flash_attn_func: 2,069).
4. English counts take the catalogue's ``{n:~noun}`` form (no ``.one`` keys, no ``counted()``).
5. The advice detectors' English evidence agrees with its count at 1 (vec_add: "1 vmcnt wait ... holds").
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from generator.analyze import message
from generator.analyze.message import english, form, sentence
from generator.site import build, i18n
from test_ncu_summary import BUNDLES, summary  # same test folder
from test_render import build_real_site  # same test folder

NCU = BUNDLES / "examples"
KERNELS = ("gemm", "rmsnorm", "silu_and_mul", "softmax", "vec_add")


# ---------------------------------------------------------------- raw-file readers (ours, not the generator's)

def sass_rows(kernel: str) -> tuple[list[str], list[list[str]]]:
    """source_sass.csv of the first launch: (header, rows); row 0 names the kernel, row 1 is the header."""
    with (NCU / kernel / "ncu" / "prefill" / "source_sass.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    header = rows[1]
    body = []
    for r in rows[2:]:
        if r and r[0] == "Kernel Name":  # a second launch (vec_add) starts here
            break
        body.append(r)
    return header, body


def not_issued(kernel: str) -> tuple[Counter, Counter]:
    """Not-issued samples per stall reason, and the stall_barrier ones per opcode (first word after a predicate)."""
    header, body = sass_rows(kernel)
    cols = {h[: -len(" (Not Issued)")]: i for i, h in enumerate(header) if h.endswith(" (Not Issued)")}
    by_reason, barrier_by_op = Counter(), Counter()
    for r in body:
        words = r[1].split()
        op = words[1] if words and words[0].startswith("@") else words[0]
        for reason, i in cols.items():
            n = int(r[i].replace(",", "")) if r[i] not in ("", "-") else 0
            by_reason[reason] += n
            if reason == "stall_barrier":
                barrier_by_op[op] += n
    return by_reason, barrier_by_op


def details_rule(kernel: str, rule: str) -> str:
    """details.csv's description of an OPT rule of launch 0."""
    with (NCU / kernel / "ncu" / "prefill" / "details.csv").open(newline="") as f:
        return next(r["Rule Description"] for r in csv.DictReader(f)
                    if r["ID"] == "0" and r["Rule Name"] == rule and r["Rule Type"] == "OPT")


def details_metric(kernel: str, name: str) -> str:
    with (NCU / kernel / "ncu" / "prefill" / "details.csv").open(newline="") as f:
        return next(f"{r['Metric Value']} {r['Metric Unit']}" for r in csv.DictReader(f)
                    if r["ID"] == "0" and r["Metric Name"] == name)


def raw0(kernel: str, metric: str) -> float:
    """raw.csv's ``metric`` of launch 0 (row 0 names, row 1 units)."""
    with (NCU / kernel / "ncu" / "prefill" / "raw.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    return float(rows[2][rows[0].index(metric)].replace(",", ""))


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "site"
    build.build_site(BUNDLES, out, progress=False)
    return out


# ---------------------------------------------------------------- 1. opportunities

def test_gemm_opportunity_leads_with_the_wgmma_waits_and_quotes_nsight_compute():
    """source_sass.csv: 16,029 stall_barrier not-issued samples, 13,911 of them on WARPGROUP.DEPBAR.LE (4 rows);
    all reasons 20,838, so the wgmma waits are 66.8 % -> "67 %". details.csv's CPIStall sentence says the
    warps wait "for sibling warps at a CTA barrier": Nsight Compute's words, now quoted as its own."""
    by_reason, barrier = not_issued("gemm")
    assert (sum(by_reason.values()), by_reason["stall_barrier"], barrier["WARPGROUP.DEPBAR.LE"]) == (20838, 16029, 13911)
    share = f"{100 * 13911 / 20838:.0f}"
    opp = summary("gemm")["opportunities"][0]
    assert opp["rule"] == "CPIStall"
    ncu_says = details_rule("gemm", "CPIStall").split(". ")[0] + "."
    assert opp["title"] == ncu_says and "sibling warps at a CTA barrier" in ncu_says
    lead = str(opp["lead"])
    assert lead.startswith(f"{share} % of stalled samples wait for asynchronous warpgroup MMA (wgmma) results on "
                           "WARPGROUP.DEPBAR")
    assert "sibling warps" not in lead and "stall_barrier on WARPGROUP.DEPBAR" in lead
    assert lead.endswith("Warp Cycles Per Issued Instruction = " + details_metric("gemm", "Warp Cycles Per Issued Instruction"))
    assert str(opp["attribution"]) == (
        "Nsight Compute's rule CPIStall (its estimated gain: 41.2 % (global)) words its stall_barrier counter as waits "
        "at a CTA barrier, while the sampling puts 13,911 of the 16,029 stall_barrier samples on WARPGROUP.DEPBAR, "
        "which are wgmma waits. It says:")


@pytest.mark.parametrize("kernel, reason, share", [
    # source_sass.csv, not-issued samples: stall_long_sb / all reasons
    ("rmsnorm", "stall_long_sb", 464 / 904), ("silu_and_mul", "stall_long_sb", 2323 / 2505),
    ("softmax", "stall_long_sb", 3269 / 5310), ("vec_add", "stall_long_sb", 1142 / 1227),
])
def test_other_kernels_cpistall_agrees_with_the_sampling(kernel, reason, share):
    """Nsight Compute's CPIStall sentence on these four names an L1TEX scoreboard dependency, and the sampling's
    top reason is stall_long_sb: no mismatch, so the quote is attributed plainly and the lead gives the share."""
    by_reason, _ = not_issued(kernel)
    assert by_reason.most_common(1)[0][0] == reason
    assert by_reason[reason] / sum(by_reason.values()) == pytest.approx(share)
    assert "scoreboard dependency on a L1TEX" in details_rule(kernel, "CPIStall")
    (opp,) = [o for o in summary(kernel)["opportunities"] if o["rule"] == "CPIStall"]
    assert str(opp["lead"]).startswith(f"{share * 100:.0f} % of stalled samples wait for global/local memory data")
    assert f"({reason} in the warp-stall sampling)" in str(opp["lead"])
    assert str(opp["attribution"]).startswith("Nsight Compute's rule CPIStall (its estimated gain: ")
    assert str(opp["attribution"]).endswith(") says:")


@pytest.mark.parametrize("kernel", KERNELS)
def test_every_opportunity_leads_with_ours_and_quotes_the_rule(kernel):
    """Each of the top three is led by our sentence (a message, both languages), never by the rule's own words."""
    for o in summary(kernel)["opportunities"]:
        assert o["lead"].msg.key.startswith("msg.ncu.opp.") and o["attribution"].msg.key.startswith("msg.ncu.opp.said")
        assert not str(o["lead"]).startswith(o["title"][:30])
        assert o["rule"] in str(o["attribution"]) and o["estimated_gain"] in str(o["attribution"])


def test_gemm_page_quotes_the_rule_after_its_attribution(demo_site):
    html = (demo_site / "kernels" / "gemm" / "index.html").read_text(encoding="utf-8")
    head = re.search(r'<li class="finding"><div class="finding-head"><strong>(.*?)</strong>', html).group(1)
    assert "sibling warps" not in head and "wait for asynchronous warpgroup MMA (wgmma) results" in head
    assert ('It says:</span><span class="zh-only">' in html and
            '<q translate="no">On average, each warp of this workload spends 7.0 cycles being stalled waiting for '
            'sibling warps at a CTA barrier.</q>' in html)
    assert 'data-i18n="ncu.metric"' not in html


# ---------------------------------------------------------------- 2. the write counter above 100 %

def test_vec_add_write_counter_is_said_as_the_counter_value():
    """raw.csv launch 0: lts__t_sector_op_write_hit_rate.pct 100.330306 (no rate can be that); the SMs' own write
    sectors lts__t_sectors_srcunit_tex_op_write.sum 524,288, of which _lookup_hit.sum 524,288 and _lookup_miss 0."""
    write = raw0("vec_add", "lts__t_sector_op_write_hit_rate.pct")
    total = raw0("vec_add", "lts__t_sectors_srcunit_tex_op_write.sum")
    hit = raw0("vec_add", "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum")
    assert write > 100.0 and (total, hit, raw0("vec_add", "lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum")) == (
        524288, 524288, 0)
    locality = summary("vec_add")["bottleneck"]["locality"]
    assert locality.msg.key == "msg.ncu.locality.split.over"
    assert "write sectors 100.3 %" not in locality and "a write allocates" not in locality
    assert (f"The write counter lts__t_sector_op_write_hit_rate reads {write:.1f} %, which no hit rate can be; "
            f"of the SMs' own write sectors (lts__t_sectors_srcunit_tex_op_write), {int(hit):,} of {int(total):,} hit.") in locality


@pytest.mark.parametrize("kernel", ["gemm", "rmsnorm", "silu_and_mul", "softmax"])
def test_write_counters_at_or_below_100_keep_the_plain_split(kernel):
    assert raw0(kernel, "lts__t_sector_op_write_hit_rate.pct") <= 100.0
    locality = summary(kernel)["bottleneck"]["locality"]
    assert locality is None or locality.msg.key == "msg.ncu.locality.split"


# ---------------------------------------------------------------- 3. ISA counts

@pytest.mark.parametrize("capture", ["c0"] + [pytest.param(c, marks=pytest.mark.full_sweep) for c in ("c1", "c2", "c3")])
def test_isa_counts_use_the_site_number_format(tmp_path_factory, sweep, capture):
    """code.json of each flash_attn_func capture: 2,070 rows, one a "; flash_attn_func_kernel_0" comment: 2,069
    instructions, listed on two pages (pc 1-1199 and 1200-2069: 1,199 and 870)."""
    rows = json.loads(next((sweep / "examples" / "flash_attn_func" / "att_viewer").glob("*/*/code.json"))
                      .read_text())["code"]
    n = sum(1 for r in rows if str(r[0]).strip() and not str(r[0]).lstrip().startswith(";"))
    assert n == 2069
    site = build_real_site(tmp_path_factory, sweep)
    page = (site / "kernels" / "flash_attn_func" / "index.html").read_text(encoding="utf-8")
    assert (f'<p id="{capture}-isa" data-page="src/{capture}/isa.html"><a href="src/{capture}/isa.html"><span '
            f'data-i18n="cap.isa">ISA listing</span></a> <span class="muted"><span translate="no">{n:,}</span>') in page
    for part, count in (("isa.html", 1199), ("isa-2.html", n - 1199)):
        html = (site / "kernels" / "flash_attn_func" / "src" / capture / part).read_text(encoding="utf-8")
        assert f'<p class="muted">{count:,} <span data-i18n="cap.instr">' in html


# ---------------------------------------------------------------- 4. one plural form

@pytest.mark.parametrize("key, params, one, many", [
    ("msg.flag.hard", {}, "1 hard failure", "6 hard failures"),
    ("msg.flag.roof", {}, "1 row above a roof (HBM or dense compute)", "6 rows above a roof (HBM or dense compute)"),
    ("msg.flag.scope", {"m": 1}, "not like-for-like: the best baseline times another scope on 1 of 1 shape",
     "not like-for-like: the best baseline times another scope on 1 of 6 shapes"),
    ("msg.hist.lead.added", {"provider": "aiter"}, "aiter added on 1 shape", "aiter added on 6 shapes"),
    ("msg.sweep.stray", {}, "1 result row names a shape that is not in the ledger (ignored)",
     "6 result rows name shapes that are not in the ledger (ignored)"),
    ("msg.sweep.repeated", {}, "1 (shape, provider) pair has several rows: the last usable one counts",
     "6 (shape, provider) pairs have several rows: the last usable one counts"),
    ("msg.notrep", {}, "Not representative: all 1 sampled wave exits early", "Not representative: all 6 sampled waves exit early"),
])
def test_counts_read_right_at_one(key, params, one, many):
    assert sentence(key, n=1, **params).startswith(one) and sentence(key, n=6, **params).startswith(many)


def test_real_partial_chart_note_is_unchanged_and_singular_at_one():
    """moe_gemm on the shared sweep: 9 of its 9 measured shapes have no dot (the words stay as they were)."""
    assert english("speed.chart.partial", k=9, n=9, cand="flydsl").startswith(
        "9 of the 9 measured shapes have no dot on the speedup chart: flydsl's graph replay misses work there "
        "(rule 16), so no per-shape ratio rests on them; the table shows their times.")
    assert english("speed.chart.partial", k=1, n=4, cand="flydsl").startswith(
        "1 of the 4 measured shapes has no dot on the speedup chart: flydsl's graph replay misses work there "
        "(rule 16), so no per-shape ratio rests on it; the table shows its times.")


@pytest.mark.full_sweep  # the slice holds one capture of flash_attn_func: no comparison
def test_compare_notes_count_top_lines(tmp_path_factory, sweep):
    """flash_attn_func's comparisons: "3 top lines" and "5 top lines" (was "top line(s)"); at one, "1 top line appears"."""
    api = json.loads((build_real_site(tmp_path_factory, sweep) / "api" / "kernels" / "flash_attn_func.json").read_text())
    notes = [n for c in api["compare"] for n in c["comparison"]["notes"]]
    assert any(n.startswith("3 top lines appear only in A and 14 only in B") for n in notes)
    assert not any("line(s)" in n for n in notes)
    assert english("msg.cmp.lines", a=1, b=2) == "1 top line appears only in A and 2 only in B"


def test_one_message_model_has_no_singular_keys():
    """The singular lives in the form: no ``counted()``, no ``<key>.one`` beside a plural key (the bandwidth's
    ``finding.bw.baselines.one`` is one value against a range, not a count), no ``msg.files.line``."""
    assert not hasattr(message, "counted")
    for lang in ("en", "zh"):
        cat = i18n.catalogue(lang)
        assert [k for k in cat if k.endswith(".one")] == ["finding.bw.baselines.one"]
        assert "msg.files.line" not in cat and "src.instruction" not in cat
    assert form(1, "~row") == "1 row" and form("1", "~row") == "1 row" and form("2,069", "~row") == "2,069 rows"
    assert form(1, "~~has~have") == "has" and form(9, "~~has~have") == "have"


# ---------------------------------------------------------------- 5. advice evidence at one

def test_vec_add_vmcnt_evidence_agrees_with_its_one_wait(tmp_path_factory, sweep):
    """vec_add's plan on the shared sweep holds one vmcnt wait with stalls (its evidence lists one): the English
    evidence read "1 vmcnt wait at pc 18 hold ... the load they wait for"."""
    api = json.loads((build_real_site(tmp_path_factory, sweep) / "api" / "kernels" / "vec_add.json").read_text())
    (f,) = [f for f in api["captures"][0]["advice"] if f["detector"] == "vmem_latency_exposed"]
    assert len(f["evidence"]["waits"]) == 1
    assert f["evidence"]["summary"].startswith("1 vmcnt wait at pc 18 holds ")
    assert "after the load it waits for" in f["evidence"]["summary"]


@pytest.mark.parametrize("key, params, text", [
    ("finding.snop_hazard.summary", {"n": 1, "share": "3 %", "lines": "a.py:3", "pairs": "x"},
     "1 s_nop holds 3 % of the stall cycles (a.py:3); it pads x"),
    ("finding.wgmma_wait.summary", {"n": 1, "share": "3 %", "barrier": "7", "lines": "a.py:3"},
     "1 WARPGROUP.DEPBAR wait holds 3 % of the stall samples"),
    ("finding.early_exit_waves.summary", {"early": 1, "sampled": 4, "share": "3 %", "working": 1, "ranked": "",
                                          "branch": ""},
     "1 of 4 sampled waves exits early and holds 3 % of the stall cycles; 1 does the work"),
    ("finding.store_bound.summary", {"n": 1, "widths": "16", "share": "3 %"},
     "1 store (16 bytes per lane) holds 3 % of the stall cycles"),
])
def test_advice_messages_agree_at_one(key, params, text):
    assert english(key, **params).startswith(text)


def test_advice_plain_text_agrees_at_one():
    from generator.analyze.advice.limits import _exit_early
    assert _exit_early(1, 1) == "1 sampled wave exits early" and _exit_early(8, 3) == "8 sampled waves exit early"


def test_a_history_stored_with_a_singular_key_still_words():
    """A history folder written before fix12 stores "1 shape" facts under ``msg.hist.lead.added.one``."""
    from generator.sweeps.moves import moved_facts
    (fact,) = moved_facts({"facts": [{"sentence": ["aiter added on 1 shape", "msg.hist.lead.added.one",
                                                   {"provider": "aiter", "n": 1}]}]})
    assert str(fact) == "aiter added on 1 shape" and fact.msg.key == "msg.hist.lead.added"
    assert i18n.zh_said_text(fact) == i18n.zh("msg.hist.lead.added", provider="aiter", n=1)
