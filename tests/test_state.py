"""One model of a kernel's state (issue 14, point 1): analyze, verdicts, the site's api/, diff's
snapshots of a site and of a sweep all say the same verdict, flags, problems, occupancy and commits."""

from __future__ import annotations

import json

import pytest

from generator import cli
from generator.analyze import kernels, state
from generator.sweeps import snapshot_sources
from test_build import make_handmade_broken_sweep, make_small_sweep  # same test folder


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def shared_site(sweep, tmp_path_factory):
    out = tmp_path_factory.mktemp("state") / "site"
    assert cli.main(["build", str(sweep), "--out", str(out), "--quiet"]) == 0
    return out


def api_states(site) -> dict[str, dict]:
    index = json.loads((site / "api" / "index.json").read_text())
    return {r["slug"]: json.loads((site / "api" / "kernels" / f"{r['slug']}.json").read_text())["state"]
            for r in index["kernels"]}


def test_every_output_tells_the_same_state_of_the_shared_sweep(sweep, shared_site, capsys):
    states = api_states(shared_site)
    assert {d.name for d in (sweep / "examples").iterdir()} <= set(states)  # 19 kernels in the sweep, 8 in the slice
    from_sweep = snapshot_sources.snapshot_from_sweep(sweep)
    from_site = snapshot_sources.snapshot_from_api(shared_site / "api")
    assert sorted(from_sweep.kernels) == sorted(from_site.kernels) == sorted(states)
    for slug, st in states.items():
        a, b = from_sweep.kernels[slug], from_site.kernels[slug]
        assert (a.verdict, a.flags, a.profiled_commit, a.broken) == (b.verdict, b.flags, b.profiled_commit, b.broken) \
            == (st["verdict"], st["flags"], st["profiled_commit"], st["broken"]), slug
        assert (a.verdict_basis, a.verdict_value) == (b.verdict_basis, b.verdict_value) \
            == (st["verdict_basis"], st["verdict_value"]), slug
        assert (a.hotspot.to_json() if a.hotspot else None) == (b.hotspot.to_json() if b.hotspot else None) \
            == st["hotspot"], slug
    # worked from the raw files: flash_attn_func is VGPR-limited at 2 waves/SIMD and timed at 7255fff8
    fa = states["flash_attn_func"]
    assert fa["hotspot"]["waves_per_simd"] == 2 and fa["hotspot"]["limiter"] == "VGPR"
    assert fa["profiled_commit"] == "18c5a7ed"
    assert states["moe_blockscale"]["verdict"] == "HEADROOM" and "suspect_reference" in states["moe_blockscale"]["flags"]
    assert (states["moe_blockscale"]["verdict_basis"], round(states["moe_blockscale"]["verdict_value"], 3)) == ("pair", 0.818)
    assert states["attention_prefill"]["status"] == "untimed"
    assert states["attention_prefill"]["missing"] == [
        "no profiling bundle: nothing was captured",
        "campaign attention_prefill has a shape ledger but no benchmark results"]
    # analyze: the primary capture of each bundle has the state's occupancy and top stall type
    code, out, _ = run(capsys, "analyze", str(sweep), "--primary", "--json")
    assert code == 0
    by_capture = {d["path"]: d for d in json.loads(out)}
    checked = 0
    for st in states.values():
        hot = st["hotspot"]
        if hot and hot["capture"] in by_capture:
            d = by_capture[hot["capture"]]
            assert (d["occupancy"]["waves_per_simd"], d["occupancy"]["limiter"]) == (hot["waves_per_simd"], hot["limiter"])
            # on the row's basis (DOMAIN §1.5): pa's 8 working waves (44,892 / 78,696), the rest all waves
            basis = d["working_waves"] or d
            assert basis["stall_ratio"] == pytest.approx(hot["stall_ratio"], abs=1e-12)
            checked += 1
    assert checked == len(list((sweep / "examples").iterdir()))  # a primary capture per bundle: 13 in the sweep
    # verdicts: each campaign's verdict and flags are its kernel's
    code, out, _ = run(capsys, "verdicts", str(sweep), "--json")
    doc = json.loads(out)
    for st in states.values():
        if st["op"] in doc["campaigns"]:
            c = doc["campaigns"][st["op"]]
            assert (c["verdict"], c["flags"]) == (st["verdict"], st["flags"]), st["slug"]
    # the overview row reads the same state
    index = json.loads((shared_site / "api" / "index.json").read_text())
    for row in index["kernels"]:
        st = states[row["slug"]]
        assert (row["verdict"], row["flags"], row["timed_commits"], row["profiled_commit"]) == (
            st["verdict"], st["flags"], st["timed_commits"], st["profiled_commit"])
        if st["hotspot"]:  # one top stall type per kernel: the hotspot reads the row's stall_basis
            assert (row["top_stall_type"], row["stall_ratio"]) == (
                st["hotspot"]["top_stall_type"], st["hotspot"]["stall_ratio"]), row["slug"]
    pa = next(r for r in index["kernels"] if r["slug"] == "pa")
    assert (pa["top_stall_type"], pa["stall_basis"], states["pa"]["hotspot"]["top_stall_type"]) == (
        "other", "working waves", "other")


def test_broken_kernels_read_alike_from_the_site_and_the_sweep(tmp_path, sweep, capsys):
    """Hand-made breakage (a truncated code.json, a results line that is not JSON): the site's
    api/, the sweep's snapshot, diff, verdicts and the build summary name the same problems."""
    small = make_handmade_broken_sweep(make_small_sweep(tmp_path, sweep), sweep)
    site = tmp_path / "site"
    assert cli.main(["build", str(small), "--out", str(site), "--quiet"]) == 0
    states = api_states(site)
    hg, pa = states["hgemm_splitk"], states["pa"]
    assert hg["status"] == "broken" and hg["hotspot"] is None
    assert hg["broken"][0].startswith("capture examples/hgemm_splitk/att_viewer/big/") and "code.json: not valid JSON" in hg["broken"][0]
    assert pa["status"] == "broken" and pa["verdict"] is None and pa["hotspot"]["waves_per_simd"] == 2
    assert len(pa["broken"]) == 1 and pa["broken"][0].startswith(
        "campaign benchmarks/examples/pa_decode/benchmark_results.jsonl:2: not JSON")  # the path once
    from_sweep = snapshot_sources.snapshot_from_sweep(small)
    from_site = snapshot_sources.snapshot_from_api(site / "api")
    assert from_sweep.errors == from_site.errors == {"hgemm_splitk": hg["broken"][0], "pa": pa["broken"][0]}
    code, out, _ = run(capsys, "diff", str(site), str(small))
    assert code == 0 and "removed" not in out
    notes = [ln for ln in out.splitlines() if ln.startswith("note:")]
    assert notes == [f"note: both sides: hgemm_splitk could not be read: {hg['broken'][0]}",
                     f"note: both sides: pa could not be read: {pa['broken'][0]}"]
    code, out, _ = run(capsys, "verdicts", str(small), "--json")
    assert "campaign " + json.loads(out)["errors"]["pa_decode"] == pa["broken"][0]


def test_one_slug_rule():
    assert kernels.slugify("Flash Attn (fp8)") == "flash-attn-fp8"
    assert kernels.slugify("...") == "kernel"


def test_state_round_trips_and_says_its_status():
    st = state.KernelState(slug="x", name="X", op="x", bundle=None, verdict="UNTIMED")
    assert st.status == "untimed"
    assert state.KernelState.from_json(st.to_json()) == st
    st.broken.append("campaign b/x: b/x/benchmark_results.csv:3: bad")
    assert st.status == "broken"


def test_analyze_advice_is_the_sites_advice(sweep, shared_site, capsys):
    """``analyze --advice`` reads the campaign that times each bundle, as build does: the same plan
    (vec_add opens with profiled_shape, worked from its results file) in both outputs."""
    code, out, _ = run(capsys, "analyze", str(sweep), "--primary", "--json", "--advice")
    assert code == 0
    by_capture = {d["path"]: d for d in json.loads(out)}
    compared = 0
    for slug in api_states(shared_site):
        doc = json.loads((shared_site / "api" / "kernels" / f"{slug}.json").read_text())
        for cap in doc["captures"]:
            if cap.get("primary") and cap["path"] in by_capture:
                mine = [(f["detector"], f["title"]) for f in by_capture[cap["path"]]["advice"]]
                # the site adds the campaign's launch finding (rule 13): analyze reads the capture alone
                assert mine == [(f["detector"], f["title"]) for f in cap["advice"] if f["detector"] != "launch_overhead"], slug
                compared += 1
    assert compared == len(list((sweep / "examples").iterdir()))  # a primary capture per bundle: 13 in the sweep
    vec = next(d for d in by_capture.values() if d["path"].startswith("examples/vec_add/"))
    assert vec["advice"][0]["detector"] == "profiled_shape"
    code, out, _ = run(capsys, "analyze", str(sweep / "examples" / "vec_add"), "--primary", "--advice")
    assert "1. [high] The profiled shape is not where the kernel loses" in out
    assert "(6.67 vs 2.88 TB/s)\n" in out  # a flag without stall cycles of its own says no share


def test_the_capture_a_kernel_is_read_by_is_one_rule():
    """``kernels.read_first``, which both the site's pages and the snapshots use: the primary
    when it reads, else the first that does, in order; reading stops at the first value."""
    from generator.analyze.kernels import read_first

    seen = []

    def read(name):
        seen.append(name)
        return {"big": None, "small": "S", "tiny": "T"}.get(name)

    assert read_first(["small", "big", "tiny"], lambda n: n == "tiny", read) == ("tiny", "T") and seen == ["tiny"]
    seen.clear()
    assert read_first(["small", "big", "tiny"], lambda n: n == "big", read) == ("small", "S")
    assert seen == ["big", "small"]  # the broken primary first, then discovery order; "tiny" never read
    assert read_first(["big"], lambda n: True, read) is None


@pytest.mark.full_sweep
def test_flash_attn_func_is_scored_by_its_campaign(shared_site):
    assert len(api_states(shared_site)) == 19 and api_states(shared_site)["flash_attn_func"]["status"] == "scored"


def test_a_bundle_is_scored_by_its_campaign_of_another_name(shared_site, sweep):
    """pa's bundle is timed by the pa_decode campaign (both in the slice too): one kernel, named for its
    bundle, scored with the verdict of expected/verdicts.json's pa_decode row."""
    states = api_states(shared_site)
    st = states["pa"]
    want = json.loads((sweep / "expected" / "verdicts.json").read_text())["pa_decode"]
    assert (st["status"], st["op"], st["bundle"], st["verdict"]) == ("scored", "pa_decode", "pa", want["verdict"])
    assert "pa_decode" not in states
