"""Counter files of a bundle: find them and read each into ``CounterSample`` rows.

Which files of a bundle hold PMC counters (``find_counter_files``), and one reader for any of them
(``read_counter_file``): a rocpd SQLite database is read here, a CSV by ``generator.read.counters``
(rocprofv3's counter collection, rocprof-compute's ``pmc_perf.csv`` long and wide). The analysis of the
samples (DOMAIN §2 metrics) is ``generator.analyze.pmc``'s.

rocprofv3 ``*_counter_collection.csv``, long format, one row per counter per dispatch;
with more counters than fit one pass, rocprofv3 replays the application and writes one
file per pass (``pass_1/``, ``pass_2/``...)::

    "Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id",
    "Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size",
    "Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name",
    "Counter_Value","Start_Timestamp","End_Timestamp"
    1,1,"Agent 2",1,4242,4242,65536,7,"pa_decode_kernel_0",256,13312,0,144,136,96,"TCC_HIT",425000,1000,181000

A rocpd SQLite database (``rocprofv3 --output-format rocpd``): every table name carries
the run's UUID suffix (``rocpd_pmc_event_<uuid>``); views without the suffix may exist
too. Counter values join as::

    rocpd_pmc_event_<u>.event_id  = rocpd_kernel_dispatch_<u>.event_id
    rocpd_pmc_event_<u>.pmc_id    = rocpd_info_pmc_<u>.id            (counter name)
    rocpd_kernel_dispatch_<u>.kernel_id = rocpd_info_kernel_symbol_<u>.id (kernel name)

and the dispatch times are ``start``/``end`` columns (schema 3) or ``start_id``/``end_id``
into ``rocpd_timestamp_<u>`` (newer schema); both are read.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Iterable

from generator.errors import InputError
from generator.read import runfiles
from generator.read.counters import CounterSample, read_counter_csv

ROCPD_TABLES = ("rocpd_pmc_event", "rocpd_info_pmc", "rocpd_kernel_dispatch", "rocpd_info_kernel_symbol")


# ---------------------------------------------------------------- readers


def rocpd_table_sets(names: Iterable[str]) -> dict[str, dict[str, str]]:
    """Group rocpd table names by UUID suffix: {suffix: {base name: table name}}.

    ``rocpd_pmc_event_0a1b...`` -> suffix ``_0a1b...``; a bare ``rocpd_pmc_event`` (a view
    or an old file) has suffix "". Only the four tables this module reads are grouped
    (no base name is a prefix of another, so a prefix test is exact).
    """
    sets: dict[str, dict[str, str]] = {}
    for name in names:
        for base in ROCPD_TABLES:
            if name == base or name.startswith(base + "_"):
                sets.setdefault(name[len(base):], {})[base] = name
    return sets


def connect_readonly(path: str | os.PathLike) -> sqlite3.Connection:
    """Open a SQLite file read-only, never creating or modifying it."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro&immutable=1"
    try:
        return sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise InputError(path, f"cannot open SQLite database: {err}") from None


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in con.execute(f'PRAGMA table_info("{table}")')}


def _rocpd_tables(con: sqlite3.Connection, path: str | os.PathLike) -> tuple[list[str], dict[str, dict[str, str]]]:
    """All table/view names and the rocpd table sets of an open database."""
    try:
        rows = con.execute(
            "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
        ).fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:  # a corrupt schema's message is not UTF-8
        raise InputError(path, f"not a readable SQLite database ({err}); is the file truncated?") from None
    tables = [n for n, t in rows if t == "table"]
    sets = rocpd_table_sets(tables)
    if not sets:  # fall back on views (a merged or exported file)
        sets = rocpd_table_sets(n for n, _ in rows)
    return [n for n, _ in rows], sets


def read_rocpd_counters(path: str | os.PathLike) -> list[CounterSample]:
    """Samples of a rocpd SQLite database (joins in the module docstring)."""
    con = connect_readonly(path)
    try:
        names, sets = _rocpd_tables(con, path)
        complete = {s: t for s, t in sets.items() if all(b in t for b in ROCPD_TABLES)}
        if not complete:
            shown = ", ".join(names[:8]) + (" ..." if len(names) > 8 else "") if names else "none"
            raise InputError(
                path,
                "no rocpd counter tables (need rocpd_pmc_event_<uuid>, rocpd_info_pmc_<uuid>, "
                f"rocpd_kernel_dispatch_<uuid>, rocpd_info_kernel_symbol_<uuid>); tables: {shown}",
            )
        out: list[CounterSample] = []
        for suffix in sorted(complete):
            out.extend(_rocpd_samples(con, path, complete[suffix], sets.get(suffix, {})))
        return out
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:
        raise InputError(path, f"not a readable SQLite database ({err}); is the file truncated?") from None
    finally:
        con.close()


def _time_columns(con: sqlite3.Connection, t: dict[str, str], path: str | os.PathLike) -> tuple[str, str]:
    """SQL expressions and joins for dispatch start/end in either rocpd schema."""
    kd_cols = _columns(con, t["rocpd_kernel_dispatch"])
    if {"start", "end"} <= kd_cols:
        return 'kd."start", kd."end"', ""
    if {"start_id", "end_id"} <= kd_cols:
        ts = t["rocpd_kernel_dispatch"].replace("rocpd_kernel_dispatch", "rocpd_timestamp", 1)
        exists = con.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (ts,)).fetchone()
        if exists:
            join = (f' LEFT JOIN "{ts}" ts0 ON ts0.id = kd.start_id'
                    f' LEFT JOIN "{ts}" ts1 ON ts1.id = kd.end_id')
            return "ts0.value, ts1.value", join
    return "NULL, NULL", ""


def _rocpd_samples(con: sqlite3.Connection, path: str | os.PathLike, t: dict[str, str],
                   extra: dict[str, str]) -> list[CounterSample]:
    """Counter samples of one UUID table set."""
    times, join = _time_columns(con, t, path)
    sym_cols = _columns(con, t["rocpd_info_kernel_symbol"])
    kname = "COALESCE(ks.kernel_name, ks.display_name)" if "display_name" in sym_cols else "ks.kernel_name"
    sql = (
        f"SELECT kd.dispatch_id, {kname}, ip.name, pe.value, {times} "
        f'FROM "{t["rocpd_pmc_event"]}" pe '
        f'JOIN "{t["rocpd_kernel_dispatch"]}" kd ON kd.event_id = pe.event_id '
        f'JOIN "{t["rocpd_info_kernel_symbol"]}" ks ON ks.id = kd.kernel_id '
        f'JOIN "{t["rocpd_info_pmc"]}" ip ON ip.id = pe.pmc_id'
        f"{join} ORDER BY kd.dispatch_id, ip.name, pe.id"
    )
    out = []
    for dispatch, kernel, counter, value, start, end in con.execute(sql):
        if counter is None or value is None:
            continue
        try:
            sample = CounterSample(
                source=str(path),
                dispatch_id=int(dispatch),
                kernel=str(kernel or ""),
                counter=str(counter).strip(),
                value=float(value),
                start_ns=int(start) if start is not None else None,
                end_ns=int(end) if end is not None else None,
            )
        except (TypeError, ValueError, OverflowError):  # text or blobs where numbers belong
            cells = ", ".join(repr(c)[:40] for c in (dispatch, value, start, end))
            raise InputError(path, f"counter {str(counter)[:80]!r}: dispatch, value, start, end "
                             f"({cells}) are not all numbers") from None
        out.append(sample)
    return out


def rocpd_gpu_arch(path: str | os.PathLike) -> str | None:
    """The gfx/sm name of the first GPU agent in a rocpd database, if any."""
    con = connect_readonly(path)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for name in sorted(names):
            if name == "rocpd_info_agent" or name.startswith("rocpd_info_agent_"):
                cols = _columns(con, name)
                if not {"type", "name"} <= cols:
                    continue
                for (arch,) in con.execute(f'SELECT name FROM "{name}" WHERE type = \'GPU\' ORDER BY id'):
                    if arch and str(arch).startswith(("gfx", "sm_")):
                        return str(arch)
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return None
    finally:
        con.close()
    return None


def is_sqlite(path: str | os.PathLike) -> bool:
    """True when the file starts with the SQLite header."""
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def read_counter_file(path: str | os.PathLike) -> list[CounterSample]:
    """Samples of one file: a rocpd database (by header or ``.db``) or a CSV."""
    p = str(path)
    if not os.path.exists(p):
        raise InputError(p, "no such file")
    if p.endswith((".db", ".sqlite", ".sqlite3")) or is_sqlite(p):
        return read_rocpd_counters(p)
    return read_counter_csv(p)


# ---------------------------------------------------------------- discovery


def find_counter_files(bundle_dir: str | os.PathLike) -> list[str]:
    """Counter files of a bundle: everything under ``pmc/`` plus any
    ``*counter_collection.csv`` or ``*.db`` anywhere in it; sorted, absolute."""
    root = Path(bundle_dir)
    if root.is_file():
        return [str(root)]
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        in_pmc = "pmc" in Path(dirpath).relative_to(root).parts
        for fn in filenames:
            if fn.endswith(".db") and not _maybe_rocpd(os.path.join(dirpath, fn)):
                continue  # another tool's own database (rocprof v1's results.db): run statistics, no counters
            if fn.endswith("counter_collection.csv") or fn.endswith(".db") or fn == "pmc_perf.csv":
                found.add(os.path.join(dirpath, fn))
            elif in_pmc and fn.endswith(".csv") and not fn.endswith(("agent_info.csv", "kernel_trace.csv", "_stats.csv")):
                found.add(os.path.join(dirpath, fn))
    return sorted(found)


def _maybe_rocpd(path: str) -> bool:
    """False for a readable SQLite file with no rocpd table (an unreadable one is left to the reader)."""
    tables = runfiles.sqlite_tables(path)
    return tables is None or runfiles.is_rocpd(tables)
