"""TUI start-up and responsiveness on a large report, measured in a real pseudo-terminal.

    python benchmarks/bench_tui.py                 # builds /tmp/inspectc-large.inspectc once
    python benchmarks/bench_tui.py --report R --runs 7

Each run starts the app as a user would (``python -m inspectc_tui R``) on a 160x48 pty and
watches what it draws: *first paint* (the header is on screen), *overview ready* (the
frames table is filled), then keys: Enter opens a frame, `2` its guards, `4` its kernels, Down the next
kernel's source (read lazily, in a worker). Peak RSS is the child's VmHWM. In the same run it
measures a bare ``python -c pass`` (interpreter start, subtracted to give the "net"
numbers) and an empty Textual app's first paint (the baseline the ratio is against).
Medians over the runs, after one warm-up run of each that is not counted; the machine's
load is printed because it moves everything.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLS, ROWS = 160, 48
EMPTY_APP = """
from textual.app import App
from textual.widgets import Header, Static
class Empty(App):
    TITLE = "baseline"
    def compose(self):
        yield Header()
        yield Static("empty textual app")
Empty().run()
"""


@dataclass
class Run:
    marks: dict[str, float] = field(default_factory=dict)  # seconds since spawn
    peak_rss_mb: float | None = None


class Pty:
    """A child process on a pseudo-terminal of COLS x ROWS; collects what it draws."""

    def __init__(self, argv: list[str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(COLS), LINES=str(ROWS))
        env.pop("TEXTUAL", None)
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True
        )
        os.close(slave)
        self.master = master
        self.buffer = b""

    def wait_for(self, marker: bytes, timeout: float = 30.0, *, after: int = 0) -> float | None:
        """Seconds since spawn when *marker* first appears (searching from offset *after*)."""
        deadline = time.perf_counter() + timeout
        while True:
            if marker in self.buffer[after:]:
                return time.perf_counter() - self.start
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.master], [], [], min(left, 0.05))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return None
                if not chunk:
                    return None
                self.buffer += chunk

    def drain(self, quiet_s: float = 0.3) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], quiet_s)
            if not ready:
                return
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.buffer += chunk

    def send(self, keys: bytes) -> tuple[float, int]:
        offset = len(self.buffer)
        os.write(self.master, keys)
        return time.perf_counter(), offset

    def peak_rss_mb(self) -> float | None:
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return None

    def close(self) -> None:
        try:
            os.write(self.master, b"q")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


def bench_app(report: Path) -> Run:
    run = Run()
    pty = Pty([sys.executable, "-m", "inspectc_tui", str(report)])
    try:
        paint = pty.wait_for(b"inspectc")
        ready = pty.wait_for(b"Frames (1,000)") or pty.wait_for(b"Frames (")
        if paint is None or ready is None:
            raise RuntimeError("the TUI did not draw: " + pty.buffer[-400:].decode(errors="replace"))
        run.marks.update(first_paint=paint, overview_ready=ready)
        pty.drain()
        sent, offset = pty.send(b"\r")  # open the first frame
        if pty.wait_for(b"compiled in", after=offset) is not None:
            run.marks["open_frame"] = time.perf_counter() - sent
        pty.drain()
        for key, marker, name in (
            (b"2", b"guards", "guards_tab"),  # the guard tree of ~40 guards
            (b"4", b"Share", "kernels_tab"),  # kernels table, first kernel's source read lazily
            (b"\x1b[B", b"triton source", "next_kernel_source"),  # Down: the next kernel's source
        ):
            sent, offset = pty.send(key)
            if pty.wait_for(marker, after=offset) is not None:
                run.marks[name] = time.perf_counter() - sent
            pty.drain()
        run.peak_rss_mb = pty.peak_rss_mb()
    finally:
        pty.close()
    return run


def bench_empty() -> Run:
    run = Run()
    pty = Pty([sys.executable, "-c", EMPTY_APP])
    try:
        paint = pty.wait_for(b"empty textual app")
        if paint is None:
            raise RuntimeError("the empty app did not draw")
        run.marks["first_paint"] = paint
        pty.drain()
        run.peak_rss_mb = pty.peak_rss_mb()
    finally:
        pty.close()
    return run


def interpreter_start() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def median(runs: list[Run], key: str) -> float | None:
    values = [r.marks[key] for r in runs if key in r.marks]
    return statistics.median(values) if values else None


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:7.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, default=Path("/tmp/inspectc-large.inspectc"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    if not args.report.exists():
        sys.path.insert(0, str(HERE))
        from make_large_report import build

        print(f"building {args.report} (1,000 frames, 5,000 kernels, ~100 MB of source)…", file=sys.stderr)
        build(args.report)

    bench_empty(), bench_app(args.report)  # warm-up, not counted: byte-code caches, page cache
    starts = sorted(interpreter_start() for _ in range(args.runs))
    empty = [bench_empty() for _ in range(args.runs)]
    apps = [bench_app(args.report) for _ in range(args.runs)]
    python = statistics.median(starts)
    base = median(empty, "first_paint") or float("nan")

    size = args.report.stat().st_size / 1e6
    print(f"TUI benchmark: {args.report.name} ({size:.0f} MB file), pty {COLS}x{ROWS}, median of {args.runs}")
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; python -c pass: {python * 1000:.0f} ms"
    )
    print()
    print(f"{'measure':<34}{'ms':>8}{'net ms':>9}{'x empty app':>13}")
    rows = [
        ("empty Textual app: first paint", median(empty, "first_paint"), True),
        ("inspectc tui: first paint", median(apps, "first_paint"), True),
        ("inspectc tui: overview ready", median(apps, "overview_ready"), True),
        ("key: Enter opens a frame", median(apps, "open_frame"), False),
        ("key: 2, guards tab", median(apps, "guards_tab"), False),
        ("key: 4, kernels tab", median(apps, "kernels_tab"), False),
        ("key: Down, next kernel's source", median(apps, "next_kernel_source"), False),
    ]
    for label, value, from_start in rows:
        net = value - python if value is not None and from_start else None
        ratio = f"{value / base:12.2f}x" if value is not None and from_start else f"{'':>13}"
        print(f"{label:<34}{ms(value):>8}{ms(net) if from_start else '':>9}{ratio}")
    print()
    rss_empty = statistics.median(r.peak_rss_mb or 0 for r in empty)
    rss_app = statistics.median(r.peak_rss_mb or 0 for r in apps)
    print(f"{'peak RSS':<34}{'MB':>8}")
    print(f"{'empty Textual app':<34}{rss_empty:8.0f}")
    print(f"{'inspectc tui (after the keys)':<34}{rss_app:8.0f}   ({rss_app / rss_empty:.1f}x the empty app)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
