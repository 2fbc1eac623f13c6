// The board in SVG: tiles at their rotation, beaches with moorings and jetties,
// sea tiles with foam paths and danger numbers, ships, royal masks, the targets
// of the pending decision, voyages, pan and zoom, and a level of detail by zoom
// (far out: labels grow to stay readable, a beach's ships become a count per
// colour). Where the view goes is camera.js's. The SVG is a map: it is never
// mirrored, whatever the page's writing direction.

import {
  SIZE, APOTHEM, centre, corners, towards, polar, tile, beachLayout, curveControl, hexAt,
} from "./geometry.js";
import { el, shipPath, FILL } from "./ships.js";
import { t, td, tn } from "./i18n.js";
import { player, tileName } from "./text.js";
import { Camera, entryHexes, WIDE } from "./camera.js";
import { Edges } from "./edges.js";
import { colourName, kindOf, beachKey } from "./wire.js";

const hexOf = (h) => [h?.q ?? 0, h?.r ?? 0];
// Below this, danger numbers are left out (the paths are too small to follow).
const FAR = 0.3;
// The least distance between two targets' centres (CSS px) for a finger and a mouse:
// closer, the camera frames them closer.
const FINGER = 44;
const POINTER = 24;
// Text on the board is never smaller than 11 CSS px: labels grow (--k) below this scale.
const READABLE = 1.05;

// A group at (x, y) whose content grows as the view widens (class "grow").
function growing(x, y, parent, attrs = {}) {
  const outer = el("g", { transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`, ...attrs }, parent);
  return el("g", { class: "grow" }, outer);
}

// Ships on each beach and colour ("q,r,b|colour" -> count) in `view`.
function shipCounts(view) {
  const out = new Map();
  for (const entry of view?.beaches ?? []) {
    const key = beachKey(entry.beach);
    for (const c of entry.colours ?? []) {
      const id = `${key}|${colourName(c)}`;
      out.set(id, (out.get(id) ?? 0) + 1);
    }
  }
  return out;
}

// Ships on `after`'s beaches that were not on `before`'s, by beach and colour.
export function newShips(before, after) {
  const old = shipCounts(before);
  const out = new Map();
  for (const [id, n] of shipCounts(after)) if (n > (old.get(id) ?? 0)) out.set(id, n - (old.get(id) ?? 0));
  return out;
}

// Through `points`; a point with `via` is reached along a foam path's curve.
function arcPath(points) {
  if (points.length === 1) return `M${points[0].x},${points[0].y}l0.1,0`;
  const xy = (p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`;
  return points.map((p, i) => (i ? (p.via ? `Q${xy(p.via)} ${xy(p)}` : `L${xy(p)}`) : `M${xy(p)}`)).join("");
}

// The closest the whole board is ever shown (pixels per board unit): a first tile
// fills a phone's width and most of a desktop's board.
const WHOLE_MOST = 2;

export class Board {
  constructor(container, onPick) {
    this.onPick = onPick;
    this.container = container;
    this.svg = el("svg", {
      class: "board",
      "data-testid": "board",
      role: "group",
      "aria-label": t("board.label"),
      preserveAspectRatio: "xMidYMid meet",
    });
    this.layers = {};
    // Under the ships: target arcs (so they never tint a ship); above: ghosts of a
    // choice being made, the targets and their hit areas, the islands' labels (a
    // ring never hides a name; labels let pointers through), beach numbers (above
    // the names), then voyages.
    for (const name of ["tiles", "dangers", "under", "ships", "ghosts", "targets", "labels", "numbers", "fills", "voyage", "spot"]) {
      this.layers[name] = el("g", { class: `layer-${name}` }, this.svg);
    }
    // The choice previewed, pointed at again, confirms it (game.js "confirm").
    this.layers.ghosts.addEventListener("click", (event) => {
      event.stopPropagation();
      this.onPick("confirm");
    });
    container.appendChild(this.svg);
    this.box = { x: -300, y: -300, w: 600, h: 600 };
    // Where the view is going (the box glides there).
    this.goal = this.box;
    // Whether the view was ever placed (the box above is only a start).
    this.framed = false;
    // The strip at the bottom a docked decision may cover (px; game.js sets it).
    this.reserve = 0;
    this.top = 0;
    this.camera = new Camera(this);
    // A new size (a phone turned, the dock shown) changes the scale: detail and hit areas follow.
    new ResizeObserver(() => this.applyBox()).observe(this.svg);
    this.known = new Set();
    this.layouts = new Map();
    this.spots = new Map();
    this.installPanZoom();
    this.applyBox();
  }

  // A manual zoom or pan (replay and how-to set it too).
  get userMoved() {
    return this.camera.manual;
  }

  set userMoved(on) {
    this.camera.manual = on;
    if (!on) this.camera.refit = true;
  }

  // ------------------------------------------------------------------ drawing

  // options: marks { tiles: Set of "q,r", ships: Map "q,r,b|colour" -> count } of
  // what changed since the player's last decision; ghosts [{ beach: "q,r,b", colour }]
  // of the choice being made; path: a voyage preview; arrive: stagger new ships (ms);
  // decisionKey: what names the decision (the camera frames each one once).
  render(view, picker, options = {}) {
    const before = this.view;
    this.view = view;
    for (const name of ["tiles", "dangers", "under", "ships", "labels", "ghosts", "targets", "numbers"]) this.layers[name].replaceChildren();
    // The island under the pointer keeps showing its fills, as they now are.
    const hovered = this.layers.fills.dataset.hex?.split(",").map(Number);
    this.hideFills();
    this.layouts.clear();
    this.labelOf = new Map();
    this.dangerSpots = [];
    this.marks = options.marks ?? { tiles: new Set(), ships: new Map() };
    const fresh = new Set();
    for (const placed of view?.tiles ?? []) {
      const [q, r] = hexOf(placed.at);
      const key = `${q},${r},${placed.tile}`;
      if (this.known.size && !this.known.has(key)) fresh.add(key);
      this.drawTile(q, r, placed.tile, placed.rot ?? 0, fresh.has(key));
    }
    const now = new Set((view?.tiles ?? []).map((p) => `${hexOf(p.at).join(",")},${p.tile}`));
    if (options.arrive !== undefined) this.fadeRemoved(before, now);
    this.known = now;
    const arrivals = options.arrive !== undefined ? newShips(before, view) : new Map();
    let order = 0;
    for (const beach of view?.beaches ?? []) order = this.drawShips(beach, arrivals, options.arrive ?? 0, order);
    // The ship a pick takes back to the supply, shown leaving.
    if (options.taking) {
      const { beach, colour } = options.taking;
      const leaving = [...this.layers.ships.querySelectorAll(`[data-beach="${beach}"].ship-${colour}`)].at(-1);
      leaving?.classList.add("taking");
      leaving?.setAttribute("data-taking", "1");
    }
    this.drawCounts(view);
    for (const royal of view?.royal ?? []) this.drawMask(royal);
    const decision = view?.decision;
    if (kindOf(decision) === "land" && decision.island) {
      this.drawGroup(decision, options.ghosts ?? []);
      // The island landed on steps back (its name is known from the decision): its
      // beaches' numbers and fills read clearly over it.
      if (picker) this.labelOf.get(hexOf(decision.island).join(","))?.classList.add("behind");
    }
    this.ghosts = options.ghosts ?? [];
    for (const ghost of this.ghosts) this.drawGhost(ghost);
    // A royal island being founded: its mask, as it will stand.
    if (options.royal) this.drawMask(options.royal, true);
    if (options.path) this.drawPath(options.path);
    // A picked open end: the new tile's place, dashed.
    if (options.slot) el("polygon", { points: corners(...options.slot, SIZE * 0.94), class: "slot-ghost", "data-testid": "slot-ghost" }, this.layers.ghosts);
    if (!picker) {
      if (hovered) this.showFills(...hovered);
      this.camera.settle(view);
      this.edges?.update();
      return;
    }
    // Where each target of this decision was drawn, so that a pick's place answers again.
    const key = options.decisionKey ?? decision;
    if (key !== this.spotsFor) {
      this.spotsFor = key;
      this.spots = new Map();
    }
    this.drawTargets(picker);
    // Framed once per decision, and again after a pick whose targets are too close
    // together at this zoom; the targets are drawn again for the new scale.
    const crowded = (scale) => this.crowded(scale);
    const framed = this.camera.decide(key, this.targetBounds(), crowded, kindOf(decision) === "land", this.targetPoints());
    if (framed || (picker.picks.length && this.camera.refine(`${key}|${picker.picks.join(" ")}`, this.targetBounds(), crowded))) {
      this.layers.targets.replaceChildren();
      this.layers.under.replaceChildren();
      this.layers.numbers.replaceChildren();
      this.drawTargets(picker);
    }
    this.drawConfirmSpots(options.confirmKeys ?? []);
    if (hovered) this.showFills(...hovered);
    this.edges?.update();
  }

  // Chips at the board's edge point to what changed, and to targets, out of sight (edges.js).
  pointOutOfSight() {
    this.edges ??= new Edges(this);
  }

  // A complete choice: each pick's place, clicked or tapped again, confirms it
  // (the ghosts layer answers "confirm"; targets still offered lie above it).
  drawConfirmSpots(keys) {
    for (const key of keys) {
      const spot = this.spots.get(key);
      if (!spot) continue;
      // Under the previewed ships (which confirm too, and are seen).
      const hit = el("circle", { cx: spot.x, cy: spot.y, r: spot.r, class: "confirm-hit", "data-testid": "confirm-spot" }, null);
      hit.dataset.r = String(spot.r);
      this.layers.ghosts.prepend(hit);
    }
    this.sizeConfirmSpots();
  }

  sizeConfirmSpots() {
    this.fingerSized(this.layers.ghosts.querySelectorAll(".confirm-hit"));
  }

  // Hit areas of at least 22 px radius (44 px targets) at the view's scale, each at
  // least its own drawn size (data-r).
  fingerSized(hits) {
    const least = 22 / this.scale();
    for (const hit of hits) hit.setAttribute("r", Math.max(Number(hit.dataset.r), least));
  }

  // Tiles of the last board that are gone (R11 removed them) fade out.
  fadeRemoved(before, now) {
    for (const placed of before?.tiles ?? []) {
      const [q, r] = hexOf(placed.at);
      if (now.has(`${q},${r},${placed.tile}`)) continue;
      const ghost = el("g", { class: "tile leaving", "data-testid": "leaving" }, this.layers.voyage);
      el("polygon", { points: corners(q, r), class: "hex" }, ghost);
      el("circle", { cx: centre(q, r).x, cy: centre(q, r).y, r: SIZE * 0.42, class: "sand" }, ghost);
      setTimeout(() => ghost.remove(), 1200);
    }
  }

  drawTile(q, r, id, rot, fresh) {
    const info = tile(id);
    const c = centre(q, r);
    const changed = this.marks.tiles.has(`${q},${r}`);
    const g = el("g", {
      class: `tile tile-${info?.kind ?? "unknown"}${fresh ? " fresh" : ""}${changed ? " changed" : ""}`,
      "data-testid": "tile",
      "data-tile": id,
      "data-hex": `${q},${r}`,
    }, this.layers.tiles);
    el("polygon", { points: corners(q, r), class: "hex" }, g);
    if (!info) return;
    if (info.kind === "sea") {
      for (const [a, b, danger] of info.paths) {
        const da = (a + rot) % 6;
        const db = (b + rot) % 6;
        const pa = towards(q, r, da);
        const pb = towards(q, r, db);
        const ctl = curveControl(pa, pb, c);
        el("path", { d: `M${pa.x},${pa.y}Q${ctl.x},${ctl.y} ${pb.x},${pb.y}`, class: "foam" }, g);
        if (danger) {
          // On its own path, at the first point along it that keeps clear of the
          // numbers placed so far, never at its middle (where paths cross, and
          // where a diameter passes the tile's centre): never stacked at crossings.
          const along = (f) => ({
            x: (1 - f) ** 2 * pa.x + 2 * f * (1 - f) * ctl.x + f * f * pb.x,
            y: (1 - f) ** 2 * pa.y + 2 * f * (1 - f) * ctl.y + f * f * pb.y,
          });
          const clearance = (p) => Math.min(Infinity, ...this.dangerSpots.map((o) => Math.hypot(o.x - p.x, o.y - p.y)));
          const spots = [0.3, 0.7, 0.2, 0.8, 0.38, 0.62, 0.12, 0.88].map(along);
          const m = spots.find((p) => clearance(p) >= 62) ?? spots.reduce((a, b) => (clearance(b) > clearance(a) ? b : a));
          this.dangerSpots.push(m);
          const label = growing(m.x, m.y, this.layers.dangers, { class: "danger-label", "data-hex": `${q},${r}` });
          el("circle", { r: 11, class: "danger" }, label);
          const text = el("text", { class: "danger-number" }, label);
          text.textContent = String(danger);
        }
      }
      return;
    }
    el("circle", { cx: c.x, cy: c.y, r: SIZE * 0.42, class: "sand" }, g);
    el("circle", { cx: c.x, cy: c.y, r: SIZE * 0.3, class: "land" }, g);
    const layout = beachLayout(q, r, id, rot);
    this.layouts.set(`${q},${r}`, layout);
    for (const beach of layout) {
      for (const dir of beach.dirs) {
        const from = polar(c, beach.angle, SIZE * 0.47);
        const to = towards(q, r, dir, 0.97);
        el("line", { x1: from.x, y1: from.y, x2: to.x, y2: to.y, class: "jetty" }, g);
      }
      el("path", { d: arcPath(beach.slots), class: "beach" }, g);
      for (const slot of beach.slots) {
        el("circle", { cx: slot.x, cy: slot.y, r: 7.5, class: "mooring" }, g);
      }
    }
    const label = growing(c.x, c.y, this.layers.labels, { class: "island-label", "data-hex": `${q},${r}` });
    this.labelOf.set(`${q},${r}`, label);
    const name = el("text", { y: -6, class: "island-name" }, label);
    name.textContent = tileName(id);
    const points = el("text", { y: 14, class: "island-points" }, label);
    points.textContent = tn("board.points", info.points);
    // Farthest out, only the points in a badge (and the holder's mask beside it).
    const badge = el("g", { class: "points-badge" }, label);
    el("circle", { cx: -12, r: 11 }, badge);
    const number = el("text", { x: -12, class: "badge-number" }, badge);
    number.textContent = String(info.points);
  }

  // The ships of one beach; new ones (`arrivals`) land one by one, `stagger` ms apart.
  drawShips(entry, arrivals = new Map(), stagger = 0, order = 0) {
    const [q, r] = hexOf(entry.beach);
    const key = `${q},${r},${entry.beach.index ?? 0}`;
    const layout = this.layouts.get(`${q},${r}`);
    const beach = layout?.[entry.beach.index ?? 0];
    if (!beach) return order;
    const colours = entry.colours ?? [];
    colours.forEach((value, i) => {
      const slot = beach.slots[i] ?? beach.anchor;
      const colour = colourName(value);
      const id = `${key}|${colour}`;
      // The last ships of a colour on a beach are the ones that came.
      const later = colours.slice(i + 1).filter((c) => colourName(c) === colour).length;
      const isNew = later < (arrivals.get(id) ?? 0);
      const isMarked = later < (this.marks.ships.get(id) ?? 0);
      const ship = shipPath(colour, slot.x, slot.y, 8, this.layers.ships, {
        "data-testid": "ship",
        "data-beach": key,
        class: `ship ship-${colour}${isMarked ? " changed" : ""}${isNew ? " arriving" : ""}`,
      });
      if (isNew) {
        ship.style.animationDelay = `${order * stagger}ms`;
        order += 1;
      }
      const title = el("title", {}, ship);
      title.textContent = td(`colour.${colour}`);
    });
    return order;
  }

  // Far out, an island's ships as one ship and a number per colour, in a row
  // under its points (shown only when the view is wide).
  drawCounts(view) {
    const islands = new Map();
    for (const entry of view?.beaches ?? []) {
      const key = hexOf(entry.beach).join(",");
      const counts = islands.get(key) ?? new Map();
      for (const value of entry.colours ?? []) counts.set(colourName(value), (counts.get(colourName(value)) ?? 0) + 1);
      islands.set(key, counts);
    }
    for (const [key, counts] of islands) {
      const label = this.labelOf.get(key);
      if (!label || !counts.size) continue;
      const g = el("g", { class: "counts", "data-hex": key, "data-testid": "counts" }, label);
      [...counts].forEach(([colour, n], i) => {
        const x = (i - (counts.size - 1) / 2) * 28;
        el("rect", { x: x - 13, y: 22, width: 26, height: 18, rx: 4, class: "count-bg" }, g);
        shipPath(colour, x - 5, 31, 5, g);
        const text = el("text", { x: x + 6, y: 31, class: "count-number" }, g);
        text.textContent = String(n);
      });
    }
  }

  // How many ships lie on beach "q,r,b" of the board shown.
  shipsOn(key) {
    return (this.view?.beaches ?? []).find((x) => beachKey(x.beach) === key)?.colours?.length ?? 0;
  }

  // A ship that the choice being made would place: drawn after the beach's ships.
  drawGhost(ghost) {
    const [q, r, b] = ghost.beach.split(",").map(Number);
    const beach = this.layouts.get(`${q},${r}`)?.[b];
    if (!beach) return;
    const taken = this.shipsOn(ghost.beach) + (ghost.slot ?? 0);
    const slot = beach.slots[taken] ?? beach.anchor;
    shipPath(ghost.colour, slot.x, slot.y, 8, this.layers.ghosts, { class: `ship ghost ship-${ghost.colour}`, "data-testid": "ghost" });
  }

  // A voyage preview: the route over known sea tiles, each danger against the colours sailing.
  drawPath(path) {
    const g = el("g", { class: "preview-path", "data-testid": "path" }, this.layers.ghosts);
    el("path", { d: arcPath(path.points), class: "path-line" }, g);
    for (const step of path.steps) {
      const ok = step.danger <= path.colours;
      const label = growing(step.at.x, step.at.y, g, { class: `path-danger ${ok ? "safe" : "fails"}`, "data-testid": "path-danger" });
      el("circle", { r: 17 }, label);
      const text = el("text", { class: "path-label" }, label);
      text.textContent = `${step.danger}/${path.colours}`;
    }
  }

  drawMask(royal, preview = false) {
    const [q, r] = hexOf(royal.island);
    const c = centre(q, r);
    const colour = colourName(royal.colour);
    // In the lower part of the island, where its crown was picked (app.css moves it
    // over the name when the view is wide, where the counts take that place); it
    // grows with the name: who holds it reads from afar.
    const g = el("g", { class: preview ? "royal royal-ghost" : "royal", "data-testid": preview ? "royal-ghost" : "royal", "data-colour": colour },
      this.labelOf.get(`${q},${r}`) ?? growing(c.x, c.y, this.layers.labels));
    el("path", { d: "M-14,24h28v8q0,14-14,18q-14,-4-14,-18z", fill: FILL[colour], class: "mask" }, g);
    shipPath(colour, 0, 34, 4.5, g, { class: "mask-mark" });
    const title = el("title", {}, g);
    title.textContent = t("board.royal", { player: player(royal.colour) });
  }

  // The group waiting to land, less the ships already placed in the landing being arranged.
  drawGroup(decision, ghosts = []) {
    const [q, r] = hexOf(decision.island);
    const c = centre(q, r);
    const group = [...(decision.group ?? [])];
    for (const ghost of ghosts) {
      const i = group.findIndex((v) => colourName(v) === ghost.colour);
      if (i >= 0) group.splice(i, 1);
    }
    const g = el("g", { class: "waiting-group", "data-testid": "group" }, this.layers.ships);
    group.forEach((value, i) => {
      const x = c.x + (i - (group.length - 1) / 2) * 15;
      shipPath(colourName(value), x, c.y - 30, 6, g);
    });
  }

  // Outline `hexes` ("where this happened"), bringing them into view a moment;
  // no hexes: the outline goes and the view returns.
  spot(hexes) {
    this.layers.spot.replaceChildren();
    for (const [q, r] of hexes) el("polygon", { points: corners(q, r, SIZE * 0.92), class: "spot", "data-testid": "spot" }, this.layers.spot);
    if (hexes.length) this.camera.peek(hexes);
    // Left for the board itself: the view stays where it is (nothing moves under a
    // pointer about to click); left elsewhere, it goes back.
    else if (this.svg.matches(":hover")) this.camera.peeked = null;
    else this.camera.back();
  }

  // ------------------------------------------------------------------ targets

  drawTargets(picker) {
    const decision = picker.decision;
    const labelled = new Set();
    // Crowns last: over the island they stand on.
    const crown = (key) => (key.startsWith("royal:") ? 1 : 0);
    for (const key of [...picker.targets().keys()].sort((a, b) => crown(a) - crown(b))) {
      const [type, rest] = [key.split(":")[0], key.slice(key.indexOf(":") + 1)];
      let node = null;
      if (["beach", "tonga", "single", "take"].includes(type)) {
        const [q, r, b] = rest.split(",").map(Number);
        const beach = this.layouts.get(`${q},${r}`)?.[b];
        if (!beach) continue;
        node = el("g", { class: `target target-beach target-${type}` });
        el("path", { d: arcPath(beach.slots), class: `target-arc target-${type}`, "data-key": key }, this.layers.under);
        // The whole beach answers a click; a disc out from it keeps 44 px when far out.
        el("path", { d: arcPath(beach.slots), class: "target-hit-arc" }, node);
        const at = polar(centre(q, r), beach.angle, SIZE * 0.64);
        el("circle", { cx: at.x, cy: at.y, r: 13, class: "target-hit" }, node);
        // The label out beyond the moorings, off the ships.
        this.beachLabel(q, r, b, polar(centre(q, r), beach.angle, SIZE * 0.9));
      } else if (type === "island" || type === "royal") {
        const [q, r] = rest.split(",").map(Number);
        const c = centre(q, r);
        // A ring around the island, so that its name stays readable.
        node = type === "island"
          ? el("g", { class: "target target-island" })
          : el("g", { class: "target target-royal" });
        if (type === "island") {
          el("circle", { cx: c.x, cy: c.y, r: SIZE * 0.36, class: "target-ring" }, node);
          el("circle", { cx: c.x, cy: c.y, r: SIZE * 0.3, class: "target-hit" }, node);
          // The whole island inside the ring answers too (the disc at its centre may
          // shrink beside a crown, which is drawn over it).
          el("circle", { cx: c.x, cy: c.y, r: SIZE * 0.29, class: "target-hit-ring" }, node);
        } else {
          // In the lower part of the island, where its mask will stand; the island's
          // ship counts there (far out) step back so that it is seen.
          this.labelOf.get(`${q},${r}`)?.querySelector(".counts")?.classList.add("behind");
          el("path", { d: `M${c.x - 14},${c.y + 36}l4,-14l10,8l10,-8l4,14z`, class: "target-crown" }, node);
          el("circle", { cx: c.x, cy: c.y + 30, r: 16, class: "target-hit" }, node);
        }
      } else if (type === "jetty") {
        const [q, r, , d] = rest.split(",").map(Number);
        // Out at the jetty's end, off the ships on its beach.
        const p = towards(q, r, d, 0.95);
        node = el("g", { class: "target target-jetty" });
        el("circle", { cx: p.x, cy: p.y, r: 13, class: "target-dot" }, node);
        el("circle", { cx: p.x, cy: p.y, r: 13, class: "target-hit" }, node);
      } else if (type === "end") {
        const [q, r, d] = rest.split(",").map(Number);
        const p = towards(q, r, d, 1.35);
        node = el("g", { class: "target target-end" });
        el("circle", { cx: p.x, cy: p.y, r: 18, class: "target-dot" }, node);
        el("circle", { cx: p.x, cy: p.y, r: 18, class: "target-hit" }, node);
        const plus = el("text", { x: p.x, y: p.y, class: "target-label" }, node);
        plus.textContent = "+";
      } else if (type === "land" && rest !== "none") {
        const [b, colour] = rest.split(":");
        const [q, r] = hexOf(decision.island);
        const beach = this.layouts.get(`${q},${r}`)?.[Number(b)];
        if (!beach) continue;
        // The beach's number and fill, once, on the island (its name stepped back).
        if (!labelled.has(b)) {
          labelled.add(b);
          this.beachLabel(q, r, Number(b), polar(centre(q, r), beach.angle, SIZE * 0.4));
        }
        // Each colour keeps its place (the group's order) while ships are placed.
        const colours = [...new Set((decision.group ?? []).map(colourName))];
        // A beach's colours side by side off its moorings, a finger's width apart at
        // this zoom, or closer where the beach's side of the tile is narrower (the
        // camera then frames them closer: crowded()); only where even that does not
        // fit, in a row out to sea.
        const i = colours.indexOf(colour);
        const radius = SIZE * 0.74;
        const step = Math.max(24, 47 / this.scale());
        const layout = this.layouts.get(`${q},${r}`) ?? [];
        // Every beach a ship of the group may land on, picked yet or not: the
        // markers keep their places while the ships are placed one by one.
        const landing = new Set(picker.options.flatMap((o) => o.stages.flat())
          .filter((k) => k.startsWith("land:") && k !== "land:none").map((k) => k.split(":")[1]));
        const gap = Math.min(2 * Math.PI, ...layout.filter((o) => o !== beach && landing.has(String(o.index)))
          .map((o) => Math.abs(((o.angle - beach.angle + 3 * Math.PI) % (2 * Math.PI)) - Math.PI)));
        // The turn between two colours a step apart; the next beach with colours to
        // place needs as much room, and the row keeps within 45° of its beach.
        const turnFor = (chord) => (chord < 2 * radius ? 2 * Math.asin(chord / (2 * radius)) : Infinity);
        const room = Math.min(gap / colours.length, colours.length > 1 ? Math.PI / 2 / (colours.length - 1) : Infinity);
        const turn = Math.max(Math.min(turnFor(step), room), turnFor(18));
        const p = colours.length * turn <= gap + 1e-6 && (colours.length - 1) * turn <= Math.PI / 2 + 1e-6
          ? polar(centre(q, r), beach.angle + (i - (colours.length - 1) / 2) * turn, radius)
          : polar(centre(q, r), beach.angle, radius + i * step);
        node = el("g", { class: "target target-land" });
        el("circle", { cx: p.x, cy: p.y, r: 10.5, class: "target-dot" }, node);
        shipPath(colour, p.x, p.y, 6, node);
        el("circle", { cx: p.x, cy: p.y, r: 10.5, class: "target-hit" }, node);
      }
      if (!node) continue;
      node.setAttribute("data-testid", "target");
      node.setAttribute("data-key", key);
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
      const title = el("title", {}, node);
      title.textContent = td(`target.${type}`);
      node.addEventListener("click", (event) => {
        event.stopPropagation();
        this.onPick(key);
      });
      node.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          this.onPick(key);
        }
      });
      this.layers.targets.appendChild(node);
      const hit = node.querySelector(".target-hit");
      if (hit) this.spots.set(key, { x: Number(hit.getAttribute("cx")), y: Number(hit.getAttribute("cy")), r: Number(hit.getAttribute("r")) });
    }
    for (const hit of this.layers.targets.querySelectorAll(".target-hit, .target-dot")) hit.dataset.r = hit.getAttribute("r");
    this.sizeHits();
  }

  // A beach's number and how full it is ("2/3": ships on it or being put there,
  // moorings), over the islands' names (which grow when the view is wide): never
  // hidden by one.
  beachLabel(q, r, b, at, layer = this.layers.numbers) {
    const beach = this.layouts.get(`${q},${r}`)?.[b];
    const key = `${q},${r},${b}`;
    const g = growing(at.x, at.y, layer, { "data-testid": "beach-label", "data-of": key });
    const number = el("text", { class: "target-label beach-number", "data-testid": "beach-number" }, g);
    number.textContent = String(b + 1);
    const fill = el("text", { y: 15, class: "target-label beach-fill", "data-testid": "beach-fill" }, g);
    // The ships on it now, and those the choice being made puts there.
    const pending = (this.ghosts ?? []).filter((ghost) => ghost.beach === key).length;
    fill.textContent = `${this.shipsOn(key) + pending}/${beach?.slots.length ?? 0}`;
  }

  // An island's beaches, their numbers and how full they are, while the pointer is
  // over it (or after a tap on it), where no choice shows them already.
  showFills(q, r) {
    const layer = this.layers.fills;
    const key = `${q},${r}`;
    if (layer.dataset.hex === key) return;
    this.hideFills();
    const beaches = this.layouts.get(key);
    if (!beaches || this.layers.numbers.querySelector(`[data-of^="${key},"]`)) return;
    layer.dataset.hex = key;
    beaches.forEach((beach, b) => this.beachLabel(q, r, b, polar(centre(q, r), beach.angle, SIZE * 0.9), layer));
  }

  // The beach of the island at (q, r) that a board point lies by (its moorings' side,
  // off the island's land), or null.
  beachAt(q, r, p) {
    const c = centre(q, r);
    const beaches = this.layouts.get(`${q},${r}`);
    if (!beaches || Math.hypot(p.x - c.x, p.y - c.y) < SIZE * 0.4) return null;
    const angle = Math.atan2(p.y - c.y, p.x - c.x);
    const off = (b) => Math.abs(((b.angle - angle + 3 * Math.PI) % (2 * Math.PI)) - Math.PI);
    const best = beaches.reduce((a, b, i) => (a === null || off(b) < off(beaches[a]) ? i : a), null);
    return best !== null && off(beaches[best]) < Math.PI / 4 ? best : null;
  }

  hideFills() {
    this.layers.fills.replaceChildren();
    delete this.layers.fills.dataset.hex;
  }

  // Targets' hit areas a finger's size, apart from their neighbours'.
  sizeHits() {
    this.fingerSized(this.layers.targets.querySelectorAll(".target-hit"));
    this.separateHits();
    this.sizeConfirmSpots();
    // A dot is seen at a fingertip's size (26 px) where its hit area has the room, and
    // never beyond its hit area: where it is seen, it is what a click picks.
    for (const dot of this.layers.targets.querySelectorAll(".target-dot")) {
      const hit = Number(dot.parentNode.querySelector(".target-hit")?.getAttribute("r") ?? 0);
      dot.setAttribute("r", Math.min(hit, Math.max(Number(dot.dataset.r), 13 / this.scale())));
    }
  }

  // The box around the targets (their hit areas and labels), in board units.
  targetBounds() {
    const nodes = [...this.layers.targets.querySelectorAll(".target-hit, .target-label"), ...this.layers.numbers.children];
    nodes.push(...this.layers.under.querySelectorAll(".target-arc"));
    if (!nodes.length) return null;
    const boxes = nodes.map((n) => n.getBBox());
    const x = Math.min(...boxes.map((b) => b.x));
    const y = Math.min(...boxes.map((b) => b.y));
    return { x, y, w: Math.max(...boxes.map((b) => b.x + b.width)) - x, h: Math.max(...boxes.map((b) => b.y + b.height)) - y };
  }

  // Targets closer together than a finger (or a mouse pointer) at this zoom, or, on a
  // touch screen, beaches to pick where ships show only as counts per island.
  crowded(scale = this.scale()) {
    const finger = window.matchMedia?.("(pointer: coarse)").matches;
    if (finger && scale < WIDE && this.layers.targets.querySelector(".target-beach, .target-land")) return true;
    const points = this.targetPoints();
    // Ships to place one by one are a finger's width apart with a mouse too.
    const least = finger || this.layers.targets.querySelector(".target-land") ? FINGER : POINTER;
    // A crown lies over its island's ring by design (each answers on its own part).
    const apart = (a, b) => a[2] !== b[2] && Math.abs(a[0] - b[0]) < 1 && [a[2], b[2]].includes("royal");
    return points.some((a, i) => points.slice(i + 1).some((b) => !apart(a, b) && Math.hypot(a[0] - b[0], a[1] - b[1]) * scale < least));
  }

  // Each target's place: [x, y, its kind ("island", "royal", "beach"...)].
  targetPoints() {
    return [...this.layers.targets.querySelectorAll(".target-hit")].map((n) => [
      Number(n.getAttribute("cx")), Number(n.getAttribute("cy")), n.parentNode.classList[1]?.slice(7) ?? "",
    ]);
  }

  // Hit areas grow to a finger's size, but never over a neighbour's: where two
  // targets lie close (a landing's colours on one beach), each keeps its half.
  separateHits() {
    const hits = [...this.layers.targets.querySelectorAll(".target-hit")].map((node) => ({
      node, x: Number(node.getAttribute("cx")), y: Number(node.getAttribute("cy")),
    }));
    // Every target this decision has shown, picked ones too: a target keeps its
    // size while its neighbours are picked one by one.
    const near = [...hits, ...[...this.spots.values()].map(({ x, y }) => ({ x, y }))];
    for (const a of hits) {
      let r = Number(a.node.getAttribute("r"));
      for (const b of near) {
        if (a === b) continue;
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        if (d > 0) r = Math.min(r, d / 2 - 0.5);
      }
      a.node.setAttribute("r", Math.max(r, 1));
    }
  }

  // ------------------------------------------------------------------ voyages

  // Animate the group of an entry's events along its route over the board as it
  // was (the server's view after the entry is drawn once it is done); a failed
  // voyage turns back. Resolves when done; `speed` scales the time (0: no animation).
  play(events, speed = 1) {
    if (!speed) return Promise.resolve();
    return new Promise((resolve) => this.animate(events, speed, resolve));
  }

  animate(events, speed = 1, done = () => {}) {
    const points = [];
    const route = entryHexes({ events }).map((x) => x.join(","));
    let from = "";
    let group = [];
    let failed = false;
    for (const event of events ?? []) {
      const kind = Object.keys(event)[0];
      const e = event[kind];
      if (kind === "emigrated") {
        const [q, r] = hexOf(e.beach);
        // The whole beach sailed (R6): its ships are at sea, not on it.
        const key = `${q},${r},${e.beach.index ?? 0}`;
        from = key;
        for (const node of this.svg.querySelectorAll(`[data-beach="${key}"]`)) node.classList.add("sailing");
        group = (e.group ?? []).map(colourName);
        points.push(polar(centre(q, r), 0, 0), towards(q, r, e.dir ?? 0));
      } else if (kind === "sea_crossed" || kind === "voyage_failed") {
        const [q, r] = hexOf(e.at);
        const a = towards(q, r, e.enter ?? 0);
        const b = towards(q, r, e.exit ?? 0);
        points.push(a, curveControl(a, b, centre(q, r)));
        if (kind === "voyage_failed") {
          // Into the dangerous tile, then back the way it came.
          const back = points.slice(0, -1).reverse();
          points.push(centre(q, r), a, ...back);
          failed = true;
        } else {
          points.push(b);
        }
      } else if (kind === "bounced") {
        const [q, r] = hexOf(e.at);
        const [bq, br] = hexOf(e.back_to);
        points.push(centre(q, r), centre(bq, br));
      } else if (kind === "stranded") {
        const [q, r] = hexOf(e.at);
        points.push(centre(q, r));
      } else if (kind === "landed" && points.length) {
        const [q, r] = hexOf(e.island);
        points.push(centre(q, r));
      }
    }
    if (points.length < 2 || !group.length) {
      done();
      return;
    }
    const layer = this.layers.voyage;
    layer.querySelectorAll("[data-testid=voyage]").forEach((n) => n.remove());
    const g = el("g", { class: `voyage${failed ? " failed" : ""}`, "data-testid": "voyage", "data-route": route.join(" "), "data-from": from }, layer);
    group.forEach((colour, i) => shipPath(colour, (i - (group.length - 1) / 2) * 12, 0, 5.5, g));
    const lengths = [0];
    for (let i = 1; i < points.length; i += 1) {
      lengths.push(lengths[i - 1] + Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y));
    }
    const total = lengths[lengths.length - 1] || 1;
    const duration = Math.min(2400, 400 + total * 2.5) / speed;
    const start = performance.now();
    const step = (now) => {
      const f = Math.min(1, (now - start) / duration);
      const d = f * total;
      let i = 1;
      while (i < lengths.length - 1 && lengths[i] < d) i += 1;
      const seg = (d - lengths[i - 1]) / ((lengths[i] - lengths[i - 1]) || 1);
      const x = points[i - 1].x + (points[i].x - points[i - 1].x) * seg;
      const y = points[i - 1].y + (points[i].y - points[i - 1].y) * seg;
      g.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
      if (failed) g.classList.toggle("returning", d > total / 2);
      if (f < 1) requestAnimationFrame(step);
      else {
        setTimeout(() => g.remove(), 400);
        done();
      }
    };
    requestAnimationFrame(step);
  }

  // ------------------------------------------------------------------ pan and zoom

  // The box is shown centred in the board's part between `top` (the strip a phone's
  // players button covers) and `reserve` (the strip a docked decision may cover);
  // the board goes on under those strips.
  applyBox() {
    const width = this.svg.clientWidth || 600;
    const height = this.svg.clientHeight || 600;
    const k = 1 / this.scale(this.box);
    const w = width * k;
    const h = height * k;
    const x = this.box.x + this.box.w / 2 - w / 2;
    const y = this.box.y + this.box.h / 2 - (this.top + this.seen() / 2) * k;
    this.svg.setAttribute("viewBox", `${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
    // The level of detail follows the zoom shown.
    const scale = this.scale(this.box);
    this.svg.style.setProperty("--k", String(Math.max(1, READABLE / scale).toFixed(3)));
    this.svg.classList.toggle("wide", scale < WIDE);
    this.svg.classList.toggle("far", scale < FAR);
    if (this.layers.targets.firstChild) this.sizeHits();
    if (!this.glide) this.edges?.update();
  }

  // Glide from the box shown to `box` in `ms`; resolves when there (at once if 0).
  moveTo(box, ms = 0) {
    this.goal = box;
    this.framed = true;
    const from = { ...this.box };
    this.glide?.();
    if (!ms) {
      this.box = { ...box };
      this.applyBox();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const start = performance.now();
      let frame = null;
      const finish = () => {
        cancelAnimationFrame(frame);
        this.glide = null;
        this.edges?.update();
        resolve();
      };
      this.glide = finish;
      const step = (now) => {
        const f = Math.min(1, (now - start) / ms);
        const e = f * f * (3 - 2 * f);
        this.box = Object.fromEntries(Object.keys(box).map((k) => [k, from[k] + (box[k] - from[k]) * e]));
        this.applyBox();
        if (f < 1) frame = requestAnimationFrame(step);
        else finish();
      };
      frame = requestAnimationFrame(step);
    });
  }

  // The screen's shape (width over height).
  aspect() {
    return (this.svg.clientWidth || 600) / this.seen();
  }

  // The height of the board not under a docked decision or a phone's players button (CSS px).
  seen() {
    return Math.max((this.svg.clientHeight || 600) - this.reserve - this.top, 100);
  }

  // Every tile and the hexes around them, shaped like the screen.
  // The board's tiles and a strip of sea around them (room for the "+" of an open
  // end and the labels), in the screen's shape.
  wholeBox() {
    const xs = [];
    const ys = [];
    for (const placed of this.view?.tiles ?? []) {
      const c = centre(...hexOf(placed.at));
      xs.push(c.x);
      ys.push(c.y);
    }
    if (!xs.length) xs.push(0) && ys.push(0);
    const margin = SIZE * 0.6;
    const x0 = Math.min(...xs) - SIZE - margin;
    const y0 = Math.min(...ys) - APOTHEM - margin;
    let w = Math.max(...xs) + SIZE + margin - x0;
    let h = Math.max(...ys) + APOTHEM + margin - y0;
    const [cx, cy] = [x0 + w / 2, y0 + h / 2];
    if (w / h < this.aspect()) w = h * this.aspect();
    else h = w / this.aspect();
    // A small board is shown large, but no larger than WHOLE_MOST pixels a unit.
    const least = (this.svg.clientWidth || 600) / WHOLE_MOST;
    if (w < least) [w, h] = [least, (least * h) / w];
    return { x: cx - w / 2, y: cy - h / 2, w, h };
  }

  fit() {
    this.moveTo(this.wholeBox(), 0);
  }

  // Pixels per board unit in `box` (by default where the view is going).
  scale(box = this.goal) {
    return Math.min((this.svg.clientWidth || 600) / box.w, this.seen() / box.h);
  }

  zoom(factor, at = null) {
    const p = at ?? { x: this.box.x + this.box.w / 2, y: this.box.y + this.box.h / 2 };
    // No closer than a hex, no farther than half again the whole board.
    const w = Math.min(Math.max(this.box.w * factor, 150), Math.max(this.wholeBox().w * 1.5, 1200));
    const f = w / this.box.w;
    this.camera.hold();
    this.moveTo({ x: p.x - (p.x - this.box.x) * f, y: p.y - (p.y - this.box.y) * f, w, h: this.box.h * f }, 0);
  }

  // The zoom buttons: closer around the targets of the decision (they stay where
  // they are on screen when in sight, else they are brought to the middle), else
  // around the view's centre.
  zoomStep(factor) {
    const b = factor < 1 ? this.targetBounds() : null;
    const c = b && { x: b.x + b.w / 2, y: b.y + b.h / 2 };
    const seen = c && c.x > this.box.x && c.x < this.box.x + this.box.w && c.y > this.box.y && c.y < this.box.y + this.box.h;
    if (c && !seen) this.moveTo(this.camera.centred(this.box, b), 0);
    this.zoom(factor, c);
  }

  toBoard(clientX, clientY) {
    const m = this.svg.getScreenCTM();
    if (!m) return { x: 0, y: 0 };
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  installPanZoom() {
    const pointers = new Map();
    let last = null;
    this.svg.addEventListener("wheel", (event) => {
      // A diagram on a page that scrolls (the how-to) zooms only with Ctrl held.
      if (this.container.closest?.(".diagram-board") && !event.ctrlKey) return;
      event.preventDefault();
      // As far as the wheel turned (a notch is about 100: a quarter closer or farther).
      const turned = Math.max(-4, Math.min(4, (event.deltaMode === 1 ? 33 : 1) * event.deltaY / 100));
      this.zoom(1.25 ** turned, this.toBoard(event.clientX, event.clientY));
    }, { passive: false });
    let moved = false;
    this.svg.addEventListener("pointerdown", (event) => {
      // A target, or the preview (which confirms), takes the click itself.
      if (event.target.closest?.(".target, .layer-ghosts")) return;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      this.svg.setPointerCapture(event.pointerId);
      last = null;
      moved = false;
    });
    // A click on the board that is no target (nor a drag): the hex it hit, to the page
    // (another island picked while a choice is under way starts that one instead).
    this.svg.addEventListener("click", (event) => {
      if (moved || event.target.closest?.(".target, .layer-ghosts")) return;
      const p = this.toBoard(event.clientX, event.clientY);
      const [q, r] = hexAt(p.x, p.y);
      // A tap on an island shows its beaches' fills (a pointer shows them on hover).
      if (event.pointerType !== "mouse") this.showFills(q, r);
      this.onHex?.(q, r, this.beachAt(q, r, p));
    });
    this.svg.addEventListener("pointermove", (event) => {
      if (event.pointerType !== "mouse" || pointers.size) return;
      const p = this.toBoard(event.clientX, event.clientY);
      this.showFills(...hexAt(p.x, p.y));
    });
    this.svg.addEventListener("pointerleave", () => this.hideFills());
    this.svg.addEventListener("pointermove", (event) => {
      if (!pointers.has(event.pointerId)) return;
      const before = pointers.get(event.pointerId);
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (pointers.size === 1) {
        const a = this.toBoard(before.x, before.y);
        const b = this.toBoard(event.clientX, event.clientY);
        if (a.x === b.x && a.y === b.y) return;
        moved = true;
        this.camera.hold();
        this.moveTo({ ...this.box, x: this.box.x - (b.x - a.x), y: this.box.y - (b.y - a.y) }, 0);
      } else if (pointers.size === 2) {
        const [p1, p2] = [...pointers.values()];
        const dist = Math.hypot(p1.x - p2.x, p1.y - p2.y);
        if (last) this.zoom(last / dist, this.toBoard((p1.x + p2.x) / 2, (p1.y + p2.y) / 2));
        last = dist;
      }
    });
    const up = (event) => {
      pointers.delete(event.pointerId);
      last = null;
    };
    this.svg.addEventListener("pointerup", up);
    this.svg.addEventListener("pointercancel", up);
  }
}
