"""``kernel-atlas capture amd -- CMD...``: plan and run a rocprofv3 ATT capture.

Three steps, each shown as the exact shell command it runs, so that on a machine
without ``rocprofv3`` (or with ``--dry-run``) the printed plan can be run by hand:

1. Discovery: ``rocprofv3 --stats --kernel-trace --output-format csv -d RAW -o discover -- CMD``
   writes ``RAW/discover_kernel_stats.csv``, one row per kernel::

       "Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
       "flash_attn_func_kernel_0",9,839765,93307.222222,42.08,90481,103560,3982.388347

   The kernel table (rank, name, calls, total, average, share) is shown and the user
   picks a kernel (``--kernel-regex REGEX`` picks without asking).
2. Capture: ``RAW/input_trace.yaml`` holds one thread-trace job (the kernel's exact name
   as the regex, an iteration range that skips warm-up, target CU, SE mask, SIMD
   select, buffer size) and, when asked, one PMC job per pass of at most 4 counters.
   ``rocprofv3 -i RAW/input_trace.yaml -- CMD`` runs with FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1
   and a fresh, empty FLYDSL_RUNTIME_CACHE_DIR: a cached build made without debug info
   would otherwise be reused and no instruction would map to a source line.
3. Ingest: ``generator.capture.ingest`` keeps the captures with waves, diagnoses the others
   (missing trace decoder, empty or truncated trace, lost data) and lays the bundle out
   in the sweep.

Iterations count a kernel's dispatches from 1: the shared sweep's ``"[6, [8-8]]"``
traced flash_attn_func's 6th and 8th dispatches, dispatch ids 42 and 44 of its
discovery trace (the ids its ATT files carry).

The top-level ``pmc:`` list of the sweep's hand-written YAML files is not a rocprofv3
key (their results hold no counters); counters go into jobs of their own here.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import field
from typing import Callable

from generator.capture import ingest, ingest_diagnose, ingest_raw
from generator.read import rocprof
from generator.analyze import kernel_table
from generator.errors import InputError
from generator.model import FORMAT_VERSION, record
from generator.words import plural

DEFAULT_RAW_ROOT = "kernel-atlas-raw"
DISCOVER_PREFIX = "discover"
INPUT_YAML = "input_trace.yaml"
CACHE_DIR = "flydsl_cache"
DEBUG_ENV = "FLYDSL_DEBUG_ENABLE_DEBUG_INFO"
CACHE_ENV = "FLYDSL_RUNTIME_CACHE_DIR"
DECODER_LIB = "librocprof-trace-decoder.so"
DECODER_FALLBACK_DIRS = ("/opt/rocm/lib",)

#: The sweep's habit: trace the 6th and 8th dispatch, after 5 warm-up calls.
FIRST_ITERATION, LAST_ITERATION = 6, 8
#: L2 / HBM counters of DOMAIN §2; more than ~4 TCC counters in one pass has hung gfx942.
DEFAULT_PMC = ("TCC_HIT_sum", "TCC_MISS_sum", "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum")
PMC_PER_PASS = 4
TABLE_ROWS = 25
_COUNTER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\[\d+\])?$")
_REGEX_SPECIAL = set(".^$*+?()[]{}|\\")


@record(frozen=True)
class AttSettings:
    """The thread-trace knobs of the input YAML (the shared sweep's values by default)."""

    target_cu: int = 1
    se_mask: str = "0xf"
    simd_select: str = "0xf"
    buffer_size: str = "0x6000000"
    output_format: tuple[str, ...] = ("json", "csv")
    pmc: tuple[str, ...] = ()


@record
class Plan:
    """Everything the three steps need; ``kernel`` is None until discovery has run."""

    cmd: list[str]
    raw_dir: str
    label: str
    into: str
    settings: AttSettings
    kernel: kernel_table.KernelStat | None = None
    regex: str | None = None
    iterations: str = ""
    iteration_note: str = ""
    expected_dispatches: list[int] = field(default_factory=list)
    name: str | None = None
    suffix: str | None = None
    cache_dir: str = ""

    @property
    def yaml_path(self) -> str:
        return os.path.join(self.raw_dir, INPUT_YAML)

    @property
    def stats_path(self) -> str:
        return os.path.join(self.raw_dir, f"{DISCOVER_PREFIX}_kernel_stats.csv")


# ---------------------------------------------------------------- kernel table

def format_kernel_table(stats: list[kernel_table.KernelStat], limit: int = TABLE_ROWS) -> str:
    """The discovery's kernel table: rank, calls, total, average, share, name."""
    out = [f"{'rank':>4}  {'calls':>7}  {'total ms':>10}  {'avg us':>10}  {'share':>6}  name"]
    for k in stats[:limit]:
        out.append(f"{k.rank:>4}  {k.calls:>7}  {k.total_ns / 1e6:>10.3f}  {k.avg_ns / 1e3:>10.3f}  "
                   f"{k.percent:>5.1f}%  {k.name if len(k.name) <= 100 else k.short_name}")
    if len(stats) > limit:
        out.append(f"      ... {plural(len(stats) - limit, 'more kernel')}")
    return "\n".join(out) + "\n"


def pick_kernel(stats: list[kernel_table.KernelStat], regex: str) -> tuple[kernel_table.KernelStat, list[kernel_table.KernelStat]]:
    """The kernel a ``--kernel-regex`` names: an exact name, else the hottest match."""
    try:
        pattern = re.compile(regex)
    except re.error as err:
        raise InputError("--kernel-regex", f"{regex!r} is not a regular expression: {err}") from None
    matches = [k for k in stats if pattern.search(k.name)]
    if not matches:
        raise InputError("--kernel-regex", f"{regex!r} matches no kernel of the discovery run "
                                     f"({plural(len(stats), 'kernel')}; see the table above)")
    exact = [k for k in matches if k.name == regex]
    return (exact or matches)[0], matches


def ask_kernel(stats: list[kernel_table.KernelStat], ask: Callable[[str], str] = input) -> kernel_table.KernelStat:
    """Ask which kernel to trace: a rank number (Enter: 1) or a name regex."""
    while True:
        try:
            answer = ask(f"kernel to trace [rank 1-{len(stats)} or a name regex, Enter = 1]: ").strip()
        except EOFError:
            raise InputError("--kernel-regex", "no kernel chosen (pass --kernel-regex REGEX)") from None
        if not answer:
            return stats[0]
        if answer.isdigit() and 1 <= int(answer) <= len(stats):
            return stats[int(answer) - 1]
        try:
            return pick_kernel(stats, answer)[0]
        except InputError as err:
            print(f"  {err.problem}", file=sys.stderr)


def kernel_regex(name: str, others: list[str]) -> str:
    """The include regex for one exact kernel name.

    The plain name as the sweep writes it (``flash_attn_func_kernel_0``), with regex
    characters escaped; anchored only when another kernel's name contains it, since
    rocprofv3 searches the regex in each name.
    """
    escaped = "".join("\\" + ch if ch in _REGEX_SPECIAL else ch for ch in name)
    if any(name in o for o in others if o != name):
        return f"^{escaped}$"
    return escaped


def choose_iterations(calls: int | None, override: str | None = None) -> tuple[str, str]:
    """(kernel_iteration_range, why) that skips warm-up calls.

    The 6th and 8th dispatch when the kernel runs at least 8 times (the sweep's
    choice: 5 warm-up calls pay for JIT compilation and cold caches); fewer calls
    trace the last ones.
    """
    if override:
        ingest_raw.parse_iteration_range(override)
        return override, "as given"
    if calls is None or calls >= LAST_ITERATION:
        return (f"[{FIRST_ITERATION}, [{LAST_ITERATION}-{LAST_ITERATION}]]",
                f"dispatches {FIRST_ITERATION} and {LAST_ITERATION}, after {FIRST_ITERATION - 1} warm-up calls")
    if calls >= 3:
        return f"[{calls - 2}, [{calls}-{calls}]]", f"the kernel runs only {calls} times: dispatches {calls - 2} and {calls}"
    return f"[{calls}]", f"the kernel runs only {calls} time(s): no warm-up to skip"


def expected_dispatches(trace_csv: str, kernel: str, iterations: str) -> list[int]:
    """Dispatch ids of the chosen iterations in the discovery trace (the k-th call, from 1)."""
    if not os.path.isfile(trace_csv):
        return []
    ids = [rocprof.to_int(r.get("Dispatch_Id")) for r in rocprof.read_kernel_trace(trace_csv)
           if (r.get("Kernel_Name") or "") == kernel]
    return [ids[i - 1] for i in ingest_raw.parse_iteration_range(iterations) if 0 < i <= len(ids) and ids[i - 1]]


def bundle_name(kernel: str) -> str:
    """A bundle name for a kernel: ``flash_attn_func_kernel_0`` -> ``flash_attn_func``."""
    base = kernel_table.short_kernel_name(kernel, limit=80).split("<", 1)[0]
    base = re.sub(r"_0$", "", base)
    base = re.sub(r"_?[Kk]ernel$", "", base) or base
    base = re.sub(r"[^A-Za-z0-9_.+-]", "_", base).strip("_.+-")
    return base or "kernel"


# ---------------------------------------------------------------- the input YAML

def resolve_pmc(value: object) -> tuple[str, ...]:
    """Counters of the optional PMC job: none, ``default`` (DOMAIN §2's four) or a list."""
    if value in (None, False, "", "none", "off"):
        return ()
    if value is True or value in ("default", "tcc", "on"):
        return DEFAULT_PMC
    names = value if isinstance(value, (list, tuple)) else re.split(r"[,\s]+", str(value))
    names = tuple(n for n in (s.strip() for s in names) if n)
    bad = [n for n in names if not _COUNTER.match(n)]
    if bad:
        raise InputError("--pmc", f"not counter names: {', '.join(bad)}")
    return names


def pmc_passes(counters: tuple[str, ...], per_pass: int = PMC_PER_PASS) -> list[list[str]]:
    """Counters split into passes of at most ``per_pass`` (each pass replays the program)."""
    return [list(counters[i:i + per_pass]) for i in range(0, len(counters), per_pass)]


def _q(value: str) -> str:
    """A YAML scalar: double-quoted like the sweep's files, single-quoted when it needs escapes."""
    value = str(value)
    if '"' not in value and "\\" not in value:
        return f'"{value}"'
    return "'" + value.replace("'", "''") + "'"


def _path_scalar(path: str) -> str:
    return path if re.match(r"^[A-Za-z0-9_./+-]+$", path) else _q(path)


def input_yaml(plan: Plan) -> str:
    """The rocprofv3 input file: one thread-trace job, then one job per PMC pass."""
    s = plan.settings
    regex = plan.regex or "KERNEL_NAME"
    out = [
        "jobs:",
        "    -",
        f"        kernel_include_regex: {_q(regex)}",
        f"        kernel_iteration_range: {_q(plan.iterations)}",
        f"        output_file: {ingest_raw.DEFAULT_OUTPUT_FILE}",
        f"        output_directory: {_path_scalar(plan.raw_dir)}",
        f"        output_format: [{', '.join(s.output_format)}]",
        "        truncate_kernels: true",
        "        sys_trace: false",
        "        advanced_thread_trace: true",
        f"        att_target_cu: {s.target_cu}",
        f"        att_shader_engine_mask: {_q(s.se_mask)}",
        f"        att_simd_select: {_q(s.simd_select)}",
        f"        att_buffer_size: {_q(s.buffer_size)}",
    ]
    for i, counters in enumerate(pmc_passes(s.pmc), 1):
        out += [
            "    -",
            f"        kernel_include_regex: {_q(regex)}",
            f"        kernel_iteration_range: {_q(plan.iterations)}",
            "        output_file: pmc",
            f"        output_directory: {_path_scalar(os.path.join(plan.raw_dir, 'pmc', f'pass_{i}'))}",
            "        output_format: [csv]",
            "        truncate_kernels: true",
            f"        pmc: [{', '.join(counters)}]",
        ]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- commands

def discover_command(plan: Plan) -> list[str]:
    return ["rocprofv3", "--stats", "--kernel-trace", "--output-format", "csv",
            "-d", plan.raw_dir, "-o", DISCOVER_PREFIX, "--", *plan.cmd]


def capture_command(plan: Plan) -> list[str]:
    return ["rocprofv3", "-i", plan.yaml_path, "--", *plan.cmd]


def ingest_command(plan: Plan) -> list[str]:
    argv = ["kernel-atlas", "ingest", plan.raw_dir, "--into", plan.into,
            "--kernel", plan.name or "NAME", "--label", plan.label]
    return argv + (["--suffix", plan.suffix] if plan.suffix else [])


def capture_env(plan: Plan, base: dict[str, str]) -> dict[str, str]:
    """The program's environment: debug info on, JIT cache in a fresh folder."""
    return {**base, DEBUG_ENV: "1", CACHE_ENV: os.path.abspath(plan.cache_dir)}


def _env_prefix(plan: Plan) -> str:
    cache = plan.cache_dir
    cache_word = shlex.quote(cache) if os.path.isabs(cache) else '"$PWD"/' + shlex.quote(cache)
    return f"{DEBUG_ENV}=1 {CACHE_ENV}={cache_word} "


def render_plan(plan: Plan, why: str) -> str:
    """The plan as a shell script a user can run by hand (comments say what each step does)."""
    raw = shlex.quote(plan.raw_dir)
    log = lambda name: f" 2>&1 | tee {shlex.quote(os.path.join(plan.raw_dir, name))}"  # noqa: E731
    out = [f"# kernel-atlas capture --vendor amd: {why}", ""]
    if plan.kernel is None:
        out += ["# step 1: find the kernel (per-kernel statistics and a kernel trace)",
                f"mkdir -p {raw}",
                shlex.join(discover_command(plan)) + log("discover.log"),
                f"# pick a kernel: the Name column of {shlex.quote(plan.stats_path)};",
                "# then run this again with --kernel-regex NAME to get its exact input file", ""]
    else:
        k = plan.kernel
        out += [f"# step 1 (done): picked {k.name} from {plan.stats_path} (rank {k.rank}, {plural(k.calls, 'call')})", ""]
    what = plan.kernel.name if plan.kernel else "the kernel"
    dispatches = (f"; dispatch ids {', '.join(map(str, plan.expected_dispatches))} in the discovery run"
                  if plan.expected_dispatches else "")
    out += [f"# step 2: trace {what} ({plan.iteration_note}{dispatches})",
            "# with debug info, compiled into a fresh JIT cache",
            f"cat > {shlex.quote(plan.yaml_path)} <<'EOF'",
            input_yaml(plan).rstrip("\n"),
            "EOF",
            f"mkdir {shlex.quote(plan.cache_dir)}",
            _env_prefix(plan) + shlex.join(capture_command(plan)) + log("capture.log"),
            "",
            "# step 3: put the capture into the sweep",
            shlex.join(ingest_command(plan))]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- running

def find_decoder(env: dict[str, str], rocprofv3: str | None, fallback: tuple[str, ...] | None = None) -> str | None:
    """Where rocprofv3 would load rocprof-trace-decoder from, or None when it is nowhere.

    Searched like rocprofv3 does: ROCPROF_ATT_LIBRARY_PATH, LD_LIBRARY_PATH, the ROCm
    install (ROCM_PATH, the folder beside rocprofv3's bin/), then /opt/rocm/lib.
    """
    dirs = []
    for var in ("ROCPROF_ATT_LIBRARY_PATH", "LD_LIBRARY_PATH"):
        dirs += [d for d in env.get(var, "").split(os.pathsep) if d]
    if env.get("ROCM_PATH"):
        dirs.append(os.path.join(env["ROCM_PATH"], "lib"))
    if rocprofv3:
        dirs.append(os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(rocprofv3))), "lib"))
    dirs += DECODER_FALLBACK_DIRS if fallback is None else fallback
    for d in dict.fromkeys(dirs):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            if n.startswith(DECODER_LIB):
                return os.path.join(d, n)
    return None


def run_logged(argv: list[str], env: dict[str, str], log_path: str, shown_env: str = "") -> int:
    """Run a command, showing it and its output and keeping the output in ``log_path``."""
    print("$ " + shown_env + shlex.join(argv), flush=True)
    try:
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
    except OSError as err:
        raise InputError(argv[0], f"cannot run: {err.strerror or err}") from None
    with open(log_path, "w", encoding="utf-8") as log:
        for line in proc.stdout:
            sys.stdout.write(line)
            log.write(line)
    sys.stdout.flush()
    return proc.wait()


def _first_line(argv: list[str]) -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [ln.strip() for ln in (out.stdout + out.stderr).splitlines() if ln.strip()]
    return lines[0] if out.returncode == 0 and lines else None


def rocm_version(env: dict[str, str], rocprofv3: str | None) -> str | None:
    """ROCm's version from ``<rocm>/.info/version``."""
    roots = [env.get("ROCM_PATH", "")]
    if rocprofv3:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(rocprofv3))))
    roots.append("/opt/rocm")
    for root in filter(None, roots):
        try:
            with open(os.path.join(root, ".info", "version"), encoding="utf-8") as fh:
                return fh.read().strip() or None
        except OSError:
            continue
    return None


def run_date(env: dict[str, str]) -> str:
    """UTC time of the run (SOURCE_DATE_EPOCH when set, for reproducible records)."""
    epoch = env.get("SOURCE_DATE_EPOCH")
    stamp = (dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc) if epoch and epoch.isdigit()
             else dt.datetime.now(tz=dt.timezone.utc))
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def run_info(plan: Plan, env: dict[str, str], rocprofv3: str) -> dict:
    """What ``run.json`` records for the provenance of the capture."""
    return {
        "format_version": FORMAT_VERSION,
        "tool": "kernel-atlas capture --vendor amd",
        "date": run_date(env),
        "label": plan.label,
        "kernel": plan.kernel.name if plan.kernel else None,
        "command": shlex.join(plan.cmd),
        "commit": _first_line(["git", "rev-parse", "HEAD"]),
        "rocprofv3": _first_line([rocprofv3, "--version"]),
        "rocm": rocm_version(env, rocprofv3),
    }


def check_command(cmd: list[str]) -> None:
    """The program to profile exists: its first word (a file, or a name on PATH) and, after an
    interpreter, its script; else one InputError naming the missing path."""
    prog = cmd[0]
    if os.sep in prog and not os.path.isfile(prog):
        raise InputError(prog, "no such program: expected the command to profile after --, "
                               "e.g. -- python bench.py")
    if os.sep not in prog and not shutil.which(prog) and not os.path.isfile(prog):
        raise InputError(prog, "not found on PATH: expected the command to profile after --, "
                               "e.g. -- python bench.py")
    name = os.path.basename(prog)
    script = next((w for w in cmd[1:] if not w.startswith("-")), None)
    interpreter = name.startswith("python") or name in ("bash", "sh")
    if interpreter and script and script.endswith((".py", ".sh")) and not os.path.isfile(script):
        raise InputError(script, f"no such script: expected the file {name} runs")


def fresh_dir(path: str) -> str:
    """``path``, or ``path_2``, ``path_3``... : the first name not taken yet."""
    candidate, n = path, 1
    while os.path.exists(candidate):
        n += 1
        candidate = f"{path}_{n}"
    return candidate


def _holds_capture(raw_dir: str) -> bool:
    try:
        names = os.listdir(raw_dir)
    except OSError:
        return False
    results = f"{ingest_raw.DEFAULT_OUTPUT_FILE}_results.json"
    return any(n.startswith(ingest_raw.CAPTURE_PREFIX) or n.endswith(".att") or n == results for n in names)


# ---------------------------------------------------------------- main

def settings_from_args(args) -> AttSettings:
    """Thread-trace knobs; options the capture command does not define keep the defaults."""
    d = AttSettings()
    return AttSettings(
        target_cu=int(getattr(args, "target_cu", None) or d.target_cu),
        se_mask=str(getattr(args, "se_mask", None) or d.se_mask),
        simd_select=str(getattr(args, "simd_select", None) or d.simd_select),
        buffer_size=str(getattr(args, "att_buffer_size", None) or d.buffer_size),
        pmc=resolve_pmc(getattr(args, "pmc", None)),
    )


def make_plan(args, plan_only: bool = False) -> Plan:
    """The plan from the command-line options (before discovery: no kernel yet).

    ``plan_only``: the plan is printed, not run, so a missing sweep shows as ``SWEEP``.
    """
    cmd = list(args.cmd or [])
    if cmd[:1] == ["--"]:
        cmd = cmd[1:]
    if not cmd:
        raise InputError("capture", "no command to profile: put it after --, "
                                    "e.g. kernel-atlas capture amd -- python bench.py")
    label = ingest.check_name(args.label or ingest.DEFAULT_LABEL, "--label")
    suffix = getattr(args, "suffix", None)
    name = getattr(args, "name", None)
    plan = Plan(
        cmd=cmd,
        raw_dir=os.path.normpath(args.raw_dir or os.path.join(DEFAULT_RAW_ROOT, label)),
        label=label,
        into=ingest.sweep_into(args.into, plan_only),
        settings=settings_from_args(args),
        name=ingest.check_name(name, "--name") if name else None,
        suffix=ingest.check_name(suffix, "--suffix") if suffix else None,
    )
    plan.cache_dir = os.path.join(plan.raw_dir, CACHE_DIR)
    plan.iterations, plan.iteration_note = choose_iterations(None, getattr(args, "iterations", None))
    if args.kernel and not os.path.isfile(plan.stats_path):
        plan.regex = args.kernel  # no discovery yet: the user's regex stands in for the name
    return plan


def settle_kernel(plan: Plan, kernel: kernel_table.KernelStat, stats: list[kernel_table.KernelStat], args) -> None:
    """Fill the plan from the chosen kernel: exact regex, iteration range, bundle name."""
    plan.kernel = kernel
    plan.regex = kernel_regex(kernel.name, [k.name for k in stats])
    plan.iterations, plan.iteration_note = choose_iterations(kernel.calls, getattr(args, "iterations", None))
    trace = os.path.join(plan.raw_dir, f"{DISCOVER_PREFIX}_kernel_trace.csv")
    plan.expected_dispatches = expected_dispatches(trace, kernel.name, plan.iterations)
    plan.name = plan.name or bundle_name(kernel.name)


def choose_kernel(stats: list[kernel_table.KernelStat], args, may_ask: bool) -> kernel_table.KernelStat | None:
    """The kernel ``--kernel-regex`` names, else the one the user picks when asking is possible."""
    if args.kernel:
        kernel, matches = pick_kernel(stats, args.kernel)
        if len(matches) > 1 and kernel.name != args.kernel:
            print(f"note: --kernel-regex {args.kernel!r} matches {len(matches)} kernels; tracing the hottest, "
                  f"rank {kernel.rank}. Give a longer regex to trace another.")
        return kernel
    return ask_kernel(stats) if may_ask else None


def main(args) -> int:
    """Discover, pick, capture and ingest; print the plan instead when rocprofv3 is absent."""
    rocprofv3 = shutil.which("rocprofv3")
    plan = make_plan(args, plan_only=bool(args.dry_run or not rocprofv3))
    stats = kernel_table.read_kernel_stats(plan.stats_path) if os.path.isfile(plan.stats_path) else None
    if args.dry_run or not rocprofv3:
        if stats is not None:
            print(f"kernel table of {plan.stats_path}:")
            print(format_kernel_table(stats))
            kernel = choose_kernel(stats, args, may_ask=False)
            if kernel:
                settle_kernel(plan, kernel, stats, args)
        why = "--dry-run, nothing was run" if args.dry_run else "rocprofv3 is not on PATH: run these steps by hand"
        print(render_plan(plan, why), end="")
        if not rocprofv3 and not args.dry_run:
            print("kernel-atlas: rocprofv3 not found on PATH; the plan above is what would run", file=sys.stderr)
            return 1
        return 0
    return execute(plan, stats, args, rocprofv3)


def execute(plan: Plan, stats, args, rocprofv3: str) -> int:
    """The three steps on a machine with rocprofv3."""
    check_command(plan.cmd)
    if _holds_capture(plan.raw_dir):
        raise InputError(plan.raw_dir, "already holds a capture; choose another --raw-dir or move it away")
    os.makedirs(plan.raw_dir, exist_ok=True)
    env = dict(os.environ)
    if stats is None:
        print("step 1: find the kernel")
        rc = run_logged(discover_command(plan), env, os.path.join(plan.raw_dir, "discover.log"))
        if not os.path.isfile(plan.stats_path):
            raise InputError(plan.stats_path, f"discovery wrote no kernel table (rocprofv3 exit status {rc}); "
                                              f"see {os.path.join(plan.raw_dir, 'discover.log')}")
        stats = kernel_table.read_kernel_stats(plan.stats_path)
    else:
        print(f"step 1: reusing the discovery in {plan.stats_path} (delete it to discover again)")
    if not stats:
        raise InputError(plan.stats_path, "the program ran no GPU kernel")
    print(format_kernel_table(stats))
    kernel = choose_kernel(stats, args, may_ask=sys.stdin.isatty())
    if kernel is None:
        raise InputError("--kernel-regex", "no terminal to ask which kernel to trace: pass --kernel-regex REGEX")
    settle_kernel(plan, kernel, stats, args)
    plan.cache_dir = fresh_dir(os.path.join(plan.raw_dir, CACHE_DIR))

    print(f"\nstep 2: trace {kernel.name} ({plan.iteration_note})")
    with open(plan.yaml_path, "w", encoding="utf-8") as fh:
        fh.write(input_yaml(plan))
    with open(os.path.join(plan.raw_dir, ingest_raw.RUN_INFO), "w", encoding="utf-8") as fh:
        json.dump(run_info(plan, env, rocprofv3), fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.makedirs(plan.cache_dir)
    if not find_decoder(env, rocprofv3):
        print("warning: rocprof-trace-decoder (librocprof-trace-decoder.so) was not found; without it "
              "rocprofv3 records the trace but cannot decode it.\n  fix: " + ingest_diagnose.FIX_DECODER, file=sys.stderr)
    shown = f"{DEBUG_ENV}=1 {CACHE_ENV}={shlex.quote(os.path.abspath(plan.cache_dir))} "
    rc = run_logged(capture_command(plan), capture_env(plan, env), os.path.join(plan.raw_dir, "capture.log"), shown)
    if rc:
        print(f"warning: rocprofv3 exited with status {rc}; see {os.path.join(plan.raw_dir, 'capture.log')}",
              file=sys.stderr)

    print(f"\nstep 3: {shlex.join(ingest_command(plan))}")
    report = ingest.ingest(plan.raw_dir, plan.into, plan.name, plan.label, plan.suffix)
    print(report.render(), end="")
    return 0 if report.kept else 1
