"""JSON through orjson when installed, with the standard library's values and errors."""

from __future__ import annotations

import json
import math

import pytest

from generator.errors import InputError
from generator.read import att, jsonio


def _code(sweep):
    return next((sweep / "examples" / "vec_add" / "att_viewer").glob("*/ui_output_agent_*")) / "code.json"


@pytest.mark.parametrize("fast", [True, False])
def test_a_real_code_json_parses_to_the_standard_librarys_values(sweep, monkeypatch, fast):
    if not fast:
        monkeypatch.setattr(jsonio, "orjson", None)
    raw = _code(sweep).read_bytes()
    doc = jsonio.loads(raw)
    assert doc == json.loads(raw)
    row = doc["code"][1]
    assert row[:4] == ["s_load_dwordx2 s[4:5], s[0:1], 0x0", 0, 1,
                       "/sgl-workspace/FlyDSL-lab/tests/kernels/test_vec_add.py:28"]
    assert row[7:9] == [31680, 29152]


def test_what_orjson_refuses_is_read_as_the_standard_library_reads_it():
    assert math.isnan(jsonio.loads(b'{"x": NaN}')["x"])
    assert jsonio.loads(b"[18446744073709551616]") == [2 ** 64]  # beyond 64 bits
    assert jsonio.loads('["\\ud800"]') == ["\ud800"]  # a lone surrogate
    assert jsonio.loads(b'{"a": 1, "a": 2}') == {"a": 2}
    with pytest.raises(json.JSONDecodeError) as err:
        jsonio.loads(b'{"code": [1, 2')
    assert "Expecting ',' delimiter" in str(err.value)


def test_a_truncated_capture_file_still_names_the_file(tmp_path):
    bad = tmp_path / "code.json"
    bad.write_bytes(b'{"code": [["s_endpgm", 0, 1')
    with pytest.raises(InputError) as err:
        att.read_json(str(bad))
    assert str(bad) in str(err.value) and "not valid JSON (truncated or corrupt)" in str(err.value)


@pytest.mark.parametrize("fast", [True, False])
def test_written_json_is_sorted_utf8_and_spells_no_number_json_lacks(monkeypatch, fast):
    if not fast:
        monkeypatch.setattr(jsonio, "orjson", None)
    doc = {"b": [1.5, float("nan"), float("inf")], "a": {"z": "中文", "y": None}, "c": (1, 2)}
    assert jsonio.dumps_sorted(doc, indent=False) == \
        '{"a":{"y":null,"z":"中文"},"b":[1.5,null,null],"c":[1,2]}\n'.encode("utf-8")
    indented = jsonio.dumps_sorted(doc, indent=True).decode("utf-8")
    assert indented.startswith('{\n  "a": {\n    "y": null,\n    "z": "中文"\n  },\n  "b": [\n    1.5,\n')
    assert json.loads(indented) == {"a": {"y": None, "z": "中文"}, "b": [1.5, None, None], "c": [1, 2]}


def test_a_real_capture_document_writes_the_same_values_both_ways(sweep, monkeypatch):
    """A real capture document (vec_add's code.json) as orjson and the standard library write
    it: the same values (float spellings may differ)."""
    doc = jsonio.loads(_code(sweep).read_bytes())
    fast = jsonio.dumps_sorted(doc, indent=False)
    monkeypatch.setattr(jsonio, "orjson", None)
    assert json.loads(fast) == json.loads(jsonio.dumps_sorted(doc, indent=False)) == doc


def test_compact_writes_what_json_dumps_writes():
    import enum

    class Level(enum.IntEnum):
        HIGH = 3

    values = ["n", "é\u2028\"q\\", 7, -5, 10**30, True, False, None, 1.5, -0.0, 1e-7, 1e16,
              float("nan"), float("-inf"), [1, "a"], {}, {"seq": 128, "causal": True, "scale": 0.125},
              {"b": 1, "a": "é"}, {"nested": [1, 2]}, Level.HIGH, {"level": Level.HIGH}]
    for value in values:
        for sort_keys in (False, True):
            want = json.dumps(value, separators=(",", ":"), sort_keys=sort_keys)
            assert jsonio.compact(value, sort_keys=sort_keys) == want
    assert jsonio.compact({"seq": 128, "causal": True}, sort_keys=True) == '{"causal":true,"seq":128}'
