"""The FlyDSL CI benchmark stream (DOMAIN.md §6): ``history.json`` (schema 1) and ``runs.json``.

A record is one kernel configuration measured by one CI job (``runner``, ``op``, ``shape``,
``dtype``, ``metric``, ``value``, the run it belongs to, its ``status``, and the paired
baselines ``vs_main`` / ``vs_tag``). The file is read whole; a record without its keys is
skipped with a warning naming it (``records[12]: no 'runner'``), the rest still read.
Another schema, a truncated file or a file that is not the stream stops with an InputError.
"""

from __future__ import annotations

import math
import os

from generator.errors import InputError
from generator.model import record
from generator.read import jsonio

SCHEMA = 1
#: The keys a record cannot do without (the series, the run, the status).
REQUIRED = ("runner", "op", "shape", "dtype", "metric", "run_id", "status")


@record(frozen=True, slots=True)
class Pair:
    """A paired baseline: ``vs_main`` (label ``main`` or ``main~1``) or ``vs_tag`` (label = the tag)."""

    label: str
    baseline: float | None
    ratio: float | None


@record(frozen=True, slots=True)
class CiRecord:
    """One record of the stream, as the file holds it (numbers not cleaned, warts kept)."""

    index: int  # position in ``records``
    runner: str
    arch: str
    op: str
    shape: str
    dtype: str
    metric: str
    status: str
    value: float | None
    run_id: int
    ts: str
    commit: str
    pr: int | None  # null or absent: a push (or, see runs.json, a pull request)
    regression: bool  # their own flag: vs_main.delta_pct <= -3
    vs_main: Pair | None
    vs_tag: Pair | None
    flydsl_us: float | None
    aiter_us: float | None

    @property
    def series(self) -> tuple[str, str, str, str, str]:
        """(runner, op, shape, dtype, metric): never pooled across runners."""
        return (self.runner, self.op, self.shape, self.dtype, self.metric)

    @property
    def order(self) -> tuple[int, str]:
        """Latest first when sorted descending: the largest run id, then the latest time."""
        return (self.run_id, self.ts)


@record
class Stream:
    """The records of one history file, with the warnings of the records skipped."""

    path: str
    updated: str
    repo: str
    records: list[CiRecord]
    warnings: list[str]


@record(frozen=True)
class Run:
    """One run of ``runs.json``: its event (``push``, ``pull_request``), status and job runners."""

    run_id: int
    event: str
    pr: int | None
    status: str
    conclusion: str | None
    url: str
    jobs: tuple[tuple[str, str], ...]  # (runner, state): the job's conclusion when completed, else its status

    @property
    def runners(self) -> tuple[str, ...]:
        return tuple(r for r, _ in self.jobs)


def _num(v: object) -> float | None:
    """A finite JSON number as float (booleans, NaN, Infinity and anything else: None)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            f = float(v)
        except OverflowError:  # an integer beyond a float
            return None
        return f if math.isfinite(f) else None
    return None


def _pair(raw: object, label_key: str) -> Pair | None:
    if not isinstance(raw, dict):
        return None
    return Pair(str(raw.get(label_key) or ""), _num(raw.get("baseline")), _num(raw.get("ratio")))


def _record(i: int, raw: object) -> CiRecord | str:
    """The record at ``records[i]``, or the reason it cannot be read."""
    if not isinstance(raw, dict):
        return f"records[{i}]: not an object"
    missing = [k for k in REQUIRED if k not in raw or raw[k] is None]
    if missing:
        return f"records[{i}]: no {', '.join(repr(k) for k in missing)}"
    run_id = raw["run_id"]
    if not isinstance(run_id, int) or isinstance(run_id, bool):
        return f"records[{i}]: run_id {run_id!r} is not an integer"
    pr = raw.get("pr")
    extra = raw.get("extra") if isinstance(raw.get("extra"), dict) else {}
    return CiRecord(
        index=i, runner=str(raw["runner"]), arch=str(raw.get("arch") or ""), op=str(raw["op"]),
        shape=str(raw["shape"]), dtype=str(raw["dtype"]), metric=str(raw["metric"]), status=str(raw["status"]),
        value=_num(raw.get("value")), run_id=run_id, ts=str(raw.get("ts") or ""), commit=str(raw.get("commit") or ""),
        pr=pr if isinstance(pr, int) and not isinstance(pr, bool) else None,
        regression=raw.get("regression") is True,
        vs_main=_pair(raw.get("vs_main"), "label"), vs_tag=_pair(raw.get("vs_tag"), "tag"),
        flydsl_us=_num(extra.get("flydsl_us")), aiter_us=_num(extra.get("aiter_us")))


def _load(path: str | os.PathLike, what: str) -> dict:
    """The top object of a stream file, its schema checked."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    try:
        doc = jsonio.loads(data)
    except ValueError as err:
        why = "truncated" if not data.rstrip().endswith((b"}", b"]")) else "not valid JSON"
        first = (str(err).splitlines() or [""])[0]
        raise InputError(path, f"{why} ({err.__class__.__name__}: {first})") from None
    except RecursionError:
        raise InputError(path, "not valid JSON (nested too deeply)") from None
    if not isinstance(doc, dict) or what not in doc:
        raise InputError(path, f"not a FlyDSL CI {'history' if what == 'records' else 'runs'} file (no {what!r} list)")
    if doc.get("schema") != SCHEMA:
        raise InputError(path, f"schema {doc.get('schema')!r}; only schema {SCHEMA} is read")
    if not isinstance(doc[what], list):
        raise InputError(path, f"{what!r} is not a list")
    return doc


def read_history(path: str | os.PathLike) -> Stream:
    """Read ``history.json``; bad records become warnings, a bad file an InputError."""
    doc = _load(path, "records")
    records, warnings = [], []
    for i, raw in enumerate(doc["records"]):
        rec = _record(i, raw)
        if isinstance(rec, str):
            warnings.append(f"{path}: {rec}; skipped")
        else:
            records.append(rec)
    return Stream(str(path), str(doc.get("updated") or ""), str(doc.get("repo") or ""), records, warnings)


def read_runs(path: str | os.PathLike) -> dict[int, Run]:
    """Read ``runs.json``: run id -> Run (a run without an integer id is left out)."""
    doc = _load(path, "runs")
    out = {}
    for raw in doc["runs"]:
        if not isinstance(raw, dict) or not isinstance(raw.get("run_id"), int):
            continue
        jobs = raw.get("jobs") if isinstance(raw.get("jobs"), list) else []
        pr = raw.get("pr")
        out[raw["run_id"]] = Run(
            raw["run_id"], str(raw.get("event") or ""), pr if isinstance(pr, int) else None,
            str(raw.get("status") or ""), raw.get("conclusion"), str(raw.get("url") or ""),
            tuple(sorted({(str(j["runner"]), str(j.get("conclusion") or j.get("status") or "unknown"))
                          for j in jobs if isinstance(j, dict) and j.get("runner")})))
    return out
