"""`inspectc run` when the user's program ends badly, forks, uses threads, or the report cannot be written.

Each test is a row of a table in docs/reliability.md. Everything is real: the installed CLI
runs tiny scripts with torch.compile on CPU as a subprocess; signals are real signals, a full
disk is a real small tmpfs (or a real RLIMIT_FSIZE). One Inductor cache serves the whole
session, so only the first compile of each function is cold; independent runs go two at a
time (the machine has two cores).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPORTS, default_sigint, inspectc_cmd, run_cli

from inspectc.store.open import open_report

pytestmark = pytest.mark.capture

# No compile worker pool: on two cores it costs more than it saves, and fewer processes to reap.
ENV = {"TORCHINDUCTOR_COMPILE_THREADS": "1"}
TIMEOUT = 600

ENDS = """
import os, sys
import torch

def f(x):
    return torch.cos(x) * 2 + 1

out = torch.compile(f)(torch.ones(8))
print("compiled", float(out.sum()), flush=True)
mode = sys.argv[1]
if mode == "raise":
    raise ValueError("boom from the script")
if mode == "exit3":
    sys.exit(3)
if mode == "os_exit":
    os._exit(7)
if mode == "segfault":
    import ctypes
    ctypes.string_at(0)
if mode == "recursion":
    def down(n):
        return down(n + 1)
    down(0)
if mode == "chdir":
    os.chdir(os.path.dirname(os.getcwd()))
"""

# Enough ops that Inductor (caches off with --fresh) is still compiling when the signal comes.
SLOW = """
import torch

def many_ops(x):
    for i in range(60):
        x = torch.sin(x) * (i + 1) + torch.cos(x).sum(dim=-1, keepdim=True) / (i + 2)
    return x

print("start", flush=True)
torch.compile(many_ops)(torch.randn(16, 16))
print("finished", flush=True)
"""

PROCS = """
import os, sys, threading
import torch

def parent_fn(x):
    return torch.cos(x) * 2 + 1

def child_fn(x):
    return torch.tanh(x) * 3

def after_fn(x):
    return torch.sigmoid(x) - 1

def other_fn(x):
    return torch.exp(x) / 2

def worker(n):
    return float(torch.compile(child_fn)(torch.full((8,), float(n))).sum())

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 6
    def __getitem__(self, i):
        return torch.full((8,), float(i))

def main(mode):
    print(float(torch.compile(parent_fn)(torch.ones(8)).sum()), flush=True)
    if mode == "fork":
        pid = os.fork()
        if pid == 0:  # the child compiles, then ends normally (interpreter shutdown and all)
            print("child", worker(1), flush=True)
            sys.exit(0)
        print("child exit", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
    elif mode in ("pool-fork", "pool-spawn"):
        import multiprocessing as mp
        ctx = mp.get_context(mode.split("-")[1])
        with ctx.Pool(2 if mode == "pool-fork" else 1) as pool:
            print("pool", pool.map(worker, [1, 2]), flush=True)
    elif mode == "dataloader":
        loader = torch.utils.data.DataLoader(Data(), batch_size=2, num_workers=2)
        step = torch.compile(child_fn)
        print("batches", [float(step(b).sum()) for b in loader], flush=True)
    elif mode == "threads":
        fns = [child_fn, other_fn]
        barrier = threading.Barrier(2)
        def run(i):
            barrier.wait()
            torch.compile(fns[i])(torch.ones(8))
        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print(float(torch.compile(after_fn)(torch.ones(8)).sum()), "done", flush=True)

if __name__ == "__main__":
    main(sys.argv[1])
"""

# One small compiled frame per function (aot_eager: no C++ compiler, so nothing else the
# program writes grows large under a file-size limit).
MANY = """
import sys
import torch

n = int(sys.argv[1])
total = 0.0
for i in range(n):
    ns = {"torch": torch}
    exec(f"def fn_{i}(x):\\n    return torch.sin(x) * {i} + torch.cos(x)", ns)
    total += float(torch.compile(ns[f"fn_{i}"], backend="aot_eager")(torch.ones(4)).sum())
print(f"done {n} {total:.4f}", flush=True)
"""

MLP = """
import sys
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
compiled = torch.compile(model)
x = torch.randn(8, 16)
target = torch.randn(8, 1)
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(compiled(x), target)
    loss.backward()
    opt.step()
    losses.append(loss.detach().clone())
with torch.no_grad():
    out = compiled(x)
torch.save({"losses": losses, "out": out, "params": dict(model.state_dict())}, sys.argv[1])
print("saved", flush=True)
"""


@dataclass(frozen=True)
class Ran:
    proc: subprocess.CompletedProcess[str]
    report: Path
    trace_dir: Path


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scripts")
    for name, text in (("ends", ENDS), ("slow", SLOW), ("procs", PROCS), ("many", MANY), ("mlp", MLP)):
        (folder / f"{name}.py").write_text(textwrap.dedent(text))
    return folder


def run_script(folder: Path, label: str, script: Path, *args: str, opts: Sequence[str] = ("-q",)) -> Ran:
    report, trace_dir = folder / f"{label}.inspectc", folder / f"trace-{label}"
    proc = run_cli(
        "run",
        *opts,
        "-o",
        str(report),
        str(script),
        *args,
        cwd=folder,
        env={**ENV, "TORCH_TRACE": str(trace_dir)},
        timeout=TIMEOUT,
    )
    return Ran(proc, report, trace_dir)


def two_at_a_time(jobs: dict[str, Callable[[], Ran]]) -> dict[str, Ran]:
    """Run the first job alone (it warms the Inductor cache), the rest two at a time."""
    names = list(jobs)
    results = {names[0]: jobs[names[0]]()}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(jobs[name]) for name in names[1:]}
        results.update({name: f.result() for name, f in futures.items()})
    return results


def compiles_by_pid(trace_dir: Path) -> dict[int, list[str]]:
    """co_name of every compilation_metrics record in the TORCH_TRACE logs, by writing pid.

    Parsed independently of inspectc: the glog prefix is ``V1206 15:18:20.253000 PID path:line]``.
    """
    out: dict[int, list[str]] = {}
    prefix = re.compile(r"^(?:\[rank\d+\]:)?[A-Z]\d{4} [\d:.]+ (\d+) .*?\] (\{.*)$")
    for log in sorted(trace_dir.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            match = prefix.match(line)
            if match and match.group(2).startswith('{"compilation_metrics"'):
                name = re.search(r'"co_name": "([^"]*)"', match.group(2))
                out.setdefault(int(match.group(1)), []).append(name.group(1) if name else "?")
    return out


def integrity(report: Path) -> str:
    db = sqlite3.connect(report.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()


# -- the program ends badly -----------------------------------------------------------------

# mode -> (exit code as Python gives it, run.end_reason, what the summary says)
ENDINGS = {
    "raise": (1, "exception", "exit 1"),
    "exit3": (3, "exit", "exit 3"),
    "os_exit": (7, "running", "ended without finishing (killed?)"),
    "segfault": (-signal.SIGSEGV, "running", "ended without finishing (killed?)"),
    "recursion": (1, "exception", "exit 1"),
}


@pytest.fixture(scope="module")
def ends(scripts: Path) -> dict[str, Ran]:
    return two_at_a_time(
        {mode: (lambda m=mode: run_script(scripts, f"end-{m}", scripts / "ends.py", m)) for mode in ENDINGS}
    )


@pytest.mark.parametrize("mode", list(ENDINGS))
def test_how_the_program_ends(mode: str, ends: dict[str, Ran]) -> None:
    ran = ends[mode]
    code, reason, said = ENDINGS[mode]
    assert ran.proc.returncode == code, ran.proc.stderr
    assert ran.proc.stdout.startswith("compiled 16.6"), ran.proc.stdout  # the script's own output
    with open_report(ran.report) as r:
        assert r.run.end_reason == reason
        assert [f.function for f in r.frames] == ["f"]  # captured before the end, committed
        assert r.frames[0].status == "ok" and r.frames[0].kernel_count >= 1
    summary = run_cli("summary", str(ran.report))
    assert summary.returncode == 0 and said in summary.stdout, summary.stdout
    if mode in ("raise", "recursion"):
        name = "ValueError: boom" if mode == "raise" else "RecursionError"
        assert name in ran.proc.stderr and "Traceback" in ran.proc.stderr
        assert name in (open_report(ran.report).run.exception or "")


def test_script_that_changes_directory(scripts: Path, tmp_path: Path) -> None:
    proc = run_cli("run", "-o", "rel.inspectc", str(scripts / "ends.py"), "chdir", cwd=tmp_path, env=ENV)
    assert proc.returncode == 0, proc.stderr
    assert "Report: rel.inspectc" in proc.stderr  # the summary still finds the report
    with open_report(tmp_path / "rel.inspectc") as r:
        assert r.run.exit_code == 0 and len(r.frames) == 1


def wait_for_compile_start(report: Path, proc: subprocess.Popen[str], timeout: float = TIMEOUT) -> None:
    """Poll the report (read-only, independently of inspectc) until Dynamo started a frame."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if report.exists():
            try:
                db = sqlite3.connect(report.resolve().as_uri() + "?mode=ro", uri=True, timeout=1)
                try:
                    row = db.execute("SELECT count(*) FROM events WHERE name = 'dynamo_start'").fetchone()
                finally:
                    db.close()
                if row[0] > 0:
                    return
            except sqlite3.Error:
                pass  # the file is being created, or a commit holds the lock: poll again
        time.sleep(0.1)
    raise AssertionError("compile never started")


# signal -> (exit code as Python gives it, run.end_reason, what the summary says)
SIGNALS = {
    "SIGINT": (-signal.SIGINT, "interrupt", "exit 130"),  # Python re-raises SIGINT after KeyboardInterrupt
    "SIGTERM": (-signal.SIGTERM, "signal", "exit 143"),
    "SIGKILL": (-signal.SIGKILL, "running", "ended without finishing (killed?)"),
}


@pytest.mark.parametrize("name", list(SIGNALS))
def test_signal_while_compiling(name: str, scripts: Path, tmp_path: Path) -> None:
    report = tmp_path / "slow.inspectc"
    proc = subprocess.Popen(
        [*inspectc_cmd(), "run", "-q", "--fresh", "-o", str(report), str(scripts / "slow.py")],
        cwd=tmp_path,
        env={**os.environ, **ENV},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,  # noqa: PLW1509 - the test's own child, no threads involved
    )
    try:
        wait_for_compile_start(report, proc)
        proc.send_signal(getattr(signal, name))
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    code, reason, said = SIGNALS[name]
    assert proc.returncode == code, err
    assert out.startswith("start") and "finished" not in out
    with open_report(report) as r:
        assert r.run.end_reason == reason
        assert [f.function for f in r.frames] == ["many_ops"]
        # the compile the signal cut is "interrupted", never an empty graph
        assert r.frames[0].status == ("compiling" if name == "SIGKILL" else "interrupted")
        assert any(e.name == "dynamo_start" for e in r.events())
    summary = run_cli("summary", str(report))
    assert summary.returncode == 0 and said in summary.stdout, summary.stdout
    gate = run_cli("check", str(report), "--fail-on-error")
    assert gate.returncode != 0, gate.stdout  # a signal's exit, or a run that never finished
    exported = json.loads(run_cli("export", str(report), "--json", check=True).stdout)
    assert exported["run_end"] == said
    if name == "SIGKILL":
        assert "the run did not finish" in gate.stdout, gate.stdout


# -- the program forks, uses multiprocessing or threads --------------------------------------

PROC_MODES = ["fork", "pool-fork", "pool-spawn", "dataloader", "threads"]


@pytest.fixture(scope="module")
def procs(scripts: Path) -> dict[str, Ran]:
    return two_at_a_time(
        {m: (lambda m=m: run_script(scripts, f"procs-{m}", scripts / "procs.py", m)) for m in PROC_MODES}
    )


@pytest.mark.parametrize("mode", PROC_MODES)
def test_children_and_threads(mode: str, procs: dict[str, Ran]) -> None:
    ran = procs[mode]
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert ran.proc.stdout.rstrip().endswith("done")
    assert integrity(ran.report) == "ok"
    by_pid = compiles_by_pid(ran.trace_dir)
    with open_report(ran.report) as r:
        parent = by_pid.pop(r.run.pid)  # inspectc run's own process
        functions = sorted(f.function or "?" for f in r.frames)
        assert r.run.end_reason == "exit"
    assert functions == sorted(parent)  # no frame lost, none from a child
    assert all(f.status == "ok" for f in open_report(ran.report).frames)
    if mode in ("fork", "pool-fork", "pool-spawn"):
        assert "child_fn" not in functions  # children compiled, in their own logs only
        assert by_pid and all(names == ["child_fn"] for names in by_pid.values()), by_pid
    if mode == "fork":
        assert "child exit 0" in ran.proc.stdout
    if mode == "threads":
        assert functions == ["after_fn", "child_fn", "other_fn", "parent_fn"]


# -- the program's results are unchanged ------------------------------------------------------


def test_outputs_are_bitwise_identical(scripts: Path, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    plain_out, captured_out = tmp_path / "plain.pt", tmp_path / "captured.pt"
    env = {**os.environ, **ENV}

    def plain() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(scripts / "mlp.py"), str(plain_out)],
            cwd=tmp_path,
            env={**env, "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"},
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    def captured() -> subprocess.CompletedProcess[str]:
        return run_cli(
            "run", "-q", "--fresh", "-o", str(tmp_path / "mlp.inspectc"), str(scripts / "mlp.py"),
            str(captured_out), cwd=tmp_path, env=ENV, timeout=TIMEOUT,
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [pool.submit(plain), pool.submit(captured)]
        for job in jobs:
            proc = job.result()
            assert proc.returncode == 0, proc.stderr
    a = torch.load(plain_out, weights_only=True)
    b = torch.load(captured_out, weights_only=True)
    pairs = [*zip(a["losses"], b["losses"], strict=True), (a["out"], b["out"])]
    pairs += [(a["params"][k], b["params"][k]) for k in a["params"]]
    assert len(pairs) == 3 + 1 + 6
    for x, y in pairs:
        assert torch.equal(x, y) and x.numpy().tobytes() == y.numpy().tobytes()
    with open_report(tmp_path / "mlp.inspectc") as r:
        assert r.frames and r.kernels  # it really was captured


# -- the report cannot be written --------------------------------------------------------------


def one_warning(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("inspectc: ") and "Traceback" not in stderr
    return lines[0]


def unwritable_target(kind: str, folder: Path) -> Path:
    if kind == "under-a-file":
        (folder / "file").write_text("a regular file\n")
        return folder / "file" / "x.inspectc"
    if kind == "a-directory":
        (folder / "dir.inspectc").mkdir()
        return folder / "dir.inspectc"
    os.mkfifo(folder / "fifo.inspectc")  # stands for -o /dev/null: never unlinked or written
    return folder / "fifo.inspectc"


@pytest.mark.parametrize(
    "kind,why",
    [
        ("under-a-file", "Not a directory"),
        ("a-directory", "is a directory"),
        ("fifo", "is not a regular file"),
    ],
)
def test_report_path_cannot_be_written(kind: str, why: str, scripts: Path, tmp_path: Path) -> None:
    target = unwritable_target(kind, tmp_path)
    proc = run_cli("run", "-o", str(target), str(scripts / "ends.py"), "exit3", cwd=tmp_path, env=ENV)
    assert proc.returncode == 3  # the script's own exit code
    assert proc.stdout.startswith("compiled 16.6")
    line = one_warning(proc.stderr)
    assert why in line and "running without capture" in line
    if kind == "fifo":
        assert stat.S_ISFIFO(target.stat().st_mode)


MANY_FRAMES = 10


def check_disk_full(proc: subprocess.CompletedProcess[str], report: Path) -> None:
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"done {MANY_FRAMES} ")
    line = one_warning(proc.stderr)
    assert f"report {report} is incomplete: writing it failed" in line
    with open_report(report) as r:  # what was committed before the disk filled up
        assert len(r.frames) < MANY_FRAMES
        assert r.run.end_reason == "running"


def test_disk_full_tmpfs(scripts: Path, tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=192k", "tmpfs", str(small)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        report = small / "r.inspectc"
        proc = run_cli(
            "run", "-q", "-o", str(report), str(scripts / "many.py"), str(MANY_FRAMES), cwd=tmp_path, env=ENV
        )
        check_disk_full(proc, report)
        assert "database or disk is full" in proc.stderr
    finally:
        subprocess.run(["umount", str(small)], check=False)


def test_disk_full_file_size_limit(scripts: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.inspectc"

    def limit() -> None:  # runs in the child before exec: a real limit, not a mock
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (192 * 1024, 192 * 1024))

    proc = subprocess.run(
        [*inspectc_cmd(), "run", "-q", "-o", str(report), str(scripts / "many.py"), str(MANY_FRAMES)],
        cwd=tmp_path,
        env={**os.environ, **ENV},
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    check_disk_full(proc, report)


# -- concurrency -------------------------------------------------------------------------------


def test_two_runs_at_once_and_readers_while_writing(scripts: Path, tmp_path: Path) -> None:
    reports = [tmp_path / "a.inspectc", tmp_path / "b.inspectc"]
    runs = [
        subprocess.Popen(
            [*inspectc_cmd(), "run", "-q", "-o", str(report), str(scripts / "many.py"), str(MANY_FRAMES)],
            cwd=tmp_path,
            env={**os.environ, **ENV},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for report in reports
    ]
    summaries: list[subprocess.CompletedProcess[str]] = []
    opened: list[int] = []
    stop = threading.Event()

    def cli_reader() -> None:  # `inspectc summary` on the report being written, every 0.2 s
        while not stop.is_set():
            summaries.append(run_cli("summary", str(reports[0]), timeout=120))
            stop.wait(0.2)

    try:
        while not reports[0].exists() and runs[0].poll() is None:
            time.sleep(0.05)
        reader = threading.Thread(target=cli_reader)
        reader.start()
        while runs[0].poll() is None:  # a second reader, in this process
            with open_report(reports[0]) as r:
                opened.append(len(r.frames))
                list(r.events())
            time.sleep(0.2)
        stop.set()
        reader.join()
        results = [run.communicate(timeout=TIMEOUT) for run in runs]
    finally:
        stop.set()
        for run in runs:
            if run.poll() is None:
                run.kill()
                run.wait()
    for run, (out, err) in zip(runs, results, strict=True):
        assert run.returncode == 0, err
        assert out.startswith(f"done {MANY_FRAMES} ")
    for report in reports:
        with open_report(report) as r:
            assert len(r.frames) == MANY_FRAMES and r.run.end_reason == "exit"
    assert summaries and opened
    failed = [s.stderr for s in summaries if s.returncode != 0]
    assert not failed, failed
    assert opened == sorted(opened)  # frames only ever appear
    assert any("still running" in s.stdout for s in summaries)


# -- files inspectc did not create (issue 17, items 5 to 8) ------------------------------------

GOLDEN = REPORTS / "sin_sin.inspectc"


def refused(proc: subprocess.CompletedProcess[str], phrase: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    line = one_warning(proc.stderr)
    assert phrase in line, line


def test_failed_import_leaves_what_was_at_o_alone(tmp_path: Path) -> None:
    bad = tmp_path / "bad.log"
    bad.write_text("not a trace record\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    link = tmp_path / "link.inspectc"
    link.symlink_to(notes)
    old = tmp_path / "old.inspectc"
    shutil.copyfile(GOLDEN, old)
    (tmp_path / "j.inspectc-journal").write_text("a file that happens to be called this\n")
    cases = [
        (notes, "refusing to overwrite"),
        (link, "is a symbolic link"),
        (old, "no structured-trace records"),  # a report may be replaced, but only by a good import
        (tmp_path / "j.inspectc", "is not an SQLite journal"),
    ]
    for out, phrase in cases:
        refused(run_cli("import", str(bad), "-o", str(out)), phrase)
    assert notes.read_text() == "my notes\n" and link.is_symlink() and link.resolve() == notes
    assert old.read_bytes() == GOLDEN.read_bytes()
    assert (tmp_path / "j.inspectc-journal").read_text() == "a file that happens to be called this\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["bad.log", "notes.txt", "link.inspectc", "old.inspectc", "j.inspectc-journal"]
    )  # no temporary file left behind


def test_outputs_never_replace_inputs_scripts_or_links(tmp_path: Path) -> None:
    script = tmp_path / "io.py"
    script.write_text("print('the script ran')\n")
    report = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, report)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    link = tmp_path / "out.json"
    link.symlink_to(notes)
    for args, phrase in [
        (("run", "-o", str(script), str(script)), "would replace the script"),
        (("run", "-o", str(notes), str(script)), "refusing to overwrite"),
        (("export", str(report), "-o", str(report)), "would overwrite its input"),
        (("export", str(report), "-o", str(link)), "is a symbolic link"),
        (("export", str(report), "-o", str(notes)), "refusing to overwrite"),
    ]:
        proc = run_cli(*args, cwd=tmp_path)
        refused(proc, phrase)
        assert "the script ran" not in proc.stdout
    assert script.read_text() == "print('the script ran')\n" and notes.read_text() == "my notes\n"
    assert report.read_bytes() == GOLDEN.read_bytes()
    exported = tmp_path / "r.json"  # an earlier export is replaced
    for _ in range(2):
        assert run_cli("export", str(report), "-o", str(exported)).returncode == 0
    assert json.loads(exported.read_text())["frames"]


def test_planted_symlink_at_a_temporary_name_is_never_followed(tmp_path: Path) -> None:
    """share wrote its summary through ``.NAME.share.md.tmp``: a link planted there overwrote
    a file outside the folder. Temporary files are now made by mkstemp."""
    report = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, report)
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours\n")
    out = tmp_path / "out"
    out.mkdir()
    for name in (".r.share.md.tmp", ".r.share.html.tmp", ".r.inspectc.tmp"):
        (out / name).symlink_to(victim)
    proc = run_cli("share", str(report), "--html", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "not yours\n"
    assert (out / "r.share.md").is_file() and not (out / "r.share.md").is_symlink()
    (out / "r.share.md").unlink()
    (out / "r.share.md").symlink_to(victim)  # a link at the output's own name: refused
    refused(run_cli("share", str(report), "-o", str(out)), "is a symbolic link")
    assert victim.read_text() == "not yours\n"


# -- one clear line for every OS error of a user's path (item 12) ------------------------------

LONG = "/".join(["d" * 200] * 25)  # 5,000 characters
READERS = ["summary", "export", "kernels", "share", "check", "tui", "graph", "import"]


def os_error_cases(tmp_path: Path, traces: Path) -> list[tuple[str, list[str], dict[str, str]]]:
    report = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, report)
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "dir.dot").mkdir()
    odd = tmp_path / os.fsdecode(b"r\xff.inspectc")  # not UTF-8
    shutil.copyfile(GOLDEN, odd)
    r, loop, log = str(report), str(tmp_path / "loop1"), str(traces / "simple.log")
    strict = {"PYTHONIOENCODING": "utf-8:strict"}
    cases = [(f"{c} LONG", [c, LONG], {}) for c in READERS]
    cases += [
        ("diff LONG", ["diff", r, LONG], {}),
        ("merge LONG", ["merge", r, LONG, "-o", str(tmp_path / "m.inspectc")], {}),
        ("run LONG", ["run", LONG], {}),
        ("run -o LONG", ["run", "-o", LONG, "x.py"], {}),
        ("share loop", ["share", loop], {}),
        ("share -o loop", ["share", r, "-o", loop], {}),
        ("import -o loop", ["import", log, "-o", loop], {}),
        ("merge -o loop", ["merge", r, "-o", loop], {}),
        ("export -o DIR", ["export", r, "-o", str(tmp_path)], {}),
        ("export -o /missing/x", ["export", r, "-o", "/missing/x.json"], {}),
        ("graph -o dir.dot", ["graph", r, "-o", str(tmp_path / "dir.dot")], {}),
        ("export -o LONG", ["export", r, "-o", LONG], {}),
        ("graph -o LONG", ["graph", r, "-o", LONG + ".dot"], {}),
    ]
    ok = [
        ("share not-UTF-8 name", ["share", str(odd)], strict),
        ("check not-UTF-8 name", ["check", str(odd)], strict),
    ]
    return cases + ok


def test_os_errors_of_user_paths_are_one_line(tmp_path: Path, traces_dir: Path) -> None:
    failures = []
    for label, args, env in os_error_cases(tmp_path, traces_dir):
        proc = run_cli(*args, cwd=tmp_path, env=env, timeout=120)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        expected_ok = "not-UTF-8" in label
        good = "Traceback" not in proc.stderr and (
            proc.returncode == 0 if expected_ok else (proc.returncode == 2 and len(lines) == 1)
        )
        if not good:
            failures.append(f"{label}: exit {proc.returncode}: {(lines or [''])[-1][:160]}")
    assert not failures, "\n".join(failures)


def test_unwritable_outputs_are_one_line(tmp_path: Path) -> None:
    report = tmp_path / "r.inspectc"
    shutil.copyfile(GOLDEN, report)
    ro = tmp_path / "ro"
    ro.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a read-only tmpfs here")
    try:
        for args in (["share", str(report), "-o", str(ro)], ["export", str(report), "-o", str(ro / "x.json")],
                     ["graph", str(report), "-o", str(ro / "x.svg")], ["graph", str(report), "-o", str(ro / "x.dot")]):  # fmt: skip
            refused(run_cli(*args), "Read-only file system")
    finally:
        subprocess.run(["umount", str(ro)], check=False)


def test_run_module_whose_package_init_raises(tmp_path: Path) -> None:
    """``run -m pkg.sub`` found the module by importing ``pkg`` before capture: its error came as
    a traceback from inspectc's own code, and no report. Now it is the script's error: its
    traceback (from the package's file), the script's exit code and a report that says so."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("raise RuntimeError('init failed on purpose')\n")
    (tmp_path / "pkg" / "sub.py").write_text("print('sub ran')\n")
    proc = run_cli("run", "-q", "-m", "pkg.sub", cwd=tmp_path, env=ENV, timeout=300)
    assert proc.returncode == 1, proc.stderr
    frames = re.findall(r'File "([^"]+)"', proc.stderr)
    assert frames and str(tmp_path / "pkg" / "__init__.py") in frames, proc.stderr
    assert not [f for f in frames if "/inspectc/" in f], frames  # none of inspectc's own frames
    assert "RuntimeError: init failed on purpose" in proc.stderr and "sub ran" not in proc.stdout
    with open_report(tmp_path / "sub.inspectc") as r:
        assert r.run.exit_code == 1 and "init failed on purpose" in (r.run.exception or "")
    for name, phrase in (
        ("pkg.nosuch", "no module named 'pkg.nosuch'"),
        ("os.path.x", "'os' is not a package"),
    ):
        missing = run_cli("run", "-m", name, cwd=tmp_path, env=ENV)
        refused(missing, phrase)
