#!/bin/bash
# GPU check of kernel timings (issue 16): joins, launches, shown vs measured, CUDA graphs,
# the loop's step time after the window against plain python. Run from the tree's root:
#   bash benchmarks/gpu_timings.sh   (writes reports and log.txt under $OUT, or ./gpu-out)
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
PY=${PY:-python3}
L=benchmarks/loop_step.py
log() { echo "$@" | tee -a "$OUT/log.txt"; }
one() {  # name, timeout, command...
  local name=$1 t=$2; shift 2
  local t0=$SECONDS
  TORCHINDUCTOR_CACHE_DIR=/tmp/cache-$name timeout "$t" "$@" >"/tmp/$name.out" 2>"/tmp/$name.err"
  local rc=$?
  log "[$name] rc=$rc wall=$((SECONDS - t0))s $(grep -h '^LOOP\|^PROFILER_AFTER' /tmp/$name.out)"
  [ $rc -ne 0 ] && tail -5 "/tmp/$name.err" | tee -a "$OUT/log.txt"
  grep -c "USDT\|Profiler clears" "/tmp/$name.err" | sed "s/^/  [$name] profiler lines on stderr: /" | tee -a "$OUT/log.txt"
}
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $($PY -c 'import torch;print(torch.__version__)')"
RUNS=${RUNS:-ic_block py_block ic_block_cg py_block_cg prof_after}
want() { [[ " $RUNS " == *" $1 "* ]]; }
want ic_block && one ic_block 120 $PY -m inspectc.cli.main run -q -o "$OUT/block.inspectc" $L --model block --device cuda --steps 300
want py_block && one py_block 100 $PY $L --model block --device cuda --steps 300
want ic_block_cg && one ic_block_cg 130 $PY -m inspectc.cli.main run -q -o "$OUT/block_cg.inspectc" $L --model block --device cuda --mode reduce-overhead --steps 300
want py_block_cg && one py_block_cg 110 $PY $L --model block --device cuda --mode reduce-overhead --steps 300
want prof_after && one prof_after 90 $PY benchmarks/profiler_after.py --model block --device cuda
$PY benchmarks/timings_check.py "$OUT"/*.inspectc 2>&1 | tee -a "$OUT/log.txt"
$PY -m inspectc.cli.main kernels "$OUT/block.inspectc" 2>&1 | head -30 | cut -c1-230 | tee -a "$OUT/log.txt"
$PY -m inspectc.cli.main kernels "$OUT/block_cg.inspectc" 2>&1 | tail -8 | cut -c1-230 | tee -a "$OUT/log.txt"
