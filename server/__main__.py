"""``python -m server``: the game server with embedded defaults.

Port 50051 and data directory ./data unless told otherwise by flags or the
environment (TONGIAKI_HOST, TONGIAKI_PORT, TONGIAKI_DATA_DIR,
TONGIAKI_SYNCHRONOUS, TONGIAKI_LOG_LEVEL, TONGIAKI_DATABASE, TONGIAKI_ADVERTISE,
TONGIAKI_LEASE, TONGIAKI_OPEN_GAME_TTL, TONGIAKI_STRONG_BUDGET, TONGIAKI_EXPERT_BUDGET,
TONGIAKI_BOT_PACE, TONGIAKI_BOT_STALL_ROUNDS, TONGIAKI_EVENT_LOOP, TONGIAKI_WEBHOOK_PREFIXES).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from server import logs, options
from server.app import EVENT_LOOPS, AddressTaken, Config, run, serve
from server.play.botseats import BotConfig
from server.play.webhooks import WebhookConfig, prefixes_from_text


def parse(argv: list[str] | None = None) -> tuple[Config, str, str]:
    """The configuration, log level and event loop from ``argv`` and the environment."""
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--host",
        default=env("TONGIAKI_HOST", "127.0.0.1"),
        help="address to listen on, gRPC and metrics (default this machine only; [::] for all)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env("TONGIAKI_PORT", "50051")),
        help="0 picks a free port (logged)",
    )
    parser.add_argument("--data-dir", type=Path, default=Path(env("TONGIAKI_DATA_DIR", "data")))
    parser.add_argument(
        "--database",
        default=env("TONGIAKI_DATABASE") or None,
        help="a postgresql:// URL (several nodes may share it); default: SQLite in --data-dir",
    )
    parser.add_argument(
        "--advertise",
        default=env("TONGIAKI_ADVERTISE") or None,
        help="HOST:PORT where other nodes reach this one (default 127.0.0.1 and the port)",
    )
    parser.add_argument(
        "--lease",
        type=float,
        default=float(env("TONGIAKI_LEASE", "1.5")),
        help="seconds until other nodes take over this node's games if it stops renewing",
    )
    parser.add_argument(
        "--open-game-ttl",
        type=float,
        default=float(env("TONGIAKI_OPEN_GAME_TTL", "3600")),
        help="seconds an open game that no person joined is kept (0: for ever)",
    )
    parser.add_argument(
        "--idle",
        type=float,
        default=30.0,
        help="seconds a game nobody plays or watches here stays in memory",
    )
    parser.add_argument(
        "--synchronous",
        choices=["full", "normal"],
        default=env("TONGIAKI_SYNCHRONOUS", "full").lower(),
        help="SQLite synchronous mode: full survives power loss, normal survives a killed process",
    )
    parser.add_argument(
        "--grace", type=float, default=5.0, help="seconds in-flight calls get at shutdown"
    )
    parser.add_argument("--log-level", default=env("TONGIAKI_LOG_LEVEL", "INFO"))
    parser.add_argument(
        "--port-file", type=Path, default=None, help="write the bound port here once listening"
    )
    parser.add_argument(
        "--strong-budget",
        type=float,
        default=float(env("TONGIAKI_STRONG_BUDGET", "0.1")),
        help="CPU seconds per decision of a strong bot",
    )
    parser.add_argument(
        "--expert-budget",
        type=float,
        default=float(env("TONGIAKI_EXPERT_BUDGET", "1.0")),
        help="CPU seconds per decision of an expert bot (at most the pace with a person seated)",
    )
    parser.add_argument(
        "--bot-pace",
        type=float,
        default=float(env("TONGIAKI_BOT_PACE", "0.8")),
        help="seconds a bot waits before acting in a game with a person's seat (0: at once)",
    )
    parser.add_argument(
        "--undo-window",
        type=float,
        default=float(env("TONGIAKI_UNDO_WINDOW", "0")),
        help="seconds a bot holds its answer to a person's decision so it can be taken back",
    )
    parser.add_argument(
        "--bot-workers", type=int, default=2, help="threads (or processes) bots think in"
    )
    parser.add_argument(
        "--bot-stall-rounds",
        type=int,
        default=int(env("TONGIAKI_BOT_STALL_ROUNDS", "30")),
        help="rounds a bots-only game may go without a tile drawn before it is stopped (0: none)",
    )
    parser.add_argument(
        "--bot-threads",
        action="store_true",
        help="bots think in threads of the server's process (slows other games), not processes",
    )
    options.add_arguments(parser, env)
    parser.add_argument(
        "--event-loop",
        choices=EVENT_LOOPS,
        default=env("TONGIAKI_EVENT_LOOP", "auto").lower(),
        help="auto: uvloop if it is installed (the server extra), else asyncio's own",
    )
    parser.add_argument(
        "--webhook-prefix",
        action="append",
        default=list(prefixes_from_text(env("TONGIAKI_WEBHOOK_PREFIXES", ""))),
        help="a URL prefix games' webhook URLs may start with (repeatable; none: no webhooks)",
    )
    args = parser.parse_args(argv)
    config = Config(
        host=args.host,
        port=args.port,
        data_dir=args.data_dir,
        synchronous=args.synchronous.upper(),
        grace=args.grace,
        port_file=args.port_file,
        database=args.database,
        advertise=args.advertise,
        idle=args.idle,
        lease=args.lease,
        open_game_ttl=args.open_game_ttl,
        bots=BotConfig(
            strong_budget=args.strong_budget,
            expert_budget=args.expert_budget,
            workers=args.bot_workers,
            processes=not args.bot_threads,
            pace=max(0.0, args.bot_pace),
            undo_window=max(0.0, args.undo_window),
            stall_rounds=max(0, args.bot_stall_rounds),
        ),
        webhooks=WebhookConfig(allowed_prefixes=tuple(args.webhook_prefix)),
        **options.config_fields(args),
    )
    return config, args.log_level, args.event_loop


def main(argv: list[str] | None = None) -> None:
    """Run the server until interrupted."""
    config, level, event_loop = parse(argv)
    logs.configure(level)
    try:
        run(serve(config), event_loop)
    except AddressTaken as taken:
        raise SystemExit(f"not started: {taken}") from None


if __name__ == "__main__":
    main()
