// The coach of a tutorial game: the moment a kind of decision or a sign on the
// screen first comes up, it explains it in a card over the board. Each tip is
// shown once (remembered per game in this browser); "Got it", or a decision made
// with the tip on screen, shows the next.
// The texts are catalog messages `coach.<tip>.title` and `coach.<tip>`.

import { h } from "./dom.js";
import { t, td, tn } from "./i18n.js";
import { tile } from "./geometry.js";
import { startTutorial } from "./learn.js";
import { errorText } from "./text.js";
import { settleCost } from "./consequences.js";
import { colourName, kindOf } from "./wire.js";

// Every tip, in the order a first game usually meets them.
export const TIPS = [
  "welcome", "setup", "marks", "turn", "emigrate", "stack", "scoring", "route", "danger", "land",
  "royal", "mask", "settle", "place", "settle_ship", "graduate", "no_ship", "others_settle", "end",
];

// Once these were all explained, the coach says the lesson is over ("graduate"):
// the learner may finish the game or start a real one. It says so too once the main
// ones were (MAIN) and the learner has made EARLY decisions: what is left (a royal
// island, a New settlement) is explained when it first comes up.
const LESSON = TIPS.filter((tip) => !["graduate", "no_ship", "others_settle", "end"].includes(tip));
const MAIN = ["welcome", "setup", "turn", "emigrate", "stack", "scoring", "danger", "land"];
const EARLY = 20;

// Tips about a situation that passes (a decision, a pick): a tip left unread when
// its moment has passed waits for the next time it comes up.
const PASSING = new Set(["setup", "turn", "emigrate", "route", "land", "royal", "settle", "place", "settle_ship", "no_ship"]);

// Tips that end the lesson: they stay until the player answers them.
const FINAL = new Set(["graduate", "end"]);

// Acts that begin a turn (the player's own count says when to suggest a New settlement).
const TURN_ACTS = new Set(["expand", "royal", "settle", "tonga", "single"]);

function load(key) {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "[]");
  } catch {
    return [];
  }
}

export class Coach {
  constructor(page) {
    this.page = page;
    this.key = `tongiaki.coach.${page.id}`;
    this.seen = new Set(load(this.key));
    this.queue = [];
    // Its text runs in the page's direction (over the board, a map, left to right).
    this.node = h("section", {
      class: "coach", testid: "coach", hidden: true,
      role: "region", "aria-live": "polite", "aria-label": t("coach.label"),
    });
    page.boardArea.append(this.node);
    // The view moves (a framing, a resize): the card finds its corner again.
    new MutationObserver(() => this.dodge()).observe(page.board.svg, { attributes: true, attributeFilter: ["viewBox"] });
  }

  save() {
    try {
      localStorage.setItem(this.key, JSON.stringify([...this.seen]));
    } catch {
      // No storage: the tips are remembered for this page only.
    }
  }

  offer(tip) {
    this.now?.add(tip);
    if (!this.seen.has(tip) && !this.queue.includes(tip)) this.queue.push(tip);
  }

  // The player's own turns so far (from the log).
  ownTurns(me) {
    return this.page.chronicle.items.filter((item) => {
      const applied = item.entry.action_applied;
      return applied && colourName(applied.player) === me && TURN_ACTS.has(Object.keys(applied.action ?? {})[0]);
    }).length;
  }

  // The decisions the player has made so far (from the log).
  ownDecisions(me) {
    return this.page.chronicle.items.filter((item) => colourName(item.entry.action_applied?.player) === me).length;
  }

  // After every render of the game page: what is on screen now that was never explained?
  update() {
    const page = this.page;
    const view = page.view;
    if (!view || !page.seat) return;
    const me = colourName(page.seat.colour);
    // A tip the player decided with on screen has been read: it never comes again,
    // and the next one takes its place (a tip about a decision once its moment has
    // passed, below; one about the board after two decisions).
    const open = this.node.hidden ? "" : this.node.dataset.tip;
    if (open && !FINAL.has(open) && !PASSING.has(open) && this.ownDecisions(me) >= this.shownAt + 2) this.read(open);
    this.queue = this.queue.filter((tip) => !this.seen.has(tip));
    this.now = new Set();
    this.offer("welcome");
    const tiles = view.tiles ?? [];
    if (tiles.length > 1) this.offer("stack");
    if (tiles.some((p) => tile(p.tile)?.paths?.some((path) => path[2] > 0))) this.offer("danger");
    if (page.marks.tiles.size || page.marks.ships.size) this.offer("marks");
    if ((view.royal ?? []).length) this.offer("mask");
    if (page.mine()) {
      // Once this player's points first move: how they are won, and when they decide.
      if ((view.scores ?? []).some((s) => colourName(s.colour) === me && s.count > 0)) this.offer("scoring");
      // Another player's New settlement, told at the next decision (its ships vanish otherwise unexplained).
      if (page.lastRound().some((item) => "settle" in (item.entry.action_applied?.action ?? {}) && colourName(item.entry.action_applied.player) !== me)) {
        this.offer("others_settle");
      }
      const kind = kindOf(view.decision);
      const acts = new Set((view.decision.options ?? []).map((o) => Object.keys(o)[0]));
      if (kind === "turn") {
        if (acts.has("tonga") || acts.has("single")) this.offer("no_ship");
        else this.offer("turn");
        if (acts.has("royal")) this.offer("royal");
        // Suggested to try while it costs nothing; else explained, the choice left open.
        if (this.ownTurns(me) >= 2) {
          if (!this.queue.includes("settle")) this.cost = settleCost(view, me);
          this.offer("settle");
        }
      } else if (kind) {
        this.offer(kind);
      }
      // The route preview, once it crosses sea tiles (dangers to read on it).
      if (page.picker?.picks.some((key) => key.startsWith("jetty:")) && page.preview(view).path?.steps.length) {
        this.offer("route");
      }
    }
    if (view.result?.length) this.offer("end");
    else if (LESSON.every((tip) => this.seen.has(tip))
      || (MAIN.every((tip) => this.seen.has(tip)) && this.ownDecisions(me) >= EARLY)) this.offer("graduate");
    if (PASSING.has(open) && !this.now.has(open)) this.read(open);
    this.queue = this.queue.filter((tip) => !PASSING.has(tip) || this.now.has(tip));
    // The decision on screen is explained first; the signs of the board can wait. A
    // tip being read stays until it is dismissed.
    const shown = this.node.hidden ? "" : this.node.dataset.tip;
    const urgent = (tip) => (tip === shown ? -1 : tip === "welcome" || PASSING.has(tip) ? 0 : 1);
    this.queue.sort((a, b) => urgent(a) - urgent(b));
    this.show();
  }

  read(tip) {
    this.seen.add(tip);
    this.save();
  }

  next() {
    const tip = this.queue.shift();
    if (tip) this.read(tip);
    this.show();
  }

  // Stop the tips: every one counts as seen, the last one too.
  stop() {
    for (const tip of TIPS) this.seen.add(tip);
    this.queue = [];
    this.save();
    this.show();
  }

  // The card opens right under the decision's prompt: on a phone in the docked
  // decision panel (which the board's view keeps clear of; Confirm stays at its
  // foot), on a wider screen in the side panel (the board left whole; Confirm is on
  // the board), where a new decision's prompt is brought into sight; without a
  // decision, after the game's card, or without a tip over the board.
  place(tip) {
    const page = this.page;
    const docked = Boolean(tip && page.narrow?.matches);
    const prompt = tip && (docked ? page.dock : page.side).querySelector(":scope > [data-testid=decision] > h2");
    const status = tip && page.side.querySelector(":scope > [data-testid=status]");
    if (prompt) {
      if (prompt.nextElementSibling !== this.node) prompt.after(this.node);
    } else if (docked) {
      if (page.dock.firstChild !== this.node) page.dock.prepend(this.node);
    } else if (status) {
      if (status.nextElementSibling !== this.node) status.after(this.node);
    } else if (this.node.parentNode !== page.boardArea) {
      page.boardArea.append(this.node);
    }
  }

  // Over the board, the card takes the corner (or a slimmer shape) where it covers
  // fewest targets: none if it can.
  dodge() {
    const node = this.node;
    if (node.hidden || node.parentNode !== this.page.boardArea) return;
    const hits = [...this.page.boardArea.querySelectorAll("[data-testid=target] .target-hit")].map((n) => n.getBoundingClientRect());
    const covered = () => {
      const r = node.getBoundingClientRect();
      return hits.filter((b) => b.left < r.right && b.right > r.left && b.top < r.bottom && b.bottom > r.top).length;
    };
    let best = null;
    for (const corner of ["", "low", "low end", "slim", "slim low", "slim low end"]) {
      node.className = `coach ${corner}`;
      const count = covered();
      if (!best || count < best.count) best = { corner, count };
      if (!count) return;
    }
    node.className = `coach ${best.corner}`;
  }

  show() {
    // A new tip never comes in the middle of a choice being made (picks made, not
    // confirmed): it waits for the next decision. The route preview's comes with its pick.
    const picking = this.page.picker?.picks.length > 0 && this.queue[0] !== "route";
    const tip = picking && this.node.dataset.tip !== this.queue[0] ? undefined : this.queue[0];
    this.place(tip);
    this.dodge();
    if (this.node.dataset.tip === (tip ?? "")) return;
    this.node.dataset.tip = tip ?? "";
    this.node.hidden = !tip;
    // A new tip in a phone's docked panel is read from its top.
    if (tip && this.node.parentNode && this.page.dock.contains(this.node)) this.page.dock.scrollTop = 0;
    this.shownAt = this.page.seat ? this.ownDecisions(colourName(this.page.seat.colour)) : 0;
    if (!tip) {
      this.node.replaceChildren();
      return;
    }
    const done = TIPS.filter((x) => this.seen.has(x)).length;
    const costly = tip === "settle" && this.cost > 0;
    // Ended early: it names what is left only if a royal island or a New settlement is.
    const early = tip === "graduate" && !LESSON.every((x) => this.seen.has(x))
      && !(this.seen.has("royal") && this.seen.has("settle"));
    const error = h("p", { class: "error", role: "alert" });
    const buttons = tip === "end" || tip === "graduate"
      ? [
        h("a", { class: "button primary", href: "/#create", testid: "coach-lobby" }, t("coach.play_real")),
        tip === "end" ? h("button", { type: "button", class: "secondary", testid: "coach-again", onclick: () => startTutorial().catch((e) => { error.textContent = errorText(e); }) }, t("coach.again")) : null,
        h("button", { type: "button", class: "secondary", testid: "coach-next", onclick: () => this.next() }, (tip === "end" ? t("coach.close") : t("coach.play_on"))),
      ]
      : [
        h("button", { type: "button", class: "primary", testid: "coach-next", onclick: () => this.next() }, t("coach.next")),
        h("button", { type: "button", class: "secondary", testid: "coach-stop", onclick: () => this.stop() }, t("coach.stop")),
      ];
    this.node.replaceChildren(h("div", { dir: document.documentElement.dir || "ltr", testid: "coach-body" },
      h("p", { class: "coach-step muted", testid: "coach-step" }, t("coach.step", { step: done + 1 })),
      h("h2", {}, td(`coach.${costly ? "settle_costly" : tip}.title`)),
      h("p", { testid: "coach-text" }, costly ? tn("coach.settle_costly", this.cost) : td(`coach.${early ? "graduate_early" : tip}`)),
      h("div", { class: "coach-buttons" }, ...buttons),
      error));
    this.dodge();
  }
}
