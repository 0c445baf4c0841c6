"""Place the files of an ingest without overwriting anything, and describe them (provenance)."""

from __future__ import annotations

import datetime as dt
import filecmp
import json
import os
import shlex
import shutil
from typing import Any

from generator.analyze import runstats
from generator.capture.ingest_raw import CaptureCheck, RawRun
from generator.errors import InputError
from generator.model import FORMAT_VERSION, record
from generator.read import att, rocprof
from generator.read.discover import rel_path

PROVENANCE = "provenance.json"


# ---------------------------------------------------------------- placing files

@record(frozen=True)
class Action:
    """One file or capture folder put in the bundle (``dest`` relative to the bundle)."""

    dest: str
    status: str  # "written", "unchanged", "kept-existing"
    note: str = ""


def same_file(a: str, b: str) -> bool:
    return os.path.isfile(b) and filecmp.cmp(a, b, shallow=False)


def tree_files(root: str) -> list[str]:
    """Relative paths of the plain files under ``root`` (links are not followed), sorted."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(n for n in dirs if not os.path.islink(os.path.join(d, n)))
        for n in files:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(rel_path(p, root))
    return sorted(out)


def same_tree(src: str, dest: str) -> bool:
    """True when ``dest`` holds exactly the files of ``src`` with the same bytes."""
    if not os.path.isdir(dest):
        return False
    names = tree_files(src)
    return names == tree_files(dest) and all(
        filecmp.cmp(os.path.join(src, n), os.path.join(dest, n), shallow=False) for n in names)


def copy_file(src: str, dest: str) -> None:
    """Copy bytes only (not the read-only modes of a shared tree), via a temporary name."""
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.ingest-tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def copy_tree(src: str, dest: str) -> None:
    """Copy a capture folder under a temporary name, then rename it into place."""
    tmp = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.ingest-tmp")
    if os.path.isdir(tmp):
        shutil.rmtree(tmp)
    try:
        for rel in tree_files(src):
            target = os.path.join(tmp, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.join(src, *rel.split("/")), target)
        os.makedirs(tmp, exist_ok=True)
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def choose_dest(src: str, bundle_dir: str, candidates: list[str]) -> tuple[str | None, str]:
    """The first candidate (relative to the bundle) that is free or already holds these bytes.

    Returns (rel, "written" | "unchanged"), or (None, "kept-existing") when every
    candidate holds a different file.
    """
    for rel in candidates:
        path = os.path.join(bundle_dir, *rel.split("/"))
        if not os.path.exists(path):
            return rel, "written"
        if same_file(src, path):
            return rel, "unchanged"
    return None, "kept-existing"


# ---------------------------------------------------------------- provenance

def _gpu(run: RawRun) -> dict[str, Any]:
    """GPU product, arch, CU count and GPU count from the agent info the ingest copies: the ATT
    run's own (``<output_file>_agent_info.csv``), else the discovery run's (same machine)."""
    for path in (run.agent_info, run.discover.get("discover_agent_info.csv")):
        if not path:
            continue
        rows = rocprof.read_agent_info(path)
        agent = runstats.pick_agent(rows)
        if agent:
            gpus = sum(1 for r in rows if (r.get("Agent_Type") or "").strip().upper() == "GPU")
            return {"gpu": agent.product or None, "arch": agent.arch, "cus": agent.cus, "gpus": gpus,
                    "agent_info": os.path.basename(path)}
    return {"gpu": None, "arch": None, "cus": None, "gpus": None, "agent_info": None}


def _results_command(run: RawRun) -> str | None:
    """The profiled command as recorded in ``<output_file>_results.json``."""
    if not run.results:
        return None
    try:
        data = att.read_json(run.results)
        cmd = data["rocprofiler-sdk-tool"][0]["metadata"]["command"]
    except (InputError, KeyError, IndexError, TypeError):
        return None
    return shlex.join(str(c) for c in cmd) if isinstance(cmd, list) else None


def _file_date(path: str) -> str:
    """UTC date-time of a file's last change (ISO 8601, seconds)."""
    stamp = dt.datetime.fromtimestamp(int(os.path.getmtime(path)), tz=dt.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def provenance_entry(run: RawRun, check: CaptureCheck, label: str, suffix: str | None,
                     files: dict[str, str]) -> dict[str, Any]:
    """What is known about where one capture came from (``None`` where unknown)."""
    info = run.run_info or {}
    job = run.job or {}
    if info.get("date"):
        date, date_source = info["date"], "run.json"
    else:
        date, date_source = _file_date(os.path.join(check.path, "code.json")), "file time of code.json"
    return {
        "label": label,
        "suffix": suffix,
        "dispatch": check.dispatch,
        "date": date,
        "date_source": date_source,
        **_gpu(run),
        "rocm": info.get("rocm"),
        "rocprofv3": info.get("rocprofv3"),
        "command": info.get("command") or _results_command(run),
        "commit": info.get("commit"),
        "kernel": info.get("kernel") or check.jit_kernel,
        "kernel_regex": job.get("kernel_include_regex"),
        "iteration_range": job.get("kernel_iteration_range"),
        "instructions": check.instructions,
        "waves": check.waves,
        "source_mapped": {"mapped": check.mapped, "total": check.instructions},
        "files": dict(sorted(files.items())),
    }


def read_provenance(path: str) -> dict[str, Any]:
    """An existing provenance file (an empty one when absent)."""
    if not os.path.exists(path):
        return {"format_version": FORMAT_VERSION, "captures": {}}
    data = att.read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("captures"), dict):
        raise InputError(path, 'expected an object with "captures"; move it away to start a new one')
    if data.get("format_version") != FORMAT_VERSION:
        raise InputError(path, f"format_version {data.get('format_version')!r} is not {FORMAT_VERSION}; "
                               "move it away to start a new one")
    return data


def provenance_bytes(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8")
