"""Sweep snapshots: the real sweep's numbers, JSON round trips, format versions, empty sides.

The builders here (``make_sweep_copy``, ``scale_candidate``...) make small sweeps from
the shared one in ``tmp_path``: capture directories and unchanged files are symlinks
to the read-only shared data, and only edited results files are written.
``test_diff`` and ``test_history`` use them too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

import pytest

from conftest import in_slice  # the same test folder
from verdict_oracle import kernel_vs_any, kernel_noise, shape_noises, shape_pairs
from generator.errors import InputError
from generator.model import API_FORMAT_VERSION, FORMAT_VERSION
from generator.sweeps.snapshot import SweepSnapshot, check_format_version, snapshot_from_json
from generator.sweeps.snapshot_sources import load_snapshot, snapshot_from_api, snapshot_from_sweep

FA_BEFORE = ("flash_attn_func/att_viewer/big/ui_output_agent_38430_dispatch_44",
             "flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44")
FA_AFTER = ("flash_attn_func/att_viewer/big/ui_output_agent_55287_dispatch_44_after_loc_fix",
            "flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix")
SOFTMAX_CAPTURE = ("softmax/att_viewer/big/ui_output_agent_47920_dispatch_13",)

RowEdit = Callable[[dict], dict]


# ---------------------------------------------------------------- sweep builders (shared by the diff and history tests)


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(src, dst)


def make_sweep_copy(shared: Path, root: Path, captures: tuple[str, ...] = (),
                    campaigns: dict[str, RowEdit | None] | None = None,
                    rename: dict[str, str] | None = None, kernels_json: bool = True) -> Path:
    """A sweep under ``root`` made of pieces of the shared one.

    ``captures``: capture paths under ``examples/`` to keep (their bundle's
    ``compute_viewer/`` and ``source/`` come along); ``campaigns``: op -> a function that
    edits each results row (None: rows unchanged); ``rename``: bundle or op -> new name.
    """
    rename = rename or {}
    if kernels_json:
        _link(shared / "docs" / "data" / "kernels.json", root / "docs" / "data" / "kernels.json")
    bundles = sorted({c.split("/", 1)[0] for c in captures})
    for b in bundles:
        for sub in ("compute_viewer", "source"):
            for f in sorted((shared / "examples" / b / sub).iterdir()):
                _link(f, root / "examples" / rename.get(b, b) / sub / f.name)
    for c in captures:
        b, rest = c.split("/", 1)
        _link(shared / "examples" / c, root / "examples" / rename.get(b, b) / rest)
    for op, edit in (campaigns or {}).items():
        src = shared / "benchmarks" / "examples" / op
        dst = root / "benchmarks" / "examples" / rename.get(op, op)
        for name in ("shape_ledger.jsonl", "baseline_matrix.yaml"):
            _link(src / name, dst / name)
        if edit is None:
            _link(src / "benchmark_results.jsonl", dst / "benchmark_results.jsonl")
            continue
        with open(src / "benchmark_results.jsonl", encoding="utf-8") as fh, \
                open(dst / "benchmark_results.jsonl", "w", encoding="utf-8") as out:
            for line in fh:
                if line.strip():
                    out.write(json.dumps(edit(json.loads(line))) + "\n")
    return root


def scale_provider(provider: str, factor: float, **fields) -> RowEdit:
    """A row edit: ``provider``'s times (median, p10, p90) times ``factor``, and fields set."""
    def edit(row: dict) -> dict:
        if row["provider"] == provider:
            for key in ("median_us", "p10_us", "p90_us"):
                if row.get(key) is not None:
                    row[key] *= factor
            row.update(fields)
        return row
    return edit


def set_fields(**fields) -> RowEdit:
    """A row edit setting fields on every row."""
    def edit(row: dict) -> dict:
        row.update(fields)
        return row
    return edit


def fail_provider(provider: str, **fields) -> RowEdit:
    """A row edit: ``provider`` fails every shape (status failed, no times), and fields set."""
    def edit(row: dict) -> dict:
        if row["provider"] == provider:
            for key in ("median_us", "p10_us", "p90_us", "mean_us", "min_us", "std_us",
                        "graph_median_us", "eager_median_us"):
                row[key] = None
            row.update(benchmark_status="failed", correct=None, **fields)
        return row
    return edit


def chain(*edits: RowEdit) -> RowEdit:
    def edit(row: dict) -> dict:
        for e in edits:
            row = e(row)
        return row
    return edit


# ---------------------------------------------------------------- the real sweep


@pytest.fixture(scope="module")
def full(sweep) -> SweepSnapshot:
    return snapshot_from_sweep(sweep)


def test_real_sweep_kernels_follow_its_folders(full, sweep):
    """One kernel per campaign folder and per bundle, a campaign taking its bundle's name as slug where the
    two pair (pa_decode -> pa on both); the ledger-only campaigns UNTIMED, a bundle without a campaign
    unscored, and the verdict tally that of expected/verdicts.json: all worked from the folders themselves."""
    ops = sweep / "benchmarks" / "examples"
    campaigns = {d.name for d in ops.iterdir() if d.is_dir()}
    ledger_only = {op for op in campaigns if not list((ops / op).glob("benchmark_results.*"))}
    bundles = {d.name for d in (sweep / "examples").iterdir() if d.is_dir()}
    ks = full.kernels.values()
    assert sorted(k.op for k in ks if k.op) == sorted(campaigns)
    assert sorted(k.bundle for k in ks if k.bundle) == sorted(bundles)
    assert all(k.slug == k.bundle for k in ks if k.op and k.bundle)
    assert all(k.slug == k.op for k in ks if k.op and not k.bundle)
    paired = [k for k in ks if k.op and k.bundle]
    assert len(full.kernels) == len(campaigns) + len(bundles) - len(paired)
    assert full.kernels["pa"].op == "pa_decode" and full.kernels["pa"].bundle == "pa"
    assert all(k.verdict is None and k.kernel_vs_any is None for k in ks if not k.op)
    assert all(k.hotspot is None for k in ks if not k.bundle)
    assert sorted(k.slug for k in ks if k.verdict == "UNTIMED") == sorted(ledger_only)
    expected = json.loads((sweep / "expected" / "verdicts.json").read_text())
    want = {}
    for v in [row["verdict"] for row in expected.values()] + ["UNTIMED"] * len(ledger_only):
        want[v] = want.get(v, 0) + 1
    assert full.verdict_counts() == want
    assert full.errors == {}


@pytest.mark.full_sweep
def test_real_sweep_kernels_and_slugs(full):
    # 18 campaign folders (5 ledger-only) and one bundle without a campaign (pa_mqa_logits_fp4);
    # a campaign takes its bundle's name as slug: gemm -> hgemm_splitk, pa_decode -> pa.
    assert len(full.kernels) == 19
    assert full.kernels["hgemm_splitk"].op == "gemm"
    assert full.kernels["pa"].op == "pa_decode"
    assert full.kernels["flash_attn_func"].op == "flash_attn"
    assert full.kernels["pa_mqa_logits_fp4"].op is None and full.kernels["pa_mqa_logits_fp4"].verdict is None
    assert full.kernels["fp8_gemm_rowscale"].bundle is None and full.kernels["fp8_gemm_rowscale"].hotspot is None
    assert sorted(s for s, k in full.kernels.items() if k.verdict == "UNTIMED") == [
        "attention_prefill", "batched_gemm", "paged_attention", "rope", "serving_scenarios"]
    assert full.verdict_counts() == {"BLOCKED": 1, "HEADROOM": 10, "UNTIMED": 5, "WIN": 2}  # fused_rope_cache: its pair is call time (rule 13)
    assert full.errors == {}


def test_real_sweep_numbers_equal_the_expected_verdicts(full, sweep):
    expected = json.loads((sweep / "expected" / "verdicts.json").read_text())
    by_op = {k.op: k for k in full.kernels.values() if k.op}
    for op, want in expected.items():
        k = by_op[op]
        assert k.verdict == want["verdict"], op
        g, _, _ = kernel_vs_any(sweep / "benchmarks" / "examples" / op)  # as shown: kernel-clock shapes (rules 9, 10)
        assert k.kernel_vs_any is None if want["graph_partial"] else round(k.kernel_vs_any, 3) == round(g, 3), op
        assert (k.wins, k.n_measured, k.hard_failures) == (want["wins"], want["n_measured"], want["hard_failures"]), op


def pa_working_waves_from_raw(cap):
    """(stall cycles, cycles, stall cycles by DOMAIN §1.2 type) of pa's working waves, from the wave files
    and code.json alone: a wave exits early under 5 % of the longest wave's rows or 2 % of the static
    instructions (DOMAIN §1.5)."""
    code = [r for r in json.loads((cap / "code.json").read_text())["code"] if type(r[2]) is int and r[2] > 0]
    asm = {r[2]: r[0].lower() for r in code}
    waves = [json.loads(f.read_text())["wave"]["instructions"] for f in sorted(cap.glob("se*_sm*_sl*_wv*.json"))]
    longest = max(len(w) for w in waves)
    working = [w for w in waves if not (len(w) < 0.05 * longest or len(w) < 0.02 * len(code))]
    by_type: dict = {}
    for row in (r for w in working for r in w):
        a = asm.get(row[4], "")
        kind = ("LDS/SMEM-wait" if "s_waitcnt" in a and "lgkmcnt" in a else "VMEM-wait" if "s_waitcnt" in a
                and "vmcnt" in a else "other" if not a.startswith(("s_waitcnt", "s_barrier", "buffer_", "global_",
                                                                    "ds_", "s_load", "v_mfma", "v_fma", "flat_"))
                else "known")
        by_type[kind] = by_type.get(kind, 0) + row[2]
    return sum(by_type.values()), sum(r[3] for w in working for r in w), by_type


def test_real_sweep_pa_kernel(full, sweep):
    """pa (the pa_decode campaign and its bundle, in the slice too): its first shape from the raw rows
    (tests/verdict_oracle.py), its hotspot from the bundle's source/hotspot_output.txt (top stall type,
    stall share) and expected/occupancy.json (waves per SIMD, limiter), its commits and environment."""
    folder = sweep / "benchmarks" / "examples" / "pa_decode"
    k = full.kernels["pa"]
    listed = json.loads((sweep / "docs/data/kernels.json").read_text())["kernels"]
    entry = next(e for e in listed if e["example"] == "pa")
    assert k.name == entry["name"] == "Paged-Attn Decode (PS)"
    assert k.noise == pytest.approx(kernel_noise(folder), rel=1e-12)  # 1.0338
    pairs = shape_pairs(folder)
    assert len(k.shapes) == len(pairs) == 12 and sum(s.speedup is not None for s in k.shapes) == 12
    first = k.shapes[0]
    c, b = pairs[first.shape_id]
    assert (first.shape_id, first.args["batch"], first.args["num_q_heads"], first.dtype) == (
        "sha1:96a8a5f2d3c44465", 3, 8, "fp8")
    assert first.args == c["args"] and first.best_baseline == b["provider"] == "gluon"
    assert first.speedup == pytest.approx(b["median_us"] / c["median_us"], rel=1e-12)  # 0.818
    assert first.noise == pytest.approx(shape_noises(folder)[first.shape_id], rel=1e-12)
    assert first.candidate_us == pytest.approx(21.99999988079071, rel=1e-12) == c["median_us"]
    hot = k.hotspot
    capture = "examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209"
    occupancy = json.loads((sweep / "expected" / "occupancy.json").read_text())[capture]
    report = (sweep / "examples/pa/source/hotspot_output.txt").read_text()
    # the reference analyzer reads all 56 waves: "Total stalls:  70.0K  (65.7% of total cycles)", LDS/SMEM-wait
    # first; 48 of them exit early (DOMAIN §1.5), so the hotspot, like the overview row, reads the 8 working
    # waves (44,892 stall of 78,696 cycles = 57.0 %, "other" first), the basis the api row's stall_basis names
    assert "(65.7% of total cycles)" in report and "  LDS/SMEM-wait      25.3K" in report
    stall, cycles, by_type = pa_working_waves_from_raw(sweep / capture)
    assert (stall, cycles) == (44892, 78696) and max(by_type, key=by_type.get) == "other"
    assert hot.capture == capture
    assert (hot.top_stall_type, hot.waves_per_simd, hot.limiter) == (
        "other", occupancy["waves"], occupancy["limiter"]) == ("other", 2, "VGPR")
    assert hot.stall_ratio == pytest.approx(stall / cycles) and round(hot.stall_ratio, 3) == 0.570
    rows = [json.loads(ln) for ln in (folder / "benchmark_results.jsonl").read_text().splitlines() if ln.strip()]
    assert k.candidate_commit == "7255fff8" == c["candidate_commit"]
    # the aiter libraries' rows (not configured for pa_decode) still record their commit
    assert k.baselines == {"aiter": "32e1e6d76", "aiter_asm": "32e1e6d76", "aiter_ck": "32e1e6d76",
                           "aiter_triton": "32e1e6d76"} == {r["provider"]: r["baseline_commit"] for r in rows
                                                            if r["baseline_commit"]}
    assert k.environment == {"arch": "gfx950", "driver": "6.14.14", "gpu": "AMD Instinct MI350X", "rocm": "7.2.0",
                             "torch": "2.9.1+rocm7.2.0.git7e1940d4", "triton": "3.6.0"}
    assert {(r["arch"], r["driver_version"], r["gpu"], r["rocm_version"], r["torch_version"], r["triton_version"])
            for r in rows} == {tuple(k.environment[f] for f in ("arch", "driver", "gpu", "rocm", "torch", "triton"))}


def test_real_sweep_vec_add_kernel(full, sweep):
    """vec_add (the slice holds it) against its raw rows: noise, shapes, the first shape's numbers, commits."""
    folder = sweep / "benchmarks" / "examples" / "vec_add"
    k = full.kernels["vec_add"]
    pairs = shape_pairs(folder)
    rows = [json.loads(ln) for ln in (folder / "benchmark_results.jsonl").read_text().splitlines() if ln.strip()]
    ledger = [json.loads(ln) for ln in (folder / "shape_ledger.jsonl").read_text().splitlines() if ln.strip()]
    assert k.name == "Vector Add" and k.op == "vec_add" and k.bundle == "vec_add"
    assert k.noise == pytest.approx(kernel_noise(folder), rel=1e-12)
    assert [p.shape_id for p in k.shapes] == [s["shape_id"] for s in ledger] == list(pairs)
    for point in k.shapes:
        c, b = pairs[point.shape_id]
        assert (point.args, point.dtype, point.best_baseline) == (c["args"], c["dtype"], b["provider"])
        assert point.speedup == pytest.approx(b["median_us"] / c["median_us"], rel=1e-12)
        assert (point.candidate_us, point.best_baseline_us) == (c["median_us"], b["median_us"])
    assert k.candidate_commit == {r["candidate_commit"] for r in rows if r["provider"] == "flydsl"}.pop()
    assert k.baselines == {r["provider"]: r["baseline_commit"] for r in rows if r["baseline_commit"]}
    r0 = rows[0]
    assert k.environment == {"gpu": r0["gpu"], "arch": r0["arch"], "rocm": r0["rocm_version"],
                             "driver": r0["driver_version"], "torch": r0["torch_version"],
                             "triton": r0["triton_version"]}
    assert k.hotspot.capture == "examples/vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25"


def test_real_sweep_provenance(full):
    # the values every kernel's results share, overridden by docs/data/kernels.json's provenance
    assert full.provenance["capture_date"] == "2026-06-01" and full.date == "2026-06-01"
    assert full.provenance["flydsl_commit"] == "18c5a7ed"
    assert full.provenance["rocm"] == "7.2.0"
    assert full.provenance["gpu"] == "AMD Instinct MI350X (gfx950, CDNA4)"  # kernels.json's, not the results
    assert "candidate_commit" not in full.provenance  # moe_gemm / moe_blockscale ran 10793515, the rest 7255fff8


def test_json_round_trip_is_exact_and_deterministic(full, sweep):
    doc = full.to_json()
    text = json.dumps(doc, sort_keys=True)
    assert json.dumps(snapshot_from_json(json.loads(text)).to_json(), sort_keys=True) == text
    assert json.dumps(snapshot_from_sweep(sweep).to_json(), sort_keys=True) == text
    assert str(sweep.resolve().parent) not in text and str(sweep.parent) not in text


# ---------------------------------------------------------------- format versions and empty sides


def test_format_version_messages():
    with pytest.raises(InputError, match=r"format_version 2 is newer than this kernel-atlas reads \(1\): "
                                         r"upgrade kernel-atlas"):
        check_format_version({"format_version": FORMAT_VERSION + 1}, "api/index.json")
    with pytest.raises(InputError, match=r"format_version 0 is older .* rebuild it with this version"):
        check_format_version({"format_version": 0}, "api/index.json")
    with pytest.raises(InputError, match=r"no format_version: .* older kernel-atlas; rebuild it"):
        check_format_version({}, "api/index.json")
    assert check_format_version({"format_version": FORMAT_VERSION}, "x") == FORMAT_VERSION


def test_snapshot_document_of_another_version_is_refused(full):
    doc = full.to_json()
    doc["format_version"] = 7
    with pytest.raises(InputError) as err:
        snapshot_from_json(doc, "history/sweeps/0001-a.json")
    assert err.value.message.startswith("history/sweeps/0001-a.json: format_version 7 is newer")
    with pytest.raises(InputError, match="not a kernel-atlas snapshot"):
        snapshot_from_json({"format_version": 1, "kernels": {}}, "x.json")


def test_empty_sides_are_clear_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no kernel bundles or captures found"):
        load_snapshot(tmp_path / "empty")
    (tmp_path / "hollow" / "examples").mkdir(parents=True)
    with pytest.raises(InputError) as err:
        load_snapshot(tmp_path / "hollow")
    assert "no kernels found, nothing to compare" in err.value.message
    with pytest.raises(InputError, match="no such file or directory"):
        load_snapshot(tmp_path / "absent")


def test_api_folder_versions(tmp_path):
    api = tmp_path / "site" / "api"
    api.mkdir(parents=True)
    (api / "index.json").write_text(json.dumps({"format_version": API_FORMAT_VERSION + 1, "kernels": []}))
    with pytest.raises(InputError) as err:
        load_snapshot(tmp_path / "site")
    assert err.value.path.endswith("index.json") and "upgrade kernel-atlas" in err.value.problem
    (api / "index.json").write_text(json.dumps({"format_version": FORMAT_VERSION, "kernels": []}))
    with pytest.raises(InputError, match="no kernels found"):
        load_snapshot(api)
    (api / "index.json").write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        snapshot_from_api(api)


@pytest.mark.parametrize("captures, op, slug", [
    in_slice("examples/softmax", SOFTMAX_CAPTURE, "softmax", "softmax"),
    (("vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25",), "vec_add", "vec_add")])
def test_small_sweep_copy(sweep, tmp_path, captures, op, slug):
    root = make_sweep_copy(sweep, tmp_path / "s", captures, {op: None})
    snap = snapshot_from_sweep(root)
    assert list(snap.kernels) == [slug]
    assert snap.label == "s"
    assert snap.kernels[slug].to_json() == snapshot_from_sweep(sweep).kernels[slug].to_json()


# ---------------------------------------------------------------- a built site's api/ reads as the sweep it was built from


def test_api_of_a_built_site_equals_the_slice_kernels(sweep, tmp_path):
    """The same on vec_add and pa_decode with their captures (the slice holds them)."""
    build = pytest.importorskip("generator.site.build")
    root = make_sweep_copy(sweep, tmp_path / "s", ("vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25",
                                                   "pa/att_viewer/big/ui_output_agent_10886_dispatch_209"),
                           {"vec_add": None, "pa_decode": None})
    build.build_site(root, tmp_path / "site", progress=False)
    from_api = load_snapshot(tmp_path / "site").to_json()
    assert load_snapshot(tmp_path / "site" / "api").to_json() == from_api
    from_sweep = snapshot_from_sweep(root).to_json()
    assert sorted(from_api["kernels"]) == ["pa", "vec_add"]
    assert from_api["provenance"] == from_sweep["provenance"]
    for slug in ("pa", "vec_add"):
        assert from_api["kernels"][slug]["baselines"] == {
            p: "32e1e6d76" for p in ("aiter", "aiter_asm", "aiter_ck", "aiter_triton")}
        assert from_api["kernels"][slug] == from_sweep["kernels"][slug]


FA_SMALL = "flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44"  # in the slice too
PA_CAPTURE = "pa/att_viewer/big/ui_output_agent_10886_dispatch_209"


def test_api_of_a_built_site_equals_the_sweep(sweep, tmp_path):
    """A kernel with both halves (pa: its bundle and the pa_decode campaign) and a bundle without its campaign
    (flash_attn_func's small capture, no flash_attn rows) and a campaign whose bundle is absent (quant), all in
    the slice too, read back from api/ as from the sweep; an api/ of format 1 still reads."""
    build = pytest.importorskip("generator.site.build")
    root = make_sweep_copy(sweep, tmp_path / "s", (FA_SMALL, PA_CAPTURE), {"pa_decode": None, "quant": None})
    build.build_site(root, tmp_path / "site", progress=False)
    from_api = load_snapshot(tmp_path / "site").to_json()
    assert load_snapshot(tmp_path / "site" / "api").to_json() == from_api
    from_sweep = snapshot_from_sweep(root).to_json()
    assert from_api["label"] == "site" and from_sweep["label"] == "s"
    assert from_api["provenance"] == from_sweep["provenance"]
    assert sorted(from_api["kernels"]) == ["flash_attn_func", "pa", "quant"]
    # a campaign whose bundle kernels.json names but the sweep lacks (quant) has no bundle on either side
    assert from_api["kernels"]["quant"]["bundle"] is None
    assert from_api["kernels"]["quant"] == from_sweep["kernels"]["quant"]
    rows = [json.loads(ln) for ln in (sweep / "benchmarks/examples/pa_decode/benchmark_results.jsonl")
            .read_text().splitlines() if ln.strip()]
    pa = from_api["kernels"]["pa"]
    # both sides record each baseline library's commit (KernelScore.baseline_commits), as the rows say
    assert pa["baselines"] == {r["provider"]: r["baseline_commit"] for r in rows if r["baseline_commit"]}
    assert pa == from_sweep["kernels"]["pa"]
    fa = from_api["kernels"]["flash_attn_func"]
    assert (fa["op"], fa["verdict"], fa["bundle"]) == (None, None, "flash_attn_func")
    assert fa["hotspot"]["capture"] == "examples/" + FA_SMALL
    assert fa == from_sweep["kernels"]["flash_attn_func"]
    # an api/ of format 1 (written before the trim) holds every field the reader reads: still read
    for doc_path in (tmp_path / "site" / "api").rglob("*.json"):
        doc = json.loads(doc_path.read_text())
        assert doc["format_version"] == API_FORMAT_VERSION == 3
        doc_path.write_text(json.dumps(dict(doc, format_version=1)))
    assert load_snapshot(tmp_path / "site").to_json() == from_api
