"""Watch and play in the browser: `fruit-envs-web` (also `python -m fruit_envs.web`).

    fruit-envs-web                                  # prints its start link: http://127.0.0.1:8765/?key=...
    fruit-envs-web --game cherry_picking --against ppo-baseline   # straight into a game against it
    fruit-envs-web games.jsonl results/x/eval_games.jsonl   # their games in the replay viewer
    fruit-envs-web --port 9000 --host 0.0.0.0       # reachable from other machines (a warning says so)

The start page picks a game, a player count, options and a seed, and for each seat a person (`human`) or an
agent: the shipped ones (`random`, `greedy`, `search[:OPTIONS]`, `ppo-baseline[@N]`) always, and the user's
own (`ppo:PATH`, a model `.zip`, `package.module:make`, `path/to/file.py:make`) only from a browser that
opened the start link printed at launch, whose `?key=` is this launch's secret (kept as a cookie). Each
person's seat gets its own link (one browser tab per seat): the page shows that seat's view and picture,
exactly what the seat may know (`fruit_envs.core.picture.view`), and its legal actions by name, chosen by
click or by keyboard (digits, or arrows and Enter). With "hot seat", every person's seat plays on one
page in turn, a cover page between two people. Agents move after a short visible delay. At the end: the
scores, "save game" (the JSON-lines record `python -m fruit_envs.play --record` writes) and "watch the
replay". The replay viewer steps through any game record the project writes (`play --record`, `tournament
--record`, the benchmark's `failure.jsonl`, `eval_games.jsonl`) and the games finished here, with a
slider, play/pause, speed and arrow keys, from the referee's view or any seat's (what it knew then).

The server binds 127.0.0.1 unless `--host` says otherwise (then pages may seat only the shipped agents,
whatever they hold), answers only to its own host names (`--allow-host` adds one) and takes changes only
from its own pages. A record's labels never build anything but a shipped agent. Searches a page or record
names are held to `--search-budget` rollout decisions per decision, the server to `--max-games` games at
once. Pages and scripts come only from this package's `static/` folder, records only from the files named on
the command line; game and seat ids are random (`secrets`), and a game left alone for `--idle-minutes` is
dropped. Needs the `web` extra: `pip install 'fruit-envs[web,render]'`.
"""

from __future__ import annotations

import argparse
import math
import sys

from fruit_envs._cli import prog

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_IDLE_MINUTES = 525_600  # a year


def main(argv: list[str] | None = None) -> int:
    from fruit_envs.agents.shipped import SEARCH_BUDGET

    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.web"), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("records", nargs="*", help="game record files (.jsonl) to open in the replay viewer")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free port)")
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="another name this server answers to (a DNS name or proxy that reaches it; repeatable)",
    )  # fmt: skip
    parser.add_argument("--idle-minutes", type=float, default=60.0, help="drop a game left alone this long")
    parser.add_argument("--max-games", type=int, default=100, help="games held at once (default 100)")
    parser.add_argument(
        "--search-budget", type=int, default=SEARCH_BUDGET,
        help=f"rollout decisions per decision a search named by a page or a record may spend (default {SEARCH_BUDGET})",
    )  # fmt: skip
    parser.add_argument("--game", help="start a game of this at once, you in seat 0, and print (and open) its link")
    parser.add_argument("--players", type=int, default=None, help="with --game: the player count (its default)")
    parser.add_argument("--against", default="ppo-baseline", help="with --game: the agent in every other seat")
    parser.add_argument("--seed", type=int, default=0, help="with --game: the deal's seed (default 0)")
    parser.add_argument("--no-browser", action="store_true", help="print the link, do not open a browser")
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from fruit_envs.web.app import create_app
        from fruit_envs.web.guard import host_names
    except ImportError as error:
        return _error(f"the web app needs the web extra: pip install 'fruit-envs[web,render]' ({error})")
    problem = _settings_problem(args)
    if problem:
        return _error(problem)
    if args.port == 0:
        import socket

        with socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET) as probe:
            probe.bind((args.host, 0))  # a free port now, so the names and links below are right
            args.port = probe.getsockname()[1]
    local = args.host in LOOPBACK
    from fruit_envs.core.record import RecordError

    try:
        app = create_app(
            args.records, idle=args.idle_minutes * 60, any_agent=local,
            hosts=host_names(args.host, args.port, args.allow_host), max_games=args.max_games,
            budget=args.search_budget,
        )  # fmt: skip
    except (OSError, RecordError) as error:
        return _error(str(error))
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else host}:{args.port}"
    link = f"{url}/"
    if args.game is not None:
        from fruit_envs.core.spec import get_spec
        from fruit_envs.web.sessions import HUMAN, WebError, WebGame

        try:
            players = args.players if args.players is not None else get_spec(args.game).default_num_players
            game = WebGame.start(args.game, players, [HUMAN] + [args.against] * (players - 1), args.seed)
            app.state.games.add(game)
        except (WebError, KeyError, ValueError) as error:
            return _error(str(error).strip(chr(39)))
        link = f"{url}/play/{game.id}/{game.tokens[0]}"
    if local:
        link += f"?key={app.state.key.value}"  # this launch's secret: the browser keeps it as a cookie
    else:
        print(
            f"warning: listening on {args.host}: anyone who can reach this machine can open the app and its "
            "replays and start games against the shipped agents (random, greedy, search within "
            f"--search-budget, ppo-baseline); no page can seat a model file or a module, yours included",
            file=sys.stderr,
            flush=True,
        )
    print(f"fruit_envs web app on {url}/ (Ctrl-C stops it)\nopen: {link}", flush=True)
    if not args.no_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(link,)).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _settings_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line's numbers, or None."""
    if not 0 <= args.port < 65536:
        return f"--port must be in 0..65535, got {args.port}"
    if not (math.isfinite(args.idle_minutes) and 0 < args.idle_minutes <= MAX_IDLE_MINUTES):
        return f"--idle-minutes must be a number of minutes in (0, {MAX_IDLE_MINUTES}], got {args.idle_minutes}"
    if args.max_games < 1:
        return f"--max-games must be at least 1, got {args.max_games}"
    if args.search_budget < 1:
        return f"--search-budget must be at least 1 rollout decision, got {args.search_budget}"
    return None


def _error(message: str) -> int:
    """Print `message` as one line on stderr; the exit status of a refused command line."""
    print("error: " + " ".join(message.split()), file=sys.stderr)
    return 2
