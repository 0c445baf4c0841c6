"""What the latest sweep changed: the sweep being built against the newest one the history holds.

The history page opens on it (``generator.site.views.history``). It is ``diff`` between the two
(``generator.sweeps.diff``), so it names who moved the same way: the candidate, a baseline, or the
comparison (a baseline added, removed, starting or ceasing to pass). The newest recorded sweep keeps
its per-shape rows (``history.record_snapshot``); an older history without them still gives the
kernel-level changes (verdicts, verdict ratios, new and removed kernels).

The sweep being built is read before anything is published: its ``api/index.json`` rows (in memory)
and each kernel's ``api/kernels/<slug>.json`` (``snapshot_from_documents``).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Sequence

from generator.read.att import read_json
from generator.sweeps.diff import DiffOptions, SweepDiff, diff_snapshots
from generator.sweeps.history import HistoryEntry, load_history
from generator.sweeps.snapshot import SNAPSHOT_FORMAT_VERSION, KernelSnapshot, SweepSnapshot, snapshot_from_json
from generator.sweeps.snapshot_sources import kernel_from_api, state_errors


def snapshot_from_documents(rows: Sequence[Mapping[str, Any]], document: Callable[[str], Mapping[str, Any] | None],
                            label: str, provenance: Mapping[str, Any] | None = None) -> SweepSnapshot:
    """A snapshot of the sweep being built: its index rows and ``document(slug)``, the kernel's
    ``api/kernels/<slug>.json`` (None: the row alone), read as ``snapshot_from_api`` reads them."""
    kernels: dict[str, KernelSnapshot] = {}
    for row in rows:
        slug = str(row["slug"])
        kernels[slug] = kernel_from_api(row, document(slug) or {}, f"api/kernels/{slug}.json")
    return SweepSnapshot(format_version=SNAPSHOT_FORMAT_VERSION, label=label,
                         provenance={str(k): str(v) for k, v in sorted((provenance or {}).items())
                                     if v is not None and not isinstance(v, (dict, list))},
                         kernels=dict(sorted(kernels.items())), errors=state_errors(kernels.values()))


def document_reader(*folders: str | None) -> Callable[[str], dict[str, Any] | None]:
    """``document(slug)``: the first ``api/kernels/<slug>.json`` found under ``folders`` (a build's
    staging folder, then the published site), else None."""
    def document(slug: str) -> dict[str, Any] | None:
        for folder in folders:
            path = os.path.join(folder, "api", "kernels", f"{slug}.json") if folder else ""
            if path and os.path.isfile(path):
                doc = read_json(path)
                return doc if isinstance(doc, dict) else None
        return None
    return document


def previous_snapshot(history_dir: str | os.PathLike, skip: Sequence[str | None] = ()
                      ) -> tuple[HistoryEntry, SweepSnapshot] | None:
    """The newest recorded sweep whose label is not in ``skip`` (the sweep being built, and the entry
    it replaces), with its snapshot; None for an empty history."""
    history_dir = os.fspath(history_dir)
    entries = [e for e in load_history(history_dir).entries if e.label not in set(skip)]
    if not entries:
        return None
    e = entries[-1]
    path = os.path.join(history_dir, e.file)
    return e, snapshot_from_json(read_json(path), path)


def latest_change(previous: SweepSnapshot | None, current: SweepSnapshot,
                  options: DiffOptions = DiffOptions()) -> SweepDiff | None:
    """The latest sweep against the one before (None without one)."""
    if previous is None:
        return None
    return diff_snapshots(previous, current, options)


def not_the_comparisons(marks: dict[str, dict[str, Any]], change: SweepDiff | None,
                        label: str) -> dict[str, dict[str, Any]]:
    """The regression marks (``history_series.regression_marks``) without those of a latest step (into
    ``label``) that ``change`` says is the comparison's alone: no regression of the candidate."""
    if change is None:
        return marks
    compared = {k.slug for k in change.kernels if k.comparison_only}
    return {slug: m for slug, m in marks.items() if not (slug in compared and m.get("to") == label)}
