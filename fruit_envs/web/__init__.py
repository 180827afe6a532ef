"""Watch and play in the browser: `fruit-envs-web` (also `python -m fruit_envs.web`).

    fruit-envs-web                                  # http://127.0.0.1:8765/ : start a game, or open a replay
    fruit-envs-web --game cherry_picking --against ppo-baseline   # straight into a game against it
    fruit-envs-web games.jsonl results/x/eval_games.jsonl   # their games in the replay viewer
    fruit-envs-web --port 9000 --host 0.0.0.0       # reachable from other machines (a warning says so)

The start page picks a game, a player count, options and a seed, and for each seat a person (`human`) or
any agent the project takes (`greedy`, `search`, `ppo-baseline`, `ppo:PATH`, `package.module:make`). Each
person's seat gets its own link (one browser tab per seat): the page shows that seat's view and picture,
exactly what the seat may know (`fruit_envs.core.picture.view`), and its legal actions by name, chosen by
click or by keyboard (digits, or arrows and Enter). Agents move after a short visible delay. At the end:
the scores, "save game" (the JSON-lines record `python -m fruit_envs.play --record` writes) and "watch
the replay". The replay viewer steps through any game record the project writes (`play --record`,
`tournament --record`, the benchmark's `failure.jsonl`, `eval_games.jsonl`) with a slider, play/pause,
speed and arrow keys, from the referee's view or any seat's (what it knew then).

The server binds 127.0.0.1 unless `--host` says otherwise (then pages may seat only the shipped agents, and
the viewer never builds anything but those from a record's labels). Pages and scripts come only from this package's
`static/` folder, records only from the files named on the command line; game and seat ids are random
(`secrets`), and a game left alone for `--idle-minutes` is dropped. Needs the `web` extra:
`pip install 'fruit-envs[web,render]'`.
"""

from __future__ import annotations

import argparse
import sys

from fruit_envs._cli import prog

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.web"), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("records", nargs="*", help="game record files (.jsonl) to open in the replay viewer")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free port)")
    parser.add_argument("--idle-minutes", type=float, default=60.0, help="drop a game left alone this long")
    parser.add_argument("--game", help="start a game of this at once, you in seat 0, and print (and open) its link")
    parser.add_argument("--players", type=int, default=None, help="with --game: the player count (its default)")
    parser.add_argument("--against", default="ppo-baseline", help="with --game: the agent in every other seat")
    parser.add_argument("--seed", type=int, default=0, help="with --game: the deal's seed (default 0)")
    parser.add_argument("--no-browser", action="store_true", help="print the link, do not open a browser")
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from fruit_envs.web.app import create_app
    except ImportError as error:
        print(
            f"error: the web app needs the web extra: pip install 'fruit-envs[web,render]' ({error})", file=sys.stderr
        )
        return 2
    if not 0 <= args.port < 65536:
        print(f"error: --port must be in 0..65535, got {args.port}", file=sys.stderr)
        return 2
    if args.idle_minutes <= 0:
        print(f"error: --idle-minutes must be positive, got {args.idle_minutes}", file=sys.stderr)
        return 2
    from fruit_envs.core.record import RecordError

    try:
        # reachable from other machines, pages may seat only the shipped agents (no one's file or module)
        app = create_app(args.records, idle=args.idle_minutes * 60, any_agent=args.host in LOOPBACK)
    except (OSError, RecordError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.port == 0:
        import socket

        with socket.socket() as probe:  # a free port now, so the links printed below are right
            probe.bind((args.host, 0))
            args.port = probe.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else host}:{args.port}"
    link = f"{url}/"
    if args.game is not None:
        from fruit_envs.core.spec import get_spec
        from fruit_envs.web.sessions import HUMAN, WebError, WebGame

        try:
            players = args.players if args.players is not None else get_spec(args.game).default_num_players
            game = WebGame.start(args.game, players, [HUMAN] + [args.against] * (players - 1), args.seed)
        except (WebError, KeyError, ValueError) as error:
            print(f"error: {str(error).strip(chr(39))}", file=sys.stderr)
            return 2
        app.state.games.add(game)
        link = f"{url}/play/{game.id}/{game.tokens[0]}"
    print(f"fruit_envs web app on {url}/ (Ctrl-C stops it)\nopen: {link}", flush=True)
    if not args.no_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(link,)).start()
    if args.host not in LOOPBACK:
        print(
            f"warning: listening on {args.host}: anyone who can reach this machine can open the app and its replays",
            file=sys.stderr,
        )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
