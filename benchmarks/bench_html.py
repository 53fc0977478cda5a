"""How big the HTML page of a big report is, how long ``inspectc html`` takes, and how fast the
page opens in Debian's Chromium (Selenium, headless): the numbers in docs/limits.md and docs/html.md.

    python benchmarks/bench_html.py REPORT [REPORT ...]      # e.g. out/large.inspectc (make_large_report.py)

For each report: seconds to write the page (``inspectc html --no-pictures``), its size, and in
the browser: time to DOMContentLoaded, time until the page's script is ready, and time to open
one frame's folded body (inflate + insert). Median of --rounds page loads.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _driver():  # type: ignore[no-untyped-def]
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def _load(driver, page: Path) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    driver.get("about:blank")
    start = time.perf_counter()
    driver.get(page.as_uri())
    while driver.execute_script("return document.body && document.body.getAttribute('data-ready')") != "1":
        time.sleep(0.01)
    ready = time.perf_counter() - start
    dom = driver.execute_script(
        "var t = performance.getEntriesByType('navigation')[0]; return t.domContentLoadedEventEnd - t.startTime"
    )
    first = driver.execute_script("var f = document.querySelector('details.article.frame'); return f && f.id")
    opened = 0.0
    if first:
        t0 = time.perf_counter()
        driver.execute_script(f"location.hash = '#{first}'")
        while driver.execute_script(f"return !!document.querySelector('#{first} > .body[data-z]')"):
            time.sleep(0.005)
        opened = time.perf_counter() - t0
    return dom / 1000.0, ready, opened


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="+")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    inspectc = [sys.executable, "-m", "inspectc"]
    driver = _driver()
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(
        f"{'report':<28} {'report MB':>9} {'write s':>8} {'page MB':>8} {'DOM s':>6} {'ready s':>8} {'open frame s':>12}"
    )
    try:
        for report in map(Path, args.reports):
            with tempfile.TemporaryDirectory() as tmp:
                page = Path(tmp) / "page.html"
                t0 = time.perf_counter()
                subprocess.run(
                    [*inspectc, "html", str(report), "-o", str(page), "--no-pictures"],
                    check=True,
                    capture_output=True,
                )
                wrote = time.perf_counter() - t0
                loads = [_load(driver, page) for _ in range(args.rounds)]
                dom = statistics.median(x[0] for x in loads)
                ready = statistics.median(x[1] for x in loads)
                opened = statistics.median(x[2] for x in loads)
                print(
                    f"{report.name:<28} {report.stat().st_size / 1e6:>9.1f} {wrote:>8.1f} {page.stat().st_size / 1e6:>8.1f}"
                    f" {dom:>6.2f} {ready:>8.2f} {opened:>12.2f}"
                )
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
