// The one camera policy (docs/web.md): the view is the player's. An entry played
// back is followed where it happens at the player's zoom (panned to; wider only
// where it does not fit); once the entries have played, the view is back where it
// was (the whole board, grown, where it showed the whole board), and what changed
// out of sight is pointed at from the board's edge (board.js). A decision of this
// player keeps the view while its targets are seen and can be picked, centres them
// at the same zoom when they fit, else is framed afresh (the whole board when
// readable, else the targets with a hex of surroundings, no closer than CLOSEST,
// none cut off); the decisions of a chain keep the view while their targets are
// seen; a pick moves it only from a view so far out that ships show as counts,
// where the targets it leaves cannot be picked; a landing is framed on its island
// (up to CLOSE); a manual zoom or pan holds until the player's next decision, whose
// targets are then centred at that zoom where they fit.

import { SIZE, APOTHEM, centre } from "./geometry.js";

// The closest view: a hex and its six neighbours (three hexes across each way).
const MIN_W = 5 * SIZE;
const MIN_H = 6 * APOTHEM;
// Pixels per board unit: a decision is never framed closer than this (the
// surroundings stay in sight), and the whole board is shown when it fits at WHOLE.
const CLOSEST = 1.0;
// A landing's island and its neighbours are framed up to this close.
const CLOSE = 1.6;
const WHOLE = 0.6;
// Below this many pixels per board unit the board shows less detail (ships as
// counts, board.js): a decision framed by the camera is never shown there.
export const WIDE = 0.55;
// The strip at the board's right edge under the zoom buttons (CSS px); none where
// they lie in a row in the top strip the view keeps clear of (a phone: board.zoomStrip 0).
const ZOOM_PX = 64;
// How long a view the player moved is left alone by the others' moves (ms).
const TOUCHED_MS = 2500;
// Keys of the wire's fields that name a hex (Hex or Beach messages).
const HEX_FIELDS = new Set(["beach", "beaches", "at", "island", "back_to", "take", "origin"]);

// Every hex an entry (a log entry or an action) touches, as "q,r" keys, in order.
export function entryHexes(entry) {
  const out = new Set();
  const walk = (value, key) => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
    } else if (value && typeof value === "object") {
      if (HEX_FIELDS.has(key) && !("view" in value)) out.add(`${value.q ?? 0},${value.r ?? 0}`);
      for (const [k, v] of Object.entries(value)) if (k !== "view" && k !== "decision") walk(v, k);
    }
  };
  walk(entry, "");
  // Two ships on Tonga name only its beaches: Tonga lies at the centre.
  if (JSON.stringify(entry).includes('"tonga":')) out.add("0,0");
  return [...out].map((k) => k.split(",").map(Number));
}

// The box around hexes, each whole, with `margin` more on every side.
export function hexBox(hexes, margin = 0) {
  const xs = [];
  const ys = [];
  for (const [q, r] of hexes) {
    const c = centre(q, r);
    xs.push(c.x - SIZE - margin, c.x + SIZE + margin);
    ys.push(c.y - APOTHEM - margin, c.y + APOTHEM + margin);
  }
  if (!xs.length) return null;
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}

const union = (a, b) => {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
};
// `box` grown `f` times about its centre.
const scaled = (box, f) => ({ x: box.x + box.w / 2 - (box.w * f) / 2, y: box.y + box.h / 2 - (box.h * f) / 2, w: box.w * f, h: box.h * f });
const inside = (a, b) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.w <= b.x + b.w + 0.5 && a.y + a.h <= b.y + b.h + 0.5;

export class Camera {
  constructor(board) {
    this.board = board;
    // The player zoomed or panned: hold still until their next decision.
    this.manual = false;
    // The player chose a zoom once: later decisions keep it where their targets fit
    // (until "fit" shows the whole board again).
    this.chosen = false;
    this.decisionKey = null;
    this.peeked = null;
    // The view before playback moved it, to return to once the entries have played.
    this.home = null;
    // Asked to show the whole board at the next settle (a replay's every step).
    this.refit = false;
  }

  // `box` grown to the screen's shape and to the closest view allowed (a hex and
  // its neighbours, or the whole board where that is smaller), same centre.
  shape(box, closest = true) {
    const aspect = this.board.aspect();
    const whole = this.board.wholeBox();
    let w = closest ? Math.max(box.w, Math.min(MIN_W, whole.w)) : box.w;
    let h = closest ? Math.max(box.h, Math.min(MIN_H, whole.h)) : box.h;
    if (w / h < aspect) w = h * aspect;
    else h = w / aspect;
    return { x: box.x + box.w / 2 - w / 2, y: box.y + box.h / 2 - h / 2, w, h };
  }

  // Glide to `box` (shaped); resolves when there.
  go(box, ms = 0) {
    return this.board.moveTo(this.shape(box), ms);
  }

  // The player moved the view by hand.
  hold() {
    this.touched = performance.now();
    this.manual = true;
    this.chosen = true;
    this.peeked = null;
    this.home = null;
  }

  // The whole board, and that view holds (the "fit" button).
  showAll() {
    this.hold();
    this.chosen = false;
    this.board.moveTo(this.board.wholeBox(), 0);
  }

  // A board shown without a decision of this player: the whole of it when nothing
  // is framed yet; afterwards the view stays where it is (a decision just made stays
  // in sight, and the others' entries are followed where they happen). A finished
  // game's whole board, shown once even after a manual zoom (the player's last).
  settle(view) {
    const ended = Boolean(view?.result?.length);
    if (ended && !this.ended) this.manual = false;
    this.ended = ended;
    if (!this.manual && (!this.board.framed || this.refit || ended)) this.board.moveTo(this.board.wholeBox(), 0);
    this.refit = false;
  }

  // Before an entry plays: frame where it happens, at the zoom shown where it fits
  // there (panned to), else as close as takes it in. Resolves once the view is there.
  follow(entry, speed = 1) {
    const hexes = entryHexes(entry);
    const want = hexBox(hexes, SIZE * 0.15);
    // A view the player is moving right now is left alone; one they moved before is
    // panned (at their zoom) to where the move happens, and back after.
    if (!want || (this.manual && performance.now() - (this.touched ?? 0) < TOUCHED_MS)) return Promise.resolve();
    const goal = this.board.goal;
    if (inside(want, goal)) return Promise.resolve();
    if (!this.home && this.board.framed) this.home = { ...goal, whole: this.showsWhole(goal) };
    const ms = speed ? 450 / speed : 0;
    if (want.w <= goal.w && want.h <= goal.h) return this.board.moveTo(this.centred(goal, want), ms);
    return this.go(want, ms);
  }

  // Whether `box` shows every tile of the board (as "fit" does).
  showsWhole(box) {
    return inside(this.board.wholeBox(), box);
  }

  // Where the player's view was before the entries played: the whole board, grown
  // with them, where it showed the whole board (and the grown board is still shown
  // whole at a decision: WHOLE), else exactly as it was.
  homeView(home) {
    const { whole: wasWhole, ...box } = home;
    const whole = wasWhole ? this.board.wholeBox() : null;
    return whole && (this.board.scale(whole) >= WHOLE || inside(whole, box)) ? whole : box;
  }

  // The entries have played: back to the view they were followed from.
  rest() {
    const home = this.home;
    this.home = null;
    if (!home) return;
    this.board.moveTo(this.homeView(home), 350);
  }

  // A decision of this player, its targets' bounds; `crowded(scale)`: whether its
  // targets lie closer than a finger at that scale; `close`: a landing, whose ships
  // are placed one by one around one island, framed on that island and its
  // neighbours (up to CLOSE) unless the player chose the view; `points`: each target's
  // place ([x, y]). Framed once per decision.
  decide(key, bounds, crowded = () => false, close = false, points = []) {
    if (key === this.decisionKey) return false;
    // The next decision of a chain (nothing else came between).
    const chain = typeof key === "number" && key === this.decisionKey + 1 && !this.manual;
    const manual = this.manual || this.chosen;
    this.decisionKey = key;
    this.manual = false;
    // The decision is framed from here: the end of the playback before it moves
    // nothing. It is framed from the view the player had before the playback (their
    // zoom kept), not from where the others' moves took it.
    const home = this.home;
    this.home = null;
    if (home && this.board.framed) this.board.moveTo(this.homeView(home), 0);
    if (!bounds) return false;
    const goal = this.board.goal;
    const scale = this.board.scale(goal);
    const pickable = !crowded(scale);
    // A landing is framed on its island, once (its ships are placed one by one there,
    // whatever view came before): a view already that close on it stays.
    if (close) {
      const landing = this.frame(bounds, crowded, CLOSE);
      if (this.board.framed && inside(bounds, goal) && pickable && scale >= this.board.scale(landing) * 0.9) return false;
      this.board.moveTo(landing, 0);
      return true;
    }
    // A view the player chose that shows every target stays.
    if (manual && this.board.framed && inside(bounds, goal) && pickable) return false;
    // Nothing moves between the decisions of a chain while its targets are seen
    // (and can be picked there).
    if (this.board.framed && inside(bounds, goal) && chain && pickable) return false;
    const margin = SIZE * 0.6;
    const want = { x: bounds.x - margin, y: bounds.y - margin, w: bounds.w + 2 * margin, h: bounds.h + 2 * margin };
    const whole = this.board.wholeBox();
    const roomy = (goal.w >= Math.min(MIN_W, whole.w) - 1 && goal.h >= Math.min(MIN_H, whole.h) - 1)
      && scale <= Math.max(CLOSEST, this.board.scale(whole)) * 1.05 && scale >= WIDE;
    // At the zoom the player chose, or a roomy one, targets that fit are brought into view.
    if (this.board.framed && (roomy || manual) && pickable && want.w <= goal.w && want.h <= goal.h) {
      if (inside(want, goal)) return false;
      // They fit at this zoom: centred, never left at the screen's edge.
      this.board.moveTo(this.centred(goal, bounds), 0);
      return true;
    }
    // Targets spread wider than this zoom shows: all of them framed where they can
    // still be picked there (ships drawn, a finger's width apart), unless the player
    // chose the zoom; else, some of them in sight and pickable, the view stays (the
    // board's edge points to the others, edges.js).
    const all = this.frame(bounds, crowded);
    const fits = this.board.scale(all);
    if (!manual && fits >= WIDE && !crowded(fits)) {
      this.board.moveTo(all, 0);
      return true;
    }
    const seen = points.some(([x, y]) => x >= goal.x && x <= goal.x + goal.w && y >= goal.y && y <= goal.y + goal.h);
    if (this.board.framed && (roomy || manual) && pickable && seen) return false;
    this.board.moveTo(all, 0);
    return true;
  }

  // A pick made within a decision (`key` names the picks so far) from so far out that
  // ships show only as counts (an island picked at "fit", its beaches tiny): where the
  // targets it leaves are too close together to pick there, they are framed; the pick
  // asked for them. Once per pick; any closer view stays still between picks.
  refine(key, bounds, crowded) {
    if (key === this.refineKey) return false;
    this.refineKey = key;
    const scale = this.board.scale(this.board.goal);
    if (!bounds || !this.board.framed || scale >= WIDE || !crowded(scale)) return false;
    this.manual = false;
    this.board.moveTo(this.frame(bounds, crowded), 0);
    return true;
  }

  // `box` moved (same size) so that `bounds` lie in its middle.
  centred(box, bounds) {
    return { ...box, x: bounds.x + bounds.w / 2 - box.w / 2, y: bounds.y + bounds.h / 2 - box.h / 2 };
  }

  // The view for targets within `bounds`: the whole board if it is readable
  // there, else the targets with their surroundings, no closer than CLOSEST, kept
  // over the board (no empty sea while tiles are cut) and clear of the zoom buttons.
  frame(bounds, crowded, closest = CLOSEST) {
    const board = this.board.wholeBox();
    const whole = inside(bounds, board) ? board : this.shape(union(board, bounds));
    const fits = this.board.scale(whole);
    if (fits >= WHOLE && !crowded(fits) && closest === CLOSEST) return whole;
    // A landing: its island's targets and a narrow margin, as close as `closest` allows.
    const margin = SIZE * (closest !== CLOSEST ? 0.15 : 0.6);
    const want = { x: bounds.x - margin, y: bounds.y - margin, w: bounds.w + 2 * margin, h: bounds.h + 2 * margin };
    if (closest !== CLOSEST) {
      const box = this.shape(want, false);
      return this.shape(scaled(box, Math.max(1, this.board.scale(box) / closest)), false);
    }
    // Targets still crowded at the closest view with surroundings (a landing's ships
    // around one island): closer, the targets and their margin alone.
    const tight = crowded(this.board.scale(this.shape(want))) && crowded(closest);
    let box = this.shape(want, !tight);
    // No closer than CLOSEST with surroundings, nor than CLOSE without.
    const grow = this.board.scale(box) / (tight ? CLOSE : closest);
    if (grow > 1) box = this.shape(scaled(box, grow), !tight);
    if (box.w >= whole.w && box.h >= whole.h) return whole;
    // Over the board as far as the targets allow (no empty sea while tiles are cut).
    const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
    for (const [p, s] of [["x", "w"], ["y", "h"]]) {
      const over = box[s] >= whole[s] ? whole[p] + (whole[s] - box[s]) / 2 : clamp(box[p], whole[p], whole[p] + whole[s] - box[s]);
      box[p] = clamp(over, want[p] + want[s] - box[s], want[p]);
    }
    // The zoom buttons lie over the board's right edge: the view moves right while
    // the targets' left stays in, then widens until no target is under them.
    const px = this.board.svg?.clientWidth ?? 0;
    const strip = this.board.zoomStrip ?? ZOOM_PX;
    const over = () => (strip && px > 3 * strip ? bounds.x + bounds.w - (box.x + box.w * (1 - strip / px)) : 0);
    box.x += Math.max(0, Math.min(over(), bounds.x - box.x));
    if (over() > 0) box = this.shape({ ...box, w: box.w + 2 * over() });
    return box;
  }

  // Show where `hexes` are for a moment (a log line under the pointer); `back` returns.
  peek(hexes) {
    const want = hexBox(hexes, SIZE * 0.15);
    if (!want) return;
    if (!this.peeked) this.peeked = { ...this.board.goal };
    if (!inside(want, this.board.goal)) this.go(want, 250);
  }

  back() {
    if (!this.peeked) return;
    const box = this.peeked;
    this.peeked = null;
    this.board.moveTo(box, 250);
  }
}
