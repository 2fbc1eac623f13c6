// The gateway's JSON API, and this browser's seats. A seat token is kept in
// this browser's storage, and sent only to the gateway (Authorization): never in
// a URL's path or query, so a shared link is a spectator's link. A seat link
// carries it in the fragment, which a browser never sends anywhere.

import { colourName, wireColour } from "./wire.js";

const BASE = "/api/v1";

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.reason = body?.error?.reason ?? "UPSTREAM_ERROR";
    this.metadata = body?.error?.metadata ?? {};
  }
}

export async function call(method, path, body = undefined, token = null) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(`${BASE}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(503, { error: { reason: "GATEWAY_UNREACHABLE" } });
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// Storage may be refused at any access: a board framed by another site gets no
// storage at all in browsers that block third-party storage (reading
// `localStorage` then throws), and a full or disabled storage throws on writes.
// Every access goes through these three, which fall back to this page's memory,
// so nothing else has to care: a seat joined in such a page lasts until it is
// closed, and an embedded board gets its seat from the host page anyway.
const memory = new Map();

function stored() {
  try {
    return window.localStorage ?? null;
  } catch {
    return null;
  }
}

export const storage = {
  // Every key kept, in storage or in the page's memory.
  keys() {
    const out = new Set(memory.keys());
    try {
      const store = stored();
      for (let i = 0; i < (store?.length ?? 0); i += 1) out.add(store.key(i));
    } catch {
      // refused: the page's memory only
    }
    return [...out];
  },
  get(key) {
    try {
      const value = stored()?.getItem(key);
      if (value !== null && value !== undefined) return value;
    } catch {
      // refused: the page's memory below
    }
    return memory.has(key) ? memory.get(key) : null;
  },
  set(key, value) {
    memory.set(key, value);
    try {
      stored()?.setItem(key, value);
    } catch {
      // refused or full: kept in the page's memory
    }
  },
  remove(key) {
    memory.delete(key);
    try {
      stored()?.removeItem(key);
    } catch {
      // refused: nothing was kept there
    }
  },
};

const seatKey = (game) => `tongiaki.seat.${game}`;

export const seats = {
  get(game) {
    try {
      return JSON.parse(storage.get(seatKey(game)) ?? "null");
    } catch {
      return null;
    }
  },
  set(game, colour, token) {
    storage.set(seatKey(game), JSON.stringify({ colour, token }));
  },
  clear(game) {
    storage.remove(seatKey(game));
  },
  // The games this browser holds a seat of.
  games() {
    const prefix = seatKey("");
    return storage.keys().filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  },
  // The seat link of `game`: its address with the seat in the fragment, so that
  // any browser that opens it plays the seat (and no server log holds the token).
  link(game) {
    const seat = seats.get(game);
    return seat?.token ? `${window.location.origin}/games/${game}#seat=${colourName(seat.colour)}.${seat.token}` : null;
  },
  // A seat link opened here: its seat is kept for `game` and the fragment leaves
  // the address bar at once (nor stays in the history). What the page needs to
  // check it: the seat held before ({ before }), or { refused } for a fragment
  // that names no seat; null without a seat link.
  fromLink(game) {
    const hash = window.location.hash;
    if (!hash.startsWith("#seat=")) return null;
    history.replaceState(history.state, "", window.location.pathname + window.location.search);
    const found = /^#seat=(yellow|orange|red|green|blue|purple)\.([\w-]+)$/.exec(hash);
    if (!found) return { refused: true };
    const before = seats.get(game);
    seats.set(game, wireColour(found[1]), found[2]);
    return { before };
  },
};

// Games this browser watched without a seat, the latest first (a few are kept).
const WATCHED = "tongiaki.watched";
export const watched = {
  games() {
    try {
      const ids = JSON.parse(storage.get(WATCHED) ?? "[]");
      return Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : [];
    } catch {
      return [];
    }
  },
  add(game) {
    storage.set(WATCHED, JSON.stringify([game, ...watched.games().filter((id) => id !== game)].slice(0, 12)));
  },
  remove(game) {
    storage.set(WATCHED, JSON.stringify(watched.games().filter((id) => id !== game)));
  },
};

export const profile = {
  name() {
    return storage.get("tongiaki.name") ?? "";
  },
  setName(name) {
    storage.set("tongiaki.name", name);
  },
};

export function requestId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
