"""Cut a release of this checkout in one command: `./dev release VERSION` (`python -m fruit_envs._release`).

The steps, each refused with a clear error before anything is written when it cannot succeed:

1. the checkout is a git work tree with nothing uncommitted, VERSION is a PEP 440 version above the
   current one and its tag `vVERSION` is free, and CHANGELOG.md's "Unreleased" section says something;
2. VERSION is written in its one place, `fruit_envs/__init__.py` (`__version__`; pyproject reads it);
3. CHANGELOG.md's "Unreleased" section becomes `## VERSION (DATE)`, opened by the environment versions
   this release serves (every game's PettingZoo module and Gymnasium id) and the benchmark protocols it
   ships; a new empty "Unreleased" section goes above it;
4. the sdist and the wheel are built into `dist/` (`python -m build`), checked by `twine check --strict`,
   and the wheel is opened to check its version and the data it must carry (shipped baselines, recipes,
   benchmark protocols, `py.typed`);
5. the change is committed as "Release VERSION" and tagged `vVERSION` (annotated);
6. main goes on as the next development version (`X.(Y+1).0.dev0`, so a build of main is never taken for the
   release), and the release's changelog heading names its commit (`## VERSION (DATE, commit abc1234)`), which
   finds the release where the tag did not travel: a second commit, "Start X.(Y+1).0.dev0".

Nothing is uploaded or pushed: the command ends by printing the two commands that do it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
UNRELEASED = "## Unreleased"
_VERSION_LINE = re.compile(r'^__version__ = "([^"]+)"', flags=re.M)
WHEEL_MUST_HOLD = (  # (what, a regex over the wheel's file names)
    ("the shipped PPO baselines", r"^fruit_envs/agents/baselines/[a-z_]+_\dp\.zip$"),
    ("the baselines protocol v1 was calibrated with", r"^fruit_envs/agents/baselines/protocol_v1/.+\.zip$"),
    ("the training recipes", r"^fruit_envs/training/recipes/.+\.yaml$"),
    ("the benchmark protocols", r"^fruit_envs/benchmarks/protocol_v\d+\.yaml$"),
    ("the py.typed marker", r"^fruit_envs/py\.typed$"),
)


class ReleaseError(RuntimeError):
    """A release refused before it changed anything, or a check of what it built that failed."""


def current_version(root: Path = ROOT) -> str:
    """The version written in `fruit_envs/__init__.py` of the checkout at `root`."""
    match = _VERSION_LINE.search((root / "fruit_envs" / "__init__.py").read_text())
    if match is None:
        raise ReleaseError(f'no __version__ = "..." line in {root / "fruit_envs" / "__init__.py"}')
    return match.group(1)


def set_version(text: str, version: str) -> str:
    """`fruit_envs/__init__.py`'s text with its `__version__` set to `version`."""
    new, count = _VERSION_LINE.subn(f'__version__ = "{version}"', text, count=1)
    if count != 1:
        raise ReleaseError('fruit_envs/__init__.py has no __version__ = "..." line')
    return new


def environment_table() -> str:
    """The environment versions this code serves, a Markdown table (game, PettingZoo module, Gymnasium id)."""
    from fruit_envs.core.spec import registered_games

    lines = ["| game | PettingZoo module | Gymnasium id |", "|---|---|---|"]
    for spec in registered_games():
        lines.append(f"| {spec.name} | `fruit_envs.{spec.pettingzoo_name}` | `{spec.gym_id}` |")
    return "\n".join(lines)


def protocols(root: Path = ROOT) -> list[str]:
    """The benchmark protocol files the release ships (`benchmarks/protocol_v<N>.yaml`), oldest first."""
    return sorted(p.stem for p in (root / "benchmarks").glob("protocol_v*.yaml"))


def unreleased_notes(changelog: str) -> str:
    """What CHANGELOG.md's "Unreleased" section says (up to the next `## ` heading), stripped."""
    if UNRELEASED not in changelog:
        raise ReleaseError(f'CHANGELOG.md has no "{UNRELEASED}" section to release')
    body = changelog.split(UNRELEASED, 1)[1]
    following = re.search(r"^## ", body, flags=re.M)
    return (body[: following.start()] if following else body).strip()


def cut_changelog(changelog: str, version: str, date: str, environments: str, protocol_names: list[str]) -> str:
    """CHANGELOG.md with its "Unreleased" notes released as `## version (date)`, opened by the environment
    versions and benchmark protocols of the release, and an empty "Unreleased" section above them."""
    notes = unreleased_notes(changelog)
    if not notes:
        raise ReleaseError(f'CHANGELOG.md\'s "{UNRELEASED}" section is empty: nothing to release')
    if re.search(rf"^## {re.escape(version)}\b", changelog, flags=re.M):
        raise ReleaseError(f"CHANGELOG.md already has a section for {version}")
    head, rest = changelog.split(UNRELEASED, 1)
    following = re.search(r"^## ", rest, flags=re.M)
    older = rest[following.start() :] if following else ""
    shipped = ", ".join(f"`{name}`" for name in protocol_names) or "none"
    section = (
        f"## {version} ({date})\n\n"
        f"Environment versions in this release (a saved state or game record of any other version is refused):\n\n"
        f"{environments}\n\nBenchmark protocols: {shipped}.\n\n{notes}\n\n"
    )
    return f"{head}{UNRELEASED}\n\n{section}{older}"


def next_development(version: str) -> str:
    """The development version main carries after releasing `version`: the next minor's `.dev0`."""
    release = Version(version).release
    major, minor = release[0], release[1] if len(release) > 1 else 0
    return f"{major}.{minor + 1}.0.dev0"


def name_commit(changelog: str, version: str, commit: str) -> str:
    """CHANGELOG.md with the heading of `version`'s section naming the release's commit."""
    new, count = re.subn(
        rf"^## {re.escape(version)} \(([^),]+)\)$",
        rf"## {version} (\1, commit {commit})",
        changelog,
        count=1,
        flags=re.M,
    )
    if count != 1:
        raise ReleaseError(f"CHANGELOG.md has no '## {version} (DATE)' heading to name the release's commit in")
    return new


def released_section(changelog: str, version: str) -> str:
    """The text of CHANGELOG.md's section for `version` (empty when there is none)."""
    match = re.search(rf"^## {re.escape(version)}\b.*?(?=^## |\Z)", changelog, flags=re.M | re.S)
    return match.group(0) if match else ""


def check_wheel(wheel: Path, version: str) -> None:
    """The wheel carries `version` and the data a user's install needs; ReleaseError naming what is missing."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    found = re.search(r"^Version: (.+)$", text, flags=re.M)
    if found is None or found.group(1).strip() != version:
        raise ReleaseError(f"{wheel.name}: its metadata says version {found and found.group(1)!r}, not {version!r}")
    missing = [what for what, pattern in WHEEL_MUST_HOLD if not any(re.match(pattern, n) for n in names)]
    if missing:
        raise ReleaseError(f"{wheel.name} lacks {', '.join(missing)}: check [tool.setuptools.package-data]")


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def preflight(root: Path, version: str) -> str:
    """Refuse a release that cannot succeed, before anything is written; returns the current version."""
    try:
        new = Version(version)
    except InvalidVersion:
        raise ReleaseError(f"{version!r} is not a PEP 440 version (like 0.2.0 or 1.0.0rc1)") from None
    if str(new) != version:
        raise ReleaseError(f"write the version as {str(new)!r} (its normal form), not {version!r}")
    current = current_version(root)
    if new <= Version(current):
        raise ReleaseError(f"version {version} is not above the current one, {current}")
    if not (root / ".git").exists():
        raise ReleaseError(f"{root} is not a git checkout: a release is cut from this repository's checkout")
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no").strip()
    if dirty:
        raise ReleaseError(f"the checkout has uncommitted changes; commit or stash them first:\n{dirty}")
    if _git(root, "tag", "--list", f"v{version}").strip():
        raise ReleaseError(f"the tag v{version} already exists")
    if not unreleased_notes((root / "CHANGELOG.md").read_text()):
        raise ReleaseError(f'CHANGELOG.md\'s "{UNRELEASED}" section is empty: nothing to release')
    return current


def build(root: Path, out: Path, version: str) -> list[Path]:
    """The sdist and wheel of `root` in `out`, checked by twine and `check_wheel`."""
    if out.exists():
        stale = sorted(out.glob(f"fruit_envs-{version}*"))
        for path in stale:
            path.unlink()
    leftovers = [p for p in (root / "build", root / "fruit_envs.egg-info") if not p.exists()]
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(root)]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    for leftover in leftovers:  # only what the build made: an editable install's egg-info stays
        shutil.rmtree(leftover, ignore_errors=True)
    if done.returncode != 0:
        raise ReleaseError(f"building the sdist and wheel failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    built = sorted(out.glob(f"fruit_envs-{version}*"))
    wheels = [p for p in built if p.suffix == ".whl"]
    if len(wheels) != 1 or not any(p.name.endswith(".tar.gz") for p in built):
        raise ReleaseError(f"expected one sdist and one wheel of {version} in {out}, found {[p.name for p in built]}")
    twine = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, built)], capture_output=True, text=True
    )
    if twine.returncode != 0:
        raise ReleaseError(f"twine check failed:\n{twine.stdout}{twine.stderr}")
    check_wheel(wheels[0], version)
    return built


def release(root: Path, version: str, date: str | None = None, out: Path | None = None, tag: bool = True) -> list[Path]:
    """Every step of the module docstring; returns the built files."""
    root = root.resolve()
    current = preflight(root, version)
    date = date or dt.datetime.now(dt.timezone.utc).date().isoformat()
    init, changelog = root / "fruit_envs" / "__init__.py", root / "CHANGELOG.md"
    new_changelog = cut_changelog(changelog.read_text(), version, date, environment_table(), protocols(root))
    init.write_text(set_version(init.read_text(), version))
    changelog.write_text(new_changelog)
    try:
        built = build(root, out or root / "dist", version)
    except ReleaseError:
        _git(root, "checkout", "--", "fruit_envs/__init__.py", "CHANGELOG.md")  # back to where it started
        raise
    _git(root, "commit", "-q", "-m", f"Release {version}", "--", "fruit_envs/__init__.py", "CHANGELOG.md")
    if tag:
        _git(root, "tag", "-a", f"v{version}", "-m", f"fruit_envs {version} (was {current})")
    commit = _git(root, "rev-parse", "--short=7", "HEAD").strip()
    following = next_development(version)
    init.write_text(set_version(init.read_text(), following))
    changelog.write_text(name_commit(changelog.read_text(), version, commit))
    _git(root, "commit", "-q", "-m", f"Start {following}", "--", "fruit_envs/__init__.py", "CHANGELOG.md")
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="./dev release", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("version", help="the new version, PEP 440 (e.g. 0.2.0)")
    parser.add_argument("--date", default=None, help="the release date in the changelog (default: today, UTC)")
    parser.add_argument("--out", type=Path, default=None, help="where the sdist and wheel go (default: dist/)")
    parser.add_argument("--no-tag", action="store_true", help="commit the release but leave the tag to you")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        built = release(args.root, args.version, args.date, args.out, tag=not args.no_tag)
    except ReleaseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"released {args.version}: {', '.join(str(p) for p in built)} (twine check passed)")
    print(f"main now carries {next_development(args.version)}; the changelog names the release's commit")
    print(f"next: git push origin HEAD v{args.version}   and   python -m twine upload {' '.join(map(str, built))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
