"""The kernel trace read once (rocprof.KernelTrace): one kernel's rows are exactly what parsing the
whole CSV and matching every row gives, whether or not the file takes the one-line fast path."""

from __future__ import annotations

import glob
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.errors import InputError
from generator.read import rocprof

HEADER = '"Kind","Kernel_Name","Start_Timestamp","End_Timestamp"\n'


def _reference(path, wanted):
    """What a build used before the trace was read once: every row a dict, then match_kernel."""
    try:
        rows = rocprof.read_csv_dicts(path)
    except InputError as err:
        return "error", err.message
    if rows and "Kernel_Name" not in rows[0]:
        return "error", InputError(path, "kernel trace has no Kernel_Name column").message
    return rocprof.match_kernel(rows, wanted)


def _fresh(path, wanted):
    rocprof._TRACES.clear()
    try:
        return rocprof.kernel_dispatches(path, wanted)
    except InputError as err:
        return "error", err.message


@pytest.mark.parametrize("text, simple", [
    (HEADER + '"K","k_0",1,2\n"K","other, with a comma",3,4\n', True),
    (HEADER + '"K","",1,2\n', True),  # an empty quoted field
    (HEADER + '"K","k ""quoted"" _0",1,2\n', False),  # a doubled quote
    (HEADER + '"K","k\n_0",1,2\n', False),  # a line break inside quotes: one record, two lines
    (HEADER + '"K",x"k_0,"1,2\n', False),  # a quote inside an unquoted field
    (HEADER + '"K", "k_0",1,2\n', False),  # a quote after a space: csv keeps it in the field
    (HEADER + '"K","k_0",1,2\r\n', False),  # carriage returns end records too
    (HEADER + '"K","k_0"x,1,2\n', False),  # text after a closing quote
    (HEADER + '"K","k_0,1,2\n', False),  # an odd number of quotes
])
def test_one_line_records(text, simple):
    assert rocprof._one_line_records(text) is simple


@pytest.mark.parametrize("body", [
    '"K","k_0",1,2\n"K","k",3,9\n"K","k_00",1,2\n"K"," k_0 ",5,6\n',
    '"K","k ""q"" _0",1,2\n"K","k_0",3,4\n',
    '"K","k\n_0",1,2\n"K","k_0",3,4\n',
    '"K",x"k_0,"1,2\n"K","k_0",3,4\n',
    '"K","k_0",1,2,extra\n"K","k_0"\n\n"K","k_0",7,8',
    '"K","k_0",1,2\r\n"K","k_0",3,4\r\n',
])
@pytest.mark.parametrize("wanted", ["k", "k_0", "k_00", "", "x"])
def test_dispatches_are_match_kernels(tmp_path, body, wanted):
    path = tmp_path / "discover_kernel_trace.csv"
    path.write_text(HEADER + body, encoding="utf-8", newline="")
    assert _fresh(path, wanted) == _reference(path, wanted)


def test_trace_without_kernel_names_or_rows(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('"Kind","Start"\n"K",1\n', encoding="utf-8")
    assert _fresh(path, "k") == ("error", InputError(path, "kernel trace has no Kernel_Name column").message)
    path.write_text('"Kind","Start"\n\n', encoding="utf-8")
    assert _fresh(path, "k") == []
    path.write_text("\n", encoding="utf-8")
    assert _fresh(path, "k") == ("error", InputError(path, "empty CSV (no header row)").message)


CELLS = st.sampled_from(['"k_0"', '"k"', "k_0", '"k,_0"', '"', '""', ",", "\n", "\r", " ", "1", '"K"', "x"])


@settings(max_examples=300, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(body=st.lists(CELLS, max_size=40).map("".join))
def test_any_text_reads_as_the_whole_parse_does(tmp_path, body):
    path = tmp_path / "discover_kernel_trace.csv"
    path.write_text(HEADER + body, encoding="utf-8", newline="")
    for wanted in ("k", "k_0", "k,"):
        assert _fresh(path, wanted) == _reference(path, wanted), (body, wanted)


def test_the_sweep_traces_take_the_fast_path_and_agree(sweep):
    paths = sorted(glob.glob(str(sweep / "examples/*/compute_viewer/*kernel_trace.csv")))
    assert len(paths) == len(list((sweep / "examples").iterdir()))  # one per bundle: 13 in the sweep
    for path in paths:
        with open(path, newline="", encoding="utf-8") as fh:
            assert rocprof._one_line_records(fh.read()), path
        rows = rocprof.read_kernel_trace(path)
        names = {r["Kernel_Name"] for r in rows}
        for name in itertools.islice(sorted(names), 6):
            assert rocprof.kernel_dispatches(path, name) == rocprof.match_kernel(rows, name), (path, name)


def test_pa_trace_names_its_kernel_with_a_suffix(sweep):
    """The JIT kernel is asked for without its ``_0``: pa's trace holds 13 rows named
    pa_decode_ps_kernel_0 (dispatches 201, 203, ..., 225; the captured 209 among them), nothing else
    starting pa_decode (read from compute_viewer/discover_kernel_trace.csv)."""
    pa = sweep / "examples/pa/compute_viewer/discover_kernel_trace.csv"
    rows = rocprof.kernel_dispatches(pa, "pa_decode_ps_kernel")
    assert (len(rows), rows[0]["Kernel_Name"], rows[0]["Dispatch_Id"]) == (13, "pa_decode_ps_kernel_0", "201")
    assert [r["Dispatch_Id"] for r in rows] == [str(d) for d in range(201, 227, 2)]


@pytest.mark.parametrize("header", [HEADER, '"Kind","Kernel_Name","Start_Timestamp","Start_Timestamp"\n'])
@pytest.mark.parametrize("body", [
    '"K","k_0",1,2\n"K","k",3,9\n"K","k_00",1,2\n"K"," k_0 ",5,6\n',
    '"K","k ""q"" _0",1,2\n"K","k_0",3,4\n',
    '"K","k_0",1,2,extra\n"K","k_0"\n\n"K","k_0",7,8\n"K","k_0",7',
])
@pytest.mark.parametrize("columns", [("Start_Timestamp", "End_Timestamp"), ("End_Timestamp",), ("Kind", "Nope")])
def test_cells_are_the_dicts_cells(tmp_path, header, body, columns):
    """``cells_starting_with`` gives what ``starting_with``'s dicts hold (None for a short row or a
    column the header lacks; a repeated column's last cell, as a dict keeps it)."""
    path = tmp_path / "discover_kernel_trace.csv"
    path.write_text(header + body, encoding="utf-8", newline="")
    for wanted in ("k", "k_0", ""):
        rocprof._TRACES.clear()
        trace = rocprof.kernel_trace(path)
        assert trace.cells_starting_with(wanted, columns) == [tuple(r.get(c) for c in columns)
                                                              for r in trace.starting_with(wanted)]
