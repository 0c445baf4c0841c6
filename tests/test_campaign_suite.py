"""The second campaign layout (``results_<suite>.jsonl`` + ``metadata_<suite>.json``) on hand-made
folders, and the choice between a CSV and a JSONL that disagree."""

from __future__ import annotations

import json
import os

import pytest

from generator.errors import InputError
from generator.read import campaign_suite
from generator.read.campaign import find_campaign_folders, is_campaign_folder
from generator.read.campaign_suite import read_campaign_folder

from handmade import HANDMADE_FULL, handmade_row, handmade_suite_campaign, write_csv, write_jsonl


def test_a_suite_folder_is_a_campaign_folder(tmp_path):
    folder = handmade_suite_campaign(tmp_path / "attn")
    assert is_campaign_folder(folder)
    assert find_campaign_folders(tmp_path) == {"attn": str(folder)}


def test_the_suite_with_most_rows_is_read_and_the_others_listed(tmp_path):
    camp = read_campaign_folder(handmade_suite_campaign(tmp_path / "attn", partial=True))
    assert camp.suite == "full" and camp.results_file == "results_full.jsonl" and not camp.partial
    assert camp.other_suites == {"config": 2, "smoke": 4}
    assert camp.notes[0] == ("suite full read (12 rows, 2026-06-12T09:30:00Z); "
                             "also present: config (2 rows), smoke (4 rows)")
    assert len(camp.rows) == 12 and camp.timed
    assert [s.shape_id for s in camp.ledger] == ["b1_s1024", "b4_s4096", "b8_s8192"]


def test_shapes_come_from_labels_and_their_shape_columns(tmp_path):
    camp = read_campaign_folder(handmade_suite_campaign(tmp_path / "attn"))
    b8 = camp.ledger[2]
    assert b8.args == {"B": 8, "S": 8192, "H": 16, "D": 128, "dtype": "bf16", "causal": False}
    assert (b8.stage, b8.dtype, b8.model) == ("decode", "bf16", "")


def test_correctness_reads_as_correct(tmp_path):
    camp = read_campaign_folder(handmade_suite_campaign(tmp_path / "attn"))
    by = {(r.shape_id, r.provider): r for r in camp.rows}
    assert by["b1_s1024", "flydsl"].correct is True
    assert by["b4_s4096", "flydsl"].correct is None  # not_checked
    assert by["b8_s8192", "flydsl"].status == "failed" and by["b8_s8192", "flydsl"].reason == "HIP out of memory"
    assert by["b1_s1024", "aiter_asm"].median_us == 22.0 and by["b1_s1024", "aiter_asm"].p90_us == 22.0 * 1.02
    fail = handmade_row("b1_s1024", "flydsl", 20.0, correctness="fail", err="max_abs 3.2")
    row = campaign_suite.suite_row(fail, 0, 1, "r.jsonl")
    assert row.correct is False and row.correctness_error == "max_abs 3.2"
    with pytest.raises(InputError, match="r.jsonl:1: correctness is not pass, fail or not_checked: 'maybe'"):
        campaign_suite.suite_row({**fail, "correctness": "maybe"}, 0, 1, "r.jsonl")
    with pytest.raises(InputError, match="r.jsonl:3: missing label"):
        campaign_suite.suite_row({**fail, "label": ""}, 0, 3, "r.jsonl")


def test_provenance_comes_from_the_metadata(tmp_path):
    camp = read_campaign_folder(handmade_suite_campaign(tmp_path / "attn"))
    assert camp.provenance_for("flydsl") == {"gpu": "AMD Instinct MI350X", "arch": "gfx950", "rocm": "7.2.0",
                                             "candidate_commit": "aaaa1111", "baseline_commit": "aaaa1111, bbbb2222"}
    assert camp.baseline_commits("flydsl") == {"aiter_asm": "bbbb2222", "flydsl_t128": "aaaa1111"}


def test_a_partial_run_is_read_only_without_a_complete_one(tmp_path):
    folder = tmp_path / "attn"
    folder.mkdir()
    write_jsonl(folder / "results_full.partial.jsonl", HANDMADE_FULL[:6])
    camp = read_campaign_folder(folder)
    assert camp.partial and camp.suite == "full" and len(camp.rows) == 6
    assert camp.notes[0] == ("suite full read (6 rows); partial: results_full.partial.jsonl is a run still being "
                             "written; no metadata_full.json (no provenance)")
    write_jsonl(folder / "results_full.jsonl", HANDMADE_FULL)
    camp = read_campaign_folder(folder)
    assert not camp.partial and len(camp.rows) == 12 and camp.other_suites == {}


def test_equal_row_counts_go_to_the_latest_timestamp(tmp_path):
    folder = tmp_path / "attn"
    folder.mkdir()
    for suite, stamp in (("a", "2026-06-12T09:30:00Z"), ("b", "2026-06-13T08:00:00+00:00")):
        write_jsonl(folder / f"results_{suite}.jsonl", HANDMADE_FULL[:4])
        (folder / f"metadata_{suite}.json").write_text(json.dumps({"timestamp": stamp}), encoding="utf-8")
    assert read_campaign_folder(folder).suite == "b"


def test_csv_suite_reads_as_its_jsonl(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    write_jsonl(a / "results_full.jsonl", HANDMADE_FULL)
    write_csv(b / "results_full.csv", HANDMADE_FULL)
    ja, jb = read_campaign_folder(a), read_campaign_folder(b)
    assert [s.args for s in ja.ledger] == [s.args for s in jb.ledger]
    fields = ("shape_id", "provider", "status", "correct", "median_us", "p10_us", "reason")
    assert [[getattr(r, f) for f in fields] for r in ja.rows] == [[getattr(r, f) for f in fields] for r in jb.rows]


def test_reports_are_listed(tmp_path):
    folder = handmade_suite_campaign(tmp_path / "attn")
    (folder / "REPORT_full.md").write_text("# full\n", encoding="utf-8")
    camp = read_campaign_folder(folder)
    assert [os.path.basename(p) for p in camp.reports] == ["BENCHMARK_REPORT.md", "REPORT_full.md"]


def test_bad_metadata_names_its_file(tmp_path):
    folder = handmade_suite_campaign(tmp_path / "attn", smoke=False)
    (folder / "metadata_full.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="metadata_full.json: expected a JSON object, got list"):
        read_campaign_folder(folder)


def test_an_empty_folder_is_not_a_campaign(tmp_path):
    with pytest.raises(InputError, match="not a campaign folder: no shape_ledger.jsonl, benchmark_results.jsonl "
                                         "or .csv, or results_<suite>.jsonl or .csv"):
        read_campaign_folder(tmp_path)


# ---------------------------------------------------------------- CSV and JSONL that disagree


def _classic(folder, rows_csv, rows_jsonl, csv_newer):
    """A classic campaign (hand-made) holding both results files, the newer one as asked."""
    folder.mkdir()
    ledger = [{"shape_id": "s1", "model": "m", "stage": "prefill", "dtype": "bf16", "args": {"n": 1}}]
    write_jsonl(folder / "shape_ledger.jsonl", ledger)
    write_jsonl(folder / "benchmark_results.jsonl", rows_jsonl)
    write_csv(folder / "benchmark_results.csv", rows_csv)
    older, newer = ("benchmark_results.jsonl", "benchmark_results.csv") if csv_newer else \
        ("benchmark_results.csv", "benchmark_results.jsonl")
    os.utime(folder / older, ns=(1_000_000_000_000, 1_000_000_000_000))
    os.utime(folder / newer, ns=(2_000_000_000_000, 2_000_000_000_000))
    return folder


def _rows(flydsl_us):
    return [{"shape_id": "s1", "provider": p, "benchmark_status": "ok", "correct": True, "median_us": us}
            for p, us in (("flydsl", flydsl_us), ("pytorch", 20.0))]


def test_disagreeing_csv_newer_is_read_and_said(tmp_path):
    camp = read_campaign_folder(_classic(tmp_path / "op", _rows(10.0), _rows(16.0), csv_newer=True))
    assert camp.results_file == "benchmark_results.csv" and camp.rows[0].median_us == 10.0
    assert camp.notes[0] == ("benchmark_results.csv and benchmark_results.jsonl disagree (row 1: median_us 10.0 vs "
                             "16.0): read benchmark_results.csv, the newer")


def test_disagreeing_jsonl_newer_is_read_and_said(tmp_path):
    camp = read_campaign_folder(_classic(tmp_path / "op", _rows(10.0), _rows(16.0), csv_newer=False))
    assert camp.results_file == "benchmark_results.jsonl" and camp.rows[0].median_us == 16.0
    assert "read benchmark_results.jsonl, the newer" in camp.notes[0]


def test_agreeing_files_read_the_jsonl_without_a_word(tmp_path):
    camp = read_campaign_folder(_classic(tmp_path / "op", _rows(10.0), _rows(10.0), csv_newer=True))
    assert camp.results_file == "benchmark_results.jsonl" and camp.notes == []


@pytest.mark.parametrize("csv_text, said", [
    # the same values written otherwise: floats by value, null as empty, booleans as words
    ("shape_id,provider,correct,median_us\ns1,a,true,10.00\ns1,b,1,\ns2,c,yes,7.50\ns2,d,False,5\n", None),
    # the first difference in file order: row 2's second column before row 3's first
    ("shape_id,provider,correct,median_us\ns1,a,True,10.0\ns1,x,True,\ns9,y,True,20.0\n",
     "row 2: provider 'x' vs 'b'"),
    ("shape_id,provider,correct,median_us\ns1,a,True,10.0\ns1,b,True,\ns2,c,True,7.5\ns2,d,False,1e3\n",
     "row 4: median_us 1000.0 vs 5.0"),
    # a short row reads as empty cells; a column the CSV lacks is empty
    ("shape_id,provider,correct,median_us\ns1,a,True,10.0\ns1,b\n", "row 2: correct None vs True"),
    ("shape_id,provider,median_us\ns1,a,10.0\n", "row 1: correct None vs True"),
    # row counts, once the rows both have agree
    ("shape_id,provider,correct,median_us\ns1,a,True,10.0\n", "1 rows vs 4"),
    ("shape_id,provider,correct,median_us\ns1,a,True,10\ns1,b,True,\ns2,c,True,7.5\ns2,d,False,5\ns3,e,,\n",
     "the CSV has more rows than the 4 of the JSONL"),
    ("shape_id,provider,correct,median_us\ns1,a,True,ten\n", "row 1: median_us 'ten' vs 10.0"),
])
def test_the_first_difference_of_csv_and_jsonl(tmp_path, csv_text, said):
    records = list(enumerate([{"shape_id": "s1", "provider": "a", "correct": True, "median_us": 10.0},
                              {"shape_id": "s1", "provider": "b", "correct": True, "median_us": None},
                              {"shape_id": "s2", "provider": "c", "correct": True, "median_us": 7.5},
                              {"shape_id": "s2", "provider": "d", "correct": False, "median_us": 5.0}], 1))
    (tmp_path / "r.csv").write_text(csv_text)
    columns = ("shape_id", "provider", "correct", "median_us")
    assert campaign_suite._first_difference(str(tmp_path / "r.csv"), records, columns) == said


def test_real_campaigns_agree(sweep):
    """Both files of every real timed campaign hold the same rows: no note, the JSONL read."""
    for op, folder in find_campaign_folders(sweep).items():
        if os.path.isfile(os.path.join(folder, "benchmark_results.csv")):
            camp = read_campaign_folder(folder)
            assert camp.results_file == "benchmark_results.jsonl", op
            assert not any("disagree" in n for n in camp.notes), op


# ---------------------------------------------------------------- on the site


def test_a_suite_campaign_builds_with_its_report(tmp_path):
    from generator.cli import main

    handmade_suite_campaign(tmp_path / "sweep" / "benchmarks" / "examples" / "attn")
    assert main(["build", str(tmp_path / "sweep"), "--out", str(tmp_path / "site"), "--quiet", "--jobs", "1"]) == 0
    page = (tmp_path / "site" / "kernels" / "attn" / "index.html").read_text(encoding="utf-8")
    assert '<h3 translate="no">BENCHMARK_REPORT.md</h3>' in page
    assert "<p>flydsl vs aiter &lt;script&gt;x&lt;/script&gt;</p>" in page  # raw HTML kept as text
    doc = json.loads((tmp_path / "site" / "api" / "kernels" / "attn.json").read_text(encoding="utf-8"))
    assert doc["campaign_reports"][0]["file"] == "BENCHMARK_REPORT.md"
    assert doc["score"]["results_file"] == "results_full.jsonl" and doc["broken"] == []
    # the variant: a column group of its own and its [geomean, n] (worked in the test above)
    assert doc["score"]["variants"]["flydsl_t128"][1] == 2 and "flydsl_t128" not in doc["score"]["per_baseline"]
    assert ('<th data-sort-type="num" class="variant"><span translate="no">flydsl_t128 (us)</span> '
            '<span class="small muted" data-i18n="speed.variant">variant</span></th>') in page
    assert 'title="0.88x against the verdict baseline aiter_asm (its time over the variant&#39;s)"' in page
    assert '<th data-i18n="speed.variants">variant vs the verdict baseline</th>' in page


# ---------------------------------------------------------------- scoring: candidate, variants, unverified


def _score(folder, config=None):
    from generator.analyze.verdicts import score_folder
    from generator.config import SweepConfig

    return score_folder(str(folder), config or SweepConfig())


def test_variants_are_scored_against_the_verdict_baseline(tmp_path):
    """Worked by hand on HANDMADE_FULL: the campaign's own floor is 20 us (flydsl on b1), so b1
    (flydsl 20 vs aiter_asm 22, both < 25 us) sits at the floor; b4: flydsl 100 vs aiter_asm 80 = 0.80x
    (pytorch 200: 2.0x, not the lowest); b8: flydsl failed. flydsl_t128 is a variant: b1 22 / 25 = 0.88,
    b4 80 / 90 = 0.889 (b8 has no verdict baseline: the candidate failed)."""
    s = _score(handmade_suite_campaign(tmp_path / "attn"))
    assert (s.candidate, s.verdict, s.verdict_basis) == ("flydsl", "HEADROOM", "shapes")
    assert s.verdict_geomean == [0.8, 1] and s.at_floor == 1 and s.floor_us == 20.0
    assert set(s.per_baseline) == {"aiter_asm", "pytorch"}  # the variant is no baseline
    g, n = s.variants["flydsl_t128"]
    assert n == 2 and abs(g - (22 / 25 * 80 / 90) ** 0.5) < 1e-12
    assert s.unverified == 1  # b4: measured, nobody checked
    assert s.hard_failures == 1 and s.n_measured == 2
    b1 = next(sh for sh in s.shapes if sh.shape_id == "b1_s1024")
    assert list(b1.variants) == ["flydsl_t128"] and b1.variants["flydsl_t128"].median_us == 25.0
    assert "flydsl_t128" not in b1.providers
    assert s.to_json()["variants"] == {"flydsl_t128": [g, 2]}


def test_the_dispatcher_is_the_candidate_without_flydsl(tmp_path):
    folder = tmp_path / "attn"
    folder.mkdir()
    rows = [{**r, "provider": "auto" if r["provider"] == "flydsl" else r["provider"]} for r in HANDMADE_FULL]
    write_jsonl(folder / "results_full.jsonl", rows)
    s = _score(folder)
    assert s.candidate == "auto" and list(s.variants) == ["flydsl_t128"] and s.verdict_geomean == [0.8, 1]


def test_no_candidate_is_blocked_asking_for_the_configuration(tmp_path):
    from generator.config import config_from_dict

    folder = tmp_path / "attn"
    folder.mkdir()
    write_jsonl(folder / "results_full.jsonl", [r for r in HANDMADE_FULL if r["provider"] != "flydsl"])
    s = _score(folder)
    assert (s.verdict, s.blocked_reason) == ("BLOCKED", "no candidate")
    assert s.verdict_reason == ("no candidate: neither flydsl nor auto among flydsl_t128, aiter_asm, pytorch; "
                                'name one in kernel-atlas.toml: [campaigns.attn] candidate = "..."')
    s = _score(folder, config_from_dict({"campaigns": {"attn": {"candidate": "flydsl_t128"}}}))
    assert s.candidate == "flydsl_t128" and s.variants == {} and s.verdict != "BLOCKED"
    # the floor is 22 us now: b1 (25 vs 22, both < 27.5) at it; b4: 80 / 90, b8: 300 / 400
    assert s.verdict_geomean[1] == 2 and abs(s.verdict_geomean[0] - (80 / 90 * 300 / 400) ** 0.5) < 1e-12


def test_library_names_are_baselines():
    from generator.analyze.verdicts.variants import is_library, variants_of

    assert all(map(is_library, ["aiter", "aiter_asm", "ck_tile", "hipblaslt", "rocblas", "triton", "gluon",
                                "pytorch", "torch_compile", "cublaslt", "cudnn", "flashinfer"]))
    assert not any(map(is_library, ["flydsl_t128", "auto", "flydsl", "my_kernel"]))
    assert variants_of(["flydsl", "flydsl_t128", "aiter", "auto", "flydsl_t128"], "flydsl") == ["flydsl_t128", "auto"]


def test_a_partial_run_is_flagged(tmp_path):
    folder = tmp_path / "attn"
    folder.mkdir()
    write_jsonl(folder / "results_full.partial.jsonl", HANDMADE_FULL[:8])
    s = _score(folder)
    assert s.partial and "partial" in s.flag_keys and "partial run (still being written)" in s.flags
    assert [m.key for m in s.flag_messages][-1] == "verdict.flag.partial"


def test_plain_rows_read_as_the_field_by_field_reader_reads_them():
    from generator.read.campaign_rows import ResultRow

    records = HANDMADE_FULL + [handmade_row("b1", "x", 20.0, correctness="fail", err="max_abs 3.2"),
                               {**HANDMADE_FULL[0], "correctness": None, "us_std": 0.4, "gbps": 1.5e3}]
    for i, rec in enumerate(records):
        plain = campaign_suite._plain_row(rec, i, i + 1)
        assert plain is not None, rec
        checked = campaign_suite.checked_suite_row(rec, i, i + 1, "r.jsonl")
        assert [getattr(plain, f) for f in ResultRow.__slots__] == [getattr(checked, f) for f in ResultRow.__slots__]
    for odd in ({**HANDMADE_FULL[0], "us_median": float("nan")}, {**HANDMADE_FULL[0], "correctness": "maybe"},
                {**HANDMADE_FULL[0], "us_median": 20}, {**HANDMADE_FULL[0], "label": ""}):
        assert campaign_suite._plain_row(odd, 0, 1) is None  # left to the field-by-field reader
