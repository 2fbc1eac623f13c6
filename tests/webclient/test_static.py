"""The browser client's static files and catalogs: tile data, a message for every
visible string in every locale, complete catalogs and their exported JSON."""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tongiaki.reasons import Reason as REASONS
from tongiaki.v1 import game_pb2
from webclient import assets, catalogs, i18n, messages

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "webclient" / "static"
LOCALES = ["en", "fi", "he", "hu", "ja", "nl"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def entries(locale: str) -> dict[str, str | list[str]]:
    """Message id -> text (or plural forms) of a locale's .po catalog, fuzzy ones included."""
    found: dict[str, str | list[str]] = {}
    for message in i18n.read_catalog(locale):
        if message.id:
            key = str(message.id[0] if isinstance(message.id, tuple) else message.id)
            text = message.string
            found[key] = [str(f) for f in text] if isinstance(text, tuple) else str(text)
    return found


ENGLISH = entries("en")


def enum_names(enum: object, prefix: str) -> list[str]:
    """Lower-case value names of a proto enum without its prefix and UNSPECIFIED."""
    names = enum.keys()  # type: ignore[attr-defined]
    return [n.removeprefix(prefix).lower() for n in names if not n.endswith("UNSPECIFIED")]


def test_the_browser_tiles_are_the_engine_tiles() -> None:
    bundled = (ROOT / "engine" / "data" / "tiles.json").read_bytes()
    assert (STATIC / "tiles.json").read_bytes() == bundled


def test_every_locale_of_the_issue_has_a_catalog() -> None:
    assert i18n.locales() == LOCALES


def test_every_literal_message_id_in_scripts_and_templates_has_english_text() -> None:
    used: set[str] = set()
    for script in (STATIC / "js").glob("*.js"):
        used |= set(re.findall(r"\btn?\(\s*\"([a-z_.]+)\"", script.read_text(encoding="utf-8")))
    for template in (ROOT / "webclient" / "templates").glob("*.html"):
        used |= set(re.findall(r"_\(\"([a-z_.]+)\"\)", template.read_text(encoding="utf-8")))
    assert len(used) > 60
    assert sorted(used - set(ENGLISH)) == []


def data_ids() -> list[str]:
    """Message ids the client builds from event kinds, reason codes, tiles and enums."""
    ids = [f"colour.{c}" for c in enum_names(game_pb2.Colour, "COLOUR_")]
    ids += [f"dir.{d}" for d in range(6)]
    for kind in enum_names(game_pb2.DecisionKind, "DECISION_KIND_"):
        ids += [f"decision.{kind}", f"hint.{kind}"]
    ids += [f"log.ships_placed.{w}" for w in enum_names(game_pb2.ShipPlacement, "SHIP_PLACEMENT_")]
    ids += [f"state.{s}" for s in enum_names(game_pb2.GameState, "GAME_STATE_")]
    tiles = json.loads((STATIC / "tiles.json").read_text(encoding="utf-8"))
    ids += [f"tile.{island['id']}" for island in tiles["islands"]]
    kinds = ["beach", "tonga", "single", "take", "island", "royal", "jetty", "end", "land"]
    ids += [f"target.{k}" for k in [*kinds, "settle", "land_none"]]
    ids += [f"connection.{s}" for s in ("connecting", "live", "reconnecting", "ended", "failed")]
    return ids


def event_ids() -> list[str]:
    """One message per event kind and log entry kind (ships_placed has one per reason)."""
    kinds = [f.name for f in game_pb2.Event.DESCRIPTOR.fields if f.name != "ships_placed"]
    kinds += [f.name for f in game_pb2.LogEntry.DESCRIPTOR.fields if f.name != "sequence"]
    return [f"log.{k}" for k in kinds if k != "action_applied"]


def error_ids() -> list[str]:
    """One message per reason code, and the gateway's own."""
    return [f"error.{r}" for r in [*REASONS, "UPSTREAM_ERROR", "GATEWAY_UNREACHABLE", "unknown"]]


@pytest.mark.parametrize("locale", LOCALES)
def test_every_event_kind_error_reason_and_data_id_has_text_in_every_locale(locale: str) -> None:
    messages = catalogs.export(locale)["messages"]
    wanted = [*data_ids(), *event_ids(), *error_ids()]
    assert len(wanted) > 100
    assert [i for i in wanted if not messages.get(i)] == []


@pytest.mark.parametrize("locale", LOCALES)
def test_every_catalog_is_complete_with_the_placeholders_of_the_source(locale: str) -> None:
    catalog = i18n.read_catalog(locale)
    template = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    assert template == set(ENGLISH)
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert fuzzy == []
    assert list(catalog.obsolete) == []
    nplurals = catalog.num_plurals
    single = single_number_forms(locale)
    for key, text in entries(locale).items():
        source = ENGLISH[key]
        wanted = set(PLACEHOLDER.findall(" ".join(source) if isinstance(source, list) else source))
        forms = text if isinstance(text, list) else [text]
        assert isinstance(text, list) == isinstance(source, list), key
        if isinstance(text, list):
            assert len(forms) == nplurals, key
        for index, form in enumerate(forms):
            assert form.strip(), f"{locale}: {key} is untranslated"
            found = set(PLACEHOLDER.findall(form))
            # A form chosen for one number only may spell it out ("ספינה אחת").
            if isinstance(text, list) and index in single:
                found |= {"count"}
            assert found == wanted, f"{locale}: {key}: {form}"


def single_number_forms(locale: str) -> set[int]:
    """The plural forms of a locale's catalog that only one number (up to 1000) selects."""
    form = gettext.c2py(i18n.read_catalog(locale).plural_expr)
    chosen: dict[int, set[int]] = {}
    for n in range(1001):
        chosen.setdefault(form(n), set()).add(n)
    return {index for index, numbers in chosen.items() if len(numbers) == 1}


def test_only_a_form_for_a_single_number_may_leave_the_number_out() -> None:
    assert single_number_forms("en") == {0}
    assert single_number_forms("he") == {0}
    assert single_number_forms("hu") == set()
    assert single_number_forms("ja") == set()


def test_every_message_with_a_number_of_things_has_plural_forms_in_the_source() -> None:
    """A number of things is always ``{count}`` and picks a plural form ("1 colour",
    "3 colours"); every other number is a label that no noun follows ("danger 2")."""
    declared = messages.NUMBER_PLACEHOLDERS | messages.TEXT_PLACEHOLDERS
    assert not messages.NUMBER_PLACEHOLDERS & messages.TEXT_PLACEHOLDERS
    counted = set()
    for message in i18n.read_catalog("en"):
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        text = message.string
        forms = [str(f) for f in text] if isinstance(text, (tuple, list)) else [str(text)]
        for form in forms:
            names = set(PLACEHOLDER.findall(form))
            assert names <= declared, f"{key}: undeclared placeholders {names - declared}"
            if "count" in names:
                counted.add(key)
                assert isinstance(message.id, tuple), f"{key} shows a number without plural forms"
            labels = messages.NUMBER_PLACEHOLDERS - {"count"}
            followed = re.findall(r"\{(\w+)\}\s+[^\W\d_]", form)
            assert not [n for n in followed if n in labels], (
                f"{key}: a number before a noun: {form}"
            )
    assert {"log.sea_crossed", "log.voyage_failed", "stack.island_tiles"} <= counted


def test_a_number_of_things_reads_right_in_english() -> None:
    assert i18n.translate("en", "log.sea_crossed", count=2, danger=2).endswith(
        "2 colours are enough."
    )
    assert i18n.translate("en", "log.voyage_failed", count=1, danger=3, ships="1 red").startswith(
        "The voyage fails: the path has danger 3, the group only 1 colour."
    )
    assert i18n.translate("en", "stack.island_tiles", count=1) == "1 island tile"
    assert i18n.translate("en", "stack.sea_tiles", count=3) == "3 sea tiles"
    assert i18n.translate("nl", "log.sea_crossed", count=1, danger=0).endswith("1 kleur is genoeg.")
    assert i18n.translate("he", "board.points", count=1) == "נקודה אחת"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_committed_browser_catalogs_are_exported_from_the_po_files(locale: str) -> None:
    committed = (STATIC / "i18n" / f"{locale}.json").read_text(encoding="utf-8")
    assert committed == catalogs.render(locale)


def test_plural_categories_map_to_the_catalogs_forms_by_cldr() -> None:
    assert i18n.plural_categories("en") == {"one": 0, "other": 1}
    assert i18n.plural_categories("nl") == {"one": 0, "other": 1}
    assert i18n.plural_categories("fi") == {"one": 0, "other": 1}
    assert i18n.plural_categories("he") == {"one": 0, "other": 1, "two": 1}
    assert i18n.plural_categories("hu") == {"one": 0, "other": 0}
    assert i18n.plural_categories("ja") == {"other": 0}


def test_the_translation_function_fills_placeholders_and_plurals() -> None:
    assert i18n.translate("en", "status.waiting_for", player="red") == "Waiting for red"
    landed = i18n.translate("en", "log.landed", count=1, island="Fiji", ships="1 red")
    assert landed == "1 ship lands on Fiji: 1 red."
    landed = i18n.translate("en", "log.landed", count=3, island="Fiji", ships="3 red")
    assert landed == "3 ships land on Fiji: 3 red."
    assert i18n.translate("nl", "board.points", count=1) == "1 punt"
    assert i18n.translate("nl", "board.points", count=4) == "4 punten"
    assert i18n.translate("hu", "board.points", count=4) == "4 pont"
    assert i18n.translate("xx", "app.title") == "Tongiaki"
    assert i18n.translate("en", "no.such.id") == "no.such.id"
    assert i18n.direction("he") == "rtl"
    assert i18n.direction("en") == "ltr"
    assert i18n.language_name("hu") == "magyar"


def test_layout_uses_logical_properties_and_the_board_is_never_mirrored() -> None:
    css = (STATIC / "css" / "app.css").read_text(encoding="utf-8")
    physical = re.findall(
        r"(?:margin|padding|border)-(?:left|right)\b|text-align:\s*(?:left|right)|\b(?:left|right):",
        css,
    )
    assert physical == []
    assert re.search(r"\.board-area\s*\{[^}]*direction:\s*ltr", css)


def test_the_contracts_enum_names_are_mapped_in_one_module() -> None:
    """Only wire.js knows the wire's enum prefixes (COLOUR_, GAME_STATE_, ...)."""
    prefixes = re.compile(r"COLOUR_|GAME_STATE_|DECISION_KIND_|BOT_LEVEL_")
    found = {
        script.name
        for script in (STATIC / "js").glob("*.js")
        if prefixes.search(script.read_text(encoding="utf-8"))
    }
    assert found == {"wire.js"}


def test_every_script_parses_as_a_module(tmp_path: Path) -> None:
    """Node parses each script as the browser will, an ES module (a syntax error
    would leave a page blank, found here in a second instead of by a browser test)."""
    node = shutil.which("node")
    assert node is not None, "node is needed (make axe installs it)"
    for script in sorted((STATIC / "js").glob("*.js")):
        source = script.read_bytes()
        # As written, and as served (whole-line comments dropped).
        for form, data in (("source", source), ("served", assets.served(script.name, source))):
            module = tmp_path / f"{script.stem}-{form}.mjs"
            module.write_bytes(data)
            checked = subprocess.run(
                [node, "--check", str(module)], check=False, capture_output=True, text=True
            )
            assert checked.returncode == 0, f"{script.name} ({form}): {checked.stderr}"


def test_serving_drops_only_comments() -> None:
    """No multi-line template string holds a line that serving would take for a comment,
    and what is dropped from a script is exactly its whole-line comments."""
    for script in sorted((STATIC / "js").glob("*.js")):
        text = script.read_text(encoding="utf-8")
        for literal in re.findall(r"`[^`]*`", text):
            assert not re.search(r"^[ \t]*//", literal, re.MULTILINE), (script.name, literal)
        kept = assets.served(script.name, text.encode()).decode().splitlines()
        code = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
        assert kept == code, script.name
    css = (STATIC / "css" / "app.css").read_bytes()
    assert b"/*" in css and b"/*" not in assets.served("app.css", css)


def test_every_script_declares_or_imports_each_name_it_uses() -> None:
    """ESLint (tests/webclient/lint.mjs): no name used but never declared or imported
    (a page would fail only when that line runs), no import left unused."""
    node = shutil.which("node")
    lint = ROOT / "tests" / "webclient" / "lint.mjs"
    installed = lint.parent / "node_modules" / "eslint"
    assert node is not None and installed.is_dir(), "ESLint is needed: make axe"
    checked = subprocess.run([node, str(lint)], check=False, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
