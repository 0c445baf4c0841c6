"""Make ``tests/data/other_tools2/``: real files other profilers wrote, copied from public git
repositories and trimmed where big (README.md names each source, commit and licence).

    python3 tests/data/other_tools2/make.py AITER_FORK OMNIPERF FUSER

Each argument is a git directory (a clone or bare mirror) of, in order, github.com/vjelic/aiter-glog-fork,
github.com/ROCm/omniperf and github.com/NVIDIA/Fuser; files are read at fixed commits with ``git show``.
Trimming keeps real values only: columns or tables are dropped, never numbers changed.
"""

from __future__ import annotations

import csv
import io
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
AITER_ATT = "30ad77b4ba718c9a83c003415da5ca58b8b97b65"
AITER_V2 = "8b9bf1ac7462a2275f206b1299d84ccfba2258b6"
AITER_FMLA = "52fda9ae1c7fa6305c6ddbb77425edcd7b16282a"
AITER_V1 = "b221a107376294d50b19cb2cfd45c6944838b082"
OMNIPERF = "13a06f51318c7862858ae90957263d7f1e93d035"
FUSER = "8fa9ec29622d83c6c4ab1a76e906194be9946997"
ATT_DIR = "study_aggregate_load/AL/BM32-BN128-BK512_nS2-nW4/att_orig/ui_output_agent_34975_dispatch_20"
#: The pmc_perf.csv columns kept for the FlashMLA workload: the dispatch, the counters the analysis
#: reads, the pass copies it folds (``GRBM_COUNT_13``), a ``_<n>`` counter that is no copy.
FMLA_COLUMNS = ("Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
                "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "wave_size", "TCC_HIT_sum", "TCC_MISS_sum",
                "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_BUBBLE_sum", "SQ_WAVES", "SQ_WAVES_13", "GRBM_COUNT",
                "GRBM_COUNT_13", "GRBM_GUI_ACTIVE", "GRBM_GUI_ACTIVE_13", "SQC_DCACHE_REQ_READ_16",
                "Start_Timestamp", "End_Timestamp")
#: The nsys export tables kept: kernels, runtime API calls, the strings they name, the GPU.
NSYS_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "TARGET_INFO_GPU")


def show(repo: str, commit: str, path: str) -> bytes:
    """One file of a repository at a commit."""
    return subprocess.run(["git", "--git-dir", repo, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout


def write(rel: str, data: bytes) -> None:
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def keep_columns(data: bytes, columns: tuple[str, ...]) -> bytes:
    """The CSV with only ``columns``, in the file's order, values as written."""
    rows = list(csv.reader(io.StringIO(data.decode())))
    idx = [i for i, name in enumerate(rows[0]) if name in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([row[i] for i in idx])
    return out.getvalue().encode()


def trim_nsys(data: bytes) -> bytes:
    """The nsys SQLite export with ``NSYS_TABLES`` and the StringIds rows they name."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.sqlite"), os.path.join(tmp, "out.sqlite")
        with open(src, "wb") as fh:
            fh.write(data)
        con = sqlite3.connect(dst)
        con.execute("ATTACH DATABASE ? AS src", (src,))
        for table in NSYS_TABLES + ("StringIds",):
            sql = con.execute("SELECT sql FROM src.sqlite_master WHERE name = ?", (table,)).fetchone()[0]
            con.execute(sql)
        for table in NSYS_TABLES:
            con.execute(f"INSERT INTO main.{table} SELECT * FROM src.{table}")
        con.execute("INSERT INTO main.StringIds SELECT * FROM src.StringIds WHERE id IN ("
                    "SELECT shortName FROM main.CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT demangledName FROM "
                    "main.CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT mangledName FROM main.CUPTI_ACTIVITY_KIND_KERNEL "
                    "UNION SELECT nameId FROM main.CUPTI_ACTIVITY_KIND_RUNTIME)")
        con.commit()
        con.execute("DETACH DATABASE src")
        con.execute("VACUUM")
        con.close()
        with open(dst, "rb") as fh:
            return fh.read()


def main(aiter: str, omniperf: str, fuser: str) -> None:
    for name in ("code.json", "filenames.json"):
        write(f"att_decoder_gemm_afp4/ui_output_agent_34975_dispatch_20/{name}", show(aiter, AITER_ATT, f"{ATT_DIR}/{name}"))
    for name in ("code.json", "graph_options.json"):
        write(f"rocprofv2_att_fill/vectorized_elementwise_kernel_v0_ui/{name}",
              show(aiter, AITER_V2, f"att/vectorized_elementwise_kernel_v0_ui/{name}"))
    write("rocprof_compute_fmla_mi308x/pmc_perf.csv",
          keep_columns(show(aiter, AITER_FMLA, "workloads/fmla/MI300/pmc_perf.csv"), FMLA_COLUMNS))
    for name in ("timestamps.csv", "sysinfo.csv"):
        write(f"rocprof_compute_fmla_mi308x/{name}", show(aiter, AITER_FMLA, f"workloads/fmla/MI300/{name}"))
    for name in ("pmc_perf.csv", "timestamps.csv", "sysinfo.csv"):
        write(f"omniperf_vcopy_mi100/{name}", show(omniperf, OMNIPERF, f"tests/workloads/vcopy/MI100/{name}"))
    for name in ("results.csv", "results.stats.csv", "results.db"):
        write(f"rocprof_v1_stats/{name}", show(aiter, AITER_V1, name))
    write("nsys_fuser_h100/report1.sqlite", trim_nsys(show(fuser, FUSER, "report1.sqlite")))
    write("nsys_fuser_h100/nsys-log.txt", show(fuser, FUSER, "nsys-log.txt"))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
