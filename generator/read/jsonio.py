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


def dumps_sorted(doc: object, *, indent: bool) -> bytes:
    """Deterministic JSON bytes: sorted keys, UTF-8, a trailing newline; two-space indent or
    no spaces at all. NaN and infinities become ``null`` (JSON has no spelling for them)."""
    if orjson is not None:
        opts = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
        return orjson.dumps(doc, option=opts | orjson.OPT_INDENT_2 if indent else opts)
    text = json.dumps(_finite(doc), sort_keys=True, ensure_ascii=False, allow_nan=False,
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
