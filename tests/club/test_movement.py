"""Movements for any number of tables: Mitchell and Howell, sit-outs for odd counts, no repeated
opponents while avoidable (and said when not), every player seated once a round."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.device.club.movement import make


def ids(n: int) -> list[str]:
    return [f"p{i + 1}" for i in range(n)]


def tables(n: int) -> list[str]:
    return [f"t{i + 1}" for i in range(n)]


def meetings(mv, unit_of=lambda p: p) -> dict[tuple[str, str], int]:  # type: ignore[no-untyped-def]
    """How often each pair of opponents (units) sat at one table."""
    out: dict[tuple[str, str], int] = {}
    for r in range(len(mv.rounds)):
        for row in mv.seats(r).values():
            units = sorted({unit_of(p) for p in row})
            for a, b in combinations(units, 2):
                out[(a, b)] = out.get((a, b), 0) + 1
    return out


def test_partnership_mitchell_home_pairs_stay_and_meet_every_visitor_once() -> None:
    mv = make("mitchell", ids(16), tables(4), 4, 4, teams=True)
    pair = {p: u[0] for u in mv.units for p in u}
    for r in range(4):
        for i, t in enumerate(tables(4)):
            row = mv.seats(r)[t]
            assert (row[0], row[2]) == (f"p{2 * i + 1}", f"p{2 * i + 2}")  # home pair i: North-South at t_i
    met = meetings(mv, lambda p: pair[p])
    assert len(met) == 16 and set(met.values()) == {1}  # 4 homes x 4 visitors, once each
    assert mv.repeats == [0, 0, 0, 0] and mv.warnings() == []


def test_partnership_howell_is_a_round_robin() -> None:
    mv = make("howell", ids(16), tables(4), 7, 4, teams=True)
    pair = {p: u[0] for u in mv.units for p in u}
    met = meetings(mv, lambda p: pair[p])
    assert len(met) == 28 and set(met.values()) == {1}  # 8 pairs: every pair meets every other once
    for r in range(7):  # partners stay partners, across the table
        for row in mv.seats(r).values():
            assert int(row[2][1:]) - int(row[0][1:]) == 1 and int(row[3][1:]) - int(row[1][1:]) == 1


def test_two_player_howell_with_an_odd_count_sits_one_out_in_turn() -> None:
    mv = make("howell", ids(9), tables(5), 9, 2)
    assert all(len(mv.rounds[r]) == 4 for r in range(9))  # 4 tables used, the fifth idle
    outs = [mv.sit_outs(r) for r in range(9)]
    assert all(len(o) == 1 for o in outs) and len({o[0] for o in outs}) == 9  # each sits out once
    assert max(meetings(mv).values()) == 1


def test_individual_mitchell_at_a_prime_number_of_tables_repeats_nobody() -> None:
    for n in (5, 7):
        mv = make("mitchell", ids(4 * n), tables(n), n, 4)
        assert max(meetings(mv).values()) == 1 and mv.repeats == [0] * n, n
        for r in range(n):  # the first at each table stays
            assert [mv.seats(r)[t][0] for t in tables(n)] == [f"p{i + 1}" for i in range(n)]


def test_three_tables_five_rounds_never_repeat_round_one_and_say_what_repeats() -> None:
    """Was: 3 tables and 5 rounds repeated round 1's seating without a warning. 12 players in
    foursomes: from round 2 some pairs must meet again (a table of 4 holds two who sat at one
    of round 1's 3 tables); the movement keeps that low and says so."""
    for style in ("howell", "mitchell"):
        mv = make(style, ids(12), tables(3), 5, 4)
        first = [set(v) for v in mv.seats(0).values()]
        for r in range(1, 5):
            assert all(set(v) not in first for v in mv.seats(r).values()), (style, r)
        assert mv.repeats[0] == 0 and all(x > 0 for x in mv.repeats[1:])
        assert mv.repeats[1] <= 3  # one pair per table: the fewest possible
        words = mv.warnings()
        assert words[0] == ("round 2: 3 pairs of opponents meet again (unavoidable: there are not enough different "
                            "opponents left)")
        assert len(words) == 4


def test_two_hundred_tables() -> None:
    mv = make("howell", ids(800), tables(200), 5, 4)
    assert mv.repeats == [0] * 5 and len(mv.seats(4)) == 200


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 40), n_tables=st.integers(1, 9), rounds=st.integers(1, 6),
       style=st.sampled_from(["howell", "mitchell", "none"]), seats=st.sampled_from([2, 4]))
def test_everyone_plays_or_sits_out_once_a_round(players: int, n_tables: int, rounds: int, style: str,
                                                  seats: int) -> None:
    if players < seats:
        with pytest.raises(ValueError, match="do not fill one table"):
            make(style, ids(players), tables(n_tables), rounds, seats)
        return
    mv = make(style, ids(players), tables(n_tables), rounds, seats)
    active = min(n_tables, players // seats)
    for r in range(rounds):
        seated = [p for row in mv.seats(r).values() for p in row]
        assert len(seated) == len(set(seated)) == active * seats
        assert sorted(seated + mv.sit_outs(r)) == sorted(ids(players))
        assert all(p for p in seated)
    outs = [len(mv.sit_outs(r)) for r in range(rounds)]
    assert set(outs) == {players - active * seats}


def test_odd_partnerships_are_refused() -> None:
    with pytest.raises(ValueError, match="partnerships are of 2: 7 players"):
        make("howell", ids(7), tables(2), 3, 4, teams=True)
