"""The built site works opened from disk (site/index.html, a file:// URL), search included.

With `use_directory_urls: false` (mkdocs.yml) every link names an .html file. Material's search reads
its index with `fetch`, which a browser refuses from file://; on file:// it loads `search/search_index.js`
instead, which this hook writes from the index the search plugin has just built (what Material's
`offline` plugin does; that plugin also loads a worker shim from unpkg.com, so a site opened without a
network would break: docs/javascripts/file-worker.js is our shim, loaded from the site itself).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority


@event_priority(-100)  # after the search plugin has written search_index.json
def on_post_build(config) -> None:
    index = Path(config.site_dir) / "search" / "search_index.json"
    if index.is_file():
        index.with_suffix(".js").write_text(f"var __index = {index.read_text(encoding='utf-8')}", encoding="utf-8")
