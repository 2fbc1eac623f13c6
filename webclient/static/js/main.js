// Entry point: load the catalog and the tiles, then the page's controller.

import { loadCatalog } from "./i18n.js";
import { loadTiles } from "./geometry.js";
import { seats } from "./api.js";

const body = document.body;
const staticBase = body.dataset.static;
// A seat link's token leaves the address bar before anything else happens; one
// pasted over this very game's address opens the page anew, to be taken the same way.
const linked = body.dataset.page === "game" ? seats.fromLink(body.dataset.game) : null;
if (body.dataset.page === "game") {
  window.addEventListener("hashchange", () => {
    if (window.location.hash.startsWith("#seat=")) window.location.reload();
  });
}

await Promise.all([loadCatalog(staticBase, body.dataset.locale), loadTiles(`${staticBase}tiles.json`)]);

// The language switch applies at once; its button is for pages without scripts.
const lang = document.querySelector("[data-testid=lang-form]");
if (lang) {
  lang.querySelector("[data-testid=lang-apply]").hidden = true;
  lang.querySelector("select").addEventListener("change", () => lang.submit());
}

const root = document.getElementById("app");
if (body.dataset.page === "howto") {
  const { HowToPage } = await import("./howto.js");
  new HowToPage(root).start();
} else if (body.dataset.page === "learn") {
  const { LearnPage } = await import("./learn.js");
  new LearnPage(root).start();
} else if (body.dataset.page === "embed") {
  const { EmbedPage } = await import("./embed.js");
  new EmbedPage(root, body.dataset.game, { seat: body.dataset.seat, origin: body.dataset.origin }).start();
} else if (body.dataset.page === "game" && new URLSearchParams(window.location.search).has("replay")) {
  const { ReplayPage } = await import("./replay.js");
  const at = new URLSearchParams(window.location.search).get("at");
  new ReplayPage(root, body.dataset.game, at === null || at === "" ? null : Number(at)).start();
} else if (body.dataset.page === "game") {
  const { GamePage } = await import("./game.js");
  new GamePage(root, body.dataset.game).start(linked);
} else if (body.dataset.page === "my") {
  const { MyGamesPage } = await import("./mygames.js");
  new MyGamesPage(root).start();
} else {
  const { LobbyPage } = await import("./lobby.js");
  new LobbyPage(root).start();
}
