"""The gateway's routes for a game's history: the whole log, past states, take-backs."""

from __future__ import annotations

from typing import Any

from tests.webclient.conftest import Api


def applied_by_draw(entry: dict[str, Any]) -> bool:
    events = entry.get("action_applied", {}).get("events", [])
    return any("tile_placed" in e for e in events) and not any("game_over" in e for e in events)


def test_the_whole_log_past_states_and_take_backs_over_http(api: Api) -> None:
    game, tokens = api.seated_game(["yellow", "red"])
    first = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    yellow = tokens["COLOUR_YELLOW"]

    # A take-back over HTTP, seen in the log.
    api.play(game, tokens, steps=1, seed=5)
    placed = int(api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["sequence"])
    body = {"sequence": str(placed), "request_id": "tb-1"}
    status, refused = api.request("POST", f"/api/v1/games/{game}/take-back", body)
    assert status == 401 and refused["error"]["reason"] == "TOKEN_MISSING"
    status, refused = api.request(
        "POST", f"/api/v1/games/{game}/take-back", body, tokens["COLOUR_RED"]
    )
    assert refused["error"]["reason"] == "TAKE_BACK_NOT_YOURS", refused
    taken = api.ok("POST", f"/api/v1/games/{game}/take-back", body, yellow)["entry"]
    assert taken["action_taken_back"]["taken_back"] == str(placed)
    assert taken["action_taken_back"]["view"] == first["view"]

    # Play on until a decision draws a tile: that one cannot be taken back.
    while True:
        api.play(
            game,
            tokens,
            steps=1,
            seed=int(api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["sequence"]),
        )
        now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        last = api.ok(
            "GET", f"/api/v1/games/{game}/entries?after_sequence={int(now['sequence']) - 1}"
        )
        entry = last["entries"][-1]
        if applied_by_draw(entry):
            break
    who = entry["action_applied"]["player"]
    status, refused = api.request(
        "POST",
        f"/api/v1/games/{game}/take-back",
        {"sequence": now["sequence"], "request_id": "tb-2"},
        tokens[who],
    )
    assert status == 400 and refused["error"]["reason"] == "TAKE_BACK_AFTER_DRAW", refused

    # The whole log, page by page, from sequence 0.
    entries: list[dict[str, Any]] = []
    after = 0
    while True:
        page = api.ok("GET", f"/api/v1/games/{game}/entries?after_sequence={after}&page_size=7")
        entries += page["entries"]
        after = int(entries[-1]["sequence"])
        if not page["more"]:
            break
    assert [int(e["sequence"]) for e in entries] == list(range(1, int(now["sequence"]) + 1))
    assert sum("action_taken_back" in e for e in entries) == 1

    # Past states: right after the take-back, the board was the first one again.
    past = api.ok("GET", f"/api/v1/games/{game}?at_sequence={int(taken['sequence'])}")["snapshot"]
    assert past["view"] == first["view"] and past["sequence"] == taken["sequence"]
    status, refused = api.request("GET", f"/api/v1/games/{game}?at_sequence=99999")
    assert refused["error"]["reason"] == "SEQUENCE_OUT_OF_RANGE"
    status, refused = api.request("GET", f"/api/v1/games/{game}?at_sequence=x")
    assert status == 400 and refused["error"]["reason"] == "INVALID_REQUEST"

    # Games with open seats only.
    open_game = api.new_game(["green", "blue"])
    listed = api.ok("GET", "/api/v1/games?open_seats=true&page_size=1000")["games"]
    names = {g["name"] for g in listed}
    assert f"games/{open_game}" in names and f"games/{game}" not in names
