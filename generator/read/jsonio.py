"""JSON parsing for the readers: orjson when it is installed, the standard library otherwise.

orjson parses the captures' large files (code.json, wave states, JSONL campaigns) about
twice as fast. Whatever it refuses (NaN, integers beyond 64 bits, lone surrogates, bad
JSON) goes to ``json.loads``, so the values and the errors are the standard library's.
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
