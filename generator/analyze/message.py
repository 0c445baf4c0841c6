"""Wording by key: what a piece of computed text says, for the site to word in any language.

Analysis text (advice findings, verdict reasons, flags) is written in English where it is
computed, and that English is what ``analyze``, ``verdicts`` and the JSON print. Beside it
the same text travels as a :class:`Msg`: a catalogue key (``templates/i18n/<lang>.json``)
and its parameters. A parameter is *data* (a number, an instruction, a file:line, already
formatted as the English shows it) or a nested ``Msg`` (interface words, worded per
language), or a list of those (joined by the catalogue's list separator, ``finding.sep``, or
the one an :class:`Items` names). A list is flat: a message's depth never grows with the
number of items (a sweep of thousands of kernels is one list, not a chain of nested
messages). The site words a ``Msg`` (``generator.site.wording``), marking data
``translate="no"``.

Example: ``Msg("finding.snop_hazard.title")``; ``msg("verdict.reason.blocked", hard=3, n=2)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

Param = Union[str, int, float, "Msg", list, "Items"]
#: The catalogue key of the separator a plain list is joined with.
LIST_SEP = "finding.sep"


@dataclass(frozen=True)
class Items:
    """A flat list joined by the catalogue string ``sep`` (a key), e.g. "; " for ``advice.sweep.sep``."""

    items: tuple
    sep: str = LIST_SEP


@dataclass(frozen=True)
class Msg:
    """A catalogue key and its parameters (data, nested messages, or lists of them)."""

    key: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def kw(self) -> dict[str, Any]:
        return dict(self.params)

    def to_json(self) -> list:
        """``[key, {name: value}]``: nested messages as their own ``[key, {...}]`` lists."""
        return [self.key, {k: _param_json(v) for k, v in self.params}]


def msg(key: str, **params: Param) -> Msg:
    """A message: ``msg("finding.waves", n=2)`` (English "2 waves/SIMD")."""
    return Msg(key, tuple(params.items()))


def _param_json(v: Any) -> Any:
    if isinstance(v, Msg):
        return v.to_json()
    if isinstance(v, Items):
        return {"list": [_param_json(x) for x in v.items], "sep": v.sep}
    if isinstance(v, (list, tuple)):
        return {"list": [_param_json(x) for x in v]}
    return v


def from_json(m: list) -> Msg:
    """The message of ``Msg.to_json()``'s list (``[key, {name: value}]``)."""
    key, params = m
    return Msg(key, tuple((k, _param_from_json(v)) for k, v in params.items()))


def _param_from_json(v: Any) -> Any:
    if isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], dict):
        return from_json(v)
    if isinstance(v, dict) and "list" in v:
        items = [_param_from_json(x) for x in v["list"]]
        return Items(tuple(items), v["sep"]) if "sep" in v else items
    return v
