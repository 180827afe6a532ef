"""Every relative link in the docs and every repository file the docs and docstrings name exists."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERATED = {"index.md", "changelog.md", "leaderboard.md"}  # site pages docs/hooks/pages.py writes at build time
# Named paths that are not this repository's files: inside folders a run writes (a run folder's checkpoints, a
# benchmark's units, a site's search index), generated game pages, placeholders, other packages' files.
ELSEWHERE = re.compile(
    r"^(results|runs|site|path/to|tmp|out|OUT|DIR|my|mine|your|some|x|checkpoints|units|search|games|agilerl|docs/x"
    r"|\.\.\.?)/|[<*{]"
)
NAMED = re.compile(
    r"(?<![\w/.<{$-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\.(?:md|py|yaml|yml|json|txt|toml|png|gif|js|css|html"
    r"|jsonl|zip|npz|safetensors))\b"
)
LINK = re.compile(r"\]\(([^)\s]+)\)")
SERVED = {"fruit_envs/agents/": "agents/", "fruit_envs/training/": "training/", "fruit_envs/benchmarks/": "benchmarks/"}


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [
        ROOT / line for line in out.split() if not line.startswith(("tests/corpus", "tests/golden", "leaderboard/"))
    ]


def _prose(path: Path) -> str:
    """A Markdown file whole; a Python file's docstrings and comments (what a reader is pointed by)."""
    text = path.read_text()
    if path.suffix == ".md":
        return text
    parts = re.findall(r"#[^\n]*", text)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            parts.append(ast.get_docstring(node, clean=False) or "")
    return "\n".join(parts)


def _exists(name: str, near: Path) -> bool:
    for served, here in SERVED.items():
        if name.startswith(served):
            name = here + name[len(served) :]
    return any(p.exists() for p in (ROOT / name, near.parent / name, ROOT / "docs" / name, ROOT / "fruit_envs" / name))


def test_every_relative_link_in_the_docs_exists():
    missing = []
    for path in _tracked():
        if path.suffix != ".md" or path.name == "CHANGELOG.md":
            continue
        for target in LINK.findall(path.read_text()):
            target = target.split("#")[0]
            if not target or re.match(r"[a-z]+:", target) or Path(target).name in GENERATED:
                continue
            if target.startswith("games/") or _exists(target, path):
                continue
            missing.append(f"{path.relative_to(ROOT)}: {target}")
    assert not missing, "links to files the repository lacks:\n" + "\n".join(missing)


def test_every_file_the_docs_and_docstrings_name_exists():
    """A path like `docs/termination.md` or `agents/baselines/cherry_picking_2p.json` in a page, docstring or comment names a
    file of this repository (the changelog is history: it may name what was since removed)."""
    missing = []
    for path in _tracked():
        if path.suffix not in (".md", ".py") or path.name == "CHANGELOG.md":
            continue
        for name in NAMED.findall(_prose(path)):
            if not ELSEWHERE.match(name) and not _exists(name, path):
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, "named files the repository lacks:\n" + "\n".join(sorted(set(missing)))


def test_no_page_cites_the_design_notes_the_repository_does_not_hold():
    cited = [
        str(path.relative_to(ROOT))
        for path in _tracked()
        if path.suffix in (".md", ".py") and path.name != "CHANGELOG.md" and "DESIGN.md" in path.read_text()
    ]
    assert not [path for path in cited if path != str(Path(__file__).relative_to(ROOT))], cited
