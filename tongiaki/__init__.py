"""The contract of the Tongiaki game server, for any Python client of it.

``tongiaki.v1`` is the code generated from ``proto/tongiaki/v1`` (``make
proto``): the messages and the service stub. ``channels`` opens a channel to
one server or several nodes, with retries; ``nesting`` guards JSON text before
it is parsed.

Importable without the server: it needs grpcio and protobuf (the ``client``
extra) and imports nothing else of this project.
"""
