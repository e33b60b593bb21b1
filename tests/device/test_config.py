"""The configuration file: defaults, precise errors, safe fallbacks, the PIN, the writer."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from trickref.device import config as C
from trickref.device.config import Config, ConfigError, PinRef


def test_default_file_is_the_default_config() -> None:
    config, problems = C.loads(C.default_toml(), strict=True)
    assert problems == []
    assert config == Config()
    assert len(config.panels.seats) == C.MAX_SEATS


def test_default_pin_map_is_the_documented_one() -> None:
    seats = Config().panels.seats
    assert [str(p) for _, p in seats[0].pins()] == ["mcp0:A0", "mcp0:A1", "mcp0:A2", "mcp0:A3"]
    assert [str(p) for _, p in seats[3].pins()] == ["mcp0:B4", "mcp0:B5", "mcp0:B6", "mcp0:B7"]
    assert [str(p) for _, p in seats[10].pins()] == ["mcp2:B0", "mcp2:B1", "mcp2:B2", "mcp2:B3"]
    assert [(e.address, e.interrupt) for e in Config().panels.expanders] == [(0x20, 17), (0x21, 27), (0x22, 22)]
    # PANELS.md carries the same table
    doc = (Path(__file__).parents[2] / "hardware" / "PANELS.md").read_text()
    for s, seat in enumerate(seats):
        chip = 0x20 + s // 4
        row = f"| {s} | 0x{chip:02x} | " + " | ".join(f"GP{str(p).split(':')[1]}" for _, p in seat.pins()) + " |"
        assert row in doc, row


def test_missing_file_means_defaults(tmp_path: Path) -> None:
    loaded = C.load(tmp_path / "nope.toml")
    assert loaded.config == Config() and not loaded.exists and loaded.problems == ()


@pytest.mark.parametrize("text, message", [
    ('[panels.seat0]\nminus = 5\nplus = 6\nok = 99\nled = 13\n',
     "config.toml: panels.seat0.ok: GPIO 99 does not exist"),
    ('[panels.seat0]\nminus = 5\nplus = 6\nok = 12\nled = 13\n[panels.seat1]\nminus = 16\nplus = 6\nok = 20\nled = 21\n',
     "config.toml: panels.seat1.plus: GPIO6 is already used by panels.seat0.plus"),
    ('[panels.seat0]\nminus = "mcp0:A0"\nplus = "mcp0:A1"\nok = "mcp0:A2"\nled = "mcp0:A3"\n',
     "config.toml: panels.seat0.minus: no expander mcp0 (defined: none)"),
    ('[panels.seat0]\nminus = "mcp0:C1"\nplus = 6\nok = 12\nled = 13\n',
     "config.toml: panels.seat0.minus: 'mcp0:C1' is not a pin"),
    ('[panels.seat0]\nminus = 5\nplus = 6\nled = 13\n',
     "config.toml: panels.seat0.ok: missing"),
    ('[panels.seat0]\nminus = 5\nplus = 6\nok = 12\nled = 13\n[panels.seat2]\nminus = 16\nplus = 19\nok = 20\nled = 21\n',
     "config.toml: panels: seats are numbered from seat0 without gaps: seat1 missing"),
    ('[panels.seat11]\nminus = 5\nplus = 6\nok = 12\nled = 13\n',
     "config.toml: panels.seat11: at most 11 seats"),
    ('[panels.seat3]\nminus = "mcp0:A7"\nplus = "mcp0:A1"\nok = "mcp0:A2"\nled = "mcp0:A3"\n'
     '[panels.seat0]\nminus = 5\nplus = 6\nok = 12\nled = 13\n'
     '[panels.seat1]\nminus = 16\nplus = 19\nok = 20\nled = 21\n'
     '[panels.seat2]\nminus = 22\nplus = 23\nok = 24\nled = 25\n'
     '[panels.expanders.mcp0]\naddress = 0x20\n',
     "config.toml: panels.seat3.minus: mcp0:A7 is output-only"),
    ('[panels.seat0]\nminus = 2\nplus = 6\nok = 12\nled = 13\n[panels.expanders.mcp0]\naddress = 0x20\n',
     "config.toml: panels.seat0.minus: GPIO2 is already used by the expanders' I2C bus (I2C SDA)"),
    ('[panels.seat0]\nminus = 17\nplus = 6\nok = 12\nled = 13\n[panels.expanders.mcp0]\naddress = 0x20\ninterrupt = 17\n',
     "config.toml: panels.seat0.minus: GPIO17 is already used by panels.expanders.mcp0.interrupt"),
    ('[panels.expanders.mcp0]\naddress = 0x30\n',
     "config.toml: panels.expanders.mcp0.address: must be from 0x20 to 0x27, not 0x30"),
    ('[panels.seat0]\nminus = 0\nplus = 6\nok = 12\nled = 13\n',
     "config.toml: panels.seat0.minus: GPIO 0 is reserved for the HAT ID EEPROM"),
    ('[storage]\njournal = 5\n', "config.toml: storage.journal: must be text, not a number"),
])
def test_unsafe_problems_raise_naming_file_setting_and_problem(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        C.loads(text)
    assert message in str(err.value)
    assert all(line.startswith("config.toml: ") for line in str(err.value).splitlines())


def test_safe_problems_fall_back_to_defaults_and_say_so() -> None:
    text = ('mode = "turbo"\ncolour = 3\n[display]\nwidth = "wide"\nsound = false\n'
            '[panels]\nlong_press_ms = 5\n[dealer]\nbaud = -1\nport = "sim"\n')
    config, problems = C.loads(text)
    assert config.mode == "auto" and config.display.width == 800 and not config.display.sound
    assert config.panels.long_press_ms == 1500 and config.dealer.baud == 115200
    assert config.dealer.port == "sim"
    said = [str(p) for p in problems]
    assert "mode: must be one of auto, simulated, hardware, not 'turbo'" in said
    assert "colour: unknown setting (ignored)" in said
    assert "display.width: must be a whole number from 240 to 8192, not 'wide'" in said
    assert "panels.long_press_ms: must be from 200 to 20000, not 5" in said
    with pytest.raises(ConfigError, match="config.toml: mode: must be one of"):
        C.loads(text, strict=True)


def test_broken_toml_gives_defaults_and_a_message(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("mode = [unclosed\n")
    loaded = C.load(path)
    # the defaults, except the admin PIN: the file may hold one we cannot read, so settings lock
    assert loaded.config == Config(admin=C.AdminConfig(C.LOCKED)) and loaded.exists
    assert loaded.config.admin.locked and not loaded.config.admin.check("0000")
    assert len(loaded.messages()) == 1
    assert loaded.messages()[0].startswith(f"{path}: not valid TOML") and "using the defaults" in loaded.messages()[0]
    assert "settings screen stays locked" in loaded.messages()[0]
    with pytest.raises(ConfigError, match="not valid TOML"):
        C.load(path, strict=True)


def test_direct_gpio_map_without_expanders() -> None:
    text = "[panels.seat0]\nminus = 5\nplus = \"GPIO6\"\nok = \"BCM12\"\nled = 13\n"
    config, problems = C.loads(text, strict=True)
    assert config.panels.expanders == ()
    assert config.panels.seats == (C.SeatPins(PinRef(None, 5), PinRef(None, 6), PinRef(None, 12), PinRef(None, 13)),)


def test_env_var_points_to_the_file(tmp_path: Path) -> None:
    env = {"TRICKREF_CONFIG": str(tmp_path / "x.toml"), "HOME": "/nowhere"}
    assert C.config_path(env) == tmp_path / "x.toml"
    assert C.config_path({"TRICKREF_HOME": str(tmp_path)}) == tmp_path / "config.toml"
    assert C.config_path({"XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/trickref/config.toml")
    (tmp_path / "x.toml").write_text('mode = "simulated"\n')
    assert C.load(env=env).config.mode == "simulated"


def test_storage_folders() -> None:
    s = C.StorageConfig()
    assert s.journal_dir({"TRICKREF_HOME": "/t"}) == Path("/t/journal")
    assert s.games_dir({"XDG_DATA_HOME": "/d"}) == Path("/d/trickref/games")
    s2 = C.StorageConfig(home="/h", games="/mnt/usb/games", journal="j")
    assert s2.games_dir({}) == Path("/mnt/usb/games") and s2.journal_dir({}) == Path("/h/j")


def test_auto_mode() -> None:
    have = {"/dev/trickref-dealer", "/dev/gpiochip0"}
    assert Config().resolved_mode(have.__contains__) == "hardware"
    assert Config().resolved_mode({"/dev/gpiochip0"}.__contains__) == "simulated"
    assert Config().resolved_mode({"/dev/trickref-dealer"}.__contains__) == "simulated"
    sim = Config(dealer=C.DealerConfig(port="sim"))
    assert sim.resolved_mode(lambda p: True) == "simulated"
    assert Config(mode="hardware").resolved_mode(lambda p: False) == "hardware"


def test_an_auto_dealer_port_finds_the_dealer() -> None:
    """"auto" is what the kiosk's Settings save for an emptied port field: the udev rule's
    /dev/trickref-dealer when it is there, else a serial port with MicroPython's Pico USB id;
    it used to be opened as a file named "auto" (hardware mode: "cannot open the dealer on
    auto"; auto mode: quietly simulated)."""
    auto = C.DealerConfig(port="auto")
    pico = [("/dev/ttyS0", None, None), ("/dev/ttyACM1", 0x2E8A, 0x0005), ("/dev/ttyACM0", 0x2341, 0x0043)]
    assert auto.resolved_port({"/dev/trickref-dealer"}.__contains__, lambda: pico) == "/dev/trickref-dealer"
    assert auto.resolved_port(lambda p: False, lambda: pico) == "/dev/ttyACM1"
    assert auto.resolved_port(lambda p: False, lambda: pico[:1]) == "/dev/trickref-dealer"  # named in the message

    def broken() -> list[tuple[str, int | None, int | None]]:
        raise OSError("no /sys")

    assert auto.resolved_port(lambda p: False, broken) == "/dev/trickref-dealer"
    assert C.DealerConfig(port="/dev/ttyUSB3").resolved_port(lambda p: False, broken) == "/dev/ttyUSB3"
    have = {"/dev/trickref-dealer", "/dev/gpiochip0"}
    assert Config(dealer=auto).resolved_mode(have.__contains__) == "hardware"
    assert isinstance(C.usb_serial_ports(), list)  # pyserial's own listing runs here


def test_admin_pin_is_hashed_and_checked(tmp_path: Path) -> None:
    admin = C.AdminConfig()
    assert admin.is_default and admin.check("0000") and not admin.check("1234")
    new = admin.with_pin("482913")
    assert not new.is_default and new.check("482913") and not new.check("0000")
    assert new.pin is not None and "482913" not in new.pin
    path = tmp_path / "c.toml"
    C.save(Config(admin=new), path)
    assert "482913" not in path.read_text()
    back = C.load(path, strict=True).config
    assert back.admin.check("482913")
    assert C.hash_pin("1234") != C.hash_pin("1234"), "a fresh salt each time"
    assert admin.with_pin("0000").is_default
    for bad in ("12", "abcd", "123456789", "12 4"):
        with pytest.raises(ValueError, match="4 to 8 digits"):
            admin.with_pin(bad)


@pytest.mark.parametrize("pin, why", [("1234", "in clear"), (1234, "in clear"), ("sha1$x", "not a PIN hash")])
def test_unreadable_pin_locks_settings_instead_of_opening_them(pin: Any, why: str) -> None:
    text = f"[admin]\npin = {pin!r}\n".replace("'", '"')
    config, problems = C.loads(text)
    assert config.admin.locked and not config.admin.is_default
    assert not config.admin.check("0000") and not config.admin.check(str(pin))
    assert why in str(problems[0]) and str(problems[0]).startswith("admin.pin:")


def test_save_load_round_trip(tmp_path: Path) -> None:
    config = Config(
        mode="hardware",
        dealer=C.DealerConfig(port="socket://dealer.local:7000", baud=230400),
        storage=C.StorageConfig(home="/srv/tr \"x\"", games="games\\usb"),
        display=C.DisplayConfig(sound=False, four_colour_suits=True, large_text=True, width=1280, height=720),
        panels=C.PanelsConfig(seats=C.default_seats()[:5], reset=None, long_press_ms=2000,
                              repeat_interval_ms=0),
    )
    path = tmp_path / "deep" / "config.toml"
    assert C.save(config, path) == path
    assert C.load(path, strict=True).config == config
    assert "address = 0x21" in path.read_text()
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]


HAND_EDITED = """\
# The Smiths' table: sound off at night, big text for Grandma.
mode = "simulated"   # no dealer yet

[display]
# Grandma reads the screen from the far end
large_text = true
sound = false

[panels.expanders.mcp0]
address = 0x20    # A0-A2 to GND
interrupt = 17

[panels.seat0]
minus = "mcp0:A0"
plus = "mcp0:A1"
ok = "mcp0:A2"
led = "mcp0:A3"
"""


def test_saving_keeps_a_hand_edited_files_comments_and_changes_only_what_changed(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_EDITED)
    config = C.load(path, strict=True).config
    changed = config.replace(display=C.DisplayConfig(large_text=True, sound=True),
                             admin=config.admin.with_pin("2580"))
    C.save(changed, path)
    text = path.read_text()
    for kept in ("# The Smiths' table", "# no dealer yet", "# Grandma reads", "address = 0x20    # A0-A2 to GND",
                 'minus = "mcp0:A0"'):
        assert kept in text
    assert "sound = true" in text and "sound = false" not in text
    assert "[dealer]" not in text and "width" not in text, "settings left to their defaults stay out"
    back = C.load(path, strict=True).config
    assert back == changed and back.admin.check("2580")
    # back to the factory PIN: the pin line goes, the rest stays
    C.save(back.replace(admin=C.AdminConfig()), path)
    assert "pin =" not in path.read_text() and "# Grandma reads" in path.read_text()
    assert C.load(path, strict=True).config.admin.is_default


def test_a_new_file_starts_from_the_commented_reference(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    config = Config(panels=C.PanelsConfig(seats=C.default_seats()[:5], reset=None))
    C.save(config, path)
    text = path.read_text()
    assert "# The admin PIN guards the settings screen" in text and "reset = -1" in text
    assert "[panels.seat4]" in text and "[panels.seat5]" not in text
    assert C.load(path, strict=True).config == config
    assert C.dumps(config, text) == text, "saving what the file already says changes nothing"
    assert path.stat().st_mode & 0o777 == 0o600, "the file holds the PIN hash: private"
    assert path.parent.stat().st_mode & 0o777 == 0o700


scalars = (st.booleans() | st.integers(min_value=0, max_value=100_000) | st.text(max_size=8))


@settings(max_examples=60, deadline=None)
@given(port=st.text(min_size=1, max_size=20).filter(str.strip), baud=st.integers(300, 4_000_000),
       home=st.text(max_size=12), sound=st.booleans(), width=st.integers(240, 8192))
@example(port='a"\\b\n\x7f', baud=300, home="0\n", sound=False, width=240)
def test_save_round_trips_any_text(tmp_path_factory: Any, port: str, baud: int, home: str, sound: bool,
                                   width: int) -> None:
    path = tmp_path_factory.mktemp("c") / "config.toml"
    path.write_text(HAND_EDITED)
    base = C.load(path, strict=True).config
    config = base.replace(dealer=C.DealerConfig(port, baud), storage=C.StorageConfig(home=home),
                          display=C.DisplayConfig(sound=sound, width=width))
    C.save(config, path)
    assert C.load(path, strict=True).config == config
    assert tomllib.loads(path.read_text())["mode"] == "simulated"


def test_the_direct_gpio_example_in_panels_md_is_valid() -> None:
    doc = (Path(__file__).parents[2] / "hardware" / "PANELS.md").read_text()
    block = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    config, problems = C.loads(block, strict=True)
    assert len(config.panels.seats) == 4 and config.panels.expanders == ()


@pytest.mark.parametrize("iterations", [1, 1000, C.PBKDF2_MIN_ITERATIONS - 1])
def test_a_pin_hash_with_too_few_iterations_locks_settings(iterations: int) -> None:
    weak = C.hash_pin("1234", iterations=iterations)
    config, problems = C.loads(f'[admin]\npin = "{weak}"\n')
    assert config.admin.locked and not config.admin.check("1234") and not config.admin.check("0000")
    said = str(problems[0])
    assert said.startswith("admin.pin:") and f"{iterations} PBKDF2 iterations" in said
    assert f"minimum {C.PBKDF2_MIN_ITERATIONS}" in said and "delete the line" in said
    assert not C.AdminConfig(weak).check("1234"), "a weak hash is refused even when built in code"
    ok = C.hash_pin("1234", iterations=C.PBKDF2_MIN_ITERATIONS)
    assert C.loads(f'[admin]\npin = "{ok}"\n', strict=True)[0].admin.check("1234")


def test_an_admin_that_is_not_a_table_or_an_unreadable_file_locks_settings(tmp_path: Path) -> None:
    config, problems = C.loads('admin = "0000"\n')
    assert config.admin.locked and str(problems[0]).startswith("admin: must be a table")
    path = tmp_path / "config.toml"
    path.write_bytes(b"mode = \"\xff\"\n")  # not UTF-8
    loaded = C.load(path)
    assert loaded.config.admin.locked and "cannot read the file" in loaded.messages()[0]


def test_pin_guard_slows_wrong_tries_with_a_growing_lock_out() -> None:
    now = [1000.0]
    guard = C.PinGuard(clock=lambda: now[0])
    admin = C.AdminConfig().with_pin("2580")
    for _ in range(C.PinGuard.FREE_TRIES - 1):
        assert guard.attempt(admin.check, "1111") == (False, "wrong PIN")
    ok, said = guard.attempt(admin.check, "1111")
    assert not ok and said == "wrong PIN; too many wrong PINs: try again in 30 s"
    # locked: even the right PIN is not checked
    now[0] += 29
    assert guard.attempt(admin.check, "2580") == (False, "too many wrong PINs: try again in 1 s")
    now[0] += 1
    ok, said = guard.attempt(admin.check, "1111")
    assert not ok and said.endswith("try again in 60 s"), "the delay doubles"
    now[0] += 60
    assert guard.attempt(admin.check, "1112")[1].endswith("try again in 2 min")
    for _ in range(10):
        now[0] += guard.wait_left()
        guard.attempt(admin.check, "1113")
    assert guard.wait_left() == C.PinGuard.MAX_WAIT_S, "capped"
    now[0] += guard.wait_left()
    assert guard.attempt(admin.check, "2580") == (True, "")
    assert guard.wrong == 0 and guard.attempt(admin.check, "1111") == (False, "wrong PIN")


def test_pin_guard_remembers_wrong_tries_across_a_restart(tmp_path: Path) -> None:
    now = [1_800_000_000.0]
    state = tmp_path / "home" / "pin-tries.json"
    admin = C.AdminConfig().with_pin("2580")
    guard = C.PinGuard(lambda: now[0], state)
    for _ in range(C.PinGuard.FREE_TRIES):
        guard.attempt(admin.check, "1111")
    assert guard.wait_left() == 30 and state.stat().st_mode & 0o777 == 0o600
    now[0] += 5
    again = C.PinGuard(lambda: now[0], state)  # the kiosk restarted (power pulled)
    assert again.wait_left() == 25 and again.attempt(admin.check, "2580")[0] is False
    now[0] += 25
    assert again.attempt(admin.check, "1111")[1].endswith("try again in 60 s"), "the count went on"
    now[0] += 60
    assert again.attempt(admin.check, "2580") == (True, "")
    assert C.PinGuard(lambda: now[0], state).wrong == 0
    # a damaged state file means a full lock-out, not fresh tries
    state.write_text("{broken")
    assert C.PinGuard(lambda: now[0], state).wait_left() == C.PinGuard.MAX_WAIT_S
    # a clock set back cannot stretch a lock-out past the maximum
    state.write_text(json.dumps({"wrong": 9, "until": now[0] + 10 * C.PinGuard.MAX_WAIT_S}))
    assert C.PinGuard(lambda: now[0], state).wait_left() == C.PinGuard.MAX_WAIT_S
