// What happened while this player waited, told at their next decision: the points
// each seat won or lost, and this player's ships island by island (now, and before).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { swatch } from "./ships.js";
import { player, tileName } from "./text.js";
import { colourName, hexKey } from "./wire.js";

function shipsByIsland(view, colour) {
  const out = new Map();
  for (const entry of view?.beaches ?? []) {
    const n = (entry.colours ?? []).filter((c) => colourName(c) === colour).length;
    if (n) out.set(hexKey(entry.beach), (out.get(hexKey(entry.beach)) ?? 0) + n);
  }
  return out;
}

const score = (view, colour) => (view?.scores ?? []).find((s) => colourName(s.colour) === colour)?.count ?? 0;

// The changes between the board `before` the others' moves and `after` them, for `me`.
export function since(before, after, me) {
  const points = (after.seats ?? []).map((seat) => ({ seat, delta: score(after, colourName(seat)) - score(before, colourName(seat)) }))
    .filter((p) => p.delta);
  const was = shipsByIsland(before, me);
  const now = shipsByIsland(after, me);
  const tiles = new Map([...(before.tiles ?? []), ...(after.tiles ?? [])].map((p) => [hexKey(p.at), p.tile]));
  const islands = [...new Set([...was.keys(), ...now.keys()])]
    .filter((k) => (was.get(k) ?? 0) !== (now.get(k) ?? 0))
    .map((k) => ({ hex: k, island: tileName(tiles.get(k)), was: was.get(k) ?? 0, now: now.get(k) ?? 0 }));
  return { points, islands };
}

// A move's log lines as the language joins sentences (no space after 。).
const sentences = (lines) => lines.reduce((first, second) => t("text.sentences", { first, second }));

const signed = (n) => (n > 0 ? `+${n}` : `\u2212${-n}`);

// Pointing at an island's line (or focusing, or tapping it) shows it on the board.
function spotHexes(hexes, onSpot) {
  const show = () => onSpot(hexes);
  const hide = () => onSpot([]);
  return { onmouseenter: show, onmouseleave: hide, onfocus: show, onblur: hide, onclick: show };
}

const spot = (hex, onSpot) => spotHexes([hex.split(",").map(Number)], onSpot);

// The card (what changed for the points and this player's ships, or that nothing
// did), and under it, folded, the others' moves in the log's words, a line each (`moves`:
// [{ lines, hexes }]); null when the others made no move.
// `yours`: what this player's own last move brought about that they did not pick
// (a voyage failed, ships sent home), in the log's words.
export function renderSince({ points, islands }, onSpot, moves = [], yours = []) {
  const told = moves.filter((m) => m.lines.length);
  if (!points.length && !islands.length && !told.length && !yours.length) return null;
  return h("div", { class: "since", testid: "since", role: "note" },
    h("h3", {}, t("since.title")),
    yours.length ? h("p", { testid: "since-yours" }, t("since.yours"), " ", sentences(yours)) : null,
    points.length || islands.length || yours.length ? null : h("p", { testid: "since-none" }, t("since.none")),
    points.length ? h("p", { testid: "since-points" }, t("since.points"), " ", ...points.map((p) =>
      h("span", { class: "since-item" }, swatch(colourName(p.seat)), " ", player(p.seat), " ",
        h("bdi", { dir: "ltr", class: p.delta > 0 ? "gain" : "loss" }, signed(p.delta))))) : null,
    islands.length ? h("p", { testid: "since-ships" }, t("since.ships"), " ", ...islands.map((i) =>
      h("span", { class: "since-item linked", "data-hex": i.hex, tabindex: "0", ...spot(i.hex, onSpot) },
        t("since.island", { island: i.island, now: i.now, was: i.was })))) : null,
    told.length ? h("details", { testid: "since-moves" }, h("summary", {}, t("since.moves")),
      h("ul", {}, ...told.map((m) => h("li", { class: m.hexes.length ? "linked" : null, tabindex: m.hexes.length ? "0" : null,
        ...(m.hexes.length ? spotHexes(m.hexes, onSpot) : {}) }, ...m.lines.map((line) => h("span", { class: "line" }, line)))))) : null);
}
