// One game: joins and starts it, follows its event stream (resuming after a
// drop), plays every entry back in order at the chosen speed, keeps the whole
// log, and turns this browser's decisions into picks, previewed and confirmed.

import { call, seats, profile, requestId, watched } from "./api.js";
import { Board, newShips } from "./board.js";
import { Picker } from "./choices.js";
import { h } from "./dom.js";
import { disjunction, t, td, tn, list, has } from "./i18n.js";
import { el, swatch } from "./ships.js";
import { tile, neighbour, centre, towards, curveControl, angleOf } from "./geometry.js";
import { entryHexes } from "./camera.js";
import { Chronicle, fetchEntries } from "./history.js";
import { prefs, SPEEDS } from "./settings.js";
import { TurnAlerts, allowNotifications, clockText } from "./alerts.js";
import { renderEnd, renderStopped } from "./endgame.js";
import { consequences, fewTilesLeft, fills } from "./consequences.js";
import { since, renderSince } from "./since.js";
import { Social, isAside, seatLinkBox } from "./social.js";
import { HelpMode } from "./help.js";
import { botBadge, renderPlayers } from "./players.js";
import {
  colour as colourText, decisionPrompt, describeOption, entryLines, errorText, gameTitle, isBot,
  leftOver, player, setPlayers, tileName,
} from "./text.js";
import { colourName, wireColour, stateName, kindOf, hexKey } from "./wire.js";

// How long an entry stays on screen before the next is shown, at speed 1 (ms).
const HOLD = 900;
// The six directions the log names, as a rose over the board's corner (north up,
// as on the board, which is never turned).
function compass() {
  const svg = el("svg", {
    viewBox: "-40 -40 80 80", class: "compass", role: "img", "data-testid": "compass",
    "aria-label": [3, 4, 5, 0, 1, 2].map((d) => td(`dir.${d}`)).join(", "),
  });
  el("circle", { cy: 8, r: 27 }, svg);
  for (let dir = 0; dir < 6; dir += 1) {
    const a = angleOf(dir);
    el("line", { y1: 8, x2: (22 * Math.cos(a)).toFixed(1), y2: (8 + 22 * Math.sin(a)).toFixed(1), class: dir === 3 ? "north" : "" }, svg);
  }
  el("text", { y: -28 }, svg).textContent = td("dir.3");
  return svg;
}

// The strip at a desktop board's bottom kept clear for the action bar (rem).
const BAR_REM = 4.5;
// How many recent entries' boards are kept (to play the last round again).
const BOARDS_KEPT = 256;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// A touch screen: its texts say "tap" where a mouse's say "click".
const touch = () => window.matchMedia?.("(pointer: coarse)").matches;
const hint = (kind) => (touch() && has(`hint_tap.${kind}`) ? td(`hint_tap.${kind}`) : td(`hint.${kind}`));
// Events of a player's own move that they did not pick themselves (told on the
// board as they happen, and again at their next decision), in the log's words.
const OUTCOMES = ["voyage_failed", "bounced", "stranded", "island_removed"];
function outcomes(entry, place) {
  const applied = entry.action_applied;
  const events = (applied?.events ?? []).filter((e) => OUTCOMES.some((kind) => kind in e));
  return events.length ? entryLines({ action_applied: { ...applied, events } }, place) : [];
}
const placesTile = (entry) => (entry.action_applied?.events ?? []).some((e) => e.tile_placed);

export class GamePage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    // The latest snapshot the server sent, and its sequence.
    this.snapshot = null;
    this.sequence = null;
    // The snapshot on screen: it follows the latest one entry by entry.
    this.shown = null;
    // The board after each recent entry, as the stream carried it (by sequence).
    this.boards = new Map();
    this.queue = [];
    this.playing = false;
    this.skipping = false;
    this.chronicle = new Chronicle();
    this.logReady = false;
    this.logRendered = 0;
    // What changed since this player's last decision.
    this.marks = { tiles: new Set(), ships: new Map() };
    this.picker = null;
    this.busy = false;
    // The sequence an accepted action was made at, until the stream moves past it.
    this.submitted = null;
    this.retry = 500;
    this.frame = null;
    this.decidedAt = null;
    this.clockFor = null;
    this.alerts = new TurnAlerts();
    // An embedded board (embed.js) has no share link, join or leave buttons.
    this.embedded = false;
    this.social = new Social(this);
  }

  get seat() {
    return seats.get(this.id);
  }

  get game() {
    return this.shown?.game ?? this.snapshot?.game ?? null;
  }

  get view() {
    return this.shown?.view ?? null;
  }

  // `linked`: a seat just taken from a seat link (main.js), to check.
  start(linked = null) {
    this.boardArea = h("section", { class: "board-area" });
    this.board = new Board(this.boardArea, (key) => this.pick(key));
    this.board.pointOutOfSight();
    this.board.onHex = (q, r, beach) => this.switchTo(q, r, beach);
    this.boardArea.append(h("div", { class: "zoom" },
      h("button", { type: "button", testid: "zoom-in", "aria-label": t("board.zoom_in"), onclick: () => this.board.zoomStep(1 / 1.5) }, "+"),
      h("button", { type: "button", testid: "zoom-out", "aria-label": t("board.zoom_out"), onclick: () => this.board.zoomStep(1.5) }, "−"),
      h("button", { type: "button", testid: "zoom-fit", "aria-label": t("board.fit"), onclick: () => this.board.camera.showAll() }, "⤢")));
    this.help = new HelpMode(this.boardArea);
    this.boardArea.append(compass());
    this.boardHint = h("p", { class: "board-hint", testid: "board-hint" });
    this.playback = h("div", { class: "playback", testid: "playback" });
    this.caption = h("p", { class: "caption", testid: "caption", "aria-hidden": "true" });
    // The tiles left in the stack, always on the board; a warning once the end is near.
    // On a phone the end's rule opens under the counts when they are tapped.
    this.stackChip = h("p", { class: "stack-chip", testid: "stack-chip",
      onclick: () => this.stackChip.classList.toggle("open") });
    this.dock = h("div", { class: "dock", testid: "dock" });
    // A desktop's Confirm, Start over and Undo, over the board's bottom.
    this.actionBar = h("div", { class: "action-bar", testid: "action-bar" });
    // On a phone, players and log open over the board and close back to it.
    // Its second line says whose turn it is: seen on the board screen, drawer closed.
    this.drawerStatus = h("span", { class: "drawer-status", testid: "board-status" });
    this.drawerButton = h("button", { type: "button", class: "drawer-open", testid: "drawer-open",
      "aria-expanded": "false", onclick: () => this.drawer(true) }, t("drawer.open"), this.drawerStatus);
    this.boardArea.append(this.boardHint, this.caption, this.stackChip, this.playback, this.actionBar, this.dock, this.drawerButton);
    this.social.mount(this.boardArea);
    this.side = h("aside", { class: "side" });
    this.errorBox = h("p", { class: "error", testid: "error", role: "alert" });
    // Focusable, so that a keyboard scrolls it too.
    this.logList = h("ol", { class: "log", testid: "log", tabindex: "0", "aria-label": t("log.title") });
    // Others' moves read out by screen readers as they play: a region that never moves.
    this.announcer = h("div", { class: "sr-only", role: "log", "aria-live": "polite", testid: "announcer" });
    this.root.replaceChildren(this.boardArea, this.side, this.announcer);
    document.addEventListener("keydown", (event) => this.onKey(event));
    // On a phone the board and its decision fill the screen under the header.
    const header = document.querySelector(".topbar");
    const fitUnder = () => document.documentElement.style.setProperty("--top", `${header?.getBoundingClientRect().height ?? 0}px`);
    fitUnder();
    window.addEventListener("resize", fitUnder);
    this.narrow = window.matchMedia("(max-width: 800px)");
    this.narrow.addEventListener?.("change", () => this.schedule());
    setInterval(() => this.tick(), 1000);
    this.connect();
    this.social.checkLink(linked);
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
      this.social.followAfterEnd();
    });
    source.addEventListener("failure", (e) => {
      source.close();
      this.setConnection("failed");
      this.showError(errorText(JSON.parse(e.data).error));
    });
  }

  setConnection(state) {
    const node = document.getElementById("connection");
    if (!node) return;
    node.dataset.state = state;
    node.textContent = td(`connection.${state}`);
  }

  // A snapshot: the game as it is now (first, or again after a long absence).
  onSnapshot(snapshot) {
    const sequence = Number(snapshot.sequence);
    if (this.sequence !== null && sequence < this.sequence) return;
    this.snapshot = snapshot;
    this.boards.set(sequence, snapshot);
    setPlayers(snapshot.game?.seats);
    if (!this.seat && !this.embedded) watched.add(this.id);
    this.sequence = sequence;
    this.queue = [];
    this.skipping = false;
    this.shown = snapshot;
    this.picker = null;
    setPlayers(snapshot.game?.seats);
    this.loadLog(sequence);
    this.schedule();
  }

  // The whole log up to `until`, from the store: the same lines whenever the page opened.
  async loadLog(until) {
    if (this.loadingLog) return;
    this.loadingLog = true;
    try {
      const entries = await fetchEntries(this.id, this.chronicle.last, until);
      for (const entry of entries) this.chronicle.add(entry);
      this.logReady = true;
    } catch (error) {
      this.showError(errorText(error));
    } finally {
      this.loadingLog = false;
    }
    this.schedule();
    this.pump();
  }

  onEntry(data) {
    const sequence = Number(data.sequence);
    if (this.sequence !== null && sequence <= this.sequence) return;
    this.queue.push({ sequence, entry: data.entry, snapshot: data.snapshot ?? null });
    this.sequence = sequence;
    if (data.snapshot) {
      this.snapshot = data.snapshot;
      this.boards.set(sequence, data.snapshot);
      if (this.boards.size > BOARDS_KEPT) this.boards.delete(this.boards.keys().next().value);
    }
    if (data.entry.seat_joined && data.snapshot) setPlayers(data.snapshot.game?.seats);
    this.pump();
  }

  // ------------------------------------------------------------------ playback

  // Show queued entries one by one: a voyage sails, then the board after it is
  // drawn (new ships landing one by one), and it stays a moment.
  async pump() {
    if (this.playing || !this.logReady) return;
    this.playing = true;
    document.body.dataset.playing = "1";
    try {
      while (this.queue.length) {
        const item = this.queue.shift();
        if (isAside(item.entry)) {
          // A quick message or a rematch: the board stays as it is.
          const said = this.chronicle.add(item.entry);
          if (said) this.announce(said.lines);
          this.social.heard(item.entry);
          this.shown = item.snapshot ?? { ...this.shown, sequence: String(item.sequence) };
          this.renderNow();
          continue;
        }
        await this.gate();
        const speed = this.skipping ? 0 : prefs.speed();
        const own = this.isOwn(item.entry);
        let after = item.snapshot;
        if (item.entry.action_taken_back) {
          after = { ...(after ?? this.shown), sequence: String(item.sequence), view: after?.view ?? item.entry.action_taken_back.view };
        }
        // Every entry comes with the board after it; without one (a resume the
        // server could not give boards for), the next entry's board is drawn.
        if (!after && Number(this.snapshot?.sequence) === item.sequence) after = this.snapshot;
        if (speed && item.entry.action_applied) {
          this.captionFor(item.entry);
          await this.board.camera.follow(item.entry, speed);
          await this.board.play(item.entry.action_applied.events, speed);
        }
        const added = this.chronicle.add(item.entry);
        if (added && !own) this.announce(added.lines);
        if (after) {
          if (!own && after.view) {
            // A spectator never decides: the marks show the turn being played.
            const by = item.entry.action_applied?.player;
            if (!this.seat && by && colourName(by) !== this.markedBy) {
              this.marks = { tiles: new Set(), ships: new Map() };
              this.markedBy = colourName(by);
            }
            this.mark(this.shown?.view, after.view);
          }
          this.shown = after;
          if (after.game?.seats) setPlayers(after.game.seats);
        }
        // Without playback ("No animation", or skipping) only the last entry of a batch is drawn.
        if (speed || !this.queue.length) this.renderNow(speed ? { arrive: 220 / speed } : {});
        // Another seat's move stays on screen a moment, even if nothing follows yet;
        // so does a drawn tile, whoever drew it, before the view moves on.
        // The player's own move that went wrong by itself (a voyage failed, ships sent
        // home) is told on the board as it happens, and stays a moment longer.
        const told = own && speed ? outcomes(item.entry, this.chronicle.place) : [];
        if (told.length) this.caption.textContent = told.join(" ");
        if (speed && (!own || placesTile(item.entry) || told.length) && !this.skipping) await sleep((told.length ? 2 : 1) * HOLD / speed);
      }
    } finally {
      this.playing = false;
      this.skipping = false;
      this.paused = false;
      document.body.dataset.playing = "0";
      this.captionFor(null);
    }
    if (this.queue.length) {
      this.pump();
      return;
    }
    if (Number(this.snapshot?.sequence) >= Number(this.shown?.sequence)) this.shown = this.snapshot;
    this.board.camera.rest();
    this.renderNow();
  }

  // Read lines out to screen readers (the last few stay, older ones go).
  announce(lines) {
    if (!lines.length) return;
    this.announcer.append(h("p", {}, lines.join(" ")));
    while (this.announcer.childElementCount > 5) this.announcer.firstElementChild.remove();
  }

  // Keys: Ctrl+Z (⌘Z) takes the last decision back; Enter confirms.
  onKey(event) {
    if (event.target?.closest?.("input, textarea, select")) return;
    if (event.key === "Enter" && !event.target?.closest?.("button, a, [role=button], summary")) {
      const confirm = document.querySelector("[data-testid=confirm]");
      if (confirm) {
        event.preventDefault();
        confirm.click();
      }
      return;
    }
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z" || event.shiftKey) return;
    const back = this.takeBackable();
    if (back === null) return;
    event.preventDefault();
    this.takeBack(back);
  }

  // The board right after entry `sequence`, as the stream brought it, or as the
  // server has it (a spectator's view).
  async pastState(sequence) {
    const kept = this.boards.get(sequence);
    if (kept) return kept;
    try {
      return (await call("GET", `/games/${this.id}?at_sequence=${sequence}`)).snapshot;
    } catch {
      return null;
    }
  }

  // The others' entries since this player's last decision before them (or since
  // the game began): what happened while this player waited.
  lastRound() {
    const items = this.liveItems();
    if (!this.seat) {
      // A spectator's last round: the turns of every seat up to the one being played.
      const seats = new Set((this.game?.seats ?? []).map((s) => colourName(s.colour))).size || 1;
      const starts = items.map((item, i) => (item.turn ? i : -1)).filter((i) => i >= 0);
      const from = starts.length ? starts[Math.max(0, starts.length - seats)] : 0;
      return items.slice(from).filter((item) => item.entry.action_applied);
    }
    let end = items.length;
    while (end > 0 && this.isOwn(items[end - 1].entry)) end -= 1;
    let i = end;
    while (i > 0 && !this.isOwn(items[i - 1].entry)) i -= 1;
    return items.slice(i, end).filter((item) => item.entry.action_applied);
  }

  // The log's entries a take-back left standing (neither the take-backs nor what they undid).
  liveItems() {
    const items = this.chronicle.items;
    const undone = (item) => items.some((other) => other.entry.action_taken_back
      && item.sequence >= Number(other.entry.action_taken_back.taken_back) && item.sequence <= other.sequence);
    return items.filter((item) => !undone(item));
  }

  // Play the last round again, from the board before it, then back to now.
  async showLastRound() {
    const round = this.lastRound();
    if (!round.length || this.playing) return;
    this.playing = true;
    this.rewinding = true;
    document.body.dataset.playing = "1";
    try {
      const speed = prefs.speed() || 1;
      const before = await this.pastState(round[0].sequence - 1);
      if (before) this.shown = before;
      this.renderNow();
      for (const item of round) {
        await this.gate();
        if (this.skipping) break;
        this.captionFor(item.entry);
        await this.board.camera.follow(item.entry, speed);
        await this.board.play(item.entry.action_applied.events, speed);
        const after = this.skipping ? null : await this.pastState(item.sequence);
        if (after) this.shown = after;
        this.renderNow({ arrive: 220 / speed });
        if (!this.skipping) await sleep(HOLD / speed);
      }
    } finally {
      this.playing = false;
      this.rewinding = false;
      this.paused = false;
      this.captionFor(null);
    }
    this.board.camera.rest();
    this.pump();
  }

  // While an entry plays back, the board's caption names who did what ("Red:
  // Expansion on Tonga: beaches 1, 4"); none once the board has caught up.
  captionFor(entry) {
    const applied = entry?.action_applied;
    this.caption.dataset.sequence = entry?.sequence ?? "";
    this.caption.textContent = applied?.action
      ? `${player(applied.player)}: ${describeOption(applied.action, this.view ?? this.chronicle.place, null)}`
      : "";
  }

  skipToNow() {
    this.skipping = true;
    this.release?.();
    this.renderNow();
  }

  // Before each entry played back: wait while paused ("Next move" lets one through).
  async gate() {
    while (this.paused && !this.skipping && !this.stepping) {
      await new Promise((resolve) => { this.release = resolve; });
    }
    this.stepping = false;
  }

  pause(on) {
    this.paused = on;
    if (!on) this.release?.();
    this.renderPlayback();
  }

  step() {
    this.stepping = true;
    this.release?.();
  }

  isOwn(entry) {
    const seat = this.seat;
    const by = entry.action_applied?.player ?? entry.action_taken_back?.player;
    return Boolean(seat && by && colourName(by) === colourName(seat.colour));
  }

  // Remember what another seat's entry changed, until this player decides.
  mark(before, after) {
    const had = new Set((before?.tiles ?? []).map((p) => hexKey(p.at)));
    for (const p of after.tiles ?? []) if (before && !had.has(hexKey(p.at))) this.marks.tiles.add(hexKey(p.at));
    for (const [id, n] of newShips(before, after)) this.marks.ships.set(id, (this.marks.ships.get(id) ?? 0) + n);
  }

  // ------------------------------------------------------------------ deciding

  caughtUp() {
    return !this.playing && this.queue.length === 0 && Number(this.shown?.sequence) === this.sequence;
  }

  mine() {
    const decision = this.view?.decision;
    const seat = this.seat;
    if (this.submitted !== null && this.sequence <= this.submitted) return false;
    if (!this.caughtUp()) return false;
    return Boolean(decision && seat && colourName(decision.player) === colourName(seat.colour));
  }

  pick(key) {
    if (!this.picker || this.busy || !this.mine()) return;
    // The preview pointed at again: the choice it shows, confirmed.
    if (key === "confirm") {
      const ready = this.ready();
      if (ready) this.submit(ready.action);
      return;
    }
    const chosen = this.picker.pick(key);
    if (chosen && !prefs.get("confirm")) this.submit(chosen.action);
    else this.render();
  }

  // A click on the board that hit no target, on the island at (q, r) (by its beach
  // `beach`, or null): another island that the decision could start with, while a
  // choice is under way, starts it there; a beach of an island to pick picks both.
  switchTo(q, r, beach = null) {
    const picker = this.picker;
    if (!picker || this.busy || !this.mine()) return;
    const here = (key) => key.slice(key.indexOf(":") + 1).split(",").slice(0, 2).join(",") === `${q},${r}`;
    const first = [...new Picker(picker.decision).targets().keys()].filter((k) => !k.startsWith("land:") && here(k));
    const key = first.find((k) => k.startsWith("island:")) ?? (first.length === 1 ? first[0] : null);
    if (!key || key === picker.picks[0] || (!picker.picks.length && (beach === null || !key.startsWith("island:")))) return;
    picker.reset();
    this.pick(key);
    const then = `beach:${q},${r},${beach}`;
    if (beach !== null && this.picker?.targets().has(then)) this.pick(then);
  }

  // The option the picks so far make, ready to confirm (null while one is still to be made).
  ready() {
    const picker = this.picker;
    if (!picker?.picks.length) return null;
    const left = picker.remaining();
    return (left.length === 1 ? left[0] : picker.complete()[0]) ?? null;
  }

  choose(option) {
    if (!this.picker) return;
    if (!prefs.get("confirm")) {
      this.submit(option.action);
      return;
    }
    this.picker.choose(option);
    this.render();
  }

  async submit(action) {
    if (this.busy || !this.seat) return;
    this.busy = true;
    document.body.dataset.busy = "1";
    const asked = this.sequence;
    // The player acted: what changed before is no longer news.
    this.marks = { tiles: new Set(), ships: new Map() };
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
    } finally {
      this.busy = false;
      document.body.dataset.busy = "0";
      this.render();
    }
  }

  // This seat's own last decision, if it may still be taken back (the server decides).
  // This player's last decision, if it may still be taken back (with the bots'
  // answers since it): none of them drew a tile, and no other entry came between.
  takeBackable() {
    const seat = this.seat;
    if (!seat || stateName(this.game?.state) !== "active" || !this.caughtUp()) return null;
    const bots = new Set((this.game.seats ?? []).filter(isBot).map((s) => colourName(s.colour)));
    for (const item of [...this.chronicle.items].reverse()) {
      if (isAside(item.entry)) continue;
      const applied = item.entry.action_applied;
      if (!applied || (applied.events ?? []).some((e) => e.tile_placed || e.game_over)) return null;
      if (colourName(applied.player) === colourName(seat.colour)) return item.sequence;
      if (!bots.has(colourName(applied.player))) return null;
    }
    return null;
  }

  async takeBack(sequence) {
    if (this.busy || !this.seat) return;
    this.busy = true;
    try {
      await call("POST", `/games/${this.id}/take-back`, { sequence: String(sequence), request_id: requestId() }, this.seat.token);
      this.submitted = null;
      this.showError("");
    } catch (error) {
      this.showError(errorText(error));
    } finally {
      this.busy = false;
      this.render();
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

  // Players and log over the board (a phone), or back to the board.
  drawer(open) {
    document.body.dataset.drawer = open ? "1" : "0";
    this.drawerButton.setAttribute("aria-expanded", String(open));
    if (open) this.side.querySelector("[data-testid=drawer-close]")?.focus();
    else this.drawerButton.focus();
  }

  showError(text) {
    this.errorBox.textContent = text;
    if (text) document.body.dataset.errors = String(Number(document.body.dataset.errors ?? 0) + 1);
  }

  // ------------------------------------------------------------------ rendering

  // Render at most once per frame.
  schedule() {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.render();
    });
  }

  renderNow(boardOptions = {}) {
    if (this.frame !== null) {
      cancelAnimationFrame(this.frame);
      this.frame = null;
    }
    this.render(boardOptions);
  }

  render(boardOptions = {}) {
    const game = this.game;
    if (!game) return;
    const view = this.view;
    const state = stateName(game.state);
    // A game under way fills a player's phone screen as an app does (app.css); one
    // waiting for its players, or ended, or watched, reads as a page.
    document.body.dataset.live = state === "active" && this.seat ? "1" : "0";
    const mine = this.mine();
    if (mine && !this.picker) this.picker = new Picker(view.decision);
    if (!mine) this.picker = null;
    const body = document.body.dataset;
    body.sequence = String(this.caughtUp() ? this.sequence : this.shown?.sequence);
    body.state = this.caughtUp() ? stateName(this.snapshot.game.state) : state;
    body.myturn = mine ? "1" : "0";
    body.colour = this.seat ? colourName(this.seat.colour) : "";
    this.trackClock(view, mine);
    // The docked decision first: it sets the board's size, which sets the targets' size.
    const decision = view?.decision && mine ? this.renderDecision(view) : null;
    const narrow = this.narrow?.matches;
    // One action bar: Confirm and Start over. On a desktop it lies over the board's
    // bottom, beside the targets; on a phone at the foot of the docked decision, where
    // the thumb finds it at the same place every time. Undo stays apart, under the
    // prompt: a click meant for Confirm never meets it.
    const back = this.takeBackable();
    const undo = back !== null ? this.renderUndo(back) : null;
    const bar = decision?.querySelector("[data-testid=decision-actions]") ?? null;
    const undoCard = undo && !decision ? h("section", { class: "card decision" }, undo) : null;
    if (undo && decision) decision.querySelector("h2").after(undo);
    if (bar && narrow) decision.append(bar);
    // On a phone the docked panel grows over the board when more of it is wanted (the
    // view below keeps its place: the board never moves).
    // Grown by hand for one decision: the next one starts at the usual height.
    if (this.dockFor !== this.sequence) {
      this.dockFor = this.sequence;
      delete document.body.dataset.dock;
    }
    if (narrow && decision) {
      const tall = document.body.dataset.dock === "tall";
      decision.prepend(h("button", { type: "button", class: "secondary dock-grow", testid: "dock-grow",
        "aria-label": t("dock.grow"), "aria-pressed": String(tall), onclick: () => {
          document.body.dataset.dock = tall ? "" : "tall";
          this.render();
        } }, tall ? "\u25BE" : "\u25B4"));
    }
    this.actionBar.replaceChildren(...(bar && !narrow ? [bar] : []));
    // Before the start a phone's dock holds the seats (join, Start).
    const seats = state === "open" ? this.renderSeats(game) : null;
    const docked = decision ?? undoCard ?? seats;
    this.dock.replaceChildren(...(narrow && docked ? [docked] : []));
    // A phone's errors lie over the board (the side panel is a drawer there, often shut).
    if (narrow && this.errorBox.parentNode !== this.boardArea) this.boardArea.append(this.errorBox);
    // A phone's decision is docked over the board's bottom (app.css .dock), a
    // desktop's action bar lies over it: the view keeps clear of that strip for the
    // whole game, so it never moves as the dock or the bar comes and goes.
    const area = this.boardArea.clientHeight;
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
    const seated = this.seat && state === "active";
    const reserve = !seated ? 0 : narrow ? Math.min(0.42 * area, 16 * rem) : BAR_REM * rem;
    // The players button over the board's top left: targets are framed below it.
    // The stack's counts lie under that strip (on a desktop, in the top corner): framed below them too.
    this.renderStack(view);
    const chip = this.stackChip.hidden ? 0 : this.stackChip.offsetTop + this.stackChip.offsetHeight + 4;
    const top = Math.max(narrow ? this.drawerButton.offsetHeight + 8 : 0, chip);
    // On a phone the zoom buttons sit in that top strip, not down the right edge.
    this.board.zoomStrip = narrow ? 0 : undefined;
    if (reserve !== this.board.reserve || top !== this.board.top) {
      this.board.reserve = reserve;
      this.board.top = top;
      this.board.applyBox();
    }
    this.board.render(view, this.picker, { ...boardOptions, marks: this.marks, decisionKey: this.sequence, confirmKeys: this.ready() ? this.picker.picks : [], ...this.preview(view) });
    this.boardHint.textContent = view ? "" : t("board.before_start");
    this.renderPlayback();
    // The log right after the players (on a phone, in the drawer).
    const log = h("section", { class: "card" }, h("h2", {}, t("log.title")), this.logList);
    const parts = [
      h("button", { type: "button", class: "secondary drawer-close", testid: "drawer-close", onclick: () => this.drawer(false) },
        t("drawer.close")),
      narrow ? null : this.renderStatus(game, view, state),
      narrow ? null : this.errorBox,
      narrow ? null : seats,
      game.stopped ? renderStopped(game.stopped, {
        rematch: this.social.rematchAction(),
        replay: `/games/${this.id}?replay=1`,
      }) : null,
      view?.result?.length ? renderEnd(view, this.seat, {
        rematch: this.social.rematchAction(),
        replay: `/games/${this.id}?replay=1`,
      }) : null,
      narrow ? null : decision,
      undoCard && !narrow ? undoCard : null,
      view ? renderPlayers(game, view, (c) => this.social.bubble(c)) : null,
      log,
      // On a phone the sheet opens on the players and the log; the game's card follows.
      narrow ? this.renderStatus(game, view, state) : null,
      this.social.render(),
      view ? this.renderDeck(view) : null,
      this.embedded ? null : this.renderShare(state),
      this.embedded ? null : this.renderPrefs(),
    ];
    this.side.replaceChildren(...parts.filter(Boolean));
    // A new decision of this player: its prompt in sight at the side panel's top
    // wherever the panel was scrolled to (once per decision; the player may scroll on).
    if (decision && !narrow && this.promptShown !== this.sequence) {
      this.promptShown = this.sequence;
      const below = decision.getBoundingClientRect().top - this.side.getBoundingClientRect().top;
      if (below < 0 || below > this.side.clientHeight / 2) this.side.scrollTop += below - 12;
    }
    this.renderLog();
    this.alerts.update(mine);
    if (game.settings?.tutorial) this.coachUpdate();
    if (narrow) this.showConsequences();
  }

  // A phone's docked decision: what a choice will do, once it is complete, scrolled
  // into sight above the action bar (once per choice; the player may scroll on).
  showConsequences() {
    const card = this.dock.querySelector("[data-testid=consequences]");
    const key = `${this.sequence}|${this.picker?.picks.join(" ")}`;
    // A coach's tip in the dock is read first, from its top (tutorial.js).
    const tip = this.dock.querySelector("[data-testid=coach]:not([hidden])");
    if (!card || tip || this.consequencesShown === key) return;
    this.consequencesShown = key;
    const dock = this.dock;
    const top = card.getBoundingClientRect().top - dock.getBoundingClientRect().top + dock.scrollTop;
    const room = dock.clientHeight - (dock.querySelector(".decision-actions")?.offsetHeight ?? 0);
    // Down to its end if it is below, up to its top if it is above (its top first).
    dock.scrollTop = Math.min(Math.max(dock.scrollTop, top + card.offsetHeight - room), top - 8);
  }

  // A tutorial game has a coach (tutorial.js, loaded with the first render).
  coachUpdate() {
    this.coachLoad ??= import("./tutorial.js").then(({ Coach }) => {
      this.coach = new Coach(this);
      this.coach.update();
    });
    this.coach?.update();
  }

  // Ghost ships for the picks so far, the ship a pick takes back to the supply, or
  // the voyage a chosen jetty would start.
  preview(view) {
    const picker = this.picker;
    if (!picker || !view) return {};
    const me = this.seat ? colourName(this.seat.colour) : "yellow";
    const ghosts = [];
    const count = new Map();
    const ghost = (beach, colour) => {
      const slot = count.get(beach) ?? 0;
      count.set(beach, slot + 1);
      ghosts.push({ beach, colour, slot });
    };
    let path = null;
    let slot = null;
    let taking = null;
    let royal = null;
    // With one option left, the board shows it whole, picked or not.
    const left = picker.remaining();
    for (const key of left.length === 1 ? left[0].stages.flat() : picker.picks) {
      const [type, ...rest] = key.split(":");
      if (["beach", "tonga", "single"].includes(type)) ghost(rest[0], me);
      else if (type === "land" && rest[0] !== "none") ghost(`${hexKey(view.decision.island)},${rest[0]}`, rest[1]);
      else if (type === "take") taking = { beach: rest[0], colour: me };
      else if (type === "royal") {
        const [q, r] = rest[0].split(",").map(Number);
        royal = { island: { q, r }, colour: wireColour(me) };
      }
      else if (type === "jetty") path = this.voyagePath(view, rest[0].split(",").map(Number));
      else if (type === "end") {
        const [q, r, d] = rest[0].split(",").map(Number);
        slot = neighbour(q, r, d);
      }
    }
    return { ghosts, path, slot, taking, royal };
  }

  // The route a group sailing from beach (q, r, b) through jetty `dir` would take
  // over the sea tiles on the board, each path's danger against its colours.
  voyagePath(view, [q, r, b, dir], group = null) {
    const at = new Map((view.tiles ?? []).map((p) => [hexKey(p.at), p]));
    const on = (view.beaches ?? []).find((x) => hexKey(x.beach) === `${q},${r}` && (x.beach.index ?? 0) === b);
    const colours = new Set(group ?? (on?.colours ?? []).map(colourName)).size;
    // From the beach, along each foam path's curve, to the beach it lands on: clear
    // of the islands' names.
    const points = [towards(q, r, dir, 0.6), towards(q, r, dir)];
    const steps = [];
    let end = { kind: "open" };
    let [cq, cr, d] = [q, r, dir];
    for (let i = 0; i < 40; i += 1) {
      const [nq, nr] = neighbour(cq, cr, d);
      const placed = at.get(`${nq},${nr}`);
      const info = placed ? tile(placed.tile) : null;
      if (!info || info.kind !== "sea") {
        if (info) points.push(towards(nq, nr, (d + 3) % 6, 0.6));
        const royal = info && (view.royal ?? []).some((x) => hexKey(x.island) === `${nq},${nr}`);
        end = !info ? { kind: "open" } : royal ? { kind: "royal", at: { q, r } } : { kind: "island", at: { q: nq, r: nr } };
        break;
      }
      const enter = (d + 3) % 6;
      const rot = placed.rot ?? 0;
      const found = info.paths.map(([a, z, danger]) => [(a + rot) % 6, (z + rot) % 6, danger])
        .find(([a, z]) => a === enter || z === enter);
      if (!found) break;
      const exit = found[0] === enter ? found[1] : found[0];
      const mid = centre(nq, nr);
      steps.push({ at: { x: (mid.x * 2 + towards(nq, nr, enter).x) / 3, y: (mid.y * 2 + towards(nq, nr, enter).y) / 3 }, danger: found[2] });
      const out = towards(nq, nr, exit);
      points.push({ ...out, via: curveControl(towards(nq, nr, enter), out, mid) });
      if (found[2] > colours) {
        end = { kind: "fails", danger: found[2] };
        break;
      }
      [cq, cr, d] = [nq, nr, exit];
    }
    return { points, steps, colours, group: on?.colours ?? [], end, from: { q, r, index: b }, dir };
  }

  // The speed control and "skip to now": built once, so a click never meets a new node.
  renderPlayback() {
    if (!this.speedSelect) {
      this.speedSelect = h("select", { testid: "speed", "aria-label": t("playback.speed"), onchange: (e) => {
        prefs.set("speed", Number(e.target.value));
      } }, ...SPEEDS.map((s) => h("option", { value: String(s) }, s ? `\u2066${s}×\u2069` : t("playback.instant"))));
      this.speedSelect.value = String(prefs.speed());
      this.skipButton = h("button", { type: "button", class: "secondary", testid: "skip", onclick: () => this.skipToNow() });
      this.againButton = h("button", { type: "button", class: "secondary", testid: "last-round", onclick: () => this.showLastRound() },
        t("playback.last_round"));
      // Others' moves can be held and looked at one by one.
      this.pauseButton = h("button", { type: "button", class: "secondary", testid: "pause", onclick: () => this.pause(!this.paused) });
      this.stepButton = h("button", { type: "button", class: "secondary", testid: "step", onclick: () => this.step() }, t("playback.step"));
      this.playback.replaceChildren(h("label", {}, t("playback.speed"), " ", this.speedSelect), this.pauseButton, this.stepButton,
        this.skipButton, this.againButton);
    }
    const waiting = this.queue.length + (this.playing ? 1 : 0);
    // An ended game has nothing more to play back (its replay steps through it).
    this.playback.hidden = stateName(this.game?.state) === "finished" && !waiting;
    this.pauseButton.hidden = !this.playing;
    this.pauseButton.textContent = this.paused ? t("playback.resume") : t("playback.pause");
    this.pauseButton.setAttribute("aria-pressed", String(Boolean(this.paused)));
    this.stepButton.hidden = !this.playing || !this.paused;
    this.againButton.hidden = Boolean(waiting) || stateName(this.game?.state) !== "active" || !this.lastRound().length;
    this.skipButton.hidden = !waiting;
    this.skipButton.textContent = waiting ? tn("playback.skip", waiting) : "";
  }

  renderStack(view) {
    const stack = view?.stack;
    const active = stateName(this.game?.state) === "active";
    const ending = active && fewTilesLeft(view);
    this.stackChip.hidden = !active || !stack;
    this.stackChip.classList.toggle("ending", ending);
    if (!active || !stack) return;
    const counts = h("span", {}, t("deck.counts", { island_tiles: stack.island ?? 0, sea_tiles: stack.sea ?? 0 }));
    if (!ending) this.stackChip.classList.remove("open");
    this.stackChip.replaceChildren(counts, ...(ending ? [h("span", { class: "stack-ending", testid: "stack-ending" }, t("stack.ending"))] : []));
  }

  // Built once: a re-render (the next decision) never closes it.
  renderPrefs() {
    if (this.prefsBox) return this.prefsBox;
    const box = (name, label, after) => h("label", { class: "pref" }, h("input", {
      type: "checkbox", testid: `pref-${name}`, checked: Boolean(prefs.get(name)),
      onchange: async (e) => {
        let on = e.target.checked;
        if (after && on) on = await after();
        prefs.set(name, on);
        e.target.checked = on;
      },
    }), " ", label);
    this.prefsBox = h("details", { class: "card prefs", testid: "prefs" }, h("summary", {}, t("prefs.title")),
      box("confirm", t("prefs.confirm")),
      box("sound", t("prefs.sound")),
      box("notify", t("prefs.notify"), allowNotifications),
      h("label", { class: "pref" }, h("input", {
        type: "checkbox", testid: "pref-palette", checked: prefs.get("palette") === "distinct",
        onchange: (e) => {
          prefs.set("palette", e.target.checked ? "distinct" : "standard");
          this.render();
        },
      }), " ", t("prefs.palette")));
    return this.prefsBox;
  }

  trackClock(view, mine) {
    const limit = Number(this.game?.settings?.turn_timeout_seconds ?? 0);
    const key = view?.decision ? `${this.sequence}` : null;
    if (key !== this.clockFor) {
      this.clockFor = key;
      this.decidedAt = performance.now();
    }
    this.clockLimit = limit > 0 && key && this.caughtUp() ? limit : 0;
    this.clockMine = mine;
  }

  tick() {
    const node = this.side?.querySelector("[data-testid=clock]");
    if (node && this.clockLimit) node.textContent = t("status.clock", { time: clockText(this.clockLimit, this.decidedAt).text });
  }

  renderStatus(game, view, state) {
    const seat = this.seat;
    const who = seat
      ? h("span", { testid: "you" }, swatch(colourName(seat.colour)), t("status.you", { colour: colourText(seat.colour) }))
      : h("span", { testid: "spectator" }, t("status.spectator"));
    let line;
    if (state === "open") {
      const waiting = (game.seats ?? []).some((s) => !s.occupied);
      // Every seat taken: the Seats card says so, beside its Start button.
      line = waiting ? `${t("status.open")} ${this.seatStatus(game)}` : "";
    }
    else if (state === "finished") line = game.stopped ? t("status.stopped") : t("status.finished");
    // "Your turn" once the board shown (played back) waits for this player; while the
    // last round plays again, whose turn it is now (the game's latest board).
    else {
      const now = (this.rewinding ? this.snapshot?.view?.decision : null) ?? view?.decision;
      if (this.mine() || (seat && now && colourName(now.player) === colourName(seat.colour))) line = t("status.your_turn");
      else if (now) line = t("status.waiting_for", { player: player(now.player) });
      else line = "";
    }
    const clock = this.clockLimit ? clockText(this.clockLimit, this.decidedAt) : null;
    this.drawerStatus.textContent = line;
    return h("section", { class: "card status-card", testid: "status" },
      h("h1", {}, gameTitle(game.settings)),
      h("p", {}, who),
      h("p", { class: "turn", testid: "turn" }, line),
      this.social.seatNote(),
      clock ? h("p", { class: `clock${clock.left < 10 ? " urgent" : ""}`, testid: "clock" }, t("status.clock", { time: clock.text })) : null,
      this.embedded || state === "open" ? null
        : h("p", {}, h("a", { href: `/games/${this.id}?replay=1`, testid: "open-replay" }, t("replay.open"))));
  }

  // The lobby status follows the seats: how many are open, or that the game can start.
  seatStatus(game) {
    const open = (game.seats ?? []).filter((s) => !s.occupied).length;
    if (open) return tn("seats.open_count", open);
    return this.seat ? t("seats.all_taken_start") : t("seats.all_taken");
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
          isBot(s) ? botBadge(s)
            : s.occupied ? (s.display_name || t("seats.taken")) : t("seats.open"),
          !s.occupied && !seat && !this.embedded
            ? h("button", { type: "button", testid: `join-${c}`, onclick: () => this.join(s.colour) }, t("seats.join"))
            : null);
      })),
      h("p", { class: "muted", testid: "seat-status" }, this.seatStatus(game)),
      seat && !all ? h("p", { class: "muted" }, t("seats.waiting")) : null,
      seat && all ? h("button", { type: "button", class: "primary", testid: "start", onclick: () => this.startGame() }, t("seats.start")) : null,
      seat && !this.embedded ? h("button", { type: "button", class: "secondary", testid: "leave", onclick: () => this.leave() }, t("seats.leave")) : null);
  }

  renderShare(state) {
    const link = `${window.location.origin}/games/${this.id}`;
    const input = h("input", { readonly: true, value: link, testid: "share-link", "aria-label": t("share.label") });
    return h("section", { class: "card" }, h("h2", {}, t("share.title")),
      h("p", { class: "muted", testid: "share-hint" }, this.seat ? t("share.hint")
        : t("share.hint_spectator")), input,
      h("button", { type: "button", class: "secondary", testid: "copy-link", onclick: () => {
        input.select();
        navigator.clipboard?.writeText(link).catch(() => {});
      } }, t("share.copy")), seatLinkBox(this.id));
  }

  // What is still to pick, in words: "2 more beaches", or the acts a turn allows.
  instruction(decision, picker) {
    const kind = kindOf(decision);
    const { least, most } = picker.needed();
    const complete = picker.complete().length;
    if (picker.remaining().length === 1 || (picker.picks.length && complete === 1 && !most)) return t("pick.ready");
    const next = [...picker.targets().keys()].map((k) => k.split(":")[0]);
    // An empty supply (R5.3): the pink beaches are the player's ships to take back first.
    if (kind === "turn" && !picker.picks.length && next.includes("take")) return t("hint.take");
    if (kind === "turn" && !picker.picks.length) {
      const acts = [...new Set(picker.options.map((o) => Object.keys(o.action)[0]))];
      const can = t("hint.can", { acts: disjunction(acts.map((a) => td(`act.${a}`))) });
      // Where a royal island is founded: its crown is easily taken for a part of the island.
      return acts.includes("royal") ? `${can} ${t("hint.royal_where")}` : can;
    }
    if (picker.picks.length && (next.includes("beach") || next.includes("tonga")) && least > 0) {
      const more = least === most ? tn("pick.more_beaches", least) : tn("pick.up_to_beaches", most);
      // An expansion places as many ships as the supply holds, when that is fewer
      // than the ships there or the beaches (R5.2): said, or the count looks wrong.
      const me = this.seat && colourName(this.seat.colour);
      const supply = (this.view?.supply ?? []).find((x) => colourName(x.colour) === me)?.count ?? 0;
      const placing = picker.picks.filter((key) => key.startsWith("beach:")).length + least;
      return kind === "turn" && picker.picks[0]?.startsWith("island:") && supply <= placing
        ? `${more} ${tn("pick.supply_limit", supply)}` : more;
    }
    // "or confirm" only where a Confirm is shown: once the picks make an option.
    if (kind === "land" && most > 0 && complete) return tn("pick.more_ships", most);
    return hint(kind);
  }

  renderDecision(view) {
    const decision = view.decision;
    const picker = this.picker;
    const left = picker.remaining();
    const complete = picker.complete();
    const targets = [...picker.targets().keys()];
    const offBoard = targets.filter((k) => k === "settle" || k === "land:none");
    const ready = left.length === 1 ? left[0] : complete[0] ?? null;
    // Confirm and Start over: one place each, in the action bar (render moves it onto
    // the board, or to the foot of a phone's dock). The bar is anchored at its end,
    // Confirm first: Start over keeps its place when Confirm appears, so a click
    // meant for one never meets the other.
    const actions = h("div", { class: "decision-actions", testid: "decision-actions" },
      ready ? h("button", { type: "button", testid: "confirm", class: "primary", onclick: () => this.submit(ready.action) },
        // A choice that fills a beach says so on the button itself: a chain reaction starts.
        fills(ready.action, view, decision, this.seat ? colourName(this.seat.colour) : "").length
          ? t("decision.confirm_chain", { option: describeOption(ready.action, view, decision) })
          : t("decision.confirm", { option: describeOption(ready.action, view, decision) })) : null,
      picker.picks.length ? h("button", { type: "button", class: "secondary reset", testid: "reset", onclick: () => { picker.reset(); this.render(); } }, t("decision.reset")) : null);
    // What the choice will do comes right under the prompt, never below the fold of a phone's dock.
    const parts = [
      h("h2", {}, decisionPrompt(decision)),
      actions,
      ready ? this.renderConsequences(ready.action, view, decision) : null,
      h("p", { class: "muted", testid: "instruction" }, this.instruction(decision, picker)),
      this.renderSince(view),
    ];
    if (kindOf(decision) === "land") {
      const picked = picker.picks.filter((k) => k.startsWith("land:") && k !== "land:none")
        .map((k) => ({ beach: Number(k.split(":")[1]), colour: wireColour(k.split(":")[2]) }));
      const back = leftOver(decision.group ?? [], picked);
      // The ships placed so far are dimmed in the group: those left stand out.
      const placed = new Map();
      for (const p of picked) placed.set(colourName(p.colour), (placed.get(colourName(p.colour)) ?? 0) + 1);
      parts.push(h("p", { testid: "group" }, t("land.group"), " ",
        ...(decision.group ?? []).map((c) => {
          const name = colourName(c);
          const done = (placed.get(name) ?? 0) > 0;
          if (done) placed.set(name, placed.get(name) - 1);
          const mark = swatch(name);
          if (done) {
            mark.classList.add("placed");
            mark.dataset.placed = "1";
          }
          return mark;
        })));
      // Ships still to place, until Confirm (which names what goes back).
      if (picked.length && back.length && !ready) {
        parts.push(h("p", { testid: "not-placed" }, t("land.not_placed"), " ", ...back.map((c) => swatch(colourName(c)))));
      }
    }
    for (const key of offBoard) {
      parts.push(h("button", { type: "button", testid: "target", "data-key": key, onclick: () => this.pick(key) },
        td(`target.${key.replace(":", "_")}`)));
    }
    const shown = left.slice(0, 40);
    // On a phone the list opens only when asked: the board never moves under a finger.
    if (this.optionsFor !== this.sequence) {
      this.optionsFor = this.sequence;
      this.optionsOpen = null;
    }
    const open = this.optionsOpen ?? (!this.narrow?.matches && left.length <= 6 && left.length > 1);
    parts.push(h("details", { class: "options", testid: "options", open,
      ontoggle: (e) => { this.optionsOpen = e.target.open; } },
      h("summary", {}, tn("decision.options", left.length)),
      h("ul", {}, ...shown.map((o) => h("li", {}, h("button", {
        type: "button", class: "option", testid: "option", "data-index": o.index,
        onclick: () => this.choose(o),
      }, describeOption(o.action, view, decision))))),
      left.length > shown.length ? h("p", { class: "muted" }, tn("decision.more", left.length - shown.length)) : null));
    return h("section", { class: "card decision", testid: "decision", "data-kind": decision.kind }, ...parts);
  }

  // At a decision that follows others' moves: what they changed for the points and
  // this player's ships (worked out once per decision, from the board before them).
  renderSince(view) {
    if (!this.seat || !this.chronicle) return null;
    // Once per decision and log (a page just opened gets its log after its board).
    const key = `${this.sequence}:${this.chronicle.items.length}`;
    if (this.sinceFor !== key) {
      this.sinceFor = key;
      this.sinceData = null;
      const items = this.liveItems().filter((item) => item.entry.action_applied);
      const round = this.lastRound();
      this.sinceMoves = round.map((item) => ({ lines: item.lines, hexes: entryHexes(item.entry.action_applied ?? {}) }));
      this.sinceYours = round.length ? this.ownOutcomes(round[0]) : [];
      if (round.length && round.at(-1) === items.at(-1)) {
        this.pastState(round[0].sequence - 1).then((before) => {
          if (!before?.view || this.sinceFor !== key || !this.view) return;
          this.sinceData = since(before.view, this.view, colourName(this.seat.colour));
          // Into the decision shown, under its instruction: the board is not drawn again.
          const card = renderSince(this.sinceData, (hexes) => this.board.spot(hexes), this.sinceMoves, this.sinceYours);
          const under = this.root.querySelector("[data-testid=decision] [data-testid=instruction]");
          if (card && under && !under.parentNode.querySelector("[data-testid=since]")) under.after(card);
        });
      }
    }
    return this.sinceData ? renderSince(this.sinceData, (hexes) => this.board.spot(hexes), this.sinceMoves, this.sinceYours) : null;
  }

  // What this player's own move just before `first` (the others' first entry since)
  // brought about by itself: voyages that failed or turned back, ships sent home.
  ownOutcomes(first) {
    const items = this.chronicle.items;
    let i = items.indexOf(first);
    const lines = [];
    while (i > 0 && (this.isOwn(items[i - 1].entry) || isAside(items[i - 1].entry))) {
      i -= 1;
      if (this.isOwn(items[i].entry)) lines.unshift(...outcomes(items[i].entry, this.chronicle.place));
    }
    return lines;
  }

  // What the option about to be confirmed will do, in words (and a voyage's group by colour).
  renderConsequences(action, view, decision) {
    const me = this.seat ? colourName(this.seat.colour) : "";
    const jetty = action.emigrate;
    const path = jetty ? this.voyagePath(view, [jetty.beach?.q ?? 0, jetty.beach?.r ?? 0, jetty.beach?.index ?? 0, jetty.dir ?? 0]) : null;
    // A beach this option fills: each of its jetties' voyages, with the ships on it then.
    const exits = ({ q, r, b, colours }) => {
      const placed = (view.tiles ?? []).find((p) => hexKey(p.at) === `${q},${r}`);
      const info = tile(placed?.tile);
      const dirs = (info?.beaches?.[b]?.jetties ?? []).map((e) => (e + (placed.rot ?? 0)) % 6);
      return dirs.map((d) => this.voyagePath(view, [q, r, b, d], colours));
    };
    const lines = consequences(action, view, decision, me, path, exits);
    if (!lines.length) return null;
    return h("div", { class: "consequences", testid: "consequences" },
      path ? h("p", { testid: "voyage-group" }, t("consequence.group"), " ", ...path.group.map((c) => swatch(colourName(c)))) : null,
      ...lines.map((line) => h("p", { class: "consequence", testid: "consequence" }, line)));
  }

  // One Undo button, naming the decision it takes back ("Undo: New settlement").
  renderUndo(sequence) {
    const mine = this.chronicle.items.find((item) => item.sequence === sequence)?.entry.action_applied;
    const what = mine?.action ? describeOption(mine.action, this.view ?? this.chronicle.place, null) : "";
    // Bots' moves made since would go too: the first click asks, the second undoes.
    const others = this.chronicle.items.filter((item) => item.sequence > sequence && item.entry.action_applied).length;
    const button = h("button", { type: "button", class: "secondary", testid: "take-back", "aria-keyshortcuts": "Control+Z",
      "aria-describedby": "undo-hint", onclick: () => {
        if (others && !button.classList.contains("armed")) {
          button.classList.add("armed");
          button.textContent = t("undo.sure");
          return;
        }
        this.takeBack(sequence);
      } }, others ? tn("undo.button_bots", others, { option: what }) : t("undo.button", { option: what }));
    return h("div", { class: "undo", testid: "undo" }, button,
      h("p", { class: "muted", id: "undo-hint" }, t("takeback.hint")));
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

  // The log in time order, one item per entry (its lines in the order they happened).
  renderLog() {
    const items = this.chronicle.items;
    if (this.logRendered > items.length) {
      this.logList.replaceChildren();
      this.logRendered = 0;
    }
    for (const item of items.slice(this.logRendered)) {
      // A take-back: the lines it undid (the player's decision and any bot moves
      // after it) stay, struck through and marked.
      const back = item.entry.action_taken_back;
      if (back) {
        for (const li of this.logList.querySelectorAll("li[data-sequence]:not(.undone)")) {
          const at = Number(li.dataset.sequence);
          if (at >= Number(back.taken_back) && at < item.sequence) {
            li.classList.add("undone");
            li.append(h("span", { class: "line undone-mark", testid: "undone" }, t("log.undone")));
          }
        }
      }
      if (!item.lines.length) continue;
      // Each line links to the board: pointing at it (or focusing, or tapping it)
      // shows where it happened.
      const hexes = entryHexes(item.entry.action_applied ?? {});
      const show = () => this.board.spot(hexes);
      const hide = () => this.board.spot([]);
      this.logList.append(h("li", {
        "data-sequence": item.sequence, class: `${item.turn ? "turn-start" : isAside(item.entry) ? "aside" : ""}${hexes.length ? " linked" : ""}`,
        tabindex: hexes.length ? "0" : null, testid: "log-line",
        onmouseenter: hexes.length ? show : null, onmouseleave: hexes.length ? hide : null,
        onfocus: hexes.length ? show : null, onblur: hexes.length ? hide : null,
        onclick: hexes.length ? () => {
          if (document.body.dataset.drawer === "1") this.drawer(false);
          show();
        } : null,
      }, ...item.lines.map((line) => h("span", { class: "line" }, line))));
    }
    this.logRendered = items.length;
    this.logList.scrollTop = this.logList.scrollHeight;
  }
}
