// The end of a game: the winner and the player's own place first, players by
// name, the points each island gave, the tie-breaks with the figures that
// decided, and what next (the rematch everybody joins, or the lobby).

import { h } from "./dom.js";
import { conjunction, t, tn } from "./i18n.js";
import { tile } from "./geometry.js";
import { swatch } from "./ships.js";
import { errorText, player, tileName } from "./text.js";
import { colourName, hexKey } from "./wire.js";

// Who is present on each island of the final board (R13), with its points.
export function islandPoints(view) {
  const present = new Map();
  const add = (key, colour) => {
    if (!present.has(key)) present.set(key, new Set());
    present.get(key).add(colourName(colour));
  };
  for (const b of view.beaches ?? []) for (const c of b.colours ?? []) add(hexKey(b.beach), c);
  for (const royal of view.royal ?? []) add(hexKey(royal.island), royal.colour);
  return (view.tiles ?? [])
    .filter((p) => tile(p.tile)?.kind === "island")
    .map((p) => ({ id: p.tile, points: tile(p.tile).points, colours: [...(present.get(hexKey(p.at)) ?? [])] }))
    .filter((row) => row.colours.length)
    .sort((a, b) => b.points - a.points || tileName(a.id).localeCompare(tileName(b.id)));
}

// Why each tied pair of neighbours in the ranking stands as it does.
export function tieBreaks(rows) {
  const out = [];
  for (let i = 1; i < rows.length; i += 1) {
    const [a, b] = [rows[i - 1], rows[i]];
    if (a.points !== b.points) continue;
    const names = { first: player(a.colour), second: player(b.colour), points: a.points };
    if (a.islands !== b.islands) out.push(t("end.tie_islands", { ...names, a: a.islands, b: b.islands }));
    else if (a.ships !== b.ships) out.push(t("end.tie_ships", { ...names, a: a.ships, b: b.ships }));
    else out.push(t("end.tie_shared", names));
  }
  return out;
}

// The end of a game the server stopped before the rules ended it: no winner, and why.
export function renderStopped(stopped, actions) {
  const why = stopped.reason === "GAME_STALLED"
    ? tn("end.stopped_stalled", stopped.rounds ?? 0)
    : errorText({ reason: stopped.reason });
  return h("section", { class: "card ranking stopped", testid: "stopped" },
    h("h2", { testid: "stopped-title" }, t("end.stopped")),
    h("p", { testid: "stopped-why", "data-reason": stopped.reason }, why),
    endActions(actions));
}

function endActions(actions) {
  return h("p", { class: "end-actions" },
    actions.rematch ? h("button", { type: "button", class: "primary", testid: "rematch", onclick: actions.rematch.run }, actions.rematch.label) : null,
    h("a", { class: "button secondary", href: "/", testid: "to-lobby" }, t("end.lobby")),
    h("a", { class: "button secondary", href: actions.replay, testid: "replay-link" }, t("end.replay")));
}

export function renderEnd(view, seat, actions) {
  const rows = [...view.result].sort((a, b) => a.rank - b.rank);
  const winners = rows.filter((r) => r.rank === 1).map((r) => player(r.colour));
  const mine = seat ? rows.find((r) => colourName(r.colour) === colourName(seat.colour)) : null;
  const ties = tieBreaks(rows);
  const islands = islandPoints(view);
  return h("section", { class: "card ranking", testid: "ranking" },
    h("h2", { testid: "winner" }, winners.length > 1
      ? t("end.winners", { players: conjunction(winners) })
      : t("end.winner", { players: winners[0] ?? "" })),
    mine ? h("p", { class: "own-place", testid: "own-place" }, t("end.your_place", { rank: mine.rank, total: rows.length })) : null,
    h("table", {},
      h("caption", {}, t("ranking.title")),
      h("thead", {}, h("tr", {}, h("th", {}, t("ranking.rank")), h("th", {}, t("ranking.player")),
        h("th", {}, t("ranking.points")), h("th", {}, t("ranking.islands")), h("th", {}, t("ranking.ships")))),
      h("tbody", {}, ...rows.map((r) => {
        const c = colourName(r.colour);
        return h("tr", { testid: "rank-row", "data-colour": c, "data-rank": r.rank, "data-points": r.points },
          h("td", {}, r.rank), h("td", { class: "name-cell" }, h("span", { class: "who", title: player(r.colour) }, swatch(c), " ", player(r.colour))),
          h("td", {}, r.points),
          h("td", {}, r.islands), h("td", {}, r.ships));
      }))),
    h("p", { class: "muted" }, t("ranking.tiebreaks")),
    ties.length ? h("ul", { class: "ties", testid: "ties" }, ...ties.map((line) => h("li", {}, line))) : null,
    h("details", { class: "island-points", testid: "island-points" },
      h("summary", {}, t("end.islands")),
      h("table", {}, h("tbody", {}, ...islands.map((row) => h("tr", { "data-tile": row.id },
        h("td", {}, tileName(row.id)), h("td", {}, tn("board.points", row.points)),
        h("td", {}, ...row.colours.map((c) => h("span", { class: "present" }, swatch(c), player(c))))))))),
    endActions(actions));
}
