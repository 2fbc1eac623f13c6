// Telling a player that it is their turn: the tab title, an optional sound and,
// when allowed, a browser notification; and the turn clock counting down.

import { t } from "./i18n.js";
import { prefs } from "./settings.js";

export class TurnAlerts {
  constructor() {
    this.title = document.title;
    this.was = false;
  }

  // Call after every render: `mine` whether the player decides now.
  update(mine) {
    document.title = mine ? `● ${t("status.your_turn")} · ${this.title}` : this.title;
    if (mine && !this.was) {
      if (prefs.get("sound")) beep();
      if (prefs.get("notify") && document.hidden && "Notification" in window && Notification.permission === "granted") {
        try {
          new Notification(t("app.title"), { body: t("status.your_turn"), tag: "tongiaki-turn" });
        } catch {
          // Some browsers allow notifications from service workers only.
        }
      }
    }
    this.was = mine;
  }
}

// Ask for the browser's permission once the player turns notifications on.
export async function allowNotifications() {
  if (!("Notification" in window)) return false;
  const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  return answer === "granted";
}

let audio = null;
function beep() {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.4);
  } catch {
    // No audio here.
  }
}

// The turn clock: seconds left of `limit` since `since` (ms, performance.now()).
export function clockText(limit, since) {
  const left = Math.max(0, Math.ceil(limit - (performance.now() - since) / 1000));
  const m = Math.floor(left / 60);
  const s = String(left % 60).padStart(2, "0");
  return { left, text: `${m}:${s}` };
}
