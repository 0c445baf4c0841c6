"""Read a multi-shape timing campaign folder (``benchmarks/examples/<op>/``).

A campaign folder holds::

    benchmark_results.jsonl   one JSON object per (shape, provider) row, or
    benchmark_results.csv     the same rows as CSV (nulls are empty cells, booleans True/False)
    shape_ledger.jsonl        one JSON object per shape
    baseline_matrix.yaml      providers and notes (display only; optional)

When both results files exist, the JSONL one is read: on all 13 timed campaigns of the
shared MI350X sweep both hold the same rows in the same order with the same values, and
only the JSONL carries the failure texts (``correctness_error``, ``graph_capture_error``)
that explain a failed shape. A folder with a ledger but no results file is *untimed*:
it is read (``Campaign.timed`` is False) and has no rows.

Each results row and each ledger line is read by ``generator.read.campaign_rows``. A problem
of the folder is an ``InputError`` naming the file: no ledger, a results file that is neither
CSV nor JSONL, a ``baseline_matrix.yaml`` that is not YAML.
"""

from __future__ import annotations

import os
import re
from dataclasses import field
from typing import Any

from generator.errors import InputError
from generator.model import record
from generator.read.campaign_rows import LEDGER, PROVENANCE_COLUMNS, LedgerShape, ResultRow, read_ledger, read_results

RESULTS_JSONL = "benchmark_results.jsonl"
RESULTS_CSV = "benchmark_results.csv"
MATRIX = "baseline_matrix.yaml"
#: A results file of the second layout (``results_<suite>[.partial].jsonl|csv``, read/campaign_suite.py).
SUITE_RESULTS = re.compile(r"results_(?P<suite>[^/]+?)(?P<partial>\.partial)?\.(?P<ext>jsonl|csv)")


@record
class Campaign:
    """One campaign folder: its result rows (file order) and its ledger (file order).

    ``rel`` is the folder as shown in output (relative to the sweep root when read from
    a sweep, else the folder name). ``provenance`` maps provider -> key of
    ``PROVENANCE_COLUMNS`` -> the distinct non-empty values of that provider's rows, in
    first-seen order (see ``provenance_for``). ``matrix`` is the parsed
    ``baseline_matrix.yaml`` ({} when absent).
    """

    name: str
    path: str
    rel: str
    results_file: str | None
    rows: list[ResultRow]
    ledger: list[LedgerShape]
    matrix: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: The second layout (``read/campaign_suite.py``): the suite read, the others (name -> rows),
    #: a run still being written, and the folder's Markdown reports (paths).
    suite: str | None = None
    other_suites: dict[str, int] = field(default_factory=dict)
    partial: bool = False
    reports: list[str] = field(default_factory=list)
    #: The failures the second layout's run logs and reports record (``read/campaign_logs.py``).
    logged_failures: list[Any] = field(default_factory=list)

    @property
    def timed(self) -> bool:
        """True when the folder has a results file (False: a ledger-only campaign)."""
        return self.results_file is not None

    @property
    def providers(self) -> list[str]:
        """Providers in order of first appearance in the results file."""
        return list(dict.fromkeys(r.provider for r in self.rows))

    @property
    def reference_provider(self) -> str | None:
        """``reference_provider`` of baseline_matrix.yaml, if it names one."""
        ref = self.matrix.get("reference_provider")
        return ref if isinstance(ref, str) and ref else None

    def provenance_for(self, candidate: str) -> dict[str, str]:
        """Provenance of the campaign as display strings (several values joined by ", ").

        ``candidate_commit`` comes from the candidate's rows only and ``baseline_commit``
        from the other providers' rows: in real campaigns a baseline row's
        ``candidate_commit`` holds that baseline library's own commit.
        """
        merged: dict[str, dict[str, None]] = {}
        for provider, keys in self.provenance.items():
            for key, values in keys.items():
                if key == "candidate_commit" and provider != candidate:
                    continue
                if key == "baseline_commit" and provider == candidate:
                    continue
                merged.setdefault(key, {}).update(dict.fromkeys(values))
        order = list(PROVENANCE_COLUMNS.values())
        return {k: ", ".join(merged[k]) for k in order if k in merged}

    def baseline_commits(self, candidate: str) -> dict[str, str]:
        """Baseline provider -> its library commit(s), from its rows' commit columns."""
        out = {}
        for provider in sorted(self.provenance):
            if provider == candidate:
                continue
            keys = self.provenance[provider]
            values = dict.fromkeys(v for k in ("baseline_commit", "candidate_commit") for v in keys.get(k, []) if v)
            if values:
                out[provider] = ", ".join(values)
        return out

    def provider_notes(self) -> dict[str, str]:
        """Provider -> its note (or skip reason) from baseline_matrix.yaml."""
        providers = self.matrix.get("providers")
        if not isinstance(providers, dict):
            return {}
        out = {}
        for name, spec in providers.items():
            if isinstance(spec, dict):
                note = spec.get("notes") or spec.get("skip_reason")
                if note:
                    out[str(name)] = str(note).strip()
        return out

    def rows_by_shape(self) -> dict[str, dict[str, list[ResultRow]]]:
        """shape_id -> provider -> that pair's rows in file order."""
        out: dict[str, dict[str, list[ResultRow]]] = {}
        for row in self.rows:
            out.setdefault(row.shape_id, {}).setdefault(row.provider, []).append(row)
        return out

    def to_dataframe(self):
        """The result rows as a pandas DataFrame (pandas is imported only here)."""
        import pandas as pd

        return pd.DataFrame([{f: getattr(r, f) for f in ResultRow.__slots__} for r in self.rows])


# ---------------------------------------------------------------- discovery


def is_campaign_folder(path: str | os.PathLike) -> bool:
    """True when a folder holds a ledger or a results file."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        return False
    if os.path.isfile(os.path.join(path, LEDGER)) or _results_candidates(path) != []:
        return True
    try:
        return any(SUITE_RESULTS.fullmatch(n) for n in os.listdir(path))
    except OSError:
        return False


def find_campaign_folders(path: str | os.PathLike) -> dict[str, str]:
    """Campaign name -> folder for a sweep root, a folder of campaigns, or one campaign.

    A sweep root has ``benchmarks/examples/<op>/``; a folder of campaigns has
    ``<op>/`` children; a campaign folder is itself returned under its own name.
    Under ``benchmarks/examples/`` every subfolder is a campaign, a broken one included
    (``sweep_campaign_folders``, the rule ``build`` uses too); in another folder only the
    children that look like campaigns count.
    """
    path = os.path.normpath(os.fspath(path))
    if is_campaign_folder(path):
        return {os.path.basename(os.path.abspath(path)): path}
    if os.path.isdir(os.path.join(path, "benchmarks", "examples")):
        return sweep_campaign_folders(path)
    if is_examples_folder(path):
        return sweep_campaign_folders(os.path.dirname(os.path.dirname(os.path.abspath(path))))
    if not os.path.isdir(path):
        return {}
    return {n: os.path.join(path, n) for n in sorted(os.listdir(path))
            if is_campaign_folder(os.path.join(path, n))}


def is_examples_folder(path: str | os.PathLike) -> bool:
    """True for a sweep's ``benchmarks/examples`` folder."""
    path = os.path.abspath(os.fspath(path))
    return os.path.basename(path) == "examples" and os.path.basename(os.path.dirname(path)) == "benchmarks"


def sweep_campaign_folders(root: str | os.PathLike) -> dict[str, str]:
    """Every folder under ``<root>/benchmarks/examples/`` (op name -> folder): each one is a campaign."""
    base = os.path.join(os.fspath(root), "benchmarks", "examples")
    if not os.path.isdir(base):
        return {}
    return {n: os.path.join(base, n) for n in sorted(os.listdir(base))
            if os.path.isdir(os.path.join(base, n))}


# ---------------------------------------------------------------- reading


def one_spelling(ledger: list[LedgerShape]) -> None:
    """Model names that differ only in case are one model: each takes its first spelling in the
    ledger (``DeepSeek-V3`` then ``deepseek-v3``: both ``DeepSeek-V3``), in place."""
    first: dict[str, str] = {}
    for sh in ledger:
        names = [first.setdefault(m.casefold(), m) for m in sh.models]
        if names != list(sh.models):
            sh.model = "|".join(dict.fromkeys(names))


def read_campaign(folder: str | os.PathLike, name: str | None = None, rel: str | None = None,
                  results_path: str | None = None) -> Campaign:
    """Read one campaign folder (results, ledger, baseline matrix); ``results_path`` picks the results file."""
    folder = os.fspath(folder)
    name = name or os.path.basename(os.path.abspath(folder))
    if not os.path.isdir(folder):
        raise InputError(folder, "no such campaign folder")
    ledger_path = os.path.join(folder, LEDGER)
    results_path = results_path or results_file(folder)
    if not os.path.isfile(ledger_path):
        if results_path is None:
            raise InputError(folder, f"not a campaign folder: no {LEDGER} and no {RESULTS_JSONL} or {RESULTS_CSV}")
        raise InputError(ledger_path, "missing: the shape ledger is needed to score the results")
    ledger, notes = read_ledger(ledger_path)
    rows: list[ResultRow] = []
    provenance: dict[str, dict[str, list[str]]] = {}
    if results_path is not None:
        rows, provenance = read_results(results_path)
    matrix_path = os.path.join(folder, MATRIX)
    matrix = read_matrix(matrix_path) if os.path.isfile(matrix_path) else {}
    return Campaign(
        name=name,
        path=folder,
        rel=rel or name,
        results_file=os.path.basename(results_path) if results_path else None,
        rows=rows,
        ledger=ledger,
        matrix=matrix,
        provenance=provenance,
        notes=notes,
    )


def _results_candidates(folder: str) -> list[str]:
    """Names of files that look like a results file (``benchmark_results.*``)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(n for n in names if n.startswith("benchmark_results.")
                  and os.path.isfile(os.path.join(folder, n)))


def results_file(folder: str) -> str | None:
    """The results file to read: the JSONL when present, else the CSV, else None.

    A ``benchmark_results.<other>`` file alone (e.g. ``.parquet``) is an InputError.
    """
    for name in (RESULTS_JSONL, RESULTS_CSV):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    others = _results_candidates(folder)
    if others:
        raise InputError(os.path.join(folder, others[0]),
                         f"unsupported results format: expected {RESULTS_JSONL} or {RESULTS_CSV}")
    return None


def read_matrix(path: str | os.PathLike) -> dict[str, Any]:
    """Parse ``baseline_matrix.yaml`` (display only)."""
    import yaml

    path = os.fspath(path)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=loader)
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or "invalid YAML"
        raise InputError(path, f"invalid YAML: {problem}", line=mark.line + 1 if mark else None) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(path, f"expected a mapping at the top, got {type(data).__name__}")
    return data
