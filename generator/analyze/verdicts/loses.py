"""Rule 15, where it loses: the verdict shapes by configuration, and the one split that explains them.

* *Configuration* of the candidate's row: the ``key=value`` pairs of its ``provider_detail`` (a
  parenthesized value whole) and the entries of a ``kwargs={...}`` dict in it; values are strings;
  ``tile=(MxNxK)`` is also read as ``tile M``, ``tile N``, ``tile K``. A detail naming a shape
  argument with another value than the shape's is *stale*: its configuration is unknown.
  Keys named like a shape argument are dropped, and so is a key whose value equals one argument's
  on every shape whose configuration is known. *Workgroups*: ceil(M / tile M) x ceil(N / tile N)
  x split-K where the configuration names its output tile.
* ``by_config`` = {configuration: [geomean, n]} when the verdict shapes use more than one.
* The *search*: the binary split of the verdict shapes that most reduces the sum of squared
  deviations of ln(speedup), over the shape arguments, ``stage``, the configuration keys and the
  workgroups (a feature some shape lacks is not used); each side at least 3 shapes.
* ``loss_split`` (8 shapes or more) when the split beats 95 % of 200 permutations, its sides differ by
  1.25x or more, and the leave-one-out searches pick the same feature at least 80 % of the time.

It describes where the losses are; it proves no cause.
"""

from __future__ import annotations

import ast
import math
import operator
import random
import re
from dataclasses import field
from typing import Any, Mapping, Sequence

from generator.analyze.message import Msg, msg
from generator.analyze.verdicts.rules import geomean
from generator.model import record

#: Fewest verdict shapes for a ``loss_split``, fewest shapes on each side of a split.
MIN_SHAPES, MIN_SIDE = 8, 3
#: Permutations of the significance test, and the sorted index the share must beat (95th percentile).
PERMUTATIONS, PERMUTATION_INDEX = 200, 190
#: The sides' geomeans must differ by at least this factor ...
MIN_RATIO = 1.25
#: ... and the leave-one-out searches pick the same feature at least this often.
LOO_SHARE = 0.8
#: A gain must beat the best so far by this much to replace it (the first best wins).
GAIN_EPS = 1e-12
#: Names a configuration may give the output tile's M and N and the split-K factor (lower case).
_TILE_M = ("tile_m", "block_m", "tile m")
_TILE_N = ("tile_n", "block_n", "tile n")
_SPLIT_K = ("split_k", "splitk")
_KEY = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*=(?!=)\s*")
_TILE = re.compile(r"\(?\s*(\d+)\s*x\s*(\d+)\s*x\s*(\d+)\s*\)?")
_CLOSE = {"(": ")", "{": "}", "[": "]"}


def parse_config(detail: str | None) -> dict[str, str]:
    """The ``key=value`` configuration of a ``provider_detail`` (first value of a key wins)."""
    out: dict[str, str] = {}
    text = detail or ""
    pos = 0
    while True:
        m = _KEY.search(text, pos)
        if m is None:
            return out
        key, end = m[1], _value_end(text, m.end())
        value = text[m.end():end].strip()
        pos = max(end, m.end())
        if key == "kwargs" and value.startswith("{"):
            for k, v in _dict_items(value):
                out.setdefault(k, v)
        elif value:
            out.setdefault(key, value)
            tile = _TILE.fullmatch(value) if key == "tile" else None
            if tile:
                for part, v in zip("MNK", tile.groups()):
                    out.setdefault(f"tile {part}", v)


def _value_end(text: str, start: int) -> int:
    """Where a value starting at ``start`` ends: a bracketed group whole, else the next separator
    (``,`` ``;`` a space, or a closing bracket this value did not open)."""
    if start < len(text) and text[start] in _CLOSE:
        depth, opener, closer = 0, text[start], _CLOSE[text[start]]
        for i in range(start, len(text)):
            depth += (text[i] == opener) - (text[i] == closer)
            if depth == 0:
                return i + 1
        return len(text)
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (c in ",;" or c.isspace()):
            return i
    return len(text)


def _dict_items(text: str) -> list[tuple[str, str]]:
    """The entries of a ``kwargs={...}`` literal as strings; none when it is not a literal dict."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return []
    return [(str(k), str(v)) for k, v in value.items()] if isinstance(value, dict) else []


def same_value(text: str, arg: Any) -> bool:
    """Whether a detail's value names a shape argument's value (numbers by value, booleans in any case)."""
    text = text.strip().strip("'\"")
    if isinstance(arg, bool):
        return text.lower() == str(arg).lower()
    if isinstance(arg, (int, float)):
        try:
            return float(text) == float(arg)
        except ValueError:
            return False
    return text == str(arg)


def workgroups(config: Mapping[str, str], args: Mapping[str, Any]) -> int | None:
    """ceil(M / tile M) x ceil(N / tile N) x split-K; None unless the tile and M, N are known."""
    lower = {k.lower(): v for k, v in config.items()}
    try:
        tm = next(int(lower[k]) for k in _TILE_M if k in lower)
        tn = next(int(lower[k]) for k in _TILE_N if k in lower)
        split = next((int(lower[k]) for k in _SPLIT_K if k in lower), 1)
        m, n = int(args["M"]), int(args["N"])
    except (StopIteration, KeyError, ValueError, TypeError):
        return None
    if tm <= 0 or tn <= 0 or split <= 0:
        return None
    return math.ceil(m / tm) * math.ceil(n / tn) * split


@record(frozen=True)
class ShapeConfig:
    """A verdict shape's configuration (None: stale or unknown) and workgroups."""

    config: dict[str, str] | None
    workgroups: int | None
    stale: bool

    @property
    def label(self) -> str:
        """``k=v, ...`` sorted by key; "" when unknown."""
        if self.config is None:
            return ""
        return ", ".join(f"{k}={v}" for k, v in sorted(self.config.items()) if not k.startswith("tile "))


def shape_configs(shapes: Sequence, details: Mapping[str, str | None]) -> dict[str, ShapeConfig]:
    """Each shape's configuration, stale details marked, keys that restate an argument dropped."""
    raw: dict[str, dict[str, str] | None] = {}
    names: set[str] = set()
    for s in shapes:
        names.update(s.args)
        cfg = parse_config(details.get(s.shape_id))
        stale = any(k in s.args and not same_value(v, s.args[k]) for k, v in cfg.items())
        raw[s.shape_id] = None if stale else cfg
    known = [s for s in shapes if raw[s.shape_id] is not None]
    drop = {k for cfg in raw.values() if cfg for k in cfg if k in names or _restates(k, known, raw)}
    out = {}
    for s in shapes:
        cfg = raw[s.shape_id]
        out[s.shape_id] = ShapeConfig(None if cfg is None else {k: v for k, v in cfg.items() if k not in drop},
                                      workgroups(cfg, s.args) if cfg is not None else None, cfg is None)
    return out


def _restates(key: str, known: Sequence, raw: Mapping[str, dict | None]) -> bool:
    """A key whose value equals one argument's value on every shape whose configuration is known."""
    if not known:
        return False
    args = set(known[0].args)
    for s in known:
        value = raw[s.shape_id].get(key)
        if value is None:
            return False
        args = {a for a in args if a in s.args and same_value(value, s.args[a])}
        if not args:
            return False
    return True


@record(frozen=True)
class Split:
    """A binary split of shapes: ``feature op value`` holds on the inside."""

    feature: str
    op: str  # "<=" or "=="
    value: Any
    inside: tuple[int, ...]  # indices into the shapes searched
    gain: float
    share: float


def features(shapes: Sequence, configs: Mapping[str, ShapeConfig]) -> list[tuple[str, list]]:
    """(name, values per shape) of every feature all shapes have, in first-seen order (rule 15)."""
    return [(name, values) for name, values, lacking in _columns(shapes, configs) if not lacking]


def _columns(shapes: Sequence, configs: Mapping[str, ShapeConfig]) -> list[tuple[str, list, set[int]]]:
    """(name, values per shape, the shapes lacking it) of every feature some shape has, in first-seen
    order: shape arguments (a number or a string; booleans are none), ``stage``, configuration keys,
    ``workgroups``."""
    order: dict[str, None] = {}
    for s in shapes:
        order.update(dict.fromkeys(s.args))
    cols = [(name, [s.args.get(name) for s in shapes], _arg_value) for name in order]
    cols.append(("stage", [s.stage for s in shapes], _known))
    cfgs = [configs[s.shape_id] for s in shapes]
    keys: dict[str, None] = {}
    for c in cfgs:
        keys.update(dict.fromkeys(c.config or {}))
    cols += [(f"config {key}", [(c.config or {}).get(key) for c in cfgs], _known) for key in keys]
    cols.append(("workgroups", [c.workgroups for c in cfgs], _known))
    return [(name, values, {i for i, v in enumerate(values) if not ok(v)}) for name, values, ok in cols]


def _arg_value(v: Any) -> bool:
    return v is not None and not isinstance(v, bool) and isinstance(v, (int, float, str))


def _known(v: Any) -> bool:
    return v is not None


def candidate_splits(cols: Sequence[tuple[str, list]]) -> list[tuple[str, str, Any, tuple[int, ...], Any]]:
    """Every split the search tries, in order: numbers at ``<= t`` (ascending, all but the largest),
    anything else at ``== v`` (values sorted as strings); each side at least MIN_SIDE shapes. A split
    holding the same shapes as an earlier one is left out (its gain is the same: it never wins).
    Each comes with ``operator.itemgetter`` of its inside (``best_split``)."""
    out, seen = [], set()
    for name, values in cols:
        n = len(values)
        numeric = all(isinstance(v, (int, float)) for v in values)
        if numeric:
            tries = [("<=", t, tuple(i for i, v in enumerate(values) if v <= t)) for t in sorted(set(values))[:-1]]
        else:
            text = [str(v) for v in values]
            tries = [("==", _original(values, t), tuple(i for i, v in enumerate(text) if v == t))
                     for t in sorted(set(text))]
        for op, value, inside in tries:
            if MIN_SIDE <= len(inside) <= n - MIN_SIDE and inside not in seen:
                seen.add(inside)
                out.append((name, op, value, inside, operator.itemgetter(*inside)))
    return out


def _original(values: Sequence, text: str) -> Any:
    """The first value whose string is ``text`` (so a split names ``model_config``, not its repr)."""
    return next(v for v in values if str(v) == text)


def best_split(splits: Sequence[tuple[str, str, Any, tuple[int, ...], Any]], ys: Sequence[float]) -> Split | None:
    """The split that most reduces the sum of squares of ``ys`` (the first best wins); None without one.

    A side's sum of squares is sum(y^2) - (sum y)^2 / n from the inside's sums and the rest by
    difference: one pass over the inside per split. Measured on the reference sweep's 10 verdicts
    (permutation and leave-one-out tests included): 0.15 s of CPU, against 0.32 s with two passes
    over each side; the sums taken with ``map`` over the squares made once (the same additions in
    the same order), 0.12 s against 0.15 s (issue 41, the shared sweep). The inside's values taken
    by its ``itemgetter`` (a tuple, summed in the same order) and the Split made for the winner only:
    the permutation tests over the shared sweep's campaigns 40.3 ms -> 29.2 ms of CPU (issue 41)."""
    n = len(ys)
    squares = [y * y for y in ys]
    s1, s2 = sum(ys), sum(squares)
    total = s2 - s1 * s1 / n if n else 0.0
    if total <= 0.0:
        return None
    best, at = 0.0, None
    for j, (_name, _op, _value, inside, pick) in enumerate(splits):
        k = len(inside)
        a1 = sum(pick(ys))
        a2 = sum(pick(squares))
        b1, b2 = s1 - a1, s2 - a2
        gain = total - (a2 - a1 * a1 / k) - (b2 - b1 * b1 / (n - k))
        if at is None or gain > best + GAIN_EPS:
            best, at = gain, j
    if at is None:
        return None
    name, op, value, inside, _pick = splits[at]
    return Split(name, op, value, inside, best, best / total)


def search(shapes: Sequence, configs: Mapping[str, ShapeConfig], ys: Sequence[float]) -> Split | None:
    """The best split of these shapes (features checked on them)."""
    return best_split(candidate_splits(features(shapes, configs)), ys)


@record(frozen=True)
class LossSplit:
    """The reported split: which side loses, by how much, on which shapes."""

    feature: str
    op: str
    value: Any
    inside: list  # [geomean, n]
    outside: list
    explains: float
    loses: str  # "inside" or "outside"
    shapes: list[str]  # the losing side's shape ids, in verdict-shape order

    @property
    def losing(self) -> list:
        return self.inside if self.loses == "inside" else self.outside

    @property
    def other(self) -> list:
        return self.outside if self.loses == "inside" else self.inside

    def to_json(self) -> dict[str, Any]:
        return {"feature": self.feature, "op": self.op, "value": self.value, "inside": list(self.inside),
                "outside": list(self.outside), "explains": self.explains, "loses": self.loses,
                "shapes": list(self.shapes)}


def loss_split(shapes: Sequence, configs: Mapping[str, ShapeConfig]) -> LossSplit | None:
    """The split rule 15 reports, or None when one of its three tests fails (or too few shapes)."""
    n = len(shapes)
    if n < MIN_SHAPES:
        return None
    ys = [math.log(s.verdict_speedup) for s in shapes]
    splits = candidate_splits(features(shapes, configs))
    found = best_split(splits, ys)
    if found is None:
        return None
    inside = set(found.inside)
    g_in = geomean(s.verdict_speedup for i, s in enumerate(shapes) if i in inside)
    g_out = geomean(s.verdict_speedup for i, s in enumerate(shapes) if i not in inside)
    if max(g_in, g_out) < MIN_RATIO * min(g_in, g_out):
        return None
    if not _beats_permutations(splits, ys, found.share):
        return None
    if not _stable(shapes, configs, ys, found.feature):
        return None
    loses = "inside" if g_in < g_out else "outside"
    side = [s.shape_id for i, s in enumerate(shapes) if (i in inside) == (loses == "inside")]
    return LossSplit(found.feature, found.op, found.value, [g_in, len(inside)], [g_out, n - len(inside)],
                     found.share, loses, side)


def _beats_permutations(splits: Sequence, ys: Sequence[float], share: float) -> bool:
    """Whether ``share`` beats the best share at sorted index 190 of 200 permutations of ``ys``
    (``random.Random(0)``): it does unless 10 of them reach it, so the 10th that does ends the test
    (issue 41, with ``_stable`` stopping likewise: ``loss_split`` 0.127 s -> 0.106 s of a cold build's CPU on
    the 25-kernel benchmark sweep)."""
    rng = random.Random(0)
    reaching = PERMUTATIONS - PERMUTATION_INDEX  # share <= sorted(shares)[190]: 10 shares >= share
    for _ in range(PERMUTATIONS):
        perm = list(ys)
        rng.shuffle(perm)
        found = best_split(splits, perm)
        if (found.share if found else 0.0) >= share:
            reaching -= 1
            if reaching == 0:
                return False
    return True


def _stable(shapes: Sequence, configs: Mapping[str, ShapeConfig], ys: Sequence[float], feature: str) -> bool:
    """The leave-one-out searches pick ``feature`` (any value) at least LOO_SHARE of the time; the
    searches stop once the answer is known (issue 41: 58 ms -> 49 ms on the 25-kernel benchmark sweep).
    The features of the shapes but one are the columns of all that only that one may lack, in the
    same order (every name they keep is the first shape's); without the first shape they are read
    anew (issue 41: over the shared sweep's campaigns, with ``best_split``'s itemgetters, 31.6 ms -> 20.8 ms)."""
    n, same = len(shapes), 0
    need = LOO_SHARE * n
    table = _columns(shapes, configs)
    for i in range(n):
        if i == 0:
            cols = features(shapes[1:], configs)
        else:
            cols = [(name, values[:i] + values[i + 1:]) for name, values, lacking in table if lacking <= {i}]
        found = best_split(candidate_splits(cols), [*ys[:i], *ys[i + 1:]])
        same += found is not None and found.feature == feature
        if same >= need or same + (n - 1 - i) < need:
            break
    return same >= need


@record
class LossReading:
    """Rule 15 for one kernel: configurations, stale details, ``by_config`` and ``loss_split``."""

    configs: dict[str, ShapeConfig] = field(default_factory=dict)
    stale_detail: int = 0
    by_config: dict[str, list] | None = None
    loss_split: LossSplit | None = None
    cus: int | None = None  # the device's compute units, beside the workgroups

    def to_json(self) -> dict[str, Any]:
        return {"stale_detail": self.stale_detail, "by_config": self.by_config,
                "loss_split": self.loss_split.to_json() if self.loss_split else None,
                "workgroups": {sid: c.workgroups for sid, c in self.configs.items() if c.workgroups is not None} or None,
                "cus": self.cus}


def side_msg(split: LossSplit, losing: bool = True) -> Msg:
    """The losing side (or the other) in words: "M <= 256", "stage is model_config", "path is not generic-scalar"."""
    inside = (split.loses == "inside") == losing
    op = {("<=", True): "le", ("<=", False): "gt", ("==", True): "eq", ("==", False): "ne"}[(split.op, inside)]
    feature = split.feature[len("config "):] if split.feature.startswith("config ") else split.feature
    value = f"{split.value:,}" if isinstance(split.value, (int, float)) and not isinstance(split.value, bool) else split.value
    return msg(f"loss.side.{op}", feature=feature, value=value)


def where_it_loses(shapes: Sequence, details: Mapping[str, str | None]) -> LossReading:
    """Rule 15 over the verdict shapes (in results-file order), ``details`` their candidate rows'
    ``provider_detail`` by shape id."""
    configs = shape_configs(shapes, details)
    groups: dict[str, list[float]] = {}
    for s in shapes:
        groups.setdefault(configs[s.shape_id].label, []).append(s.verdict_speedup)
    by_config = {k: [geomean(v), len(v)] for k, v in sorted(groups.items())} if len(groups) > 1 else None
    return LossReading(configs, sum(1 for c in configs.values() if c.stale), by_config, loss_split(shapes, configs))
