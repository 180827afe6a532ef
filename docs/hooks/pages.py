"""The site's generated pages: one per registered game, the home page and the changelog.

A game's page is rendered at build time from what `help(module)` shows (the game module's docstring),
its `GameSpec`, its rules' observation layout and action names, its components module (every
assumption), the CHANGELOG and the score tables kept on other pages, so the site and the code never
disagree. MkDocs runs this file as a hook (mkdocs.yml, `hooks:`); run as a script it redraws the
replays the pages show:

    python docs/hooks/pages.py replays   # docs/replays/<game>.jsonl and .gif, greedy self-play, seed 0
"""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
REPLAYS = DOCS / "replays"
REPLAY_SEED = 0
REPLAY_FRAMES = 40  # at most this many frames in a replay GIF: small files, a quick page
VIEWER_FRAMES = 16  # steps of each game page's replay viewer, each drawn from every perspective

# The rulebook sections each game's "Play" paragraph follows (the rulebooks are not redistributed here;
# tests/test_<game>_rules.py quote their sentences).
RULEBOOK_SECTIONS = {
    "cherry_picking": ["Set-up", "The Game", "Who harvests WHEN and WHERE?", "Points", "End of the Game"],
    "fruit_picking": [
        "Game Preparation",
        "Playing the Game",
        "End of the Game",
        "Rules for Experienced Players and Beginners",
    ],
    "quickity_pickity": ["Setup", "Let's Start Picking!", "How to Place Fruit", "Calculate Your Earnings"],
    "juicy_fruits": ["Setup", "Playing the Game", "End of the Game", "Juice Factory"],
    "juicy_fruits_solo": ["none: our own mode (the official solo rules are on a supplementary sheet we do not have)"],
}

# Where each rulebook can be read: the publisher's text as published online, recorded with the sources
# in ../shared/COMPONENTS.md (not checked from the build machine, which has no internet). A section link
# is a text fragment (`#:~:text=`): browsers that support it scroll to the heading, others open the top.
RULEBOOK_SOURCES = {
    "cherry_picking": (
        "the English rulebook (Zoch), at ludorium.at",
        "http://ludorium.at/SPIELE/zoch/cherry_picking_e1.htm",
    ),
    "fruit_picking": (
        "the English rulebook, at Scribd",
        "https://scribd.com/document/613572563/Fruit-Picking-Rules-en",
    ),
    "quickity_pickity": ("Oink Games' page of the game", "https://oinkgames.com/en/games/analog/quickity-pickity/"),
    "juicy_fruits": (
        "the English rulebook (Deep Print Games), at readkong.com",
        "https://readkong.com/page/a-game-by-christian-stohr-for-1-to-4-players-aged-10-and-6194134",
    ),
}


def rulebook_links(game_id: str) -> str:
    """The sentence naming the rulebook sections a game page follows, each linked to the published text."""
    sections = RULEBOOK_SECTIONS[game_id]
    if game_id not in RULEBOOK_SOURCES:
        return "Rulebook sections this follows: " + "; ".join(f"\u201c{name}\u201d" for name in sections) + "."
    where, url = RULEBOOK_SOURCES[game_id]
    links = "; ".join(
        f"[\u201c{name}\u201d]({url}#:~:text={quote(name, safe='').replace('-', '%2D')})" for name in sections
    )
    return f"Rulebook sections this follows, in [{where}]({url}): {links}."


# A variant without components of its own plays with those of its game.
COMPONENTS_OF = {"juicy_fruits_solo": "juicy_fruits"}

# Tables on other pages with a row per game: (page, the header's first cells, what the page calls it).
SCORE_TABLES = [
    ("search.md", "| game | default options |", "Search against greedy, two players"),
    ("tutorials/baselines.md", "| game | players | recipe", "The shipped PPO baselines against greedy, any count"),
    ("README.md", "| game | random | greedy |", "Tournament of the reference agents, two players"),
]


def registered() -> list:
    import fruit_envs  # noqa: F401  (registers the games)
    from fruit_envs.core.spec import registered_games

    return sorted(registered_games(), key=lambda spec: list(RULEBOOK_SECTIONS).index(spec.id))


def replay_players(spec) -> int:
    return 3 if 3 in spec.player_counts else spec.default_num_players


# --- the replays ---------------------------------------------------------------------------------


def record_replay(spec, path: Path) -> None:
    """One game of greedy agents in every seat, seed `REPLAY_SEED`, as a game record at `path`."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import play_match

    config = spec.make_config(num_players=replay_players(spec))
    agents = [make_agent("greedy", spec, config) for _ in range(config.num_players)]
    path.write_text("")
    play_match(spec, config, agents, 1, seed=REPLAY_SEED, record_to=str(path))


def write_replays(games: list[str] | None = None) -> None:
    """Each game's record, then its GIF drawn by our own replay command from that record."""
    from fruit_envs.core.record import read_records

    REPLAYS.mkdir(exist_ok=True)
    for spec in registered():
        if games and spec.id not in games:
            continue
        record = REPLAYS / f"{spec.id}.jsonl"
        record_replay(spec, record)
        (game,) = read_records(record)
        every = max(1, -(-len(game.actions) // REPLAY_FRAMES))
        gif = REPLAYS / f"{spec.id}.gif"
        command = [sys.executable, "-m", "fruit_envs.replay", str(record), "--index", "0", "--gif", str(gif)]
        command += ["--every", str(every), "--scale", "0.75", "--fps", "3"]
        subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        print(f"wrote {gif.relative_to(ROOT)} ({len(game.actions)} decisions, one frame every {every})")


# --- a game's page -------------------------------------------------------------------------------


def docstring_parts(doc: str) -> tuple[str, list[tuple[str, str]], list[tuple[str, str]]]:
    """The docstring's first line, its summary table as (key, value) rows, and its `**Heading.**` sections."""
    lines = doc.strip().splitlines()
    title, body = lines[0].strip(), "\n".join(lines[1:])
    table = re.search(r"^\| \| \|\n\|---\|---\|\n((?:\|.*\n?)+)", body, flags=re.M)
    rows = []
    if table:
        for line in table.group(1).strip().splitlines():
            key, value = [cell.strip() for cell in line.strip().strip("|").split("|", 1)]
            rows.append((key, value.strip().rstrip("|").strip()))
        body = body.replace(table.group(0), "")
    sections, intro = [], []
    for chunk in re.split(r"\n(?=\*\*[^*\n]+\*\*)", "\n" + body):
        heading = re.match(r"\*\*([^*\n]+?)\.?\*\*[.:]?\s*", chunk)
        if heading:
            sections.append((heading.group(1), chunk[heading.end() :].strip()))
        elif chunk.strip():
            intro.append(chunk.strip())
    if intro:
        sections.insert(0, ("In short", "\n\n".join(intro)))
    return title, rows, sections


def list_markdown(text: str) -> str:
    """Docstring prose as Markdown: a bullet list gets the blank line before it that Markdown needs."""
    return re.sub(r"([^\n])\n(\s*[*-] )", r"\1\n\n\2", text, count=1)


def assumptions(spec) -> str:
    """Every ASSUMED reading, as the game's components module lists them."""
    components = importlib.import_module(f"fruit_envs.games.{COMPONENTS_OF.get(spec.id, spec.id)}.components")
    doc = inspect.getdoc(components) or ""
    start = doc.find("Gaps this module fills")
    text = doc[start:] if start >= 0 else doc
    source = f"`{components.__name__}`"
    return f"From the docstring of {source}, where each constant is marked FOUND or ASSUMED:\n\n{list_markdown(text)}"


def option_rows(spec) -> list[str]:
    rows = ["| option | default | choices | what it does |", "|---|---|---|---|"]
    counts = ", ".join(map(str, spec.player_counts))
    rows.append(f"| `num_players` | `{spec.default_num_players}` | {counts} | seats at the table |")
    for name, field in spec.config_cls.options().items():
        choices = field.metadata.get("choices")
        shown = ", ".join(f"`{choice!r}`" for choice in choices) if choices is not None else "any"
        doc = field.metadata.get("doc", "").replace("|", "\\|") or "see above"
        rows.append(f"| `{name}` | `{field.default!r}` | {shown} | {doc} |")
    return rows


def observation_rows(spec, num_players: int) -> list[str]:
    layout = spec.rules.observation_layout(spec.make_config(num_players=num_players))
    rows = ["| block | entries | size |", "|---|---|---|"]
    for name, part in layout.items():
        rows.append(f"| `{name}` | {part.start}..{part.stop - 1} | {part.stop - part.start} |")
    return rows


def changelog_entries(spec) -> list[str]:
    """CHANGELOG bullets that name this game's environment versions, newest release first."""
    pattern = re.compile(rf"\b{spec.id}_v\d|fruit_envs/{spec.env_name}-v\d")
    entries, release = [], ""
    for block in re.split(r"\n(?=- |## )", (ROOT / "CHANGELOG.md").read_text()):
        if block.startswith("## "):
            release = block.splitlines()[0][3:].strip()
        elif block.startswith("- ") and pattern.search(block.split("\n  -")[0]):
            bullet = re.sub(r"\n### .*", "", block).rstrip()
            entries.append(f"{bullet}\n  *({release})*")
    return entries


def score_tables(spec) -> list[str]:
    """This game's rows of the score tables kept on other pages, under their headers."""
    out = []
    for page, header_start, what in SCORE_TABLES:
        path = ROOT / page if page == "README.md" else DOCS / page
        text = path.read_text()
        start = text.find(header_start)
        if start < 0:
            continue
        lines = text[start:].split("\n\n", 1)[0].splitlines()
        rows = [row for row in lines[2:] if row_game(row) == spec.name]
        if rows:
            link, name = ("index.md", "home page") if page == "README.md" else (page, page.removesuffix(".md"))
            out += [f"**{what}** (from [{name}](../{link})):", "", *lines[:2], *rows, ""]
    return out


def row_game(row: str) -> str:
    first = row.strip("|").split("|")[0].strip()
    return re.split(r" v\d| \(", first)[0].strip()


def game_page(spec) -> str:
    module = importlib.import_module(f"fruit_envs.{spec.pettingzoo_name}")
    title, rows, sections = docstring_parts(module.__doc__)
    config = spec.make_config()
    rules = spec.rules
    players = replay_players(spec)
    last = spec.num_actions - 1
    last_name = rules.action_to_string(config, last)
    values = ", ".join(f"`{a}` {rules.action_to_string(config, a)}" for a in (0, 1, 2) if a < last)
    shapes = ", ".join(f"{n}: `{spec.observation_shape(spec.make_config(num_players=n))}`" for n in spec.player_counts)
    layout = rules.observation_layout(config)
    reward_field = spec.config_cls.options()["reward"]
    info = [
        "hidden information" if spec.hidden_information else "full information",
        "chance" if spec.chance else "no chance",
        "simultaneous choices" if spec.simultaneous else "one decision at a time",
    ]
    official = ", ".join(map(str, spec.official_player_counts))
    generated = [
        ("PettingZoo id", f"`fruit_envs/{spec.pettingzoo_name.replace('_v', '-v')}` (AEC and parallel)"),
        ("Player counts", f"{', '.join(map(str, spec.player_counts))} (the rulebook's: {official})"),
        ("Action values", f"Discrete({spec.num_actions}): {values}, ... `{last}` {last_name}"),
        ("Observation shape", f"by player count: {shapes}"),
        ("Observation blocks", ", ".join(f"`{name}`" for name in layout) + " ([block by block](#observation-blocks))"),
        ("Rewards", ", ".join(f"`{choice}`" for choice in reward_field.metadata["choices"]) + " ([rewards](#rewards))"),
        ("Options", ", ".join(f"`{name}`" for name in spec.config_cls.options()) + " ([options](#options))"),
        ("Game", ", ".join(info)),
        ("Truncation", spec.truncation or "never: the rules always end the game"),
        ("Version", f"v{spec.version} ([version history](#version-history))"),
    ]
    lines = [f"# {spec.name}", "", f"*{title}*", ""]
    replay, picture = f"../replays/{spec.id}.gif", f"../pictures/{spec.id}.png"
    lines += [  # each as wide as the text column (docs/stylesheets/extra.css), a link to the file alone
        f"[![{spec.name}: a replay of one game]({replay}){{ .game-picture }}]({replay})",
        "",
        f"*Replay: greedy self-play, {players} player{'s' * (players > 1)}, seed {REPLAY_SEED}.*",
        "",
        f"[![{spec.name}: the table mid-game]({picture}){{ .game-picture }}]({picture})",
        "",
        "*Mid-game.*",
        "",
        f"The replay is drawn by `python -m fruit_envs.replay docs/replays/{spec.id}.jsonl --gif ...` from the "
        "game record beside it (`python docs/hooks/pages.py replays` redraws both); the picture by "
        "`python -m fruit_envs.pictures`.",
        "",
        "## Step through it, from any seat",
        "",
        f'<div class="replay-viewer" data-replay="{spec.id}" data-base="../replays/viewer/{spec.id}/"></div>',
        f'<script src="../replays/viewer/{spec.id}/replay.js"></script>',
        "",
        f"The same game, {VIEWER_FRAMES} of its steps: from the referee's view or any seat's, what that seat knew "
        f"then (`python -m fruit_envs.web.export docs/replays/{spec.id}.jsonl OUT` makes these files; "
        "`fruit-envs-web` opens any record in the full viewer, every step).",
        "",
        "## At a glance",
        "",
        "| | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in rows + generated),
        "",
        f"Everything on this page but the tables marked otherwise is `help(fruit_envs.{spec.pettingzoo_name})`, "
        "its `GameSpec`, its rules and its components, read when the site is built.",
        "",
    ]
    for heading, text in sections:
        if heading == "Play":
            heading = "Rules in brief"
            text += "\n\n" + rulebook_links(spec.id)
        if heading == "Version history":
            continue
        anchor = {"Rewards": " { #rewards }", "Options": " { #options }"}.get(heading, "")
        lines += [f"## {heading}{anchor}", "", list_markdown(text), ""]
    if "Rewards" not in dict(sections):
        lines += ["## Rewards { #rewards }", "", f"`reward` option: {reward_field.metadata.get('doc', '')}.", ""]
    if "Options" not in dict(sections):
        lines += ["## Options { #options }", "", *option_rows(spec), ""]
    else:
        lines += ["## Every option, with its default", "", *option_rows(spec), ""]
    lines += [f"## Observation blocks ({spec.default_num_players} players) {{ #observation-blocks }}", ""]
    lines += [f"`rules.observation_layout(config)`, shape `{spec.observation_shape(config)}`:", ""]
    lines += [*observation_rows(spec, spec.default_num_players), ""]
    lines += ["## Every assumption", "", assumptions(spec), ""]
    lines += ["## What search and the baselines score", "", *score_tables(spec)]
    history = dict(sections).get("Version history", "")
    lines += ["## Version history { #version-history }", "", history, "", "From the [changelog](../changelog.md):", ""]
    lines += changelog_entries(spec) or ["- first release"]
    return "\n".join(lines) + "\n"


# --- MkDocs hook ---------------------------------------------------------------------------------


def home_page() -> str:
    """The README, its links made relative to the site (a page under docs/ by its own name, a game's module by its
    page)."""
    text = (ROOT / "README.md").read_text()
    text = text.replace("](docs/", "](").replace("](CHANGELOG.md)", "](changelog.md)")
    for spec in registered():  # on GitHub a game links to its module, on the site to its page
        text = text.replace(f"](fruit_envs/{spec.pettingzoo_name}.py)", f"](games/{spec.id}.md)")
    return text


def leaderboard_page(folder: Path | None = None) -> str:
    """The leaderboard of protocol v1 from the repository's cards (`leaderboard/protocol_v1/`), each verified;
    every entry's words escaped. A folder that cannot be read gives a page saying why, not a failed build."""
    from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
    from fruit_envs.benchmarks.benchmark.leaderboard import (
        leaderboard_entries,
        leaderboard_markdown,
        leaderboard_table,
        text,
    )

    folder = ROOT / "leaderboard" / "protocol_v1" if folder is None else Path(folder)
    title = "# Leaderboard: protocol v1\n\n"
    try:
        listed = leaderboard_entries(folder)
        table = leaderboard_markdown(leaderboard_table(listed))
    except BenchmarkError as error:
        return title + f"The leaderboard could not be built from `leaderboard/protocol_v1/`: {text(error)}\n"
    return (
        title
        + f"{len(listed)} result cards from the repository's `leaderboard/protocol_v1/`, each checked by `verify` "
        "when this page was built: every number recomputed from the card's games, and every game replayed through "
        "the rules from its stored actions; what `verify` cannot check (the date, compute and code a card names, "
        "its exploitability bounds) is marked claimed. Aggregate: the mean "
        "normalised score over the suite's games and player counts (random = 0, the reference search = 100), "
        "with its 95% interval; per game: the mean of its player counts' normalised scores; joint rating: one "
        "Bradley-Terry fit over every card's games against the shared references (Elo scale, random = 0). "
        "[Benchmarking a policy](benchmark.md#the-leaderboard) explains the columns; "
        "[Submitting a result](contributing.md) says how to add one.\n\n" + table
    )


def on_files(files, config):
    from mkdocs.structure.files import File

    generated = {
        "index.md": home_page(),
        "changelog.md": (ROOT / "CHANGELOG.md").read_text(),
        "leaderboard.md": leaderboard_page(),
    }
    for spec in registered():
        generated[f"games/{spec.id}.md"] = game_page(spec)
    for spec in registered():  # each game page's replay viewer: pictures from every perspective, no server
        from fruit_envs.core.record import read_records
        from fruit_envs.web.export import frames_of, replay_script

        data, pictures = frames_of(read_records(REPLAYS / f"{spec.id}.jsonl")[0], frames=VIEWER_FRAMES)
        generated[f"replays/viewer/{spec.id}/replay.js"] = replay_script(spec.id, data)
        generated.update({f"replays/viewer/{spec.id}/{name}": png for name, png in pictures.items()})
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files


if __name__ == "__main__":
    if sys.argv[1:2] != ["replays"]:
        sys.exit(__doc__)
    write_replays(sys.argv[2:])
