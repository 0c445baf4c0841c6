"""Property-based fuzz of every reader (issue 14 point 7): only InputError naming the file escapes.

Each reader of ``tests/fuzzing.py`` gets a few hypothesis cases here (derandomized, so the
suite is stable and takes seconds); ``benchmarks/fuzz.py`` runs 10,000+ random ones. The
crashes the bench found are kept below as fixed cases.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing

#: Cases per reader in the suite (KERNEL_ATLAS_FUZZ_EXAMPLES to raise it locally).
EXAMPLES = int(os.environ.get("KERNEL_ATLAS_FUZZ_EXAMPLES", "8"))

settings.register_profile(
    "kernel-atlas-suite", max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def _target(name: str) -> fuzzing.Target:
    target = next(t for t in fuzzing.TARGETS if t.name == name)
    if not fuzzing.available(target):
        pytest.skip(f"seed of {name} absent (the shared sweep is expected at ../shared/mi350x-sweep)")
    return target


@pytest.mark.parametrize("name", [t.name for t in fuzzing.TARGETS])
@settings(settings.get_profile("kernel-atlas-suite"))
@given(data=st.data())
def test_reader_raises_only_input_error_naming_the_file(name, data):
    target = _target(name)
    case = data.draw(fuzzing.case_strategy(target), label="case")
    assert fuzzing.run_case(target, case) is None


DEEP = ("[" * 5000 + "]" * 5000).encode()


@pytest.mark.parametrize("name, case", [
    # crashes benchmarks/fuzz.py found (each was a traceback before the fix)
    ("att code.json", DEEP),  # RecursionError
    ("att code.json", b'{"code": [[' + b"9" * 5000 + b"]]}"),  # ValueError: int beyond the digit limit
    ("att filenames.json", b'{"wave_filenames": {"0": {"0": {"0": {"0": {"a": 1}}}}}}'),  # KeyError
    ("att wstates", b'{"state": ["x", 1], "time": [0, 1000000000000]}'),  # "x" * 10**12
    ("ncu provenance.json", DEEP),  # RecursionError
    ("shape ledger", DEEP),  # RecursionError
    ("results JSONL", DEEP),  # RecursionError
], ids=["code-deep", "code-huge-int", "filenames-dict-entry", "wstates-text-times-huge", "provenance-deep",
        "ledger-deep", "results-deep"])
def test_fixed_crashes(name, case):
    assert fuzzing.run_case(_target(name), case) is None


def test_results_with_an_object_in_a_provenance_column():
    target = _target("results JSONL")
    rows = [json.loads(ln) for ln in fuzzing.seed(target).splitlines() if ln.strip()]
    rows[0]["gpu"] = {"nested": [1, 2]}  # TypeError: unhashable type: 'dict' before the fix
    assert fuzzing.run_case(target, "\n".join(json.dumps(r) for r in rows).encode()) is None


def test_results_with_an_integer_beyond_any_float():
    target = _target("results JSONL")
    first = fuzzing.seed(target).splitlines()[0].decode()
    rec = json.loads(first)
    rec["median_us"] = 0
    text = json.dumps(rec).replace('"median_us": 0', '"median_us": 1' + "0" * 400)
    err = fuzzing.run_case(target, text.encode())  # OverflowError before the fix
    assert err is None


def _csv_with_cell(seed: bytes, row: int, column: int, value: str) -> bytes:
    import csv
    import io
    rows = list(csv.reader(io.StringIO(seed.decode())))
    rows[row][column] = value
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL).writerows(rows)
    return out.getvalue().encode()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_ncu_details_id_that_is_not_finite(value):
    target = _target("ncu details.csv")  # ValueError: cannot convert float NaN to integer before the fix
    assert fuzzing.run_case(target, _csv_with_cell(fuzzing.seed(target), 1, 0, value)) is None


def test_rocpd_dispatch_id_that_is_text(tmp_path):
    import sqlite3
    target = _target("rocpd SQLite")
    db = tmp_path / "x.db"
    db.write_bytes(fuzzing.seed(target))
    con = sqlite3.connect(db)
    table = next(n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE name LIKE 'rocpd_kernel_dispatch%'"))
    con.execute(f'UPDATE "{table}" SET dispatch_id = \'\'')  # ValueError: int('') before the fix
    con.commit()
    con.close()
    assert fuzzing.run_case(target, db.read_bytes()) is None


def test_rocpd_text_that_is_not_utf8(tmp_path):
    import sqlite3
    target = _target("rocpd SQLite")
    db = tmp_path / "x.db"
    db.write_bytes(fuzzing.seed(target))
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE zzzzqq (x)")
    con.commit()
    con.close()
    # a malformed schema whose error message (holding the name) is not UTF-8
    data = db.read_bytes().replace(b"CREATE TABLE zzzzqq (x)", b"CREATE TABLX zz\xffzqq (x)")
    data = data.replace(b"zzzzqq", b"zz\xffzqq")
    assert fuzzing.run_case(target, data) is None  # UnicodeDecodeError before the fix
