"""The dealer that reboots by itself: one simulated hand with the watchdog (or a brown-out)
striking at a chosen moment, the host running on.

The cards stay where they physically are; the firmware comes back with a new boot id and
either the loop model and step memory it saved on its flash (``flash="kept"``) or a blank
flash (``"lost"``: cleared as the firmware boots again, after the save the firmware made in the
pass the watchdog struck). Nobody restarts the host. Three kinds of moment:

- ``landing``: right when the ``k``-th card after the deal lands in a pocket (the watchdog
  fires at the end of that firmware pass);
- ``unheard``: the same, with the answers of that pass lost with the dealer's USB buffer (the
  host never learns that the card landed);
- ``between``: right after the ``k``-th dealer step ended, before the host sends the next.

The hand must come out exactly as the hand played without the reboot (its deal, every
action), with every seat's pocket holding what the referee says, and never stick: a typed stop
that the simulated person clears (Resume, a card put where the screen says) is allowed.

tests/device/test_dealer_reboots_by_itself.py runs a spread of these moments;
benchmarks/dealer_reboots.py runs every one of them.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from trickref.device.simulated.table import SimTable, TableStuck
from trickref.engine import catalog
from trickref.engine.referee.events import DealDone, DealerDone

SEED = 7


def _table(g: catalog.GameInfo) -> tuple[str, int]:
    """A game's trial table: four players where it can have them, else its fewest."""
    return g.id, min((n for n in g.player_counts if n >= 4), default=g.player_counts[0])


_BUILT_IN = catalog.games()[: len(catalog.BUILTIN)]  # (plug-ins stay out)
# The three kinds of hand the dealer's reboot meets: a turned-up stock (FETCHes after every
# trick: German Whist), a drawn one (cards fed back: two-player Spades), a pass and no stock (the
# hand-over of passed cards: Hearts at four, one deck)
PLAYERS: dict[str, int] = dict(
    [_table(g) for g in _BUILT_IN if g.stock == "turn-up"][:1]
    + [_table(g) for g in _BUILT_IN if g.stock == "draw"][:1]
    + [_table(g) for g in _BUILT_IN if g.point_cards and g.decks == 1 and not g.stock][:1])
WHENS = ("landing", "unheard", "between")
FLASHES = ("kept", "lost")


@functools.cache
def clean(game: str) -> tuple[str, int, int]:
    """The hand without a reboot: its record, how many cards landed in a pocket after the deal,
    and how many dealer steps ended."""
    with SimTable(game, PLAYERS[game], seed=SEED) as t:
        puts, steps = _counters(t)
        t.start()
        t.run(max_hands=1)
        return repr(t.referee.game.record_hands()[0]), puts[0], steps[0]


def _counters(t: SimTable) -> tuple[list[int], list[int]]:
    """Count the cards landing in pockets after the deal (on the simulated board) and the dealer
    steps ended (on the host)."""
    dealt = [False]
    puts = [0]
    steps = [0]
    assert t.sim is not None
    board = t.sim.board
    put = board._put

    def counting_put(card: int, target: int) -> None:
        put(card, target)
        puts[0] += dealt[0]

    board._put = counting_put  # type: ignore[method-assign]

    def after(ev: Any, ref: Any) -> bool:
        dealt[0] = dealt[0] or isinstance(ev, DealDone)
        steps[0] += isinstance(ev, DealerDone)
        return False

    t.host.cut_after = after
    return puts, steps


def play_with_reboot(game: str, when: str, k: int, flash: str) -> SimTable:
    """One hand of ``game`` with the dealer rebooting at moment ``k`` of kind ``when``; the
    table is returned played (the caller closes it)."""
    t = SimTable(game, PLAYERS[game], seed=SEED)
    puts, steps = _counters(t)
    sim = t.sim
    assert sim is not None
    fired = [False]

    def reboot() -> None:
        fired[0] = True
        sim.board.reboot_requested = True  # the firmware restarts at its next loop pass

    rebooting = sim._reboot

    def reboot_now(cause: int) -> None:
        if when == "unheard":
            # the watchdog fires in the very pass that logged the card's landing, before the
            # dealer's USB buffer went out: the host never hears that the card landed
            sim.board.tx.clear()
        if flash == "lost":
            # the flash is blank as the firmware boots again: cleared here, not when the card
            # landed, or the firmware's save at the end of that very pass wrote it back (the
            # "lost" case then ran as "kept")
            sim.board.nv = None
        rebooting(cause)

    sim._reboot = reboot_now  # type: ignore[method-assign]
    if when in ("landing", "unheard"):
        put = sim.board._put

        def landing(card: int, target: int) -> None:
            put(card, target)
            if puts[0] == k and not fired[0]:
                reboot()

        sim.board._put = landing  # type: ignore[method-assign]
    else:
        after = t.host.cut_after
        assert after is not None

        def between(ev: Any, ref: Any) -> bool:
            after(ev, ref)
            if isinstance(ev, DealerDone) and steps[0] == k and not fired[0]:
                with sim.lock:  # before the host sends the next step
                    reboot()
                    sim._reboot(cause=3)
            return False

        t.host.cut_after = between
    t.start()
    t.run(max_hands=1)
    assert fired[0], "the reboot never came"
    assert sim.boots >= 1
    return t


def same_hand_same_pockets(t: SimTable, want: str) -> None:
    """The hand ended with no fault, as the clean hand did, every seat's pocket as the referee
    says (AssertionError naming the difference)."""
    ref = t.referee
    assert ref.dealer_fault is None, ref.dealer_fault
    assert repr(ref.game.record_hands()[0]) == want, "the hand came out unlike the hand without the reboot"
    pockets = ref.places.restore()[0]
    sim = t.sim
    assert sim is not None
    with sim.lock:
        for target, cards in pockets.items():
            if target.startswith("seat:"):
                assert sorted(sim.board.tray(int(target[5:]))) == sorted(cards), target


def moments(game: str, when: str) -> int:
    """How many moments of kind ``when`` the clean hand of ``game`` has."""
    _, puts, steps = clean(game)
    return steps if when == "between" else puts


def run_point(game: str, when: str, k: int, flash: str) -> dict[str, Any]:
    """One reboot trial, its outcome in words: ``right``, ``stuck`` (the table could not go on),
    ``wrong`` (the hand or a pocket came out otherwise) or ``error`` (anything else)."""
    return judged({"game": game, "when": when, "k": k, "flash": flash}, game,
                  lambda: play_with_reboot(game, when, k, flash))


def judged(out: dict[str, Any], game: str, play: Callable[[], SimTable]) -> dict[str, Any]:
    """``play()`` a trial's table of ``game`` through and judge it against the clean hand: ``out``
    with the outcome (``right``, ``stuck`` on TableStuck, ``wrong`` on a check that failed,
    ``error``: anything else, with its kind), the detail in 400 characters, the dealer's boots
    and the seconds it took. The table is closed whatever happened."""
    want = clean(game)[0]
    start = time.monotonic()
    t: SimTable | None = None
    try:
        t = play()
        same_hand_same_pockets(t, want)
        out["outcome"] = "right"
    except TableStuck as e:
        out["outcome"], out["detail"] = "stuck", str(e)[:400]
    except AssertionError as e:
        out["outcome"], out["detail"] = "wrong", str(e)[:400]
    except Exception as e:  # noqa: BLE001 (reported with its kind, the run goes on)
        out["outcome"], out["detail"] = "error", f"{type(e).__name__}: {e}"[:400]
    finally:
        if t is not None:
            out["boots"] = t.sim.boots if t.sim is not None else 0
            t.close()
    out["seconds"] = round(time.monotonic() - start, 2)
    return out
