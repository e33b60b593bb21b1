"""The verify page (device/verify_web): served by the table (and by the club hub:
tests/club/test_web.py), read-only; and in
a real browser (Debian's chromium through Playwright) it agrees with ``trickref verify`` on good
and tampered records (deck, salt, plays, points), checks the QR code the kiosk draws (read off
its pixels), keeps what a phone scanned and catches a record rewritten with a recomputed chain
against it, and its own SHA-256 (for plain http on a LAN, where browsers give no crypto.subtle)
agrees with the browser's and with Python's."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import random
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from trickref.device import verify_web
from trickref.device.verify_web.server import VerifyServer
from trickref.engine.referee import checkcode
from trickref.ui.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from fair_records import finished_record, rewritten_last_hand  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
LAN_NAME = "table.lan"  # resolved to 127.0.0.1 by the browser: a plain-http origin that is not "secure"


def get(url: str, method: str = "GET") -> tuple[int, str, bytes]:
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read()


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    s = VerifyServer("127.0.0.1", 0).start()
    try:
        yield s
    finally:
        s.stop()


def test_the_table_serves_the_page_and_nothing_else(server: VerifyServer) -> None:
    base = f"http://127.0.0.1:{server.port}"
    for path in ("/verify", "/verify.html", "/", "/verify?lang=fr"):
        code, ctype, body = get(base + path)
        assert code == 200 and ctype.startswith("text/html") and body == verify_web.page()
    assert get(base + "/journal")[0] == 404
    code, _, body = get(base + "/verify", "POST")
    assert code == 405 and b"read-only" in body
    assert get(base + "/verify", "HEAD")[2] == b""
    assert server.page_address("10.0.0.7") == f"http://10.0.0.7:{server.port}/verify"


def test_the_kiosk_serves_it_as_configured(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from trickref.device.config import Config, VerifyConfig
    from trickref.ui.fairshow import serve_page

    class App:
        pass

    app: Any = App()
    app.settings = type("S", (), {"config": Config(verify=VerifyConfig(port=0))})()
    assert serve_page(app) is None and app.verify_address is None
    app.settings.config = Config(verify=VerifyConfig(port=0, address="http://hub.club:8080/verify"))
    assert serve_page(app) is None and app.verify_address == "http://hub.club:8080/verify"
    with VerifyServer("127.0.0.1", 0) as taken:
        app.settings.config = Config(verify=VerifyConfig(port=taken.port))
        assert serve_page(app, "127.0.0.1") is None and app.verify_address is None
        assert "cannot serve the verify page" in capsys.readouterr().err
    free = VerifyServer("127.0.0.1", 0)
    port = free.port
    free.server_close()
    app.settings.config = Config(verify=VerifyConfig(port=port))
    monkeypatch.setattr("trickref.device.verify_web.server.lan_address", lambda: "10.1.2.3")
    s = serve_page(app, "127.0.0.1")
    try:
        assert app.verify_address == f"http://10.1.2.3:{port}/verify"
        assert get(f"http://127.0.0.1:{port}/verify")[0] == 200
    finally:
        s.stop()


def test_the_verify_section_of_the_configuration() -> None:
    from trickref.device.config import loads

    config, problems = loads("[verify]\nport = 0\naddress = \"https://club.example/verify\"\n")
    assert (config.verify.port, config.verify.address, problems) == (0, "https://club.example/verify", [])
    config, problems = loads("[verify]\nport = 99999\naddress = \"ftp://x#y\"\n")
    words = " ".join(str(p) for p in problems)
    assert "verify.port" in words and "verify.address" in words
    assert config.verify.port == 8088 and config.verify.address == ""
    from trickref.device.config import Config, dumps

    assert loads(dumps(Config()))[0] == Config()


# ---------------------------------------------------------------- in the browser

def _playwright() -> Any:
    if not os.path.exists(CHROMIUM):
        why = "Debian's chromium is not installed (scripts/system-deps.sh installs it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is not installed (pip install -e .[test])")
    return sync_playwright


def verify_json(rec: dict[str, Any], tmp_path: Path, *scans: str) -> tuple[int, dict[str, Any]]:
    """``trickref verify --json`` on ``rec``: (exit status, its JSON)."""
    path = tmp_path / f"rec-{random.random()}.json"
    path.write_text(json.dumps(rec))
    out = io.StringIO()
    args = ["verify", "--json", str(path)] + [x for s in scans for x in ("--scan", s)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(args)
    return status, json.loads(out.getvalue()) if out.getvalue().strip() else {}


def codes_of(rec: dict[str, Any], language: str | None = None) -> list[str]:
    return [checkcode.make(rec["game"], h + 1, hand["commitment"], hand["salt"], hand["deck"], hand["chain"], language)
            for h, hand in enumerate(rec["hands"])]


def tampered(rec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    bad = copy.deepcopy(rec)
    d = bad["hands"][1]["deck"]
    d[3], d[30] = d[30], d[3]
    out["deck"] = bad
    bad = copy.deepcopy(rec)
    bad["hands"][0]["salt"] = "0" * 32
    out["salt"] = bad
    bad = copy.deepcopy(rec)
    acts = bad["hands"][1]["actions"]
    plays = [i for i, a in enumerate(acts) if "play" in a]
    acts[plays[-1]]["play"], acts[plays[-5]]["play"] = acts[plays[-5]]["play"], acts[plays[-1]]["play"]
    out["plays"] = bad
    bad = copy.deepcopy(rec)
    bad["hands"][2]["points"][0] -= 1
    out["points"] = bad
    bad = copy.deepcopy(rec)
    bad["hands"][2]["actions"].pop(0)
    out["action removed"] = bad
    bad = copy.deepcopy(rec)
    del bad["hands"][1]["chain"]
    out["chain removed"] = bad
    bad = copy.deepcopy(rec)
    bad["players"][1] = "Mallory"
    out["players"] = bad
    return out


def test_the_page_in_chromium(tmp_path: Path) -> None:  # noqa: PLR0915 - one browser, many checks
    sync_playwright = _playwright()
    rec = finished_record()
    server = VerifyServer("127.0.0.1", 0).start()
    secure = f"http://127.0.0.1:{server.port}/verify"  # localhost: a secure context
    lan = f"http://{LAN_NAME}:{server.port}/verify"  # plain http on a name: no crypto.subtle
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"])
            asked: set[str] = set()

            def open_page(url: str, ctx: Any = None) -> Any:
                page = (ctx or browser).new_page()
                page.goto(url)
                page.wait_for_selector("body[data-ready='1']")
                return page

            def done(page: Any) -> None:
                asked.update(page.evaluate("trickref.asked()"))
                page.close()

            # --- SHA-256: the page's own against the browser's and Python's
            page = open_page(secure)
            assert page.evaluate("trickref.subtle") is True
            rng = random.Random(7)
            blobs = [bytes(rng.randrange(256) for _ in range(n)) for n in
                     (0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, *(rng.randrange(2000) for _ in range(20)))]
            got = page.evaluate("""async blobs => {
                const out = [];
                for (const b of blobs) {
                    const u = new Uint8Array(b);
                    out.push([trickref.sha256Bytes(u), await trickref.sha256Subtle(u)]);
                }
                return out;
            }""", [list(b) for b in blobs])
            assert got == [[hashlib.sha256(b).hexdigest()] * 2 for b in blobs]
            done(page)
            page = open_page(lan)
            assert page.evaluate("trickref.subtle") is False  # as on a phone reaching the table's page
            assert "own code" in page.inner_text("#hasher")
            text = "trickref-commit/1\nZoë ♠ İ\n" + "ab" * 40
            assert page.evaluate("t => trickref.sha256(t)", text) == hashlib.sha256(text.encode()).hexdigest()
            # the canonical JSON and action texts are Python's
            names = ["Zoë", 'Ana "A"', "Çağ\u0130", "\U0001F0A1 ace", "tab\there", "\x7f"]
            assert page.evaluate("v => trickref.canon(v)", [names, {"target": 50, "b": True, "a": None}]) == \
                json.dumps([names, {"target": 50, "b": True, "a": None}], sort_keys=True, separators=(",", ":"))
            done(page)

            # --- each hand's QR code, opened as a phone's camera opens it (plain http, the data after #)
            phone = browser.new_context()
            for h, code in enumerate(codes_of(rec)):
                page = open_page(f"{lan}#{code}", phone)
                assert page.get_attribute("body", "data-state") == "code:ok"
                text = page.inner_text("#result")
                assert "This deal matches the commitment shown before it." in text
                assert " ".join(rec["hands"][h]["commitment"][i:i + 4] for i in range(0, 24, 4)) in text
                assert "Kept on this phone" in text
                done(page)
            code = codes_of(rec)[1]
            fields = code.split(".")
            swapped = fields[5][1] + fields[5][0] + fields[5][2:]
            for bad in (".".join(fields[:5] + [swapped] + fields[6:]),
                        ".".join(fields[:4] + ["0" * 32] + fields[5:]),
                        ".".join(fields[:5] + [fields[5][:-1] + fields[5][0]] + fields[6:])):
                page = open_page(f"{lan}#{bad}")
                assert page.get_attribute("body", "data-state") == "code:bad"
                assert "does NOT match" in page.inner_text("#result")
                done(page)
            page = open_page(f"{lan}#1.h.nonsense")
            assert page.get_attribute("body", "data-state") == "error:bad"
            done(page)

            # --- whole records: the page agrees with trickref verify (a fresh phone: nothing scanned)
            page = open_page(secure)

            def on_page(r: dict[str, Any], pg: Any = None) -> dict[str, Any]:
                pg = pg or page
                pg.evaluate("t => trickref.checkInput(t)", json.dumps(r))
                return dict(pg.evaluate("trickref.result()"))

            status, want = verify_json(rec, tmp_path)
            seen = on_page(rec)
            assert status == 0 and seen["ok"] is True and want["ok"] is True
            assert [x["chain"] for x in seen["hands"]] == [x["chain"] for x in want["hands"]]
            for what, bad in tampered(rec).items():
                status, want = verify_json(bad, tmp_path)
                seen = on_page(bad)
                assert status == 1 and want["ok"] is False and seen["ok"] is False, what
                first = next(x["hand"] for x in want["hands"] if not x["ok"])
                assert next(x["hand"] for x in seen["hands"] if not x["ok"]) == first, what
                bad_on_page = {x["hand"] for x in seen["hands"] if not x["ok"]}
                assert bad_on_page <= {x["hand"] for x in want["hands"] if not x["ok"]}, what
            # the same through the page's own controls: pasted, and opened as a file
            page.fill("#input", json.dumps(tampered(rec)["deck"]))
            page.click("#check")
            page.wait_for_function("document.body.dataset.state === 'record:bad'")
            assert "Hand 2: does NOT match" in page.inner_text("#result")
            good_file = tmp_path / "game.json"
            good_file.write_text(json.dumps(rec))
            page.fill("#input", "")
            page.set_input_files("#file", str(good_file))
            page.wait_for_function("document.body.dataset.state === 'record:ok'")
            done(page)

            # --- a forger's record (other legal plays, points and chain recomputed) passes on its own,
            # and fails on the phone that scanned the table's QR codes, as with verify --scan
            forged = rewritten_last_hand(rec)
            assert verify_json(forged, tmp_path)[0] == 0
            assert on_page_fresh(browser, secure, forged)["ok"] is True
            page = open_page(lan, phone)  # the phone that scanned all three codes above, on the same page
            seen = on_page(forged, page)
            status, want = verify_json(forged, tmp_path, *codes_of(rec))
            assert status == 1 and seen["ok"] is False
            assert [x["ok"] for x in seen["hands"]] == [x["ok"] for x in want["hands"]] == [True, True, False]
            assert any("the plays differ from the QR code" in p for p in seen["hands"][2]["problems"])
            seen = on_page(rec, page)
            assert seen["ok"] is True and all(x["scanned"] for x in seen["hands"])
            assert "3 of its hands were compared" in page.inner_text("#result")
            kept = page.input_value("#kept")
            assert kept.split("\n") == codes_of(rec)  # the codes, for another page or verify --scans
            done(page)
            phone.close()
            # what one page kept, pasted into another copy of it (another address: its own storage)
            elsewhere = browser.new_context()
            page = open_page(secure, elsewhere)
            assert on_page(forged, page)["ok"] is True  # this copy has seen nothing yet
            page.fill("#input", kept)
            page.click("#check")
            page.wait_for_function("document.body.dataset.state === 'codes:ok'")
            assert page.inner_text("#result").count(": OK") == 3
            assert [x["ok"] for x in on_page(forged, page)["hands"]] == [True, True, False]
            scans = tmp_path / "scans.txt"
            scans.write_text(page.input_value("#kept") + "\n")
            done(page)
            elsewhere.close()
            path = tmp_path / "forged.json"
            path.write_text(json.dumps(forged))
            with contextlib.redirect_stdout(io.StringIO()):
                assert main(["verify", str(path), "--scans", str(scans)]) == 1

            # --- the page speaks the table's language (the code's last field) or the one asked for
            page = open_page(f"{lan}#{codes_of(rec, 'tr')[0]}")
            assert "öncesinde gösterilen taahhütle eşleşiyor" in page.inner_text("#result")
            done(page)
            for lang in ("fr", "ht"):
                page = open_page(f"{lan}?lang={lang}#{codes_of(rec)[0]}")
                words = json.loads(verify_web.page().decode().split('id="words">')[1].split("</script>")[0])
                assert words[lang]["This deal matches the commitment shown before it."] in page.inner_text("#result")
                on_page(tampered(rec)["plays"], page)
                done(page)
            browser.close()
    finally:
        server.stop()
    words = json.loads(verify_web.page().decode().split('id="words">')[1].split("</script>")[0])
    english = {w for w in asked if not w.startswith("Not a ")} | {"Not a check code: {why}", "Not a game record: {why}"}
    for lang in ("fr", "ht", "tr"):
        missing = sorted(w for w in english if w not in words[lang])
        assert not missing, (lang, missing)
        for k, v in words[lang].items():
            assert sorted(_fields(k)) == sorted(_fields(v)), (lang, k)


def _fields(text: str) -> list[str]:
    import re

    return re.findall(r"\{(\w+)\}", text)


def on_page_fresh(browser: Any, url: str, rec: dict[str, Any]) -> dict[str, Any]:
    """The page on a phone that scanned nothing."""
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        page.evaluate("t => trickref.checkInput(t)", json.dumps(rec))
        return dict(page.evaluate("trickref.result()"))
    finally:
        ctx.close()


def test_the_kiosk_qr_code_opens_the_page_with_the_hand(tmp_path: Path) -> None:
    """From the kiosk's pixels to the phone: the QR code drawn after a hand, read by zxing-cpp,
    opened in the browser, says the deal matches."""
    sync_playwright = _playwright()
    zxingcpp = pytest.importorskip("zxingcpp")
    import pygame

    from trickref.ui.screenshots import advance, make_app, show, start_game

    server = VerifyServer("127.0.0.1", 0).start()
    app = make_app((800, 480))
    try:
        app.verify_address = f"http://{LAN_NAME}:{server.port}/verify"
        s = start_game(app, "partnership-spades", 4, seed=9)
        advance(s, lambda st: st.hand_number == 1 and st.phase in ("deal", "over"))
        s.summary_seen = 0
        show(app)
        app.scene.button("Check the deal").on_click()
        app.render(force=True)
        w, h = app.screen.get_size()
        buf = memoryview(pygame.image.tobytes(app.screen, "RGB")).cast("B", (h, w, 3))
        read = [r.text for r in zxingcpp.read_barcodes(buf, formats=zxingcpp.BarcodeFormat.QRCode)]
        assert len(read) == 1 and read[0].startswith(app.verify_address + "#1.p.1.")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"])
            page = browser.new_page()
            page.goto(read[0])
            page.wait_for_selector("body[data-ready='1']")
            assert page.get_attribute("body", "data-state") == "code:ok"
            assert "Partnership Spades, hand 1" in page.inner_text("#result")
            browser.close()
    finally:
        app.end_session()
        server.stop()


def test_the_tables_network_address_is_read_from_its_interfaces() -> None:
    import ipaddress

    from trickref.device.verify_web.server import lan_address

    addr = ipaddress.ip_address(lan_address())
    assert addr.version == 4 and (not addr.is_loopback or str(addr) == "127.0.0.1") and not addr.is_link_local
