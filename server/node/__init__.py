"""This node among nodes: the games it holds, which it owns, the rest it follows.

The live games (loaded from the store when asked for, evicted when idle),
ownership and leases on a shared store, following the owner's log, forwarding
a change to the owner, and the upkeep that runs in the background.

May import: ``engine``, ``server.storage``, ``server.game``, ``server.play``,
and the contract (``tongiaki``) to forward calls to another node. Never
``server.rpc``.
"""
