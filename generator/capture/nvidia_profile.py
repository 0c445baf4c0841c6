"""Profile the candidate with Nsight Compute and describe the capture (step 3 of ``nvidia``).

``profile`` runs ncu on a child process (``profile_child``) and exports four pages of the
report; ``gather_env`` and ``provenance`` say who captured it, with what.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Any, Callable

from generator.capture.nvidia_spec import Spec, load_spec
from generator.model import record
from generator.read.discover import rel_path

NCU_PROFILE_FLAGS = ("--clock-control", "none", "--set", "full", "--import-source", "yes")
#: The four exports of a report: file name -> ``ncu -i REPORT`` arguments.
NCU_EXPORTS = (
    ("source_sass.csv", ("--page", "source", "--csv", "--print-source", "sass")),
    ("source_cuda_sass.csv", ("--page", "source", "--csv", "--print-source", "cuda,sass")),
    ("details.csv", ("--page", "details", "--csv")),
    ("raw.csv", ("--page", "raw", "--csv")),
)
NCU_TIMEOUT_S = 300


# ---------------------------------------------------------------- layout

@record
class Layout:
    """Where one capture's files go inside a sweep folder."""

    into: str
    kernel: str
    op: str
    label: str

    @property
    def bundle(self) -> str:
        return os.path.join(self.into, "examples", self.kernel)

    @property
    def capture(self) -> str:
        return os.path.join(self.bundle, "ncu", self.label)

    @property
    def source(self) -> str:
        return os.path.join(self.bundle, "source")

    @property
    def campaign(self) -> str:
        return os.path.join(self.into, "benchmarks", "examples", self.op)

    def rel(self, path: str) -> str:
        """``path`` relative to the sweep root, '/'-separated."""
        return rel_path(path, self.into)


# ---------------------------------------------------------------- ncu

def ncu_profile_argv(ncu: str, report_base: str, regex: str, launches: int, child: list[str]) -> list[str]:
    """The Nsight Compute command that profiles ``launches`` launches of the candidate."""
    return [ncu, *NCU_PROFILE_FLAGS, "-k", f"regex:{regex}", "-c", str(launches), "-f",
            "-o", report_base, *child]


def ncu_export_argvs(ncu: str, report: str) -> list[tuple[str, list[str]]]:
    """(file name, argv) of the four CSV exports of a report."""
    return [(name, [ncu, "-i", report, *flags]) for name, flags in NCU_EXPORTS]


def child_argv(spec_path: str, shapes: list[str]) -> list[str]:
    """The process ncu profiles: the candidate, once per profiled shape."""
    return [sys.executable, "-m", "generator.capture", "profile-child", spec_path, "--shapes", ",".join(shapes)]


def find_ncu() -> str | None:
    """The ``ncu`` executable: PATH, then the usual install folders (newest first)."""
    found = shutil.which("ncu")
    if found:
        return found
    cands = []
    for base in ("/opt/nvidia/nsight-compute", "/usr/local/cuda/nsight-compute"):
        if os.path.isdir(base):
            cands += [os.path.join(base, d, "ncu") for d in os.listdir(base)]
    cands += ["/usr/local/cuda/bin/ncu"]
    for c in sorted(cands, reverse=True):
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def relative_paths(text: str, root: str) -> str:
    """Export text with the capture machine's working directory cut from its file paths.

    ncu writes absolute source paths (``/home/me/repo/demo/kernels/gemm.py``); the bundle
    keeps them relative to the folder the capture ran in (``demo/kernels/gemm.py``), so no
    machine's layout is committed. Installed packages keep their absolute path (the site
    shows them from ``site-packages/`` on).
    """
    prefix = root.rstrip("/") + "/"
    return text.replace(prefix, "") if prefix != "/" else text


def public_argv(argv: list[str], replacements: dict[str, str]) -> list[str]:
    """A command line with local paths replaced by names that say what they are."""
    out = []
    for a in argv:
        for old, new in replacements.items():
            if old and old in a:
                a = a.replace(old, new)
        out.append(a)
    return out


# ---------------------------------------------------------------- environment

def _run_text(argv: list[str], timeout: float = 30) -> str:
    """stdout of a command, '' when it cannot run."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def git_commit(path: str) -> str | None:
    """``KERNEL_ATLAS_COMMIT`` if set, else the short commit of the checkout holding ``path``."""
    env = os.environ.get("KERNEL_ATLAS_COMMIT")
    if env:
        return env
    out = _run_text(["git", "-C", os.path.dirname(os.path.abspath(path)), "rev-parse", "--short=9", "HEAD"])
    return out or None


def gather_env(spec_path: str, ncu: str | None) -> dict[str, Any]:
    """Provenance of this machine: GPU, driver, CUDA, torch, triton, ncu, commit, time."""
    import platform

    import torch  # noqa: PLC0415 (GPU path only)

    env: dict[str, Any] = {
        "python_version": platform.python_version(),
        "torch_version": torch.__version__,
        "torch_git": (getattr(torch.version, "git_version", "") or "")[:9] or None,
        "cuda_version": torch.version.cuda,
        "candidate_commit": git_commit(spec_path),
        "captured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    try:
        import triton

        env["triton_version"] = triton.__version__
    except ImportError:
        env["triton_version"] = None
    props = torch.cuda.get_device_properties(0)
    env.update(gpu=props.name, arch=f"sm_{props.major}{props.minor}", sm_count=props.multi_processor_count,
               memory_gib=round(props.total_memory / 2**30, 1))
    smi = _run_text(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    env["driver_version"] = smi.splitlines()[0].strip() if smi else None
    if ncu:
        ver = _run_text([ncu, "--version"])
        env["ncu_version"] = ver.splitlines()[-1].strip() if ver else None
    env["cuda_visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    return env


# ---------------------------------------------------------------- profiling

def profile_child(spec_path: str, shape_names: list[str]) -> int:
    """Run the candidate once per named shape (the process that ncu profiles)."""
    import torch

    spec = load_spec(spec_path)
    fn = spec.module.providers()[spec.candidate]
    for name in shape_names:
        shape = spec.shape(name)
        torch.manual_seed(int(spec.shape_id(shape)[5:13], 16))
        inputs = tuple(spec.module.make_inputs(shape.as_dict(), "cuda"))
        fn(*inputs)
        torch.cuda.synchronize()
        del inputs
    return 0


def run_child(argv: list[str], timeout: float, what: str) -> tuple[int, str]:
    """Run a child process with this checkout first on its PYTHONPATH: (return code, stdout + stderr);
    124 when it runs past ``timeout`` seconds."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
        return proc.returncode, (proc.stdout or "") + (proc.stderr or "")
    except subprocess.TimeoutExpired as err:
        return 124, f"{what} timed out after {timeout} s: {err}"


def profile(spec: Spec, layout: Layout, regex: str, ncu: str, raw_dir: str, export_dir: str,
            log: Callable[[str], None]) -> dict[str, Any]:
    """Profile the candidate with ncu and export the four pages into ``export_dir``."""
    os.makedirs(raw_dir, exist_ok=True)
    os.makedirs(export_dir, exist_ok=True)
    base = os.path.join(raw_dir, f"{spec.kernel}_{layout.label}")
    report = base + ".ncu-rep"
    spec_abs = os.path.abspath(spec.path)
    argv = ncu_profile_argv(ncu, base, regex, len(spec.profile), child_argv(spec_abs, spec.profile))
    hide = {raw_dir: "<raw-dir>", os.path.dirname(spec_abs): "<spec-dir>", sys.executable: "python3", ncu: "ncu"}
    info: dict[str, Any] = {"profile_command": public_argv(argv, hide), "exports": {}}
    log(f"[{spec.kernel}] ncu: {' '.join(info['profile_command'])}")
    t0 = time.time()
    rc, out = run_child(argv, NCU_TIMEOUT_S, "ncu")
    info["profile_seconds"] = round(time.time() - t0, 1)
    info["profile_returncode"] = rc
    with open(base + ".ncu.log", "w", encoding="utf-8") as fh:
        fh.write(out)
    info["profile_log_tail"] = public_argv([out[-1500:]], hide)[0]
    if not os.path.isfile(report):
        log(f"[{spec.kernel}] ncu wrote no report (rc {rc}): {out[-800:]}")
        info["report"] = None
        return info
    info["report_bytes"] = os.path.getsize(report)
    for name, eargv in ncu_export_argvs(ncu, report):
        dest = os.path.join(export_dir, name)
        try:
            proc = subprocess.run(eargv, capture_output=True, text=True, timeout=NCU_TIMEOUT_S)
            ok = proc.returncode == 0 and proc.stdout.strip() != ""
            if ok:
                with open(dest, "w", encoding="utf-8", newline="") as fh:
                    fh.write(relative_paths(proc.stdout, os.getcwd()))
            err = None if ok else (proc.stderr or proc.stdout)[-800:]
        except subprocess.TimeoutExpired:
            ok, err = False, "timed out"
        info["exports"][name] = {"command": public_argv(eargv, {**hide, report: "<report>.ncu-rep"}),
                                 "ok": ok, **({"error": err} if err else {})}
        log(f"[{spec.kernel}] export {name}: {'ok' if ok else 'FAILED ' + str(err)[-300:]}")
    return info


def provenance(spec: Spec, layout: Layout, env: dict, regex: str, prof: dict | None,
               sources: list[str]) -> dict[str, Any]:
    """The ``provenance.json`` object of one NVIDIA capture."""
    shapes = []
    for name in spec.profile:
        s = spec.shape(name)
        shapes.append({"name": s.name, "shape_id": spec.shape_id(s), "args": s.args, "dtype": s.dtype,
                       "model": s.model, "stage": s.stage})
    keys = ("gpu", "arch", "sm_count", "memory_gib", "driver_version", "cuda_version", "ncu_version",
            "torch_version", "triton_version", "python_version", "candidate_commit", "captured_at")
    return {
        "format_version": 1,
        "vendor": "nvidia",
        "tool": "kernel-atlas capture",
        **{k: env.get(k) for k in keys},
        "kernel": spec.kernel,
        "op": spec.op,
        "op_type": spec.op_type,
        "label": layout.label,
        "candidate": spec.candidate,
        "reference": spec.reference,
        "kernel_regex": regex,
        "spec": "source/spec_" + os.path.basename(spec.path),
        # the exports' kernel paths are relative to the capture's working directory (relative_paths)
        "source_root": ".",
        "sources": sources,
        "profiled_shapes": shapes,
        "campaign": layout.rel(layout.campaign),
        "ncu": prof,
    }
