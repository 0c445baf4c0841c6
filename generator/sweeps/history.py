"""History across sweeps: the folder that keeps each sweep's numbers, and how a sweep is placed and recorded in it.

A history folder holds one compact snapshot per recorded sweep and a manifest; no page
is ever copied. The newest sweep keeps its per-shape rows (the next build compares its own sweep
with them, ``generator.sweeps.latest``), the older ones drop them, so twenty sweeps of the shared
MI350X sweep take well under a MB::

    history/
      history.json                 the manifest, oldest entry first
      sweeps/0001-2026-06-01.json  a SweepSnapshot document without per-shape rows
      sweeps/0002-pr-42.json       the newest: with them

``history.json``::

    {"format_version": 1, "kind": "kernel-atlas-history", "retention": 20,
     "entries": [{"seq": 1, "label": "2026-06-01", "commit": "18c5a7ed",
                  "date": "2026-06-01", "file": "sweeps/0001-2026-06-01.json"}]}

An entry's identity is the sweep's content (``sweep_identity``: its timed and profiled
commits and a hash of its inputs), not its date: ``place`` says where a build's sweep goes (a
rebuild of the same sweep replaces its own entry; a different sweep whose default label, its
date, is taken gets ``<date>.2``; an explicit label names its entry). ``record`` adds a sweep
(an entry of the same identity, else of the same label, is replaced in place) and
drops the oldest entries beyond the retention limit (default 20, ``[history] keep``
of ``kernel-atlas.toml``). ``load_snapshots`` reads the recorded sweeps back, oldest first;
``generator.sweeps.history_series`` turns them into one series of points per kernel, with its steps,
regression marks and charts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from dataclasses import field
from typing import Any, Mapping, Sequence

from generator.read.att import read_json
from generator.errors import InputError
from generator.model import FORMAT_VERSION, record
from generator.sweeps import moves
from generator.sweeps.labels import undated_label  # noqa: F401  (build's default label of an undated sweep)
from generator.sweeps.snapshot import SweepSnapshot, check_format_version, snapshot_from_json
from generator.sweeps.snapshot_sources import load_snapshot

DEFAULT_RETENTION = 20
MANIFEST = "history.json"
SWEEPS = "sweeps"
HISTORY_KIND = "kernel-atlas-history"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


# ---------------------------------------------------------------- the manifest


@record
class HistoryEntry:
    """One recorded sweep."""

    seq: int  # increasing record number (never reused)
    label: str
    commit: str | None
    date: str | None
    file: str  # relative to the history folder, "/" separated
    identity: str | None = None  # ``sweep_identity`` (None in entries recorded before it existed)
    moves: dict[str, Any] = field(default_factory=dict)  # slug -> who moved against the sweep before (``moves``)

    def to_json(self) -> dict[str, Any]:
        doc = {"seq": self.seq, "label": self.label, "commit": self.commit, "date": self.date, "file": self.file}
        doc = {**doc, "identity": self.identity} if self.identity else doc
        return {**doc, "moves": self.moves} if self.moves else doc


@record
class History:
    """The manifest of a history folder."""

    path: str
    retention: int
    entries: list[HistoryEntry] = field(default_factory=list)  # oldest first

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "kind": HISTORY_KIND,
            "retention": self.retention,
            "entries": [e.to_json() for e in self.entries],
        }


def load_history(history_dir: str | os.PathLike) -> History:
    """The manifest of a history folder; an empty history when the folder or manifest is absent."""
    history_dir = os.fspath(history_dir)
    path = os.path.join(history_dir, MANIFEST)
    if not os.path.isfile(path):
        if os.path.isdir(history_dir) and os.path.isdir(os.path.join(history_dir, SWEEPS)):
            raise InputError(path, f"missing: {SWEEPS}/ is there but not its manifest; "
                                   f"delete the folder to start the history again")
        return History(path=history_dir, retention=DEFAULT_RETENTION)
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("kind") != HISTORY_KIND:
        raise InputError(path, f"not a kernel-atlas history manifest (expected \"kind\": \"{HISTORY_KIND}\")")
    check_format_version(doc, path, "this history")
    entries = []
    for i, e in enumerate(doc.get("entries") or []):
        if not isinstance(e, dict) or not isinstance(e.get("label"), str) or not isinstance(e.get("file"), str):
            raise InputError(path, f"entries[{i}] needs a \"label\" and a \"file\"")
        if not _inside(e["file"]):
            raise InputError(path, f"entries[{i}]: file {e['file']!r} is outside the history folder")
        entries.append(HistoryEntry(seq=int(e.get("seq") or i + 1), label=e["label"], commit=e.get("commit"),
                                    date=e.get("date"), file=e["file"],
                                    identity=e["identity"] if isinstance(e.get("identity"), str) else None,
                                    moves=e["moves"] if isinstance(e.get("moves"), dict) else {}))
    retention = doc.get("retention")
    return History(path=history_dir, retention=retention if isinstance(retention, int) and retention > 0
                   else DEFAULT_RETENTION, entries=entries)


def _inside(rel: str) -> bool:
    """True for a relative path that stays inside its folder."""
    norm = os.path.normpath(rel)
    return not os.path.isabs(rel) and norm != ".." and not norm.startswith(".." + os.sep)


def _write_json(path: str, doc: Any) -> None:
    """Write JSON with sorted keys, atomically (a reader never sees half a file)."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        fh.write("\n")
    os.replace(tmp, path)


def compact(snap: SweepSnapshot) -> SweepSnapshot:
    """The snapshot without per-shape rows (what the history keeps)."""
    kernels = {slug: dataclasses.replace(k, shapes=[]) for slug, k in snap.kernels.items()}
    return dataclasses.replace(snap, kernels=kernels)


# ---------------------------------------------------------------- recording


def sweep_identity(commits: Sequence[str | None], input_hashes: Mapping[str, str]) -> str:
    """A sweep's identity by content: its commits (timed, profiled) and each kernel's input hash."""
    parts = [c or "" for c in commits] + [f"{slug}:{h}" for slug, h in sorted(input_hashes.items())]
    return "sha256:" + hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


@record
class Placement:
    """Where a sweep goes in the history: its label, and the entry it replaces (None: a new one)."""

    label: str
    replaces: HistoryEntry | None
    why: str  # "the same sweep", "a new sweep", "a different sweep of the same date", "the label given"


def place(history_dir: str | os.PathLike, identity: str, label: str, explicit: bool = False) -> Placement:
    """Where a sweep of ``identity`` goes: the entry of the same identity is replaced (under
    ``label`` when given explicitly, else under its own label); otherwise an explicit label
    replaces its entry, and a default label (the date) that another sweep holds gets a suffix."""
    entries = load_history(history_dir).entries
    same = next((e for e in entries if e.identity == identity), None)
    if same is not None:
        return Placement(label if explicit else same.label, same, "the same sweep")
    named = next((e for e in entries if e.label == label), None)
    if named is None:
        return Placement(label, None, "a new sweep")
    if explicit:
        return Placement(label, named, "the label given")
    taken, n = {e.label for e in entries}, 2
    while f"{label}.{n}" in taken:
        n += 1
    return Placement(f"{label}.{n}", None, "a different sweep of the same date")


def placement_text(p: Placement, kept: int) -> str:
    """The one line a build prints about the history."""
    did = f"replaced {p.replaces.label!r}" + (f" (now {p.label!r})" if p.label != p.replaces.label else "") \
        if p.replaces is not None else f"added {p.label!r}"
    return f"history: {did}, {p.why}; {kept} sweep{'s' if kept != 1 else ''} kept"


def record(api_dir: str | os.PathLike, history_dir: str | os.PathLike, label: str, commit: str | None = None,
           retention: int | None = DEFAULT_RETENTION, identity: str | None = None) -> HistoryEntry:
    """Add the sweep of a built site's ``api/`` (or a sweep folder) to the history."""
    snap = load_snapshot(api_dir, label)
    return record_snapshot(snap, history_dir, label, commit, retention, identity)


def record_snapshot(snap: SweepSnapshot, history_dir: str | os.PathLike, label: str, commit: str | None = None,
                    retention: int | None = DEFAULT_RETENTION, identity: str | None = None) -> HistoryEntry:
    """Add one snapshot to the history; the entry of the same ``identity`` (else of the same
    label) is replaced in place.

    Entries beyond ``retention`` (oldest first) are dropped with their files.
    """
    retention = DEFAULT_RETENTION if retention is None else retention
    if isinstance(retention, bool) or not isinstance(retention, int) or retention < 1:
        raise InputError(os.fspath(history_dir), f"history retention must be a positive number of sweeps, "
                                                 f"got {retention!r}")
    if not label or not label.strip():
        raise InputError(os.fspath(history_dir), "a history entry needs a non-empty label")
    history_dir = os.fspath(history_dir)
    hist = load_history(history_dir)
    os.makedirs(os.path.join(history_dir, SWEEPS), exist_ok=True)
    old = next((e for e in hist.entries if identity and e.identity == identity), None) \
        or next((e for e in hist.entries if e.label == label), None)
    seq = old.seq if old else max((e.seq for e in hist.entries), default=0) + 1
    entry = HistoryEntry(seq=seq, label=label, commit=commit, date=snap.date,
                         file=f"{SWEEPS}/{seq:04d}-{_SAFE.sub('-', label).strip('-') or 'sweep'}.json",
                         identity=identity)
    before = next((e for e in reversed(hist.entries) if e is not old), None)  # still with its shapes
    entry.moves = moves.moves_between(_stored(history_dir, before), snap) if before else {}
    stored = dataclasses.replace(snap, label=label)  # the newest keeps its shapes
    if old and old.file != entry.file:
        _remove(history_dir, old.file)
    _write_json(os.path.join(history_dir, entry.file), stored.to_json())
    entries = [entry if e is old else e for e in hist.entries]
    if old is None:
        entries.append(entry)
    for e in entries[:-1]:  # only the newest keeps its shapes
        _compact_file(os.path.join(history_dir, e.file))
    for dropped in entries[:-retention]:
        _remove(history_dir, dropped.file)
    hist.entries = entries[-retention:]
    hist.retention = retention
    _write_json(os.path.join(history_dir, MANIFEST), hist.to_json())
    return entry


def _stored(history_dir: str, e: HistoryEntry) -> SweepSnapshot | None:
    """A stored sweep (None when its file is gone or unreadable)."""
    path = os.path.join(history_dir, e.file)
    try:
        return snapshot_from_json(read_json(path), path)
    except (InputError, OSError):
        return None


def _compact_file(path: str) -> None:
    """Rewrite a stored sweep without its per-shape rows (an entry that is no longer the newest)."""
    if not os.path.isfile(path):
        return
    doc = read_json(path)
    if isinstance(doc, dict) and any(isinstance(k, dict) and k.get("shapes")
                                     for k in (doc.get("kernels") or {}).values()):
        _write_json(path, compact(snapshot_from_json(doc, path)).to_json())


def _remove(history_dir: str, rel: str) -> None:
    """Delete one stored sweep file (already gone is fine)."""
    try:
        os.remove(os.path.join(history_dir, rel))
    except FileNotFoundError:
        pass


def load_snapshots(history_dir: str | os.PathLike) -> list[tuple[HistoryEntry, SweepSnapshot]]:
    """Every recorded sweep, oldest first."""
    hist = load_history(history_dir)
    out = []
    for e in hist.entries:
        path = os.path.join(os.fspath(history_dir), e.file)
        out.append((e, snapshot_from_json(read_json(path), path)))
    return out
