// The lobby: create a game, list games, open one to join or watch.

import { call, profile } from "./api.js";
import { h } from "./dom.js";
import { t, td, tn } from "./i18n.js";
import { COLOURS, swatch } from "./ships.js";
import { BOT_LEVELS, botLabel, botLevel, errorText, isBot } from "./text.js";

const stateName = (s) => td(`state.${String(s).replace(/^GAME_STATE_/, "").toLowerCase()}`);

export class LobbyPage {
  constructor(root) {
    this.root = root;
  }

  start() {
    const name = h("input", {
      id: "player-name", testid: "player-name", maxlength: "100", value: profile.name(),
      oninput: (e) => profile.setName(e.target.value),
    });
    const picks = COLOURS.map((colour, i) => h("div", { class: "colour-pick" },
      h("label", {},
        h("input", { type: "checkbox", value: colour, checked: i % 2 === 0, testid: `seat-${colour}` }),
        swatch(colour), td(`colour.${colour}`)),
      " ",
      h("select", { testid: `seat-player-${colour}`, "data-colour": colour,
        "aria-label": t("lobby.seat_player", { colour: td(`colour.${colour}`) }) },
      h("option", { value: "" }, t("lobby.seat_person")),
      ...BOT_LEVELS.map((level) => h("option", { value: level }, td(`bot.${level}`))))));
    const title = h("input", { id: "game-title", testid: "game-title", maxlength: "100" });
    const auto = h("input", { type: "checkbox", id: "auto-start", testid: "auto-start" });
    this.error = h("p", { class: "error", testid: "error", role: "alert" });
    const form = h("form", { class: "card create", testid: "create-form", onsubmit: (e) => {
      e.preventDefault();
      this.create(picks, title.value, auto.checked);
    } },
    h("h2", {}, t("lobby.create")),
    h("label", { for: "player-name" }, t("lobby.your_name")), name,
    h("label", { for: "game-title" }, t("lobby.game_title")), title,
    h("fieldset", {}, h("legend", {}, t("lobby.seats")), ...picks),
    h("label", {}, auto, t("lobby.auto_start")),
    h("button", { type: "submit", testid: "create-game" }, t("lobby.create_button")),
    this.error);
    this.list = h("ul", { class: "games", testid: "games" });
    this.root.replaceChildren(
      h("h1", {}, t("lobby.title")),
      h("p", { class: "intro" }, t("lobby.intro")),
      form,
      h("section", { class: "card" }, h("h2", {}, t("lobby.games")), this.list),
    );
    this.refresh();
    setInterval(() => this.refresh(), 5000);
  }

  async create(picks, title, autoStart) {
    const chosen = picks.filter((pick) => pick.querySelector("input").checked);
    const seats = chosen.map((pick) => `COLOUR_${pick.querySelector("input").value.toUpperCase()}`);
    const bots = chosen
      .map((pick) => pick.querySelector("select"))
      .filter((select) => select.value)
      .map((select) => ({
        colour: `COLOUR_${select.dataset.colour.toUpperCase()}`,
        level: `BOT_LEVEL_${select.value.toUpperCase()}`,
      }));
    try {
      const reply = await call("POST", "/games", {
        seats,
        settings: { display_name: title, auto_start: autoStart, bots },
      });
      window.location.assign(`/games/${reply.game.name.split("/")[1]}`);
    } catch (error) {
      this.error.textContent = errorText(error);
    }
  }

  async refresh() {
    try {
      const reply = await call("GET", "/games?page_size=100");
      const games = (reply.games ?? []).slice().reverse();
      this.list.replaceChildren(...games.map((game) => {
        const id = game.name.split("/")[1];
        const taken = (game.seats ?? []).filter((s) => s.occupied).length;
        return h("li", { testid: "game-item" },
          h("a", { href: `/games/${id}`, testid: "game-link" }, game.settings?.display_name || id),
          " ",
          h("span", { class: "muted" }, stateName(game.state), " · ",
            tn("lobby.seats_taken", (game.seats ?? []).length, { taken })),
          h("span", { class: "swatches" }, ...(game.seats ?? []).map((s) => {
            const colour = String(s.colour).replace("COLOUR_", "").toLowerCase();
            return isBot(s)
              ? h("span", { class: "bot-seat", testid: "bot-seat", "data-colour": colour, "data-level": botLevel(s) },
                swatch(colour), botLabel(s))
              : swatch(colour);
          })));
      }));
      if (!games.length) this.list.replaceChildren(h("li", { class: "muted" }, t("lobby.no_games")));
    } catch (error) {
      this.error.textContent = errorText(error);
    }
  }
}
