//! Overlap and contact between two triangles: the separating-axis test over
//! the face normals, the edge-edge crosses and the in-plane edge normals.

use super::Contact;
use crate::closest::{closest_point_segment, closest_point_triangle, closest_points_segment_segment, ClosestPoints};
use crate::math::{Point, Real, UnitVector, Vector};
use crate::shape::Triangle;

/// A candidate axis `u x v` is skipped when `|u x v| <= AXIS_MIN_SINE |u| |v|`
/// (the sine of the angle between `u` and `v`; scale-free). Below it the
/// cross product is the `~1e-7 |u| |v|` rounding of its components, and for
/// a face normal the triangle is a segment to within `1e-6` of its size.
/// Any axis that is kept is a valid test direction, however noisy its
/// direction: both triangles are projected onto the same rounded vector.
const AXIS_MIN_SINE: Real = 1e-6;

/// The touching band, relative to the pair's extent (the largest coordinate
/// of the six vertices measured from A's first vertex). Projections carry a
/// rounding error of about `4e-7` of that extent, so a gap below
/// `TOUCH_REL * extent` counts as touching (inclusive overlap), and a
/// reported separation is a true one.
const TOUCH_REL: Real = 1e-6;

/// Support points within this fraction of the extent of the deepest one
/// form the supporting feature (an edge or the whole face) whose point
/// nearest the other triangle is the witness.
const SUPPORT_TIE_REL: Real = 1e-5;

/// Which candidate axis won: it decides how the witness points are found.
#[derive(Clone, Copy, Debug)]
enum Axis {
    /// A's face normal.
    FaceA,
    /// B's face normal.
    FaceB,
    /// The cross of A's edge `i` and B's edge `j`.
    Edges(usize, usize),
    /// An in-plane edge normal `n x e` (coplanar or degenerate pairs).
    InPlane,
    /// Both triangles are segments (or points): their closest points.
    Points(Vector, Vector),
}

/// The least-overlap axis: unit `normal` from A to B and the overlap on it.
#[derive(Clone, Copy, Debug)]
struct Least {
    axis: Axis,
    normal: Vector,
    depth: Real,
}

/// Both triangles relative to A's first vertex, where projections are
/// computed: vertices at `1e4` with unit-sized triangles keep their local
/// precision (`v - origin` is exact for nearby coordinates, Sterbenz).
struct Frame {
    origin: Point,
    a: [Vector; 3],
    b: [Vector; 3],
    /// The largest coordinate of the six vertices (the rounding scale).
    extent: Real,
    /// `TOUCH_REL * extent`: the touching band and the axis tie band.
    band: Real,
}

impl Frame {
    fn new(a: &Triangle, b: &Triangle) -> Self {
        let origin = a.a;
        let a = a.vertices().map(|p| p - origin);
        let b = b.vertices().map(|p| p - origin);
        let extent = a.iter().chain(&b).fold(0.0, |m: Real, v| m.max(v.amax()));
        Self { origin, a, b, extent, band: TOUCH_REL * extent }
    }
}

/// A triangle's edges (edge `i` runs from vertex `i` to `i + 1`), their
/// lengths, and its normal `e_0 x e_1` with that normal's length.
struct Edges {
    e: [Vector; 3],
    len: [Real; 3],
    n: Vector,
    n_len: Real,
}

impl Edges {
    fn new(v: &[Vector; 3]) -> Self {
        let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
        let n = e[0].cross(&e[1]);
        Self { e, len: e.map(|x| x.norm()), n, n_len: n.norm() }
    }
}

/// The running separating-axis test.
struct Sat<'f> {
    f: &'f Frame,
    best: Option<Least>,
}

impl Sat<'_> {
    /// Tests the axis `l` (`ref_len` is `|u| |v|` for `l = u x v`): `None`
    /// when it separates the triangles by more than the band, `Some(false)`
    /// when it is skipped as degenerate, `Some(true)` when they overlap on it.
    ///
    /// On the unit axis `L = l / |l|`, moving B by `up = a_hi - b_lo` along
    /// `+L` or by `down = b_hi - a_lo` along `-L` separates the projections;
    /// the smaller is the overlap. A later axis replaces the best only when
    /// shallower by more than the band, so earlier axes (faces first) win
    /// rounding ties.
    fn test(&mut self, l: Vector, ref_len: Real, axis: Axis) -> Option<bool> {
        let len = l.norm();
        if len <= AXIS_MIN_SINE * ref_len {
            return Some(false);
        }
        let l = l / len;
        let (alo, ahi) = interval(&self.f.a, &l);
        let (blo, bhi) = interval(&self.f.b, &l);
        let (up, down) = (ahi - blo, bhi - alo);
        if up < -self.f.band || down < -self.f.band {
            return None;
        }
        let (normal, depth) = if up <= down { (l, up) } else { (-l, down) };
        let depth = depth.max(0.0);
        if self.best.is_none_or(|b| depth < b.depth - self.f.band) {
            self.best = Some(Least { axis, normal, depth });
        }
        Some(true)
    }
}

/// `[min, max]` of the vertices projected onto `l`.
#[inline]
fn interval(v: &[Vector; 3], l: &Vector) -> (Real, Real) {
    let (p, q, r) = (v[0].dot(l), v[1].dot(l), v[2].dot(l));
    (p.min(q).min(r), p.max(q).max(r))
}

/// The least-overlap axis, `None` when an axis separates the triangles.
///
/// Axes, in order: the face normals `n_a = e_a0 x e_a1`, `n_b`; the nine
/// edge crosses `e_ai x e_bj`; the in-plane edge normals `n_a x e_ai`,
/// `n_b x e_bj`; and, when one triangle is degenerate (its normal skipped),
/// the other's normal crossed with its edges. For non-coplanar triangles the
/// face normals and edge crosses are the face normals of the Minkowski
/// difference `A - B`, so the least overlap over them is the penetration
/// depth (Ericson 4.4 and 5.2.1; Gottschalk et al. 1996); for coplanar ones
/// the difference is flat and the in-plane normals are its edge normals,
/// needed to separate. Every axis is a valid direction (the overlap on any
/// direction is at least the penetration depth), so extra ones never change
/// the verdict or the depth. Two degenerate triangles are compared as the
/// segments they collapse to.
fn least_overlap(f: &Frame) -> Option<Least> {
    let (ta, tb) = (Edges::new(&f.a), Edges::new(&f.b));
    let mut sat = Sat { f, best: None };
    let a_face = sat.test(ta.n, ta.len[0] * ta.len[1], Axis::FaceA)?;
    let b_face = sat.test(tb.n, tb.len[0] * tb.len[1], Axis::FaceB)?;
    if !a_face && !b_face {
        return segments(f);
    }
    for i in 0..3 {
        for j in 0..3 {
            sat.test(ta.e[i].cross(&tb.e[j]), ta.len[i] * tb.len[j], Axis::Edges(i, j))?;
        }
    }
    // In-plane normals n x e: of a triangle's own edges, and of the other's
    // edges when the other is degenerate (a segment in the plane).
    for (t, face, other, other_face) in [(&ta, a_face, &tb, b_face), (&tb, b_face, &ta, a_face)] {
        if !face {
            continue;
        }
        for i in 0..3 {
            sat.test(t.n.cross(&t.e[i]), t.n_len * t.len[i], Axis::InPlane)?;
            if !other_face {
                sat.test(t.n.cross(&other.e[i]), t.n_len * other.len[i], Axis::InPlane)?;
            }
        }
    }
    sat.best
}

/// Two degenerate triangles, each the segment of its longest edge: they
/// touch when their closest points are within the band. Segments have no
/// inside, so the depth is 0; the normal is the crossing's `d_a x d_b`, else
/// (parallel) a direction across the longer segment, else (two points) the
/// gap's, oriented from A to B.
fn segments(f: &Frame) -> Option<Least> {
    let longest = |v: &[Vector; 3]| {
        let e = Edges::new(v);
        let i = (0..3).max_by(|&i, &j| e.len[i].total_cmp(&e.len[j])).unwrap_or(0);
        (Point::from(v[i]), Point::from(v[(i + 1) % 3]))
    };
    let ((p1, q1), (p2, q2)) = (longest(&f.a), longest(&f.b));
    let ClosestPoints { point_a: s, point_b: t } = closest_points_segment_segment(&p1, &q1, &p2, &q2);
    let gap = t - s;
    if gap.norm() > f.band {
        return None;
    }
    let (d1, d2) = (q1 - p1, q2 - p2);
    let cross = d1.cross(&d2);
    let longer = if d1.norm_squared() >= d2.norm_squared() { d1 } else { d2 };
    let n = if cross.norm() > AXIS_MIN_SINE * d1.norm() * d2.norm() {
        cross
    } else if let Some(dir) = longer.try_normalize(0.0) {
        // Parallel (or a point and a segment): any direction across the
        // segment separates; the gap's sideways part when it is clearly one.
        let lateral = gap - dir * gap.dot(&dir);
        if lateral.norm() > 0.5 * gap.norm() {
            lateral
        } else {
            dir.cross(&Vector::ith(dir.iamin(), 1.0))
        }
    } else if gap.norm() > 0.0 {
        gap
    } else {
        Vector::z()
    };
    let n = n.normalize();
    let toward_b = f.b.iter().sum::<Vector>() - f.a.iter().sum::<Vector>();
    let flip = gap.dot(&n) < 0.0 || (gap.dot(&n) == 0.0 && toward_b.dot(&n) < 0.0);
    let normal = if flip { -n } else { n };
    Some(Least { axis: Axis::Points(s.coords, t.coords), normal, depth: 0.0 })
}

/// The point of `v`'s supporting feature along `d` (the vertices within
/// `tie` of the largest `v . d`: a vertex, an edge or the face) nearest
/// `target`.
fn support_point(v: &[Vector; 3], d: &Vector, tie: Real, target: &Vector) -> Vector {
    let p = v.map(|x| x.dot(d));
    let top = p[0].max(p[1]).max(p[2]);
    let on = p.map(|x| x >= top - tie);
    let pt = |k: usize| Point::from(v[k]);
    let target = Point::from(*target);
    match on {
        [true, false, false] => v[0],
        [false, true, false] => v[1],
        [false, false, true] => v[2],
        [true, true, true] => closest_point_triangle(&target, &Triangle { a: pt(0), b: pt(1), c: pt(2) }).coords,
        _ => {
            // Two on: the edge opposite the one vertex off.
            let off = on.iter().position(|&x| !x).unwrap_or(0);
            closest_point_segment(&target, &pt((off + 1) % 3), &pt((off + 2) % 3)).coords
        }
    }
}

/// True when triangles A and B intersect (touching counts).
///
/// The separating-axis test of [`contact_triangle_triangle`]: `true` exactly
/// when that returns `Some`. Pairs apart by less than `1e-6` of the pair's
/// extent (the largest coordinate of the six vertices measured from A's
/// first vertex) on every candidate axis count as touching; their distance
/// is then a small multiple of that (at most `1.6e-6` of the extent over the
/// 360,000 random pairs of the tests). Degenerate triangles are the segment
/// or point they collapse to (a normal whose sine is below `1e-6` is
/// skipped).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{intersects_triangle_triangle, Point, Triangle};
/// let a = Triangle::new(Point::new(-1.0, -1.0, 0.0), Point::new(1.0, -1.0, 0.0), Point::new(0.0, 1.0, 0.0));
/// let b = Triangle::new(Point::new(0.0, 0.0, -1.0), Point::new(0.0, 0.0, 1.0), Point::new(0.0, 2.0, 0.0));
/// assert!(intersects_triangle_triangle(&a, &b));
/// ```
#[must_use]
pub fn intersects_triangle_triangle(a: &Triangle, b: &Triangle) -> bool {
    least_overlap(&Frame::new(a, b)).is_some()
}

/// The contact between triangles A and B (two-sided surfaces), `None` when
/// they are apart (exactly when [`intersects_triangle_triangle`] is false).
///
/// Separating-axis test (Ericson, Real-Time Collision Detection, 5.2.1 and
/// 4.4; Akenine-Möller's triangle-triangle axes): on a unit axis `L` the
/// triangles project to `[a_lo, a_hi]` and `[b_lo, b_hi]`; moving B by
/// `a_hi - b_lo` along `+L` or by `b_hi - a_lo` along `-L` separates them,
/// and the smaller is the overlap on `L`. The contact is the axis of least
/// overlap over the face normals, the nine edge crosses and the in-plane
/// edge normals `n x e` (see below), oriented from A to B; `depth` is that
/// overlap, the penetration depth: moving B by `depth * normal` separates
/// the triangles (to touching).
///
/// - Axes `u x v` with `|u x v| <= 1e-6 |u| |v|` are skipped (degenerate).
/// - Gaps below `1e-6` of the pair's extent count as touching (`depth = 0`);
///   a later axis replaces an earlier one only when shallower by more than
///   that band, so face normals win ties.
/// - Coplanar triangles that overlap touch with `depth ≈ 0` along the face
///   normal (a flat shape has no inside); the in-plane normals decide
///   whether they overlap at all.
/// - Degenerate triangles act as the segment or point they collapse to; two
///   of them give `depth = 0` at their closest points.
///
/// Witness points (`point_a - point_b = depth * normal` up to rounding):
/// - A's face normal: `point_b` is B's deepest point along `-normal` (a
///   vertex, or for a supporting edge or face its point nearest A's
///   centroid), `point_a = point_b + depth * normal` (on A's plane);
/// - B's face normal: symmetrically, `point_a` is A's deepest point along
///   `normal`, `point_b = point_a - depth * normal`;
/// - edge cross `e_ai x e_bj`: the closest points of those two edges
///   (Ericson 5.1.9), whose difference is `depth * normal`; when it is not
///   (to `1e-5` of the extent: the axis won a near-tie but those edges do
///   not cross seen along it), as for A's face normal;
/// - in-plane normals: as for A's face normal.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_triangle_triangle, Point, Triangle};
/// let a = Triangle::new(Point::new(-1.0, -1.0, 0.0), Point::new(1.0, -1.0, 0.0), Point::new(0.0, 1.0, 0.0));
/// let b = Triangle::new(Point::new(0.0, 0.0, -0.25), Point::new(1.0, 0.0, 1.0), Point::new(-1.0, 0.0, 1.0));
/// let c = contact_triangle_triangle(&a, &b).unwrap();
/// assert!((c.depth - 0.25).abs() < 1e-6 && c.normal.z > 0.999);
/// ```
#[must_use]
pub fn contact_triangle_triangle(a: &Triangle, b: &Triangle) -> Option<Contact> {
    let f = Frame::new(a, b);
    let least = least_overlap(&f)?;
    let (n, depth) = (least.normal, least.depth);
    let tie = SUPPORT_TIE_REL * f.extent;
    let centroid = |v: &[Vector; 3]| v.iter().sum::<Vector>() / 3.0;
    let deepest_of_b = || {
        let pb = support_point(&f.b, &-n, tie, &centroid(&f.a));
        (pb + n * depth, pb)
    };
    let (pa, pb) = match least.axis {
        Axis::FaceB => {
            let pa = support_point(&f.a, &n, tie, &centroid(&f.b));
            (pa, pa - n * depth)
        }
        Axis::FaceA | Axis::InPlane => deepest_of_b(),
        Axis::Edges(i, j) => {
            let edge = |v: &[Vector; 3], k: usize| (Point::from(v[k]), Point::from(v[(k + 1) % 3]));
            let ((p1, q1), (p2, q2)) = (edge(&f.a, i), edge(&f.b, j));
            let ClosestPoints { point_a: s, point_b: t } = closest_points_segment_segment(&p1, &q1, &p2, &q2);
            // The edges realise the depth when they cross seen along the
            // normal; a near-tie with another axis can pick a pair that
            // does not (their closest points then lie apart sideways).
            if ((s - t) - n * depth).norm() <= tie {
                (s.coords, t.coords)
            } else {
                deepest_of_b()
            }
        }
        Axis::Points(s, t) => (s, t),
    };
    Some(Contact { point_a: f.origin + pa, point_b: f.origin + pb, normal: UnitVector::new_unchecked(n), depth })
}
