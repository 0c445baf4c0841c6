"""Bad input: one clear line naming the file and the problem, never a traceback.

Every broken capture here is hand-made (functions named ``make_handmade_*``): real
data cannot show a truncated or hostile file. Each starts from a real shared capture
copied into a temporary folder, then one file is damaged.
"""

from __future__ import annotations

import json
import shutil

import pytest

from generator.analyze import analysis
from generator import cli
from generator.read import discover

SMALL = "examples/fused_rope_cache/att_viewer/big/ui_output_agent_4253_dispatch_8781"


def make_handmade_capture(sweep, tmp_path, name="ui_output_agent_1_dispatch_1"):
    """A copy of a small real capture (fused_rope_cache, 207 instructions)."""
    dst = tmp_path / name
    shutil.copytree(sweep / SMALL, dst)
    return dst


def run_analyze(path, capsys):
    code = cli.main(["analyze", str(path)])
    captured = capsys.readouterr()
    return code, captured.err.strip().splitlines()


def assert_one_line_error(code, err, fragment, filename):
    assert code == 2
    assert len(err) == 1, err
    assert err[0].startswith("kernel-atlas: error: ")
    assert filename in err[0] and fragment in err[0], err[0]
    assert "Traceback" not in err[0]


def test_missing_code_json(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    (cap / "code.json").unlink()
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, "file is missing", "code.json")


def test_truncated_code_json(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    text = (cap / "code.json").read_text()
    (cap / "code.json").write_text(text[: len(text) // 2])
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, "not valid JSON (truncated or corrupt)", "code.json")


def test_non_json_code_json(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    (cap / "code.json").write_text("ISA,_,LineNumber\nnot json at all\n")
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, "not valid JSON", "code.json")


def test_code_json_without_code_list(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    (cap / "code.json").write_text(json.dumps({"rows": []}))
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, 'expected an object with a "code" list', "code.json")


def edit_row(cap, index, change):
    data = json.loads((cap / "code.json").read_text())
    change(data["code"][index])
    (cap / "code.json").write_text(json.dumps(data))


def test_row_of_wrong_length(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    edit_row(cap, 5, lambda row: row.pop())
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, "row 5: 9 cells, expected 10", "code.json")


def test_string_in_numeric_cell(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    edit_row(cap, 7, lambda row: row.__setitem__(8, "12abc"))
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, "row 7: stall_cycles is '12abc', not a number", "code.json")


def test_nan_in_numeric_cell(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    data = (cap / "code.json").read_text()
    rows = json.loads(data)
    rows["code"][3][7] = 0.5  # placeholder, replaced by a bare NaN token below
    text = json.dumps(rows).replace("0.5", "NaN", 1)
    (cap / "code.json").write_text(text)
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, "row 3: total_cycles is nan, not a number", "code.json")


def test_null_and_float_cells_count_as_zero_with_a_note(sweep, tmp_path, capsys):
    """The reference counts non-int cells as 0; so do we, and the note says so."""
    cap = make_handmade_capture(sweep, tmp_path)
    data = json.loads((cap / "code.json").read_text())
    row = data["code"][1]
    stall_before = row[8]
    row[8] = None
    data["code"][2][7] = 12.5
    (cap / "code.json").write_text(json.dumps(data))
    swp = discover.discover(cap)
    a = analysis.analyze_sweep(swp)[0].analyses[0]
    assert a.total_stall_cycles == 12412 - stall_before
    assert any("2 numeric cells" in n for n in a.notes)


@pytest.mark.parametrize("local", ["../../outside.py", "/etc/passwd", "sub/../../x.py"])
def test_snapshot_pointing_outside_is_refused(sweep, tmp_path, capsys, local):
    cap = make_handmade_capture(sweep, tmp_path)
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    (cap / "snapshots.json").write_text(json.dumps({"/": {"k": {"a.py": local}}}))
    code, err = run_analyze(cap, capsys)
    assert_one_line_error(code, err, "points outside the capture", "snapshots.json")


def test_snapshot_inside_capture_gives_source_context(sweep, tmp_path, capsys):
    cap = make_handmade_capture(sweep, tmp_path)
    lines = [f"line {i}" for i in range(1, 201)]
    (cap / "source_0_kernel.py").write_text("\n".join(lines) + "\n")
    data = json.loads((cap / "code.json").read_text())
    vpath = data["code"][1][3].rsplit(":", 1)[0]
    parts = vpath.strip("/").split("/")
    tree = "source_0_kernel.py"
    for p in reversed(parts):
        tree = {p: tree}
    (cap / "snapshots.json").write_text(json.dumps({"/": tree}))
    assert cli.main(["analyze", str(cap), "--detail", "--context", "1", "--topk", "20"]) == 0
    out = capsys.readouterr().out
    line_no = int(data["code"][1][3].rsplit(":", 1)[1])
    assert f">> {line_no:>5} | line {line_no}" in out


def test_folder_that_is_not_a_capture(tmp_path, capsys):
    folder = tmp_path / "handmade_not_a_capture"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello")
    code, err = run_analyze(folder, capsys)
    assert_one_line_error(code, err, "no kernel bundles or captures found", "handmade_not_a_capture")


def test_missing_path(tmp_path, capsys):
    code, err = run_analyze(tmp_path / "nope", capsys)
    assert_one_line_error(code, err, "no such file or directory", "nope")


def make_handmade_sweep(sweep, tmp_path):
    """Two real bundles; one gains a corrupt capture and an empty shell."""
    root = tmp_path / "handmade_sweep"
    for name in ("fused_rope_cache", "vec_add"):
        shutil.copytree(sweep / "examples" / name, root / "examples" / name)
    big = root / "examples/fused_rope_cache/att_viewer/big"
    broken = big / "ui_output_agent_9_dispatch_9_handmade_truncated"
    shutil.copytree(big / "ui_output_agent_4253_dispatch_8781", broken)
    (broken / "code.json").write_text('{"code": [["s_nop 0", 0, 1, "a.py:1", ')
    shell = big / "ui_output_agent_8_dispatch_8_handmade_empty_shell"
    shell.mkdir()
    (shell / "code.json").write_text('{"code": [["; kernel", 0, 0, "", 0, 0, 0, 0, 0, 0]]}')
    return root


def test_broken_capture_inside_sweep_is_marked_and_rest_analyzed(sweep, tmp_path, capsys):
    root = make_handmade_sweep(sweep, tmp_path)
    results = analysis.analyze_sweep(discover.discover(root))
    status = {r.ref.name: r.status for r in results}
    assert status == {
        "ui_output_agent_4253_dispatch_8781": "ok",
        "ui_output_agent_8_dispatch_8_handmade_empty_shell": "skipped",
        "ui_output_agent_9_dispatch_9_handmade_truncated": "broken",
        "ui_output_agent_14705_dispatch_25": "ok",
    }
    shell = next(r for r in results if r.status == "skipped")
    assert shell.ref.skipped == "empty shell: no instructions and no wave files"
    assert cli.main(["analyze", str(root), "--json"]) == 0
    captured = capsys.readouterr()
    objs = json.loads(captured.out)
    assert [o["capture"] for o in objs] == ["ui_output_agent_4253_dispatch_8781", "ui_output_agent_14705_dispatch_25"]
    err = captured.err.strip().splitlines()
    assert any(l.startswith("kernel-atlas: skipped ") and "empty shell" in l for l in err)
    assert any(l.startswith("kernel-atlas: broken ") and "not valid JSON" in l for l in err)


def test_empty_shell_alone_is_explained(sweep, tmp_path, capsys):
    root = make_handmade_sweep(sweep, tmp_path)
    shell = root / "examples/fused_rope_cache/att_viewer/big/ui_output_agent_8_dispatch_8_handmade_empty_shell"
    code, err = run_analyze(shell, capsys)
    assert_one_line_error(code, err, "empty shell", "handmade_empty_shell")
