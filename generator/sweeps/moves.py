"""Who moved between two sweeps, kernel by kernel, in words (issue 40): what the history keeps of each
recorded sweep against the one before it (``history.record_snapshot``, while the one before still has its
per-shape rows), what the history page's strip shows under each sweep, and the facts of its lead
(``site.views.latest``). One wording for the ``diff`` a reviewer runs and the page they open."""

from __future__ import annotations

from typing import Any, Mapping

from generator.analyze.message import Msg, Sentence, sentence, sentence_from_json, sentence_json
from generator.sweeps.diff import IMPROVEMENT, REGRESSION, KernelDiff, SweepDiff, diff_snapshots
from generator.sweeps.snapshot import ENVIRONMENT_KEYS, SweepSnapshot


def facts(k: KernelDiff) -> list[Sentence]:
    """What changed for one kernel, worded: the baselines compared with, the shapes, the commits and
    the environment; "nothing recorded" when its move has no recorded change to rest on."""
    out: list[Sentence] = []
    for c in k.of_kind("comparison", "basis"):
        if c.item == "baselines":
            out += comparison_facts(c.new or {})
        elif c.item == "pair_clock":
            out.append(sentence("msg.hist.lead.clock", old=c.old or "—", new=c.new or "—"))
        else:
            out.append(sentence("msg.hist.lead.basis", old=c.old or "—", new=c.new or "—"))
    checked = [c for c in k.of_kind("shape-status") if c.item == "check"]
    if checked:  # the correctness check changed: neither kernel's doing
        now = sum(1 for c in checked if c.direction == IMPROVEMENT)
        key = "msg.hist.lead.checkpass" if now * 2 >= len(checked) else "msg.hist.lead.checkfail"
        out.append(sentence(key, n=len(checked)))
    shapes = [c for c in k.significant if c.kind in ("shape", "shape-status") and not c.comparison_only]
    down = sum(1 for c in shapes if c.direction == REGRESSION)
    up = sum(1 for c in shapes if c.direction == IMPROVEMENT)
    if down or up:
        out.append(sentence("msg.hist.lead.shapes", down=down, up=up, n=k.n_shapes_both))
    for c in k.of_kind("provenance"):
        if c.item == "candidate_commit":
            out.append(sentence("msg.hist.lead.commit", old=c.old or "—", new=c.new or "—"))
        elif c.item.startswith("baseline:"):
            out.append(sentence("msg.hist.lead.basecommit", provider=c.item.split(":", 1)[1], old=c.old or "—",
                                new=c.new or "—"))
        elif c.item in ENVIRONMENT_KEYS:
            out.append(sentence("msg.hist.lead.env", key=c.item, old=c.old or "—", new=c.new or "—"))
    for c in k.of_kind("launch"):
        if c.significant:
            out.append(sentence("msg.hist.lead.launch", old=f"{c.old:.1f}", new=f"{c.new:.1f}"))
    if any(cause.kind == "unexplained" for cause in k.causes):
        out.append(sentence("msg.hist.lead.unexplained"))
    return out


def comparison_facts(facts_: dict[str, Any]) -> list[Sentence]:
    """The baselines' status moves and the best-baseline changes they caused, worded."""
    out = []
    for provider, old, new, n in facts_.get("moves", []):
        if old is None:
            key, kw = "msg.hist.lead.added", {}
        elif new is None:
            key, kw = "msg.hist.lead.dropped", {}
        elif new == "ok":
            key, kw = "msg.hist.lead.passes", {"was": old}
        else:
            key, kw = "msg.hist.lead.fails", {"now": new}
        out.append(sentence(key, provider=provider, n=n, **kw))
    for old, new, n in facts_.get("best", []):
        out.append(sentence("msg.hist.lead.best", old=old or "—", new=new or "—", n=n))
    return out


def kernel_moves(k: KernelDiff) -> dict[str, Any] | None:
    """What the history keeps of one kernel's move: who moved (``KernelDiff.movers``) and the facts, as
    JSON (sentences as ``sentence_json``); None when nothing that counts changed."""
    who, said = list(k.movers), facts(k)
    if k.status == "same" or not (who or said or k.old_verdict != k.new_verdict):
        return None
    return {"who": who, "facts": [sentence_json(s) for s in said]}


def sweep_moves(d: SweepDiff | None) -> dict[str, dict[str, Any]]:
    """Each kernel's ``kernel_moves`` in a sweep diff (the kernels that moved)."""
    if d is None:
        return {}
    out = {k.slug: kernel_moves(k) for k in d.kernels if k.status in ("changed", "new")}
    return {slug: m for slug, m in sorted(out.items()) if m}


def moves_between(old: SweepSnapshot | None, new: SweepSnapshot) -> dict[str, dict[str, Any]]:
    """``sweep_moves`` of ``new`` against ``old`` (none without an old side)."""
    return sweep_moves(diff_snapshots(old, new)) if old is not None and old.kernels and new.kernels else {}


def attach(points: Mapping[str, Any], d: SweepDiff | None) -> None:
    """Set each point's ``moved`` (``history_series.HistoryPoint``) from a diff of its sweep against the one before."""
    for slug, m in sweep_moves(d).items():
        if slug in points:
            points[slug].moved = m


def moved_facts(moved: Mapping[str, Any] | None) -> list[Sentence]:
    """The stored facts of a move, as sentences again."""
    return [_stored_fact(f) for f in (moved or {}).get("facts") or []]


def _stored_fact(f: Any) -> Any:
    """A stored fact as a sentence. A history written before the catalogue's plural form names a count of
    one by a second key (``msg.hist.lead.added.one``); it is the plain key now (``{n:~shape}``)."""
    s = sentence_from_json(f)
    if isinstance(s, Sentence) and s.msg.key.endswith(".one"):
        return Sentence(str(s), Msg(s.msg.key.removesuffix(".one"), s.msg.params))
    return s
