"""Which English text each translation follows: ``python -m webclient.sources``.

The catalogs' ids are names, not English sentences, so a change to an English
text leaves every translation of it looking complete. ``translations/sources.json``
keeps, per locale and message id, a short hash of the English text its
translation was made from; ``tests/webclient/test_languages.py`` fails for every
translation whose English has changed since, until it is translated again and
marked::

    python -m webclient.sources hu howto.endless coach.turn   # these follow the English now
    python -m webclient.sources hu --all                      # every message (a whole reading)
    python -m webclient.sources --stale                       # what needs translating again
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from webclient import i18n

SOURCES = Path(__file__).parent / "translations" / "sources.json"


def english() -> dict[str, str]:
    """The English text of every message (plural forms one per line)."""
    texts = {}
    for message in i18n.read_catalog("en"):
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
        string = message.string
        texts[key] = "\n".join(string) if isinstance(string, (list, tuple)) else string or ""
    return texts


def digest(text: str) -> str:
    """A short hash of an English text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def recorded() -> dict[str, dict[str, str]]:
    """Per locale, the hash of the English each message's translation follows."""
    if not SOURCES.exists():
        return {}
    data: dict[str, dict[str, str]] = json.loads(SOURCES.read_text("utf-8"))
    return data


def stale(locale: str) -> list[str]:
    """Ids whose English changed since their ``locale`` translation was made (or
    that were never marked)."""
    known = recorded().get(locale, {})
    return sorted(key for key, text in english().items() if known.get(key) != digest(text))


def mark(locale: str, ids: list[str] | None) -> None:
    """Record that ``ids`` (None: every message) of ``locale`` follow today's English."""
    texts = english()
    unknown = [key for key in ids or [] if key not in texts]
    if unknown:
        raise SystemExit(f"no such message: {', '.join(unknown)}")
    data = recorded()
    known = data.setdefault(locale, {})
    for key in ids if ids is not None else list(texts):
        known[key] = digest(texts[key])
    data[locale] = dict(sorted((k, v) for k, v in known.items() if k in texts))
    SOURCES.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n", "utf-8")


def main(argv: list[str]) -> int:
    """The command line (see the module's docstring)."""
    locales = [loc for loc in i18n.locales() if loc != i18n.DEFAULT_LOCALE]
    if argv == ["--stale"]:
        found = {loc: stale(loc) for loc in locales}
        for loc, ids in found.items():
            for key in ids:
                print(f"{loc} {key}")
        return 1 if any(found.values()) else 0
    if len(argv) >= 2 and argv[0] in locales:
        mark(argv[0], None if argv[1:] == ["--all"] else argv[1:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
