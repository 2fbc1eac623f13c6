// Ships: one colour and one shape per seat colour, so colour-blind players can
// tell them apart. Shapes are drawn around (0, 0) with radius `s`.

import { prefs } from "./settings.js";

export const COLOURS = ["yellow", "orange", "red", "green", "blue", "purple"];

// The seat colours, one palette per setting (settings.js "palette"). "distinct"
// is for colour-blind players: its six colours stay apart under simulated
// protanopia, deuteranopia and tritanopia (tests/webclient/test_palette.py
// reads this object and checks a CIEDE2000 difference of at least 20).
export const PALETTES = {
  standard: {
    yellow: "#f4d03f",
    orange: "#e67e22",
    red: "#c0392b",
    green: "#27ae60",
    blue: "#2e86de",
    purple: "#8e44ad",
  },
  distinct: {
    yellow: "#fefd2b",
    orange: "#cd7a10",
    red: "#8f0100",
    green: "#2a7367",
    blue: "#63b5e5",
    purple: "#6207a1",
  },
};

// The fill of each seat colour in the palette chosen now (FILL.red, FILL[colour]).
export const FILL = new Proxy({}, {
  get: (_, colour) => (PALETTES[prefs.get("palette")] ?? PALETTES.standard)[colour],
});

function star(s, points = 5) {
  const out = [];
  for (let i = 0; i < points * 2; i += 1) {
    const radius = i % 2 === 0 ? s * 1.15 : s * 0.5;
    const a = -Math.PI / 2 + (Math.PI * i) / points;
    out.push(`${(radius * Math.cos(a)).toFixed(2)},${(radius * Math.sin(a)).toFixed(2)}`);
  }
  return `M${out.join("L")}Z`;
}

export const SHAPE = {
  yellow: (s) => `M${-s},0a${s},${s} 0 1,0 ${2 * s},0a${s},${s} 0 1,0 ${-2 * s},0Z`,
  orange: (s) => `M${-s * 0.85},${-s * 0.85}h${s * 1.7}v${s * 1.7}h${-s * 1.7}Z`,
  red: (s) => `M0,${-s * 1.1}L${s * 1.05},${s * 0.8}L${-s * 1.05},${s * 0.8}Z`,
  green: (s) => `M0,${-s * 1.2}L${s * 1.1},0L0,${s * 1.2}L${-s * 1.1},0Z`,
  blue: (s) => `M0,${s * 1.1}L${s * 1.05},${-s * 0.8}L${-s * 1.05},${-s * 0.8}Z`,
  purple: (s) => star(s),
};

const NS = "http://www.w3.org/2000/svg";

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

export function shipPath(colour, x, y, s, parent, extra = {}) {
  return el(
    "path",
    {
      d: SHAPE[colour](s),
      transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`,
      fill: FILL[colour],
      class: `ship ship-${colour}`,
      "data-colour": colour,
      ...extra,
    },
    parent,
  );
}

// A swatch for HTML: a small inline SVG with the colour's shape.
export function swatch(colour, size = 16) {
  const svg = el("svg", {
    viewBox: "-10 -10 20 20",
    width: size,
    height: size,
    class: "swatch",
    "aria-hidden": "true",
  });
  shipPath(colour, 0, 0, 7, svg);
  return svg;
}
