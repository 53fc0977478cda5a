#!/usr/bin/env bash
# The CUDA endings of issue 23, each under `timeout 60`: one line per mode with its exit code
# (124 = hung and killed) and wall time. Run from the repository root on a CUDA machine:
#     OUT=gpu-out bash benchmarks/gpu_endings.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
WORK=$(mktemp -d /tmp/inspectc-endings.XXXXXX)
export TORCHINDUCTOR_CACHE_DIR=$WORK/cache TRITON_CACHE_DIR=$WORK/triton
one() {  # one LABEL COMMAND...
  local label=$1 t0 rc
  shift
  t0=$(date +%s.%N)
  timeout 60 "$@" >"$WORK/$label.log" 2>&1
  rc=$?
  printf '%-26s exit %-3s %6.1fs  %s\n' "$label" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" \
    "$(grep -E '^(ENDED|child exit)' "$WORK/$label.log" | tr '\n' ' ')"
}
if [ -z "${SKIP_PLAIN:-}" ]; then  # torch alone: is the hang torch's? (SKIP_PLAIN=1: no)
  one plain-stop "$PY" benchmarks/gpu_endings.py plain-stop &
  one plain-stop-sync "$PY" benchmarks/gpu_endings.py plain-stop-sync &
  wait
fi
for mode in sin_relu triton_only queued exit_in_window fork; do
  one "run-$mode" "$PY" -m inspectc run -q -o "$WORK/$mode.inspectc" benchmarks/gpu_endings.py "$mode" &
done
wait
cat "$WORK"/*.log >"$OUT/gpu_endings.log"
rm -rf "$WORK"
