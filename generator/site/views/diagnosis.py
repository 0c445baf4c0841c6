"""The one-line diagnosis, the first step and the HEADROOM severity of a kernel.

All three are computed from the evidence the kernel page already shows, so they stay right
after every regeneration:

- **bound**: the label most of the candidate's measured shapes carry on the roofline
  (``generator.analyze.roofline``); a tie, or no roofline, is settled by the primary
  capture's stalls (VMEM types >= 50 % of the stall cycles: memory-bound, but latency-bound where the
  grid leaves CUs without a workgroup; MFMA/FMA first: compute-bound; else latency-bound). A capture with no working wave says
  "unrepresentative capture" instead (DOMAIN §1.5).
- **stall**: the dominant stall type and its share; over the working waves when early-exit
  waves hold >= 20 % of the stalls (the hotspots the page ranks then).
- **occupancy**: waves per SIMD with the resource that binds ("hardware max" when none).
- **early exit**: noted when early-exit waves hold >= 20 % of the stall cycles.
- **roof**: the achieved fraction of the roof: the capture's HBM bandwidth when the advice
  measured it (the streaming finding), else the candidate's best measured shape on the
  roofline, among the shapes of the bound the roofline names ("best compute-bound shape"); beside
  latency-bound, which means below 25 % of the roof, the best of all measured shapes with its own
  bound (DOMAIN §1.7: a class is not a finding). Shapes whose candidate row runs above a roof (HBM
  or compute, VERDICTS rule 9), was timed on the call clock (eager events, rule 13) or runs below
  1.25 x the timing floor (rule 11: the harness's fixed cost sets that time) are no evidence, as the
  roofline decides each point (its ``no_bound_why``, the panel's "no bound" column): the
  bound and the roof fraction leave them out and say how many, once (pa: "latency-bound (9 of 10
  shapes; 2 shapes on the call clock left out)"; softmax, 40 of whose 49 latency-bound shapes sat at
  the floor: "memory-bound (24 of 33 shapes; 40 shapes at the timing floor left out)"). Where the graph replay misses work (rule
  16: moe_gemm, moe_blockscale) no candidate row is: no roofline clause, the capture's stalls name
  the bound.
- **configuration**: when the capture is another configuration than the candidate's timed rows
  (``config_match``, DOMAIN §1.7) the roofline's clauses come first, then a ``config`` clause saying
  so, then the capture's; no tie of the roofline is settled by that capture, and the first step and
  the severity carry the note (``config_note``).

Each clause carries the anchor of its evidence on the kernel page (``#roofline``, ``#c1``,
``#advice-c1-f0``) and its text in English and 中文. Severity: a HEADROOM verdict ratio g is
``near`` (g >= near), ``tune`` (tune <= g < near) or ``rewrite`` (g < tune); thresholds from
``[severity]`` in kernel-atlas.toml. Its detail: headroom / g to reach the PARITY band, and the
losing shapes of the evidence g is taken over. Example (vec_add on the shared sweep)::

    memory-bound (7 of 7 shapes; 5 shapes at the timing floor left out), 82% VMEM-wait, 8 waves/SIMD (hardware max), best memory-bound shape at 61% of the roof
    near: needs 1.04x to reach parity (0.95x), 3 of 7 verdict shapes lose
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from generator.analyze import config_match, ncu_metrics, occupancy
from generator.analyze.advice import first
from generator.analyze.verdicts import loses
from generator.analyze.message import Items, Msg, msg
from generator.site import wording
from generator.site.views.base import CaptureData, KernelData
from generator.words import ratio_text

BOUNDS = ("memory-bound", "compute-bound", "latency-bound")
LATENCY = "latency-bound"
MEMORY_STALLS = ("VMEM-wait", "VMEM-load", "VMEM-store")
COMPUTE_STALLS = ("MFMA/FMA",)
#: VMEM share of the stall cycles from which the capture reads memory-bound.
MEMORY_SHARE = 0.50
#: Early-exit share of the stall cycles from which the diagnosis notes the early exits
#: (the same threshold from which the page ranks the working waves: DOMAIN §1.5).
EARLY_EXIT_NOTE = 0.20
#: Longest first-step sentence before it is shortened at a word boundary.
FIRST_STEP_CHARS = 140
FIRST_STEP_ZH_CHARS = 70
SEVERITIES = ("near", "tune", "rewrite")


@dataclass
class Clause:
    """One clause of the diagnosis: its words and where its evidence is on the kernel page."""

    key: str  # bound, capture, stall, occupancy, early_exit, roof
    text: str
    zh: str
    anchor: str  # "#roofline", "#c1", "#advice-c1-f0"

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def clause(key: str, m: Msg, anchor: str) -> Clause:
    """A clause worded by the catalogues (``diag.*``): its English and its 中文."""
    return Clause(key, wording.plain("en", m), wording.plain("zh", m), anchor)


def pct(fraction: float) -> str:
    """A share as a whole percentage: ``82%``."""
    return f"{fraction * 100:.0f}%"


def primary_index(k: KernelData) -> int | None:
    """Position of the primary capture in ``k.captures`` (its page anchor is ``c<i>``)."""
    prim = k.primary
    return next((i for i, c in enumerate(k.captures) if c is prim), None)


# ---------------------------------------------------------------- bound

def evidence(k: KernelData) -> tuple[set[str], dict[str, int]]:
    """Measured shapes whose candidate row is evidence for a reading of the kernel, and the others by why, as
    the roofline decided them (``RooflinePoint.no_bound_why``, one source for the panel and the diagnosis):
    ``above_roof`` (VERDICTS rule 9: less work than modelled, or cached), ``call_clock`` (rule 13: the row was
    timed with eager events, its time holds the host's call: pa_decode's two sliding-window shapes, 437 and
    431 us against a 91 us graph replay at the same size), ``partial_replay`` (rule 16: the graph replay misses
    work, so no candidate graph row is kernel evidence: moe_gemm's 2 unflagged shapes, moe_blockscale's 2; their
    other 7 and 2 run above a roof), ``at_floor`` (rules 11 and 13: a candidate time below 1.25 x the timing
    floor is the harness's fixed cost, not the kernel's: 40 of softmax's 49 latency-bound shapes, 83 of rmsnorm's
    124). A measured shape without a candidate point (a row with no throughput) is neither."""
    left = {"above_roof": 0, "call_clock": 0, "partial_replay": 0, "at_floor": 0}
    ok = set()
    for sid, p in candidate_points(k).items():
        why = p.get("no_bound_why")
        if why in left:
            left[why] += 1
        elif not why:
            ok.add(sid)
    return ok, left


def candidate_points(k: KernelData) -> dict[str, dict[str, Any]]:
    """The candidate's roofline point of each measured shape (the last one where a shape has several rows)."""
    s, r = k.score, k.roofline
    if s is None or not r:
        return {}
    measured = {sh.shape_id for sh in s.shapes if sh.measured}
    return {p["shape_id"]: p for p in r.get("points") or []
            if p.get("provider") == s.candidate and p.get("shape_id") in measured}


def left_msg(left: dict[str, int]) -> Msg | str:
    """"; 2 shapes above a roof left out", "; 40 shapes at the timing floor left out", several of them, or ""."""
    parts = [msg(key, n=left[name]) for name, key in LEFT_KEYS if left.get(name)]
    if not parts:
        return ""
    said = parts[-1]
    for part in reversed(parts[:-1]):
        said = msg("diag.leftout.both", a=part, b=said)
    return said


#: The shapes left out of a roofline reading, by why, in the order they are said.
LEFT_KEYS = (("above_roof", "diag.leftout"), ("call_clock", "diag.leftout.call"), ("at_floor", "diag.leftout.floor"))


def evidence_points(k: KernelData) -> list[dict[str, Any]]:
    """The candidate's roofline points that are evidence (``evidence``): one per measured shape that carries a bound."""
    return [p for p in candidate_points(k).values() if not p.get("no_bound_why")]


def roofline_bounds(k: KernelData) -> Counter:
    """Bound labels of the candidate's roofline points on measured shapes below every roof."""
    return Counter(p.get("bound") for p in evidence_points(k) if p.get("bound") in BOUNDS)


def memory_share(stall_by_type: dict[str, int]) -> float:
    """The VMEM types' share of the stall cycles (moe_blockscale: 77.7 %, of which VMEM-wait 41.3 %)."""
    total = sum(stall_by_type.values())
    return sum(stall_by_type.get(t, 0) for t in MEMORY_STALLS) / total if total > 0 else 0.0


def capture_bound(stall_by_type: dict[str, int], idle_cus: bool = False) -> str | None:
    """The bound a capture's stalls suggest: VMEM >= 50 % memory, MFMA first compute, else latency. Stalls
    show where waves wait, not a saturated bandwidth: where the grid leaves CUs without a workgroup
    (``idle_cus``) the VMEM waits are latency with most of the device idle, so latency-bound (moe_blockscale:
    78 % VMEM with 40 workgroups on 256 CUs)."""
    if sum(stall_by_type.values()) <= 0:
        return None
    if memory_share(stall_by_type) >= MEMORY_SHARE:
        return "latency-bound" if idle_cus else "memory-bound"
    top = max(stall_by_type.items(), key=lambda kv: kv[1])[0]
    return "compute-bound" if top in COMPUTE_STALLS else "latency-bound"


def idle_grid(prim: CaptureData | None) -> dict[str, Any] | None:
    """The small-grid finding's evidence where the traced grid leaves CUs without a workgroup (its
    ``workgroups``, ``cu_count``, ``idle_cus``), else None. moe_blockscale's dispatch 668: a 256x40 grid of
    256-thread workgroups = 40 workgroups on the agent's 256 CUs, 216 idle."""
    for f in (prim.findings or []) if prim is not None else []:
        ev = f.get("evidence")
        if f.get("detector") == "small_grid" and isinstance(ev, dict) and (ev.get("idle_cus") or 0) > 0:
            return ev
    return None


def stall_source(c: CaptureData) -> tuple[dict[str, int], bool]:
    """Stall cycles by type the diagnosis reads (working waves when the page ranks them), and whether
    they are the working waves'."""
    a = c.analysis
    if a.working is not None and a.working.total_stall_cycles > 0:
        return dict(a.working.stall_by_type), True
    return dict(a.stall_by_type), False


def bound_clause(k: KernelData, prim: CaptureData | None, anchor: str) -> tuple[Clause | None, dict[str, Any]]:
    """The bound clause and its machine values (``bound``, ``bound_source``, ``bound_shapes``). A capture of
    another configuration than the timed rows (DOMAIN §1.7) settles no tie of the roofline's."""
    counts = roofline_bounds(k)
    idle = idle_grid(prim)
    stalls = capture_bound(stall_source(prim)[0], idle is not None) if prim is not None else None
    if counts:
        if other_config(k):
            stalls = None
        n = sum(counts.values())
        best = max(counts.values())
        tied = [b for b in BOUNDS if counts.get(b) == best]
        label = stalls if stalls in tied else tied[0]
        left = evidence(k)[1]
        info = {"bound": label, "bound_source": "roofline", "bound_shapes": [counts[label], n],
                "left_out": sum(left.values()), "left_out_by": left}
        if len(tied) > 1:
            info["bound_source"] = "roofline, tie settled by the capture's stalls" if stalls in tied else "roofline"
        said = msg("diag.bound.shapes", bound=msg(f"diag.bound.{label}"), k=counts[label], n=n, left=left_msg(left))
        return clause("bound", said, "#roofline"), info
    if stalls is not None:  # the VMEM share the rule read, said: the stall clause beside names one type only
        vmem = memory_share(stall_source(prim)[0])
        said = msg("diag.bound.capture", bound=msg(f"diag.bound.{stalls}"), vmem=pct(vmem))
        if idle is not None and vmem >= MEMORY_SHARE:  # memory waits with most CUs idle: latency, said why
            said = msg("diag.bound.capture.idle", bound=msg(f"diag.bound.{stalls}"), vmem=pct(vmem),
                       wgs=idle["workgroups"], cus=idle["cu_count"], idle=idle["idle_cus"])
        return (clause("bound", said, anchor),
                {"bound": stalls, "bound_source": "capture stalls", "bound_shapes": None})
    return None, {"bound": None, "bound_source": None, "bound_shapes": None}


# ---------------------------------------------------------------- capture clauses

def stall_clause(prim: CaptureData, anchor: str) -> tuple[Clause | None, dict[str, Any]]:
    """The dominant stall type with its share of the stall cycles."""
    by_type, working = stall_source(prim)
    total = sum(by_type.values())
    if total <= 0:
        return None, {"stall_type": None, "stall_share": None, "stall_scope": None}
    name, cycles = max(by_type.items(), key=lambda kv: kv[1])  # first of equal maxima: ranked order
    share = cycles / total
    scope = "working waves" if working else "all waves"
    said = msg("diag.stall" + (".working" if working else ""), share=pct(share), type=name)
    return clause("stall", said, anchor), {"stall_type": name, "stall_share": share, "stall_scope": scope}


def occupancy_clause(prim: CaptureData, anchor: str) -> tuple[Clause | None, dict[str, Any]]:
    """Waves per SIMD with its limiter (AMD), or the achieved occupancy (Nsight Compute)."""
    a = prim.analysis
    occ = a.occupancy
    if occ is not None:
        w = occ.waves_per_simd
        if occ.limiter == "NONE":  # the grid's ask beside the maximum when it asks fewer (``captures.max_head``)
            said = (msg("diag.occupancy.max.grid", w=w, d=occ.resident) if occ.resident < w
                    else msg("diag.occupancy.max", w=w))
        elif not occ.cap_binds:  # the grid never asks a CU for more waves than the cap allows
            said = msg("finding.occupancy_grid.diag", w=w, limiter=occupancy.binding_msg(occ),
                       d=occ.grid_waves_per_simd)
        elif occ.tied:  # several resources bind at the same count (DOMAIN §1.3)
            said = msg("diag.occupancy.tied", w=w, limiters=occupancy.binding_msg(occ))
        else:
            said = msg("diag.occupancy.bound", w=w, limiter=occ.limiter)
        return clause("occupancy", said, anchor), {"waves_per_simd": w, "limiter": occ.limiter,
                                                        "limiters": list(occ.limiters), "achieved_occupancy": None,
                                                        "cap_binds": occ.cap_binds,
                                                        "grid_waves_per_simd": occ.grid_waves_per_simd}
    ncu = (a.extra.get("ncu") or {}).get("occupancy") or {}
    achieved = ncu.get("achieved_pct")
    if isinstance(achieved, (int, float)):
        lim = ncu.get("limiter")
        names = list(ncu.get("limiters") or [])
        variant = ".tied" if len(names) > 1 else ".bound" if lim else ".max" if ncu.get("at_hardware_max") else ""
        said = msg("diag.occupancy.achieved" + variant, pct=f"{achieved:.0f}%", limiter=ncu_metrics.limiter_msg(names, lim))
        return clause("occupancy", said, anchor), {"waves_per_simd": None, "limiter": lim,
                                                        "limiters": names,
                                                        "achieved_occupancy": achieved / 100}
    return None, {"waves_per_simd": None, "limiter": None, "limiters": [], "achieved_occupancy": None}


def early_exit_clause(prim: CaptureData, anchor: str) -> tuple[Clause | None, dict[str, Any]]:
    """Early-exit waves, when they hold enough of the stalls to change the reading."""
    ws = prim.analysis.waves_summary
    if ws is None:
        return None, {"early_exit": None}
    info = {"early_exit": [ws.early_exit, ws.sampled]}
    if ws.early_exit == 0 or ws.early_exit_stall_share < EARLY_EXIT_NOTE or not ws.representative:
        return None, info
    share = pct(ws.early_exit_stall_share)
    return clause("early_exit", msg("diag.early_exit", early=ws.early_exit, sampled=ws.sampled, share=share),
                  anchor), info


# ---------------------------------------------------------------- roof fraction

def streaming_bandwidth(prim: CaptureData | None) -> tuple[float, int] | None:
    """The capture's HBM fraction as the advice measured it, and the finding's position."""
    for j, f in enumerate((prim.findings or []) if prim is not None else []):
        bw = (f.get("evidence") or {}).get("bandwidth") if isinstance(f.get("evidence"), dict) else None
        if f.get("detector") == "streaming_roofline" and isinstance(bw, dict) and isinstance(bw.get("fraction"), (int, float)):
            return float(bw["fraction"]), j
    return None


def best_roof_fraction(k: KernelData, bound: str | None = None) -> float | None:
    """The candidate's highest fraction of the roof over measured shapes below every roof; over the
    shapes the roofline labels ``bound`` only, when given (the bound the diagnosis names)."""
    fr = [p["fraction_of_roof"] for p in evidence_points(k) if (bound is None or p.get("bound") == bound)
          and isinstance(p.get("fraction_of_roof"), (int, float))]
    return max(fr) if fr else None


def roof_clause(k: KernelData, prim: CaptureData | None, pi: int | None,
                bound: str | None = None, left_said: bool = False) -> tuple[Clause | None, dict[str, Any]]:
    """The achieved fraction of the roof: the capture's HBM bandwidth, else the best shape's; the best
    of the ``bound`` shapes when the diagnosis names that bound from the roofline. The shapes left out are
    named once: here only when the bound clause, over the same shapes, did not (``left_said``)."""
    bw = streaming_bandwidth(prim)
    if bw is not None:
        frac, j = bw
        return (clause("roof", msg("diag.roof.hbm", pct=pct(frac)), f"#advice-c{pi}-f{j}"),
                {"roof_fraction": frac, "roof_source": "capture bandwidth"})
    left = evidence(k)[1]
    said_left = {} if left_said else left
    if bound == LATENCY:
        return best_of_all_clause(k, left, said_left)
    frac = best_roof_fraction(k, bound)
    if frac is None:
        return None, {"roof_fraction": None, "roof_source": None}
    params = {"pct": pct(frac), "left": left_msg(said_left)}
    if bound is None:
        said, source = msg("diag.roof.best", **params), "roofline, best measured shape"
    else:
        said, source = msg("diag.roof.best.bound", bound=msg(f"diag.bound.{bound}"), **params), f"roofline, best measured {bound} shape"
    return clause("roof", said, "#roofline"), {"roof_fraction": frac, "roof_source": source, "left_out": sum(left.values())}


def best_point(k: KernelData) -> tuple[dict[str, Any] | None, int]:
    """The candidate's roofline point with the highest fraction of the roof over the measured shapes
    below every roof, and how many such points there are."""
    pts = [p for p in evidence_points(k) if isinstance(p.get("fraction_of_roof"), (int, float))]
    return (max(pts, key=lambda p: p["fraction_of_roof"]) if pts else None), len(pts)


def best_of_all_clause(k: KernelData, left: dict[str, int],
                       said_left: dict[str, int] | None = None) -> tuple[Clause | None, dict[str, Any]]:
    """The roof clause beside a latency-bound reading (DOMAIN §1.7): "best latency-bound shape at 25 % of
    the roof" restates the class (below ``latency_fraction`` of the roof); the best shape of all the
    measured ones, with its own bound, is what the data adds (hgemm_splitk: 27 %, memory-bound)."""
    best, n = best_point(k)
    if best is None:
        return None, {"roof_fraction": None, "roof_source": None}
    frac, label = best["fraction_of_roof"], best.get("bound")
    said = msg("diag.roof.best.all", n=n, pct=pct(frac), left=left_msg(left if said_left is None else said_left),
               bound=msg(f"diag.bound.{label}") if label in BOUNDS else "")
    return clause("roof", said, "#roofline"), {"roof_fraction": frac, "roof_source": "roofline, best of all measured shapes",
                                                "roof_bound": label, "left_out": sum(left.values())}


# ---------------------------------------------------------------- the profiled kernel is the timed one (DOMAIN §1.7)

def other_config(k: KernelData) -> bool:
    """The primary capture is another configuration than every timed row (``config_match.check``)."""
    return config_match.differs_by(k.capture_config)


def config_parts(cfg: dict[str, Any], keys: list[str] | tuple[str, ...]) -> list[Msg]:
    """One configuration's ``keys`` as words: "tile 32x64x256", "2 stages", "split-K 14"."""
    return [msg(f"config.{key}", v=cfg[key]) for key in keys if key in cfg]


def timed_parts(timed: list[dict[str, Any]], keys: list[str]) -> list[Msg]:
    """The timed rows' ``keys``, each with its distinct values ("tile 128x128x64 or 16x64x128")."""
    out = []
    for key in keys:
        values = list(dict.fromkeys(str(t["config"][key]) for t in timed if key in t["config"]))
        if values:
            out.append(msg(f"config.{key}", v=values[0] if len(values) == 1 else Items(tuple(values), "config.or")))
    return out


def config_msg(check: dict[str, Any]) -> Msg:
    """"the capture (tile 32x64x256, 2 stages, split-K 14) is another configuration than the 30 timed
    rows (tile 128x128x64 or 16x64x128, 4 stages, split-K 1)": the keys on which they differ."""
    keys = list(check["differs"])
    n = sum(t["rows"] for t in check["timed"])
    return msg("diag.config.differs", capture=config_parts(check["capture"], keys), n=n,
               timed=timed_parts(check["timed"], keys))


def config_note(k: KernelData, key: str) -> dict[str, str]:
    """The note beside a reading taken from the capture (``diag.config.note.<key>``), when the capture is
    another configuration than the timed rows; {} otherwise."""
    if not other_config(k):
        return {}
    check = k.capture_config
    m = msg(f"diag.config.note.{key}", capture=config_parts(check["capture"], check["differs"]))
    return {"config_note": wording.plain("en", m), "config_note_zh": wording.plain("zh", m)}


# ---------------------------------------------------------------- diagnosis

def diagnose(k: KernelData) -> dict[str, Any] | None:
    """The diagnosis of one kernel (``diagnosis`` in the API); None without capture or roofline."""
    prim = k.primary
    pi = primary_index(k)
    anchor = f"#c{pi}" if pi is not None else ""
    info: dict[str, Any] = {"capture": prim.rel if prim is not None else None,
                            "representative": prim.analysis.representative if prim is not None else None}
    clauses: list[Clause] = []
    bound, binfo = bound_clause(k, prim, anchor)
    info.update(binfo)
    info["roofline_bound"] = binfo["bound"] if binfo["bound_source"] and binfo["bound_source"].startswith("roofline") else None
    if prim is not None and not prim.analysis.representative:
        info["bound"], info["bound_source"] = "unrepresentative capture", "capture"
        clauses.append(clause("capture", msg("diag.unrepresentative"), anchor))
        info.update(stall_type=None, stall_share=None, stall_scope=None)
    else:
        if bound is not None:
            clauses.append(bound)
        if prim is not None:
            c, extra = stall_clause(prim, anchor)
            info.update(extra)
            clauses += [c] if c else []
    if prim is not None:
        for fn in (occupancy_clause, early_exit_clause):
            c, extra = fn(prim, anchor)
            info.update(extra)
            clauses += [c] if c else []
    c, extra = roof_clause(k, prim, pi, info["roofline_bound"],
                           left_said=any(c.key == "bound" and c.anchor == "#roofline" for c in clauses))
    info.update(extra)
    clauses += [c] if c else []
    if not clauses:
        return None
    info["capture_config"] = k.capture_config
    if other_config(k):  # never one kernel of the two: the timed readings, the note, then the capture's
        timed = [c for c in clauses if c.anchor == "#roofline"]
        clauses = timed + [clause("config", config_msg(k.capture_config), anchor)] + \
            [c for c in clauses if c.anchor != "#roofline"]
    info["clauses"] = [c.to_json() for c in clauses]
    info["text"] = ", ".join(c.text for c in clauses)
    info["zh"] = "，".join(c.zh for c in clauses)
    return info


# ---------------------------------------------------------------- first step

#: Words that open a statement rather than an instruction after a colon ("...: the kernel moves").
_NOT_IMPERATIVE = {"the", "a", "an", "this", "these", "that", "it", "its", "each", "every", "no", "nothing"}


def short_sentence(text: str, limit: int = FIRST_STEP_CHARS) -> str:
    """One short sentence from a suggestion.

    The first sentence; when it reads "why: what to do", the instruction after the colon;
    parentheses dropped; cut at a word boundary to ``limit`` characters. Example:
    "Each vmcnt(0) waits for every outstanding DMA load: wait with vmcnt(N) for just the tile
    (N = loads issued after it)." -> "Wait with vmcnt(N) for just the tile."
    """
    first = first_sentence(text)
    if imperative_tail(first):
        tail = first.partition(": ")[2]
        first = tail[0].upper() + tail[1:]
    first = re.sub(r" \([^()]*\)", "", first)
    if len(first) <= limit:
        return first
    cut = first[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "\u2026"


def first_sentence(text: str) -> str:
    text = " ".join(str(text).split())
    m = re.search(r"(?<=[.!?])\s+(?=[A-Z(])", text)
    return text[:m.start()] if m else text


def imperative_tail(first: str) -> bool:
    """Whether a sentence reads "why: what to do" (the instruction after the colon is the step)."""
    head, sep, tail = first.partition(": ")
    return bool(sep and tail and tail.split(" ", 1)[0].lower() not in _NOT_IMPERATIVE and tail[0].islower())


def short_zh(zh: str, english: str, limit: int = FIRST_STEP_ZH_CHARS) -> str:
    """The 中文 of ``short_sentence``: the first sentence (to "。"), the part after "：" when the
    English took the part after its colon, parentheses dropped, cut to ``limit`` characters."""
    first = zh.split("。", 1)[0]
    if imperative_tail(first_sentence(english)) and "：" in first:
        first = first.split("：", 1)[1]
    while True:
        cut = re.sub(r"（[^（）]*）", "", first)
        if cut == first:
            break
        first = cut
    return first if len(first) <= limit else first[:limit].rstrip("，；：、") + "\u2026"


def top_finding(prim: CaptureData | None) -> tuple[int, dict[str, Any]] | None:
    """The primary capture's top-ranked finding (flagged artifacts are not ranked)."""
    for j, f in enumerate((prim.findings or []) if prim is not None else []):
        if f.get("ranked", True) and not f.get("flagged") and f.get("suggestion"):
            return j, f
    return None


def first_step(k: KernelData) -> dict[str, Any] | None:
    """The kernel's one first step (``advice.first.choose``) in one short sentence: the top finding's
    suggestion with its share, the launcher's, a configuration to time or capture, or a shape to profile."""
    prim = k.primary
    findings = (prim.findings or []) if prim is not None else []
    step = first.choose(k.score, findings, other_config(k))
    if step is None:
        return None
    if step.kind == "config":
        return _said_step("config", _config_step(k), f"#c{primary_index(k)}")
    if step.kind == "profile":
        return _said_step("profile", _profile_step(step, k.score), "#where" if step.side is not None else "#speed")
    f = findings[step.finding]
    share = f.get("stall_share") if isinstance(f.get("stall_share"), (int, float)) else None
    text = short_sentence(f["suggestion"])
    said = (f.get("i18n") or {}).get("suggestion")
    of_call = f.get("stall_unit") == "us"  # the launch finding: a share of the call, not of stalls (rule 13)
    share_m = msg("diag.first.share.call" if of_call else "diag.first.share", pct=pct(share)) if share else None
    return {
        "kind": step.kind,
        "text": text,
        "text_zh": short_zh(wording.plain("zh", said), f["suggestion"]) if said else "",
        "share_text": wording.plain("en", share_m) if share_m else "",
        "share_zh": wording.plain("zh", share_m) if share_m else "",
        "stall_share": share,
        "detector": f.get("detector"),
        "title": f.get("title"),
        "priority": f.get("priority"),
        "anchor": f"#advice-c{primary_index(k)}-f{step.finding}",
        **config_note(k, "first"),
    }


def _said_step(kind: str, m: Msg, anchor: str) -> dict[str, Any]:
    """A first step that is no finding of the capture: a configuration to time, a shape to profile."""
    return {"kind": kind, "text": wording.plain("en", m), "text_zh": wording.plain("zh", m), "share_text": "",
            "share_zh": "", "stall_share": None, "detector": None, "title": None, "priority": "high", "anchor": anchor}


def _config_step(k: KernelData) -> Msg:
    """DOMAIN §1.7: the capture is another configuration: time the captured one when its profiled pair reads
    better than the timed rows (the cheaper fix), else capture the timed one."""
    check, s = k.capture_config, k.score
    keys = check["differs"]
    capture = config_parts(check["capture"], keys)
    timed = timed_parts(check["timed"], keys)
    pair = s.headline.speedup if s is not None and s.headline is not None and s.pair_clock != "call" else None
    if pair is not None and s.verdict_value is not None and pair > s.verdict_value:
        return msg("diag.first.config.time", capture=capture, timed=timed, pair=f"{pair:.2f}x",
                   ratio=f"{s.verdict_value:.2f}x")
    return msg("diag.first.config.capture", capture=capture, timed=timed)


def _profile_step(step: Any, score: Any) -> Msg:
    """VERDICTS rule 15: profile a shape where the kernel loses (the split's side, else its worst shape); a
    ratio never rounded onto the other side of the verdict thresholds (as the where line shows it)."""
    sh = step.shape
    cuts = (score.thresholds.headroom, score.thresholds.win)
    if step.side is not None:
        g, n = step.side.losing
        return msg("diag.first.profile.side", side=loses.side_msg(step.side), g=ratio_text(g, cuts), n=n,
                   args=sh.args_text)
    return msg("diag.first.profile.worst", x=ratio_text(sh.verdict_speedup, cuts), args=sh.args_text)


# ---------------------------------------------------------------- severity

def severity_level(geomean: float, near: float, tune: float) -> str:
    """``near``, ``tune`` or ``rewrite`` of a HEADROOM geomean (unrounded)."""
    if geomean >= near:
        return "near"
    return "tune" if geomean >= tune else "rewrite"


def severity_evidence(score: Any, parity: float) -> tuple[int | None, int | None]:
    """(shapes below ``parity``, shapes) of the evidence the verdict ratio rests on: the verdict
    shapes' verdict ratios (basis ``shapes``), the bound shapes' ratios (``bound``); (None, None) for
    the pair, which is one comparison, not a count of shapes."""
    if score.verdict_basis == "shapes":
        xs = [sh.verdict_speedup for sh in score.shapes if sh.is_verdict_shape and sh.verdict_speedup is not None]
    elif score.verdict_basis == "bound":
        xs = [sh.bound_speedup for sh in score.shapes
              if sh.measured and sh.verdict_baseline is None and sh.bound_speedup is not None]
    else:
        return None, None
    return sum(x < parity for x in xs), len(xs)


def severity_msg(score: Any, need: float, parity: float, losses: int | None, n: int | None) -> Msg:
    """The severity's detail: the speedup to the PARITY band and the evidence it is worked on."""
    common = {"need": f"{need:.2f}x", "parity": f"{parity:.2f}x"}
    if score.verdict_basis == "pair":  # the pair's baseline is named beside it, in the verdict's basis
        return msg("diag.severity.pair", **common)
    return msg(f"diag.severity.{score.verdict_basis}", losses=losses, n=n, **common)


def severity(score: Any, near: float, tune: float) -> dict[str, Any] | None:
    """How far a HEADROOM kernel sits from the PARITY band (``severity`` in the API); None otherwise.

    ``to_parity`` = headroom / g: the speedup that lifts the verdict ratio g to the band's floor
    (VERDICTS: PARITY from 0.95); ``losses`` of ``n`` count the same evidence as g (None for a pair)."""
    if score is None or score.verdict != "HEADROOM" or not score.verdict_value:
        return None
    g = score.verdict_value  # the ratio the verdict rests on (VERDICTS rule 12)
    parity = score.thresholds.headroom
    level = severity_level(g, near, tune)
    need = parity / g
    losses, n = severity_evidence(score, parity)
    detail = severity_msg(score, need, parity, losses, n)
    return {
        "level": level,
        "geomean": g,
        "basis": score.verdict_basis,
        "parity": parity,
        "to_parity": need,  # the speedup the candidate needs to reach the PARITY band
        "losses": losses,
        "n": n,
        "detail": wording.plain("en", detail),
        "detail_zh": wording.plain("zh", detail),
        "level_zh": wording.plain("zh", msg(f"diag.severity.{level}")),
    }


def kernel_severity(k: KernelData, near: float, tune: float) -> dict[str, Any] | None:
    """``severity`` of the kernel's score, with the note that it is the timed rows' when the capture the
    page reads beside it is another configuration (DOMAIN §1.7)."""
    sev = severity(k.score, near, tune)
    return {**sev, **config_note(k, "severity")} if sev is not None else None


SEVERITY_RANK = {"near": 0, "tune": 1, "rewrite": 2}
