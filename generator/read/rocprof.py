"""Readers for rocprofv3's CSV outputs (agent info, kernel trace).

Both are plain CSV with a quoted header row, e.g. ``discover_kernel_trace.csv``::

    "Kind","Agent_Id",...,"Kernel_Name",...,"VGPR_Count","Accum_VGPR_Count","SGPR_Count",...
    "KERNEL_DISPATCH","Agent 4",1,0,1610901,1,12,"softmax_kernel_0",...

Kernel names may be very long C++ signatures; nothing here shortens them.
"""

from __future__ import annotations

import csv
import os

from generator.errors import InputError
from generator.read.gcpause import gc_paused

csv.field_size_limit(1 << 26)


def read_csv_dicts(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a CSV with a header row into dicts, as ``csv.DictReader`` does; bad files raise InputError."""
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as fh, gc_paused():
            reader = csv.reader(fh)
            header = next(reader, None)
            if not header:
                raise InputError(path, "empty CSV (no header row)")
            n = len(header)
            return [dict(zip(header, row)) if len(row) == n else _ragged_row(header, row)
                    for row in reader if row]  # DictReader skips blank lines
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except csv.Error as err:
        raise InputError(path, f"not a valid CSV: {err}") from None


def _ragged_row(header: list[str], row: list[str]) -> dict:
    """A row longer or shorter than the header, as ``csv.DictReader`` keys it: extra cells
    as a list under None, missing cells as None."""
    out: dict = dict(zip(header, row))
    if len(row) > len(header):
        out[None] = row[len(header):]
    else:
        for key in header[len(row):]:
            out[key] = None
    return out


def to_int(value: object) -> int | None:
    """Parse an int cell ("", "n/a" and garbage give None)."""
    if value is None:
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        try:
            f = float(str(value).strip())
        except ValueError:
            return None
        return int(f) if f == f and f not in (float("inf"), float("-inf")) else None


def read_agent_info(path: str | os.PathLike) -> list[dict[str, str]]:
    """Rows of an ``*_agent_info.csv`` (CPUs and GPUs)."""
    return read_csv_dicts(path)


def gpu_agent(rows: list[dict[str, str]]) -> dict[str, str] | None:
    """The first GPU agent of an agent-info table, or None."""
    for row in rows:
        if (row.get("Agent_Type") or "").strip().upper() == "GPU":
            return row
    return None


def agent_arch(agent: dict[str, str]) -> str | None:
    """The gfx target of an agent row: its ``Name`` or ``Gfx_Target_Version`` (90500 -> gfx950)."""
    name = (agent.get("Name") or "").strip()
    if name.startswith("gfx"):
        return name
    ver = to_int(agent.get("Gfx_Target_Version"))
    if ver:
        major, minor, step = ver // 10000, (ver // 100) % 100, ver % 100
        return f"gfx{major}{minor:x}{step:x}"
    return None


#: The last few kernel traces read, by (path, size, mtime): the occupancy model, the advice
#: context and the run statistics of one bundle read the same file (treat rows as read-only).
_TRACES: dict[tuple[str, int, int], list[dict[str, str]]] = {}
_TRACES_KEPT = 4


def read_kernel_trace(path: str | os.PathLike) -> list[dict[str, str]]:
    """Rows of a kernel-trace CSV (one per dispatch); a file read moments ago is not parsed again."""
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key in _TRACES:
        return list(_TRACES[key])
    rows = read_csv_dicts(path)
    if rows and "Kernel_Name" not in rows[0]:
        raise InputError(path, "kernel trace has no Kernel_Name column")
    if key is not None:
        while len(_TRACES) >= _TRACES_KEPT:
            del _TRACES[next(iter(_TRACES))]
        _TRACES[key] = rows
    return list(rows)


def kernel_name_matches(row_name: str, wanted: str) -> bool:
    """True when a trace name is the wanted kernel (the JIT name may add ``_0``)."""
    row_name, wanted = row_name.strip(), wanted.strip()
    if not wanted:
        return False
    return row_name == wanted or row_name == f"{wanted}_0" or f"{row_name}_0" == wanted


def _names_matching(wanted: str) -> frozenset[str]:
    """Every stripped trace name that ``kernel_name_matches`` accepts for ``wanted``."""
    wanted = wanted.strip()
    if not wanted:
        return frozenset()
    names = {wanted, f"{wanted}_0"}
    if wanted.endswith("_0"):
        names.add(wanted[:-2])
    return frozenset(names)


def match_kernel(rows: list[dict[str, str]], wanted: str) -> list[dict[str, str]]:
    """Dispatch rows of the wanted kernel, in file order."""
    names = _names_matching(wanted)
    if not names:
        return []
    return [r for r in rows if (r.get("Kernel_Name") or "").strip() in names]
