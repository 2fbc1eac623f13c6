"""The browser client's static files: tile data, and a message for every visible string."""

from __future__ import annotations

import json
import re
from pathlib import Path

from server.errors import REASONS
from server.gen.tongiaki.v1 import game_pb2
from webclient import i18n

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "webclient" / "static"
CATALOG: dict[str, str] = json.loads((STATIC / "i18n" / "en.json").read_text(encoding="utf-8"))


def enum_names(enum: object, prefix: str) -> list[str]:
    """Lower-case value names of a proto enum without its prefix and UNSPECIFIED."""
    names = enum.keys()  # type: ignore[attr-defined]
    return [n.removeprefix(prefix).lower() for n in names if not n.endswith("UNSPECIFIED")]


def test_the_browser_tiles_are_the_engine_tiles() -> None:
    bundled = (ROOT / "engine" / "data" / "tiles.json").read_bytes()
    assert (STATIC / "tiles.json").read_bytes() == bundled


def test_every_literal_message_id_in_scripts_and_templates_has_english_text() -> None:
    used: set[str] = set()
    for script in (STATIC / "js").glob("*.js"):
        used |= set(re.findall(r"\bt\(\s*\"([a-z_.]+)\"", script.read_text(encoding="utf-8")))
    for template in (ROOT / "webclient" / "templates").glob("*.html"):
        used |= set(re.findall(r"_\(\"([a-z_.]+)\"\)", template.read_text(encoding="utf-8")))
    assert len(used) > 60
    assert sorted(used - set(CATALOG)) == []


def test_message_ids_built_from_data_have_english_text() -> None:
    ids = [f"colour.{c}" for c in enum_names(game_pb2.Colour, "COLOUR_")]
    ids += [f"dir.{d}" for d in range(6)]
    for kind in enum_names(game_pb2.DecisionKind, "DECISION_KIND_"):
        ids += [f"decision.{kind}", f"hint.{kind}"]
    ids += [f"log.ships_placed.{w}" for w in enum_names(game_pb2.ShipPlacement, "SHIP_PLACEMENT_")]
    ids += [f"state.{s}" for s in enum_names(game_pb2.GameState, "GAME_STATE_")]
    ids += [f"error.{reason}" for reason in REASONS]
    ids += ["error.UPSTREAM_ERROR", "error.GATEWAY_UNREACHABLE"]
    tiles = json.loads((STATIC / "tiles.json").read_text(encoding="utf-8"))
    ids += [f"tile.{island['id']}" for island in tiles["islands"]]
    kinds = ["beach", "tonga", "single", "take", "island", "royal", "jetty", "end", "land"]
    ids += [f"target.{k}" for k in [*kinds, "settle", "land_none"]]
    ids += [f"connection.{s}" for s in ("connecting", "live", "reconnecting", "ended", "failed")]
    assert [i for i in ids if i not in CATALOG] == []


def test_the_translation_function_fills_placeholders_and_knows_directions() -> None:
    assert i18n.translate("en", "status.waiting_for", player="red") == "Waiting for red"
    assert i18n.translate("xx", "app.title") == "Tongiaki"
    assert i18n.translate("en", "no.such.id") == "no.such.id"
    assert i18n.direction("he") == "rtl"
    assert i18n.direction("en") == "ltr"
    assert i18n.locales() == ["en"]


def test_layout_uses_logical_properties_and_the_board_is_never_mirrored() -> None:
    css = (STATIC / "css" / "app.css").read_text(encoding="utf-8")
    physical = re.findall(
        r"(?:margin|padding|border)-(?:left|right)\b|text-align:\s*(?:left|right)|\b(?:left|right):",
        css,
    )
    assert physical == []
    assert re.search(r"\.board-area\s*\{[^}]*direction:\s*ltr", css)
