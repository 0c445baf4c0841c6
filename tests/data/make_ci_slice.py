"""Make ``tests/data/flydsl-ci-slice/`` from ``../shared/flydsl-ci/``: every record of a few real series
(unchanged, in file order) and ``runs.json`` whole, so a clone without ../shared still tests the CI reading.

The series: FlyDSL-vs-AIter on Navi (all of them: the inverted 2026-06-11 rows), the noisiest series
(mi355 moe_fp4_s2_atomic), flash_attn series printed to one decimal (the resolution rule), the series
that regressed on main against the tag, and one of each wart (a ``main~1`` baseline, value 0, dtype
"-", ``pr`` absent). Run: ``python3 tests/data/make_ci_slice.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent.parent / "shared" / "flydsl-ci"
OUT = HERE / "flydsl-ci-slice"
MI355, MI325 = "linux-flydsl-mi355-1", "linux-flydsl-mi325-1"
SERIES = {
    (MI355, "moe_fp4_s2_atomic", "t16-d7168x256-e257k9", "fp4", "TFLOPS"),
    (MI325, "flash_attn", "B3S65H3Hkv3D128_nocausal", "bf16", "TFLOPS"),
    (MI325, "flash_attn", "B5S33H5Hkv5D128_nocausal", "bf16", "TFLOPS"),
    (MI325, "mla", "B32C8192", "fp8", "TFLOPS"),
    (MI325, "gemm", "9728x8192x8320_tile64x256x128", "fp8", "TFLOPS"),
    (MI325, "gemm", "9728x8192x8320_tile64x256x128", "int8", "TFLOPS"),
    (MI325, "rmsnorm", "32768x8192", "bf16", "TB/s"),
    (MI355, "gemm", "5120x5120x8320_tile64x256x128", "fp8", "TFLOPS"),
    (MI355, "gemm", "9728x8192x8320_tile64x256x128", "fp8", "TFLOPS"),
    (MI355, "gemm", "9728x8192x8320_tile64x256x128", "int4", "TFLOPS"),
    (MI355, "gemm_async", "5120x5120x8320_tile128x256x128_2tg", "fp8", "TFLOPS"),
    (MI355, "flash_attn", "B2S7H4Hkv4D128_nocausal", "bf16", "TFLOPS"),
    (MI355, "moe_fp4_s2_atomic", "t8192-d7168x2048-e32k8", "-", "TFLOPS"),
    (MI325, "moe_w4a16_s1", "t256-d7168x256-e384k8", "int4_bf16", "TFLOPS"),
}


def key(r: dict) -> tuple:
    return (r["runner"], r["op"], r["shape"], r["dtype"], r["metric"])


def main() -> None:
    doc = json.loads((SOURCE / "history.json").read_text(encoding="utf-8"))
    keep = [r for r in doc["records"] if key(r) in SERIES or r["metric"] == "speedup"]
    OUT.mkdir(exist_ok=True)
    out = {k: v for k, v in doc.items() if k != "records"} | {"records": keep}
    (OUT / "history.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    shutil.copyfile(SOURCE / "runs.json", OUT / "runs.json")
    print(f"{len(keep)} records of {len({key(r) for r in keep})} series -> {OUT}")


if __name__ == "__main__":
    main()
