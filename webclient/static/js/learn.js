// "Learn to play": start a tutorial game (the server's fixed first game against
// a gentle bot), sit this browser in its person's seat and open it; the game
// page's coach (tutorial.js) takes over from there.

import { call, profile, seats } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { errorText } from "./text.js";

// The tutorial the server plays (GameSettings.tutorial).
const TUTORIAL = "first_game";

export async function startTutorial() {
  const reply = await call("POST", "/games", {
    settings: { tutorial: TUTORIAL },
  });
  const id = reply.game.name.split("/")[1];
  const person = reply.game.seats.find((s) => !s.occupied);
  const joined = await call("POST", `/games/${id}/join`, { colour: person.colour, display_name: profile.name() });
  seats.set(id, joined.colour, joined.seat_token);
  window.location.assign(`/games/${id}`);
}

// A button that starts the tutorial; a refusal is shown in `errorNode`.
export function learnButton(errorNode, attrs = {}) {
  const button = h("button", {
    type: "button", class: "primary", testid: "learn", ...attrs,
    onclick: async () => {
      button.disabled = true;
      try {
        await startTutorial();
      } catch (error) {
        errorNode.textContent = errorText(error);
        button.disabled = false;
      }
    },
  }, t("tutorial.start"));
  return button;
}

// The /learn page: what the tutorial teaches (written by the server), and its button.
export class LearnPage {
  constructor(root) {
    this.root = root;
  }

  start() {
    const error = h("p", { class: "error", testid: "error", role: "alert" });
    this.root.querySelector("[data-testid=learn-start]")?.replaceChildren(learnButton(error), error);
  }
}
