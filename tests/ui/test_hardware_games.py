"""Whole games of the five games on the kiosk in hardware mode, every entry physical.

The real ``open_table`` hardware path: the ``Dealer`` driver on the dealer simulator's pty and the
wired ``Panels`` on gpiozero's mock pins (``physical.Rig``). Bids, draws, the moon and the Double
Nil are panel presses; plays, passes and gives are cards taken from the seat's tray and fed into
the hopper, read by the table's reader loop; nobody touches the screen for an entry. Each run
meets what happens at a real table: a power cut in the middle of a trick (the kiosk resumes from
the journal), a jam, a pulled cable, a misread, and cards fed wrongly (when none is wanted, out of
turn, a card nobody holds); each is said on screen and changes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from physical import Rig

from trickref.engine import cards as C
from trickref.engine.records import parse, replay
from trickref.engine.referee import fairness
from trickref.ui.faults import fault_kind
from trickref.ui.table_client import resume_table

MAX_STEPS = 6000


def _play(rig: Rig, hooks: dict[str, Any]) -> set[str]:
    done: set[str] = set()
    for _ in range(MAX_STEPS):
        ref = rig.ref
        if ref.waiting == "over":
            return done
        for name, (when, what) in hooks.items():
            if name not in done and ref.dealer_fault is None and when(rig):
                done.add(name)
                what(rig)
        rig.step()
    raise AssertionError(f"the game did not end: {rig.ref.waiting_text()}; {rig.ref.messages[-5:]}; "
                         f"{rig.log[-5:]}")


def _finish(rig: Rig, hooks: dict[str, Any]) -> None:
    done = _play(rig, hooks)
    assert done == set(hooks), f"never happened: {set(hooks) - done}"
    if getattr(rig, "jams_expected", False):
        assert any("jammed" in f for f in rig.table.host.recoveries), rig.table.host.recoveries
    if getattr(rig, "unread_play_expected", False):
        assert rig.taken_from_reject >= 1 and not rig.unread_plays, (rig.taken_from_reject, rig.unread_plays)
    if getattr(rig, "unread_expected", False):
        said = rig.table.host.recoveries
        at = [i for i, f in enumerate(said) if f.startswith("1 card of the deal could not be read")]
        assert len(at) == 1 and fault_kind(said[at[0]]) == "unread_deal", said
        assert not any(f.startswith("The deal did not check out") for f in said[at[0]:]), said  # not gathered
    # the people put the cards in the feeder when the screen asks before each deal: no deal
    # finds them missing (before, every hand after the first did: "52 cards missing")
    said = rig.table.host.recoveries
    assert not any("cards missing" in f for f in said), said
    assert rig.log.count("cards gathered into the feeder") >= len(rig.ref.game.hand_results), rig.log
    rig.settle()
    ref = rig.ref
    g = ref.game
    assert g is not None and g.over
    record = ref.record()
    assert replay(parse(record)).totals == g.totals
    assert all(c.ok for c in fairness.verify_record(record))
    assert rig.app.scene.name in ("summary", "gameover")
    handled = rig.handled()
    assert handled["touch"] == 0 and handled["bot_action"] == 0, handled  # no entry on the screen
    assert handled["card_read"] > 0 and (handled["button"] > 0 or rig.game == "german-whist")


def _mid_trick(rig: Rig) -> bool:
    g = rig.ref.game
    return rig.ref.accepting() and g.phase == "play" and len(getattr(g, "trick", [])) == 2


def _power_cut(rig: Rig) -> None:
    """The Pi loses power in the middle of a trick; the kiosk starts again on the journal. The
    cards stay where they physically are (the dealer's trays)."""
    before = rig.ref.game.public_view()
    rig.table.drain()
    rig.earlier.update(rig.table.host.handled)
    rig.app.session.table.close()  # the table stops dead: the journal holds every event
    rig.app.session = None
    table = resume_table(seed=rig.seed, **rig.app.table_args)
    assert table is not None and table.mode == "hardware"
    from trickref.ui.resume import _session

    _session(rig.app, table)
    rig.settle()
    assert rig.ref.game.public_view() == before  # the trick in play is intact
    assert "The game is back where it stopped" in (table.notice or "")
    rig.check_trays()


def _jam_mid_deal(rig: Rig) -> None:
    """Ten cards into the next deal a card jams: the fault screen says so; the person clears
    the path and taps Resume (the step loop), and the deal goes on where it stopped."""
    rig.deal_listener(10, lambda: rig.sim.jam("eject"))
    rig.jams_expected = True


def _misread_in_deal(rig: Rig) -> None:
    """Ten cards into the next deal a card cannot be read: it goes to the reject pocket, the fault
    screen asks for the reject pocket's cards back on the hopper, and Resume deals just that card
    (every other card stays where it was dealt: nothing is gathered)."""
    rig.deal_listener(10, lambda: rig.sim.misread(1))
    rig.unread_expected = True


def _unread_play(rig: Rig) -> None:
    """The reader cannot read the next card played (the bot's choice, entered as every entry
    is): it goes to the reject pocket and the screen says to feed it again. Nobody is told which
    card to play next: the player plays again, that card or another, and takes the unread card
    out of the reject pocket when they play it; the hand goes on."""
    rig.sim.misread(1)
    rig.unread_play_expected = True


def _unplug_while_reading(rig: Rig) -> None:
    """The cable comes out while the reader waits for a card: the table stops and says so."""
    ref = rig.ref
    rig.sim.go_silent(True)
    assert rig.table.wait(lambda: ref.dealer_fault is not None, 60)
    rig.settle()
    assert rig.app.scene.name == "fault"
    assert "answer" in ref.dealer_fault.lower() or "link" in ref.dealer_fault.lower(), ref.dealer_fault
    # the step loop fixes it: the person plugs the cable back in and taps Resume


def _misread(rig: Rig) -> None:
    """The reader cannot read the next card fed: it goes to the reject pocket, the screen says to
    feed it again, nothing changes; the player feeds it again."""
    g = rig.ref.game
    seat = g.to_move
    card = rig.bot.choose(g.copy(), seat, rig.rng).value
    actions = len(g.actions)
    rig.sim.misread(1)
    rig.feed(card, seat)
    assert len(rig.ref.game.actions) == actions
    assert card in rig.tray(m_reject()), "the unreadable card is in the reject pocket"
    assert any("could not read" in t for t in rig.screen_texts()), rig.screen_texts()
    rig.feed(card, m_reject())  # picked up from the reject pocket, fed again
    assert len(rig.ref.game.actions) == actions + 1


def m_reject() -> int:
    from trickref.device.dealer import messages as m

    return m.REJECT


def _out_of_turn(rig: Rig) -> None:
    """A player not on turn feeds a card: it goes back to them, the screen says why."""
    g = rig.ref.game
    other = next(s for s in range(g.n) if s != g.to_move and g.hand_of(s))
    card = g.hand_of(other)[0]
    before = g.public_view()
    rig.feed(card, other)
    assert rig.ref.game.public_view()["trick"] == before["trick"]
    assert card in rig.tray(other)
    assert any("out of turn" in t for t in rig.screen_texts()), rig.screen_texts()


def _not_wanted(rig: Rig) -> None:
    """A card fed while the table waits for a bid: refused, back to its holder's tray."""
    g = rig.ref.game
    seat = g.turn_seats()[0]
    card = g.hand_of(seat)[0]
    n = len(g.actions)
    rig.feed(card, seat)
    assert len(rig.ref.game.actions) == n and card in rig.tray(seat)
    assert any("no card is wanted" in t for t in rig.screen_texts()), rig.screen_texts()


def _nobody_holds(rig: Rig) -> None:
    """A card already played (taken back out of the trick pocket) is fed: it is in nobody's hand,
    so it goes to the reject pocket; the player puts it back on the trick pile."""
    from trickref.device.dealer import messages as m

    played = rig.tray(m.TRICK)
    card = played[0]
    n = len(rig.ref.game.actions)
    rig.feed(card, m.TRICK)
    assert len(rig.ref.game.actions) == n and card in rig.tray(m.REJECT)
    assert any("reject pocket" in t for t in rig.screen_texts()), rig.screen_texts()
    with rig.sim.lock:
        rig.sim.board.trays[m.REJECT].remove(card)
        rig.sim.board.trays.setdefault(m.TRICK, []).append(card)


def _faceup_shown(rig: Rig) -> None:
    """German Whist's turned-up card stays in the dealer's loop: the shared screen shows it (the
    referee's faceup, the engine's stock card), and only it, among the stock."""
    ref = rig.ref
    up = ref.public_view()["table"]["faceup"]
    assert up is not None and up == ref.game.public_view()["stock_card"]
    rig.app.render(force=True)
    assert rig.app.scene.name == "play" and rig.app.scene.model()["face_up"] == [up]
    with rig.sim.lock:
        loop = rig.sim.board.tray(0x85)  # the read window's card, the hopper, cards on their way back
    assert C.parse(up) in loop  # physically still in the dealer


def _trick_tray_has_cards(rig: Rig) -> bool:
    from trickref.device.dealer import messages as m

    g = rig.ref.game
    return rig.ref.accepting() and g.phase == "play" and len(g.trick) == 1 and bool(rig.tray(m.TRICK))


RUNS = {
    "hearts": (4, {"target": 50}, {
        "out of turn": (_mid_trick, _out_of_turn),
        "power cut": (lambda r: _mid_trick(r) and r.ref.game.hand_number == 1 and len(r.ref.game.actions) > 12,
                      _power_cut),
    }),
    "spades-2p": (2, {"target": 200}, {
        "jam": (lambda r: r.app.scene.name == "summary", _jam_mid_deal),
        "misread": (lambda r: r.ref.accepting() and r.ref.game.phase == "play", _misread),
    }),
    "german-whist": (2, {"target": 1}, {
        "nobody holds": (_trick_tray_has_cards, _nobody_holds),
        "face-up card on the screen": (lambda r: r.ref.accepting() and r.ref.game.phase == "play"
                                       and r.ref.faceup is not None and len(r.ref.game.actions) > 2, _faceup_shown),
        "power cut": (lambda r: r.ref.accepting() and r.ref.game.phase == "play" and len(r.ref.game.trick) == 1
                      and len(r.ref.game.actions) > 6, _power_cut),
    }),
    "partnership-spades": (4, {"target": 100}, {
        "not wanted": (lambda r: r.ref.accepting() and r.ref.game.phase == "bid", _not_wanted),
        "unplug": (lambda r: _mid_trick(r), _unplug_while_reading),
        "misread in a deal": (lambda r: r.app.scene.name == "summary", _misread_in_deal),
        "unread play": (lambda r: _mid_trick(r) and r.ref.game.hand_number >= 2, _unread_play),
    }),
    "cancellation-hearts": (6, {"target": 100}, {
        "misread": (lambda r: _mid_trick(r), _misread),
    }),
}


# a whole game of physical entries takes about a minute on a loaded 2-core machine and several
# beside other suites; the suite's 300 s guard against a hang is too tight a bound for that
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("game", list(RUNS))
def test_a_physical_game_in_hardware_mode(game: str) -> None:
    players, options, hooks = RUNS[game]
    rig = Rig(game, players)
    try:
        rig.start(options)
        _finish(rig, hooks)
        assert rig.app.session.table.messages == []  # no table error on the way
    finally:
        rig.close()
