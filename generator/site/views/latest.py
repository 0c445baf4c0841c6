"""The top of the history page: what the latest sweep changed against the one before
(``generator.sweeps.latest``), grouped as regressions, improvements, comparison changes, new and
removed kernels; each kernel linked to its section of the page, with who moved and what changed."""

from __future__ import annotations

from dataclasses import field

from generator.analyze.message import Sentence, sentence
from generator.model import record
from generator.sweeps.diff import COMPARISON, KernelDiff, SweepDiff, fmt_pct, fmt_x
from generator.sweeps.moves import comparison_facts, facts  # noqa: F401  (the lead's facts, worded once)

#: Kernels listed per group; the rest are counted (the lead stays on the first screen).
MAX_ITEMS = 8
#: Who moved (``KernelDiff.movers``) -> its catalogue key.
WHO_KEYS = {"candidate": "hist.who.candidate", "baseline": "hist.who.baseline", COMPARISON: "hist.who.comparison",
            "check": "hist.who.check"}


@record
class LeadItem:
    """One kernel in the lead: its move (data), who moved (catalogue keys), what changed (sentences)."""

    slug: str
    name: str
    href: str  # its section of the history page
    move: str
    who: list[str] = field(default_factory=list)
    facts: list[Sentence] = field(default_factory=list)


@record
class LeadGroup:
    """Regressions, improvements, comparison changes, new or removed kernels."""

    key: str  # heading (catalogue key)
    css: str
    items: list[LeadItem]  # the first MAX_ITEMS
    total: int = 0  # kernels in the group

    @property
    def more(self) -> Sentence | str:
        """``and 3 more`` when the group has more kernels than it lists."""
        rest = self.total - len(self.items)
        return sentence("msg.hist.lead.more", n=rest) if rest > 0 else ""


@record
class Lead:
    """The latest sweep against the one before."""

    old_label: str
    new_label: str
    summary: Sentence
    groups: list[LeadGroup]  # the non-empty ones, in that order

    @property
    def quiet(self) -> bool:
        return not self.groups


def lead_view(d: SweepDiff | None) -> Lead | None:
    """The lead of a history page (None without a sweep before the latest)."""
    if d is None:
        return None
    new = [k for k in d.kernels if k.status == "new"]
    gone = [k for k in d.kernels if k.status == "removed"]
    groups = [_group("hist.lead.regressions", "regressed", _by_size(d.regressions)),
              _group("hist.lead.improvements", "improved", _by_size(d.improvements)),
              _group("hist.lead.comparison", "compared", d.comparison_changes),
              _group("hist.lead.new", "new", new),
              _group("hist.lead.removed", "removed", gone)]
    summary = sentence("msg.hist.lead.summary", reg=len(d.regressions), imp=len(d.improvements),
                       cmp=len(d.comparison_changes), new=len(new), gone=len(gone))
    return Lead(old_label=d.old_label, new_label=d.new_label, summary=summary,
                groups=[g for g in groups if g.total])


def _group(key: str, css: str, kernels: list[KernelDiff]) -> LeadGroup:
    return LeadGroup(key, css, [lead_item(k) for k in kernels[:MAX_ITEMS]], len(kernels))


def _by_size(kernels: list[KernelDiff]) -> list[KernelDiff]:
    """Biggest move first (by slug on ties)."""
    def size(k: KernelDiff) -> float:
        g = k.headline_change
        return -abs((g.ratio or 1.0) - 1.0) if g is not None and g.ratio else 0.0
    return sorted(kernels, key=lambda k: (size(k), k.slug))


def lead_item(k: KernelDiff) -> LeadItem:
    """One kernel's line: the move of its headline number and verdict, who moved, the facts."""
    return LeadItem(slug=k.slug, name=k.name, href=f"#h-{k.slug}", move=move_text(k),
                    who=[WHO_KEYS[m] for m in k.movers if m in WHO_KEYS], facts=facts(k))


def move_text(k: KernelDiff) -> str:
    """``WIN → HEADROOM · 1.10x → 0.87x (-20.9%)`` (data): the verdict when it changed, then the ratio."""
    parts = []
    if k.status == "new":
        parts.append(k.new_verdict or "—")
        if k.new_ratio is not None:
            parts.append(fmt_x(k.new_ratio))
        return " · ".join(parts)
    if k.status == "removed":
        return " · ".join([k.old_verdict or "—"] + ([fmt_x(k.old_ratio)] if k.old_ratio is not None else []))
    if k.old_verdict != k.new_verdict:
        parts.append(f"{k.old_verdict or '—'} → {k.new_verdict or '—'}")
    g = k.headline_change
    if g is not None and (g.significant or k.old_verdict != k.new_verdict):
        parts.append(f"{fmt_x(g.old)} → {fmt_x(g.new)}" + (f" ({fmt_pct(g.ratio)})" if g.ratio else ""))
    return " · ".join(parts) or (fmt_x(k.new_ratio) if k.new_ratio is not None else "—")
