"""Two claims of a hand-written REPORT.md, checked against what we compute (issue 21, point 9).

A bundle's REPORT.md is the kernel team's reading. Two kinds of sentence in it can be checked:

- **occupancy**: "N wave(s)/SIMD" on a line that speaks of occupancy ("occupancy 1 wave/SIMD").
  Compared with the primary capture's occupancy (DOMAIN §1.3): it holds when N is the resources' cap, or
  the waves that run where the traced grid gives the busiest CU fewer (layernorm: cap 7, its 256 four-wave
  workgroups on 256 CUs give 1 per SIMD; rmsnorm: cap 8, 1,024 of them give 4), said beside it. When they differ, the known wrong reading
  whose arithmetic gives N is named (a match of numbers, not the report's reasoning): a 256-register pool
  (``256 // round_up(arch + accum, 8)``, only where VGPRs bind; gfx90a/gfx942/gfx950 have one pool of 512),
  or the kernel trace CSV's VGPR count, which rocprofv3 1.1 halves on gfx950.
- **wave states**: a line mapping the numbers 1-4 to state names, two of them at least
  wave-state words ("1=EXEC 2=WAIT 3=STALL 4=SLEEP"). Compared with the trace decoder's enum, 1=IDLE 2=EXEC 3=WAIT 4=STALL (DOMAIN §1.1).
  A mapping whose every name sits one number below ours is "shifted by one".

Nothing else in the report is read. Each check is
``{"what", "report", "computed", "holds", "why"}``: ``report`` the report's line as written,
``computed`` our value as text, ``why`` (a message, ``None`` when the claim holds) the reason
they differ. Example: "Occupancy: 1 wave/SIMD (VGPR-bound)" against a capture at 2 gives
``holds: False`` and "1 is what a 256-register pool gives (256 // 248); gfx950 has one pool of
512 VGPRs per SIMD ...: 512 // 248 gives 2".
"""

from __future__ import annotations

import re
from typing import Any

from generator.analyze import occupancy as occ_model
from generator.analyze.message import Msg, msg
from generator.model import Occupancy, WAVE_STATES, record

#: An occupancy figure: "2 waves/SIMD", "1 wave / SIMD", "2 waves per SIMD".
_WAVES = re.compile(r"(?<![\d.])(\d+)\s*waves?\s*(?:/|per)\s*SIMD", re.IGNORECASE)
_OCCUPANCY = re.compile(r"occupancy", re.IGNORECASE)
#: One "K=NAME" pair of a wave-state mapping ("1=EXEC", "2 = WAIT", "3: STALL").
_STATE_PAIR = re.compile(r"(?<!\d)([1-4])\s*[=:]\s*([A-Za-z]+)")
#: Names that make a "K=NAME" line a wave-state mapping (the decoder's, and those reports use).
STATE_WORDS = ("EMPTY", "IDLE", "EXEC", "WAIT", "STALL", "SLEEP")
#: The decoder's wave states by number (DOMAIN §1.1).
DECODER_STATES = {k + 1: name for k, name in enumerate(WAVE_STATES)}
#: Longest report line quoted in a check (the rest is elided).
QUOTE_CHARS = 200


@record(frozen=True)
class ReportCheck:
    """One checked claim: what kind, the report's line, our value, whether it holds, and why not."""

    what: str  # "occupancy" or "wave states"
    report: str
    computed: str
    holds: bool
    why: Msg | None = None

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "report": self.report, "computed": self.computed, "holds": self.holds,
                "why": self.why.to_json() if self.why else None}


def _quote(line: str) -> str:
    """A report line as quoted: Markdown emphasis and list marks stripped, long lines elided."""
    text = re.sub(r"[*_`>#|]+", " ", line)
    text = " ".join(text.lstrip("-+ ").split())
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS - 1] + "…"


def _waves_text(n: int) -> str:
    return f"{n} wave{'s' if n != 1 else ''}/SIMD"


def _occupancy_why(n: int, occ: Occupancy) -> Msg:
    """Why the report's ``n`` waves differ from ours: a known wrong reading, or just our limits."""
    total = occ.vgpr_total
    vgpr_binds = "VGPR" in occ.limiters  # else "512 // total gives {waves}" would be wrong arithmetic (or, at the
    # hardware max, no VGPR reading explains a lower figure)
    if occ.arch != "gfx908" and total and vgpr_binds and min(256 // total, occ.max_waves) == n:
        return msg("report.why.pool256", total=total, n=n, arch=occ.arch, waves=occ.waves_per_simd,
                   pool=occ_model.VGPR_POOL)
    csv = occ.arch_vgpr_csv
    if occ.vgpr_disagreement and csv and occ.arch == "gfx950":  # the message names rocprofv3 1.1's gfx950 halving
        csv_total = occ_model.round_up(csv + occ.accum_vgpr, 8)
        if min(occ_model.VGPR_POOL // csv_total, occ.lds_limit, occ.sgpr_limit, occ.max_waves) == n:
            return msg("report.why.csv", csv=csv, isa=occ.arch_vgpr_isa, n=n, waves=occ.waves_per_simd)
    return msg("report.why.limits", vgpr=occ.vgpr_limit, lds=occ.lds_limit, sgpr=occ.sgpr_limit,
               waves=occ.waves_per_simd)


def occupancy_checks(lines: list[str], occ: Occupancy | None) -> list[ReportCheck]:
    """Every "N wave(s)/SIMD" stated on a line about occupancy, against the computed occupancy."""
    if occ is None:
        return []
    out = []
    for line in lines:
        if not _OCCUPANCY.search(line):
            continue
        m = _WAVES.search(line)
        if not m:
            continue
        out.append(_occupancy_check(line, int(m.group(1)), occ))
    return out


def _occupancy_check(line: str, n: int, occ: Occupancy) -> ReportCheck:
    """One stated occupancy against the cap, or against the waves that run where the grid gives fewer."""
    if n == occ.waves_per_simd:
        return ReportCheck("occupancy", _quote(line), _waves_text(n), True)
    if n == occ.resident:  # the report counts the waves that run on the captured grid
        return ReportCheck("occupancy", _quote(line), _waves_text(n), True,
                           msg("report.why.grid", cap=occ.waves_per_simd, n=n))
    return ReportCheck("occupancy", _quote(line), _waves_text(occ.waves_per_simd), False, _occupancy_why(n, occ))


def _mapping_text(states: dict[int, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(states.items()))


def wave_state_checks(lines: list[str]) -> list[ReportCheck]:
    """Every line mapping two or more of the numbers 1-4 to state names, against the decoder's enum."""
    out = []
    for line in lines:
        pairs = {int(k): name.upper() for k, name in _STATE_PAIR.findall(line)}
        if sum(name in STATE_WORDS for name in pairs.values()) < 2:  # "Step 1: load, 2: compute" is no mapping
            continue
        holds = all(DECODER_STATES[k] == name for k, name in pairs.items())
        why = None
        if not holds:
            shifted = all(DECODER_STATES.get(k + 1) == name for k, name in pairs.items() if k < 4)
            unknown = sorted({name for name in pairs.values() if name not in WAVE_STATES})
            why = msg("report.why.states.shifted" if shifted else "report.why.states",
                      ours=_mapping_text(DECODER_STATES),
                      unknown=msg("report.why.states.unknown", names=", ".join(unknown)) if unknown else "")
        out.append(ReportCheck("wave states", _quote(line), _mapping_text(DECODER_STATES), holds, why))
    return out


def check_report(text: str, occ: Occupancy | None) -> list[ReportCheck]:
    """The occupancy and wave-state claims of a report, each checked, in the order they appear."""
    out: list[ReportCheck] = []
    for line in text.splitlines():
        out += occupancy_checks([line], occ) + wave_state_checks([line])
    return out
