"""The dealer model's checks: a card swept along every path clears every part, nips hold it,
the reader sees it, the pockets hold their cards, the flaps swing clear.

    python hardware/cad/dealer_checks.py          # every check, its margin, OK or FAIL
    python hardware/cad/dealer_checks.py --json   # the same as JSON

A swept card is the card's centre line along a path thickened by half the thickest card (the
table's thickness plus its tolerance), across the whole width between the side guides (a card
may lie anywhere between them). A part whose y range meets that width must keep
``cad.path.clearance`` from it, unless it guides the card (it may touch, never cut in) or is one
of that path's nips (a roller or band may press into it by a nip's compression; the same
roller on another path must keep clear, so a band cannot drag a returning card). Each pocket's own flap is
checked raised on its dive. Standard library only; tests/hardware/test_cad_model.py runs these.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dealer_geom import (  # noqa: E402
    Circle,
    Poly,
    bbox_gap,
    centre_distance,
    distance,
    inside,
    line_bounds,
    min_bend_radius,
    polyline_length,
    project_length,
    rect,
)
from dealer_model import Dealer, Part, Solid  # noqa: E402

FAR = 15.0  # mm: past this (a bounding-box lower bound) the exact gap is not worked out

COMPRESSION = 0.5  # mm a driving roller or band may press into the card's thickness (a nip)
TOUCH = 0.01  # numerical slack for "touching"


@dataclass
class Finding:
    check: str
    subject: str
    value: float
    limit: float
    ok: bool
    note: str = ""
    upper: bool = False  # the limit is an upper bound (value <= limit)

    @property
    def margin(self) -> float:
        return round(self.limit - self.value if self.upper else self.value - self.limit, 3)


def _overlaps(s: Solid, y0: float, y1: float) -> bool:
    return s.y0 < y1 - 1e-9 and s.y1 > y0 + 1e-9


def card_solids(d: Dealer, part: Part, path_name: str) -> list[Solid]:
    """The part's solids as a card on this path meets them (a pocket's flap raised on its dive)."""
    if part.name.startswith("flap-") and path_name == f"dive-{part.name[5:]}":
        flap = d.flaps[int(part.name[5:])]
        return [Solid(flap.opened, s.y0, s.y1) if isinstance(s.shape, Poly) else s for s in part.solids]
    return part.solids


def sweep(d: Dealer) -> list[Finding]:
    """Every path against every part: the least gap between the swept card and the part."""
    out = []
    hw = d.guide_hw
    clear = d.v["cad.path.clearance"]
    for name, path in d.paths.items():
        box = line_bounds(path.pts)
        # a roller or band may press the card only where it is one of this path's nips
        nipping = {part.name for part in d.parts if part.role == "drive"
                   and any(distance(s.shape, Circle(p[0], p[1], d.half + 1.0)) == 0.0 for s in part.solids for _, p in path.nips)}
        for part in d.parts:
            if part.name == "one-way-flap" and name == "main":
                continue  # a card going east lifts it (it rests on the path, hinged over it)
            solids = [s for s in card_solids(d, part, name) if _overlaps(s, -hw, hw)]
            if not solids:
                continue
            lb = min(bbox_gap(s.shape.bounds(), box) for s in solids) - d.half
            gap = lb if lb > FAR else min(centre_distance(s.shape, path.pts) for s in solids) - d.half
            if part.role == "drive" and part.name in nipping:
                limit = -COMPRESSION
            elif part.role in ("guide", "flap") or part.name in path.guides:
                limit = -TOUCH
            else:
                limit = clear
            out.append(Finding("sweep", f"{name} / {part.name}", round(gap, 3), limit, gap >= limit))
    # the drop: a card leaving the top run lies over the hopper and falls flat onto the stack
    x0, x1 = d.drop["x"]
    z0, z1 = d.drop["z"]
    sheet = rect(x0, z0 - d.half, x1, z1 + d.half)
    for part in d.parts:
        solids = [s for s in part.solids if _overlaps(s, -hw, hw)]
        if not solids or part.name in ("hopper", "top-run", "splitter-shoe", "splitter-blade"):
            continue  # the card lands on them (the splitter's shoe and blade: see hardware/README.md item 9)
        lb = min(bbox_gap(s.shape.bounds(), sheet.bounds()) for s in solids)
        gap = lb if lb > FAR else min(distance(s.shape, sheet) for s in solids)
        limit = -COMPRESSION if part.role == "drive" else clear
        out.append(Finding("drop", part.name, round(gap, 3), limit, gap >= limit))
    return out


def bends(d: Dealer) -> list[Finding]:
    lim = d.v["cad.path.min_bend_radius"]
    out = []
    for name, path in d.paths.items():
        r = min_bend_radius(path.pts)
        out.append(Finding("bend", name, round(min(r, 9999.0), 1), lim, r >= lim))
    return out


def nips(d: Dealer) -> list[Finding]:
    """Along every path, consecutive nips closer than the shortest card less the overlap; on a
    dive, the last nip before the flap close enough that most of the card is in the chute when
    it lets go; every nip grips both card sizes."""
    out = []
    lim = d.card_len_min - d.v["cad.path.nip_overlap"]
    for name, path in d.paths.items():
        s = sorted(project_length(path.pts, p) for _, p in path.nips)
        for (na, _), (nb, _), a, b in zip(path.nips, path.nips[1:], s, s[1:], strict=False):
            out.append(Finding("nip spacing", f"{name}: {na} -> {nb}", round(b - a, 1), lim, b - a <= lim, upper=True))
        if path.pocket is not None and s:
            a = d.paths[name].pts[3]  # the first contact with the raised flap
            last = max(x for x in s if x <= project_length(path.pts, a))
            free = project_length(path.pts, a) - last
            out.append(Finding("dive drive", name, round(free, 1), d.card_len_min / 2, free <= d.card_len_min / 2,
                               "card length past the flap when the last nip lets go is at least half the card", upper=True))
    # grip: every nip's contact inside the band both card sizes always cover
    covered = d.v["cad.card.bridge_width"] - d.guide_hw
    for part in d.parts:
        if part.role == "drive" and part.kind == "bought" and part.item in ("Roller", "Idler bearing", "Round belt"):
            for s in part.solids:
                if s.y1 <= -covered or s.y0 >= covered:
                    continue
                out_y = max(abs(s.y0), abs(s.y1))
                if abs(s.y0) < covered < abs(s.y1) or out_y > covered:
                    out.append(Finding("grip", part.name, out_y, covered, out_y <= covered,
                                       "contact within the width a 57 mm card always covers", upper=True))
    return out


def reader(d: Dealer) -> list[Finding]:
    v = d.v
    r = d.reader
    out = [Finding("reader distance", "lens to card face (min)", r["distance"], v["geometry.reader_focus_min"],
                   r["distance"] >= v["geometry.reader_focus_min"]),
           Finding("reader distance", "lens to card face (max)", -r["distance"], -v["cad.reader.range_max"],
                   r["distance"] <= v["cad.reader.range_max"]),
           Finding("reader field", "code inside the field (west margin)", round(r["code"][0] - r["field_along"][0], 2), 0.0,
                   r["code"][0] >= r["field_along"][0]),
           Finding("reader field", "code inside the field (east margin)", round(r["field_along"][1] - r["code"][1], 2), 0.0,
                   r["field_along"][1] >= r["code"][1])]
    half = r["half_across"]
    for part in d.parts:
        if part.name == "reader":
            continue
        solids = [s for s in part.solids if _overlaps(s, -half, half)]
        if not solids:
            continue
        lb = min(bbox_gap(s.shape.bounds(), r["field"].bounds()) for s in solids)
        gap = lb if lb > FAR else min(distance(s.shape, r["field"]) for s in solids)
        out.append(Finding("reader field clear", part.name, round(gap, 3), 0.0, gap > 0.0))
    return out


def pockets(d: Dealer) -> list[Finding]:
    out = []
    slope = math.cos(math.radians(d.v["cad.pocket.floor_slope"]))
    for pk in d.pockets:
        need = pk.count * d.t_max / slope
        out.append(Finding("pocket capacity", f"{pk.k} {pk.target}: {pk.count} cards", round(pk.stack_room, 1),
                           round(need, 1), pk.stack_room >= need))
        # a card standing in the fall zone: clear of the flap's swing and every sensor
        card = rect(pk.fall_x - d.half, pk.floor_z, pk.fall_x + d.half, pk.floor_z + d.card_len_max)
        flap = d.flaps[pk.k]
        gap = min(distance(flap.at(f / 10), card) for f in range(11))
        out.append(Finding("pocket depth", f"{pk.k}: standing card under the flap", round(gap, 2), d.v["cad.path.clearance"],
                           gap >= d.v["cad.path.clearance"]))
    return out


def flaps(d: Dealer) -> list[Finding]:
    """The flap's swing against every part but its own, and against a card passing over it:
    a card covering the flap zone must be past before the flap moves."""
    out = []
    clear = d.v["cad.path.clearance"]
    pitch = d.v["geometry.pocket_pitch"]
    for flap in d.flaps:
        me = d.part(f"flap-{flap.k:02d}")
        ys = [(s.y0, s.y1) for s in me.solids if isinstance(s.shape, Poly)]
        worst, who = math.inf, ""
        swept = [flap.at(f / 20) for f in range(0, 21)]
        sbox = (min(b.bounds()[0] for b in swept), min(b.bounds()[1] for b in swept),
                max(b.bounds()[2] for b in swept), max(b.bounds()[3] for b in swept))
        for part in d.parts:
            if part is me:
                continue
            for s in part.solids:
                if not any(_overlaps(s, y0, y1) for y0, y1 in ys):
                    continue
                lb = bbox_gap(s.shape.bounds(), sbox)
                if lb > FAR:
                    if lb < worst:
                        worst, who = lb, part.name
                    continue
                for f in range(0, 21):
                    g = distance(flap.at(f / 20), s.shape)
                    if g < worst:
                        worst, who = g, part.name
        out.append(Finding("flap swing", f"flap {flap.k} (nearest: {who})", round(worst, 3), clear, worst >= clear))
        # the zone a passing card must have left before this flap swings: where the swing rises
        # above the path floor
        xs = []
        for f in range(0, 21):
            poly = flap.at(f / 20)
            for (xa, za), (xb, zb) in poly.edges():
                if za > 0:
                    xs.append(xa)
                if (za > 0) != (zb > 0):  # the edge crosses the floor's plane
                    xs.append(xa + (xb - xa) * (0 - za) / (zb - za))
        x = d.pocket_x(flap.k)
        zone = (min(xs), max(xs)) if xs else (x, x)
        d.flap_zone = getattr(d, "flap_zone", {})
        d.flap_zone[flap.k] = zone
        inside_cell = zone[0] >= x - pitch / 2 and zone[1] <= x + pitch / 2
        out.append(Finding("flap zone", f"flap {flap.k}: {zone[0] - x:+.1f}..{zone[1] - x:+.1f} mm of its mouth",
                           round(max(x - pitch / 2 - zone[0], zone[1] - x - pitch / 2), 2), 0.0, inside_cell,
                           "the swing rises above the floor only within half a pitch of the mouth", upper=True))
        # lowered, the flap sits under a passing card
        top = max(z for _, z in flap.closed.pts)
        out.append(Finding("flap lowered", f"flap {flap.k}: top under the floor", round(-top, 2), 0.0, top < 0))
    return out


def neighbours(d: Dealer) -> list[Finding]:
    """Servos of neighbouring pockets, and printed parts of one pitch, do not collide."""
    out = []
    servos = [p for p in d.parts if p.name.startswith("servo-")]
    for a, b in zip(servos, servos[1:], strict=False):
        g = distance(a.solids[0].shape, b.solids[0].shape)
        out.append(Finding("servo fit", f"{a.name} / {b.name}", round(g, 2), 0.5, g >= 0.5))
    return out


def loop_length(d: Dealer) -> list[Finding]:
    L = polyline_length(d.paths["loop"].pts) - polyline_length([d.paths["loop"].pts[0], (d.v["geometry.end_x"], d.half)]) * 0
    L = L - (d.v["cad.loop.end_x"] - d.v["geometry.end_x"])  # from E, not from the channel's end
    z_fall = d.drop["z"][1] - d.drop["z"][0]
    return [Finding("loop length", "E to the drop (model) <= geometry.loop_length", round(L, 1), d.v["geometry.loop_length"],
                    L <= d.v["geometry.loop_length"], f"then a free fall of up to {z_fall:.0f} mm onto the stack", upper=True)]


def switchback(d: Dealer) -> list[Finding]:
    """The firmware's switchback moves against the loop's shapes: R starts pulling when E sees a
    card's leading edge and pulls switchback.pull_in mm, so the card (the longer one) must end
    with its tail past the one-way flap's foot, its leading edge past Rv and short of the end
    stop; pushed back out (switchback.push_out) its leading end must reach the diagonal's
    first nip."""
    v = d.v
    e, pull, push = v["geometry.end_x"], v["switchback.pull_in"], v["switchback.push_out"]
    lead = e + pull
    tail = lead - d.card_len_max
    foot = d.blade_foot[0]
    first = project_length(d.paths["loop"].pts, d.loop_nips[1][1])  # the first nip after R
    out_lead = project_length(d.paths["loop"].pts, (tail, d.half)) + push
    return [Finding("switchback", "pulled in: tail past the one-way flap's foot", round(tail - foot, 1), 1.0, tail - foot >= 1.0),
            Finding("switchback", "pulled in: leading edge past Rv", round(lead - v["cad.loop.rv_x"], 1), 2.0,
                    lead - v["cad.loop.rv_x"] >= 2.0),
            Finding("switchback", "pulled in: short of the end stop", round(v["cad.loop.end_x"] - lead, 1), 5.0,
                    v["cad.loop.end_x"] - lead >= 5.0),
            Finding("switchback", "pushed out: reaches the diagonal's first nip", round(out_lead - first, 1), 5.0,
                    out_lead - first >= 5.0)]


def _nearest(a: Part, others: list[Part]) -> tuple[float, str]:
    """The smallest gap between part ``a``'s solids and those of ``others`` that share its
    stretch of the path, and the nearest one's name (inf, "" when none shares it)."""
    worst, who = math.inf, ""
    for b in others:
        for sa in a.solids:
            for sb in b.solids:
                if not _overlaps(sa, sb.y0, sb.y1):
                    continue
                lb = bbox_gap(sa.shape.bounds(), sb.shape.bounds())
                g = lb if lb > FAR else distance(sa.shape, sb.shape)
                if g < worst:
                    worst, who = g, b.name
    return worst, who


def structure(d: Dealer) -> list[Finding]:
    """Where the loop crosses over the transport's end: its parts against the transport's, and
    the flaps' swing against the band drums (parts only, where no card passes between them)."""
    loop = [p for p in d.parts if p.name.startswith(("diagonal", "top-run", "one-way-flap", "loop-idler", "return-roller",
                                                      "roller-R", "switchback", "rv-opto"))]
    transport = [p for p in d.parts if p.name.startswith(("bands", "drum-", "band-idler", "idler-arm", "band-frame", "flap-"))]
    clear = d.v["cad.path.clearance"]
    out = []
    for a in loop:
        worst, who = _nearest(a, transport)
        if who:
            out.append(Finding("structure", f"{a.name} (nearest: {who})", round(worst, 2), clear, worst >= clear))
    return out


def splitter(d: Dealer) -> list[Finding]:
    """The sorting hopper's linear servo (its body and its rod, drawn fully out) and the
    counted lift's load cell under its rod against every other part but the shoe and each
    other: a longer stroke is a longer body, a longer cell a longer arm (physical.toml [sorter])."""
    clear = d.v["cad.path.clearance"]
    out = []
    for name, what in (("splitter-servo", "the L12-R's body and rod"), ("splitter-cell", "the load cell")):
        part = [p for p in d.parts if p.name == name]
        if not part:
            continue
        worst, who = _nearest(part[0], [b for b in d.parts if not b.name.startswith("splitter-")])
        out.append(Finding("splitter", f"{name} (nearest: {who})", round(worst, 2), clear, worst >= clear,
                           f"{what} against every part but the shoe"))
    return out


def pickup(d: Dealer) -> list[Finding]:
    out = []
    cap = d.fw.LOOP_CAPACITY
    worst = min((d.pickup(n)["drive"], n) for n in range(1, cap + 1))
    out.append(Finding("pickup", f"net drive on the bottom card, worst at {worst[1]} card(s)", round(worst[0], 4), 0.0,
                       worst[0] > 0, "P's grip less the card above and the floor: positive for every stack"))
    return out


def printable(d: Dealer) -> list[Finding]:
    bed = d.v["cad.path.print_bed"]
    out = []
    for stl, parts in d.printed().items():
        p = parts[0]
        xs = [s.shape.bounds() for s in p.solids]
        dx = max(b[2] for b in xs) - min(b[0] for b in xs)
        dz = max(b[3] for b in xs) - min(b[1] for b in xs)
        dy = p.y_range()[1] - p.y_range()[0]
        dims = sorted((dx, dy, dz))
        fits = dims[1] <= bed
        out.append(Finding("printable", f"{stl}: {dx:.0f} x {dy:.0f} x {dz:.0f} mm", round(dims[1], 1), bed, fits,
                           "longer parts are cut into sections by build.py" if dims[2] > bed else "", upper=True))
    return out


def all_checks(d: Dealer | None = None) -> list[Finding]:
    d = d or Dealer()
    return (sweep(d) + bends(d) + nips(d) + reader(d) + pockets(d) + flaps(d) + neighbours(d) + switchback(d) + structure(d) + splitter(d)
            + loop_length(d) + pickup(d) + printable(d))


def summary(findings: list[Finding]) -> dict[str, dict[str, float | int | str]]:
    """Per check: how many, how many failed, the worst margin (value - limit) and where."""
    out: dict[str, dict[str, float | int | str]] = {}
    for f in findings:
        s = out.setdefault(f.check, {"count": 0, "failed": 0, "worst_margin": math.inf, "worst": ""})
        s["count"] = int(s["count"]) + 1
        s["failed"] = int(s["failed"]) + (not f.ok)
        m = f.margin
        if m < float(s["worst_margin"]):
            s["worst_margin"] = round(m, 3)
            s["worst"] = f.subject
    return out


BEGIN = "<!-- generated by hardware/cad/dealer_checks.py --write: begin -->"
END = "<!-- generated by hardware/cad/dealer_checks.py --write: end -->"
README = Path(__file__).resolve().parents[1] / "README.md"


def markdown(d: Dealer | None = None) -> str:
    """The model's figures the hardware docs quote (hardware/README.md's generated block)."""
    d = d or Dealer()
    v = d.v
    findings = all_checks(d)
    out = [BEGIN, "",
           "Every figure here comes from the model (`hardware/cad/dealer_model.py`, from "
           "`device/dealer/physical.toml`); none is measured. Regenerate with "
           "`python hardware/cad/dealer_checks.py --write`.", "",
           "| Check | Checked | Failed | Least margin | Where |", "|---|---:|---:|---:|---|"]
    for check, sm in summary(findings).items():
        out.append(f"| {check} | {sm['count']} | {sm['failed']} | {sm['worst_margin']} | {sm['worst']} |")
    r = d.reader
    g = G_ = 9.81
    z_fall = (d.drop["z"][1] - d.drop["z"][0]) / 1000
    z_fall_full = (d.drop["z"][1] - d.drop["z"][0] - d.fw.LOOP_CAPACITY * d.t_max) / 1000
    sp = d.springs()
    lift = d.lift_load()
    out += ["", "| Figure | Value | From |", "|---|---|---|",
            f"| card thickness checked | {d.t_max} mm | geometry.card_thickness + its 7 % tolerance |",
            f"| cards checked | {v['geometry.card_length']:g} x {v['geometry.card_width']:g} and {v['cad.card.bridge_length']:g} x "
            f"{v['cad.card.bridge_width']:g} mm, anywhere between guides {2 * d.guide_hw:g} mm apart | cad.card, cad.path |",
            f"| reader: lens to card | {r['distance']:g} mm (GM65-S reads 40..90 mm) | cad.reader.distance, its manual V1.2 |",
            f"| reader: field on the card | {r['field_along'][1] - r['field_along'][0]:.1f} x {2 * r['half_across']:.1f} mm; the code "
            f"(with +-{v['cad.card.stop_tol']:g} mm of stop) lies {min(r['code'][0] - r['field_along'][0], r['field_along'][1] - r['code'][1]):.1f} mm inside it | 28 x 35 deg field |",
            f"| nips | every {sp['nip']['at_card_N']:g} N at the card: spring {sp['nip']['spring_N']:g} N at half the arm, rate "
            f"<= {sp['nip']['rate_N_per_mm']:g} N/mm, stretched {sp['nip']['preload_mm']:g} mm; {sp['nip']['count']} of them (F1, F2, R, "
            f"return) | cad.springs.nip, model springs() |",
            f"| band idlers | {sp['idler']['at_card_N']:g} N each, rate <= {sp['idler']['rate_N_per_mm']:g} N/mm; {sp['idler']['count']} | "
            f"cad.springs.idler |",
            f"| separation | throat gate {v['cad.hopper.gate_gap']:g} mm over the floor: no spring, no force to enter | cad.hopper.gate_gap |",
            f"| pickup: force on P | {d.pickup(1)['normal']:.3f} N (1 card) to {d.pickup(d.fw.LOOP_CAPACITY)['normal']:.2f} N "
            f"({d.fw.LOOP_CAPACITY} cards) | stack weight x pickup_share (estimates) |",
            f"| pickup: net drive on the bottom card | {d.pickup(1)['drive']:.3f} N (1 card) to {d.pickup(d.fw.LOOP_CAPACITY)['drive']:.2f} N; "
            f"positive for every stack | model pickup() |",
            f"| pickup: keeps up with the {v['feed.accel']:g} mm/s2 feed ramp | from {d.pickup_lag_below()} cards; 1 card lags "
            f"{d.pickup_lag_mm(1):g} mm, 2 cards {d.pickup_lag_mm(2):g} mm by F1 | model pickup_lag_mm() |",
            f"| hopper lift load | {lift['weight_N']:g} N ({lift['cards']} cards) on a {lift['lever_mm']:g} mm lever = "
            f"{lift['torque_kgcm']:g} kg.cm (HS-311: 3.0 stall) | model lift_load() |",
            f"| a returning card's fall onto the stack | {1000 * math.sqrt(2 * z_fall_full / g):.0f} ms (full hopper) to "
            f"{1000 * math.sqrt(2 * z_fall / G_):.0f} ms (empty) | free fall from the top run, {d.drop['z'][1] - d.drop['z'][0]:.0f} mm |",
            f"| flap zone (no card over it while a flap swings) | {d.flap_zone[0][0] - d.pocket_x(0):+.1f} to "
            f"{d.flap_zone[0][1] - d.pocket_x(0):+.1f} mm of the pocket's mouth position | model flaps() |",
            f"| loop path, E to the drop | {polyline_length(d.paths['loop'].pts) - (v['cad.loop.end_x'] - v['geometry.end_x']):.0f} mm "
            f"(firmware's LOOP_MM: {v['geometry.loop_length']:g}) | model path |",
            ""]
    out += ["| Pocket | Holds | Stack room | Needs | Depth |", "|---|---:|---:|---:|---:|"]
    for pk in d.pockets:
        need = pk.count * d.t_max / math.cos(math.radians(v["cad.pocket.floor_slope"]))
        out.append(f"| {pk.k} {pk.target} | {pk.count} | {pk.stack_room:.1f} mm | {need:.1f} mm | {pk.depth:.1f} mm |")
    out += ["", END]
    return "\n".join(out) + "\n"


def write_docs(path: Path = README) -> bool:
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: the markers {BEGIN!r} and {END!r} are missing")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + markdown().rstrip("\n") + tail
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--all", action="store_true", help="print every finding, not only the summary and failures")
    ap.add_argument("--markdown", action="store_true", help="print the generated block of hardware/README.md")
    ap.add_argument("--write", action="store_true", help="rewrite that block in hardware/README.md")
    args = ap.parse_args(argv)
    if args.markdown:
        sys.stdout.write(markdown())
        return 0
    if args.write:
        print("hardware/README.md updated" if write_docs() else "hardware/README.md already up to date")
        return 0
    findings = all_checks()
    bad = [f for f in findings if not f.ok]
    if args.json:
        print(json.dumps({"summary": summary(findings), "failed": [asdict(f) for f in bad]}, indent=2))
        return 1 if bad else 0
    for check, s in summary(findings).items():
        print(f"{check:<20} {s['count']:>4} checked, {s['failed']:>2} failed; least margin {s['worst_margin']:>8} ({s['worst']})")
    for f in findings if args.all else bad:
        print(f"{'OK  ' if f.ok else 'FAIL'} {f.check}: {f.subject}: {f.value} (limit {f.limit}) {f.note}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

__all__ = ["Finding", "all_checks", "summary", "Circle", "inside"]
