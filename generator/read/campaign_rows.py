"""The rows of a campaign's files: each results row and each ledger line, typed and normalized.

The campaign folder, and which of its results files is read: ``generator.read.campaign``.

A results row (CSV shown; JSONL has the same fields, typed, plus error texts such as
``correctness_error``)::

    run_id,shape_id,model,stage,...,provider,...,correct,benchmark_status,median_us,...
    fa-1,sha1:9e88d4baea9ba36f,synthetic,synthetic,...,flydsl,...,True,ok,21.40,...

A ledger line::

    {"shape_id": "sha1:9e88d4baea9ba36f", "model": "synthetic", "stage": "synthetic",
     "dtype": "bf16", "args": {"batch": 1, "seq_len": 128}, "source": {"kind": "synthetic"},
     "weight": {"occurrences": 1, "traffic_weight": null, "baseline_time_weight": null}}

Every problem is an ``InputError`` naming the file and line: a missing column, a
non-numeric time, a results file that is neither CSV nor JSONL, a line that is not JSON.
Rows are kept exactly as found (placeholders and repeats included): choosing which row
of a (shape, provider) counts is a scoring rule (``generator.analyze.verdicts``).
"""

from __future__ import annotations

import csv
import json
import math
import operator
import os
import re
from typing import Any, Iterator

from generator.errors import InputError
from generator.model import record
from generator.read.jsonl import jsonl_file as _jsonl_file, open_text as _open_text, results_jsonl

LEDGER = "shape_ledger.jsonl"
#: A ledger line's ``source.notes`` naming it the shape a capture profiled ("shape used by the existing
#: rocprofv3/ATT capture"): a declaration the advice checks against the capture's bytes before trusting.
CAPTURE_NOTE = re.compile(r"\bused by the (?:existing )?\S*\s*capture\b", re.IGNORECASE)

#: Columns every results file must have (values may be empty).
REQUIRED_COLUMNS = ("shape_id", "provider", "benchmark_status", "correct", "median_us")
_NUMBERS = ("median_us", "p10_us", "p90_us", "std_us", "effective_gbps", "eager_median_us", "effective_tflops")
#: Scope flags of a row (VERDICTS rule 8).
SCOPE_FLAGS = ("includes_layout_conversion", "includes_jit", "includes_allocation")
_REASONS = ("skip_reason", "correctness_error", "graph_capture_error")
#: Provenance columns of the results -> the key they get in ``Campaign.provenance``.
PROVENANCE_COLUMNS = {
    "gpu": "gpu",
    "arch": "arch",
    "rocm_version": "rocm",
    "cuda_version": "cuda",
    "driver_version": "driver",
    "torch_version": "torch",
    "triton_version": "triton",
    "candidate_commit": "candidate_commit",
    "baseline_commit": "baseline_commit",
}
_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


@record(slots=True)
class ResultRow:
    """One (shape, provider) row of the results file, values normalized.

    ``index`` is the row's position in the file (0-based), ``line`` its line number.
    Empty cells / JSON nulls are None. ``reason`` joins the row's skip reason and
    error texts (None when it has none).
    """

    index: int
    line: int
    shape_id: str
    provider: str
    status: str
    correct: bool | None
    median_us: float | None
    p10_us: float | None = None
    p90_us: float | None = None
    std_us: float | None = None
    stable: bool | None = None
    timing_method: str | None = None
    cache_state: str | None = None
    reason: str | None = None
    correctness_error: str | None = None
    effective_gbps: float | None = None
    #: Scope flags (VERDICTS rule 8): what the timed region includes; None = unknown.
    includes_layout_conversion: bool | None = None
    includes_jit: bool | None = None
    includes_allocation: bool | None = None
    #: The eager (not graph-replayed) median of a row timed both ways (VERDICTS rule 10).
    eager_median_us: float | None = None
    #: Achieved compute throughput (VERDICTS rule 9's compute roof).
    effective_tflops: float | None = None
    dtype: str | None = None
    #: Why the row's graph capture failed (JSONL only): it fell back to ``eager_event`` (VERDICTS rule 10).
    graph_capture_error: str | None = None
    #: The provider's configuration as the harness words it (``kwargs={...}``, ``tile=...``): rule 15
    #: reads the candidate's, and DOMAIN §1.7 sets it against a capture's.
    provider_detail: str | None = None

    @property
    def usable(self) -> bool:
        """A real measurement: status ok, not failed verification (``correct`` true, or not
        checked), a positive median time (VERDICTS rule 1)."""
        return self.status == "ok" and self.correct is not False and (self.median_us or 0.0) > 0.0


@record(slots=True)
class LedgerShape:
    """One shape of the ledger."""

    shape_id: str
    line: int
    model: str  # several models joined by "|"
    stage: str
    dtype: str
    args: dict[str, Any]
    source_kind: str | None = None
    occurrences: float | None = None
    traffic_weight: float | None = None
    baseline_time_weight: float | None = None
    notes: str = ""
    capture_declared: bool = False  # source.notes says the existing capture profiled this shape

    @property
    def models(self) -> tuple[str, ...]:
        """The models this shape comes from (``a|b`` -> ("a", "b"))."""
        return tuple(m for m in self.model.split("|") if m) if self.model else ()

    def weight(self, keys: tuple[str, ...] = ("baseline_time_weight", "traffic_weight")) -> float | None:
        """The production weight: the first of ``keys`` that is set, else None."""
        for key in keys:
            value = getattr(self, key, None)
            if value is not None:
                return value
        return None


def read_results(path: str | os.PathLike) -> tuple[list[ResultRow], dict[str, dict[str, list[str]]]]:
    """Rows of a ``.jsonl`` or ``.csv`` results file, and its provenance values by provider."""
    path = os.fspath(path)
    problem = None
    if path.endswith(".jsonl"):
        records = results_jsonl(path)
        if records and isinstance(records[-1], InputError):
            records, problem = records[:-1], records[-1]
    elif path.endswith(".csv"):
        records = _csv_records(path)
    else:
        raise InputError(path, "unsupported results format: expected .jsonl or .csv")
    rows: list[ResultRow] = []
    columns = tuple(PROVENANCE_COLUMNS)
    combos: dict[tuple, None] = {}  # distinct (provider, provenance values), first-seen order
    for line, rec in records:
        row = _result_row(rec, len(rows), line, path)
        rows.append(row)
        combo = (row.provider, *map(rec.get, columns))
        try:
            combos[combo] = None
        except TypeError:  # unhashable: a list or an object, counted as its JSON text
            combos[(row.provider, *map(_scalar, combo[1:]))] = None
    if problem is not None:  # a bad line: the rows before it are checked first, as in a file read line by line
        raise problem
    seen: dict[str, dict[str, dict[str, None]]] = {}
    for provider, *values in combos:
        mine = seen.setdefault(provider, {})
        for column, value in zip(columns, values):
            if value not in (None, ""):
                mine.setdefault(PROVENANCE_COLUMNS[column], {})[str(value)] = None
    return rows, {p: {k: list(v) for k, v in keys.items()} for p, keys in seen.items()}


def _scalar(value: Any) -> Any:
    """A provenance cell as something hashable (a list or object becomes its JSON text)."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else json.dumps(value, default=str)


def _csv_records(path: str, required: tuple[str, ...] = REQUIRED_COLUMNS) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row dict) for each data row of a CSV file with a header holding ``required``."""
    with _open_text(path) as fh:
        try:
            reader = csv.reader(fh)
            header = next(reader, None)
            if header is None:
                raise InputError(path, "empty results file (no CSV header)", line=1)
            missing = [c for c in required if c not in header]
            if missing:
                raise InputError(path, f"not a results CSV: missing column {', '.join(repr(c) for c in missing)}",
                                 line=1)
            width = len(header)
            line = reader.line_num + 1
            for cells in reader:
                if cells:
                    if len(cells) != width:
                        raise InputError(path, f"row has {len(cells)} cells, the header has {width}", line=line)
                    yield line, dict(zip(header, cells))
                line = reader.line_num + 1
        except UnicodeDecodeError:
            raise InputError(path, "not UTF-8 text (not a CSV file)") from None
        except csv.Error as err:
            raise InputError(path, f"not a CSV file: {err}", line=reader.line_num) from None


#: The fields a typed JSON row is read from at once, in ``ResultRow`` order where they map one to
#: one (``reason`` joins the error texts; see ``_result_row``), and the types each may have there.
_PLAIN_FIELDS = ("shape_id", "provider", "benchmark_status", "correct", "median_us", "p10_us", "p90_us",
                 "std_us", "stable", "timing_method", "cache_state", "correctness_error", "effective_gbps",
                 *SCOPE_FLAGS, "skip_reason", "graph_capture_error", "eager_median_us", "effective_tflops",
                 "dtype")
_TEXT, _FLOAT, _BOOL, _OPT_TEXT = {str}, {float, type(None)}, {bool, type(None)}, {str, type(None)}
_PLAIN_TYPES = (_TEXT, _TEXT, _TEXT, _BOOL, _FLOAT, _FLOAT, _FLOAT, _FLOAT, _BOOL, _OPT_TEXT, _OPT_TEXT,
                _OPT_TEXT, _FLOAT, _BOOL, _BOOL, _BOOL, _OPT_TEXT, _OPT_TEXT, _FLOAT, _FLOAT, _OPT_TEXT)
_plain_values = operator.itemgetter(*_PLAIN_FIELDS)
#: Type signatures of rows seen -> whether they are plain (memo of ``_is_plain``).
_PLAIN_SIGNATURES: dict[tuple[type, ...], bool] = {}


def _result_row(rec: dict[str, Any], index: int, line: int, path: str) -> ResultRow:
    """Normalize one raw record (CSV strings or JSON values).

    A *plain* row (every field present with its final type: texts non-empty strings, numbers
    floats, flags booleans, or nulls where allowed; no NaN) is taken as it is: most JSONL rows
    are, and checking that costs a fraction of normalizing field by field. Any other row goes
    through ``_checked_row``, which gives the same values and raises the errors.
    """
    try:
        values = _plain_values(rec)
    except KeyError:
        return _checked_row(rec, index, line, path)
    signature = tuple(map(type, values))
    plain = _PLAIN_SIGNATURES.get(signature)
    if plain is None:
        plain = _PLAIN_SIGNATURES[signature] = all(t in ok for t, ok in zip(signature, _PLAIN_TYPES))
    if not plain or "" in values:
        return _checked_row(rec, index, line, path)
    (shape_id, provider, status, correct, median_us, p10_us, p90_us, std_us, stable, timing_method, cache_state,
     correctness_error, effective_gbps, layout, jit, allocation, skip_reason, capture_error, eager_us, tflops,
     dtype) = values
    if median_us != median_us or p10_us != p10_us or p90_us != p90_us or std_us != std_us \
            or effective_gbps != effective_gbps or eager_us != eager_us or tflops != tflops:  # NaN
        return _checked_row(rec, index, line, path)
    if skip_reason is None and correctness_error is None and capture_error is None:
        reason = None
    else:
        reason = "; ".join(t for t in (skip_reason, correctness_error, capture_error) if t)
    return ResultRow(index, line, shape_id, provider, status, correct, median_us, p10_us, p90_us, std_us, stable,
                     timing_method, cache_state, reason, correctness_error, effective_gbps, layout, jit, allocation,
                     eager_us, tflops, dtype, capture_error, _text(rec.get("provider_detail")))


def _checked_row(rec: dict[str, Any], index: int, line: int, path: str) -> ResultRow:
    """Normalize one raw record (CSV strings or JSON values), field by field."""
    for column in REQUIRED_COLUMNS:
        if column not in rec:
            raise InputError(path, f"missing field {column!r}", line=line)
    shape_id = _text(rec["shape_id"])
    provider = _text(rec["provider"])
    status = _text(rec["benchmark_status"])
    for column, value in (("shape_id", shape_id), ("provider", provider), ("benchmark_status", status)):
        if not value:
            raise InputError(path, f"empty {column}", line=line)
    numbers = {c: _number(rec.get(c), c, path, line) for c in _NUMBERS}
    reasons = [t for t in (_text(rec.get(c)) for c in _REASONS) if t]
    return ResultRow(
        index=index,
        line=line,
        shape_id=shape_id,
        provider=provider,
        status=status,
        correct=_bool(rec.get("correct"), "correct", path, line),
        stable=_bool(rec.get("stable"), "stable", path, line),
        timing_method=_text(rec.get("timing_method")),
        cache_state=_text(rec.get("cache_state")),
        reason="; ".join(reasons) if reasons else None,
        correctness_error=_text(rec.get("correctness_error")),
        dtype=_text(rec.get("dtype")),
        graph_capture_error=_text(rec.get("graph_capture_error")),
        provider_detail=_text(rec.get("provider_detail")),
        **{c: _bool(rec.get(c), c, path, line) for c in SCOPE_FLAGS},
        **numbers,
    )


def _text(value: Any) -> str | None:
    """A string cell; None for empty / null."""
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def _number(value: Any, column: str, path: str, line: int) -> float | None:
    """A numeric cell; None for empty / null / NaN; InputError when not a number."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InputError(path, f"{column} is not a number: {value!r}", line=line)
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond any float
        shown = repr(value)[:80] if isinstance(value, (str, int)) else f"a {type(value).__name__}"  # no deep repr
        raise InputError(path, f"{column} is not a number: {shown}", line=line) from None
    return None if math.isnan(number) else number


def _bool(value: Any, column: str, path: str, line: int) -> bool | None:
    """A boolean cell (True/False, true/false, 1/0); None for empty / null."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InputError(path, f"{column} is not True/False: {value!r}", line=line)


def read_ledger(path: str | os.PathLike) -> tuple[list[LedgerShape], list[str]]:
    """The shapes of a ledger in file order, and notes (a repeated shape_id keeps its first line)."""
    path = os.fspath(path)
    shapes: list[LedgerShape] = []
    seen: set[str] = set()
    notes: list[str] = []
    for line, rec in _jsonl_file(path):
        shape_id = _text(rec.get("shape_id"))
        if not shape_id:
            raise InputError(path, "missing shape_id", line=line)
        if shape_id in seen:
            notes.append(f"{LEDGER}:{line}: shape {shape_id} repeated; the first entry is used")
            continue
        seen.add(shape_id)
        shapes.append(_ledger_shape(rec, shape_id, line, path))
    return shapes, notes


def _ledger_shape(rec: dict[str, Any], shape_id: str, line: int, path: str) -> LedgerShape:
    """One ledger line as a LedgerShape."""
    args = rec.get("args")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise InputError(path, f"args must be an object, got {type(args).__name__}", line=line)
    weight = rec.get("weight") or {}
    source = rec.get("source") or {}
    if not isinstance(weight, dict):
        raise InputError(path, f"weight must be an object, got {type(weight).__name__}", line=line)
    return LedgerShape(
        shape_id=shape_id,
        line=line,
        model=_text(rec.get("model")) or "",
        stage=_text(rec.get("stage")) or "",
        dtype=_text(rec.get("dtype")) or "",
        args=args,
        source_kind=_text(source.get("kind")) if isinstance(source, dict) else None,
        occurrences=_number(weight.get("occurrences"), "weight.occurrences", path, line),
        traffic_weight=_number(weight.get("traffic_weight"), "weight.traffic_weight", path, line),
        baseline_time_weight=_number(weight.get("baseline_time_weight"), "weight.baseline_time_weight",
                                     path, line),
        notes=_text(rec.get("notes")) or "",
        capture_declared=bool(isinstance(source, dict) and CAPTURE_NOTE.search(_text(source.get("notes")) or "")),
    )
