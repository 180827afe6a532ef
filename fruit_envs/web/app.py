"""The web app's routes (Starlette, served by uvicorn): pages from the package's static folder, a JSON API.

    GET  /                          the start page            GET  /play/{game}/{seat token}   a seat's page
    GET  /replay                    the replay viewer         GET  /api/catalogue              games, agents
    POST /api/games                 start a game: {game, players, seed, options, seats: ["human", "greedy", ...]}
    GET  /api/games/{id}/{token}    that seat's snapshot      GET  .../picture.png             its picture
    POST /api/games/{id}/{token}/move {action}                POST .../advance                 an agent's move
    GET  /api/games/{id}/{token}/record.jsonl (once over)     GET  /api/replays, /api/replays/{id}
    GET  /api/replays/{id}/frame?step=&seat=                  GET  /api/replays/{id}/picture.png?step=&seat=
    POST /api/replays/{id}/branch {step, seat}: play on from that step in that seat against the recorded agents

A seat's routes answer only with that seat's view; a refused request is a 4xx with {"error": message} and
changes nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from fruit_envs.web.sessions import HUMAN, Games, Replays, WebError, WebGame, catalogue

STATIC = Path(__file__).resolve().parent / "static"


def create_app(records: list[str | Path] = (), idle: float = 3600.0, any_agent: bool = True) -> Starlette:
    """The app, with the games of the `records` files in its replay viewer; games idle `idle` s are dropped.
    `any_agent` False: pages may seat only the shipped agents (a server other machines can reach)."""
    games, replays = Games(idle), Replays(idle)
    for path in records:
        replays.add_file(path)

    def page(name: str):
        async def serve(request: Request) -> Response:
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})

        return serve

    async def api_catalogue(request: Request) -> Response:
        from fruit_envs.agents import AGENT_NAMES

        agents = [HUMAN, *(n.split("[")[0] for n in AGENT_NAMES)]
        return JSONResponse({"games": catalogue(), "agents": agents})

    async def start(request: Request) -> Response:
        body = await _body(request)
        game = await asyncio.to_thread(
            WebGame.start, body.get("game"), body.get("players"), body.get("seats"), body.get("seed", 0),
            body.get("options"), any_agent,
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
        body = await _body(request)
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

        return JSONResponse(await _locked(game, advanced))

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
        return JSONResponse({"replays": [e.summary() for e in replays.all() if e.source != "played here"]})

    async def replay_one(request: Request) -> Response:
        return JSONResponse(replays.get(request.path_params["replay"]).summary())

    async def replay_frame(request: Request) -> Response:
        entry = replays.get(request.path_params["replay"])
        step, seat = _step_and_seat(request)
        return JSONResponse(await asyncio.to_thread(entry.frame, step, seat))

    async def replay_picture(request: Request) -> Response:
        entry = replays.get(request.path_params["replay"])
        step, seat = _step_and_seat(request)
        png = await asyncio.to_thread(entry.picture, step, seat)
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})

    async def branch(request: Request) -> Response:
        entry = replays.get(request.path_params["replay"])
        body = await _body(request)
        game, notes = await asyncio.to_thread(WebGame.branch, entry, body.get("step"), body.get("seat"))
        games.add(game)
        seat = game.labels.index(HUMAN)
        return JSONResponse({"url": f"/play/{game.id}/{game.tokens[seat]}", "notes": notes})

    async def refused(request: Request, error: WebError) -> Response:
        return JSONResponse({"error": str(error)}, status_code=error.status)

    routes = [
        Route("/", page("index.html")),
        Route("/play/{game}/{token}", page("play.html")),
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
    app = Starlette(routes=routes, exception_handlers={WebError: refused})
    app.state.games, app.state.replays = games, replays
    return app


async def _locked(game: WebGame, fn, *args):
    """`fn(*args)` in a worker thread holding the game's lock: one request at a time changes or reads a game,
    and the server answers other requests meanwhile."""

    def run():
        with game.lock:
            return fn(*args)

    return await asyncio.to_thread(run)


async def _body(request: Request) -> dict:
    try:
        body = await request.json()
    except ValueError:
        raise WebError("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise WebError("the request body must be a JSON object")
    return body


def _step_and_seat(request: Request) -> tuple[int, int | None]:
    query = request.query_params
    try:
        step = int(query.get("step", "0"))
    except ValueError:
        raise WebError(f"step must be an integer, got {query.get('step')!r}") from None
    seat: Any = query.get("seat", "referee")
    if seat == "referee":
        return step, None
    try:
        return step, int(seat)
    except ValueError:
        raise WebError(f"seat must be 'referee' or a seat number, got {seat!r}") from None
