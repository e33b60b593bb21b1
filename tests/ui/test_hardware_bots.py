"""Bot seats at a physical table: the kiosk in hardware mode with people and bots.

The real ``open_table`` hardware path (``physical.Rig``): the ``Dealer`` driver on the dealer
simulator's pty, the wired ``Panels`` on gpiozero's mock pins for the people, the kiosk's bots
for the bot seats. A bot seat's hand is dealt into the dealer's return loop (nobody sees it, and
nobody takes a card out of its pocket); when the bot plays, the dealer fetches that card from the
loop into the trick pocket and the screen names it; passes to and from a bot stay in the loop and
go out with the others in one release (hardware/README.md, "Bot seats").
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from physical import Rig

from trickref.device.dealer import messages as m
from trickref.engine import cards as C
from trickref.engine.records import parse, replay
from trickref.engine.referee import fairness
from trickref.engine.referee.commands import Fetch, Release
from trickref.engine.referee.events import NewGame
from trickref.engine.referee.referee import Referee
from trickref.ui.table_client import resume_table

MAX_STEPS = 3000


def _loop(rig: Rig) -> list[int]:
    with rig.sim.lock:
        return rig.sim.board.tray(m.LOOP)


class Watch:
    """The fetches and releases the referee gives the dealer."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.steps: list[Any] = []
        self.shown = 0  # bot plays seen on the screen's trick
        self.first = len(rig.ref.game.actions)  # actions taken before the watch began (while the kiosk started)
        self.attach()

    def attach(self) -> None:
        host = self.rig.table.host
        host.on_commands = lambda out: self.steps.extend(c for c in out if isinstance(c, (Fetch, Release)))


def _hand(rig: Rig, watch: Watch, checks: dict[str, Any]) -> None:
    """Play the rest of hand 1 physically (the kiosk's bots play theirs)."""
    for _ in range(MAX_STEPS):
        ref = rig.ref
        g = ref.game
        if rig.table.host.dead:
            _resume(rig, watch)
            continue
        if rig.app.scene.name == "summary" or g.hand_number > 1 or ref.waiting in ("shuffle", "over"):
            return
        for name, (when, what) in checks.items():
            if name not in rig.done and ref.dealer_fault is None and when(rig):
                rig.done.add(name)
                what(rig, watch)
        n = len(g.actions)
        rig.step()
        g = rig.ref.game
        shown = rig.app.scene.model().get("trick", []) if rig.app.scene.name == "play" else []
        for seat, action in g.actions[n:] if g.hand_number == 1 else []:
            if seat in rig.bots and action.kind == "play" and (seat, C.NAMES[action.value]) in shown:
                watch.shown += 1  # the shared screen shows the bot's card on the trick
    raise AssertionError(f"hand 1 did not end: {rig.ref.waiting_text()}; {rig.ref.messages[-5:]}")


def _after_deal(rig: Rig, watch: Watch) -> None:
    """The deal put each bot's hand into the loop: its pocket is empty, the loop holds it all."""
    ref = rig.ref
    g = ref.game
    dealt = {s: list(g.hand_of(s)) + list(ref.given[s][0] if s in ref.given else ()) for s in range(g.n)}
    for s in rig.bots:  # (a bot may have passed already: its passed cards wait in the loop too)
        assert rig.tray(s) == [], f"bot seat {s}'s pocket should be empty: {C.names(rig.tray(s))}"
        assert len(dealt[s]) == 13
    for s in range(g.n):
        if s not in rig.bots:
            assert sorted(rig.tray(s)) == sorted(dealt[s])
    loop = Counter(_loop(rig))
    assert loop == Counter(c for s in rig.bots for c in dealt[s]), "the loop holds exactly the bots' hands"


def _after_passes(rig: Rig, watch: Watch) -> None:
    """The passes went through the loop in one release: people's pockets hold their new hands,
    the loop the bots' new hands (passes to and from a bot never left the dealer)."""
    rig.settle()
    releases = [s for s in watch.steps if isinstance(s, Release)]
    assert len(releases) == 1, releases
    targets = Counter(t for _, t in releases[0].plan)
    g = rig.ref.game
    assert targets["loop"] == sum(len(g.hand_of(s)) for s in rig.bots) or targets["loop"] >= 1
    rig.check_trays()
    assert Counter(_loop(rig)) == Counter(c for s in rig.bots for c in g.hand_of(s))


def _arm_power_cut(rig: Rig, watch: Watch) -> None:
    """The Pi loses power right after a bot chose its card (journaled), before the dealer
    fetched it: the card is still in the loop."""
    def cut(ev: Any, ref: Any) -> bool:
        return ev.TYPE == "bot_action" and "play" in ev.action
    rig.table.host.cut_after = cut


def _resume(rig: Rig, watch: Watch) -> None:
    """The kiosk starts again on the journal (the dealer kept its cards): the bot's card is
    fetched from the loop to the trick pocket, as if nothing had happened."""
    old = rig.table.host
    seat, action = old.referee.game.actions[-1]
    assert seat in rig.bots and action.kind == "play"
    assert action.value in _loop(rig), "the power went before the dealer fetched the bot's card"
    before = old.referee.game.public_view()
    rig.earlier.update(old.handled)
    rig.app.session.table.close()  # the table stops dead: the journal holds every event
    rig.app.session = None
    table = resume_table(seed=rig.seed, **rig.app.table_args)
    assert table is not None and table.mode == "hardware"
    assert table.bots == set(rig.bots) and table.referee.loop_bots == rig.bots
    from trickref.ui.resume import _session

    _session(rig.app, table)
    watch.attach()
    rig.settle()
    assert rig.ref.game.public_view() == before
    assert action.value in rig.tray(m.TRICK) and action.value not in _loop(rig)
    watch.steps.append(Fetch(C.NAMES[action.value], "trick"))  # re-issued on resume
    rig.check_trays()
    rig.done.add("resumed")


def _dealt(rig: Rig) -> bool:
    return rig.ref.accepting() and all(s in rig.bots for s, _ in rig.ref.game.actions)


def _passed(rig: Rig) -> bool:
    g = rig.ref.game
    return rig.ref.accepting() and g.phase in ("play", "bid") and any(a.kind == "pass" for _, a in g.actions)


def _mid_hand(rig: Rig) -> bool:
    g = rig.ref.game
    return rig.ref.accepting() and g.phase == "play" and len(g.actions) > 16


def _check_hand(rig: Rig, watch: Watch) -> None:
    rig.settle()
    ref = rig.ref
    g = ref.game
    assert len(g.finished_hands) >= 1
    record = ref.record()
    assert all(c.ok for c in fairness.verify_record(record))
    replay(parse(record))  # the record reads back
    handled = rig.handled()
    assert handled["touch"] == 0, handled  # nobody entered anything on the screen
    assert handled["bot_action"] > 0 and handled["card_read"] > 0 and handled["dealer_done"] > 0
    # every bot play was a fetch from the loop into the trick pocket, named on the screen
    fetched = Counter((C.parse(s.card), s.target) for s in watch.steps if isinstance(s, Fetch))
    said = [t["text"] for t in rig.ref.messages if t["seat"] is None]
    deck, actions = g.finished_hands[0]
    plays = [(s, a.value) for s, a in actions if a.kind == "play" and s in rig.bots]
    assert len(plays) == (26 if rig.game == "german-whist" else 13) * len(rig.bots)
    watched = [(s, a.value) for s, a in actions[watch.first:] if a.kind == "play" and s in rig.bots]
    assert len(watched) >= len(plays) - 1
    assert not Counter((c, "trick") for _, c in watched) - fetched, "a bot's card was not fetched to the trick pocket"
    assert any(f"plays {C.NAMES[plays[-1][1]]}: the dealer takes it" in t for t in said), said
    assert set(rig.tray(m.TRICK)) >= {c for _, c in plays}
    assert watch.shown >= 3 * len(rig.bots), watch.shown
    assert rig.app.session.table.messages == []  # no table error on the way


@pytest.mark.parametrize("bots", [(1,), (1, 3)], ids=["one-bot", "two-bots"])
def test_a_hand_of_hearts_with_bot_seats_in_hardware_mode(bots: tuple[int, ...]) -> None:
    rig = Rig("hearts", 4, seed=5, bots=bots)
    rig.done = set()
    try:
        rig.start({"target": 50})
        watch = Watch(rig)
        checks: dict[str, Any] = {"deal": (_dealt, _after_deal), "passes": (_passed, _after_passes)}
        if len(bots) == 2:
            checks["power cut"] = (_mid_hand, _arm_power_cut)
        _hand(rig, watch, checks)
        want = set(checks) | ({"resumed"} if "power cut" in checks else set())
        assert rig.done == want, f"never happened: {want - rig.done}"
        _check_hand(rig, watch)
    finally:
        rig.close()


def test_a_hand_of_partnership_spades_with_a_bot_in_hardware_mode() -> None:
    """Seat 2 is a bot: it bids from the kiosk, its cards are fetched from the loop."""
    rig = Rig("partnership-spades", 4, seed=6, bots=(2,))
    rig.done = set()
    try:
        rig.start({"target": 100})
        watch = Watch(rig)
        _hand(rig, watch, {"deal": (_dealt, _after_deal)})
        assert rig.done == {"deal"}
        _check_hand(rig, watch)
        g = rig.ref.game
        assert any(s == 2 and a.kind == "bid" for s, a in g.finished_hands[0][1])
    finally:
        rig.close()


def test_a_hand_of_german_whist_against_a_bot_in_hardware_mode() -> None:
    """One person against the bot: the bot's hand and the stock share the loop; a stock card the
    bot wins or gets stays there (no fetch), the person's come to their pocket; every card of
    the hand ends in the trick pocket."""
    rig = Rig("german-whist", 2, seed=7, bots=(1,))
    rig.done = set()
    try:
        rig.start({"target": 15})
        watch = Watch(rig)
        rig.table.drain()
        g = rig.ref.game
        led = [a.value for s, a in g.actions if s == 1]  # the bot may have led already: in the trick pocket
        assert rig.tray(1) == [] and sorted(rig.tray(0)) == sorted(g.hand_of(0)) and rig.tray(m.TRICK) == led
        assert Counter(_loop(rig)) == Counter(list(g.hand_of(1)) + list(g.deck[26:]))
        _hand(rig, watch, {})
        _check_hand(rig, watch)
        assert sorted(rig.tray(m.TRICK)) == list(range(52)) and _loop(rig) == []
        to_bot = [s for s in watch.steps if isinstance(s, Fetch) and s.target == "seat:1"]
        assert to_bot == [], "a stock card for the bot was fetched out of the loop"
    finally:
        rig.close()


def test_the_kiosk_says_why_two_player_spades_has_no_bot_seat_at_the_dealer() -> None:
    from trickref.ui.resume import start_new_game

    rig = Rig("spades-2p", 2, seed=8, bots=(1,))
    try:
        st = rig.app.setup
        st.choose_game("spades-2p")
        st.players = 2
        assert not start_new_game(rig.app, "spades-2p", 2, st.seat_names(), st.game_options(), bots=[1])
        rig.app.render(force=True)
        scene = rig.app.scene
        assert scene.name == "confirm" and scene.model()["question"] == "The table could not start"
        assert "bot seat at the dealer is not offered for two-player Spades" in scene.detail, scene.detail
    finally:
        rig.close()


def test_bot_hands_in_the_loop_are_refused_for_two_player_spades_with_a_reason() -> None:
    ref = Referee()
    ref.handle(NewGame("spades-2p", ("A", "B"), {}, 0, (1,), bot_hands="loop"))
    assert ref.game is None
    assert "two-player Spades" in ref.messages[-1]["text"] and "simulated mode" in ref.messages[-1]["text"]
    ref.handle(NewGame("hearts", ("A", "B", "C", "D"), {}, 0, (1,), bot_hands="elsewhere"))
    assert ref.game is None and "not 'elsewhere'" in ref.messages[-1]["text"]
    ref.handle(NewGame("spades-2p", ("A", "B"), {}, 0, (), bot_hands="loop"))  # no bot: nothing in the loop
    assert ref.game is not None
