"""Readers for rocprofv3's CSV outputs (agent info, kernel trace).

Both are plain CSV with a quoted header row, e.g. ``discover_kernel_trace.csv``::

    "Kind","Agent_Id",...,"Kernel_Name",...,"VGPR_Count","Accum_VGPR_Count","SGPR_Count",...
    "KERNEL_DISPATCH","Agent 4",1,0,1610901,1,12,"softmax_kernel_0",...

Kernel names may be very long C++ signatures; nothing here shortens them.
"""

from __future__ import annotations

import csv
import io
import operator
import os
import re

from generator.errors import InputError

csv.field_size_limit(1 << 26)


def read_csv_rows(path: str | os.PathLike) -> tuple[list[str], list[list[str]]]:
    """The header and the non-blank rows of a CSV, as ``csv.reader`` gives them; bad files raise InputError."""
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as fh:
            return _header_and_rows(path, csv.reader(fh))
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except csv.Error as err:
        raise InputError(path, f"not a valid CSV: {err}") from None


def _header_and_rows(path: str | os.PathLike, reader) -> tuple[list[str], list[list[str]]]:
    """The first record of a ``csv.reader`` and its other non-blank records (DictReader skips blank lines)."""
    header = next(reader, None)
    if not header:
        raise InputError(path, "empty CSV (no header row)")
    return header, [row for row in reader if row]


def row_dicts(header: list[str], rows: list[list[str]]) -> list[dict]:
    """Rows keyed by the header, as ``csv.DictReader`` keys them."""
    n = len(header)
    return [dict(zip(header, row)) if len(row) == n else _ragged_row(header, row) for row in rows]


def read_csv_dicts(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a CSV with a header row into dicts, as ``csv.DictReader`` does; bad files raise InputError."""
    header, rows = read_csv_rows(path)
    return row_dicts(header, rows)


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


class KernelTrace:
    """One kernel-trace CSV, read once; its rows become dicts only when asked for: all of them
    (``dicts``) or one kernel's (``dispatches``).

    A trace holds thousands of dispatches of long C++ names, and a build wants the rows of one
    kernel. When every record of the file is one line whose quoted fields hold no quote
    (rocprofv3 writes them so), only the lines holding the kernel's name go through the CSV
    parser; any other file is parsed whole, as ``read_csv_dicts`` parses it.
    """

    def __init__(self, path: str | os.PathLike, text: str):
        self.path = path
        self._lines = text.split("\n") if _one_line_records(text) else None
        self._parsed = None if self._lines else _header_and_rows(path, csv.reader(io.StringIO(text, newline="")))
        self.header = next(csv.reader(self._lines[:1]), None) if self._lines else self._parsed[0]
        if not self.header:
            raise InputError(path, "empty CSV (no header row)")
        self._name_at = self.header.index("Kernel_Name") if "Kernel_Name" in self.header else None
        has_rows = any(self._lines[1:]) if self._lines else bool(self._parsed[1])
        if has_rows and self._name_at is None:
            raise InputError(path, "kernel trace has no Kernel_Name column")
        self._kernels: dict[str, list[dict[str, str]]] = {}

    def _rows(self) -> list[list[str]]:
        """Every row, as ``csv.reader`` gives it (parsed on the first call)."""
        if self._parsed is None:
            self._parsed = _header_and_rows(self.path, csv.reader(self._lines))
        return self._parsed[1]

    def dicts(self) -> list[dict[str, str]]:
        """Every row as a dict (a new list each call; the dicts are built anew too)."""
        return row_dicts(self.header, self._rows())

    def dispatches(self, wanted: str) -> list[dict[str, str]]:
        """The rows of the wanted kernel (``match_kernel``'s rule), in file order; a new list each call."""
        if wanted not in self._kernels:
            self._kernels[wanted] = self._match(wanted)
        return list(self._kernels[wanted])

    def starting_with(self, prefix: str) -> list[dict[str, str]]:
        """The rows whose ``Kernel_Name`` (stripped) starts with ``prefix``, in file order; only the
        lines holding it are parsed (a new list each call). Issue 41: the build's device timer
        made dicts of every row, 4 % of a serial build of the benchmark sweep."""
        return row_dicts(self.header, self._starting_with(prefix))

    def cells_starting_with(self, prefix: str, columns: tuple[str, ...]) -> list[tuple[str | None, ...]]:
        """The cells of ``columns`` in the rows ``starting_with`` gives, as its dicts hold them (None
        where the row or the header lacks one), without a dict per row. Issue 41: the device timers of the
        shared sweep's 11 headline pairs 44.5 ms -> 37.2 ms of CPU (fused_rope_cache's has 3,761 dispatches)."""
        at = [max((i for i, h in enumerate(self.header) if h == c), default=None) for c in columns]
        rows = self._starting_with(prefix)
        if len(at) > 1 and None not in at:  # the rows long enough: their cells in one C call each
            pick, top = operator.itemgetter(*at), max(at)
            return [pick(r) if len(r) > top else _cells(r, at) for r in rows]
        return [_cells(r, at) for r in rows]

    def _starting_with(self, prefix: str) -> list[list[str]]:
        at = self._name_at
        if at is None:
            return [] if prefix else self._rows()
        if self._parsed is not None:
            rows = self._parsed[1]
        else:
            rows = [row for row in csv.reader([line for line in self._lines[1:] if prefix in line]) if row]
        return [r for r in rows if len(r) > at and r[at].strip().startswith(prefix)]

    def _match(self, wanted: str) -> list[dict[str, str]]:
        names, at = _names_matching(wanted), self._name_at
        if not names or at is None:
            return []
        if self._parsed is not None:
            rows = self._parsed[1]
        else:  # a matching line holds the shortest name wanted: the others add "_0" to it
            key = min(names, key=len)
            rows = [row for row in csv.reader([line for line in self._lines[1:] if key in line]) if row]
        return row_dicts(self.header, [r for r in rows if len(r) > at and r[at].strip() in names])


def _cells(row: list[str], at: list[int | None]) -> tuple[str | None, ...]:
    """The cells of a row at these columns, None where it has none (``row_dicts`` keys a short row so)."""
    return tuple(None if i is None or i >= len(row) else row[i] for i in at)


#: A quote in the text once quoted fields are cut out of it (``_one_line_records``) that does not
#: stand alone between delimiters, line ends or the text's ends.
_STRAY_QUOTE = re.compile(r'"(?:(?<=[^,\n]")|(?=[^,\n]))')


def _one_line_records(text: str) -> bool:
    """True when each line of a CSV text is one record whose quoted fields hold no quote and no
    line break: then the lines of a record are its records for ``csv.reader``, one for one.

    Cut at quotes, the text alternates outside and inside quotes. It qualifies when the inside
    pieces hold no newline, and when, with each inside piece replaced by one quote, every quote
    stands between delimiters or line ends (so no quote is doubled or sits within a field).
    No carriage return or NUL anywhere, and nothing long enough to pass the field size limit.
    """
    if "\r" in text or "\0" in text or len(text) >= csv.field_size_limit():
        return False
    pieces = text.split('"')
    if len(pieces) % 2 == 0:
        return False
    outside = '"'.join(pieces[::2])
    return outside.count("\n") == text.count("\n") and not _STRAY_QUOTE.search(outside)


#: The last few kernel traces read, by (path, size, mtime): the occupancy model, the advice
#: context and the run statistics of one bundle read the same file.
_TRACES: dict[tuple[str, int, int], KernelTrace] = {}
_TRACES_KEPT = 4


def kernel_trace(path: str | os.PathLike) -> KernelTrace:
    """A kernel-trace CSV (one row per dispatch); a file read moments ago is not read again."""
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key in _TRACES:
        return _TRACES[key]
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as fh:
            trace = KernelTrace(path, fh.read())
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except csv.Error as err:
        raise InputError(path, f"not a valid CSV: {err}") from None
    if key is not None:
        while len(_TRACES) >= _TRACES_KEPT:
            del _TRACES[next(iter(_TRACES))]
        _TRACES[key] = trace
    return trace


def forget_traces() -> None:
    """Drop the traces kept (a build calls it when a kernel is done: its traces are not read again)."""
    _TRACES.clear()


def read_kernel_trace(path: str | os.PathLike) -> list[dict[str, str]]:
    """Rows of a kernel-trace CSV (one per dispatch)."""
    return kernel_trace(path).dicts()


def kernel_dispatches(path: str | os.PathLike, wanted: str) -> list[dict[str, str]]:
    """The rows of one kernel in a kernel-trace CSV: ``match_kernel(read_kernel_trace(path), wanted)``,
    without building a dict per row of the others (treat the dicts as read-only)."""
    return kernel_trace(path).dispatches(wanted)


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
