"""The game server of Tongiaki: authoritative games over gRPC (``python -m server``).

Where to look, from the bottom up; a package imports only those below it:

``storage/``  where games are kept: the store's interface, SQLite and PostgreSQL.
``game/``     one game: its authority (check, apply, durable append, publish),
              log entries, seats, watchers, settings, tutorials. No grpc, no protobuf.
``play/``     a game acting by itself: bots on seats, the turn clock, webhooks;
              hooks that a game's authority calls through an interface it owns.
``node/``     this node among nodes: the live games, ownership, following the
              owner's log, forwarding a change to the owner, upkeep.
``rpc/``      the gRPC edge: the servicer, the codec (engine ⇄ protobuf), status
              and reason codes, per-client limits, TLS.

At the top: ``app`` wires them together (store, registry, hooks, service) and
runs the server; ``options`` and ``__main__`` read its configuration from flags;
``logs`` and ``metrics`` are its structured logs and Prometheus figures.

The wire itself, the generated code and the client helpers, is the contract's
package, ``tongiaki`` (importable without this package); the rules are ``engine``.
"""
