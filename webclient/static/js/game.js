// One game: joins and starts it, follows its event stream (resuming after a
// drop), draws the board, and turns this browser's decisions into picks.

import { call, seats, profile, requestId } from "./api.js";
import { Board } from "./board.js";
import { Picker } from "./choices.js";
import { h } from "./dom.js";
import { t, td, tn, list } from "./i18n.js";
import { colourName, swatch } from "./ships.js";
import { tile } from "./geometry.js";
import {
  botLabel, botLevel, colour as colourText, decisionPrompt, describeOption, entryLines, errorText, isBot,
  leftOver, player, setPlayers, tileName,
} from "./text.js";

const LOG_LIMIT = 400;

export class GamePage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.snapshot = null;
    this.sequence = null;
    this.picker = null;
    this.busy = false;
    // The sequence an accepted action was made at, until the stream moves past it.
    this.submitted = null;
    this.retry = 500;
    this.logLines = [];
    this.logRendered = 0;
    this.pendingEvents = [];
    this.frame = null;
    // An embedded board (embed.js) has no share link, join or leave buttons.
    this.embedded = false;
  }

  get seat() {
    return seats.get(this.id);
  }

  get game() {
    return this.snapshot?.game ?? null;
  }

  get view() {
    return this.snapshot?.view ?? null;
  }

  start() {
    this.boardArea = h("section", { class: "board-area" });
    this.board = new Board(this.boardArea, (key) => this.pick(key));
    this.boardArea.append(h("div", { class: "zoom" },
      h("button", { type: "button", testid: "zoom-in", "aria-label": t("board.zoom_in"), onclick: () => this.board.zoom(1 / 1.25) }, "+"),
      h("button", { type: "button", testid: "zoom-out", "aria-label": t("board.zoom_out"), onclick: () => this.board.zoom(1.25) }, "−"),
      h("button", { type: "button", testid: "zoom-fit", "aria-label": t("board.fit"), onclick: () => { this.board.userMoved = false; this.board.fit(); } }, "⤢")));
    this.boardHint = h("p", { class: "board-hint", testid: "board-hint" });
    this.boardArea.append(this.boardHint);
    this.side = h("aside", { class: "side" });
    this.errorBox = h("p", { class: "error", testid: "error", role: "alert" });
    this.logList = h("ol", { class: "log", testid: "log", "aria-live": "polite" });
    this.root.replaceChildren(this.boardArea, this.side);
    this.connect();
  }

  // ------------------------------------------------------------------ event stream

  connect() {
    const after = this.sequence === null ? "" : `?after_sequence=${this.sequence}`;
    const source = new EventSource(`/api/v1/games/${this.id}/events${after}`);
    this.source = source;
    this.setConnection("connecting");
    source.onopen = () => {
      this.retry = 500;
      this.setConnection("live");
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        this.setConnection("reconnecting");
        setTimeout(() => this.source === source && this.connect(), this.retry);
        this.retry = Math.min(this.retry * 2, 8000);
      } else {
        this.setConnection("reconnecting");
      }
    };
    source.addEventListener("snapshot", (e) => this.onSnapshot(JSON.parse(e.data)));
    source.addEventListener("entry", (e) => this.onEntry(JSON.parse(e.data)));
    source.addEventListener("end", () => {
      source.close();
      this.setConnection("ended");
    });
    source.addEventListener("failure", (e) => {
      source.close();
      this.setConnection("failed");
      this.showError(errorText(JSON.parse(e.data).error));
    });
  }

  setConnection(state) {
    const node = document.getElementById("connection");
    node.dataset.state = state;
    node.textContent = td(`connection.${state}`);
  }

  onSnapshot(snapshot) {
    const sequence = Number(snapshot.sequence);
    if (this.sequence !== null && sequence < this.sequence) return;
    this.snapshot = snapshot;
    setPlayers(snapshot.game?.seats);
    this.sequence = sequence;
    this.picker = null;
    this.schedule();
  }

  onEntry(data) {
    const sequence = Number(data.sequence);
    if (this.sequence !== null && sequence <= this.sequence) return;
    const view = data.snapshot?.view ?? this.view;
    if (data.snapshot) setPlayers(data.snapshot.game?.seats);
    for (const line of entryLines(data.entry, view)) this.logLines.push({ sequence, line });
    if (data.entry.action_applied) this.pendingEvents.push(data.entry.action_applied.events ?? []);
    if (data.snapshot) {
      this.snapshot = data.snapshot;
      this.picker = null;
    }
    this.sequence = sequence;
    this.schedule();
  }

  // Render at most once per frame, however many entries arrived.
  schedule() {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.render();
      const events = this.pendingEvents;
      this.pendingEvents = [];
      if (events.length === 1) this.board.animate(events[0]);
    });
  }

  // ------------------------------------------------------------------ deciding

  mine() {
    const decision = this.view?.decision;
    const seat = this.seat;
    if (this.submitted !== null && this.sequence <= this.submitted) return false;
    return Boolean(decision && seat && colourName(decision.player) === colourName(seat.colour));
  }

  pick(key) {
    if (!this.picker || this.busy || !this.mine()) return;
    const chosen = this.picker.pick(key);
    if (chosen) this.submit(chosen.action);
    else this.render();
  }

  async submit(action) {
    if (this.busy || !this.seat) return;
    this.busy = true;
    document.body.dataset.busy = "1";
    const asked = this.sequence;
    try {
      await call("POST", `/games/${this.id}/actions`, {
        sequence: String(asked),
        request_id: requestId(),
        action,
      }, this.seat.token);
      this.submitted = asked;
      this.showError("");
    } catch (error) {
      if (error.reason !== "STALE_SEQUENCE") this.showError(errorText(error));
      if (["TOKEN_INVALID", "TOKEN_WRONG_GAME", "UNKNOWN_PLAYER"].includes(error.reason)) {
        seats.clear(this.id);
      }
      if (this.picker) this.picker.reset();
      this.render();
    } finally {
      this.busy = false;
      this.render();
      document.body.dataset.busy = "0";
    }
  }

  async join(colour) {
    try {
      const reply = await call("POST", `/games/${this.id}/join`, {
        colour,
        display_name: profile.name(),
      });
      seats.set(this.id, reply.colour, reply.seat_token);
      this.showError("");
      this.render();
    } catch (error) {
      this.showError(errorText(error));
    }
  }

  async leave() {
    const seat = this.seat;
    if (!seat) return;
    try {
      await call("POST", `/games/${this.id}/leave`, {}, seat.token);
    } catch (error) {
      this.showError(errorText(error));
    }
    seats.clear(this.id);
    this.render();
  }

  async startGame() {
    try {
      await call("POST", `/games/${this.id}/start`, {}, this.seat?.token);
    } catch (error) {
      this.showError(errorText(error));
    }
  }

  showError(text) {
    this.errorBox.textContent = text;
    if (text) document.body.dataset.errors = String(Number(document.body.dataset.errors ?? 0) + 1);
  }

  // ------------------------------------------------------------------ rendering

  render() {
    const game = this.game;
    if (!game) return;
    const view = this.view;
    const state = String(game.state).replace(/^GAME_STATE_/, "").toLowerCase();
    const mine = this.mine();
    if (mine && !this.picker) this.picker = new Picker(view.decision);
    if (!mine) this.picker = null;
    const body = document.body.dataset;
    body.sequence = String(this.sequence);
    body.state = state;
    body.myturn = mine ? "1" : "0";
    body.colour = this.seat ? colourName(this.seat.colour) : "";
    this.board.render(view, this.picker);
    this.boardHint.textContent = view ? "" : t("board.before_start");
    const parts = [
      this.renderStatus(game, view, state),
      this.errorBox,
      state === "open" ? this.renderSeats(game) : null,
      view?.result?.length ? this.renderRanking(view) : null,
      view ? this.renderPlayers(game, view) : null,
      view?.decision && mine ? this.renderDecision(view) : null,
      view ? this.renderDeck(view) : null,
      this.embedded ? null : this.renderShare(),
      h("section", { class: "card" }, h("h2", {}, t("log.title")), this.logList),
    ];
    this.side.replaceChildren(...parts.filter(Boolean));
    this.renderLog();
  }

  renderStatus(game, view, state) {
    const seat = this.seat;
    const who = seat
      ? h("span", { testid: "you" }, swatch(colourName(seat.colour)), t("status.you", { colour: colourText(seat.colour) }))
      : h("span", { testid: "spectator" }, t("status.spectator"));
    let line;
    if (state === "open") line = t("status.open");
    else if (state === "finished") line = t("status.finished");
    else if (this.mine()) line = t("status.your_turn");
    else line = t("status.waiting_for", { player: player(view.decision.player) });
    return h("section", { class: "card status-card", testid: "status" },
      h("h1", {}, game.settings?.display_name || t("game.title")),
      h("p", {}, who),
      h("p", { class: "turn", testid: "turn" }, line));
  }

  renderSeats(game) {
    const seat = this.seat;
    const all = (game.seats ?? []).every((s) => s.occupied);
    const name = h("input", { testid: "join-name", maxlength: "100", value: profile.name(),
      "aria-label": t("lobby.your_name"), oninput: (e) => profile.setName(e.target.value) });
    return h("section", { class: "card", testid: "seats" },
      h("h2", {}, t("seats.title")),
      seat || this.embedded ? null : h("label", {}, t("lobby.your_name"), " ", name),
      h("ul", { class: "seat-list" }, ...(game.seats ?? []).map((s) => {
        const c = colourName(s.colour);
        return h("li", { testid: `seat-${c}` }, swatch(c), " ", colourText(s.colour), " — ",
          isBot(s) ? this.botBadge(s)
            : s.occupied ? (s.display_name || t("seats.taken")) : t("seats.open"),
          !s.occupied && !seat && !this.embedded
            ? h("button", { type: "button", testid: `join-${c}`, onclick: () => this.join(s.colour) }, t("seats.join"))
            : null);
      })),
      seat && all ? h("button", { type: "button", testid: "start", onclick: () => this.startGame() }, t("seats.start")) : null,
      seat && !all ? h("p", { class: "muted" }, t("seats.waiting")) : null,
      seat && !this.embedded ? h("button", { type: "button", class: "secondary", testid: "leave", onclick: () => this.leave() }, t("seats.leave")) : null);
  }

  botBadge(seat) {
    return h("span", { class: "badge bot", testid: "bot", "data-level": botLevel(seat) }, botLabel(seat));
  }

  renderShare() {
    const link = `${window.location.origin}/games/${this.id}`;
    const input = h("input", { readonly: true, value: link, testid: "share-link", "aria-label": t("share.label") });
    return h("section", { class: "card" }, h("h2", {}, t("share.title")),
      h("p", { class: "muted" }, t("share.hint")), input,
      h("button", { type: "button", class: "secondary", testid: "copy-link", onclick: () => {
        input.select();
        navigator.clipboard?.writeText(link).catch(() => {});
      } }, t("share.copy")));
  }

  renderPlayers(game, view) {
    const count = (list, c) => (list ?? []).find((x) => colourName(x.colour) === c)?.count ?? 0;
    const active = view.decision && view.active ? colourName(view.active) : null;
    const bots = Object.fromEntries((game.seats ?? []).filter(isBot).map((s) => [colourName(s.colour), s]));
    return h("section", { class: "card", testid: "players" },
      h("h2", {}, t("players.title")),
      h("table", { class: "players" },
        h("thead", {}, h("tr", {}, h("th", {}, t("players.player")), h("th", {}, t("players.supply")),
          h("th", {}, t("players.points")), h("th", {}, t("players.royal")))),
        h("tbody", {}, ...(view.seats ?? []).map((value) => {
          const c = colourName(value);
          return h("tr", { testid: `player-${c}`, class: c === active ? "active" : null },
            h("td", {}, swatch(c), " ", player(value),
              bots[c] ? this.botBadge(bots[c]) : null,
              c === active ? h("span", { class: "badge", testid: "active" }, t("players.turn")) : null),
            h("td", { "data-field": "supply" }, count(view.supply, c)),
            h("td", { "data-field": "points" }, count(view.scores, c)),
            h("td", { "data-field": "royal" }, count(view.founded, c)));
        }))));
  }

  renderDecision(view) {
    const decision = view.decision;
    const picker = this.picker;
    const left = picker.remaining();
    const targets = [...picker.targets().keys()];
    const offBoard = targets.filter((k) => k === "settle" || k === "land:none");
    const parts = [
      h("h2", {}, decisionPrompt(decision)),
      h("p", { class: "muted" }, td(`hint.${String(decision.kind).replace(/^DECISION_KIND_/, "").toLowerCase()}`)),
    ];
    if (decision.kind === "DECISION_KIND_LAND") {
      const picked = picker.picks.filter((k) => k.startsWith("land:") && k !== "land:none")
        .map((k) => ({ beach: Number(k.split(":")[1]), colour: `COLOUR_${k.split(":")[2].toUpperCase()}` }));
      const back = leftOver(decision.group ?? [], picked);
      parts.push(h("p", { testid: "group" }, t("land.group"), " ",
        ...(decision.group ?? []).map((c) => swatch(colourName(c)))));
      if (picked.length) parts.push(h("p", {}, t("land.not_placed"), " ", ...back.map((c) => swatch(colourName(c)))));
    }
    for (const key of offBoard) {
      parts.push(h("button", { type: "button", testid: "target", "data-key": key, onclick: () => this.pick(key) },
        td(`target.${key.replace(":", "_")}`)));
    }
    if (left.length === 1) {
      parts.push(h("button", { type: "button", testid: "confirm", class: "primary", onclick: () => this.submit(left[0].action) },
        t("decision.confirm", { option: describeOption(left[0].action, view, decision) })));
    }
    if (picker.picks.length) {
      parts.push(h("button", { type: "button", class: "secondary", testid: "reset", onclick: () => { picker.reset(); this.render(); } }, t("decision.reset")));
    }
    const shown = left.slice(0, 40);
    parts.push(h("details", { class: "options", open: left.length <= 6 },
      h("summary", {}, t("decision.options", { count: left.length })),
      h("ul", {}, ...shown.map((o) => h("li", {}, h("button", {
        type: "button", class: "option", testid: "option", "data-index": o.index,
        onclick: () => this.submit(o.action),
      }, describeOption(o.action, view, decision))))),
      left.length > shown.length ? h("p", { class: "muted" }, tn("decision.more", left.length - shown.length)) : null));
    return h("section", { class: "card decision", testid: "decision", "data-kind": decision.kind }, ...parts);
  }

  renderDeck(view) {
    const islands = (view.stack_tiles ?? []).map((id) => tile(id)).filter((x) => x?.kind === "island")
      .sort((a, b) => b.points - a.points || tileName(a.id).localeCompare(tileName(b.id)));
    return h("section", { class: "card", testid: "deck" },
      h("h2", {}, t("deck.title")),
      h("p", {}, t("deck.counts", { island_tiles: view.stack?.island ?? 0, sea_tiles: view.stack?.sea ?? 0 })),
      h("ul", { class: "deck-list" }, ...islands.map((x) => h("li", { "data-tile": x.id },
        t("deck.island", { name: tileName(x.id), points: x.points })))),
      view.removed?.length ? h("p", { class: "muted" }, t("deck.removed", { tiles: list(view.removed.map(tileName)) })) : null);
  }

  renderRanking(view) {
    const rows = [...view.result].sort((a, b) => a.rank - b.rank);
    return h("section", { class: "card ranking", testid: "ranking" },
      h("h2", {}, t("ranking.title")),
      h("table", {},
        h("thead", {}, h("tr", {}, h("th", {}, t("ranking.rank")), h("th", {}, t("ranking.player")),
          h("th", {}, t("ranking.points")), h("th", {}, t("ranking.islands")), h("th", {}, t("ranking.ships")))),
        h("tbody", {}, ...rows.map((r) => {
          const c = colourName(r.colour);
          return h("tr", { testid: "rank-row", "data-colour": c, "data-rank": r.rank, "data-points": r.points },
            h("td", {}, r.rank), h("td", {}, swatch(c), " ", colourText(r.colour)), h("td", {}, r.points),
            h("td", {}, r.islands), h("td", {}, r.ships));
        }))),
      h("p", { class: "muted" }, t("ranking.tiebreaks")));
  }

  renderLog() {
    for (const item of this.logLines.slice(this.logRendered)) {
      this.logList.prepend(h("li", { "data-sequence": item.sequence }, item.line));
    }
    this.logRendered = this.logLines.length;
    while (this.logList.children.length > LOG_LIMIT) this.logList.lastChild.remove();
    if (this.logLines.length > 2 * LOG_LIMIT) {
      this.logLines.splice(0, LOG_LIMIT);
      this.logRendered -= LOG_LIMIT;
    }
  }
}
