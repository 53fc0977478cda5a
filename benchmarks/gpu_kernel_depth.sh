#!/bin/bash
# Kernel depth on a CUDA machine (issue 29): capture, bench, in-run launch trace, repro of every
# Triton kernel (all timing methods), Nsight Compute beside inspectc's % of limit, compile-time
# cost of the stage/launch capture. Run from the tree's root:
#   STEPS="resnet overhead block" bash benchmarks/gpu_kernel_depth.sh   (results under $OUT)
# resnet:   samples/timm_resnet.py resnet18 (inference + training) captured with --kernel-harness,
#           inspectc bench, benchmarks/inrun_trace.py, benchmarks/repro_all.py, ncu_compare.py
# block:    loop_step.py --model block (transformer encoder block training), the same minus repro
# overhead: detail_overhead.py off/on/off/on, each from cold caches
# resnet_repro: only the repro step, on $RESNET_REPORT when given
# probe:    benchmarks/inrun_probe.py: resnet18's kernels alone on the run's own tensors, same process
# REPRO_METHODS (default all): the repro timing methods; INRUN=0 skips the resnet in-run trace
# Round 2 (issue 45), STEPS="linemap r2_resnet18" then STEPS="r2_gpt2":
# linemap:     tests/data/gpu/linemap_model.py captured with SASS (the IR line-map fixture)
# r2_MODEL:    benchmarks/gpu_models.py --model MODEL (resnet18 | gpt2) training: capture, then
#              in R2_ORDER (default "bench resources repro"): inspectc bench, gpu_resources.py
#              (cuobjdump + one ncu run over every Triton kernel), repro_all.py --methods
#              bracket,flow on the kernels over 10 µs, check (what capture recorded of each Triton
#              kernel: gpu_regs.py --counts, kernels, ir). The run's own autotuners at its end go
#              to tuners_MODEL.json (GPU_MODELS_TUNERS) for gpu_resources.py --tuners; the
#              resources tables are copied to $OUT as soon as they are written.
# regs_abi:    benchmarks/gpu_regs_abi.py under ncu: registers of kernels with and without a call
# DEADLINE_S (default 540): no phase starts, and none runs, past this many seconds
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
PY=${PY:-python3}
W=${W:-/tmp/kd}; mkdir -p "$W"
STEPS=${STEPS:-resnet block overhead}
T0=$SECONDS
ph() { echo "$(date +%H:%M:%S.%N) +$((SECONDS - T0))s $*" | tee -a "$W/phases.txt"; }
want() { [[ " $STEPS " == *" $1 "* ]]; }
DEADLINE_S=${DEADLINE_S:-540}
left() {  # seconds a phase may run: its own limit, or what is left before the deadline
  local r=$((DEADLINE_S - (SECONDS - T0) - 15)); [ "$r" -gt "$1" ] && r=$1; [ "$r" -lt 1 ] && r=1; echo "$r"
}
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu \
  --format=csv -lms 250 >"$W/clocks.csv" 2>&1 &
CLOCKS=$!
ph "start $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader) $(ncu --version 2>&1 | tail -1)"

$PY -c 'import torch, triton, transformers, timm; print("torch", torch.__version__, "triton", triton.__version__, "transformers", transformers.__version__, "timm", timm.__version__, torch.cuda.get_device_name())' 2>&1 | tee -a "$W/phases.txt"
(cuobjdump --version | tail -1; nvdisasm --version | tail -1) 2>&1 | tee -a "$W/phases.txt"

if want linemap; then
  ph "linemap capture"
  TORCHINDUCTOR_CACHE_DIR=$W/ind-l TRITON_CACHE_DIR=$W/tri-l INSPECTC_SASS_WAIT_S=30 timeout "$(left 120)" \
    $PY -m inspectc run -q -o "$W/linemap.inspectc" tests/data/gpu/linemap_model.py >"$W/linemap_run.log" 2>&1 || tail -5 "$W/linemap_run.log"
  $PY -m inspectc kernels "$W/linemap.inspectc" 2>&1 | head -6 | cut -c1-200
  for k in $($PY -m inspectc export "$W/linemap.inspectc" 2>/dev/null | $PY -c 'import json,sys; print(" ".join(k["name"] for f in json.load(sys.stdin)["frames"] for k in f["kernels"] if k["language"]=="triton"))'); do
    $PY -m inspectc ir "$W/linemap.inspectc" "$k" 2>&1 | head -12 | cut -c1-220
  done
fi

if want regs_abi; then  # a kernel with a call (__assertfail, vprintf) and without, beside ncu
  ph "regs_abi"
  TRITON_CACHE_DIR=$W/tri-abi timeout "$(left 120)" ncu --clock-control none --csv \
    --metrics launch__registers_per_thread,launch__occupancy_limit_registers,launch__block_size \
    $PY benchmarks/gpu_regs_abi.py >"$W/regs_abi.txt" 2>&1 || tail -5 "$W/regs_abi.txt"
  grep -E '^ABI|registers_per_thread' "$W/regs_abi.txt" | cut -c1-200; cp "$W/regs_abi.txt" "$OUT/" 2>/dev/null
fi

r2() {  # one model of round 2: capture, bench, bracket repro, resources and ncu
  local m=$1 R=$W/$1.inspectc
  export TORCHINDUCTOR_CACHE_DIR=$W/ind-$m TRITON_CACHE_DIR=$W/tri-$m
  ph "$m capture"
  GPU_MODELS_TUNERS=$W/tuners_$m.json INSPECTC_SASS=0 timeout "$(left 240)" $PY -m inspectc run -q -o "$R" benchmarks/gpu_models.py --model "$m" \
    --device cuda >"$W/${m}_run.log" 2>&1 || tail -5 "$W/${m}_run.log"
  tail -2 "$W/${m}_run.log"
  for phase in ${R2_ORDER:-bench resources repro}; do r2_$phase "$m" "$R"; done
}
r2_bench() {
  ph "$1 bench"
  timeout "$(left 150)" $PY -m inspectc bench "$2" --budget 1 --min-rounds 3 -q --yes >"$W/$1_bench.log" 2>&1 || tail -5 "$W/$1_bench.log"
}
r2_repro() {
  ph "$1 repro"
  timeout "$(left 240)" $PY benchmarks/repro_all.py "$2" --out "$W/repro_$1" --scripts "/tmp/rs_$1" --methods bracket,flow \
    --min-us 10 --deadline-s "$(($(left "${REPRO_S:-200}") - 25))" >"$W/repro_$1.log" 2>&1 || tail -5 "$W/repro_$1.log"
  grep -v '^|' "$W/repro_$1/repro_table.md" | tail -20
}
r2_resources() {
  ph "$1 resources"
  timeout "$(left 300)" $PY benchmarks/gpu_resources.py "$2" --out "$W/res_$1" --label "$1" \
    --ncu-timeout "$(($(left 300) - 30))" --tuners "$W/tuners_$1.json" >"$W/res_$1.log" 2>&1 || tail -5 "$W/res_$1.log"
  cp "$W/res_$1/resources_$1.md" "$W/res_$1/resources_$1.json" "$OUT/" 2>/dev/null
  gzip -c "$W/res_$1/ncu_res_$1.csv" >"$OUT/ncu_res_$1.csv.gz" 2>/dev/null
  grep -A7 '^Agreement' "$W/res_$1/resources_$1.md"; grep -A3 'within 10 points' "$W/res_$1/resources_$1.md"
}
r2_check() {  # the launch hooks start at torch's first trace record: still a launch and stages per kernel
  ph "$1 check"
  { $PY benchmarks/gpu_regs.py --counts "$2"; $PY -m inspectc kernels "$2" | head -12 | cut -c1-200
    k=$($PY -m inspectc export "$2" 2>/dev/null | $PY -c 'import json,sys; print(next(k["name"] for f in json.load(sys.stdin)["frames"] for k in f["kernels"] if k["language"]=="triton"))')
    $PY -m inspectc ir "$2" "$k" | head -30 | cut -c1-200; } >"$W/check_$1.txt" 2>&1
  head -3 "$W/check_$1.txt"; cp "$W/check_$1.txt" "$OUT/" 2>/dev/null
}
for m in resnet18 gpt2; do want "r2_$m" && r2 "$m"; done

if want probe; then
  ph "probe"
  TORCHINDUCTOR_CACHE_DIR=$W/ind-p TRITON_CACHE_DIR=$W/tri-p timeout "${PROBE_S:-150}" \
    $PY benchmarks/inrun_probe.py --out "$W/probe.json" --only "${PROBE_ONLY:-}" --max "${PROBE_MAX:-24}" \
    >"$W/probe.log" 2>&1 || tail -5 "$W/probe.log"
  tail -30 "$W/probe.log"
fi

if want resnet; then
  export TORCHINDUCTOR_CACHE_DIR=$W/ind-r TRITON_CACHE_DIR=$W/tri-r
  ph "resnet capture"
  $PY -m inspectc run -q --kernel-harness -o "$W/resnet18.inspectc" samples/timm_resnet.py \
    --model resnet18 --device cuda --steps 12 >"$W/resnet_run.log" 2>&1 || tail -5 "$W/resnet_run.log"
  ph "resnet trace"
  [ "${INRUN:-1}" = 0 ] || timeout 120 $PY benchmarks/inrun_trace.py --out "$W/inrun_resnet.json" >"$W/inrun_resnet.log" 2>&1 || tail -5 "$W/inrun_resnet.log"
  ph "resnet repro"
  $PY benchmarks/repro_all.py "$W/resnet18.inspectc" --out "$W/repro" --scripts /tmp/rs --methods "${REPRO_METHODS:-all}" \
    --deadline-s "${REPRO_S:-170}" >"$W/repro.log" 2>&1 || tail -5 "$W/repro.log"
  tail -8 "$W/repro/repro_table.md"
  ph "resnet bench"
  timeout 150 $PY -m inspectc bench "$W/resnet18.inspectc" --budget 1 --min-rounds 3 -q --yes >"$W/resnet_bench.log" 2>&1 || tail -5 "$W/resnet_bench.log"
  ph "resnet ncu"
  timeout 200 $PY benchmarks/ncu_compare.py "$W/resnet18.inspectc" "$W/repro/repro.json" --out "$W/ncu" \
    --frame 0/1 --n 10 --label resnet18 2>&1 | tail -14
fi

if want resnet_repro; then  # the repro alone, on a report carried in (RESNET_REPORT) or captured here
  export TORCHINDUCTOR_CACHE_DIR=$W/ind-r TRITON_CACHE_DIR=$W/tri-r
  R=${RESNET_REPORT:-$W/resnet18.inspectc}
  [ -f "$R" ] || $PY -m inspectc run -q --kernel-harness -o "$R" samples/timm_resnet.py \
    --model resnet18 --device cuda --steps 12 >"$W/resnet_run.log" 2>&1
  ph "resnet repro ($R)"
  $PY benchmarks/repro_all.py "$R" --out "$W/repro" --scripts /tmp/rs --methods "${REPRO_METHODS:-all}" \
    --deadline-s "${REPRO_S:-170}" >"$W/repro.log" 2>&1 || tail -5 "$W/repro.log"
  tail -14 "$W/repro/repro_table.md" | grep -v '^|'
fi

if want block; then
  export TORCHINDUCTOR_CACHE_DIR=$W/ind-b TRITON_CACHE_DIR=$W/tri-b
  ph "block capture"
  $PY -m inspectc run -q --kernel-harness -o "$W/block.inspectc" benchmarks/loop_step.py \
    --model block --device cuda --steps 40 >"$W/block_run.log" 2>&1 || tail -5 "$W/block_run.log"
  ph "block bench"
  timeout 120 $PY -m inspectc bench "$W/block.inspectc" --budget 1 --min-rounds 3 -q --yes >"$W/block_bench.log" 2>&1 || tail -5 "$W/block_bench.log"
  ph "block repro"
  $PY benchmarks/repro_all.py "$W/block.inspectc" --out "$W/repro_block" --scripts /tmp/rsb --methods "${REPRO_METHODS:-all}" \
    --deadline-s "${REPRO_B_S:-60}" >"$W/repro_block.log" 2>&1 || tail -5 "$W/repro_block.log"
  tail -8 "$W/repro_block/repro_table.md"
  ph "block ncu"
  timeout 200 $PY benchmarks/ncu_compare.py "$W/block.inspectc" "$W/repro_block/repro.json" --out "$W/ncu" \
    --n 10 --label block 2>&1 | tail -14
fi

if want overhead; then
  for round in $(seq "${OVERHEAD_ROUNDS:-2}"); do
    [ $((SECONDS - T0)) -gt "${OVERHEAD_UNTIL_S:-380}" ] && break
    for d in off on; do
      ph "overhead $d $round"
      TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) timeout 200 \
        $PY benchmarks/detail_overhead.py --detail $d 2>>"$W/overhead.err" | grep OVERHEAD | tee -a "$W/overhead.txt"
    done
  done
fi

ph end
kill $CLOCKS 2>/dev/null
cd "$W" && tar czf "$OUT/kd.tar.gz" --exclude='ind-*' --exclude='tri-*' --exclude='*.inspectc' --exclude='scripts_*' . 2>/dev/null
cp "$W"/*.inspectc "$OUT/" 2>/dev/null
ls -la "$OUT"
