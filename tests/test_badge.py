"""The verdict badge holds its text, whatever its length, and says the verdict word (issue 40, point 1).

Each text's width is measured apart from the code under test: from the advance widths of the font file
itself (DejaVu Sans, the font the badge names after Verdana; read by tests/data/make_badge_widths.py's
own parser, not through generator/data/badge_widths.json) at the badge's 11 px; each box must hold its
text and its padding. tests/test_browser_badge.py measures the same badges in Chromium.
"""

from __future__ import annotations

import dataclasses
import json
import importlib.util
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from generator.site import render
from generator.site.views import pr
from generator.words import ratio_text
from test_render import built_site  # noqa: F401  (the real site, built once per session; same test folder)

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
MAKER = Path(__file__).resolve().parent / "data" / "make_badge_widths.py"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def font_px():
    """``font_px(text)``: the text's width at 11 px from the font file's own cmap and hmtx tables."""
    if not FONT.exists():
        pytest.skip(f"{FONT} is absent (apt install fonts-dejavu-core)")
    spec = importlib.util.spec_from_file_location("make_badge_widths", MAKER)
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    data = FONT.read_bytes()
    t = maker.tables(data)
    units = struct.unpack(">H", data[t["head"][0] + 18: t["head"][0] + 20])[0]
    n = struct.unpack(">H", data[t["hhea"][0] + 34: t["hhea"][0] + 36])[0]
    gids = maker.cmap4(data, t["cmap"][0])

    def advance(ch: str) -> int:
        gid = min(gids[ord(ch)], n - 1)
        return struct.unpack(">H", data[t["hmtx"][0] + 4 * gid: t["hmtx"][0] + 4 * gid + 2])[0]
    return lambda text: sum(advance(ch) for ch in text) * 11 / units


def boxes(svg: bytes) -> list[tuple[str, float, float, float]]:
    """(text, box width, text width given, text centre - box centre) of each text of a badge."""
    root = ET.fromstring(svg)
    rects = root.findall(f"{SVG}rect")
    texts = root.findall(f"{SVG}g/{SVG}text")
    out = []
    for rect, text in zip(rects, texts):
        x, w = float(rect.get("x", 0)), float(rect.get("width"))
        out.append((text.text, w, float(text.get("textLength")), float(text.get("x")) - (x + w / 2)))
    return out


def check_fits(svg: bytes, font_px) -> list[str]:
    """Each text's box holds its measured width and the padding each side, the text centred in it."""
    out = []
    for text, width, given, offset in boxes(svg):
        measured = font_px(text)
        assert given == pytest.approx(measured, abs=0.01), text  # the width the SVG asks for is the font's
        assert width >= measured + 2 * pr.BADGE_PAD - 0.01, (text, width, measured)
        assert offset == pytest.approx(0, abs=1e-9)
        out.append(text)
    return out


def test_the_width_table_is_the_fonts(font_px):
    # DejaVu Sans at 11 px: "a" 1255/2048 em, "W" 2025/2048 (the font's hmtx)
    assert pr.text_px("a") == pytest.approx(font_px("a"), abs=0.01) == pytest.approx(1255 * 11 / 2048, abs=0.01)
    assert pr.text_px("no like-for-like baseline") == pytest.approx(font_px("no like-for-like baseline"), abs=0.01)
    assert pr.text_px("判定") == 22  # a character the table lacks counts as a full em (CJK)


def test_every_badge_of_the_sweep_holds_its_text(built_site, font_px):
    seen = {}
    for svg in sorted((built_site / "badges").glob("*.svg")):
        seen[svg.stem] = check_fits(svg.read_bytes(), font_px)
    # the left box says the verdict word, BLOCKED included; the right box what it rests on
    assert seen["vec_add"][0] == "HEADROOM" and seen["pa"][0] == "HEADROOM"


@pytest.mark.full_sweep
def test_a_blocked_badge_says_blocked_and_its_reason(built_site, font_px):
    svg = (built_site / "badges" / "fused_rope_cache.svg").read_bytes()
    assert check_fits(svg, font_px) == ["BLOCKED", "no like-for-like baseline"]
    (text, width, _, _), (reason, rwidth, _, _) = boxes(svg)
    # the broken badge: a 59 px right box under 162-182 px of reason text
    assert rwidth == 12 + -(-font_px(reason) // 1) and rwidth > 128
    title = ET.fromstring(svg).find(f"{SVG}title").text
    assert title.startswith("Fused RoPE + KV-Cache: BLOCKED no like-for-like baseline (not like-for-like: ")


HANDMADE_REASONS = ("x", "timed on the call clock only",
                    "handmade: a reason far longer than any the verdict engine gives today, with a long tail" * 2,
                    "handmade: 判定 BLOCKED — ≥ 0.95 · µs")


@pytest.mark.parametrize("reason", HANDMADE_REASONS)
def test_a_handmade_reason_of_any_length_fits(kernel, font_px, reason):
    """A real row (vec_add) made BLOCKED with hand-made reasons, short to very long, other scripts too."""
    _, row = kernel("vec_add")
    blocked = dataclasses.replace(row, verdict="BLOCKED", verdict_label="BLOCKED", blocked_reason=reason)
    svg = render.render_badge(pr.badge_view(blocked))
    texts = [t for t, *_ in boxes(svg)]
    assert texts == ["BLOCKED", reason]
    widths = {t: w for t, w, *_ in boxes(svg)}
    assert widths[reason] >= pr.text_px(reason) + 2 * pr.BADGE_PAD - 0.01
    if all(ord(c) < 0x2E80 for c in reason):  # the font file has no CJK glyph to measure
        check_fits(svg, font_px)


def test_a_ratio_is_never_rounded_across_its_threshold():
    # moe_reduce's 0.9469 beside "HEADROOM < 0.95x": two decimals would read 0.95x, on the PARITY side
    assert ratio_text(0.9469, (0.95, 1.05)) == "0.947x"
    assert ratio_text(1.0496, (0.95, 1.05)) == "1.0496x"  # 1.050 would read WIN
    assert ratio_text(0.87, (0.95, 1.05)) == "0.87x" and ratio_text(1.1944, (0.95, 1.05)) == "1.19x"
    assert ratio_text(0.9499999999, (0.95, 1.05)) == "0.949999x" and ratio_text(None) == "\u2014"
    assert ratio_text(0.9496, (0.95, 1.05), unit="") == "0.9496"  # an interval's end, in its cell
    for x in (0.9449, 0.94951, 0.9496, 1.04951, 1.0496, 1.0504, 0.95, 1.05):
        shown = float(ratio_text(x, (0.95, 1.05))[:-1])
        assert (shown < 0.95) == (x < 0.95) and (shown < 1.05) == (x < 1.05), x


def test_the_badge_and_row_show_the_threshold_safe_ratio(kernel):
    _, row = kernel("vec_add")
    near = dataclasses.replace(row, ratio=0.9469, ratio_text=ratio_text(0.9469, (0.95, 1.05)))
    svg = render.render_badge(pr.badge_view(near))
    assert [t for t, *_ in boxes(svg)][1].startswith("0.947x")


# ---------------------------------------------------------------- the verdicts footer follows the data


@pytest.mark.full_sweep
def test_the_markdown_footer_says_which_ratios_are_off_the_kernel_clock(sweep, capsys):
    """``verdicts --markdown`` says "Every ratio is on the kernel clock" only where it holds: the kernels
    whose verdict shapes compare eager vs eager (their candidate's and verdict baseline's timing methods
    differ, read from ``verdicts --json --shapes``) or whose pair's clock is not the kernel's are named."""
    from generator import cli

    assert cli.main(["verdicts", str(sweep), "--json", "--shapes"]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = []
    for op, s in sorted(doc["campaigns"].items()):
        if s.get("verdict_value") is None:
            continue
        if s["verdict_basis"] == "shapes":
            verdict = [sh for sh in s["shapes"] if sh["measured"] and sh["verdict_baseline"] and not sh["at_floor"]]
            eager = [sh for sh in verdict if _methods_differ(sh["providers"][s["candidate"]],
                                                             sh["providers"][sh["verdict_baseline"]])]
            if eager:
                want.append(f"`{op}`: {len(eager)} of its {len(verdict)} verdict shapes compared eager vs eager")
        elif s["verdict_basis"] == "pair" and s.get("pair_clock") != "kernel":
            want.append(f"`{op}`: its profiled pair's clock is")
    assert cli.main(["verdicts", str(sweep), "--markdown"]) == 0
    footer = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Speedup = "))
    if not want:
        assert "Every ratio is on the kernel clock (graph replay after an L2 flush, `median_us`). " in footer
    else:
        assert "Every ratio is on the kernel clock (graph replay after an L2 flush, `median_us`) but these: " in footer
        for w in want:
            assert w in footer
        said = footer.split(" but these: ", 1)[1].split(". Launch overhead")[0]
        assert said.count("`: ") == len(want)


def _methods_differ(a: dict, b: dict) -> bool:
    return bool(a.get("timing_method") and b.get("timing_method") and a["timing_method"] != b["timing_method"])


def test_a_build_without_base_url_says_its_pr_links_are_relative(sweep, tmp_path, capsys, monkeypatch):
    from generator import cli
    from test_snapshot import make_sweep_copy

    monkeypatch.delenv("KERNEL_ATLAS_BASE_URL", raising=False)
    small = make_sweep_copy(sweep, tmp_path / "small", (), {"vec_add": None})
    assert cli.main(["build", str(small), "--out", str(tmp_path / "a"), "--jobs", "1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("kernel-atlas: 1 kernel: 1 built") and err[-1].endswith(
        " (no --base-url: the links of pr/<slug>.md and its badge are relative; pass --base-url "
        "https://<where the site is published>/ for a pull request)")  # said in the closing line
    assert (tmp_path / "a" / "pr" / "vec_add.md").read_text().startswith("[![Vector Add: HEADROOM](badges/vec_add.svg)]")
    url = "https://team.example.invalid/atlas/"
    assert cli.main(["build", str(small), "--out", str(tmp_path / "b"), "--jobs", "1", "--base-url", url]) == 0
    assert "--base-url" not in capsys.readouterr().err
    assert (tmp_path / "b" / "pr" / "vec_add.md").read_text().startswith(f"[![Vector Add: HEADROOM]({url}badges/vec_add.svg)]")


@pytest.mark.full_sweep
def test_the_pr_snippet_of_a_blocked_kernel_says_its_reason_once(built_site):
    line = (built_site / "pr" / "fused_rope_cache.md").read_text().splitlines()[0]
    assert line.startswith("[![Fused RoPE + KV-Cache: BLOCKED](badges/fused_rope_cache.svg)](kernels/fused_rope_cache/) "
                           "[Fused RoPE + KV-Cache](kernels/fused_rope_cache/): **BLOCKED**, no like-for-like baseline")
    assert line.count("no like-for-like baseline") == 1
