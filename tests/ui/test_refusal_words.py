"""Every refusal the engine can produce reaches the table in its language.

The engine speaks English. This test reads engine/ itself (not a list kept by hand): every
message a referee refusal is made of (``self._refuse(seat, <message>)``), every reason the
games' rules give for refusing an action (what their ``_check``-like methods return and what
``IllegalAction`` is raised with), every reason the keep-score sheet refuses a hand with
(``EntryError(<message>)``) and the dealer-fault paragraphs the referee writes
(``self.dealer_fault = ...``). Each template's fields are filled with sample values (by the
expression the engine formats: ``self._name(seat)`` is a player's name, ``C.SUIT_NAMES[led]`` a
suit...), and each sample must be understood whole by ``ui.referee_words`` and come out in
French, Haitian Creole and Turkish.

The few messages only a programming error can cause (an action built by hand with a value no
panel, reader or touch target produces) are listed in INTERNAL with why; a new message added to
the engine fails here until it is translated or listed.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from trickref.engine.games import new_game
from trickref.engine.referee import flows
from trickref.ui.i18n import set_language
from trickref.ui.referee_words import translate, understood

ENGINE = Path(__file__).resolve().parents[2] / "engine"

# functions of the games that return a rule's reason (None: the action is allowed)
REASON_FUNCS = {"_check", "_check_play", "_play_check", "_check_exchange", "check_pass", "_check_setup", "wrong_kind",
                "_not_your_turn", "check"}

# expression the engine formats -> sample values (several: each is tried)
SAMPLES: dict[str, list[str]] = {
    "self._name(seat)": ["Ana"], "self._name(ev.seat)": ["Ana"], "self._name(owner)": ["Ana"],
    "self._name(fed_by)": ["Ana"], "self._name(others[0])": ["Ben"], "self._name(last_seat)": ["Ben"],
    "self.names[shooter]": ["Cem"], "names[s]": ["Dee"], "self.names[s]": ["Dee"], "names[a]": ["Ana"],
    "names[b]": ["Cem"], "names[team]": ["Ana"], "names[team + 2]": ["Cem"],
    "self.waiting_text()": ["waiting for Ben to play", "waiting for Ben, Cem to pass", "the dealer needs attention",
                            "wait: the dealer is dealing", "wait: Ben feeds the drawn card back into the dealer",
                            "waiting for the shuffle", "waiting for a new game"],
    "reason": ["must follow clubs", "hearts are not broken", "must over-trump the QS", "a bid is 0 to 13"],
    "C.NAMES[card]": ["QS"], "C.NAMES[c]": ["10H"], "C.NAMES[first]": ["2C"], "C.NAMES[w]": ["KD"],
    "C.SUIT_NAMES[led]": ["clubs", "hearts"], "C.SUIT_NAMES[trump]": ["spades"],
    "self._not_held(card)": ["duplicate read: QS has already been played this hand", "QS is not in this hand's deck",
                             "QS is not in anyone's hand (it is out of play this hand)"],
    "who": ["Ben"], "_PHASE_WORDS.get(phase, 'act')": ["play", "bid", "draw (+ keep, - discard)", "act"],
    "ev.card!r": ["'?'"], "why": ["the drawn cards have already been routed", "the passed cards are in the dealer"],
    "public_words(last)": ["play QS", "bid 4", "bid Nil", "pass of 3 cards", "Double Nil exchange of 2 card(s)", "draw",
                           "keep the card", "declare Blind Nil"],
    "action.describe()": ["bid 4", "play QS", "declare Double Nil", "discard the card", "exchange QS 2H for 3C 4D",
                          "choose the moon for the others"],
    "t[0]": ["2"], "PASS_COUNT": ["3"], "kind": ["bid", "pass", "play"], "top": ["9"], "margin": ["100"],
    "kind.replace('_', ' ')": ["bid", "double nil", "blind nil", "exchange", "draw", "moon"], "wanted": ["play a card", "bid 0 (Nil) to 13"],
    "len(give)": ["2"], "len(get)": ["3"], "str(e)": ["seat 2 cannot play QS: must follow clubs"],
    # the keep-score sheet
    "what": ["hearts", "tricks", "stage-two tricks", "Q\u2660", "bid"], "self.names[c['seat']]": ["Ben"],
    "c['points']:+d": ["-5"], "len(self.entries)": ["3"], "got": ["12"], "want": ["13"],
    "x": ["14"], "lo": ["0"], "hi": ["13"], "self.n": ["4"], "label": ["Double Nil", "Blind Nil"],
    "bids[s]": ["3"], "us": ["120"], "them": ["260"], "'a lead' if us >= them else f'{them - us} behind'": ["140 behind", "a lead"],
    "bids[team] + bids[team + 2]": ["14"], "self.options['moon_self']:+d": ["-26"], "self.options['moon_others']:+d": ["+26"],
    "nq": ["3"], "total": ["26"], "points!r": ["0"],
    # correcting an earlier hand (the sheet's amend, the referee's HandCorrection)
    "hand": ["2"], "ev.hand": ["3"],
    # the dealer's fault paragraphs
    "problems": ["1 card missing, 2 cards too many", "1 card in the wrong place", "2 cards unreadable"],
    "', '.join(found)": ["0 cards missing, 1 card too many, 1 card in the wrong place"],
    "after": ["Clear it and press Resume: the step is done again.", "Press Resume when it is back.",
              "The table goes on by itself when the dealer answers again.",
              "Clear it and press Resume: the deal goes on; if the dealer lost the deal, gather all the cards into it "
              "and the hand is redealt from the same deck order.",
              # a hand-over of passed cards stopped (a jam; an e-stop or reboot; cards it could not find)
              "Clear it and press Resume: the passed cards still in the dealer go on to their pockets.",
              "Clear it, put any card from the reject pocket, the belt or the read window in the play slot, then "
              "press Resume: the passed cards go on to their pockets.",
              "Put those cards in the play slot, then press Resume: they go on to their pockets with the other passed "
              "cards.",
              # ... with cards set aside for the hand in the reject pocket (Hearts at 5: 2C, 2D)
              "Clear it, put any card from the reject pocket (not 2D, 2C: they are out of this game), the belt or the "
              "read window in the play slot, then press Resume: the passed cards go on to their pockets."],
}
# a field that means something else in one file
SAMPLES_IN: dict[str, dict[str, list[str]]] = {
    "engine/referee/entries.py": {"why": ["is not in your hand", "is Ben's card"]},
    # a hand correction the sheet refuses: its reason
    "engine/referee/undo.py": {"e.reason": ["the tricks add up to 12, not 13 (a hand has 13 tricks, each won by someone)",
                                            "hand 2 already has these figures: nothing to correct"]},
    # a game the table cannot start with bot seats inside the dealer: flows.loop_bots_refused's reasons
    # (its "could exceed the loop" cannot happen: two decks are 104 cards, the loop holds 120)
    "engine/referee/referee.py": {"ev.game": ["spades-2p"], "why": [
        flows.loop_bots_refused(new_game("spades-2p", 2), "loop", [1]) or "",
        flows.loop_bots_refused(new_game("hearts", 4), "loop", [1], dealer=1) or ""]},
}
# the referee's "what happened" in a dealer-fault paragraph: its own words, or the driver's first clause
FAULT_WHAT = ["a card jammed", "the dealer's cable is unplugged or the link is down", "the dealer stopped answering",
              "the dealer's cards do not match the plan", "the dealer reported a fault",
              "a card jammed at the read stage", "the dealer reported a fault (reading a fed card: the action was aborted)",
              "the dealer stopped answering (the dealer is still not answering: timed out)",
              "the dealer reported a fault (the self-test: emergency stop by the e-stop button)",
              "1 passed card is not in the dealer: look in the reject pocket, on the belt and in the read window, and "
              "each receiver in their pocket (their screen says which)",
              "3 passed cards are not in the dealer: look in the reject pocket, on the belt and in the read window, and "
              "each receiver in their pocket (their screen says which)",
              "1 passed card is not in the dealer: look in the reject pocket (leave 2D, 2C there: they are out of this "
              "game), on the belt and in the read window, and each receiver in their pocket (their screen says which)",
              "2 passed cards are not in the dealer: look in the reject pocket (leave 2C there: they are out of this "
              "game), on the belt and in the read window, and each receiver in their pocket (their screen says which)"]

# messages only a caller's bug produces (the kiosk builds its actions and entries itself), with why
INTERNAL = {
    "f'not an action: {action!r}'": "an object that is not an engine Action",
    "'not an action'": "an object that is not an engine Action",
    "f'there is no seat {seat!r} at a table of {self.n}'": "a seat number outside the table",
    "f'not a card: {c!r}'": "an action built with a value that is not a card",
    "f'not a card: {card!r}'": "an action built with a value that is not a card",
    "f'a pass is exactly {PASS_COUNT} cards'": "the kiosk passes when the pass is complete",
    "'the passed cards must be a sorted tuple (build the action with actions.pass_cards)'": "actions.pass_cards sorts",
    "'a pass is a sorted pair of cards (see actions.pass_cards)'": "actions.pass_cards sorts",
    "f'the moon choice is \"self\" or \"others\", not {action.value!r}'": "the kiosk offers the two choices only",
    "f'a Blind Nil declaration is true, not {value!r}'": "the kiosk declares with True",
    "f'a draw is \"keep\" or \"discard\", not {value!r}'": "the kiosk's + and - give keep and discard",
    "f'a Double Nil declaration is true, not {value!r}'": "the kiosk declares with True",
    "'an exchange is a pair of card lists: (give, get)'": "actions.exchange builds the pair",
    "'an exchange is a pair of sorted card tuples: (give, get)'": "actions.exchange sorts",
    "'give and get are sorted tuples of cards (see actions.exchange)'": "actions.exchange sorts",
    "f'German Whist has no {action.kind} action: players only play cards'": "the kiosk offers only plays",
    "f'there is no seat {seat!r} at this table'": "an entry for a seat the table does not have",
    "f'a button on seat {ev.seat!r}, which is not at this table'": "a panel wired to a seat the table does not have",
    "f'unknown button {b!r}'": "a panel driver sending a button name it does not have",
    "f'{self._name(ev.seat)}: not an entry the table understands ({e})'": "an entry no input produces",
    "f\"unknown game {ev.game!r} (one of {', '.join(GAME_IDS)})\"": "the home screen starts known games only",
    "f'cannot start {ev.game}: no seat {bad[0]!r} for a bot at a table of {g.n}'": "the home screen seats bots in range",
    "f'cannot start {ev.game}: {e}'": "the home screen's options are validated before starting",
    "'no shuffle was asked for: ignored'": "a shuffle only answers the referee's request",
    "f'the shuffle is not a full deck ({e}); shuffle again'": "the referee's own shuffle is always a full deck",
    "f\"the shuffle's salt will not do ({bad_salt}); shuffle again\"": "the referee's own salt is always long enough",
    "f'a correction names a seat of this table and a non-zero whole number of points, not seat {ev.seat!r}, "
    "{ev.points!r} points'": "the correction screen gives a seat and non-zero points",
    # the keep-score sheet: shapes only a caller gets wrong (the entry screen fills them)
    "f\"a hand's entries are an object of named counts, not {type(entries).__name__}\"": "the entry screen's dict",
    "f\"{self.GAME_ID} has no entry {extra[0]!r} (it asks for {', '.join(sorted(known))})\"": "the entry screen's keys",
    "f'{what} of {self.names[s]}: a whole number is needed, not {x!r}'": "the number pad gives whole numbers",
    "f\"{key.replace('_', ' ')}: one true or false per player is needed\"": "the toggles give booleans",
    "f'the {what} holder must be a seat from 0 to {self.n - 1}, not {v!r}'": "the holder buttons give seats",
    "f'a correction names a seat from 0 to {self.n - 1}, not {seat!r}'": "the correction screen gives a seat",
    "'the reason of a correction is text'": "the correction screen gives a reason word",
    "f'the first dealer is a seat from 0 to {self.n - 1}, not {seat!r}'": "the dealer button cycles the seats",
    # correcting an earlier hand: the kiosk offers the finished hands only, and gives text
    "f'there is no hand {hand!r} to correct (the sheet has {have})'": "the hand picker offers the sheet's hands",
    "f'there is no finished hand {ev.hand!r} to correct ({have})'": "the hand picker offers the finished hands",
    "'the reason and time of a correction are text'": "the reason screen gives text",
    "'the reason, time and author of a correction are text'": "the reason screen gives text",
    "f'{what}: one whole number per player ({self.n}) is needed'": "the entry screen fills every seat",
}


def _templates() -> list[tuple[str, int, ast.expr]]:
    """(file, line, message expression) for every refusal message the engine builds."""
    out: list[tuple[str, int, ast.expr]] = []
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = str(path.relative_to(ENGINE.parent))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr == "_refuse" and len(node.args) >= 2:
                    out.append((rel, node.lineno, node.args[1]))
                elif isinstance(f, ast.Name) and f.id == "IllegalAction" and len(node.args) >= 3:
                    out.append((rel, node.lineno, node.args[2]))
                elif isinstance(f, ast.Name) and f.id == "EntryError" and node.args:
                    out.append((rel, node.lineno, node.args[0]))
            elif isinstance(node, ast.FunctionDef) and node.name in REASON_FUNCS and "scorekeeper" not in rel:
                for r in ast.walk(node):
                    if isinstance(r, ast.Return) and (isinstance(r.value, ast.JoinedStr) or (
                            isinstance(r.value, ast.Constant) and isinstance(r.value.value, str))):
                        out.append((rel, r.lineno, r.value))
            elif isinstance(node, ast.Assign) and any(ast.unparse(t) == "self.dealer_fault" for t in node.targets):
                out.append((rel, node.lineno, node.value))
    return out


def _samples(expr: ast.expr, samples: dict[str, list[str]] = SAMPLES) -> list[str] | None:
    """The message with its fields filled by sample values (one per sample of each field in
    turn); None for an expression passed on as it is (a variable holding another message)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if not isinstance(expr, ast.JoinedStr):
        src = ast.unparse(expr)
        return list(samples[src]) if src in samples else None
    fields = [v for v in expr.values if isinstance(v, ast.FormattedValue)]
    options = []
    for v in fields:
        key = ast.unparse(v.value) + ("!r" if v.conversion == ord("r") else "")
        if v.format_spec is not None:
            key += ":" + ast.unparse(v.format_spec)[2:-1]
        if key not in samples:
            raise KeyError(key)
        options.append(samples[key])
    out = []
    picks = [[o[0] for o in options]]
    for i, o in enumerate(options):  # each sample of each field, the others at their first
        for alt in o[1:]:
            p = [x[0] for x in options]
            p[i] = alt
            picks.append(p)
    for pick in picks:
        it = iter(pick)
        out.append("".join(v.value if isinstance(v, ast.Constant) else next(it) for v in expr.values))
    return out


def _messages() -> list[tuple[str, str]]:
    """(where, sample message) for every template not listed as internal."""
    found: list[tuple[str, str]] = []
    unknown: list[str] = []
    for rel, line, expr in _templates():
        src = ast.unparse(expr)
        if src in INTERNAL:
            continue
        if rel.endswith("steps.py") and src == "f'Dealer stopped: {what}. {after}'":
            found += [(f"{rel}:{line}", f"Dealer stopped: {w}. {a}") for w, a in itertools.product(FAULT_WHAT, SAMPLES["after"])]
            continue
        try:
            samples = _samples(expr, {**SAMPLES, **SAMPLES_IN.get(rel, {})})
        except KeyError as e:
            unknown.append(f"{rel}:{line}: no sample for {e.args[0]!r} in {src}")
            continue
        if samples is None:  # a variable carrying another message (checked where that one is built)
            continue
        found += [(f"{rel}:{line}", s) for s in samples]
    assert not unknown, "add sample values (SAMPLES) or list as INTERNAL:\n" + "\n".join(unknown)
    return found


def test_the_engine_still_builds_every_internal_message():
    """INTERNAL lists no message the engine no longer has (so the list stays honest)."""
    sources = {ast.unparse(expr) for _rel, _line, expr in _templates()}
    stale = sorted(set(INTERNAL) - sources)
    assert not stale, stale


def test_every_refusal_is_understood_whole():
    messages = _messages()
    assert len(messages) > 100  # the collection found the engine's messages
    missing = [f"{where}: {text}" for where, text in messages if not understood(text)]
    assert not missing, "not translatable whole (add a template to ui/referee_words.py):\n" + "\n".join(missing)


@pytest.mark.parametrize("language", ["fr", "ht", "tr"])
def test_every_refusal_comes_out_in_the_language(language):
    set_language(language)
    try:
        same = [f"{where}: {text}" for where, text in _messages() if translate(text) == text]
        assert not same, f"shown in English in {language}:\n" + "\n".join(same)
    finally:
        set_language("en")


def test_names_and_cards_stay_as_said():
    """Translation changes the words around, never the names and cards the referee named."""
    set_language("tr")
    try:
        out = translate("Zoë: 10H is not in your hand; it goes back")
        assert "Zoë" in out and "10H" in out and out != "Zoë: 10H is not in your hand; it goes back"
        out = translate("the hearts add up to 12, not 13 (one deck has 13 hearts and no heart is ever set aside)")
        assert "12" in out and "13" in out
    finally:
        set_language("en")


def test_the_fault_screen_gives_the_dealers_paragraph_in_the_language(tmp_path, monkeypatch):
    """The dealer-fault screen (a jam staged the way ``trickref screenshots`` does) shows the
    referee's paragraph about the fault translated, not in English."""
    from trickref.ui import screenshots as S
    from trickref.ui.settings import Settings

    monkeypatch.setenv("TRICKREF_HOME", str(tmp_path))
    app = S.make_app((800, 480), Settings(language="ht"))
    try:
        dict(S.scenarios())["fault"](app)
        m = app.scene.model()
        said = str(app.scene.t["dealer"]["fault"])
        assert understood(said), said
        # understood whole: it is the screen's "what happened", in Haitian Creole
        assert m["what"] == translate(said) != said
        assert "Dealer stopped" not in m["what"]
        assert "details" not in m
    finally:
        app.end_session()
        set_language("en")


def test_the_keep_score_screen_says_why_not_in_the_language(tmp_path, monkeypatch):
    """A refused keep-score hand (tricks adding up to 14) says why in Turkish, not in English."""
    from trickref.ui import screenshots as S
    from trickref.ui.settings import Settings

    monkeypatch.setenv("TRICKREF_HOME", str(tmp_path))
    app = S.make_app((800, 480), Settings(language="tr"))
    try:
        dict(S.scenarios())["keep-score-refused"](app)
        app.render(force=True)
        m = app.scene.model()
        why = m["reason"]
        assert why and understood(why), why
        shown = " ".join(m["texts"])
        assert translate(why).split(" (")[0] in shown and why.split(" (")[0] not in shown
    finally:
        app.end_session()
        set_language("en")


# ---------------------------------------------------------------- what the referee tells one seat
# (``self._msg(<message>, seat=...)``: what that player must do with their cards), and the undo's
# "take <card> back" (said to everyone: the card was face up), in the kiosk's language

SEAT_SAMPLES: dict[str, list[str]] = {
    "self._name(head.args['seat'])": ["Ana"], "self._name(g.to_move)": ["Ben"], "self._name(giver)": ["Ana"],
    "self._name(to)": ["Ben"], "C.NAMES[shown]": ["KH"], "C.NAMES[g.deck[0]]": ["TS"], "C.NAMES[due]": ["2C"],
    "C.NAMES[last.value]": ["QS"], "len(fed)": ["1", "2"], "need": ["3"], "len(give)": ["1", "3"],
    "' '.join(C.names(get)) or 'none'": ["QS 2H", "none"], "', '.join(cards)": ["QS, TH"],
    "', '.join(C.names(twins))": ["QS", "QS, TH"], "card": ["QS"],
}


def _seat_templates() -> list[tuple[str, int, ast.expr]]:
    """(file, line, message expression) for every message the referee addresses to one seat."""
    out: list[tuple[str, int, ast.expr]] = []
    for path in sorted((ENGINE / "referee").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = str(path.relative_to(ENGINE.parent))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "_msg"
                    and node.args):
                continue
            seat = next((k.value for k in node.keywords if k.arg == "seat"), None)
            to_seat = seat is not None and not (isinstance(seat, ast.Constant) and seat.value is None)
            take_back = "back from the trick pocket" in ast.unparse(node.args[0])
            if (to_seat or take_back) and not isinstance(node.args[0], ast.Name):
                out.append((rel, node.lineno, node.args[0]))
    return out


def _seat_samples(expr: ast.expr, samples: dict[str, list[str]]) -> list[str]:
    """``_samples`` through a ``+`` of two parts and a ``x if c else y`` (each branch)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return [a + b for a in _seat_samples(expr.left, samples) for b in _seat_samples(expr.right, samples)]
    if isinstance(expr, ast.IfExp):
        return _seat_samples(expr.body, samples) + _seat_samples(expr.orelse, samples)
    got = _samples(expr, samples)
    assert got is not None, ast.unparse(expr)
    return got


def _seat_messages() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for rel, line, expr in _seat_templates():
        try:
            found += [(f"{rel}:{line}", s) for s in _seat_samples(expr, {**SAMPLES, **SEAT_SAMPLES})]
        except KeyError as e:
            raise AssertionError(f"{rel}:{line}: add a sample for {e.args[0]!r} to SEAT_SAMPLES") from None
    return found


def test_every_message_to_one_seat_is_understood_whole():
    messages = _seat_messages()
    where = {w.split(":")[0] for w, _t in messages}
    # the collection found the seat messages of the pass, the give, the draw, the exchange and the undo
    assert {f"engine/referee/{f}.py" for f in ("entries", "taking", "steps", "undo")} <= where, where
    assert len(messages) >= 15
    missing = [f"{w}: {t}" for w, t in messages if not understood(t)]
    assert not missing, "not translatable whole (add a template to ui/referee_words.py):\n" + "\n".join(missing)


@pytest.mark.parametrize("language", ["en", "fr", "ht", "tr"])
def test_every_message_to_one_seat_comes_out_in_the_language(language):
    """In the kiosk's language, with the cards named as the kiosk draws them (Q♠ 2♥, not QS 2H),
    and one card or several as the count says (no "card(s)")."""
    from trickref.ui.referee_words import card_words, seat_words

    set_language(language)
    try:
        for where, text in _seat_messages():
            out = seat_words(text)
            if language != "en":
                assert out != card_words(text), f"shown in English in {language}: {where}: {text}"
            assert "{" not in out and "(s)" not in out, (where, out)
            for name in ("KH", "TS", "2C", "QS", "2H", "TH"):
                if name in text.split(" ") or f"{name}," in text:
                    assert name not in out.replace(",", " ").split(" "), (where, out)
                    assert card_words(name) in out, (where, out)
    finally:
        set_language("en")
