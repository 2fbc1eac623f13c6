"""The languages kept right: every message id the code uses exists in the template and in
every catalog; each game term is the rule book's word and no known wrong word appears
(webclient/translations/terms.toml); one register per locale; a one-form that spells
the number out shows no digit; lists end with the language's "or" / "and"."""

from __future__ import annotations

import gettext
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from tongiaki.reasons import Reason as REASONS
from tongiaki.v1 import game_pb2
from webclient import catalogs, i18n, messages, sources

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "webclient"
STATIC = WEB / "static"
LOCALES = i18n.locales()
TRANSLATED = [locale for locale in LOCALES if locale != "en"]
RULES: dict[str, Any] = tomllib.loads(
    (i18n.TRANSLATIONS / "terms.toml").read_text(encoding="utf-8")
)

Texts = Mapping[str, str | list[str]]


def catalog(locale: str) -> dict[str, str | list[str]]:
    """Message id -> text or plural forms, as the browser gets them."""
    found: dict[str, str | list[str]] = catalogs.export(locale)["messages"]
    return found


def whole(text: str | list[str]) -> str:
    """Every form of a message as one text, without soft hyphens."""
    return ("\n".join(text) if isinstance(text, list) else text).replace("\u00ad", "")


# ---------------------------------------------------------------- ids the code uses

STRING = re.compile(r"""(["'])([a-z][a-z0-9]*(?:\.[A-Za-z0-9_-]+)+)\1""")
BUILT = re.compile(r"(\b(?:t|td|tn|has)\(\s*)?`([a-z][a-z0-9]*\.[A-Za-z0-9_.-]*)\$\{")
PLACEHOLDER = re.compile(r"\{\w+\}")
LOOKS_LIKE_ID = re.compile(r"^[a-z]+\.[a-z]+_[a-z_]+$")


def template_ids() -> set[str]:
    """The ids of messages.pot, the template every catalog is updated from."""
    with (i18n.TRANSLATIONS / "messages.pot").open("rb") as handle:
        pot = read_po(handle)
    return {str(m.id[0] if isinstance(m.id, tuple) else m.id) for m in pot if m.id}


NAMESPACES = {key.split(".")[0] for key in template_ids()}


def is_message_id(literal: str) -> bool:
    """A string literal that names a message: it starts with a namespace of the
    catalogs, or reads like one (word.word_word)."""
    if re.search(r"\.(js|json|css|svg|png|html)$", literal):
        return False
    return literal.split(".", maxsplit=1)[0] in NAMESPACES or bool(LOOKS_LIKE_ID.match(literal))


def scripts() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((STATIC / "js").glob("*.js"))}


def literal_ids() -> dict[str, set[str]]:
    """Every message id named literally: in scripts (any string literal that is an id,
    so that ``t(cond ? "a.b" : "a.c")`` counts), templates and Python."""
    used: dict[str, set[str]] = {}
    for name, text in scripts().items():
        for match in STRING.finditer(text):
            if is_message_id(match.group(2)):
                used.setdefault(match.group(2), set()).add(name)
    for path in sorted((WEB / "templates").glob("*.html")):
        for key in re.findall(r"""_\(\s*["']([^"']+)["']""", path.read_text(encoding="utf-8")):
            used.setdefault(key, set()).add(path.name)
    for path in sorted(WEB.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        pattern = (
            r"""(?:translate\(\s*[\w.]+,\s*|gettext\(\s*|\bN_\(\s*|\bNp_\(\s*)["']([^"']+)["']"""
        )
        for key in re.findall(pattern, text):
            used.setdefault(key, set()).add(path.name)
    return used


def enum_names(enum: Any, prefix: str, unspecified: bool = False) -> list[str]:
    names = [v.name.removeprefix(prefix).lower() for v in enum.DESCRIPTOR.values]
    return [n for n in names if unspecified or n != "unspecified"]


def bot_levels() -> list[str]:
    found = re.search(r"BOT_LEVELS = \[([^\]]*)\]", scripts()["text.js"])
    assert found, "text.js declares BOT_LEVELS"
    return re.findall(r'"(\w+)"', found.group(1))


def vocabularies() -> dict[str, list[str]]:
    """For every id prefix the scripts complete at run time (``td(`colour.${c}`)``), the
    values that can follow it, taken from where those values are declared."""
    colours = enum_names(game_pb2.Colour, "COLOUR_", unspecified=True)
    kinds = enum_names(game_pb2.DecisionKind, "DECISION_KIND_")
    tiles = json.loads((STATIC / "tiles.json").read_text(encoding="utf-8"))
    diagrams = json.loads((STATIC / "howto.json").read_text(encoding="utf-8"))
    acts = [m.removeprefix("act.") for m in messages.ACTS]
    assert set(acts) <= set(game_pb2.Action.DESCRIPTOR.fields_by_name), acts
    return {
        "colour.": colours,
        "player.": colours,
        "dir.": [str(d) for d in range(6)],
        "decision.": kinds,
        "hint.": kinds,
        "act.": acts,
        "state.": enum_names(game_pb2.GameState, "GAME_STATE_", unspecified=True),
        "log.ships_placed.": enum_names(
            game_pb2.ShipPlacement, "SHIP_PLACEMENT_", unspecified=True
        ),
        "bot.": bot_levels(),
        "tile.": [island["id"] for island in tiles["islands"]],
        "error.": [*REASONS, "UPSTREAM_ERROR", "GATEWAY_UNREACHABLE"],
        "howto.diagram_": [name for name in diagrams if not name.startswith("_")],
        "connection.": [m.removeprefix("connection.") for m in messages.CONNECTION],
        "target.": [m.removeprefix("target.") for m in messages.TARGETS],
        "phrase.": enum_names(game_pb2.Phrase, "PHRASE_"),
        "coach.": [m.removeprefix("coach.") for m in messages.COACH],
    }


def built_prefixes() -> dict[str, set[str]]:
    """The prefixes of ids built at run time, with the scripts that build them."""
    found: dict[str, set[str]] = {}
    for name, text in scripts().items():
        for call, prefix in BUILT.findall(text):
            # Inside t(...) it is an id whatever its namespace; elsewhere (a storage key
            # like `tongiaki.seat.${game}`) only with a namespace of the catalogs.
            if call or prefix.split(".", maxsplit=1)[0] in NAMESPACES:
                found.setdefault(prefix, set()).add(name)
    return found


def test_every_id_built_at_run_time_comes_from_a_declared_vocabulary() -> None:
    built = built_prefixes()
    assert {"colour.", "error.", "target."} <= set(built)
    known = vocabularies()
    assert sorted(set(built) - set(known)) == [], (
        "ids built from these prefixes need their vocabulary in vocabularies()"
    )


def used_ids() -> dict[str, set[str]]:
    """Every id the code can ask for: named literally or built from a vocabulary."""
    used = literal_ids()
    for prefix in built_prefixes():
        for value in vocabularies()[prefix]:
            used.setdefault(prefix + value, set()).add(f"{prefix}${{…}}")
    return used


def test_every_message_id_the_code_uses_is_in_the_template() -> None:
    used = used_ids()
    assert {"end.winners", "list.or", "hint.can", "howto.title"} <= set(used)
    missing = {key: sorted(where) for key, where in used.items() if key not in template_ids()}
    assert missing == {}


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_id_the_code_uses_has_text_in_every_catalog(locale: str) -> None:
    texts = catalog(locale)
    missing = sorted(key for key in used_ids() if not texts.get(key))
    assert missing == []


# ---------------------------------------------------------------- terms


def term_faults(locale: str, english: Texts, texts: Texts, rules: Mapping[str, Any]) -> list[str]:
    """Messages that name a game term in English but not with the locale's word for it."""
    faults = []
    for concept, rule in rules["term"].items():
        own = rule.get(locale)
        if not own or "use" not in own:
            continue
        finder = re.compile(rule["en"], re.IGNORECASE)
        for key, source in english.items():
            named = PLACEHOLDER.sub("", whole(source))
            if not finder.search(named) or key in own.get("except", []):
                continue
            text = whole(texts.get(key, "")).casefold()
            if not any(word.casefold() in text for word in own["use"]):
                faults.append(f"{locale} {key}: {concept} should read {own['use']}: {text!r}")
    return faults


def wrong_word_faults(locale: str, texts: Texts, rules: Mapping[str, Any]) -> list[str]:
    """Messages that use a word the rules call wrong, with the reason."""
    faults = []
    for concept, rule in rules["term"].items():
        own = rule.get(locale) if locale != "en" else None
        for pattern, why in (own or {}).get("wrong", {}).items():
            wrong = re.compile(pattern, re.IGNORECASE)
            for key, text in texts.items():
                found = wrong.search(whole(text))
                if found:
                    faults.append(f"{locale} {key}: {found.group(0)!r} ({concept}): {why}")
    return faults


def register_faults(locale: str, texts: Texts, rules: Mapping[str, Any]) -> list[str]:
    """Messages with a form of the register the locale does not use."""
    faults = []
    for rule in rules.get("register", {}).get(locale, []):
        ids = re.compile(rule.get("ids", ""))
        for pattern, why in rule["wrong"].items():
            wrong = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
            for key, text in texts.items():
                if not ids.search(key):
                    continue
                found = wrong.search(whole(text))
                if found:
                    faults.append(f"{locale} {key}: {found.group(0).strip()!r}: {why}")
    return faults


def single_number_forms(locale: str) -> set[int]:
    """The plural forms of a locale's catalog that only one number (up to 1000) selects."""
    form = gettext.c2py(i18n.read_catalog(locale).plural_expr)
    chosen: dict[int, set[int]] = {}
    for n in range(1001):
        chosen.setdefault(form(n), set()).add(n)
    return {index for index, numbers in chosen.items() if len(numbers) == 1}


def one_form_faults(locale: str, texts: Texts, single: Iterable[int]) -> list[str]:
    """One-forms (chosen for the number one only) that show a digit instead of the word."""
    faults = []
    for key, text in texts.items():
        if not isinstance(text, list):
            continue
        for index in single:
            # A count in parentheses is a label ("All choices (1)"), not a number of things.
            filled = text[index].replace("({count})", "")
            filled = re.sub(r"\{\w+\}", "", filled.replace("{count}", "1"))
            if re.search(r"\d", filled):
                faults.append(f"{locale} {key}: {text[index]!r}")
    return faults


ENGLISH = catalog("en")


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_game_term_is_the_rule_books_word(locale: str) -> None:
    assert term_faults(locale, ENGLISH, catalog(locale), RULES) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_no_message_uses_a_known_wrong_word(locale: str) -> None:
    assert wrong_word_faults(locale, catalog(locale), RULES) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_each_locale_keeps_one_register(locale: str) -> None:
    assert register_faults(locale, catalog(locale), RULES) == []


@pytest.mark.parametrize("locale", RULES["spell_out_one"])
def test_a_one_form_spells_the_number_out(locale: str) -> None:
    single = single_number_forms(locale)
    assert single, f"{locale} has no form for the number one alone"
    assert one_form_faults(locale, catalog(locale), single) == []


def test_the_rules_cover_every_locale_and_give_a_reason_for_each_wrong_word() -> None:
    for concept, rule in RULES["term"].items():
        re.compile(rule["en"])
        assert [m for m in ENGLISH.values() if re.search(rule["en"], whole(m), re.I)], concept
        for locale, own in rule.items():
            if locale == "en":
                continue
            assert locale in TRANSLATED, (concept, locale)
            for pattern, why in own.get("wrong", {}).items():
                re.compile(pattern)
                assert len(why) > 10, (concept, pattern)
    for locale in TRANSLATED:
        assert RULES["register"].get(locale), f"{locale} has no register rules"
    # Rules for one or a few locales: a word that their readers found used two ways.
    partial = {
        "player",
        "colour_red",
        "colour_purple",
        "bot",
        "move",
        "board",
        "log",
        "replay",
        "tonga",
        "game",
        "route",
        "seat",
    }
    main = [c for c in RULES["term"] if c not in partial]
    for concept in main:
        assert set(RULES["term"][concept]) >= {"en", *TRANSLATED}, concept


def test_the_checks_catch_the_faults_they_were_made_for() -> None:
    """Faults once found in the catalogs, each caught by its check."""
    english: Texts = {
        "act.expand": "expand",
        "log.game_over_seas": "The last sea tile has come out: the game is over.",
        "pick.more_beaches": ["Pick {count} more beach.", "Pick {count} more beaches."],
    }
    hungarian: Texts = {
        "act.expand": "terjeszkedés",
        "log.game_over_seas": "Kijött az utolsó tengerlapka: a játék véget ért.",
        "pick.more_beaches": ["Kérjük, válasszon még {count} partot."],
    }
    assert {f.split(":")[0] for f in term_faults("hu", english, hungarian, RULES)} == {
        "hu act.expand",
        "hu log.game_over_seas",
        "hu pick.more_beaches",
    }
    wrong = wrong_word_faults("hu", hungarian, RULES)
    assert {f.split(":")[0] for f in wrong} == {
        "hu act.expand",
        "hu log.game_over_seas",
        "hu pick.more_beaches",
    }
    assert register_faults("hu", hungarian, RULES)
    dutch: Texts = {"act.settle": "kolonist sturen", "stack.sea_tiles": ["{count} zeetegel"]}
    assert len(wrong_word_faults("nl", dutch, RULES)) == 2
    seat = {"error.GAME_FULL": "Every seat is taken."}
    assert term_faults("nl", seat, {"error.GAME_FULL": "Alle plaatsen zijn bezet."}, RULES)
    assert register_faults("nl", {"hint.place": "Klik op een open einde als u wilt."}, RULES)
    assert wrong_word_faults("fi", {"howto.no_ship": "et voi lisääntyä."}, RULES)
    assert not wrong_word_faults("fi", {"howto.expand": "Lisääntyminen: valitse saari"}, RULES)
    assert register_faults("fi", {"hint.place": "Valitkaa avoin reuna."}, RULES)
    assert wrong_word_faults("fi", {"log.game_over_seas": "Viimeinen laatta on nostettu."}, RULES)
    assert wrong_word_faults("hu", {"log.title": "Mi történt"}, RULES)
    log = {"coach.marks": "the log describes it"}
    assert term_faults("hu", log, {"coach.marks": "a napló"}, RULES)
    hebrew: Texts = {"pick.more_beaches": ["בחר/י עוד חוף {count}.", "בחר/י עוד {count} חופים."]}  # noqa: RUF001
    assert one_form_faults("he", hebrew, {0})
    assert register_faults("he", hebrew, RULES)
    assert register_faults("he", {"prefs.confirm": "בקש אישור לכל מהלך"}, RULES)
    old_hebrew: Texts = {
        "takeback.hint": "אפשרי עד שנשלף אריח או ששחקן אחר מחליט.",
        "consequence.voyage_royal": "אי מלכותי חוסם את הדרך: הקבוצה חוזרת ועולה ליבשה ב{island}.",
    }
    assert len(wrong_word_faults("he", old_hebrew, RULES)) == 2
    route = {"consequence.voyage_royal": "A royal island blocks the route: the group turns back."}
    assert term_faults("he", route, old_hebrew, RULES)
    japanese = {
        "log.game_over_seas": "最後の海タイルが出ました。ゲーム終了です。",
        "end.tie_ships": "{first}のほうが島の船が少ない（{a}対{b}）。",  # noqa: RUF001
    }
    assert len(register_faults("ja", japanese, RULES)) == 2
    old_japanese = {
        "decision.emigrate": "連続移動：満員の浜辺と桟橋を選んでください",  # noqa: RUF001
        "howto.landing": "入らない船を手番のプレーヤーが選びます。",
        "help.intro": "盤上の部品を指すかタップすると、それが何かを表示します。",
    }
    assert len(wrong_word_faults("ja", old_japanese, RULES)) == 3


# ---------------------------------------------------------------- lists


@pytest.mark.parametrize("locale", LOCALES)
def test_lists_end_with_the_languages_or_and_and(locale: str) -> None:
    texts = catalog(locale)
    for key in ("list.or", "list.and"):
        form = texts[key]
        assert isinstance(form, str)
        assert form.index("{head}") < form.index("{final}"), (locale, key)
        joiner = form.replace("{head}", "").replace("{final}", "").strip()
        assert joiner and joiner != whole(texts["list.separator"]).strip(), (locale, key)
    assert texts["list.or"] != texts["list.and"]


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_translation_follows_todays_english(locale: str) -> None:
    """A translation whose English changed since it was made (a clause added to a
    rule, a word changed) is out of date, however complete it looks: translate it
    again, then `python -m webclient.sources LOCALE ID ...` (webclient/sources.py)."""
    assert sources.stale(locale) == []
