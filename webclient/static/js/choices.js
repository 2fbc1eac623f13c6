// The options of a decision as picks on the board. Each option is split into
// stages of keys ("island:q,r", "beach:q,r,b", ...); a stage of several keys is
// picked in any order. The player picks keys one by one; only keys of options
// still consistent with the picks so far are offered, so every target on the
// board leads to a legal option. Legality itself is the server's: we only
// filter the list it sent.

import { colourName, hexKey, beachKey } from "./wire.js";

export function actOf(option) {
  return Object.keys(option)[0];
}

export function stagesOf(option) {
  const act = actOf(option);
  const body = option[act];
  switch (act) {
    case "setup":
      return [[`beach:${beachKey(body.beach)}`]];
    case "expand": {
      const island = body.island;
      const beaches = (body.beaches ?? []).map((b) => `beach:${hexKey(island)},${b}`);
      if (body.take) return [[`take:${beachKey(body.take)}`], [`island:${hexKey(island)}`], beaches];
      return [[`island:${hexKey(island)}`], beaches];
    }
    case "royal":
      return [[`royal:${hexKey(body.island)}`]];
    case "settle":
      return [["settle"]];
    case "tonga":
      return [(body.beaches ?? []).map((b) => `tonga:0,0,${b}`)];
    case "single":
      return [[`single:${beachKey(body.beach)}`]];
    case "emigrate":
      return [[`jetty:${beachKey(body.beach)},${body.dir ?? 0}`]];
    case "land": {
      const ships = (body.ships ?? []).map((s) => `land:${s.beach ?? 0}:${colourName(s.colour)}`);
      return [ships.length ? ships : ["land:none"]];
    }
    case "place":
      return [[`end:${hexKey(body.origin)},${body.dir ?? 0}`]];
    case "settle_ship":
      return [[`beach:${beachKey(body.beach)}`]];
    default:
      return [[`other:${JSON.stringify(option)}`]];
  }
}

// Where an option stands after `picks`: null if inconsistent, else the keys it
// offers next (empty when complete).
function progress(stages, picks) {
  const left = stages.map((stage) => [...stage]);
  let s = 0;
  for (const key of picks) {
    while (s < left.length && left[s].length === 0) s += 1;
    if (s >= left.length) return null;
    const i = left[s].indexOf(key);
    if (i < 0) return null;
    left[s].splice(i, 1);
  }
  while (s < left.length && left[s].length === 0) s += 1;
  return s < left.length ? left[s] : [];
}

export class Picker {
  constructor(decision) {
    this.decision = decision;
    this.options = (decision?.options ?? []).map((action, index) => ({
      action,
      index,
      stages: stagesOf(action),
    }));
    this.picks = [];
  }

  remaining() {
    return this.options.filter((o) => progress(o.stages, this.picks) !== null);
  }

  // Keys that can be picked next, each with how many options it keeps.
  targets() {
    const out = new Map();
    for (const o of this.options) {
      const next = progress(o.stages, this.picks);
      if (!next) continue;
      for (const key of new Set(next)) out.set(key, (out.get(key) ?? 0) + 1);
    }
    return out;
  }

  // Pick `key`; returns the chosen option once only one is left.
  pick(key) {
    this.picks.push(key);
    const left = this.remaining();
    if (left.length === 0) {
      this.picks.pop();
      return null;
    }
    return left.length === 1 ? left[0] : null;
  }

  reset() {
    this.picks = [];
  }

  // Options the picks so far complete (several when one extends another, as a
  // landing with fewer ships does).
  complete() {
    return this.options.filter((o) => {
      const next = progress(o.stages, this.picks);
      return next !== null && next.length === 0;
    });
  }

  // Picks still needed in the current stage: the fewest and the most over the
  // options still possible (0 when one is complete).
  needed() {
    const counts = this.options.map((o) => progress(o.stages, this.picks)).filter(Boolean).map((n) => n.length);
    return counts.length ? { least: Math.min(...counts), most: Math.max(...counts) } : { least: 0, most: 0 };
  }

  // Pick every key of `option` (an option chosen from the list).
  choose(option) {
    this.picks = option.stages.flat();
  }
}
