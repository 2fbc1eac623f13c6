"""One game: its authority, log entries, seats, watchers, settings and tutorials.

The authority takes an action, checks it with the engine, appends the entry to
the store, and hands it to the game's watchers; it calls what a game does by
itself (bots, clocks, webhooks) through hooks it declares.

May import: ``engine``, ``server.storage``. Never grpc, protobuf, or the
packages above it (``play``, ``node``, ``rpc``).
"""
