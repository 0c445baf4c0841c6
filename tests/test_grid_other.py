"""A capture whose dispatch has no row in the kernel trace: its advice premises say the grid is the kernel's
most common launch there, not the captured dispatch's (pa_mqa_logits_fp4's small capture, dispatch 197: the
trace's row 197 is another kernel). Expected values are read here from the kernel-trace CSV."""

from __future__ import annotations

import csv

import pytest


@pytest.mark.full_sweep
def test_a_borrowed_grid_is_named_for_what_it_is(sweep, kernel):
    bundle = sweep / "examples" / "pa_mqa_logits_fp4"
    with open(next((bundle / "compute_viewer").glob("*kernel_trace.csv")), newline="") as fh:
        rows = list(csv.DictReader(fh))
    mine = [r for r in rows if r["Kernel_Name"].startswith("pa_mqa_logits_fp4_kernel")]
    ids = {int(r["Dispatch_Id"]) for r in mine}
    assert 197 not in ids and 426 in ids  # the small capture's dispatch is not this kernel's; the big one's is
    assert {(r["Grid_Size_X"], r["Grid_Size_Y"], r["Grid_Size_Z"]) for r in mine} == {("129792", "1", "1")}
    premises = {}
    for c in kernel("pa_mqa_logits_fp4")[0].captures:
        for f in c.findings or []:
            if f["detector"] == "occupancy_grid":
                premises[c.label] = f["premise"]
    assert premises["small"][0] == "finding.occupancy_grid.premise.other"
    assert premises["big"][0] == "finding.occupancy_grid.premise"
    assert premises["small"][1]["grid"] == "129792x1x1"
