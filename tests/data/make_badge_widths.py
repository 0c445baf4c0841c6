"""Write ``generator/data/badge_widths.json``: the advance width of each character the verdict badge
may show, in DejaVu Sans (the font the badge names after Verdana, and the one a browser without
Verdana draws it in), read from the font file's own tables (``cmap`` format 4, ``hmtx``).

    python3 tests/data/make_badge_widths.py [/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf]

Widths are font units (``units_per_em`` to the em). DejaVu Sans is free (Bitstream Vera licence);
only its metrics are kept, no glyph. The badge (``site/views/pr.py``) sizes its boxes from this table
and tests/test_badge.py measures the text with it, and in Chromium.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
OUT = Path(__file__).resolve().parents[2] / "generator" / "data" / "badge_widths.json"
#: Printable ASCII, Latin-1, general punctuation, arrows and the comparison signs.
RANGES = ((0x20, 0x7E), (0xA0, 0xFF), (0x2010, 0x2027), (0x2190, 0x2193), (0x2260, 0x2265))


def tables(data: bytes) -> dict[str, tuple[int, int]]:
    """Table tag -> (offset, length)."""
    n = struct.unpack(">H", data[4:6])[0]
    out = {}
    for i in range(n):
        tag, _, off, length = struct.unpack(">4sIII", data[12 + 16 * i: 28 + 16 * i])
        out[tag.decode("latin-1")] = (off, length)
    return out


def cmap4(data: bytes, off: int) -> dict[int, int]:
    """Code point -> glyph id from the (3, 1) format-4 subtable."""
    n = struct.unpack(">H", data[off + 2: off + 4])[0]
    for i in range(n):
        plat, enc, sub = struct.unpack(">HHI", data[off + 4 + 8 * i: off + 12 + 8 * i])
        if (plat, enc) == (3, 1):
            break
    else:
        raise SystemExit("no (3, 1) cmap subtable")
    s = off + sub
    assert struct.unpack(">H", data[s: s + 2])[0] == 4, "cmap subtable is not format 4"
    segx2 = struct.unpack(">H", data[s + 6: s + 8])[0]
    seg = segx2 // 2
    ends = struct.unpack(f">{seg}H", data[s + 14: s + 14 + segx2])
    starts = struct.unpack(f">{seg}H", data[s + 16 + segx2: s + 16 + 2 * segx2])
    deltas = struct.unpack(f">{seg}h", data[s + 16 + 2 * segx2: s + 16 + 3 * segx2])
    ro_at = s + 16 + 3 * segx2
    ros = struct.unpack(f">{seg}H", data[ro_at: ro_at + segx2])
    out = {}
    for lo, hi in RANGES:
        for cp in range(lo, hi + 1):
            for k in range(seg):
                if starts[k] <= cp <= ends[k]:
                    if ros[k] == 0:
                        gid = (cp + deltas[k]) & 0xFFFF
                    else:
                        at = ro_at + 2 * k + ros[k] + 2 * (cp - starts[k])
                        gid = struct.unpack(">H", data[at: at + 2])[0]
                        gid = (gid + deltas[k]) & 0xFFFF if gid else 0
                    if gid:
                        out[cp] = gid
                    break
    return out


def main(font: str = FONT) -> None:
    data = Path(font).read_bytes()
    t = tables(data)
    units = struct.unpack(">H", data[t["head"][0] + 18: t["head"][0] + 20])[0]
    n_metrics = struct.unpack(">H", data[t["hhea"][0] + 34: t["hhea"][0] + 36])[0]
    hmtx = t["hmtx"][0]

    def advance(gid: int) -> int:
        return struct.unpack(">H", data[hmtx + 4 * min(gid, n_metrics - 1): hmtx + 4 * min(gid, n_metrics - 1) + 2])[0]

    widths = {chr(cp): advance(gid) for cp, gid in sorted(cmap4(data, t["cmap"][0]).items())}
    doc = {"font": "DejaVu Sans", "source": Path(font).name, "units_per_em": units, "widths": widths}
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(widths)} characters, {units} units per em")


if __name__ == "__main__":
    main(*sys.argv[1:])
