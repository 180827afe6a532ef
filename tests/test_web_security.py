"""What a request or a record may not make the web app do (docs/threat-model.md): run a file's pickle or a
module's code, answer another host name or another site's page, seat anything but the shipped agents without
the launch key (or at all on a server other machines can reach), spend without bound, or fail with a 500.

Every payload here is live (each test checks it writes its marker when loaded directly) and none may write its
marker through the app. The app is reached as 127.0.0.1."""

from __future__ import annotations

import base64
import json
import pickle
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs the web extra: pip install 'fruit-envs[web,render]'")

from starlette.testclient import TestClient  # noqa: E402

from fruit_envs.core import record as frecord  # noqa: E402
from fruit_envs.core.spec import get_spec  # noqa: E402
from fruit_envs.web.app import create_app  # noqa: E402
from fruit_envs.web.guard import BODY_LIMIT, host_names  # noqa: E402

HOST = "http://127.0.0.1:8765"
GAME = {"game": "cherry_picking", "players": 2}


class Payload:
    """Unpickled, it creates the file `path`: proof that a pickle ran."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture
def payloads(tmp_path, monkeypatch):
    """A model zip whose loading unpickles `Payload` (stable-baselines3 keeps serialized objects in `data`), a
    module that writes the same marker when imported, and the marker; each checked live, then the marker gone."""
    from fruit_envs.agents.ppo import load_model

    marker = tmp_path / "marker"
    model = tmp_path / "evil.zip"
    serialized = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    with zipfile.ZipFile(model, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": {":type:": "x", ":serialized:": serialized}}))
    module = tmp_path / "evil_web_module.py"
    module.write_text(f"open({str(marker)!r}, 'w').close()\n\ndef make(spec, config):\n    raise RuntimeError\n")
    with pytest.raises(ValueError):
        load_model(model)
    assert marker.exists(), "the model payload is live"
    marker.unlink()
    monkeypatch.chdir(tmp_path)
    return {"marker": marker, "model": model, "module": module}


def local(app, **options) -> TestClient:
    return TestClient(app, base_url=HOST, **options)


def start(client: TestClient, seat: str, headers: dict | None = None, **body):
    return client.post("/api/games", json={**GAME, "seats": ["human", seat], **body}, headers=headers or {})


def keyed(app) -> dict:
    return {"X-Fruit-Envs-Key": app.state.key.value}


def record_file(path: Path, labels: list[str], seed: int = 1, **changes) -> Path:
    """One recorded two-player Cherry Picking game between greedy and random, labelled `labels`, with `changes`
    to its JSON fields (a label or outcome a record may claim)."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import play_games

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    agents = [make_agent("greedy", spec, config), make_agent("random", spec, config)]
    play_games(spec, config, agents, np.array([[0, 1]]), seed=seed, record_to=path, labels=labels)
    if changes:
        data = json.loads(path.read_text().splitlines()[0])
        data.update(changes)
        path.write_text(json.dumps(data) + "\n")
    return path


# --- what a request may seat ------------------------------------------------------------------------------


def file_seats(payloads) -> list[str]:
    model, module = payloads["model"], payloads["module"]
    return [
        f"ppo:{model}",
        f"ppo-sample:{model}",
        str(model),
        f"search:policy=ppo:{model}",
        f"search:rollouts=4,depth=2,prior=ppo:{model}",
        f"search:value=ppo:{model}",
        f"{module}:make",
        "evil_web_module:make",
        f"rllib:{payloads['marker'].parent}",
    ]


def test_without_the_launch_key_a_page_seats_only_shipped_agents_and_runs_no_payload(payloads):
    app = create_app()
    client = local(app)
    for seat in file_seats(payloads):
        answer = start(client, seat)
        assert answer.status_code == 400, (seat, answer.text)
        assert "open the link fruit-envs-web printed at launch" in answer.json()["error"], seat
        assert not payloads["marker"].exists(), f"{seat} ran its payload"
    for seat in ("greedy", "random", "search", "search:rollouts=4,depth=2,policy=ppo-baseline", "ppo-baseline"):
        assert start(client, seat).status_code == 200, seat
    shown = client.get("/api/catalogue").json()
    assert not shown["own_agents"] and "ppo-baseline" in shown["agents"] and "ppo:PATH" not in shown["agents"]


def test_a_server_other_machines_reach_seats_only_shipped_agents_whatever_the_request_holds(payloads):
    app = create_app(any_agent=False)
    client = local(app)
    client.get(f"/?key={app.state.key.value}")  # no key is taken here: no cookie comes of it
    for seat in file_seats(payloads):
        for headers in ({}, keyed(app)):
            answer = start(client, seat, headers)
            assert answer.status_code == 400 and "only the shipped agents" in answer.json()["error"], seat
    assert not payloads["marker"].exists()
    assert start(client, "search:rollouts=4,depth=2", keyed(app)).status_code == 200


def test_a_refusal_never_says_whether_a_path_exists(payloads):
    for app in (create_app(), create_app(any_agent=False)):
        client = local(app)
        for form in ("ppo:{}", "{}", "search:policy=ppo:{}", "{}.py:make"):
            there = start(client, form.format("evil.zip" if "py" not in form else "evil_web_module")).json()["error"]
            absent = start(client, form.format("nope.zip" if "py" not in form else "nope_web_module")).json()["error"]
            assert there.replace("evil.zip", "nope.zip").replace("evil_web_module", "nope_web_module") == absent
    assert not payloads["marker"].exists()


def test_the_launch_key_seats_the_users_own_agent_on_loopback(tmp_path, monkeypatch):
    """The start link's key (as its cookie, or a script's header) lets a page seat the user's own module; a
    wrong key is refused, and a module of Python's standard library is never taken for an agent."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine_web_agent.py").write_text(
        "from fruit_envs.agents.greedy import make_greedy\n\ndef make(spec, config):\n    return make_greedy(spec, config)\n"
    )
    app = create_app()
    client = local(app)
    assert "open the link" in start(client, "mine_web_agent:make").json()["error"]
    assert client.get("/?key=not-the-key", follow_redirects=False).status_code == 403
    opened = client.get(f"/?key={app.state.key.value}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == "/"
    cookie = opened.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and app.state.key.value.lower() in cookie
    assert client.get("/api/catalogue").json()["own_agents"]
    made = start(client, "mine_web_agent:make")  # the client keeps the cookie, as a browser does
    assert made.status_code == 200, made.text
    assert start(local(app), "mine_web_agent:make", keyed(app)).status_code == 200, "or the key as a header"
    for seat in ("os:system", "os:getcwd", "subprocess:call", "builtins:exec", "shutil:rmtree"):
        for headers in ({}, keyed(app)):
            answer = start(local(app), seat, headers)
            assert answer.status_code == 400, (seat, answer.text)
        assert "standard library" in answer.json()["error"], seat
    broken = start(local(app), "mine_web_agent:nothing", keyed(app))
    assert broken.status_code == 400 and "has no 'nothing'" in broken.json()["error"]


def test_searches_from_requests_and_records_keep_to_the_budget(tmp_path):
    huge = "search:rollouts=1000000000"
    for app, headers in [(create_app(), {}), (create_app(), None), (create_app(any_agent=False), None)]:
        answer = start(local(app), huge, keyed(app) if headers is None else headers)
        assert answer.status_code == 400 and "over this server's or file's limit of 8192" in answer.json()["error"]
    app = create_app()
    mine = start(local(app), "search:rollouts=1000000000,policy=ppo:whatever.zip", keyed(app))
    assert mine.status_code == 400 and "limit of 8192" in mine.json()["error"], "the key lifts no bound"
    assert start(local(create_app(budget=100)), "search:rollouts=64,depth=2").status_code == 400
    path = record_file(tmp_path / "huge.jsonl", [huge, "random"])
    client = local(create_app([path]))
    listed = client.get("/api/replays").json()["replays"][0]
    assert client.get(f"/api/replays/{listed['id']}/frame?step=0&seat=referee").json()["decision"] is None
    made = client.post(f"/api/replays/{listed['id']}/branch", json={"step": 2, "seat": 1}).json()
    assert made["notes"] == [f"seat 0 ({huge}) is not a shipped agent: greedy plays it"]


def test_a_game_from_a_request_has_a_bounded_length():
    answer = local(create_app()).post(
        "/api/games",
        json={"game": "fruit_picking", "players": 2, "seats": ["human", "greedy"], "options": {"max_rounds": 10**6}},
    )
    assert answer.status_code == 400 and "may last at most 20000" in answer.json()["error"]


def test_forty_baseline_games_share_one_loaded_model():
    """Each shipped model file is loaded once per process, whatever number of games (or searches) play it."""
    app = create_app()
    client = local(app)
    for seed in range(40):
        assert start(client, "ppo-baseline", seed=seed).status_code == 200
    assert start(client, "search:rollouts=2,depth=2,policy=ppo-baseline").status_code == 200
    games = app.state.games.all()
    models = {id(g.agents[1].model) for g in games if g.labels[1] == "ppo-baseline"}
    searched = next(g.agents[1] for g in games if g.labels[1].startswith("search"))
    assert len(models) == 1 and id(searched.playout.model) in models


def test_the_server_holds_at_most_max_games_and_says_so(records_file):
    app = create_app([records_file], max_games=3)
    client = local(app)
    for seed in range(3):
        assert start(client, "greedy", seed=seed).status_code == 200
    full = start(client, "greedy")
    assert full.status_code == 503 and "as many games as it takes (3)" in full.json()["error"]
    replay = client.get("/api/replays").json()["replays"][0]["id"]
    assert client.post(f"/api/replays/{replay}/branch", json={"step": 1, "seat": 0}).status_code == 503
    assert len(app.state.games) == 3


@pytest.fixture
def records_file(tmp_path):
    return record_file(tmp_path / "games.jsonl", ["greedy", "random"])


def test_agents_think_on_a_pool_sized_to_the_cores_and_a_cheap_request_does_not_wait_for_them(tmp_path, monkeypatch):
    """Six agents deciding at once (each held until released) take the agents' threads; another game's
    snapshot is answered meanwhile, not after them."""
    from fruit_envs.core.threads import usable_cores

    monkeypatch.chdir(tmp_path)
    (tmp_path / "held_web_agent.py").write_text(
        "import threading\nimport numpy as np\nGATE = threading.Event()\n\n"
        "class Held:\n    def act(self, obs, mask, rng):\n        GATE.wait(30)\n        return np.argmax(mask, axis=1)\n\n"
        "def make(spec, config):\n    return Held()\n"
    )
    app = create_app()
    assert app.state.pool._max_workers == usable_cores()
    with local(app) as client:
        seats = {**GAME, "seats": ["held_web_agent:make"] * 2}
        held = [client.post("/api/games", json=seats, headers=keyed(app)).json() for _ in range(6)]
        person = start(client, "greedy").json()
        import sys

        gate = sys.modules["held_web_agent"].GATE
        threads = [
            threading.Thread(
                target=client.post,
                args=("/api" + g["watch"].split("?")[0].replace("/play/", "/games/", 1) + "/advance",),
                kwargs={"json": {}},
            )
            for g in held
        ]
        try:
            for thread in threads:
                thread.start()
            time.sleep(0.5)  # the six are deciding, or queued for a thread to decide on
            began = time.perf_counter()
            shown = client.get("/api" + person["seats"][0]["url"].replace("/play/", "/games/", 1))
            took = time.perf_counter() - began
        finally:
            gate.set()
            for thread in threads:
                thread.join(30)
        assert shown.status_code == 200 and took < 5, f"a cheap request waited {took:.1f} s for the agents"
        assert all(len(g.actions) == 1 for g in app.state.games.all() if g.labels[0] != "human")


# --- what a request must be -------------------------------------------------------------------------------


def test_another_host_name_is_refused_and_the_names_are_configurable():
    app = create_app(hosts=["testserver"])
    assert TestClient(app).get("/api/catalogue").status_code == 200
    for client in (TestClient(app, base_url="http://evil.example"), local(app)):
        answer = client.get("/api/catalogue")
        assert answer.status_code == 403 and "answers only to its own names" in answer.json()["error"]
    default = create_app()
    for host in ("127.0.0.1:8765", "localhost:9", "[::1]:8765"):
        assert local(default).get("/", headers={"host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example", ""):
        assert local(default).get("/", headers={"host": host}).status_code == 403, host
    names = host_names("127.0.0.1", 8765)
    assert names == ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"]
    strict = create_app(hosts=names)
    assert local(strict).get("/").status_code == 200
    assert local(strict).get("/", headers={"host": "127.0.0.1:9999"}).status_code == 403
    assert "[::1]:80" in host_names("::1", 80) and "box.lan:80" in host_names("0.0.0.0", 80, ["box.lan"])


def test_another_sites_page_can_change_nothing(payloads):
    """A page elsewhere may POST to 127.0.0.1 as text/plain without a preflight, and a browser sends the
    cookie of a link opened before; neither seats anything nor moves."""
    app = create_app()
    client = local(app)
    client.get(f"/?key={app.state.key.value}")  # this browser holds the key as a cookie
    body = json.dumps({**GAME, "seats": ["human", "evil_web_module:make"]})
    for headers, status in [
        ({"content-type": "text/plain"}, 415),
        ({"content-type": "text/plain", "origin": "http://evil.example"}, 403),
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({"content-type": "multipart/form-data; boundary=x"}, 415),
        ({"content-type": "application/json", "origin": "http://evil.example"}, 403),
        ({"content-type": "application/json", "origin": "null"}, 403),
        ({"content-type": "application/json", "origin": "http://127.0.0.1:9999"}, 403),
        ({"content-type": "application/json", "host": "evil.example"}, 403),
    ]:
        answer = client.post("/api/games", content=body, headers=headers)
        assert answer.status_code == status, (headers, answer.text)
        assert not payloads["marker"].exists(), headers
    assert len(app.state.games) == 0
    made = start(client, "greedy", {"origin": HOST})
    assert made.status_code == 200, "the server's own pages send their origin"


def test_bodies_are_bounded_in_size_and_depth_before_parsing():
    client = local(create_app())
    made = start(client, "human").json()
    move = "/api" + made["seats"][0]["url"].replace("/play/", "/games/", 1) + "/move"
    deep = b"[" * 100_000 + b"]" * 100_000
    for path in (move, "/api/games"):
        answer = client.post(path, content=b"[" * 5000 + b"]" * 5000, headers={"content-type": "application/json"})
        assert answer.status_code == 400 and "nested 5000 deep" in answer.json()["error"]
        answer = client.post(path, content=deep, headers={"content-type": "application/json"})
        assert answer.status_code == 413 and str(BODY_LIMIT) in answer.json()["error"]
        chunks = (b" " * 4096 for _ in range(40))  # no Content-Length: counted as it comes
        answer = client.post(path, content=chunks, headers={"content-type": "application/json"})
        assert answer.status_code == 413
    nested_in_a_string = json.dumps({"action": "[" * 100})
    answer = client.post(move, content=nested_in_a_string, headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "must be an integer" in answer.json()["error"]


# --- one-line refusals, never a 500 ------------------------------------------------------------------------


def test_bad_seats_and_steps_are_a_clear_400(records_file):
    client = local(create_app([records_file]))  # a 500 would raise here: the client re-raises server errors
    made = start(client, "greedy").json()
    seat = "/api" + made["seats"][0]["url"].replace("/play/", "/games/", 1)
    assert client.get(seat + "/picture.png?seat=-1").status_code == 200, "a seat's picture is its own, whatever asked"
    replay = client.get("/api/replays").json()["replays"][0]["id"]
    for query in ("seat=-1", "seat=2", "seat=99", "seat=x", "seat=True", "step=-1", "step=99999", "step=" + "9" * 5000):
        for kind in ("picture.png", "frame"):
            answer = client.get(f"/api/replays/{replay}/{kind}?{query}")
            assert answer.status_code == 400, (kind, query, answer.text)
            error = answer.json()["error"]
            assert ("seat must be" in error or "step must be" in error) and len(error) < 200 and "\n" not in error
    for body in ({"step": 1, "seat": -1}, {"step": 1, "seat": True}, {"step": "1", "seat": 0}, {"step": 1, "seat": 2}):
        assert client.post(f"/api/replays/{replay}/branch", json=body).status_code == 400, body


def contradicting_records(tmp_path) -> dict[str, tuple[Path, str]]:
    """Record files each stating something its replay contradicts, and the words of its refusal."""
    good = json.loads(record_file(tmp_path / "good.jsonl", ["greedy", "random"]).read_text())
    cases = {
        "three labels": ({"players": ["greedy", "random", "greedy"]}, "3 labels for 2 seats"),
        "an outcome": ({"outcome": {**good["outcome"], "scores": [99, 0]}}, "differs from the record in scores"),
        "an ending": ({"actions": good["actions"][:10]}, "not over"),
        "action 999": (
            {
                "decisions": {
                    "version": 1,
                    "items": [{"kind": "heuristic score", "value": None, "actions": [[999, 1.0]]}]
                    + [None] * (len(good["actions"]) - 1),
                }
            },
            "names action 999",
        ),  # fmt: skip
        "a NaN": (
            {
                "decisions": {
                    "version": 1,
                    "items": [{"kind": "heuristic score", "value": float("nan"), "actions": []}]
                    + [None] * (len(good["actions"]) - 1),
                }
            },
            "finite number or null",
        ),  # fmt: skip
    }
    files = {}
    for name, (changes, words) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.jsonl"
        path.write_text(json.dumps({**good, **changes}) + "\n")
        files[name] = (path, words)
    return files


def test_a_record_that_contradicts_its_replay_is_refused_at_load_by_name(tmp_path, capsys):
    """By the server and by the static export alike, before anything is served or written."""
    from fruit_envs.web import export, main

    for name, (path, words) in contradicting_records(tmp_path).items():
        with pytest.raises(frecord.RecordError, match=words):
            create_app([path])
        commands = [(main, [str(path), "--no-browser"]), (export.main, [str(path), str(tmp_path / "out")])]
        for command, argv in commands:
            assert command(argv) == 2, name
            err = capsys.readouterr().err
            assert err.startswith("error: ") and path.name in err and words in err and err.count("\n") == 1, (name, err)
    assert not (tmp_path / "out").exists()


def test_a_record_naming_a_model_file_or_module_runs_nothing(payloads, tmp_path):
    """The review's finding: a seat labelled `search:policy=ppo:FILE` ran FILE's pickle when the viewer stepped to
    its decision, or on "play from here". Now the viewer shows no reasons for it and greedy plays it."""
    model, module = payloads["model"], payloads["module"]
    labels = (f"search:policy=ppo:{model}", f"ppo:{model}", str(model), f"{module}:make", "evil_web_module:make")
    for k, label in enumerate(labels):
        path = record_file(tmp_path / f"labels{k}.jsonl", [label, "random"])
        client = local(create_app([path]))
        listed = client.get("/api/replays").json()["replays"][0]
        assert listed["labels"] == [label, "random"]
        for step in range(6):
            for seat in ("referee", 0):
                frame = client.get(f"/api/replays/{listed['id']}/frame?step={step}&seat={seat}").json()
                assert frame["decision"] is None or frame["decision"]["seat"] == 1
        made = client.post(f"/api/replays/{listed['id']}/branch", json={"step": 2, "seat": 1}).json()
        assert made["notes"] == [f"seat 0 ({label}) is not a shipped agent: greedy plays it"]
        assert not payloads["marker"].exists(), f"a record labelled {label} ran its payload"


def test_the_command_line_refuses_bad_settings_in_one_line(capsys):
    from fruit_envs.web import main

    for argv, words in [
        (["--idle-minutes", "nan"], "--idle-minutes"),
        (["--idle-minutes", "inf"], "--idle-minutes"),
        (["--idle-minutes", "-1"], "--idle-minutes"),
        (["--idle-minutes", "0"], "--idle-minutes"),
        (["--max-games", "0"], "--max-games"),
        (["--search-budget", "0"], "--search-budget"),
    ]:
        assert main([*argv, "--no-browser"]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"error: {words}") and err.count("\n") == 1, (argv, err)


def test_a_reachable_server_warns_first_and_says_what_a_visitor_may_do(tmp_path):
    import subprocess
    import sys

    command = [sys.executable, "-m", "fruit_envs.web", "--host", "0.0.0.0", "--port", "0", "--no-browser"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        lines = [server.stdout.readline() for _ in range(3)]
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert lines[0].startswith("warning: listening on 0.0.0.0"), lines
    for words in ("open the app and its replays", "shipped agents", "no page can seat a model file or a module"):
        assert words in lines[0], words
    assert lines[2].startswith("open: http://127.0.0.1:") and "key=" not in lines[2], "no key where none is taken"


# --- pages -----------------------------------------------------------------------------------------------


def test_pages_insert_nothing_as_html_and_carry_a_strict_policy():
    """The script writes text only (textContent, Option); no page has inline script or handlers; every answer
    says nosniff, no-referrer and a policy that allows only this origin's scripts."""
    import re

    static = Path(__file__).resolve().parents[1] / "fruit_envs" / "web" / "static"
    script = (static / "web.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "srcdoc"):
        assert sink not in script, sink
    for page in static.glob("*.html"):
        html = page.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", html) and not re.search(r"\son[a-z]+=", html), page.name
    client = local(create_app())
    for path in ("/", "/replay", "/api/catalogue", "/static/web.js", "/api/replays/nothing"):
        headers = client.get(path).headers
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
        policy = headers["content-security-policy"]
        assert "default-src 'self'" in policy and "'unsafe" not in policy and "frame-ancestors 'none'" in policy
