"""An independent reading of the NVIDIA demo's raw Nsight Compute CSVs for tests, apart from
``generator.read``: the numbers tests work their expectations from."""

from __future__ import annotations

import csv
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "bundles" / "examples"


def not_issued(kernel: str) -> list[tuple[str, int]]:
    """(SASS text, Not-issued samples) of the first launch in the kernel's source_sass.csv, in listing order."""
    rows, head, blocks = [], None, 0
    with open(DEMO / kernel / "ncu" / "prefill" / "source_sass.csv", newline="") as fh:
        for row in csv.reader(fh):
            if row and row[0] == "Kernel Name":
                blocks += 1
            elif row and row[0] == "Address":
                head = row
            elif row and row[0].startswith("0x") and blocks == 1:
                d = dict(zip(head, row))
                rows.append((d["Source"].strip(), int(d["Warp Stall Sampling (Not-issued Samples)"])))
    return rows
