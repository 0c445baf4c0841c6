"""Property-based fuzzing of every reader (issue 14 point 7): shared by the suite and the bench.

Each ``Target`` names one input file, the seed it starts from (a real file of the shared
sweep or of ``bundles/``, cut to its first lines so a case stays fast, or a hand-made one
where no real file exists: counter CSV, rocpd database, REPORT.md) and the reader call
that must either succeed or raise ``InputError`` naming that file on one line. Nothing
else may escape: no KeyError, RecursionError, sqlite3 or csv error, traceback.

Cases are drawn by hypothesis (``case_strategy``): byte flips, truncation, inserted or
deleted bytes, whole generated content, and structure changes of the parsed seed
(JSON/JSONL/YAML values replaced by wrong types, missing keys, NaN, infinities, huge
numbers, nested garbage, deep nesting; CSV cells, columns and rows; TOML values; SQL
updates of the rocpd tables). Files are written into a fresh temporary folder only.

Used by ``tests/test_fuzz.py`` (few examples each, seconds in CI) and
``benchmarks/fuzz.py`` (10,000+ cases, prints the crash count).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import sqlite3
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

from generator.errors import InputError

REPO = Path(__file__).resolve().parent.parent
SWEEP = REPO.parent / "shared" / "mi350x-sweep"
BUNDLES = REPO / "bundles"
CI_SLICE = REPO / "tests" / "data" / "flydsl-ci-slice"
CAPTURE = "examples/fused_rope_cache/att_viewer/big/ui_output_agent_4253_dispatch_8781"
COMPUTE = "examples/fused_rope_cache/compute_viewer"
if os.environ.get("KERNEL_ATLAS_TEST_SLICE") == "1" or not (SWEEP / CAPTURE).is_dir():
    # a clone without ../shared: the seeds come from the slice (tests/data/make_slice.py)
    SWEEP = REPO / "tests" / "data" / "mi350x-slice"
    CAPTURE = "examples/vec_add/att_viewer/big/ui_output_agent_14705_dispatch_25"
    COMPUTE = "examples/vec_add/compute_viewer"
CAMPAIGN = "benchmarks/examples/vec_add"
NCU = "examples/vec_add/ncu/prefill"


# ---------------------------------------------------------------- reader calls

def _att_code(d: Path) -> None:
    from generator.read import att
    att.load_code(str(d / "code.json"))


def _att_waves(d: Path) -> None:
    from generator.read import att
    att.load_waves(str(d))


def _att_wave_file(d: Path) -> None:
    from generator.model import WaveFile
    from generator.read import att
    wave = WaveFile("se0_sm3_sl0_wv0.json", 0, 3, 0, 0, 0, 100)
    att.read_wave(str(d), wave)
    att.wave_instruction_count(str(d), wave)


def _att_wstates(d: Path) -> None:
    from generator.read import att
    att.load_wave_states(str(d))


def _att_snapshots(d: Path) -> None:
    from generator.read import att
    att.load_snapshots(str(d))


def _kernel_trace(d: Path) -> None:
    from generator.read import rocprof
    rows = rocprof.read_kernel_trace(d / "discover_kernel_trace.csv")
    rocprof.match_kernel(rows, "fused_rope_cache")
    rocprof.kernel_dispatches(d / "discover_kernel_trace.csv", "fused_qk_rope_reshape_and_cache")
    for row in rows:
        rocprof.to_int(row.get("Start_Timestamp"))


def _agent_info(d: Path) -> None:
    from generator.read import rocprof
    agent = rocprof.gpu_agent(rocprof.read_agent_info(d / "big_agent_info.csv"))
    if agent:
        rocprof.agent_arch(agent)


def _counter_csv(d: Path) -> None:
    from generator.read import counter_files
    counter_files.read_counter_file(d / "4242_counter_collection.csv")


def _rocpd(d: Path) -> None:
    from generator.read import counter_files
    counter_files.read_counter_file(d / "results.db")
    counter_files.rocpd_gpu_arch(d / "results.db")


def _ncu(name: str) -> Callable[[Path], None]:
    def call(d: Path) -> None:
        from generator.read import ncu
        ncu.load_exports(ncu.find_exports(str(d)))
    call.__name__ = f"_ncu_{name}"
    return call


def _results(name: str) -> Callable[[Path], None]:
    def call(d: Path) -> None:
        from generator.read import campaign_rows
        campaign_rows.read_results(d / name)
    return call


def _ledger(d: Path) -> None:
    from generator.read import campaign_rows
    campaign_rows.read_ledger(d / "shape_ledger.jsonl")


def _matrix(d: Path) -> None:
    from generator.read import campaign
    campaign.read_matrix(d / "baseline_matrix.yaml")


def _suite(d: Path) -> None:
    """The second campaign layout: the folder read as a campaign (results, metadata, suites)."""
    from generator.read import campaign_suite
    campaign_suite.read_campaign_folder(d)


def _suite_seed(kind: str) -> bytes:
    """Seeds of the second layout, hand-made (tests/handmade.py: no real row)."""
    from handmade import HANDMADE_FULL, HANDMADE_METADATA, write_csv

    if kind == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in HANDMADE_FULL[:6]).encode()
    if kind == "csv":
        with tempfile.TemporaryDirectory() as tmp:
            return write_csv(Path(tmp) / "r.csv", HANDMADE_FULL[:6]).read_bytes()
    return json.dumps(HANDMADE_METADATA).encode()


def _config(d: Path) -> None:
    from generator import config
    config.read_config(d / "kernel-atlas.toml")


def _report(d: Path) -> None:
    from generator.site import render
    html = render.render_markdown(render.read_report(d / "REPORT.md"))
    low = html.lower()
    for bad in ("<script", "<iframe", "<style", "<img", "<object", "<embed", "javascript:\"", 'href="javascript'):
        if bad in low:
            raise AssertionError(f"REPORT.md rendered {bad!r}")


# ---------------------------------------------------------------- seeds

def _ci_history(d: Path) -> None:
    """The FlyDSL CI stream read and analyzed whole (PR checks, health, speedups, the JSON)."""
    from generator.analyze.ci import report
    from generator.read.ci_stream import read_history

    report.to_json(report.analyze(read_history(d / "history.json")))


def _ci_runs(d: Path) -> None:
    from generator.read.ci_stream import read_runs

    read_runs(d / "runs.json")


def _ci_seed(name: str, keep: int) -> bytes:
    """The first ``keep`` records (or runs) of the CI stream's slice in the repository (real, unchanged)."""
    doc = json.loads((CI_SLICE / name).read_bytes())
    key = "records" if "records" in doc else "runs"
    return json.dumps({**doc, key: doc[key][:keep]}, indent=1).encode()


def _head(path: Path, lines: int) -> bytes:
    with open(path, "rb") as fh:
        return b"".join(fh.readline() for _ in range(lines))


def _code_seed() -> bytes:
    data = json.loads((SWEEP / CAPTURE / "code.json").read_bytes())
    data["code"] = data["code"][:24]
    return json.dumps(data).encode()


def _handmade_counter_csv() -> bytes:
    from test_pmc import make_handmade_counter_csvs
    with tempfile.TemporaryDirectory() as tmp:
        return make_handmade_counter_csvs(Path(tmp))[0].read_bytes()


def _handmade_rocpd() -> bytes:
    from test_pmc import make_handmade_rocpd
    with tempfile.TemporaryDirectory() as tmp:
        return make_handmade_rocpd(Path(tmp) / "handmade.db").read_bytes()


HANDMADE_REPORT = b"""# Report of a kernel

Some *text* with `code`, a [link](https://example.com) and [an anchor](#tables).

## Tables

| shape | us | note |
|:------|---:|------|
| 4096 | 12.5 | <b>bold?</b> |

```python
x = "<script>alert(1)</script>"
```

1. one
2. two
   - nested <img src=x onerror=alert(1)>

> quoted [js](javascript:alert(1)) ![img](p.png)

<div onclick="alert(1)">raw</div>
"""


@dataclass
class Target:
    """One input file of one reader: its name, its seed, its kind of structure, the call."""

    name: str  # reader label printed by the bench
    filename: str  # the file the case is written to (in a fresh folder)
    kind: str  # json | jsonl | csv | yaml | toml | sqlite | text
    seed: Callable[[], bytes]
    call: Callable[[Path], None]
    companions: Callable[[], dict[str, bytes]] | None = None  # other files the reader needs


def _ncu_companions(skip: str) -> Callable[[], dict[str, bytes]]:
    def files() -> dict[str, bytes]:
        return {n: _head(BUNDLES / NCU / n, 40) for n in ("source_sass.csv", "source_cuda_sass.csv")
                if n != skip}
    return files


TARGETS: list[Target] = [
    Target("att code.json", "code.json", "json", _code_seed, _att_code),
    Target("att filenames.json", "filenames.json", "json",
           lambda: (SWEEP / CAPTURE / "filenames.json").read_bytes(), _att_waves),
    Target("att wave file", "se0_sm3_sl0_wv0.json", "json",
           lambda: (SWEEP / CAPTURE / "se0_sm3_sl0_wv0.json").read_bytes(), _att_wave_file),
    Target("att wstates", "wstates1.json", "json",
           lambda: (SWEEP / CAPTURE / "wstates1.json").read_bytes(), _att_wstates),
    Target("att snapshots.json", "snapshots.json", "json",
           lambda: (SWEEP / CAPTURE / "snapshots.json").read_bytes(), _att_snapshots),
    Target("kernel-trace CSV", "discover_kernel_trace.csv", "csv",
           lambda: _head(SWEEP / COMPUTE / "discover_kernel_trace.csv", 12),
           _kernel_trace),
    Target("agent-info CSV", "big_agent_info.csv", "csv",
           lambda: (SWEEP / COMPUTE / "big_agent_info.csv").read_bytes(),
           _agent_info),
    Target("counter CSV", "4242_counter_collection.csv", "csv", lambda: _head_bytes(_handmade_counter_csv(), 14),
           _counter_csv),
    Target("rocpd SQLite", "results.db", "sqlite", _handmade_rocpd, _rocpd),
    Target("ncu source_sass.csv", "source_sass.csv", "csv",
           lambda: _head(BUNDLES / NCU / "source_sass.csv", 40), _ncu("sass"),
           _ncu_companions("source_sass.csv")),
    Target("ncu source_cuda_sass.csv", "source_cuda_sass.csv", "csv",
           lambda: _head(BUNDLES / NCU / "source_cuda_sass.csv", 40), _ncu("cuda"),
           _ncu_companions("source_cuda_sass.csv")),
    Target("ncu details.csv", "details.csv", "csv", lambda: _head(BUNDLES / NCU / "details.csv", 40),
           _ncu("details")),
    Target("ncu raw.csv", "raw.csv", "csv", lambda: _head(BUNDLES / NCU / "raw.csv", 4), _ncu("raw")),
    Target("ncu provenance.json", "provenance.json", "json",
           lambda: (BUNDLES / NCU / "provenance.json").read_bytes(), _ncu("provenance"),
           lambda: {"details.csv": _head(BUNDLES / NCU / "details.csv", 20)}),
    Target("results CSV", "benchmark_results.csv", "csv",
           lambda: _head(SWEEP / CAMPAIGN / "benchmark_results.csv", 12), _results("benchmark_results.csv")),
    Target("results JSONL", "benchmark_results.jsonl", "jsonl",
           lambda: _head(SWEEP / CAMPAIGN / "benchmark_results.jsonl", 8), _results("benchmark_results.jsonl")),
    Target("shape ledger", "shape_ledger.jsonl", "jsonl",
           lambda: _head(SWEEP / CAMPAIGN / "shape_ledger.jsonl", 12), _ledger),
    Target("baseline_matrix.yaml", "baseline_matrix.yaml", "yaml",
           lambda: (SWEEP / CAMPAIGN / "baseline_matrix.yaml").read_bytes(), _matrix),
    Target("suite results JSONL", "results_full.jsonl", "jsonl", lambda: _suite_seed("jsonl"), _suite),
    Target("suite results CSV", "results_full.csv", "csv", lambda: _suite_seed("csv"), _suite),
    Target("suite metadata", "metadata_full.json", "json", lambda: _suite_seed("metadata"), _suite,
           lambda: {"results_full.jsonl": _suite_seed("jsonl")}),
    Target("kernel-atlas.toml", "kernel-atlas.toml", "toml",
           lambda: (BUNDLES / "kernel-atlas.toml").read_bytes(), _config),
    Target("REPORT.md", "REPORT.md", "text", lambda: HANDMADE_REPORT, _report),
    Target("ci history.json", "history.json", "json", lambda: _ci_seed("history.json", 40), _ci_history),
    Target("ci runs.json", "runs.json", "json", lambda: _ci_seed("runs.json", 4), _ci_runs),
]


def _head_bytes(data: bytes, lines: int) -> bytes:
    return b"".join(data.splitlines(keepends=True)[:lines])


_SEEDS: dict[str, bytes] = {}


def seed(target: Target) -> bytes:
    if target.name not in _SEEDS:
        _SEEDS[target.name] = target.seed()
    return _SEEDS[target.name]


# ---------------------------------------------------------------- mutations

GARBAGE_TEXT = ["", "-", "nan", "NaN", "inf", "-inf", "1e999", "-1e999", "9" * 30, "9" * 5000, "0x7fz",
                "null", "true", "{", "[]", "\x00", "\ufffd", "\u202e", "a,b", '"', "\n", "\r\n", "1,234",
                "-0", "1e-400", "<script>", "../../etc/passwd", "/abs", "C:\\x", "é" * 50]


def garbage_values() -> st.SearchStrategy:
    """Wrong-typed JSON values: NaN, infinities, huge numbers, strings, nested garbage."""
    leaf = st.one_of(
        st.none(), st.booleans(), st.integers(), st.sampled_from([2**64, -2**63, 10**400, 0, -1]),
        st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(GARBAGE_TEXT), st.text(max_size=12),
    )
    return st.recursive(leaf, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                      st.dictionaries(st.text(max_size=6), kids, max_size=4)),
                        max_leaves=8)


def _paths(tree, prefix=()):
    """Every (path) into a JSON-like tree."""
    yield prefix
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from _paths(v, prefix + (i,))


def _set(tree, path, value, delete=False):
    if not path:
        return value
    parent = tree
    for p in path[:-1]:
        parent = parent[p]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return tree


@st.composite
def mutate_tree(draw, tree):
    """A few structure changes of a parsed JSON/YAML tree."""
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(tree))
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["replace", "replace", "delete", "wrap", "deep"]))
        if how == "delete" and path:
            tree = _set(tree, path, None, delete=True)
        elif how == "wrap":
            old = tree
            for p in path:
                old = old[p]
            tree = _set(tree, path, draw(st.sampled_from([[old], {"x": old}, [old, old], str(old)[:40]])))
        elif how == "deep":
            # a marker spliced into the text (a deep Python object would upset hypothesis itself)
            tree = _set(tree, path, f"__DEEP{draw(st.sampled_from([50, 3000]))}__")
        else:
            tree = _set(tree, path, draw(garbage_values()))
    return tree


_DEEP = re.compile(r'"?__DEEP(\d+)__"?')


def _undeep(text: str) -> str:
    return _DEEP.sub(lambda m: "[" * int(m.group(1)) + "1" + "]" * int(m.group(1)), text)


def _dump_json(tree) -> str:
    try:
        return _undeep(json.dumps(tree, allow_nan=True))
    except ValueError:  # an int beyond the str-conversion limit
        return "[" + "9" * 5000 + "]"


@st.composite
def byte_mutation(draw, data: bytes):
    """Flips, truncation, inserted and deleted bytes."""
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "dup"]))
        pos = draw(st.integers(0, max(len(buf) - 1, 0)))
        if how == "flip" and buf:
            buf[pos] ^= 1 << draw(st.integers(0, 7))
        elif how == "truncate":
            del buf[pos:]
        elif how == "insert":
            buf[pos:pos] = draw(st.one_of(st.binary(max_size=8), st.sampled_from(
                [b"\xff\xfe", b"\x00", b'"', b",", b"\n", b"{", b"]", b"\r", b"NaN", b"1e999"])))
        elif how == "delete":
            del buf[pos:pos + draw(st.integers(1, 64))]
        elif how == "dup":
            buf[pos:pos] = buf[pos:pos + draw(st.integers(1, 200))]
    return bytes(buf)


@st.composite
def csv_mutation(draw, data: bytes):
    """Cells replaced by garbage, columns dropped or renamed, rows cut short or doubled."""
    rows = list(csv.reader(io.StringIO(data.decode("utf-8", "replace"))))
    if not rows:
        rows = [[""]]
    for _ in range(draw(st.integers(1, 4))):
        r = draw(st.integers(0, len(rows) - 1))
        how = draw(st.sampled_from(["cell", "cell", "cell", "drop_col", "short", "long", "dup_row", "header"]))
        row = rows[r]
        if how == "cell" and row:
            row[draw(st.integers(0, len(row) - 1))] = draw(st.one_of(st.sampled_from(GARBAGE_TEXT),
                                                                      st.text(max_size=10)))
        elif how == "drop_col" and rows[0]:
            c = draw(st.integers(0, len(rows[0]) - 1))
            for rr in rows:
                if c < len(rr):
                    del rr[c]
        elif how == "short":
            del row[draw(st.integers(0, len(row))):]
        elif how == "long":
            row.extend(draw(st.lists(st.sampled_from(GARBAGE_TEXT), min_size=1, max_size=4)))
        elif how == "dup_row":
            rows.insert(r, list(row))
        elif how == "header" and rows[0]:
            rows[0][draw(st.integers(0, len(rows[0]) - 1))] = draw(st.sampled_from(GARBAGE_TEXT + ["ID", "Address"]))
    out = io.StringIO()
    csv.writer(out, quoting=draw(st.sampled_from([csv.QUOTE_ALL, csv.QUOTE_MINIMAL]))).writerows(rows)
    return out.getvalue().encode("utf-8", "surrogatepass")


TOML_VALUES = ["nan", "inf", "-inf", "1e999", "9" * 30, '"x"', "true", "[1, \"a\"]", "{a = 1}", "[]",
               '"<script>"', "1979-05-27T07:32:00Z", '""', "{}", "[[1]]", "-1", "0"]


@st.composite
def toml_mutation(draw, data: bytes):
    """Values of ``key = value`` lines replaced by other TOML values (wrong types, NaN, huge)."""
    lines = data.decode("utf-8", "replace").splitlines()
    for _ in range(draw(st.integers(1, 3))):
        idx = [i for i, ln in enumerate(lines) if "=" in ln and not ln.lstrip().startswith("#")]
        how = draw(st.sampled_from(["value", "value", "table", "drop"]))
        if how == "value" and idx:
            i = draw(st.sampled_from(idx))
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {draw(st.sampled_from(TOML_VALUES))}"
        elif how == "table":
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(
                ["[kernels]", "[kernels.x.y]", "kernels = 1", "[provenance.deep]", "[[kernels]]",
                 "[kernels.gemm]\nname = 1", "campaigns = [1]", "[campaigns]\nx = 2"])))
        elif how == "drop" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
    return "\n".join(lines).encode()


@st.composite
def sqlite_mutation(draw, data: bytes):
    """SQL changes of the rocpd tables: garbage values, NULLs, dropped tables and rows."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "x.db")
        Path(db).write_bytes(data)
        con = sqlite3.connect(db)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for _ in range(draw(st.integers(1, 4))):
            table = draw(st.sampled_from(tables))
            cols = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
            how = draw(st.sampled_from(["update", "update", "update", "drop", "delete", "rename"]))
            if how == "update":
                col = draw(st.sampled_from(cols))
                value = draw(st.sampled_from(["NULL", "'x'", "X'00ff'", "1e308", "-1", "9223372036854775807",
                                              "'nan'", "0", "''", "'gfx'", "-9223372036854775808"]))
                try:
                    con.execute(f'UPDATE "{table}" SET "{col}" = {value}')
                except sqlite3.Error:
                    pass
            elif how == "drop":
                con.execute(f'DROP TABLE "{table}"')
                tables.remove(table)
                if not tables:
                    break
            elif how == "delete":
                con.execute(f'DELETE FROM "{table}"')
            elif how == "rename":
                col = draw(st.sampled_from(cols))
                try:
                    con.execute(f'ALTER TABLE "{table}" RENAME COLUMN "{col}" TO "zz_{col}"')
                except sqlite3.Error:
                    pass
        con.commit()
        con.close()
        return Path(db).read_bytes()


def structure_mutation(target: Target, data: bytes) -> st.SearchStrategy:
    if target.kind == "json":
        return mutate_tree(json.loads(data)).map(lambda t: _dump_json(t).encode())
    if target.kind == "jsonl":
        lines = [json.loads(ln) for ln in data.splitlines() if ln.strip()]

        @st.composite
        def jsonl(draw):
            i = draw(st.integers(0, len(lines) - 1))
            out = [_dump_json(x) for x in lines]
            out[i] = _dump_json(draw(mutate_tree(json.loads(json.dumps(lines[i])))))
            return "\n".join(out).encode()
        return jsonl()
    if target.kind == "yaml":
        import yaml
        return mutate_tree(yaml.safe_load(data)).map(
            lambda t: _undeep(yaml.safe_dump(t, allow_unicode=True)).encode() if _yaml_ok(t) else b"[" * 5000)
    if target.kind == "csv":
        return csv_mutation(data)
    if target.kind == "toml":
        return toml_mutation(data)
    if target.kind == "sqlite":
        return sqlite_mutation(data)
    return st.text(max_size=200).map(lambda s: data + s.encode("utf-8", "surrogatepass"))


def _yaml_ok(tree) -> bool:
    try:
        import yaml
        yaml.safe_dump(tree)
        return True
    except Exception:
        return False


REPORT_SNIPPETS = ["<script>alert(1)</script>", "[x](javascript:alert(1))", "<style>*{}</style>",
                   "<iframe src=//e>", "<b onmouseover=alert(1)>", "![i](javascript:x)", "<a href='java\tscript:x'>",
                   "> " * 200 + "deep", "- " * 200 + "deep", "```\n", "| a |\n|---|\n| <img src=x> |",
                   "[r]: javascript:alert(1)\n[ref][r]", "&#x6a;avascript:", "<!--", "<![CDATA[x]]>", "\x00"]


def case_strategy(target: Target) -> st.SearchStrategy[bytes]:
    """The bytes of one fuzz case for ``target``."""
    data = seed(target)
    generated = st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")))
    options = [byte_mutation(data), structure_mutation(target, data), generated]
    if target.name == "REPORT.md":
        options.append(st.lists(st.sampled_from(REPORT_SNIPPETS), min_size=1, max_size=8).map(
            lambda parts: "\n".join(parts).encode()))
    return st.one_of(*options)


# ---------------------------------------------------------------- one case

def run_case(target: Target, data: bytes) -> str | None:
    """Write the case into a fresh temporary folder and call the reader.

    Returns None when it passed (read, or one-line InputError naming the file), else
    a description of the crash.
    """
    tmp = Path(tempfile.mkdtemp(prefix="kafuzz-"))
    try:
        for name, content in (target.companions() if target.companions else {}).items():
            (tmp / name).write_bytes(content)
        (tmp / target.filename).write_bytes(data)
        try:
            target.call(tmp)
        except InputError as err:
            msg = str(err)
            if target.filename not in msg:
                return f"InputError does not name {target.filename}: {msg[:300]}"
            if "\n" in msg or "\r" in msg:
                return f"InputError is not one line: {msg[:300]!r}"
        except Exception as err:  # noqa: BLE001 - the point of the fuzz
            tb = traceback.extract_tb(err.__traceback__)
            where = next((f"{os.path.relpath(f.filename, REPO)}:{f.lineno}" for f in reversed(tb)
                          if "/generator/" in f.filename), "?")
            return f"{type(err).__name__} at {where}: {str(err)[:200]}"
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def available(target: Target) -> bool:
    """False when the seed's real file is absent (the shared sweep not beside the repo)."""
    try:
        seed(target)
        return True
    except (OSError, ImportError):
        return False

