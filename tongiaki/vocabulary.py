"""The contract's vocabularies as plain names ("red", "strong", "active", "land").

Read from the generated enums of ``proto/tongiaki/v1/game.proto``, so a name
added to the contract is known here at once. The wire carries the enum names
(``COLOUR_RED``); clients that speak JSON use these plain names beside them.
"""

from __future__ import annotations

from tongiaki.v1 import game_pb2 as pb


def _names(enum: str, prefix: str) -> tuple[str, ...]:
    values = pb.DESCRIPTOR.enum_types_by_name[enum].values
    return tuple(
        v.name.removeprefix(prefix).lower() for v in values if v.name != prefix + "UNSPECIFIED"
    )


#: Seat colours, in seat order.
COLOURS = _names("Colour", "COLOUR_")
#: Levels of the server's bots, weakest first.
BOT_LEVELS = _names("BotLevel", "BOT_LEVEL_")
#: A game's states, in the order a game goes through them.
GAME_STATES = _names("GameState", "GAME_STATE_")
#: Kinds of decision a player is asked.
DECISION_KINDS = _names("DecisionKind", "DECISION_KIND_")
