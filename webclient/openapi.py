"""The OpenAPI 3.1 document of the JSON API, its schemas derived from the contract.

Each operation is one RPC of ``tongiaki.v1.GameService``; request and response
schemas are generated from the message descriptors, so the document cannot
drift from the proto files.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from tongiaki.v1 import game_pb2, game_service_pb2

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
}

#: (path, method, RPC, request fields taken from the path or query, body?)
OPERATIONS: list[tuple[str, str, str, bool]] = [
    ("/api/v1/games", "post", "CreateGame", True),
    ("/api/v1/games", "get", "ListGames", False),
    ("/api/v1/games/{game}", "get", "GetGame", False),
    ("/api/v1/games/{game}/join", "post", "JoinGame", True),
    ("/api/v1/games/{game}/start", "post", "StartGame", True),
    ("/api/v1/games/{game}/actions", "post", "SubmitAction", True),
    ("/api/v1/games/{game}/leave", "post", "LeaveGame", True),
    ("/api/v1/games/{game}/record", "get", "GetGameRecord", False),
    ("/api/v1/games/{game}/take-back", "post", "TakeBack", True),
    ("/api/v1/games/{game}/entries", "get", "ListGameEntries", False),
    ("/api/v1/games/{game}/messages", "post", "SendMessage", True),
    ("/api/v1/games/{game}/rematch", "post", "ProposeRematch", True),
]

#: Operations whose request fields (but the game's name) are query parameters.
QUERY = frozenset({"ListGames", "GetGame", "ListGameEntries"})

#: RPCs with no HTTP operation: a client-side stream of actions is, over HTTP, a
#: POST to /actions per action.
GRPC_ONLY = frozenset({"SubmitActions"})

#: What each operation does, for people: (summary, description).
TEXT: dict[str, tuple[str, str]] = {
    "CreateGame": (
        "Create a game",
        "Seats are 2 to 6 distinct colours in seat order; seat 0 starts. Settings are"
        " optional: a display name, `auto_start`, bot seats, a turn clock, the bot that"
        " takes over, and a `webhook_url` (see docs/embedding.md); or a `tutorial` by name"
        " (`first_game`), which sets the seats, bots and a fixed stack and is never listed."
        " No token needed; the answer's `game.name` is `games/{game}`.",
    ),
    "ListGames": (
        "List games",
        "Oldest first, one page at a time: `page_size` (up to 1000, default 50), the"
        " `page_token` of the previous answer's `next_page_token`, and `state` to keep"
        " only open, active or finished games; `open_seats=true` keeps games with a seat"
        " to take.",
    ),
    "GetGame": (
        "Get a game as you see it",
        "With a seat token, the seat's view; without, a spectator's. `snapshot.view`"
        " (the board and the pending decision with its options) is absent until the game"
        " starts. `at_sequence=N`: the game right after entry N, as a spectator saw it"
        " (for replays).",
    ),
    "JoinGame": (
        "Take a seat",
        "`colour` picks the seat (unspecified: the first open one). The answer's"
        " `seat_token` is the seat's secret: send it as `Authorization: Bearer <token>`"
        " and never in a URL.",
    ),
    "StartGame": (
        "Start the game",
        "Once every seat is taken (SEATS_OPEN before); needs the seat token of any seat"
        " of the game. The body may be empty.",
    ),
    "SubmitAction": (
        "Make a decision",
        "`action` is one of the pending decision's `options`, sent back unchanged (or"
        " `action_json`, its JSON form). `sequence` is the game's sequence the choice was"
        " made at: a stale one is refused with STALE_SEQUENCE. A retry with the same"
        " `request_id` returns the first answer instead of acting twice.",
    ),
    "LeaveGame": (
        "Give up your seat",
        "The token stops working and the seat is open again (in a started game with"
        " `settings.leave_bot`, a bot takes it over). The body may be empty.",
    ),
    "GetGameRecord": (
        "Get a finished game's record",
        "Seats, the stack (top first) and every action: public once the game is over"
        " (GAME_NOT_FINISHED before). `record_json` is the engine's record, which"
        " `python -m engine replay` reads.",
    ),
    "TakeBack": (
        "Take back your last decision",
        "`sequence` is the entry to take back: your own last decision, which must be the"
        " last entry of the log (TAKE_BACK_NOT_LAST otherwise, TAKE_BACK_NOT_YOURS for"
        " another seat's or a bot's); refused once it drew a tile (TAKE_BACK_AFTER_DRAW)."
        " Recorded as an `action_taken_back` entry with the board after it. A retry with"
        " the same `request_id` returns the first answer.",
    ),
    "ListGameEntries": (
        "Read a game's log",
        "The whole public log of a running or finished game, oldest first:"
        " `after_sequence` (0: from the first entry) and `page_size` (default 500, up to"
        " 2000); `more` says whether entries follow the page.",
    ),
    "SendMessage": (
        "Send a quick message",
        "`phrase` is one of the predefined phrases (UNKNOWN_PHRASE otherwise): no free"
        " text, each client shows it in its reader's language. For your own seat, in any"
        " state of the game; recorded as a `message_sent` entry that changes nothing in"
        " the game (an action chosen before it is still current). Limited per seat"
        " (RATE_LIMITED, with `retry_after_seconds`) and per game (MESSAGE_LIMIT). A retry"
        " with the same `request_id` returns the first answer.",
    ),
    "ProposeRematch": (
        "Propose or join the rematch",
        "For a player of a finished game (GAME_NOT_FINISHED before): the first request"
        " creates the rematch (the same seats, bots and settings, every person's seat"
        " open) and records it in the log as `rematch_proposed`; every later one returns"
        " the same game with `created` false. Then take your seat with JoinGame. The"
        " finished game's `rematch` names it. The body may be empty.",
    ),
}

#: A request body for each operation with one: real values, accepted as they are.
EXAMPLES: dict[str, dict[str, Any]] = {
    "CreateGame": {
        "seats": ["COLOUR_YELLOW", "COLOUR_RED", "COLOUR_BLUE"],
        "settings": {
            "display_name": "Friday evening",
            "bots": [{"colour": "COLOUR_BLUE", "level": "BOT_LEVEL_GREEDY"}],
            "turn_timeout_seconds": 300,
            "timeout_bot": "BOT_LEVEL_RANDOM",
        },
    },
    "JoinGame": {"colour": "COLOUR_YELLOW", "display_name": "Ana"},
    "StartGame": {},
    "TakeBack": {"sequence": "4", "request_id": "9a1b77c2e3f0"},
    "SubmitAction": {
        "sequence": "3",
        "request_id": "5f2c9e1a07d4",
        "action": {"setup": {"beach": {"q": 0, "r": 0, "index": 0}}},
    },
    "LeaveGame": {},
    "SendMessage": {"phrase": "PHRASE_GOOD_GAME", "request_id": "3c41d0e2a9b8"},
    "ProposeRematch": {},
}

#: Query parameters' examples.
QUERY_EXAMPLES: dict[str, Any] = {"page_size": 20, "state": "GAME_STATE_OPEN"}

#: Where the human reference page is served.
REFERENCE_PATH = "/api/v1/reference"


def _ref(descriptor: Descriptor | EnumDescriptor) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{descriptor.full_name}"}


def _message(field: FieldDescriptor) -> Descriptor | None:
    """The message type of a message field that has a schema of its own."""
    kind = field.message_type
    if kind is None or kind.full_name == "google.protobuf.Timestamp":
        return None
    return kind


def _field(field: FieldDescriptor) -> dict[str, Any]:
    message = _message(field)
    if message is not None:
        schema: dict[str, Any] = _ref(message)
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        schema = {"type": "string", "format": "date-time"}
    elif field.enum_type is not None:
        schema = _ref(field.enum_type)
    else:
        schema = dict(_SCALARS[field.type])
    repeated: Any = getattr(field, "is_repeated", None)
    if repeated is None:
        repeated = getattr(field, "label", 0) == FieldDescriptor.LABEL_REPEATED
    return {"type": "array", "items": schema} if repeated else schema


def _schemas() -> dict[str, Any]:
    out: dict[str, Any] = {}
    todo: list[Descriptor | EnumDescriptor] = [
        *game_pb2.DESCRIPTOR.message_types_by_name.values(),
        *game_pb2.DESCRIPTOR.enum_types_by_name.values(),
        *game_service_pb2.DESCRIPTOR.message_types_by_name.values(),
    ]
    while todo:
        descriptor = todo.pop()
        if descriptor.full_name in out:
            continue
        if isinstance(descriptor, EnumDescriptor):
            out[descriptor.full_name] = {
                "type": "string",
                "enum": [v.name for v in descriptor.values],
            }
            continue
        properties = {}
        for field in descriptor.fields:
            properties[field.name] = _field(field)
            message = _message(field)
            if message is not None:
                todo.append(message)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        oneofs = [o for o in descriptor.oneofs if not o.name.startswith("_")]
        if oneofs:
            schema["description"] = "; ".join(
                f"at most one of {', '.join(f.name for f in o.fields)}" for o in oneofs
            )
        out[descriptor.full_name] = schema
    return dict(sorted(out.items()))


def _error() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "integer", "description": "HTTP status"},
                    "status": {"type": "string", "description": "gRPC status code name"},
                    "reason": {"type": "string", "description": "ErrorInfo reason code"},
                    "message": {"type": "string", "description": "for developers, English"},
                    "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            }
        },
    }


@cache
def document() -> dict[str, Any]:
    """The whole OpenAPI document."""
    service = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    paths: dict[str, Any] = {}
    for path, verb, rpc, has_body in OPERATIONS:
        method = service.methods_by_name[rpc]
        request, response = method.input_type, method.output_type
        summary, description = TEXT[rpc]
        operation: dict[str, Any] = {
            "operationId": rpc,
            "summary": summary,
            "description": f"{description}\n\ngRPC: `tongiaki.v1.GameService/{rpc}`.",
            "security": [{}, {"seatToken": []}],
            "responses": {
                "200": {"content": {"application/json": {"schema": _ref(response)}}},
                "default": {
                    "description": "refused; `reason` says why",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                },
            },
        }
        parameters = []
        if "{game}" in path:
            parameters.append(
                {
                    "name": "game",
                    "in": "path",
                    "required": True,
                    "description": "the game id; the request's `name` is `games/{game}`",
                    "schema": {"type": "string"},
                }
            )
        if has_body:
            operation["requestBody"] = {
                "content": {
                    "application/json": {
                        "schema": _ref(request),
                        "example": EXAMPLES[rpc],
                    }
                },
                "description": "the request message; `name` comes from the path",
            }
        elif rpc in QUERY:
            for field in request.fields:
                if field.name == "name":
                    continue
                parameter: dict[str, Any] = {
                    "name": field.name,
                    "in": "query",
                    "schema": _field(field),
                }
                if field.name in QUERY_EXAMPLES:
                    parameter["example"] = QUERY_EXAMPLES[field.name]
                parameters.append(parameter)
        if parameters:
            operation["parameters"] = parameters
        paths.setdefault(path, {})[verb] = operation
    paths["/api/v1/games/{game}/events"] = {
        "get": {
            "operationId": "WatchGame",
            "summary": "Follow a game live (Server-Sent Events)",
            "description": (
                "gRPC: `tongiaki.v1.GameService/WatchGame`, as Server-Sent Events."
                " Events `snapshot` (data: GameSnapshot) and `entry` (data: {sequence, entry:"
                " LogEntry, snapshot?: GameSnapshot right after the entry, as a spectator sees"
                " it: every entry carries it, so a client never asks for `at_sequence` while"
                " it follows}), each with `id` = its"
                " sequence number; `end` once a finished game has been sent whole; `failure`"
                " (data: an error body) when the game cannot be watched. Reconnecting with"
                " `Last-Event-ID` resumes after that sequence."
            ),
            "parameters": [
                {"name": "game", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}},
                {"name": "after_sequence", "in": "query", "schema": {"type": "string"}},
            ],
            "responses": {
                "200": {"content": {"text/event-stream": {"schema": {"type": "string"}}}}
            },
        }
    }
    schemas = _schemas()
    schemas["Error"] = _error()
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tongiaki web gateway",
            "version": "v1",
            "description": (
                "The tongiaki.v1.GameService over HTTP and JSON (proto3 JSON mapping);"
                f" gRPC only: {', '.join(sorted(GRPC_ONLY))}. A page for people, with"
                f" examples: {REFERENCE_PATH}."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "seatToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the seat_token of JoinGame",
                }
            },
        },
    }
