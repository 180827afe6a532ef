"""Issue 54, point 8: a release as Python projects cut one, and the steps as one command (`./dev release`).

On 8a76e26 every change since the start sat under "Unreleased" and the package said 0.1.0; the
changelog's section for the installed version did not say which environment versions it serves.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import fruit_envs
from fruit_envs import _release
from fruit_envs.core.spec import registered_games

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()


def test_main_carries_a_development_version_after_its_last_release():
    """After a release main is the next development version (a build of main is never taken for the release);
    the release's section is dated, names its commit (the tag may not travel), and lists the environment
    versions and protocols it served."""
    from packaging.version import Version

    released = re.findall(r"^## (\d[^ ]*) \(", CHANGELOG, flags=re.M)[0]
    installed = Version(fruit_envs.__version__)
    assert installed.is_devrelease and installed > Version(released), f"main builds {installed}, not a dev version"
    assert fruit_envs.__version__ == _release.next_development(released)
    section = _release.released_section(CHANGELOG, released)
    commit = re.match(rf"## {re.escape(released)} \(\d{{4}}-\d\d-\d\d, commit ([0-9a-f]{{7,}})\)\n", section)
    assert commit, f"the {released} heading names no commit"
    if (ROOT / ".git").exists() and shutil.which("git"):
        subject = subprocess.run(["git", "log", "-1", "--format=%s", commit.group(1)], cwd=ROOT, capture_output=True,
                                 text=True).stdout.strip()  # fmt: skip
        assert subject == f"Release {released}"
    for spec in registered_games():
        assert f"`{spec.gym_id.rsplit('-v', 1)[0]}-v" in section
    assert "`protocol_v1`" in section


def test_the_changelog_has_one_unreleased_section_above_the_releases():
    headings = re.findall(r"^## (.+)$", CHANGELOG, flags=re.M)
    assert headings[0] == "Unreleased" and headings.count("Unreleased") == 1
    versions = [h.split(" ")[0] for h in headings[1:]]
    from packaging.version import Version

    assert versions == sorted(versions, key=Version, reverse=True), "newest release first"


def test_cut_changelog_moves_the_notes_under_the_new_version():
    text = "# Changelog\n\nintro\n\n## Unreleased\n\n- a change\n\n## 0.1.0\n\nfirst\n"
    cut = _release.cut_changelog(text, "0.2.0", "2026-12-07", "| t |", ["protocol_v1"])
    assert cut.startswith("# Changelog\n\nintro\n\n## Unreleased\n\n## 0.2.0 (2026-12-07)\n\n")
    assert "| t |\n\nBenchmark protocols: `protocol_v1`.\n\n- a change\n\n## 0.1.0\n\nfirst\n" in cut
    assert _release.unreleased_notes(cut) == ""
    with pytest.raises(_release.ReleaseError, match="section is empty: nothing to release"):
        _release.cut_changelog(cut, "0.3.0", "2026-12-08", "| t |", [])
    with pytest.raises(_release.ReleaseError, match="already has a section for 0.1.0"):
        _release.cut_changelog(text, "0.1.0", "2026-12-08", "| t |", [])


def test_set_version_writes_the_one_place():
    text = (ROOT / "fruit_envs" / "__init__.py").read_text()
    assert _release.current_version(ROOT) == fruit_envs.__version__
    assert '__version__ = "9.9.9"' in _release.set_version(text, "9.9.9")


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.fixture
def clone(tmp_path):
    """A clone of this checkout's last commit with an Unreleased note, to cut a release in."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    if not (_has("build") and _has("twine")):
        pytest.skip("build and twine come with the dev extra (./dev installs them)")
    path = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(path)], check=True)
    for key, value in (("user.name", "Release Test"), ("user.email", "release@example.invalid")):
        subprocess.run(["git", "config", key, value], cwd=path, check=True)
    changelog = path / "CHANGELOG.md"
    changelog.write_text(
        changelog.read_text().replace("## Unreleased\n", "## Unreleased\n\n- a change to release\n", 1)
    )
    subprocess.run(["git", "commit", "-qam", "a change"], cwd=path, check=True)
    return path


def git(path: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=path, capture_output=True, text=True, check=True).stdout


def test_release_is_one_command(clone, capsys):
    """Version, changelog section, sdist and wheel checked by twine, commit and annotated tag."""
    major, minor, *_ = fruit_envs.__version__.split(".")
    version = f"{major}.{int(minor) + 1}.0"
    assert _release.main([version, "--root", str(clone), "--date", "2027-01-02"]) == 0
    section = _release.released_section((clone / "CHANGELOG.md").read_text(), version)
    assert section.startswith(f"## {version} (2027-01-02, commit ") and "- a change to release" in section
    assert _release.environment_table() in section
    (wheel,) = (clone / "dist").glob(f"fruit_envs-{version}-*.whl")
    assert (clone / "dist" / f"fruit_envs-{version}.tar.gz").is_file()
    with zipfile.ZipFile(wheel) as archive:
        assert any(n.startswith("fruit_envs/agents/baselines/") for n in archive.namelist())
    following = _release.next_development(version)
    assert git(clone, "log", "-2", "--format=%s").split("\n")[:2] == [f"Start {following}", f"Release {version}"]
    assert _release.current_version(clone) == following, "main goes on as the next development version"
    released = git(clone, "rev-parse", "--short=7", "HEAD~1").strip()
    assert f"## {version} (2027-01-02, commit {released})" in (clone / "CHANGELOG.md").read_text()
    assert git(clone, "rev-parse", "--short=7", f"v{version}^{{commit}}").strip() == released
    assert git(clone, "tag", "--list", f"v{version}").strip() == f"v{version}"
    assert git(clone, "cat-file", "-t", f"v{version}").strip() == "tag", "an annotated tag"
    assert git(clone, "status", "--porcelain", "--untracked-files=no") == "", "nothing left uncommitted"
    assert "twine check passed" in capsys.readouterr().out
    # the same version again is refused before anything changes
    assert _release.main([version, "--root", str(clone)]) == 2
    assert "is not above the current one" in capsys.readouterr().err
    assert _release.next_development("1.2.3") == "1.3.0.dev0" and _release.next_development("2") == "2.1.0.dev0"


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("banana", r"'banana' is not a PEP 440 version"),
        ("0.0.1", r"version 0.0.1 is not above the current one"),
        ("v99.0", r"write the version as '99.0'"),
    ],
)
def test_a_release_that_cannot_succeed_is_refused_before_writing(clone, version, message, capsys):
    before = (clone / "CHANGELOG.md").read_text()
    assert _release.main([version, "--root", str(clone)]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert (clone / "CHANGELOG.md").read_text() == before and not (clone / "dist").exists()


def test_uncommitted_changes_refuse_a_release(clone, capsys):
    (clone / "README.md").write_text("changed\n")
    assert _release.main(["99.0.0", "--root", str(clone)]) == 2
    assert "uncommitted changes" in capsys.readouterr().err


def test_check_wheel_names_what_is_missing(tmp_path):
    wheel = tmp_path / "fruit_envs-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(
            "fruit_envs-9.9.9.dist-info/METADATA", "Metadata-Version: 2.4\nName: fruit_envs\nVersion: 9.9.9\n"
        )
        archive.writestr("fruit_envs/py.typed", "")
    with pytest.raises(_release.ReleaseError, match="lacks the shipped PPO baselines, .*the benchmark protocols"):
        _release.check_wheel(wheel, "9.9.9")
    with pytest.raises(_release.ReleaseError, match="says version '9.9.9', not '1.0'"):
        _release.check_wheel(wheel, "1.0")


def test_dev_has_the_release_job():
    dev = (ROOT / "dev").read_text()
    assert "./dev release X.Y.Z" in dev and "python -m fruit_envs._release" in dev
    assert "./dev release" in (ROOT / "docs" / "install.md").read_text()


def test_dev_setup_says_each_step_and_how_long_it_took():
    """`./dev setup` is not silent for minutes: each step is announced and timed, the kernels' compile included
    (set up already, as here, only the compile runs: seconds)."""
    venv = ROOT / ".venv"
    if not (venv / ".fruit_envs-installed").is_file() or Path(sys.prefix).resolve() != venv.resolve():
        pytest.skip("runs where ./dev set this environment up (.venv)")
    done = subprocess.run(["bash", str(ROOT / "dev"), "setup"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "compiling the rules' and agents' kernels (numba; about a minute the first time) ..." in done.stderr
    assert re.search(r"^    done in \d+ s$", done.stderr, flags=re.M), done.stderr
    dev = (ROOT / "dev").read_text()
    for step in ("upgrading pip", "installing a CPU build of torch", "installing this project and its extras"):
        assert f'step "{step}' in dev  # the steps of a first set-up are announced the same way
