"""The web app's routes (Starlette, served by uvicorn): pages from the package's static folder, a JSON API.

    GET  /                          the start page            GET  /play/{game}/{seat token}   a seat's page
    GET  /replay                    the replay viewer         GET  /api/catalogue              games, agents
    GET  /hotseat/{game}#0.TOKEN,1.TOKEN   every person's seat on one page (hot seat)
    POST /api/games                 start a game: {game, players, seed, options, seats: ["human", "greedy", ...]}
    GET  /api/games/{id}/{token}    that seat's snapshot      GET  .../picture.png             its picture
    POST /api/games/{id}/{token}/move {action}                POST .../advance                 an agent's move
    GET  /api/games/{id}/{token}/record.jsonl (once over)     GET  /api/replays (files' games, games ended here)
    GET  /api/replays/{id}          one replay's summary
    GET  /api/replays/{id}/frame?step=&seat=                  GET  /api/replays/{id}/picture.png?step=&seat=
    POST /api/replays/{id}/branch {step, seat}: play on from that step in that seat against the recorded agents

The hot-seat page is the seat page driving each person's seat's routes in turn, with a cover page between two
people; the seats' tokens reach it in the address's fragment, which no request carries.

A seat's routes answer only with that seat's view; a refused request is a 4xx (503 when the server is full)
with {"error": message} and changes nothing. Every request passes `guard.Guard` first (its own host names,
its own origin, JSON bodies); a page opened with the launch key (`/?key=...`) keeps it as a cookie, and only
a request holding it may seat the user's own agents (a model file, a module), on loopback only. Agents think
on a pool of as many threads as the machine has cores, so a long search never holds up a cheap request.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from fruit_envs.agents.shipped import SEARCH_BUDGET, SHIPPED
from fruit_envs.core.threads import usable_cores
from fruit_envs.core.validate import quoted
from fruit_envs.web.guard import LOOPBACK_NAMES, Guard, LaunchKey, Refused, read_json
from fruit_envs.web.sessions import HUMAN, Games, Replays, Seating, WebError, WebGame, catalogue

STATIC = Path(__file__).resolve().parent / "static"
LOCK_POLL_S = 0.005  # how often a request waiting for a busy game looks again (it holds no thread meanwhile)
OWN_FORMS = ["ppo:PATH", "PATH.zip", "path/to/file.py:make", "package.module:make"]
REMOTE = (
    "this server, reachable from other machines, seats only the shipped agents; to play your own model or module, "
    "run fruit-envs-web on 127.0.0.1 (the default)"
)
NO_KEY = (
    "to seat your own model file or module, open the link fruit-envs-web printed at launch (it holds this "
    "server's key; without it pages seat only the shipped agents)"
)


def create_app(
    records: Iterable[str | Path] = (),
    idle: float = 3600.0,
    any_agent: bool = True,
    hosts: Iterable[str] | None = None,
    key: str | None = None,
    max_games: int = 100,
    budget: int = SEARCH_BUDGET,
) -> Starlette:
    """The app, with the games of the `records` files in its replay viewer; games idle `idle` s are dropped.

    `any_agent` True (a server on loopback): a request holding the launch key (`key`, made here if None, kept in
    `app.state.key`) may seat the user's own agents; False (a server other machines can reach): the shipped
    agents only, whatever it holds. `hosts`: the `Host` values answered (`name:port`, or a bare name for any
    port; default the loopback names). At most `max_games` games at once; a search a request or a record names
    spends at most `budget` rollout decisions per decision.
    """
    games, replays = Games(idle, max_games), Replays(idle, max_games, budget)
    for path in records:
        replays.add_file(path)
    launch = LaunchKey(key)
    pool = ThreadPoolExecutor(max_workers=usable_cores(), thread_name_prefix="fruit-envs-agents")  # agents think here

    def seating(request: Request) -> Seating:
        if not any_agent:
            return Seating(own=False, budget=budget, refusal=REMOTE)
        return Seating(own=launch.held_by(request), budget=budget, refusal=NO_KEY)

    def page(name: str):
        async def serve(request: Request) -> Response:
            given = request.query_params.get("key")
            if given is not None and any_agent:  # the launch link: its key becomes a cookie, out of the address bar
                if not launch.matches(given):
                    return PlainTextResponse(
                        "this link's key is not this server's (a new one is made at every launch): open the link "
                        "fruit-envs-web printed when it started",
                        403,
                    )
                rest = [(k, v) for k, v in request.query_params.multi_items() if k != "key"]
                response = RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""), 303)
                response.set_cookie(launch.cookie, launch.value, httponly=True, samesite="strict", path="/")
                return response
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})

        return serve

    async def api_catalogue(request: Request) -> Response:
        allowed = seating(request)
        agents = [HUMAN, *SHIPPED, *(OWN_FORMS if allowed.own else [])]
        if allowed.own:
            note = "This browser holds the launch key: a seat also takes your own " + ", ".join(OWN_FORMS) + "."
        else:
            note = f"Seats take {HUMAN} or a shipped agent; {allowed.refusal}."
        return JSONResponse({"games": catalogue(), "agents": agents, "own_agents": allowed.own, "note": note})

    async def start(request: Request) -> Response:
        body = await read_json(request)
        games.check_room()  # before any agent is built
        allowed = seating(request)
        game = await _run(
            pool, WebGame.start, body.get("game"), body.get("players"), body.get("seats"), body.get("seed", 0),
            body.get("options"), allowed,
        )  # fmt: skip
        games.add(game)
        seats = [
            {"seat": k, "label": label, "url": f"/play/{game.id}/{game.tokens[k]}"}
            for k, label in enumerate(game.labels)
            if label == HUMAN
        ]
        watch = f"/play/{game.id}/{game.tokens[0]}?watch=1" if not seats else None
        return JSONResponse({"id": game.id, "seats": seats, "watch": watch})

    def seat_route(handler):
        async def route(request: Request) -> Response:
            game = games.get(request.path_params["game"])
            seat = game.seat_of(request.path_params["token"])
            return await handler(request, game, seat)

        return route

    async def snapshot(request: Request, game: WebGame, seat: int) -> Response:
        return JSONResponse(await _locked(game, game.snapshot, seat))

    async def picture(request: Request, game: WebGame, seat: int) -> Response:
        state = await _locked(game, lambda: game.state)  # states are never changed in place: draw it unlocked
        png = await asyncio.to_thread(game.picture, seat, state)
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    async def move(request: Request, game: WebGame, seat: int) -> Response:
        body = await read_json(request)
        if "action" not in body:
            raise WebError('send {"action": N}, N one of your legal action ids')

        def moved() -> dict:
            game.move(seat, body["action"])
            _remember(game)
            return game.snapshot(seat)

        return JSONResponse(await _locked(game, moved))

    async def advance(request: Request, game: WebGame, seat: int) -> Response:
        def advanced() -> dict:
            game.advance()
            _remember(game)
            return game.snapshot(seat)

        return JSONResponse(await _locked(game, advanced, pool=pool))

    async def record(request: Request, game: WebGame, seat: int) -> Response:
        def written() -> str:
            if not game.done:
                raise WebError("the record is saved once the game is over (it shows every choice)", 409)
            return game.record().to_json() + "\n"

        text = await _locked(game, written)
        name = f"{game.spec.id}_{game.seed}.jsonl"
        return Response(text, media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})  # fmt: skip

    def _remember(game: WebGame) -> None:
        if game.done and game.replay_id is None:
            game.replay_id = replays.add_game(game).id

    async def replay_of_game(request: Request, game: WebGame, seat: int) -> Response:
        if game.replay_id is None:
            raise WebError("the replay opens once the game is over", 409)
        return JSONResponse({"replay": game.replay_id})

    async def replay_list(request: Request) -> Response:
        return JSONResponse({"replays": [e.summary() for e in replays.all()]})  # the files' games, those played here

    async def replay_one(request: Request) -> Response:
        return JSONResponse(replays.get(request.path_params["replay"]).summary())

    async def replay_frame(request: Request) -> Response:
        entry = replays.get(request.path_params["replay"])
        step, seat = _step_and_seat(request)
        return JSONResponse(await _run(pool, entry.frame, step, seat))  # its reasons may ask the recorded agent

    async def replay_picture(request: Request) -> Response:
        entry = replays.get(request.path_params["replay"])
        step, seat = _step_and_seat(request)
        png = await asyncio.to_thread(entry.picture, step, seat)
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})

    async def branch(request: Request) -> Response:
        entry = replays.get(request.path_params["replay"])
        body = await read_json(request)
        games.check_room()
        game, notes = await _run(pool, WebGame.branch, entry, body.get("step"), body.get("seat"), budget)
        games.add(game)
        seat = game.labels.index(HUMAN)
        return JSONResponse({"url": f"/play/{game.id}/{game.tokens[seat]}", "notes": notes})

    async def refused(request: Request, error: Exception) -> Response:
        return JSONResponse({"error": str(error)}, status_code=getattr(error, "status", 400))

    async def failed(request: Request, error: Exception) -> Response:
        return JSONResponse({"error": f"the server failed on this request ({type(error).__name__})"}, 500)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        try:
            yield
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    routes = [
        Route("/", page("index.html")),
        Route("/play/{game}/{token}", page("play.html")),
        Route("/hotseat/{game}", page("play.html")),  # every person's seat on one screen: the seats' tokens in its #
        Route("/replay", page("replay.html")),
        Route("/api/catalogue", api_catalogue),
        Route("/api/games", start, methods=["POST"]),
        Route("/api/games/{game}/{token}", seat_route(snapshot)),
        Route("/api/games/{game}/{token}/picture.png", seat_route(picture)),
        Route("/api/games/{game}/{token}/move", seat_route(move), methods=["POST"]),
        Route("/api/games/{game}/{token}/advance", seat_route(advance), methods=["POST"]),
        Route("/api/games/{game}/{token}/record.jsonl", seat_route(record)),
        Route("/api/games/{game}/{token}/replay", seat_route(replay_of_game)),
        Route("/api/replays", replay_list),
        Route("/api/replays/{replay}", replay_one),
        Route("/api/replays/{replay}/frame", replay_frame),
        Route("/api/replays/{replay}/picture.png", replay_picture),
        Route("/api/replays/{replay}/branch", branch, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, hosts=LOOPBACK_NAMES if hosts is None else hosts)],
        exception_handlers={WebError: refused, Refused: refused, Exception: failed},
        lifespan=lifespan,
    )
    app.state.games, app.state.replays, app.state.key, app.state.pool = games, replays, launch, pool
    return app


async def _run(pool: Executor, fn, *args) -> Any:
    """`fn(*args)` on `pool` (the agents' threads), awaited without holding the event loop."""
    return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)


async def _locked(game: WebGame, fn, *args, pool: Executor | None = None) -> Any:
    """`fn(*args)` in a worker thread (of `pool`, default the loop's own) while holding the game's lock: one
    request at a time changes or reads a game. A request waiting for the lock holds no thread, so a game whose
    agent thinks long holds up no other game's requests; the lock is let go when `fn` has returned, even where
    the request is abandoned meanwhile."""
    while not game.lock.acquire(blocking=False):
        await asyncio.sleep(LOCK_POLL_S)
    try:
        future = asyncio.get_running_loop().run_in_executor(pool, fn, *args)
    except BaseException:
        game.lock.release()
        raise
    future.add_done_callback(lambda _: game.lock.release())
    return await asyncio.shield(future)


def _step_and_seat(request: Request) -> tuple[int, int | None]:
    query = request.query_params
    try:
        step = int(query.get("step", "0"))
    except ValueError:
        raise WebError(f"step must be an integer, got {quoted(query.get('step'))}") from None
    seat: Any = query.get("seat", "referee")
    if seat == "referee":
        return step, None
    try:
        return step, int(seat)
    except ValueError:
        raise WebError(f"seat must be 'referee' or a seat number, got {quoted(seat)}") from None
