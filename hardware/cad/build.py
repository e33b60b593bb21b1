"""Build the dealer's CAD output from the model: an STL per printed part, an assembly, drawings.

    pip install -e ".[cad]"            # manifold3d (the solid kernel) and matplotlib
    python hardware/cad/build.py       # checks the model, then writes hardware/cad/out/
    python hardware/cad/build.py --only flap --no-drawings

Every shape comes from hardware/cad/dealer_model.py (itself from device/dealer/physical.toml):
each part's side-section profiles are extruded across the path over their y ranges and its bores
taken out, with manifold3d (a mesh kernel that keeps every boolean watertight). Parts longer than
the print bed are cut into numbered sections. The drawings (SVG and PNG, matplotlib) show the
assembly from the side and from above with the stations dimensioned, the feed section, a pocket
with its flap, and every printed part in three views with its dimensions and bores.

The model's clearance checks (dealer_checks.py) run first: nothing is written from a model that
fails them. Output is deterministic for the same library versions (fixed SVG ids, no dates).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dealer_checks  # noqa: E402
from dealer_geom import Circle, Poly  # noqa: E402
from dealer_model import Dealer, Part, Solid  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"


# ---- solids ---------------------------------------------------------------------------------------


def _profile_points(shape: Poly | Circle, segments: int = 48) -> list[tuple[float, float]]:
    if isinstance(shape, Circle):
        return [(shape.cx + shape.r * math.cos(2 * math.pi * i / segments),
                 shape.cz + shape.r * math.sin(2 * math.pi * i / segments)) for i in range(segments)]
    pts = list(shape.pts)
    # drop repeated points
    out = [pts[0]]
    for p in pts[1:]:
        if math.dist(p, out[-1]) > 1e-6:
            out.append(p)
    if math.dist(out[0], out[-1]) < 1e-6:
        out.pop()
    return out


def solid_manifold(s: Solid, segments: int = 48):  # type: ignore[no-untyped-def]
    """A profile in (x, z) extruded over y0..y1, as a manifold3d Manifold."""
    import manifold3d as m3

    pts = _profile_points(s.shape, segments)
    # the cross-section lives in (x, -z): extruded along +e, then turned -90 deg about x,
    # (x, -z, e) -> (x, e, z)
    xs = [(x, -z) for x, z in pts]
    area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(xs, xs[1:] + xs[:1], strict=True))
    if area < 0:
        xs.reverse()
    cs = m3.CrossSection([xs], m3.FillRule.NonZero)
    body = m3.Manifold.extrude(cs, s.y1 - s.y0)
    return body.rotate((-90.0, 0.0, 0.0)).translate((0.0, s.y0, 0.0))


def part_manifold(p: Part):  # type: ignore[no-untyped-def]
    import manifold3d as m3

    body = m3.Manifold.batch_boolean([solid_manifold(s) for s in p.solids], m3.OpType.Add)
    if p.holes:
        cut = m3.Manifold.batch_boolean([solid_manifold(h, 32) for h in p.holes], m3.OpType.Add)
        body = body - cut
    return body


def sections(body, bed: float):  # type: ignore[no-untyped-def]
    """Cut a body longer than the bed (along x) into pieces at most bed - 10 mm long."""
    import manifold3d as m3

    bb = body.bounding_box()
    x0, x1 = bb[0], bb[3]
    n = max(1, math.ceil((x1 - x0) / (bed - 10)))
    if n == 1:
        return [body]
    step = (x1 - x0) / n
    out = []
    for i in range(n):
        box = m3.Manifold.cube((step, bb[4] - bb[1] + 2, bb[5] - bb[2] + 2)).translate((x0 + i * step, bb[1] - 1, bb[2] - 1))
        out.append(body ^ box)
    return out


def write_stl(body, path: Path, to_origin: bool = True) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Binary STL of a manifold (moved to the origin for printing); returns its figures."""
    import numpy as np

    if to_origin:
        bb = body.bounding_box()
        body = body.translate((-bb[0], -bb[1], -bb[2]))
    mesh = body.to_mesh()
    v = np.asarray(mesh.vert_properties, dtype=np.float64)[:, :3]
    t = np.asarray(mesh.tri_verts, dtype=np.int64)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    nrm = np.cross(b - a, c - a)
    ln = np.linalg.norm(nrm, axis=1)
    ln[ln == 0] = 1.0
    nrm = nrm / ln[:, None]
    rec = np.zeros(len(t), dtype=[("n", "<f4", 3), ("v", "<f4", 9), ("attr", "<u2")])
    rec["n"] = nrm
    rec["v"] = np.hstack([a, b, c])
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"trickref dealer: hardware/cad/build.py".ljust(80, b" "))
        f.write(struct.pack("<I", len(t)))
        f.write(rec.tobytes())
    bb = body.bounding_box()
    return {"triangles": int(len(t)), "volume_cm3": round(body.volume() / 1000, 2),
            "size_mm": [round(bb[3] - bb[0], 1), round(bb[4] - bb[1], 1), round(bb[5] - bb[2], 1)]}


def build_stls(d: Dealer, out: Path, only: str | None = None) -> dict[str, dict[str, object]]:
    bed = d.v["cad.path.print_bed"]
    report: dict[str, dict[str, object]] = {}
    for stl, parts in sorted(d.printed().items()):
        if only and stl != only:
            continue
        body = part_manifold(parts[0])
        pieces = sections(body, bed)
        for i, piece in enumerate(pieces, 1):
            name = stl if len(pieces) == 1 else f"{stl}-{i}"
            fig = write_stl(piece, out / "stl" / f"{name}.stl")
            fig["print"] = len(parts)
            fig["parts"] = [p.name for p in parts]
            report[name] = fig
    return report


def build_assembly(d: Dealer, out: Path) -> dict[str, object]:
    import manifold3d as m3

    bodies = [part_manifold(p) if p.kind == "printed" else m3.Manifold.batch_boolean([solid_manifold(s, 24) for s in p.solids],
                                                                                    m3.OpType.Add) for p in d.parts]
    whole = m3.Manifold.compose(bodies)
    return write_stl(whole, out / "stl" / "assembly.stl", to_origin=False)


# ---- drawings -------------------------------------------------------------------------------------

GUIDE, DRIVE, OTHER, CARD = "#4a6fa5", "#b5533c", "#7a7a7a", "#2e8b57"
COLOURS = {"guide": GUIDE, "drive": DRIVE, "flap": "#c89b2c", "frame": OTHER, "sensor": "#8e44ad", "reader": "#8e44ad"}


def _setup():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "trickref-dealer"
    matplotlib.rcParams["font.size"] = 8
    import matplotlib.pyplot as plt

    return plt


def _draw_shape(ax, shape, colour: str, fill: bool, lw: float = 0.6, alpha: float = 0.35, **kw):  # type: ignore[no-untyped-def]
    from matplotlib.patches import Circle as MCircle
    from matplotlib.patches import Polygon as MPolygon

    if isinstance(shape, Circle):
        patch = MCircle((shape.cx, shape.cz), shape.r, fill=fill, fc=colour if fill else "none", ec=colour, lw=lw, alpha=alpha if fill else 1, **kw)
    else:
        patch = MPolygon(shape.pts, closed=True, fill=fill, fc=colour if fill else "none", ec=colour, lw=lw, alpha=alpha if fill else 1, **kw)
    ax.add_patch(patch)
    if fill:  # a crisp outline over the tint
        if isinstance(shape, Circle):
            ax.add_patch(MCircle((shape.cx, shape.cz), shape.r, fill=False, ec=colour, lw=lw))
        else:
            ax.add_patch(MPolygon(shape.pts, closed=True, fill=False, ec=colour, lw=lw))


def dim(ax, a: tuple[float, float], b: tuple[float, float], text: str, off: float = 0.0, vertical: bool = False,  # type: ignore[no-untyped-def]
        size: float = 7) -> None:
    """A dimension line between a and b (horizontal, or vertical), offset, with extension lines."""
    if vertical:
        x = a[0] + off
        ax.plot([a[0], x], [a[1], a[1]], lw=0.3, color="k")
        ax.plot([b[0], x], [b[1], b[1]], lw=0.3, color="k")
        ax.annotate("", (x, a[1]), (x, b[1]), arrowprops={"arrowstyle": "<->", "lw": 0.5, "shrinkA": 0, "shrinkB": 0})
        ax.text(x, (a[1] + b[1]) / 2, " " + text, rotation=90, va="center", ha="right", fontsize=size)
    else:
        z = a[1] + off
        ax.plot([a[0], a[0]], [a[1], z], lw=0.3, color="k")
        ax.plot([b[0], b[0]], [b[1], z], lw=0.3, color="k")
        ax.annotate("", (a[0], z), (b[0], z), arrowprops={"arrowstyle": "<->", "lw": 0.5, "shrinkA": 0, "shrinkB": 0})
        ax.text((a[0] + b[0]) / 2, z, text, ha="center", va="bottom", fontsize=size)


def _save(fig, out: Path, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / f"{name}.svg", metadata={"Date": None, "Creator": "hardware/cad/build.py"})
    fig.savefig(out / f"{name}.png", dpi=110, metadata={"Software": "hardware/cad/build.py"})
    return [f"{name}.svg", f"{name}.png"]


def _section(d: Dealer, ax, y: float = 0.0, x_range: tuple[float, float] | None = None) -> None:  # type: ignore[no-untyped-def]
    """Every part cut by the plane at y (filled), the rest seen beyond it (outline)."""
    for p in d.parts:
        for s in p.solids:
            b = s.shape.bounds()
            if x_range and (b[2] < x_range[0] or b[0] > x_range[1]):
                continue
            cut = s.y0 <= y <= s.y1
            _draw_shape(ax, s.shape, COLOURS.get(p.role, OTHER), fill=cut, lw=0.5 if cut else 0.25)


def _paths(d: Dealer, ax, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    for n in names:
        pts = d.paths[n].pts
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=CARD, lw=0.9, ls="--")


def drawing_side(d: Dealer, out: Path) -> list[str]:
    plt = _setup()
    v = d.v
    fig, ax = plt.subplots(figsize=(22, 7.5))
    _section(d, ax)
    _paths(d, ax, ["main", "dive-03", "loop", "dive-14"])
    ax.set_aspect("equal")
    # stations along the path, dimensioned from the throat (x = 0)
    stations = [("P", v["geometry.pickup_x"]), ("throat", 0.0), ("F1", v["geometry.f1_x"]), ("G", v["geometry.gate_x"]),
                ("F2", v["geometry.f2_x"]), ("window", v["geometry.window_x"]), ("belt", v["geometry.belt_x"]),
                ("pocket 0", d.pocket_x(0)), ("pocket 14", d.pocket_x(14)), ("E", v["geometry.end_x"]),
                ("R", v["cad.loop.nip_x"]), ("end", v["cad.loop.end_x"])]
    top = v["cad.loop.top_z"] + 40
    for i, (name, x) in enumerate(stations):
        z = top + 10 * (i % 4)
        ax.plot([x, x], [0, z], lw=0.25, color="k", ls=":")
        ax.text(x, z + 1, f"{name}\nx = {x:g}", ha="center", va="bottom", fontsize=6.5)
    dim(ax, (d.pocket_x(0), -5), (d.pocket_x(1), -5), f"pitch {v['geometry.pocket_pitch']:g}", off=-118)
    pk = d.pockets[0]
    dim(ax, (pk.cell[0] - 4, 0), (pk.cell[0] - 4, pk.floor_z), f"{-pk.floor_z:.1f}", off=-6, vertical=True)
    dim(ax, (v["cad.loop.end_x"] + 10, 0), (v["cad.loop.end_x"] + 10, v["cad.loop.top_z"]), f"top run {v['cad.loop.top_z']:g}",
        off=12, vertical=True)
    ax.set_title("Dealer, side section at y = 0 (x along the path from the throat, mm; z up from the path floor). "
                 "Blue: guides; red: rollers, bands; amber: flaps; grey: frame; green dashes: the card's path "
                 "(main, into pocket 3, into the trick pocket, round the loop). Seen beyond the cut: outlines.", fontsize=8)
    ax.set_xlim(-110, 760)
    ax.set_ylim(-135, top + 48)
    ax.grid(True, lw=0.15)
    names = _save(fig, out, "assembly-side")
    plt.close(fig)
    return names


def drawing_plan(d: Dealer, out: Path) -> list[str]:
    """From above: every solid's footprint (its x extent by its y range)."""
    plt = _setup()
    from matplotlib.patches import Rectangle

    fig, ax = plt.subplots(figsize=(22, 6))
    for p in d.parts:
        if p.role == "frame" and p.name.startswith(("loop-side", "band-frame")):
            continue
        for s in p.solids:
            b = s.shape.bounds()
            ax.add_patch(Rectangle((b[0], s.y0), b[2] - b[0], s.y1 - s.y0, fill=False, ec=COLOURS.get(p.role, OTHER), lw=0.4))
    hw = d.guide_hw
    ax.plot([-95, 720], [hw, hw], color=CARD, lw=0.5)
    ax.plot([-95, 720], [-hw, -hw], color=CARD, lw=0.5)
    dim(ax, (750, -hw), (750, hw), f"guides {2 * hw:g}", off=-10, vertical=True)
    by = d.v["cad.transport.band_y"]
    ax.text(380, by + 3, f"bands y = +-{by:g}", fontsize=7)
    ax.text(380, d.v["cad.pocket.finger_y"] + 3, f"flap fingers y = 0, +-{d.v['cad.pocket.finger_y']:g}", fontsize=7)
    ax.text(-90, -hw - 12, "players' side (pocket openings)", fontsize=8)
    ax.text(-90, 75, "back: servos, their shafts along y", fontsize=8)
    ax.set_aspect("equal")
    ax.set_xlim(-110, 770)
    ax.set_ylim(-60, 90)
    ax.set_title("Dealer from above (footprints of every part; the loop's side plates and the band frame left out)", fontsize=8)
    ax.grid(True, lw=0.15)
    names = _save(fig, out, "assembly-plan")
    plt.close(fig)
    return names


def drawing_feed(d: Dealer, out: Path) -> list[str]:
    plt = _setup()
    v = d.v
    fig, ax = plt.subplots(figsize=(13, 8))
    _section(d, ax, x_range=(-110, 170))
    _paths(d, ax, ["main"])
    r = d.reader
    from matplotlib.patches import Polygon as MPolygon

    ax.add_patch(MPolygon(r["field"].pts, closed=True, fc="#8e44ad", alpha=0.12, ec="#8e44ad", lw=0.4))
    c0, c1 = r["code"]
    ax.plot([c0, c1], [0.8, 0.8], color="k", lw=2.5)
    ax.text((c0 + c1) / 2, 2, "code", ha="center", fontsize=7)
    dim(ax, (r["x"] + 20, 0), (r["x"] + 20, -r["distance"]), f"{r['distance']:g} (GM65-S: 40..90)", off=8, vertical=True)
    dim(ax, (r["field_along"][0], 0), (r["field_along"][1], 0), f"field {r['field_along'][1] - r['field_along'][0]:.1f}", off=-8,
        size=6)
    xs = [("P", v["geometry.pickup_x"]), ("F1", v["geometry.f1_x"]), ("F2", v["geometry.f2_x"])]
    for (na, xa), (nb, xb) in zip(xs, xs[1:], strict=False):
        dim(ax, (xa, 32), (xb, 32), f"{na}-{nb} {xb - xa:g}", off=8)
    dim(ax, (0, 0), (v["geometry.window_x"], 0), f"throat to window (card's leading edge) {v['geometry.window_x']:g}", off=52)
    dim(ax, (-3, 0), (-3, v["cad.hopper.gate_gap"]), f"gate {v['cad.hopper.gate_gap']:g}", off=-10, vertical=True, size=6)
    dim(ax, (v["cad.hopper.back_wall_x"], -6), (0, -6), f"hopper {-v['cad.hopper.back_wall_x']:g}", off=-30)
    ax.text(v["geometry.f2_x"] + 30, -22, f"F2's lower side: two\n623ZZ at y = +-{v['cad.feed.f2_idler_y']:g}\n(outside the field)",
            ha="center", fontsize=6.5)
    ax.set_aspect("equal")
    ax.set_xlim(-110, 170)
    ax.set_ylim(-90, 95)
    ax.set_title("Feed section and reader, section at y = 0 (mm). The reader's field (violet) is clear of every part; "
                 "F2 grips the card at its edges", fontsize=8)
    ax.grid(True, lw=0.15)
    names = _save(fig, out, "detail-feed")
    plt.close(fig)
    return names


def drawing_pocket(d: Dealer, out: Path, k: int = 3) -> list[str]:
    plt = _setup()
    v = d.v
    pk = d.pockets[k]
    flap = d.flaps[k]
    x = pk.mouth_x
    fig, ax = plt.subplots(figsize=(10, 11))
    _section(d, ax, x_range=(x - 40, x + 40))
    _draw_shape(ax, flap.opened, "#c89b2c", fill=False, lw=0.8, ls="--")
    _paths(d, ax, [f"dive-{k:02d}", "main"])
    # the stack it must hold, drawn against the west wall
    stack = pk.count * d.t_max / math.cos(math.radians(v["cad.pocket.floor_slope"]))
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((pk.west_inner, pk.floor_z - 3), stack, d.card_len_max, fc=CARD, alpha=0.15, ec=CARD, lw=0.4))
    ax.text(pk.west_inner + stack / 2, pk.floor_z + 40, f"{pk.count} cards", rotation=90, ha="center", fontsize=7)
    dim(ax, (pk.west_inner, pk.floor_z - 8), (pk.fall_x, pk.floor_z - 8), f"{pk.fall_x - pk.west_inner:.1f}", off=-6)
    dim(ax, (x, 6), (flap.pivot[0], 6), f"{v['cad.pocket.pivot_dx']:g}", off=4)
    dim(ax, (x - v["cad.pocket.mouth_back"], 6), (x, 6), f"{v['cad.pocket.mouth_back']:g}", off=12)
    dim(ax, (x + 20, 0), (x + 20, pk.floor_z), f"{-pk.floor_z:.1f}", off=6, vertical=True)
    ax.annotate(f"mouth x = {x:g}", (x, 0), (x - 30, 22), fontsize=7, arrowprops={"arrowstyle": "->", "lw": 0.4})
    ax.annotate(f"flap raised {v['servo.flap_swing_deg']:g} deg (dashed)", flap.opened.pts[-1], (x - 38, 14), fontsize=7,
                arrowprops={"arrowstyle": "->", "lw": 0.4})
    ax.annotate(f"axle {v['cad.pocket.axle_d']:g} mm at ({flap.pivot[0]:g}, {flap.pivot[1]:g})", flap.pivot, (x + 8, 16),
                fontsize=7, arrowprops={"arrowstyle": "->", "lw": 0.4})
    ax.annotate(f"guide R {v['cad.pocket.chute_radius'] + d.half:.2f}", (pk.guide_centre[0] + 12, pk.guide_centre[1] + 11),
                (x + 14, -30), fontsize=7, arrowprops={"arrowstyle": "->", "lw": 0.4})
    ax.annotate("fall line", (pk.fall_x, pk.guide_centre[1] - 30), (x + 14, -50), fontsize=7,
                arrowprops={"arrowstyle": "->", "lw": 0.4})
    ax.set_aspect("equal")
    ax.set_xlim(x - 40, x + 45)
    ax.set_ylim(pk.floor_z - 20, 40)
    ax.set_title(f"Pocket {k} ({pk.target}) and its flap, section at y = 0 (mm)", fontsize=9)
    ax.grid(True, lw=0.15)
    names = _save(fig, out, f"detail-pocket-{k:02d}")
    plt.close(fig)
    return names


def drawing_part(d: Dealer, stl: str, parts: list[Part], out: Path) -> list[str]:
    """Three views of a printed part: side (x, z), top (x, y), end (y, z); bores dashed."""
    plt = _setup()
    from matplotlib.patches import Rectangle

    p0 = parts[0]
    b = [s.shape.bounds() for s in p0.solids]
    ox, oz = min(q[0] for q in b), min(q[1] for q in b)
    oy = p0.y_range()[0]
    # drawn in the part's own coordinates: its lowest corner at the origin
    p = Part(p0.name, p0.kind, p0.role, [Solid(s.shape.moved(-ox, -oz), s.y0 - oy, s.y1 - oy) for s in p0.solids],
             [Solid(h.shape.moved(-ox, -oz), h.y0 - oy, h.y1 - oy) for h in p0.holes], p0.stl, p0.item, p0.note)
    b = [s.shape.bounds() for s in p.solids]
    x0, z0, x1, z1 = min(q[0] for q in b), min(q[1] for q in b), max(q[2] for q in b), max(q[3] for q in b)
    y0, y1 = p.y_range()
    fig, axs = plt.subplots(1, 3, figsize=(15, 5.5), gridspec_kw={"width_ratios": [max(x1 - x0, 1), max(x1 - x0, 1), max(y1 - y0, 1)]})
    side, top, end = axs
    ymid = -oy if y0 <= -oy <= y1 else (y0 + y1) / 2  # the path's centre line, if the part crosses it
    for s in p.solids:
        _draw_shape(side, s.shape, GUIDE, fill=s.y0 <= ymid <= s.y1, lw=0.6 if s.y0 <= ymid <= s.y1 else 0.3)
        bb = s.shape.bounds()
        top.add_patch(Rectangle((bb[0], s.y0), bb[2] - bb[0], s.y1 - s.y0, fill=True, fc=GUIDE, alpha=0.2, ec=GUIDE, lw=0.5))
        end.add_patch(Rectangle((s.y0, bb[1]), s.y1 - s.y0, bb[3] - bb[1], fill=True, fc=GUIDE, alpha=0.2, ec=GUIDE, lw=0.5))
    for h in p.holes:
        if not isinstance(h.shape, Circle):
            continue
        side.add_patch(__import__("matplotlib.patches", fromlist=["Circle"]).Circle((h.shape.cx, h.shape.cz), h.shape.r, fill=False,
                                                                                       ec="k", lw=0.6))
        side.plot([h.shape.cx - h.shape.r * 1.6, h.shape.cx + h.shape.r * 1.6], [h.shape.cz, h.shape.cz], lw=0.3, color="k")
        side.plot([h.shape.cx, h.shape.cx], [h.shape.cz - h.shape.r * 1.6, h.shape.cz + h.shape.r * 1.6], lw=0.3, color="k")
        side.text(h.shape.cx + h.shape.r, h.shape.cz + h.shape.r, f"Ø{2 * h.shape.r:g}\n({h.shape.cx:.1f}, {h.shape.cz:.1f})",
                  fontsize=6)
        lo, hi = max(h.y0, y0), min(h.y1, y1)
        top.add_patch(Rectangle((h.shape.cx - h.shape.r, lo), 2 * h.shape.r, hi - lo, fill=False, ec="k", lw=0.5, ls="--"))
        end.add_patch(Rectangle((lo, h.shape.cz - h.shape.r), hi - lo, 2 * h.shape.r, fill=False, ec="k", lw=0.5, ls="--"))
    spans = sorted({(round(s.y0, 2), round(s.y1, 2)) for s in p.solids})
    if 1 < len(spans) <= 8:  # where each slab of the part lies across (y)
        for ya, yb in spans:
            end.text((ya + yb) / 2, z1 + 0.02 * max(z1 - z0, 10), f"{ya:g}..{yb:g}", ha="center", va="bottom", fontsize=6,
                     rotation=90 if yb - ya < 0.08 * (y1 - y0) else 0)
    pad = 0.12 * max(x1 - x0, z1 - z0, y1 - y0, 10)
    dim(side, (x0, z0), (x1, z0), f"{x1 - x0:.1f}", off=-pad * 0.6)
    dim(side, (x1, z0), (x1, z1), f"{z1 - z0:.1f}", off=pad * 0.6, vertical=True)
    dim(top, (x0, y0), (x1, y0), f"{x1 - x0:.1f}", off=-pad * 0.6)
    dim(top, (x1, y0), (x1, y1), f"{y1 - y0:.1f}", off=pad * 0.6, vertical=True)
    dim(end, (y0, z0), (y1, z0), f"{y1 - y0:.1f}", off=-pad * 0.6)
    dim(end, (y1, z0), (y1, z1), f"{z1 - z0:.1f}", off=pad * 0.6, vertical=True)
    # every edge of every slab as a tick: the drawing gives each one's position
    def edges(vals: list[float]) -> list[float]:
        out: list[float] = []
        for x in sorted(vals):
            if not out or x - out[-1] > 0.6:
                out.append(x)
        return out

    xs = edges([q for s in p.solids for q in (s.shape.bounds()[0], s.shape.bounds()[2])])
    ys = edges([q for s in p.solids for q in (s.y0, s.y1)])
    zs = edges([q for s in p.solids for q in (s.shape.bounds()[1], s.shape.bounds()[3])])
    for ax, hor, ver in ((side, xs, zs), (top, xs, ys), (end, ys, zs)):
        if len(hor) <= 24:
            ax.set_xticks(hor, [f"{x:.1f}" for x in hor], rotation=90, fontsize=5.5)
        if len(ver) <= 24:
            ax.set_yticks(ver, [f"{x:.1f}" for x in ver], fontsize=5.5)
    for ax, (a0, a1, b0, b1), title in ((side, (x0, x1, z0, z1), f"side: section at y = {ymid:g} filled, the rest outlined"),
                                        (top, (x0, x1, y0, y1), "top (x, y across)"),
                                        (end, (y0, y1, z0, z1), "end (y, z), looking along the path")):
        ax.set_aspect("equal")
        ax.set_xlim(a0 - pad, a1 + pad * 1.6)
        ax.set_ylim(b0 - pad * 1.4, b1 + pad)
        ax.set_title(title, fontsize=8)
        ax.grid(True, lw=0.15)
    n = len(parts)
    note = p.note if n == 1 else f"{n} alike: " + ", ".join(q.name for q in parts[:4]) + (" ..." if n > 4 else "")
    fig.suptitle(f"{stl}.stl: print {n}. {note}\n(mm, from the part's lowest corner, as it sits in the machine: x along the "
                 f"path, y across, z up; the end view labels each slab's y span; PETG, 0.2 mm layers, 4 perimeters; "
                 f"bores printed 0.2 mm under size and drilled)", fontsize=8)
    names = _save(fig, out, f"part-{stl}")
    plt.close(fig)
    return names


def build_drawings(d: Dealer, out: Path, only: str | None = None) -> list[str]:
    files: list[str] = []
    if not only:
        files += drawing_side(d, out) + drawing_plan(d, out) + drawing_feed(d, out) + drawing_pocket(d, out, 3)
        files += drawing_pocket(d, out, len(d.pockets) - 1)
    for stl, parts in sorted(d.printed().items()):
        if only and stl != only:
            continue
        files += drawing_part(d, stl, parts, out)
    return files


def source_hash() -> str:
    """The hash of what the output is made from: the table's entries the model reads, the pocket
    order and capacities, and the model's code (another section of the table may change freely)."""
    from dealer_model import firmware_config, load_values

    v = load_values()
    used = {k: x for k, x in sorted(v.items())
            if k.startswith(("geometry.", "cad.", "sorter.")) or k in ("servo.flap_swing_deg", "feed.accel", "feed.v_max")}
    fw = firmware_config()
    used["firmware"] = [sorted(fw.POCKET.items()), sorted(fw.POCKET_CAP.items()), fw.SEAT_POCKET_CAP, fw.SEAT_COUNT,
                        fw.LOOP_CAPACITY]
    h = hashlib.sha256(json.dumps(used, sort_keys=True, default=str).encode())
    here = Path(__file__).resolve().parent
    for f in (here / "dealer_model.py", here / "dealer_geom.py", here / "build.py"):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only", help="one STL name (e.g. flap)")
    ap.add_argument("--no-stl", action="store_true")
    ap.add_argument("--no-drawings", action="store_true")
    args = ap.parse_args(argv)
    d = Dealer()
    bad = [f for f in dealer_checks.all_checks(d) if not f.ok]
    if bad:
        for f in bad:
            print(f"FAIL {f.check}: {f.subject}: {f.value} (limit {f.limit})", file=sys.stderr)
        print("hardware/cad/build.py: the model fails its checks; nothing written", file=sys.stderr)
        return 1
    manifest: dict[str, object] = {"source": source_hash()}
    if not args.no_stl:
        manifest["stl"] = build_stls(d, args.out, args.only)
        if not args.only:
            manifest["assembly"] = build_assembly(d, args.out)
    if not args.no_drawings:
        manifest["drawings"] = build_drawings(d, args.out / "drawings", args.only)
    if not args.only:
        (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    n_stl = len(manifest.get("stl", {}))  # type: ignore[arg-type]
    print(f"hardware/cad/build.py: {n_stl} STL, {len(manifest.get('drawings', []))} drawing files in {args.out}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
