"""The Flask application factory of the web gateway."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, abort, jsonify, render_template, request
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from werkzeug.exceptions import HTTPException

from tongiaki.vocabulary import COLOURS
from webclient import assets, i18n
from webclient.api import api
from webclient.feeds import FeedHub
from webclient.limits import (
    BODY_SECONDS,
    GAME_ID,
    MAX_BODY,
    GatewayReason,
    StreamLimits,
    body_deadline,
)
from webclient.metrics import GatewayMetrics
from webclient.upstream import Upstream, UpstreamError

log = logging.getLogger(__name__)

#: Settings and their defaults; ``create_app(config)`` overrides them.
DEFAULTS: dict[str, Any] = {
    #: host:port of the gRPC game server.
    "TONGIAKI_SERVER": "127.0.0.1:50051",
    #: Seconds an event feed stays open upstream after its last browser left.
    "TONGIAKI_FEED_LINGER": 30.0,
    #: Seconds between keep-alive comments on an idle event stream.
    "TONGIAKI_HEARTBEAT": 15.0,
    #: Seconds a unary call to the server may take.
    "TONGIAKI_TIMEOUT": 10.0,
    #: Largest request body read (Flask refuses a larger one before reading it).
    "MAX_CONTENT_LENGTH": MAX_BODY,
    #: Event streams one client address may hold open (0: no limit).
    "TONGIAKI_STREAMS_PER_CLIENT": 64,
    #: Event streams the gateway holds in all (0: as many as its HTTP server can
    #: while keeping workers for the rest of the API; see webclient.wsgi).
    "TONGIAKI_MAX_STREAMS": 0,
    #: Talk TLS to the game server: a CA file (PEM) to trust, or True for the system's.
    "TONGIAKI_SERVER_CA": None,
    #: Serve Prometheus metrics at /metrics.
    "TONGIAKI_METRICS": True,
    #: Seconds a request's body may take to arrive (a trickling client gets 408).
    "TONGIAKI_BODY_SECONDS": BODY_SECONDS,
}

#: HTTP status -> the gateway's reason for refusals made by Flask itself.
_HTTP_REASON = {
    404: GatewayReason.NOT_FOUND,
    405: GatewayReason.METHOD_NOT_ALLOWED,
    408: GatewayReason.REQUEST_TIMEOUT,
    413: GatewayReason.REQUEST_TOO_LARGE,
}


#: Path prefix of the pages made to be framed by other sites.
EMBED_PREFIX = "/embed/"


def _origin(value: str | None) -> str:
    """``value`` if it is a bare http(s) origin (``https://host[:port]``), else ``""``."""
    if not value:
        return ""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    if parts.path or parts.query or parts.fragment or parts.username or parts.password:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


#: The cookie that keeps a chosen language.
LANG_COOKIE = "lang"


def _locale() -> str:
    """The page's language: ``?lang=``, else the kept choice, else the browser's."""
    known = i18n.locales()
    for asked in (request.args.get("lang"), request.cookies.get(LANG_COOKIE)):
        if asked in known:
            return asked
    best = request.accept_languages.best_match(known)
    return best or i18n.DEFAULT_LOCALE


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """A gateway to the game server at ``config["TONGIAKI_SERVER"]``."""
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.from_prefixed_env("TONGIAKI_GATEWAY")
    if config:
        app.config.update(config)
    app.wsgi_app = body_deadline(  # type: ignore[method-assign]
        app.wsgi_app, float(app.config["TONGIAKI_BODY_SECONDS"])
    )
    ca = app.config["TONGIAKI_SERVER_CA"]
    upstream = Upstream(
        app.config["TONGIAKI_SERVER"],
        timeout=app.config["TONGIAKI_TIMEOUT"],
        ca=Path(ca) if isinstance(ca, str) else ca,
    )
    hub = FeedHub(
        upstream,
        linger=float(app.config["TONGIAKI_FEED_LINGER"]),
        heartbeat=float(app.config["TONGIAKI_HEARTBEAT"]),
    )
    streams = StreamLimits(
        int(app.config["TONGIAKI_MAX_STREAMS"]), int(app.config["TONGIAKI_STREAMS_PER_CLIENT"])
    )
    metrics = GatewayMetrics()
    metrics.watch(lambda: streams.total, lambda: len(hub.stats()))
    app.extensions["tongiaki.upstream"] = upstream
    app.extensions["tongiaki.feeds"] = hub
    app.extensions["tongiaki.streams"] = streams
    app.extensions["tongiaki.metrics"] = metrics
    app.register_blueprint(api)
    assets.install(app)

    def refusal(error: UpstreamError) -> Response:
        response = jsonify(error.to_json())
        response.status_code = error.http_status
        return response

    @app.errorhandler(UpstreamError)
    def refused(error: UpstreamError) -> Response:
        return refusal(error)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        """Every refusal Flask makes itself, as the API's JSON error."""
        code = error.code or 400
        reason = _HTTP_REASON.get(code, GatewayReason.INVALID_REQUEST)
        limits = {413: "MAX_CONTENT_LENGTH", 408: "TONGIAKI_BODY_SECONDS"}
        metadata = {"limit": str(app.config[limits[code]])} if code in limits else {}
        status = "NOT_FOUND" if code == 404 else "INVALID_ARGUMENT"
        http = code if 400 <= code < 500 else 400
        answer = refusal(UpstreamError(status, error.description or reason, reason, metadata, http))
        if code == 408:
            # The rest of the body may still come: nothing more is read on this connection.
            answer.headers["Connection"] = "close"
        return answer

    @app.errorhandler(Exception)
    def failed(error: Exception) -> Response:
        log.exception("request failed", extra={"path": request.path[:200]})
        answer = UpstreamError("INTERNAL", "the gateway failed to answer", "INTERNAL_ERROR")
        return refusal(answer)

    if app.config["TONGIAKI_METRICS"]:

        @app.get("/metrics")
        def prometheus() -> Response:
            """Prometheus metrics of this gateway."""
            return Response(generate_latest(metrics.registry), mimetype=CONTENT_TYPE_LATEST)

    @app.context_processor
    def translation() -> dict[str, Any]:
        locale = _locale()

        def gettext(msgid: str, **params: object) -> str:
            return i18n.translate(locale, msgid, **params)

        languages = [(code, i18n.language_name(code)) for code in i18n.locales()]
        return {
            "_": gettext,
            "locale": locale,
            "direction": i18n.direction(locale),
            "languages": languages,
        }

    @app.get("/")
    def lobby() -> str:
        return render_template("lobby.html", page="lobby", game="")

    @app.get("/my")
    def my_games() -> str:
        """This browser's games (its seats are in its own storage, so the page lists them)."""
        return render_template("my.html", page="my", game="")

    @app.get("/games/<game>")
    def game(game: str) -> str:
        if not GAME_ID.fullmatch(game):
            abort(404)
        return render_template("game.html", page="game", game=game)

    @app.get("/embed/games/<game>")
    def embed(game: str) -> str:
        """The board alone, for an <iframe>: ``?lang=``, ``?seat=<colour>`` to play a
        seat whose token the host posts, ``?origin=`` the host page's origin."""
        if not GAME_ID.fullmatch(game):
            abort(404)
        seat = request.args.get("seat", "").lower()
        return render_template(
            "embed.html",
            page="embed",
            game=game,
            seat=seat if seat in COLOURS and not request.args.get("spectate") else "",
            origin=_origin(request.args.get("origin")),
        )

    @app.get("/how-to-play")
    def howto() -> str:
        return render_template("howto.html", page="howto", game="")

    @app.get("/learn")
    def learn() -> str:
        """The tutorial: what it teaches, and the button that starts its game."""
        return render_template("learn.html", page="learn", game="")

    @app.after_request
    def headers(response: Response) -> Response:
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        metrics.requests.labels(route, f"{response.status_code // 100}xx").inc()
        if response.status_code >= 400 and response.is_json:
            body = response.get_json(silent=True)
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                metrics.refusals.labels(str(body["error"].get("reason", ""))).inc()
        chosen = request.args.get("lang")
        framed = request.path.startswith(EMBED_PREFIX)
        if chosen in i18n.locales() and not framed:
            response.set_cookie(
                LANG_COOKIE, chosen, max_age=365 * 24 * 3600, samesite="Lax", httponly=True
            )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if framed:
            # Any site may frame the board; with ?origin= only that host may.
            ancestors = _origin(request.args.get("origin")) or "*"
            response.headers["Content-Security-Policy"] = f"frame-ancestors {ancestors}"
        else:
            response.headers["X-Frame-Options"] = "DENY"
            response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
        return response

    return app


def close_app(app: Flask) -> None:
    """Stop the app's feeds and close its channel."""
    app.extensions["tongiaki.feeds"].close()
    app.extensions["tongiaki.upstream"].close()
