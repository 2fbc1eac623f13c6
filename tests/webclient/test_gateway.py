"""The gateway's JSON API and event stream against a real game server."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.webclient.conftest import Api, Running, serve_gateway
from tests.webclient.sse import EventStream
from tongiaki.v1 import game_service_pb2
from webclient import assets, close_app, create_app
from webclient.openapi import document
from webclient.routes import GRPC_ONLY, PREFIX, ROUTES
from webclient.run import ServerProcess

ROOT = Path(__file__).resolve().parents[2]


def test_create_join_start_and_get_mirror_the_rpcs(api: Api) -> None:
    game = api.new_game(["red", "blue"], display_name="harbour")
    status, joined = api.request(
        "POST", f"/api/v1/games/{game}/join", {"colour": "COLOUR_BLUE", "display_name": "Mele"}
    )
    assert status == 200
    assert joined["colour"] == "COLOUR_BLUE"
    assert len(joined["seat_token"]) >= 16
    seats = {s["colour"]: s for s in joined["game"]["seats"]}
    assert seats["COLOUR_BLUE"]["occupied"] and seats["COLOUR_BLUE"]["display_name"] == "Mele"
    assert not seats["COLOUR_RED"]["occupied"]
    other = api.ok("POST", f"/api/v1/games/{game}/join", {})
    assert other["colour"] == "COLOUR_RED"
    started = api.ok("POST", f"/api/v1/games/{game}/start", {}, joined["seat_token"])
    assert started["game"]["state"] == "GAME_STATE_ACTIVE"

    spectator = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    seated = api.ok("GET", f"/api/v1/games/{game}", token=joined["seat_token"])["snapshot"]
    assert spectator["view"]["viewer"] == "COLOUR_UNSPECIFIED"
    assert seated["view"]["viewer"] == "COLOUR_BLUE"
    decision = spectator["view"]["decision"]
    assert decision["kind"] == "DECISION_KIND_SETUP"
    assert decision["player"] == "COLOUR_RED"
    assert {"setup": {"beach": {"q": 0, "r": 0, "index": 0}}} in decision["options"]
    assert spectator["game"]["settings"]["display_name"] == "harbour"

    listed = api.ok("GET", "/api/v1/games?page_size=1000")
    assert f"games/{game}" in [g["name"] for g in listed["games"]]
    active = api.ok("GET", "/api/v1/games?page_size=1000&state=GAME_STATE_ACTIVE")
    assert all(g["state"] == "GAME_STATE_ACTIVE" for g in active["games"])


def test_an_option_is_sent_back_unchanged_and_errors_carry_reason_codes(api: Api) -> None:
    game, tokens = api.seated_game(["green", "purple"])
    snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    option = snapshot["view"]["decision"]["options"][0]
    body = {"sequence": snapshot["sequence"], "request_id": "first", "action": option}

    status, error = api.request("POST", f"/api/v1/games/{game}/actions", body)
    assert (status, error["error"]["reason"]) == (401, "TOKEN_MISSING")
    status, error = api.request(
        "POST", f"/api/v1/games/{game}/actions", body, tokens["COLOUR_PURPLE"]
    )
    assert (status, error["error"]["reason"]) == (400, "NOT_YOUR_TURN")
    assert error["error"]["status"] == "FAILED_PRECONDITION"

    applied = api.ok("POST", f"/api/v1/games/{game}/actions", body, tokens["COLOUR_GREEN"])
    entry = applied["entry"]
    assert entry["sequence"] == str(int(snapshot["sequence"]) + 1)
    assert entry["action_applied"]["action"] == option
    kinds = [next(iter(e)) for e in entry["action_applied"]["events"]]
    assert "ships_placed" in kinds

    again = api.ok("POST", f"/api/v1/games/{game}/actions", body, tokens["COLOUR_GREEN"])
    assert again == applied, "a repeated request id returns the first result"
    body["request_id"] = "second"
    status, error = api.request(
        "POST", f"/api/v1/games/{game}/actions", body, tokens["COLOUR_GREEN"]
    )
    assert (status, error["error"]["reason"]) == (409, "STALE_SEQUENCE")

    status, error = api.request("GET", "/api/v1/games/nosuchgame")
    assert (status, error["error"]["reason"]) == (404, "GAME_NOT_FOUND")
    status, error = api.request("POST", f"/api/v1/games/{game}/join", {"colour": "COLOUR_RED"})
    assert status == 400 and error["error"]["reason"] in {"NO_SUCH_SEAT", "GAME_ALREADY_STARTED"}
    status, error = api.request(
        "POST", f"/api/v1/games/{game}/actions", {"no_such_field": 1}, tokens["COLOUR_GREEN"]
    )
    assert (status, error["error"]["reason"]) == (400, "INVALID_REQUEST")


def test_a_whole_game_through_the_api_then_its_record(api: Api) -> None:
    game, tokens = api.seated_game(["yellow", "orange", "blue"])
    status, error = api.request("GET", f"/api/v1/games/{game}/record")
    assert (status, error["error"]["reason"]) == (400, "GAME_NOT_FINISHED")
    final = api.play(game, tokens)
    assert final["game"]["state"] == "GAME_STATE_FINISHED"
    result = final["view"]["result"]
    assert sorted(r["colour"] for r in result) == ["COLOUR_BLUE", "COLOUR_ORANGE", "COLOUR_YELLOW"]
    assert min(r["rank"] for r in result) == 1
    record = api.ok("GET", f"/api/v1/games/{game}/record")
    assert len(record["record"]["stack"]) == 31
    assert json.loads(record["record_json"])["seats"] == ["yellow", "orange", "blue"]


def test_event_stream_starts_with_a_snapshot_and_relays_entries_with_sequences(
    api: Api, gateway: Running
) -> None:
    game, tokens = api.seated_game(["red", "green"])
    stream = EventStream(f"{gateway.url}/api/v1/games/{game}/events")
    first = stream.next()
    assert first.kind == "snapshot"
    assert first.ident == first.data["sequence"]
    start = int(first.data["sequence"])
    assert first.data["view"]["decision"]["kind"] == "DECISION_KIND_SETUP"

    api.play(game, tokens, steps=3)
    seen = [stream.until("entry") for _ in range(3)]
    assert [int(e.ident or 0) for e in seen] == [start + 1, start + 2, start + 3]
    for event in seen:
        assert event.data["sequence"] == event.ident
        assert event.data["entry"]["sequence"] == event.ident
        assert "action_applied" in event.data["entry"]
    # The board after each entry comes along, so browsers never recompute it.
    assert seen[-1].data["snapshot"]["sequence"] == seen[-1].ident
    assert len(seen[-1].data["snapshot"]["view"]["beaches"]) >= 1
    stream.close()

    # Resuming after the first entry replays exactly what came after it.
    api.play(game, tokens, steps=2)
    resumed = EventStream(f"{gateway.url}/api/v1/games/{game}/events", last_id=start + 1)
    idents = [int(resumed.until("entry").ident or 0) for _ in range(4)]
    assert idents == [start + 2, start + 3, start + 4, start + 5]
    resumed.close()


def test_a_resume_on_a_fresh_gateway_gets_the_missed_entries(
    api: Api, game_server: ServerProcess
) -> None:
    game, tokens = api.seated_game(["blue", "purple"])
    api.play(game, tokens, steps=4)
    seen = int(api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["sequence"])
    api.play(game, tokens, steps=3)
    fresh = serve_gateway(game_server.target)
    try:
        stream = EventStream(f"{fresh.url}/api/v1/games/{game}/events", last_id=seen)
        events = [stream.next() for _ in range(3)]
        assert [e.kind for e in events] == ["entry"] * 3
        assert [int(e.ident or 0) for e in events] == [seen + 1, seen + 2, seen + 3]
        stream.close()
    finally:
        fresh.stop()


def test_many_browsers_share_one_upstream_watch(api: Api, game_server: ServerProcess) -> None:
    game, tokens = api.seated_game(["yellow", "red"])
    running = serve_gateway(game_server.target)
    browsers = 40
    try:
        # The first browser starts the game's feed; the others join it.
        streams = [EventStream(f"{running.url}/api/v1/games/{game}/events")]
        assert streams[0].next().kind == "snapshot"
        streams += [
            EventStream(f"{running.url}/api/v1/games/{game}/events") for _ in range(browsers - 1)
        ]
        for stream in streams[1:]:
            assert stream.next().kind == "snapshot"
        api.play(game, tokens, steps=2)
        received: list[list[str]] = [[] for _ in streams]

        def read(i: int) -> None:
            for _ in range(2):
                received[i].append(streams[i].until("entry").ident or "")

        threads = [threading.Thread(target=read, args=(i,)) for i in range(browsers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert all(r == received[0] and len(r) == 2 for r in received)
        stats = running.app.extensions["tongiaki.feeds"].stats()[f"games/{game}"]
        assert stats == {"browsers": browsers, "upstream_calls": 1}
        # The board after each batch came with the watch itself; the one GetGame is
        # the first browser's check that the game exists (the others found its feed).
        assert running.app.extensions["tongiaki.upstream"].calls["GetGame"] == 1
        for stream in streams:
            stream.close()
    finally:
        running.stop()


def test_a_stopping_gateway_refuses_new_streams_and_stops(
    api: Api, game_server: ServerProcess
) -> None:
    """A browser that reconnects while the gateway stops gets 503, and the stop ends."""
    game, _ = api.seated_game(["yellow", "blue"])
    running = serve_gateway(game_server.target)
    url = f"{running.url}/api/v1/games/{game}/events"
    try:
        stream = EventStream(url)
        assert stream.next().kind == "snapshot"
        close_app(running.app)  # what stopping does first: every feed ends
        try:
            reply = urllib.request.urlopen(url, timeout=10)
        except urllib.error.HTTPError as refused:
            assert refused.code == 503
            assert json.loads(refused.read())["error"]["reason"] == "SHUTTING_DOWN"
        else:
            reply.close()
            raise AssertionError(f"a new stream was served: {reply.status}")
        assert running.app.extensions["tongiaki.feeds"].stats() == {}
        stream.close()
    finally:
        running.gateway.stop()


def test_a_finished_game_stream_ends_and_unknown_games_fail(api: Api, gateway: Running) -> None:
    game, tokens = api.seated_game(["orange", "green"])
    final = api.play(game, tokens)
    stream = EventStream(f"{gateway.url}/api/v1/games/{game}/events")
    snapshot = stream.next()
    assert snapshot.kind == "snapshot"
    assert snapshot.data["game"]["state"] == "GAME_STATE_FINISHED"
    assert snapshot.data["sequence"] == final["sequence"]
    end = stream.next()
    assert end.kind == "end" and end.data["sequence"] == final["sequence"]
    stream.close()

    missing = EventStream(f"{gateway.url}/api/v1/games/nosuchgame/events")
    failure = missing.next()
    assert failure.kind == "failure"
    assert failure.data["error"]["reason"] == "GAME_NOT_FOUND"
    missing.close()


def test_the_openapi_document_covers_every_rpc(api: Api) -> None:
    doc = api.ok("GET", "/api/v1/openapi.json")
    assert doc == document()
    operations = {op["operationId"] for path in doc["paths"].values() for op in path.values()}
    service = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    assert operations == {m.name for m in service.methods} - GRPC_ONLY
    schemas = doc["components"]["schemas"]

    def refs(node: object) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if "$ref" in node else []
            return found + [r for v in node.values() for r in refs(v)]
        if isinstance(node, list):
            return [r for v in node for r in refs(v)]
        return []

    for ref in refs(doc):
        assert ref.startswith("#/components/schemas/")
        assert ref.rsplit("/", 1)[1] in schemas, ref
    action = schemas["tongiaki.v1.Action"]["properties"]
    assert set(action) >= {"setup", "expand", "land", "place", "settle_ship"}


def test_pages_are_served_with_translated_text(gateway: Running) -> None:
    client = gateway.app.test_client()
    lobby = client.get("/")
    assert lobby.status_code == 200
    html = lobby.get_data(as_text=True)
    assert '<html lang="en" dir="ltr">' in html
    assert "<title>Tongiaki</title>" in html
    assert "app.title" not in html
    page = client.get("/games/abc")
    assert 'data-game="abc"' in page.get_data(as_text=True)
    for asset in ("js/main.js", "js/board.js", "css/app.css", "tiles.json", "i18n/en.json"):
        assert client.get(f"/static/{asset}").status_code == 200, asset


def test_the_gateway_never_imports_the_engine() -> None:
    code = (
        "import sys, webclient, webclient.run, webclient.api, webclient.feeds;"
        "print(sorted(m for m in sys.modules if m == 'engine' or m.startswith('engine.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_the_launcher_starts_server_and_gateway_and_prints_the_address(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "webclient",
            "--port",
            "0",
            "--game-port",
            "0",
            "--data-dir",
            str(tmp_path / "data"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "open http://127.0.0.1:" in line
        assert re.search(r"game server 127\.0\.0\.1:\d+ for gRPC clients", line), line
        url = line.split("open ", 1)[1].split("/ ", 1)[0]
        api = Api(url)
        game = api.new_game(["red", "blue"])
        assert api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["game"]["state"] == (
            "GAME_STATE_OPEN"
        )
        assert (tmp_path / "data").is_dir()
    finally:
        process.terminate()
        deadline = time.monotonic() + 20
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0


def test_the_gateways_routes_are_the_route_table() -> None:
    """The API serves exactly the table's routes (and its two pages), and the
    OpenAPI document names exactly them: one table for all three."""
    app = create_app({"TONGIAKI_SERVER": "127.0.0.1:1"})
    served = {
        (rule.rule, method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith(PREFIX)
        for method in rule.methods or ()
        if method in ("GET", "POST")
    }
    table = {(PREFIX + route.rule, route.method) for route in ROUTES}
    pages = {(PREFIX + "/openapi.json", "get"), (PREFIX + "/reference", "get")}
    assert served == table | pages
    documented = {(path, verb) for path, ops in document()["paths"].items() for verb in ops}
    assert documented == {(route.url, route.method) for route in ROUTES}


def test_the_fan_out_figures_command_runs() -> None:
    """docs/performance.md's fan-out command (fewer browsers): every browser, all from
    one address as there, gets every move through one upstream watch."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.webclient.fanout_figures",
            "--browsers",
            "150",
            "--moves",
            "2",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "upstream watch calls for the game: 1" in done.stdout
    assert "browsers attached at the end: 150" in done.stdout


def test_scripts_and_styles_are_served_without_comments_gzipped_and_revalidated(
    gateway: Running,
) -> None:
    """A script comes gzipped when the browser accepts it, as the source without its
    whole-line comments; its ETag answers 304 next time; nothing outside static is read."""
    source = (Path(__file__).parents[2] / "webclient/static/js/game.js").read_bytes()
    url = f"{gateway.url}/static/js/game.js"
    ask = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(ask, timeout=30) as answer:
        assert answer.headers["Content-Encoding"] == "gzip"
        assert answer.headers["Content-Type"].startswith("text/javascript")
        body = gzip.decompress(answer.read())
        etag = answer.headers["ETag"]
    assert body == assets.served("game.js", source) and len(body) < len(source)
    with urllib.request.urlopen(url, timeout=30) as plain:
        assert plain.headers.get("Content-Encoding") is None and plain.read() == body
    again = urllib.request.Request(url, headers={"If-None-Match": etag})
    with pytest.raises(urllib.error.HTTPError) as cached:
        urllib.request.urlopen(again, timeout=30)
    assert cached.value.code == 304
    for escape in ("/static/../app.py", "/static/js/..%2f..%2fapp.py", "/static/none.js"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{gateway.url}{escape}", timeout=30)
        assert refused.value.code == 404, escape
