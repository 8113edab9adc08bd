"""report.html in a real browser: headless Chromium driven by Selenium through the system chromedriver.

Needs the Debian packages chromium and chromium-driver (installed by .ci/run) and the PyPI package
selenium; each test skips with the reason when one is missing. Selenium never downloads a driver:
it is given /usr/bin/chromedriver and /usr/bin/chromium. Screenshots go to the test's tmp folder, or
to $QAGEN_SCREENSHOTS when set (to look at them).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from pathlib import Path

import pytest

from qagen import build
from qagen.report import write_report
from tests.support.ci import skip_or_fail
from tests.support.fast import FAST

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # each test needs a pipeline build (~30 s CPU)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
CHROMIUM = Path(os.environ.get("QAGEN_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("QAGEN_CHROMEDRIVER", "/usr/bin/chromedriver"))
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)
# Runs before any script of every page: records errors, CSP violations and dialogs instead of showing them.
COLLECTOR = """
window.__errors = []; window.__dialogs = [];
window.addEventListener("error", function (e) {
  window.__errors.push("error: " + (e.message || (e.target && e.target.tagName) || e.type));
}, true);
window.addEventListener("unhandledrejection", function (e) { window.__errors.push("rejection: " + e.reason); });
document.addEventListener("securitypolicyviolation", function (e) {
  window.__errors.push("csp: " + e.violatedDirective + " " + e.blockedURI);
});
window.alert = function (m) { window.__dialogs.push("alert:" + m); };
window.confirm = function (m) { window.__dialogs.push("confirm:" + m); return false; };
window.prompt = function (m) { window.__dialogs.push("prompt:" + m); return null; };
"""
BAD_NAME = "<img src=x onerror=alert(2)>.pdf"
SCRIPT_TAG = "<script>alert(1)</script>"
IMG_TAG = "<img src=x onerror=alert(2)>"
PDF_HEADING = f"{SCRIPT_TAG} Pharmacy hours {IMG_TAG}"
PDF_BODY = f"Body text with {SCRIPT_TAG} and {IMG_TAG} written inside a sentence."
# Each section says a number and what it is for, so the offline generator asks about it and its passage is on the page
HOSTILE_MD = """# <script>alert(1)</script> heading <img src=x onerror=alert(2)>

Body text with <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script> inline.
Call 020 123 4567 or write to help@evil.example.com for help with the visiting hours policy.

## Visiting hours

Visitors are welcome at the ward from 14:00 to 20:00 every day; ask at <img src=x onerror="window.__pwned=1"> the desk.
Children under twelve visit with an adult, and everyone keeps their voices down after 19:00 in the ward.

## Second <b>bold</b> & "quoted" 'single' heading

More text: </textarea></title></style></script><svg onload="window.__pwned=3"> and {{ 7*7 }} and ${alert(1)}.
Visitors may park in garage P2 between 08:00 and 20:00; the fee is 2.50 euro per hour.
Call 020 555 0199 for questions about parking permits.
"""


def hostile_pdf(path: Path) -> Path:
    """A real PDF (reportlab) with the markup in a 20 pt bold heading and in 11 pt body text."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    # One section only: its emulated page then holds no other section, so the folds cannot drop
    # it as a page spanning both folds and its items (with this text as source passage) are shown.
    sections = [
        (
            PDF_HEADING,
            [
                "The outpatient pharmacy on the ground floor is open from 08:00 to 18:00 on weekdays.",
                PDF_BODY,
                "Bring your prescription and your insurance card when you collect medicine there.",
                "Call 020 555 0142 or write to pharmacy@clinic.example.com for questions about refills.",
                "Repeat prescriptions are ready two working days after your doctor has sent them.",
                "Patients who cannot travel may ask for delivery of their medicine to their home address.",
                "Delivery takes one working day and costs 4.95 euro per order within the city limits.",
            ],
        ),
    ]
    c = canvas.Canvas(str(path), pagesize=A4)
    y = 770.0
    for heading, lines in sections:
        c.setFont("Helvetica-Bold", 20)
        c.drawString(72, y, heading)
        y -= 30
        c.setFont("Helvetica", 11)
        for line in lines:
            c.drawString(72, y, line)
            y -= 15
        y -= 20
    c.save()
    return path


def _why_no_browser() -> str | None:
    if not CHROMIUM.is_file() or not CHROMEDRIVER.is_file():
        return (
            f"Chromium is absent ({CHROMIUM}, {CHROMEDRIVER}): "
            "apt-get install chromium chromium-driver (as .ci/run does)"
        )
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install 'selenium>=4.20' (a test extra)"
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _why_no_browser()
    if reason:
        skip_or_fail(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in CHROMIUM_ARGS:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COLLECTOR})
    yield driver
    driver.quit()


def open_page(driver, path: Path) -> None:
    driver.get(path.resolve().as_uri())
    assert driver.execute_script("return document.readyState") == "complete"


def page_problems(driver) -> list[str]:
    """Console errors (SEVERE log entries), script errors, CSP violations and dialogs since the last call."""
    logs = [f"console: {e['message']}" for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    return logs + driver.execute_script("return window.__errors.concat(window.__dialogs)")


def full_screenshot(driver, path: Path) -> Path:
    """The whole page (not only the window) as a PNG; also copied to $QAGEN_SCREENSHOTS when set."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 16000), "scale": 1}
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    path.write_bytes(base64.b64decode(shot["data"]))
    if os.environ.get("QAGEN_SCREENSHOTS"):
        keep = Path(os.environ["QAGEN_SCREENSHOTS"])
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, keep / path.name)
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def example_report(fast_example_build) -> Path:
    if _why_no_browser():
        skip_or_fail(_why_no_browser())
    out = fast_example_build  # the shared fast build of the examples (conftest.py); only read here
    if not (out / "report.html").is_file():  # written by the build's report stage where it runs one
        write_report(out)
    return out


def _text(driver, css: str) -> str:
    return driver.find_element("css selector", css).text.strip()


def test_the_report_lists_every_warning_with_advice_and_a_row_per_document(browser, example_report, tmp_path):
    from collections import Counter

    open_page(browser, example_report / "report.html")
    manifest = json.loads((example_report / "manifest.json").read_text())
    logged = list(
        dict.fromkeys(
            (name, m.removeprefix(f"{name}: "))
            for name, entry in manifest["stages"].items()
            for m in entry.get("warnings_logged") or []
        )
    )
    rows = browser.find_elements("css selector", "#warnings-table tbody tr")
    shown = [tuple(td.text.strip() for td in r.find_elements("css selector", "td")) for r in rows]
    assert [(stage, message) for stage, _kind, message, _advice in shown] == logged
    assert all(advice for *_, advice in shown)
    assert _text(browser, "#kpi-warnings .v") == str(len(logged))
    docs = _lines(example_report / "documents.jsonl")
    items = Counter(it["source"]["doc_id"] for it in _lines(example_report / "items.jsonl"))
    table = {
        cells[0]: cells
        for r in browser.find_elements("css selector", "#per-document tbody tr")
        if (cells := [td.text.strip() for td in r.find_elements("css selector", "td")])
    }
    assert set(table) == {d["path"] for d in docs}
    for d in docs:
        assert table[d["path"]][6] == str(items.get(d["id"], 0)), d["path"]  # after left out and sampled
    funnel = json.loads((example_report / "funnel.json").read_text())
    diversity = browser.find_elements("css selector", "#diversity-table tbody tr")
    kinds = [k for k in ("all", "long_form", "factoid", "mcq") if funnel["diversity"]["accepted"].get(k)]
    assert len(diversity) == 2 * len(kinds)  # candidates and accepted, overall and per type
    first = [td.text for td in diversity[1].find_elements("css selector", "td")]
    assert first[:3] == ["all", "accepted", str(funnel["diversity"]["accepted"]["all"]["n"])]
    for css in ("#summary", "#warnings"):  # looked at by a person: $QAGEN_SCREENSHOTS keeps them
        element = browser.find_element("css selector", css)
        browser.execute_script("arguments[0].scrollIntoView()", element)
        path = tmp_path / f"report_{css.strip('#')}.png"
        element.screenshot(str(path))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get("QAGEN_SCREENSHOTS"):
            shutil.copy(path, Path(os.environ["QAGEN_SCREENSHOTS"]) / path.name)


def test_example_report_loads_cleanly_and_shows_the_build_counts(browser, example_report, tmp_path):
    open_page(browser, example_report / "report.html")
    assert page_problems(browser) == []
    shot = full_screenshot(browser, tmp_path / "report_example.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000

    docs, sections = _lines(example_report / "documents.jsonl"), _lines(example_report / "sections.jsonl")
    items = _lines(example_report / "items.jsonl")
    topics = json.loads((example_report / "topics.json").read_text())["topics"]
    assert _text(browser, "#kpi-documents .v").replace(" ", "") == f"{len(docs)}/{len(docs)}"
    assert _text(browser, "#kpi-sections .v") == f"{len(sections):,}"
    assert _text(browser, "#kpi-topics .v") == str(len(topics))
    assert _text(browser, "#kpi-items .v") == f"{len(items):,}"
    for kind in ("long_form", "factoid", "mcq"):
        n = sum(it["type"] == kind for it in items)
        assert _text(browser, f"#kpi-items .t-{kind}").startswith(f"{n} ")
    assert browser.execute_script("return document.querySelectorAll('#topic-map circle').length") == len(sections)
    assert browser.execute_script("return document.querySelectorAll('#topic-table tbody tr').length") == len(topics)
    stages = browser.execute_script(
        "return [...document.querySelectorAll('#stages tbody tr b')].map(b => b.textContent)"
    )
    assert stages[:8] == ["parse", "pages", "embed", "topics", "folds", "generate", "filter", "splits"]
    assert _text(browser, "#funnel-accepted") == f"{len(items):,}"
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0  # nothing fetched


def test_example_report_is_interactive(browser, example_report):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import Select

    open_page(browser, example_report / "report.html")
    n_rejected = len(_lines(example_report / "rejected.jsonl"))
    cards = browser.find_elements("css selector", "#item-list details.card")
    shown_rejected = sum(c.get_attribute("data-status") == "rejected" for c in cards)
    assert 0 < shown_rejected <= n_rejected
    Select(browser.find_element("css selector", "select[data-f=status]")).select_by_value("rejected")
    visible = [c for c in cards if c.is_displayed()]
    assert len(visible) == shown_rejected
    assert _text(browser, "#item-count") == f"{shown_rejected} of {len(cards)} shown"
    visible[0].find_element("css selector", "summary").click()
    opened = visible[0].text
    assert "Rejected by" in opened and "SOURCE PASSAGE" in opened.upper()

    circle = browser.find_element("css selector", "#topic-map circle")
    heading = circle.find_element("css selector", "title").get_attribute("textContent")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", circle)
    ActionChains(browser).move_to_element(circle).perform()
    tooltip = browser.find_element("css selector", "#tooltip")
    assert tooltip.is_displayed() and tooltip.text == heading
    assert page_problems(browser) == []


def test_markup_in_a_document_is_shown_literally_and_never_runs(browser, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "evil.md").write_text(HOSTILE_MD, encoding="utf-8")
    hostile_pdf(docs / "evil.pdf")
    for name in ("patient_rights_and_complaints.md", "remote_work_policy.md", "linkhaven_faq.txt"):
        shutil.copy(EXAMPLES / name, docs / name)
    (docs / BAD_NAME).write_bytes(b"%PDF-1.4 not really a PDF <script>alert(3)</script>")
    out = tmp_path / "out"
    # a tiny hostile corpus: balanced folds are not the point here
    # the markup-heavy sections are parsed as code: sample them too, so that the report shows them
    kinds = 'generate.source_kinds=["prose","code"]'
    overrides = [*FAST[:3], "topics.n_clusters=4", "folds.samples_total=40", "folds.min_fold_ratio=0", kinds]
    build(docs, out, overrides=overrides)
    report = write_report(out)
    sections = _lines(out / "sections.jsonl")
    # the parser really read the PDF's large bold line as a heading, and the markup as text
    pdf_sections = [s for s in sections if s["doc_path"] == "evil.pdf"]
    assert [s["heading"] for s in pdf_sections] == [PDF_HEADING]
    assert PDF_BODY in pdf_sections[0]["text"] and SCRIPT_TAG not in pdf_sections[0]["text"].split("\n")[0]
    md_headings = [s["heading"] for s in sections if s["doc_path"] == "evil.md"]
    assert md_headings[0] == f"{SCRIPT_TAG} heading {IMG_TAG}"
    # the PDF's section has items, so its passage (body markup included) is on the page
    pdf_items = [
        r for r in _lines(out / "items.jsonl") + _lines(out / "rejected.jsonl") if r["source"]["doc_path"] == "evil.pdf"
    ]
    assert pdf_items, "no item from evil.pdf: the report would not show its body text"

    open_page(browser, report)
    expand = browser.find_element("css selector", "#expand-all")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", expand)
    expand.click()
    full_screenshot(browser, tmp_path / "report_hostile.png")
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.execute_script("return window.__dialogs") == []  # alert(1), alert(2) never called
    assert page_problems(browser) == []  # no alert, no error, no blocked inline handler
    assert browser.execute_script("return document.scripts.length") == 1
    bad = "img, iframe, object, embed, svg:not(#topic-map):not(.lg svg), [onerror], [onload]"
    assert browser.execute_script(f"return document.querySelectorAll({json.dumps(bad)}).length") == 0
    assert (
        browser.execute_script(
            "return [...document.querySelectorAll('b')].filter(b => b.textContent === 'bold').length"
        )
        == 0
    )
    text = browser.find_element("css selector", "body").text
    assert f"{SCRIPT_TAG} heading {IMG_TAG}" in text
    assert '<img src=x onerror="window.__pwned=1">' in text
    assert BAD_NAME in text  # the failed document, listed with its reason
    assert '<svg onload="window.__pwned=3">' in text and "{{ 7*7 }}" in text
    cards = [c.text for c in browser.find_elements("css selector", "#item-list details.card") if "evil.pdf" in c.text]
    assert cards and all(PDF_HEADING in c and PDF_BODY in c for c in cards)  # heading and body, literally
    titles = browser.execute_script(
        "return Array.from(document.querySelectorAll('#topic-map title'), t => t.textContent)"
    )
    assert any(t.startswith(f"{SCRIPT_TAG} heading {IMG_TAG}") for t in titles)
    assert any(t.startswith(PDF_HEADING) for t in titles)


def test_the_content_security_policy_blocks_markup_that_escaped(browser, example_report, tmp_path):
    """Defence in depth: even a raw script or handler spliced into the page cannot run."""
    html = (example_report / "report.html").read_text(encoding="utf-8")
    spliced = html.replace("<main", '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><main', 1)
    page = tmp_path / "spliced.html"
    page.write_text(spliced, encoding="utf-8")
    open_page(browser, page)
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    problems = page_problems(browser)
    assert {"csp: script-src-elem inline", "csp: script-src-attr inline"} <= set(problems)
