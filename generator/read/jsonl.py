"""JSON Lines files read for the campaign readers: one JSON object per non-blank line.

Every problem is an ``InputError`` naming the file and line (a line that is not JSON, one that
is not an object, bytes that are not UTF-8). ``results_jsonl`` keeps the records of the last
files parsed, so that the scoring and the roofline of one kernel parse a file once.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator

from generator.errors import InputError
from generator.read import jsonio


def open_text(path: str):
    """Open a text file, turning OS errors into InputError."""
    try:
        return open(path, encoding="utf-8", newline="")
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None


def jsonl_records(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSONL file."""
    with open_text(path) as fh:
        line = 0
        try:
            for line, text in enumerate(fh, 1):
                if not text or text.isspace():  # blank (as ``not text.strip()``, without a copy)
                    continue
                try:
                    rec = jsonio.loads(text)
                except ValueError as err:
                    raise InputError(path, f"not JSON: {json_problem(err)}", line=line) from None
                except RecursionError:
                    raise InputError(path, "not JSON: nested too deeply", line=line) from None
                if not isinstance(rec, dict):
                    raise InputError(path, f"expected a JSON object, got {type(rec).__name__}", line=line)
                yield line, rec
        except UnicodeDecodeError:
            raise InputError(path, "not UTF-8 text", line=line + 1) from None


#: The last few JSONL results files parsed: path -> (their bytes, their records). Scoring and the
#: roofline of one kernel read the same file; a hit needs the very same bytes, so an edited file
#: is always parsed again. Treat the records as read-only.
_RECORDS: dict[str, tuple[bytes, list]] = {}
_RECORDS_KEPT = 2


def forget_records() -> None:
    """Drop the results files kept (a build calls it when a kernel is done)."""
    _RECORDS.clear()


def results_jsonl(path: str | os.PathLike) -> list:
    """Every (line number, object) of a JSONL results file, in file order; when a line is bad the
    list ends at it with the InputError that says why (raised by whoever reaches it).

    A file parsed moments ago with the same bytes is not parsed again.
    """
    path = os.fspath(path)
    key = os.path.abspath(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        data = None
    hit = _RECORDS.get(key)
    if data is not None and hit is not None and hit[0] == data:
        return hit[1]
    items = plain_jsonl(data) if data is not None else None
    if items is None:
        items = []
        try:
            items.extend(jsonl_records(path))
        except InputError as err:
            items.append(err)
            return items
    if data is not None:
        _RECORDS.pop(key, None)
        while len(_RECORDS) >= _RECORDS_KEPT:
            del _RECORDS[next(iter(_RECORDS))]
        _RECORDS[key] = (data, items)
    return items


#: Some fields of the records of results files the build's plan parsed (``keep_fields``), kept for the
#: kernel's worker: path -> (the file's size and modification time, the fields, each record's values).
_FIELDS_KEPT: dict[str, tuple[tuple[int, int], tuple[str, ...], list[tuple]]] = {}


def _stamp(path: str) -> tuple[int, int] | None:
    """A file's size and modification time (None when it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def keep_fields(path: str | os.PathLike, fields: tuple[str, ...]) -> None:
    """Keep ``fields`` of a JSONL results file's records, as ``results_jsonl`` parsed them moments ago
    (or parses them now), for the next ``kept_fields`` of the same file and fields; nothing for a file
    with a bad line. Issue 41: each kernel's roofline parsed its campaign's results again after the
    build's plan had; kept, a jobs=1 cold build of the 25-kernel benchmark sweep costs 0.064 s less
    CPU (3.148 s -> 3.084 s, medians of 7; the plan 0.014 s more), 0.116 s less under the CLI's
    collector policy."""
    stamp = _stamp(os.fspath(path))
    if stamp is None:
        return
    hit = _RECORDS.get(os.path.abspath(path))  # parsed moments ago: its bytes are not read again
    records = hit[1] if hit is not None and len(hit[0]) == stamp[0] else results_jsonl(path)
    if records and isinstance(records[-1], InputError):
        return
    kept = [tuple(map(rec.get, fields)) for _, rec in records]  # a field a record lacks: None, as ``get`` reads it
    _FIELDS_KEPT[os.path.abspath(path)] = (stamp, fields, kept)


def kept_fields(path: str | os.PathLike, fields: tuple[str, ...]) -> list[dict[str, Any]] | None:
    """The records kept by ``keep_fields(path, fields)``, once, as dicts of those fields; None when none
    were, or when the file has changed since (its size or modification time)."""
    kept = _FIELDS_KEPT.pop(os.path.abspath(path), None)
    if kept is None or kept[1] != fields or kept[0] != _stamp(os.fspath(path)):
        return None
    return [dict(zip(fields, values)) for values in kept[2]]


def forget_fields() -> None:
    """Drop the fields kept (a build calls it when it ends)."""
    _FIELDS_KEPT.clear()


def plain_jsonl(data: bytes) -> list | None:
    """``jsonl_records`` of a file's bytes at once when every line is plain (``\\n`` endings, each
    non-blank line a JSON object orjson reads); None otherwise, for the line by line reading that
    gives the same records or says what is wrong."""
    orjson = jsonio.orjson
    if orjson is None or b"\r" in data:
        return None
    loads, items = orjson.loads, []
    try:
        for line, text in enumerate(data.split(b"\n"), 1):
            if text and not text.isspace():
                rec = loads(text)
                if type(rec) is not dict:
                    return None
                items.append((line, rec))
    except orjson.JSONDecodeError:
        return None
    return items


def jsonl_file(path: str) -> Iterable[tuple[int, dict[str, Any]]]:
    """``jsonl_records`` of a file, read at once when every line is plain (``plain_jsonl``)."""
    try:
        with open(path, "rb") as fh:
            records = plain_jsonl(fh.read())
    except OSError:
        records = None  # said by the line by line reading
    return jsonl_records(path) if records is None else records


def json_problem(err: ValueError) -> str:
    """The decoder's message with the column in the line (its own suffix counts lines of one line)."""
    msg = getattr(err, "msg", None) or str(err)
    pos = getattr(err, "pos", None)
    return f"{msg} (column {pos + 1})" if pos is not None else msg
