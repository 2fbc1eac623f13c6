// The board in an <iframe>: one game as a player or a spectator, without the
// site's chrome, telling the host page what happens through postMessage.
// Format (version 1) in docs/embedding.md. A player's seat token comes from the
// host in a message, never in the URL.

import { GamePage } from "./game.js";
import { h } from "./dom.js";
import { locale, t } from "./i18n.js";
import { colourName, wireColour } from "./wire.js";

export const SOURCE = "tongiaki";
export const VERSION = 1;

export class EmbedPage extends GamePage {
  // options: { seat: colour name or "", origin: the host's origin or "" }
  constructor(root, id, options) {
    super(root, id);
    this.embedded = true;
    this.wanted = options.seat || "";
    this.hostOrigin = options.origin || "";
    this.held = null;
    this.decisionSent = null;
    this.overSent = false;
  }

  get seat() {
    return this.held;
  }

  get mode() {
    return this.wanted ? "player" : "spectator";
  }

  start() {
    window.addEventListener("message", (event) => this.onHostMessage(event));
    super.start();
    // The connection label goes on the board, in the corner away from the zoom buttons.
    const label = document.getElementById("connection");
    if (label) this.boardArea.append(label);
    this.post("ready", { mode: this.mode, seat: this.wanted || null, locale: locale() });
  }

  // ------------------------------------------------------------------ to the host

  post(type, fields = {}) {
    if (window.parent === window) return;
    const message = { source: SOURCE, version: VERSION, type, game: this.id, ...fields };
    window.parent.postMessage(message, this.hostOrigin || "*");
  }

  onSnapshot(snapshot) {
    super.onSnapshot(snapshot);
    if (this.snapshot !== snapshot) return;
    this.post("snapshot", { sequence: this.sequence, snapshot });
    this.report();
  }

  onEntry(data) {
    const before = this.sequence;
    super.onEntry(data);
    if (this.sequence === before) return;
    this.post("event", { sequence: this.sequence, entry: data.entry });
    this.report();
  }

  // The pending decision once per sequence, and the ranking once.
  report() {
    // The latest state the server sent (the board on screen may still be playing back).
    const view = this.snapshot?.view;
    const decision = view?.decision;
    if (decision && this.decisionSent !== this.sequence) {
      this.decisionSent = this.sequence;
      const yours = Boolean(this.held) && colourName(decision.player) === colourName(this.held.colour);
      this.post("decision", { sequence: this.sequence, player: decision.player, kind: decision.kind, yours });
    }
    const stopped = this.snapshot?.game?.stopped;
    if ((view?.result?.length || stopped) && !this.overSent) {
      this.overSent = true;
      this.post("game_over", { sequence: this.sequence, ranking: view?.result ?? [], ...(stopped ? { stopped } : {}) });
    }
  }

  showError(text) {
    super.showError(text);
    if (text) this.post("error", { message: text });
  }

  // ------------------------------------------------------------------ from the host

  onHostMessage(event) {
    if (event.source !== window.parent || window.parent === window) return;
    const data = event.data;
    if (!data || typeof data !== "object" || data.type !== "seat") return;
    if (!this.wanted || !this.hostOrigin || event.origin !== this.hostOrigin) {
      this.post("error", { reason: "SEAT_REFUSED", message: t("embed.seat_refused") });
      return;
    }
    if (typeof data.token !== "string" || !data.token) return;
    this.held = { colour: wireColour(this.wanted), token: data.token };
    this.post("seat", { seat: this.wanted });
    this.render();
  }

  renderStatus(game, view, state) {
    const card = super.renderStatus(game, view, state);
    if (this.wanted && !this.held) {
      card.append(h("p", { class: "muted", testid: "waiting-seat" }, t("embed.waiting_seat")));
    }
    return card;
  }
}
