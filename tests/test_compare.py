"""compare: two captures of one kernel side by side, on the real flash_attn_func captures
(small, before vs after the source-location fix) and on hand-made analyses."""

from __future__ import annotations

import json
import shutil

import pytest

from generator.analyze import analysis, compare
from generator.read import discover
from generator.model import Bundle, CaptureAnalysis, CaptureRef, LineHotspot

LOC = "/sgl-workspace/jin/flash_attn_func_probe/kernels/flash_attn_func.py:"
NUMERIC = "/sgl-workspace/jin/flash_attn_func_probe/build-fly/python_packages/flydsl/expr/numeric.py:872"
SMALL = "ui_output_agent_32235_dispatch_44"
SMALL_FIX = "ui_output_agent_58550_dispatch_44_after_loc_fix"


def bundle_analyses(sweep, name):
    b = discover.discover(sweep / "examples" / name).bundles[0]
    return b, [a for r in analysis.analyze_bundle(b) for a in r.analyses]


@pytest.fixture(scope="module")
def flash(sweep):
    return bundle_analyses(sweep, "flash_attn_func")


@pytest.fixture(scope="module")
def small_fix(flash):
    _, analyses = flash
    by_name = {a.capture: a for a in analyses}
    return compare.compare_captures(by_name[SMALL], by_name[SMALL_FIX])


@pytest.mark.full_sweep  # the slice keeps the small run before the fix only
def test_totals_of_small_before_and_after_loc_fix(small_fix):
    rows = {t.name: (t.a, t.b, t.delta) for t in small_fix.totals}
    assert rows["instructions"] == (2069, 2069, 0)
    # 4 vs 8 sampled waves: the cycle sums get no delta (their note says they are not comparable)
    assert rows["total_cycles"] == (208060, 342176, None)
    assert rows["total_stall_cycles"] == (107884, 176060, None)
    assert rows["waves"] == (4, 8, 4)
    assert rows["stall_ratio"][:2] == (107884 / 208060, 176060 / 342176)
    assert rows["mapped_fraction"] == (1.0, 1.0, 0.0)


@pytest.mark.full_sweep  # the slice keeps the small run before the fix only
def test_stall_type_shares_side_by_side(small_fix):
    got = [(r.type, r.a_cycles, r.b_cycles) for r in small_fix.stall_types]
    assert got == [
        ("other", 30096, 49808),
        ("LDS/SMEM-wait", 24556, 40704),
        ("VMEM-wait", 22236, 35928),
        ("VMEM-store", 10964, 21924),
        ("MFMA/FMA", 8924, 14176),
        ("barrier", 5236, 8236),
        ("VMEM-load", 4416, 2764),
        ("LDS", 1456, 2520),
    ]
    load = next(r for r in small_fix.stall_types if r.type == "VMEM-load")
    assert load.a_share == 4416 / 107884
    assert load.b_share == 2764 / 176060
    assert load.delta == 2764 / 176060 - 4416 / 107884  # -2.5 points after the fix
    store = next(r for r in small_fix.stall_types if r.type == "VMEM-store")
    assert round(store.delta * 100, 2) == 2.29


@pytest.mark.full_sweep  # the slice keeps the small run before the fix only
def test_top_lines_matched_by_source_loc(small_fix):
    rows = {r.source_loc: r for r in small_fix.lines}
    # the fix moved the attribution: line 257 (69.1 % before) is gone, 258 leads after
    r257 = rows[LOC + "257"]
    assert (r257.a_rank, r257.b_rank, r257.a_stall_cycles, r257.b_share) == (1, None, 74564, None)
    assert r257.a_share == 74564 / 107884 and r257.a_dominant_type == "other" and r257.delta is None
    r258 = rows[LOC + "258"]
    assert (r258.a_rank, r258.b_rank, r258.b_stall_cycles, r258.b_dominant_type) == (None, 1, 70588, "VMEM-wait")
    both = rows[NUMERIC]
    assert (both.a_rank, both.b_rank, both.a_stall_cycles, both.b_stall_cycles) == (3, 5, 6396, 11608)
    assert both.delta == 11608 / 176060 - 6396 / 107884
    # 4 stalling lines in A's top 15, 15 in B's, one shared: 18 rows, largest share first
    assert len(small_fix.lines) == 18
    assert [r.source_loc for r in small_fix.lines[:4]] == [LOC + "257", LOC + "258", LOC + "283", LOC + "1152"]
    assert small_fix.lines[-1].source_loc == LOC + "514" and small_fix.lines[-1].a_stall_cycles == 16


@pytest.mark.full_sweep  # the slice keeps the small run before the fix only
def test_wave_states_side_by_side(small_fix, sweep):
    expected = json.loads((sweep / "expected" / "wave_states.json").read_text())
    a = expected[f"examples/flash_attn_func/att_viewer/small/{SMALL}"]
    b = expected[f"examples/flash_attn_func/att_viewer/small/{SMALL_FIX}"]
    got = {r.state: r for r in small_fix.wave_states}
    assert list(got) == ["IDLE", "EXEC", "WAIT", "STALL"]
    for state in got:
        assert got[state].a_share == pytest.approx(a[state], rel=1e-12)
        assert got[state].b_share == pytest.approx(b[state], rel=1e-12)
    # DOMAIN §1.1: IDLE 0.4 %, EXEC 48.4 %, WAIT 34.8 %, STALL 16.4 % before the fix
    assert [round(got[s].a_share * 100, 1) for s in got] == [0.4, 48.4, 34.8, 16.4]
    assert round(got["EXEC"].delta * 100, 2) == 0.66


@pytest.mark.full_sweep  # the slice keeps the small run before the fix only
def test_notes_explain_the_difference(small_fix):
    assert small_fix.notes == [
        "4 vs 8 sampled waves: cycle totals are not comparable, shares are",
        "3 top lines appear only in A and 14 only in B: A and B run the same 2,069 instructions, 2,062 of them "
        "attributed to other source lines; the source attribution changed, not the code",
    ]


@pytest.mark.full_sweep  # the slice keeps the small run before the fix only
def test_to_json_is_plain_json(small_fix):
    obj = json.loads(json.dumps(small_fix.to_json(), sort_keys=True))
    assert obj["a"]["capture"] == SMALL and obj["b"]["capture"] == SMALL_FIX
    assert obj["stall_types"][0] == {
        "type": "other", "a_cycles": 30096, "b_cycles": 49808, "a_share": 30096 / 107884,
        "b_share": 49808 / 176060, "delta": 49808 / 176060 - 30096 / 107884}
    assert obj["wave_states"][0]["state"] == "IDLE"
    assert len(obj["lines"]) == 18


@pytest.mark.full_sweep
def test_pairs_of_flash_attn_func(flash):
    bundle, analyses = flash
    pairs = compare.pairs_to_compare(bundle, analyses)
    got = [(p.kind, p.title, p.a.label, p.a.capture, p.b.label, p.b.capture) for p in pairs]
    assert got == [
        ("recapture", "small: before vs after_loc_fix", "small", SMALL, "small", SMALL_FIX),
        ("recapture", "big: before vs after_loc_fix", "big", "ui_output_agent_38430_dispatch_44",
         "big", "ui_output_agent_55287_dispatch_44_after_loc_fix"),
        ("labels", "small vs big", "small", SMALL_FIX, "big", "ui_output_agent_55287_dispatch_44_after_loc_fix"),
    ]


@pytest.mark.full_sweep
def test_pairs_of_two_labels(sweep):
    bundle, analyses = bundle_analyses(sweep, "pa_mqa_logits_fp4")
    pairs = compare.pairs_to_compare(bundle, analyses)
    assert [(p.kind, p.a.capture, p.b.capture) for p in pairs] == [
        ("labels", "ui_output_agent_32435_dispatch_197", "ui_output_agent_55351_dispatch_426")]


def test_no_pairs_of_one_capture(sweep):
    bundle, analyses = bundle_analyses(sweep, "vec_add")
    assert [c.name for c in bundle.captures] == ["ui_output_agent_14705_dispatch_25"]
    assert compare.pairs_to_compare(bundle, analyses) == []


# ---------------------------------------------------------------- a hand-made re-capture of a real one

MOVED = "ui_output_agent_1_dispatch_44_handmade_loc_moved"


def make_handmade_loc_moved_bundle(sweep, into):
    """flash_attn_func with its small capture SMALL (the slice holds it too) and a hand-made re-capture of it:
    the same files, but code.json's rows of flash_attn_func.py:283 (130 instructions, 26,908 stall cycles)
    say line 284, which no row of SMALL names: a source attribution that moved, as the loc fix moved it."""
    src, dest = sweep / "examples" / "flash_attn_func", into / "examples" / "flash_attn_func"
    for sub in ("compute_viewer", "source"):
        (dest / sub).mkdir(parents=True)
        for f in (src / sub).iterdir():
            if f.suffix in (".csv", ".yaml"):
                shutil.copyfile(f, dest / sub / f.name)
    small = dest / "att_viewer" / "small"
    shutil.copytree(src / "att_viewer" / "small" / SMALL, small / SMALL)
    shutil.copytree(src / "att_viewer" / "small" / SMALL, small / MOVED)
    code = json.loads((small / MOVED / "code.json").read_text())
    moved = 0
    for row in code["code"]:
        if row[3] == LOC + "283":
            row[3], moved = LOC + "284", moved + 1
    assert moved == 130
    (small / MOVED / "code.json").write_text(json.dumps(code))
    return dest


@pytest.fixture(scope="module")
def moved(sweep, tmp_path_factory):
    bundle = make_handmade_loc_moved_bundle(sweep, tmp_path_factory.mktemp("moved"))
    return bundle_analyses(bundle.parent.parent, "flash_attn_func")


def test_handmade_recapture_pairs_with_its_original(moved):
    bundle, analyses = moved
    assert [(p.kind, p.title, p.a.capture, p.b.capture) for p in compare.pairs_to_compare(bundle, analyses)] == [
        ("recapture", "small: before vs handmade_loc_moved", SMALL, MOVED)]


def test_handmade_moved_line_changes_only_the_line_rows(moved):
    """Worked from SMALL's code.json (rows with an int pc > 0): 2,069 instructions, 208,060 cycles, 107,884
    stall cycles on four lines: 257 (74,564), 283 (26,908), numeric.py:872 (6,396), 514 (16). The copy
    moves 283 to 284 and nothing else: every total, type and wave state equal, one line only in each."""
    _, analyses = moved
    by_name = {a.capture: a for a in analyses}
    c = compare.compare_captures(by_name[SMALL], by_name[MOVED])
    rows = {t.name: (t.a, t.b, t.delta) for t in c.totals}
    assert rows["instructions"] == (2069, 2069, 0)
    assert rows["total_cycles"] == (208060, 208060, 0)
    assert rows["total_stall_cycles"] == (107884, 107884, 0)
    assert rows["waves"] == (4, 4, 0) and rows["mapped_fraction"] == (1.0, 1.0, 0.0)
    # A's column of the before/after comparison above, now on both sides
    assert [(r.type, r.a_cycles, r.b_cycles, r.delta) for r in c.stall_types] == [
        ("other", 30096, 30096, 0.0), ("LDS/SMEM-wait", 24556, 24556, 0.0), ("VMEM-wait", 22236, 22236, 0.0),
        ("VMEM-store", 10964, 10964, 0.0), ("MFMA/FMA", 8924, 8924, 0.0), ("barrier", 5236, 5236, 0.0),
        ("VMEM-load", 4416, 4416, 0.0), ("LDS", 1456, 1456, 0.0)]
    assert [(r.source_loc, r.a_rank, r.b_rank, r.a_stall_cycles, r.b_stall_cycles) for r in c.lines] == [
        (LOC + "257", 1, 1, 74564, 74564),
        (LOC + "283", 2, None, 26908, None),  # a tie on share: by source_loc
        (LOC + "284", None, 2, None, 26908),
        (NUMERIC, 3, 3, 6396, 6396),
        (LOC + "514", 4, 4, 16, 16),
    ]
    r283, r284 = c.lines[1], c.lines[2]
    assert r283.a_share == r284.b_share == 26908 / 107884 and r283.a_dominant_type == r284.b_dominant_type
    assert [r.delta for r in c.lines] == [0.0, None, None, 0.0, 0.0]
    assert [(r.state, r.delta) for r in c.wave_states] == [("IDLE", 0.0), ("EXEC", 0.0), ("WAIT", 0.0), ("STALL", 0.0)]
    assert [round(r.a_share * 100, 1) for r in c.wave_states] == [0.4, 48.4, 34.8, 16.4]  # DOMAIN §1.1
    assert c.notes == [  # the copy moves line 283's 130 instructions to 284
        "1 top line appears only in A and 1 only in B: A and B run the same 2,069 instructions, "
        "130 of them attributed to other source lines; the source attribution changed, not the code"]


# ---------------------------------------------------------------- hand-made analyses

def make_handmade_analysis(capture, label, by_type, lines, wave_states=None, waves=0, unit="cycles"):
    """A CaptureAnalysis with only the fields compare reads (instructions left empty)."""
    total = sum(by_type.values())
    hot = [LineHotspot(loc, stall, stall * 2, stall / total, 0.5, "VMEM-wait", {}, [])
           for loc, stall in lines]
    return CaptureAnalysis(
        kernel="k", capture=capture, label=label, path=f"k/att_viewer/{label}/{capture}", vendor="amd",
        arch="gfx950", arch_source="isa", stall_unit=unit, instructions=[], total_cycles=total * 2,
        total_stall_cycles=total, stall_ratio=0.5, stall_by_type=by_type, lines=hot, instruction_rank=[],
        source_mapped=(0, 0), instruction_mix={}, waves=[None] * waves, wave_states=wave_states)


def test_handmade_ties_keep_classifier_order_and_missing_wave_states():
    a = make_handmade_analysis("ui_output_agent_1_dispatch_5", "small",
                               {"barrier": 50, "VMEM-wait": 50}, [("f.py:1", 60), ("f.py:2", 40)])
    b = make_handmade_analysis("ui_output_agent_2_dispatch_5_fix", "small",
                               {"VMEM-wait": 25, "barrier": 75}, [("f.py:2", 75), ("f.py:3", 25)],
                               wave_states={"EXEC": 1.0}, unit="warp-stall samples")
    c = compare.compare_captures(a, b, topk=2)
    assert [(r.type, r.a_share, r.b_share, r.delta) for r in c.stall_types] == [
        ("barrier", 0.5, 0.75, 0.25), ("VMEM-wait", 0.5, 0.25, -0.25)]
    assert [(r.source_loc, r.a_rank, r.b_rank, r.a_share, r.b_share) for r in c.lines] == [
        ("f.py:2", 2, 1, 0.4, 0.75), ("f.py:1", 1, None, 0.6, None), ("f.py:3", None, 2, None, 0.25)]
    assert c.wave_states is None
    assert c.notes == [
        "the stall units differ (cycles vs warp-stall samples): compare shares only",
        "1 top line appears only in A and 1 only in B",  # no instructions: no cause said
        "A and B have no source mapping: line rows cannot match",
    ]


def test_handmade_pairs_match_recaptures_by_dispatch():
    caps = [("small", "ui_output_agent_1_dispatch_5"), ("small", "ui_output_agent_1_dispatch_7"),
            ("small", "ui_output_agent_9_dispatch_7_fix"), ("mid", "ui_output_agent_3_dispatch_2"),
            ("big", "ui_output_agent_4_dispatch_8")]
    refs = [CaptureRef(path="", rel=f"k/att_viewer/{l}/{n}", name=n, label=l) for l, n in caps]
    bundle = Bundle(name="k", path="", rel="k", captures=refs, primary=None, primary_rule="",
                    compute_files={}, source_files={}, report=None, readme=None)
    analyses = [make_handmade_analysis(n, l, {"other": 1}, []) for l, n in caps]
    got = [(p.kind, p.title, p.a.capture, p.b.capture) for p in compare.pairs_to_compare(bundle, analyses)]
    assert got == [
        ("recapture", "small: before vs fix", "ui_output_agent_1_dispatch_7", "ui_output_agent_9_dispatch_7_fix"),
        ("labels", "small vs mid", "ui_output_agent_9_dispatch_7_fix", "ui_output_agent_3_dispatch_2"),
        ("labels", "small vs big", "ui_output_agent_9_dispatch_7_fix", "ui_output_agent_4_dispatch_8"),
        ("labels", "mid vs big", "ui_output_agent_3_dispatch_2", "ui_output_agent_4_dispatch_8"),
    ]
