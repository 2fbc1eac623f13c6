"""A game acting by itself: bots that play seats, the turn clock, turn webhooks.

Each is a client of the game's authority, as a player is: it submits through
the same checked path. The authority calls them through the hooks interface
it owns (``server.game``); this package implements it.

May import: ``engine``, ``bots``, ``server.game``, ``server.storage`` and the
contract's reason codes (``tongiaki.reasons``). Never grpc, protobuf,
``server.node`` or ``server.rpc``.
"""
