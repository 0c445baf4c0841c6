"""Campaign folders of either layout: the second layout's reader, the choice between two results
files that disagree, and the folder's Markdown reports.

The second layout is what a special harness writes (VERDICTS.md "Inputs")::

    results_full.jsonl            one JSON object per (shape, provider) row (or results_full.csv)
    metadata_full.json            gpu, arch, commits and timestamp of that run
    results_smoke.jsonl           another suite of the same op (listed, not read)
    results_config.partial.jsonl  a run still being written
    BENCHMARK_REPORT.md, REPORT_full.md   Markdown reports (rendered on the kernel page)

A row::

    {"label": "b1_s1024", "provider": "flydsl_t128", "B": 1, "S": 1024, "H": 16, "D": 128,
     "dtype": "bf16", "causal": true, "stage": "prefill", "status": "ok",
     "correctness": "pass", "us_median": 21.4, "us_p10": 21.1, "us_p90": 22.0, "tflops": 310.5,
     "err": null}

No ledger: a shape is a ``label``; its arguments are the *shape columns* of its first row, its
stage ``stage``. The shape-column rule (``is_shape_column``; docs/second-layout.md): every column
is a shape argument except the harness's result and diagnostic columns, which are

* the named ones, ``RESULT_COLUMNS`` (``label``, ``provider``, ``status``, ``correctness``,
  ``tflops``, ``config``, ...);
* a time: a name starting ``us_``, ``ms_`` or ``ns_``, or ending ``_us``, ``_ms``, ``_ns``;
* a name with a result word among its ``_``-separated words, ``RESULT_WORDS`` (``max_err``,
  ``mean_err``, ``min_cos``, ``expected_auto_path``, ``kernel_config``, ``atol``, ``speedup``...).

So ``B, S, H, Hkv, D, dtype, causal`` define a shape, and a harness's error norms, cosine
similarities, dispatch paths and tiling configurations (which differ between the providers of
one shape) do not. ``correctness`` pass / fail / not_checked reads as ``correct`` True / False / None.
The rows become the same ``Campaign`` the scoring reads, with one ``LedgerShape`` per label.
The suite read is the one with the most rows (ties: the latest metadata ``timestamp``, then
the name); the others are listed in the notes. ``results_<suite>.partial.*`` is read only when
its suite has no complete file, and flags the campaign ``partial``.

The dispatcher ``auto`` is FlyDSL's (``analyze/verdicts/variants.py``). Metadata::

    {"suite": "full", "timestamp": "2026-06-12T09:30:00Z", "gpu": "AMD Instinct MI350X",
     "arch": "gfx950", "rocm": "7.2.0", "commits": {"flydsl": "18c5a7ed", "aiter": "4f1e0a2"}}

or as another harness spells it: ``rocm_arch`` (the arch), ``timestamp_utc`` (the timestamp),
``<name>_head`` like ``<name>_commit`` (``flydsl_head``). ``commits`` (and ``<name>_commit`` /
``<name>_head`` keys) map a provider, or the start of providers' names (``flydsl`` for
``flydsl_t128``), to its commit: each provider's commit in ``Campaign.provenance``.

A run's own record of failures, in its logs and reports, is read by ``read/campaign_logs.py``.
"""

from __future__ import annotations

import csv
import datetime
import json
import os
from dataclasses import field
from typing import Any

from generator.errors import InputError
from generator.model import record
from generator.read import campaign as classic
from generator.read import campaign_logs
from generator.read import campaign_rows
from generator.read import jsonio
from generator.read.campaign import SUITE_RESULTS, Campaign
from generator.read.campaign_rows import LedgerShape, ResultRow
from generator.read.jsonl import forget_fields, results_jsonl

#: Columns of a second-layout row that are not shape arguments (see ``is_shape_column``).
RESULT_COLUMNS = frozenset({
    "label", "provider", "status", "correctness", "err", "error", "stage", "model", "tflops", "gbps",
    "suite", "timestamp", "timing_method", "max_abs", "max_rel", "atol", "rtol", "iters", "warmup",
    "repeats", "note", "notes", "config", "path", "backend", "kernel", "kernel_name", "speedup", "correct",
    "passed", "skip_reason", "reason", "traceback", "log",
})
#: Words that make a column a result or diagnostic one wherever they stand in its ``_``-separated name.
RESULT_WORDS = frozenset({
    "err", "error", "errors", "cos", "cosine", "path", "config", "cfg", "tflops", "gbps", "status",
    "correctness", "atol", "rtol", "abs", "rel", "diff", "speedup", "note", "notes", "time", "latency",
    "tol", "snr", "ulp",
})
_TIME_PREFIXES = ("us_", "ms_", "ns_")
_TIME_SUFFIXES = ("_us", "_ms", "_ns")
REQUIRED = ("label", "provider", "status")
#: FlyDSL's dispatcher, the provider users call (``analyze/verdicts/variants.py`` judges it).
DISPATCHER = "auto"
CORRECTNESS = {"pass": True, "fail": False, "not_checked": None}
#: Metadata keys -> the provenance key they give (``Campaign.provenance``).
METADATA_KEYS = {
    "gpu": "gpu", "gpu_name": "gpu", "arch": "arch", "rocm_arch": "arch", "gfx_arch": "arch", "rocm": "rocm",
    "rocm_version": "rocm", "cuda": "cuda",
    "cuda_version": "cuda", "driver": "driver", "driver_version": "driver", "torch": "torch",
    "torch_version": "torch", "triton": "triton", "triton_version": "triton",
}
#: Metadata keys of the run's time, the first present used.
TIMESTAMP_KEYS = ("timestamp", "timestamp_utc", "time_utc", "date")
#: Ends of metadata keys naming a provider's commit (``flydsl_commit``, ``flydsl_head``).
COMMIT_SUFFIXES = ("_commit", "_head", "_sha")
REPORTS = "BENCHMARK_REPORT.md"
#: Columns compared when a folder holds the same results as JSONL and CSV (classic, second layout).
CLASSIC_COMPARED = ("shape_id", "provider", "benchmark_status", "correct", "median_us", "p10_us", "p90_us")
SUITE_COMPARED = ("label", "provider", "status", "correctness", "us_median", "us_p10", "us_p90")


@record
class Suite:
    """One suite's files in a folder: complete results (ext -> path), partial ones, metadata."""

    name: str
    complete: dict[str, str] = field(default_factory=dict)
    partial: dict[str, str] = field(default_factory=dict)
    metadata: str | None = None

    @property
    def is_partial(self) -> bool:
        """True when only a run still being written is there."""
        return not self.complete


# ---------------------------------------------------------------- the folder


def find_suites(folder: str) -> dict[str, Suite]:
    """Suite name -> its files, for every ``results_<suite>[.partial].jsonl|csv`` in ``folder``."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    suites: dict[str, Suite] = {}
    for name in names:
        m = SUITE_RESULTS.fullmatch(name)
        if m is None or not os.path.isfile(os.path.join(folder, name)):
            continue
        suite = suites.setdefault(m["suite"], Suite(m["suite"]))
        (suite.partial if m["partial"] else suite.complete)[m["ext"]] = os.path.join(folder, name)
    for suite in suites.values():
        meta = os.path.join(folder, f"metadata_{suite.name}.json")
        suite.metadata = meta if os.path.isfile(meta) else None
    return suites


def is_suite_folder(folder: str) -> bool:
    """True for a campaign folder of the second layout (suite results, no classic files)."""
    return bool(find_suites(folder)) and not (os.path.isfile(os.path.join(folder, campaign_rows.LEDGER))
                                              or classic._results_candidates(folder))


def campaign_reports(folder: str) -> list[str]:
    """The folder's Markdown reports: ``BENCHMARK_REPORT.md``, then each ``REPORT_<suite>.md`` by name."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found = [n for n in names if n == REPORTS] + [n for n in names if n.startswith("REPORT_") and n.endswith(".md")]
    return [os.path.join(folder, n) for n in found if os.path.isfile(os.path.join(folder, n))]


#: Campaigns read by the build's plan for the sweep-wide numbers (``keep_campaign``), each taken by
#: the next read of the same folder, name and rel whose files have not changed since: the worker
#: that scores it (forked after the plan) parses nothing again. Issue 41: the sized benchmark sweep's
#: 25 campaigns were parsed twice, 0.2 s of CPU each time (``benchmarks/bench_sweep.py``).
_KEPT: dict[tuple[str, str | None, str | None], tuple[tuple, Campaign]] = {}


def _stamp(folder: str) -> tuple:
    """What a kept campaign's files look like now: each file's name, size and modification time."""
    try:
        with os.scandir(folder) as it:
            stats = [(e.name, e.stat()) for e in it if e.is_file()]
        return tuple(sorted((name, st.st_size, st.st_mtime_ns) for name, st in stats))
    except OSError:
        return ()


def keep_campaign(camp: Campaign, folder: str, name: str | None, rel: str | None) -> None:
    """Keep a campaign just read for the next ``read_campaign_folder(folder, name, rel)``."""
    _KEPT[(os.path.abspath(folder), name, rel)] = (_stamp(folder), camp)


def forget_campaigns() -> None:
    """Drop the kept campaigns and the results' fields kept with them (a build calls it when it ends)."""
    _KEPT.clear()
    forget_fields()


def read_campaign_folder(folder: str | os.PathLike, name: str | None = None, rel: str | None = None) -> Campaign:
    """Read a campaign folder of either layout (the classic one when it has a ledger or
    ``benchmark_results.*``); a results file read over another that disagrees says so in a note.
    A campaign kept for this very read (``keep_campaign``) is returned once instead."""
    folder = os.fspath(folder)
    kept = _KEPT.pop((os.path.abspath(folder), name, rel), None)
    if kept is not None and kept[0] == _stamp(folder):
        return kept[1]
    if not os.path.isdir(folder):
        raise InputError(folder, "no such campaign folder")
    suites = find_suites(folder)
    classic_files = os.path.isfile(os.path.join(folder, campaign_rows.LEDGER)) or classic._results_candidates(folder)
    if suites and not classic_files:
        camp = read_suite_campaign(folder, suites, name, rel)
    elif not classic_files:
        raise InputError(folder, f"not a campaign folder: no {campaign_rows.LEDGER}, {classic.RESULTS_JSONL} or .csv, "
                                 "or results_<suite>.jsonl or .csv")
    else:
        jsonl, csv_path = (os.path.join(folder, n) for n in (classic.RESULTS_JSONL, classic.RESULTS_CSV))
        chosen, note = None, None
        if os.path.isfile(jsonl) and os.path.isfile(csv_path):
            chosen, note = pick_results(jsonl, csv_path, CLASSIC_COMPARED)
        camp = classic.read_campaign(folder, name, rel, results_path=chosen)
        if note:
            camp.notes.insert(0, note)
    classic.one_spelling(camp.ledger)
    camp.reports = campaign_reports(folder)
    if camp.suite is not None:
        camp.logged_failures = campaign_logs.read_failures(folder, campaign_logs.log_files(folder) + camp.reports,
                                                           camp.providers, [s.shape_id for s in camp.ledger])
    return camp


def pick_results(jsonl: str, csv_path: str, columns: tuple[str, ...]) -> tuple[str, str | None]:
    """The results file to read when a folder holds both, and the line that says so (None when
    they hold the same rows: then the JSONL, which also carries the failure texts).

    They disagree when a row's ``columns`` (status, correctness, times) differ, or their row
    counts; then the newer file by modification time is read (at equal times the JSONL). The CSV's
    cells are compared with the JSONL's values as they are, without making rows of them (the JSONL's
    records are parsed once, for the reading too): on the shared sweep this costs 80 ms for all 13
    campaigns (65 ms of it parsing the CSVs), where reading each CSV as rows cost 300 ms. A CSV that
    cannot be read leaves the JSONL.
    """
    records = results_jsonl(jsonl)
    if records and isinstance(records[-1], InputError):
        return jsonl, None  # its own error is said when it is read
    names = os.path.basename(csv_path), os.path.basename(jsonl)
    try:
        where = _first_difference(csv_path, records, columns)
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        return jsonl, f"{names[0]} cannot be read ({err}): read {names[1]}"
    if where is None:
        return jsonl, None
    t_csv, t_jsonl = os.stat(csv_path).st_mtime_ns, os.stat(jsonl).st_mtime_ns
    chosen = csv_path if t_csv > t_jsonl else jsonl
    why = "the newer" if t_csv != t_jsonl else "same modification time"
    return chosen, f"{names[0]} and {names[1]} disagree ({where}): read {os.path.basename(chosen)}, {why}"


def _first_difference(csv_path: str, records: list, columns: tuple[str, ...]) -> str | None:
    """Where a CSV's rows first differ from JSONL records in ``columns`` (``row 12: median_us 40.0
    vs 10.0``), or None when they agree."""
    with open(csv_path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None) or []
        at = [header.index(c) if c in header else len(header) for c in columns]  # absent: an empty cell
        n = 0
        for cells in reader:
            if not cells:
                continue
            if n >= len(records):
                return f"the CSV has more rows than the {len(records)} of the JSONL"
            rec = records[n][1]
            n += 1
            for column, i in zip(columns, at):
                cell = cells[i] if i < len(cells) else ""
                value = rec.get(column)
                if cell != value and (type(value) is str or cell != str(value)) and not _same(cell, value):
                    return f"row {n}: {column} {_cell(cell)!r} vs {value!r}"
    return None if n == len(records) else f"{n} rows vs {len(records)}"


def _same(cell: str, value: Any) -> bool:
    """A CSV cell says the same as a JSON value (null: empty; booleans True / False; numbers by value)."""
    if value is None or value == "":
        return cell == ""
    if isinstance(value, bool):
        return cell.strip().lower() in (("true", "1", "yes") if value else ("false", "0", "no"))
    if isinstance(value, (int, float)):
        try:
            number = float(cell)
        except ValueError:
            return False
        return number == value or (number != number and value != value)
    return cell == (value if isinstance(value, str) else json.dumps(value))


# ---------------------------------------------------------------- the second layout


def read_suite_campaign(folder: str, suites: dict[str, Suite] | None = None, name: str | None = None,
                        rel: str | None = None) -> Campaign:
    """Read the suite with the most rows of a second-layout folder as a ``Campaign``."""
    suites = suites if suites is not None else find_suites(folder)
    name = name or os.path.basename(os.path.abspath(folder))
    meta = {s: read_metadata(x.metadata) if x.metadata else {} for s, x in suites.items()}
    counts = {s: count_rows(_main_file(x)) for s, x in suites.items()}
    pick = min(suites, key=lambda s: (-counts[s], -_timestamp(run_timestamp(meta[s])), s))
    suite = suites[pick]
    path = _main_file(suite)
    notes = []
    if not suite.is_partial and os.path.isfile(suite.complete.get("csv", "")) and "jsonl" in suite.complete:
        path, note = pick_results(suite.complete["jsonl"], suite.complete["csv"], SUITE_COMPARED)
        notes += [note] if note else []
    rows, ledger = read_suite_rows(path)
    others = {s: counts[s] for s in sorted(suites) if s != pick}
    notes.insert(0, _suite_note(pick, counts[pick], run_timestamp(meta[pick]), suite, others))
    return Campaign(name=name, path=folder, rel=rel or name, results_file=os.path.basename(path), rows=rows,
                    ledger=ledger, provenance=suite_provenance(meta[pick], rows), notes=notes,
                    suite=pick, other_suites=others, partial=suite.is_partial)


def _main_file(suite: Suite) -> str:
    """The file a suite is read from: complete JSONL, complete CSV, partial JSONL, partial CSV."""
    files = suite.complete or suite.partial
    return files.get("jsonl") or files["csv"]


def _suite_note(pick: str, n: int, stamp: Any, suite: Suite, others: dict[str, int]) -> str:
    """One line: which suite was read, whether it is partial, which others there are."""
    when = f", {stamp}" if isinstance(stamp, (str, int, float)) and stamp != "" else ""
    text = f"suite {pick} read ({n} rows{when})"
    if suite.is_partial:
        text += f"; partial: {os.path.basename(_main_file(suite))} is a run still being written"
    if others:
        text += "; also present: " + ", ".join(f"{s} ({k} rows)" for s, k in others.items())
    if suite.metadata is None:
        text += f"; no metadata_{pick}.json (no provenance)"
    return text


def count_rows(path: str) -> int:
    """Rows of a results file without reading them: non-blank lines (JSONL), records (CSV)."""
    try:
        if path.endswith(".jsonl"):
            with open(path, "rb") as fh:
                return sum(1 for line in fh if line.strip())
        with open(path, encoding="utf-8", errors="replace", newline="") as fh:
            return max(0, sum(1 for cells in csv.reader(fh) if cells) - 1)
    except (OSError, csv.Error):
        return 0


def run_timestamp(meta: dict[str, Any]) -> Any:
    """The run's time from its metadata (``timestamp``, else ``timestamp_utc``...); None when absent."""
    return next((meta[k] for k in TIMESTAMP_KEYS if meta.get(k) not in (None, "")), None)


def _timestamp(value: Any) -> float:
    """A metadata timestamp as seconds (ISO 8601 text or a number); -inf when absent or unreadable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value:
        try:
            stamp = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return float("-inf")
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=datetime.timezone.utc)
        return stamp.timestamp()
    return float("-inf")


def read_metadata(path: str) -> dict[str, Any]:
    """``metadata_<suite>.json`` as a dict (an InputError naming it when it is not a JSON object)."""
    try:
        with open(path, "rb") as fh:
            data = jsonio.loads(fh.read())
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except (ValueError, RecursionError) as err:
        raise InputError(path, f"not JSON: {str(err)[:120]}") from None
    if not isinstance(data, dict):
        raise InputError(path, f"expected a JSON object, got {type(data).__name__}")
    return data


def suite_provenance(meta: dict[str, Any], rows: list[ResultRow]) -> dict[str, dict[str, list[str]]]:
    """Provider -> provenance key -> values, from the metadata: the run's environment for every
    provider, and each provider's commit (``candidate_commit`` and ``baseline_commit``); the
    dispatcher ``auto`` without a commit of its own has FlyDSL's (``flydsl_head``)."""
    env = {key: [campaign_rows._text(meta[k])] for k, key in METADATA_KEYS.items()
           if isinstance(meta.get(k), (str, int, float)) and not isinstance(meta.get(k), bool) and meta[k] != ""}
    commits = {k[:k.rindex("_")]: v for k, v in meta.items()
               if k.endswith(COMMIT_SUFFIXES) and k.rindex("_") > 0 and isinstance(v, str) and v}
    if isinstance(meta.get("commits"), dict):
        commits.update({str(k): v for k, v in meta["commits"].items() if isinstance(v, str) and v})
    out = {}
    for provider in dict.fromkeys(r.provider for r in rows):
        mine = dict(env)
        owner = max((c for c in commits if provider.startswith(c)), key=len, default=None)
        if owner is None and provider == DISPATCHER and "flydsl" in commits:
            owner = "flydsl"  # the dispatcher is FlyDSL's: its commit is FlyDSL's
        if owner is not None:
            mine["candidate_commit"] = mine["baseline_commit"] = [commits[owner]]
        out[provider] = mine
    return out


def read_suite_rows(path: str) -> tuple[list[ResultRow], list[LedgerShape]]:
    """The rows of a second-layout results file and one ``LedgerShape`` per label (first-seen order)."""
    if path.endswith(".jsonl"):
        records = results_jsonl(path)
        problem = records[-1] if records and isinstance(records[-1], InputError) else None
        if problem is not None:
            records = records[:-1]
        typed = True
    else:
        records, problem, typed = campaign_rows._csv_records(path, REQUIRED), None, False
    rows: list[ResultRow] = []
    shapes: dict[str, LedgerShape] = {}
    for line, rec in records:
        row = suite_row(rec, len(rows), line, path)
        rows.append(row)
        if row.shape_id not in shapes:
            shapes[row.shape_id] = _shape(rec, row.shape_id, line, typed, path)
    if problem is not None:
        raise problem
    return rows, list(shapes.values())


#: A plain row's ``correctness`` -> ``correct`` (``_plain_row``).
_PLAIN_CORRECT = {"pass": True, "fail": False, "not_checked": None, None: None}
_NUMBER_TYPES = (float, type(None))
_TEXT_TYPES = (str, type(None))


def _plain_row(rec: dict[str, Any], index: int, line: int) -> ResultRow | None:
    """The row of a *plain* JSON record (texts non-empty strings, times floats or null, no NaN,
    ``correctness`` one of its words), read at once; None for any other record.

    ``bench_campaign_suite.py``: a campaign of 10,000 rows read in 84 ms field by field, 30 to
    60 ms with this, 0.5 to 0.9 of the classic layout's reader on the same rows in the same run
    (1.55 without it), so the second layout costs no more per row than the first.
    """
    get = rec.get
    label, provider, status, corr = get("label"), get("provider"), get("status"), get("correctness")
    med, p10, p90, std, gbps, tflops = (get("us_median"), get("us_p10"), get("us_p90"), get("us_std"), get("gbps"),
                                        get("tflops"))
    err, method, dtype = get("err") or get("error"), get("timing_method"), get("dtype")
    if not (type(label) is str and label and type(provider) is str and provider and type(status) is str and status
            and type(med) in _NUMBER_TYPES and type(p10) in _NUMBER_TYPES and type(p90) in _NUMBER_TYPES
            and type(std) in _NUMBER_TYPES and type(gbps) in _NUMBER_TYPES and type(tflops) in _NUMBER_TYPES
            and type(err) in _TEXT_TYPES and type(method) in _TEXT_TYPES and type(dtype) in _TEXT_TYPES
            and med == med and p10 == p10 and p90 == p90 and std == std and gbps == gbps and tflops == tflops
            and err != "" and method != "" and dtype != "" and (type(corr) is str or corr is None)
            and corr in _PLAIN_CORRECT):
        return None
    correct = _PLAIN_CORRECT[corr]
    return ResultRow(index, line, label, provider, status, correct, med, p10, p90, std, None, method, None, err,
                     err if correct is False else None, gbps, None, None, None, None, tflops, dtype, None,
                     campaign_rows._text(get("provider_detail")))


def suite_row(rec: dict[str, Any], index: int, line: int, path: str) -> ResultRow:
    """One second-layout record (JSON values or CSV strings) as a ``ResultRow``."""
    plain = _plain_row(rec, index, line) if type(rec.get("us_median")) is not str else None
    return plain if plain is not None else checked_suite_row(rec, index, line, path)


def checked_suite_row(rec: dict[str, Any], index: int, line: int, path: str) -> ResultRow:
    """``suite_row`` field by field: the same values for a plain row, and the errors for a bad one."""
    label, provider, status = (_text(rec.get(c), c, path, line) for c in REQUIRED)
    for column, value in zip(REQUIRED, (label, provider, status)):
        if not value:
            raise InputError(path, f"missing {column}", line=line)
    correct = _correctness(rec.get("correctness"), path, line)
    err = _text(rec.get("err"), "err", path, line) or _text(rec.get("error"), "error", path, line)
    number = campaign_rows._number
    return ResultRow(
        index=index, line=line, shape_id=label, provider=provider, status=status, correct=correct,
        median_us=number(rec.get("us_median"), "us_median", path, line),
        p10_us=number(rec.get("us_p10"), "us_p10", path, line),
        p90_us=number(rec.get("us_p90"), "us_p90", path, line),
        std_us=number(rec.get("us_std"), "us_std", path, line),
        timing_method=_text(rec.get("timing_method"), "timing_method", path, line),
        reason=err, correctness_error=err if correct is False else None,
        effective_gbps=number(rec.get("gbps"), "gbps", path, line),
        effective_tflops=number(rec.get("tflops"), "tflops", path, line),
        dtype=_text(rec.get("dtype"), "dtype", path, line),
        provider_detail=campaign_rows._text(rec.get("provider_detail")),
    )


def _text(value: Any, column: str, path: str, line: int) -> str | None:
    """A text field (a number reads as its text); None when empty; an InputError for a list or object."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    raise InputError(path, f"{column} must be text, got {type(value).__name__}", line=line)


def _arg(value: Any, column: str, path: str, line: int) -> Any:
    """A shape column's value: a scalar, or a flat list of scalars (an InputError for anything deeper)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list) and all(v is None or isinstance(v, (str, int, float, bool)) for v in value):
        return value
    raise InputError(path, f"shape column {column!r} holds a nested {type(value).__name__}", line=line)


def _correctness(value: Any, path: str, line: int) -> bool | None:
    """pass / fail / not_checked (or empty) as True / False / None; booleans as they are."""
    if value is None or value == "" or isinstance(value, bool):
        return value if isinstance(value, bool) else None
    if isinstance(value, str) and value.strip().lower() in CORRECTNESS:
        return CORRECTNESS[value.strip().lower()]
    shown = repr(value[:80]) if isinstance(value, str) else f"a {type(value).__name__}"
    raise InputError(path, f"correctness is not pass, fail or not_checked: {shown}", line=line)


def is_shape_column(name: str) -> bool:
    """True for a column that defines a shape (the rule in the module docstring): not a named
    result column, not a time, no result word in its name."""
    low = name.lower()
    if low in RESULT_COLUMNS or low.startswith(_TIME_PREFIXES) or low.endswith(_TIME_SUFFIXES):
        return False
    return not any(word in RESULT_WORDS for word in low.split("_"))


def _shape(rec: dict[str, Any], label: str, line: int, typed: bool, path: str) -> LedgerShape:
    """The ledger entry of a label: its shape columns as arguments (CSV cells typed as JSON would be)."""
    args = {k: (_arg(v, k, path, line) if typed else _cell(v)) for k, v in rec.items() if is_shape_column(k)}
    return LedgerShape(shape_id=label, line=line, model=_text(rec.get("model"), "model", path, line) or "",
                       stage=_text(rec.get("stage"), "stage", path, line) or "",
                       dtype=_text(rec.get("dtype"), "dtype", path, line) or "", args=args)


def _cell(text: str) -> Any:
    """A CSV cell as the JSON value it stands for: an int, a float, true / false, null, else text."""
    if text == "":
        return None
    if text in ("True", "true", "False", "false"):
        return text in ("True", "true")
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
