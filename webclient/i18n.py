"""Translation of the gateway's visible text: one function, message ids, catalogs per locale.

The catalog of a locale is ``static/i18n/<locale>.json`` (message id -> text),
the same file the browser client loads, so pages and scripts say the same
things. Text may hold ``{name}`` placeholders filled from keyword arguments.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

CATALOGS = Path(__file__).parent / "static" / "i18n"

#: The locale used when nothing else is asked for, and its writing direction.
DEFAULT_LOCALE = "en"
RTL_LOCALES = frozenset({"he", "ar", "fa", "ur"})


@cache
def catalog(locale: str) -> dict[str, str]:
    """The messages of ``locale`` (the default locale's where it has none)."""
    path = CATALOGS / f"{locale}.json"
    if not path.is_file():
        path = CATALOGS / f"{DEFAULT_LOCALE}.json"
    messages: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return messages


def locales() -> list[str]:
    """Every locale with a catalog."""
    return sorted(p.stem for p in CATALOGS.glob("*.json"))


def translate(locale: str, msgid: str, **params: object) -> str:
    """The text of ``msgid`` in ``locale``, placeholders filled; the id itself if unknown."""
    text = catalog(locale).get(msgid) or catalog(DEFAULT_LOCALE).get(msgid) or msgid
    return text.format(**params) if params else text


def direction(locale: str) -> str:
    """``rtl`` or ``ltr``."""
    return "rtl" if locale.split("-", maxsplit=1)[0] in RTL_LOCALES else "ltr"
