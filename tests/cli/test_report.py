"""`tsjit report`: a self-contained HTML page, checked as text and in a real headless browser
(Debian's Chromium driven by Playwright; skipped when either is missing)."""
import io
import os
import shutil
import struct
from html.parser import HTMLParser

import pytest

from tests.helpers.corpus import case_path

from tests.helpers.cli import tsjit

SECTIONS = ["summary", "modules", "methods", "code", "sources", "graph", "weights"]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.refs, self.ids = set(), [], set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for k, v in attrs:
            if k in ("href", "src", "xlink:href", "action"):
                self.refs.append(v)
            if k == "id":
                self.ids.add(v)


def _report(path, out):
    proc = tsjit("report", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    _report(case_path("model_mlp"), out)
    return out


def test_the_page_is_self_contained(page_file):
    html = page_file.read_text(encoding="utf-8")
    links = _Links()
    links.feed(html)
    assert not links.tags & {"script", "link", "iframe", "img", "object"}
    assert "url(" not in html and "@import" not in html
    # every link is to a place in the page, and that place exists
    assert links.refs and all(r.startswith("#") for r in links.refs)
    assert {r[1:] for r in links.refs} <= links.ids
    assert all(f'<section id="{s}">' in html for s in SECTIONS)


def test_a_checkpoint_and_a_page_without_graphviz(tmp_path, checkpoint, monkeypatch):
    html = _report(checkpoint, tmp_path / "c.html")
    assert "A checkpoint has no modules" in html and "<td>w</td>" in html
    from tsjit.cli import dot, report
    monkeypatch.setattr(dot, "has_dot", lambda: False)
    assert "Graphviz, which is not installed here" in report.page(str(case_path("model_mlp")))


def _browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    return sync_api


def _png_size_and_colours(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    try:
        from PIL import Image
    except ImportError:
        return width, height, None
    img = Image.open(io.BytesIO(data)).convert("RGB")
    return width, height, len(img.getcolors(maxcolors=1 << 20) or [])


@pytest.mark.slow
def test_the_page_in_a_headless_browser(page_file, tmp_path):
    sync_api = _browser()
    problems, requests = [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
            page.goto(page_file.as_uri())
            for s in SECTIONS:
                assert page.locator(f"section#{s}").is_visible(), s
                assert page.locator(f"section#{s} h2").is_visible(), s
            assert page.locator("section#code span.k").count() > 10     # highlighted keywords
            assert page.locator("section#modules li").count() == 10
            if shutil.which("dot"):
                assert page.locator("section#graph svg").is_visible()
            # a code line's source link leads to the original line
            link = page.locator("td.src a").first
            target = link.get_attribute("href")
            link.click()
            assert page.evaluate("location.hash") == target
            assert page.locator(f"tr{target}").is_visible()
            shot = page.screenshot(full_page=False)
        finally:
            browser.close()
    assert problems == []
    assert requests == [page_file.as_uri()]
    width, height, colours = _png_size_and_colours(shot)
    assert (width, height) == (1200, 900)
    if colours is not None:
        assert colours > 20, "the screenshot is (nearly) blank"
    (tmp_path / "report.png").write_bytes(shot)
