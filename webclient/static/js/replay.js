// A replay: any game, finished or running, stepped through entry by entry or
// turn by turn. The board at step N is the server's (GetGame at_sequence=N),
// never recomputed here; the log is the game's whole public log up to N.

import { call } from "./api.js";
import { Board } from "./board.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { Chronicle, fetchEntries } from "./history.js";
import { errorText, gameTitle, setPlayers } from "./text.js";
import { renderEnd, renderStopped } from "./endgame.js";
import { renderPlayers } from "./players.js";
import { stateName } from "./wire.js";

export class ReplayPage {
  constructor(root, id, at) {
    this.root = root;
    this.id = id;
    this.wanted = at;
    this.at = 0;
    this.last = 0;
    this.states = new Map();
    this.chronicle = new Chronicle();
    this.timer = null;
  }

  async start() {
    document.body.dataset.page = "replay";
    this.boardArea = h("section", { class: "board-area" });
    this.board = new Board(this.boardArea, () => {});
    this.hint = h("p", { class: "board-hint", testid: "board-hint" });
    this.boardArea.append(this.hint);
    this.side = h("aside", { class: "side" });
    this.error = h("p", { class: "error", testid: "error", role: "alert" });
    this.root.replaceChildren(this.boardArea, this.side);
    try {
      const now = (await call("GET", `/games/${this.id}`)).snapshot;
      this.game = now.game;
      setPlayers(now.game.seats);
      this.last = Number(now.sequence);
      for (const entry of await fetchEntries(this.id, 0, this.last)) this.chronicle.add(entry);
    } catch (error) {
      this.side.replaceChildren(this.error);
      this.error.textContent = errorText(error);
      return;
    }
    // From the start (the board as the game began), as a game is watched again; a
    // link may name a step.
    const began = this.chronicle.items.find((item) => item.entry.game_started)?.sequence ?? 0;
    const at = Number.isInteger(this.wanted) ? this.wanted : began;
    this.go(Math.min(Math.max(at, 0), this.last));
  }

  // Sequences where turns start, and the step before/after `at` by entry or turn.
  target(move) {
    const turns = this.chronicle.turns();
    switch (move) {
      case "first": return 0;
      case "last": return this.last;
      case "back": return Math.max(0, this.at - 1);
      case "next": return Math.min(this.last, this.at + 1);
      case "turn-back": return [...turns].reverse().find((s) => s < this.at) ?? 0;
      case "turn-next": return turns.find((s) => s > this.at) ?? this.last;
      default: return this.at;
    }
  }

  async go(n) {
    this.at = n;
    this.asked = n;
    let state = this.states.get(n);
    if (!state) {
      try {
        state = (await call("GET", `/games/${this.id}?at_sequence=${n}`)).snapshot;
        this.states.set(n, state);
      } catch (error) {
        this.error.textContent = errorText(error);
        return;
      }
    }
    if (this.asked !== n) return; // a later step was asked for meanwhile
    const url = new URL(window.location.href);
    url.searchParams.set("replay", "1");
    url.searchParams.set("at", String(n));
    window.history.replaceState(null, "", url);
    this.board.userMoved = false;
    this.board.render(state.view ?? null, null);
    this.hint.textContent = state.view ? "" : t("board.before_start");
    this.render(state);
    document.body.dataset.replayAt = String(n);
  }

  play() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      this.timer = setInterval(() => {
        if (this.at >= this.last) this.play();
        else this.go(this.at + 1);
      }, 900);
    }
    this.render(this.states.get(this.at));
  }

  async download() {
    try {
      const reply = await call("GET", `/games/${this.id}/record`);
      const blob = new Blob([reply.record_json + "\n"], { type: "application/json" });
      const link = h("a", { href: URL.createObjectURL(blob), download: `tongiaki-${this.id}.json` });
      document.body.append(link);
      link.click();
      link.remove();
    } catch (error) {
      this.error.textContent = errorText(error);
    }
  }

  render(state) {
    const button = (move, label, name) => h("button", {
      type: "button", class: "secondary", testid: `replay-${move}`, "aria-label": name, title: name,
      onclick: () => this.go(this.target(move)),
    }, h("span", { class: "arrow", "aria-hidden": "true" }, label));
    const range = h("input", {
      type: "range", min: "0", max: String(this.last), value: String(this.at), testid: "scrubber",
      "aria-label": t("replay.scrubber"), class: "scrubber",
      oninput: (e) => this.go(Number(e.target.value)),
    });
    const link = `${window.location.origin}/games/${this.id}?replay=1&at=${this.at}`;
    const finished = stateName(this.game?.state) === "finished";
    const items = this.chronicle.items.filter((i) => i.sequence <= this.at && i.lines.length);
    const log = h("ol", { class: "log", testid: "log", tabindex: "0", "aria-label": t("log.title") }, ...items.map((item) => h("li", {
      "data-sequence": item.sequence,
      class: [item.sequence === this.at ? "current" : "", item.turn ? "turn-start" : ""].join(" ").trim() || null,
    }, ...item.lines.map((line) => h("span", { class: "line" }, line)))));
    const parts = [
      h("section", { class: "card replay", testid: "replay" },
        h("h1", {}, t("replay.title"), " · ", gameTitle(this.game?.settings)),
        h("p", { testid: "replay-position" }, t("replay.position", { at: this.at, last: this.last })),
        range,
        // What this step did, under the controls (the log below may be scrolled away).
        h("p", { class: "replay-step", testid: "replay-step", "aria-live": "polite" },
          (this.chronicle.items.find((i) => i.sequence === this.at)?.lines ?? [])
            .reduce((first, second) => (first ? t("text.sentences", { first, second }) : second), "")),
        h("p", { class: "replay-buttons" },
          button("first", "|◀", t("replay.first")),
          button("turn-back", "◀◀", t("replay.turn_back")),
          button("back", "◀", t("replay.back")),
          h("button", { type: "button", testid: "replay-play", onclick: () => this.play() }, this.timer ? t("replay.pause") : t("replay.play")),
          button("next", "▶", t("replay.next")),
          button("turn-next", "▶▶", t("replay.turn_next")),
          button("last", "▶|", t("replay.last"))),
        h("p", {}, h("input", { readonly: true, value: link, testid: "replay-link", "aria-label": t("replay.link") })),
        h("p", {},
          h("a", { class: "button secondary", href: `/games/${this.id}`, testid: "to-game" }, t("replay.to_game")),
          finished ? h("button", { type: "button", testid: "download", onclick: () => this.download() }, t("replay.download")) : null),
        this.error),
      state?.game?.stopped && this.at === this.last ? renderStopped(state.game.stopped, { replay: link }) : null,
      state?.view?.result?.length && this.at === this.last ? renderEnd(state.view, null, { replay: link }) : null,
      // The points and supplies at this step.
      state?.view?.seats ? renderPlayers(state.game ?? this.game, state.view) : null,
      h("section", { class: "card" }, h("h2", {}, t("log.title")), log),
    ];
    this.side.replaceChildren(...parts.filter(Boolean));
    log.scrollTop = log.scrollHeight;
  }
}
