// The board in SVG: tiles at their rotation, beaches with moorings and jetties,
// sea tiles with foam paths and danger numbers, ships, royal masks, the targets
// of the pending decision, voyages, pan and zoom. The SVG is a map: it is never
// mirrored, whatever the page's writing direction.

import {
  SIZE, APOTHEM, centre, corners, towards, polar, tile, beachLayout, neighbour,
} from "./geometry.js";
import { el, shipPath, colourName, FILL } from "./ships.js";
import { t, td, tn } from "./i18n.js";
import { player, tileName } from "./text.js";

const hexOf = (h) => [h?.q ?? 0, h?.r ?? 0];

function curveControl(a, b, c) {
  const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  return { x: c.x + (mid.x - c.x) * 0.35, y: c.y + (mid.y - c.y) * 0.35 };
}

function arcPath(points) {
  if (points.length === 1) return `M${points[0].x},${points[0].y}l0.1,0`;
  return points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join("");
}

export class Board {
  constructor(container, onPick) {
    this.onPick = onPick;
    this.container = container;
    this.svg = el("svg", {
      class: "board",
      "data-testid": "board",
      role: "img",
      "aria-label": t("board.label"),
      preserveAspectRatio: "xMidYMid meet",
    });
    this.layers = {};
    for (const name of ["tiles", "ships", "targets", "voyage"]) {
      this.layers[name] = el("g", { class: `layer-${name}` }, this.svg);
    }
    container.appendChild(this.svg);
    this.box = { x: -300, y: -300, w: 600, h: 600 };
    this.userMoved = false;
    this.known = new Set();
    this.layouts = new Map();
    this.installPanZoom();
    this.applyBox();
  }

  // ------------------------------------------------------------------ drawing

  render(view, picker) {
    this.view = view;
    const { tiles: tl, ships: sl, targets: gl } = this.layers;
    tl.replaceChildren();
    sl.replaceChildren();
    gl.replaceChildren();
    this.layouts.clear();
    const fresh = new Set();
    for (const placed of view?.tiles ?? []) {
      const [q, r] = hexOf(placed.at);
      const key = `${q},${r},${placed.tile}`;
      if (this.known.size && !this.known.has(key)) fresh.add(key);
      this.drawTile(q, r, placed.tile, placed.rot ?? 0, fresh.has(key));
    }
    this.known = new Set((view?.tiles ?? []).map((p) => `${hexOf(p.at).join(",")},${p.tile}`));
    for (const beach of view?.beaches ?? []) this.drawShips(beach);
    for (const royal of view?.royal ?? []) this.drawMask(royal);
    const decision = view?.decision;
    if (decision?.kind === "DECISION_KIND_LAND" && decision.island) this.drawGroup(decision);
    if (picker) this.drawTargets(picker);
    if (!this.userMoved) this.fit();
  }

  drawTile(q, r, id, rot, fresh) {
    const info = tile(id);
    const c = centre(q, r);
    const g = el("g", {
      class: `tile tile-${info?.kind ?? "unknown"}${fresh ? " fresh" : ""}`,
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
          const m = {
            x: 0.25 * pa.x + 0.5 * ctl.x + 0.25 * pb.x,
            y: 0.25 * pa.y + 0.5 * ctl.y + 0.25 * pb.y,
          };
          el("circle", { cx: m.x, cy: m.y, r: 11, class: "danger" }, g);
          const text = el("text", { x: m.x, y: m.y, class: "danger-number" }, g);
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
    const name = el("text", { x: c.x, y: c.y - 6, class: "island-name" }, g);
    name.textContent = tileName(id);
    const points = el("text", { x: c.x, y: c.y + 14, class: "island-points" }, g);
    points.textContent = tn("board.points", info.points);
  }

  drawShips(entry) {
    const [q, r] = hexOf(entry.beach);
    const layout = this.layouts.get(`${q},${r}`);
    const beach = layout?.[entry.beach.index ?? 0];
    if (!beach) return;
    (entry.colours ?? []).forEach((value, i) => {
      const slot = beach.slots[i] ?? beach.anchor;
      const colour = colourName(value);
      const ship = shipPath(colour, slot.x, slot.y, 6.5, this.layers.ships, {
        "data-testid": "ship",
        "data-beach": `${q},${r},${entry.beach.index ?? 0}`,
      });
      const title = el("title", {}, ship);
      title.textContent = td(`colour.${colour}`);
    });
  }

  drawMask(royal) {
    const [q, r] = hexOf(royal.island);
    const c = centre(q, r);
    const colour = colourName(royal.colour);
    const g = el("g", {
      class: "royal",
      "data-testid": "royal",
      "data-colour": colour,
      transform: `translate(${c.x},${c.y + 30})`,
    }, this.layers.ships);
    el("path", { d: "M-16,-12h32v9q0,16-16,21q-16,-5-16,-21z", fill: FILL[colour], class: "mask" }, g);
    shipPath(colour, 0, 0, 5, g, { class: "mask-mark" });
    const title = el("title", {}, g);
    title.textContent = t("board.royal", { player: player(royal.colour) });
  }

  drawGroup(decision) {
    const [q, r] = hexOf(decision.island);
    const c = centre(q, r);
    const group = decision.group ?? [];
    const g = el("g", { class: "waiting-group", "data-testid": "group" }, this.layers.ships);
    group.forEach((value, i) => {
      const x = c.x + (i - (group.length - 1) / 2) * 15;
      shipPath(colourName(value), x, c.y - 30, 6, g);
    });
  }

  // ------------------------------------------------------------------ targets

  drawTargets(picker) {
    const decision = picker.decision;
    for (const key of picker.targets().keys()) {
      const [type, rest] = [key.split(":")[0], key.slice(key.indexOf(":") + 1)];
      let node = null;
      if (["beach", "tonga", "single", "take"].includes(type)) {
        const [q, r, b] = rest.split(",").map(Number);
        const beach = this.layouts.get(`${q},${r}`)?.[b];
        if (!beach) continue;
        node = el("g", { class: `target target-beach target-${type}` });
        el("path", { d: arcPath(beach.slots), class: "target-arc" }, node);
        el("circle", { cx: beach.anchor.x, cy: beach.anchor.y, r: 13, class: "target-hit" }, node);
      } else if (type === "island" || type === "royal") {
        const [q, r] = rest.split(",").map(Number);
        const c = centre(q, r);
        node = type === "island"
          ? el("circle", { cx: c.x, cy: c.y - 4, r: SIZE * 0.2, class: "target target-island" })
          : el("path", {
            d: `M${c.x - 16},${c.y + 18}h32v9q0,16-16,21q-16,-5-16,-21z`, // the royal mask's outline
            class: "target target-royal",
          });
      } else if (type === "jetty") {
        const [q, r, , d] = rest.split(",").map(Number);
        const p = towards(q, r, d, 0.8);
        node = el("circle", { cx: p.x, cy: p.y, r: 13, class: "target target-jetty" });
      } else if (type === "end") {
        const [q, r, d] = rest.split(",").map(Number);
        const p = towards(q, r, d, 1.35);
        node = el("g", { class: "target target-end" });
        el("circle", { cx: p.x, cy: p.y, r: 18 }, node);
        const plus = el("text", { x: p.x, y: p.y, class: "target-label" }, node);
        plus.textContent = "+";
      } else if (type === "land" && rest !== "none") {
        const [b, colour] = rest.split(":");
        const [q, r] = hexOf(decision.island);
        const beach = this.layouts.get(`${q},${r}`)?.[Number(b)];
        if (!beach) continue;
        const colours = [...picker.targets().keys()]
          .filter((k) => k.startsWith(`land:${b}:`))
          .map((k) => k.split(":")[2]);
        const i = colours.indexOf(colour);
        const base = polar(centre(q, r), beach.angle, SIZE * 0.76);
        const spread = (i - (colours.length - 1) / 2) * 22;
        const p = { x: base.x - spread * Math.sin(beach.angle), y: base.y + spread * Math.cos(beach.angle) };
        node = el("g", { class: "target target-land" });
        el("circle", { cx: p.x, cy: p.y, r: 10.5 }, node);
        shipPath(colour, p.x, p.y, 6, node);
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
    }
  }

  // ------------------------------------------------------------------ voyages

  // Animate the group of an entry's events along its route (decorative; the
  // board underneath is already the server's view after the entry).
  animate(events) {
    const points = [];
    let group = [];
    let failed = false;
    for (const event of events ?? []) {
      const kind = Object.keys(event)[0];
      const e = event[kind];
      if (kind === "emigrated") {
        const [q, r] = hexOf(e.beach);
        group = (e.group ?? []).map(colourName);
        points.push(polar(centre(q, r), 0, 0), towards(q, r, e.dir ?? 0));
      } else if (kind === "sea_crossed" || kind === "voyage_failed") {
        const [q, r] = hexOf(e.at);
        const a = towards(q, r, e.enter ?? 0);
        const b = towards(q, r, e.exit ?? 0);
        points.push(a, curveControl(a, b, centre(q, r)));
        if (kind === "voyage_failed") {
          points.push(centre(q, r));
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
    if (points.length < 2 || !group.length) return;
    const layer = this.layers.voyage;
    layer.replaceChildren();
    const g = el("g", { class: `voyage${failed ? " failed" : ""}`, "data-testid": "voyage" }, layer);
    group.forEach((colour, i) => shipPath(colour, (i - (group.length - 1) / 2) * 12, 0, 5.5, g));
    const lengths = [0];
    for (let i = 1; i < points.length; i += 1) {
      lengths.push(lengths[i - 1] + Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y));
    }
    const total = lengths[lengths.length - 1] || 1;
    const duration = Math.min(1600, 300 + total * 2);
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
      if (f < 1) requestAnimationFrame(step);
      else setTimeout(() => g.remove(), 400);
    };
    requestAnimationFrame(step);
  }

  // ------------------------------------------------------------------ pan and zoom

  applyBox() {
    const { x, y, w, h } = this.box;
    this.svg.setAttribute("viewBox", `${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
  }

  fit() {
    const xs = [];
    const ys = [];
    for (const placed of this.view?.tiles ?? []) {
      const [q, r] = hexOf(placed.at);
      for (let d = 0; d < 6; d += 1) {
        const [nq, nr] = neighbour(q, r, d);
        const c = centre(nq, nr);
        xs.push(c.x);
        ys.push(c.y);
      }
    }
    if (!xs.length) xs.push(0) && ys.push(0);
    const margin = SIZE;
    const x0 = Math.min(...xs) - margin;
    const y0 = Math.min(...ys) - APOTHEM;
    this.box = { x: x0, y: y0, w: Math.max(...xs) + margin - x0, h: Math.max(...ys) + APOTHEM - y0 };
    this.applyBox();
  }

  zoom(factor, at = null) {
    const p = at ?? { x: this.box.x + this.box.w / 2, y: this.box.y + this.box.h / 2 };
    const w = Math.min(Math.max(this.box.w * factor, 150), 6000);
    const f = w / this.box.w;
    this.box = { x: p.x - (p.x - this.box.x) * f, y: p.y - (p.y - this.box.y) * f, w, h: this.box.h * f };
    this.userMoved = true;
    this.applyBox();
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
      event.preventDefault();
      this.zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, this.toBoard(event.clientX, event.clientY));
    }, { passive: false });
    this.svg.addEventListener("pointerdown", (event) => {
      if (event.target.closest?.(".target")) return;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      this.svg.setPointerCapture(event.pointerId);
      last = null;
    });
    this.svg.addEventListener("pointermove", (event) => {
      if (!pointers.has(event.pointerId)) return;
      const before = pointers.get(event.pointerId);
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (pointers.size === 1) {
        const a = this.toBoard(before.x, before.y);
        const b = this.toBoard(event.clientX, event.clientY);
        if (a.x === b.x && a.y === b.y) return;
        this.box.x -= b.x - a.x;
        this.box.y -= b.y - a.y;
        this.userMoved = true;
        this.applyBox();
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
