"""The built site works opened from disk (site/index.html, a file:// URL), search included.

With `use_directory_urls: false` (mkdocs.yml) every link names an .html file. Material's search reads
its index with `fetch`, which a browser refuses from file://; on file:// it loads `search/search_index.js`
instead, which this hook writes from the index the search plugin has just built (what Material's
`offline` plugin does; that plugin also loads a worker shim from unpkg.com, so a site opened without a
network would break: docs/javascripts/file-worker.js is our shim, loaded from the site itself).

`404.html` is what a server sends for any missing path, so MkDocs writes its links from the server's root
(`/assets/...`), which opened from disk name the file system's root: nothing loads. Its links are made
relative to the site's root here, and a server is told that root by a `<base href="/">` the page writes for
itself when it is not opened from disk.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.plugins import event_priority


@event_priority(-100)  # after the search plugin has written search_index.json
def on_post_build(config) -> None:
    index = Path(config.site_dir) / "search" / "search_index.json"
    if index.is_file():
        index.with_suffix(".js").write_text(f"var __index = {index.read_text(encoding='utf-8')}", encoding="utf-8")
    missing = Path(config.site_dir) / "404.html"
    if missing.is_file():
        missing.write_text(relative_404(missing.read_text(encoding="utf-8")), encoding="utf-8")


SERVED_ROOT = '<script>if (location.protocol !== "file:") document.write(\'<base href="/">\')</script>'


def relative_404(html: str) -> str:
    """404.html with its root links (`href="/x"`, `src="/x"`, and the theme's base and search worker) relative to
    the site's root, and the base a server needs written first in its head."""
    html = re.sub(r'((?:href|src)=")/(?!/)', r"\1./", html)
    html = html.replace('"base": "/"', '"base": "."').replace('"search": "/assets/', '"search": "./assets/')
    return html.replace("<head>", "<head>" + SERVED_ROOT, 1) if SERVED_ROOT not in html else html
