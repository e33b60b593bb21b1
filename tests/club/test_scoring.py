"""Duplicate scoring against numbers worked by hand (the same examples as docs/CLUB.md)."""

from fractions import Fraction as F

import pytest

from trickref.device.club.scoring import board_scores, night_scores

HEARTS = {"t1": [0, 13, 5, 8], "t2": [4, 9, 13, 0], "t3": [2, 20, 4, 0]}


def test_hearts_against_the_field_average() -> None:
    got = board_scores("hearts", HEARTS)
    # seat 1 at t1: the others took 9 and 20, average 14.5; t1 took 13: 1.5 better
    assert got == {
        "t1": [F(3), F(3, 2), F(7, 2), F(-8)],
        "t2": [F(-3), F(15, 2), F(-17, 2), F(4)],
        "t3": [F(0), F(-9), F(5), F(4)],
    }
    for seat in range(4):  # against an average, the field sums to zero
        assert sum(got[t][seat] for t in got) == 0


def test_hearts_matchpoints() -> None:
    got = board_scores("hearts", HEARTS, "matchpoints")
    assert got == {
        "t1": [F(2), F(1), F(1), F(0)],
        "t2": [F(0), F(2), F(0), F(3, 2)],
        "t3": [F(1), F(0), F(2), F(3, 2)],
    }


def test_partnership_spades_team_against_the_field() -> None:
    got = board_scores("partnership-spades", {"t1": [120, -50, 120, -50], "t2": [80, 31, 80, 31]})
    assert got == {"t1": [F(40), F(-81), F(40), F(-81)], "t2": [F(-40), F(81), F(-40), F(81)]}


def test_two_player_seat_against_the_same_seat() -> None:
    got = board_scores("spades-2p", {"t1": [60, 41], "t2": [100, -50]})
    assert got == {"t1": [F(-40), F(91)], "t2": [F(40), F(-91)]}
    got = board_scores("german-whist", {"t1": [1, 0], "t2": [0, 0], "t3": [0, 2]}, "matchpoints")
    assert got == {"t1": [F(2), F(1, 2)], "t2": [F(1, 2), F(1, 2)], "t3": [F(1, 2), F(2)]}


def test_one_table_has_no_field() -> None:
    assert board_scores("hearts", {"t1": [26, 0, 0, 0]}) == {"t1": [F(0)] * 4}


def test_night_sums_boards() -> None:
    boards = {(0, 0): HEARTS, (0, 1): {"t1": [26, 0, 0, 0], "t2": [0, 26, 26, 26]}}
    totals, per_board = night_scores("hearts", boards)
    # board (0,1) seat 0: t1 took 26 against 0: -26; t2 +26
    assert totals[("t1", 0)] == F(3) - 26
    assert totals[("t2", 1)] == F(15, 2) - 26
    assert totals[("t3", 2)] == F(5)
    assert set(per_board) == {(0, 0), (0, 1)}


def test_bad_input_says_what() -> None:
    with pytest.raises(ValueError, match="unknown scoring method 'imps'"):
        board_scores("hearts", HEARTS, "imps")
    with pytest.raises(ValueError, match="table t2 has 3 seats"):
        board_scores("hearts", {"t1": [0, 13, 13, 0], "t2": [0, 13, 13]})
