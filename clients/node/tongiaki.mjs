#!/usr/bin/env node
// A command-line client for the Tongiaki game server, built from proto/ alone.
//
//   node tongiaki.mjs list  [--server HOST:PORT]
//   node tongiaki.mjs join  GAME [--colour COLOUR_RED] [--name NAME]
//   node tongiaki.mjs watch GAME [--after SEQUENCE]
//   node tongiaki.mjs play  GAME --token TOKEN [--seed N]
//
// `watch` prints every event as one JSON line as it arrives and resumes after
// a dropped stream from the last sequence it saw. `play` acts for the seat of
// TOKEN, choosing among the options the server offers (seeded, uniform), and
// prints one JSON line per action it submits. Both stop when the game is over.

import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const here = path.dirname(fileURLToPath(import.meta.url));
const PROTO_ROOT = process.env.TONGIAKI_PROTO ?? path.resolve(here, "../../proto");
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.ABORTED]);

/** The GameService client for `server`. */
export function connect(server) {
  const definition = protoLoader.loadSync("tongiaki/v1/game_service.proto", {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const loaded = grpc.loadPackageDefinition(definition);
  return new loaded.tongiaki.v1.GameService(server, grpc.credentials.createInsecure());
}

function call(client, method, request, token) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set("authorization", `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    client[method](request, metadata, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** The reason of a failed call (google.rpc.ErrorInfo), as far as the details say. */
export function reason(error) {
  const details = error?.metadata?.get("grpc-status-details-bin")?.[0];
  if (!details) return null;
  const text = details.toString("latin1");
  const match = text.match(/([A-Z][A-Z_]{2,})/);
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
export async function follow(client, name, { token, after, onSnapshot, onEntry, drop } = {}) {
  let last = after ?? null;
  for (let attempt = 0; ; attempt += 1) {
    const request = { name };
    if (last !== null) request.after_sequence = last;
    const metadata = new grpc.Metadata();
    if (token) metadata.set("authorization", `Bearer ${token}`);
    const stream = client.WatchGame(request, metadata);
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
    if (outcome.ended) return last;
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

/** Play the seat of `token` until the game is over. */
export async function play(client, name, token, { seed = 1, print = () => {} } = {}) {
  const pick = generator(seed);
  const me = await call(client, "GetGame", { name }, token);
  const colour = me.snapshot.view.viewer;
  let sequence = null;
  let decision = null;
  let busy = Promise.resolve();
  const act = async () => {
    while (decision && decision.player === colour && sequence !== null) {
      const option = decision.options[pick(decision.options.length)];
      const request = { name, sequence, request_id: randomUUID(), action: option };
      try {
        const response = await call(client, "SubmitAction", request, token);
        print({ sequence: response.entry.sequence, submitted: option.act });
        sequence = response.entry.sequence;
        decision = response.entry.action_applied.decision;
      } catch (error) {
        if (error.code === grpc.status.ABORTED) return; // stale: the stream brings what changed
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
  await follow(client, name, {
    token,
    onSnapshot: (snapshot) => update(snapshot.sequence, snapshot.view.decision),
    onEntry: (entry) => {
      if (entry.change === "action_applied") update(entry.sequence, entry.action_applied.decision);
      else if (entry.change === "game_started") update(entry.sequence, entry.game_started.view.decision);
      else update(entry.sequence, decision);
    },
  });
  await busy;
  return colour;
}

function options(argv) {
  const positional = [];
  const named = {};
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i].startsWith("--")) named[argv[i].slice(2)] = argv[(i += 1)];
    else positional.push(argv[i]);
  }
  return { positional, named };
}

async function main(argv) {
  const [command, ...rest] = argv;
  const { positional, named } = options(rest);
  const client = connect(named.server ?? process.env.TONGIAKI_SERVER ?? "localhost:50051");
  const out = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
  const game = positional[0];
  switch (command) {
    case "list": {
      let page_token = "";
      do {
        const page = await call(client, "ListGames", { page_size: 100, page_token });
        for (const g of page.games) {
          out({ name: g.name, state: g.state, seats: g.seats.map((s) => [s.colour, s.occupied]) });
        }
        page_token = page.next_page_token;
      } while (page_token);
      break;
    }
    case "join": {
      const joined = await call(client, "JoinGame", {
        name: game,
        colour: named.colour ?? "COLOUR_UNSPECIFIED",
        display_name: named.name ?? "node",
      });
      out({ colour: joined.colour, seat_token: joined.seat_token });
      break;
    }
    case "watch": {
      const after = named.after === undefined ? null : Number(named.after);
      let drops = Number(named["drop-every"] ?? 0);
      await follow(client, game, {
        after,
        onSnapshot: (s) => out({ sequence: s.sequence, kind: "snapshot" }),
        onEntry: (entry) => describe(entry).forEach(out),
        drop: drops > 0 ? (received) => received % drops === 0 : undefined,
      });
      drops = 0;
      break;
    }
    case "play": {
      const colour = await play(client, game, named.token, {
        seed: Number(named.seed ?? 1),
        print: out,
      });
      out({ done: true, colour });
      break;
    }
    default:
      process.stderr.write("usage: tongiaki.mjs list|join|watch|play ... (see the file's header)\n");
      process.exitCode = 2;
  }
  client.close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`${error.code ?? ""} ${reason(error) ?? ""} ${error.message}\n`);
    process.exitCode = 1;
  });
}
