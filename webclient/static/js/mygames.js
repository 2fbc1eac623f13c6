// This browser's games: those it holds a seat of (and those it watched), each
// with whose turn it is ("your turn" first), the player's place once it is
// over, its players and when it was made, and links to play or replay it.

import { call, seats, watched } from "./api.js";
import { h } from "./dom.js";
import { t, td } from "./i18n.js";
import { swatch } from "./ships.js";
import { seatLinkBox } from "./social.js";
import { botLabel, errorText, gameTitle, isBot } from "./text.js";
import { colourName, stateName } from "./wire.js";

const STATE_ORDER = { mine: 0, active: 1, open: 2, finished: 3 };
// How many games are asked for at once.
const AT_ONCE = 6;

// The game `id` as this browser sees it: with its seat's token if it holds one.
async function fetchOne(id, seat) {
  try {
    return { id, seat, snapshot: (await call("GET", `/games/${id}`, undefined, seat?.token)).snapshot };
  } catch (error) {
    if (error.reason === "GAME_NOT_FOUND") {
      // Expired or gone: nothing to come back to.
      if (seat) seats.clear(id);
      else watched.remove(id);
      return null;
    }
    if (seat && ["TOKEN_INVALID", "TOKEN_WRONG_GAME"].includes(error.reason)) return fetchOne(id, null);
    return { id, seat, error };
  }
}

// Every game of this browser, the ones to act in first, then the newest.
export async function myGames() {
  const held = seats.games();
  const wanted = [...held.map((id) => [id, seats.get(id)]),
    ...watched.games().filter((id) => !held.includes(id)).map((id) => [id, null])];
  const rows = [];
  for (let i = 0; i < wanted.length; i += AT_ONCE) {
    const batch = await Promise.all(wanted.slice(i, i + AT_ONCE).map(([id, seat]) => fetchOne(id, seat)));
    rows.push(...batch.filter(Boolean).map(describe));
  }
  // A rematch says which game it follows (often of the same name).
  for (const row of rows) {
    const next = rows.find((r) => row.rematch && `games/${r.id}` === row.rematch);
    if (next) next.rematchOf = row;
  }
  const rank = (row) => (row.yourTurn ? STATE_ORDER.mine : STATE_ORDER[stateName(row.state)] ?? 4);
  return rows.sort((a, b) => rank(a) - rank(b) || b.created - a.created);
}

// What a list shows of one game.
function describe({ id, seat, snapshot, error }) {
  if (error) return { id, seat, error, state: "", created: 0, players: [] };
  const game = snapshot.game;
  const view = snapshot.view;
  const me = seat && view?.viewer && colourName(view.viewer) !== "unspecified" ? colourName(view.viewer) : seat ? colourName(seat.colour) : null;
  const decision = view?.decision;
  const turnOf = stateName(game.state) === "active" && decision ? colourName(decision.player) : null;
  const result = (game.results?.length ? game.results : view?.result ?? []).find((r) => colourName(r.colour) === me);
  return {
    id,
    seat: me,
    title: gameTitle(game.settings),
    state: game.state,
    created: Date.parse(game.create_time ?? "") || 0,
    players: (game.seats ?? []).map((s) => ({ colour: colourName(s.colour), seat: s })),
    turnOf,
    yourTurn: Boolean(me && turnOf === me),
    place: result ? { rank: result.rank, total: (game.seats ?? []).length } : null,
    started: stateName(game.state) !== "open",
    stopped: Boolean(game.stopped),
    rematch: game.rematch || null,
    tutorial: Boolean(game.settings?.tutorial),
  };
}

export function when(ms) {
  if (!ms) return "";
  const format = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: "medium", timeStyle: "short" });
  return format.format(new Date(ms));
}

function playerName(p) {
  if (isBot(p.seat)) return botLabel(p.seat);
  return p.seat.display_name || (p.seat.occupied ? td(`player.${p.colour}`) : t("seats.open"));
}

// Whose turn, or how it stands.
function standing(row) {
  if (row.yourTurn) return h("strong", { class: "badge your-turn", testid: "your-turn" }, t("my.your_turn"));
  if (stateName(row.state) === "active" && row.turnOf) {
    const who = row.players.find((p) => p.colour === row.turnOf);
    return h("span", { testid: "turn-of", "data-colour": row.turnOf }, t("my.waiting_for", { player: who ? playerName(who) : td(`player.${row.turnOf}`) }));
  }
  if (stateName(row.state) === "open") return h("span", { testid: "open" }, t("my.open"));
  if (row.stopped) return h("span", { testid: "stopped" }, t("status.stopped"));
  if (row.place) return h("span", { testid: "place" }, t("end.your_place", row.place));
  return h("span", {}, t("status.finished"));
}

// A game this browser no longer needs to list: one over, one only watched, or a
// tutorial (a lesson against a bot, left when the learner starts a real game).
const removable = (row) => stateName(row.state) === "finished" || !row.seat || row.tutorial;

// `links`: with the seat link of a game still to play, and Remove where the game
// allows it (the whole list, on My games); `onRemove` shows the list again.
function item(row, links = false, onRemove = null) {
  if (row.error) {
    return h("li", { class: "my-game", testid: "my-game", "data-game": row.id }, row.id, " — ", errorText(row.error));
  }
  const play = stateName(row.state) === "finished" ? t("my.result") : row.seat ? t("my.play") : t("my.watch");
  return h("li", { class: `my-game${row.yourTurn ? " mine" : ""}`, testid: "my-game", "data-game": row.id,
    "data-state": stateName(row.state) },
  h("div", { class: "my-head" },
    h("a", { href: `/games/${row.id}`, testid: "my-game-link", class: "my-title" }, row.title),
    h("span", { class: "my-status" }, standing(row))),
  row.rematchOf ? h("p", { class: "muted", testid: "my-rematch-of" },
    t("my.rematch_of", { game: row.rematchOf.title, time: when(row.rematchOf.created) })) : null,
  h("div", { class: "my-players muted" },
    ...row.players.map((p) => h("span", { class: `my-player${p.colour === row.seat ? " me" : ""}`, "data-colour": p.colour },
      swatch(p.colour), " ", playerName(p))),
    h("span", { class: "my-time", testid: "my-time" }, t("my.created", { time: when(row.created) }))),
  h("div", { class: "my-links" },
    h("a", { class: `button ${row.yourTurn ? "primary" : "secondary"}`, href: `/games/${row.id}`, testid: "my-play" }, play),
    row.started ? h("a", { class: "button secondary", href: `/games/${row.id}?replay=1`, testid: "my-replay" }, t("lobby.replay")) : null,
    onRemove && removable(row) ? h("button", { type: "button", class: "secondary", testid: "my-remove", onclick: () => {
      if (row.seat) seats.clear(row.id);
      watched.remove(row.id);
      onRemove();
    } }, t("my.remove")) : null),
  links && row.seat && stateName(row.state) !== "finished" ? seatLinkBox(row.id) : null);
}

// The list, the seated games first; `most` rows at most (the rest behind a link).
export function renderMine(rows, most = Infinity, onRemove = null) {
  const mine = rows.filter((r) => r.seat);
  const others = rows.filter((r) => !r.seat);
  const shown = mine.slice(0, most);
  const parts = [h("ul", { class: "my-games", testid: "my-games" }, ...shown.map((row) => item(row, most === Infinity, onRemove)))];
  if (!mine.length) parts.push(h("p", { class: "muted", testid: "my-none" }, t("my.none")));
  if (most === Infinity && others.length) {
    parts.push(h("h2", {}, t("my.watched")), h("ul", { class: "my-games", testid: "my-watched" }, ...others.map((row) => item(row, false, onRemove))));
  }
  return parts;
}

export class MyGamesPage {
  constructor(root) {
    this.root = root;
  }

  start() {
    this.list = h("div", { class: "my-list" });
    this.root.replaceChildren(h("h1", {}, t("my.title")), h("p", { class: "intro" }, t("my.intro")),
      h("section", { class: "card" }, this.list));
    this.refresh();
    setInterval(() => !document.hidden && this.refresh(), 10000);
  }

  async refresh() {
    this.list.replaceChildren(...renderMine(await myGames(), Infinity, () => this.refresh()));
    document.body.dataset.loaded = "1";
  }
}
