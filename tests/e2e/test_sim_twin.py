"""End to end on the physical twin: ``trickref sim --twin`` runs the unmodified firmware on
device/dealer/twin.py (motors from the PIO ramps, flaps that take their swing, the belt, the
reader's decode time, the sorting hopper's blade with its one-card error) behind the pty, under
the real driver, host, referee and simulated people. A card goes where the flaps stand when it
arrives, never where the firmware aimed it.

The game is the referee's, not the dealer's: with a seed, the twin plays the same game as the
simulated board, hand for hand. The people find the cards in the twin's own pockets, play slot
and hopper (device/dealer/twin_cards.py), so a card the twin put anywhere else than the referee
believes shows up as a person who cannot do what the screen says (the run stops stuck)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trickref.device.dealer import messages as m
from trickref.device.dealer.twin_sim import TwinDealerSimulator
from trickref.ui.cli import main

# one player count of each game, two hands each (a stock game's loop, two decks, passing)
GAMES = [("spades-2p", 2), ("german-whist", 2), ("cancellation-hearts", 6), ("partnership-spades", 4),
         ("hearts", 5)]


def sim_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = main(["sim", "--json", *args])
    said = capsys.readouterr()
    assert code == 0, said.out + said.err
    result: dict = json.loads(said.out.strip().splitlines()[-1])
    return result


def only_silences(faults: list[str]) -> bool:
    """The dealers share this machine's CPU: a loaded machine may hold the pump back past the
    link timeout (the table says the dealer stopped answering and goes on). Nothing else."""
    return all("stopped answering" in f for f in faults)


@pytest.mark.parametrize("game,n", GAMES)
def test_sim_on_the_twin_plays_the_same_game_as_on_the_simulated_board(game: str, n: int, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--game", game, "--players", str(n), "--seed", str(n + 10), "--hands", "2"]
    board = sim_json(capsys, *args)
    twin = sim_json(capsys, *args, "--twin", "--records", str(tmp_path))
    assert board["twin"] is None
    assert only_silences(twin["dealer_faults"]), twin["dealer_faults"]
    figures = twin["twin"]
    assert figures["stuck"] == [] and figures["boots"] == 1, figures
    assert figures["machine_s"] > 20.0  # two deals at least, on the machine's own clock
    if game in ("spades-2p", "german-whist"):
        assert figures["loop_passes"] > 0  # the stock went round the return loop
    assert [h["points"] for h in twin["hands"]] == [h["points"] for h in board["hands"]]
    assert twin["totals"] == board["totals"]
    assert main(["verify", twin["record"]]) == 0
    assert "all hands verify" in capsys.readouterr().out


def test_sim_twin_text_names_the_twin_and_what_it_did(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--game", "german-whist", "--players", "2", "--seed", "1", "--hands", "1", "--twin"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("dealer on the physical twin:"))
    assert "s of its clock" in line and "cards round the return loop" in line and "0 stuck on the path" in line


def test_sim_twin_faults_turns_the_twins_random_faults_on_and_the_game_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trickref sim --twin --twin-faults``: the twin's random faults at their estimated rates;
    the table stops where one needs a person, the simulated person does what the screen says and
    the game goes on. The last line counts what the twin drew (how many is the twin's draw: the
    count itself is tests/device/test_twin_dealer_sim.py's). Without ``--twin`` it is refused."""
    out = sim_json(capsys, "--game", "german-whist", "--seed", "4", "--hands", "1", "--twin", "--twin-faults",
                   "--records", str(tmp_path))
    drawn = out["twin"]["random_faults"]
    assert set(drawn) == {"pickup_slip", "double_feed", "misread", "late_gate_irq"}, drawn  # on
    assert out["twin"]["stuck"] == [] and len(out["hands"]) == 1
    assert main(["verify", out["record"]]) == 0
    capsys.readouterr()
    assert sim_json(capsys, "--game", "german-whist", "--seed", "4", "--hands", "1", "--twin")["twin"][
        "random_faults"] is None
    assert main(["sim", "--game", "german-whist", "--hands", "1", "--twin-faults"]) == 2
    assert "add --twin" in capsys.readouterr().err


@pytest.mark.parametrize("game,n,moment", [
    ("spades-2p", 2, "mid_draw"),        # a drawn card shown to a seat; the stock in the twin's hopper
    ("german-whist", 2, "after_trick"),  # stock cards still to move after a trick
])
def test_a_power_cut_on_the_twin_resumes_exactly(game: str, n: int, moment: str, tmp_path: Path) -> None:
    """The host and a fresh twin restart on the journal (the cards put where the referee's
    physical model says they are, the loop's in the twin's hopper): the game ends as it would."""
    from trickref.device.simulated.table import PowerCut, SimTable
    from trickref.engine.referee.events import CardRead, DealerDone

    opts = {"target": 100 if game == "spades-2p" else 3}
    with SimTable(game, n, opts, seed=9, twin=True) as clean:
        clean.start()
        clean.run(max_hands=3)
        want = clean.referee.record()
    journal = str(tmp_path / "j")
    first = SimTable(game, n, opts, seed=9, journal_path=journal, twin=True)
    count = [0]

    def cut(ev, ref):  # type: ignore[no-untyped-def]
        g = ref.game
        hit = False
        if g is not None and g.hand_number >= 2:
            if moment == "mid_draw":
                hit = isinstance(ev, DealerDone) and ref.presented is not None
            else:
                hit = isinstance(ev, CardRead) and len(ref.steps) >= 3
        if hit:
            count[0] += 1
        return hit and count[0] == 2

    first.host.cut_after = cut
    try:
        first.start()
        with pytest.raises(PowerCut):
            first.run(max_hands=3)
    finally:
        first.close()
    with SimTable(game, n, opts, seed=9, journal_path=journal, twin=True) as second:
        assert isinstance(second.sim, TwinDealerSimulator)
        second.start()
        assert second.replayed > 0
        second.run(max_hands=3)
        got = second.referee.record()
        assert got["hands"] == want["hands"]
        assert second.sim.figures()["stuck"] == []


def test_the_twin_unplugged_mid_deal_is_redealt_and_the_game_goes_on() -> None:
    from trickref.device.simulated.table import SimTable

    with SimTable("hearts", 4, seed=7, twin=True, faults=[("unplug", 1)]) as t:
        t.start()
        t.run(max_hands=2)
        g = t.referee.game
        assert g is not None and len(g.hand_results) == 2
        assert any("stopped answering" in r for r in t.recoveries), t.recoveries
        assert isinstance(t.sim, TwinDealerSimulator) and t.sim.figures()["stuck"] == []


def test_the_people_find_the_cards_in_the_twins_pockets_by_target() -> None:
    """The twin keeps pockets by index (seats, then firmware/config.py's POCKET); the people's
    view is by target byte, and the lists are the twin's own."""
    sim = TwinDealerSimulator(seats=4, seed=1)
    board = sim.board
    mech = sim.twin.mech
    reject = sim.twin.board.cfg.POCKET[m.REJECT]
    board.trays.setdefault(m.REJECT, []).append(12)
    board.trays.setdefault(2, []).append(30)
    assert mech.pockets[reject] == [12] and mech.pockets[2] == [30]
    assert sorted(board.trays) == sorted([2, m.REJECT])
    assert board.take_from_pockets(12, [m.TRICK, m.REJECT]) and mech.pockets[reject] == []
    with pytest.raises(KeyError, match="no pocket"):
        board.trays[m.LOOP] = [1]
    mech.hopper = [1, 2, 3]
    board.gate = 40  # a person puts a card in the read window
    assert board.gate == 40 and mech.window_card() is not None
    board.gate = 41  # another: the first goes under the stack, fed next
    assert board.gate == 41 and mech.hopper[:1] == [40]
    assert sorted(board.gather()) == [30, 41] and mech.pockets == {} and board.gate is None
    # a person taking the card out of the read window leaves the card picked behind it in the
    # feed (it vanished with it once: a double feed put back lost the card in the throat)
    mech.place_in_window(50)
    mech.place_in_window(51).x = 10.0  # just picked, in the throat
    assert board.gate == 50
    sim.put_back_double()
    assert board.gate == 51 and mech.hopper[:1] == [50]


@pytest.mark.parametrize("game,n,seed", [("hearts", 6, 3), ("cancellation-hearts", 7, 3)])
def test_a_card_caught_in_a_deal_to_the_pockets_is_named_lifted_out_and_the_hand_redealt(
        game: str, n: int, seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trickref sim --twin --fault jam:1``: ten cards into the first deal to the seats' pockets
    a card catches on the twin's path. The dealer names it once it would have reached E (its
    flap came down at its deadline, so no later card fell into its pocket), the person lifts it
    out and presses Resume, the deal ends one card short and the hand is redealt. Before, the
    next card crossing that pocket fell in and was taken for it, every later card went one pocket
    early, and the table stopped: "the deal did not check out twice in a row". Two decks: the
    caught copy's seat is the one missing, the other copy is where the plan put it."""
    out = sim_json(capsys, "--game", game, "--players", str(n), "--seed", str(seed), "--hands", "1",
                   "--twin", "--fault", "jam:1", "--records", str(tmp_path))
    said = [r.split(".")[0] for r in out["dealer_faults"]]
    assert said == ["Dealer stopped: a card jammed at the transport stage",
                    "The deal did not check out (1 card missing)"], out["dealer_faults"]
    assert out["twin"]["stuck"] == []
    assert len(out["hands"]) == 1
    assert main(["verify", out["record"]]) == 0


def test_two_hands_each_with_a_card_caught_play_on(capsys: pytest.CaptureFixture[str]) -> None:
    """Two-player Spades, a card caught in each hand's deal: the second stop left a stock card
    across the end-of-run opto E, being pulled into the switchback. Before, the jam sensor
    (E dark too long) counted the time the dealer stood stopped: it fired at once after every
    Resume, three times, and the table gave up (TableStuck)."""
    out = sim_json(capsys, "--game", "spades-2p", "--players", "2", "--seed", "2", "--hands", "2",
                   "--twin", "--fault", "jam:1", "--fault", "jam:2")
    said = [r.split(".")[0] for r in out["dealer_faults"]]
    assert said == ["Dealer stopped: a card jammed at the transport stage",
                    "The deal did not check out (1 card missing)"] * 2, out["dealer_faults"]
    assert len(out["hands"]) == 2 and out["twin"]["stuck"] == []


def test_a_stock_card_caught_on_the_twins_path_is_named_lifted_out_and_the_hand_redealt() -> None:
    """Ten cards into the first deal of two-player Spades (51 cards round the return loop), a
    card catches on the twin's path. The dealer stops naming it at once; the person clears the
    path (the card held aside) and presses Resume; the deal ends one card short, the cards are
    gathered (the one held aside too) and the hand is redealt from the same deck order; the
    game goes on. Before the firmware matched E's edges by time, the cards after the caught one
    were each taken for the card before it: the blade set one card off for the rest of the
    evening (1,691 cards sent round the loop in two hands, against about 160)."""
    from trickref.device.simulated.table import SimTable

    with SimTable("spades-2p", 2, seed=7, twin=True, faults=[("jam", 1)]) as t:
        t.start()
        t.run(max_hands=2)
        g = t.referee.game
        assert g is not None and len(g.hand_results) == 2
        said = [r.split(".")[0] for r in t.recoveries]
        assert said == ["Dealer stopped: a card jammed at the transport stage",
                        "The deal did not check out (1 card missing)"], t.recoveries
        port = t.host.dealer
        faults = getattr(getattr(port, "adapter", None), "faults", [])
        assert sum("jammed at the transport stage" in f for f in faults) == 1, faults
        assert isinstance(t.sim, TwinDealerSimulator)
        caught = [what.split()[1] for _, what in t.sim.twin.mech.log if "caught on the path" in what]
        assert len(caught) == 1 and any(f"(card {caught[0]})" in f for f in faults), (caught, faults)
        figures = t.sim.figures()
        assert figures["stuck"] == [] and t.sim.board.aside == []
        assert figures["loop_passes"] < 300, figures
