// The "How to play" page: its diagrams are small boards drawn by the client's
// own renderer from made-up positions (static/howto.json); their captions take
// names and numbers from the same positions, so text and drawing agree.

import { Board } from "./board.js";
import { SIZE, APOTHEM, centre, neighbour, towards, tile } from "./geometry.js";
import { td } from "./i18n.js";
import { el } from "./ships.js";
import { tileName } from "./text.js";
import { colourName, wireKind } from "./wire.js";

const hexOf = (h) => [h?.q ?? 0, h?.r ?? 0];

// The view each board draws: the position itself, or the landing before or after.
function viewOf(diagram, part) {
  if (part === "before") {
    const island = diagram.tiles[0].at;
    return {
      tiles: diagram.tiles,
      beaches: diagram.before,
      decision: { kind: wireKind("land"), island, group: diagram.group },
    };
  }
  return { tiles: diagram.tiles, beaches: diagram.beaches };
}

// Show the tiles, not the empty sea around them, so that the drawing is large.
function frame(board, view) {
  const xs = [];
  const ys = [];
  for (const placed of view.tiles) {
    const c = centre(...hexOf(placed.at));
    xs.push(c.x - SIZE, c.x + SIZE);
    ys.push(c.y - APOTHEM, c.y + APOTHEM);
  }
  const pad = 12;
  const x = Math.min(...xs) - pad;
  const y = Math.min(...ys) - pad;
  board.userMoved = true;
  board.box = { x, y, w: Math.max(...xs) + pad - x, h: Math.max(...ys) + pad - y };
  board.applyBox();
}

// The route of the voyage: from the beach out of its jetty, along the foam path
// it enters by, on to the island it reaches (the walk of RULES.md R6).
function route(diagram) {
  const { beach, dir } = diagram.voyage;
  const at = (q, r) => diagram.tiles.find((p) => p.at.q === q && p.at.r === r);
  let [q, r] = hexOf(beach);
  let heading = dir;
  const points = [centre(q, r), towards(q, r, heading)];
  for (let steps = 0; steps < diagram.tiles.length; steps += 1) {
    const [nq, nr] = neighbour(q, r, heading);
    const placed = at(nq, nr);
    if (!placed) break;
    const info = tile(placed.tile);
    if (info.kind !== "sea") {
      points.push(towards(nq, nr, (heading + 3) % 6, 0.45));
      return { points, reached: placed.tile };
    }
    const enter = (heading + 3) % 6;
    const edge = (enter - placed.rot + 6) % 6;
    const path = info.paths.find(([a, b]) => a === edge || b === edge);
    const exit = ((path[0] === edge ? path[1] : path[0]) + placed.rot) % 6;
    const a = towards(nq, nr, enter);
    const b = towards(nq, nr, exit);
    const c = centre(nq, nr);
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    points.push(a, { x: c.x + (mid.x - c.x) * 0.35, y: c.y + (mid.y - c.y) * 0.35 }, b);
    [q, r, heading] = [nq, nr, exit];
  }
  return { points, reached: null };
}

function drawRoute(board, diagram) {
  const { points, reached } = route(diagram);
  const layer = board.layers.voyage;
  const d = points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join("");
  const g = el("g", { "data-testid": "route", "data-reaches": reached ?? "" }, layer);
  el("path", {
    d, fill: "none", stroke: "#1b2631", "stroke-width": 5, "stroke-dasharray": "10 7",
    "stroke-linecap": "round", "stroke-linejoin": "round", opacity: 0.8,
  }, g);
  const end = points[points.length - 1];
  el("circle", { cx: end.x, cy: end.y, r: 9, fill: "#1b2631", opacity: 0.8 }, g);
  // The danger numbers stay readable on top of the route.
  for (const mark of board.layers.tiles.querySelectorAll(".danger, .danger-number")) {
    layer.append(mark.cloneNode(true));
  }
}

// The caption's names and numbers, from the drawn position.
function captionParams(diagram, name) {
  if (name === "voyage") {
    const { beach, island, danger } = diagram.voyage;
    const ships = diagram.beaches.find((b) => b.beach.index === beach.index && b.beach.q === beach.q
      && b.beach.r === beach.r).colours;
    return { island: tileName(island), danger, count: new Set(ships.map(colourName)).size };
  }
  if (name === "landing") return { island: tileName(diagram.tiles[0].tile) };
  return {};
}

export class HowToPage {
  constructor(root) {
    this.root = root;
  }

  async start() {
    const base = document.body.dataset.static;
    const diagrams = await (await fetch(`${base}howto.json`)).json();
    for (const node of this.root.querySelectorAll("[data-diagram]")) {
      const diagram = diagrams[node.dataset.diagram];
      if (!diagram) continue;
      const view = viewOf(diagram, node.dataset.part);
      const board = new Board(node, () => {});
      board.render(view, null);
      frame(board, view);
      if (diagram.voyage) drawRoute(board, diagram);
    }
    for (const caption of this.root.querySelectorAll("[data-caption]")) {
      const name = caption.dataset.caption;
      caption.textContent = td(`howto.diagram_${name}`, captionParams(diagrams[name], name));
    }
    document.body.dataset.ready = "1";
  }
}
