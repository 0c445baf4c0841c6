"""Hand-made campaign folders for what the real sweep cannot show (its campaigns are all of the
classic layout): the second layout (``results_<suite>.jsonl`` + ``metadata_<suite>.json``).

Every number here is made up and worked by hand in the tests that use it; no real row is copied.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

#: The shape columns of the hand-made rows, in the order the harness writes them.
SHAPE = ("B", "S", "H", "D", "dtype", "causal")


def handmade_row(label: str, provider: str, us: float | None, *, status: str = "ok", correctness: str = "pass",
                 shape: tuple = (1, 1024, 16, 128, "bf16", True), stage: str = "prefill", err: str | None = None,
                 tflops: float | None = None) -> dict:
    """One second-layout row (hand-made)."""
    row = {"label": label, "provider": provider, **dict(zip(SHAPE, shape)), "stage": stage, "status": status,
           "correctness": correctness, "us_median": us, "us_p10": None if us is None else us * 0.98,
           "us_p90": None if us is None else us * 1.02, "tflops": tflops, "err": err}
    return row


#: The ``full`` suite of the hand-made op: 3 labels x 4 providers (flydsl, a forced-tiling variant
#: flydsl_t128, aiter_asm, pytorch). b1: flydsl 20 us vs aiter 22 (1.10x); b4: every row
#: not_checked, flydsl 100 vs aiter 80 (0.80x); b8: flydsl failed, its variant 400 vs aiter 300.
HANDMADE_FULL = [
    handmade_row("b1_s1024", "flydsl", 20.0),
    handmade_row("b1_s1024", "flydsl_t128", 25.0),
    handmade_row("b1_s1024", "aiter_asm", 22.0),
    handmade_row("b1_s1024", "pytorch", 40.0),
    handmade_row("b4_s4096", "flydsl", 100.0, correctness="not_checked", shape=(4, 4096, 16, 128, "bf16", True)),
    handmade_row("b4_s4096", "flydsl_t128", 90.0, correctness="not_checked", shape=(4, 4096, 16, 128, "bf16", True)),
    handmade_row("b4_s4096", "aiter_asm", 80.0, correctness="not_checked", shape=(4, 4096, 16, 128, "bf16", True)),
    handmade_row("b4_s4096", "pytorch", 200.0, correctness="not_checked", shape=(4, 4096, 16, 128, "bf16", True)),
    handmade_row("b8_s8192", "flydsl", None, status="failed", correctness="not_checked", err="HIP out of memory",
                 shape=(8, 8192, 16, 128, "bf16", False), stage="decode"),
    handmade_row("b8_s8192", "flydsl_t128", 400.0, shape=(8, 8192, 16, 128, "bf16", False), stage="decode"),
    handmade_row("b8_s8192", "aiter_asm", 300.0, shape=(8, 8192, 16, 128, "bf16", False), stage="decode"),
    handmade_row("b8_s8192", "pytorch", None, status="unsupported", correctness="not_checked",
                 shape=(8, 8192, 16, 128, "bf16", False), stage="decode"),
]
HANDMADE_SMOKE = HANDMADE_FULL[:4]
HANDMADE_METADATA = {"suite": "full", "timestamp": "2026-06-12T09:30:00Z", "gpu": "AMD Instinct MI350X",
                     "arch": "gfx950", "rocm": "7.2.0", "commits": {"flydsl": "aaaa1111", "aiter": "bbbb2222"}}


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    """Rows as JSON Lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict]) -> Path:
    """Rows as CSV (nulls as empty cells, booleans True / False)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows([{k: "" if v is None else v for k, v in r.items()} for r in rows])
    return path


def handmade_suite_campaign(folder: Path, *, smoke: bool = True, partial: bool = False, report: bool = True) -> Path:
    """A second-layout campaign folder (hand-made): suite ``full`` (12 rows) with its metadata,
    optionally a ``smoke`` suite (4 rows), a ``config`` run still being written, a report."""
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "results_full.jsonl", HANDMADE_FULL)
    (folder / "metadata_full.json").write_text(json.dumps(HANDMADE_METADATA), encoding="utf-8")
    if smoke:
        write_jsonl(folder / "results_smoke.jsonl", HANDMADE_SMOKE)
        (folder / "metadata_smoke.json").write_text(json.dumps({**HANDMADE_METADATA, "suite": "smoke"}),
                                                    encoding="utf-8")
    if partial:
        write_jsonl(folder / "results_config.partial.jsonl", HANDMADE_SMOKE[:2])
    if report:
        (folder / "BENCHMARK_REPORT.md").write_text("# Hand-made report\n\nflydsl vs aiter <script>x</script>\n",
                                                    encoding="utf-8")
    return folder


def handmade_classic_campaign(folder: Path, slower: dict[str, float] | None = None) -> Path:
    """A classic campaign (hand-made): 10 shapes ``n1``..``n10``, flydsl at 10 us against pytorch at
    12 us (1.20x), every row with p90/p10 = 1.03; ``slower`` multiplies flydsl's times of some shapes."""
    folder.mkdir(parents=True, exist_ok=True)
    ledger = [{"shape_id": f"n{i}", "model": "m", "stage": "prefill", "dtype": "bf16", "args": {"n": i}}
              for i in range(1, 11)]
    rows = []
    for shape in ledger:
        for provider, us in (("flydsl", 10.0 * (slower or {}).get(shape["shape_id"], 1.0)), ("pytorch", 12.0)):
            rows.append({"shape_id": shape["shape_id"], "provider": provider, "benchmark_status": "ok",
                         "correct": True, "median_us": us, "p10_us": us, "p90_us": us * 1.03})
    write_jsonl(folder / "shape_ledger.jsonl", ledger)
    write_jsonl(folder / "benchmark_results.jsonl", rows)
    return folder
