"""The offline HTML review form in a real browser: label, comment, Save CSV, import the download.

Headless Chromium driven by Selenium through the system chromedriver (Debian packages chromium
and chromium-driver, installed by .ci/run); skips with the reason when one is missing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from qagen.commands.review import export_review, import_review
from qagen.io import read_jsonl, write_jsonl
from qagen.records import Item, replace
from qagen.review import load_reviews
from tests.support.ci import skip_or_fail
from tests.support.review_data import make_build, read_rows

pytestmark = pytest.mark.browser

CHROMIUM = Path(os.environ.get("QAGEN_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("QAGEN_CHROMEDRIVER", "/usr/bin/chromedriver"))
ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--window-size=1200,900")  # fmt: skip
# Runs before the page's scripts: records script errors, CSP violations and dialogs.
COLLECTOR = """
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push("error: " + e.message); }, true);
document.addEventListener("securitypolicyviolation", function (e) {
  window.__errors.push("csp: " + e.violatedDirective + " " + e.blockedURI);
});
window.alert = function (m) { window.__errors.push("alert: " + m); };
"""
PLAN = {0: "correct", 1: "wrong", 2: "incomplete", 5: "too_specific", 7: "irrelevant", 8: "correct"}
# item index -> the yes/no checks clicked ("" = "not judged"); items not listed are left as they are.
CHECKS = {0: {"natural": "yes", "answerable": "yes"}, 1: {"natural": "no"}, 2: {"answerable": "no"},
          5: {"natural": "yes", "answerable": ""}}  # fmt: skip
COMMENT = 'Half right, "see p. 2",\nand a second line é'


def _why_no_browser() -> str | None:
    if not CHROMIUM.is_file() or not CHROMEDRIVER.is_file():
        return f"Chromium is absent ({CHROMIUM}, {CHROMEDRIVER}): apt-get install chromium chromium-driver"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install 'selenium>=4.20' (a test extra)"
    return None


@pytest.fixture
def browser(tmp_path):
    reason = _why_no_browser()
    if reason:
        skip_or_fail(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ARGS:
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})  # fmt: skip
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COLLECTOR})
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.downloads = downloads
    yield driver
    driver.quit()


def _wait_for(path: Path, seconds: float = 20.0) -> Path:
    """Wait for a finished download (Chromium writes *.crdownload first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.is_file() and not list(path.parent.glob("*.crdownload")):
            return path
        time.sleep(0.1)
    raise AssertionError(f"{path.name} was not downloaded within {seconds} s: {list(path.parent.iterdir())}")


def _click(browser, css: str) -> None:
    """Click an element after scrolling it to the middle of the window (clear of the sticky bar)."""
    from selenium.webdriver.common.by import By

    element = browser.find_element(By.CSS_SELECTOR, css)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def test_form_labels_save_a_csv_that_imports(browser, tmp_path):
    from selenium.webdriver.common.by import By

    out = make_build(tmp_path / "out")
    items = read_jsonl(out / "items.jsonl", Item)
    items[4] = replace(items[4], id="1234567890123456")  # a spreadsheet would round this number
    write_jsonl(out / "items.jsonl", items)
    form = export_review(out, tmp_path / "review.html", reviewers="ann").files["ann"]
    browser.get(form.resolve().as_uri())
    cards = browser.find_elements(By.CSS_SELECTOR, "article.item")
    assert len(cards) == 24
    assert browser.find_element(By.ID, "progress").text == "0 of 24 labelled"
    for index, label in PLAN.items():
        browser.find_element(By.CSS_SELECTOR, f'#item-{index} input[value="{label}"]').click()
    for index, checks in CHECKS.items():
        for check, value in checks.items():
            _click(browser, f'#item-{index} input[name="{check}-{index}"][value="{value}"]')
    _click(browser, '#item-5 input[name="answerable-5"][value="no"]')
    _click(browser, '#item-5 input[name="answerable-5"][value=""]')  # not judged after all
    browser.find_element(By.CSS_SELECTOR, "#item-1 textarea").send_keys(COMMENT)
    browser.find_element(By.CSS_SELECTOR, '#item-8 input[value="wrong"]').click()  # changed my mind
    browser.find_element(By.CSS_SELECTOR, "#item-8 button.plain").click()  # ... and cleared it
    assert browser.find_element(By.ID, "progress").text == f"{len(PLAN) - 1} of 24 labelled"
    reviewer = browser.find_element(By.ID, "reviewer")
    reviewer.clear()
    reviewer.send_keys("ann.b")
    browser.find_element(By.ID, "save").click()
    saved = _wait_for(browser.downloads / "review.csv")  # one reviewer: review.html saves review.csv
    assert "Saved review.csv" in browser.find_element(By.ID, "status").text
    assert browser.execute_script("return window.__errors") == []

    # The download is the export's format: same header, same rows, plus the marks.
    header, rows = read_rows(saved)
    exported = export_review(out, tmp_path / "again.csv", reviewers="ann")
    assert header == read_rows(exported.files["ann"])[0]
    assert saved.read_bytes().startswith(b"\xef\xbb\xbf")
    assert "\r\n'1234567890123456,ann.b," in saved.read_bytes().decode("utf-8-sig")
    result = import_review(out, [saved])
    ids = [r["item_id"] for r in rows]
    got = {(v.item_id, v.reviewer, v.label) for v in load_reviews(out)}
    assert got == {(ids[i], "ann.b", lab) for i, lab in PLAN.items() if i != 8}
    assert {v.item_id: v.comment for v in load_reviews(out)}[ids[1]] == COMMENT
    yes_no = {"yes": True, "no": False, "": None}
    checks = {v.item_id: (v.natural, v.answerable) for v in load_reviews(out)}
    assert checks == {
        ids[i]: tuple(yes_no[CHECKS.get(i, {}).get(c, "")] for c in ("natural", "answerable")) for i in PLAN if i != 8
    }
    assert [rows[i]["natural"] for i in range(3)] == ["yes", "no", ""] and rows[2]["answerable"] == "no"
    assert result.summary["checks"]["overall"]["natural"] == {"judged": 3, "yes": 2, "share": 0.6667}
    assert result.counts["unlabelled_rows"] == 24 - (len(PLAN) - 1)
    question = {r["item_id"]: r["question"] for r in rows}
    assert question[next(i for i in ids if i.startswith("s2-long"))].startswith("'=HYPERLINK")  # guarded

    # Choices survive a reload (kept in the browser as the reviewer goes). The page renders its
    # items from script after loading: wait for the restored choice (10 s at most) before reading.
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    stored = "return Object.keys(localStorage).map(function (k) { return localStorage.getItem(k); }).join('')"
    WebDriverWait(browser, 30).until(lambda d: ids[1] in d.execute_script(stored))  # the choices are stored
    browser.refresh()
    try:
        WebDriverWait(browser, 30).until(
            lambda d: d.find_element(By.CSS_SELECTOR, '#item-1 input[value="wrong"]').is_selected()
        )
    except TimeoutException:  # say what the reloaded page holds, so a failure can be read
        cards = len(browser.find_elements(By.CSS_SELECTOR, "article.item"))
        state = browser.execute_script(stored)
        errors = browser.execute_script("return window.__errors")
        pytest.fail(f"choice not restored after reload: {cards} cards, storage {state[:300]!r}, errors {errors}")
    assert browser.find_element(By.CSS_SELECTOR, '#item-1 input[name="natural-1"][value="no"]').is_selected()
    assert browser.find_element(By.CSS_SELECTOR, '#item-3 input[name="natural-3"][value=""]').is_selected()
    assert "never saw this document" in browser.find_element(By.ID, "check-help").text
    assert browser.find_element(By.ID, "reviewer").get_attribute("value") == "ann.b"


def test_form_refuses_to_save_without_a_valid_reviewer(browser, tmp_path):
    from selenium.webdriver.common.by import By

    out = make_build(tmp_path / "out")
    form = export_review(out, tmp_path / "review.html").files["r1"]
    browser.get(form.resolve().as_uri())
    browser.find_element(By.ID, "reviewer").clear()
    browser.find_element(By.ID, "save").click()
    assert "Fill in your reviewer name" in browser.find_element(By.ID, "status").text
    time.sleep(0.5)
    assert not list(browser.downloads.iterdir())
