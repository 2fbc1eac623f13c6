// Hex geometry (RULES.md R2): flat-topped hexes, axial (q, r), world directions
// clockwise from the bottom: 0 S, 1 SW, 2 NW, 3 N, 4 NE, 5 SE. SVG y points down.

export const SIZE = 100;
const ROOT3 = Math.sqrt(3);
export const APOTHEM = (SIZE * ROOT3) / 2;
export const STEPS = [[0, 1], [-1, 1], [-1, 0], [0, -1], [1, -1], [1, 0]];

export function centre(q, r) {
  return { x: 1.5 * SIZE * q, y: SIZE * ROOT3 * (r + q / 2) };
}

// The hex a board point lies in (axial, rounded as cube coordinates).
export function hexAt(x, y) {
  const fq = x / (1.5 * SIZE);
  const fr = y / (SIZE * ROOT3) - fq / 2;
  const fs = -fq - fr;
  let [q, r, s] = [Math.round(fq), Math.round(fr), Math.round(fs)];
  const [dq, dr, ds] = [Math.abs(q - fq), Math.abs(r - fr), Math.abs(s - fs)];
  if (dq > dr && dq > ds) q = -r - s;
  else if (dr > ds) r = -q - s;
  return [q, r];
}

export function neighbour(q, r, dir) {
  return [q + STEPS[dir][0], r + STEPS[dir][1]];
}

export function angleOf(dir) {
  return ((90 + 60 * dir) * Math.PI) / 180;
}

// The point at `fraction` of the way from a hex centre to the middle of its edge facing `dir`.
export function towards(q, r, dir, fraction = 1) {
  const c = centre(q, r);
  const a = angleOf(dir);
  return { x: c.x + fraction * APOTHEM * Math.cos(a), y: c.y + fraction * APOTHEM * Math.sin(a) };
}

// The control point of the foam path from edge point `a` to edge point `b` of the hex centred at `c`.
export function curveControl(a, b, c) {
  const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  return { x: c.x + (mid.x - c.x) * 0.35, y: c.y + (mid.y - c.y) * 0.35 };
}

export function polar(c, angle, radius) {
  return { x: c.x + radius * Math.cos(angle), y: c.y + radius * Math.sin(angle) };
}

export function corners(q, r, size = SIZE) {
  const c = centre(q, r);
  const out = [];
  for (let i = 0; i < 6; i += 1) {
    const a = (Math.PI / 3) * i;
    out.push(`${(c.x + size * Math.cos(a)).toFixed(1)},${(c.y + size * Math.sin(a)).toFixed(1)}`);
  }
  return out.join(" ");
}

// Circular mean of world directions, as an angle.
export function meanAngle(dirs) {
  let x = 0;
  let y = 0;
  for (const d of dirs) {
    x += Math.cos(angleOf(d));
    y += Math.sin(angleOf(d));
  }
  return Math.atan2(y, x);
}

let catalogue = null;

export async function loadTiles(url) {
  const data = await (await fetch(url)).json();
  const tiles = {};
  for (const island of data.islands) tiles[island.id] = { kind: "island", ...island };
  for (const sea of data.seas) tiles[sea.id] = { kind: "sea", ...sea };
  catalogue = tiles;
  return tiles;
}

export function tile(id) {
  return catalogue[id];
}

// Where the moorings of each beach of an island tile lie, in world coordinates.
export function beachLayout(q, r, id, rot) {
  const info = catalogue[id];
  const c = centre(q, r);
  return info.beaches.map((beach, index) => {
    const dirs = beach.jetties.map((e) => (e + rot) % 6);
    const angle = meanAngle(dirs);
    const n = beach.moorings;
    const spread = (16 * Math.PI) / 180;
    const slots = [];
    for (let i = 0; i < n; i += 1) {
      slots.push(polar(c, angle + (i - (n - 1) / 2) * spread, SIZE * 0.55));
    }
    return { index, angle, dirs, slots, anchor: polar(c, angle, SIZE * 0.55) };
  });
}
