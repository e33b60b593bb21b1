"""No text on the shared screen and no message to the whole table names a card a seat still
holds: not the play screen, not a refusal, not the dealer-fault screen, in English or French.

Games run on the referee path (the simulated dealer on its pty, the journal): bots choose for
every seat, and now and then the seat on turn first tries a card it may not play (a refusal
that knows the card). The dealer jams, misreads and is unplugged mid-deal. Every frame is drawn
with no hand revealed (what the table sees) and every text drawn is read, along with the public
view's words and the messages addressed to everyone; a card named in any of them must not be
in any seat's hand at that moment. Card names are looked for in every spelling the kiosk and
the engine use: 'KH', 'K♥', '10♥', 'king of hearts'.
"""

from __future__ import annotations

import random
import re

import pytest

from trickref.engine import cards as C
from trickref.ui import draw as D
from trickref.ui import screenshots as S
from trickref.ui.i18n import set_language
from trickref.ui.settings import Settings

_RANKS = r"(10|[2-9TJQKA])"
_SHORT = re.compile(_RANKS + r"\s?([SHDC\u2660\u2665\u2666\u2663])(?![A-Za-z])")
_LONG = re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten|jack|queen|king|ace) of "
                   r"(spades|hearts|diamonds|clubs)\b", re.I)
_SYM = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C"}
_WORDS = {w: i + 2 for i, w in enumerate("two three four five six seven eight nine ten jack queen king ace".split())}


def named_cards(text: str) -> set[int]:
    """Every card ``text`` names."""
    out: set[int] = set()
    for m in _SHORT.finditer(text):
        start = m.start()
        if start > 0 and (text[start - 1].isalnum()):
            continue
        rank = "T" if m.group(1) == "10" else m.group(1)
        out.add(C.parse(rank + _SYM.get(m.group(2), m.group(2))))
    for m in _LONG.finditer(text):
        rank = _WORDS[m.group(1).lower()]
        suit = ["spades", "hearts", "diamonds", "clubs"].index(m.group(2).lower())
        out.add(suit * 13 + rank - 2)
    return out


def test_named_cards_reads_every_spelling():
    assert named_cards("Ben cannot play KH: must follow clubs") == {C.parse("KH")}
    assert named_cards("card 4H jammed; 10\u2665 and Q\u2660 seen") == {C.parse("4H"), C.parse("TH"), C.parse("QS")}
    assert named_cards("the queen of spades") == {C.parse("QS")}
    assert named_cards("1 card missing, 2 seats short; hand 4 QUICK ASK, 4 SEATS") == set()


def strings(obj) -> list[str]:
    """Every string in a view (dict keys too)."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in strings(k) + strings(v)]
    if isinstance(obj, (list, tuple)):
        return [s for v in obj for s in strings(v)]
    return []


def public_cards(view) -> set[int]:
    out: set[int] = set()
    for s in strings(view):
        if len(s) == 2:
            try:
                out.add(C.parse(s))
            except ValueError:
                pass
    return out


def hidden_cards(table, players: int) -> set[int]:
    held: set[int] = set()
    for s in range(players):
        held |= {C.parse(c) for c in table.seat_view(s)["game"].get("hand", [])}
    return held - public_cards(table.public_view())


# rules that name the queen of spades as a rule, not as anyone's card
RULE_WORDS = ("no hearts or QS on the first trick", "the first lead may not be a heart or QS")
_last: list[dict] = []


def new_messages(before: list[dict], now: list[dict]) -> list[dict]:
    """The messages in ``now`` said after ``before`` (the referee drops old ones from the front)."""
    for k in range(min(len(before), len(now)), 0, -1):
        if before[-k:] == now[:k]:
            return now[k:]
    return now


def shared_texts(app, table) -> list[str]:
    """What the whole table sees now: the frame (no hand revealed), the public view's words and
    the referee's messages to everyone said since the last look (an old message may name a card
    of an earlier hand, dealt again since)."""
    app.session.conceal()
    app.route()
    old = D.text_log
    D.text_log = []
    try:
        app.render(force=True)
        drawn = list(D.text_log)
    finally:
        D.text_log = old
    now = [dict(m) for m in table.host.read(lambda r: list(r.messages))]
    messages = [m["text"] for m in new_messages(_last, now) if m.get("seat") is None]
    _last[:] = now
    view = table.public_view()
    view["table"].pop("messages", None)  # the recent messages, read above as they are said
    view_words = [s for s in strings(view) if len(s) != 2]  # card names in the view are public by definition
    return ([f"drawn on {app.scene.name}: {t}" for t in drawn] + [f"public view: {t}" for t in view_words]
            + [f"message: {t}" for t in messages] + [f"table message: {t}" for t in table.messages])


def check_frame(app, table, players: int, where: str) -> None:
    hidden = hidden_cards(table, players)
    for text in shared_texts(app, table):
        for rule in RULE_WORDS:
            text = text.replace(rule, "")
        leaked = named_cards(text) & hidden
        assert not leaked, (f"{where}: {text!r} names {[C.NAMES[c] for c in leaked]}, still in a hand "
                            f"(waiting: {table.referee.waiting}; trick: {table.public_view()['game'].get('trick')})")


def illegal_card(table, seat: int):
    """A card in ``seat``'s hand it may not play now (None if every card is legal)."""
    from trickref.engine.actions import PLAY

    hand = [C.parse(c) for c in table.seat_view(seat)["game"].get("hand", [])]
    for c in hand:
        if table.check(seat, PLAY[c]) is not None:
            return PLAY[c]
    return None


GAMES = [("hearts", 4), ("german-whist", 2), ("partnership-spades", 4), ("cancellation-hearts", 6), ("spades-2p", 2)]


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("game,players", GAMES, ids=[g for g, _ in GAMES])
def test_referee_path_frames_and_messages_name_no_hidden_card(game, players, language):
    app = S.make_app((800, 480), Settings(language=language))
    _last.clear()
    try:
        table = S.real_game(app, game, players, humans=tuple(range(players)))
        app.session.start_deal()
        rng = random.Random(5)
        frames = refusals = 0
        for _step in range(260):
            g = table.state
            if g is not None and g.over:
                break
            if table.needs_deal:
                table.deal()
                continue
            seat = next(iter(table.turn()), None)
            if seat is None or not table.referee.accepting():
                table.drain()
                check_frame(app, table, players, f"{game} waiting")
                frames += 1
                continue
            if rng.random() < 0.3:
                bad = illegal_card(table, seat)
                if bad is not None:
                    with pytest.raises(ValueError):
                        table.submit(seat, bad)
                    refusals += 1
                    check_frame(app, table, players, f"{game} refused {C.NAMES[bad.value]}")
            table.submit(seat, table.bot.choose(g.copy(), seat, table.host.bot_rng(seat)))
            table.drain()
            check_frame(app, table, players, f"{game} step {_step}")
            frames += 1
        assert frames > 30
        if game != "spades-2p":  # the draw phase has no "may not play" card to try
            assert refusals > 0
    finally:
        app.end_session()
        set_language("en")


@pytest.mark.parametrize("fault", ["jam", "misread", "unplug"])
def test_dealer_fault_screens_name_no_hidden_card(fault):
    app = S.make_app((800, 480), Settings())
    try:
        table = S.real_game(app, "german-whist", 2)
        table.arm_fault(fault, after_cards=12)
        app.session.start_deal()
        assert S.wait(table, lambda: table.referee.dealer_fault is not None or table.public_view()["table"]["dealer"].get("fault"))
        app.route()
        assert app.scene.name == "fault", app.scene.name
        check_frame(app, table, 2, f"{fault} fault screen")
    finally:
        app.end_session()
