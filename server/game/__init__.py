"""One game: its authority, log entries, seats, watchers, settings and tutorials.

The authority takes an action, checks it with the engine, appends the entry to
the store, and hands it to the game's watchers; it encodes entries, and lets
a game act by itself (bots, clocks, webhooks), through the hooks it declares
(``hooks``), which the wiring fills from the packages above.

May import: ``engine``, ``server.storage`` and the contract's reason codes
(``tongiaki.reasons``). Never grpc, protobuf, or the packages above it
(``play``, ``node``, ``rpc``); ``tests/test_layers.py`` checks it.
"""
