"""The dealer's parametric model: every part's shape, from device/dealer/physical.toml.

One source for the mechanism: the stations along the path come from the table's [geometry]
section (the same numbers the firmware and the physical twin use), the parts' shapes from its
[cad.*] sections, the pocket capacities from firmware/config.py. ``Dealer()`` builds:

- ``parts``: every part, printed or bought, as side-section profiles (x along the path, z up)
  extruded over a y range across the path, with its role towards a passing card (``guide``:
  the card slides on it; ``drive``: it presses the card, a roller or a band; anything else must
  keep ``cad.path.clearance`` away from every card);
- ``paths``: the card's centre line for every route (the main path into the switchback, the
  dive into each pocket, the return loop onto the hopper), each with the nips that hold it;
- ``flaps``: each pocket's flap lowered and raised, ``pockets``: each pocket's body and what it
  holds, ``reader``: the scanner's field, ``springs()``, ``pickup()``: the forces.

Standard library only: the clearance checks (dealer_checks.py, tests/hardware/test_cad_model.py)
run in the test command with nothing installed; build.py turns the same parts into STL files
and drawings. Nothing here is measured: the dealer is designed, not built.
"""

from __future__ import annotations

import importlib.util
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from dealer_geom import Circle, Point, Poly, Shape, arc, rect

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "device" / "dealer" / "physical.toml"
FIRMWARE_CONFIG = ROOT / "firmware" / "config.py"
G = 9.81


def load_values(path: Path = TABLE) -> dict[str, Any]:
    """``"section.name" -> value`` for every entry of the table (sections nest: cad.pocket.wall)."""
    out: dict[str, Any] = {}

    def walk(prefix: str, node: dict[str, Any]) -> None:
        for key, v in node.items():
            if not isinstance(v, dict):
                continue
            name = f"{prefix}.{key}" if prefix else key
            if "value" in v:
                out[name] = v["value"]
            else:
                walk(name, v)

    walk("", tomllib.loads(path.read_text(encoding="utf-8")))
    return out


def firmware_config() -> ModuleType:
    """firmware/config.py (plain Python, no machine): pocket order and capacities."""
    spec = importlib.util.spec_from_file_location("dealer_model_fw_config", FIRMWARE_CONFIG)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@dataclass(frozen=True)
class Solid:
    shape: Shape
    y0: float
    y1: float


@dataclass
class Part:
    name: str
    kind: str  # "printed" or "bought"
    role: str  # "guide", "drive", "flap", "frame", "sensor", "reader"
    solids: list[Solid]
    holes: list[Solid] = field(default_factory=list)  # printed: bores along y taken out
    stl: str | None = None  # printed: the STL it is printed from (instances share one)
    item: str | None = None  # bought: the BOM part it counts as
    note: str = ""

    def y_range(self) -> tuple[float, float]:
        return min(s.y0 for s in self.solids), max(s.y1 for s in self.solids)


@dataclass
class CardPath:
    name: str
    pts: list[Point]  # the card's mid-plane, start to end
    nips: list[tuple[str, Point]]  # where the path is gripped, in path order
    pocket: int | None = None  # a dive's pocket
    guides: tuple[str, ...] = ()  # parts that guide this path besides the common guides


@dataclass
class Flap:
    k: int
    pivot: Point
    closed: Poly
    opened: Poly
    swing_deg: float

    def at(self, frac: float) -> Poly:
        return self.closed.rotated(self.pivot[0], self.pivot[1], -self.swing_deg * frac)


@dataclass
class Pocket:
    k: int
    target: str
    count: int  # cards it must hold
    mouth_x: float
    cell: tuple[float, float]  # the module's x span at the floor
    west_inner: float  # the west wall's face: the stack leans on it
    fall_x: float  # the line a card falls down into the pocket
    floor_z: float  # the floor under the fall line
    guide_centre: Point
    stack_room: float = 0.0  # mm of x the stack may fill
    depth: float = 0.0  # from the floor under the fall line to the path floor


class Dealer:
    """The whole mechanism from the table's values (``values`` overrides entries, for tests)."""

    def __init__(self, values: dict[str, Any] | None = None, overrides: dict[str, Any] | None = None):
        self.v = dict(values if values is not None else load_values())
        self.v.update(overrides or {})
        self.fw = firmware_config()
        v = self.v
        self.t = v["geometry.card_thickness"]
        self.t_max = round(self.t * (1 + 0.07), 3)  # the table's tolerance on thickness
        self.half = self.t_max / 2
        self.card_len_min = min(v["geometry.card_length"], v["cad.card.bridge_length"])
        self.card_len_max = max(v["geometry.card_length"], v["cad.card.bridge_length"])
        self.guide_hw = v["cad.path.guide_half_width"]
        self.parts: list[Part] = []
        self.paths: dict[str, CardPath] = {}
        self.flaps: list[Flap] = []
        self.pockets: list[Pocket] = []
        self.reader: dict[str, Any] = {}
        self._hopper()
        if self.v.get("sorter.fitted", 0):
            self._splitter()
        self._feed()
        self._reader()
        self._transport()
        self._pockets()
        self._loop()
        self._main_paths()

    # ---- helpers ------------------------------------------------------------------------------

    def add(self, name: str, kind: str, role: str, solids: list[Solid], **kw: Any) -> Part:
        p = Part(name, kind, role, solids, **kw)
        self.parts.append(p)
        return p

    def part(self, name: str) -> Part:
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(name)

    def both_sides(self, shape: Shape, y0: float, y1: float) -> list[Solid]:
        """The same profile at y0..y1 and mirrored at -y1..-y0."""
        return [Solid(shape, y0, y1), Solid(shape, -y1, -y0)]

    def pocket_x(self, k: int) -> float:
        return self.v["geometry.pocket_x0"] + self.v["geometry.pocket_pitch"] * k

    def plate(self, x0: float, x1: float, z0: float, z1: float, y0: float, y1: float,
              holes: list[tuple[float, float, float, float]]) -> list[Solid]:
        """A plate x0..x1 by y0..y1 (z0..z1) with rectangular holes (hx0, hx1, hy0, hy1) through
        it, as prisms: cut across y at every hole edge, then along x round the holes."""
        ys = sorted({y0, y1, *(max(y0, min(y1, h[2])) for h in holes), *(max(y0, min(y1, h[3])) for h in holes)})
        out = []
        for ya, yb in zip(ys, ys[1:], strict=False):
            if yb - ya < 1e-9:
                continue
            ym = (ya + yb) / 2
            cuts = sorted((max(x0, h[0]), min(x1, h[1])) for h in holes if h[2] < ym < h[3] and h[0] < x1 and h[1] > x0)
            x = x0
            for a, b in cuts:
                if a - x > 1e-9:
                    out.append(Solid(rect(x, z0, a, z1), ya, yb))
                x = max(x, b)
            if x1 - x > 1e-9:
                out.append(Solid(rect(x, z0, x1, z1), ya, yb))
        return out

    # ---- hopper and feed ----------------------------------------------------------------------

    def _hopper(self) -> None:
        v = self.v
        back = v["cad.hopper.back_wall_x"]
        hz = -v["cad.feed.pickup_protrude"]  # the hopper floor, under the path floor
        ft = v["cad.path.floor_thickness"]
        hw = self.guide_hw
        wall = v["cad.pocket.wall"]
        top = v["cad.hopper.wall_height"]
        px = v["geometry.pickup_x"]
        r = v["cad.feed.roller_d"] / 2
        w = v["cad.feed.roller_w"]
        # floor with a slot for P (y -w/2-1..w/2+1) and two for the lift plates
        slot_p = (px - r - 1, px + r + 1, -w / 2 - 1, w / 2 + 1)
        lift = [(-62.0, -34.0, 11.0, 23.0), (-62.0, -34.0, -23.0, -11.0)]
        self.lift_slots = lift
        floor = self.plate(back - wall, -4.0, hz - ft, hz, -hw - wall, hw + wall, [slot_p, *lift])
        # the lip from the hopper floor up to the path floor just before the throat
        lip = Poly(((-4.0, hz - ft), (0.0, hz - ft), (0.0, 0.0), (-4.0, hz)))
        sides = self.both_sides(rect(back - wall, hz - ft, 0.0, top), hw, hw + wall)
        if v.get("sorter.fitted", 0):
            # the splitter works through an opening in the back wall's middle (y +-25) over the
            # stack's heights; the cards stop against the wall's two outer strips
            backw = [Solid(rect(back - wall, hz, back, top), 25.0, hw), Solid(rect(back - wall, hz, back, top), -hw, -25.0),
                     Solid(rect(back - wall, 45.0, back, top), -25.0, 25.0)]
        else:
            backw = [Solid(rect(back - wall, hz, back, top), -hw, hw)]
        self.add("hopper", "printed", "guide", floor + [Solid(lip, -hw, hw)] + sides + backw, stl="hopper",
                 note="tray: floor (slots for P and the lift plates), side and back walls; the stack's cards lie "
                      "face down, their long edges along the path")
        gate = v["cad.hopper.gate_gap"]
        self.add("throat-gate", "printed", "guide", [Solid(rect(0.0, gate, 3.0, top), -hw - wall, hw + wall)],
                 stl="throat-gate",
                 note=f"front wall; its lower edge {gate} mm over the path floor (M3 screw and feeler gauge)")
        # hopper lift plates (lowered: just under the hopper floor)
        lt = v["cad.hopper.lift_travel"]
        self.add("lift-plate", "printed", "frame",
                 [Solid(rect(-61.0, hz - 0.8 - 3.0, -35.0, hz - 0.8), 12.0, 22.0),
                  Solid(rect(-61.0, hz - 0.8 - 3.0, -35.0, hz - 0.8), -22.0, -12.0),
                  Solid(rect(-61.0, hz - 0.8 - 9.0, -35.0, hz - 0.8 - 3.0), -22.0, 22.0)],
                 stl="lift-plate",
                 note=f"rises {lt + 0.8 + 0.5:.1f} mm through the hopper floor on the HS-311's lever: lifted, the stack "
                      f"stands {lt} mm over P")

    def _splitter(self) -> None:
        """The sorting hopper's splitter (hardware/README.md item 9, physical.toml [sorter]), drawn
        with a full hopper: a follower shoe on the top card within 15 mm of the back wall, its
        blade entering through a 1 x 50 mm slot in the back wall, the L12-R behind the wall."""
        v = self.v
        back = v["cad.hopper.back_wall_x"]
        hz = -v["cad.feed.pickup_protrude"]
        top = hz + self.fw.LOOP_CAPACITY * self.t_max  # the stack's top, full
        wall = v["cad.pocket.wall"]
        stem = rect(back - wall + 0.3, top, back - 0.3, 44.0)
        foot = rect(back - wall + 0.3, top, back + 14.0, top + 3.0)
        # the counted lift: a bar load cell lying on the arm, bolted to the arm at its far end,
        # the L12-R's rod on its free end near the wall, so the rod's force on the shoe (the
        # cards the blade holds) passes through it ([sorter] cell_length, cell_section)
        sec = v["sorter.body_section"]
        rod_x = back - wall - 4.0 - sec / 2
        cl, cs = v["sorter.cell_length"], v["sorter.cell_section"]
        cell_x1 = rod_x + 6.0
        cell_x0 = cell_x1 - cl
        arm = rect(cell_x0 - 1.0, 40.0, back - 0.3, 44.0)
        self.add("splitter-shoe", "printed", "guide", [Solid(foot, -24.0, 24.0), Solid(stem, -4.0, 4.0), Solid(arm, -4.0, 4.0)],
                 stl="splitter-shoe",
                 note="follower shoe (drawn on a full hopper): its foot rides on the top card 14 mm in from the back wall, "
                      "its stem in the wall's opening, its arm back under the load cell; the blade hangs from it")
        self.add("splitter-cell", "bought", "guide", [Solid(rect(cell_x0, 44.0, cell_x1, 44.0 + cs), -cs / 2, cs / 2)],
                 item="Load cell (counted lift)",
                 note=f"100 g bar load cell, {cl:.0f} x {cs:.1f} mm (an estimate): bolted to the arm at its far end, the "
                      "L12-R's rod on its free end; weighs the cards the blade holds (firmware/board.py _Scale)")
        self.add("splitter-blade", "bought", "guide", [Solid(rect(back - wall + 0.3, top - 1.5, back + 12.0, top - 1.3), -22.5, 22.5)],
                 item="Splitter blade", note="0.2 mm spring steel, through the back wall's 1 x 50 mm slot")
        # the L12-R-30 upright behind the back wall, its rod down onto the shoe's arm: drawn with
        # the rod out its whole stroke (the body's lowest), the body's length from [sorter]
        stroke, body = v["sorter.stroke"], v["sorter.body_length"]
        x0, x1 = back - wall - 4.0 - sec, back - wall - 4.0
        z0 = 44.0 + cs  # (the rod's end on the load cell)
        self.add("splitter-servo", "bought", "frame",
                 [Solid(rect(x0, z0 + stroke, x1, z0 + stroke + body), -sec / 2 + 1.5, sec / 2 - 1.5),
                  Solid(rect(rod_x - 2.0, z0, rod_x + 2.0, z0 + stroke), -2.0, 2.0)],
                 item="Linear servo (sorting hopper)",
                 note=f"Actuonix L12-R-{stroke:.0f} ({stroke:.0f} mm stroke, {body:.1f} mm body), rod down onto the "
                      "load cell on the shoe's arm, drawn fully out")

    def _feed(self) -> None:
        v = self.v
        r = v["cad.feed.roller_d"] / 2
        w = v["cad.feed.roller_w"]
        t = self.t_max
        px, f1, f2 = v["geometry.pickup_x"], v["geometry.f1_x"], v["geometry.f2_x"]
        tyre = (16 - w / 2, 16 + w / 2)
        self.add("roller-P", "bought", "drive", [Solid(Circle(px, -r, r), -w / 2, w / 2)], item="Roller",
                 note="pickup P: its top level with the path floor, 0.5 mm over the hopper floor")
        self.add("roller-F1-low", "bought", "drive", self.both_sides(Circle(f1, -r, r), *tyre), item="Roller")
        self.add("roller-F1-up", "bought", "drive", self.both_sides(Circle(f1, t + r, r), *tyre), item="Roller",
                 note="on the sprung arm with the thickness magnet (SS49E)")
        self.add("roller-F2-up", "bought", "drive", self.both_sides(Circle(f2, t + r, r), *tyre), item="Roller",
                 note="driven through the one-way bearing")
        ir = v["cad.feed.f2_idler_d"] / 2
        iy = v["cad.feed.f2_idler_y"]
        self.add("idler-F2", "bought", "drive", self.both_sides(Circle(f2, -ir, ir), iy - 2, iy + 2), item="Idler bearing",
                 note="F2's lower side: two 623ZZ on stub axles, the reader looks up between them")
        self.nip_x = {"P": px, "F1": f1, "F2": f2}
        # sprung arms of the upper rollers (outside the card's width: forks at |y| 36..40)
        arm = v["cad.springs.nip_arm"]
        for name, x in (("F1", f1), ("F2", f2)):
            prof = Poly(((x - arm - 4, t + r - 4), (x + 4, t + r - 4), (x + 4, t + r + 4), (x - arm - 4, t + r + 4)))
            for side, (ya, yb) in (("back", (36.0, 40.0)), ("front", (-40.0, -36.0))):
                self.add(f"arm-{name}-{side}", "printed", "frame", [Solid(prof, ya, yb)],
                         holes=[Solid(Circle(x, t + r, 2.5), ya, yb), Solid(Circle(x - arm, t + r, 1.5), ya, yb)],
                         stl="nip-arm", note="a sprung arm's plate: the roller's axle and, 25 mm on, its pivot")
        # side plates of the feed section: shafts and arm pivots, outside the path
        holes = [Solid(Circle(px, -r, 2.5), 40, 48), Solid(Circle(f1, -r, 2.5), 40, 48),
                 Solid(Circle(f1 - arm, t + r, 1.5), 40, 48), Solid(Circle(f2 - arm, t + r, 1.5), 40, 48)]
        prof = rect(-100.0, -80.0, 145.0, 35.0)
        for side, sign in (("back", 1), ("front", -1)):
            self.add(f"feed-side-{side}", "printed", "frame", [Solid(prof, 40.0, 45.0) if sign > 0 else Solid(prof, -45.0, -40.0)],
                     holes=holes if sign > 0 else [Solid(h.shape, -h.y1, -h.y0) for h in holes], stl="feed-side",
                     note="a side plate (print two): P, F1, the arms' pivots, the reader bracket")
        # the feed floor from the throat to the belt, with the read window and the roller slots
        ft = v["cad.path.floor_thickness"]
        hw = self.guide_hw
        win0, win1 = self.window_span()
        holes2 = [(f1 - r - 1, f1 + r + 1, tyre[0] - 1, tyre[1] + 1), (f1 - r - 1, f1 + r + 1, -tyre[1] - 1, -tyre[0] + 1),
                  (f2 - ir - 1, f2 + ir + 1, iy - 3, iy + 3), (f2 - ir - 1, f2 + ir + 1, -iy - 3, -iy + 3),
                  (win0, win1, -self.read_half_width() - 1, self.read_half_width() + 1)]
        solids = self.plate(3.0, v["geometry.belt_x"], -ft, 0.0, -hw, hw, holes2)
        solids += self.both_sides(rect(3.0, 0.0, v["geometry.belt_x"], 3.0), hw, hw + 2.0)
        self.add("floor-feed", "printed", "guide", solids, stl="floor-feed",
                 note="path floor from the throat to the belt: slots for F1 and F2's idlers, the read window, side guides")

    # ---- the reader -----------------------------------------------------------------------------

    def code_span(self) -> tuple[float, float]:
        """Where the leading end's code can be on a card at rest (x), with the stop tolerance."""
        v = self.v
        lead = v["geometry.window_x"]
        tol = v["cad.card.stop_tol"]
        inset, size = v["cad.card.code_inset"], v["cad.card.code_size"]
        return lead - inset - size - tol, lead - inset + tol

    def read_half_width(self) -> float:
        v = self.v
        return v["cad.reader.distance"] * math.tan(math.radians(v["cad.reader.fov_across"] / 2))

    def window_span(self) -> tuple[float, float]:
        """The read window in the floor: the scanner's field where it meets the card, plus 1 mm."""
        v = self.v
        c0, c1 = self.code_span()
        half_along = v["cad.reader.distance"] * math.tan(math.radians(v["cad.reader.fov_along"] / 2))
        xc = (c0 + c1) / 2
        return xc - half_along - 1.0, xc + half_along + 1.0

    def _reader(self) -> None:
        v = self.v
        d = v["cad.reader.distance"]
        c0, c1 = self.code_span()
        xc = (c0 + c1) / 2
        half_along = d * math.tan(math.radians(v["cad.reader.fov_along"] / 2))
        ap = v["cad.reader.aperture"] / 2
        field = Poly(((xc - ap, -d), (xc + ap, -d), (xc + half_along, 0.0), (xc - half_along, 0.0)))
        bx, by, bz = v["cad.reader.body_x"], v["cad.reader.body_y"], v["cad.reader.body_z"]
        self.reader = {"x": xc, "distance": d, "field": field, "field_along": (xc - half_along, xc + half_along),
                       "half_across": self.read_half_width(), "code": (c0, c1)}
        self.add("reader", "bought", "reader", [Solid(rect(xc - bx / 2, -d - bz, xc + bx / 2, -d), -by / 2, by / 2)],
                 item="Card reader", note="GM65-S, lens up, 50 mm under the card's face")
        self.add("reader-bracket", "printed", "frame",
                 [Solid(rect(xc - bx / 2 - 3, -d - bz - 3, xc + bx / 2 + 3, -d - bz), -40.0, 40.0),
                  Solid(rect(xc - bx / 2 - 3, -d - bz, xc - bx / 2 - 1, -d + 2), -by / 2 - 2, by / 2 + 2),
                  Solid(rect(xc + bx / 2 + 1, -d - bz, xc + bx / 2 + 3, -d + 2), -by / 2 - 2, by / 2 + 2)],
                 stl="reader-bracket", note="cradle between the feed side plates; slotted holes set the distance")

    # ---- transport -----------------------------------------------------------------------------

    def _transport(self) -> None:
        v = self.v
        t = self.t_max
        bd = v["cad.transport.band_d"]
        by = v["cad.transport.band_y"]
        x0, x1 = v["geometry.belt_x"], v["cad.transport.east_drum_x"]
        band = (by - bd / 2, by + bd / 2)
        self.add("bands", "bought", "drive", self.both_sides(rect(x0, t, x1, t + bd), *band), item="Round belt",
                 note="two round bands above the card; their lower run presses it onto the floor")
        dr = v["cad.transport.drum_d"] / 2
        dz = t + bd / 2 + bd / 2 + dr  # the drum's centre over the band's lower run
        dw = v["cad.transport.drum_w"] / 2
        for name, x in (("west", x0), ("east", x1)):
            self.add(f"drum-{name}", "printed", "drive", self.both_sides(Circle(x, dz, dr), by - dw, by + dw),
                     holes=[Solid(Circle(x, dz, 2.5), -by - dw, by + dw)], stl="band-drum",
                     note="a grooved pulley under each band on a 5 mm shaft; the flap fingers pass between them")
        ir = v["cad.transport.idler_d"] / 2
        rows = [self.pocket_x(k) - v["cad.transport.idler_dx"] for k in range(v["geometry.pockets"])]
        self.idler_rows = rows
        for i, x in enumerate(rows):
            self.add(f"band-idler-{i}", "bought", "drive", self.both_sides(Circle(x, t + bd + ir, ir), *band),
                     item="Idler bearing")
            arm = Poly(((x - 3, t + bd + ir - 3), (x + 3, t + bd + ir - 3), (x + 3, 30.0), (x - 3, 30.0)))
            self.add(f"idler-arm-{i}", "printed", "frame",
                     self.both_sides(arm, by - bd / 2 - 3.0, by - bd / 2 - 1.0) + self.both_sides(arm, by + bd / 2 + 1.0, by + bd / 2 + 3.0),
                     holes=[Solid(Circle(x, t + bd + ir, 1.5), -by - 4, by + 4)], stl="idler-fork",
                     note="fork holding a pair of 623ZZ on a 3 mm axle; a 0.3 N spring above")
        self.nip_x.update({"drum-west": x0, **{f"row-{i}": x for i, x in enumerate(rows)}, "drum-east": x1})
        # a beam above the idlers across the path, per row (carries the forks and their springs)
        self.add("band-frame", "printed", "frame",
                 [Solid(rect(x0 - 10, 30.0, x1 + 10, 36.0), 36.0, 42.0), Solid(rect(x0 - 10, 30.0, x1 + 10, 36.0), -42.0, -36.0)]
                 + [Solid(rect(x - 4, 30.0, x + 4, 34.0), -36.0, 36.0) for x in rows],
                 stl="band-frame", note="two rails and cross bars over the bands; printed in sections")

    # ---- pockets and flaps ----------------------------------------------------------------------

    def pocket_order(self) -> list[tuple[int, str, int]]:
        """(k, target name, cards it must hold) in path order, from firmware/config.py."""
        cfg = self.fw
        names = {0x84: "trick", 0x81: "discard", 0x82: "centre", 0x80: "reject"}
        out = [(k, f"seat {k}", cfg.SEAT_POCKET_CAP) for k in range(cfg.SEAT_COUNT)]
        for target, k in sorted(cfg.POCKET.items(), key=lambda kv: kv[1]):
            out.append((k, names[target], cfg.POCKET_CAP[target]))
        return out

    def _flap(self, k: int) -> Flap:
        v = self.v
        x = self.pocket_x(k)
        px, pz = x + v["cad.pocket.pivot_dx"], v["cad.pocket.pivot_z"]
        L, th = v["cad.pocket.finger_len"], v["cad.pocket.finger_thick"]
        top = -v["cad.pocket.closed_drop"]
        # a bar from the tip to just past the pivot, its east end rounded round the axle
        east = arc(px, pz, th / 2, -90, 90, 15)
        closed = Poly(((px - L, top - th), (px, top - th), *east[1:-1], (px, top), (px - L, top)))
        return Flap(k, (px, pz), closed, closed.rotated(px, pz, -v["servo.flap_swing_deg"]), v["servo.flap_swing_deg"])

    def _dive(self, flap: Flap, fall_x: float | None) -> tuple[list[Point], Point, Point]:
        """The card's centre line from the raised flap's underside into the pocket: along the
        underside, a short free flight, the curved guide (lead angle, then radius) to vertical at
        fall_x. Returns the points from the first contact, the guide's centre and the end of the
        free flight (where the guide takes the card)."""
        v = self.v
        sw = math.radians(flap.swing_deg)
        d = (math.cos(sw), -math.sin(sw))
        # the underside: the raised bar's lower edge, from its west corner to the axle's end
        pts = flap.opened.pts
        bw, be = pts[0], pts[1]
        off = self.half / math.cos(sw)
        z_at = lambda x: bw[1] + (x - bw[0]) * (be[1] - bw[1]) / (be[0] - bw[0]) - off  # noqa: E731
        # first contact: where the underside (less half a card) comes down to the card's mid-plane
        xa = bw[0] + (self.half + off - bw[1]) * (be[0] - bw[0]) / (be[1] - bw[1])
        a = (xa, self.half)
        end = (be[0], z_at(be[0]))
        R = v["cad.pocket.chute_radius"]
        lead = math.radians(v["cad.pocket.chute_lead"])
        ang = sw + lead  # the card's heading below horizontal once the guide has turned it
        # the free flight L from the flap's end to the guide, chosen so the card ends vertical at fall_x
        # fall_x = q_x - R*sin(ang) + R  with  q = end + L*d
        L = 1.0 if fall_x is None else (fall_x - R + R * math.sin(ang) - end[0]) / d[0]
        if L < 1.0 - 1e-6:
            raise ValueError(f"pocket {flap.k}: the fall line {fall_x} is too close to the flap for the guide's radius {R}")
        q = (end[0] + L * d[0], end[1] + L * d[1])
        c = (q[0] - R * math.sin(ang), q[1] - R * math.cos(ang))
        path = [a, end, q]
        deg0 = 90 - math.degrees(ang)
        path += arc(c[0], c[1], R, deg0, 0, 3)[1:]
        return path, c, q

    def _pockets(self) -> None:
        v = self.v
        pitch = v["geometry.pocket_pitch"]
        wall = v["cad.pocket.wall"]
        ft = v["cad.path.floor_thickness"]
        hw = self.guide_hw
        back = v["cad.pocket.mouth_back"]
        fz = v["cad.pocket.fall_zone"]
        slope = math.tan(math.radians(v["cad.pocket.floor_slope"]))
        R = v["cad.pocket.chute_radius"]
        ax = v["cad.pocket.axle_d"] / 2
        fw, fy = v["cad.pocket.finger_w"], v["cad.pocket.finger_y"]
        fingers = [(-fw / 2, fw / 2), (fy - fw / 2, fy + fw / 2), (-fy - fw / 2, -fy + fw / 2)]
        order = self.pocket_order()
        n = len(order)
        for k, target, count in order:
            x = self.pocket_x(k)
            c0 = x - back
            c1 = c0 + pitch
            flap = self._flap(k)
            self.flaps.append(flap)
            west_inner = c0 + wall
            stack = count * self.t_max / math.cos(math.radians(v["cad.pocket.floor_slope"]))
            # the card falls where the curved guide brings it vertical after a 1 mm free flight;
            # the last pocket (trick) moves its fall line east until the stack fits
            fall_x = self._dive(flap, None)[0][-1][0]
            need = west_inner + stack + fz / 2
            last = k == n - 1
            if last:
                fall_x = max(fall_x, need)
            east_outer = (fall_x + fz / 2 + self.half + wall) if last else c1
            path, centre, q = self._dive(flap, fall_x)
            floor_z = centre[1] - self.card_len_max - v["cad.pocket.floor_gap"]
            path.append((fall_x, floor_z + 2 * self.half))  # its lower edge stands on the floor
            pk = Pocket(k, target, count, x, (c0, east_outer), west_inner, fall_x, floor_z, centre)
            pk.stack_room = (fall_x - fz / 2) - west_inner
            pk.depth = -floor_z
            self.pockets.append(pk)
            # the flap: three fingers and the spine round the axle, on the 3 mm axle
            self.add(f"flap-{k:02d}", "printed", "flap",
                     [Solid(flap.closed, y0, y1) for y0, y1 in fingers]
                     + [Solid(Circle(flap.pivot[0], flap.pivot[1], v["cad.pocket.finger_thick"] / 2), -fy - fw / 2, fy + fw / 2)],
                     holes=[Solid(Circle(flap.pivot[0], flap.pivot[1], ax), -hw, hw)], stl="flap",
                     note="three fingers on a spine; raised 25 deg by the MG90S it turns the card down")
            # the module: floor piece east of the flap, curved guide, fall-line baffle, walls, floor
            clear_axle = flap.pivot[0] + v["cad.pocket.finger_thick"] / 2 + 1.6
            top_piece = self.plate(clear_axle, east_outer, -ft, 0.0, -hw, hw, [])
            top_piece += self.both_sides(rect(clear_axle, 0.0, east_outer, 3.0), hw, hw + 2.0)
            g_in = R + self.half
            # the guide starts where its face keeps clear of the flap's swing (the axle end's circle)
            sw_r = v["cad.pocket.finger_thick"] / 2
            ang_q = math.degrees(math.atan2(q[1] - centre[1], q[0] - centre[0]))
            a0 = ang_q + 4.0  # a short lead-in before the card meets it
            while a0 > 0:
                gx = centre[0] + (g_in + 2) * math.cos(math.radians(a0))
                gz = centre[1] + (g_in + 2) * math.sin(math.radians(a0))
                gx2 = centre[0] + g_in * math.cos(math.radians(a0))
                gz2 = centre[1] + g_in * math.sin(math.radians(a0))
                d1 = math.dist((gx, gz), flap.pivot) - sw_r
                d2 = math.dist((gx2, gz2), flap.pivot) - sw_r
                if min(d1, d2) >= v["cad.path.clearance"] and gz < -ft - 0.5:
                    break
                a0 -= 1.0
            outer = arc(centre[0], centre[1], g_in + 2.0, a0, 0, 3)
            inner = arc(centre[0], centre[1], g_in, 0, a0, 3)
            guide = Poly(tuple(outer + inner))
            baffle = rect(fall_x + self.half, centre[1] - 25.0, fall_x + self.half + 2.0, centre[1])
            # hanger from the floor piece down to the guide and the baffle (east of the fall line)
            hang = rect(fall_x + self.half + 2.0, centre[1] - 25.0, fall_x + self.half + 4.0, -ft) if not last else \
                rect(east_outer - wall - 2.0, centre[1] - 25.0, east_outer - wall, -ft)
            west = Poly(((c0, floor_z - (fall_x - c0) * slope - 4.0), (c0 + wall, floor_z - (fall_x - c0 - wall) * slope - 4.0),
                         (c0 + wall, -v["cad.pocket.finger_thick"] - 1.8), (c0, -v["cad.pocket.finger_thick"] - 1.8)))
            east = rect(east_outer - wall, floor_z - 4.0, east_outer, -ft)
            floor = Poly(((c0, floor_z - (fall_x - c0) * slope - 4.0), (east_outer, floor_z - 4.0 + (east_outer - fall_x) * slope * 0),
                          (east_outer, floor_z), (fall_x, floor_z), (c0 + wall, floor_z - (fall_x - c0 - wall) * slope)))
            body = [Solid(guide, -hw, hw), Solid(baffle, -hw, hw), Solid(hang, -hw, hw), Solid(west, -hw, hw),
                    Solid(east, -hw, hw), Solid(floor, -hw, hw)]
            # front (players') and back walls: the front open from 20 mm over the floor up to the guide
            sides = [Solid(rect(c0, floor_z - 4.0 - (fall_x - c0) * slope, east_outer, -ft), hw, hw + wall),
                     Solid(rect(c0, floor_z - 4.0 - (fall_x - c0) * slope, east_outer, floor_z + 20.0), -hw - wall, -hw),
                     Solid(rect(c0, centre[1] - 2.0, east_outer, -ft), -hw - wall, -hw)]
            servo = [Solid(rect(flap.pivot[0] - 6.1, flap.pivot[1] - 22.8 + 5.9, flap.pivot[0] + 6.1, flap.pivot[1] + 5.9),
                           hw + wall + 1.0, hw + wall + 3.5)]
            self.add(f"pocket-{k:02d}", "printed", "guide", top_piece + body + sides + servo,
                     holes=[Solid(Circle(flap.pivot[0], flap.pivot[1], ax + 0.2), -hw - wall, hw + wall + 3.5)],
                     stl="pocket-trick" if last else "pocket",
                     note=f"{target}: holds {count} cards; flap axle bores front and back, servo plate at the back")
            sv = v["cad.pocket.servo_y"]
            self.add(f"servo-{k:02d}", "bought", "frame",
                     [Solid(rect(flap.pivot[0] - 6.1, flap.pivot[1] - 22.8 + 5.9, flap.pivot[0] + 6.1, flap.pivot[1] + 5.9), sv, sv + 28.5)],
                     item="Micro servo", note="MG90S, shaft along y onto the flap's axle")
            # the mouth opto: on a bracket inside the guide's bend, looking out at the card
            sa = math.radians(35.0)
            sr0, sr1 = R - self.half - 2.5, R - self.half - 2.5 - 7.0
            sc = (centre[0] + (sr0 + sr1) / 2 * math.cos(sa), centre[1] + (sr0 + sr1) / 2 * math.sin(sa))
            box = rect(sc[0] - 2.9, sc[1] - 3.5, sc[0] + 2.9, sc[1] + 3.5).rotated(sc[0], sc[1], 35.0 - 90.0)
            self.add(f"mouth-opto-{k:02d}", "bought", "sensor", [Solid(box, -5.1, 5.1)], item="Reflective opto module",
                     note="TCRT5000 head 2.5 mm inside the card's bend, looking out at its face")
            arm_shape = Poly(((west_inner, -v["cad.pocket.finger_thick"] - 3.8), (west_inner + 2.0, -v["cad.pocket.finger_thick"] - 3.8),
                              (sc[0] - 1.0, sc[1] - 3.0), (sc[0] - 3.0, sc[1] - 3.0)))
            self.add(f"opto-arm-{k:02d}", "printed", "sensor", [Solid(arm_shape, 6.0, 9.0)], stl="opto-arm",
                     note="holds the mouth opto from the west wall, clear of the card")
            self.paths[f"dive-{k:02d}"] = CardPath(f"dive-{k:02d}", path, [], pocket=k,
                                                   guides=(f"flap-{k:02d}", f"pocket-{k:02d}"))

    # ---- the return loop ------------------------------------------------------------------------

    def _loop(self) -> None:
        v = self.v
        t = self.t_max
        r = v["cad.feed.roller_d"] / 2
        rr = v["cad.loop.r_roller_d"] / 2
        w = v["cad.feed.roller_w"]
        hw = self.guide_hw
        ft = v["cad.path.floor_thickness"]
        tyre = (16 - w / 2, 16 + w / 2)
        nx, ex, fx = v["cad.loop.nip_x"], v["cad.loop.end_x"], v["cad.loop.flap_x"]
        self.add("roller-R-low", "bought", "drive", self.both_sides(Circle(nx, -rr, rr), *tyre), item="Roller 20 mm")
        self.add("roller-R-up", "bought", "drive", self.both_sides(Circle(nx, t + rr, rr), *tyre), item="Roller 20 mm",
                 note="on a sprung arm, like F1")
        self.add("rv-opto", "bought", "sensor", [Solid(rect(v["cad.loop.rv_x"] - 3, -4.0, v["cad.loop.rv_x"] + 3, 8.0), hw + 0.5, hw + 12)],
                 item="Slotted opto module", note="Rv: its slot straddles the card's back edge")
        east_end = self.pockets[-1].cell[1] if self.pockets else v["cad.transport.east_drum_x"]
        self.add("switchback", "printed", "guide",
                 self.plate(east_end, ex + 3, -ft, 0.0, -hw, hw, [(nx - rr - 1, nx + rr + 1, -tyre[1] - 1, -tyre[0] + 1),
                                                                   (nx - rr - 1, nx + rr + 1, tyre[0] - 1, tyre[1] + 1)])
                 + [Solid(rect(ex, 0.0, ex + 3, 20.0), -hw, hw)]
                 + self.both_sides(rect(east_end, 0.0, ex + 3, 3.0), hw, hw + 2.0),
                 stl="switchback", note="channel floor, end stop, R's slots")
        dg = math.radians(v["cad.loop.diagonal_deg"])
        tz = v["cad.loop.top_z"]
        h = self.half
        # the one-way flap: a light blade hinged at the diagonal's foot, its free end resting on the
        # path: a card going east lifts it, coming back west it rides up its top onto the diagonal
        hinge = (fx, 4.5)
        foot = (fx + v["cad.loop.blade_len"], 0.0)
        self.blade_foot = foot
        blade = Poly((foot, hinge, (hinge[0], hinge[1] - 1.2), (foot[0] - 0.5 * v["cad.loop.blade_len"], 0.6)))
        self.add("one-way-flap", "printed", "guide", [Solid(blade, -hw + 2, hw - 2)], stl="one-way-flap",
                 holes=[], note="rests on the path; a card going east lifts it, coming back it rides up onto the diagonal")
        n = (math.sin(dg), math.cos(dg))  # the diagonal floor's upward normal
        top_x0 = hinge[0] - (tz - hinge[1]) / math.tan(dg)
        rx = v["cad.loop.return_x"]
        # the floor's convex corner at the top of the diagonal is rounded: the card bends over it
        self.corner_r = 25.0
        bend = self._corner(hinge, (top_x0, tz), (rx, tz), self.corner_r - h)
        a, b = hinge, bend[0]
        diag = Poly((a, b, (b[0] - 3 * n[0], b[1] - 3 * n[1]), (a[0] - 3 * n[0], a[1] - 3 * n[1])))
        cx, cz = self._corner_centre
        inner = [(cx + (x - cx) * (1 - 3 / (self.corner_r - h)), cz + (z - cz) * (1 - 3 / (self.corner_r - h))) for x, z in bend]
        self.add("diagonal", "printed", "guide", [Solid(diag, -hw, hw), Solid(Poly(tuple(bend + inner[::-1])), -hw, hw)],
                 stl="diagonal", note="climbs west at 30 deg to a 25 mm rounded crest; printed in sections")
        self.add("top-run", "printed", "guide", [Solid(rect(rx, tz - ft, bend[-1][0], tz), -hw, hw)], stl="top-run",
                 note="top run floor, ending in a PTFE-taped lip at the throat; printed in sections")
        # nips of the diagonal and the top run: idler pairs pressing the card onto the floor every
        # diagonal_pitch mm of path, then the last roller over the lip
        pitch = v["cad.loop.diagonal_pitch"]
        seg_d = math.hypot(hinge[0] - top_x0, tz - hinge[1])
        off = (h * n[0], h * n[1])
        self.loop_corners = ((foot[0], h), (hinge[0] + off[0], hinge[1] + off[1]), (top_x0 + h * math.tan(dg / 2), tz + h))
        loop_nips: list[tuple[str, Point]] = [("R", (nx, h))]
        ir = v["cad.transport.idler_d"] / 2
        s = pitch / 2
        i = 0
        while s < seg_d:
            p = (hinge[0] - s * math.cos(dg) + off[0], hinge[1] + s * math.sin(dg) + off[1])
            loop_nips.append((f"diag-{i}", p))
            c = (p[0] + (h + ir) * n[0], p[1] + (h + ir) * n[1])
            self.add(f"loop-idler-diag-{i}", "bought", "drive", self.both_sides(Circle(c[0], c[1], ir), 14, 18),
                     item="Idler bearing")
            i += 1
            s += pitch
        x = top_x0 - (s - seg_d)
        while x > rx + pitch / 2:
            loop_nips.append((f"top-{i}", (x, tz + h)))
            self.add(f"loop-idler-top-{i}", "bought", "drive", self.both_sides(Circle(x, tz + 2 * h + ir, ir), 14, 18),
                     item="Idler bearing")
            i += 1
            x -= pitch
        loop_nips.append(("return", (rx + 2.0, tz + h)))
        self.loop_nips = loop_nips
        self.add("return-roller", "bought", "drive", self.both_sides(Circle(rx + 2.0, tz + 2 * h + r, r), *tyre), item="Roller",
                 note="the top run's last roller, driven from T, presses the card onto the lip; past it the card lies "
                      "over the hopper and falls flat")
        for side, (ya, yb) in (("back", (46.0, 50.0)), ("front", (-50.0, -46.0))):
            self.add(f"loop-side-{side}", "printed", "frame", [Solid(rect(rx - 5, 30.0, fx + 20, tz + 25.0), ya, yb)],
                     stl="loop-side", note="a side plate (print two) carrying the diagonal, the top run and their idlers")
        # sprung arms of R's upper roller and of the return roller (as F1's)
        arm = v["cad.springs.nip_arm"]
        for name, (x, z) in (("R", (nx, t + rr)), ("return", (rx + 2.0, tz + 2 * h + r))):
            prof = Poly(((x - 4, z - 4), (x + arm + 4, z - 4), (x + arm + 4, z + 4), (x - 4, z + 4)))
            for side, (ya, yb) in (("back", (36.0, 40.0)), ("front", (-40.0, -36.0))):
                self.add(f"arm-{name}-{side}", "printed", "frame", [Solid(prof, ya, yb)],
                         holes=[Solid(Circle(x, z, 2.5), ya, yb), Solid(Circle(x + arm, z, 1.5), ya, yb)],
                         stl="nip-arm", note="a sprung arm's plate: the roller's axle and, 25 mm on, its pivot")

    def _main_paths(self) -> None:
        v = self.v
        h = self.half
        back = v["cad.hopper.back_wall_x"]
        hz = -v["cad.feed.pickup_protrude"]
        px = v["geometry.pickup_x"]
        start = [(back + h, hz + h), (px - 25.0, hz + h), (px, h)]
        ex = v["cad.loop.end_x"]
        nips_main = [(n, (x, h)) for n, x in sorted(self.nip_x.items(), key=lambda kv: kv[1])]
        self.paths["main"] = CardPath("main", [*start, (ex - h, h)], nips_main + [("R", (v["cad.loop.nip_x"], h))])
        for key, cp in list(self.paths.items()):
            if key.startswith("dive-"):
                k = cp.pocket
                assert k is not None
                a = cp.pts[0]
                cp.pts = [*start, (a[0], h), *cp.pts[1:]]
                cp.nips = [(n, p) for n, p in nips_main if p[0] < a[0]]
        # the loop: back out of the switchback over the one-way flap, up the diagonal, the top run west;
        # past the last roller the card lies over the hopper ("drop": checked as a falling sheet)
        (fx, fz), (hx, hz2), (tx, tz) = self.loop_corners
        rx = v["cad.loop.return_x"]
        # coming back, the card rides up the one-way flap onto the diagonal: its mid-plane turns from
        # the path's level to the diagonal's on one 20 mm arc, which the flap's top stays under
        c2 = self._meet((ex, h), (fx - 10.0, h), (hx, hz2), (tx, tz))
        self.paths["loop"] = CardPath("loop", [(ex - h, h), *self._corner((ex, h), c2, (tx, tz), 20.0),
                                               *self._corner(c2, (tx, tz), (rx, tz), self.corner_r),
                                               (rx - self.card_len_max, tz)],
                                      [(n, p) for n, p in self.loop_nips], guides=("one-way-flap",))
        self.drop = {"x": (rx - self.card_len_max, rx), "z": (hz + h, tz)}

    @staticmethod
    def _meet(a0: Point, a1: Point, b0: Point, b1: Point) -> Point:
        """Where the line through a0, a1 meets the line through b0, b1."""
        d1 = (a1[0] - a0[0], a1[1] - a0[1])
        d2 = (b1[0] - b0[0], b1[1] - b0[1])
        den = d1[0] * d2[1] - d1[1] * d2[0]
        t = ((b0[0] - a0[0]) * d2[1] - (b0[1] - a0[1]) * d2[0]) / den
        return a0[0] + t * d1[0], a0[1] + t * d1[1]

    @staticmethod
    def _corner(a: Point, b: Point, c: Point, radius: float) -> list[Point]:
        """The corner at b between a->b and b->c rounded to ``radius`` (points along the arc)."""
        u = (a[0] - b[0], a[1] - b[1])
        w = (c[0] - b[0], c[1] - b[1])
        lu, lw = math.hypot(*u), math.hypot(*w)
        u, w = (u[0] / lu, u[1] / lu), (w[0] / lw, w[1] / lw)
        turn = math.acos(max(-1.0, min(1.0, u[0] * w[0] + u[1] * w[1])))
        t = radius / math.tan(turn / 2)
        p0 = (b[0] + u[0] * t, b[1] + u[1] * t)
        p1 = (b[0] + w[0] * t, b[1] + w[1] * t)
        bis = (u[0] + w[0], u[1] + w[1])
        lb = math.hypot(*bis)
        cdist = radius / math.sin(turn / 2)
        c0 = (b[0] + bis[0] / lb * cdist, b[1] + bis[1] / lb * cdist)
        Dealer._corner_centre = c0
        a0 = math.degrees(math.atan2(p0[1] - c0[1], p0[0] - c0[0]))
        a1 = math.degrees(math.atan2(p1[1] - c0[1], p1[0] - c0[0]))
        if a1 - a0 > 180:
            a1 -= 360
        elif a0 - a1 > 180:
            a1 += 360
        return arc(c0[0], c0[1], radius, a0, a1, 3)

    # ---- forces ---------------------------------------------------------------------------------

    def stack_weight(self, n: int) -> float:
        return n * self.v["cad.card.mass"] / 1000 * G

    def pickup(self, n: int) -> dict[str, float]:
        """The bottom card of an n-card stack: P's normal force and the net force it drives the
        card with (P's grip less the card above and the floor), in N, and the acceleration that
        gives it against the feed ramp's (mm/s2)."""
        v = self.v
        w = self.stack_weight(1)
        W = self.stack_weight(n)
        phi = v["cad.feed.pickup_share"]
        mu_r, mu_cc, mu_f = v["cad.friction.roller_card"], v["cad.friction.card_card"], v["cad.friction.floor_card"]
        normal = phi * W
        drive = mu_r * normal - mu_cc * (W - w) - mu_f * (1 - phi) * W
        accel = drive / (v["cad.card.mass"] / 1000) * 1000
        return {"normal": normal, "drive": drive, "accel_mm_s2": accel, "ramp_mm_s2": v["feed.accel"]}

    def pickup_lag_below(self) -> int:
        """The smallest stack whose bottom card keeps up with the feed ramp; smaller stacks
        slip (the card arrives late at F1, and short at the window by the lag)."""
        for n in range(1, self.fw.LOOP_CAPACITY + 1):
            if self.pickup(n)["accel_mm_s2"] >= self.v["feed.accel"]:
                return n
        return self.fw.LOOP_CAPACITY + 1

    def pickup_lag_mm(self, n: int) -> float:
        """How far the bottom card of an n-card stack falls behind P while P ramps up to speed
        (until F1's nip takes it over, 40 mm on): the card accelerates at what its net drive
        allows, P at the feed ramp's rate (mm)."""
        v = self.v
        a_card = min(self.pickup(n)["accel_mm_s2"], v["feed.accel"])
        a_p, vmax = v["feed.accel"], v["feed.v_max"]
        reach = v["geometry.f1_x"] - v["geometry.throat_x"]
        # time for the card to cover `reach` from rest (it cannot pass P's speed)
        t_ramp = vmax / a_card
        d_ramp = 0.5 * a_card * t_ramp ** 2
        t = math.sqrt(2 * reach / a_card) if reach <= d_ramp else t_ramp + (reach - d_ramp) / vmax
        # where P's surface is at that time
        tp = vmax / a_p
        dp = 0.5 * a_p * t ** 2 if t <= tp else 0.5 * a_p * tp ** 2 + vmax * (t - tp)
        return round(dp - reach, 1)

    def springs(self) -> dict[str, dict[str, float]]:
        """Each sprung nip's spring: force at the card, travel, the spring's rate and preload at
        the spring's point on the arm (half way from the pivot), so a maker can buy it."""
        v = self.v
        out = {}
        f = v["cad.springs.nip"]
        travel = v["cad.springs.nip_travel"]
        # spring at half the arm: twice the force over half the travel; keep the force within
        # +15 % over the travel: rate <= 0.15 * force / travel (at the spring)
        fs = 2 * f
        ts = travel / 2
        rate = 0.15 * fs / ts
        out["nip"] = {"at_card_N": f, "spring_N": fs, "rate_N_per_mm": round(rate, 3), "preload_mm": round(fs / rate, 1),
                      "count": 4}
        fi = v["cad.springs.idler"]
        forks = sum(len(p.solids) for p in self.parts if p.name.startswith(("band-idler", "loop-idler")))
        out["idler"] = {"at_card_N": fi, "spring_N": fi, "rate_N_per_mm": round(0.15 * fi / 1.0, 3),
                        "preload_mm": round(fi / (0.15 * fi / 1.0), 1), "count": forks}
        return out

    def lift_load(self) -> dict[str, float]:
        """The hopper lift's holding load: the fullest stack (loop capacity) on its lever."""
        n = self.fw.LOOP_CAPACITY
        W = self.stack_weight(n)
        lever_mm = 15.0
        kgcm = W * lever_mm / 10 / G
        return {"cards": n, "weight_N": round(W, 2), "lever_mm": lever_mm, "torque_kgcm": round(kgcm, 2)}

    # ---- bill of materials ----------------------------------------------------------------------

    def bought_counts(self) -> dict[str, int]:
        """How many of each bought item the model holds (a two-sided solid counts twice)."""
        out: dict[str, int] = {}
        for p in self.parts:
            if p.kind == "bought" and p.item:
                out[p.item] = out.get(p.item, 0) + len(p.solids)
        out["Reflective opto module"] = out.get("Reflective opto module", 0) + 1  # the hopper's card-present
        return out

    def printed(self) -> dict[str, list[Part]]:
        """STL name -> the parts printed from it."""
        out: dict[str, list[Part]] = {}
        for p in self.parts:
            if p.kind == "printed" and p.stl:
                out.setdefault(p.stl, []).append(p)
        return out
