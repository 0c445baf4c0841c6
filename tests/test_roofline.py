"""Roofline: peaks file, ridge points, and shapes of the real sweep worked by hand.

MI350X peaks (DOMAIN §5): 8.0 TB/s, 2300 bf16 and 4600 fp8 dense TFLOP/s.
    ridge bf16 = 2300 / 8.0 = 287.5 FLOP/byte, ridge fp8 = 4600 / 8.0 = 575 FLOP/byte

vec_add fp32, n = 67108864: n FLOPs over 3 * 4 * n bytes -> AI = 1/12 FLOP/byte;
    roof = min(2300, 8.0 / 12) = 0.6667 TFLOP/s; flydsl reached 0.40495 TFLOP/s
    -> fraction 0.40495 * 12 / 8 = 0.6074 >= 0.25, AI < ridge -> memory-bound.
preshuffle_gemm fp8, M = N = 5120, K = 8320 (aiter):
    FLOPs = 2 M N K = 436,207,616,000
    bytes = M K + N K (fp8) + 2 M N (bf16 out) + 4 (M + N) (fp32 scales) = 137,666,560
    AI = 3168.56 FLOP/byte > 575 -> roof 4600; 2003.15 / 4600 = 0.4355 -> compute-bound.
"""

from __future__ import annotations

import csv

import pytest

from generator import config as config_mod
from generator.analyze import device_peaks as dp
from generator.analyze import roofline as rl
from generator.errors import InputError

VEC_ADD = "benchmarks/examples/vec_add/benchmark_results.csv"
PRESHUFFLE = "benchmarks/examples/preshuffle_gemm/benchmark_results.csv"


def _rows(sweep, rel, **match):
    with open(sweep / rel, newline="") as fh:
        return [r for r in csv.DictReader(fh) if all(r[k] == v for k, v in match.items())]


def test_packaged_peaks_match_domain_table():
    peaks = dp.load_peaks()
    table = {k: (d.arch, d.cus, d.hbm_tbs, d.tflops["bf16"], d.tflops["fp8"], d.lds_kib_per_cu)
             for k, d in peaks.devices.items()}
    assert table == {
        "MI350X": ("gfx950", 256, 8.0, 2300, 4600, 160),
        "MI300X": ("gfx942", 304, 5.3, 1307, 2615, 64),
        "H200_SXM": ("sm_90", 132, 4.8, 989, 1979, 228),
        "H100_SXM": ("sm_90", 132, 3.35, 989, 1979, 228),
    }
    assert peaks.latency_fraction == 0.25


def test_ridge_points():
    peaks = dp.load_peaks()
    mi350 = dp.select_device(peaks, arch="gfx950")
    assert mi350.key == "MI350X"
    assert mi350.ridge_point("bf16") == 287.5
    assert mi350.ridge_point("fp8") == 575.0
    assert dp.select_device(peaks, arch="gfx942").ridge_point("bf16") == pytest.approx(1307 / 5.3)  # 246.60
    assert dp.select_device(peaks, device="h100_sxm").ridge_point("bf16") == pytest.approx(989 / 3.35)
    assert dp.ridge_point(2300, 8.0) == 287.5


def test_classify_rule_on_synthetic_points():
    # peak 100 TFLOP/s, 1 TB/s -> ridge 100 FLOP/byte; latency below 25 % of the roof
    cases = [
        ((10, 9.0), ("memory-bound", 0.9)),  # roof 10
        ((10, 2.0), ("latency-bound", 0.2)),
        ((400, 60.0), ("compute-bound", 0.6)),  # roof 100
        ((400, 25.0), ("compute-bound", 0.25)),  # exactly at the threshold counts as bound
        ((100, 10.0), ("latency-bound", 0.1)),
    ]
    for (ai, tflops), (label, frac) in cases:
        got_label, got_frac = rl.classify(ai, tflops, 100.0, 1.0, 0.25)
        assert got_label == label
        assert got_frac == pytest.approx(frac)
    assert rl.arithmetic_intensity(1.0, 0.0) is None
    assert rl.roof_tflops(50, 100.0, 1.0) == 50


def test_vec_add_shapes_worked_by_hand(sweep):
    peaks = dp.load_peaks()
    dev = dp.select_device(peaks, arch="gfx950")
    rows = _rows(sweep, VEC_ADD, provider="flydsl")
    roof = rl.build_roofline(rows, dev, peaks)
    by_n = {p.args: p for p in roof.points}
    big = by_n['{"n":67108864}']
    assert big.ai == pytest.approx(1 / 12, rel=1e-6)  # n FLOPs / (12 n bytes)
    assert big.precision == "bf16"  # no fp32 peak in the table: noted, memory-bound anyway
    assert big.roof_tflops == pytest.approx(8.0 / 12, rel=1e-6)
    assert big.fraction_of_roof == pytest.approx(0.4049508771212353 * 12 / 8, rel=1e-6)  # 0.6074
    assert big.bound == "memory-bound"
    assert big.ridge == 287.5
    assert by_n['{"n":262144}'].fraction_of_roof == pytest.approx(0.019799395421878287 * 1.5, rel=1e-6)
    assert by_n['{"n":262144}'].bound == "latency-bound"  # 2.97 % of the roof
    assert by_n['{"n":4194304}'].fraction_of_roof == pytest.approx(0.27024, abs=1e-5)
    assert by_n['{"n":4194304}'].bound == "memory-bound"
    assert roof.notes == ["no fp32 peak for MI350X: used the bf16 peak"]
    assert roof.ridges == {"bf16": 287.5, "fp8": 575.0}


@pytest.mark.full_sweep
def test_preshuffle_gemm_fp8_worked_by_hand(sweep):
    peaks = dp.load_peaks()
    dev = dp.select_device(peaks, arch="gfx950")
    rows = _rows(sweep, PRESHUFFLE, args='{"K":8320,"M":5120,"N":5120}')
    roof = rl.build_roofline(rows, dev, peaks)
    m, n, k = 5120, 5120, 8320
    ai_hand = 2 * m * n * k / (m * k + n * k + 2 * m * n + 4 * (m + n))  # 3168.56
    pts = {p.provider: p for p in roof.points}
    assert sorted(pts) == ["aiter", "flydsl", "pytorch"]
    assert pts["aiter"].ai == pytest.approx(ai_hand, rel=1e-6)
    assert pts["aiter"].precision == "fp8" and pts["aiter"].ridge == 575.0
    assert pts["aiter"].roof_tflops == 4600.0
    assert pts["aiter"].fraction_of_roof == pytest.approx(2003.148525010634 / 4600)  # 0.4355
    assert pts["aiter"].bound == "compute-bound"
    assert pts["flydsl"].fraction_of_roof == pytest.approx(1481.0697829191015 / 4600)  # 0.3220
    assert pts["flydsl"].bound == "compute-bound"
    assert pts["pytorch"].bound == "latency-bound"  # 2.7 % of the roof
    assert [(s, p, why) for s, p, why in roof.skipped][:1] == [("sha1:31b52b190fe26826", "aiter_triton", "status not_configured")]
    assert len(roof.skipped) == 7


def test_campaign_rooflines_of_the_sweep(sweep):
    vec = rl.campaign_roofline(sweep / "benchmarks/examples/vec_add")
    assert vec.device.key == "MI350X"  # from the rows' arch gfx950
    assert vec.counts() == {"memory-bound": 28, "compute-bound": 0, "latency-bound": 20}
    assert len(vec.points) == 48 and len(vec.skipped) == 72  # 72 rows not_configured
    pa = rl.campaign_roofline(sweep / "benchmarks/examples/pa_decode")
    # 36 points: gluon's 2 rows above the HBM roof (rule 9) and the 14 rows timed with eager events (rule 13:
    # call time) carry no bound; the other 20 do
    assert pa.counts() == {"memory-bound": 2, "compute-bound": 0, "latency-bound": 18}
    assert len(pa.points) == 36 and pa.left_out() == {"above_roof": 2, "call_clock": 14, "partial_replay": 0, "at_floor": 0}
    assert {p.precision for p in pa.points} == {"fp8"}
    assert rl.campaign_roofline(sweep / "benchmarks/examples/rope") is None  # ledger only


def test_config_picks_device_and_overrides_peaks(sweep):
    cfg = config_mod.config_from_dict({
        "device": "MI350X",
        "peaks": {"hbm_tbs": 6.0, "tflops": {"bf16": 2000}, "classify": {"latency_fraction": 0.5}},
    })
    peaks = dp.load_peaks(cfg)
    dev = dp.resolve_device(cfg, arch="gfx942", peaks=peaks)  # the config's device wins
    assert (dev.key, dev.hbm_tbs, dev.tflops) == ("MI350X", 6.0, {"bf16": 2000.0, "fp8": 4600.0})
    assert dev.ridge_point("bf16") == pytest.approx(2000 / 6)
    roof = rl.build_roofline(_rows(sweep, VEC_ADD, provider="flydsl"), dev, peaks)
    by_n = {p.args: p for p in roof.points}
    assert by_n['{"n":67108864}'].fraction_of_roof == pytest.approx(0.4049508771212353 * 12 / 6, rel=1e-6)
    assert by_n['{"n":4194304}'].bound == "latency-bound"  # 0.36 < 0.5 now


def test_config_adds_a_device_and_plain_dicts_work():
    peaks = dp.load_peaks({"peaks": {"devices": {"MI355X": {
        "name": "AMD Instinct MI355X", "arch": "gfx950", "cus": 256, "hbm_tbs": 8.0,
        "tflops": {"bf16": 2500, "fp8": 5000}}}}})
    dev = dp.select_device(peaks, device="amd instinct mi355x")
    assert dev.ridge_point("fp8") == 625.0
    assert dp.select_device(peaks, arch="gfx950").key == "MI350X"  # arch_device still maps gfx950


def test_peaks_are_built_once_per_file_and_overrides(tmp_path):
    assert dp.load_peaks() is dp.load_peaks()
    faster = dp.load_peaks({"peaks": {"hbm_tbs": 9.0}})
    assert faster is not dp.load_peaks() and faster is dp.load_peaks({"peaks": {"hbm_tbs": 9.0}})
    assert dp.select_device(faster, arch="gfx950").hbm_tbs == 9.0
    assert dp.select_device(dp.load_peaks(), arch="gfx950").hbm_tbs == 8.0
    own = tmp_path / "peaks.toml"
    own.write_bytes(dp.PEAKS_FILE.read_bytes())
    first = dp.load_peaks(path=own)
    assert dp.load_peaks(path=own) is first
    own.write_text(own.read_text().replace("latency_fraction = 0.25", "latency_fraction = 0.5"))
    assert dp.load_peaks(path=own).latency_fraction == 0.5  # an edited file is read again


def test_bad_peaks_and_devices(tmp_path):
    peaks = dp.load_peaks()
    with pytest.raises(InputError) as err:
        dp.select_device(peaks, device="MI999")
    assert err.value.problem == "unknown device 'MI999' (known: H100_SXM, H200_SXM, MI300X, MI350X)"
    with pytest.raises(InputError) as err:
        dp.select_device(peaks, arch="gfx1100")
    assert "no device for arch 'gfx1100'" in err.value.problem
    bad = tmp_path / "peaks.toml"
    bad.write_text("[devices.X]\nname = 'x'\ntflops = { bf16 = 1 }\n")
    with pytest.raises(InputError) as err:
        dp.load_peaks(path=bad)
    assert err.value.message == "peaks.toml: device 'X' lacks 'hbm_tbs'"
    bad.write_text("[devices.X\n")
    with pytest.raises(InputError) as err:
        dp.load_peaks(path=bad)
    assert err.value.problem.startswith("not valid TOML")
    with pytest.raises(InputError):
        dp.load_peaks({"peaks": {"hbm_tbs": "fast"}})
    bad.write_text("format_version = 2\n")
    with pytest.raises(InputError) as err:
        dp.load_peaks(path=bad)
    assert err.value.problem.startswith("peaks format_version 2 is not supported")


def test_pmc_bytes_replace_the_benchmark_bytes(sweep):
    peaks = dp.load_peaks()
    dev = dp.select_device(peaks, arch="gfx950")
    rows = _rows(sweep, VEC_ADD, provider="flydsl", args='{"n":67108864}')
    n = 67108864
    measured = {"sha1:eed4d812a3993809": 1.04 * 12 * n}  # 4 % over-fetch seen by the counters
    (p,) = rl.build_roofline(rows, dev, peaks, measured_bytes=measured).points
    assert p.bytes_source == "pmc"
    # FLOPs implied by the row: 0.40495 TFLOP/s * 165.72 us = n
    assert p.ai == pytest.approx(1 / (12 * 1.04), rel=1e-6)
    assert p.bound == "memory-bound"


def test_results_rows_shared_with_the_scoring_and_bad_lines_keep_their_wording(sweep, tmp_path):
    """The JSONL rows come from the parse the scoring made; a file the shared parse refuses is
    read by the roofline's own loop, so its errors (and its leniency) stay as they were."""
    import shutil

    from generator.read.jsonl import results_jsonl

    dest = tmp_path / "vec_add"
    shutil.copytree(sweep / "benchmarks/examples/vec_add", dest)
    rows = rl.read_result_rows(dest)
    assert len(rows) == 120 and rows[0] is results_jsonl(dest / "benchmark_results.jsonl")[0][1]
    assert rl.campaign_roofline(dest).counts() == {"memory-bound": 28, "compute-bound": 0, "latency-bound": 20}
    path = dest / "benchmark_results.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3] + ["[1, 2]\n"] + lines[3:]))  # JSON, but not an object
    assert len(rl.read_result_rows(dest)) == 121 and rl.read_result_rows(dest)[3] == [1, 2]
    path.write_text("".join(lines[:3] + ['{"shape_id": \n'] + lines[3:]))
    with pytest.raises(InputError) as err:
        rl.read_result_rows(dest)
    assert err.value.message.endswith(
        "benchmark_results.jsonl:4: not JSON: Expecting value: line 2 column 1 (char 14)")


def test_rows_kept_by_the_plan_place_the_same_points_and_a_changed_file_is_read_again(sweep, tmp_path):
    """The build's plan keeps the roofline's fields of each campaign's rows (``jsonl.keep_fields``):
    the same roofline, taken once; a file changed since is parsed anew."""
    import os
    import shutil

    from generator.read import jsonl

    dest = tmp_path / "vec_add"
    shutil.copytree(sweep / "benchmarks/examples/vec_add", dest)
    path = dest / "benchmark_results.jsonl"
    whole = rl.campaign_roofline(dest).to_json()
    jsonl.keep_fields(path, rl.ROW_FIELDS)
    assert rl.campaign_roofline(dest).to_json() == whole
    assert jsonl.kept_fields(path, rl.ROW_FIELDS) is None  # taken once
    jsonl.keep_fields(path, rl.ROW_FIELDS)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[1:]))
    os.utime(path, ns=(1, 1))
    assert jsonl.kept_fields(path, rl.ROW_FIELDS) is None
    assert len(rl.read_result_rows(dest)) == 119
