#!/usr/bin/env node
// A command-line client for the Tongiaki game server, built from proto/ alone.
//
//   node tongiaki.mjs list   [--state open|active|finished]
//   node tongiaki.mjs create --seats yellow,red [--bots red] [--auto-start] [--name NAME] [--webhook URL]
//   node tongiaki.mjs join   GAME [--colour red] [--name NAME]      prints the seat token
//   node tongiaki.mjs start  GAME --token TOKEN
//   node tongiaki.mjs watch  GAME [--after SEQUENCE]
//   node tongiaki.mjs play   GAME --token TOKEN [--seed N] [--start]
//
// Every command takes --server HOST:PORT (default: $TONGIAKI_SERVER, else
// localhost:50051, where `make run` starts the game server; several nodes of
// one server as HOST:PORT,HOST:PORT: calls are spread over them and retried
// on another while one is down) and --wait SECONDS
// (how long to wait for the server to answer at all, default 10). Every call
// is given up after 10 s; a decision whose outcome is unknown (UNAVAILABLE,
// DEADLINE_EXCEEDED) is sent again with its request id for up to 30 s, so it
// is applied once (the retry rules of docs/server.md).
//
// `create` prints the new game's name (games/ID) and `join` the seat token, one
// line each, so a shell can keep them: GAME=$(node tongiaki.mjs create ...).
// `watch` prints every event as one JSON line as it arrives and resumes after
// a dropped stream from the last sequence it saw. `play` acts for the seat of
// TOKEN, choosing among the options the server offers (seeded, uniform), and
// prints one JSON line per action it submits: before the start it waits for
// the game to start (with --start it starts it once every seat is taken), it
// follows take-backs, and it stops when the game is over (printing the
// ranking) or when its seat is given up or taken over by a bot. Colours are
// written `red` or `COLOUR_RED`.

import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const here = path.dirname(fileURLToPath(import.meta.url));
const PROTO_ROOT = process.env.TONGIAKI_PROTO ?? path.resolve(here, "../../proto");
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.ABORTED]);

/** Load balancing over the servers and retries on UNAVAILABLE (as tongiaki/channels.py). */
const SERVICE_CONFIG = {
  loadBalancingConfig: [{ round_robin: {} }],
  methodConfig: [
    {
      name: [{ service: "tongiaki.v1.GameService" }],
      retryPolicy: {
        maxAttempts: 5,
        initialBackoff: "0.1s",
        maxBackoff: "2s",
        backoffMultiplier: 2,
        retryableStatusCodes: ["UNAVAILABLE"],
      },
    },
  ],
};

/** The gRPC target of "HOST:PORT[,HOST:PORT...]": names resolved, calls spread over them. */
export async function target(servers) {
  const found = [];
  for (const item of servers.split(",").map((s) => s.trim())) {
    const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(item);
    if (!match || !match[1]) throw usage(`--server takes HOST:PORT[,HOST:PORT...], not ${JSON.stringify(item)}`);
    const { address, family } = await lookup(match[1], { verbatim: false });
    found.push({ address, family, port: match[2] });
  }
  if (new Set(found.map((f) => f.family)).size > 1) throw usage("--server mixes IPv4 and IPv6 addresses");
  return found[0].family === 6
    ? `ipv6:${found.map((f) => `[${f.address}]:${f.port}`).join(",")}`
    : `ipv4:${found.map((f) => `${f.address}:${f.port}`).join(",")}`;
}

/** The GameService client for the server(s) in `servers` ("HOST:PORT[,HOST:PORT...]"). */
export async function connect(servers) {
  const server = await target(servers);
  const definition = protoLoader.loadSync("tongiaki/v1/game_service.proto", {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const loaded = grpc.loadPackageDefinition(definition);
  return new loaded.tongiaki.v1.GameService(server, grpc.credentials.createInsecure(), {
    "grpc.service_config": JSON.stringify(SERVICE_CONFIG),
    "grpc.enable_retries": 1,
  });
}

/** Seconds a call may take before it is given up (DEADLINE_EXCEEDED). */
export const CALL_SECONDS = 10;
/** Seconds a change of unknown outcome is sent again for (a node's death is taken
 * over within seconds; a database restart may take more). */
export const PATIENCE = 30;

/** One unary call, given up after `seconds`. */
export function call(client, method, request, token, seconds = CALL_SECONDS) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set("authorization", `Bearer ${token}`);
  const options = { deadline: Date.now() + seconds * 1000 };
  return new Promise((resolve, reject) => {
    client[method](request, metadata, options, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** Whether a change refused this way may have been applied, or not: UNAVAILABLE
 * (the channel's own tries ran out, or OUTCOME_UNKNOWN) and DEADLINE_EXCEEDED. */
export function unknownOutcome(error) {
  return error?.code === grpc.status.UNAVAILABLE || error?.code === grpc.status.DEADLINE_EXCEEDED;
}

/**
 * A change that carries a request id (CreateGame, JoinGame, StartGame, SubmitAction,
 * TakeBack, SendMessage), as the retry rules of docs/server.md say: while its outcome is unknown it is sent again,
 * the same request, for `patience` seconds (waits of 0.1 s doubling to 2 s), so it
 * is applied once; its answer is the entry it wrote. `onRetry(error)` is told of
 * each refusal before the request goes again.
 */
export async function change(client, method, request, token, { seconds = CALL_SECONDS, patience = PATIENCE, onRetry } = {}) {
  const until = Date.now() + patience * 1000;
  for (let wait = 0.1; ; wait = Math.min(2, wait * 2)) {
    try {
      return await call(client, method, request, token, seconds);
    } catch (error) {
      if (!unknownOutcome(error) || Date.now() + wait * 1000 > until) throw error;
      onRetry?.(error);
    }
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

/** The reason of a failed call (google.rpc.ErrorInfo), as far as the details say. */
export function reason(error) {
  const details = error?.metadata?.get("grpc-status-details-bin")?.[0];
  if (!details) return null;
  const text = details.toString("latin1");
  // The ErrorInfo follows its type URL; its first field is the reason.
  const at = text.indexOf("google.rpc.ErrorInfo");
  const match = text.slice(at < 0 ? 0 : at + "google.rpc.ErrorInfo".length).match(/([A-Z][A-Z_]{2,})/);
  return match ? match[1] : null;
}

/** One line per event of a log entry: sequence, kind and the event's fields. */
export function describe(entry) {
  const lines = [];
  if (entry.change === "action_applied") {
    for (const event of entry.action_applied.events) {
      lines.push({ sequence: entry.sequence, kind: event.kind, data: event[event.kind] });
    }
  } else {
    lines.push({ sequence: entry.sequence, kind: entry.change, data: entry[entry.change] });
  }
  return lines;
}

/**
 * Follow a game: call `onSnapshot(snapshot)` and `onEntry(entry)` as they come,
 * reconnecting after a dropped stream with the last sequence seen. Resolves
 * when the server ends the stream (the game is over).
 */
export async function follow(
  client,
  name,
  { token, after, onSnapshot, onEntry, drop, control = {} } = {},
) {
  let last = after ?? null;
  let stopped = false;
  for (let attempt = 0; ; attempt += 1) {
    const request = { name };
    if (last !== null) request.after_sequence = last;
    const metadata = new grpc.Metadata();
    if (token) metadata.set("authorization", `Bearer ${token}`);
    const stream = client.WatchGame(request, metadata);
    // control.stop() ends the watch for good (the caller has seen enough).
    control.stop = () => {
      stopped = true;
      stream.cancel();
    };
    const outcome = await new Promise((resolve) => {
      let received = 0;
      stream.on("data", (message) => {
        if (message.snapshot) {
          last = message.snapshot.sequence;
          onSnapshot?.(message.snapshot);
        }
        for (const entry of message.entries) {
          if (last !== null && entry.sequence <= last) continue;
          last = entry.sequence;
          onEntry?.(entry);
        }
        received += 1;
        if (drop && drop(received)) stream.cancel();
      });
      stream.on("end", () => resolve({ ended: true }));
      stream.on("error", (error) => resolve({ error }));
    });
    if (outcome.ended || stopped) return last;
    if (!RETRYABLE.has(outcome.error.code)) throw outcome.error;
    await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * (attempt + 1))));
  }
}

/** A seeded generator (SplitMix64 on BigInt), so a seed plays the same choices. */
export function generator(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  return (n) => {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    z = z ^ (z >> 31n);
    return Number(z % BigInt(n));
  };
}

/** `red`, `RED` or `COLOUR_RED` as the contract's enum name. */
export function colourName(text) {
  const bare = String(text).toUpperCase().replace(/^COLOUR_/, "");
  if (!COLOURS.includes(bare)) throw usage(`${text} is not a colour (${COLOURS.join(", ").toLowerCase()})`);
  return `COLOUR_${bare}`;
}

const COLOURS = ["YELLOW", "ORANGE", "RED", "GREEN", "BLUE", "PURPLE"];
const FINAL = new Set(["GAME_STATE_FINISHED"]);

function usage(message) {
  const error = new Error(message);
  error.usage = true;
  return error;
}

/** Start `name` with `token` if every seat is taken; false if it cannot start (yet). */
async function startIfFull(client, name, token) {
  const { snapshot } = await call(client, "GetGame", { name });
  if (snapshot.game.state !== "GAME_STATE_OPEN") return false;
  if (!snapshot.game.seats.every((seat) => seat.occupied)) return false;
  try {
    await change(client, "StartGame", { name, request_id: randomUUID() }, token);
    return true;
  } catch (error) {
    if (["GAME_ALREADY_STARTED", "SEATS_OPEN"].includes(reason(error))) return false;
    throw error;
  }
}

/**
 * Play the seat of `token` until the game is over, the seat is given up or a
 * bot takes it over. Before the start it waits (with `start`, it starts the
 * game once every seat is taken). Resolves to `{ colour, state, end, results }`.
 */
export async function play(client, name, token, { seed = 1, start = false, print = () => {} } = {}) {
  const pick = generator(seed);
  const first = await call(client, "GetGame", { name }, token); // checks the token
  let colour = first.snapshot.view?.viewer ?? null;
  let sequence = null;
  let decision = null;
  let end = null; // why the seat stopped playing before the game was over
  let busy = Promise.resolve();
  const control = {};
  const learnColour = async () => {
    // The seat's colour is in its own view, which exists once the game started.
    if (colour === null) colour = (await call(client, "GetGame", { name }, token)).snapshot.view?.viewer ?? null;
  };
  const act = async () => {
    if (decision && colour === null) await learnColour();
    while (decision && decision.player === colour && sequence !== null && end === null) {
      const option = decision.options[pick(decision.options.length)];
      const request = { name, sequence, request_id: randomUUID(), action: option };
      try {
        const response = await change(client, "SubmitAction", request, token);
        print({ sequence: response.entry.sequence, submitted: option.act });
        sequence = response.entry.sequence;
        decision = response.entry.action_applied.decision;
      } catch (error) {
        // Stale (another entry came first), a take-back, or the seat was just taken
        // over or given up: the stream brings what changed.
        if ([grpc.status.ABORTED, grpc.status.FAILED_PRECONDITION, grpc.status.UNAUTHENTICATED].includes(error.code)) return;
        throw error;
      }
    }
  };
  const update = (seq, next) => {
    if (sequence !== null && seq <= sequence) return;
    sequence = seq;
    decision = next;
    busy = busy.then(act);
  };
  const tryStart = () => {
    if (start) busy = busy.then(() => startIfFull(client, name, token));
  };
  const mine = (value) => colour !== null && value === colour;
  const finish = (why) => {
    end = why;
    control.stop?.();
  };
  await follow(client, name, {
    token,
    control,
    onSnapshot: (snapshot) => {
      if (snapshot.view) {
        colour = snapshot.view.viewer || colour;
        update(snapshot.sequence, snapshot.view.decision);
      } else {
        update(snapshot.sequence, null); // open: waiting for the start
        tryStart();
      }
    },
    onEntry: (entry) => {
      switch (entry.change) {
        case "action_applied":
          update(entry.sequence, entry.action_applied.decision);
          break;
        case "game_started":
          update(entry.sequence, entry.game_started.view.decision);
          break;
        case "action_taken_back":
          update(entry.sequence, entry.action_taken_back.view.decision);
          break;
        case "seat_joined":
          update(entry.sequence, decision);
          tryStart();
          break;
        case "seat_left":
          update(entry.sequence, decision);
          if (mine(entry.seat_left.colour)) finish("seat_left");
          break;
        case "seat_taken_over":
          update(entry.sequence, decision);
          if (mine(entry.seat_taken_over.colour)) finish("taken_over");
          break;
        case "game_stopped":
          update(entry.sequence, null); // the server stopped the game: nobody decides
          break;
        default:
          update(entry.sequence, decision);
      }
    },
  });
  await busy.catch((error) => {
    if (end === null) throw error;
  });
  const { snapshot } = await call(client, "GetGame", { name });
  return {
    colour,
    state: snapshot.game.state,
    // A game the server stopped (snapshot.game.stopped: its reason and rounds) has no results.
    end: end ?? (snapshot.game.stopped ? "game_stopped" : FINAL.has(snapshot.game.state) ? "game_over" : "stream_ended"),
    results: snapshot.game.results?.length ? snapshot.game.results : snapshot.view?.result ?? [],
  };
}

function waitForReady(client, seconds) {
  return new Promise((resolve, reject) => {
    client.waitForReady(Date.now() + seconds * 1000, (error) => {
      if (error) reject(new Error(`no game server answers at ${client.getChannel().getTarget()} (${error.message})`));
      else resolve();
    });
  });
}

const FLAGS = new Set(["auto-start", "start"]); // options that take no value

function options(argv) {
  const positional = [];
  const named = {};
  for (let i = 0; i < argv.length; i += 1) {
    if (!argv[i].startsWith("--")) positional.push(argv[i]);
    else if (FLAGS.has(argv[i].slice(2))) named[argv[i].slice(2)] = true;
    else if (i + 1 < argv.length) named[argv[i].slice(2)] = argv[(i += 1)];
    else throw usage(`${argv[i]} needs a value`);
  }
  return { positional, named };
}

const STATES = { open: "GAME_STATE_OPEN", active: "GAME_STATE_ACTIVE", finished: "GAME_STATE_FINISHED" };

async function main(argv) {
  const [command, ...rest] = argv;
  const { positional, named } = options(rest);
  const server = named.server ?? process.env.TONGIAKI_SERVER ?? "localhost:50051";
  const out = (value) => process.stdout.write(`${typeof value === "string" ? value : JSON.stringify(value)}\n`);
  const game = positional[0];
  const needGame = () => {
    if (!game || !game.startsWith("games/")) throw usage(`${command} needs a game name, games/ID`);
  };
  const needToken = () => {
    if (!named.token) throw usage(`${command} needs --token TOKEN (printed by join)`);
  };
  if (!["list", "create", "join", "start", "watch", "play"].includes(command)) {
    throw usage("usage: tongiaki.mjs list|create|join|start|watch|play ... (see the file's header)");
  }
  const client = await connect(server);
  try {
    await waitForReady(client, Number(named.wait ?? 10));
    switch (command) {
      case "list": {
        let page_token = "";
        const state = named.state ? STATES[named.state] : "GAME_STATE_UNSPECIFIED";
        if (!state) throw usage("--state is open, active or finished");
        do {
          const page = await call(client, "ListGames", { page_size: 100, page_token, state });
          for (const g of page.games) {
            out({ name: g.name, state: g.state, seats: g.seats.map((s) => [s.colour, s.occupied]) });
          }
          page_token = page.next_page_token;
        } while (page_token);
        break;
      }
      case "create": {
        if (!named.seats) throw usage("create needs --seats, e.g. --seats yellow,red");
        const seats = named.seats.split(",").map(colourName);
        const bots = (named.bots ? named.bots.split(",") : []).map((c) => ({ colour: colourName(c) }));
        const created = await change(client, "CreateGame", {
          seats,
          settings: {
            display_name: named.name ?? "",
            auto_start: named["auto-start"] === true,
            bots,
            webhook_url: named.webhook ?? "",
          },
          request_id: randomUUID(),
        });
        out(created.game.name);
        if (created.webhook_secret) process.stderr.write(`webhook secret: ${created.webhook_secret}\n`);
        break;
      }
      case "join": {
        needGame();
        const joined = await change(client, "JoinGame", {
          name: game,
          colour: named.colour ? colourName(named.colour) : "COLOUR_UNSPECIFIED",
          display_name: named.name ?? "node",
          request_id: randomUUID(),
        });
        out(joined.seat_token);
        process.stderr.write(`joined ${game} as ${joined.colour}\n`);
        break;
      }
      case "start": {
        needGame();
        needToken();
        const started = await change(client, "StartGame", { name: game, request_id: randomUUID() }, named.token);
        out({ name: started.game.name, state: started.game.state });
        break;
      }
      case "watch": {
        needGame();
        const after = named.after === undefined ? null : Number(named.after);
        const drops = Number(named["drop-every"] ?? 0);
        await follow(client, game, {
          after,
          onSnapshot: (s) => out({ sequence: s.sequence, kind: "snapshot", state: s.game.state }),
          onEntry: (entry) => describe(entry).forEach(out),
          drop: drops > 0 ? (received) => received % drops === 0 : undefined,
        });
        break;
      }
      case "play": {
        needGame();
        needToken();
        const outcome = await play(client, game, named.token, {
          seed: Number(named.seed ?? 1),
          start: named.start === true,
          print: out,
        });
        out({ done: true, ...outcome });
        break;
      }
    }
  } finally {
    client.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((error) => {
    if (error.usage) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    const why = reason(error);
    process.stderr.write(`${why ? `${why}: ` : ""}${error.details ?? error.message}\n`);
    process.exitCode = 1;
  });
}
