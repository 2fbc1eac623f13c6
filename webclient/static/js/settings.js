// This browser's preferences for playing: playback speed, confirmations, the
// turn alerts and the seat colours' palette. Kept in localStorage; a missing or
// broken value is the default.

const KEY = "tongiaki.prefs";

// Playback speeds: a factor on the pauses and animations; 0 shows at once.
export const SPEEDS = [0.5, 1, 2, 4, 0];

const DEFAULTS = { speed: 1, confirm: true, sound: false, notify: false, palette: "standard" };

// The choices made on this page when the browser keeps no storage for it (a
// private window, or a board framed by another site).
let kept = {};

function load() {
  try {
    return { ...DEFAULTS, ...kept, ...JSON.parse(localStorage.getItem(KEY) ?? "{}") };
  } catch {
    return { ...DEFAULTS, ...kept };
  }
}

export const prefs = {
  get(name) {
    return load()[name];
  },
  set(name, value) {
    kept = { ...kept, [name]: value };
    try {
      localStorage.setItem(KEY, JSON.stringify({ ...load(), [name]: value }));
    } catch {
      // Storage may be unavailable (private mode, a framed board): the choice lasts for this page.
    }
  },
  speed() {
    const value = Number(load().speed);
    return SPEEDS.includes(value) ? value : DEFAULTS.speed;
  },
};
