"""The configuration file: defaults, precise errors, safe fallbacks, the PIN, the writer."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from device import config as C
from device.config import Config, ConfigError, PinRef


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
    assert loaded.config == Config() and loaded.exists
    assert len(loaded.messages()) == 1
    assert loaded.messages()[0].startswith(f"{path}: not valid TOML") and "using the defaults" in loaded.messages()[0]
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


scalars = (st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
           | st.floats(allow_nan=False) | st.text())
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4), max_leaves=6)
tables = st.recursive(
    st.dictionaries(st.text(max_size=6), values, max_size=4),
    lambda kids: st.dictionaries(st.text(max_size=6), values | kids, max_size=4),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(tables)
@example({"0\n": []})  # a key ending in a newline is not bare (regex $ matched before it)
def test_toml_writer_round_trips(doc: dict[str, Any]) -> None:
    assert tomllib.loads(C.toml_dumps(doc)) == doc


def test_the_direct_gpio_example_in_panels_md_is_valid() -> None:
    doc = (Path(__file__).parents[2] / "hardware" / "PANELS.md").read_text()
    block = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    config, problems = C.loads(block, strict=True)
    assert len(config.panels.seats) == 4 and config.panels.expanders == ()
