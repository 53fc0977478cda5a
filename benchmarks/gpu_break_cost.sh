#!/bin/bash
# Break costs on a CUDA machine (the device tool): samples/break_cost.py as it is (the GPU waits
# for the host's 20 ms gap) and with --hide (the GPU is kept busy over it: the cost is hidden),
# and samples/hf_break_cost.py (a tiny GPT-2 decoding step with an eager sampling helper). Each
# run's costs are printed beside the script's own clock. Results under $W (default /tmp/kd).
set -u
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
PY=${PY:-python3}
W=${W:-/tmp/kd}; mkdir -p "$W"
T0=$SECONDS
costs() {  # line, cost, waits on, host gap, device idle, cheap: from the export's costs
  $PY -m inspectc export "$1" | $PY -c 'import json,sys
d = json.load(sys.stdin)
for b in d["costs"]["breaks"]:
    host = (b["host_gap"] or {}).get("median_us"); dev = (b["device_idle"] or {}).get("median_us")
    g = b.get
    print("  line", g("line"), "cost", g("cost_us"), "us, waits on", g("waits_on"), "host gap", host, "device idle", dev, "cheap", g("cheap"), "share", g("share_of_call"))'
}
for mode in "" "--hide"; do
  name=bc${mode:+_hide}
  timeout 120 $PY -m inspectc run -q -o "$W/$name.inspectc" samples/break_cost.py --device cuda --steps 16 $mode \
    >"$W/$name.out" 2>&1
  echo "$name rc=$? at $((SECONDS - T0))s: $(grep median "$W/$name.out")"
  costs "$W/$name.inspectc"
done
timeout 200 $PY -m inspectc run -q -o "$W/hf.inspectc" samples/hf_break_cost.py --device cuda >"$W/hf.out" 2>&1
echo "hf rc=$? at $((SECONDS - T0))s: $(grep median "$W/hf.out")"
costs "$W/hf.inspectc"
$PY -m inspectc summary "$W/bc.inspectc" 2>&1 | sed -n '1,12p' | cut -c1-200
