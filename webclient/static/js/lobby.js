// The lobby: create a game (the creator takes its first person's seat), list
// games to join or watch, and finished games with their winner and replay.

import { call, profile, seats as seatStore } from "./api.js";
import { h } from "./dom.js";
import { conjunction, t, td, tn } from "./i18n.js";
import { COLOURS, swatch } from "./ships.js";
import { BOT_LEVELS, botLabel, botLevel, errorText, gameTitle, isBot } from "./text.js";
import { myGames, renderMine, when } from "./mygames.js";
import { learnButton } from "./learn.js";
import { colourName, wireColour, stateName, wireLevel } from "./wire.js";

const stateLabel = (s) => td(`state.${stateName(s)}`);

// Turn clocks offered, in seconds (0: none).
const CLOCKS = [0, 30, 60, 120, 300];

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
    const clock = h("select", { id: "turn-clock", testid: "turn-clock" },
      ...CLOCKS.map((s) => h("option", { value: String(s) }, s ? tn("lobby.clock_seconds", s) : t("lobby.clock_none"))));
    // `none` names the empty choice; a level it already is (`same`) is not listed again.
    const botChoice = (id, none, same = null) => h("select", { id, testid: id },
      h("option", { value: "" }, none),
      ...BOT_LEVELS.filter((level) => level !== same).map((level) => h("option", { value: level }, td(`bot.${level}`))));
    const leaveBot = botChoice("leave-bot", t("lobby.leave_open"));
    const timeoutBot = botChoice("timeout-bot", t("lobby.timeout_random"), "random");
    this.error = h("p", { class: "error", testid: "error", role: "alert" });
    const form = h("form", { class: "card create", id: "create", testid: "create-form", onsubmit: (e) => {
      e.preventDefault();
      this.create(picks, {
        display_name: title.value,
        auto_start: auto.checked,
        turn_timeout_seconds: Number(clock.value),
        leave_bot: leaveBot.value ? wireLevel(leaveBot.value) : undefined,
        timeout_bot: timeoutBot.value ? wireLevel(timeoutBot.value) : undefined,
      });
    } },
    h("h2", {}, t("lobby.create")),
    h("label", { for: "player-name" }, t("lobby.your_name")), name,
    h("label", { for: "game-title" }, t("lobby.game_title")), title,
    h("fieldset", {}, h("legend", {}, t("lobby.seats")), ...picks),
    h("label", {}, auto, t("lobby.auto_start")),
    h("details", { class: "options-more", testid: "game-options" },
      h("summary", {}, t("lobby.options")),
      h("label", { for: "turn-clock" }, t("lobby.turn_clock")), clock,
      h("label", { for: "timeout-bot" }, t("lobby.timeout_bot")), timeoutBot,
      h("label", { for: "leave-bot" }, t("lobby.leave_bot")), leaveBot),
    h("button", { type: "submit", class: "primary", testid: "create-game" }, t("lobby.create_button")),
    this.error);
    this.list = h("ul", { class: "games", testid: "games" });
    this.finished = h("table", { class: "finished", testid: "finished" });
    this.mine = h("section", { class: "card", testid: "lobby-mine", hidden: true });
    this.root.replaceChildren(
      h("h1", {}, t("lobby.title")),
      h("p", { class: "intro" }, t("lobby.intro")),
      this.mine,
      this.learnCard(),
      form,
      h("section", { class: "card" }, h("h2", {}, t("lobby.games")), this.list),
      h("section", { class: "card" }, h("h2", {}, t("lobby.finished")), this.finished),
    );
    // Sent here to create a game (the tutorial's "Play a new game"): the form in sight,
    // again once this browser's games above it are listed.
    this.form = location.hash === "#create" ? form : null;
    this.form?.scrollIntoView();
    this.refresh();
    this.refreshMine().then(() => this.form?.scrollIntoView());
    setInterval(() => this.refresh(), 5000);
    setInterval(() => !document.hidden && this.refreshMine(), 15000);
  }

  // This browser's games, the ones to act in first (all of them on /my).
  async refreshMine() {
    const rows = (await myGames()).filter((row) => row.seat && stateName(row.state) !== "finished");
    this.mine.hidden = !rows.length;
    this.mine.replaceChildren(h("h2", {}, t("my.title")), ...renderMine(rows, 5),
      h("p", {}, h("a", { href: "/my", testid: "my-all" }, t("my.all"))));
  }

  // New players start here: the tutorial, a first game with a coach.
  learnCard() {
    const error = h("p", { class: "error", role: "alert" });
    return h("section", { class: "card learn-card", testid: "learn-card" },
      h("h2", {}, t("tutorial.lobby_title")),
      h("p", {}, t("tutorial.lobby_intro")),
      learnButton(error), error);
  }

  // Create the game, then sit its creator in the first seat not played by a bot.
  async create(picks, settings) {
    const chosen = picks.filter((pick) => pick.querySelector("input").checked);
    const seats = chosen.map((pick) => wireColour(pick.querySelector("input").value));
    const bots = chosen
      .map((pick) => pick.querySelector("select"))
      .filter((select) => select.value)
      .map((select) => ({
        colour: wireColour(select.dataset.colour),
        level: wireLevel(select.value),
      }));
    try {
      const reply = await call("POST", "/games", { seats, settings: { ...settings, bots } });
      const id = reply.game.name.split("/")[1];
      const person = reply.game.seats.find((s) => !s.occupied);
      if (person) {
        const joined = await call("POST", `/games/${id}/join`, { colour: person.colour, display_name: profile.name() });
        seatStore.set(id, joined.colour, joined.seat_token);
      }
      window.location.assign(`/games/${id}`);
    } catch (error) {
      this.error.textContent = errorText(error);
    }
  }

  async refresh() {
    try {
      // Oldest first, page by page: the newest are on the last page.
      let all = [];
      let token = "";
      for (let i = 0; i < 20; i += 1) {
        const reply = await call("GET", `/games?page_size=1000&page_token=${encodeURIComponent(token)}`);
        all = all.concat(reply.games ?? []);
        token = reply.next_page_token ?? "";
        if (!token) break;
      }
      all = all.slice(-300).reverse();
      const games = all.filter((g) => stateName(g.state) !== "finished");
      const done = all.filter((g) => stateName(g.state) === "finished");
      this.list.replaceChildren(...games.map((game) => this.item(game)));
      if (!games.length) this.list.replaceChildren(h("li", { class: "muted" }, t("lobby.no_games")));
      this.finished.replaceChildren(
        h("thead", {}, h("tr", {}, h("th", {}, t("lobby.game")), h("th", {}, t("lobby.winner")), h("th", {}, t("lobby.replay")))),
        h("tbody", {}, ...done.map((game) => this.finishedRow(game))));
    } catch (error) {
      this.error.textContent = errorText(error);
    }
  }

  item(game) {
    const id = game.name.split("/")[1];
    const taken = (game.seats ?? []).filter((s) => s.occupied).length;
    return h("li", { testid: "game-item" },
      h("a", { href: `/games/${id}`, testid: "game-link" }, gameTitle(game.settings, id)),
      " ",
      h("span", { class: "muted" }, stateLabel(game.state), " · ",
        tn("lobby.seats_taken", (game.seats ?? []).length, { taken }), " · ",
        when(Date.parse(game.create_time ?? "") || 0)),
      h("span", { class: "swatches" }, ...(game.seats ?? []).map((s) => {
        const colour = colourName(s.colour);
        return isBot(s)
          ? h("span", { class: "bot-seat", testid: "bot-seat", "data-colour": colour, "data-level": botLevel(s) },
            swatch(colour), botLabel(s))
          : swatch(colour);
      })));
  }

  finishedRow(game) {
    const id = game.name.split("/")[1];
    const names = Object.fromEntries((game.seats ?? []).map((s) => [colourName(s.colour), s.display_name]));
    const winners = (game.results ?? []).filter((r) => r.rank === 1).map((r) => {
      const c = colourName(r.colour);
      return `${names[c] || td(`player.${c}`)} (${tn("board.points", r.points)})`;
    });
    return h("tr", { testid: "finished-game", "data-game": id },
      h("td", { class: "name-cell" }, h("a", { class: "who", href: `/games/${id}`, testid: "game-link",
        title: gameTitle(game.settings, id) }, gameTitle(game.settings, id))),
      h("td", { testid: "winner" }, game.stopped ? t("status.stopped") : conjunction(winners)),
      h("td", {}, h("a", { href: `/games/${id}?replay=1`, testid: "replay-link" }, t("lobby.replay"))));
  }
}
