"""The SPEC file of an NVIDIA capture: load it and check it (``load_spec``).

SPEC file: a Python file whose module level imports neither torch nor triton (so
``--dry-run`` works on any machine); GPU code is reached through its functions::

    KERNEL = "softmax"                      # bundle name examples/<KERNEL>/ (required)
    OP = "softmax"                          # campaign name (default KERNEL)
    OP_TYPE = "softmax"                     # op_type column (default OP)
    CANDIDATE = "triton"                    # provider judged (default "triton")
    REFERENCE = "pytorch"                   # reference provider (default "pytorch")
    KERNEL_REGEX = "^softmax_kernel$"       # ncu -k regex:... (default KERNEL)
    LABEL = "prefill"                       # bundle label folder (default "primary")
    PROFILE = ["llama3-8b-attn"]            # shape names profiled, one launch each (default: first)
    SOURCES = ["../kernels/softmax.py"]     # snapshotted into source/ (relative to the SPEC)
    TOLERANCE = 1e-2                        # max relative error (default 1e-2)
    PROVIDERS = {                           # name -> description, or {"detail", "skip_reason"}
        "triton": "one program per row",
        "pytorch": "torch.softmax (eager)",
        "cudnn": {"detail": "...", "skip_reason": "not wired yet"},   # a not_configured row
    }
    SHAPES = [{"name": "llama3-8b-attn", "args": {"M": 65536, "N": 2048}, "dtype": "bf16",
               "model": "Llama3 8B", "stage": "prefill",
               "source": {"kind": "model_config", "notes": "32 heads x 2048 tokens"},
               "weight": {"occurrences": 32}}]
    def make_inputs(shape, device): ...     # -> tuple of arguments (shape: the dict above)
    def reference(*inputs): ...             # -> the true output, in fp32
    def providers(): ...                    # -> {name: callable(*inputs) -> output}
    def traffic(shape): ...                 # optional -> (bytes moved, flops) per call
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import sys
from types import ModuleType
from typing import Any

from generator.errors import InputError
from generator.model import record

LEDGER_SOURCE_KEYS = ("concurrency", "file", "input_len", "kind", "notes", "output_len")
WEIGHT_KEYS = ("baseline_time_weight", "occurrences", "traffic_weight")
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@record
class Shape:
    """One benchmarked shape of a SPEC."""

    name: str
    args: dict[str, Any]
    dtype: str
    model: str
    stage: str
    source: dict[str, Any]
    weight: dict[str, Any]
    notes: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The shape as the SPEC's functions receive it."""
        return {"name": self.name, "args": dict(self.args), "dtype": self.dtype, "model": self.model,
                "stage": self.stage, "source": dict(self.source), "weight": dict(self.weight),
                "notes": self.notes}


@record
class ProviderInfo:
    """A provider named by the SPEC: its description, and why it is off (None: enabled)."""

    name: str
    detail: str
    skip_reason: str | None = None


@record
class Spec:
    """A loaded SPEC file (see the module docstring)."""

    path: str
    module: ModuleType
    kernel: str
    op: str
    op_type: str
    candidate: str
    reference: str
    kernel_regex: str
    label: str
    profile: list[str]
    sources: list[str]  # absolute paths
    tolerance: float
    providers: dict[str, ProviderInfo]
    shapes: list[Shape]
    notes: str = ""

    def shape(self, name: str) -> Shape:
        """The shape called ``name``."""
        for s in self.shapes:
            if s.name == name:
                return s
        raise InputError(self.path, f"no shape named {name!r}")

    def shape_id(self, shape: Shape) -> str:
        """The ledger id of one shape."""
        return shape_id(self.op_type, shape.dtype, shape.args)


def shape_id(op_type: str, dtype: str, args: dict[str, Any]) -> str:
    """``sha1:`` + 16 hex digits of the canonical JSON of (op_type, dtype, args)."""
    text = json.dumps({"args": args, "dtype": dtype, "op_type": op_type}, sort_keys=True,
                      separators=(",", ":"))
    return "sha1:" + hashlib.sha1(text.encode()).hexdigest()[:16]


def import_source(anchor: str, rel: str) -> ModuleType:
    """Import the Python file ``rel`` (relative to the file ``anchor``) as a module.

    Triton needs the kernel's source file on disk (it reads it for JIT and line info),
    so kernels are imported from their real path, once per process.
    """
    path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(anchor)), rel))
    name = "kernel_atlas_src_" + re.sub(r"\W", "_", os.path.relpath(path, os.path.dirname(anchor)))
    name += "_" + hashlib.sha1(path.encode()).hexdigest()[:8]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(path, "cannot import this file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _load_module(path: str) -> ModuleType:
    """Execute the SPEC file as a module; any error becomes an InputError."""
    name = "kernel_atlas_spec_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(path, "not a Python file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except SyntaxError as err:
        raise InputError(path, f"syntax error: {err.msg}", line=err.lineno) from None
    except InputError:
        raise
    except Exception as err:  # the SPEC's own code failed: say what, not a traceback
        raise InputError(path, f"cannot load SPEC: {type(err).__name__}: {err}") from None
    return mod


def _need(mod: ModuleType, name: str, kind: type | tuple, path: str, default: Any = ...) -> Any:
    """A module attribute of the given type (or the default when absent)."""
    if not hasattr(mod, name):
        if default is ...:
            raise InputError(path, f"SPEC must define {name}")
        return default
    value = getattr(mod, name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        want = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(path, f"{name} must be a {want}, got {value!r}")
    return value


def check_slug(value: str, what: str, path: str) -> str:
    """A name usable as a folder and in a URL."""
    if not _SLUG.match(value):
        raise InputError(path, f"{what} {value!r} must be letters, digits, '_', '-' or '.'")
    return value


def _shape(raw: Any, index: int, path: str) -> Shape:
    """One SHAPES entry, checked."""
    where = f"SHAPES[{index}]"
    if not isinstance(raw, dict):
        raise InputError(path, f"{where} must be a dict, got {raw!r}")
    name = raw.get("name")
    if not isinstance(name, str):
        raise InputError(path, f"{where} needs a string 'name'")
    check_slug(name, f"{where} name", path)
    args = raw.get("args")
    if not isinstance(args, dict) or not args:
        raise InputError(path, f"{where} ({name}) needs a non-empty dict 'args'")
    for k, v in args.items():
        if not isinstance(k, str) or not isinstance(v, (int, float, str, bool)) or v is None:
            raise InputError(path, f"{where} ({name}): args[{k!r}] must be a number or string")
    dtype = raw.get("dtype")
    if not isinstance(dtype, str):
        raise InputError(path, f"{where} ({name}) needs a string 'dtype'")
    source = raw.get("source", {})
    weight = raw.get("weight", {})
    if not isinstance(source, dict) or not isinstance(weight, dict):
        raise InputError(path, f"{where} ({name}): 'source' and 'weight' must be dicts")
    unknown = set(weight) - set(WEIGHT_KEYS)
    if unknown:
        raise InputError(path, f"{where} ({name}): unknown weight keys {sorted(unknown)}")
    src = {k: source.get(k) for k in LEDGER_SOURCE_KEYS}
    src["kind"] = src["kind"] or "spec"
    return Shape(
        name=name, args=dict(args), dtype=dtype,
        model=str(raw.get("model", "synthetic")), stage=str(raw.get("stage", "synthetic")),
        source=src, weight={k: weight.get(k) for k in WEIGHT_KEYS}, notes=str(raw.get("notes", "")),
    )


def _providers(raw: Any, path: str) -> dict[str, ProviderInfo]:
    """The PROVIDERS table, checked."""
    if not isinstance(raw, dict) or not raw:
        raise InputError(path, "PROVIDERS must be a non-empty dict: name -> description")
    out = {}
    for name, value in raw.items():
        check_slug(str(name), "provider", path)
        if isinstance(value, str):
            out[name] = ProviderInfo(name, value)
        elif isinstance(value, dict) and isinstance(value.get("detail", ""), str):
            skip = value.get("skip_reason")
            out[name] = ProviderInfo(name, value.get("detail", ""), str(skip) if skip else None)
        else:
            raise InputError(path, f"PROVIDERS[{name!r}] must be a string or a dict with 'detail'")
    return out


def load_spec(path: str | os.PathLike) -> Spec:
    """Load and check a SPEC file (no GPU, torch or triton needed)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputError(path, "no such SPEC file")
    if not path.endswith(".py"):
        raise InputError(path, "a SPEC is a Python file (*.py)")
    mod = _load_module(path)
    kernel = check_slug(_need(mod, "KERNEL", str, path), "KERNEL", path)
    op = check_slug(_need(mod, "OP", str, path, kernel), "OP", path)
    raw_shapes = _need(mod, "SHAPES", (list, tuple), path)
    if not raw_shapes:
        raise InputError(path, "SHAPES is empty")
    shapes = [_shape(s, i, path) for i, s in enumerate(raw_shapes)]
    names = [s.name for s in shapes]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(path, f"shape names must be unique: {', '.join(dup)}")
    providers = _providers(_need(mod, "PROVIDERS", dict, path), path)
    candidate = _need(mod, "CANDIDATE", str, path, "triton")
    reference = _need(mod, "REFERENCE", str, path, "pytorch")
    for role, name in (("CANDIDATE", candidate), ("REFERENCE", reference)):
        if name not in providers:
            raise InputError(path, f"{role} {name!r} is not in PROVIDERS ({', '.join(providers)})")
    if providers[candidate].skip_reason:
        raise InputError(path, f"the candidate {candidate!r} cannot be skipped")
    for fn in ("make_inputs", "reference", "providers"):
        if not callable(getattr(mod, fn, None)):
            raise InputError(path, f"SPEC must define a function {fn}()")
    profile = list(_need(mod, "PROFILE", (list, tuple), path, [shapes[0].name]))
    for name in profile:
        if name not in names:
            raise InputError(path, f"PROFILE names an unknown shape {name!r}")
    if not profile:
        raise InputError(path, "PROFILE is empty")
    base = os.path.dirname(os.path.abspath(path))
    sources = []
    for rel in _need(mod, "SOURCES", (list, tuple), path, []):
        src = os.path.normpath(os.path.join(base, str(rel)))
        if not os.path.isfile(src):
            raise InputError(path, f"SOURCES names a missing file {rel!r}")
        sources.append(src)
    tol = _need(mod, "TOLERANCE", (int, float), path, 1e-2)
    if not tol > 0:
        raise InputError(path, f"TOLERANCE must be positive, got {tol!r}")
    return Spec(
        path=path, module=mod, kernel=kernel, op=op,
        op_type=_need(mod, "OP_TYPE", str, path, op),
        candidate=candidate, reference=reference,
        kernel_regex=_need(mod, "KERNEL_REGEX", str, path, kernel),
        label=check_slug(_need(mod, "LABEL", str, path, "primary"), "LABEL", path),
        profile=profile, sources=sources, tolerance=float(tol),
        providers=providers, shapes=shapes, notes=(mod.__doc__ or "").strip().splitlines()[0] if mod.__doc__ else "",
    )
