// The contract's enum names as the gateway's JSON carries them ("COLOUR_RED",
// "GAME_STATE_ACTIVE", "DECISION_KIND_LAND", "BOT_LEVEL_STRONG"): the one place
// the browser turns them into the plain names it works with ("red", "active",
// "land", "strong") and back.

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
