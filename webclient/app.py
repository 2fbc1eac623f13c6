"""The Flask application factory of the web gateway."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, render_template, request

from webclient import i18n
from webclient.api import api
from webclient.feeds import FeedHub
from webclient.upstream import Upstream

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
}


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
    upstream = Upstream(app.config["TONGIAKI_SERVER"], timeout=app.config["TONGIAKI_TIMEOUT"])
    hub = FeedHub(
        upstream,
        linger=float(app.config["TONGIAKI_FEED_LINGER"]),
        heartbeat=float(app.config["TONGIAKI_HEARTBEAT"]),
    )
    app.extensions["tongiaki.upstream"] = upstream
    app.extensions["tongiaki.feeds"] = hub
    app.register_blueprint(api)

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

    @app.get("/games/<game>")
    def game(game: str) -> str:
        return render_template("game.html", page="game", game=game)

    @app.get("/how-to-play")
    def howto() -> str:
        return render_template("howto.html", page="howto", game="")

    @app.after_request
    def headers(response: Response) -> Response:
        chosen = request.args.get("lang")
        if chosen in i18n.locales():
            response.set_cookie(
                LANG_COOKIE, chosen, max_age=365 * 24 * 3600, samesite="Lax", httponly=True
            )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    return app


def close_app(app: Flask) -> None:
    """Stop the app's feeds and close its channel."""
    app.extensions["tongiaki.feeds"].close()
    app.extensions["tongiaki.upstream"].close()
