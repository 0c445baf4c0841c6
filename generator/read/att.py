"""AMD rocprofv3 ATT capture: load ``ui_output_agent_*`` folders and analyze them.

A capture directory holds (DOMAIN §1.1)::

    code.json        {"code": [[asm, _, pc_index, source_loc, _, pc_addr,
                                exec_count, total_cycles, stall_cycles, idle_cycles], ...],
                      "header": "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"}
    snapshots.json   {"/": {"FlyDSL": {"kernels": {"pa.py": "source_0_pa.py"}}}}
    filenames.json   {"wave_filenames": {se: {sm: {slot: {wave: [file, begin, end]}}}}, ...}
    wstates1..4.json {"state": [n, ...], "time": [t, ...]}   (IDLE, EXEC, WAIT, STALL)
    se*_sm*_sl*_wv*.json   one sampled wave each (parsed only for a timeline)

This module reads (``load_capture``); ``generator.analyze.hotspots`` computes. Wave files
are not parsed whole: ``filenames.json`` gives each wave's begin and end, and a wave's
instruction count sits at the head of its file, which keeps thousands of them fast.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import operator
import os
import re

from generator.errors import InputError
from generator.read import formats, jsonio
from generator.model import CaptureRef, Instruction, UNKNOWN_LOC, WAVE_STATES, WaveFile, record

CAPTURE_PREFIX = "ui_output_agent_"
_WAVE_FILE = re.compile(r"^se\d+_sm\d+_sl\d+_wv\d+\.json$")


# ---------------------------------------------------------------- taxonomy

def classify(asm: str) -> str:
    """Stall type of one instruction (DOMAIN §1.2; first match wins)."""
    a = asm.lower()
    if "s_waitcnt" in a:
        if "vmcnt" in a:
            return "VMEM-wait"
        if "lgkmcnt" in a:
            return "LDS/SMEM-wait"
        if "expcnt" in a:
            return "EXP-wait"
        return "waitcnt"
    if "s_barrier" in a or "s_wait_idle" in a:
        return "barrier"
    if "buffer_load" in a or "global_load" in a or "flat_load" in a:
        return "VMEM-load"
    if "buffer_store" in a or "global_store" in a:
        return "VMEM-store"
    if "ds_read" in a or "ds_write" in a:
        return "LDS"
    if "s_load" in a or "s_store" in a:
        return "SMEM"
    if "v_mfma" in a or "v_fma" in a:
        return "MFMA/FMA"
    return "other"


# ---------------------------------------------------------------- readers

@record
class AttCapture:
    """One ATT capture folder as read: nothing ranked or summed yet."""

    path: str
    instructions: list[Instruction]
    jit_name: str | None
    odd_cells: int  # numeric cells of code.json that were not integers (counted as 0)
    sources: dict[str, str]  # virtual path -> safe local path
    waves: list[WaveFile]
    wave_states: dict[str, float] | None
    kind: str = "att"  # or "pc_sampling" (``generator.read.pcsampling``): samples, no waves
    legacy: str | None = None  # an older writer without stall columns (``legacy_layout``)


def load_capture(ref: CaptureRef) -> AttCapture:
    """Read code.json, snapshots, the wave list and wave states of one capture folder."""
    cdir = ref.path
    if not os.path.isdir(cdir):
        raise InputError(cdir, "not a directory")
    code_path = os.path.join(cdir, "code.json")
    if not os.path.exists(code_path):
        raise InputError(code_path, "file is missing: not a complete ATT capture")
    instructions, jit_name, odd, layout = load_code_layout(code_path)
    sources = load_snapshots(cdir)
    return AttCapture(path=cdir, instructions=instructions, jit_name=jit_name, odd_cells=odd,
                      sources={v: os.path.join(cdir, local) for v, local in sources.items()},
                      waves=load_waves(cdir), wave_states=load_wave_states(cdir), legacy=layout)


def read_json(path: str) -> object:
    """Parse one JSON file; a missing, truncated or non-JSON file is an InputError."""
    try:
        with open(path, "rb") as fh:
            return jsonio.loads(fh.read())
    except FileNotFoundError:
        raise InputError(path, "file is missing") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError(path, f"not valid JSON (truncated or corrupt): {err}") from None
    except ValueError as err:  # e.g. an integer beyond Python's digit limit
        raise InputError(path, f"not valid JSON: {err}") from None
    except RecursionError:
        raise InputError(path, "not valid JSON: nested too deeply") from None


def _cell(value: object, path: str, row_no: int, column: str) -> tuple[int, bool]:
    """One numeric cell as an int, and whether it was not an int.

    The reference counts non-int cells as 0; we do the same for null and finite
    floats (and say so in a note), but a string or NaN in a numeric cell means a
    corrupt file, which we refuse rather than draw a wrong number.
    """
    if type(value) is int:
        return value, False
    if value is None:
        return 0, True
    if isinstance(value, float):
        if math.isfinite(value):
            return 0, True
        raise InputError(path, f"row {row_no}: {column} is {value!r}, not a number")
    raise InputError(path, f"row {row_no}: {column} is {value!r}, not a number")


#: The code.json columns we read, by the names its ``header`` gives them (rocprofiler-sdk's ATT
#: writer: "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"; newer writers
#: append "PC_Issued, PC_Stalled, Stall_Reasons"), with each one's position when there is no header.
CODE_COLUMNS = (("ISA", 0), ("LineNumber", 2), ("Source", 3), ("Vaddr", 5), ("Hit", 6), ("Latency", 7),
                ("Stall", 8), ("Idle", 9))
#: The numeric columns among them (from Vaddr on), as ``_cell`` names them: column 9 is *idle*
#: cycles, the wave not scheduled (DOMAIN §1.1), not issue cycles.
_CELL_NAMES = ("pc_addr", "exec_count", "total_cycles", "stall_cycles", "idle_cycles")


#: Older writers' rows, 8 cells and no ``header``: no Stall and no Idle column (``legacy_layout``).
#: att-decoder 3.0.0 under rocprofv3 writes rocprofiler-sdk's row less its last two cells
#: ``[ISA, 0, LineNumber, Source, Codeobj, Vaddr, Hit, Latency]``; the rocprofv2 ATT plugin
#: (rocprofiler ``plugin/att``) writes ``[asm, inst_type, _, source, index, line_num, hitcount,
#: cycles]`` beside a ``top_n`` list, inst_type 100 on labels. Positions of ISA, LineNumber,
#: Source, Vaddr, Hit, Latency (None: absent).
LEGACY_COLUMNS = {"att-decoder": (0, 2, 3, 5, 6, 7), "rocprofv2": (0, 5, 3, None, 6, 7)}
LEGACY_WIDTH = 8


def legacy_layout(data: dict) -> str | None:
    """``att-decoder`` or ``rocprofv2`` for a code.json of 8-cell rows and no header, else None.

    The rocprofv2 plugin's file carries ``top_n``; the decoder's a ``version``.
    """
    if data.get("header") is not None:
        return None
    rows = [r for r in data.get("code") or () if isinstance(r, list) and r and not
            (isinstance(r[0], str) and r[0].startswith(";"))]
    if not rows or any(len(r) != LEGACY_WIDTH for r in rows):
        return None
    return "rocprofv2" if "top_n" in data else "att-decoder"


def _legacy_rows(data: dict, layout: str) -> list:
    """Rows of an older writer, rebuilt in DOMAIN §1.1's 10 positions: Stall = Latency (the
    only cycle column such a file has, so hotspots rank by it), Idle = 0, no Vaddr: 0."""
    i_asm, i_pc, i_loc, i_addr, i_hit, i_lat = LEGACY_COLUMNS[layout]
    out = []
    for row in data["code"]:
        if not isinstance(row, list) or len(row) != LEGACY_WIDTH:
            out.append(row)
            continue
        label = layout == "rocprofv2" and row[1] == 100
        out.append([row[i_asm], 0, 0 if label else row[i_pc], row[i_loc], 0,
                    0 if i_addr is None else row[i_addr], row[i_hit], row[i_lat], row[i_lat], 0])
    return out


def code_columns(header: object) -> tuple[int, ...]:
    """Positions of ISA, LineNumber, Source, Vaddr, Hit, Latency, Stall, Idle in a code.json row.

    Read from the file's own ``header`` (a comma-separated text, or a list of names; matched
    without regard to case or spaces) when it names all eight; otherwise the positional layout
    of DOMAIN §1.1. Example: a header "Idle, Stall, Latency, Hit, Vaddr, Codeobj, Source,
    LineNumber, _, ISA" gives (9, 7, 6, 4, 3, 2, 1, 0).
    """
    names = header.split(",") if isinstance(header, str) else header if isinstance(header, list) else []
    where = {n.strip().lower(): i for i, n in enumerate(names) if isinstance(n, str)}
    found = tuple(where.get(name.lower()) for name, _ in CODE_COLUMNS)
    if None in found:
        return tuple(pos for _, pos in CODE_COLUMNS)
    return found  # type: ignore[return-value]


def _odd_cells(values: tuple, path: str, row_no: int) -> tuple[list[int], int]:
    """The numeric cells of a row holding a non-int cell: the values and how many were not ints."""
    cells, odd = [], 0
    for value, name in zip(values, _CELL_NAMES):
        value, was_odd = _cell(value, path, row_no, name)
        odd += was_odd
        cells.append(value)
    return cells, odd


def is_label(asm: object, pc: object) -> bool:
    """True for a code.json row that is a label or comment, not an instruction (DOMAIN §1.1): its
    asm begins with ``;`` whatever its pc_index (rocprofiler-sdk gives a second kernel's label row
    ``line_number - 1``, not 0), or its pc_index is 0 or not an int."""
    return type(pc) is not int or pc == 0 or (isinstance(asm, str) and asm.startswith(";"))


#: The stall type of each instruction text seen (code.json repeats many, across captures too).
_classify_seen = functools.lru_cache(maxsize=1 << 16)(classify)


def load_code(path: str) -> tuple[list[Instruction], str | None, int]:
    """Instructions of ``code.json``, the kernel name from its label row, and non-int cells.

    Columns are found by the file's ``header`` (``code_columns``); rows may carry more cells
    than we read (newer writers append some). An older writer's 8-cell rows (``legacy_layout``)
    are read with their latency as the stall figure.
    """
    return load_code_layout(path)[:3]


def load_code_layout(path: str) -> tuple[list[Instruction], str | None, int, str | None]:
    """``load_code`` and the older writer whose layout the file has (None: the current one)."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("code"), list):
        raise InputError(path, 'expected an object with a "code" list')
    layout = legacy_layout(data)
    if layout:
        data = {"code": _legacy_rows(data, layout)}
    columns = code_columns(data.get("header"))
    cells = operator.itemgetter(*columns)
    width = max(columns) + 1
    i_asm, i_pc = columns[0], columns[1]
    out: list[Instruction] = []
    append = out.append
    kernel_name = None
    odd = 0
    for row_no, row in enumerate(data["code"]):
        if not isinstance(row, list):
            raise InputError(path, f"row {row_no}: expected a list, got {type(row).__name__}")
        if len(row) >= width:
            asm, pc, loc, addr, execs, total, stall, idle = cells(row)
        else:
            pc = row[i_pc] if len(row) > i_pc else None
        first = row[i_asm] if len(row) > i_asm else None
        if is_label(first, pc):
            if kernel_name is None and isinstance(first, str) and first.startswith(";"):
                kernel_name = first.lstrip("; ").strip() or None
            continue
        if len(row) < width:
            raise InputError(path, f"row {row_no}: {len(row)} cells, expected {width}")
        if not isinstance(asm, str):
            raise InputError(path, f"row {row_no}: asm is {asm!r}, not text")
        if not (type(addr) is int and type(execs) is int and type(total) is int
                and type(stall) is int and type(idle) is int):  # the usual row holds ints only
            (addr, execs, total, stall, idle), n_odd = _odd_cells((addr, execs, total, stall, idle), path, row_no)
            odd += n_odd
        # Positional, in the field order of Instruction: pc_index, asm, type, source_loc,
        # pc_addr, exec_count, total_cycles, stall_cycles, idle_cycles.
        append(Instruction(pc, asm, _classify_seen(asm), loc if isinstance(loc, str) and loc else UNKNOWN_LOC,
                           addr, execs, total, stall, idle))
    return out, kernel_name, odd, layout


def _flatten_snapshots(tree: object, prefix: str, path: str, out: dict[str, str]) -> None:
    """Walk the nested snapshot dict, collecting virtual path -> local name."""
    if not isinstance(tree, dict):
        raise InputError(path, "expected nested objects mapping paths to file names")
    for key, value in tree.items():
        vpath = prefix.rstrip("/") + "/" + key if prefix else key
        if isinstance(value, dict):
            _flatten_snapshots(value, vpath if key != "/" else "", path, out)
        elif isinstance(value, str):
            out["/" + vpath.lstrip("/")] = value
        else:
            raise InputError(path, f"entry {vpath!r} is {type(value).__name__}, not a file name")


def safe_local(capture_dir: str, local: str) -> str | None:
    """The file a snapshot name points to, or None when it would leave the capture."""
    if not local or os.path.isabs(local) or local.startswith(("/", "\\")) or ":" in local[:3]:
        return None
    parts = re.split(r"[\\/]", local)
    if any(p in ("..", "") for p in parts):
        return None
    root = os.path.realpath(capture_dir)
    full = os.path.realpath(os.path.join(root, *parts))
    if os.path.commonpath([root, full]) != root:
        return None
    return full


def load_snapshots(capture_dir: str) -> dict[str, str]:
    """Virtual source path -> safe local file name (only names that stay inside the capture)."""
    path = os.path.join(capture_dir, "snapshots.json")
    if not os.path.exists(path):
        return {}
    flat: dict[str, str] = {}
    _flatten_snapshots(read_json(path), "", path, flat)
    for vpath, local in flat.items():
        if safe_local(capture_dir, local) is None:
            raise InputError(path, f"{vpath!r} points outside the capture ({local!r}); refusing to read it")
    return dict(sorted(flat.items()))


def load_waves(capture_dir: str) -> list[WaveFile]:
    """Sampled waves listed in ``filenames.json`` (begin/end cycles; files not parsed)."""
    path = os.path.join(capture_dir, "filenames.json")
    if not os.path.exists(path):
        return []
    data = read_json(path)
    tree = data.get("wave_filenames") if isinstance(data, dict) else None
    if tree is None and isinstance(data, dict) and data.get("pc_sampling") is True:
        return []  # a PC-sampling capture lists no wave (``generator.read.pcsampling``)
    if not isinstance(tree, dict):
        raise InputError(path, 'expected an object with "wave_filenames"')
    waves = []
    try:
        for se, sms in tree.items():
            for sm, slots in sms.items():
                for slot, wvs in slots.items():
                    for wv, entry in wvs.items():
                        name, begin, end = entry[0], int(entry[1]), int(entry[2])
                        waves.append(WaveFile(str(name), int(se), int(sm), int(slot), int(wv), begin, end))
    except (AttributeError, TypeError, ValueError, IndexError, KeyError) as err:
        raise InputError(path, f"malformed wave_filenames entry: {type(err).__name__} {err}") from None
    waves.sort(key=lambda w: (w.se, w.sm, w.slot, w.wave))
    return waves


def has_wave_files(capture_dir: str) -> bool:
    """True when the folder holds at least one ``se*_sm*_sl*_wv*.json``."""
    try:
        return any(_WAVE_FILE.match(n) for n in os.listdir(capture_dir))
    except OSError:
        return False


def _all_numbers(values: list) -> bool:
    """True when every value of a parsed JSON list is a number (int, float or bool).

    ``sum`` runs in C and refuses exactly the other JSON values (text, null, lists, objects).
    """
    try:
        sum(values)
    except TypeError:
        return False
    return True


def load_wave_states(capture_dir: str) -> dict[str, float] | None:
    """Share of each wave state: integral of its step function over the sum (DOMAIN §1.1)."""
    areas: dict[str, float] = {}
    for i, name in enumerate(WAVE_STATES, 1):
        path = os.path.join(capture_dir, f"wstates{i}.json")
        if not os.path.exists(path):
            continue
        data = read_json(path)
        if isinstance(data, dict) and "state" not in data and "data" in data:
            return None  # the rocprofv2 ATT plugin's binned counts, another measure: not read
        state = data.get("state") if isinstance(data, dict) else None
        time = data.get("time") if isinstance(data, dict) else None
        if not isinstance(state, list) or not isinstance(time, list) or len(state) != len(time):
            raise InputError(path, 'expected "state" and "time" lists of equal length')
        if not _all_numbers(state) or not _all_numbers(time):
            raise InputError(path, "non-numeric value in state/time")  # "x" * 10**12 is no area
        areas[name] = sum(map(operator.mul, state, map(operator.sub, itertools.islice(time, 1, None), time)))
    total = sum(areas.values())
    if not areas or total <= 0:
        return None
    return {name: areas.get(name, 0) / total for name in WAVE_STATES}


def read_wave(capture_dir: str, wave: WaveFile) -> list[list[int]]:
    """Instruction rows ``[time, type, stall, duration, pc_index]`` of one sampled wave."""
    if not _WAVE_FILE.match(wave.file):
        raise InputError(os.path.join(capture_dir, "filenames.json"), f"unexpected wave file name {wave.file!r}")
    path = os.path.join(capture_dir, wave.file)
    data = read_json(path)
    try:
        rows = data["wave"]["instructions"]
        return _int_rows(rows)
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(path, f"malformed wave file: {err}") from None


def _int_rows(rows: list) -> list[list[int]]:
    """The first five cells of each row as ints. The decoder writes rows of five ints, which a
    pass over lengths and types confirms, and which are then kept as they are; any other row
    goes through ``int()``."""
    if (type(rows) is list and {list}.issuperset(map(type, rows)) and max(map(len, rows), default=0) <= 5
            and {int}.issuperset(map(type, itertools.chain.from_iterable(rows)))):
        return rows
    return [[int(v) for v in r[:5]] for r in rows]


#: Bytes read from the head of a wave file to find ``"num_insts"`` (it comes first).
WAVE_HEAD_BYTES = 512
_NUM_INSTS = re.compile(rb'"num_insts"\s*:\s*(\d+)')


def _read_head(path: str, size: int, dir_fd: int | None = None) -> bytes:
    """The first ``size`` bytes of a file (fewer at its end), without a buffered file object:
    thousands of wave files are opened for a few hundred bytes each (``dir_fd``: a relative
    ``path`` is looked up in that open folder)."""
    fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
    try:
        head = os.read(fd, size)
        while 0 < len(head) < size:  # a short read before the end of the file: read on
            more = os.read(fd, size - len(head))
            if not more:
                break
            head += more
        return head
    finally:
        os.close(fd)


def wave_instruction_count(capture_dir: str, wave: WaveFile, dir_fd: int | None = None) -> int:
    """Instructions one sampled wave executed, from the file's head (``num_insts``).

    The decoder writes ``{"duration": 996, "name": "SE0", "num_insts": 12, ...}`` first, so
    a few hundred bytes replace parsing thousands of wave files; a file without the field
    there is parsed whole and its rows are counted. ``dir_fd``: ``capture_dir`` already open.
    """
    path = os.path.join(capture_dir, wave.file)
    try:
        head = _read_head(path if dir_fd is None else wave.file, WAVE_HEAD_BYTES, dir_fd)
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    m = _NUM_INSTS.search(head)
    return int(m.group(1)) if m else len(read_wave(capture_dir, wave))


def wave_instruction_counts(capture_dir: str, waves: list[WaveFile]) -> list[int]:
    """``wave_instruction_count`` of each wave, the folder opened once: each file is then found
    in it rather than by its whole path (thousands of waves)."""
    try:
        dir_fd = os.open(capture_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return [wave_instruction_count(capture_dir, w) for w in waves]
    try:
        return [wave_instruction_count(capture_dir, w, dir_fd) for w in waves]
    finally:
        os.close(dir_fd)


def present_waves(capture_dir: str, waves: list[WaveFile]) -> list[WaveFile]:
    """The waves whose file exists (``os.path.isfile``), from one scan of the folder: a name
    the scan does not list as a file is asked about on its own."""
    try:
        with os.scandir(capture_dir) as entries:
            files = {e.name for e in entries if e.is_file()}
    except OSError:
        files = set()
    return [w for w in waves if w.file in files or os.path.isfile(os.path.join(capture_dir, w.file))]


#: Why a capture is an empty shell (``empty_reason``; ``analyze.analysis.SKIP_KEYS`` names their messages).
NO_FILES = "empty shell: no code.json and no wave files"
NO_INSTRUCTIONS = "empty shell: no instructions and no wave files"


def empty_reason(capture_dir: str) -> str | None:
    """Why a capture folder is an empty shell (no waves, no instructions), else None."""
    code = os.path.join(capture_dir, "code.json")
    if not os.path.exists(code):
        return None if has_wave_files(capture_dir) else NO_FILES
    if os.path.getsize(code) > 4096 or has_wave_files(capture_dir):
        return None
    try:
        data = read_json(code)
    except InputError:
        return None  # corrupt, not empty: analysis reports it
    rows = data.get("code") if isinstance(data, dict) else None
    if isinstance(rows, list) and not any(isinstance(r, list) and len(r) > 2 and not is_label(r[0], r[2]) for r in rows):
        return NO_INSTRUCTIONS
    return None


def is_capture(path: str) -> bool:
    """True when ``path`` is an ATT capture directory."""
    return os.path.isdir(path) and (
        os.path.exists(os.path.join(path, "code.json"))
        or os.path.basename(os.path.normpath(path)).startswith(CAPTURE_PREFIX)
    )


def find_captures(bundle_dir: str) -> list[tuple[str, str]]:
    """``(label, dir)`` of every ``att_viewer/<label>/ui_output_agent_*`` of a bundle."""
    root = os.path.join(bundle_dir, "att_viewer")
    found = []
    if not os.path.isdir(root):
        return found
    for label in sorted(os.listdir(root)):
        label_dir = os.path.join(root, label)
        if not os.path.isdir(label_dir):
            continue
        if label.startswith(CAPTURE_PREFIX):  # capture directly under att_viewer/
            found.append(("", label_dir))
            continue
        for name in sorted(os.listdir(label_dir)):
            if name.startswith(CAPTURE_PREFIX) and os.path.isdir(os.path.join(label_dir, name)):
                found.append((label, os.path.join(label_dir, name)))
    return found


formats.register(formats.CaptureFormat(
    name="att",
    vendor="amd",
    order=10,
    find=find_captures,
    is_capture=is_capture,
    empty_reason=empty_reason,
))
