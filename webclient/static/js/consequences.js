// What an option will do, in words, before it is confirmed: a beach it fills
// (a chain reaction starts, R7), the ships and points a new settlement gives up
// (R10, R13), the ships a royal island sends home (R9), and how a previewed
// voyage goes (R6): the first danger its colours cannot pass, or where it ends.
// Computed from the view the server sent; the server still decides.

import { t, td, tn } from "./i18n.js";
import { actOf } from "./choices.js";
import { tile } from "./geometry.js";
import { islandAt } from "./text.js";
import { colourName, hexKey, beachKey } from "./wire.js";

// Ships on each beach now ("q,r,b" -> colours).
function shipsOn(view) {
  return new Map((view?.beaches ?? []).map((x) => [beachKey(x.beach), (x.colours ?? []).map(colourName)]));
}

function moorings(view, q, r, index) {
  const placed = (view?.tiles ?? []).find((p) => hexKey(p.at) === `${q},${r}`);
  return tile(placed?.tile)?.beaches?.[index]?.moorings ?? Infinity;
}

// The beaches an option puts ships on ("q,r,b", repeats kept), and a beach it takes one from.
function placements(action, decision) {
  const act = actOf(action);
  const body = action[act] ?? {};
  const at = (h, index) => `${hexKey(h)},${index ?? 0}`;
  switch (act) {
    case "setup":
    case "single":
    case "settle_ship":
      return { put: [beachKey(body.beach)] };
    case "expand":
      return { put: (body.beaches ?? []).map((b) => at(body.island, b)), take: body.take ? beachKey(body.take) : null };
    case "tonga":
      return { put: (body.beaches ?? []).map((b) => at({ q: 0, r: 0 }, b)) };
    case "land":
      return { put: (body.ships ?? []).map((s) => at(decision?.island, s.beach)) };
    default:
      return { put: [] };
  }
}

// The beaches `action` fills, each with the colours on it then: [{ q, r, b, colours }].
export function fills(action, view, decision, me) {
  const { put, take } = placements(action, decision);
  if (!put.length || actOf(action) === "setup") return [];
  const now = shipsOn(view);
  const after = new Map();
  const landed = actOf(action) === "land" ? (action.land?.ships ?? []) : [];
  put.forEach((key, i) => {
    const ship = landed[i] ? colourName(landed[i].colour) : me;
    after.set(key, [...(after.get(key) ?? now.get(key) ?? []), ship]);
  });
  if (take && after.has(take)) after.set(take, after.get(take).slice(0, -1));
  return [...after].map(([key, colours]) => {
    const [q, r, b] = key.split(",").map(Number);
    return { q, r, b, colours };
  }).filter(({ q, r, b, colours }) => colours.length >= moorings(view, q, r, b));
}

// Where a filled beach's ships could sail: "north: fails at danger 4", one per jetty.
function exit(path, view) {
  const direction = td(`dir.${path.dir}`);
  const island = path.end.at && islandAt(view, path.end.at);
  if (path.end.kind === "fails") return t("consequence.exit_fails", { direction, danger: path.end.danger });
  if (path.end.kind === "royal" || (path.end.kind === "island" && hexKey(path.end.at) === hexKey(path.from))) {
    return t("consequence.exit_back", { direction, island });
  }
  if (path.end.kind === "island") return t("consequence.exit_lands", { direction, island });
  return t("consequence.exit_draws", { direction });
}

// "Beach 3 of Fiji becomes full: a chain reaction starts." for each beach the option
// fills; before a landing's, where the chain reaction could take the ships
// (`exits(beach)`: the voyage preview of each of its jetties).
function filled(action, view, decision, me, exits) {
  const lines = [];
  for (const beach of fills(action, view, decision, me)) {
    const params = { beach: beach.b + 1, island: islandAt(view, beach) };
    lines.push(actOf(action) === "land" ? t("consequence.full_goes_on", params) : t("consequence.full", params));
    const paths = exits ? exits(beach) : [];
    if (paths.length) {
      const colours = new Set(beach.colours).size;
      lines.push(tn("consequence.exits", colours), ...paths.map((p) => `\u2013 ${exit(p, view)}`));
    }
  }
  return lines;
}

// The points `colour` scores now, and what it would keep with its ships on masks only (R13).
function pointsKept(view, colour) {
  const now = (view?.scores ?? []).find((x) => colourName(x.colour) === colour)?.count ?? 0;
  let kept = 0;
  for (const royal of view?.royal ?? []) {
    if (colourName(royal.colour) !== colour) continue;
    const placed = (view.tiles ?? []).find((p) => hexKey(p.at) === hexKey(royal.island));
    kept += tile(placed?.tile)?.points ?? 0;
  }
  return { now, kept };
}

// The points a New settlement would cost `me` now (R13).
export function settleCost(view, me) {
  const { now, kept } = pointsKept(view, me);
  return Math.max(0, now - kept);
}

function settling(view, me) {
  let ships = 0;
  for (const colours of shipsOn(view).values()) ships += colours.filter((c) => c === me).length;
  const { now, kept } = pointsKept(view, me);
  const lines = [ships ? tn("consequence.settle_ships", ships) : t("consequence.settle_none")];
  if (now > kept) lines.push(tn("consequence.settle_points", now - kept));
  return lines;
}

function royal(action, view, me) {
  const island = hexKey(action.royal?.island);
  let ships = 0;
  for (const [key, colours] of shipsOn(view)) {
    if (key.startsWith(`${island},`)) ships += colours.filter((c) => c === me).length;
  }
  return ships > 1 ? [tn("consequence.royal_home", ships - 1)] : [];
}

// Free moorings on the island of beach `from`, that beach left out.
function freeBesides(view, { q, r, index }) {
  const now = shipsOn(view);
  const placed = (view?.tiles ?? []).find((p) => hexKey(p.at) === `${q},${r}`);
  return (tile(placed?.tile)?.beaches ?? [])
    .reduce((sum, beach, i) => sum + (i === index ? 0 : beach.moorings - (now.get(`${q},${r},${i}`)?.length ?? 0)), 0);
}

// A voyage preview (game.js voyagePath): the danger that stops it, or where it ends.
function voyage(path, view) {
  if (!path) return [];
  const { end, colours } = path;
  const most = Math.max(0, ...path.steps.map((s) => s.danger));
  const lines = [];
  if (end.kind === "fails") lines.push(tn("consequence.voyage_fails", colours, { danger: end.danger }));
  else if (most) lines.push(tn("consequence.voyage_passes", colours, { danger: most }));
  else lines.push(tn("consequence.voyage_colours", colours));
  const island = end.at && islandAt(view, end.at);
  const home = end.kind === "royal" || (end.kind === "island" && hexKey(end.at) === hexKey(path.from));
  if (end.kind === "royal") lines.push(t("consequence.voyage_royal", { island }));
  else if (home) lines.push(t("consequence.voyage_back", { island }));
  else if (end.kind === "island") lines.push(t("consequence.voyage_lands", { island }));
  // Back where it left with the other beaches full: it fills the same beach again.
  if (home && !freeBesides(view, path.from)) lines.push(t("consequence.voyage_same", { island }));
  else if (end.kind === "open") lines.push(t("consequence.voyage_draws"));
  if (path.steps.length) lines.push(t("consequence.path_legend"));
  return lines;
}

// Tiles left in either pile at which the end of the game is near (R12: it ends
// once the last island tile or the last sea tile is drawn).
const FEW_TILES = 2;

export function fewTilesLeft(view) {
  const stack = view?.stack;
  return Boolean(stack) && Math.min(stack.island ?? 0, stack.sea ?? 0) <= FEW_TILES;
}

// Whether `action` may draw a tile: a new settlement and its open ends, a voyage
// that reaches open sea, or a chain reaction with a way out there.
function mayDraw(action, view, decision, me, path, exits) {
  switch (actOf(action)) {
    case "settle":
    case "place":
      return true;
    case "royal":
      return false;
    case "emigrate":
      return path?.end?.kind === "open";
    default:
      return Boolean(exits) && fills(action, view, decision, me).some((beach) => exits(beach).some((p) => p.end.kind === "open"));
  }
}

function told(action, view, decision, me, path, exits) {
  switch (actOf(action)) {
    case "settle":
      return settling(view, me);
    case "royal":
      return royal(action, view, me);
    case "emigrate":
      return voyage(path, view);
    default:
      return filled(action, view, decision, me, exits);
  }
}

// The sentences for `action` of `decision`, as seat `me` ("red") would see them
// happen; with few tiles left, that a tile it draws may end the game.
export function consequences(action, view, decision, me, path = null, exits = null) {
  const lines = told(action, view, decision, me, path, exits);
  if (fewTilesLeft(view) && mayDraw(action, view, decision, me, path, exits)) lines.push(t("consequence.may_end"));
  return lines;
}
