"""A title and a category from a name's words, for a kernel nobody named (a campaign of the second
layout without ``[kernels.<op>]`` settings or a kernels.json entry).

* title: the name's words (split at ``_``, ``-``, spaces) each with a capital first letter:
  ``flash_attn_current`` -> "Flash Attn Current";
* category: the first word of the name that is a known category or its abbreviation (at least
  three letters, the category's first letter, the rest in the category's order: ``attn`` for
  ``attention``), the known categories being those the sweep's kernels have (kernels.json's
  ``op_category``, the configuration), then ``DEFAULT_CATEGORIES``; None when no word is one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: The categories the shared sweep's kernels carry, known also where a sweep has no kernels.json.
DEFAULT_CATEGORIES = ("attention", "gemm", "moe", "norm", "quant", "reduction", "rope", "elementwise")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")


def words(name: str) -> list[str]:
    """The words of a name, as written."""
    return [w for w in _SPLIT.split(name) if w]


def title_of(name: str) -> str:
    """``flash_attn_current`` -> "Flash Attn Current" (the rest of each word as written)."""
    return " ".join(w[:1].upper() + w[1:] for w in words(name)) or name


def abbreviates(word: str, category: str) -> bool:
    """True when ``word`` is ``category`` or its abbreviation (``attn``: ``attention``)."""
    word, category = word.lower(), category.lower()
    if word == category:
        return True
    if len(word) < 3 or word[0] != category[0]:
        return False
    rest = iter(category[1:])
    return all(ch in rest for ch in word[1:])


def category_of(name: str, known: Iterable[str] = ()) -> str | None:
    """The category the name's words give (see the module docstring), or None."""
    cats = list(dict.fromkeys([c for c in known if c] + list(DEFAULT_CATEGORIES)))
    for word in words(name):
        found = next((c for c in cats if abbreviates(word, c)), None)
        if found is not None:
            return found
    return None


def known_categories(config, kernels_json_entries: Iterable[dict]) -> list[str]:
    """The categories a sweep's kernels carry: the configuration's, then kernels.json's (first seen)."""
    found = [k.category for _, k in sorted(config.kernels.items()) if k.category]
    found += [e.get("op_category") for e in kernels_json_entries if isinstance(e.get("op_category"), str)]
    return list(dict.fromkeys(c for c in found if c))
