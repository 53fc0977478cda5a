#!/usr/bin/env bash
# The GPU rows of the workloads table (README "## Workloads"), run under `inspectc run` on a CUDA
# machine, each checked and summed up. Run from the repository root:
#
#     OUT=/some/dir bash benchmarks/gpu_workloads.sh        # OUT defaults to ./gpu-out
#
# Needs python3 with torch (CUDA) and Triton; timm and transformers for their rows (a row whose
# package is missing is reported as SKIP). inspectc need not be installed: PYTHONPATH=$PWD.
# Caches are cold (a private TORCHINDUCTOR_CACHE_DIR), so compile times and autotuning are real.
#
# Output: one block per row on stdout (CHECK lines: PASS/FAIL with the reason), then a table
# of all rows. Everything else (each run's own output, its summary, its kernel table) goes to
# $OUT/gpu_workloads.log. Reports: $OUT/gpu_reports.tar.gz (all) and the main ones beside it.
# Total budget: BUDGET_S (default 450 s); rows that would start after it are SKIPped.
# ONLY="hf_bert dynamic" runs those rows alone. DEVICE=cpu runs the same rows on CPU (a smoke test of this script; slow, GPU checks fail).

set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-out}
DEVICE=${DEVICE:-cuda}
BUDGET_S=${BUDGET_S:-450}
PY=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/inspectc-gpu.XXXXXX)
mkdir -p "$OUT" "$WORK/reports"
LOG=$OUT/gpu_workloads.log
: >"$LOG"
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}
export TORCHINDUCTOR_CACHE_DIR=$WORK/inductor-cache
export TRITON_CACHE_DIR=$WORK/triton-cache
export PYTHONUNBUFFERED=1
START=$(date +%s)
ROWS=()

say() { echo "$@" | tee -a "$LOG"; }

echo "== environment" | tee -a "$LOG"
"$PY" - <<'EOF' 2>&1 | tee -a "$LOG"
import importlib.metadata as md, platform
import torch
print(f"python {platform.python_version()} · torch {torch.__version__} · cuda {torch.version.cuda}"
      f" · available {torch.cuda.is_available()}")
if torch.cuda.is_available():
    print(f"device: {torch.cuda.get_device_name(0)} x{torch.cuda.device_count()}")
for name in ("triton", "timm", "torchvision", "transformers", "tokenizers"):
    try:
        print(f"{name} {md.version(name)}", end=" · ")
    except md.PackageNotFoundError:
        print(f"{name} MISSING", end=" · ")
print()
EOF
"$PY" -m inspectc backends 2>&1 | tr '\n' ' ' | tee -a "$LOG"
echo | tee -a "$LOG"

# run_row NAME NEEDS(python module or -) SAMPLE ARGS...
run_row() {
  local name=$1 needs=$2 sample=$3
  shift 3
  local report=$WORK/reports/$name.inspectc
  local now=$(($(date +%s) - START))
  echo
  say "== $name: inspectc run $sample $*"
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then
    return  # ONLY="row row ..." runs those rows alone
  fi
  if [ "$now" -ge "$BUDGET_S" ]; then
    say "SKIP $name: time budget of ${BUDGET_S}s used (${now}s elapsed)"
    ROWS+=("$name|SKIP|-")
    return
  fi
  if [ "$needs" != "-" ] && ! "$PY" -c "import $needs" >/dev/null 2>&1; then
    say "SKIP $name: python module '$needs' does not import here"
    ROWS+=("$name|SKIP|-")
    return
  fi
  local t0=$(date +%s.%N)
  echo "---- $name: output of the run (stdout + stderr)" >>"$LOG"
  timeout "${ROW_TIMEOUT_S:-240}" "$PY" -m inspectc run -o "$report" "samples/$sample" "$@" >>"$LOG" 2>&1
  local rc=$?
  echo "---- $name: exit code $rc" >>"$LOG"
  local wall
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  if [ ! -f "$report" ]; then
    say "FAIL $name: no report written (exit $rc); see $LOG"
    ROWS+=("$name|FAIL|exit $rc, ${wall}s, no report")
    return
  fi
  local verdict
  verdict=$("$PY" "$ROOT/benchmarks/gpu_workloads_check.py" "$name" "$report" "$rc" "$wall" 2>&1 | tee -a "$LOG")
  echo "$verdict"
  ROWS+=("$name|$(echo "$verdict" | grep '^ROW ' | cut -d' ' -f2-)")
  {
    echo "---- $name: inspectc summary"
    "$PY" -m inspectc summary "$report" 2>&1
    if "$PY" -m inspectc kernels --help >/dev/null 2>&1; then
      echo "---- $name: inspectc kernels (first 40 lines)"
      "$PY" -m inspectc kernels "$report" 2>&1 | head -40
    fi
  } >>"$LOG"
}

# Most telling rows first: if the budget runs out, the later ones are the ones skipped.
run_row sin_sin - sin_sin.py --device "$DEVICE"
run_row reduce_overhead - compile_modes.py --mode reduce-overhead --device "$DEVICE"
run_row max_autotune - compile_modes.py --mode max-autotune --device "$DEVICE" --width 256
run_row timm_resnet18 timm timm_resnet.py --model resnet18 --device "$DEVICE" --batch 16 --size 96
run_row hf_bert transformers hf_bert.py --device "$DEVICE"
run_row hf_generate transformers hf_generate.py --device "$DEVICE" --new-tokens 6
run_row dynamic - compile_modes.py --mode dynamic --device "$DEVICE"
run_row hf_pipeline transformers hf_pipeline.py --device "$DEVICE"
run_row timm_resnext26ts timm timm_resnet.py --model resnext26ts --device "$DEVICE" --batch 8 --size 96 --steps 2

# Reports back: all in one archive, the main ones beside it (the device returns <= 8 files).
tar -czf "$OUT/gpu_reports.tar.gz" -C "$WORK/reports" . 2>>"$LOG"
for name in sin_sin reduce_overhead max_autotune timm_resnet18 hf_generate; do
  f=$WORK/reports/$name.inspectc
  [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 16000000 ] && cp "$f" "$OUT/"
done

echo
echo "== gpu_workloads: $(($(date +%s) - START))s total on $DEVICE · full log: $LOG"
printf '%-18s %-5s %s\n' row check "exit · wall · frames · breaks · recompiles · kernels (triton) · compile · kernel time · details"
for row in "${ROWS[@]}"; do
  IFS='|' read -r name check rest <<<"$row"
  printf '%-18s %-5s %s\n' "$name" "$check" "$rest"
done
rm -rf "$WORK"
