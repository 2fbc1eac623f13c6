// Between players: quick messages (predefined phrases, each shown in the
// reader's language, in the log and as a bubble by the sender's name) and the
// rematch, one game for everybody (the server makes it once, at the first
// request, and names it on the finished game). And seat links: a player's way
// back to their seat from any browser.

import { call, profile, requestId, seats, watched } from "./api.js";
import { h } from "./dom.js";
import { t, td } from "./i18n.js";
import { swatch } from "./ships.js";
import { errorText, isBot, player } from "./text.js";
import { colourName, stateName, wireColour } from "./wire.js";

// The phrases a player can send, as the contract names them.
export const PHRASES = ["good_luck", "good_game", "well_played", "thinking", "your_turn", "oops", "thanks"];
export const phraseText = (value) => td(`phrase.${String(value ?? "").replace(/^PHRASE_/, "").toLowerCase()}`);

// How long a bubble stays by the sender's name (ms).
const BUBBLE = 8000;
// How often a finished game is asked for new entries (messages, the rematch), and for how long (ms).
const AFTER_END_EVERY = 3000;
const AFTER_END_FOR = 30 * 60 * 1000;

// Entries that change nothing in the game.
export const isAside = (entry) => Boolean(entry?.message_sent || entry?.rematch_proposed);

// The seat link of game `id` (api.js seats.link) to copy, folded away: whoever has
// it plays the seat. Built once per link, so a re-render leaves it open.
const linkBoxes = new Map();
export function seatLinkBox(id) {
  const link = seats.link(id);
  if (!link) return null;
  if (!linkBoxes.has(link)) {
    const input = h("input", { readonly: true, value: link, dir: "ltr", testid: "seat-link", "aria-label": t("share.seat_link") });
    linkBoxes.set(link, h("details", { class: "seat-link", testid: "seat-link-box" },
      h("summary", {}, t("share.seat_link")),
      h("p", { class: "muted" }, t("share.seat_hint")), input,
      h("button", { type: "button", class: "secondary", testid: "copy-seat-link", onclick: () => {
        input.select();
        navigator.clipboard?.writeText(link).catch(() => {});
      } }, t("share.seat_copy"))));
  }
  return linkBoxes.get(link);
}

export class Social {
  constructor(page) {
    this.page = page;
    this.bubbles = new Map(); // colour -> { text, until }
    this.rematch = null; // the rematch's name, once known from the log
    this.sending = false;
    this.polling = null;
    this.toasts = null;
  }

  // A place over the board where messages show a moment, so a player sees
  // them wherever the players' table is (on a phone it is below the board).
  mount(area) {
    this.toasts = h("div", { class: "toasts", testid: "toasts", "aria-hidden": "true" });
    area.append(this.toasts);
  }

  // An aside played back live: a message gets its bubble; a rematch is remembered.
  heard(entry) {
    const said = entry.message_sent;
    if (said) {
      const colour = colourName(said.player);
      const text = phraseText(said.phrase);
      this.bubbles.set(colour, { text, until: performance.now() + BUBBLE });
      setTimeout(() => this.page.schedule(), BUBBLE + 50);
      if (this.toasts) {
        const toast = h("p", { class: "toast", testid: "toast", "data-colour": colour, dir: document.documentElement.dir || "ltr" },
          swatch(colour), " ", player(said.player), ": ", text);
        this.toasts.append(toast);
        setTimeout(() => toast.remove(), BUBBLE);
      }
    }
    if (entry.rematch_proposed) this.rematch = entry.rematch_proposed.rematch;
  }

  // The name of the rematch, if there is one.
  rematchName() {
    return this.rematch || this.page.game?.rematch || null;
  }

  bubble(colour) {
    const shown = this.bubbles.get(colour);
    if (!shown || shown.until < performance.now()) return null;
    return h("span", { class: "bubble", testid: "bubble", "data-colour": colour }, shown.text);
  }

  // The phrase buttons, for a seated player only.
  render() {
    const seat = this.page.seat;
    if (!seat || this.page.embedded) return null;
    return h("section", { class: "card quick", testid: "quick" },
      h("h2", {}, t("quick.title")),
      h("div", { class: "phrases" }, ...PHRASES.map((p) => h("button", {
        type: "button", class: "secondary phrase", testid: `phrase-${p}`, "data-phrase": p,
        onclick: () => this.send(p),
      }, td(`phrase.${p}`)))));
  }

  async send(phrase) {
    const seat = this.page.seat;
    if (!seat || this.sending) return;
    this.sending = true;
    try {
      await call("POST", `/games/${this.page.id}/messages`, {
        phrase: `PHRASE_${phrase.toUpperCase()}`, request_id: requestId(),
      }, seat.token);
      this.page.showError("");
    } catch (error) {
      this.page.showError(error.reason === "RATE_LIMITED" ? t("quick.too_fast") : errorText(error));
    } finally {
      this.sending = false;
    }
  }

  // A seat taken from a seat link (api.js seats.fromLink): the server says whether
  // its token holds a seat here, and which. A refused one is not kept (the seat
  // held before comes back, if any) and the page watches, saying why.
  async checkLink(linked) {
    if (!linked) return;
    const id = this.page.id;
    let refused = Boolean(linked.refused);
    if (!refused) {
      const seat = seats.get(id);
      try {
        const viewer = (await call("GET", `/games/${id}`, undefined, seat.token)).snapshot?.view?.viewer;
        if (viewer && colourName(viewer) !== "unspecified") seats.set(id, viewer, seat.token);
      } catch (error) {
        refused = ["TOKEN_INVALID", "TOKEN_WRONG_GAME"].includes(error.reason);
      }
    }
    if (!refused) return;
    if (linked.before) seats.set(id, linked.before.colour, linked.before.token);
    else {
      seats.clear(id);
      watched.add(id);
    }
    this.page.showError(t("share.seat_refused"));
    this.page.schedule();
  }

  // A spectator's page of a game waiting for a person: that seat's player can play
  // here with their seat link. One line, under whose turn it is.
  seatNote() {
    const game = this.page.snapshot?.game;
    const decision = this.page.snapshot?.view?.decision;
    if (this.page.seat || this.page.embedded || !decision || stateName(game?.state) !== "active") return null;
    const seat = (game.seats ?? []).find((s) => colourName(s.colour) === colourName(decision.player));
    return seat && !isBot(seat) ? h("p", { class: "muted", testid: "seat-link-note" }, t("status.seat_link")) : null;
  }

  // The end screen's rematch button: its words and what it does, or null.
  rematchAction() {
    if (this.page.embedded) return null;
    const name = this.rematchName();
    const id = name ? name.split("/")[1] : null;
    if (!this.page.seat) {
      return id ? { label: t("end.rematch_open"), run: () => window.location.assign(`/games/${id}`) } : null;
    }
    if (id && seats.get(id)) return { label: t("end.rematch_open"), run: () => window.location.assign(`/games/${id}`) };
    return { label: id ? t("end.rematch_join") : t("end.rematch"), run: () => this.joinRematch() };
  }

  // Propose the rematch (or find the one proposed), take this player's colour
  // there if it is free (else the first open seat), and go there.
  async joinRematch() {
    const seat = this.page.seat;
    try {
      const reply = await call("POST", `/games/${this.page.id}/rematch`, {}, seat.token);
      const game = reply.game;
      const id = game.name.split("/")[1];
      if (!seats.get(id)) {
        const open = (game.seats ?? []).filter((s) => !s.occupied).map((s) => colourName(s.colour));
        const mine = colourName(seat.colour);
        const colour = open.includes(mine) ? mine : open[0];
        if (colour) {
          const joined = await call("POST", `/games/${id}/join`, {
            colour: wireColour(colour), display_name: profile.name(),
          }).catch((error) => {
            if (error.reason !== "SEAT_TAKEN") throw error;
            return call("POST", `/games/${id}/join`, { display_name: profile.name() });
          });
          seats.set(id, joined.colour, joined.seat_token);
        }
      }
      window.location.assign(`/games/${id}`);
    } catch (error) {
      this.page.showError(errorText(error));
    }
  }

  // A finished game's watch has ended: ask now and then for entries after it
  // (a "Good game", the rematch), which play back like any others.
  followAfterEnd() {
    if (this.polling !== null) return;
    const until = performance.now() + AFTER_END_FOR;
    const poll = async () => {
      if (performance.now() > until) return;
      if (!document.hidden) {
        try {
          const page = await call("GET", `/games/${this.page.id}/entries?after_sequence=${this.page.sequence}`);
          for (const entry of page.entries ?? []) this.page.onEntry({ sequence: entry.sequence, entry });
        } catch {
          // the next poll tries again
        }
      }
      this.polling = setTimeout(poll, AFTER_END_EVERY);
    };
    this.polling = setTimeout(poll, AFTER_END_EVERY);
  }
}
