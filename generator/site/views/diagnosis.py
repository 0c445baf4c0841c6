"""The one-line diagnosis of a kernel.

It is computed from the evidence the kernel page already shows, so it stays right
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
``#advice-c1-f0``) and its text in English and 中文. The first step and the severity, which read
these clauses' helpers, are ``generator.site.views.next_step``. Example (vec_add on the shared sweep)::

    memory-bound (7 of 7 shapes; 5 shapes at the timing floor left out), 82% VMEM-wait, 8 waves/SIMD (hardware max), best memory-bound shape at 61% of the roof
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any

from generator.analyze import config_match, ncu_metrics, occupancy
from generator.analyze.message import Items, Msg, msg
from generator.model import record
from generator.site import wording
from generator.site.views.base import CaptureData, KernelData

BOUNDS = ("memory-bound", "compute-bound", "latency-bound")
LATENCY = "latency-bound"
MEMORY_STALLS = ("VMEM-wait", "VMEM-load", "VMEM-store")
COMPUTE_STALLS = ("MFMA/FMA",)
#: VMEM share of the stall cycles from which the capture reads memory-bound.
MEMORY_SHARE = 0.50
#: Early-exit share of the stall cycles from which the diagnosis notes the early exits
#: (the same threshold from which the page ranks the working waves: DOMAIN §1.5).
EARLY_EXIT_NOTE = 0.20


@record
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
