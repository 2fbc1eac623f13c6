"""The codec: translation between the engine's values and the tongiaki.v1 messages.

This is the one module that knows both the engine and the protobuf messages.
Everything the engine says (options, decisions, events, views, records) has a
typed message; an action received as a message becomes exactly the dict
CONFORMANCE.md writes, so the engine's checked ``apply`` decides legality with
its "equal as JSON" rule. Log entries are encoded once, as the watch frames
that every watcher, the resume window and the SubmitAction reply share.
Nothing here knows about tokens, owners or transport.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from engine import COLOURS, ActionError, Reason, canonical
from server.game import entries as log
from server.game.errors import ServiceError, invalid
from server.storage.base import Stored
from tongiaki import nesting
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.vocabulary import BOT_LEVELS

Json = Any

#: Colour name -> enum value, and back.
COLOUR: dict[str, pb.Colour.ValueType] = {
    c: pb.Colour.Value(f"COLOUR_{c.upper()}") for c in COLOURS
}
COLOUR_NAME: dict[int, str] = {v: k for k, v in COLOUR.items()}

#: Bot level name -> enum value, and back.
LEVEL: dict[str, pb.BotLevel.ValueType] = {
    level: pb.BotLevel.Value(f"BOT_LEVEL_{level.upper()}") for level in BOT_LEVELS
}
LEVEL_NAME: dict[int, str] = {v: k for k, v in LEVEL.items()}

#: Takeover reason name -> enum value.
REASON: dict[str, pb.TakeoverReason.ValueType] = {
    "left": pb.TAKEOVER_REASON_LEFT,
    "timed_out": pb.TAKEOVER_REASON_TIMED_OUT,
    "turn_too_long": pb.TAKEOVER_REASON_TURN_TOO_LONG,
}

#: Quick-message phrase name -> enum value, and back.
PHRASE: dict[str, pb.Phrase.ValueType] = {
    p: pb.Phrase.Value(f"PHRASE_{p.upper()}") for p in log.PHRASES
}
PHRASE_NAME: dict[int, str] = {v: k for k, v in PHRASE.items()}

_DECISION: dict[str, pb.DecisionKind.ValueType] = {
    k: pb.DecisionKind.Value(f"DECISION_KIND_{k.upper()}")
    for k in ("setup", "turn", "emigrate", "land", "place", "settle_ship")
}
_SHIP_WHY: dict[str, pb.ShipPlacement.ValueType] = {
    k: pb.ShipPlacement.Value(f"SHIP_PLACEMENT_{k.upper()}")
    for k in ("setup", "expand", "tonga", "single", "settle")
}
_TILE_WHY: dict[str, pb.TilePlacement.ValueType] = {
    k: pb.TilePlacement.Value(f"TILE_PLACEMENT_{k.upper()}")
    for k in ("voyage", "settle", "recover")
}

#: Longest ``action_json`` accepted, in characters.
MAX_ACTION_JSON = 4096
#: Deepest nesting of arrays and objects in an ``action_json`` (actions nest 3 deep).
MAX_ACTION_DEPTH = 8


def _malformed(message: str) -> ActionError:
    return ActionError(Reason.MALFORMED_ACTION, message)


# ---------------------------------------------------------------- small values


def hex_(value: Sequence[int]) -> pb.Hex:
    """``[q, r]`` as a Hex."""
    return pb.Hex(q=value[0], r=value[1])


def beach(value: Sequence[int]) -> pb.Beach:
    """``[q, r, b]`` as a Beach."""
    return pb.Beach(q=value[0], r=value[1], index=value[2])


def colours(values: Iterable[str]) -> list[pb.Colour.ValueType]:
    """Colour names as enum values."""
    return [COLOUR[c] for c in values]


def counts(values: Mapping[str, int]) -> list[pb.ColourCount]:
    """``{colour: n}`` as ColourCounts, in the mapping's order."""
    return [pb.ColourCount(colour=COLOUR[c], count=n) for c, n in values.items()]


def results(result: Mapping[str, Mapping[str, int]]) -> list[pb.PlayerResult]:
    """R13's figures (points, islands, ships, rank by colour) per player."""
    return [
        pb.PlayerResult(
            colour=COLOUR[c],
            points=p,
            islands=result["islands"][c],
            ships=result["ships"][c],
            rank=result["rank"][c],
        )
        for c, p in result["points"].items()
    ]


# ---------------------------------------------------------------- actions


def action_to_proto(action: Mapping[str, Json]) -> pb.Action:
    """An engine action (one of CONFORMANCE.md's option shapes) as an Action message."""
    act = action["act"]
    if act == "setup":
        return pb.Action(setup=pb.SetupAction(beach=beach(action["beach"])))
    if act == "expand":
        take = action["take"]
        return pb.Action(
            expand=pb.ExpandAction(
                island=hex_(action["island"]),
                beaches=action["beaches"],
                take=beach(take) if take is not None else None,
            )
        )
    if act == "royal":
        return pb.Action(royal=pb.RoyalAction(island=hex_(action["island"])))
    if act == "settle":
        return pb.Action(settle=pb.SettleAction())
    if act == "tonga":
        return pb.Action(tonga=pb.TongaAction(beaches=action["beaches"]))
    if act == "single":
        return pb.Action(single=pb.SingleAction(beach=beach(action["beach"])))
    if act == "emigrate":
        return pb.Action(
            emigrate=pb.EmigrateAction(beach=beach(action["beach"]), dir=action["dir"])
        )
    if act == "land":
        return pb.Action(
            land=pb.LandAction(
                ships=[pb.LandingShip(beach=b, colour=COLOUR[c]) for b, c in action["ships"]]
            )
        )
    if act == "place":
        return pb.Action(place=pb.PlaceAction(origin=hex_(action["from"]), dir=action["dir"]))
    if act == "settle_ship":
        return pb.Action(settle_ship=pb.SettleShipAction(beach=beach(action["beach"])))
    raise ValueError(f"unknown act {act!r}")


def _need(message: Any, field: str, act: str) -> Any:
    if not message.HasField(field):
        raise _malformed(f"{act!r}: {field!r} is missing")
    return getattr(message, field)


def _hex_list(message: Any, field: str, act: str) -> list[int]:
    h = _need(message, field, act)
    return [h.q, h.r]


def _beach_list(message: Any, field: str, act: str) -> list[int]:
    b = _need(message, field, act)
    return [b.q, b.r, b.index]


def _colour_name(value: int, act: str) -> str:
    name = COLOUR_NAME.get(value)
    if name is None:
        raise _malformed(f"{act!r}: a ship has no colour")
    return name


def action_from_proto(action: pb.Action) -> dict[str, Json]:
    """An Action message as the engine's action dict; MALFORMED_ACTION if incomplete."""
    act = action.WhichOneof("act")
    if act is None:
        raise _malformed("the action names no act")
    body = getattr(action, act)
    if act in ("setup", "single", "settle_ship"):
        return {"act": act, "beach": _beach_list(body, "beach", act)}
    if act == "expand":
        take = _beach_list(body, "take", act) if body.HasField("take") else None
        return {
            "act": act,
            "island": _hex_list(body, "island", act),
            "beaches": list(body.beaches),
            "take": take,
        }
    if act == "royal":
        return {"act": act, "island": _hex_list(body, "island", act)}
    if act == "settle":
        return {"act": act}
    if act == "tonga":
        return {"act": act, "beaches": list(body.beaches)}
    if act == "emigrate":
        return {"act": act, "beach": _beach_list(body, "beach", act), "dir": body.dir}
    if act == "land":
        return {"act": act, "ships": [[s.beach, _colour_name(s.colour, act)] for s in body.ships]}
    if act == "place":
        return {"act": act, "from": _hex_list(body, "origin", act), "dir": body.dir}
    raise _malformed(f"unknown act {act!r}")  # pragma: no cover - the oneof has no other


def action_of(request: spb.SubmitActionRequest | spb.SubmitActionsRequest) -> Json:
    """The action of a submit request, typed or as JSON; refused as MALFORMED_ACTION."""
    payload = request.WhichOneof("payload")
    try:
        if payload == "action":
            return action_from_proto(request.action)
        if payload == "action_json":
            return action_from_json(request.action_json)
    except ActionError as error:
        raise ServiceError.from_engine(error) from None
    raise invalid("send action or action_json", field="payload")


def action_from_json(text: str) -> Json:
    """CONFORMANCE.md's JSON text of an action as a value for the engine to check."""
    if len(text) > MAX_ACTION_JSON:
        raise _malformed(f"action_json is longer than {MAX_ACTION_JSON} characters")
    if nesting.depth(text, MAX_ACTION_DEPTH) > MAX_ACTION_DEPTH:
        raise _malformed(f"action_json nests deeper than {MAX_ACTION_DEPTH} levels")
    try:
        return json.loads(text)
    except ValueError as error:
        raise _malformed(f"action_json is not JSON: {error}") from None


# ---------------------------------------------------------------- decisions and views


def decision_to_proto(decision: Mapping[str, Json]) -> pb.Decision:
    """A decision as CONFORMANCE.md writes it (``Decision.to_dict()``) as a message."""
    return pb.Decision.FromString(decision_bytes(decision))


def varint(value: int) -> bytes:
    """``value`` (not negative) as a protobuf base-128 varint."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_bytes(number: int, data: bytes) -> bytes:
    """A length-delimited field ``number`` holding ``data``, as encoded in a message."""
    return varint(number << 3 | 2) + varint(len(data)) + data


#: Encoded ``Decision.options`` fields by option, shared by every game (options recur).
_OPTION_FIELDS: dict[str, bytes] = {}
_OPTION_FIELDS_MAX = 20_000
_OPTIONS = pb.Decision.DESCRIPTOR.fields_by_name["options"].number


def _option_field(option: Mapping[str, Json]) -> bytes:
    key = repr(option)
    data = _OPTION_FIELDS.get(key)
    if data is None:
        if len(_OPTION_FIELDS) >= _OPTION_FIELDS_MAX:
            _OPTION_FIELDS.clear()
        data = field_bytes(_OPTIONS, action_to_proto(option).SerializeToString())
        _OPTION_FIELDS[key] = data
    return data


def decision_bytes(decision: Mapping[str, Json]) -> bytes:
    """``decision_to_proto(decision)`` encoded, its options' encodings reused across calls.

    The fields come out in field-number order, byte for byte what encoding the
    message would give.
    """
    head = pb.Decision(kind=_DECISION[decision["kind"]], player=COLOUR[decision["player"]])
    tail = pb.Decision()
    if "island" in decision:
        tail.island.CopyFrom(hex_(decision["island"]))
    if "group" in decision:
        tail.group.extend(colours(decision["group"]))
    if "why" in decision:
        tail.why = _TILE_WHY[decision["why"]]
    return (
        head.SerializeToString()
        + b"".join([_option_field(o) for o in decision["options"]])
        + tail.SerializeToString()
    )


def view_to_proto(view: Mapping[str, Json]) -> pb.GameView:
    """``Game.view(viewer)`` as a GameView."""
    message = pb.GameView(
        tiles=[
            pb.PlacedTile(at=pb.Hex(q=q, r=r), tile=t, rot=rot) for q, r, t, rot in view["tiles"]
        ],
        beaches=[
            pb.BeachShips(beach=pb.Beach(q=q, r=r, index=b), colours=colours(cs))
            for q, r, b, cs in view["beaches"]
        ],
        royal=[
            pb.RoyalIsland(island=pb.Hex(q=q, r=r), colour=COLOUR[c]) for q, r, c in view["royal"]
        ],
        removed=view["removed"],
        stack=pb.StackCounts(**view["stack"]),
        supply=counts(view["supply"]),
        at_sea=colours(view["at_sea"]),
        seats=colours(view["seats"]),
        active=COLOUR[view["active"]],
        founded=counts(view["founded"]),
        scores=counts(view["scores"]),
        stack_tiles=view["stack_tiles"],
        step=view["step"],
    )
    if view["decision"] is not None:
        message.decision.CopyFrom(decision_to_proto(view["decision"]))
    if view["result"] is not None:
        message.result.extend(results(view["result"]))
    if view.get("viewer") is not None:
        message.viewer = COLOUR[view["viewer"]]
    return message


def record_to_proto(record: Mapping[str, Json]) -> pb.GameRecord:
    """A game record (seats, stack, actions) as a GameRecord."""
    return pb.GameRecord(
        seats=colours(record["seats"]),
        stack=record["stack"],
        actions=[action_to_proto(a) for a in record["actions"]],
    )


# ---------------------------------------------------------------- events


def _returned(e: Mapping[str, Json]) -> list[pb.ColourCount]:
    return counts(e["returned"])


def _crossing(e: Mapping[str, Json]) -> dict[str, Any]:
    return {
        "at": hex_(e["at"]),
        "tile": e["tile"],
        "enter": e["enter"],
        "exit": e["exit"],
        "danger": e["danger"],
        "colours": e["colours"],
    }


_EVENTS: dict[str, Callable[[Mapping[str, Json]], pb.Event]] = {
    "ships_placed": lambda e: pb.Event(
        ships_placed=pb.ShipsPlaced(
            player=COLOUR[e["player"]],
            beaches=[beach(b) for b in e["beaches"]],
            why=_SHIP_WHY[e["why"]],
        )
    ),
    "ship_taken": lambda e: pb.Event(
        ship_taken=pb.ShipTaken(player=COLOUR[e["player"]], beach=beach(e["beach"]))
    ),
    "emigrated": lambda e: pb.Event(
        emigrated=pb.Emigrated(
            player=COLOUR[e["player"]],
            beach=beach(e["beach"]),
            dir=e["dir"],
            group=colours(e["group"]),
        )
    ),
    "tile_placed": lambda e: pb.Event(
        tile_placed=pb.TilePlaced(
            tile=e["tile"],
            at=hex_(e["at"]),
            rot=e["rot"],
            why=_TILE_WHY[e["why"]],
            stack=pb.StackCounts(**e["stack"]),
        )
    ),
    "sea_crossed": lambda e: pb.Event(sea_crossed=pb.SeaCrossed(**_crossing(e))),
    "voyage_failed": lambda e: pb.Event(
        voyage_failed=pb.VoyageFailed(**_crossing(e), returned=_returned(e))
    ),
    "bounced": lambda e: pb.Event(
        bounced=pb.Bounced(at=hex_(e["at"]), owner=COLOUR[e["owner"]], back_to=hex_(e["back_to"]))
    ),
    "stranded": lambda e: pb.Event(
        stranded=pb.Stranded(at=hex_(e["at"]), tile=e["tile"], group=colours(e["group"]))
    ),
    "landed": lambda e: pb.Event(
        landed=pb.Landed(
            player=COLOUR[e["player"]],
            island=hex_(e["island"]),
            ships=[pb.LandingShip(beach=b, colour=COLOUR[c]) for b, c in e["ships"]],
            returned=_returned(e),
        )
    ),
    "royal_founded": lambda e: pb.Event(
        royal_founded=pb.RoyalFounded(
            player=COLOUR[e["player"]],
            island=hex_(e["island"]),
            tile=e["tile"],
            returned=_returned(e),
        )
    ),
    "settlement_started": lambda e: pb.Event(
        settlement_started=pb.SettlementStarted(player=COLOUR[e["player"]], returned=e["returned"])
    ),
    "island_removed": lambda e: pb.Event(
        island_removed=pb.IslandRemoved(
            island=hex_(e["island"]), tile=e["tile"], returned=_returned(e)
        )
    ),
    "turn_started": lambda e: pb.Event(turn_started=pb.TurnStarted(player=COLOUR[e["player"]])),
    "turn_ended": lambda e: pb.Event(turn_ended=pb.TurnEnded(player=COLOUR[e["player"]])),
    "game_over": lambda e: pb.Event(game_over=pb.GameOver(results=results(e))),
}

#: Event kinds with a message of their own.
EVENT_KINDS: frozenset[str] = frozenset(_EVENTS)


def event_to_proto(event: Mapping[str, Json]) -> pb.Event:
    """One engine event (``{"kind": ..., fields}``) as an Event; fields added later are ignored."""
    return _EVENTS[event["kind"]](event)


def events_to_proto(events: Iterable[Mapping[str, Json]]) -> list[pb.Event]:
    """Engine events as Event messages, in order."""
    return [_EVENTS[e["kind"]](e) for e in events]


# ---------------------------------------------------------------- games


def settings_to_proto(settings: Mapping[str, Json]) -> pb.GameSettings:
    """The GameSettings message of stored settings."""
    return pb.GameSettings(
        display_name=settings.get("display_name", ""),
        auto_start=bool(settings.get("auto_start")),
        bots=[
            pb.BotSeat(colour=COLOUR[c], level=LEVEL[level])
            for c, level in settings.get("bots", {}).items()
        ],
        turn_timeout_seconds=float(settings.get("turn_timeout_seconds") or 0),
        timeout_bot=LEVEL.get(settings.get("timeout_bot") or "", pb.BOT_LEVEL_UNSPECIFIED),
        leave_bot=LEVEL.get(settings.get("leave_bot") or "", pb.BOT_LEVEL_UNSPECIFIED),
        max_turn_decisions=int(settings.get("max_turn_decisions") or 0),
        tutorial=str(settings.get("tutorial") or ""),
    )


_STATE: dict[str, pb.GameState.ValueType] = {
    "open": pb.GAME_STATE_OPEN,
    "active": pb.GAME_STATE_ACTIVE,
    "finished": pb.GAME_STATE_FINISHED,
}
#: GameState value -> stored state name.
STATE_NAME: dict[int, str] = {v: k for k, v in _STATE.items()}


def game_to_proto(game: Stored) -> pb.Game:
    """The Game resource of a game's set-up and summary (see server.storage.base)."""
    setup, summary = game.setup, game.summary
    stamp = Timestamp()
    stamp.FromNanoseconds(int(setup.created * 1e9))
    return pb.Game(
        name="games/" + setup.id,
        state=_STATE[summary.state],
        sequence=summary.sequence,
        create_time=stamp,
        settings=settings_to_proto(setup.settings),
        seats=[
            pb.Seat(
                colour=COLOUR[s["colour"]],
                occupied=s["occupied"],
                display_name=s["name"],
                bot=LEVEL[s["bot"]] if s["bot"] else pb.BOT_LEVEL_UNSPECIFIED,
                takeover=REASON[s["takeover"]] if s["takeover"] else pb.TAKEOVER_REASON_UNSPECIFIED,
            )
            for s in summary.seats
        ],
        results=results(summary.result) if summary.result is not None else [],
        rematch="games/" + summary.rematch if summary.rematch else "",
        stopped=stopped_to_proto(summary.stopped),
    )


def stopped_to_proto(stopped: Mapping[str, Json] | None) -> pb.GameStopped | None:
    """The GameStopped message of a stopped game's summary (None: not stopped)."""
    if stopped is None:
        return None
    return pb.GameStopped(reason=str(stopped["reason"]), rounds=int(stopped["rounds"]))


def snapshot_to_proto(game: Stored, view: Mapping[str, Json] | None) -> pb.GameSnapshot:
    """A snapshot: the game resource and, once started, the board as one viewer sees it."""
    snapshot = pb.GameSnapshot(sequence=game.summary.sequence, game=game_to_proto(game))
    if view is not None:
        snapshot.view.CopyFrom(view_to_proto(view))
    return snapshot


def record_response(record: Mapping[str, Json]) -> spb.GetGameRecordResponse:
    """A finished game's record, typed and as canonical JSON."""
    return spb.GetGameRecordResponse(record=record_to_proto(record), record_json=canonical(record))


# ---------------------------------------------------------------- log entries as frames

#: Encoded tags: LogEntry.sequence, LogEntry.action_applied, WatchGameResponse.entries
#: and SubmitActionResponse.entry (the last two hold the same LogEntry encoding).
_SEQUENCE_TAG = varint(pb.LogEntry.DESCRIPTOR.fields_by_name["sequence"].number << 3)
_CHANGE = {name: f.number for name, f in pb.LogEntry.DESCRIPTOR.fields_by_name.items()}
_DECISION_FIELD = pb.ActionApplied.DESCRIPTOR.fields_by_name["decision"].number
_FRAME_TAG = varint(spb.WatchGameResponse.DESCRIPTOR.fields_by_name["entries"].number << 3 | 2)
_REPLY_TAG = varint(spb.SubmitActionResponse.DESCRIPTOR.fields_by_name["entry"].number << 3 | 2)
_LIST_TAG = varint(spb.ListGameEntriesResponse.DESCRIPTOR.fields_by_name["entries"].number << 3 | 2)
_LATEST = spb.WatchGameResponse.DESCRIPTOR.fields_by_name["latest"].number
_BOARDS = spb.WatchGameResponse.DESCRIPTOR.fields_by_name["boards"].number


def _frame(sequence: int, change: str, data: bytes) -> bytes:
    entry = _SEQUENCE_TAG + varint(sequence) + field_bytes(_CHANGE[change], data)
    return _FRAME_TAG + varint(len(entry)) + entry


def frame(
    sequence: int,
    entry: log.LogEntry,
    *,
    view: Mapping[str, Json] | None = None,
    events: Sequence[Mapping[str, Json]] = (),
    decision: Mapping[str, Json] | None = None,
) -> bytes:
    """The encoded ``WatchGameResponse`` holding one log entry.

    ``view`` is the board when the game started (or after a take-back); ``events`` and ``decision``
    what an action did and the decision after it.
    """
    if isinstance(entry, log.Acted):
        applied = pb.ActionApplied(
            player=COLOUR[entry.player],
            action=action_to_proto(entry.action),
            events=events_to_proto(events),
        ).SerializeToString()
        if decision is not None:
            applied += field_bytes(_DECISION_FIELD, decision_bytes(decision))
        return _frame(sequence, "action_applied", applied)
    message: Message
    if isinstance(entry, log.Joined):
        change = "seat_joined"
        message = pb.SeatJoined(colour=COLOUR[entry.colour], display_name=entry.name)
    elif isinstance(entry, log.Left):
        change = "seat_left"
        message = pb.SeatLeft(colour=COLOUR[entry.colour])
    elif isinstance(entry, log.TakenBack):
        assert view is not None, "a take-back carries the board after it"
        change = "action_taken_back"
        message = pb.ActionTakenBack(
            player=COLOUR[entry.player], taken_back=entry.taken_back, view=view_to_proto(view)
        )
    elif isinstance(entry, log.Said):
        change = "message_sent"
        message = pb.MessageSent(player=COLOUR[entry.player], phrase=PHRASE[entry.phrase])
    elif isinstance(entry, log.Rematched):
        change = "rematch_proposed"
        message = pb.RematchProposed(
            player=COLOUR[entry.player] if entry.player else pb.COLOUR_UNSPECIFIED,
            rematch="games/" + entry.rematch,
        )
    elif isinstance(entry, log.Stopped):
        change = "game_stopped"
        message = pb.GameStopped(reason=entry.reason, rounds=entry.rounds)
    elif isinstance(entry, log.TakenOver):
        change = "seat_taken_over"
        message = pb.SeatTakenOver(
            colour=COLOUR[entry.colour], level=LEVEL[entry.level], reason=REASON[entry.reason]
        )
    else:
        assert view is not None, "a game starts with its board"
        change = "game_started"
        message = pb.GameStarted(view=view_to_proto(view))
    return _frame(sequence, change, message.SerializeToString())


def reply_of(frame: bytes) -> bytes:
    """The SubmitActionResponse holding the entry of ``frame``."""
    return _REPLY_TAG + frame[len(_FRAME_TAG) :]


def listed(frames: Iterable[bytes], sequence: int, more: bool) -> bytes:
    """The ListGameEntriesResponse holding the entries of ``frames``."""
    tail = spb.ListGameEntriesResponse(sequence=sequence, more=more).SerializeToString()
    return b"".join(_LIST_TAG + f[len(_FRAME_TAG) :] for f in frames) + tail


def caught_up(sequence: int) -> bytes:
    """The first message of a watch resumed at the current sequence."""
    return spb.WatchGameResponse(sequence=sequence, caught_up=True).SerializeToString()


def watch_snapshot(game: Stored, view: Mapping[str, Json] | None) -> bytes:
    """A watch message holding a snapshot."""
    return spb.WatchGameResponse(snapshot=snapshot_to_proto(game, view)).SerializeToString()


def latest_field(game: Stored, view: Mapping[str, Json] | None) -> bytes:
    """The ``latest`` field of a watch message."""
    return field_bytes(_LATEST, snapshot_to_proto(game, view).SerializeToString())


def board_field(game: Stored, view: Mapping[str, Json] | None) -> bytes:
    """One ``boards`` field of a watch message: the game right after an entry."""
    return field_bytes(_BOARDS, snapshot_to_proto(game, view).SerializeToString())
