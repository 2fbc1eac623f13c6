"""Export the gettext catalogs for the browser client: ``python -m webclient.catalogs``.

Writes ``static/i18n/<locale>.json`` for every ``translations/<locale>``:
``{"locale", "dir", "plural": {CLDR category: form index}, "messages": {id: text | [forms]}}``.
The files are committed, so a fresh checkout works without running this; a test
checks that they equal what the ``.po`` files give.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from webclient import i18n

EXPORTS = Path(__file__).parent / "static" / "i18n"


def export(locale: str) -> dict[str, Any]:
    """The browser catalog of ``locale``."""
    messages: dict[str, str | list[str]] = {}
    for message in i18n.read_catalog(locale):
        if not message.id or message.fuzzy:
            continue
        key = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
        if isinstance(message.string, (list, tuple)):
            if all(message.string):
                messages[key] = list(message.string)
        elif message.string:
            messages[key] = message.string
    return {
        "locale": locale,
        "dir": i18n.direction(locale),
        "plural": i18n.plural_categories(locale),
        "messages": dict(sorted(messages.items())),
    }


def render(locale: str) -> str:
    """The JSON text of the browser catalog of ``locale``."""
    return json.dumps(export(locale), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def main() -> int:
    """Write every locale's browser catalog."""
    EXPORTS.mkdir(parents=True, exist_ok=True)
    for locale in i18n.locales():
        (EXPORTS / f"{locale}.json").write_text(render(locale), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
