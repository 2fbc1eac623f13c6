"""The browser's scripts and style sheets as served: without their comments, gzipped.

The sources under ``static/`` are what a developer edits and the browser runs; there
is no build step. Serving drops what only a reader of the source needs (a script's
whole-line ``//`` comments, a style sheet's ``/* */`` comments) and compresses the
rest once per file version, so a page costs what its code costs.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, Response, request, send_from_directory

#: A script's comment that fills its whole line (a trailing comment is left alone).
_LINE_COMMENT = re.compile(rb"^[ \t]*//[^\n]*\n", re.MULTILINE)
#: A style sheet's comment, with the line break that ends it.
_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/\n?", re.DOTALL)

#: What the browser caches before it asks again (it revalidates by ETag after).
MAX_AGE = 300


def served(name: str, source: bytes) -> bytes:
    """The bytes the browser gets for the script or style sheet ``name``."""
    if name.endswith(".js"):
        return _LINE_COMMENT.sub(b"", source)
    if name.endswith(".css"):
        return _BLOCK_COMMENT.sub(b"", source)
    return source


@dataclass(frozen=True)
class _Asset:
    mtime_ns: int
    plain: bytes
    packed: bytes
    etag: str


class Assets:
    """Serves ``static/**.js`` and ``static/**.css`` stripped and gzipped; the rest as files."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder.resolve()
        self._cache: dict[str, _Asset] = {}

    def _load(self, filename: str) -> _Asset | None:
        path = (self._folder / filename).resolve()
        if not path.is_relative_to(self._folder) or not path.is_file():
            return None
        mtime = path.stat().st_mtime_ns
        cached = self._cache.get(filename)
        if cached is not None and cached.mtime_ns == mtime:
            return cached
        plain = served(filename, path.read_bytes())
        etag = hashlib.sha256(plain).hexdigest()[:20]
        asset = _Asset(mtime, plain, gzip.compress(plain, 9, mtime=0), etag)
        self._cache[filename] = asset
        return asset

    def response(self, filename: str) -> Response:
        if not filename.endswith((".js", ".css")):
            return send_from_directory(self._folder, filename)
        asset = self._load(filename)
        if asset is None:
            return send_from_directory(self._folder, filename)  # its 404
        mimetype = "text/javascript" if filename.endswith(".js") else "text/css"
        packed = "gzip" in request.headers.get("Accept-Encoding", "")
        response = Response(asset.packed if packed else asset.plain, mimetype=mimetype)
        if packed:
            response.headers["Content-Encoding"] = "gzip"
        response.headers["Vary"] = "Accept-Encoding"
        response.set_etag(asset.etag)
        response.cache_control.max_age = MAX_AGE
        response.cache_control.public = True
        response.make_conditional(request)
        return response


def install(app: Flask) -> None:
    """Route the app's ``static`` endpoint through :class:`Assets`."""
    assets = Assets(Path(app.static_folder or "static"))
    app.view_functions["static"] = assets.response
