"""Command-line flags of the hardening options: per-client limits, metrics, TLS."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.rpc.limits import MAX_SPECTATOR_GATHER_MILLIS, ClientLimits
from server.rpc.tls import TlsFiles


def add_arguments(parser: argparse.ArgumentParser, env: Callable[..., Any]) -> None:
    """Add the flags (each also read from a ``TONGIAKI_*`` environment variable)."""
    defaults = ClientLimits()
    parser.add_argument(
        "--games-per-minute",
        type=float,
        default=float(env("TONGIAKI_GAMES_PER_MINUTE", defaults.games_per_minute)),
        help="new games per client address and minute (0: no limit)",
    )
    parser.add_argument(
        "--games-burst",
        type=int,
        default=int(env("TONGIAKI_GAMES_BURST", defaults.games_burst)),
        help="new games a client may create at once before the rate applies",
    )
    parser.add_argument(
        "--watches-per-client",
        type=int,
        default=int(env("TONGIAKI_WATCHES_PER_CLIENT", defaults.watches_per_client)),
        help="open WatchGame streams per client address (0: no limit)",
    )
    parser.add_argument(
        "--spectator-gather-ms",
        type=int,
        default=int(env("TONGIAKI_SPECTATOR_GATHER_MS", defaults.spectator_gather_millis)),
        help="a spectator's watch that does not say how long to gather gets at most one"
        f" message per this many milliseconds, 0 to {MAX_SPECTATOR_GATHER_MILLIS}"
        " (0: each entry at once)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[p for p in env("TONGIAKI_TRUSTED_PROXIES", "").split(",") if p],
        help="address of a proxy (the web gateway) whose x-forwarded-for names the client",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(env("TONGIAKI_METRICS_PORT")) if env("TONGIAKI_METRICS_PORT") else None,
        help="serve Prometheus metrics at /metrics on this port (0 picks one; default: off)",
    )
    parser.add_argument(
        "--metrics-token",
        default=env("TONGIAKI_METRICS_TOKEN") or None,
        help="a token /metrics asks for as 'Authorization: Bearer <token>' (default: none)",
    )
    parser.add_argument(
        "--cluster-secret",
        default=env("TONGIAKI_CLUSTER_SECRET") or None,
        help="the secret nodes vouch for forwarded callers with (default: one kept in"
        " the shared database)",
    )
    parser.add_argument(
        "--tls-cert", type=Path, default=env("TONGIAKI_TLS_CERT"), help="PEM certificate chain"
    )
    parser.add_argument(
        "--tls-key", type=Path, default=env("TONGIAKI_TLS_KEY"), help="PEM private key"
    )
    parser.add_argument(
        "--tls-peer-ca",
        type=Path,
        default=env("TONGIAKI_TLS_PEER_CA"),
        help="PEM CA of the other nodes' certificates (default: --tls-cert, one shared)",
    )


def config_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The ``server.app.Config`` fields of the parsed flags."""
    if (args.tls_cert is None) != (args.tls_key is None):
        raise SystemExit("--tls-cert and --tls-key go together")
    if not 0 <= args.spectator_gather_ms <= MAX_SPECTATOR_GATHER_MILLIS:
        raise SystemExit(f"--spectator-gather-ms must be 0..{MAX_SPECTATOR_GATHER_MILLIS}")
    if args.tls_peer_ca is not None and args.tls_cert is None:
        raise SystemExit("--tls-peer-ca needs --tls-cert and --tls-key")
    return {
        "clients": ClientLimits(
            games_per_minute=args.games_per_minute,
            games_burst=args.games_burst,
            watches_per_client=args.watches_per_client,
            trusted_proxies=tuple(args.trusted_proxy),
            spectator_gather_millis=args.spectator_gather_ms,
        ),
        "metrics_port": args.metrics_port,
        "metrics_token": args.metrics_token,
        "cluster_secret": args.cluster_secret,
        "tls": TlsFiles(
            Path(args.tls_cert),
            Path(args.tls_key),
            Path(args.tls_peer_ca) if args.tls_peer_ca else None,
        )
        if args.tls_cert
        else None,
    }
