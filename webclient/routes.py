"""The JSON API's routes: one table that the gateway's handlers, the OpenAPI
document and the reference page are all built from.

Each route is one RPC of ``tongiaki.v1.GameService`` (its request and answer are
the RPC's messages in the proto3 JSON mapping), with what it does for people,
whether it needs a seat token and the refusals worth naming.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Where the API lives.
PREFIX = "/api/v1"


@dataclass(frozen=True)
class Route:
    """One route of the API."""

    #: The RPC it calls (``tongiaki.v1.GameService/<rpc>``).
    rpc: str
    method: Literal["get", "post"]
    #: Under :data:`PREFIX`, with ``{game}`` for the game's id.
    path: str
    summary: str
    description: str
    #: The request message is the JSON body (``name`` comes from the path).
    body: bool = False
    #: The request's fields are query parameters.
    query: bool = False
    #: Whether the call needs a seat token (``Authorization: Bearer``).
    token: Literal["required", "optional", "none"] = "none"
    #: The refusals worth naming (every route may also answer the rest).
    reasons: tuple[str, ...] = ()
    #: Answered as Server-Sent Events rather than one JSON answer.
    stream: bool = False

    @property
    def url(self) -> str:
        """The full path, as the OpenAPI document names it."""
        return PREFIX + self.path

    @property
    def rule(self) -> str:
        """The path as a Flask rule (under the API's prefix)."""
        return self.path.replace("{game}", "<game>")


ROUTES: tuple[Route, ...] = (
    Route(
        "CreateGame",
        "post",
        "/games",
        "Create a game",
        (
            "Seats are 2 to 6 distinct colours in seat order; seat 0 starts. Settings are "
            "optional: a display name, `auto_start`, bot seats, a turn clock, the bot that "
            "takes over, and a `webhook_url` (see docs/embedding.md); or a `tutorial` by name "
            "(`first_game`), which sets the seats, bots and a fixed stack and is never "
            "listed. No token needed; the answer's `game.name` is `games/{game}`. A retry "
            "with the same `request_id` (a random one; the gateway makes one if none is "
            "sent) returns the first game instead of making another."
        ),
        body=True,
        reasons=("INVALID_REQUEST", "WEBHOOK_NOT_ALLOWED"),
    ),
    Route(
        "ListGames",
        "get",
        "/games",
        "List games",
        (
            "Oldest first, one page at a time: `page_size` (up to 1000, default 50), the "
            "`page_token` of the previous answer's `next_page_token`, and `state` to keep "
            "only open, active or finished games; `open_seats=true` keeps games with a seat "
            "to take."
        ),
        query=True,
        reasons=("INVALID_REQUEST",),
    ),
    Route(
        "GetGame",
        "get",
        "/games/{game}",
        "Get a game as you see it",
        (
            "With a seat token, the seat's view; without, a spectator's. `snapshot.view` (the "
            "board and the pending decision with its options) is absent until the game "
            "starts. `at_sequence=N`: the game right after entry N, as a spectator saw it "
            "(for replays)."
        ),
        query=True,
        token="optional",
        reasons=("GAME_NOT_FOUND", "TOKEN_INVALID", "TOKEN_WRONG_GAME"),
    ),
    Route(
        "JoinGame",
        "post",
        "/games/{game}/join",
        "Take a seat",
        (
            "`colour` picks the seat (unspecified: the first open one). The answer's "
            "`seat_token` is the seat's secret: send it as `Authorization: Bearer <token>` "
            "and never in a URL. A retry with the same `request_id` (a random one: it gets "
            "the token back) returns the same seat and token."
        ),
        body=True,
        reasons=("GAME_NOT_FOUND", "SEAT_TAKEN", "NO_SUCH_SEAT", "GAME_FULL"),
    ),
    Route(
        "StartGame",
        "post",
        "/games/{game}/start",
        "Start the game",
        (
            "Once every seat is taken (SEATS_OPEN before); needs the seat token of any seat "
            "of the game. The body may be empty; a retry with the same `request_id` from the "
            "same seat succeeds again instead of GAME_ALREADY_STARTED."
        ),
        body=True,
        token="required",
        reasons=("TOKEN_MISSING", "TOKEN_INVALID", "GAME_ALREADY_STARTED", "SEATS_OPEN"),
    ),
    Route(
        "SubmitAction",
        "post",
        "/games/{game}/actions",
        "Make a decision",
        (
            "`action` is one of the pending decision's `options`, sent back unchanged (or "
            "`action_json`, its JSON form). `sequence` is the game's sequence the choice was "
            "made at: a stale one is refused with STALE_SEQUENCE. A retry with the same "
            "`request_id` returns the first answer instead of acting twice."
        ),
        body=True,
        token="required",
        reasons=(
            "TOKEN_MISSING",
            "STALE_SEQUENCE",
            "GAME_NOT_STARTED",
            "NOT_YOUR_TURN",
            "ILLEGAL_ACTION",
            "MALFORMED_ACTION",
            "GAME_OVER",
        ),
    ),
    Route(
        "LeaveGame",
        "post",
        "/games/{game}/leave",
        "Give up your seat",
        (
            "The token stops working and the seat is open again (in a started game with "
            "`settings.leave_bot`, a bot takes it over). The body may be empty."
        ),
        body=True,
        token="required",
        reasons=("TOKEN_MISSING", "TOKEN_INVALID"),
    ),
    Route(
        "GetGameRecord",
        "get",
        "/games/{game}/record",
        "Get a finished game's record",
        (
            "Seats, the stack (top first) and every action: public once the game is over "
            "(GAME_NOT_FINISHED before). `record_json` is the engine's record, which `python "
            "-m engine replay` reads."
        ),
        reasons=("GAME_NOT_FOUND", "GAME_NOT_FINISHED"),
    ),
    Route(
        "TakeBack",
        "post",
        "/games/{game}/take-back",
        "Take back your last decision",
        (
            "`sequence` is the entry to take back: your own last decision, which must be the "
            "last entry of the log (TAKE_BACK_NOT_LAST otherwise, TAKE_BACK_NOT_YOURS for "
            "another seat's or a bot's); refused once it drew a tile (TAKE_BACK_AFTER_DRAW). "
            "Recorded as an `action_taken_back` entry with the board after it. A retry with "
            "the same `request_id` returns the first answer."
        ),
        body=True,
        token="required",
        reasons=(
            "TOKEN_MISSING",
            "TAKE_BACK_NOT_LAST",
            "TAKE_BACK_NOT_YOURS",
            "TAKE_BACK_AFTER_DRAW",
            "GAME_OVER",
        ),
    ),
    Route(
        "ListGameEntries",
        "get",
        "/games/{game}/entries",
        "Read a game's log",
        (
            "The whole public log of a running or finished game, oldest first: "
            "`after_sequence` (0: from the first entry) and `page_size` (default 500, up to "
            "2000); `more` says whether entries follow the page."
        ),
        query=True,
        reasons=("GAME_NOT_FOUND", "SEQUENCE_OUT_OF_RANGE"),
    ),
    Route(
        "WatchGame",
        "get",
        "/games/{game}/events",
        "Follow a game live (Server-Sent Events)",
        (
            "As Server-Sent Events. Events `snapshot` (data: GameSnapshot) and `entry`"
            " (data: {sequence, entry: LogEntry, snapshot?: GameSnapshot right after the"
            " entry, as a spectator sees it: every entry carries it, so a client never asks"
            " for `at_sequence` while it follows}), each with `id` = its sequence number;"
            " `end` once a finished game has been sent whole; `failure` (data: an error body)"
            " when the game cannot be watched. Reconnecting with `Last-Event-ID` resumes"
            " after that sequence."
        ),
        token="optional",
        reasons=("GAME_NOT_FOUND", "SEQUENCE_OUT_OF_RANGE"),
        stream=True,
    ),
    Route(
        "SendMessage",
        "post",
        "/games/{game}/messages",
        "Send a quick message",
        (
            "`phrase` is one of the predefined phrases (UNKNOWN_PHRASE otherwise): no free "
            "text, each client shows it in its reader's language. For your own seat, in any "
            "state of the game; recorded as a `message_sent` entry that changes nothing in "
            "the game (an action chosen before it is still current). Limited per seat "
            "(RATE_LIMITED, with `retry_after_seconds`) and per game (MESSAGE_LIMIT). A retry "
            "with the same `request_id` returns the first answer."
        ),
        body=True,
        token="required",
        reasons=("TOKEN_MISSING", "UNKNOWN_PHRASE", "RATE_LIMITED", "MESSAGE_LIMIT"),
    ),
    Route(
        "ProposeRematch",
        "post",
        "/games/{game}/rematch",
        "Propose or join the rematch",
        (
            "For a player of a finished game (GAME_NOT_FINISHED before): the first request "
            "creates the rematch (the same seats, bots and settings, every person's seat "
            "open) and records it in the log as `rematch_proposed`; every later one returns "
            "the same game with `created` false. Then take your seat with JoinGame. The "
            "finished game's `rematch` names it. The body may be empty."
        ),
        body=True,
        token="required",
        reasons=("TOKEN_MISSING", "GAME_NOT_FINISHED"),
    ),
)

#: RPCs with no HTTP route: a client-side stream of actions is, over HTTP, a POST
#: to /actions per action.
GRPC_ONLY = frozenset({"SubmitActions"})

#: The routes by RPC.
BY_RPC = {route.rpc: route for route in ROUTES}
