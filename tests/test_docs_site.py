"""The documentation site builds with no warning and renders in a real browser (issue 36).

`mkdocs build --strict` (broken links and anchors fail it) writes site/, a local HTTP server serves it,
and headless Chromium opens the home page, every game page and a tutorial: each shows its title, a
table and its images (loaded, non-zero size), with no console error. Screenshots go to
site/_screenshots/ for people to look at. Chromium is Debian's (`./dev` installs it where it can);
Playwright drives it (its wheel carries its own driver, so nothing is downloaded, and it reports
console messages, page errors and failed requests directly, which Selenium's WebDriver does not).
Missing tools skip the browser test on a developer's machine and fail it in CI.

The README also says to open site/index.html from disk (issue 54): every link of every page names a file
(`use_directory_urls: false`), so nothing lands on a directory listing; from a file:// URL the nav is
clicked through, search finds pages, the home page's code blocks wrap rather than run past the right edge
at any width, and each game's replay is drawn at a readable size.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.core.spec import registered_games

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
SCREENSHOTS = SITE / "_screenshots"
PAGES = [("index.html", "fruit_envs", "home")]
PAGES += [(f"games/{spec.id}.html", spec.name, spec.id) for spec in registered_games()]
PAGES += [("tutorials/first-aec-loop.html", "Your first AEC loop", "tutorial_first_aec_loop")]


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
        assert (site / path).is_file(), f"no page {path}"
    assert (site / "api.html").read_text().count('class="doc doc-heading"') >= 10
    leaderboard = (site / "leaderboard.html").read_text()  # generated from leaderboard/protocol_v1/ (issue 59)
    assert "reference:search" in leaderboard and "Privileged: reads the true state" in leaderboard
    assert "pull request" in (site / "contributing.html").read_text()


class Links(HTMLParser):
    """The URLs a page links to or loads: `href` of `a` and `link`, `src` of `img` and `script`."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"a": "href", "link": "href", "img": "src", "script": "src"}.get(tag)
        self.urls += [value for name, value in attrs if name == wanted and value]


def test_every_link_in_the_site_names_a_file(site):
    """Opened from disk a link to a folder shows a bare directory listing: every local link names a file."""
    pages = [page for page in site.rglob("*.html") if SCREENSHOTS not in page.parents]
    assert len(pages) >= 25
    for page in pages:
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for url in parser.urls:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or not parts.path:  # another site, or an anchor on this page
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            what = "a folder" if target.is_dir() else "nothing"
            assert target.is_file(), f"{page.relative_to(site)} links to {url}: {what}"


class QuietHandler(SimpleHTTPRequestHandler):
    """A static server that answers a missing path with the site's 404.html, as hosting services do."""

    def log_message(self, *args) -> None:
        pass

    def send_error(self, code, message=None, explain=None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server(site):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser(site):
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
        assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
        assert page.locator("article h1").first.inner_text().strip().rstrip("¶").strip() == title
        assert page.locator("article table").count() >= 1, f"{path} shows no table"
        images = page.evaluate(IMAGES)
        assert images, f"{path} shows no image"
        broken = [image["src"] for image in images if not image["complete"] or not image["width"] * image["height"]]
        assert not broken, f"{path}: images not loaded: {broken}"
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
        assert not errors, f"{path}: console errors: {errors}"
    finally:
        page.close()


# --- the site opened from disk (file://), as the README says ---------------------------------------


def open_from_disk(browser, path: str, width: int = 1280):
    """A page of the built site at a file:// URL, and the list its console errors and failed loads go to."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("requestfailed", lambda request: _failed_load(request, errors))
    page.goto((SITE / path).as_uri(), wait_until="load")
    return page, errors


def _failed_load(request, errors: list[str]) -> None:
    """A load that failed, except one cut short because the page navigated on (ERR_ABORTED: a favicon still
    loading when a link is clicked); a missing file is ERR_FILE_NOT_FOUND and counts."""
    if "ERR_ABORTED" not in (request.failure or ""):
        errors.append(f"failed to load {request.url} ({request.failure})")


def assert_on_a_page(page, came_from: str) -> None:
    url = urlsplit(page.url)
    assert url.scheme == "file" and url.path.endswith(".html"), f"{came_from} led to {page.url}, not a page"
    assert page.locator("article h1").count() == 1, f"{came_from} led to {page.url}, which shows no page"


def test_nav_from_disk_lands_on_pages(browser):
    """Links of the navigation, clicked on the home page opened from disk, open pages: every fourth and the
    last (every link's target is checked to be a file by test_every_link_in_the_site_names_a_file)."""
    nav = "nav.md-nav--primary a.md-nav__link[href] >> visible=true"
    page, errors = open_from_disk(browser, "index.html")
    try:
        count = page.locator(nav).count()
        assert count >= 25, f"the navigation shows {count} links"
        for index in sorted({*range(0, count, 4), count - 1}):
            page.goto((SITE / "index.html").as_uri(), wait_until="load")
            link = page.locator(nav).nth(index)
            name = f"nav link {link.inner_text().strip()!r} ({link.get_attribute('href')})"
            link.click()
            page.wait_for_load_state("load")
            assert_on_a_page(page, name)
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()


def test_the_not_found_page_works_from_disk_and_from_a_server(browser, server):
    """404.html opened from disk loads its stylesheet and scripts and its links lead to pages; sent by a server
    for a missing path in a subfolder, it loads them from the site's root (docs/hooks/offline.py)."""
    page, errors = open_from_disk(browser, "404.html")
    try:
        assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") != "static"
        link = page.locator("nav.md-nav--primary a.md-nav__link[href] >> visible=true").nth(3)
        link.click()
        page.wait_for_load_state("load")
        assert_on_a_page(page, "a link of the not-found page")
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()
    served = browser.new_page()
    try:
        served.goto(server + "games/no-such-page.html", wait_until="load")
        stylesheet = served.evaluate("[...document.styleSheets].map(s => s.href).find(h => h && h.includes('main'))")
        assert stylesheet and stylesheet.startswith(server + "assets/"), stylesheet
    finally:
        served.close()


def test_search_works_from_disk(browser):
    """Material's search runs in a Web Worker, which a file:// page may not start: docs/javascripts/file-worker.js
    runs it in an iframe, reading the index docs/hooks/offline.py writes as a script."""
    page, errors = open_from_disk(browser, "index.html")
    try:
        page.locator("input.md-search__input").fill("MaskablePPO")
        results = page.locator(".md-search-result__item a[href]")
        results.first.wait_for(timeout=45_000)  # the index is built in the page: slow beside a busy suite
        assert results.count() >= 3
        results.first.click()
        page.wait_for_load_state("load")
        assert_on_a_page(page, "the first search result")
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()


@pytest.mark.parametrize("width", [1280, 1024, 768, 390])
def test_home_page_code_blocks_are_not_cut_off(browser, width):
    """Material shows a scrolled code block's scrollbar only on hover, so a line longer than the column read as
    cut off at the right edge: code blocks wrap, and each fits its box at every width."""
    page, errors = open_from_disk(browser, "index.html", width)
    try:
        blocks = page.evaluate(
            """() => Array.from(document.querySelectorAll('article pre > code')).map(code => ({
                text: code.innerText.split('\\n')[0], scroll: code.scrollWidth, client: code.clientWidth}))"""
        )
        assert len(blocks) >= 4
        clipped = [block for block in blocks if block["scroll"] > block["client"] + 1]
        assert not clipped, f"at {width}px these code blocks run past their box: {clipped}"
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()


@pytest.mark.parametrize("game", [spec.id for spec in registered_games()])
def test_game_page_replay_is_drawn_readable(browser, game):
    """The replay GIF spans the text column (it sat in half a table and its labels could not be read), loaded,
    and links to the file alone."""
    page, errors = open_from_disk(browser, f"games/{game}.html")
    try:
        replay = page.locator(f'article img[src$="replays/{game}.gif"]')
        assert replay.count() == 1, f"{game}: no replay GIF"
        size = replay.evaluate("img => ({drawn: img.getBoundingClientRect().width, natural: img.naturalWidth})")
        assert size["natural"] > 0, f"{game}: the replay did not load"
        assert size["drawn"] >= 600, f"{game}: the replay is drawn {size['drawn']:.0f} px wide"
        link = replay.evaluate("img => img.closest('a') && img.closest('a').getAttribute('href')")
        assert link and link.endswith(f"replays/{game}.gif"), f"{game}: the replay links to {link}"
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()


@pytest.mark.parametrize("game", [spec.id for spec in registered_games()])
def test_game_page_replay_viewer_steps_through_every_perspective_from_disk(browser, game):
    """Issue 58: each game page embeds the replay viewer on its shipped replay from static files (no server,
    opened from disk), the referee's view and every seat's: another seat's view is another picture."""
    page, errors = open_from_disk(browser, f"games/{game}.html")
    try:
        viewer = page.locator(f'.replay-viewer[data-replay="{game}"]')
        assert viewer.count() == 1, f"{game}: no replay viewer"
        views = viewer.locator("select option").evaluate_all("options => options.map(o => o.value)")
        players = len(views) - 1
        assert views == ["referee", *map(str, range(players))], views
        viewer.focus()
        page.keyboard.press("ArrowRight")
        seen = set()
        for view in views:
            viewer.locator("select").select_option(view)
            page.wait_for_function(
                "box => { const img = box.querySelector('img'); return img.complete && img.naturalWidth > 0; }",
                arg=viewer.element_handle(),
            )
            seen.add(viewer.locator("img").get_attribute("src"))
            assert viewer.locator("li").count() >= 1, f"{game} {view}: no caption"
        assert len(seen) == len(views), "each perspective shows its own picture"
        assert "step" in viewer.inner_text() and not errors, errors
    finally:
        page.close()
