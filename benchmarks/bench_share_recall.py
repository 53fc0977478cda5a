"""Recall and false positives of ``inspectc share``, measured as a secret-scanner vendor would.

Recall: tests/planted.py's corpus (50 secret shapes, plus camelCase/plural environment names
and secret-named flags) planted in one real capture, in every field a report has: the
script's source lines, its argv, its environment (hashed at capture), guards, a graph-break
message, a buffer name, kernels and the exception text. For each shape: did inspectc's own
rules remove it, does detect-secrets alone know the shape, and does any byte of what share
ships (every file, every zip member, every cell of the bundled report) still hold it.

False positives: real, harmless reports (the committed samples/reports, a BERT and a GPT-2
from transformers built from a config, ../shared/traces imported): how many values share
removed with a secret rule (a false redaction: nothing there is a secret), and how many
places detect-secrets flags after redaction (share would refuse the bundle).

    .venv/bin/python benchmarks/bench_share_recall.py [--skip-models]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import planted  # noqa: E402

from inspectc.share import detect  # noqa: E402
from inspectc.share.redact import Redactor  # noqa: E402

INSPECTC = [sys.executable, "-m", "inspectc"]
SECRET_RULES = {
    "secret assignment", "secret flag", "secret key", "tool password", "private key", "jwt", "webhook",
    "hf token", "github token", "aws key", "openai key", "slack token", "stripe key", "google token",
    "azure signature", "other token", "bearer token", "url credentials",
}  # fmt: skip


def cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*INSPECTC, *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True
    )


def forms(value: str) -> set[bytes]:
    as_repr, as_json = repr(value)[1:-1], json.dumps(value)[1:-1]
    return {f.encode() for f in {value, as_repr, as_json, json.dumps(as_repr)[1:-1]} if f}


def shipped(out: Path) -> dict[str, bytes]:
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    with zipfile.ZipFile(next(out.glob("*.zip"))) as archive:
        files |= {f"zip:{n}": archive.read(n) for n in archive.namelist()}
    copy = out / "cells.inspectc"
    copy.write_bytes(files["zip:report.inspectc"])
    db = sqlite3.connect(copy)
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        for n, row in enumerate(db.execute(f'SELECT * FROM "{table}"').fetchall()):  # noqa: S608
            for i, v in enumerate(row):
                v = zlib.decompress(v) if isinstance(v, bytes) and table == "events" else v
                if isinstance(v, (str, bytes)):
                    files[f"{table} {n} {i}"] = v.encode() if isinstance(v, str) else v
    db.close()
    copy.unlink()
    return files


def recall(work: Path) -> None:
    plants = planted.plants()
    texts = [p.text for p in plants] + [planted.machine_host().text]
    buffer = next(p.secret for p in plants if p.shape == "stripe secret")
    (work / "planted_run.py").write_text(planted.script(texts, buffer))
    report = work / "planted.inspectc"
    cli("run", "-o", str(report), "planted_run.py", *planted.argv(), cwd=work, env=planted.env())
    out = work / "planted_out"
    t = time.perf_counter()
    made = cli("share", str(report), "--html", "--allow-flagged", "-o", str(out))
    took = time.perf_counter() - t
    assert made.returncode == 0, made.stderr
    files = shipped(out)
    own = Redactor.for_report(this_machine=False)
    print(f"\n## Recall: {len(plants)} shapes planted in source, guards, a break message, the exception")
    print(f"(share --html took {took:.1f} s; load {os.getloadavg()[0]:.1f})\n")
    print(f"{'shape':24} {'inspectc rules':>14} {'detect-secrets':>14} {'ships':>6}")
    caught = known = leaked = 0
    for p in plants:
        rules = p.secret not in own.sub(p.text)
        doc = detect.Doc("x.txt")
        doc.add("x", f'value = "{p.text}"' if "\n" not in p.text else p.text)
        flagged = bool(detect.scan([doc]))
        ships = [n for n, d in files.items() if any(f in d for f in forms(p.secret))]
        caught, known, leaked = caught + rules, known + flagged, leaked + bool(ships)
        print(f"{p.shape:24} {'yes' if rules else 'NO':>14} {'yes' if flagged else '-':>14} {len(ships):>6}")
    extra = [*planted.env().values(), *planted.argv_secrets()]
    extra_left = sum(any(any(f in d for f in forms(v)) for d in files.values()) for v in extra)
    n = len(plants)
    print(
        f"\ninspectc's rules remove {caught}/{n} shapes ({caught / n:.0%}); detect-secrets alone knows {known}/{n};"
    )
    print(f"{n - leaked}/{n} shapes ship nowhere (recall {(n - leaked) / n:.0%}); environment and argv values"
          f" left: {extra_left}/{len(extra)}")  # fmt: skip


def harmless(work: Path, skip_models: bool) -> list[tuple[str, Path]]:
    found = [(p.stem, p) for p in sorted((ROOT / "samples" / "reports").glob("*.inspectc"))]
    traces = ROOT.parent / "shared" / "traces"
    for log in sorted(traces.glob("*.log")) + sorted(traces.glob("*.txt")):
        target = work / f"{log.stem}.inspectc"
        if cli("import", str(log), "-o", str(target), "-q").returncode == 0:
            found.append((f"trace {log.name}", target))
    if not skip_models:
        for sample, args in (("hf_bert.py", ["--layers", "1"]), ("gpt2_tiny.py", ["--steps", "2"])):
            target = work / f"{sample}.inspectc"
            cli("run", "-o", str(target), str(ROOT / "samples" / sample), *args, cwd=work)
            if target.exists():
                found.append((sample, target))
    return found


def false_positives(work: Path, skip_models: bool) -> None:
    print("\n## False positives: real, harmless reports\n")
    print(f"{'report':42} {'secret-rule removals':>20} {'detector flags':>15} {'share':>8} {'s':>6}")
    total_removed = total_flags = refused = 0
    corpus = harmless(work, skip_models)
    for name, report in corpus:
        out = work / ("fp-" + re.sub(r"\W+", "_", name))
        t = time.perf_counter()
        made = cli("share", str(report), "--allow-flagged", "--show-redactions", "-o", str(out))
        took = time.perf_counter() - t
        counts = {k: int(v) for k, v in re.findall(r"^  ([a-z][\w .-]*): (\d+)$", made.stdout, re.M)}
        removed = sum(v for k, v in counts.items() if k in SECRET_RULES)
        flags = made.stderr.count("written as asked (--allow-flagged)")
        strict = cli("share", str(report), "-o", str(out) + "-strict")
        total_removed, total_flags = total_removed + removed, total_flags + flags
        refused += strict.returncode != 0
        print(
            f"{name[:42]:42} {removed:>20} {flags:>15} {'refused' if strict.returncode else 'ok':>8} {took:6.1f}"
        )
    print(f"\n{len(corpus)} reports: {total_removed} false redactions, {total_flags} detector flags,"
          f" {refused} bundles refused; load {os.getloadavg()[0]:.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-models", action="store_true", help="no BERT/GPT-2 capture (no transformers)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-share-") as tmp:
        print(f"detect-secrets: {detect.describe()}")
        recall(Path(tmp))
        false_positives(Path(tmp), args.skip_models)


if __name__ == "__main__":
    main()
