"""History across sweeps: keep each sweep's numbers, read them back as series, find steps.

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
of ``kernel-atlas.toml``). ``load_series`` turns the history into one series of points
per kernel; ``detect_steps`` finds the real changes in a series (math below);
``history_chart_data`` gives Plotly figures; ``regression_marks`` the kernels whose
latest step is a regression (for the overview).

Step detection (pure; ``detect_steps``)
---------------------------------------
Work in logs: ``y_i = ln g_i`` for each point with a geomean (points without one are
skipped), ``w_i = ln noise_i`` (0 when unknown; ``noise`` is the kernel's p90/p10
factor), ``f = ln(1 + min_change)``. A *segment* is a run of points on one level; its
level is ``m(S) = median y_j`` and its noise ``n(S) = median w_j`` over ``j in S``.
Point ``i`` fits segment ``S`` when

    |y_i - m(S)| <= T(S, i),   T(S, i) = max(f, n(S), w_i)

i.e. a change must beat both the measured noise and the relative threshold. Scan the
points in order, starting with one segment holding the first point:

1. the point fits the current segment: it joins it;
2. it does not fit, but the next point does: a *blip* that reverts, ignored;
3. neither fits (or it is the last point): a new segment starts at it.

Then adjacent segments whose levels differ by no more than ``max(f, n(S1), n(S2))``
are merged (leftmost pair first, until none is left). Each boundary left is a *step*
at the first point of the later segment, with ``ratio = exp(m(S2) - m(S1))``: a
regression when the ratio is below 1 (the geomean is the candidate's speedup). A step
whose later segment is the last point alone is *unconfirmed*: it may yet be a blip.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from generator.analyze.commits import same_commit, split_commits
from generator.analyze.message import sentence
from generator.read.att import read_json
from generator.errors import InputError
from generator.model import FORMAT_VERSION
from generator.sweeps import moves
from generator.sweeps.labels import undated_label  # noqa: F401  (build's default label of an undated sweep)
from generator.sweeps.snapshot import SweepSnapshot, check_format_version, load_snapshot, snapshot_from_json

DEFAULT_RETENTION = 20
#: Relative change a step must also beat (besides the noise).
DEFAULT_MIN_CHANGE = 0.05
MANIFEST = "history.json"
SWEEPS = "sweeps"
HISTORY_KIND = "kernel-atlas-history"
VERDICT_COLORS = {
    "WIN": "#1a7f37",
    "PARITY": "#6e7781",
    "HEADROOM": "#bc4c00",
    "BLOCKED": "#cf222e",
    "UNTIMED": "#8c959f",
}
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


# ---------------------------------------------------------------- the manifest


@dataclass
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


@dataclass
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


@dataclass
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


# ---------------------------------------------------------------- series


@dataclass
class HistoryPoint:
    """One kernel in one recorded sweep."""

    label: str
    commit: str | None  # the timed candidate commit(s), else the commit recorded with the sweep
    date: str | None
    geomean: float | None
    noise: float | None
    verdict: str | None
    name: str
    profiled_commit: str | None = None  # set only when the profile ran at another commit
    ci: tuple[float, float] | None = None  # the verdict ratio's interval, when the verdict engine gave one
    launch_overhead: tuple[float, int] | None = None  # (median µs, shapes) of the launch overhead, when given
    moved: dict[str, Any] | None = None  # who moved against the sweep before, and the facts (``moves``)

    @property
    def band(self) -> tuple[float, float] | None:
        """(geomean / noise, geomean * noise): the range the noise alone explains."""
        if self.geomean is None:
            return None
        n = self.noise if self.noise and self.noise > 1 else 1.0
        return self.geomean / n, self.geomean * n

    def to_json(self) -> dict[str, Any]:
        band = self.band
        return {"label": self.label, "commit": self.commit, "date": self.date, "geomean": self.geomean,
                "noise": self.noise, "low": band[0] if band else None, "high": band[1] if band else None,
                "verdict": self.verdict, "profiled_commit": self.profiled_commit,
                "ci": list(self.ci) if self.ci else None,
                "launch_overhead_us": list(self.launch_overhead) if self.launch_overhead else None,
                "moved": self.moved}


def pair_of(value: Any, kind: type = float) -> tuple | None:
    """``[a, b]`` of numbers as a tuple (``b`` of ``kind``), else None: a verdict engine's interval or
    ``[median_us, n]``, read whether or not the engine writes them."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return None
    return float(value[0]), kind(value[1])


def point_extras(extras: Mapping[str, Any]) -> dict[str, Any]:
    """HistoryPoint's ``ci`` and ``launch_overhead`` from a kernel's score extras (or an index row)."""
    return {"ci": pair_of(extras.get("verdict_ci")), "launch_overhead": pair_of(extras.get("launch_overhead_us"), int)}


def point_commits(timed: str | Sequence[str] | None, profiled: str | None,
                  fallback: str | None) -> tuple[str | None, str | None]:
    """(commit, profiled_commit) of a point: the timed candidate commit(s) (``fallback``, the
    sweep's recorded commit, when none is known) and the profiled one when it is none of them."""
    commits = split_commits(timed) if isinstance(timed, str) or timed is None else sorted(set(timed))
    commit = ", ".join(commits) if commits else fallback
    if not profiled or not commits or any(same_commit(profiled, c) for c in commits):
        return commit, None
    return commit, profiled


def load_snapshots(history_dir: str | os.PathLike) -> list[tuple[HistoryEntry, SweepSnapshot]]:
    """Every recorded sweep, oldest first."""
    hist = load_history(history_dir)
    out = []
    for e in hist.entries:
        path = os.path.join(os.fspath(history_dir), e.file)
        out.append((e, snapshot_from_json(read_json(path), path)))
    return out


def load_series(history_dir: str | os.PathLike) -> dict[str, list[HistoryPoint]]:
    """Per kernel slug, its points over the recorded sweeps (oldest first; absent sweeps skipped)."""
    series: dict[str, list[HistoryPoint]] = {}
    for entry, snap in load_snapshots(history_dir):
        profiled = (snap.provenance or {}).get("profiled_commit")
        for slug, k in snap.kernels.items():
            commit, prof = point_commits(k.candidate_commit, k.profiled_commit or profiled, entry.commit)
            series.setdefault(slug, []).append(HistoryPoint(
                label=entry.label, commit=commit, date=entry.date or snap.date,
                geomean=k.headline_value, noise=k.noise, verdict=k.verdict, name=k.name, profiled_commit=prof,
                moved=entry.moves.get(slug), **point_extras(k.extras)))
    return dict(sorted(series.items()))


def points_from_rows(rows: Sequence[Mapping[str, Any]], label: str, commit: str | None = None,
                     date: str | None = None) -> dict[str, HistoryPoint]:
    """The current sweep's point per kernel from ``api/index.json`` kernel rows (in memory).

    Reads ``slug``, ``name``, ``verdict_value`` (the ratio the verdict rests on; ``geomean_vs_best``
    for a row written before the evidence ladder), ``verdict``, ``timed_commits`` and
    ``profiled_commit`` and, when the row has it, ``noise`` (without it the noise band of
    this point is the point itself).
    """
    out = {}
    for r in rows:
        g, n = (r.get("verdict_value") if "verdict_basis" in r else r.get("geomean_vs_best")), r.get("noise")
        timed = r.get("timed_commits") if isinstance(r.get("timed_commits"), (list, tuple)) else None
        point_commit, prof = point_commits([str(c) for c in timed or []], r.get("profiled_commit"), commit)
        out[str(r["slug"])] = HistoryPoint(
            label=label, commit=point_commit, date=date,
            geomean=float(g) if isinstance(g, (int, float)) and not isinstance(g, bool) else None,
            noise=float(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None,
            verdict=r.get("verdict"), name=str(r.get("name") or r["slug"]), profiled_commit=prof,
            **point_extras(r))
    return dict(sorted(out.items()))


def with_current(series: Mapping[str, Sequence[HistoryPoint]],
                 current: Mapping[str, HistoryPoint], replaces: str | None = None) -> dict[str, list[HistoryPoint]]:
    """The recorded series with the current sweep's points appended (replacing the same label,
    and the points of the entry it ``replaces``).

    Lets a build draw the history, current sweep included, before it writes anything;
    ``record`` stores the current sweep once the site is published.
    """
    out = {slug: [p for p in pts if p.label != replaces and not (slug in current and p.label == current[slug].label)]
           for slug, pts in series.items()}
    for slug, point in current.items():
        out.setdefault(slug, []).append(point)
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- step detection


@dataclass
class Step:
    """A change of level in a series."""

    index: int  # position (in the input) of the first point on the new level
    before: float  # level before (geomean, median of its segment)
    after: float  # level after
    ratio: float  # after / before
    regression: bool  # ratio < 1
    confirmed: bool  # False when the new level rests on the last point alone

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "before": self.before, "after": self.after, "ratio": self.ratio,
                "regression": self.regression, "confirmed": self.confirmed}


@dataclass
class StepReport:
    """The steps of a series and the blips that were ignored."""

    steps: list[Step]
    blips: list[int]  # positions of points that left the level and came straight back


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def detect_steps(values: Sequence[float | None], noises: Sequence[float | None] | None = None,
                 min_change: float = DEFAULT_MIN_CHANGE) -> StepReport:
    """Find the steps of a geomean series (see the module docstring for the math)."""
    noises = list(noises) if noises is not None else [None] * len(values)
    if len(noises) != len(values):
        raise ValueError("values and noises differ in length")
    idx = [i for i, v in enumerate(values) if v is not None and v > 0]
    if not idx:
        return StepReport([], [])
    y = {i: math.log(values[i]) for i in idx}
    w = {i: math.log(noises[i]) if noises[i] and noises[i] > 1 else 0.0 for i in idx}
    floor = math.log(1.0 + min_change)

    def level(seg: list[int]) -> float:
        return _median([y[j] for j in seg])

    def noise(seg: list[int]) -> float:
        return _median([w[j] for j in seg])

    def fits(seg: list[int], i: int) -> bool:
        return abs(y[i] - level(seg)) <= max(floor, noise(seg), w[i])

    segments: list[list[int]] = []
    blips: list[int] = []
    current = [idx[0]]
    for pos in range(1, len(idx)):
        i = idx[pos]
        if fits(current, i):
            current.append(i)
            continue
        nxt = idx[pos + 1] if pos + 1 < len(idx) else None
        if nxt is not None and fits(current, nxt):
            blips.append(i)
            continue
        segments.append(current)
        current = [i]
    segments.append(current)
    merged = True
    while merged:
        merged = False
        for k in range(len(segments) - 1):
            a, b = segments[k], segments[k + 1]
            if abs(level(b) - level(a)) <= max(floor, noise(a), noise(b)):
                segments[k:k + 2] = [sorted(a + b)]
                merged = True
                break
    steps = []
    last = idx[-1]
    for a, b in zip(segments, segments[1:]):
        before, after = math.exp(level(a)), math.exp(level(b))
        ratio = math.exp(level(b) - level(a))
        steps.append(Step(index=b[0], before=before, after=after, ratio=ratio, regression=ratio < 1.0,
                          confirmed=not (len(b) == 1 and b[0] == last)))
    return StepReport(steps, sorted(blips))


def series_steps(points: Sequence[HistoryPoint], min_change: float = DEFAULT_MIN_CHANGE) -> StepReport:
    """``detect_steps`` over one kernel's history points."""
    return detect_steps([p.geomean for p in points], [p.noise for p in points], min_change)


#: Verdicts from best to worst; a move down into HEADROOM or BLOCKED is a regression.
VERDICT_RANK = {"WIN": 3, "PARITY": 2, "HEADROOM": 1, "BLOCKED": 0}
REGRESSED_VERDICTS = ("HEADROOM", "BLOCKED")


def verdict_transition(points: Sequence[HistoryPoint]) -> tuple[int, int] | None:
    """(i, j) when the latest verdict change is a move down into HEADROOM or BLOCKED, else None.

    Only ranked verdicts count (UNTIMED and missing ones are skipped); ``i`` is the last
    point on the old verdict, ``j`` the first on the new one. A BLOCKED kernel has no
    geomean, so this is the only way its regression is seen.
    """
    ranked = [i for i, p in enumerate(points) if p.verdict in VERDICT_RANK]
    for a, b in reversed(list(zip(ranked, ranked[1:]))):
        va, vb = points[a].verdict, points[b].verdict
        if va == vb:
            continue
        if vb in REGRESSED_VERDICTS and VERDICT_RANK[vb] < VERDICT_RANK[va]:
            return a, b
        return None
    return None


def regression_marks(series: Mapping[str, Sequence[HistoryPoint]],
                     min_change: float = DEFAULT_MIN_CHANGE) -> dict[str, dict[str, Any]]:
    """Kernels whose latest step is a regression: slug -> what to show on the overview.

    ``{"from": label, "to": label, "commit": ..., "before": 1.08, "after": 0.90,
    "ratio": 0.833, "confirmed": true, "verdict": "WIN → HEADROOM"}``; ``from`` is the last
    sweep on the old level. A regression is the latest geomean step when it goes down, or
    the latest verdict change when it goes down into HEADROOM or BLOCKED (``verdict`` is
    then set; for BLOCKED ``after`` and ``ratio`` are None: there is no geomean).
    """
    out = {}
    for slug, points in sorted(series.items()):
        report = series_steps(points, min_change)
        move = verdict_transition(points)
        verdict = f"{points[move[0]].verdict} → {points[move[1]].verdict}" if move else None
        if report.steps and report.steps[-1].regression:
            step = report.steps[-1]
            prev = max((i for i in range(step.index) if points[i].geomean is not None and i not in report.blips),
                       default=None)
            out[slug] = {
                "from": points[prev].label if prev is not None else None,
                "to": points[step.index].label,
                "commit": points[step.index].commit,
                "before": step.before,
                "after": step.after,
                "ratio": step.ratio,
                "confirmed": step.confirmed,
                "verdict": verdict if move and move[1] == step.index else None,
            }
        elif move:
            a, b = move
            before, after = points[a].geomean, points[b].geomean
            out[slug] = {
                "from": points[a].label,
                "to": points[b].label,
                "commit": points[b].commit,
                "before": before,
                "after": after,
                "ratio": after / before if before and after else None,
                "confirmed": any(p.verdict == points[b].verdict for p in points[b + 1:]),
                "verdict": verdict,
            }
    return out


# ---------------------------------------------------------------- charts and the api document


def _point_lines(p: HistoryPoint) -> list[str]:
    """Hover lines of one point: sweep, commit, date, geomean with its noise, verdict (worded lines
    are sentences, ``message.sentence``; the others data)."""
    head = p.label + (f" @ {p.commit}" if p.commit else "")
    lines = [sentence("msg.hist.profiled", head=head, commit=p.profiled_commit) if p.profiled_commit else head]
    if p.date:
        lines.append(p.date)
    if p.geomean is not None:
        g = f"{p.geomean:.3f}x"
        lines.append(sentence("msg.hist.noise", g=g, n=f"{(p.noise - 1) * 100:.1f}%") if p.noise and p.noise > 1
                     else sentence("msg.hist.geomean", g=g))
    if p.ci:
        lines.append(sentence("msg.hist.ci", lo=f"{p.ci[0]:.3f}x", hi=f"{p.ci[1]:.3f}x"))
    if p.launch_overhead:
        lines.append(sentence("msg.hist.launch", us=f"{p.launch_overhead[0]:.1f}", n=p.launch_overhead[1]))
    lines.append(p.verdict or sentence("msg.hist.noverdict"))
    return lines


def _step_lines(s: Any) -> list[str]:
    """The hover line of a regression step."""
    r = f"{(s.ratio - 1) * 100:+.1f}%"
    return [sentence("msg.hist.regression" if s.confirmed else "msg.hist.regression.unconfirmed", r=r)]


def history_chart_data(series: Mapping[str, Sequence[HistoryPoint]], min_change: float = DEFAULT_MIN_CHANGE,
                       thresholds: tuple[float, float] = (0.95, 1.05)) -> dict[str, dict[str, Any]]:
    """Per kernel slug a Plotly figure ``{"data": [...], "layout": {...}}`` (plain JSON values).

    A trace with hover ``text`` carries its lines in ``text_lines`` (worded lines are sentences, for the
    site to word in 中文; not part of the drawn figure). Traces: the noise band (two lines, the lower filled up to the upper), the geomean
    line with one marker per sweep coloured by its verdict and labelled with its sweep
    and commit, and triangles on regression steps. The x axis is categorical (sweep
    labels, oldest first); dashed lines mark the HEADROOM and WIN thresholds. Draw with
    ``Plotly.newPlot(div, fig.data, fig.layout, {displayModeBar: false})``.
    """
    figures = {}
    for slug, points in sorted(series.items()):
        pts = [p for p in points]
        if all(p.geomean is None for p in pts):
            continue  # no timings in any sweep: nothing to draw
        x = [p.label for p in pts]
        bands = [p.band for p in pts]
        report = series_steps(pts, min_change)
        regress = [s for s in report.steps if s.regression]
        data: list[dict[str, Any]] = [
            {"type": "scatter", "mode": "lines", "name": "noise band", "x": x,
             "y": [b[1] if b else None for b in bands], "line": {"width": 0}, "hoverinfo": "skip",
             "showlegend": False},
            {"type": "scatter", "mode": "lines", "name": "noise band", "x": x,
             "y": [b[0] if b else None for b in bands], "line": {"width": 0}, "fill": "tonexty",
             "fillcolor": "rgba(110,119,129,0.18)", "hoverinfo": "skip"},
            {"type": "scatter", "mode": "lines+markers", "name": "verdict ratio", "x": x,
             "y": [p.geomean for p in pts], "text": ["<br>".join(_point_lines(p)) for p in pts],
             "text_lines": [_point_lines(p) for p in pts],
             "hovertemplate": "%{text}<extra></extra>", "line": {"color": "#0969da"},
             "marker": {"size": 9, "color": [VERDICT_COLORS.get(p.verdict or "", "#8c959f") for p in pts]},
             "customdata": [[p.verdict, p.commit] for p in pts]},
        ]
        if any(p.ci and p.geomean is not None for p in pts):  # the verdict ratio's interval, where known
            data[2]["error_y"] = {"type": "data", "symmetric": False, "color": "#6e7781", "thickness": 1,
                                  "array": [p.ci[1] - p.geomean if p.ci and p.geomean is not None else None for p in pts],
                                  "arrayminus": [p.geomean - p.ci[0] if p.ci and p.geomean is not None else None
                                                 for p in pts]}
        if regress:
            data.append({"type": "scatter", "mode": "markers", "name": "regression",
                         "x": [x[s.index] for s in regress], "y": [pts[s.index].geomean for s in regress],
                         "text": ["<br>".join(_step_lines(s)) for s in regress],
                         "text_lines": [_step_lines(s) for s in regress],
                         "hovertemplate": "%{text}<extra></extra>",
                         "marker": {"symbol": "triangle-down", "size": 14, "color": VERDICT_COLORS["BLOCKED"]}})
        layout = {
            "title": {"text": f"{pts[-1].name if pts else slug}: verdict ratio over sweeps"},
            # issue 13: an explicit height and titles that fit it (automargin keeps them inside)
            "height": 320,
            "xaxis": {"type": "category", "title": {"text": "sweep"}, "automargin": True},
            "yaxis": {"title": {"text": "verdict ratio (x)"}, "automargin": True},
            "shapes": [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": t, "y1": t,
                        "line": {"dash": "dot", "width": 1, "color": "#6e7781"}} for t in thresholds],
            "showlegend": False,
            "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        }
        figures[slug] = {"data": data, "layout": layout}
    return figures


def history_document(series: Mapping[str, Sequence[HistoryPoint]],
                     min_change: float = DEFAULT_MIN_CHANGE) -> dict[str, Any]:
    """The ``api/history.json`` document: per kernel its points, steps and regression mark."""
    marks = regression_marks(series, min_change)
    kernels = {}
    for slug, points in sorted(series.items()):
        report = series_steps(points, min_change)
        kernels[slug] = {
            "points": [p.to_json() for p in points],
            "steps": [s.to_json() for s in report.steps],
            "blips": report.blips,
            "regression": marks.get(slug),
        }
    return {"format_version": FORMAT_VERSION, "kind": "kernel-atlas-history-series",
            "min_change": min_change, "kernels": kernels}
