"""Which timed shape a capture is: the bytes it implies, a ledger's declared capture shape, the traced grid.

Worked from the raw files of the shared MI350X sweep:

* layernorm (Dispatch_Id 23, grid 256 workgroups x 4 waves): each wave loads 4 x 16 B x 64 lanes of its
  row of x and stores as much of y (8,192 B), and loads 8 x 1 KiB of gamma/beta at addresses made from v0
  alone (descriptors s[8:11], s[12:15], no store uses them). Counted once, gamma/beta are 32 KiB: 8,192 B
  x 1,024 waves + 32,768 B = 8,421,376 B, what flydsl moves at M=256 N=8192 (589.7 GB/s x 14.28 us);
  counted per wave they made 16,777,216 B, the bytes of M=256 N=16384 (31.00 us).
* rmsnorm (Dispatch_Id 18, 1,024 workgroups x 4 waves): 8,192 B a wave of x and y, 4 x 1 KiB of gamma;
  33,570,816 B. M=4096 N=2048 (19.32 us) and M=2048 N=4096 move those bytes but launch 4,096 and 2,048 rows: the capture is
  M=1024 N=8192, which the campaign did not time.
* softmax (Dispatch_Id 13, 32,768 workgroups x 4 waves): 8,192 B a wave, nothing re-read: 2^30 B, the
  ledger's declared capture shape M=32768 N=8192 (1,073,741,824 B timed there).
* The three ledgers declare M=32768 N=8192 "shape used by the existing rocprofv3/ATT capture"; its bytes
  are 127.5x layernorm's capture's and 32.0x rmsnorm's: stale there, right for softmax.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from generator.analyze import isa
from generator.analyze.advice import reread, streaming

pytestmark = pytest.mark.full_sweep  # layernorm, rmsnorm and softmax are not in the slice


def finding(k, detector):
    return next((f for f in k.primary.findings if f["detector"] == detector), None)


def _view(k):
    from generator.analyze.advice.registry import ranked_on
    from generator.analyze.advice.view import KernelView
    return KernelView(ranked_on(k.primary.analysis))


def _rereads(k) -> list[str]:
    v = _view(k)
    same = reread.invariant_loads(tuple(i.asm for i in v.ins), tuple(i.pc_addr for i in v.ins))
    return [v.ins[p].asm for p in sorted(same)]


# ---------------------------------------------------------------- the bytes the capture implies

def test_layernorm_gamma_beta_loads_are_rereads_not_streamed_bytes(kernel):
    k, _ = kernel("layernorm")
    loads = _rereads(k)
    assert len(loads) == 8 and all(isa.vmem_kind(a) == "load" for a in loads)
    assert {reread.descriptor(a) for a in loads} == {frozenset(("s", n) for n in range(8, 12)),
                                                     frozenset(("s", n) for n in range(12, 16))}
    gap = finding(k, "timed_gap")
    bw = gap["evidence"]["bandwidth"]
    assert (bw["bytes_per_wave"], bw["reread_bytes_per_wave"], bw["waves"]) == (8192, 8192, 1024)
    assert bw["bytes"] == 8192 * 1024 + 8192 * 4 == 8421376  # gamma/beta once: one workgroup's 4 waves


def test_rmsnorm_gamma_loads_are_rereads_and_softmax_has_none(site_env, kernel):
    k, _ = kernel("rmsnorm")
    loads = _rereads(k)
    assert len(loads) == 4 and {reread.descriptor(a) for a in loads} == {frozenset(("s", n) for n in range(8, 12))}
    bw = _bw(site_env, kernel, "rmsnorm")
    assert (bw["bytes_per_wave"], bw["reread_bytes_per_wave"], bw["waves"]) == (8192, 4096, 4096)
    assert bw["bytes"] == 8192 * 4096 + 4096 * 4 == 33570816
    # no timed shape is the capture's: its own 4.30 TB/s (53.8 % of 8 TB/s) is kept, flagged, and read by no finding
    assert bw["unmatched"] and "timed" not in bw and "gap" not in bw
    assert bw["achieved_tbs"] == pytest.approx(33570816 / 7800 / 1000)
    s, _ = kernel("softmax")
    assert _rereads(s) == []


def _bw(site_env, kernel, slug):
    """The bandwidth reading the advice works out for ``slug``'s primary capture (in the build's context)."""
    from generator.analyze.advice.context import context_for
    from generator.analyze.advice.registry import ranked_on
    from generator.analyze.advice.view import KernelView
    env, plans = site_env
    k, _ = kernel(slug)
    a = k.primary.analysis
    ctx = context_for(a, plans[slug].bundle, None, k.score, k.score.geomean_vs_best, env.config)
    return streaming.bandwidth(KernelView(ranked_on(a), ctx))


# ---------------------------------------------------------------- the timed shape each capture is

def test_layernorm_capture_is_m256_n8192_and_the_gap_is_fixed_cost_not_cache(kernel):
    """4.74 us (median of the 112 dispatches of the grid) against 14.28 us timed at M=256 N=8192: 3.0x;
    the fastest timed shape takes 13.00 us, so (14.28 - 13.00) / 4.74 = 0.27 < 1.25: no cache conclusion."""
    k, _ = kernel("layernorm")
    gap = finding(k, "timed_gap")
    timed = gap["evidence"]["bandwidth"]["timed"]
    assert (timed["shape"], timed["matched_by"], timed["same_bytes"]) == ("M=256 N=8192 eps=1e-05", "bytes", True)
    assert timed["median_us"] == pytest.approx(14.28, abs=0.005) and timed["floor_us"] == pytest.approx(13.00, abs=0.005)
    assert gap["title"] == ("The profiled grid's dispatches ran 3.0x faster than the timed runs at the same bytes "
                            "(1.78 vs 0.59 TB/s)")
    summary = gap["evidence"]["summary"]
    assert "14.28 us at M=256 N=8192 eps=1e-05 (3.0x)" in summary and "which can explain the gap" in summary
    assert "cache" not in summary and "N=16384" not in summary


def test_rmsnorm_capture_matches_no_timed_shape_so_no_timed_claim(kernel):
    """M=1024 N=8192 is not timed; M=4096 N=2048, M=2048 N=4096 and others move the same bytes (within 2 %)
    but none has M=1024, the traced 1,024 workgroups; the capture's own 4.30 TB/s reads no HBM fraction either."""
    k, row = kernel("rmsnorm")
    for det in ("timed_gap", "profiled_shape", "streaming_roofline"):
        assert finding(k, det) is None, det
    score = k.score
    alike = [sh.args_text for sh in score.shapes if sh.providers.get(score.candidate) is not None
             and sh.providers[score.candidate].usable and sh.providers[score.candidate].effective_gbps
             and abs(sh.providers[score.candidate].effective_gbps * sh.providers[score.candidate].median_us * 1e3
                     / 33570816 - 1) <= streaming.SAME_BYTES]
    assert "M=4096 N=2048 eps=1e-05" in alike and "M=2048 N=4096 eps=1e-05" in alike
    assert not [a for a in alike if a.startswith("M=1024 ")]
    assert streaming.grid_keys(score, 1024) == {"M"}
    assert streaming.timed_bandwidth(score, 33570816, 8.0, 1024) is None
    assert streaming.timed_bandwidth(score, 33570816, 8.0)["shape"] in alike  # without the grid, one of them
    assert "of HBM peak" not in row.diagnosis["text"]


def test_softmax_declared_capture_shape_is_trusted(kernel):
    k, row = kernel("softmax")
    bw = finding(k, "streaming_roofline")["evidence"]["bandwidth"]
    assert bw["bytes"] == 2 ** 30 and "reread_bytes_per_wave" not in bw
    assert (bw["timed"]["shape"], bw["timed"]["matched_by"], bw["timed"]["same_bytes"]) == (
        "M=32768 N=8192", "declared", True)
    assert row.diagnosis["text"].endswith("62% of HBM peak")


# ---------------------------------------------------------------- the ledgers' declared capture shape

@pytest.mark.parametrize("slug,capture_bytes,off", [
    ("layernorm", 8421376, 127.5), ("rmsnorm", 33570816, 32.0), ("softmax", 2 ** 30, 1.0)])
def test_ledger_declares_m32768_n8192_trusted_only_within_2x(sweep, kernel, slug, capture_bytes, off):
    from generator.read.campaign_rows import read_ledger
    shapes, _ = read_ledger(sweep / "benchmarks/examples" / slug / "shape_ledger.jsonl")
    declared = [s for s in shapes if s.capture_declared]
    assert [(s.args["M"], s.args["N"], s.stage) for s in declared] == [(32768, 8192, "diagnostic")]
    k, _ = kernel(slug)
    sh = next(s for s in k.score.shapes if s.capture_declared)
    r = sh.providers[k.score.candidate]
    assert r.effective_gbps * r.median_us * 1e3 / capture_bytes == pytest.approx(off, abs=0.05)
    trusted = 1 / streaming.DECLARED_WITHIN <= off <= streaming.DECLARED_WITHIN
    assert trusted == (slug == "softmax")


# ---------------------------------------------------------------- the rules on made-up inputs

def _shape(args, us, gbps, declared=False):
    r = SimpleNamespace(usable=True, effective_gbps=gbps, median_us=us)
    return SimpleNamespace(args=args, shape_id=json.dumps(args), providers={"c": r}, capture_declared=declared)


def test_declared_shape_within_2x_names_the_shape_but_compares_no_times():
    """Declared at 1.5x the capture's bytes: trusted as the shape, but its time is not compared."""
    score = SimpleNamespace(candidate="c", shapes=[
        _shape({"M": 64}, 10.0, 150.0, declared=True),  # 1.5e6 B
        _shape({"M": 32}, 10.0, 100.0)])  # 1.0e6 B: the capture's bytes
    t = streaming.timed_bandwidth(score, 1.0e6, 8.0)
    assert (t["shape"], t["matched_by"], t["same_bytes"]) == ("M=64", "declared", False)
    score.shapes[0].providers["c"].effective_gbps = 250.0  # 2.5x: stale, fall back on the bytes
    t = streaming.timed_bandwidth(score, 1.0e6, 8.0)
    assert (t["shape"], t["matched_by"], t["same_bytes"]) == ("M=32", "bytes", True)
    score.shapes.pop()
    assert streaming.timed_bandwidth(score, 1.0e6, 8.0) is None


def _ins(asms):
    return tuple(asms), tuple(0x100 + 4 * n for n in range(len(asms)))


def test_a_load_is_a_reread_only_when_its_address_ignores_the_workgroup():
    asms, pcs = _ins([
        "s_load_dwordx2 s[8:9], s[0:1], 0x18",
        "s_mov_b32 s10, -1",
        "s_mov_b32 s11, 0x27000",
        "s_waitcnt lgkmcnt(0)",
        "v_lshlrev_b32_e32 v4, 4, v0",
        "buffer_load_dwordx4 v[10:13], v4, s[8:11], 0 offen",  # 5: lane only: a re-read
        "v_add_lshl_u32 v5, s2, v0, 1",
        "buffer_load_dwordx4 v[14:17], v5, s[8:11], 0 offen",  # 7: the workgroup id s2: streamed
        "s_endpgm"])
    assert reread.invariant_loads(asms, pcs) == {5}
    stored = asms[:-1] + ("buffer_store_dwordx4 v[10:13], v5, s[8:11], 0 offen", "s_endpgm")
    assert reread.invariant_loads(stored, _ins(stored)[1]) == frozenset()  # the buffer is written: kept
    looped = ("s_load_dwordx2 s[8:9], s[0:1], 0x18", "s_mov_b32 s10, -1", "s_mov_b32 s11, 0x27000",
              "s_waitcnt lgkmcnt(0)", "v_lshlrev_b32_e32 v4, 4, v0",
              "buffer_load_dwordx4 v[10:13], v4, s[8:11], 0 offen",  # 5: inside the loop 5..7: kept
              "s_add_u32 s8, s8, 64", "s_cbranch_scc1 -3", "s_endpgm")
    assert reread.invariant_loads(looped, _ins(looped)[1]) == frozenset()
    wg = ("v_mov_b32_e32 v5, ttmp9", "v_lshlrev_b32_e32 v4, 4, v5", "s_load_dwordx2 s[8:9], s[0:1], 0x18",
          "s_mov_b32 s10, -1", "s_mov_b32 s11, 0x27000", "buffer_load_dword v1, v4, s[8:11], 0 offen", "s_endpgm")
    assert reread.invariant_loads(wg, _ins(wg)[1]) == frozenset()  # a workgroup id in ttmp9
