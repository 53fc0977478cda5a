"""tests/cxx_once.py, the session's compiler front end: a build asked twice is compiled once,
the copy is the library the compiler made, and what it does not keep goes to the real g++."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ on this machine")

FRONT = ROOT / "tests" / "cxx_once.py"
SOURCE = 'extern "C" int answer() { return %d; }\n'


def env_for(store: Path) -> dict[str, str]:
    return dict(
        os.environ, INSPECTC_TEST_REAL_CXX=shutil.which("g++") or "g++", INSPECTC_TEST_CXX_STORE=str(store)
    )


def compile_(
    tmp_path: Path, folder: str, value: int | str, store: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    """Build *folder*/k.so from *value*'s source (a text is the source itself) through the front end."""
    where = tmp_path / folder
    where.mkdir(exist_ok=True)
    (where / "k.cpp").write_text(value if isinstance(value, str) else SOURCE % value)
    env = env_for(store)
    command = [
        sys.executable,
        str(FRONT),
        str(where / "k.cpp"),
        "-O1",
        "-shared",
        "-fPIC",
        *extra,
        "-o",
        str(where / "k.so"),
    ]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def answer(library: Path) -> int:
    return int(ctypes.CDLL(str(library)).answer())


def test_the_same_build_in_another_folder_is_a_copy_of_the_first(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert compile_(tmp_path, "a", 41, store).returncode == 0
    kept = list(store.glob("*.so"))
    assert len(kept) == 1 and answer(tmp_path / "a" / "k.so") == 41
    stamp = kept[0].stat().st_mtime_ns
    assert compile_(tmp_path, "b", 41, store).returncode == 0  # same source, another cache folder
    assert (tmp_path / "b" / "k.so").read_bytes() == kept[0].read_bytes()
    assert kept[0].stat().st_mtime_ns == stamp and answer(tmp_path / "b" / "k.so") == 41
    assert compile_(tmp_path, "c", 42, store).returncode == 0  # another source: compiled
    assert answer(tmp_path / "c" / "k.so") == 42 and len(list(store.glob("*.so"))) == 2
    assert compile_(tmp_path, "d", 41, store, "-DX=1").returncode == 0  # other flags: compiled
    assert len(list(store.glob("*.so"))) == 3
    header = tmp_path / "pre.h"  # a file an argument names: its bytes are in the key, not its path
    for n, text in enumerate(("#define Y 1\n", "#define Y 2\n", "#define Y 1\n")):
        header.write_text(text)
        assert compile_(tmp_path, f"e{n}", 41, store, "-include", str(header)).returncode == 0
    assert len(list(store.glob("*.so"))) == 5


def test_a_failed_build_fails_and_keeps_nothing(tmp_path: Path) -> None:
    store = tmp_path / "store"
    proc = compile_(tmp_path, "bad", "this is not C++\n", store)
    assert proc.returncode != 0 and "error" in proc.stderr
    assert not list(store.glob("*.so")) and not (tmp_path / "bad" / "k.so").exists()


def test_other_calls_go_to_the_real_compiler(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    version = subprocess.run(
        [sys.executable, str(FRONT), "--version"], env=env, capture_output=True, text=True, timeout=60
    )
    real = subprocess.run(["g++", "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout == real.stdout
    assert list(tmp_path.iterdir()) == []
