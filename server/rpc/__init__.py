"""The gRPC edge: the servicer, the codec, status and reasons, client limits, TLS.

The servicer decodes a request, calls the node's registry and encodes the
answer; the codec is the one module that knows both the engine and the
generated protobuf.

May import: ``engine``, the contract (``tongiaki``) and every ``server``
package below it (``storage``, ``game``, ``play``, ``node``); not the wiring
at the top (``server.app``).
"""
