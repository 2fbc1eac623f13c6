"""The JSON API: one route per RPC of ``tongiaki.v1.GameService``, and the event stream.

Bodies and answers are the RPC's request and response messages in the proto3
JSON mapping (:mod:`webclient.wire`); the game's name comes from the path. A
seat token travels as ``Authorization: Bearer <token>`` exactly as on gRPC.
Errors are ``{"error": {"code", "status", "reason", "message", "metadata"}}``
with the server's reason code.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context
from google.protobuf import json_format
from google.protobuf.message import Message

from tongiaki import nesting
from tongiaki.client import request_id
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from webclient.feeds import FATAL, FeedHub, frame
from webclient.limits import (
    GAME_ID,
    MAX_AUTHORIZATION,
    MAX_JSON_DEPTH,
    MAX_SEQUENCE,
    GatewayReason,
    Refused,
    StreamLimits,
)
from webclient.openapi import document
from webclient.reference import page
from webclient.routes import ROUTES
from webclient.upstream import Upstream, UpstreamError
from webclient.wire import from_json, to_json

api = Blueprint("api", __name__, url_prefix="/api/v1")


def _upstream() -> Upstream:
    upstream: Upstream = current_app.extensions["tongiaki.upstream"]
    return upstream


def _hub() -> FeedHub:
    hub: FeedHub = current_app.extensions["tongiaki.feeds"]
    return hub


def _streams() -> StreamLimits:
    limits: StreamLimits = current_app.extensions["tongiaki.streams"]
    return limits


def client_address() -> str:
    """The address of the client: the connection's peer (a header could be forged)."""
    return request.remote_addr or ""


def _token() -> str | None:
    """The seat token of ``Authorization: Bearer <token>``, or None.

    Raises :class:`UpstreamError` for two headers (the HTTP server keeps both,
    joined by a line feed) and for a value that is not a bearer token of
    printable ASCII.
    """
    header = request.headers.get("Authorization")
    if header is None:
        return None
    if "\n" in header:
        raise UpstreamError(
            "INVALID_ARGUMENT",
            "send one Authorization header, not several",
            GatewayReason.AUTHORIZATION_REPEATED,
        )
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if (
        scheme.lower() != "bearer"
        or not token
        or len(header) > MAX_AUTHORIZATION
        or not all("!" <= char <= "~" for char in token)
    ):
        raise UpstreamError(
            "UNAUTHENTICATED",
            "Authorization must be 'Bearer <token>', the token in printable ASCII",
            GatewayReason.TOKEN_INVALID,
        )
    return token


def _refused(error: UpstreamError) -> Response:
    """The JSON error answer for ``error``, with its HTTP status."""
    response = jsonify(error.to_json())
    response.status_code = error.http_status
    return response


def _bad_request(message: str) -> Response:
    return _refused(UpstreamError("INVALID_ARGUMENT", message, reason="INVALID_REQUEST"))


def _body() -> Any:
    """The JSON body (``{}`` if there is none); :class:`UpstreamError` if it is not JSON.

    The body's size is limited by ``MAX_CONTENT_LENGTH`` before it is read, and
    its nesting before it is parsed.
    """
    data = request.get_data(cache=True)
    if not data:
        return {}
    if nesting.depth(data, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise UpstreamError(
            "INVALID_ARGUMENT",
            f"the body nests deeper than {MAX_JSON_DEPTH} levels",
            GatewayReason.INVALID_REQUEST,
        )
    try:
        body = json.loads(data, parse_float=_finite, parse_constant=_no_constant)
    except _NotFinite as error:
        raise UpstreamError("INVALID_ARGUMENT", str(error), GatewayReason.INVALID_REQUEST) from None
    except (ValueError, RecursionError):
        raise UpstreamError(
            "INVALID_ARGUMENT", "the body is not JSON", GatewayReason.INVALID_REQUEST
        ) from None
    try:
        # An escaped lone surrogate (\ud800) is valid JSON but no text: refused here.
        json.dumps(body, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise UpstreamError(
            "INVALID_ARGUMENT",
            "the body holds an unpaired surrogate (\\ud800-\\udfff): not text",
            GatewayReason.INVALID_REQUEST,
        ) from None
    return body


class _NotFinite(ValueError):
    """A number JSON can write but no field can hold (1e999, NaN, Infinity)."""


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"the number {text[:40]} is out of range")
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite(f"{text} is not a number JSON allows")


def _call(method: str, message: Message, *, fresh_id: bool = False, **fields: Any) -> Response:
    """Fill ``message`` from the JSON body and path, call ``method``, answer in JSON.

    ``fresh_id``: a request that may leave its ``request_id`` out gets a fresh one
    when the body has none, so the gateway's own retries of it act once.
    """
    try:
        body = _body()
        from_json(body, message)
    except UpstreamError as error:
        return _refused(error)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        return _bad_request(str(error)[:500])
    for key, value in fields.items():
        setattr(message, key, value)
    if fresh_id and not message.request_id:  # type: ignore[attr-defined]
        message.request_id = request_id()  # type: ignore[attr-defined]
    return _answer(method, message)


def _answer(method: str, message: Message) -> Response:
    try:
        reply = _upstream().call(method, message, _token(), client=client_address())
    except UpstreamError as error:
        return _refused(error)
    response = jsonify(to_json(reply))
    response.headers["Cache-Control"] = "no-store"
    return response


def _name(game: str) -> str:
    return f"games/{game}"


@api.url_value_preprocessor
def _check_game(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """A game id in the path must be one the server could have given."""
    game = (values or {}).get("game")
    if game is not None and not GAME_ID.fullmatch(game):
        raise UpstreamError(
            "NOT_FOUND", "no game has that name", "GAME_NOT_FOUND", {"name": _name(game)[:80]}
        )


def create_game() -> Response:
    """CreateGame."""
    return _call("CreateGame", spb.CreateGameRequest(), fresh_id=True)


def list_games() -> Response:
    """ListGames; the request's fields are query parameters."""
    message = spb.ListGamesRequest()
    try:
        if "page_size" in request.args:
            message.page_size = int(request.args["page_size"])
        message.page_token = request.args.get("page_token", "")
        state = request.args.get("state")
        if state:
            message.state = pb.GameState.Value(state) if not state.isdigit() else int(state)  # type: ignore[assignment]
        message.open_seats = _flag(request.args.get("open_seats"))
    except ValueError as error:
        return _bad_request(str(error))
    return _answer("ListGames", message)


def _flag(value: str | None) -> bool:
    """A boolean query parameter: true/1, false/0 or absent."""
    if value in (None, "", "false", "0"):
        return False
    if value in ("true", "1"):
        return True
    raise ValueError(f"{value!r} is not true or false")


def get_game(game: str) -> Response:
    """GetGame, as the caller's seat (with a token) or as a spectator; ``?at_sequence=N``
    for the game right after entry N, as a spectator saw it."""
    message = spb.GetGameRequest(name=_name(game))
    at = request.args.get("at_sequence")
    if at is not None:
        try:
            message.at_sequence = int(at)
        except ValueError:
            return _bad_request("at_sequence must be a sequence number")
    return _answer("GetGame", message)


def list_game_entries(game: str) -> Response:
    """ListGameEntries; ``after_sequence`` and ``page_size`` are query parameters."""
    message = spb.ListGameEntriesRequest(name=_name(game))
    try:
        message.after_sequence = int(request.args.get("after_sequence", "0"))
        message.page_size = int(request.args.get("page_size", "0"))
    except ValueError:
        return _bad_request("after_sequence and page_size must be numbers")
    return _answer("ListGameEntries", message)


def take_back(game: str) -> Response:
    """TakeBack."""
    return _call("TakeBack", spb.TakeBackRequest(), name=_name(game))


def send_message(game: str) -> Response:
    """SendMessage."""
    return _call("SendMessage", spb.SendMessageRequest(), name=_name(game))


def propose_rematch(game: str) -> Response:
    """ProposeRematch."""
    return _call("ProposeRematch", spb.ProposeRematchRequest(), name=_name(game))


def join_game(game: str) -> Response:
    """JoinGame; the seat token in the answer is for the joining browser alone."""
    return _call("JoinGame", spb.JoinGameRequest(), fresh_id=True, name=_name(game))


def start_game(game: str) -> Response:
    """StartGame."""
    return _call("StartGame", spb.StartGameRequest(), fresh_id=True, name=_name(game))


def submit_action(game: str) -> Response:
    """SubmitAction."""
    return _call("SubmitAction", spb.SubmitActionRequest(), name=_name(game))


def leave_game(game: str) -> Response:
    """LeaveGame."""
    return _call("LeaveGame", spb.LeaveGameRequest(), name=_name(game))


def get_game_record(game: str) -> Response:
    """GetGameRecord."""
    return _answer("GetGameRecord", spb.GetGameRecordRequest(name=_name(game)))


def watch_game(game: str) -> Response:
    """WatchGame as Server-Sent Events: ``snapshot`` and ``entry`` events whose id is
    the sequence number; ``Last-Event-ID`` (or ``after_sequence``) resumes."""
    last = request.headers.get("Last-Event-ID") or request.args.get("after_sequence")
    after: int | None = None
    if last:
        if not (last.isascii() and last.isdigit() and len(last) <= 19) or int(last) > MAX_SEQUENCE:
            return _bad_request("Last-Event-ID must be a sequence number")
        after = int(last)
    try:
        _hub().ensure_open()
        close = _streams().open(client_address())
    except UpstreamError as error:
        return _refused(error)
    except Refused as refused:
        full = UpstreamError(
            "UNAVAILABLE" if refused.status == 503 else "RESOURCE_EXHAUSTED",
            refused.message,
            refused.reason,
            {"limit": str(refused.limit)},
        )
        answer = _refused(full)
        answer.headers["Retry-After"] = "5"
        return answer
    try:
        # Nothing is held for a game that does not exist; a position past the
        # game's end is a position from the start. A game with a live feed exists,
        # and is known as far as the feed's last entry.
        live = _hub().live(_name(game))
        if live is None or (after is not None and after > live.last):
            current = _upstream().call("GetGame", spb.GetGameRequest(name=_name(game)))
            assert isinstance(current, spb.GetGameResponse)
            if after is not None and after > current.snapshot.sequence:
                after = None
        feed = _hub().feed(_name(game), after)
    except UpstreamError as error:
        close()
        if error.reason in FATAL and request.accept_mimetypes.best == "text/event-stream":
            # What an EventSource can read: the failure as an event, and the end
            # (a 4xx would only make it retry).
            return Response(frame("failure", error.to_json()), mimetype="text/event-stream")
        return _refused(error)
    response = Response(stream_with_context(feed.stream(after)), mimetype="text/event-stream")
    response.call_on_close(close)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


#: The handler of each route of the table (webclient.routes).
HANDLERS: dict[str, Callable[..., Response]] = {
    "CreateGame": create_game,
    "ListGames": list_games,
    "GetGame": get_game,
    "ListGameEntries": list_game_entries,
    "TakeBack": take_back,
    "SendMessage": send_message,
    "ProposeRematch": propose_rematch,
    "JoinGame": join_game,
    "StartGame": start_game,
    "SubmitAction": submit_action,
    "LeaveGame": leave_game,
    "GetGameRecord": get_game_record,
    "WatchGame": watch_game,
}

for _route in ROUTES:
    api.add_url_rule(_route.rule, _route.rpc, HANDLERS[_route.rpc], methods=[_route.method.upper()])


@api.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI document of this API."""
    return jsonify(document())


@api.get("/reference")
def reference() -> Response:
    """The API's reference for people, its examples aimed at this gateway."""
    return Response(page(request.host_url), mimetype="text/html")
