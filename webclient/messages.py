"""Message ids the client builds from data, and the messages with plural forms.

Scripts and templates name most ids literally (``t("lobby.create")``,
``_("app.title")``), and ``pybabel extract`` finds them there. The ids below
are built from event kinds, reason codes, tile ids, colours and directions, or
take a count (``tn(id, count)`` in the scripts); they are declared here so that
extraction finds them too. ``N_`` marks a message, ``Np_`` a message with plural
forms (its plural id is the id itself).
"""

from __future__ import annotations


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction."""
    return msgid


def Np_(msgid: str, plural: str) -> str:
    """Mark ``msgid`` as a message with plural forms for extraction."""
    return msgid


COLOURS = [
    N_("colour.yellow"),
    N_("colour.orange"),
    N_("colour.red"),
    N_("colour.green"),
    N_("colour.blue"),
    N_("colour.purple"),
    N_("colour.unspecified"),
]

PLAYERS = [
    N_("player.yellow"),
    N_("player.orange"),
    N_("player.red"),
    N_("player.green"),
    N_("player.blue"),
    N_("player.purple"),
    N_("player.unspecified"),
]

DIRECTIONS = [N_("dir.0"), N_("dir.1"), N_("dir.2"), N_("dir.3"), N_("dir.4"), N_("dir.5")]

CONNECTION = [
    N_("connection.connecting"),
    N_("connection.live"),
    N_("connection.reconnecting"),
    N_("connection.ended"),
    N_("connection.failed"),
]

DECISIONS = [
    N_("decision.setup"),
    N_("decision.turn"),
    N_("decision.emigrate"),
    N_("decision.land"),
    N_("decision.place"),
    N_("decision.settle_ship"),
    N_("hint.setup"),
    N_("hint.turn"),
    N_("hint.emigrate"),
    N_("hint.land"),
    N_("hint.place"),
    N_("hint.settle_ship"),
    N_("hint_tap.setup"),
    N_("hint_tap.turn"),
    N_("hint_tap.emigrate"),
    N_("hint_tap.land"),
    N_("hint_tap.place"),
    N_("hint_tap.settle_ship"),
]

ERRORS = [
    N_("error.AUTHORIZATION_REPEATED"),
    N_("error.GAME_ALREADY_STARTED"),
    N_("error.GAME_FULL"),
    N_("error.GAME_MOVED"),
    N_("error.GAME_NOT_FINISHED"),
    N_("error.GAME_NOT_FOUND"),
    N_("error.GAME_NOT_STARTED"),
    N_("error.GAME_OVER"),
    N_("error.GAME_STALLED"),
    N_("error.GATEWAY_UNREACHABLE"),
    N_("error.ILLEGAL_ACTION"),
    N_("error.INTERNAL_ERROR"),
    N_("error.INVALID_RECORD"),
    N_("error.INVALID_REQUEST"),
    N_("error.MALFORMED_ACTION"),
    N_("error.MESSAGE_LIMIT"),
    N_("error.NODE_UNAVAILABLE"),
    N_("error.NOT_YOUR_TURN"),
    N_("error.NO_SUCH_SEAT"),
    N_("error.OUTCOME_UNKNOWN"),
    N_("error.RATE_LIMITED"),
    N_("error.REQUEST_TOO_LARGE"),
    N_("error.SEATS_OPEN"),
    N_("error.SEAT_TAKEN"),
    N_("error.SEQUENCE_OUT_OF_RANGE"),
    N_("error.SHUTTING_DOWN"),
    N_("error.STALE_SEQUENCE"),
    N_("error.TAKE_BACK_AFTER_DRAW"),
    N_("error.TAKE_BACK_NOT_LAST"),
    N_("error.TAKE_BACK_NOT_YOURS"),
    N_("error.TOKEN_INVALID"),
    N_("error.TOKEN_MISSING"),
    N_("error.TOKEN_WRONG_GAME"),
    N_("error.TOO_MANY_STREAMS"),
    N_("error.TOO_MANY_WATCHES"),
    N_("error.UNKNOWN_PHRASE"),
    N_("error.UNKNOWN_PLAYER"),
    N_("error.UPSTREAM_ERROR"),
    N_("error.WATCH_LAGGING"),
    N_("error.WEBHOOK_NOT_ALLOWED"),
]

EVENTS = [
    N_("log.action_taken_back"),
    N_("log.sea_crossed_free"),
    N_("log.seat_joined_unnamed"),
    N_("log.ships_placed.settle"),
    N_("log.ships_placed.setup"),
    N_("log.ships_placed.single"),
    Np_("log.ships_placed.expand", "log.ships_placed.expand"),
    Np_("log.ships_placed.tonga", "log.ships_placed.tonga"),
    Np_("log.ships_placed.unspecified", "log.ships_placed.unspecified"),
    Np_("log.emigrated", "log.emigrated"),
    Np_("log.landed", "log.landed"),
    Np_("log.sea_crossed", "log.sea_crossed"),
    Np_("log.voyage_failed", "log.voyage_failed"),
    Np_("log.settlement_started", "log.settlement_started"),
    Np_("log.stranded", "log.stranded"),
    Np_("log.game_stopped", "log.game_stopped"),
]

COUNTED = [
    Np_("board.points", "board.points"),
    Np_("board.out_of_sight_news", "board.out_of_sight_news"),
    Np_("board.out_of_sight_picks", "board.out_of_sight_picks"),
    Np_("decision.more", "decision.more"),
    Np_("undo.button_bots", "undo.button_bots"),
    Np_("pick.supply_limit", "pick.supply_limit"),
    Np_("decision.options", "decision.options"),
    Np_("howto.diagram_voyage", "howto.diagram_voyage"),
    Np_("lobby.seats_taken", "lobby.seats_taken"),
    Np_("lobby.clock_seconds", "lobby.clock_seconds"),
    Np_("playback.skip", "playback.skip"),
    Np_("seats.open_count", "seats.open_count"),
    Np_("pick.more_beaches", "pick.more_beaches"),
    Np_("pick.up_to_beaches", "pick.up_to_beaches"),
    Np_("pick.more_ships", "pick.more_ships"),
    Np_("stack.island_tiles", "stack.island_tiles"),
    Np_("stack.sea_tiles", "stack.sea_tiles"),
    Np_("text.count_colour", "text.count_colour"),
    Np_("help.route_danger", "help.route_danger"),
    Np_("help.island", "help.island"),
    Np_("end.stopped_stalled", "end.stopped_stalled"),
]

#: Every placeholder the catalogs use, by what the client puts there. A number of
#: things is always ``count``, in a message with plural forms; every other number
#: is a label ("beach 2", "danger 3", "Island tiles: 5"), never followed by a noun.
NUMBER_PLACEHOLDERS = frozenset(
    {"count", "taken", "beach", "danger", "points", "q", "r", "island_tiles", "sea_tiles"}
    # Labels of the screens for following a game: a place, a replay step, tie-break figures.
    | {"rank", "total", "at", "last", "a", "b"}
    # The tutorial coach's tip number.
    | {"step"}
    # A player's ships on an island now and at their last move.
    | {"now", "was"}
)
TEXT_PLACEHOLDERS = frozenset(
    {
        "arrangement",
        "beaches",
        "colour",
        "first",
        "second",
        "direction",
        "from",
        "island",
        "islands",
        "name",
        "option",
        "owner",
        "phrase",
        "player",
        "reason",
        "seas",
        "ships",
        "tile",
        "tiles",
        # A turn's acts, the winners, the clock's time (and a game's creation's).
        "acts",
        "players",
        "time",
        # A game's title (My games: the game a rematch follows).
        "game",
        # A list before its final item, and the final item ("a, b" or "c").
        "head",
        "final",
    }
)

#: Captions of the "How to play" diagrams (howto.js fills them from static/howto.json).
DIAGRAMS = [N_("howto.diagram_start"), N_("howto.diagram_landing")]

#: The acts a turn may offer, listed in the turn's instruction.
ACTS = [N_("act.expand"), N_("act.royal"), N_("act.settle"), N_("act.tonga"), N_("act.single")]

#: Quick messages' phrases (the contract's ``Phrase`` values).
PHRASES = [
    N_("phrase.good_luck"),
    N_("phrase.good_game"),
    N_("phrase.well_played"),
    N_("phrase.thinking"),
    N_("phrase.your_turn"),
    N_("phrase.oops"),
    N_("phrase.thanks"),
]

STATES = [N_("state.open"), N_("state.active"), N_("state.finished"), N_("state.unspecified")]

TARGETS = [
    N_("target.beach"),
    N_("target.end"),
    N_("target.island"),
    N_("target.jetty"),
    N_("target.land"),
    N_("target.land_none"),
    N_("target.royal"),
    N_("target.settle"),
    N_("target.single"),
    N_("target.take"),
    N_("target.tonga"),
]

TILES = [
    N_("tile.fiji"),
    N_("tile.hawaii"),
    N_("tile.hiva-oa"),
    N_("tile.mangareva"),
    N_("tile.muroroa"),
    N_("tile.nauru"),
    N_("tile.oahu"),
    N_("tile.rapa-nui"),
    N_("tile.rarotonga"),
    N_("tile.samoa"),
    N_("tile.tahiti"),
    N_("tile.tokelau"),
    N_("tile.tonga"),
    N_("tile.tuamotu"),
    N_("tile.tubuai"),
    N_("tile.tuvalu"),
]

#: Two sentences in a row (a landing, then the ships that went home).
SENTENCES = [N_("text.sentences")]

#: What an option will do (consequences.js), with a number of things.
CONSEQUENCES = [
    Np_("consequence.settle_ships", "consequence.settle_ships"),
    Np_("consequence.settle_points", "consequence.settle_points"),
    Np_("consequence.royal_home", "consequence.royal_home"),
    Np_("consequence.voyage_fails", "consequence.voyage_fails"),
    Np_("consequence.voyage_passes", "consequence.voyage_passes"),
    Np_("consequence.voyage_colours", "consequence.voyage_colours"),
    Np_("consequence.exits", "consequence.exits"),
]

BOTS = [N_("bot.random"), N_("bot.greedy"), N_("bot.strong"), N_("bot.expert")]

#: Lists joined by the language's "or" and "and" (i18n.js: disjunction, conjunction).
LISTS = [N_("list.or"), N_("list.and")]

#: The tutorial coach's tips (tutorial.js shows ``coach.<tip>.title`` and ``coach.<tip>``).
COACH = [
    N_("coach.welcome.title"),
    N_("coach.welcome"),
    N_("coach.setup.title"),
    N_("coach.setup"),
    N_("coach.marks.title"),
    N_("coach.marks"),
    N_("coach.turn.title"),
    N_("coach.turn"),
    N_("coach.emigrate.title"),
    N_("coach.emigrate"),
    N_("coach.stack.title"),
    N_("coach.stack"),
    N_("coach.scoring.title"),
    N_("coach.scoring"),
    N_("coach.others_settle.title"),
    N_("coach.others_settle"),
    N_("coach.route.title"),
    N_("coach.route"),
    N_("coach.danger.title"),
    N_("coach.danger"),
    N_("coach.land.title"),
    N_("coach.land"),
    N_("coach.royal.title"),
    N_("coach.royal"),
    N_("coach.mask.title"),
    N_("coach.mask"),
    N_("coach.settle.title"),
    N_("coach.settle"),
    N_("coach.settle_costly.title"),
    Np_("coach.settle_costly", "coach.settle_costly"),
    N_("coach.place.title"),
    N_("coach.place"),
    N_("coach.settle_ship.title"),
    N_("coach.settle_ship"),
    N_("coach.graduate.title"),
    N_("coach.graduate"),
    N_("coach.graduate_early"),
    N_("coach.no_ship.title"),
    N_("coach.no_ship"),
    N_("coach.end.title"),
    N_("coach.end"),
]
