"""One settings system: the kiosk's settings are device.config's file, a file it cannot use
locks the settings screen (fail closed, saying which file and why), and wrong PINs are limited."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest
from kiosk_helpers import tap_button

from trickref.device import config as C


def enter_pin(app, pin: str) -> None:
    for ch in pin:
        tap_button(app, ch)
    tap_button(app, "OK")


def test_every_ui_scene_module_imports():
    """ui/scenes/settings.py once imported ``device.pins``, which does not exist."""
    import trickref.ui.scenes

    names = [m.name for m in pkgutil.iter_modules(trickref.ui.scenes.__path__)]
    assert "settings" in names and "pin" in names and len(names) > 10
    for name in names:
        importlib.import_module(f"trickref.ui.scenes.{name}")


def test_a_custom_pin_with_a_broken_pin_map_locks_settings_instead_of_opening_with_0000(monkeypatch, tmp_path):
    from trickref.ui.screenshots import make_app
    from trickref.ui.settings import load_settings

    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[admin]\npin = "{C.hash_pin("2580")}"\n\n[panels.seat0]\nminus = 99\n')
    monkeypatch.setenv("TRICKREF_CONFIG", str(cfg))
    settings = load_settings()
    assert settings.locked and not settings.default_pin
    assert str(cfg) in settings.lock_reason and "panels.seat0.minus" in settings.lock_reason
    assert "GPIO 99 does not exist" in settings.lock_reason
    for pin in ("0000", "2580"):
        assert settings.try_pin(pin) == (False, settings.lock_reason)
    app = make_app((800, 480), settings=settings)
    app.go("home")
    tap_button(app, "Settings")
    # a page saying which file and why, and no PIN pad: no PIN opens these settings
    assert app.scene.name == "pin" and app.scene.message == settings.lock_reason
    assert [b.text for b in app.scene.buttons()] == ["Back"]
    from trickref.ui import draw as D

    D.text_log = []
    try:
        app.render(force=True)
        shown = " ".join(D.text_log)
    finally:
        D.text_log = None
    assert "Settings locked" in shown and str(cfg) in shown and "GPIO 99 does not exist" in shown
    tap_button(app, "Back")
    assert app.scene.name == "home"
    with pytest.raises(ValueError, match="settings locked"):
        settings.save()
    assert "2580" not in cfg.read_text() and "minus = 99" in cfg.read_text(), "the file is left as it was"
    assert not list(tmp_path.glob("*.json")), "no second settings file"


@pytest.mark.parametrize("text, why", [
    ("mode = [unclosed\n", "not valid TOML"),
    ('[admin]\npin = "pbkdf2_sha256$1000$' + "0" * 32 + "$" + "0" * 64 + '"\n', "1000 PBKDF2 iterations"),
    ('admin = "0000"\n', "admin: must be a table"),
])
def test_unusable_files_lock_settings_and_say_why(monkeypatch, tmp_path, text, why):
    from trickref.ui.settings import load_settings

    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    monkeypatch.setenv("TRICKREF_CONFIG", str(cfg))
    s = load_settings()
    assert s.locked and not s.check_pin("0000")
    assert s.lock_reason.startswith(f"settings locked: {cfg}: ") and why in s.lock_reason


def test_wrong_pins_lock_the_pad_for_a_growing_time(monkeypatch, tmp_path):
    from trickref.ui.screenshots import make_app
    from trickref.ui.settings import load_settings

    now = [500.0]
    cfg = tmp_path / "config.toml"
    C.save(C.Config(admin=C.AdminConfig().with_pin("2580")), cfg)
    monkeypatch.setenv("TRICKREF_CONFIG", str(cfg))
    app = make_app((800, 480), settings=load_settings(clock=lambda: now[0]))
    app.go("home")
    tap_button(app, "Settings")
    for _ in range(C.PinGuard.FREE_TRIES - 1):
        enter_pin(app, "1111")
        assert app.scene.message == "wrong PIN"
    enter_pin(app, "1111")
    assert app.scene.message.endswith("try again in 30 s")
    enter_pin(app, "2580")  # the right PIN, too early: not even checked
    assert app.scene.name == "pin" and app.scene.message == "too many wrong PINs: try again in 30 s"
    # a restart (a new kiosk reading the same files) does not buy fresh tries
    restarted = load_settings(clock=lambda: now[0])
    assert restarted.try_pin("2580") == (False, "too many wrong PINs: try again in 30 s")
    # leaving and coming back does not reset the count
    tap_button(app, "Cancel")
    now[0] += 10
    tap_button(app, "Settings")
    assert app.scene.message == "too many wrong PINs: try again in 20 s"
    now[0] += 20
    enter_pin(app, "1111")
    assert app.scene.message.endswith("try again in 60 s")
    now[0] += 60
    enter_pin(app, "2580")
    assert app.scene.name == "settings"


def test_the_settings_screen_writes_the_config_file_keeping_its_comments(monkeypatch, tmp_path):
    from kiosk_helpers import tap

    from trickref.ui.screenshots import make_app
    from trickref.ui.settings import load_settings

    cfg = tmp_path / "config.toml"
    cfg.write_text('# our table\nmode = "simulated"  # no dealer yet\n\n[display]\nsound = false  # night\n')
    monkeypatch.setenv("TRICKREF_CONFIG", str(cfg))
    app = make_app((800, 480), settings=load_settings())
    app.go("settings")
    app.render(force=True)
    from trickref.ui.scenes.settings import pin_lines, pin_map

    lines = pin_lines(pin_map(app.settings))
    assert len(lines) == C.MAX_SEATS and lines[0] == "seat 1:   - mcp0:A0    + mcp0:A1    OK mcp0:A2    LED mcp0:A3"
    tap(app, app.scene.toggles["large_text"].rect.center)
    tap_button(app, "Done")
    text = cfg.read_text()
    assert "# our table" in text and "# no dealer yet" in text and "sound = false  # night" in text
    assert "large_text = true" in text
    assert C.load(cfg, strict=True).config.display.large_text
    assert Path(cfg).stat().st_mode & 0o777 == 0o600


def test_the_kiosk_opens_at_the_configured_size(tmp_path) -> None:
    """``[display]`` ``width``/``height`` size the kiosk's window when ``--size`` is not given
    (they were read, checked and written back, and never used: the window was 800x480 whatever
    the file said); ``--size`` still wins; a file that cannot be used gives 800x480."""
    import argparse

    from trickref.ui import app

    cfg = tmp_path / "config.toml"  # the conftest points TRICKREF_CONFIG here
    assert app.configured_size() == (800, 480)  # no file: the defaults
    cfg.write_text("[display]\nwidth = 1280\nheight = 720\n")
    assert app.configured_size() == (1280, 720)
    parser = argparse.ArgumentParser()
    app.add_parser(parser.add_subparsers())
    assert parser.parse_args(["kiosk"]).size is None
    assert parser.parse_args(["kiosk", "--size", "1024x600"]).size == (1024, 600)
    cfg.write_text("[display]\nwidth = 300\nheight = 200\n")  # checked by the loader: not a size
    assert app.configured_size() == (800, 480)
