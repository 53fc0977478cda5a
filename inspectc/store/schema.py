"""The report file's layout: format marker, SQL schema, payload compression. Stdlib only.

Why SQLite (stdlib ``sqlite3``): one file to attach to a bug, transactions so a killed run
leaves a consistent file holding everything committed so far, and indexed lazy reads so a
100 MB report opens at once. No pickle: rows are JSON text and zlib-compressed UTF-8.

Tables (schema version in ``SCHEMA_VERSION`` below, changelog in ``CHANGELOG``):
  meta(key, value)                 format marker, schema version, run info (JSON)
  events(seq, ts, rank, compile_id, name, metadata, payload)
                                   every structured-trace event, raw (payload compressed)
  frames(rank, compile_id, ordinal, data)            one JSON ``Frame`` per compiled frame
  graphs(rank, compile_id, kind, seq, start, stop)   a slice of an event payload
  kernels(id, rank, compile_id, name, language, kind, graph_kind, seq, start, stop, data)
  bench(rank, compile_id, graph_kind, kernel, method, data)   ``inspectc bench`` (bench.py):
                                   made by the first bench run (``BENCH_SQL``), absent before

Every table is here; every statement that writes a report is in ``store/`` (the writers:
``writer.py``, ``oneshot.py``, ``edit.py``, ``rewrite.py``), as coverage.py keeps its SQL in
``sqldata.py``.
"""

from __future__ import annotations

import os
import threading
import zlib
from pathlib import Path

from inspectc.model.limits import scale, small_int

FORMAT = "inspectc-report"

# Changelog (a report of any other version is refused in one line; older ones are read
# through one module per step in ``migrations/``: v1_to_v2.py, v2_to_v3.py):
#   1: first version: meta, events, frames, graphs, kernels tables.
#   2: frames carry a typed ``id`` (CompileId: rank, autograd, frame, compile, attempt) and
#      typed ``autotuning``/``cudagraphs``/``symbolic_shapes`` (v1 kept them as dicts in
#      ``metrics.extra``); a failure carries its parsed ``graph_break``; ``run.options`` is
#      typed (RunOptions); kernels carry ``rank``; a graph break carries ``debug_context``
#      and ``frame_skipped``, a guard its ``function`` and ``hint`` (parsed before, dropped on
#      the way). v1 reports are migrated on read (``migrations/v1_to_v2.py``); tables are unchanged.
#      Also 2: an ``inspectc_records`` event per process holds its ``RunRecords``
#      (``runrecords.py``: exported programs and the draft-export report, AOTInductor compiles,
#      links, artifacts, FX-graph cache keys, collective schedules and estimates, execution
#      order); their text is named by graph rows keyed ``export/N`` and ``aoti/N``.
#      Also 2: ``run.options.config`` lists ConfigValue rows: each ``inspectc run --config``
#      setting, and every Dynamo/Inductor/torch.compiler option not at its default at the end.
#   3: a ``bench`` table and a ``bench`` meta key: isolated re-measurement by ``inspectc bench``
#      (``bench.py``: n/median/min/p90/CV per kernel and per compiled module, by method, and
#      the device bandwidth measured once per bench run). ``inspectc bench`` adds the table to
#      a version-2 report without changing its version (an older inspectc still opens it;
#      readers look for the table, not the version). Kernel tables are unchanged.
#      Also 3: ``run.options.kernel_harness`` (``inspectc run --kernel-harness``).
#      Also 3 (additive; older reports read with the defaults): an ``inspectc_account``
#      event per process (``account.py``: records used and kept raw, by name); a compile id
#      Dynamo starts again is its own frame, keyed ``0/0#2`` (``CompileId.occurrence``); a
#      recompile lists its failed guards (``Recompile.failed``; older per-guard entries are
#      read as one recompile, ``migrations/v2_to_v3.py``); ``metrics.extra`` may hold
#      ``phases_s``, ``instants``, ``inputs``, ``expressions``, ``runtime`` and
#      ``fx_graph_cache_key``.
#      Also 3: a ``CompileBackend`` carries ``mode`` and ``fullgraph`` (new fields with
#      defaults: older reports read them as "not recorded").
#      Also 3: a kernel's ``time`` keeps its samples (at most ``stats.SAMPLE_CAP``, exact calls/total/
#      min/max beyond) with ``median_us``, ``p90_us``, ``cv`` and ``launches`` per call (every
#      launch of a kernel in one call summed); a frame carries ``timing`` (FrameTiming: time
#      base, torch threads, CPUs, load average during the windows, graph time against the time
#      that reached a kernel, unattributed ranges, CUDA-graph replay time, why kernels are
#      untimed). v2 reports are read as they are: their times have no samples (median, p90 and
#      cv "not recorded"; readers show the mean and flag it noisy), frames no ``timing``.
#      Also 3 (additive; tables unchanged, an older inspectc reads the new events as unknown
#      ones): an ``inspectc_kernel_detail`` event per Triton kernel capture saw launch
#      (``kernel_detail.py``: TTIR/TTGIR/LLIR/PTX/SASS capped at ``IR_CAP_CHARS`` a kernel,
#      config chosen, registers, spills, shared memory, first and differing launches) and an
#      ``inspectc_cpu_build`` event (vector ISA and compile command of C++ kernels).
#      Also 3 (additive): a meta key ``accuracy`` (``accuracy.py``: ``inspectc accuracy``'s AccuracyRun: per graph,
#      compiled vs eager vs fp64 per output, the first diverging stage, CompilerBisector's
#      subsystem, the first diverging FX node with its kernels and user line). Additive: older
#      readers ignore the key; a report without it reads as "accuracy not checked".
#      Also 3 (additive): a frame's status may be ``interrupted`` (SIGINT/SIGTERM stopped the run during its
#      compile; read as ``empty_graph`` or ``compiling`` before). Older readers show
#      the status as it is.
#      Also 3 (additive): a ``run_secrets`` meta key (``secrets.py``): a salt and the salted
#      SHA-256 and length of each secret-named argv/environment value; absent: none recorded.
#      Also 3 (additive, defaults read as "not recorded"): a frame carries ``callable_name`` (the
#      user-visible callable, ``GPT2LMHeadModel.forward``, when ``function`` is a wrapper or a
#      method) and ``call_site`` (the user's line that called into it), from trace/names.py.
#      Also 3 (additive, default read as "not recorded"): a RunRecords ``GraphCollectives`` carries
#      ``code_calls``: the ``_c10d_functional`` ops its output code calls, in order (tlparse's
#      collectives parity compares them with the schedule).
#      Also 3 (additive, absent read as "not recorded"): the run record carries ``cells``: a
#      notebook's cell file names -> execution counts (``model/cells.py``, checked on read).
SCHEMA_VERSION = 3
NO_RANK = -1  # stored for "not a distributed run" (NULLs do not work in keys)

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events(
    seq INTEGER PRIMARY KEY, ts REAL, rank INTEGER NOT NULL, compile_id TEXT,
    name TEXT NOT NULL, metadata TEXT NOT NULL, payload BLOB);
CREATE INDEX IF NOT EXISTS events_by_frame ON events(rank, compile_id);
CREATE TABLE IF NOT EXISTS frames(
    rank INTEGER NOT NULL, compile_id TEXT NOT NULL, ordinal INTEGER NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY(rank, compile_id));
CREATE TABLE IF NOT EXISTS graphs(
    rank INTEGER NOT NULL, compile_id TEXT NOT NULL, kind TEXT NOT NULL,
    seq INTEGER NOT NULL, start INTEGER, stop INTEGER, PRIMARY KEY(rank, compile_id, kind));
CREATE TABLE IF NOT EXISTS kernels(
    id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, compile_id TEXT NOT NULL,
    name TEXT NOT NULL, language TEXT NOT NULL, kind TEXT NOT NULL, graph_kind TEXT NOT NULL,
    seq INTEGER NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS kernels_by_frame ON kernels(rank, compile_id);
"""
# Made by the first ``inspectc bench`` on a report, not with the report: a report bench never
# ran on has no bench table (readers look for the table, not the version; schema 3 above).
BENCH_SQL = """
CREATE TABLE IF NOT EXISTS bench(
    rank INTEGER NOT NULL, compile_id TEXT NOT NULL, graph_kind TEXT NOT NULL,
    kernel TEXT NOT NULL, method TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY(rank, compile_id, graph_kind, kernel, method));
"""

SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_PAYLOAD_BYTES = 256 << 20  # one event's text (times INSPECTC_LIMITS); huge models' output code is ~100 MB
# All payloads one process inflates, together: a report of many bombs, each under the
# per-payload cap, must end in one line, not a MemoryError or minutes of work.
# INSPECTC_INFLATE_BUDGET_MB sets it; INSPECTC_LIMITS scales it.
DEFAULT_INFLATE_BUDGET = 2 << 30


def _budget_from_env() -> int:
    text = os.environ.get("INSPECTC_INFLATE_BUDGET_MB", "")
    megabytes = small_int(text, digits=9)
    return megabytes << 20 if megabytes else max(int(DEFAULT_INFLATE_BUDGET * scale()), 64 << 20)


INFLATE_BUDGET = _budget_from_env()
_inflated = 0  # bytes this process has inflated so far
_budget_lock = threading.Lock()


def compress(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


def decompress(blob: bytes | None) -> str | None:
    """A payload's text; ``zlib.error`` when it is corrupt, inflates past the per-payload
    limit, or would take this process past its inflate budget (``INFLATE_BUDGET``)."""
    global _inflated
    if blob is None:
        return None
    if not isinstance(blob, bytes):
        raise zlib.error("not compressed data")
    with _budget_lock:
        left = max(INFLATE_BUDGET - _inflated, 0)
    most = max(
        int(MAX_PAYLOAD_BYTES * scale()), min(MAX_PAYLOAD_BYTES, 8 << 20)
    )  # a floor: golden reports read
    limit = min(most, left)
    inflater = zlib.decompressobj()
    data = inflater.decompress(blob, limit) if limit else b""
    with _budget_lock:
        _inflated += len(data)
    if inflater.unconsumed_tail or (not limit and blob):
        if limit == most:  # a zip bomb, not a graph
            raise zlib.error(f"inflates past {most >> 20} MB: refused")
        raise zlib.error(
            f"payloads inflate past {INFLATE_BUDGET >> 20} MB in all (INSPECTC_INFLATE_BUDGET_MB): refused"
        )
    if not inflater.eof:
        raise zlib.error("truncated")
    return data.decode("utf-8", "replace")


def inflated_bytes() -> int:
    """Bytes of payload this process has inflated (what counts against ``INFLATE_BUDGET``)."""
    return _inflated


def db_rank(rank: int | None) -> int:
    # A rank SQLite cannot store (a corrupt or hostile log says 2**70) is no rank at all.
    return rank if rank is not None and 0 <= rank < 2**63 else NO_RANK


def journal(path: Path) -> Path:
    return Path(str(path) + "-journal")
