"""The one table of physical constants (device/dealer/physical.toml) is well formed, every entry
names its source, and firmware/config.py holds the same numbers for the entries it shares."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from trickref.device.dealer import physical

fw_config: Any = importlib.import_module("trickref.firmware.config")


def test_every_entry_has_a_value_a_unit_and_a_known_source() -> None:
    entries = physical.entries()
    assert len(entries) > 40
    for name, e in entries.items():
        assert isinstance(e["value"], int | float), name
        assert e.get("unit"), name
        assert e.get("source") in physical.SOURCES, (name, e.get("source"))
        if "tol" in e:
            assert 0 < e["tol"] <= 1.0, name


@pytest.mark.parametrize("name,config_name", sorted(physical.firmware_names().items()))
def test_firmware_config_holds_the_physical_value(name: str, config_name: str) -> None:
    value = physical.values()[name]
    assert getattr(fw_config, config_name) == value, (
        f"firmware/config.py {config_name} = {getattr(fw_config, config_name)} but "
        f"device/dealer/physical.toml {name} = {value}: change both together")


def test_servo_swing_follows_from_the_datasheet_speed() -> None:
    v = physical.values()
    assert v["servo.swing_ms"] == round(v["servo.speed_ms_per_60deg"] * v["servo.flap_swing_deg"] / 60)
    # the firmware's allowance covers the slowest swing of the sweep (+30 %) and a PWM frame
    assert v["servo.firmware_allowance_ms"] >= v["servo.swing_ms"] * 1.3 + v["servo.pwm_frame_ms"]
    # the lift's wait covers its swing at the sweep's +30 % and a whole PWM frame
    assert v["servo.lift_allowance_ms"] >= v["servo.lift_swing_ms"] * 1.3 + v["servo.pwm_frame_ms"]


def test_scaled_values_for_a_sweep() -> None:
    v = physical.values(scale={"belt.card_speed": 0.7})
    assert v["belt.card_speed"] == pytest.approx(0.7)
    with pytest.raises(KeyError):
        physical.values(scale={"belt.nothing": 2.0})
    assert set(physical.tolerances()) >= {"servo.swing_ms", "reader.decode_ms", "belt.card_speed",
                                          "sensors.gate_irq_latency_us"}
