// Sentences built from data: option labels, event-log lines and error texts.
// Every word comes from the catalog; events and errors are kinds, fields and
// reason codes, never English from the server.

import { t, td, tn, has, list, groups, RLI, PDI } from "./i18n.js";
import { tile, centre, neighbour } from "./geometry.js";
import { actOf } from "./choices.js";
import { colourName, kindOf, levelName } from "./wire.js";

export const colour = (value) => td(`colour.${colourName(value)}`);

// A game's title for this reader: a tutorial's in the reader's language (the
// server names none), else the name its creator gave it.
export const gameTitle = (settings, fallback = t("game.title")) =>
  settings?.tutorial ? t("tutorial.game_title") : settings?.display_name || fallback;

// Players are named by their display names; a seat without one by its colour,
// as a name ("Red", "Punainen"), never as a bare adjective.
const names = new Map();

export function setPlayers(seats) {
  names.clear();
  for (const seat of seats ?? []) {
    if (seat.display_name) names.set(colourName(seat.colour), seat.display_name);
  }
}

export const player = (value) => names.get(colourName(value)) || td(`player.${colourName(value)}`);
export const direction = (dir) => td(`dir.${dir ?? 0}`);

export function tileName(id) {
  const info = tile(id);
  if (!info) return id;
  if (info.kind === "sea") return t("tile.sea");
  return has(`tile.${id}`) ? td(`tile.${id}`) : info.name;
}

// The island at hex h in `view`, by name.
export function islandAt(view, h) {
  const q = h?.q ?? 0;
  const r = h?.r ?? 0;
  const placed = (view?.tiles ?? []).find((p) => (p.at?.q ?? 0) === q && (p.at?.r ?? 0) === r);
  return placed ? tileName(placed.tile) : t("tile.unknown", { q, r });
}

// Where a new tile goes: beside the island it is drawn from, or, drawn from a sea
// tile, near the closest island and in which direction from it (what the board shows).
function placeText(view, body) {
  const origin = [body.origin?.q ?? 0, body.origin?.r ?? 0];
  if (tile(tileAt(view, origin))?.kind !== "sea") {
    return t("option.place", { island: islandAt(view, body.origin), direction: direction(body.dir) });
  }
  const at = centre(...neighbour(...origin, body.dir ?? 0));
  let best = null;
  for (const placed of view?.tiles ?? []) {
    if (tile(placed.tile)?.kind === "sea") continue;
    const c = centre(placed.at?.q ?? 0, placed.at?.r ?? 0);
    const d = Math.hypot(at.x - c.x, at.y - c.y);
    if (!best || d < best.d) best = { d, c, id: placed.tile };
  }
  if (!best) return t("option.place", { island: islandAt(view, body.origin), direction: direction(body.dir) });
  const angle = (Math.atan2(at.y - best.c.y, at.x - best.c.x) * 180) / Math.PI;
  const dir = (((Math.round((angle - 90) / 60) % 6) + 6) % 6);
  return t("option.place_near", { island: tileName(best.id), direction: direction(dir) });
}

const tileAt = (view, [q, r]) =>
  (view?.tiles ?? []).find((p) => (p.at?.q ?? 0) === q && (p.at?.r ?? 0) === r)?.tile;

const beachNo = (index) => (index ?? 0) + 1;
// Beach numbers in a list ("1, 4, 5, 6"): in a right-to-left page the list runs
// right to left as the sentence does (its first number rightmost, each comma after
// its number), isolated as such wherever it is put, and a line never breaks inside it.
const beachList = (beaches) => {
  const text = list((beaches ?? []).map(beachNo));
  return document.documentElement.dir === "rtl" ? `${RLI}${text.replace(/ /g, "\u00a0")}${PDI}` : text;
};
const counted = (entries) =>
  list((entries ?? [])
    .filter((c) => c.count > 0)
    .map((c) => tn("text.count_colour", c.count, { colour: colour(c.colour) })));

export function describeOption(option, view, decision) {
  const act = actOf(option);
  const body = option[act];
  switch (act) {
    case "setup":
      return t("option.setup", { beach: beachNo(body.beach.index) });
    case "expand": {
      const island = islandAt(view, body.island);
      const beaches = beachList(body.beaches);
      if (body.take) {
        return t("option.expand_take", {
          island,
          beaches,
          from: islandAt(view, body.take),
          beach: beachNo(body.take.index),
        });
      }
      if ((body.beaches ?? []).length === 1) return t("option.expand_one", { island, beaches });
      return t("option.expand", { island, beaches });
    }
    case "royal":
      return t("option.royal", { island: islandAt(view, body.island) });
    case "settle":
      return t("option.settle");
    case "tonga":
      if (body.beaches?.length === 2 && body.beaches[0] === body.beaches[1]) {
        return t("option.tonga_one", { beach: beachNo(body.beaches[0]) });
      }
      return t("option.tonga", { beaches: beachList(body.beaches) });
    case "single":
      return t("option.single", { island: islandAt(view, body.beach), beach: beachNo(body.beach.index) });
    case "emigrate":
      return t("option.emigrate", {
        island: islandAt(view, body.beach),
        beach: beachNo(body.beach.index),
        direction: direction(body.dir),
      });
    case "land": {
      const ships = body.ships ?? [];
      if (!ships.length) return t("option.land_none");
      const byBeach = new Map();
      for (const s of ships) {
        const colours = byBeach.get(s.beach ?? 0) ?? [];
        colours.push(colour(s.colour));
        byBeach.set(s.beach ?? 0, colours);
      }
      const parts = [...byBeach.entries()].map(([b, colours]) =>
        t("option.land_beach", { beach: beachNo(b), ships: list(colours) }),
      );
      const back = leftOver(decision?.group ?? [], ships);
      const text = t("option.land", { arrangement: groups(parts) });
      if (!back.length) return text;
      const returned = t("option.land_back", { ships: list(back.map(colour)) });
      return t("text.sentences", { first: text, second: returned });
    }
    case "place":
      return placeText(view, body);
    case "settle_ship":
      return t("option.settle_ship", { island: islandAt(view, body.beach), beach: beachNo(body.beach.index) });
    default:
      return JSON.stringify(option);
  }
}

// Colours of the group that an arrangement leaves out (they go back to supply).
export function leftOver(group, ships) {
  const left = [...group];
  for (const s of ships) {
    const i = left.indexOf(s.colour);
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}

export function decisionPrompt(decision) {
  const kind = kindOf(decision);
  return td(`decision.${kind}`);
}

function eventLine(event, view, events) {
  const kind = Object.keys(event)[0];
  const e = event[kind];
  switch (kind) {
    case "ships_placed": {
      const why = String(e.why).replace(/^SHIP_PLACEMENT_/, "").toLowerCase();
      const beaches = e.beaches ?? [];
      const islands = [...new Set(beaches.map((b) => islandAt(view, b)))];
      const line = tn(`log.ships_placed.${why}`, beaches.length, { player: player(e.player), island: list(islands) });
      // Which beaches (on one island: "Beaches 1, 4."), as the board numbers them.
      if (islands.length !== 1 || !beaches.length) return line;
      const indices = [...new Set(beaches.map((b) => b.index ?? 0))].sort((a, b) => a - b);
      const second = indices.length === 1 ? t("log.beach", { beach: indices[0] + 1 }) : t("log.beaches", { beaches: beachList(indices) });
      return t("text.sentences", { first: line, second });
    }
    case "ship_taken":
      return t("log.ship_taken", { player: player(e.player), island: islandAt(view, e.beach) });
    case "emigrated":
      return tn("log.emigrated", (e.group ?? []).length, {
        player: player(e.player),
        island: islandAt(view, e.beach),
        direction: direction(e.dir),
      });
    case "tile_placed":
      return t("log.tile_placed", {
        tile: tileName(e.tile),
        islands: tn("stack.island_tiles", e.stack?.island ?? 0),
        seas: tn("stack.sea_tiles", e.stack?.sea ?? 0),
      });
    case "sea_crossed":
      return e.danger
        ? tn("log.sea_crossed", e.colours ?? 0, { danger: e.danger })
        : t("log.sea_crossed_free");
    case "voyage_failed":
      return tn("log.voyage_failed", e.colours ?? 0, { danger: e.danger ?? 0, ships: counted(e.returned) });
    case "bounced":
      return t("log.bounced", { owner: player(e.owner), island: islandAt(view, e.at) });
    case "stranded":
      return tn("log.stranded", (e.group ?? []).length);
    case "landed": {
      // Whose ships, by colour ("2 yellow, 1 red"), in the order they landed.
      const by = new Map();
      for (const ship of e.ships ?? []) by.set(ship.colour, (by.get(ship.colour) ?? 0) + 1);
      const ships = counted([...by].map(([c, count]) => ({ colour: c, count })));
      const line = tn("log.landed", (e.ships ?? []).length, { island: islandAt(view, e.island), ships });
      const back = counted(e.returned);
      if (!back) return line;
      const returned = t("log.returned", { ships: back });
      return t("text.sentences", { first: line, second: returned });
    }
    case "royal_founded":
      return t("log.royal_founded", { player: player(e.player), island: tileName(e.tile) });
    case "settlement_started":
      return tn("log.settlement_started", e.returned ?? 0, { player: player(e.player) });
    case "island_removed":
      return t("log.island_removed", { island: tileName(e.tile), ships: counted(e.returned) });
    case "turn_started":
      return t("log.turn_started", { player: player(e.player) });
    case "turn_ended":
      return t("log.turn_ended", { player: player(e.player) });
    case "game_over":
      return endLine(events, view);
    default:
      return null;
  }
}

// Why the game ended (R12): the tile that emptied the island or the sea pile.
function endLine(events, view) {
  const drawn = (events ?? []).map((e) => e.tile_placed).filter(Boolean).pop();
  const stack = drawn?.stack ?? view?.stack;
  if (stack && !(stack.island > 0)) return t("log.game_over_islands");
  if (stack && !(stack.sea > 0)) return t("log.game_over_seas");
  return t("log.game_over");
}

// The log lines of one log entry; `view` holds the tiles by hex (for island names).
export function entryLines(entry, view) {
  if (entry.seat_joined) {
    const seat = entry.seat_joined;
    if (seat.display_name) names.set(colourName(seat.colour), seat.display_name);
    if (!seat.display_name) return [t("log.seat_joined_unnamed", { colour: colour(seat.colour) })];
    return [t("log.seat_joined", { colour: colour(seat.colour), name: seat.display_name })];
  }
  if (entry.seat_left) {
    names.delete(colourName(entry.seat_left.colour));
    return [t("log.seat_left", { colour: colour(entry.seat_left.colour) })];
  }
  if (entry.seat_taken_over) return [t("log.seat_taken_over", { colour: colour(entry.seat_taken_over.colour) })];
  if (entry.game_started) return [t("log.game_started")];
  if (entry.message_sent) {
    const phrase = td(`phrase.${String(entry.message_sent.phrase).replace(/^PHRASE_/, "").toLowerCase()}`);
    return [t("log.message_sent", { player: player(entry.message_sent.player), phrase })];
  }
  if (entry.rematch_proposed) return [t("log.rematch_proposed", { player: player(entry.rematch_proposed.player) })];
  if (entry.action_taken_back) return [t("log.action_taken_back", { player: player(entry.action_taken_back.player) })];
  if (entry.game_stopped) return [stoppedLine(entry.game_stopped)];
  if (entry.action_applied) {
    const events = entry.action_applied.events ?? [];
    return events.map((e) => eventLine(e, view, events)).filter(Boolean);
  }
  return [];
}

// Why the server stopped a game (a game_stopped entry, or the game's `stopped`), as
// the log says it; a reason this client does not know is named as an error is.
export function stoppedLine(stopped) {
  if (stopped?.reason === "GAME_STALLED") return tn("log.game_stopped", stopped.rounds ?? 0);
  return errorText({ reason: stopped?.reason });
}

export function errorText(error) {
  const reason = error?.reason ?? "UPSTREAM_ERROR";
  return has(`error.${reason}`) ? td(`error.${reason}`) : t("error.unknown", { reason });
}

// Who may play a seat: a person, or a server-side bot of one of the contract's levels.
export const BOT_LEVELS = ["random", "greedy", "strong", "expert"];
export const botLevel = (seat) => levelName(seat?.bot);
export const isBot = (seat) => Boolean(seat?.bot) && botLevel(seat) !== "unspecified";
export const botLabel = (seat) => td(`bot.${botLevel(seat)}`);
