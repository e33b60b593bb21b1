"""Plane geometry for the dealer's model: the side section (x along the path, z up).

The dealer is a 2.5D machine: every part is a profile in the side plane (x, z) extruded across
the path over a y range, or a cylinder whose axis runs across the path (rollers, shafts,
bearings). So the clearance checks are exact plane geometry on profiles whose y ranges overlap,
and need nothing but the standard library. Circles stay circles (a roller's nip is a tangent).

Shapes: ``Poly`` (a simple polygon, any winding, not self-intersecting) and ``Circle``.
``distance(a, b)`` is the gap between two shapes: 0 when they touch or overlap, and
``depth(a, b)`` how far a circle reaches into the other shape (for nips that press a card).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class Poly:
    pts: tuple[Point, ...]

    def moved(self, dx: float = 0.0, dz: float = 0.0) -> Poly:
        return Poly(tuple((x + dx, z + dz) for x, z in self.pts))

    def rotated(self, cx: float, cz: float, deg: float) -> Poly:
        return Poly(tuple(rotate_point(p, (cx, cz), deg) for p in self.pts))

    def mirrored_x(self, x0: float) -> Poly:
        return Poly(tuple((2 * x0 - x, z) for x, z in reversed(self.pts)))

    def bounds(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.pts]
        zs = [p[1] for p in self.pts]
        return min(xs), min(zs), max(xs), max(zs)

    def edges(self) -> Iterable[tuple[Point, Point]]:
        n = len(self.pts)
        for i in range(n):
            yield self.pts[i], self.pts[(i + 1) % n]

    def area(self) -> float:
        """Signed area (counter-clockwise positive)."""
        return 0.5 * sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges())


@dataclass(frozen=True)
class Circle:
    cx: float
    cz: float
    r: float

    def moved(self, dx: float = 0.0, dz: float = 0.0) -> Circle:
        return Circle(self.cx + dx, self.cz + dz, self.r)

    def rotated(self, cx: float, cz: float, deg: float) -> Circle:
        x, z = rotate_point((self.cx, self.cz), (cx, cz), deg)
        return Circle(x, z, self.r)

    def mirrored_x(self, x0: float) -> Circle:
        return Circle(2 * x0 - self.cx, self.cz, self.r)

    def bounds(self) -> tuple[float, float, float, float]:
        return self.cx - self.r, self.cz - self.r, self.cx + self.r, self.cz + self.r


Shape = Poly | Circle


def rect(x0: float, z0: float, x1: float, z1: float) -> Poly:
    return Poly(((x0, z0), (x1, z0), (x1, z1), (x0, z1)))


def rotate_point(p: Point, c: Point, deg: float) -> Point:
    a = math.radians(deg)
    dx, dz = p[0] - c[0], p[1] - c[1]
    return c[0] + dx * math.cos(a) - dz * math.sin(a), c[1] + dx * math.sin(a) + dz * math.cos(a)


def arc(cx: float, cz: float, r: float, a0: float, a1: float, step: float = 3.0) -> list[Point]:
    """Points on a circle from angle a0 to a1 (degrees, counter-clockwise from +x), both ends."""
    n = max(1, math.ceil(abs(a1 - a0) / step))
    return [(cx + r * math.cos(math.radians(a0 + (a1 - a0) * i / n)),
             cz + r * math.sin(math.radians(a0 + (a1 - a0) * i / n))) for i in range(n + 1)]


def point_segment(p: Point, a: Point, b: Point) -> float:
    ax, az = a
    dx, dz = b[0] - ax, b[1] - az
    L2 = dx * dx + dz * dz
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - az) * dz) / L2))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (az + t * dz))


def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """True if segment ab and cd intersect (touching counts)."""
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    if ((o1 > 0) != (o2 > 0) or o1 == 0 or o2 == 0) and ((o3 > 0) != (o4 > 0) or o3 == 0 or o4 == 0):
        # collinear or touching cases: fall back to the distance test
        if 0 in (o1, o2, o3, o4):
            return segment_segment(a, b, c, d) < 1e-12
        return True
    return False


def segment_segment(a: Point, b: Point, c: Point, d: Point) -> float:
    if (_orient(a, b, c) > 0) != (_orient(a, b, d) > 0) and (_orient(c, d, a) > 0) != (_orient(c, d, b) > 0):
        return 0.0
    return min(point_segment(a, c, d), point_segment(b, c, d), point_segment(c, a, b), point_segment(d, a, b))


def inside(p: Point, poly: Poly) -> bool:
    """Point strictly inside the polygon (even-odd rule)."""
    x, z = p
    hit = False
    for (x0, z0), (x1, z1) in poly.edges():
        if (z0 > z) != (z1 > z):
            xc = x0 + (z - z0) * (x1 - x0) / (z1 - z0)
            if xc > x:
                hit = not hit
    return hit


def _poly_poly(a: Poly, b: Poly) -> float:
    if inside(a.pts[0], b) or inside(b.pts[0], a):
        return 0.0
    best = math.inf
    for e in a.edges():
        for f in b.edges():
            best = min(best, segment_segment(e[0], e[1], f[0], f[1]))
            if best == 0.0:
                return 0.0
    return best


def _circle_poly(c: Circle, p: Poly) -> float:
    if inside((c.cx, c.cz), p):
        return 0.0
    d = min(point_segment((c.cx, c.cz), e[0], e[1]) for e in p.edges())
    return max(0.0, d - c.r)


def distance(a: Shape, b: Shape) -> float:
    """The gap between two shapes (0 if they touch or overlap)."""
    if isinstance(a, Circle) and isinstance(b, Circle):
        return max(0.0, math.hypot(a.cx - b.cx, a.cz - b.cz) - a.r - b.r)
    if isinstance(a, Circle):
        assert isinstance(b, Poly)
        return _circle_poly(a, b)
    if isinstance(b, Circle):
        return _circle_poly(b, a)
    return _poly_poly(a, b)


def polyline_distance(shape: Shape, line: Sequence[Point]) -> float:
    """Signed-free gap between a shape and a polyline (0 if the line touches or enters it)."""
    if isinstance(shape, Circle):
        c = (shape.cx, shape.cz)
        d = min(point_segment(c, line[i], line[i + 1]) for i in range(len(line) - 1))
        return max(0.0, d - shape.r)
    if any(inside(p, shape) for p in line):
        return 0.0
    best = math.inf
    for i in range(len(line) - 1):
        for e in shape.edges():
            best = min(best, segment_segment(line[i], line[i + 1], e[0], e[1]))
    return best


def centre_distance(shape: Shape, line: Sequence[Point]) -> float:
    """How far the polyline passes from the shape, as a signed figure for circles: the distance
    from the circle's centre to the line minus its radius (negative: the line enters it)."""
    if isinstance(shape, Circle):
        c = (shape.cx, shape.cz)
        return min(point_segment(c, line[i], line[i + 1]) for i in range(len(line) - 1)) - shape.r
    return polyline_distance(shape, line)


def polyline_length(line: Sequence[Point]) -> float:
    return sum(math.hypot(line[i + 1][0] - line[i][0], line[i + 1][1] - line[i][1]) for i in range(len(line) - 1))


def at_length(line: Sequence[Point], s: float) -> Point:
    """The point of the polyline at arc length s from its start (clamped)."""
    for i in range(len(line) - 1):
        (x0, z0), (x1, z1) = line[i], line[i + 1]
        seg = math.hypot(x1 - x0, z1 - z0)
        if s <= seg or i == len(line) - 2:
            t = 0.0 if seg == 0 else max(0.0, min(1.0, s / seg))
            return x0 + t * (x1 - x0), z0 + t * (z1 - z0)
        s -= seg
    return line[-1]


def project_length(line: Sequence[Point], p: Point) -> float:
    """Arc length along the polyline of the point nearest to p."""
    best, best_s, run = math.inf, 0.0, 0.0
    for i in range(len(line) - 1):
        a, b = line[i], line[i + 1]
        dx, dz = b[0] - a[0], b[1] - a[1]
        L2 = dx * dx + dz * dz
        seg = math.sqrt(L2)
        t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dz) / L2))
        d = math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dz))
        if d < best:
            best, best_s = d, run + t * seg
        run += seg
    return best_s


def min_bend_radius(line: Sequence[Point], span: float = 6.0) -> float:
    """The tightest radius the polyline bends through: the circumradius of points ``span`` mm
    apart along it (a card following the guides bends at least this tightly)."""
    total = polyline_length(line)
    best = math.inf
    s = span
    while s + span <= total:
        a, b, c = at_length(line, s - span), at_length(line, s), at_length(line, s + span)
        area2 = abs(_orient(a, b, c))
        if area2 > 1e-9:
            ab = math.dist(a, b)
            bc = math.dist(b, c)
            ca = math.dist(c, a)
            best = min(best, ab * bc * ca / (2 * area2))
        s += 1.0
    return best


def bbox_gap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Gap between two boxes (x0, z0, x1, z1): a lower bound of the gap between what they hold."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dz = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return math.hypot(dx, dz)


def line_bounds(line: Sequence[Point]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in line]
    zs = [p[1] for p in line]
    return min(xs), min(zs), max(xs), max(zs)
