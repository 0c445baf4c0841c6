"""What to do and how far: a kernel's first step and its HEADROOM severity.

Both read the evidence the one-line diagnosis reads (``generator.site.views.diagnosis``: the primary
capture, the configuration check), so they stay right after every regeneration.

- **first step**: the one step ``advice.first.choose`` picks, in one short sentence: the top finding's
  suggestion with its share, the launcher's, a configuration to time or capture, or a shape to profile.
- **severity**: a HEADROOM verdict ratio g is ``near`` (g >= near), ``tune`` (tune <= g < near) or
  ``rewrite`` (g < tune); thresholds from ``[severity]`` in kernel-atlas.toml. Its detail: headroom / g
  to reach the PARITY band, and the losing shapes of the evidence g is taken over. Example (vec_add on
  the shared sweep)::

    near: needs 1.04x to reach parity (0.95x), 3 of 7 verdict shapes lose
"""

from __future__ import annotations

import re
from typing import Any

from generator.analyze.advice import first
from generator.analyze.verdicts import loses
from generator.analyze.message import Msg, msg
from generator.site import wording
from generator.site.views.base import CaptureData, KernelData
from generator.site.views.diagnosis import config_note, config_parts, other_config, pct, primary_index, timed_parts
from generator.words import ratio_text

#: Longest first-step sentence before it is shortened at a word boundary.
FIRST_STEP_CHARS = 140
FIRST_STEP_ZH_CHARS = 70
SEVERITIES = ("near", "tune", "rewrite")


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
    share = _step_share(f)
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


def _step_share(f: dict[str, Any]) -> float | None:
    """The share the step acts on: the finding's, or the part its suggestion's first sentence addresses when the
    finding names one (``evidence.step_share``: quant's late load acts on the wait at pc 65, 13.3%, of the
    finding's 35.9%)."""
    part = (f.get("evidence") or {}).get("step_share")
    share = part if isinstance(part, (int, float)) else f.get("stall_share")
    return share if isinstance(share, (int, float)) else None


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
