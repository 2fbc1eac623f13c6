"""The edges of a node: the gRPC servicer, the codec, each reason's status,
client limits, TLS, and the Prometheus metrics served at ``/metrics``.

The servicer decodes a request, calls the node's registry and encodes the
answer; the codec is the one module that knows both the engine and the
generated protobuf, and the games are given it (``server.game.hooks``) to
encode each entry once for all its watchers.

May import: ``engine``, the contract (``tongiaki``) and every ``server``
package below it (``storage``, ``game``, ``play``, ``node``); not the wiring
at the top (``server.app``).
"""
