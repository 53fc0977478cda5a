#!/bin/bash
# SASS off the critical path (issue 29), on a CUDA machine, one call: the end-of-run stop time of
# resnet18 (inference + training, benchmarks/detail_overhead.py --detail on, cold caches) with this
# tree ("after") and with the tree at $OLD ("before", the stop-time disassembly), then one
# `inspectc run` + `inspectc bench` of samples/timm_resnet.py and `inspectc kernels` / `ir` on it
# (one basis for % of limit), then benchmarks/gpu_endings.sh if time is left. From the tree's root:
#   OLD=/path/to/older/tree OUT=gpu-out bash benchmarks/gpu_sass_stop.sh
set -u
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
NEW=$PWD; OLD=${OLD:-}
PY=${PY:-python3}
W=$(mktemp -d /tmp/inspectc-sass.XXXXXX)
T0=$SECONDS
ph() { echo "+$((SECONDS - T0))s $*" | tee -a "$OUT/sass_stop.txt"; }
overhead() {  # overhead LABEL TREE
  ph "$1: detail_overhead.py --detail on ($2)"
  (cd "$2" && PYTHONPATH=$2 TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) \
    timeout 110 $PY benchmarks/detail_overhead.py --detail on 2>>"$W/$1.err") \
    | grep OVERHEAD | sed "s/^/$1 /" | tee -a "$OUT/sass_stop.txt"
}
ph "$(nvidia-smi --query-gpu=name --format=csv,noheader) nvdisasm: $(command -v nvdisasm)"
overhead after "$NEW"
[ -n "$OLD" ] && overhead before "$OLD"
export PYTHONPATH=$NEW PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=$W/ind TRITON_CACHE_DIR=$W/tri
ph "run"
timeout 120 $PY -m inspectc run -q -o "$W/r.inspectc" samples/timm_resnet.py --model resnet18 \
  --device cuda --steps 12 >"$W/run.log" 2>&1; echo "run exit $?" | tee -a "$OUT/sass_stop.txt"
ph "bench"
timeout 100 $PY -m inspectc bench "$W/r.inspectc" --budget 1 --min-rounds 3 -q --yes >"$W/bench.log" 2>&1
echo "bench exit $?" | tee -a "$OUT/sass_stop.txt"
$PY -m inspectc kernels "$W/r.inspectc" >"$OUT/kernels.txt" 2>&1
for k in $($PY -m inspectc export "$W/r.inspectc" --no-source 2>/dev/null | $PY -c "
import json,sys; d=json.load(sys.stdin)
print(' '.join(sorted({k['name'] for f in d['frames'] for k in f['kernels'] if k['language']=='triton'})[:5]))"); do
  $PY -m inspectc ir "$W/r.inspectc" "$k" | grep -E '^(reads|% of limit|sass|.*SASS)' | sed "s/^/$k: /" >>"$OUT/ir.txt"
done
$PY -m inspectc export "$W/r.inspectc" --no-source 2>/dev/null | $PY -c "
import json,sys; d=json.load(sys.stdin); ks=[k for f in d['frames'] for k in f['kernels'] if k['language']=='triton']
from collections import Counter; print('export methods', Counter((k['roofline'] or {}).get('method') for k in ks))
print('sass missing', Counter(str(((k.get('compiled') or {}).get('missing') or {}).get('sass')) for k in ks))" >>"$OUT/ir.txt" 2>&1
cp "$W/r.inspectc" "$OUT/resnet18-sass.inspectc"
ph "endings"
[ $((SECONDS - T0)) -lt "${ENDINGS_UNTIL_S:-250}" ] && SKIP_PLAIN=1 OUT=$OUT timeout 70 bash benchmarks/gpu_endings.sh
ph "done"
cat "$W"/*.err 2>/dev/null | tail -5
rm -rf "$W"
