"""The documentation site builds with no warning and renders in a real browser (issue 36).

`mkdocs build --strict` (broken links and anchors fail it) writes site/, a local HTTP server serves it,
and headless Chromium opens the home page, every game page and a tutorial: each shows its title, a
table and its images (loaded, non-zero size), with no console error. Screenshots go to
site/_screenshots/ for people to look at. Chromium is Debian's (`./dev` installs it where it can);
Playwright drives it (its wheel carries its own driver, so nothing is downloaded, and it reports
console messages, page errors and failed requests directly, which Selenium's WebDriver does not).
Missing tools skip the browser test on a developer's machine and fail it in CI.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.core.spec import registered_games

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
SCREENSHOTS = SITE / "_screenshots"
PAGES = [("", "fruit_envs", "home")]
PAGES += [(f"games/{spec.id}/", spec.name, spec.id) for spec in registered_games()]
PAGES += [("tutorials/first-aec-loop/", "Your first AEC loop", "tutorial_first_aec_loop")]


def missing(what: str) -> None:
    """Skip on a developer's machine; in CI a missing tool is a failure, never a silent skip."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (CI must run the browser test: ./dev setup installs what it needs)")
    pytest.skip(what)


def chromium() -> str:
    for name in (os.environ.get("FRUIT_ENVS_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    missing("no Chromium: install Debian's package (apt-get install chromium) or set FRUIT_ENVS_CHROMIUM")


@pytest.fixture(scope="module")
def site() -> Path:
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        missing("mkdocs is not installed: pip install -e '.[docs]'")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(SITE)]
    built = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    return SITE


def test_site_builds_strictly_with_every_page(site):
    for path, _, _ in PAGES:
        assert (site / path / "index.html").is_file(), f"no page {path or 'home'}"
    assert (site / "api" / "index.html").read_text().count('class="doc doc-heading"') >= 10


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server(site):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser(server):
    executable = chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed: pip install -e '.[docs]'")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield browser
        browser.close()


IMAGES = """() => Array.from(document.querySelectorAll('article img')).map(img => ({
    src: img.getAttribute('src'), complete: img.complete, width: img.naturalWidth, height: img.naturalHeight}))"""


@pytest.mark.parametrize(("path", "title", "name"), PAGES, ids=[name for _, _, name in PAGES])
def test_page_renders_in_chromium(browser, server, path, title, name):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("requestfailed", lambda request: errors.append(f"failed to load {request.url}"))
    try:
        response = page.goto(server + path, wait_until="load")
        assert response is not None and response.ok, f"{path or 'home'}: HTTP {response and response.status}"
        assert page.locator("article h1").first.inner_text().strip().rstrip("¶").strip() == title
        assert page.locator("article table").count() >= 1, f"{path or 'home'} shows no table"
        images = page.evaluate(IMAGES)
        assert images, f"{path or 'home'} shows no image"
        broken = [image["src"] for image in images if not image["complete"] or not image["width"] * image["height"]]
        assert not broken, f"{path or 'home'}: images not loaded: {broken}"
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
        assert not errors, f"{path or 'home'}: console errors: {errors}"
    finally:
        page.close()
