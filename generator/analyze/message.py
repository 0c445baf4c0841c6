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

import json
import string
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

from generator.model import record

Param = Union[str, int, float, "Msg", list, "Items"]
#: The catalogue key of the separator a plain list is joined with.
LIST_SEP = "finding.sep"


@record(frozen=True)
class Items:
    """A flat list joined by the catalogue string ``sep`` (a key), e.g. "; " for ``advice.sweep.sep``."""

    items: tuple
    sep: str = LIST_SEP


@record(frozen=True)
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


# ---------------------------------------------------------------- sentences: English text carrying its message

# The catalogues (one per language, same keys): top-level templates/i18n/, or the wheel's copy.
_ROOT = Path(__file__).resolve().parent.parent.parent
CATALOGUES = next((p for p in (_ROOT / "templates", _ROOT / "kernel_atlas_templates")
                   if (p / "base.html").is_file()), _ROOT / "templates") / "i18n"


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """The catalogue of one language (key -> string with ``{name}`` placeholders)."""
    return json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))


class Sentence(str):
    """A sentence made from a message: its English text (printed, compared and stored as the plain
    text it is) and ``msg``, from which the site words it in any language. Make one with
    :func:`sentence` where its facts are known; a ``msg_*`` parameter holds a nested sentence."""

    msg: Msg

    def __new__(cls, text: str, m: Msg) -> Sentence:
        obj = super().__new__(cls, text)
        obj.msg = m
        return obj

    def __reduce__(self):
        return Sentence, (str(self), self.msg)


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def form(value: Any, spec: str) -> str:
    """An English placeholder with its form: ``{n:~wait}`` "1 wait" / "3 waits", ``{n:~vmcnt(0)~vmcnt(0)}``
    names the plural, ``{n:~~has~have}`` is the word alone ("has" / "have": a verb agreeing with a count
    said earlier), ``{n:#}`` "3rd"; any other spec as ``format`` reads it. A count may come formatted
    (``"1"``, ``"2,069"``): one is ``1`` or ``"1"``."""
    if spec.startswith("~"):
        forms = spec[1:].split("~")
        one = value == 1 or value == "1"
        if forms[0] == "" and len(forms) == 3:
            return forms[1] if one else forms[2]
        plural = forms[1] if len(forms) > 1 else forms[0] + "s"
        return f"{value} {forms[0] if one else plural}"
    if spec == "#":
        return ordinal(int(value))
    return format(value, spec)


class _Forms(string.Formatter):
    """``str.format`` that reads the English forms of :func:`form` (a sentence and the site word them alike)."""

    def format(self, template: str, /, *args: Any, **kwargs: Any) -> str:
        """``template`` filled: by ``str.format`` of :func:`_str_format`'s template, each form of :func:`form`
        worked out first, the same text (issue 41: the 9,000 strings a cold build of the shared sweep fills,
        18 ms -> 9 ms of CPU, A/B in one process)."""
        how = _str_format(template)
        if how is None:
            return super().format(template, *args, **kwargs)
        plain, forms = how
        for slot, name, spec in forms:
            kwargs[slot] = form(kwargs[name], spec)
        return plain.format(*args, **kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        return form(value, format_spec)


@lru_cache(maxsize=None)
def fields(template: str) -> tuple[tuple[str, str | None, str | None, str | None], ...]:
    """``string.Formatter().parse(template)``, read once per catalogue string."""
    return tuple(string.Formatter().parse(template))


@lru_cache(maxsize=None)
def _str_format(template: str) -> tuple[str, tuple[tuple[str, str, str], ...]] | None:
    """``template`` as ``str.format`` reads it, each field with a form of :func:`form` (``~``, ``#``) named
    apart (``{n:~wait}`` becomes ``{~0}``), and those fields: (slot, name, spec); None where a field is more
    than a name (a conversion, an index, a spec made of fields)."""
    parts, forms = [], []
    for literal, name, spec, conv in fields(template):
        parts.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        if conv or not name.isidentifier() or "{" in (spec or ""):
            return None
        if spec and spec[0] in "~#":
            forms.append((f"~{len(forms)}", name, spec))
            parts.append("{" + forms[-1][0] + "}")
        else:
            parts.append("{" + name + (":" + spec if spec else "") + "}")
    return "".join(parts), tuple(forms)


FORMS = _Forms()


def english(key: str, **params: Any) -> str:
    """The English of catalogue string ``key`` filled with data ``params`` (``str.format`` with :func:`form`)."""
    return FORMS.format(catalogue("en")[key], **params)


def sentence(key: str, **params: Any) -> Sentence:
    """:func:`english`, carrying the message: ``sentence("msg.flag.hard", n=3)`` is "3 hard failures"."""
    return Sentence(english(key, **params), Msg(key, tuple(params.items())))


def sentence_json(s: str) -> Any:
    """A shown text for a JSON record: a sentence as ``{"sentence": [text, key, {name: value}]}``
    (nested sentences alike), any other text as it is."""
    if not isinstance(s, Sentence):
        return s
    return {"sentence": [str(s), s.msg.key, {k: sentence_json(v) for k, v in s.msg.params}]}


def sentence_from_json(v: Any) -> Any:
    """The text of :func:`sentence_json`'s record."""
    if isinstance(v, dict) and "sentence" in v:
        text, key, params = v["sentence"]
        return Sentence(text, Msg(key, tuple((k, sentence_from_json(x)) for k, x in params.items())))
    return v

