"""`report --by-type 3` at 2,000 sentences x 12 systems (issue 44): the CPU seconds of `report` with and without
--by-type (each in a process of its own with a fresh parse cache), the size of index.html, and its load time in
chromium (navigation start to the section's script done, the median of 5 loads; selenium + chromium-driver).

The 2,000 sentences are CoNLL-14's 1,312 followed by its first 688 again (the 12 conll14-task-* systems; the
references: the official gold's two annotators).

    python benchmarks/report_page.py [--work DIR]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONLL = ROOT / ".." / "shared" / "corpora" / "conll14"
N = 2000


def inputs(work: Path) -> list[str]:
    blocks = (CONLL / "official-2014.combined.m2").read_text(encoding="utf-8").strip().split("\n\n")
    (work / "gold.m2").write_text("\n\n".join((blocks * 2)[:N]) + "\n\n", encoding="utf-8")
    hyps = []
    for path in sorted((CONLL / "systems").glob("conll14-task-*.txt")):
        name = path.stem.replace("conll14-task-", "")
        if name != "INPUT":
            lines = path.read_text(encoding="utf-8").splitlines(True)
            (work / f"{name}.txt").write_text("".join((lines * 2)[:N]), encoding="utf-8")
            hyps.append(f"{name}={work / f'{name}.txt'}")
    return hyps


def report(work: Path, hyps: list[str], out: str, extra: list[str]) -> float:
    """CPU seconds (user + sys) of one `peet-fast report` process, a fresh parse cache of its own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PEET_FAST_CACHE": tempfile.mkdtemp(prefix="cache-", dir=work)}
    subprocess.run([sys.executable, "-m", "peet_fast.cli", "report", "--hyp", *hyps, "--ref", str(work / "gold.m2"),
                    "--out", str(work / out), *extra], check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def load_times(page: Path, loads: int = 5) -> list[float]:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    driver.set_window_size(1400, 1000)
    out = []
    try:
        for _ in range(loads):
            driver.get("about:blank")
            driver.get(page.as_uri())
            while not driver.find_element(By.TAG_NAME, "body").get_attribute("data-bt-ready"):
                time.sleep(0.02)
            out.append(driver.execute_script(
                "return performance.now()") / 1000.0)     # ms since navigation start, when ready was seen
    finally:
        driver.quit()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", help="a directory for the inputs and reports (default: a temporary one)")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="report-page-"))
    work.mkdir(parents=True, exist_ok=True)
    hyps = inputs(work)
    plain = report(work, hyps, "plain", [])
    typed = report(work, hyps, "typed", ["--by-type", "3"])
    page = work / "typed" / "index.html"
    print(f"report, 12 systems x {N} sentences: {plain:.1f} CPU-s; with --by-type 3: {typed:.1f} CPU-s "
          f"(+{typed - plain:.1f})")
    print(f"index.html: {page.stat().st_size / 1e6:.2f} MB (without --by-type: "
          f"{(work / 'plain' / 'index.html').stat().st_size / 1e3:.0f} kB)")
    times = load_times(page)
    print(f"chromium: ready {statistics.median(times):.2f} s after navigation start (median of {len(times)}: "
          f"{', '.join(f'{t:.2f}' for t in times)})")


if __name__ == "__main__":
    main()
