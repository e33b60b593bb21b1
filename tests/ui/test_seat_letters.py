"""The referee's words to one seat reach that player on the one shared kiosk, in the kiosk's
language, and nobody else sees the cards they name (ui.letters, ui.scenes.letter).

In a kiosk window (SDL's dummy driver), tapped by tests/ui/finger.py's finger: Ben gives two cards
in a Double Nil exchange of Two-player Spades. The referee tells Ben to put them in the discard
pocket and which cards replace them; the shared screen then says only "Ben: a message for you
(tap to see)" (no card named, none drawn face up); Ben taps it, the others look away, and his
words come up in the kiosk's language with his replacements named as the kiosk names cards; Done
puts the table back, and Ana's own screen never shows his cards. In Hearts, the passes entered
on the screen each bring a "hand your passed cards face down to ..." that names no card: the
shared screen shows those as they are, translated, until OK.
"""

from __future__ import annotations

import os

import pygame
import pytest
from finger import tap_target
from test_hidden_cards import named_cards

from trickref.engine import cards as C
from trickref.engine.actions import Action
from trickref.ui import card_art
from trickref.ui import draw as D
from trickref.ui.i18n import catalog, set_language
from trickref.ui.screenshots import advance, auto_step, start_game
from trickref.ui.settings import Settings

LANGS = ["en", "fr", "ht", "tr"]


@pytest.fixture(autouse=True)
def _english_after():
    yield
    set_language("en")


def window_app(language: str):
    """The kiosk in a window of its own (pygame's display: SDL's dummy driver here)."""
    from trickref.ui.app import App

    pygame.display.quit()
    app = App((800, 480), settings=Settings(language=language))
    app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": False}
    return app


def frame(app) -> tuple[list[str], set[int]]:
    """One frame of the top scene: the texts it drew and the cards it drew face up."""
    log: list[str] = []
    prev, D.text_log = D.text_log, log
    try:
        with card_art.recording() as drawn:
            app.render(force=True)
    finally:
        D.text_log = prev
    return list(log), set(drawn)


def shot(app, name: str) -> None:
    """A screenshot to look at (TRICKREF_LETTER_SHOTS=<folder>; never kept by the test)."""
    where = os.environ.get("TRICKREF_LETTER_SHOTS")
    if where:
        pygame.image.save(app.screen, os.path.join(where, f"{name}.png"))


def said(language: str, template: str, **fields: str) -> str:
    """``template`` in ``language`` from its catalog, filled in (what the kiosk must show)."""
    return catalog(language).gettext(template).format(**fields)


@pytest.mark.parametrize("language", LANGS)
def test_a_double_nil_exchange_tells_the_giver_alone(language):
    app = window_app(language)
    s = start_game(app, "spades-2p", 2, humans=(0, 1), names=["Ana", "Ben"], seed=7)
    t = s.table
    first = t.turn()[0]
    t.submit(first, Action("double_nil", True))
    advance(s, lambda st: st.phase == "exchange")
    ben = t.turn()[0]
    ana = 1 - ben
    assert t.state.names[ben] == "Ben"
    # Ben gives his two lowest cards on the screen, as he would
    app.route()
    assert app.scene.name == "handoff"
    tap_target(app, "Show my cards")
    give = sorted(t.state.hand_of(ben))[:2]
    for c in give:
        tap_target(app, f"card {C.NAMES[c]}")
    tap_target(app, "Exchange 2 cards")
    t.drain()
    (seat, action), = [(x, a) for x, a in t.state.actions if a.kind == "exchange"]
    assert seat == ben and tuple(action.value[0]) == tuple(give)
    got = list(action.value[1])
    assert len(got) == 2

    # the shared screen: Ana is to bid; Ben's words are behind a tap, his cards nowhere
    app.route()
    texts, faces = frame(app)
    shot(app, f"{language}-1-shared")
    assert app.scene.name == "handoff" and ben in app.scene.model()["letters"]["sealed"]
    bens = set(t.state.hand_of(ben))
    assert set(got) <= bens
    assert not named_cards(" ".join(texts)) & bens and not faces, texts
    chip = said(language, "{name}: a message for you (tap to see)", name="Ben")
    assert chip in texts

    tap_target(app, f"letter for seat {ben + 1}")
    texts, faces = frame(app)
    shot(app, f"{language}-2-ask")
    assert app.scene.name == "letter" and not named_cards(" ".join(texts)) and not faces
    assert said(language, "Show the message") in texts

    tap_target(app, "Show the message")
    texts, faces = frame(app)
    shot(app, f"{language}-3-open")
    m = app.scene.model()
    assert m["open"] and len(m["opened"]) == 2, m
    names = " ".join(card_art.card_text(c) for c in got)
    put = catalog(language).ngettext("{name}: put the {n} card you gave in the discard pocket",
                                     "{name}: put the {n} cards you gave in the discard pocket", 2).format(name="Ben", n=2)
    repl = said(language, "{name}: your replacements are {cards}", name="Ben", cards=names)
    for shown, whole in zip(m["opened"], (put, repl), strict=True):
        # the whole sentence, the name it starts with said by the title instead
        tail = whole.split(":", 1)[1].strip()
        assert shown[1:] == tail[1:] and shown[0] == tail[0].upper(), (shown, whole)
    drawn = " ".join(texts)
    assert all(card_art.card_text(c) in drawn for c in got), texts
    assert named_cards(drawn) == set(got)
    if language != "en":
        assert "replacements" not in drawn and "discard pocket" not in drawn, texts
    assert said(language, "For {name} only", name="Ben") in texts

    tap_target(app, "Done")
    app.route()
    texts, faces = frame(app)
    assert app.scene.name == "handoff" and ben not in app.scene.model()["letters"]["sealed"]
    assert chip not in texts

    # Ana looks at her cards: none of Ben's, drawn or named
    tap_target(app, "Show my cards")
    texts, faces = frame(app)
    shot(app, f"{language}-4-ana")
    assert app.scene.view["table"]["seat"] == ana
    assert not faces & bens and not named_cards(" ".join(texts)) & bens, texts
    assert faces  # her own hand is on her screen
    s.table.close()


@pytest.mark.parametrize("language", LANGS)
def test_passes_by_hand_are_said_to_everyone_until_ok(language):
    app = window_app(language)
    names = ["Ana", "Ben", "Cem", "Dee"]
    s = start_game(app, "hearts", 4, humans=(0, 1, 2, 3), names=names, seed=7)
    t = s.table
    advance(s, lambda st: st.phase == "pass")
    while t.state.phase == "pass":
        auto_step(t)
    s.simulated = False  # the table: one shared screen, physical cards
    s.conceal()
    app.route()
    texts, faces = frame(app)
    shot(app, f"{language}-5-passes")
    to = {giver: names[next(x for x in range(4) if x != giver and set(t.state.hand_of(x)) & set(a.value))]
          for giver, a in t.state.actions if a.kind == "pass"}
    want = [said(language, "{name}: hand your passed cards face down to {other}", name=names[g], other=to[g])
            for g in sorted(to)]
    seen: list[str] = []
    for _ in range(4):  # as many as the panel holds, oldest first; OK brings the next ones
        m = app.scene.model()["letters"]
        if not m["shown"]:
            break
        assert m["sealed"] == [] and m["shown"] == want[len(seen):len(seen) + len(m["shown"])], m
        drawn = " ".join(texts)
        for line in m["shown"]:  # each drawn whole (wrapped to the panel's width)
            assert all(word in drawn for word in line.split()), (line, texts)
        assert not named_cards(drawn)
        seen += m["shown"]
        tap_target(app, "letters OK")
        texts, faces = frame(app)
    assert seen == want
    assert app.scene.model()["letters"] == {"shown": [], "sealed": []}
    s.table.close()


class _Game:
    def __init__(self) -> None:
        self.names, self.hand_number, self.actions = ["Ana", "AS", "Cem"], 1, []


class _Referee:
    """What a Letterbox reads of the referee: its ``messages`` (dicts said in order), ``game``
    and ``fed`` (per seat, the cards fed for an entry not yet taken)."""

    def __init__(self) -> None:
        self.messages, self.game, self.fed = [], _Game(), {}

    def say(self, text: str, seat: int | None = None) -> None:
        self.messages.append({"text": text, "seat": seat, "level": "info"})


def test_a_letter_lasts_until_its_seats_next_entry_the_hands_end_or_an_undo():
    from trickref.ui.letters import Letterbox

    ref, box = _Referee(), Letterbox()
    ref.say("New game")
    box.collect(ref)  # what was said before the kiosk looked is past
    ref.fed[0] = ["KH"]
    ref.say("Ana: KH to pass (1 of 3)", 0)
    ref.say("Cem: your card is QS", 2)
    got = box.collect(ref)
    assert [(x.seat, x.secret) for x in got] == [(0, True), (2, True)]
    assert [x.serial for x in box.collect(ref)] == [x.serial for x in got]  # picked up once
    ref.game.actions.append((0, "pass"))  # Ana's entry: her read-back was about it
    ref.fed.clear()
    ref.say("Ana has passed")  # to everyone: no letter
    ref.say("AS: hand your passed cards face down to Cem", 1)
    got = box.collect(ref)
    assert [(x.seat, x.secret) for x in got] == [(2, True), (1, False)]  # "AS" is a name, not the ace
    ref.game.actions.append((2, "play"))  # Cem's entry: his letter goes, AS's stays
    ref.say("AS: your replacements are QS 2H", 1)
    assert [x.text for x in box.collect(ref)] == ["AS: hand your passed cards face down to Cem",
                                                  "AS: your replacements are QS 2H"]
    ref.game.actions.pop()  # undone past the moment AS's replacements were said
    assert [x.text for x in box.collect(ref)] == ["AS: hand your passed cards face down to Cem"]
    ref.say("Cem: your card is TS", 2)
    assert [x.seat for x in box.collect(ref)] == [1, 2]
    ref.game.hand_number = 2  # the hand is over
    assert box.collect(ref) == ()
    for k in range(6):
        ref.fed.setdefault(2, []).append(f"{k + 2}C")
        ref.say(f"Cem: {k + 2}C to pass ({k + 1} of 6)", 2)
    assert [x.text[5:7] for x in box.collect(ref)] == ["4C", "5C", "6C", "7C"]  # the newest few
    ref.say("Cem: 8C to pass (6 of 6)", 2)
    ref.game.actions.append((2, "pass"))  # the last card read and the pass taken in one go
    ref.fed.clear()
    assert box.collect(ref) == ()  # the read-backs went with the pass


def test_the_undos_take_back_is_a_letter_everyone_may_read():
    from trickref.ui.letters import Letterbox

    ref, box = _Referee(), Letterbox()
    box.collect(ref)
    ref.say("Undone: Cem's play QS")
    ref.say("Cem: take QS back from the trick pocket")
    (x,) = box.collect(ref)
    assert x.seat == 2 and not x.secret


def test_a_passed_card_the_dealer_lost_track_of_is_a_secret_letter_to_its_receiver():
    """After a dealer reboot in a two-deck hand-over (tests/device/test_release_reboot_twins.py):
    the receiver is told which copies to put in the play slot and which to keep, on their own
    screen only (it names cards), in the kiosk's language with the cards as the kiosk draws them."""
    from trickref.ui.i18n import set_language
    from trickref.ui.letters import Letterbox
    from trickref.ui.referee_words import seat_words

    ref, box = _Referee(), Letterbox()
    box.collect(ref)
    text = "Cem: look in your pocket for JH, QD (passed to you); put exactly those in the play slot and keep your other QD"
    ref.say(text, 2)
    (x,) = box.collect(ref)
    assert x.seat == 2 and x.secret and x.text == text
    for language, word in (("fr", "gardez"), ("ht", "kenbe"), ("tr", "tutun")):
        set_language(language)
        try:
            out = seat_words(x.text)
        finally:
            set_language("en")
        assert word in out and "QD" not in out and "Q\u2666" in out, (language, out)


def test_a_pass_fed_through_the_reader_is_read_back_to_the_passer_alone():
    """Hardware mode (tests/ui/physical.py: the real dealer driver on the simulator's pty, the
    panels on mock pins), in Haitian Creole: Ana presses OK and feeds her first card to pass; the
    referee reads it back to her ("K♥ pou pase (1 sou 3)"). The shared screen names no card and
    offers her message behind a tap; once her three cards are in, the read-backs are gone."""
    from physical import Rig

    rig = Rig("hearts", 4, seed=3)
    try:
        set_language("ht")
        rig.start({})
        for _ in range(200):
            g = rig.ref.game
            if g is not None and g.phase == "pass" and rig.ref.accepting():
                break
            rig.step()
        g = rig.ref.game
        assert g.phase == "pass"
        ana = 0
        cards = list(rig.bot.choose(g.copy(), ana, rig.rng).value)
        rig.press(ana, "ok")  # "I am feeding now"
        rig.feed(cards[0], ana)
        app = rig.app
        texts, faces = frame(app)
        shot(app, "ht-6-reader-shared")
        assert ana in app.scene.model()["letters"]["sealed"], app.scene.model()["letters"]
        assert not named_cards(" ".join(texts)) & set(g.hand_of(ana)), texts
        assert said("ht", "{name}: a message for you (tap to see)", name=g.names[ana]) in texts
        tap_target(app, f"letter for seat {ana + 1}")
        tap_target(app, "Show the message")
        texts, faces = frame(app)
        shot(app, "ht-7-reader-open")
        want = said("ht", "{name}: {card} to pass ({n} of {need})", name=g.names[ana],
                    card=card_art.card_text(cards[0]), n="1", need="3")
        assert app.scene.model()["opened"] == [want.split(": ", 1)[1][:1].upper() + want.split(": ", 1)[1][1:]]
        tap_target(app, "Done")
        for c in cards[1:]:
            rig.feed(c, ana)
        rig.settle()
        assert ana in g.public_view()["passed"] or rig.ref.game.phase != "pass"
        assert [x for x in app.session.letters(ana) if "to pass" in x.text] == []
    finally:
        rig.close()
        set_language("en")


def test_the_letters_still_due_come_back_after_a_restart(tmp_path):
    """A power cut after the passes: the kiosk comes back with the referee rebuilt from the
    journal (ui.resume and the table host read it so), and the letters the players had not acted
    on yet are there again, the same words to the same seats; one a seat has acted on since
    stays gone (before, every letter was lost across a restart)."""
    from trickref.device.journal import Journal
    from trickref.engine.referee.events import event_from_json
    from trickref.engine.referee.referee import Referee
    from trickref.ui.letters import Letterbox
    from trickref.ui.session import Session
    from trickref.ui.table_client import open_client

    app = window_app("en")
    journal = tmp_path / "journal.jsonl"
    t = open_client("hearts", 4, ["Ana", "Ben", "Cem", "Dee"], {}, (), journal_file=journal, seed=7)
    app.session = s = Session(t, **app.session_args)
    s.start_deal()
    t.drain()
    advance(s, lambda st: st.phase == "pass")
    while t.state.phase == "pass":
        auto_step(t)
    auto_step(t)  # the first card of the hand: its player has acted on their letter
    t.drain()
    live = [(x.seat, x.text) for x in t.letters()]
    assert len(live) == 3 and all("hand your passed cards face down" in text for _, text in live), live
    t.close()  # the power goes: what the journal holds is what is left
    j, records, _report = Journal.open(journal)
    j.close()
    ref = Referee()
    for obj in records:
        ref.handle(event_from_json(obj))
    assert [(x.seat, x.text) for x in Letterbox().collect(ref)] == live
    # and through the kiosk's own way back (ui.table_client.resume_table's): the table opened on
    # the journal and resumed, its letters published with its first snapshot
    from trickref.device.simulated.world import open_any
    from trickref.ui.table_client import TableClient

    opened = open_any(None, "instant", game="hearts", players=4, journal_file=journal, seed=7)
    back = TableClient(opened, "hearts")
    try:
        opened.resume()
        back.drain()
        assert [(x.seat, x.text) for x in back.letters()] == live
    finally:
        back.close()
