"""Translation of everything a player reads: gettext catalogs managed with Babel.

The one source of truth is ``translations/<locale>/LC_MESSAGES/messages.po``
(message id -> text, with plural forms where a number decides the wording).
Pages rendered by Flask read them through :func:`translations`; the browser
client reads ``static/i18n/<locale>.json``, exported from the same catalogs by
``python -m webclient.catalogs`` (``make i18n``). Text may hold ``{name}``
placeholders filled from keyword arguments; a ``count`` argument picks the
plural form.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

TRANSLATIONS = Path(__file__).parent / "translations"

#: The locale used when nothing else is asked for, and the right-to-left languages.
DEFAULT_LOCALE = "en"
RTL_LOCALES = frozenset({"he", "ar", "fa", "ur"})


def po_path(locale: str) -> Path:
    """The catalog translators edit."""
    return TRANSLATIONS / locale / "LC_MESSAGES" / "messages.po"


def locales() -> list[str]:
    """Every locale with a catalog."""
    return sorted(p.parent.parent.name for p in TRANSLATIONS.glob("*/LC_MESSAGES/messages.po"))


@cache
def read_catalog(locale: str) -> Catalog:
    """The parsed ``.po`` catalog of ``locale``."""
    with po_path(locale).open("rb") as handle:
        return read_po(handle, locale=locale)


@cache
def translations(locale: str) -> gettext.NullTranslations:
    """The gettext translations of ``locale``: the compiled ``.mo`` when it is current,
    else compiled from the ``.po`` in memory (the default locale's for unknown locales)."""
    if locale not in locales():
        locale = DEFAULT_LOCALE
    po = po_path(locale)
    mo = po.with_suffix(".mo")
    if mo.is_file() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as handle:
            found = Translations(handle)
    else:
        buffer = io.BytesIO()
        write_mo(buffer, read_catalog(locale))
        buffer.seek(0)
        found = Translations(buffer)
    if locale != DEFAULT_LOCALE:
        found.add_fallback(translations(DEFAULT_LOCALE))
    return found


def translate(locale: str, msgid: str, **params: object) -> str:
    """The text of ``msgid`` in ``locale``, placeholders filled; the id itself if unknown.

    A ``count`` parameter chooses the plural form by the locale's rules."""
    found = translations(locale)
    count = params.get("count")
    text = found.ngettext(msgid, msgid, count) if isinstance(count, int) else found.gettext(msgid)
    return text.format(**params) if params else text


def plural_categories(locale: str) -> dict[str, int]:
    """Which plural form of the catalog each CLDR plural category of ``locale`` uses.

    Browsers name the category of a number (``Intl.PluralRules``); the catalog
    numbers its forms by its ``Plural-Forms`` expression. Both are asked about
    the same numbers and must agree on one form per category."""
    catalog = read_catalog(locale)
    form = gettext.c2py(catalog.plural_expr)
    rule = Locale.parse(locale).plural_form
    mapping: dict[str, int] = {}
    for n in range(1001):
        category, index = rule(n), form(n)
        if mapping.setdefault(category, index) != index:
            raise ValueError(f"{locale}: category {category!r} spans plural forms")
    mapping.setdefault("other", form(1000))
    return dict(sorted(mapping.items()))


def language_name(locale: str) -> str:
    """The name of the language in itself: "magyar", "עברית", "日本語"."""
    return Locale.parse(locale).get_display_name(locale) or locale


def direction(locale: str) -> str:
    """``rtl`` or ``ltr``."""
    return "rtl" if locale.split("-", maxsplit=1)[0] in RTL_LOCALES else "ltr"
