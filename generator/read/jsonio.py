"""JSON through orjson when it is installed, the standard library otherwise.

orjson parses the captures' large files (code.json, wave states, JSONL campaigns) about
twice as fast. Whatever it refuses (NaN, integers beyond 64 bits, lone surrogates, bad
JSON) goes to ``json.loads``, so the values and the errors are the standard library's.

It also writes the site's JSON documents about ten times faster than ``json.dumps``
(``dumps_sorted``): keys sorted, UTF-8, floats in their shortest round-trip form, a value
that is not a finite number written as ``null``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

try:
    import orjson
except ImportError:  # a dependency, but the readers work without it
    orjson = None


def loads(data: bytes | str) -> object:
    """``json.loads(data)``, through orjson when it is installed."""
    if orjson is not None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data)


def dumps_sorted(doc: object, *, indent: bool, default: Callable[[Any], Any] | None = None) -> bytes:
    """Deterministic JSON bytes: sorted keys, UTF-8, a trailing newline; two-space indent or
    no spaces at all. NaN and infinities become ``null`` (JSON has no spelling for them); ``default``
    gives JSON for a value neither writer knows."""
    if orjson is not None:
        opts = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
        return orjson.dumps(doc, option=opts | orjson.OPT_INDENT_2 if indent else opts, default=default)
    text = json.dumps(_finite(doc), sort_keys=True, ensure_ascii=False, allow_nan=False, default=default,
                      **({"indent": 2} if indent else {"separators": (",", ":")}))
    return (text + "\n").encode("utf-8")


def _finite(value: object) -> object:
    """``value`` with every non-finite float replaced by None (as orjson writes it)."""
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _float_text(value: float) -> str:
    """A finite float as ``json.dumps`` writes it (its repr); NaN and infinities through the encoder."""
    return float.__repr__(value) if value - value == 0.0 else _COMPACT.encode(value)


#: ``json.dumps(value, separators=(",", ":"))`` of the scalar types shape arguments hold
#: (exact types only: a subclass of int or str, or a container, takes the encoder).
_SCALAR_TEXT = {
    str: json.encoder.encode_basestring_ascii,
    int: int.__repr__,
    float: _float_text,
    bool: {True: "true", False: "false"}.__getitem__,
    type(None): lambda _: "null",
}
_ENCODE_STR = json.encoder.encode_basestring_ascii
_COMPACT = json.JSONEncoder(separators=(",", ":"))
_COMPACT_SORTED = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def compact(value: object, *, sort_keys: bool = False) -> str:
    """``json.dumps(value, separators=(",", ":"), sort_keys=sort_keys)``: a string, integer, flag
    or null, or a dict of them under string keys, written without the encoder (a build writes
    thousands of shape arguments); anything else through it."""
    text = _SCALAR_TEXT.get(type(value))
    if text is not None:
        return text(value)
    if type(value) is dict:
        items = sorted(value.items()) if sort_keys else value.items()
        try:
            return "{" + ",".join([_key_value(k, v) for k, v in items]) + "}"
        except KeyError:
            pass
    return (_COMPACT_SORTED if sort_keys else _COMPACT).encode(value)


def _key_value(key: object, value: object) -> str:
    """``"key":value`` of one string key and scalar value; KeyError for any other kind."""
    if type(key) is not str:
        raise KeyError(key)
    return _ENCODE_STR(key) + ":" + _SCALAR_TEXT[type(value)](value)
