"""A headline pair on the call clock is a reading, never a verdict (VERDICTS rules 10 and 13).

The shared sweep's four call-clock pairs (expected/verdicts.json ``pair_clock`` "call"): fused_rope_cache
219.6 us around a 4.0 us kernel, layernorm 24.1 around 4.7, pa 169.5 around 7.9, rmsnorm 25.1 around 7.8.
Their ratio stays shown, named as call time, with no WIN / PARITY / HEADROOM word and no "≠ X" mark; the
best baseline beside "wins k of n" counts the same kernel-clock shapes (pa: gluon on 10 of 10, not 12 of 12).
"""

from __future__ import annotations

import csv
import html
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from generator.analyze.verdicts import headline_note
from generator.site.views import base, overview

pytestmark = pytest.mark.full_sweep

VERDICT_WORDS = re.compile(r"\b(WIN|PARITY|HEADROOM|BLOCKED)\b")
#: op -> the bundle (overview slug) of its headline pair (docs/data/kernels.json)
CALL_PAIRS = {"fused_rope_cache": "fused_rope_cache", "layernorm": "layernorm", "pa_decode": "pa", "rmsnorm": "rmsnorm"}


@pytest.fixture(scope="module")
def expected(sweep):
    return json.loads((sweep / "expected" / "verdicts.json").read_text())


@pytest.fixture(scope="module")
def pairs(sweep):
    """kernels.json's entries by bundle name."""
    data = json.loads((sweep / "docs" / "data" / "kernels.json").read_text())
    return {k["example"]: k for k in data["kernels"]}


@pytest.fixture(scope="module")
def site(sweep, tmp_path_factory) -> Path:
    from generator.site import build

    out = tmp_path_factory.mktemp("pairword") / "site"
    build.build_site(sweep, out, progress=False)
    return out


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))).strip()


def test_the_call_pairs_are_the_expected_ones(expected, pairs):
    """The four ops are those whose pair the expected verdicts put on the call clock, and the raw numbers say
    why: the pair's candidate time is over 2 x its kernel's device time and the launch overhead is at least
    half of it (rule 13)."""
    assert {op for op, v in expected.items() if v.get("pair_clock") == "call"} == set(CALL_PAIRS)
    for op, bundle in CALL_PAIRS.items():
        pair_us, dev = pairs[bundle]["flydsl_us"], expected[op]["pair_device_us"]
        assert pair_us > 2 * dev and expected[op]["launch_overhead_us"][0] >= pair_us / 2, op


def test_a_call_pair_has_no_verdict_word(kernel, expected, pairs):
    for op, bundle in CALL_PAIRS.items():
        k, row = kernel(bundle)
        s = k.score
        assert (s.pair_clock, s.headline.clock, s.headline.verdict) == ("call", "call", None), op
        entry = pairs[bundle]
        assert s.headline.speedup == pytest.approx(entry["baseline_us"] / entry["flydsl_us"])  # the reading is kept
        assert s.verdict == expected[op]["verdict"]  # the kernel verdict is unchanged
        # the note names the clock and the device time, and reads no verdict into the pair
        note = s.headline_note
        assert not VERDICT_WORDS.search(note), note
        assert note == (f"Headline pair {s.headline.text} is call time ({entry['flydsl_us']:.1f} us of host events "
                        f"around a {expected[op]['pair_device_us']:.1f} us kernel): a reading, with no verdict.")
        assert (row.headline_verdict, row.headline_disagrees, row.pair_clock) == (None, False, "call")
        assert row.api()["headline_verdict"] is None


def test_layernorm_no_longer_reads_parity(kernel):
    """layernorm's pair 24.1 / 24.7 us = 1.02x would read PARITY; it is 24.1 us of call time around a 4.7 us
    kernel, while its kernel verdict is HEADROOM 0.85x over 55 shapes: no disagreement to flag."""
    k, row = kernel("layernorm")
    assert f"{k.headline.speedup:.2f}" == "1.02" and row.verdict == "HEADROOM"
    assert "PARITY" not in k.headline_note


def test_the_overview_cell_and_chart_name_the_clock(site):
    page = (site / "index.html").read_text()
    for bundle in CALL_PAIRS.values():
        row = re.search(rf'<tr class="krow" id="k-{bundle}".*?</tr>', page, re.S).group(0)
        cell = re.findall(r"<td.*?</td>", row, re.S)[6]  # the headline pair's cell
        assert "≠" not in cell and "disagree" not in cell, bundle
        assert text_of(cell).split()[1:3] == ["call", "time"], bundle
    fig = json.loads(re.search(r'<script type="application/json" id="fig-overview-headline">(.*?)</script>',
                               page, re.S).group(1))
    by_trace = {t["name"]: set(t["y"]) for t in fig["data"]}
    call = {"Fused RoPE + KV-Cache", "LayerNorm", "Paged-Attn Decode (PS)", "RMSNorm"}
    assert by_trace["headline, call time (no verdict)"] == call
    for verdict in ("WIN", "PARITY", "HEADROOM"):
        assert not by_trace.get(f"headline {verdict}", set()) & call, verdict
    # quant's pair is on the kernel clock and still disagrees: 0.96x PARITY vs its 7 shapes' HEADROOM
    quant = re.search(r'<tr class="krow" id="k-quant".*?</tr>', page, re.S).group(0)
    assert '<div class="flag small disagree" translate="no">≠ PARITY</div>' in quant


def test_no_kernel_page_reads_a_verdict_into_a_call_pair(site):
    for bundle in CALL_PAIRS.values():
        page = (site / "kernels" / bundle / "index.html").read_text()
        pair = text_of(re.search(r'<div class="headline-pair">.*?</div>', page, re.S).group(0))
        assert not VERDICT_WORDS.search(pair) and "call time" in pair, bundle
        md = (site / "pr" / f"{bundle}.md").read_text()
        line = next(x for x in md.splitlines() if x.startswith("| headline pair |"))
        assert not VERDICT_WORDS.search(line) and "call time" in line, bundle


def test_fused_rope_cache_geomean_is_named_reference_only(kernel, sweep):
    """fused_rope_cache's verdict geomean 5.16x over 30 shapes is against pytorch, the reference, on every
    shape (the raw rows: aiter_triton times a layout conversion, so it is never comparable). A note that sets
    a pair against it says "reference-only geomean", never plain "verdict geomean"."""
    k, _ = kernel("fused_rope_cache")
    s = k.score
    rows = list(csv.DictReader(open(sweep / "benchmarks/examples/fused_rope_cache/benchmark_results.csv")))
    layout = {r["provider"]: r["includes_layout_conversion"] for r in rows if r["benchmark_status"] == "ok"}
    assert (layout["flydsl"], layout["aiter_triton"], layout["pytorch"]) == ("False", "True", "False")
    assert s.verdict_reference_only and f"{s.verdict_geomean[0]:.2f}" == "5.16" and s.verdict_geomean[1] == 30
    assert {sh.verdict_baseline for sh in s.shapes if sh.verdict_baseline} == {"pytorch"}
    assert "verdict geomean" not in s.headline_note  # the call pair's note sets nothing against it
    on_kernel = replace(s.headline, clock="kernel", verdict="HEADROOM")  # were the pair on the kernel clock
    assert headline_note(on_kernel, s).endswith("(reference-only geomean 5.16x over 30 shapes).")


def test_pa_best_baseline_counts_its_kernel_clock_shapes(kernel, sweep):
    """From the raw rows: pa_decode's flydsl is graph-replayed on 10 shapes and fell back to eager events on the
    2 sliding-window shapes (graph capture failed); its best baseline on each of the 10 is gluon (graph-replayed;
    pytorch is eager and 40-2,000x slower). The overview and the PR table say gluon 10 of 10."""
    rows = list(csv.DictReader(open(sweep / "benchmarks/examples/pa_decode/benchmark_results.csv")))
    last = {}
    for r in rows:
        if r["benchmark_status"] == "ok" and float(r["median_us"] or 0) > 0 and r["correct"] in ("True", ""):
            last[(r["shape_id"], r["provider"])] = r
    shapes = {sid for sid, p in last if p == "flydsl"}
    graph = [sid for sid in shapes if last[(sid, "flydsl")]["timing_method"] == "cudagraph"]
    assert (len(shapes), len(graph)) == (12, 10)
    best = Counter(min((p for (s, p) in last if s == sid and p != "flydsl"), key=lambda p: float(last[(sid, p)]["median_us"]))
                   for sid in graph)
    assert best == Counter({"gluon": 10})
    k, row = kernel("pa")
    assert (row.best_baseline, row.best_baseline_text) == ("gluon", "gluon (10 of 10)")
    assert row.wins_text == "0 of 10"  # the same 10 shapes
    assert overview.index_row(k, base.SiteContext()).api()["best_baseline"] == "gluon"
