// The gateway's JSON API, and this browser's seats. A seat token is kept in
// this browser's storage only: never in a URL, so a shared link is a
// spectator's link.

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

const seatKey = (game) => `tongiaki.seat.${game}`;

export const seats = {
  get(game) {
    try {
      return JSON.parse(localStorage.getItem(seatKey(game)) ?? "null");
    } catch {
      return null;
    }
  },
  set(game, colour, token) {
    localStorage.setItem(seatKey(game), JSON.stringify({ colour, token }));
  },
  clear(game) {
    localStorage.removeItem(seatKey(game));
  },
};

export const profile = {
  name() {
    return localStorage.getItem("tongiaki.name") ?? "";
  },
  setName(name) {
    localStorage.setItem("tongiaki.name", name);
  },
};

export function requestId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
