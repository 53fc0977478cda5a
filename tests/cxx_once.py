"""The C++ compiler of the test session: each shared library Inductor builds is compiled once.

Inductor compiles with ``$CXX`` (default ``g++``). Its cache sits in ``TORCHINDUCTOR_CACHE_DIR``,
and the tests give several runs a private, cold one (or ``--fresh``), so the same C++ was built
again and again: the ISA probes every new cache folder compiles first (six small programs, ~7 s
of CPU on two cores), and the kernels of a program that another test already captured. This
front end, which ``conftest.py`` names as ``$CXX`` for the session, hands the real compiler
every call and keeps what a ``-shared`` build of one ``.cpp`` made, keyed by that source's
bytes, the other arguments (less the source and output paths) and the bytes of any other file
they name (an ``-include``'d header); the same build asked again gets a copy. Inductor itself
still runs as on a cold cache (it writes the source, calls the compiler, loads the library,
logs the compile); only the compiler's repeat work is skipped, as ccache would (ccache cannot
cache a call that compiles and links at once, which is how Inductor builds).

The wrapper is named ``g++`` (Inductor picks its GCC flags and precompiled-header suffix by
the compiler's name); every other call (``--version``, preprocessing, precompiled headers,
AOTInductor's objects and links) goes straight to the real compiler.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _key(args: list[str], source: str, output: str) -> str:
    """The source's bytes, every other argument, and the bytes of every other file an argument
    names (an ``-include``'d header, an object to link): not the source's or output's path."""
    digest = hashlib.sha256(Path(source).read_bytes())
    for arg in args:
        if arg in (source, output):
            continue
        digest.update(arg.encode() + b"\0")
        if os.path.isfile(arg):
            digest.update(Path(arg).read_bytes())
    return digest.hexdigest()


def _place(src: Path, dst: Path) -> None:
    """Copy *src* to *dst* by a temporary file and a rename (no reader sees half of it)."""
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.chmod(tmp, 0o755)
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(args: list[str]) -> int:
    real = os.environ.get("INSPECTC_TEST_REAL_CXX", "g++")
    store = os.environ.get("INSPECTC_TEST_CXX_STORE", "")
    sources = [a for a in args if a.endswith((".cpp", ".cc", ".cxx")) and os.path.isfile(a)]
    output = args[args.index("-o") + 1] if "-o" in args[:-1] else ""
    if not store or "-shared" not in args or len(sources) != 1 or not output:
        os.execvp(real, [real, *args])
    kept = Path(store) / f"{_key(args, sources[0], output)}.so"
    if kept.is_file():
        _place(kept, Path(output))
        return 0
    code = subprocess.call([real, *args])
    if code == 0 and os.path.isfile(output):
        Path(store).mkdir(parents=True, exist_ok=True)
        _place(Path(output), kept)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
