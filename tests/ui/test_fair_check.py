"""After a hand: "Check the deal" on the summary opens the check in words and a QR code, and the
QR code read back from the drawn pixels (zxing-cpp, as a phone's camera would) is the hand's
check code: the commitment shown before the deal, the salt, the deck and the chain head the
record holds. At every screen size, for the shortest and the longest code, on a clean frame and
on one seen as a camera sees a screen (tilted, blurred, washed out by glare)."""

from __future__ import annotations

from typing import Any

import pygame
import pytest

from trickref.engine import cards as C
from trickref.engine.referee import checkcode, fairness
from trickref.ui import layoutcheck as L
from trickref.ui.screenshots import SIZES, advance, make_app, show, start_game

zxingcpp = pytest.importorskip("zxingcpp", reason="zxing-cpp decodes the QR codes (pip install -e .[test])")

ADDRESS = "http://192.168.1.20:8088/verify"


def decode(surface: Any) -> list[str]:
    """Every QR code zxing-cpp finds in the frame."""
    w, h = surface.get_size()
    buf = memoryview(pygame.image.tobytes(surface, "RGB")).cast("B", (h, w, 3))
    return [r.text for r in zxingcpp.read_barcodes(buf, formats=zxingcpp.BarcodeFormat.QRCode) if r.valid]


def as_a_camera_sees_it(surface: Any, angle: float = 7.0, scale: float = 0.55) -> Any:
    """The frame tilted, sampled at about half its pixels (blurred by smoothscale up and down)
    and washed out by a glare: a third of white over it."""
    s = pygame.transform.rotate(surface, angle)
    w, h = s.get_size()
    s = pygame.transform.smoothscale(s, (int(w * scale), int(h * scale)))
    s = pygame.transform.smoothscale(s, (int(w * scale * 1.3), int(h * scale * 1.3)))
    glare = pygame.Surface(s.get_size())
    glare.fill((255, 255, 255))
    glare.set_alpha(85)
    s.blit(glare, (0, 0))
    return s


def summary_of(game: str, n: int, hand: int = 1, address: str | None = ADDRESS) -> Any:
    app = make_app((800, 480))
    app.verify_address = address
    s = start_game(app, game, n, seed=3)
    advance(s, lambda st: st.hand_number == hand and st.phase in ("deal", "over"))
    s.summary_seen = hand - 1
    show(app)
    assert app.scene.name == "summary"
    return app


def finger_tap(app: Any, pos: tuple[int, int], held_frames: int = 6) -> None:
    """A finger: press, frames drawn while it is held (a few pixels of drift), release."""
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=pos))
    for k in range(held_frames):
        for e in pygame.event.get():
            app.dispatch(e)
        app.tick(0.05)
        app.render()
        if k == held_frames // 2:
            pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(pos[0] + 2, pos[1] + 1), rel=(2, 1),
                                                 buttons=(1, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=(pos[0] + 3, pos[1] + 2)))
    for e in pygame.event.get():
        app.dispatch(e)
    app.tick(0.05)
    app.render()


def check_code_of_hand(app: Any, h: int) -> str:
    rec = app.session.table.referee.record()
    hand = rec["hands"][h]
    return checkcode.make(rec["game"], h + 1, hand["commitment"], hand["salt"], hand["deck"], hand["chain"], "en")


@pytest.mark.parametrize("game, n", [("hearts", 4), ("cancellation-hearts", 8)])
def test_the_qr_code_read_off_the_screen_is_the_hands_check_code(game: str, n: int) -> None:
    app = summary_of(game, n)
    try:
        assert "matches the commitment shown before it" in " ".join(app.scene.model()["commitment"])
        finger_tap(app, app.scene.button("Check the deal").rect.center)
        assert app.scene.name == "faircheck"
        want = ADDRESS + "#" + check_code_of_hand(app, 0)
        for size in SIZES:
            L.resize(app, size)
            assert L.render_checked(app) == [], size
            m = app.scene.model()
            assert m["qr"] == want and m["matches"] is True
            assert decode(app.screen) == [want], size
            assert decode(as_a_camera_sees_it(app.screen)) == [want], size
            # the module is whole pixels, and the code is as the layout rule wants it
            x, y, side, _ = m["qr_rect"]
            assert side % checkcode_modules(want) == 0
        code = checkcode.decode(want)
        rec = app.session.table.referee.record()
        hand = rec["hands"][0]
        assert [C.NAMES[c] for c in code.deck] == hand["deck"]
        assert (code.commitment, code.salt, code.chain) == (hand["commitment"], hand["salt"], hand["chain"])
        assert fairness.short(code.commitment) in " ".join(m["words"])
        finger_tap(app, app.scene.button("Back").rect.center)
        assert app.scene.name == "summary"
    finally:
        app.end_session()


def checkcode_modules(text: str) -> int:
    from trickref.ui import qr

    return qr.modules(text)


def test_without_a_page_address_the_code_alone_and_words_for_a_saved_page() -> None:
    app = summary_of("spades-2p", 2, address=None)
    try:
        app.go("faircheck")
        for size in ((800, 480), (720, 1280)):
            L.resize(app, size)
            assert L.render_checked(app) == []
            want = check_code_of_hand(app, 0)
            assert decode(app.screen) == [want]
            assert any("paste its text into the trickref verify page" in w for w in app.scene.model()["words"])
    finally:
        app.end_session()


@pytest.mark.parametrize("language", ["fr", "ht", "tr"])
def test_large_text_and_every_language_fit(language: str) -> None:
    from trickref.ui.i18n import set_language

    app = summary_of("german-whist", 2)
    try:
        set_language(language)
        app.go("faircheck")
        for size in SIZES:
            L.resize(app, size, large_text=True)
            assert L.render_checked(app, physical=True) == [], (language, size)
            assert len(decode(app.screen)) == 1
            assert app.scene.model()["qr"].endswith("." + language)
    finally:
        set_language("en")
        app.end_session()


def test_the_kiosk_checks_the_deal_itself() -> None:
    """The words are the kiosk's own check: a deck that does not hash to the commitment says so."""
    from trickref.ui.fairshow import check, commitment_lines

    app = summary_of("hearts", 4)
    try:
        t = app.session.view()["table"]
        fc = check(t)
        assert fc is not None and fc.matches
        bad = dict(t, commitment=dict(t["commitment"]))
        deck = list(bad["commitment"]["deck"])
        deck[0], deck[1] = deck[1], deck[0]
        bad["commitment"]["deck"] = deck
        fc2 = check(bad)
        assert fc2 is not None and not fc2.matches
        assert "does NOT match" in commitment_lines(bad, after=True)[0]
        assert check({"commitment": dict(t["commitment"], salt=None)}) is None
    finally:
        app.end_session()


def test_the_layout_rule_keeps_text_off_the_code_and_its_modules_big_enough() -> None:
    from trickref.ui import draw as D
    from trickref.ui import qr

    pygame.font.init()
    surf = pygame.Surface((800, 480))
    with L.recording() as log:
        D.log_scene("x")
        qr.draw(surf, ADDRESS + "#" + "1" * 200, pygame.Rect(400, 50, 90, 90))  # far too small
        D.text(surf, __import__("trickref.ui.theme", fromlist=["Theme"]).Theme(), "over it", (410, 60))
    problems = L.check(log, (800, 480))
    assert any("QR code modules too small" in p for p in problems)
    assert any("over a QR code" in p for p in problems)
