"""OUT/report.html renders in a real browser: Debian's headless Chromium,
driven by selenium, shows a non-blank page, loads every image and logs no
console error. Without Chromium the test is skipped with the reason."""

import io
import json
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _driver():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        pytest.skip("Chromium or chromedriver not installed (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(chromedriver), options=opts)


@pytest.fixture(scope="module")
def report(quick_reproduction):
    return quick_reproduction[0]


def test_report_is_self_contained(report):
    html = (report / "report.html").read_text()
    assert "<script" not in html and "http://" not in html and "https://" not in html
    papers = ("liu", "lee", "paliwal", "jung", "dziong")
    figures = [f for p in papers for f in json.loads((report / p / "report.json").read_text())["figures"]]
    assert figures and html.count("data:image/png;base64,") == len(figures)
    for paper in papers:
        assert f'id="{paper}"' in html


def test_report_renders_in_headless_chromium(report):
    from PIL import Image

    driver = _driver()
    try:
        driver.get((report / "report.html").as_uri())
        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight]);")
        assert len(images) >= 4
        assert all(c and w > 0 and h > 0 for c, w, h in images), images
        rows = driver.execute_script(
            "return document.querySelectorAll('tr.agrees, tr.differs, tr.inconclusive, tr.notmodelled, tr.none').length;")
        assert rows > 0
        png = driver.get_screenshot_as_png()
        logs = driver.get_log("browser")
    finally:
        driver.quit()
    img = Image.open(io.BytesIO(png)).convert("L")
    lo, hi = img.getextrema()
    assert hi - lo > 100, "the screenshot is blank"
    assert len(img.getcolors(maxcolors=1 << 16) or range(1 << 16)) > 20, "the screenshot has almost no content"
    errors = [e for e in logs if e.get("level") == "SEVERE"]
    assert not errors, errors
