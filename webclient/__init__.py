"""The web gateway and browser client: Flask over the gRPC game server."""

from webclient.app import close_app, create_app

__all__ = ["close_app", "create_app"]
