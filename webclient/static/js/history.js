// A game's public log, whole: fetched from sequence 0 (ListGameEntries) and
// followed entry by entry, as log lines in time order, with where each turn began.

import { call } from "./api.js";
import { entryLines } from "./text.js";
import { hexKey } from "./wire.js";

// Every entry after `after` up to the game's sequence when asked, page by page.
export async function fetchEntries(id, after = 0, until = Infinity) {
  const out = [];
  let from = after;
  for (;;) {
    const page = await call("GET", `/games/${id}/entries?after_sequence=${from}&page_size=1000`);
    for (const entry of page.entries ?? []) {
      if (Number(entry.sequence) <= until) out.push(entry);
    }
    if (!page.more || !page.entries?.length || Number(page.entries.at(-1).sequence) >= until) return out;
    from = Number(page.entries.at(-1).sequence);
  }
}

export class Chronicle {
  constructor() {
    this.items = []; // { sequence, lines, turn: whether a turn starts here, player }
    this.tiles = new Map(); // hex -> tile id, every tile ever placed (for island names)
    this.last = 0;
    this.stack = null; // the stack's counts after the last draw
  }

  // The tiles by hex, as a view's `tiles` for islandAt().
  get place() {
    return { stack: this.stack, tiles: [...this.tiles].map(([key, tile]) => {
      const [q, r] = key.split(",").map(Number);
      return { at: { q, r }, tile };
    }) };
  }

  add(entry) {
    const sequence = Number(entry.sequence);
    if (sequence <= this.last) return null;
    this.last = sequence;
    const view = entry.game_started?.view ?? entry.action_taken_back?.view;
    for (const placed of view?.tiles ?? []) this.tiles.set(hexKey(placed.at), placed.tile);
    if (view?.stack) this.stack = view.stack;
    const events = entry.action_applied?.events ?? [];
    for (const e of events) {
      if (!e.tile_placed) continue;
      this.tiles.set(hexKey(e.tile_placed.at), e.tile_placed.tile);
      this.stack = e.tile_placed.stack;
    }
    const item = {
      sequence,
      lines: entryLines(entry, this.place),
      turn: Boolean(entry.game_started) || events.some((e) => e.turn_started),
      player: entry.action_applied?.player ?? entry.action_taken_back?.player ?? null,
      entry,
    };
    this.items.push(item);
    return item;
  }

  // Sequences at which a turn (or the game) starts, in order.
  turns() {
    return this.items.filter((i) => i.turn).map((i) => i.sequence);
  }
}
