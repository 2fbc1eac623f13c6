// The one place that turns the contract's enum names ("COLOUR_RED") into plain
// names ("red") and back.

const plain = (prefix) => (value) => String(value ?? "").replace(prefix, "").toLowerCase();
const wire = (prefix) => (name) => `${prefix}${String(name).toUpperCase()}`;

// "COLOUR_RED" -> "red", and back.
export const colourName = plain(/^COLOUR_/);
export const wireColour = wire("COLOUR_");
// "GAME_STATE_ACTIVE" -> "active".
export const stateName = plain(/^GAME_STATE_/);
// A decision's kind: "DECISION_KIND_LAND" -> "land" ("" for no decision), and back.
export const kindOf = (decision) => plain(/^DECISION_KIND_/)(decision?.kind);
export const wireKind = wire("DECISION_KIND_");
// "BOT_LEVEL_STRONG" -> "strong", and back.
export const levelName = plain(/^BOT_LEVEL_/);
export const wireLevel = wire("BOT_LEVEL_");

// A Hex message as "q,r" and a Beach message as "q,r,b": the keys the client's maps
// and targets use (a field left out of the wire is 0).
export const hexKey = (hex) => `${hex?.q ?? 0},${hex?.r ?? 0}`;
export const beachKey = (beach) => `${hexKey(beach)},${beach?.index ?? 0}`;
