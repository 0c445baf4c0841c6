"""One name per kernel, and the same kernels with or without docs/data/kernels.json (issue 40, points 3-4).

The shared sweep is read twice: as it is, and as a copy without ``docs/data/kernels.json`` (every
other file linked, none edited), as the team's own history sweeps are kept. What joins a bundle to
its campaign without kernels.json is read here from the raw files (``baseline_matrix.yaml``'s
``kernel:``, ``source/input_trace.yaml``'s ``kernel_include_regex``), apart from the code under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator import cli
from generator.analyze.join import MATRIX, TRACED
from generator.analyze.kernels import find_kernel, pair_kernels
from generator.analyze.verdicts import load_kernels_json
from generator.config import load_config
from generator.read import discover
from generator.sweeps.diff import CANDIDATE, diff_snapshots, render_text
from generator.sweeps.snapshot_sources import load_snapshot


def without_kernels_json(sweep: Path, root: Path) -> Path:
    """A copy of the sweep (its folders linked) without docs/data/kernels.json."""
    root.mkdir(parents=True)
    for name in ("examples", "benchmarks"):
        (root / name).symlink_to(sweep / name, target_is_directory=True)
    return root


def refs_of(root: Path, with_json: bool = True):
    kj = load_kernels_json(str(root)) if with_json else None
    return pair_kernels(discover.discover(str(root)), load_config(str(root)), kj)


@pytest.fixture(scope="module")
def bare(sweep, tmp_path_factory) -> Path:
    return without_kernels_json(sweep, tmp_path_factory.mktemp("names") / "sweep-without-kernels-json")


@pytest.mark.full_sweep
def test_the_same_kernels_with_and_without_kernels_json(sweep, bare):
    matrix = (sweep / "benchmarks/examples/gemm/baseline_matrix.yaml").read_text()
    assert re.search(r"^kernel: hgemm_splitk$", matrix, re.M)  # what the sweep says
    trace = (sweep / "examples/pa/source/input_trace.yaml").read_text()
    assert 'kernel_include_regex: "pa_decode_ps_kernel_0"' in trace
    with_json, without = refs_of(sweep), refs_of(bare)
    assert not (bare / "docs").exists()
    # 13 bundles + the 5 ledger-only campaigns + ... : the same kernels either way, joined the same way
    assert len(with_json) == len(without) == 19
    assert {(r.slug, r.op) for r in with_json} == {(r.slug, r.op) for r in without}
    joined = {r.slug: (r.op, r.joined.rule, r.joined.evidence) for r in without if r.joined}
    assert joined == {"hgemm_splitk": ("gemm", MATRIX, "hgemm_splitk"),
                      "pa": ("pa_decode", TRACED, "pa_decode_ps_kernel_0"),
                      "flash_attn_func": ("flash_attn", TRACED, "flash_attn_func_kernel_0")}
    assert all(r.joined is None for r in with_json)  # kernels.json says it: nothing inferred


@pytest.mark.full_sweep
def test_every_name_a_command_prints_finds_the_kernel(sweep, capsys):
    refs = refs_of(sweep)
    for name in ("pa_decode", "pa", "Paged-Attn Decode (PS)", "paged-attn decode (ps)"):
        assert find_kernel(refs, name).slug == "pa"
    assert find_kernel(refs, "gemm").slug == "hgemm_splitk" and find_kernel(refs, "nosuch") is None
    # verdicts prints the campaign name; analyze takes it
    code = cli.main(["verdicts", str(sweep)])
    out = capsys.readouterr().out
    assert code == 0 and re.search(r"^pa_decode\s+HEADROOM", out, re.M)
    code = cli.main(["analyze", str(sweep), "--kernel", "pa_decode", "--primary"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("Capture: examples/pa/att_viewer/big/ui_output_agent_10886_dispatch_209")
    code = cli.main(["analyze", str(sweep), "--kernel", "nosuch"])
    assert code == 2 and "no kernel named 'nosuch'" in capsys.readouterr().err
    # diff's --rename takes the campaign name too (the same kernel on both sides: compared as itself)
    code = cli.main(["diff", str(sweep), str(sweep), "--rename", "pa_decode=pa_decode", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and "pa" in doc["unchanged"] and doc["notes"] == []


@pytest.mark.full_sweep
def test_the_page_says_a_join_was_inferred(bare):
    from conftest import gather_env
    from generator.site import gather

    env, plans = gather_env(bare)
    k, _ = gather.gather_kernel(plans["hgemm_splitk"], env)
    said = [str(n) for n in k.notes]
    assert ("campaign gemm joined to bundle hgemm_splitk by inference: its baseline_matrix.yaml says kernel: "
            "hgemm_splitk (no docs/data/kernels.json entry or configuration names it)") in said
    assert any(getattr(n, "msg", None) and n.msg.key == "msg.note.joined.matrix" for n in k.notes)


@pytest.mark.full_sweep
def test_diff_when_only_kernels_json_differs(sweep, bare):
    """The real case: the last history sweep against the published one (byte-identical results). No kernel
    is new or removed, and nothing is the candidate's: a commit one side does not record is unknown there."""
    d = diff_snapshots(load_snapshot(bare), load_snapshot(sweep))
    assert {k.status for k in d.kernels} <= {"same", "changed"}
    assert not d.regressions and not d.improvements and d.failing(strict=True) == ([], [])
    for k in d.kernels:
        for c in k.changes:
            assert c.kind not in ("kernel-new", "kernel-removed", "provenance"), c.text
            for cause in c.causes:
                assert CANDIDATE not in cause.sides and "—" not in cause.detail, cause.text
    text = render_text(d)
    assert "removed" not in text and "new kernel" not in text and "commit —" not in text
    # the sweep-wide keys only kernels.json records: said as such, never "— → x"
    prov = {c.item: c.text for c in d.provenance}
    assert prov["capture_date"] == "capture_date 2026-06-01 (recorded by the new side only)"
    assert all("—" not in t for t in prov.values())


# ---------------------------------------------------------------- the check itself moved


#: moe_gemm's shapes where aiter is correct in the shared sweep that the kernel team's fix covers
#: (``test_diff_sweeps.AITER_PASSES``): the hand-made tighter check leaves these alone.
KEPT = ("sha1:1ffd9226bf013782", "sha1:3e1f04d82bff6672", "sha1:f006ff8500772932")


def handmade_tighter_check(row: dict) -> dict:
    """Hand-made: the harness's fp8 tolerance tighter, so that flydsl and aiter fail it together on the
    shapes both pass in the shared sweep (but ``KEPT``); times and commits unchanged."""
    if row["provider"] in ("flydsl", "aiter") and row["correct"] and row["shape_id"] not in KEPT:
        row = dict(row, correct=False, correctness_error="handmade: max abs err 0.0625 > atol 0.05")
    return row


@pytest.mark.full_sweep
def test_a_check_that_changed_is_neither_kernels_doing(sweep, tmp_path):
    from test_snapshot import make_sweep_copy

    old = make_sweep_copy(sweep, tmp_path / "handmade-tight-check", (), {"moe_gemm": handmade_tighter_check})
    new = make_sweep_copy(sweep, tmp_path / "loose-check", (), {"moe_gemm": None})
    rows = [json.loads(ln) for ln in (sweep / "benchmarks/examples/moe_gemm/benchmark_results.jsonl").open() if ln.strip()]
    both = {r["shape_id"] for r in rows if r["provider"] == "flydsl" and r["correct"]} & \
        {r["shape_id"] for r in rows if r["provider"] == "aiter" and r["correct"]}
    flipped = both - set(KEPT)
    commits = {r["baseline_commit"] for r in rows if r["provider"] == "aiter"}
    assert len(flipped) == 6 and commits == {"32e1e6d76"}
    d = diff_snapshots(load_snapshot(old), load_snapshot(new))
    (k,) = d.kernels
    status = [c for c in k.of_kind("shape-status")]
    assert {c.shape_id for c in status} == flipped
    for c in status:
        assert c.item == "check" and c.movers == ("check",) and not c.counts() and c.comparison_only
        assert c.cause_text == ("check: the correctness check changed: the candidate and aiter (same commit "
                                "32e1e6d76) now pass it together; neither kernel's doing")
    assert CANDIDATE not in k.movers and k.standing == "neutral" and d.improvements == []
    assert "now measured on" not in render_text(d)  # no credit to the candidate
    back = diff_snapshots(load_snapshot(new), load_snapshot(old))
    (k,) = back.kernels
    assert {c.item for c in k.of_kind("shape-status")} == {"check"} and back.failing(strict=False) == ([], [])
    assert "now fail it together" in k.of_kind("shape-status")[0].cause_text


def test_handmade_report_names_the_campaign(sweep, tmp_path):
    """Hand-made: a bundle renamed so that no name joins it, whose REPORT.md names its campaign's folder."""
    from test_snapshot import make_sweep_copy

    root = make_sweep_copy(sweep, tmp_path / "handmade-report", ("vec_add/att_viewer",), {"vec_add": None},
                           rename={"vec_add": "elementwise_probe"}, kernels_json=False)
    # the campaign was renamed too: give it back its name, so that only the report can join them
    (root / "benchmarks/examples/elementwise_probe").rename(root / "benchmarks/examples/vec_add")
    (root / "examples/elementwise_probe/REPORT.md").write_text(
        "# handmade\n\nTimed in benchmarks/examples/vec_add (12 shapes).\n", encoding="utf-8")
    refs = {r.slug: r for r in refs_of(root, with_json=False)}
    assert set(refs) == {"elementwise_probe"}
    j = refs["elementwise_probe"].joined
    assert (refs["elementwise_probe"].op, j.rule, j.evidence) == ("vec_add", "report", "benchmarks/examples/vec_add")
