// The players' table: each seat's name (a bot's level, whose turn it is), ships in
// the supply, points and royal islands, as a board (a view) has them. The game page
// and the replay show it alike.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { swatch } from "./ships.js";
import { botLabel, botLevel, isBot, player } from "./text.js";
import { colourName } from "./wire.js";

export function botBadge(seat) {
  return h("span", { class: "badge bot", testid: "bot", "data-level": botLevel(seat) }, botLabel(seat));
}

// `bubble(colour)`: what else goes beside a name (the game page's quick messages).
export function renderPlayers(game, view, bubble = () => null) {
  const count = (items, c) => (items ?? []).find((x) => colourName(x.colour) === c)?.count ?? 0;
  const active = view.decision && view.active ? colourName(view.active) : null;
  const bots = Object.fromEntries((game?.seats ?? []).filter(isBot).map((s) => [colourName(s.colour), s]));
  return h("section", { class: "card", testid: "players" },
    h("h2", {}, t("players.title")),
    h("table", { class: "players" },
      h("thead", {}, h("tr", {}, h("th", {}, t("players.player")), h("th", {}, t("players.supply")),
        h("th", {}, t("players.points")), h("th", {}, t("players.royal")))),
      h("tbody", {}, ...(view.seats ?? []).map((value) => {
        const c = colourName(value);
        return h("tr", { testid: `player-${c}`, class: c === active ? "active" : null },
          h("td", { class: "name-cell" }, h("span", { class: "who", title: player(value) }, swatch(c), " ", player(value)),
            bots[c] ? botBadge(bots[c]) : null, bubble(c),
            c === active ? h("span", { class: "badge", testid: "active" }, t("players.turn")) : null),
          h("td", { "data-field": "supply" }, count(view.supply, c)),
          h("td", { "data-field": "points" }, count(view.scores, c)),
          h("td", { "data-field": "royal" }, count(view.founded, c)));
      }))));
}
