"""Shorten the recorded virtual source paths of ``rcv_pcsampling/`` (run once; idempotent).

The capture names its sources by the paths of the machine that recorded it: a checkout's folders up to
its ``projects/`` folder, and a ROCm install's ``lib/llvm/bin/../../../``. They are keys that ``code.json``
and ``snapshots.json`` share, never opened, but they read as machine paths in our repo. This rewrites both
files alike: the two prefixes become ``/`` and ``/rocm/`` (``/rocprofiler-sdk/build/kernel.cpp``,
``/rocm/include/hip/amd_detail/amd_device_functions.h``), so the source map still joins them.

    python3 tests/data/rcv_pcsampling_paths.py
"""

import json
import os
import re

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rcv_pcsampling")
#: The recording machine's prefixes, by their shape, and what each becomes.
PREFIXES = ((re.compile(r"^/(?:[^/]+/)*?projects/"), "/"),
            (re.compile(r"^/(?:[^/]+/)*?lib/llvm/bin/\.\./\.\./\.\./"), "/rocm/"))


def short(path: str) -> str:
    for old, new in PREFIXES:
        if old.match(path):
            return old.sub(new, path, count=1)
    return path


def rewrite_code(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    for row in data["code"]:
        if len(row) > 3 and isinstance(row[3], str):
            row[3] = short(row[3])
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, separators=(",", ":")))


def flat(tree: dict, prefix: str = "") -> dict[str, str]:
    out = {}
    for key, value in tree.items():
        path = prefix if key == "/" else f"{prefix}/{key}"
        out.update(flat(value, path) if isinstance(value, dict) else {path: value})
    return out


def nest(files: dict[str, str]) -> dict:
    root: dict = {}
    for path, name in files.items():
        node = root
        *folders, leaf = path.strip("/").split("/")
        for folder in folders:
            node = node.setdefault(folder, {})
        node[leaf] = name
    return {"/": root}


def rewrite_snapshots(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        files = flat(json.load(fh))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(nest({short(p): n for p, n in files.items()}), separators=(",", ":")))


if __name__ == "__main__":
    rewrite_code(os.path.join(HERE, "code.json"))
    rewrite_snapshots(os.path.join(HERE, "snapshots.json"))
