"""What a campaign and a bundle say about the clock their times are on (VERDICTS rule 13).

Two readings, no judgement: the text of a second-layout campaign's reports and metadata (where
a harness writes "HIP event timing"), and the device timer of one kernel in a bundle's rocprofv3
kernel trace (``compute_viewer/*kernel_trace.csv``: ``Kernel_Name, ..., Start_Timestamp,
End_Timestamp`` in ns, one row per dispatch).
"""

from __future__ import annotations

import glob
import os
import statistics

from generator.errors import InputError
from generator.read.campaign import Campaign
from generator.read.rocprof import kernel_trace, to_int


def timing_texts(campaign: Campaign) -> list[str]:
    """The text of the campaign's Markdown reports and of its suite's metadata (unreadable ones skipped)."""
    paths = list(campaign.reports)
    if campaign.suite:
        paths.append(os.path.join(campaign.path, f"metadata_{campaign.suite}.json"))
    out = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                out.append(fh.read())
        except OSError:
            continue
    return out


def device_timer_us(viewer_dir: str, kernel: str) -> float | None:
    """Median End - Start (us) of the dispatches whose ``Kernel_Name`` is ``kernel`` or starts with
    it, over the folder's kernel traces; None when there is no trace or no such dispatch. Only the two
    timestamps of each dispatch are taken (``KernelTrace.cells_starting_with``: 44.5 ms -> 37.2 ms of
    CPU over the shared sweep's pairs, issue 41)."""
    durations = []
    for path in sorted(glob.glob(os.path.join(glob.escape(viewer_dir), "*kernel_trace.csv"))):
        try:
            cells = kernel_trace(path).cells_starting_with(kernel, ("Start_Timestamp", "End_Timestamp"))
        except InputError:
            continue
        for start, end in cells:
            start, end = to_int(start), to_int(end)
            if start is not None and end is not None and end >= start:
                durations.append((end - start) / 1000.0)
    return statistics.median(durations) if durations else None
