"""AMD PC-sampling captures read as a capture kind of their own (DOMAIN §1.1), and code.json label rows.

The capture is ROCprof Compute Viewer's own test capture (tests/data/rcv_pcsampling, see its README):
``reference_gemm<4>`` on ROCm 7.1.1. Worked from its code.json by the few independent lines in
``_raw`` below: 1,635 rows, one label row (``; _Z14reference_gemm...``, pc_index 0), 1,634
instructions; PC_Stalled sums to 3,384 and PC_Issued to 1,306; the most stalled instruction is
``s_barrier`` at amd_device_functions.h:692 (153, Stall_Reasons position 5 = Barrier), then
``s_waitcnt vmcnt(0)`` at kernel.cpp:561 (147 = 6 at position 1, Inst Fetch, + 141 at position 3,
Waitcnt). The reason names and their order are the viewer's (src/config/config.cpp,
``StallReasonColors``: NONE, Inst Fetch, ALU Dep, Waitcnt, Internal, Barrier, ARB Loss, Pipe Stall,
Other Wait, Sleeping).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.analyze import analysis
from generator.errors import InputError
from generator.read import att, discover, pcsampling

DATA = Path(__file__).resolve().parent / "data" / "rcv_pcsampling"
REPO = Path(__file__).resolve().parent.parent
FILES = ("code.json", "filenames.json", "snapshots.json", "source_2_kernel.cpp")


def _raw() -> tuple[list, list]:
    """The instruction rows (asm does not begin with ';') and the header, read without the package."""
    doc = json.loads((DATA / "code.json").read_text())
    return [r for r in doc["code"] if not r[0].startswith(";")], doc["header"]


def _analysis():
    sweep = discover.discover(DATA)
    (result,) = analysis.analyze_sweep(sweep)
    assert result.error is None, result.error
    (a,) = result.analyses
    return a


def test_the_raw_file_holds_the_hand_checked_numbers():
    rows, header = _raw()
    stalled, issued, reasons = header.index("PC_Stalled"), header.index("PC_Issued"), header.index("Stall_Reasons")
    assert len(rows) == 1634 and sum(r[stalled] for r in rows) == 3384 and sum(r[issued] for r in rows) == 1306
    top = sorted(rows, key=lambda r: -r[stalled])[:2]
    assert (top[0][0], top[0][3].endswith("amd_device_functions.h:692"), top[0][stalled]) == ("s_barrier", True, 153)
    assert top[0][reasons][5] == 153
    assert (top[1][0], top[1][3].endswith("kernel.cpp:561"), top[1][stalled]) == ("s_waitcnt vmcnt(0)", True, 147)
    assert (top[1][reasons][1], top[1][reasons][3]) == (6, 141)
    assert json.loads((DATA / "filenames.json").read_text())["wave_filenames"] is None


def test_a_pc_sampling_capture_is_its_own_kind():
    a = _analysis()
    assert a.kind == "pc_sampling" and a.sampled and a.stall_unit == "samples"
    assert a.total_stall_cycles == 3384 and a.total_cycles == 3384 + 1306
    assert len(a.instructions) == 1634 and a.jit_kernel.startswith("_Z14reference_gemm")
    first, second = a.top_instructions(2)
    assert (first.asm, first.stall_cycles, first.source_loc.endswith("amd_device_functions.h:692")) == ("s_barrier", 153, True)
    assert first.extra["stall_reasons"] == {"Barrier": 153}
    assert (second.asm, second.stall_cycles, second.source_loc.endswith("kernel.cpp:561")) == ("s_waitcnt vmcnt(0)", 147, True)
    assert second.extra["stall_reasons"] == {"Inst Fetch": 6, "Waitcnt": 141}
    assert sum(a.extra["stall_by_reason"].values()) == 3384
    assert list(a.extra["stall_by_reason"]) == [r for r in pcsampling.STALL_REASONS if r in a.extra["stall_by_reason"]]
    # no wave sections, and a note says why
    assert a.waves == [] and a.wave_states is None and a.waves_summary is None and a.working is None
    assert any("PC-sampling capture" in n and "wave states" in n for n in a.notes)


def test_its_source_lines_rank_by_stalled_samples():
    rows, header = _raw()
    stalled = header.index("PC_Stalled")
    by_line: dict[str, int] = {}
    for r in rows:
        by_line[r[3]] = by_line.get(r[3], 0) + r[stalled]
    best = max(by_line, key=by_line.get)
    line = _analysis().hot_lines(1)[0]
    assert (line.source_loc, line.stall_cycles) == (best, by_line[best])


def test_analyze_text_and_json_name_the_unit_and_leave_waves_out():
    out = subprocess.run([sys.executable, "-m", "generator", "analyze", str(DATA)], capture_output=True, text=True,
                         cwd=REPO)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Total samples: 4,690 samples" in text and "Stalled:       3,384 samples  (72.2% of all samples)" in text
    assert "Total stalls:  0" not in text and "Wave states" not in text and "Total idle" not in text
    assert "(by stalled samples)" in text and "Stall Reasons  (stalled samples)" in text
    top = next(ln for ln in text.splitlines() if ln.strip().startswith("1 ") and "s_barrier" in ln)
    assert "153" in top and "[Barrier]" in top
    js = subprocess.run([sys.executable, "-m", "generator", "analyze", str(DATA), "--json"], capture_output=True,
                        text=True, cwd=REPO)
    assert js.returncode == 0, js.stderr
    doc = json.loads(js.stdout)
    doc = doc[0] if isinstance(doc, list) else doc
    assert doc["capture_kind"] == "pc_sampling" and doc["stall_unit"] == "samples"
    assert doc["total_stall_cycles"] == 3384 and doc["total_issued_samples"] == 1306 and "total_idle_cycles" not in doc
    assert doc["top_instructions"][0]["asm"] == "s_barrier" and doc["top_instructions"][0]["stall_cycles"] == 153
    assert doc["top_instructions"][0]["reason"] == "Barrier" and doc["top_instructions"][0]["issued_samples"] == 0
    assert doc["waves"] is None and doc["wave_states"] is None and doc["waves_summary"] is None


def test_the_kernel_page_and_api_document(tmp_path, monkeypatch):
    cap = tmp_path / "sweep" / "examples" / "reference_gemm" / "att_viewer" / "pcs" / "ui_output_agent_0_dispatch_0"
    cap.mkdir(parents=True)
    for name in FILES:
        shutil.copy(DATA / name, cap / name)
    from generator.site import build, i18n

    monkeypatch.setattr(i18n, "STRICT", True)  # every sentence shown has a message key
    out = tmp_path / "site"
    build.build_site(tmp_path / "sweep", out, progress=False)
    html = (out / "kernels" / "reference_gemm" / "index.html").read_text(encoding="utf-8")
    for wave_word in ('data-i18n="cap.wavestates"', 'data-i18n="cap.timeline"', 'data-i18n="cap.nowavestates"'):
        assert wave_word not in html, wave_word
    assert 'data-i18n="fact.stall.samples"' in html and 'data-i18n="unit.samples"' in html
    assert 'data-i18n="col.reason.pcs"' in html and "Barrier" in html and "PC-sampling capture" in html
    doc = json.loads((out / "api" / "kernels" / "reference_gemm.json").read_text())
    a = doc["captures"][0]["analysis"]
    assert a["capture_kind"] == "pc_sampling" and a["total_stall_cycles"] == 3384
    assert a["top_instructions"][0]["stall_cycles"] == 153
    advice = doc["captures"][0].get("advice") or []
    assert advice and all(f["stall_unit"] == "samples" for f in advice)
    zh = (out / "kernels" / "reference_gemm" / "index.html").read_text(encoding="utf-8")
    assert "占停顿样本的" in zh or "停顿样本" in zh


def test_the_plan_counts_samples():
    from generator.analyze import advice

    found = advice.advise(_analysis())
    assert found and all(f.stall_unit == "samples" for f in found)
    from generator.site import wording

    lines = advice.format_plan(found, lambda m: wording.plain("en", m))
    assert not any("cycles" in ln for ln in lines), [ln for ln in lines if "cycles" in ln]
    barrier = next(f for f in found if f.detector == "barrier_dominated")
    assert barrier.messages["summary"].key == "finding.barrier_dominated.summary.pcs"
    assert barrier.premise.key == "finding.barrier_dominated.premise.pcs"
    assert "6 barrier instructions hold 22.6% of the stalled samples (top: pc 102, 153 samples)" in "\n".join(lines)
    assert not any(f.detector == "early_exit_waves" for f in found)  # nothing said about waves


def test_pc_sampling_without_the_sample_columns_is_refused_in_one_line(tmp_path):
    for name in FILES:
        shutil.copy(DATA / name, tmp_path / name)
    doc = json.loads((tmp_path / "code.json").read_text())
    doc["header"] = doc["header"][:10]  # handmade: the sample columns not named
    (tmp_path / "code.json").write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        pcsampling.load_samples(str(tmp_path / "code.json"))
    assert "PC_Issued, PC_Stalled, Stall_Reasons" in str(err.value) and "code.json" in str(err.value)


def test_its_filenames_json_lists_no_wave_and_is_not_refused():
    assert att.load_waves(str(DATA)) == []


def test_handmade_second_kernel_label_row_is_not_an_instruction(tmp_path):
    """rocprofiler-sdk's writer gives a second kernel's label row ``line_number - 1`` as its pc_index,
    not 0 (DOMAIN §1.1). No real code.json of the shared sweep or the viewer's samples holds one (every
    label row there has pc_index 0), so this fixture is hand-made: the viewer's capture with a second
    label row at pc_index 800 inserted before row 800."""
    doc = json.loads((DATA / "code.json").read_text())
    label = ["; _Z12second_kernelv", 0, 800, "", 2, 0, 0, 0, 0, 0, 0, 0, [0] * 10]
    doc["code"].insert(800, label)
    (tmp_path / "code.json").write_text(json.dumps(doc))
    ins, name, _ = pcsampling.load_samples(str(tmp_path / "code.json"))
    assert len(ins) == 1634 and not any(i.asm.startswith(";") for i in ins)
    assert name.startswith("_Z14reference_gemm")  # the first label names the kernel
    att_doc = {"header": "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle",
               "code": [["; kernel_a", 0, 0, "", 0, 0, 0, 0, 0, 0], ["s_endpgm", 0, 1, "", 0, 4, 1, 8, 2, 0],
                        ["; kernel_b", 0, 1, "", 0, 0, 0, 0, 0, 0], ["s_nop 0", 0, 2, "", 0, 8, 1, 4, 1, 0]]}
    (tmp_path / "att.json").write_text(json.dumps(att_doc))
    ins, name, _ = att.load_code(str(tmp_path / "att.json"))
    assert [i.asm for i in ins] == ["s_endpgm", "s_nop 0"] and name == "kernel_a"
    assert att.is_label("; kernel_b", 7) and att.is_label("s_nop", 0) and att.is_label("s_nop", None)
    assert not att.is_label("s_nop 0", 2)
