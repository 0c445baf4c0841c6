"""Words the command line prints: counts with their noun, and renamed options.

``plural(1, "kernel")`` is ``1 kernel``, ``plural(2, "kernel")`` is ``2 kernels``; every
text output counts through it, so no line reads "1 kernels". ``deprecated`` keeps an
option's old spelling working for one release, with one line on stderr.
"""

from __future__ import annotations

import argparse
import math
import sys

#: Endings that take "es" in the plural: dispatch -> dispatches, pass -> passes.
_ES = ("s", "x", "z", "ch", "sh")


def noun(n: int | float | str, word: str, many: str | None = None) -> str:
    """``word`` for a count of one (``1`` or a formatted ``"1"``), else its plural (``many`` when given,
    else word + s or es)."""
    if n == 1 or n == "1":
        return word
    return many or word + ("es" if word.endswith(_ES) else "s")


def plural(n: int | float, word: str, many: str | None = None) -> str:
    """``1 kernel``, ``0 kernels``, ``2 kernels`` (``many`` for an irregular plural)."""
    return f"{n} {noun(n, word, many)}"


def deprecated(new: str) -> type[argparse.Action]:
    """An argparse action for an old option spelling: stores into the new option's dest and
    says once, on stderr, which spelling replaces it (the old one goes after one release)."""

    class Deprecated(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            print(f"kernel-atlas: warning: {option_string} is deprecated here, use {new} "
                  f"(the old spelling goes away in the next release)", file=sys.stderr)
            setattr(namespace, self.dest, values)

    return Deprecated


def ratio_text(value: float | None, cuts: tuple[float, ...] = (), digits: int = 2, none: str = "\u2014",
               unit: str = "x") -> str:
    """A ratio with enough decimals that it never reads on the other side of a threshold it is shown
    against: ``ratio_text(0.9469, (0.95, 1.05))`` is ``0.947x`` (``0.95x`` would read as PARITY beside
    a legend "HEADROOM < 0.95x"); ``0.87x`` where two decimals already keep every side. A verdict
    reads ``value < cut``; ``none`` for None; ``unit`` after the number (none in an interval's cell)."""
    if value is None:
        return none
    for d in range(digits, 7):
        shown = float(f"{value:.{d}f}")
        if all((shown < c) == (value < c) for c in cuts):
            return f"{value:.{d}f}{unit}"
    return f"{math.floor(value * 1e6) / 1e6:.6f}{unit}"  # just under a cut: rounding up is what would cross it
