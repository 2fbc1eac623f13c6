// The "How to play" page: its diagrams are small boards drawn by the client's
// own renderer from made-up positions (the text comes from the catalogs).

import { Board } from "./board.js";

const at = (q, r, index) => ({ q, r, index });

const DIAGRAMS = {
  start: {
    tiles: [{ at: { q: 0, r: 0 }, tile: "tonga", rot: 0 }],
    beaches: [
      { beach: at(0, 0, 0), colours: ["COLOUR_RED", "COLOUR_BLUE"] },
      { beach: at(0, 0, 1), colours: ["COLOUR_YELLOW"] },
      { beach: at(0, 0, 3), colours: ["COLOUR_YELLOW"] },
      { beach: at(0, 0, 4), colours: ["COLOUR_RED", "COLOUR_GREEN"] },
      { beach: at(0, 0, 5), colours: ["COLOUR_BLUE", "COLOUR_GREEN"] },
    ],
  },
  voyage: {
    tiles: [
      { at: { q: 0, r: 0 }, tile: "tonga", rot: 0 },
      { at: { q: 0, r: -1 }, tile: "sea-01", rot: 0 },
      { at: { q: 0, r: -2 }, tile: "nauru", rot: 0 },
    ],
    beaches: [
      { beach: at(0, 0, 3), colours: ["COLOUR_RED", "COLOUR_RED", "COLOUR_BLUE"] },
      { beach: at(0, 0, 0), colours: ["COLOUR_GREEN"] },
      { beach: at(0, -2, 1), colours: ["COLOUR_YELLOW"] },
    ],
  },
};

export class HowToPage {
  constructor(root) {
    this.root = root;
  }

  start() {
    for (const node of this.root.querySelectorAll("[data-diagram]")) {
      const view = DIAGRAMS[node.dataset.diagram];
      if (!view) continue;
      const board = new Board(node, () => {});
      board.render(view, null);
    }
    document.body.dataset.ready = "1";
  }
}
