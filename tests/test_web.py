"""The browser app: a seat is sent its own view and nothing else, bad moves are refused with a clear 4xx and
change nothing, records open in the replay viewer from any perspective, and the pages work in a real browser
(headless Chromium, driven by Playwright as the documentation site's test does). What a request or a record
may not make the server do is in test_web_security.py."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs the web extra: pip install 'fruit-envs[web,render]'")

from starlette.testclient import TestClient  # noqa: E402

from fruit_envs.core import picture as fpicture  # noqa: E402
from fruit_envs.core import record as frecord  # noqa: E402
from fruit_envs.core import rng as frng  # noqa: E402
from fruit_envs.core.rules_api import action_names  # noqa: E402
from fruit_envs.core.spec import get_spec  # noqa: E402
from fruit_envs.web.app import create_app  # noqa: E402
from fruit_envs.web.sessions import Games, WebError, WebGame  # noqa: E402

SCREENSHOTS = Path(__file__).resolve().parents[1] / "site" / "_screenshots"  # beside the site's, for people
HIDDEN_GAMES = [("cherry_picking", 3), ("fruit_picking", 2), ("quickity_pickity", 2), ("juicy_fruits", 2)]


def local(app) -> TestClient:
    """A client for `app` as a browser on this machine reaches it (Host 127.0.0.1, one of its names)."""
    return TestClient(app, base_url="http://127.0.0.1:8765")


def started(client: TestClient, game: str, players: int, seats: list[str], seed: int = 3) -> dict:
    answer = client.post("/api/games", json={"game": game, "players": players, "seed": seed, "seats": seats})
    assert answer.status_code == 200, answer.text
    return answer.json()


def seat_path(url: str) -> str:
    return "/api" + url.replace("/play/", "/games/", 1)


@pytest.mark.parametrize("game,players", HIDDEN_GAMES)
def test_a_seat_is_sent_its_own_view_and_nothing_hidden(game, players):
    """An observation holds exactly what its seat may know. What a human seat is sent is its
    `view`, its picture and its legal actions; re-dealing what it cannot see changes none of it."""
    client = local(create_app())
    made = started(client, game, players, ["human"] * players)
    web = client.app.state.games.get(made["id"])
    gen = np.random.default_rng(0)
    for _ in range(12):  # some play first, so hands, piles and hidden tiles have moved
        seat = int(web.state.to_move[0])
        legal = np.flatnonzero(web.spec.rules.legal_mask(web.state, seat)[0])
        web.move(seat, int(gen.choice(legal)))
    for seat, link in enumerate(made["seats"]):
        sent = client.get(seat_path(link["url"])).json()
        assert sent["seat"] == seat and sent["view"] == json.loads(fpicture.dumps(fpicture.view(web.state, 0, seat)))
        picture = client.get(seat_path(link["url"]) + "/picture.png").content
        real = web.states[-1]
        web.states[-1] = web.spec.rules.redeal_hidden(real, seat, frng.keys_from_seed(11 + seat, 1))
        try:
            again = client.get(seat_path(link["url"])).json()
            assert again == sent, f"seat {seat} was sent something it cannot see"
            assert client.get(seat_path(link["url"]) + "/picture.png").content == picture
        finally:
            web.states[-1] = real


def test_a_game_against_an_agent_plays_to_the_end_and_saves_its_record():
    client = local(create_app())
    made = started(client, "cherry_picking", 2, ["human", "greedy"])
    path = seat_path(made["seats"][0]["url"])
    assert made["seats"][0]["seat"] == 0 and len(made["seats"]) == 1
    assert client.get(path + "/record.jsonl").status_code == 409, "no record before the end: it shows every choice"
    for _ in range(500):
        shown = client.get(path).json()
        if shown["done"]:
            break
        if shown["waiting_for_agent"]:
            shown = client.post(path + "/advance", json={}).json()
        elif shown["your_turn"]:
            assert shown["legal"] and all(set(a) == {"action", "name"} for a in shown["legal"])
            client.post(path + "/move", json={"action": shown["legal"][-1]["action"]}).raise_for_status()
    assert shown["done"] and shown["outcome"]["scores"] and shown["told"]
    text = client.get(path + "/record.jsonl").text
    record = frecord.GameRecord.from_dict(json.loads(text))
    assert record.players == ["human", "greedy"] and record.meta["human_seats"] == [0]
    assert frecord.replay(record).outcome == record.outcome  # the same record `play --record` writes
    replay_id = client.get(path + "/replay").json()["replay"]
    assert client.get(f"/api/replays/{replay_id}").json()["steps"] == len(record.actions)


def test_bad_moves_get_a_clear_4xx_and_change_nothing():
    client = local(create_app())
    made = started(client, "cherry_picking", 2, ["human", "human"])
    first, second = (seat_path(s["url"]) for s in made["seats"])
    before = client.get(first).json()
    legal = {a["action"] for a in before["legal"]}
    illegal = next(a for a in range(get_spec("cherry_picking").num_actions) if a not in legal)
    cases = [
        (first, {"action": illegal}, 400, "not legal now; legal:"),
        (first, {"action": "3"}, 400, "must be an integer"),
        (first, {"action": True}, 400, "must be an integer"),
        (first, {}, 400, 'send {"action": N}'),
        (first, [1, 2], 400, "JSON object"),
        (second, {"action": 0}, 409, "not your turn"),
    ]
    for path, body, status, message in cases:
        answer = client.post(path + "/move", json=body)
        assert answer.status_code == status and message in answer.json()["error"], (body, answer.text)
    answer = client.post(first + "/move", content=b"{not json", headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "JSON object" in answer.json()["error"]
    assert client.get(first).json() == before, "a refused move changed the game"
    assert client.get(f"/api/games/{made['id']}/not-a-token").status_code == 404
    assert client.get(f"/api/games/nothing/{'x' * 22}").status_code == 404
    for body, message in [
        ({"game": "chess", "players": 2, "seats": ["human", "human"]}, "chess"),
        ({"game": "cherry_picking", "players": 9, "seats": ["human"] * 9}, "num_players"),
        ({"game": "cherry_picking", "players": 2, "seats": ["human"]}, "seats must list 2"),
        ({"game": "cherry_picking", "players": 2, "seats": ["human", "nobody"]}, "seat 1: 'nobody' is not a shipped"),
        ({"game": "cherry_picking", "players": 2, "seats": ["human", "greedy"], "seed": -1}, "seed"),
        ({"game": "cherry_picking", "players": 2, "seats": ["human", "greedy"], "options": {"x": 1}}, "x"),
    ]:
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 400 and message in answer.json()["error"], (body, answer.text)


def test_ids_are_unguessable_and_an_abandoned_game_is_dropped():
    games = Games(idle=0.05)
    game = games.add(WebGame.start("cherry_picking", 2, ["human", "greedy"], 1))
    assert len(game.id) >= 20 and len(set(game.tokens)) == 2 and all(len(t) >= 20 for t in game.tokens)
    assert games.get(game.id) is game
    time.sleep(0.1)
    with pytest.raises(WebError, match="no such game") as error:
        games.get(game.id)
    assert error.value.status == 404 and len(games) == 0


def test_only_the_package_static_folder_is_served():
    client = local(create_app())
    assert client.get("/static/web.js").status_code == 200
    for path in ("/static/../sessions.py", "/static/%2e%2e/app.py", "/static/../../core/spec.py"):
        assert client.get(path).status_code == 404, path


@pytest.fixture
def records(tmp_path):
    """Two recorded games of three-player Cherry Picking, as `tournament --record` writes them."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import play_games

    spec = get_spec("cherry_picking")
    config = spec.make_config(3)
    agents = [make_agent("greedy", spec, config), make_agent("random", spec, config)]
    path = tmp_path / "games.jsonl"
    play_games(spec, config, agents, np.array([[0, 1, 1], [1, 0, 1]]), seed=4, record_to=path)
    return path


def test_the_viewer_sends_pythons_view_for_the_chosen_seat_at_every_step(records):
    client = local(create_app([records]))
    listed = client.get("/api/replays").json()["replays"][0]
    states = client.app.state.replays.get(listed["id"]).replay.states
    for t, state in enumerate(states):
        for seat in (None, 0, 1, 2):
            query = f"step={t}&seat={'referee' if seat is None else seat}"
            frame = client.get(f"/api/replays/{listed['id']}/frame?{query}").json()
            assert frame["view"] == json.loads(fpicture.dumps(fpicture.view(state, 0, seat))), (t, seat)
            assert frame["text"] == fpicture.text(state, 0, seat, labels=["greedy", "random", "random"])


def test_the_replay_viewer_shows_each_seat_what_it_knew_then(records):
    client = local(create_app([records]))
    listed = client.get("/api/replays").json()["replays"]
    assert [r["index"] for r in listed] == [0, 1] and listed[0]["source"] == "games.jsonl"
    entry = client.app.state.replays.get(listed[0]["id"])
    t = listed[0]["steps"] // 2
    for seat in (None, 0, 1, 2):
        query = f"step={t}&seat={'referee' if seat is None else seat}"
        frame = client.get(f"/api/replays/{listed[0]['id']}/frame?{query}").json()
        assert frame["view"] == json.loads(fpicture.dumps(fpicture.view(entry.replay.states[t], 0, seat)))
        assert frame["caption"]
        png = client.get(f"/api/replays/{listed[0]['id']}/picture.png?{query}")
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    views = {s: client.get(f"/api/replays/{listed[0]['id']}/frame?step={t}&seat={s}").json()["text"] for s in "012"}
    assert len(set(views.values())) == 3, "each seat sees its own hand"
    for query, message in [("step=-1", "step must be"), ("step=x", "integer"), ("step=1&seat=7", "seat must be")]:
        answer = client.get(f"/api/replays/{listed[0]['id']}/frame?{query}")
        assert answer.status_code == 400 and message in answer.json()["error"]
    assert client.get("/api/replays/unknown").status_code == 404


def test_play_from_here_takes_over_a_seat_at_any_step_against_the_recorded_agents(records):
    client = local(create_app([records]))
    listed = client.get("/api/replays").json()["replays"][0]
    entry = client.app.state.replays.get(listed["id"])
    step = 10
    made = client.post(f"/api/replays/{listed['id']}/branch", json={"step": step, "seat": 1})
    assert made.status_code == 200 and made.json()["notes"] == []
    path = seat_path(made.json()["url"])
    game = client.app.state.games.get(path.split("/")[3])
    assert game.labels == ["greedy", "human", "random"] and game.actions == entry.replay.record.actions[:step]
    assert game.state.equals(entry.replay.states[step]), "the position at that step, exactly"
    shown = client.get(path).json()
    assert shown["seat"] == 1 and shown["step"] == step
    for body, message in [({"step": 10, "seat": 5}, "seat must be"), ({"step": 10**6, "seat": 0}, "step must be")]:
        answer = client.post(f"/api/replays/{listed['id']}/branch", json=body)
        assert answer.status_code == 400 and message in answer.json()["error"]
    last = client.post(f"/api/replays/{listed['id']}/branch", json={"step": listed["steps"], "seat": 0})
    assert last.status_code == 400 and "over" in last.json()["error"]


def test_the_viewer_shows_each_decisions_reasons_to_the_referee_and_the_mover_only(tmp_path):
    """A PPO policy's probabilities and value, search's action values, greedy's scores; never from another
    seat's perspective (they read what only the mover knows)."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import play_games

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    labels = ["ppo-baseline", "search:rollouts=4,depth=2"]
    path = tmp_path / "ppo_search.jsonl"
    agents = [make_agent(name, spec, config) for name in labels]
    play_games(spec, config, agents, np.array([[0, 1]]), seed=2, record_to=path, labels=labels)
    client = local(create_app([path]))
    listed = client.get("/api/replays").json()["replays"][0]
    seats = client.app.state.replays.get(listed["id"]).replay.seats
    kinds = {}
    for t in range(0, 12):
        mover = seats[t]
        frames = {
            s: client.get(f"/api/replays/{listed['id']}/frame?step={t}&seat={s}").json() for s in ("referee", 0, 1)
        }
        decision = frames["referee"]["decision"]
        assert decision["seat"] == mover and frames[mover]["decision"] == decision
        assert frames[1 - mover]["decision"] is None, "another seat must not see the mover's reasons"
        kinds[decision["kind"]] = decision
    ppo, search = kinds["probability"], kinds["rollout value"]
    assert abs(sum(a["number"] for a in ppo["actions"]) - 1) < 1e-3 and isinstance(ppo["value"], float)
    assert [a["number"] for a in ppo["actions"]] == sorted((a["number"] for a in ppo["actions"]), reverse=True)
    assert search["value"] is None and any(a["number"] is not None for a in search["actions"])
    end = client.get(f"/api/replays/{listed['id']}/frame?step={listed['steps']}&seat=referee").json()
    assert end["decision"] is None, "no decision after the last"


def test_the_command_line_refuses_bad_input_clearly(tmp_path, capsys):
    from fruit_envs.web import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main([str(bad)]) == 2 and "bad.jsonl" in capsys.readouterr().err
    assert main(["--port", "70000"]) == 2 and "--port" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.jsonl")]) == 2 and "missing.jsonl" in capsys.readouterr().err


# --- a real browser ------------------------------------------------------------------------------


@pytest.fixture
def server(records):
    """The app on 127.0.0.1, a free port, in a thread; stopped after the test."""
    with serving(create_app([records])) as url:
        yield url


@contextlib.contextmanager
def serving(app):
    import socket

    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    running = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    for _ in range(200):
        if running.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def chromium(bypass_csp: bool):
    """A headless Chromium page (Debian's, as the documentation site's test uses) and the problems it reports:
    console errors, page errors, failed requests. Missing tools skip here and fail in CI. `bypass_csp`: the
    test's own `wait_for_function` scripts may run (the pages' policy forbids evaluating strings)."""
    import os
    import shutil

    def missing(what: str) -> None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{what} (CI must run the browser test: ./dev setup installs what it needs)")
        pytest.skip(what)

    found = [shutil.which(n) for n in (os.environ.get("FRUIT_ENVS_CHROMIUM"), "chromium", "chromium-browser") if n]
    if not any(found):
        missing("no Chromium: apt-get install chromium, or set FRUIT_ENVS_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed: pip install -e '.[docs]'")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=next(f for f in found if f), args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=bypass_csp)
        problems: list[str] = []
        tab.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        tab.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        # a picture replaced by the next step's before it loaded, or a page left, is aborted: not a fault
        tab.on(
            "requestfailed",
            lambda r: (
                None if "ERR_ABORTED" in str(r.failure) else problems.append(f"request failed: {r.url} {r.failure}")
            ),
        )
        yield tab, problems
        browser.close()


@pytest.fixture
def page():
    with chromium(bypass_csp=True) as found:
        yield found


@pytest.fixture
def strict_page():
    with chromium(bypass_csp=False) as found:
        yield found


def test_the_pages_run_under_their_security_policy_and_the_launch_link_leaves_a_cookie(records, strict_page):
    """The pages work under their Content-Security-Policy (no inline script, no eval); the start link's key
    becomes an HttpOnly, SameSite=Strict cookie and leaves the address bar, and the start page then offers the
    user's own agents."""
    page, problems = strict_page
    app = create_app([records])
    with serving(app) as url:
        page.goto(url + "/")
        page.wait_for_selector("#game option", state="attached")
        assert "open the link fruit-envs-web printed at launch" in page.text_content("#agents-note")
        page.goto(f"{url}/?key={app.state.key.value}")
        assert page.url == url + "/", "the key left the address bar"
        page.wait_for_selector("#game option", state="attached")
        assert "holds the launch key" in page.text_content("#agents-note")
        (cookie,) = page.context.cookies()
        assert cookie["value"] == app.state.key.value and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        page.goto(url + "/replay")
        page.wait_for_selector("#stepinfo:has-text('step 0')")
    assert not problems, "\n".join(problems)


def test_a_person_plays_a_game_and_watches_its_replay_in_chromium(server, page):
    page, problems = page
    page.goto(server + "/")
    page.select_option("#game", "cherry_picking")
    page.select_option("#players", "2")
    page.fill("#seed", "5")
    page.fill("input[name=seat1]", "greedy")
    page.click("#go")
    page.wait_for_url("**/play/**")
    page.goto(page.url + "?delay=0")
    for _ in range(400):
        page.wait_for_function(
            "document.querySelector('#actions button') || !document.querySelector('#end').hidden", timeout=15000
        )
        if page.is_visible("#end"):
            break
        page.keyboard.press("1")  # the first legal action, by keyboard
        page.wait_for_timeout(30)
    assert page.is_visible("#end") and "·" in page.text_content("#result")
    page.wait_for_function(
        "document.querySelector('#picture').complete && document.querySelector('#picture').naturalWidth > 0"
    )
    page.click("#watch")
    page.wait_for_url("**/replay#*")
    page.wait_for_function("document.querySelector('#stepinfo').textContent.startsWith('step 0')")
    page.select_option("#perspective", "1")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('#stepinfo').textContent.startsWith('step 1')")
    page.wait_for_function(
        "document.querySelector('#picture').complete && document.querySelector('#picture').naturalWidth > 0"
    )
    assert "seat 1" in page.text_content("#perspective")
    page.select_option("#takeover", "0")  # play from here: step 1, seat 0 again, greedy still in seat 1
    page.click("#branch")
    page.wait_for_url("**/play/**")
    page.wait_for_function("document.querySelector('#actions button') || document.querySelector('#status').textContent")
    page.goto(server + "/replay")
    page.wait_for_function("document.querySelector('#which').options.length >= 2")
    assert not problems, "\n".join(problems)


def test_a_replay_exports_to_static_files_for_every_perspective(records, tmp_path, capsys):
    from fruit_envs.web import export

    out = export.export(records, tmp_path / "game", index=1, frames=4)
    script = (out / "replay.js").read_text()
    data = json.loads(script.split(" = ", 2)[-1].rstrip(";\n"))
    assert script.startswith("window.FRUIT_REPLAYS") and data["perspectives"] == ["referee", "0", "1", "2"]
    assert data["steps"][0] == 0 and data["steps"][-1] == data["last"] and len(data["steps"]) == 4
    for view in data["perspectives"]:
        assert all((out / name).read_bytes().startswith(b"\x89PNG") for name in data["pictures"][view])
        assert len(data["captions"][view]) == 4
    assert export.main([str(records), str(tmp_path / "x"), "--index", "5"]) == 2
    assert "--index must be in 0..1" in capsys.readouterr().err


GAMES_VS_GREEDY = [("cherry_picking", 2), ("fruit_picking", 2), ("quickity_pickity", 2), ("juicy_fruits", 2)]
GAMES_VS_GREEDY += [("juicy_fruits_solo", 1)]  # the score attack: the person alone


@pytest.mark.parametrize("game,players", GAMES_VS_GREEDY, ids=[g for g, _ in GAMES_VS_GREEDY])
def test_a_person_plays_a_whole_game_against_greedy_by_clicking(server, page, game, players):
    """Every game in Chromium: the seat's page shows a picture and its legal actions, a click on one plays it,
    greedy answers, and the game ends with the scores and a record to save."""
    import httpx
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page, problems = page
    seats = ["human", *["greedy"] * (players - 1)]
    made = httpx.post(f"{server}/api/games", json={"game": game, "players": players, "seats": seats, "seed": 7})
    page.goto(server + made.json()["seats"][0]["url"] + "?delay=0")
    clicks = 0
    for _ in range(2000):
        page.wait_for_function(
            "document.querySelector('#actions button') || !document.querySelector('#end').hidden", timeout=20000
        )
        if page.is_visible("#end"):
            break
        buttons = page.locator("#actions button")
        count = buttons.count()
        if count == 0:  # redrawn between the wait and now: look again
            continue
        try:  # not always the first: other moves get played too
            buttons.nth(clicks % count).click(timeout=3000)
        except PlaywrightTimeout:  # the button went with a redraw: look again
            continue
        clicks += 1
    assert page.is_visible("#end") and clicks > 0, f"{game}: the game did not end"
    assert "·" in page.text_content("#result") and page.get_attribute("#save", "href").endswith("record.jsonl")
    page.wait_for_function(
        "document.querySelector('#picture').complete && document.querySelector('#picture').naturalWidth > 0"
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"web_{game}.png"))
    assert not problems, "\n".join(problems)


def test_fifty_games_at_once_through_the_api_on_loopback():
    """A bounded load test: 50 games played at the same time by a script (a person's seat against greedy,
    Cherry Picking), no error; once they end and are dropped, the server holds none of them."""
    import concurrent.futures
    import gc

    import httpx

    from fruit_envs.web.sessions import ReplayEntry

    def alive() -> int:
        gc.collect()
        return sum(type(o) in (WebGame, ReplayEntry) for o in gc.get_objects())

    app, baseline = create_app(), alive()

    def one(k: int) -> int:
        with httpx.Client(base_url=server, timeout=60) as client:
            made = client.post(
                "/api/games", json={"game": "cherry_picking", "players": 2, "seats": ["human", "greedy"], "seed": k}
            )
            made.raise_for_status()
            path = "/api" + made.json()["seats"][0]["url"].replace("/play/", "/games/", 1)
            shown = client.get(path).json()
            for _ in range(1000):
                if shown["done"]:
                    return shown["step"]
                if shown["waiting_for_agent"]:
                    answer = client.post(path + "/advance", json={})
                else:
                    answer = client.post(
                        path + "/move", json={"action": shown["legal"][k % len(shown["legal"])]["action"]}
                    )
                answer.raise_for_status()
                shown = answer.json()  # a move's answer is the seat's new snapshot
        raise AssertionError(f"game {k} did not end")

    with serving(app) as server, concurrent.futures.ThreadPoolExecutor(50) as pool:
        steps = list(pool.map(one, range(50)))
        assert len(steps) == 50 and min(steps) > 0
        app.state.games.idle = app.state.replays.idle = 0.5  # a short idle time now that every game is over
        time.sleep(1.0)  # past it: finished and abandoned games go, with their replays
        assert httpx.get(server + "/api/replays").status_code == 200
        assert len(app.state.games) == 0 and len(app.state.replays.all()) == 0
    assert alive() == baseline, "every game and replay of the load test was freed"


def test_one_command_starts_the_server_with_a_game_against_an_agent(tmp_path):
    """The README's command: `fruit-envs-web --game G --against AGENT` prints the seat's link on loopback."""
    import subprocess
    import sys

    import httpx

    from fruit_envs.web import main

    assert main(["--game", "chess", "--no-browser"]) == 2
    command = [sys.executable, "-m", "fruit_envs.web", "--game", "cherry_picking", "--against", "greedy"]
    server = subprocess.Popen(
        [*command, "--port", "0", "--no-browser"], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        lines = [server.stdout.readline() for _ in range(2)]
        link = lines[1].removeprefix("open: ").strip()
        assert link.startswith("http://127.0.0.1:") and "/play/" in link, lines
        api = link.replace("/play/", "/api/games/", 1)
        for _ in range(100):
            try:
                shown = httpx.get(api).json()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert shown["labels"] == ["human", "greedy"] and shown["seat"] == 0
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_a_saved_web_game_keeps_why_each_agent_moved_and_the_viewer_shows_it_as_decided():
    client = local(create_app())
    made = started(client, "cherry_picking", 2, ["human", "search:rollouts=4,depth=2"])
    path = seat_path(made["seats"][0]["url"])
    for _ in range(600):
        shown = client.get(path).json()
        if shown["done"]:
            break
        if shown["waiting_for_agent"]:
            client.post(path + "/advance", json={})
        else:
            client.post(path + "/move", json={"action": shown["legal"][0]["action"]})
    record = frecord.GameRecord.from_dict(json.loads(client.get(path + "/record.jsonl").text))
    game = client.app.state.games.get(made["id"])
    assert len(record.decisions) == len(record.actions)
    for t, (seat, item) in enumerate(zip(game.seats, record.decisions, strict=True)):
        assert (item is None) == (seat == 0), t  # the person says nothing; search gives its values
        if item is not None:
            assert item["kind"] == "rollout value" and record.actions[t] in [a for a, _ in item["actions"]]
    replay_id = client.get(path + "/replay").json()["replay"]
    t = next(t for t, seat in enumerate(game.seats) if seat == 1 and record.decisions[t]["actions"][0][1] is not None)
    shown = client.get(f"/api/replays/{replay_id}/frame?step={t}&seat=referee").json()["decision"]
    assert (
        shown["recorded"] and [[a["action"], a["number"]] for a in shown["actions"]] == record.decisions[t]["actions"]
    )


def test_only_shipped_agents_are_built_from_a_record_or_for_a_reachable_server(tmp_path):
    """A record may come from anywhere, and a server on another interface takes requests from anyone: neither
    makes the app load a model file or import a module (here `os:getcwd`, a callable that would run)."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import play_games

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    path = tmp_path / "labels.jsonl"
    agents = [make_agent("greedy", spec, config), make_agent("random", spec, config)]
    play_games(spec, config, agents, np.array([[0, 1]]), seed=1, record_to=path, labels=["os:getcwd", "random"])
    client = local(create_app([path]))
    listed = client.get("/api/replays").json()["replays"][0]
    seats = client.app.state.replays.get(listed["id"]).replay.seats
    t = seats.index(0)
    assert client.get(f"/api/replays/{listed['id']}/frame?step={t}&seat=referee").json()["decision"] is None
    made = client.post(f"/api/replays/{listed['id']}/branch", json={"step": 2, "seat": 1}).json()
    assert made["notes"] == ["seat 0 (os:getcwd) is not a shipped agent: greedy plays it"]
    reachable = local(create_app(any_agent=False))
    for seat, allowed in [("search:rollouts=4,depth=2", True), ("ppo-baseline@1", True), ("ppo:model.zip", False)]:
        answer = reachable.post("/api/games", json={"game": "cherry_picking", "players": 2, "seats": ["human", seat]})
        assert (answer.status_code == 200) == allowed, (seat, answer.text)
        if not allowed:
            assert "only the shipped agents" in answer.json()["error"]


def test_an_agent_whose_scores_mean_something_else_still_plays():
    """`explain` is an extra: an agent with a `scores` attribute that is not ours gives no reasons, and plays."""
    from fruit_envs.agents.base import explain

    class Odd:
        scores = [1, 2, 3]  # not a method

        def act(self, obs, mask, rng):
            return np.argmax(mask, axis=1)

    spec = get_spec("cherry_picking")
    state = spec.rules.init(spec.make_config(2), frng.keys_from_seed(0, 1))
    assert explain(Odd(), state, 0) is None


# --- the replay list, what a seat was told, hot seat, the viewer's speed ----------------------------------------


def recorded(path: Path, game: str, players: int, labels: list[str] | None = None, seed: int = 1) -> Path:
    """One game of `game` with greedy in every seat, recorded to `path` with the seats labelled `labels`."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import play_games

    spec = get_spec(game)
    config = spec.make_config(players)
    agents = [make_agent("greedy", spec, config)] * players
    play_games(spec, config, agents, np.arange(players)[None], seed=seed, record_to=path, labels=labels)
    return path


def played_through(client: TestClient, path: str, pick=lambda legal: legal[0]) -> dict:
    """Play a seat's game to its end through the API (its agents asked to move); its last snapshot."""
    shown = client.get(path).json()
    for _ in range(5000):
        if shown["done"]:
            return shown
        if shown["waiting_for_agent"]:
            shown = client.post(path + "/advance", json={}).json()
        else:
            shown = client.post(path + "/move", json={"action": pick(shown["legal"])["action"]}).json()
    raise AssertionError("the game did not end")


def test_games_finished_here_are_listed_in_the_viewer_numbered_in_the_order_they_ended(records):
    client = local(create_app([records]))
    for seed in (1, 2):
        made = started(client, "cherry_picking", 2, ["human", "greedy"], seed=seed)
        played_through(client, seat_path(made["seats"][0]["url"]))
    listed = client.get("/api/replays").json()["replays"]
    assert [(r["source"], r["index"]) for r in listed] == [
        ("games.jsonl", 0), ("games.jsonl", 1), ("played here", 1), ("played here", 2),
    ]  # fmt: skip
    assert listed[2]["labels"] == ["human", "greedy"] and listed[2]["outcome"]["scores"]
    assert client.get(f"/api/replays/{listed[3]['id']}/frame?step=1&seat=0").status_code == 200


def test_the_replay_list_says_plainly_when_it_is_empty_then_lists_a_game_finished_here(page):
    """No broken picture and no empty select: a sentence saying how to get a replay; once a game ends here it
    is listed and opens."""
    import httpx

    page, problems = page
    with serving(create_app()) as url:
        page.goto(url + "/replay")
        page.wait_for_selector("#empty", state="visible")
        assert "No games to replay yet" in page.text_content("#empty")
        assert page.locator("img:visible").count() == 0 and page.locator("select:visible").count() == 0
        made = httpx.post(
            f"{url}/api/games", json={"game": "cherry_picking", "players": 2, "seats": ["human", "greedy"]}
        )
        with httpx.Client(base_url=url) as client:
            played_through(client, seat_path(made.json()["seats"][0]["url"]))
        page.reload()
        page.wait_for_selector("#stepinfo:has-text('step 0 of')")
        assert page.is_hidden("#empty") and page.locator("#which optgroup").get_attribute("label") == (
            "games finished here"
        )
        assert "#1 Cherry Picking: human v greedy" in page.text_content("#which")
        page.wait_for_function(
            "document.querySelector('#picture').complete && document.querySelector('#picture').naturalWidth > 0"
        )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("game", ["cherry_picking", "quickity_pickity"])
def test_a_choice_hidden_until_the_reveal_is_told_as_revealed_in_every_seat(game):
    """A seat is told "has chosen (hidden until the reveal)" for another seat's simultaneous choice; once the
    round's last choice reveals it (a choice no other seat has still to join), the same line tells the choice,
    so a hidden line is only ever one of the round still open. Played to the end, no hidden line is left."""
    from fruit_envs.replay import move_line

    web = WebGame.start(game, 3, ["human", "greedy", "greedy"], 5)
    gen = np.random.default_rng(1)
    revealed, last_reveal = 0, 0  # the number of the latest decision that closed a round
    while not web.done:
        if int(web.spec.rules.acting(web.state)[0].sum()) <= 1:
            last_reveal = len(web.actions) + 1
        if not web.advance():
            web.move(0, int(gen.choice(np.flatnonzero(web.spec.rules.legal_mask(web.state, 0)[0]))))
        replay = web.replay()
        for seat in range(3):
            numbered = [line for line in web.told(seat) if line[0].isdigit()]
            hidden = [int(line.split(".")[0]) for line in numbered if "has chosen (hidden" in line]
            assert all(h > last_reveal for h in hidden), (seat, hidden, last_reveal)
            for line in numbered:
                if line.endswith(" — revealed"):
                    t = int(line.split(".")[0])
                    assert line == f"{t}. {move_line(replay, t - 1)} — revealed"
                    revealed += 1
    assert revealed and not any("has chosen (hidden" in line for seat in range(3) for line in web.told(seat))


@pytest.mark.parametrize("game", ["cherry_picking", "quickity_pickity"])
def test_the_seat_page_tells_a_hidden_choice_as_revealed_after_the_reveal(page, game):
    """In Chromium: the person in seat 1 (greedy chooses first in seat 0) sees "has chosen" before choosing,
    and after the reveal the same line names greedy's choice, as the game recorded it."""
    page, problems = page
    app = create_app()
    with serving(app) as url:
        import httpx

        made = httpx.post(f"{url}/api/games", json={"game": game, "players": 2, "seats": ["greedy", "human"]}).json()
        web = app.state.games.get(made["id"])
        names = action_names(web.spec, web.config)
        page.goto(url + made["seats"][0]["url"] + "?delay=0")
        for _ in range(3):  # three decisions of the person, each after greedy's hidden one
            page.wait_for_selector("#actions button")
            hidden = page.locator("#told li", has_text="has chosen (hidden until the reveal)")
            assert hidden.count() == 1, page.text_content("#told")
            number = int(hidden.text_content().split(".")[0])
            page.keyboard.press("1")
            line = page.locator("#told li", has_text=f"{number}. player_0 (greedy): ")
            line.wait_for()
            assert names[web.actions[number - 1]] in line.text_content() and "revealed" in line.text_content()
            assert not page.locator("#told li", has_text=f"{number}. player_0 (greedy) has chosen").count()
    assert not problems, "\n".join(problems)


def test_what_you_saw_shows_whole_lines_newest_last_and_a_cue_for_those_above(page):
    """The box holds only whole lines, scrolled to the newest at its foot; a line above it says how many earlier
    lines are hidden above, until they are scrolled into view."""
    import httpx

    page, problems = page
    with serving(create_app()) as url:
        seats = ["human", "greedy"]
        made = httpx.post(f"{url}/api/games", json={"game": "quickity_pickity", "players": 2, "seats": seats})
        page.goto(url + made.json()["seats"][0]["url"] + "?delay=0")
        for _ in range(60):
            page.wait_for_selector("#actions button")
            if page.evaluate(
                "() => { const l = document.querySelector('#told'); return l.scrollHeight > l.clientHeight + 40; }"
            ):
                break
            page.keyboard.press("1")
            page.wait_for_timeout(20)
        page.wait_for_selector("#actions button")
        box = page.evaluate(
            """() => {
              const list = document.querySelector('#told'), items = [...list.children];
              const top = list.scrollTop, bottom = list.scrollTop + list.clientHeight;
              const first = items.find((li) => li.offsetTop + li.offsetHeight > top + 0.5);
              const last = items[items.length - 1];
              return { atBottom: bottom >= list.scrollHeight - 1, firstCut: top - first.offsetTop,
                       lastBelow: last.offsetTop + last.offsetHeight - bottom,
                       above: items.filter((li) => li.offsetTop < top - 0.5).length };
            }"""
        )
        assert box["atBottom"] and abs(box["firstCut"]) <= 1 and box["lastBelow"] <= 1, box
        assert box["above"] > 0 and page.is_visible("#told-more")
        assert page.text_content("#told-more").startswith(f"▲ {box['above']} earlier line")
        page.evaluate("() => { document.querySelector('#told').scrollTop = 0; }")
        page.wait_for_selector("#told-more", state="hidden")
    assert not problems, "\n".join(problems)


def test_the_viewers_selects_fit_their_options_with_long_labels(page, tmp_path):
    """Game, View and the seat to play on as: every option's text fits its select, within the page's side."""
    labels = ["search:rollouts=4,depth=2", "ppo-baseline-sample", "greedy"]
    path = recorded(tmp_path / "long_labels.jsonl", "cherry_picking", 3, labels=labels)
    page, problems = page
    with serving(create_app([path])) as url:
        page.goto(url + "/replay")
        page.wait_for_selector("#stepinfo:has-text('step 0 of')")
        assert "seat 1 (ppo-baseline-sample): what it knew" in page.text_content("#perspective")
        cut = page.evaluate(
            """() => {
              const measure = document.createElement('canvas').getContext('2d'), cut = [];
              const side = document.querySelector('.side').getBoundingClientRect();
              for (const select of document.querySelectorAll('.side label.field select')) {
                measure.font = getComputedStyle(select).font;
                const box = select.getBoundingClientRect(), room = select.clientWidth - 28; // the arrow's room
                if (box.right > side.right + 0.5) cut.push(`${select.id} leaves the side`);
                for (const option of select.options) {
                  if (measure.measureText(option.text).width > room) cut.push(`${select.id}: ${option.text}`);
                }
              }
              return cut;
            }"""
        )
        assert not cut, cut
    assert not problems, "\n".join(problems)


def test_hot_seat_passes_one_screen_between_the_people_with_a_cover_page(page):
    """Cherry Picking with two people and greedy on one page: the start page offers hot seat where two seats are
    people; a cover page with nothing private on it comes between the people; each turn shows exactly the
    seat's own view (its text, picture and lines as its own link would), never the other person's hand."""
    import httpx

    page, problems = page
    app = create_app()
    with serving(app) as url:
        page.goto(url + "/")
        page.select_option("#game", "cherry_picking")
        page.select_option("#players", "3")
        assert page.is_hidden("#hotseat-choice"), "one person: nothing to offer"
        page.fill("input[name=seat1]", "human")
        page.check("#hotseat")
        page.click("#go")
        page.wait_for_url("**/hotseat/**")
        assert "#" not in page.url, "the seats' tokens leave the address bar"
        (web,) = app.state.games.all()
        hands = {k: web.snapshot(k)["view"]["seats"][f"player_{k}"]["hand"] for k in (0, 1)}
        page.goto(page.url + "?delay=0")  # the tab keeps the tokens
        shown, covers, turns, last = "", [], [], None
        while len(turns) < 8:
            page.wait_for_function("(before) => (document.body.dataset.shown || '') !== before", arg=shown)
            shown = page.evaluate("() => document.body.dataset.shown")
            if shown.startswith("cover:"):
                seat = int(shown.split(":")[1])
                assert page.is_hidden("#seat-view") and page.get_attribute("#picture", "src") is None
                for private in ("#text", "#told", "#actions", "#result"):
                    assert page.text_content(private) == "", private
                assert f"Pass the device to seat {seat}" in page.text_content("#cover")
                covers.append(seat)
                page.keyboard.press("Enter")
                continue
            seat, step = (int(x) for x in shown.split(":"))
            if seat != last:
                assert covers and covers[-1] == seat, "a cover page between two people"
            last = seat
            own = httpx.get(f"{url}/api/games/{web.id}/{web.tokens[seat]}").json()
            if own["step"] != step or not page.locator("#actions button").count():
                continue  # moved on meanwhile, or an agent's turn shown: look again
            assert page.text_content("#text") == own["text"]
            assert [li.text_content() for li in page.locator("#told li").all()] == own["told"]
            assert web.tokens[seat] in page.get_attribute("#picture", "src")
            other = ", ".join(hands[1 - seat])
            assert other not in page.text_content("#seat-view") and other not in own["text"]
            turns.append(seat)
            page.keyboard.press("1")
        assert set(turns) == {0, 1} and len(covers) >= 3, (turns, covers)
    assert not problems, "\n".join(problems)


PREFETCH = 6  # steps the viewer loads ahead (web.js)
PLAY_UNTIL = """(n) => new Promise((resolve) => {
  const info = document.querySelector('#stepinfo'), began = performance.now();  // no polling: it would slow the page
  new MutationObserver((_, observer) => {
    if (Number(info.textContent.split(' ')[1]) >= n) { observer.disconnect(); resolve(performance.now() - began); }
  }).observe(info, { childList: true, characterData: true, subtree: true });
  document.querySelector('#playpause').click();
})"""
REPLAY_SPEED = SCREENSHOTS.parent / "_measured" / "web_replay_speed.json"  # measured, for the tutorial's table
SPEED_GAMES = [("cherry_picking", 3), ("fruit_picking", 2), ("quickity_pickity", 3), ("juicy_fruits", 2)]
SPEED_GAMES += [("juicy_fruits_solo", 1)]


@pytest.mark.parametrize("game,players", SPEED_GAMES, ids=[g for g, _ in SPEED_GAMES])
def test_the_viewer_plays_with_the_next_steps_loaded_ahead(page, tmp_path, game, players):
    """Played at the fastest speed and paused, the viewer has asked for the next steps' frames and pictures
    already; stepping on to them asks the server for nothing again. The steps per second it played at are
    measured (not asserted: they depend on the machine) and written beside the screenshots."""
    import os

    path = recorded(tmp_path / f"{game}.jsonl", game, players)
    page, problems = page
    asked: list[tuple[str, int]] = []  # (frame or picture.png, step) of each request for a step

    def ask(request) -> None:
        if "/api/replays/" in request.url and "step=" in request.url:
            kind, query = request.url.rsplit("/", 1)[1].split("?")
            asked.append((kind, int(query.split("step=")[1].split("&")[0])))

    page.on("request", ask)
    with serving(create_app([path])) as url:
        page.goto(url + "/replay")
        page.wait_for_selector("#stepinfo:has-text('step 0 of')")
        page.select_option("#speed", "0")
        played = 40
        took = page.evaluate(PLAY_UNTIL, played) / 1000
        page.click("#playpause")
        page.wait_for_timeout(300)  # a step on its way is shown, then it rests
        step = int(page.text_content("#stepinfo").split(" ")[1])
        for kind in ("frame", "picture.png"):
            assert {(kind, t) for t in range(step + 1, step + PREFETCH + 1)} <= set(asked), kind
        for t in range(step + 1, step + PREFETCH + 1):
            page.keyboard.press("ArrowRight")
            page.wait_for_selector(f"#stepinfo:has-text('step {t} of')")
        again = [a for a in asked if a[1] <= step + PREFETCH]
        assert len(again) == len(set(again)), "a step loaded ahead was asked for twice"
    assert not problems, "\n".join(problems)
    measured = json.loads(REPLAY_SPEED.read_text()) if REPLAY_SPEED.exists() else {}
    load = os.getloadavg()[0]
    measured[game] = {"players": players, "steps_per_s": round(played / took, 1), "load_1min": round(load, 2)}
    REPLAY_SPEED.parent.mkdir(parents=True, exist_ok=True)
    REPLAY_SPEED.write_text(json.dumps(measured, indent=1) + "\n")
    print(f"{game}: {played / took:.1f} steps/s at full speed (load {load:.2f} on {os.cpu_count()} cores)")


# --- the pictures' bold text and winner badges (drawn by the games' picture modules) ------------------------

HIGHLIGHT = np.array(fpicture.HIGHLIGHT)


def badges(png: bytes) -> list[dict]:
    """Each short run of the highlight colour one line of text high (a "winner" badge; another word in a colour
    like it counts too) and how many pixels in its box are neither that colour nor the background blended with
    it: another text drawn over the badge."""
    import io

    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    strong = np.abs(pixels - HIGHLIGHT).sum(axis=2) < 40
    rows = np.flatnonzero(strong.any(axis=1))
    found = []
    for band in np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1):
        y0, y1 = int(band[0]), int(band[-1])
        xs = np.flatnonzero(strong[y0 : y1 + 1].any(axis=0))
        for run in np.split(xs, np.flatnonzero(np.diff(xs) > 12) + 1):
            x0, x1 = int(run[0]), int(run[-1])
            if not (25 <= x1 - x0 <= 70 and y1 - y0 <= 12):  # "winner" at 12 px; not a sentence or a card
                continue
            box = pixels[y0 - 2 : y1 + 3, x0 - 2 : x1 + 3].reshape(-1, 3)
            colours, counts = np.unique(box, axis=0, return_counts=True)
            background = colours[counts.argmax()]
            along = HIGHLIGHT - background
            t = np.clip(((box - background) @ along) / max(1, along @ along), 0, 1)
            foreign = np.linalg.norm(box - (background + t[:, None] * along), axis=1) > 60
            found.append({"box": (x0, y0, x1, y1), "foreign": int(foreign.sum())})
    return found


def test_the_winner_badge_never_covers_a_long_seat_name(page, tmp_path):
    """At the end, a winning seat's name with a long agent label and its "winner" badge do not overlap: in the
    viewer's last picture of Cherry Picking, and in the last picture of each other game with a winner."""
    import httpx

    labels = ["search:rollouts=4,depth=2"] * 3
    path = recorded(tmp_path / "long.jsonl", "cherry_picking", 3, labels=labels)
    page, problems = page
    with serving(create_app([path])) as url:
        page.goto(url + "/replay")
        page.wait_for_selector("#stepinfo:has-text('step 0 of')")
        steps = int(page.text_content("#stepinfo").split(" of ")[1])
        page.evaluate(
            "(n) => { const s = document.querySelector('#slider'); s.value = n; s.dispatchEvent(new Event('input')); }",
            steps,
        )
        page.wait_for_selector(f"#stepinfo:has-text('step {steps} of')")
        shown = {"cherry_picking": httpx.get(url + page.get_attribute("#picture", "src")).content}
    assert not problems, "\n".join(problems)
    for game, players in [("fruit_picking", 2), ("quickity_pickity", 3), ("juicy_fruits", 2)]:
        entry = create_app([recorded(tmp_path / f"{game}.jsonl", game, players, labels=labels[:players])])
        (replay,) = entry.state.replays.all()
        shown[game] = replay.picture(len(replay.replay.states) - 1, None)
    for game, png in shown.items():
        found = badges(png)
        assert found and all(b["foreign"] == 0 for b in found), (game, found)


FONT_PROBE = """
import inspect, json, sys
from PIL import ImageFont
from fruit_envs.web.sessions import Replays

original, calls = ImageFont.FreeTypeFont.getmask2, []

def getmask2(self, text, *args, **kwargs):
    stroke = inspect.signature(original).bind(self, text, *args, **kwargs).arguments.get("stroke_width", 0)
    calls.append([text, *self.getname(), stroke])
    return original(self, text, *args, **kwargs)

ImageFont.FreeTypeFont.getmask2 = getmask2
(entry,) = Replays().add_file(sys.argv[1])
entry.picture(len(entry.replay.states) - 1, None)
print(json.dumps(calls))
"""


def test_the_pages_bold_text_is_a_real_bold_face(page):
    """The pages' headings are drawn by Chromium in a bold face of their font, not thickened (no text-shadow)."""
    page, problems = page
    with serving(create_app()) as url:
        page.goto(url + "/")
        page.wait_for_selector("#game option", state="attached")
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        heading = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "h1"})["nodeId"]
        faces = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": heading})["fonts"]
        assert faces and all("Bold" in face["postScriptName"] for face in faces), faces
        assert page.evaluate(
            "() => [...document.querySelectorAll('*')].every((e) => getComputedStyle(e).textShadow === 'none')"
        )
    assert not problems, "\n".join(problems)


def test_the_pictures_bold_text_is_a_bold_face_not_a_smeared_stroke(tmp_path):
    """Bold words in a picture (the winner badge, the closing line) are drawn in a bold face, never thickened
    by a stroke of their own colour (a smear). Drawn in a fresh process, so no cache hides how."""
    import subprocess
    import sys

    path = recorded(tmp_path / "end.jsonl", "cherry_picking", 3)
    probe = [sys.executable, "-c", FONT_PROBE, str(path)]
    drawn = subprocess.run(probe, capture_output=True, text=True, check=True, cwd=tmp_path)
    calls = json.loads(drawn.stdout)
    assert not [c for c in calls if c[3]], "text thickened by a stroke"
    assert any(text == "winner" and "Bold" in style for text, _, style, _ in calls), calls
