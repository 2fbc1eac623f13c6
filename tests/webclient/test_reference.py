"""The JSON API's reference page: readable, self-contained, and its examples work as written."""

from __future__ import annotations

import html
import json
import re
import subprocess
import urllib.request
from typing import Any

import pytest
from google.protobuf import json_format
from playwright.sync_api import Browser

from tests.webclient.conftest import Api, Running
from tests.webclient.test_browser import shot, watch_errors
from tongiaki.v1 import game_service_pb2 as spb
from webclient.openapi import EXAMPLES, REFERENCE_PATH, document
from webclient.routes import ROUTES


def get_page(gateway: Running) -> tuple[str, str]:
    with urllib.request.urlopen(gateway.url + REFERENCE_PATH, timeout=15) as response:
        return response.headers["Content-Type"], response.read().decode()


def examples(page: str) -> dict[str, str]:
    """Each route's example command, by operation id, as the page shows it."""
    found = {}
    for section in re.findall(r'<section class="op" id="(\w+)">(.*?)</section>', page, re.S):
        rpc, body = section
        block = re.search(r"<pre>(.*?)</pre>", body, re.S)
        assert block is not None, rpc
        found[rpc] = html.unescape(block.group(1))
    return found


def test_every_route_has_a_summary_and_an_example_body_of_its_request() -> None:
    doc = document()
    service = spb.DESCRIPTOR.services_by_name["GameService"]
    for route in ROUTES:
        rpc, has_body = route.rpc, route.body
        operation = doc["paths"][route.url][route.method]
        assert operation["summary"] and rpc not in operation["summary"], rpc
        assert f"tongiaki.v1.GameService/{rpc}" in operation["description"]
        if has_body:
            example = operation["requestBody"]["content"]["application/json"]["example"]
            assert example == EXAMPLES[rpc]
            # Each example is a valid request message (unknown fields would raise).
            request = getattr(spb, service.methods_by_name[rpc].input_type.name)()
            json_format.ParseDict(example, request)
    assert sum(bool(EXAMPLES[rpc]) for rpc in EXAMPLES) >= 3


def test_the_page_needs_no_network_and_lists_every_route(gateway: Running) -> None:
    kind, page = get_page(gateway)
    assert kind.startswith("text/html")
    # Nothing is loaded from anywhere: no scripts, stylesheets, images or fonts.
    for pattern in (r"<script", r"<link", r"<img", r"\bsrc=", r"url\(", r"@import"):
        assert not re.search(pattern, page), pattern
    links = set(re.findall(r'href="([^"]+)"', page))
    assert all(link.startswith("#") or link == "openapi.json" for link in links), links
    anchors = set(re.findall(r'id="([^"]+)"', page))
    assert {link[1:] for link in links if link.startswith("#")} <= anchors
    doc = document()
    for item in doc["paths"].values():
        for operation in item.values():
            assert html.escape(operation["summary"]) in page
            assert operation["operationId"] in anchors
    assert set(doc["components"]["schemas"]) <= anchors
    assert set(examples(page)) == {
        op["operationId"] for i in doc["paths"].values() for op in i.values()
    }


def run(command: str) -> Any:
    done = subprocess.run(
        ["bash", "-c", command + " --silent --show-error"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip().startswith("{") else done.stdout


def test_the_examples_run_as_written_against_the_gateway(gateway: Running, api: Api) -> None:
    """Create, join, start, act, list, get and leave with the page's own commands."""
    _, page = get_page(gateway)
    shown = examples(page)
    for command in shown.values():
        assert gateway.url in command

    created = run(shown["CreateGame"])
    game = created["game"]["name"].removeprefix("games/")
    assert created["game"]["settings"]["bots"][0]["level"] == "BOT_LEVEL_GREEDY"

    def fill(rpc: str, token: str = "") -> str:
        return shown[rpc].replace("/GAME", f"/{game}").replace("SEAT_TOKEN", token)

    joined = run(fill("JoinGame"))
    assert joined["colour"] == "COLOUR_YELLOW"
    token = joined["seat_token"]
    api.ok("POST", f"/api/v1/games/{game}/join", {"colour": "COLOUR_RED"})
    assert run(fill("StartGame", token))["game"]["state"] == "GAME_STATE_ACTIVE"
    acted = run(fill("SubmitAction", token))
    assert acted["entry"]["sequence"] == "4" and "action_applied" in acted["entry"]
    seen = run(fill("GetGame"))
    assert seen["snapshot"]["sequence"] == "4"
    listed = run(fill("ListGames"))
    assert all(g["state"] == "GAME_STATE_OPEN" for g in listed.get("games", []))
    refused = run(fill("GetGameRecord"))
    assert refused["error"]["reason"] == "GAME_NOT_FINISHED"
    assert run(fill("LeaveGame", token))["game"]["name"] == f"games/{game}"
    events = shown["WatchGame"].replace("/GAME", f"/{game}")
    assert events.startswith("curl ") and "/events" in events


@pytest.mark.parametrize("width", [390, 1280])
def test_the_page_reads_well(browser: Browser, gateway: Running, width: int) -> None:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": width, "height": 844})
    watch_errors(page, errors)
    try:
        page.goto(gateway.url + REFERENCE_PATH)
        # Nothing wider than the screen but the examples' own scrolling boxes.
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width
        shot(page, f"api-reference-{width}")
    finally:
        page.close()
    assert errors == []
