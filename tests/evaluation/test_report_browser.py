"""The report's error-analysis section in a real browser (issue 44, point 4): Debian's chromium driven by
chromium-driver through selenium. The page loads without console errors, the filters change what is shown, the
counts it shows equal rank --summary's, and at 1400 px and 800 px wide nothing overlaps or runs off the page
(screenshots kept in $PEET_FAST_SCREENSHOTS when set, to look at). Skipped, with the reason, only where chromium,
chromium-driver or selenium is not installed (.ci/run installs them)."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, SHARED_CORPORA

from peet_fast.cli import main

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or ("/usr/lib/chromium/chromedriver"
                                          if os.path.exists("/usr/lib/chromium/chromedriver") else None)
if CHROMIUM is None or DRIVER is None:
    pytest.skip("chromium / chromium-driver not installed (apt-get install chromium chromium-driver; .ci/run does)",
                allow_module_level=True)

from selenium.webdriver.common.by import By                     # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

RANK = FIXTURES / "rank"
INPUTS = ["--hyp", *(str(RANK / f"{n}.txt") for n in ("good", "middle", "weak")),
          "--ref", str(RANK / "reference.txt"), str(RANK / "reference2.txt"), "--src", str(RANK / "source.txt")]


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--hide-scrollbars"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(300)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser_small")
    assert main(["rank", *INPUTS, "--by-type", "3", "--summary", str(d / "s.json")]) == 0
    assert main(["report", *INPUTS, "--by-type", "3", "--out", str(d / "rep")]) == 0
    return d / "rep" / "index.html", json.loads((d / "s.json").read_text())["by_type"]


def load(driver, page: Path, width: int = 1400):
    driver.set_window_size(width, 1000)
    driver.get(page.as_uri())
    WebDriverWait(driver, 120).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-bt-ready"))
    return driver


def shown_counts(driver) -> dict:
    rows = driver.find_elements(By.CSS_SELECTOR, "#bt-counts-body tr")
    return {r.get_attribute("data-system"): tuple(int(td.text) for td in r.find_elements(By.CSS_SELECTOR, "td")[1:])
            for r in rows}


def cards(driver) -> list:
    return driver.find_elements(By.CSS_SELECTOR, "#bt-list .sent")


def page_data(page: Path) -> dict:
    m = re.search(r'id="bt-data">(.*?)</script>', page.read_text(encoding="utf-8"), re.S)
    return json.loads(m.group(1))


def test_loads_without_console_errors_and_shows_the_summarys_counts(browser, small):
    page, summary = small
    load(browser, page)
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    assert shown_counts(browser) == {s["name"]: (s["TP"], s["FP"], s["FN"]) for s in summary["systems"]}
    assert len(cards(browser)) == 12
    assert browser.find_element(By.ID, "bt-matching").text == "12 of 12 sentences shown match"


def test_the_heatmap_toggles_between_f_precision_and_recall(browser, small):
    page, summary = small
    load(browser, page)
    data = page_data(page)
    weak = summary["systems"][2]
    t = next(t for t, row in weak["types"].items() if row["R"] not in (row["P"], row["F0.5"]))
    row_index, col = data["types"].index(t), 1 + 2

    def cell():
        return browser.find_elements(By.CSS_SELECTOR, "#bt-heat-body tr")[row_index].find_elements(
            By.CSS_SELECTOR, "th, td")[col].text.strip("()")
    assert cell() == f"{weak['types'][t]['F0.5']:.2f}"
    browser.find_element(By.CSS_SELECTOR, 'input[name="bt-figure"][value="R"]').click()
    assert cell() == f"{weak['types'][t]['R']:.2f}"
    browser.find_element(By.CSS_SELECTOR, 'input[name="bt-figure"][value="P"]').click()
    assert cell() == f"{weak['types'][t]['P']:.2f}"


def test_the_filters_change_what_is_shown(browser, small):
    page, summary = small
    load(browser, page)
    data = page_data(page)
    Select(browser.find_element(By.ID, "bt-sys")).select_by_visible_text("weak")
    assert list(shown_counts(browser)) == ["weak"]
    assert shown_counts(browser)["weak"] == tuple(summary["systems"][2][k] for k in ("TP", "FP", "FN"))
    assert all(len(c.find_elements(By.CSS_SELECTOR, ".sys")) == 1 for c in cards(browser))
    # outcome FN of weak: the sentences where weak missed a reference edit
    Select(browser.find_element(By.ID, "bt-outcome")).select_by_visible_text("FN")
    expected = [i + 1 for i, s in enumerate(data["sentences"]) if any(e[4] == 2 for e in s["o"][2][3])]
    assert [int(c.get_attribute("data-sentence")) for c in cards(browser)] == expected
    assert shown_counts(browser)["weak"][2] == summary["systems"][2]["FN"]
    # an error type: every sentence shown has a weak edit of it, marked in the text
    Select(browser.find_element(By.ID, "bt-outcome")).select_by_visible_text("any")
    Select(browser.find_element(By.ID, "bt-type")).select_by_visible_text("R:PREP")
    shown = cards(browser)
    assert 0 < len(shown) < 12 and all("R:PREP]" in c.text for c in shown)
    # where good and middle differ: those two systems' rows only, the sentences whose edits differ
    Select(browser.find_element(By.ID, "bt-type")).select_by_visible_text("any")
    Select(browser.find_element(By.ID, "bt-sys")).select_by_visible_text("all")
    Select(browser.find_element(By.ID, "bt-da")).select_by_visible_text("good")
    Select(browser.find_element(By.ID, "bt-db")).select_by_visible_text("middle")
    browser.find_element(By.ID, "bt-differ").click()

    def edits(sent, k):
        return sorted((e[0], e[1], e[2]) for e in sent["o"][k][2])
    differ = [i + 1 for i, s in enumerate(data["sentences"]) if edits(s, 0) != edits(s, 1)]
    assert [int(c.get_attribute("data-sentence")) for c in cards(browser)] == differ and 0 < len(differ) < 12
    assert all(len(c.find_elements(By.CSS_SELECTOR, ".sys")) == 2 for c in cards(browser))
    # sorted by PEET seconds: the shown systems' largest seconds, most first
    Select(browser.find_element(By.ID, "bt-sort")).select_by_value("peet")
    secs = [max(float(x) for x in re.findall(r"· ([\d.]+) s", c.text)) for c in cards(browser)]
    assert secs == sorted(secs, reverse=True)
    assert browser.get_log("browser") == [] or all(e["level"] not in ("SEVERE", "ERROR")
                                                   for e in browser.get_log("browser"))


# --- layout at 12 systems and 25+ types: nothing overlaps, nothing runs off the page ------------------------------

OVERLAPS = """
const boxes = sel => [...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect());
const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
const out = [];
for (const bar of document.querySelectorAll('.bt-bar')) {
  const ls = [...bar.querySelectorAll('label')].map(e => [e.textContent.trim(), e.getBoundingClientRect()]);
  for (let i = 0; i < ls.length; i++) for (let j = i + 1; j < ls.length; j++)
    if (hit(ls[i][1], ls[j][1])) out.push('controls: ' + ls[i][0] + ' / ' + ls[j][0]);
}
const svg = document.querySelector('#bt-diff svg'), sb = svg.getBoundingClientRect();
const texts = [...svg.querySelectorAll('text')].map(t => t.getBoundingClientRect());
for (let i = 0; i < texts.length; i++) {
  if (texts[i].left < sb.left - 0.5 || texts[i].right > sb.right + 0.5) out.push('chart label outside the chart');
  for (let j = i + 1; j < texts.length; j++) if (hit(texts[i], texts[j])) out.push('chart labels overlap');
}
const heads = boxes('.bt-heat th.v span');
for (let i = 0; i + 1 < heads.length; i++) if (hit(heads[i], heads[i + 1])) out.push('system names overlap');
if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('the page scrolls sideways');
for (const s of document.querySelectorAll('#bt-list .sent')) if (s.scrollWidth > s.clientWidth + 1) out.push('a sentence overflows');
return out;
"""


def test_without_peet_there_are_no_seconds_to_sort_by(browser, tmp_path):
    assert main(["report", *INPUTS, "--metric", "wer", "--by-type", "1", "--out", str(tmp_path / "rep")]) == 0
    load(browser, tmp_path / "rep" / "index.html")
    option = browser.find_element(By.CSS_SELECTOR, '#bt-sort option[value="peet"]')
    assert option.get_attribute("disabled") and option.text == "PEET seconds (PEET not ranked)"
    text = browser.find_element(By.ID, "bt-list").text
    assert "good · vs ref 0: " in text and not re.search(r"· [\d.]+ s", text)
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []


@pytest.mark.parametrize("hyps, ref", [(["good"], "reference"), (["source", "weak"], "source")],
                         ids=["one system", "no edit anywhere"])
def test_edge_pages_load_without_errors(browser, tmp_path, hyps, ref):
    assert main(["report", "--hyp", *(str(RANK / f"{h}.txt") for h in hyps), "--ref", str(RANK / f"{ref}.txt"),
                 "--src", str(RANK / "source.txt"), "--metric", "wer", "--by-type", "3",
                 "--out", str(tmp_path / "rep")]) == 0
    load(browser, tmp_path / "rep" / "index.html")
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
    data = page_data(tmp_path / "rep" / "index.html")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#bt-heat-body tr")) == len(data["types"])
    assert len(cards(browser)) == 12


@pytest.fixture(scope="module")
def conll_page(tmp_path_factory):
    if not (SHARED_CORPORA / "conll14" / "official-2014.combined.m2").exists():
        pytest.skip("../shared/corpora/conll14 is not there")
    d = tmp_path_factory.mktemp("browser_conll")
    blocks = (SHARED_CORPORA / "conll14" / "official-2014.combined.m2").read_text(encoding="utf-8").split("\n\n")
    (d / "gold.m2").write_text("\n\n".join(blocks[:150]) + "\n\n", encoding="utf-8")
    hyps = []
    for path in sorted((SHARED_CORPORA / "conll14" / "systems").glob("conll14-task-*.txt")):
        name = path.stem.replace("conll14-task-", "")
        if name != "INPUT":
            (d / f"{name}.txt").write_text("".join(path.read_text(encoding="utf-8").splitlines(True)[:150]),
                                           encoding="utf-8")
            hyps.append(str(d / f"{name}.txt"))
    assert main(["report", "--hyp", *hyps, "--ref", str(d / "gold.m2"), "--by-type", "3", "--bootstrap", "200",
                 "--out", str(d / "rep")]) == 0
    return d / "rep" / "index.html"


@pytest.mark.parametrize("width", [1400, 800])
def test_twelve_systems_lay_out_without_overlap(browser, conll_page, width):
    data = page_data(conll_page)
    assert len(data["systems"]) == 12 and len(data["types"]) >= 25
    load(browser, conll_page, width)
    assert browser.execute_script(OVERLAPS) == []
    keep = os.environ.get("PEET_FAST_SCREENSHOTS")
    section = browser.find_element(By.ID, "by-type")
    if keep:
        browser.set_window_size(width, int(browser.execute_script("return document.body.scrollHeight")) + 50)
        section.screenshot(os.path.join(keep, f"by-type-{width}.png"))
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
