"""The kernels of a sweep: which bundle and which timing campaign make each one, and its slug.

One rule for every output: ``build`` (one page per kernel), ``diff`` and ``history`` (kernels
matched by slug) and the kernel state (``analyze.state``) all start from ``pair_kernels``.

* one kernel per bundle (``examples/<bundle>/``), timed by the campaign
  ``verdicts.campaign_for_bundle`` names (configuration, then kernels.json's
  ``multishape.summary_url``, then the bundle's own name) when that campaign exists; else, when
  nobody names its campaign, the one the sweep says (``analyze/join.py``: ``baseline_matrix.yaml``
  ``kernel:``, the kernels it traced), the join kept as ``KernelRef.joined``;
* one kernel per campaign that no bundle claims, named after the bundles that
  would own it (``bundles_for_campaign``), else after the campaign;
* a campaign of the second layout named by nobody: a title and a category from its name's words
  (``analyze/naming.py``: ``flash_attn_current`` -> "Flash Attn Current", attention);
* the slug is the bundle name (or owner, or campaign) as ``slugify`` writes it, made
  unique with ``-2``, ``-3``... in discovery order;
* page order: categorised kernels by category, then the uncategorised, by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from generator.analyze.join import Join, infer_joins
from generator.analyze.naming import category_of, known_categories, title_of
from generator.analyze.verdicts import bundles_for_campaign, campaign_for_bundle
from generator.config import SweepConfig
from generator.model import Bundle, record
from generator.read.campaign_suite import is_suite_folder

UNCATEGORIZED = "uncategorized"
_SLUG = re.compile(r"[^a-z0-9_.-]+")


def slugify(name: str) -> str:
    """The URL slug of a kernel: lower case, runs of other characters become ``-``."""
    return _SLUG.sub("-", name.lower()).strip("-.") or "kernel"


@record
class KernelRef:
    """One kernel of a sweep, before any analysis: what it is and which files make it."""

    slug: str
    name: str
    category: str | None
    bundle: Bundle | None
    op: str | None  # its timing campaign
    campaign_dir: str | None
    entry: dict[str, Any] | None  # its docs/data/kernels.json entry
    joined: Join | None = None  # how its bundle and campaign were joined when nobody said (``analyze.join``)


def _entries(kernels_json: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """kernels.json entries by bundle name."""
    if not kernels_json:
        return {}
    return {e["example"]: e for e in kernels_json.get("kernels", [])
            if isinstance(e, dict) and isinstance(e.get("example"), str)}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def pair_kernels(sweep, config: SweepConfig, kernels_json: dict[str, Any] | None) -> list[KernelRef]:
    """Every kernel of a discovered sweep, in page order."""
    entries = _entries(kernels_json)
    campaigns = dict(sweep.campaigns)
    refs: list[KernelRef] = []
    claimed: set[str] = set()
    used: set[str] = set()

    def unique(slug: str) -> str:
        base, n = slug, 2
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        return slug

    ops = {b.name: campaign_for_bundle(b.name, config, kernels_json, campaigns=campaigns) for b in sweep.bundles}
    claimed.update(op for op in ops.values() if op)
    said = [b for b in sweep.bundles if not ops[b.name] and b.name not in entries and config.kernel(b.name).campaign is None]
    open_ops = [op for op in campaigns if op not in claimed and not bundles_for_campaign(op, config, kernels_json)]
    joins = infer_joins(said, campaigns, open_ops)
    for b in sweep.bundles:
        joined = joins.get(b.name)
        op = ops[b.name] or (joined.op if joined else None)
        if op:
            claimed.add(op)
        settings = config.kernel(b.name)
        entry = entries.get(b.name, {})
        name = settings.name or _text(entry.get("name")) or b.name
        category = settings.category or _text(entry.get("op_category"))
        if not category and op:
            category = config.kernel(op).category
        refs.append(KernelRef(unique(slugify(b.name)), name, category, b, op, campaigns.get(op) if op else None,
                              entries.get(b.name), joined))
    for op, folder in sorted(campaigns.items()):
        if op in claimed:
            continue
        owners = bundles_for_campaign(op, config, kernels_json)
        entry = next((entries[o] for o in owners if o in entries), None) or {}
        settings = config.kernel(op)
        name = (settings.name or next((config.kernel(o).name for o in owners if config.kernel(o).name), None)
                or _text(entry.get("name")) or op)
        category = (settings.category or next((config.kernel(o).category for o in owners if config.kernel(o).category), None)
                    or _text(entry.get("op_category")))
        if is_suite_folder(folder):  # another harness's folder, named by nobody: its name's words
            name = name if name != op else title_of(op)
            category = category or category_of(op, known_categories(config, entries.values()))
        slug = slugify(owners[0]) if owners else slugify(op)
        refs.append(KernelRef(unique(slug), name, category, None, op, folder, entry or None))
    refs.sort(key=lambda r: ((r.category or UNCATEGORIZED) == UNCATEGORIZED,
                             r.category or UNCATEGORIZED, r.name.lower(), r.slug))
    return refs


def names_of(ref: KernelRef) -> list[str]:
    """Every name a command accepts for a kernel: its slug, its bundle, its campaign (what ``verdicts``
    prints) and its title."""
    return list(dict.fromkeys(n for n in (ref.slug, ref.bundle.name if ref.bundle else None, ref.op, ref.name) if n))


def find_kernel(refs: Iterable[KernelRef], name: str) -> KernelRef | None:
    """The kernel ``name`` names (``names_of``; exact first, then case-insensitive), or None."""
    refs = list(refs)
    for same in (lambda a, b: a == b, lambda a, b: a.lower() == b.lower()):
        found = [r for r in refs if any(same(n, name) for n in names_of(r))]
        if found:
            return found[0]
    return None


_WORD = re.compile(r"[A-Za-z0-9]+")


def category_labels(refs: Iterable[KernelRef]) -> dict[str, str]:
    """Each category as its owners write it: the spelling the names of its kernels give the word
    when that spelling is an acronym or mixed case (``gemm`` -> ``GEMM`` from "FP8 Row-Scale GEMM",
    ``moe`` -> ``MoE``, ``rope`` -> ``RoPE``); else the category as written (a word that is only
    capitalized at the start of a name, "Flash Attention", stays ``attention``). Several spellings:
    the most used, then the first in sorted order."""
    spellings: dict[str, dict[str, int]] = {}
    for r in refs:
        if not r.category:
            continue
        counts = spellings.setdefault(r.category, {})
        for word in _WORD.findall(r.name):
            if word.lower() == r.category.lower() and word[1:] != word[1:].lower():
                counts[word] = counts.get(word, 0) + 1
    return {c: min(found, key=lambda w: (-found[w], w)) if found else c for c, found in sorted(spellings.items())}


T = TypeVar("T")
V = TypeVar("V")


def read_first(items: Iterable[T], is_primary: Callable[[T], bool], read: Callable[[T], V | None]) -> tuple[T, V] | None:
    """The capture a kernel is read by: the primary when ``read`` gives it a value, else the
    first of ``items``, in order, that does; ``(item, value)``, or None when none does. ``read``
    runs lazily, the primary first. The one rule for the site's pages (captures analyzed
    already) and for the ``diff``/``history`` snapshots (analyzed on demand)."""
    for item in sorted(items, key=lambda it: not is_primary(it)):
        value = read(item)
        if value is not None:
            return item, value
    return None
