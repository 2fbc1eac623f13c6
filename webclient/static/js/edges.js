// What lies out of sight, pointed at from the board's edge: what changed since the
// player's last decision (white, no seat's colour) and the targets of a decision
// (the colour of what can be picked). One chip for each direction they lie in,
// with how many; a click brings them to the middle at the zoom shown. The view
// stays the player's (camera.js): these chips say where else to look.

import { h } from "./dom.js";
import { tn } from "./i18n.js";
import { centre } from "./geometry.js";

// Clockwise from the east (the board's y points down), a sector each.
const ARROWS = ["→", "↘", "↓", "↙", "←", "↖", "↑", "↗"];
const SECTOR = Math.PI / 4;
// How far in from the board's edge a chip's centre lies (CSS px), and how much
// farther a chip of changes lies than a chip of targets in the same direction.
const INSET = 26;
const STEP = 46;
// What a chip of each kind says (its count in words, and what pressing it does).
const LABELS = { picks: "board.out_of_sight_picks", news: "board.out_of_sight_news" };

const hexPlace = (key) => {
  const [q, r] = key.split(",").map(Number);
  const c = centre(q, r);
  return [c.x, c.y];
};

export class Edges {
  constructor(board) {
    this.board = board;
    // The board is a map: the chips are placed left to right whatever the page's direction.
    this.holder = h("div", { class: "edges", dir: "ltr" });
    board.container.append(this.holder);
  }

  // Board places to point at, by kind: the changes marked, the targets shown.
  places() {
    const board = this.board;
    const news = [...(board.marks?.tiles ?? [])].map(hexPlace);
    for (const key of board.marks?.ships?.keys() ?? []) news.push(hexPlace(key.split("|")[0]));
    const picks = board.layers.targets.firstChild ? board.targetPoints().map(([x, y]) => [x, y]) : [];
    return { picks, news };
  }

  update() {
    this.holder.replaceChildren();
    const board = this.board;
    const width = board.svg.clientWidth;
    const height = board.svg.clientHeight;
    if (!board.view || !width || !height) return;
    const svg = board.svg;
    Object.assign(this.holder.style, { top: `${svg.offsetTop}px`, left: `${svg.offsetLeft}px`, width: `${width}px`, height: `${height}px` });
    const box = board.box;
    const seen = ([x, y]) => x >= box.x && x <= box.x + box.w && y >= box.y && y <= box.y + box.h;
    const [cx, cy] = [box.x + box.w / 2, box.y + box.h / 2];
    // The part of the board not under a docked decision or the top strip.
    const [top, bottom] = [board.top, height - board.reserve];
    Object.entries(this.places()).forEach(([kind, points], depth) => {
      const groups = new Map();
      for (const point of points) {
        if (seen(point)) continue;
        const sector = (Math.round(Math.atan2(point[1] - cy, point[0] - cx) / SECTOR) + 8) % 8;
        if (!groups.has(sector)) groups.set(sector, []);
        groups.get(sector).push(point);
      }
      for (const [sector, group] of groups) {
        // Towards the group's middle, from the view's.
        const [mx, my] = [group.reduce((a, p) => a + p[0], 0) / group.length - cx, group.reduce((a, p) => a + p[1], 0) / group.length - cy];
        const [dx, dy] = [mx / Math.hypot(mx, my), my / Math.hypot(mx, my)];
        const reach = (half) => half - INSET - depth * STEP;
        const far = Math.min(dx ? reach(width / 2) / Math.abs(dx) : Infinity, dy ? reach((bottom - top) / 2) / Math.abs(dy) : Infinity);
        const [x, y] = [width / 2 + dx * far, top + (bottom - top) / 2 + dy * far];
        const label = tn(LABELS[kind], group.length);
        this.holder.append(h("button", {
          type: "button", class: `edge edge-${kind}`, testid: `edge-${kind}`, title: label, "aria-label": label,
          "data-sector": sector, style: `left: ${x.toFixed(0)}px; top: ${y.toFixed(0)}px`,
          onclick: () => this.show(group),
        }, h("span", { "aria-hidden": "true" }, `${ARROWS[sector]} ${group.length}`)));
      }
    });
  }

  // Bring `points` to the middle of the view at its zoom (the nearest one, where
  // they do not fit there together); a move the player asked for.
  show(points) {
    const board = this.board;
    const goal = board.goal;
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    let bounds = { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
    if (bounds.w > goal.w * 0.8 || bounds.h > goal.h * 0.8) {
      const [cx, cy] = [goal.x + goal.w / 2, goal.y + goal.h / 2];
      const [x, y] = points.reduce((a, b) => (Math.hypot(a[0] - cx, a[1] - cy) <= Math.hypot(b[0] - cx, b[1] - cy) ? a : b));
      bounds = { x, y, w: 0, h: 0 };
    }
    board.camera.hold();
    board.moveTo(board.camera.centred(goal, bounds), 300);
  }
}
