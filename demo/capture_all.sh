#!/usr/bin/env bash
# Capture the demo sweep on one NVIDIA GPU: each SPEC in turn, into one sweep folder.
#
#   bash demo/capture_all.sh DEST RAW [SPEC...]
#
# DEST receives examples/ and benchmarks/examples/ (the layout `kernel-atlas build` reads),
# RAW the Nsight Compute reports and logs. With no SPEC, every demo/specs/*.py runs, in
# the order below. DEADLINE (seconds, default 420) stops starting new SPECs once that much
# time has passed, so a run inside a time limit ends with whole captures only.
set -u
DEST=${1:?DEST folder}
RAW=${2:?RAW folder}
shift 2
SPECS=("$@")
if [ ${#SPECS[@]} -eq 0 ]; then
  SPECS=(demo/specs/vec_add.py demo/specs/softmax.py demo/specs/rmsnorm.py
         demo/specs/silu_and_mul.py demo/specs/gemm.py)
fi
DEADLINE=${DEADLINE:-420}
SPEC_TIMEOUT=${SPEC_TIMEOUT:-330}
export PYTHONUNBUFFERED=1
export PYTHONPATH="$(pwd)${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$DEST" "$RAW"
start=$(date +%s)
for spec in "${SPECS[@]}"; do
  elapsed=$(( $(date +%s) - start ))
  name=$(basename "$spec" .py)
  if [ "$elapsed" -gt "$DEADLINE" ]; then
    echo "=== SKIPPED $name: ${elapsed}s elapsed > DEADLINE ${DEADLINE}s"
    continue
  fi
  echo "=== $name (at ${elapsed}s)"
  t0=$(date +%s)
  timeout "$SPEC_TIMEOUT" python3 -m generator.capture capture "$spec" --into "$DEST" --raw-dir "$RAW" \
    2>&1 | tee "$RAW/$name.capture.log"
  rc=${PIPESTATUS[0]}
  echo "=== $name rc=$rc in $(( $(date +%s) - t0 ))s"
done
echo "=== total $(( $(date +%s) - start ))s"
