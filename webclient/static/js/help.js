// Help mode: a "?" button beside the zoom buttons. While it is on, pointing at
// or tapping any piece of the board names it and says what it is for; a tap
// then picks nothing (panning and zooming still work).

import { h } from "./dom.js";
import { t, td, tn } from "./i18n.js";
import { tile } from "./geometry.js";
import { COLOURS } from "./ships.js";
import { player, tileName } from "./text.js";

const colourOf = (node) => COLOURS.find((c) => node.classList.contains(`ship-${c}`) || node.dataset.colour === c);
const number = (node) => node.querySelector("text")?.textContent ?? "";

const islandText = (node) => (node
  ? tn("help.island", tile(node.dataset.tile)?.points ?? 0, { name: tileName(node.dataset.tile) })
  : "");

// The pieces, most specific first: a selector, and the text naming what it matched.
const PIECES = [
  // A chip at the board's edge says itself what lies out of sight that way.
  [".edge", (n) => n.getAttribute("aria-label")],
  [".target-end", () => t("help.open_end")],
  [".target-royal", () => t("help.crown")],
  [".target-jetty", () => t("help.target_jetty")],
  [".target-island", () => t("help.target_island")],
  [".target-land", () => t("help.target_land")],
  [".target-arc, .target-beach", () => t("help.halo")],
  [".path-danger", (n) => tn("help.route_danger", Number(number(n).split("/")[1] ?? 0), { danger: number(n).split("/")[0] })],
  [".preview-path", () => t("help.route")],
  [".danger-label", (n) => t("help.danger", { danger: number(n) })],
  [".voyage", () => t("help.voyage")],
  [".waiting-group", () => t("help.group")],
  [".ghost", () => t("help.ghost")],
  [".royal", (n) => t("help.mask", { player: player(colourOf(n)) })],
  [".ship", (n) => t("help.ship", { colour: td(`colour.${colourOf(n)}`) })],
  [".jetty", () => t("help.jetty")],
  [".beach, .mooring", () => t("help.beach")],
  [".foam", () => t("help.foam")],
  [".counts", () => t("help.counts")],
  [".spot", () => t("help.spot")],
  [".island-label", (n) => islandText(n.closest("svg")?.querySelector(`.tile[data-hex="${n.dataset.hex}"]`))],
  [".tile-island", (n) => islandText(n)],
  [".tile-sea", () => t("help.sea")],
];

// What the piece under `node` is, in words ("" for none); a changed tile says so too.
export function nameOf(node) {
  for (const [selector, text] of PIECES) {
    const found = node.closest?.(selector);
    if (!found) continue;
    const changed = found.closest(".changed") ? ` ${t("help.changed")}` : "";
    return text(found) + changed;
  }
  return "";
}

// Pieces a player points at for themselves; the rest (halos, beaches, tiles) lie around them.
const THINGS = ".voyage, .waiting-group, .ghost, .royal, .ship";

// What lies under a point of the screen, in words: every element there, not the
// event's target (panning captures the pointer, so a tap's target is the board,
// and a halo lies over the ships on its beach). A ship or mask comes first, then
// the topmost piece if that is another one.
export function namesAt(x, y) {
  const nodes = document.elementsFromPoint(x, y);
  // A chip at the board's edge is all there is to name there (it lies over the board).
  const chip = nodes.find((n) => n.closest?.(".edge"));
  if (chip) return nameOf(chip);
  const thing = nodes.find((n) => n.closest?.(THINGS));
  const texts = [thing, ...nodes].map((n) => n && nameOf(n)).filter(Boolean);
  const [first, second] = [...new Set(texts)];
  // Two sentences joined as the language joins them (no space after 。).
  return second ? t("text.sentences", { first, second }) : first ?? "";
}

export class HelpMode {
  constructor(area) {
    this.area = area;
    this.on = false;
    this.button = h("button", {
      type: "button", testid: "help-toggle", "aria-pressed": "false", "aria-label": t("help.toggle"),
      title: t("help.toggle"), onclick: () => this.toggle(),
    }, "?");
    area.querySelector(".zoom")?.append(this.button);
    // Placed on the map (left to right); its text runs in the page's direction.
    this.text = h("span", { dir: document.documentElement.dir || "ltr" });
    this.label = h("p", {
      class: "help-label", testid: "help-label", role: "status", "aria-live": "polite", hidden: true,
    }, this.text);
    area.append(this.label);
    // A chip at the board's edge is named too (under the pointer, or tapped), and
    // moves nothing while help is on.
    area.addEventListener("click", (event) => {
      if (!this.on || !event.target.closest?.(".edge")) return;
      event.stopPropagation();
      this.name(event);
    }, true);
    area.addEventListener("pointermove", (event) => {
      if (this.on && event.pointerType === "mouse" && event.target.closest?.(".edge")) this.name(event);
    });
    const svg = area.querySelector("svg");
    // Capture: while on, a tap names the piece and never reaches a target.
    svg.addEventListener("click", (event) => {
      if (!this.on) return;
      event.stopPropagation();
      this.name(event);
    }, true);
    svg.addEventListener("pointermove", (event) => {
      if (this.on && event.pointerType === "mouse") this.name(event);
    });
    // From the keyboard: a focused target is named, and Enter names it rather than picks.
    svg.addEventListener("focusin", (event) => this.on && this.name(event));
    svg.addEventListener("keydown", (event) => {
      if (!this.on || (event.key !== "Enter" && event.key !== " ")) return;
      event.preventDefault();
      event.stopPropagation();
      this.name(event);
    }, true);
    // Escape leaves help mode, wherever the focus is.
    document.addEventListener("keydown", (event) => {
      if (!this.on || event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      this.toggle();
    }, true);
  }

  toggle() {
    this.on = !this.on;
    this.button.setAttribute("aria-pressed", String(this.on));
    this.button.classList.toggle("on", this.on);
    this.area.classList.toggle("help-on", this.on);
    this.label.hidden = !this.on;
    this.text.textContent = this.on ? t("help.intro") : "";
    this.label.style.removeProperty("inset-block-start");
    this.label.style.removeProperty("inset-inline-start");
  }

  name(event) {
    const text = (event.clientX === undefined ? nameOf(event.target) : namesAt(event.clientX, event.clientY))
      || t("help.nothing");
    if (this.text.textContent === text && event.type === "pointermove") return;
    this.text.textContent = text;
    this.label.dataset.piece = text;
    // Beside the pointer (or the focused piece), inside the board (a map: left and top).
    const box = this.area.getBoundingClientRect();
    const piece = event.target.getBoundingClientRect?.();
    const at = event.clientX === undefined
      ? { x: piece.left + piece.width / 2, y: piece.top + piece.height / 2 }
      : { x: event.clientX, y: event.clientY };
    const x = Math.min(Math.max(at.x - box.left + 14, 4), Math.max(box.width - 260, 4));
    const y = Math.min(at.y - box.top + 14, box.height - 90);
    this.label.style.insetInlineStart = `${x}px`;
    this.label.style.insetBlockStart = `${Math.max(y, 4)}px`;
  }
}
