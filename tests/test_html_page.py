"""``inspectc html`` without a browser: the command's rules for its output, every link of the page
landing on an element of it (its folded bodies inflated), and its size on big reports."""

from __future__ import annotations

import base64
import re
import shutil
import zlib
from pathlib import Path

import pytest
from conftest import REPORTS, run_cli

_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'\bhref="#([^"]*)"')
_BLOB = re.compile(r'data-z="([^"]+)"')


def _bodies(page: str) -> list[str]:
    """The page and every deflated body in it, inflated."""
    out = [page]
    for blob in _BLOB.findall(page):
        out.append(zlib.decompress(base64.b64decode(blob), -15).decode("utf-8"))
    return out


GPU_REPORT = Path(__file__).resolve().parent / "data" / "gpu" / "linemap-h200.inspectc"


@pytest.mark.parametrize("name", ["graph_breaks", "mlp_train", "accuracy_fault", "sin_sin", "gpu"])
def test_every_link_of_the_page_lands_on_an_element(name: str, tmp_path: Path) -> None:
    page = tmp_path / f"{name}.html"
    source = GPU_REPORT if name == "gpu" else REPORTS / f"{name}.inspectc"
    run_cli("html", str(source), "-o", str(page), check=True)
    texts = _bodies(page.read_text(encoding="utf-8"))
    ids = {i for t in texts for i in _ID.findall(t)}
    links = {h for t in texts for h in _HREF.findall(t)}
    assert links and not links - ids, sorted(links - ids)[:10]
    if name == "gpu":  # a PTX/SASS line's gutter leads to the Triton source line it comes from
        assert any("-py-" in h for t in texts if ">sass (" in t or ">ptx (" in t for h in _HREF.findall(t))
    if name == "mlp_train":  # a kernel's fused node is one click from its line in the post-grad graph
        assert any(
            h.startswith("frame-0-0-g-post_grad-")
            for t in texts
            if "Fused nodes" in t
            for h in _HREF.findall(t)
        )
        assert any(
            h.startswith("kernel-") for t in texts if "<svg" in t for h in re.findall(r'href="#([^"]+)"', t)
        )


def test_the_command_writes_a_new_page_and_refuses_a_stranger_file(tmp_path: Path) -> None:
    report = tmp_path / "gb.inspectc"
    shutil.copy(REPORTS / "graph_breaks.inspectc", report)
    made = run_cli("html", str(report), "--no-pictures", cwd=tmp_path, check=True)
    assert (tmp_path / "gb.html").is_file() and "wrote" in made.stderr
    again = run_cli("html", str(report), "--no-pictures", cwd=tmp_path)  # its own page: replaced
    assert again.returncode == 0, again.stderr
    notes = tmp_path / "notes.html"
    notes.write_text("<p>mine</p>")
    refused = run_cli("html", str(report), "-o", str(notes))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "refusing" in refused.stderr
    assert notes.read_text() == "<p>mine</p>"
    link = tmp_path / "link.html"
    link.symlink_to(notes)
    assert run_cli("html", str(report), "-o", str(link)).returncode == 2
    assert notes.read_text() == "<p>mine</p>"
    bad = run_cli("html", str(tmp_path / "missing.inspectc"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1


def test_a_share_bundle_opens_as_a_page(tmp_path: Path) -> None:
    report = tmp_path / "gb.inspectc"
    shutil.copy(REPORTS / "graph_breaks.inspectc", report)
    run_cli("share", str(report), "-o", str(tmp_path / "out"), check=True)
    bundle = next((tmp_path / "out").glob("*.zip"))
    page = tmp_path / "bundle.html"
    run_cli("html", str(bundle), "-o", str(page), "--no-pictures", check=True)
    text = page.read_text(encoding="utf-8")
    assert "Graph breaks (4 unique, 6 total)" in text and text.count('class="article frame"') == 12
