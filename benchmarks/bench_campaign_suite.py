"""Benchmark: reading a campaign of the second layout vs the same rows in the classic layout.

    python benchmarks/bench_campaign_suite.py [ROWS]     (default 10,000)

Writes, in a temporary folder, one campaign of ROWS rows twice: as the second layout
(``results_full.jsonl`` + ``metadata_full.json``, shapes by label) and as the classic layout
(``benchmark_results.jsonl`` + ``shape_ledger.jsonl``), the same shapes, providers and times
(synthetic: ROWS / 5 shapes x 5 providers). Prints the best-of-9 wall time of
``read_campaign_folder`` on each, the time per row, and the ratio second / classic.
Targets (issue 22): the second layout costs no more per row than the classic one (ratio <= 1.0),
and a campaign of 10,000 rows reads in under a second.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

from generator.read.campaign_suite import read_campaign_folder  # noqa: E402
from timing import best_of  # noqa: E402

PROVIDERS = ("flydsl", "flydsl_t128", "aiter_asm", "triton", "pytorch")


def write_both(root: str, n_rows: int) -> tuple[str, str]:
    """The same synthetic rows as a second-layout folder and a classic folder."""
    suite, classic = os.path.join(root, "suite"), os.path.join(root, "classic")
    os.makedirs(suite)
    os.makedirs(classic)
    results, rows, ledger = [], [], []
    for i in range(n_rows // len(PROVIDERS)):
        label = f"b{i % 16}_s{1024 * (1 + i // 16)}"
        shape = {"B": i % 16, "S": 1024 * (1 + i // 16), "H": 16, "D": 128, "dtype": "bf16", "causal": True}
        ledger.append({"shape_id": label, "model": "m", "stage": "prefill", "dtype": "bf16", "args": shape,
                       "source": {"kind": "synthetic"}, "weight": {"occurrences": 1}})
        for j, p in enumerate(PROVIDERS):
            us = 10.0 + i * 0.01 + j
            results.append({"label": label, "provider": p, **shape, "stage": "prefill", "status": "ok",
                            "correctness": "pass", "us_median": us, "us_p10": us * 0.98, "us_p90": us * 1.02,
                            "tflops": 100.0, "err": None})
            rows.append({"shape_id": label, "provider": p, "benchmark_status": "ok", "correct": True,
                         "median_us": us, "p10_us": us * 0.98, "p90_us": us * 1.02, "std_us": 0.1,
                         "stable": True, "timing_method": "cudagraph", "cache_state": "cold",
                         "correctness_error": None, "effective_gbps": 1000.0, "includes_layout_conversion": False,
                         "includes_jit": False, "includes_allocation": True, "skip_reason": None,
                         "graph_capture_error": None, "eager_median_us": None, "effective_tflops": 100.0,
                         "dtype": "bf16"})
    for path, records in ((os.path.join(suite, "results_full.jsonl"), results),
                          (os.path.join(classic, "benchmark_results.jsonl"), rows),
                          (os.path.join(classic, "shape_ledger.jsonl"), ledger)):
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in records)
    with open(os.path.join(suite, "metadata_full.json"), "w", encoding="utf-8") as fh:
        json.dump({"suite": "full", "timestamp": "2026-06-12T09:30:00Z", "gpu": "AMD Instinct MI350X"}, fh)
    return suite, classic


def main() -> None:
    n_rows = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        suite, classic = write_both(tmp, n_rows)
        t_suite, camp = best_of(read_campaign_folder, suite, repeat=9)
        t_classic, camp_c = best_of(read_campaign_folder, classic, repeat=9)
    assert len(camp.rows) == len(camp_c.rows) == n_rows - n_rows % len(PROVIDERS)
    n = len(camp.rows)
    print(f"second layout: {n} rows, {len(camp.ledger)} shapes in {t_suite * 1000:.1f} ms "
          f"({t_suite / n * 1e6:.2f} us/row; target < 1 s)")
    print(f"classic layout: {n} rows, {len(camp_c.ledger)} shapes in {t_classic * 1000:.1f} ms "
          f"({t_classic / n * 1e6:.2f} us/row)")
    print(f"ratio second / classic per row: {t_suite / t_classic:.2f} (target <= 1.0)")


if __name__ == "__main__":
    main()
