"""``inspectc html`` in a real browser: Debian's Chromium driven by Selenium (no download).

The page loads with no console error; every frame and kernel of the report is there, as many
as ``export --json`` counts; a fusion node clicked lands on its kernel; search finds a kernel;
a link to a kernel opens it; a hostile report's strings are text and its planted script never
runs (the Content-Security-Policy refuses it); the main views look as they did (screenshots
compared with a tolerance) at 1280 px and on a 390 px phone.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPORTS, run_cli

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
SHOTS = Path(__file__).resolve().parent / "data" / "html"
UPDATE = os.environ.get("INSPECTC_UPDATE_SCREENSHOTS") == "1"

pytestmark = [
    pytest.mark.skipif(
        not (CHROMIUM and DRIVER), reason="Chromium and chromedriver are not installed (make sysdeps)"
    ),
    pytest.mark.timeout(300),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=1280,900",
                "--font-render-hinting=none", "--lang=en-US"):  # fmt: skip
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _page(report: Path, out: Path, *extra: str) -> Path:
    page = out / (report.stem + ".html")
    run_cli("html", str(report), "-o", str(page), *extra, check=True)
    return page


def _open(driver: object, page: Path, fragment: str = "") -> list[dict]:
    driver.get_log("browser")  # type: ignore[attr-defined]  # what an earlier page logged
    driver.get(page.as_uri() + fragment)  # type: ignore[attr-defined]
    deadline = time.monotonic() + 20
    while driver.execute_script("return document.body && document.body.getAttribute('data-ready')") != "1":  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "the page's script never ran"
        time.sleep(0.05)
    time.sleep(0.3)
    return driver.get_log("browser")  # type: ignore[attr-defined,no-any-return]


def _wait(driver: object, script: str, what: str) -> object:
    deadline = time.monotonic() + 15
    while True:
        value = driver.execute_script(script)  # type: ignore[attr-defined]
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("html")
    return {name: _page(REPORTS / f"{name}.inspectc", out) for name in ("graph_breaks", "mlp_train")}


def test_every_frame_and_kernel_is_there_and_nothing_errs(browser: object, pages: dict[str, Path]) -> None:
    for name, page in pages.items():
        logs = _open(browser, page)
        assert not [e for e in logs if e["level"] in ("SEVERE", "WARNING")], logs
        exported = json.loads(run_cli("export", str(REPORTS / f"{name}.inspectc"), check=True).stdout)
        frames = browser.find_elements(By.CSS_SELECTOR, "details.article.frame")  # type: ignore[attr-defined]
        kernels = browser.find_elements(By.CSS_SELECTOR, "details.article.kernel")  # type: ignore[attr-defined]
        assert len(frames) == len(exported["frames"])
        assert len(kernels) == sum(len(f["kernels"]) for f in exported["frames"])
        breaks = sum(int(f.get_attribute("data-breaks")) for f in frames)
        assert breaks == sum(len(f["graph_breaks"]) for f in exported["frames"])
        overview = browser.find_element(By.ID, "overview")  # type: ignore[attr-defined]
        assert int(overview.get_attribute("data-frames")) == len(exported["frames"])
        assert exported["summary"]["headline"] in overview.text


def test_a_fusion_node_clicked_lands_on_its_kernel(browser: object, pages: dict[str, Path]) -> None:
    _open(browser, pages["mlp_train"], "#frame-0-0")
    link = _wait(
        browser, "return document.querySelector('#frame-0-0 .fusion svg a')", "no fusion picture drawn"
    )
    target = link.get_attribute("href") or link.get_attribute("xlink:href")  # type: ignore[attr-defined]
    anchor = target.rsplit("#", 1)[1]
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", link)  # type: ignore[attr-defined]
    _wait(browser, f"return location.hash === '#{anchor}'", "the click did not go to the kernel")
    kernel = _wait(
        browser,
        f"var k = document.getElementById('{anchor}'); return k && k.open && !k.querySelector('.body[data-z]') && k",
        "the kernel did not open",
    )
    assert anchor.startswith("kernel-") and "Fused nodes" in kernel.text  # type: ignore[attr-defined]
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", kernel)  # type: ignore[attr-defined]
    assert -5 <= top < 200  # scrolled to it


def test_search_finds_a_kernel_and_a_link_opens_it(browser: object, pages: dict[str, Path]) -> None:
    _open(browser, pages["graph_breaks"])
    body = browser.find_element(By.TAG_NAME, "body")  # type: ignore[attr-defined]
    body.send_keys("/")
    box = browser.switch_to.active_element  # type: ignore[attr-defined]
    assert box.get_attribute("id") == "search"
    box.send_keys("cpp_fused_relu")
    hit = _wait(
        browser, "var a = document.querySelector('#results a'); return a && a", "search found nothing"
    )
    assert "cpp_fused_relu_sum_0" in hit.text  # type: ignore[attr-defined]
    anchor = hit.get_attribute("href").rsplit("#", 1)[1]  # type: ignore[attr-defined]
    assert anchor.startswith("kernel-cpp_fused_relu_sum_0")  # the same name in 3 frames: -2-0 says which
    hit.click()  # type: ignore[attr-defined]
    _wait(browser, f"var k = document.getElementById('{anchor}'); return k && k.open", "not opened")
    box.send_keys(Keys.ESCAPE)
    _open(browser, pages["graph_breaks"], "#frame-2-0")  # a pasted link opens its frame
    frame = _wait(
        browser, "var f = document.getElementById('frame-2-0'); return f && f.open && f", "frame closed"
    )
    assert "Unsupported Tensor.item()" in frame.text  # type: ignore[attr-defined]


def test_a_hostile_report_is_text_and_its_script_never_runs(browser: object, tmp_path: Path) -> None:
    from inspectc.model import CompileId, Frame, GraphBreak, Run
    from inspectc.store.factory import ReportFactory

    evil = "<script>window.__pwned = 1</script><img src=x onerror='window.__pwned=2'>"
    report = tmp_path / "evil.inspectc"
    with ReportFactory(report, Run(argv=("inspectc", "run", evil), cwd=str(tmp_path), exit_code=0)) as made:
        made.frame(
            Frame(
                compile_id=CompileId.parse("0/0"),
                function=evil,
                filename="x.py",
                line=1,
                status="graph_break",
                graph_breaks=(GraphBreak(reason=evil, filename="x.py", line=1),),
            )
        )
    page = _page(report, tmp_path)
    logs = _open(browser, page, "#frame-0-0")
    _wait(browser, "return document.getElementById('frame-0-0').open", "frame did not open")
    assert browser.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
    assert evil in browser.find_element(By.ID, "overview-all").text  # type: ignore[attr-defined]
    assert not [e for e in logs if e["level"] == "SEVERE"], logs
    # An escaping bug would not help an attacker either: a script planted in the page is refused.
    planted = tmp_path / "planted.html"
    planted.write_text(page.read_text().replace("</main>", "<script>window.__pwned = 3</script></main>"))
    logs = _open(browser, planted)
    assert browser.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
    assert any("Content Security Policy" in e["message"] for e in logs), logs


def _compare(browser: object, name: str, out: Path) -> None:
    from PIL import Image, ImageChops

    shot = SHOTS / f"{name}.png"
    got = out / f"{name}.now.png"
    browser.save_screenshot(str(got))  # type: ignore[attr-defined]
    if UPDATE or not shot.exists():
        if not UPDATE:
            pytest.fail(
                f"no reference screenshot {shot.name}: run with INSPECTC_UPDATE_SCREENSHOTS=1 and look at it"
            )
        SHOTS.mkdir(parents=True, exist_ok=True)
        got.replace(shot)
        return
    a, b = Image.open(shot).convert("RGB"), Image.open(got).convert("RGB")
    assert a.size == b.size, (a.size, b.size)
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 40 else 0)
    changed = sum(diff.histogram()[255:]) / (a.size[0] * a.size[1])
    assert changed < 0.03, f"{name}: {changed:.1%} of the pixels differ from {shot.name} (now: {got})"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_main_views_look_as_they_did(
    browser: object, pages: dict[str, Path], width: int, tmp_path: Path
) -> None:
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 800}
    try:  # the window's own minimum width is over 390 px: emulate the phone's viewport
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # type: ignore[attr-defined]
        _open(browser, pages["graph_breaks"])
        _compare(browser, f"overview-{width}", tmp_path)
        _open(browser, pages["graph_breaks"], "#frame-2-0")
        _wait(browser, "return document.getElementById('frame-2-0').open", "frame did not open")
        time.sleep(0.3)
        _compare(browser, f"frame-{width}", tmp_path)
        width_px = browser.execute_script("return document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert width_px <= width + 1, f"the page scrolls sideways at {width} px ({width_px} px wide)"
    finally:
        try:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]
        except WebDriverException:
            pass


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of 500 kernels (the benchmark's generator): more than a page lists at once."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("big")
    report = out / "big.inspectc"
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "make_large_report.py"
    subprocess.run(
        [sys.executable, str(script), str(report), "--frames", "100", "--source-mb", "2"],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return report


@pytest.mark.slow  # a page of thousands of kernels, and a split folder, in Chromium: ~15 s
def test_a_link_into_a_huge_list_and_a_split_folder_both_land(
    browser: object, big: Path, tmp_path: Path
) -> None:
    from inspectc.render.sections.anchors import KernelAnchors
    from inspectc.store.open import open_report

    with open_report(big) as r:
        anchors = KernelAnchors(r.kernels)
        last = anchors(r.kernels[-1])  # listed only when asked: it is in a deflated chunk
    page = _page(big, tmp_path, "--no-pictures")
    logs = _open(browser, page)
    assert not [e for e in logs if e["level"] == "SEVERE"], logs
    assert browser.execute_script(f"return document.getElementById('{last}') === null")  # type: ignore[attr-defined]
    browser.execute_script(f"location.hash = '#{last}'")  # type: ignore[attr-defined]
    kernel = _wait(
        browser, f"var k = document.getElementById('{last}'); return k && k.open && k", "not listed"
    )
    assert kernel.text  # type: ignore[attr-defined]
    assert len(browser.find_elements(By.CSS_SELECTOR, "details.article.kernel")) == 500  # type: ignore[attr-defined]
    folder = tmp_path / "split"
    run_cli("html", str(big), "--split", str(folder), "--no-pictures", check=True)
    assert len(list(folder.glob("*.html"))) == 1 + 100 + 500
    _open(browser, folder / "index.html", f"#{last}")  # the index sends a link on to its page
    _wait(browser, f"return location.pathname.endsWith('/{last}.html')", "not sent to the kernel's page")
    _wait(
        browser,
        f"var k = document.getElementById('{last}'); return k && k.open",
        "the page's article is shut",
    )
    first_frame = browser.execute_script("return document.querySelector('a[href^=\"#frame-\"]')")  # type: ignore[attr-defined]
    if first_frame is not None:  # a link to another page's article goes through the index
        first_frame.click()
        _wait(
            browser, "return /frame-[^/]*\\.html$/.test(location.pathname)", "not sent on to the frame's page"
        )


def test_a_frames_guards_filter_as_typed(browser: object, pages: dict[str, Path]) -> None:
    _open(browser, pages["graph_breaks"], "#frame-2-0")
    box = _wait(browser, "return document.querySelector('#frame-2-0 input.filter')", "no guard filter")
    rows = "return Array.from(document.querySelectorAll('#frame-2-0 input.filter ~ table tbody tr'))"
    total = len(browser.execute_script(rows))  # type: ignore[attr-defined]
    box.send_keys("TENSOR_MATCH")  # type: ignore[attr-defined]
    shown = browser.execute_script(rows + ".filter(function (r) { return !r.hidden; }).length")  # type: ignore[attr-defined]
    assert total > 2 and 0 < shown < total
