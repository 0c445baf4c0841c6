"""Reading campaign folders: the real ones, their warts, and bad input."""

from __future__ import annotations

import json
import shutil

import pytest

from generator.read.campaign import Campaign, find_campaign_folders, read_campaign
from generator.read.campaign_rows import read_results
from generator.errors import InputError
from generator.analyze.verdicts import UNTIMED, score_campaign, score_sweep
from conftest import ON_SLICE

TIMED = ("flash_attn", "fp8_gemm_rowscale", "fused_rope_cache", "gemm", "layernorm", "moe_blockscale",
         "moe_gemm", "pa_decode", "preshuffle_gemm", "quant", "rmsnorm", "softmax", "vec_add")


def campaign_dir(sweep, op):
    return sweep / "benchmarks" / "examples" / op


def copy_campaign(sweep, tmp_path, op, drop=()):
    """Copy one real campaign into a tmp sweep (``tmp/benchmarks/examples/<op>``)."""
    dest = tmp_path / "benchmarks" / "examples" / op
    shutil.copytree(campaign_dir(sweep, op), dest, ignore=shutil.ignore_patterns(*drop) if drop else None)
    for f in dest.rglob("*"):
        f.chmod(0o644 if f.is_file() else 0o755)
    dest.chmod(0o755)
    return dest


def edit_lines(path, fn):
    """Rewrite a text file through fn(list of lines) -> list of lines."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(fn(lines)), encoding="utf-8")


# ---------------------------------------------------------------- real folders


def test_find_campaign_folders_accepts_root_examples_dir_and_one_folder(sweep):
    found = find_campaign_folders(sweep)
    folders = sorted(d.name for d in (sweep / "benchmarks" / "examples").iterdir())
    assert sorted(found) == folders  # 18 in the sweep, 5 in the slice
    assert {op for op in folders if (sweep / "benchmarks" / "examples" / op / "benchmark_results.jsonl").is_file()} \
        == set(TIMED) & set(folders) and len(found) > len(set(TIMED) & set(folders)) > 0
    assert list(find_campaign_folders(sweep / "benchmarks" / "examples")) == list(found)
    assert list(find_campaign_folders(campaign_dir(sweep, "quant"))) == ["quant"]


def test_read_real_campaign(sweep):
    """moe_blockscale (was flash_attn, which the slice lacks), against its raw files: 120 result rows over
    12 ledger shapes; line 1 is flydsl's incorrect row (25.72 us) on the first shape; line 102 is aiter's
    row on sha1:7a3ebe51210ffa29, failed building the inputs (skip_reason, correct empty)."""
    c = read_campaign(campaign_dir(sweep, "moe_blockscale"))
    assert c.timed and c.results_file == "benchmark_results.jsonl"
    assert (len(c.rows), len(c.ledger)) == (120, 12)
    assert c.providers[:3] == ["flydsl", "aiter", "pytorch"]
    first = c.rows[0]
    assert (first.line, first.provider, first.status, first.correct) == (1, "flydsl", "incorrect", False)
    assert first.median_us == pytest.approx(25.72000026702881)
    assert c.ledger[0].args == {"Dim1": 7168, "Dim2": 4096, "E": 256, "M": 32, "TopK": 8}
    assert c.ledger[0].source_kind == "model_config" and c.ledger[0].occurrences == 1.0
    aiter = next(r for r in c.rows if r.provider == "aiter" and r.status == "failed")
    assert (aiter.line, aiter.shape_id, aiter.correct) == (102, "sha1:7a3ebe51210ffa29", None)
    assert aiter.reason.startswith("input/reference build: HIP out of memory. Tried to allocate 28.00 GiB")
    notes = c.provider_notes()  # baseline_matrix.yaml: an enabled provider's notes, a disabled one's skip_reason
    assert notes["aiter"].startswith("aiter.fmoe_fp8_blockscale_g1u1 (end-to-end fused block-scale MoE")
    assert notes["hipblaslt"] == "hipBLASLt is dense-GEMM only (no expert-grouped block-scale MoE op)"


def test_csv_and_jsonl_hold_the_same_rows_and_give_the_same_scores(sweep):
    """Every timed campaign with a CSV twin: all 13 in the whole sweep, vec_add alone in the slice."""
    twins = [op for op in TIMED if (campaign_dir(sweep, op) / "benchmark_results.csv").is_file()]
    assert twins == (["vec_add"] if ON_SLICE else list(TIMED))
    for op in twins:
        folder = campaign_dir(sweep, op)
        c = read_campaign(folder)
        csv_rows, csv_prov = read_results(folder / "benchmark_results.csv")
        assert len(csv_rows) == len(c.rows), op
        for a, b in zip(csv_rows, c.rows):
            assert (a.shape_id, a.provider, a.status, a.correct, a.median_us, a.p10_us, a.p90_us, a.stable) == \
                   (b.shape_id, b.provider, b.status, b.correct, b.median_us, b.p10_us, b.p90_us, b.stable), op
        assert csv_prov == c.provenance
        from_csv = Campaign(c.name, c.path, c.rel, "benchmark_results.csv", csv_rows, c.ledger, c.matrix, csv_prov)
        a, b = score_campaign(from_csv).to_json(shapes=False), score_campaign(c).to_json(shapes=False)
        a.pop("results_file"), b.pop("results_file")
        for f in b["capture_failures"]:  # only the JSONL carries the error texts (graph_capture_error)
            f["error"] = None
        assert a == b, op


def test_read_vec_add_campaign_row_by_row(sweep):
    """vec_add (the slice holds it) read against its raw JSONL, row by row and shape by shape."""
    folder = campaign_dir(sweep, "vec_add")
    raw = [json.loads(ln) for ln in (folder / "benchmark_results.jsonl").read_text().splitlines() if ln.strip()]
    ledger = [json.loads(ln) for ln in (folder / "shape_ledger.jsonl").read_text().splitlines() if ln.strip()]
    c = read_campaign(folder)
    assert c.timed and c.results_file == "benchmark_results.jsonl"
    assert (len(c.rows), len(c.ledger)) == (len(raw), len(ledger))
    assert c.providers == list(dict.fromkeys(r["provider"] for r in raw))
    for i, (row, r) in enumerate(zip(c.rows, raw), start=1):
        assert (row.line, row.shape_id, row.provider, row.status, row.correct) == (
            i, r["shape_id"], r["provider"], r["benchmark_status"], r["correct"])
        assert (row.median_us, row.p10_us, row.p90_us) == (r["median_us"], r["p10_us"], r["p90_us"])
    assert [(s.shape_id, s.args) for s in c.ledger] == [(s["shape_id"], s["args"]) for s in ledger]


def test_csv_and_jsonl_of_vec_add_hold_the_same_rows_and_give_the_same_scores(sweep):
    """The slice keeps vec_add's CSV beside its JSONL: the two read and score alike."""
    folder = campaign_dir(sweep, "vec_add")
    c = read_campaign(folder)
    csv_rows, csv_prov = read_results(folder / "benchmark_results.csv")
    assert len(csv_rows) == len(c.rows) and csv_rows[0].line == 2  # after the header
    for a, b in zip(csv_rows, c.rows):
        assert (a.shape_id, a.provider, a.status, a.correct, a.median_us, a.p10_us, a.p90_us, a.stable) == \
               (b.shape_id, b.provider, b.status, b.correct, b.median_us, b.p10_us, b.p90_us, b.stable)
    assert csv_prov == c.provenance
    nc = next(r for r in csv_rows if r.status == "not_configured")
    assert (nc.correct, nc.median_us, nc.timing_method) == (None, None, None)  # empty cells read as None
    from_csv = Campaign(c.name, c.path, c.rel, "benchmark_results.csv", csv_rows, c.ledger, c.matrix, csv_prov)
    a, b = score_campaign(from_csv).to_json(shapes=False), score_campaign(c).to_json(shapes=False)
    a.pop("results_file"), b.pop("results_file")
    assert a == b


def test_rows_as_dataframe(sweep):
    df = read_campaign(campaign_dir(sweep, "quant")).to_dataframe()
    assert df.shape == (120, 24)  # 14 + correctness_error, effective_gbps, 3 scope flags, eager_median_us, effective_tflops,
    # dtype, graph_capture_error, provider_detail
    assert df.groupby("provider")["median_us"].count()["flydsl"] == 12


def test_csv_line_numbers_and_empty_cells(sweep):
    """vec_add's CSV (was flash_attn's, which the slice lacks): 120 rows after the header, 72 of them
    not_configured with empty correct, median_us and timing_method cells."""
    rows, _ = read_results(campaign_dir(sweep, "vec_add") / "benchmark_results.csv")
    assert [r.line for r in rows] == list(range(2, 122))  # after the header
    nc = [r for r in rows if r.status == "not_configured"]
    assert len(nc) == 72 and {(r.correct, r.median_us, r.timing_method) for r in nc} == {(None, None, None)}


def test_ledger_only_folder_is_untimed(sweep):
    c = read_campaign(campaign_dir(sweep, "attention_prefill"))
    assert not c.timed and c.rows == [] and len(c.ledger) == 42
    s = score_campaign(c)
    assert s.verdict == UNTIMED and s.n_shapes == 42 and s.n_not_run == 42
    assert s.verdict_reason == "no benchmark results: 42 shapes in the ledger, none timed"


def test_csv_is_read_when_there_is_no_jsonl(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add", drop=("benchmark_results.jsonl",))
    c = read_campaign(dest)
    assert c.results_file == "benchmark_results.csv"
    assert round(score_campaign(c).geomean_vs_best, 6) == 0.949335


# ---------------------------------------------------------------- real-world warts


def test_placeholder_rows_after_real_ones_change_nothing(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")
    path = dest / "benchmark_results.jsonl"
    before = score_campaign(read_campaign(dest))
    placeholders = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec["provider"] in ("flydsl", "aiter_triton"):
            rec.update(benchmark_status="not_configured", correct=None, median_us=None)
            placeholders.append(json.dumps(rec) + "\n")
    with path.open("a") as fh:
        fh.writelines(placeholders)
    after = score_campaign(read_campaign(dest))
    assert after.geomean_vs_best == before.geomean_vs_best
    assert after.per_baseline == before.per_baseline
    assert after.notes == ["24 (shape, provider) pairs have several rows: the last usable one counts"]


def test_provider_present_only_sometimes_and_stray_rows(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")
    shapes = [json.loads(x)["shape_id"] for x in (dest / "shape_ledger.jsonl").read_text().splitlines()]

    def drop_some(lines):
        out = [x for x in lines if not (json.loads(x)["provider"] == "aiter_triton"
                                        and json.loads(x)["shape_id"] in shapes[:5])]
        stray = json.loads(lines[0])
        stray["shape_id"] = "sha1:not-in-ledger"
        return out + [json.dumps(stray) + "\n"]

    edit_lines(dest / "benchmark_results.jsonl", drop_some)
    s = score_campaign(read_campaign(dest))
    assert s.per_baseline["aiter_triton"][1] == 7
    assert s.per_baseline["pytorch"][1] == 12
    assert "1 result row names a shape that is not in the ledger (ignored)" in s.notes


def test_true_false_strings_in_jsonl(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")

    def stringify(lines):
        out = []
        for x in lines:
            rec = json.loads(x)
            if isinstance(rec["correct"], bool):
                rec["correct"] = str(rec["correct"])
            if rec["stable"] is not None:
                rec["stable"] = str(rec["stable"]).lower()
            rec["median_us"] = "" if rec["median_us"] is None else str(rec["median_us"])
            out.append(json.dumps(rec) + "\n")
        return out

    edit_lines(dest / "benchmark_results.jsonl", stringify)
    assert round(score_campaign(read_campaign(dest)).geomean_vs_best, 6) == 0.949335


# ---------------------------------------------------------------- bad input


def _error(folder) -> str:
    with pytest.raises(InputError) as info:
        read_campaign(folder)
    return info.value.message


def test_missing_column_names_file_and_header_line(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add", drop=("benchmark_results.jsonl",))

    def drop_median(lines):
        header = lines[0].rstrip("\n").split(",")
        i = header.index("median_us")
        return [",".join(c for j, c in enumerate(x.rstrip("\n").split(",")) if j != i) + "\n" for x in lines]

    edit_lines(dest / "benchmark_results.csv", drop_median)
    msg = _error(dest)
    assert msg.endswith("benchmark_results.csv:1: not a results CSV: missing column 'median_us'")


def test_non_numeric_time_csv(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add", drop=("benchmark_results.jsonl",))

    def corrupt(lines):
        header = lines[0].rstrip("\n").split(",")
        i = header.index("median_us")
        cells = lines[4].rstrip("\n").split(",")
        assert cells[i]
        cells[i] = "fast"
        lines[4] = ",".join(cells) + "\n"
        return lines

    edit_lines(dest / "benchmark_results.csv", corrupt)
    assert _error(dest).endswith("benchmark_results.csv:5: median_us is not a number: 'fast'")


def test_non_numeric_time_jsonl(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")

    def corrupt(lines):
        rec = json.loads(lines[2])
        rec["p90_us"] = "n/a"
        lines[2] = json.dumps(rec) + "\n"
        return lines

    edit_lines(dest / "benchmark_results.jsonl", corrupt)
    assert _error(dest).endswith("benchmark_results.jsonl:3: p90_us is not a number: 'n/a'")


def test_results_line_not_json(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")
    edit_lines(dest / "benchmark_results.jsonl", lambda lines: lines[:7] + ['{"shape_id": "x", \n'] + lines[7:])
    msg = _error(dest)
    assert "benchmark_results.jsonl:8: not JSON: " in msg


def test_ledger_line_not_json(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")
    edit_lines(dest / "shape_ledger.jsonl", lambda lines: lines[:2] + ["shape_id,model\n"] + lines[2:])
    assert _error(dest).endswith("shape_ledger.jsonl:3: not JSON: Expecting value (column 1)")


def test_results_file_that_is_neither_csv_nor_jsonl(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add", drop=("benchmark_results.*",))
    (dest / "benchmark_results.parquet").write_bytes(b"PAR1\x00\x01")
    assert _error(dest).endswith("benchmark_results.parquet: unsupported results format: "
                                 "expected benchmark_results.jsonl or benchmark_results.csv")
    (dest / "benchmark_results.csv").write_bytes(b"PAR1\x00\x01\xff\xfe\x00")
    assert _error(dest).endswith("benchmark_results.csv: not UTF-8 text (not a CSV file)")
    (dest / "benchmark_results.csv").write_text('{"shape_id": "a", "provider": "flydsl"}\n')
    assert "benchmark_results.csv:1: not a results CSV: missing column" in _error(dest)


def test_csv_row_with_wrong_cell_count(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add", drop=("benchmark_results.jsonl",))
    edit_lines(dest / "benchmark_results.csv", lambda lines: lines[:3] + ["a,b,c\n"] + lines[3:])
    assert _error(dest).endswith("benchmark_results.csv:4: row has 3 cells, the header has 39")


def test_bad_boolean_and_missing_field(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")

    def corrupt(lines):
        rec = json.loads(lines[0])
        rec["correct"] = "maybe"
        rec2 = json.loads(lines[1])
        del rec2["benchmark_status"]
        return [json.dumps(rec) + "\n", json.dumps(rec2) + "\n"] + lines[2:]

    edit_lines(dest / "benchmark_results.jsonl", corrupt)
    assert _error(dest).endswith("benchmark_results.jsonl:1: correct is not True/False: 'maybe'")
    edit_lines(dest / "benchmark_results.jsonl", lambda lines: lines[1:])
    assert _error(dest).endswith("benchmark_results.jsonl:1: missing field 'benchmark_status'")


def test_results_without_ledger_and_empty_folder(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add", drop=("shape_ledger.jsonl",))
    assert _error(dest).endswith("shape_ledger.jsonl: missing: the shape ledger is needed to score the results")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "not a campaign folder" in _error(empty)


def test_bad_baseline_matrix_yaml(sweep, tmp_path):
    dest = copy_campaign(sweep, tmp_path, "vec_add")
    (dest / "baseline_matrix.yaml").write_text("kernel: vec_add\nproviders: [a, b\nnotes: x\n")
    msg = _error(dest)
    assert "baseline_matrix.yaml:" in msg and "invalid YAML" in msg


def test_broken_campaign_in_a_sweep_leaves_the_others_scored(sweep, tmp_path):
    copy_campaign(sweep, tmp_path, "vec_add")
    copy_campaign(sweep, tmp_path, "quant")
    broken = copy_campaign(sweep, tmp_path, "pa_decode")  # was softmax, which the slice lacks
    edit_lines(broken / "shape_ledger.jsonl", lambda lines: lines[:4] + ["{oops\n"] + lines[4:])
    scores = score_sweep(tmp_path)
    assert isinstance(scores["pa_decode"], InputError)
    assert scores["pa_decode"].line == 5
    assert scores["vec_add"].verdict == "HEADROOM" and scores["quant"].verdict == "HEADROOM"


# ---------------------------------------------------------------- read once, read fast


def test_results_file_is_parsed_once_until_its_bytes_change(sweep, tmp_path):
    from generator.analyze import roofline
    from generator.read.jsonl import results_jsonl

    dest = copy_campaign(sweep, tmp_path, "vec_add")
    path = dest / "benchmark_results.jsonl"
    first = results_jsonl(path)
    assert len(first) == 120 and first[0][0] == 1
    assert results_jsonl(str(path)) is first  # the scoring and the roofline share one parse
    assert roofline.read_result_rows(dest)[0] is first[0][1]
    assert read_campaign(dest).rows[0].median_us == 13.079999946057796
    # same size, new bytes (one digit of the first median): parsed again
    edit_lines(path, lambda lines: [lines[0].replace('"median_us":13.079999946057796',
                                                     '"median_us":14.079999946057796')] + lines[1:])
    assert read_campaign(dest).rows[0].median_us == 14.079999946057796
    assert roofline.read_result_rows(dest)[0]["median_us"] == 14.079999946057796


def test_plain_json_rows_read_as_the_field_by_field_reader_reads_them(sweep):
    """Every row of the sweep (7,210 JSONL rows, all plain, and their 13 CSV twins, none plain; in the
    slice 480 JSONL rows and vec_add's CSV) and rows with odd values: the fast path and ``_checked_row``
    give the same values of the same types."""
    from generator.read import campaign_rows
    from generator.read.jsonl import jsonl_records

    def same(rec, line=1):
        a, b = campaign_rows._result_row(rec, 0, line, "r.jsonl"), campaign_rows._checked_row(rec, 0, line, "r.jsonl")
        return all(getattr(a, f) == getattr(b, f) and type(getattr(a, f)) is type(getattr(b, f))
                   for f in campaign_rows.ResultRow.__slots__)

    n = want = 0
    for op in TIMED:
        for name in ("benchmark_results.jsonl", "benchmark_results.csv"):
            path = campaign_dir(sweep, op) / name
            if not path.is_file():  # a campaign the slice lacks, or a CSV twin it leaves out
                continue
            # as many rows as the JSONL file has non-blank lines (its CSV twin holds the same rows)
            want += sum(1 for ln in (campaign_dir(sweep, op) / "benchmark_results.jsonl").read_text().splitlines()
                        if ln.strip())
            records = jsonl_records(str(path)) if name.endswith("jsonl") else campaign_rows._csv_records(str(path))
            for line, rec in records:
                assert same(rec, line), (op, name, line)
                n += 1
    assert n == want > 0
    rec = json.loads((campaign_dir(sweep, "vec_add") / "benchmark_results.jsonl").read_text().splitlines()[0])
    odd = [{"median_us": float("nan")}, {"median_us": 13}, {"effective_gbps": float("nan")},
           {"timing_method": ""}, {"timing_method": 7}, {"skip_reason": "no kernel", "graph_capture_error": "x"},
           {"stable": "true"}, {"correct": None}, {"includes_jit": 0}]
    for change in odd:
        assert same({**rec, **change}), change
    assert campaign_rows._result_row({**rec, "median_us": float("nan")}, 0, 1, "r.jsonl").median_us is None
    row = campaign_rows._result_row({**rec, "skip_reason": "no kernel", "graph_capture_error": "x"}, 0, 1, "r.jsonl")
    assert row.reason == "no kernel; x"
    del rec["graph_capture_error"]  # an optional field absent: read field by field
    assert same(rec)
    with pytest.raises(InputError, match=r"r.jsonl:1: median_us is not a number: True"):
        campaign_rows._result_row({**rec, "median_us": True}, 0, 1, "r.jsonl")
    with pytest.raises(InputError, match=r"r.jsonl:1: empty provider"):
        campaign_rows._result_row({**rec, "provider": ""}, 0, 1, "r.jsonl")


def test_results_read_at_once_match_the_line_by_line_reading(sweep, tmp_path):
    from generator.read.jsonl import jsonl_records, plain_jsonl, results_jsonl

    path = campaign_dir(sweep, "vec_add") / "benchmark_results.jsonl"
    data = path.read_bytes()
    whole = plain_jsonl(data)
    assert whole == list(jsonl_records(str(path)))
    assert len(whole) == 120 and whole[-1][0] == 120 and whole[0][1]["median_us"] == 13.079999946057796
    # a blank line keeps the numbering; CR endings, a bare value or a bad line go line by line
    assert [n for n, _ in plain_jsonl(data.replace(b"\n", b"\n\n", 1))][:2] == [1, 3]
    assert plain_jsonl(data.replace(b"\n", b"\r\n")) is None
    assert plain_jsonl(b'{"a": 1}\n[1]\n') is None
    assert plain_jsonl(b'{"a": 1}\n{"median_us": NaN}\n') is None
    bad = tmp_path / "benchmark_results.jsonl"
    bad.write_bytes(b'{"a": 1}\n{oops\n')
    records = results_jsonl(bad)
    assert records[0] == (1, {"a": 1}) and isinstance(records[1], InputError) and records[1].line == 2
