//! Manifolds whose points come from clipping against a face: capsule
//! against box or triangle, box against triangle.

use super::capsule_triangle::contact_or_distance;
use super::clip::{clip_to_sides, triangle_sides, Polygon};
use super::feature::{box_support, FEATURE_SINE};
use super::manifold::{single, ContactManifold, Gathered, ManifoldPoint};
use super::manifold_round::{contact_within, contact_within_found, core_normal};
use super::obb_triangle::{
    contact_or_gap, cross3, dot3, local_vertices, max3, min3, speculative_normal_obb_triangle, AxisKind, Gap, Overlap,
};
use super::{capsule_obb, Contact};
use crate::closest::{closest_points_segment_segment, face_normal};
use crate::distance::{distance_capsule_obb, distance_capsule_triangle, ShapeDistance};
use crate::gjk::distance_convex;
use crate::math::{Point, Real, UnitVector, Vector};
use crate::relative::about;
use crate::shape::{Capsule, Obb, Triangle};

/// A contact normal within this cosine of a face normal is that face's
/// normal: the face is the reference face (an angle of 1e-3 rad). Resting
/// contacts have exactly the face's normal (the closest or deepest point is
/// in the face's region); a tilted one is an edge or vertex contact, whose
/// own normal is kept.
pub(super) const FACE_COSINE: Real = 0.999_999_5;

impl Gathered {
    /// The manifold of the gathered points with the reference face's normal
    /// `normal` (from A to B), with the single contact `c` (id 0) added when
    /// clipping left none, or left only speculative points of shapes that
    /// touch (a manifold has a point of depth `>= 0` exactly when the shapes
    /// touch), or, for shapes apart, left only points farther apart than `c`
    /// by more than rounding (the deepest point of a speculative manifold is
    /// the shapes' closest points: a normal
    /// tilted within 1e-3 rad of the face's can put the closest points
    /// beyond the face's side planes, where clipping cuts them away). `c`'s
    /// normal is within 1e-3 rad of `normal`; its point is re-expressed along
    /// `normal` (`depth = (point_a - point_b) . normal`,
    /// `point_a = point_b + depth normal`, moving `point_a` by at most
    /// `1e-3 depth`) so every point keeps `point_a - point_b = depth normal`.
    /// That depth is taken as `c.depth (c.normal . normal)`, the same by
    /// `c`'s own `point_a - point_b = depth normal`, not from the difference
    /// of its points: each is rounded at its coordinates (by up to `4e-3` at
    /// `1e5`), and the difference would carry that rounding into a depth
    /// that may be far smaller.
    fn finish(self, normal: UnitVector, c: &Contact) -> ContactManifold {
        self.finish_with_id(normal, c, 0)
    }

    /// [`finish`](Self::finish) with `c`'s point, when added, given id `id`.
    pub(super) fn finish_with_id(mut self, normal: UnitVector, c: &Contact, id: u32) -> ContactManifold {
        let points = self.points();
        let deepest = points.iter().map(|p| p.depth).fold(Real::NEG_INFINITY, Real::max);
        let depth = c.depth * c.normal.dot(&normal);
        let depth = if c.depth >= 0.0 { depth.max(0.0) } else { depth };
        // The rounding of a depth: a few ulps of the coordinates.
        let slack = 1e-6 * (1.0 + c.point_b.coords.amax());
        if points.is_empty() || (c.depth >= 0.0 && deepest < 0.0) || (c.depth < 0.0 && depth > deepest + slack) {
            let point_a = c.point_b + normal.into_inner() * depth;
            self.push(ManifoldPoint { point_a, point_b: c.point_b, depth, id });
        }
        ContactManifold::from_points(normal, self.points())
    }
}

/// The manifold of a capsule A and an oriented box B within `prediction`
/// (negative or NaN counts as 0): `None` exactly when
/// [`contact_capsule_obb`](crate::contact_capsule_obb) is `None` and the shapes are farther apart than
/// `prediction`.
///
/// The normal is that of [`contact_capsule_obb`](crate::contact_capsule_obb) (or of the closest points
/// when apart). When it is within 1e-3 rad of a face normal of the box,
/// that face is the reference face and its normal the manifold's; the
/// capsule's core segment is clipped to that face's side planes and
/// each end `s` of the clipped segment, at height `h` over the face, is a
/// point of depth `r - h` (kept when `>= -prediction`): `point_a = s - r n`,
/// `point_b` its projection on the face. A capsule lying on a box thus gets
/// two points. A capsule touching a box edge that its core segment runs
/// along (parallel within a sine of 1e-5) gets two points too, at the ends of the segment clipped to the
/// edge's extent (see `capsule_along_box_edge`); otherwise the one contact
/// point (id 0).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_manifold_capsule_obb, Capsule, Obb, Point, Rotation, Vector};
/// let table = Obb::new(Point::origin(), Rotation::identity(), Vector::new(1.0, 1.0, 0.5));
/// let rod = Capsule::new(Point::new(-3.0, 0.0, 0.7), Point::new(0.5, 0.0, 0.7), 0.25);
/// let m = contact_manifold_capsule_obb(&rod, &table, 0.0).unwrap();
/// assert_eq!(m.len(), 2); // clipped at the table's edge x = -1, and at the rod's end x = 0.5
/// assert!(m.points().iter().all(|p| (p.depth - 0.05).abs() < 1e-5));
/// ```
#[must_use]
pub fn contact_manifold_capsule_obb(a: &Capsule, b: &Obb, prediction: Real) -> Option<ContactManifold> {
    about(a, b, &b.center().coords, |a, b| capsule_obb_manifold(a, b, prediction))
}

/// [`contact_manifold_capsule_obb`] with the box's centre at the origin (see the
/// `relative` module).
#[inline(always)]
fn capsule_obb_manifold(a: &Capsule, b: &Obb, prediction: Real) -> Option<ContactManifold> {
    let prediction = prediction.max(0.0);
    let normal = |d: &ShapeDistance| core_normal(a.a(), a.b(), &d.point_b);
    let c = contact_within_found(
        capsule_obb::contact_or_distance(a, b),
        prediction,
        || distance_capsule_obb(a, b),
        normal,
    )?;
    // The box face facing the capsule has outward normal -n (box frame).
    let f = -b.to_local_vector(&c.normal);
    let k = f.iamax();
    if f[k].abs() < FACE_COSINE {
        return Some(capsule_along_box_edge(a, b, &c, prediction));
    }
    let (e, h) = (box_face_normal(k, f[k]), b.half_extents());
    let seg = Polygon::new(&[b.to_local(a.a()), b.to_local(a.b())]);
    let seg = clip_to_sides(seg, &box_sides(k, h));
    let r = a.radius();
    let mut out = Gathered::new();
    for v in seg.vertices() {
        let height = e.dot(&v.x) - h[k];
        let depth = r - height;
        if depth >= -prediction {
            let point_a = b.to_world(&(v.x - e * r));
            let point_b = b.to_world(&(v.x - e * height));
            out.push(ManifoldPoint { point_a, point_b, depth, id: 1 + u32::from(v.key) });
        }
    }
    Some(out.finish(UnitVector::new_normalize(-(b.axes() * e)), &c))
}

/// Id base of the points of a capsule along a box edge.
const ALONG_EDGE: u32 = 1 << 8;

/// The manifold of capsule A touching box B at an edge (the contact `c`'s
/// normal not a face normal): when the box's support feature against the
/// normal is an edge (see [`box_support`]) and the core segment `[p, q]`
/// runs along it (its drift across the edge at most `FEATURE_SINE` of its
/// length), the segment clipped to the edge's extent `|x_i| <= h_i`; each
/// end `s` is a point with `x` the edge point at the same `x_i`,
/// `depth = r - (x - s) . n`, `point_a = s + r n`, `point_b = x` (kept when
/// `depth >= -prediction`). `x - s` is the same vector along the edge up to
/// the drift, along `n` (the closest points' direction), so `point_a -
/// point_b = depth n` to within the drift. Ids name the edge and whether
/// each end is a segment end or an edge end. Otherwise `c` alone (id 0).
fn capsule_along_box_edge(a: &Capsule, b: &Obb, c: &Contact, prediction: Real) -> ContactManifold {
    let one = || single(c.normal, c.point_a, c.point_b, c.depth, 0);
    let n = b.to_local_vector(&c.normal);
    let (centre, half) = box_support(b.half_extents(), &-n);
    let (p, q) = (b.to_local(a.a()), b.to_local(a.b()));
    let d = q - p;
    let Some(i) = (0..3).find(|&i| half[i] > 0.0) else { return one() };
    let drift = (d - Vector::ith(i, d[i])).norm();
    if half.iter().filter(|&&x| x > 0.0).count() != 1 || d[i] == 0.0 || drift > FEATURE_SINE * d.norm() {
        return one();
    }
    // The segment's parameters at the edge's ends, ordered along the segment.
    let (t0, t1) = ((-half[i] - p[i]) / d[i], (half[i] - p[i]) / d[i]);
    let (lo, hi) = (t0.min(t1), t0.max(t1));
    let (s0, s1) = (lo.max(0.0), hi.min(1.0));
    if s1 - s0 <= 1e-4 {
        return one();
    }
    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
    let edge = (i as u32) << 2 | u32::from(centre[j] > 0.0) << 1 | u32::from(centre[k] > 0.0);
    let r = a.radius();
    let mut out = Gathered::new();
    for (end, t, clipped) in [(0, s0, s0 > 0.0), (1, s1, s1 < 1.0)] {
        let s = p + d * t;
        let mut x = centre;
        x[i] = s[i].clamp(-half[i], half[i]);
        let depth = r - (x - s).dot(&n);
        if depth >= -prediction {
            let id = ALONG_EDGE | edge << 2 | end << 1 | u32::from(clipped);
            out.push(ManifoldPoint { point_a: b.to_world(&(s + n * r)), point_b: b.to_world(&x), depth, id });
        }
    }
    out.finish(c.normal, c)
}

/// The manifold of a capsule A and a triangle B (a two-sided surface) within
/// `prediction`, as [`contact_manifold_capsule_obb`] with the triangle's
/// face: a normal within 1e-3 rad of the face normal (which becomes the
/// manifold's normal) clips the core segment to the triangle's three side
/// planes (two points for a capsule
/// lying on it); otherwise the one point of
/// [`contact_capsule_triangle`](crate::contact_capsule_triangle).
#[must_use]
pub fn contact_manifold_capsule_triangle(a: &Capsule, b: &Triangle, prediction: Real) -> Option<ContactManifold> {
    if capsule_separated_beyond(a, b, prediction.max(0.0)) {
        return None;
    }
    about(a, b, &a.a().coords, |a, b| capsule_triangle_manifold(a, b, prediction))
}

/// [`contact_manifold_capsule_triangle`] with the capsule's first endpoint at the origin (see the
/// `relative` module).
#[inline(always)]
fn capsule_triangle_manifold(a: &Capsule, b: &Triangle, prediction: Real) -> Option<ContactManifold> {
    let prediction = prediction.max(0.0);
    let normal = |d: &ShapeDistance| core_normal(a.a(), a.b(), &d.point_b);
    let c = contact_within_found(contact_or_distance(a, b), prediction, || distance_capsule_triangle(a, b), normal)?;
    let Some(f) = facing_normal(b, &c.normal) else {
        return Some(single(c.normal, c.point_a, c.point_b, c.depth, 0));
    };
    // The segment's first endpoint is the origin here, so the side planes'
    // offsets and the heights round relative to the shapes' size.
    let v = b.vertices();
    let seg = clip_to_sides(Polygon::new(&[a.a().coords, a.b().coords]), &triangle_sides(&v, &f));
    let r = a.radius();
    let mut out = Gathered::new();
    for x in seg.vertices() {
        let height = f.dot(&(x.x - v[0].coords));
        let depth = r - height;
        if depth >= -prediction {
            let point_a = Point::from(x.x - f * r);
            let point_b = Point::from(x.x - f * height);
            out.push(ManifoldPoint { point_a, point_b, depth, id: 1 + u32::from(x.key) });
        }
    }
    Some(out.finish(UnitVector::new_unchecked(-f), &c))
}

/// Id base of points clipped on the triangle's face (box face incident).
const TRIANGLE_REFERENCE: u32 = 1 << 8;
/// Id base of points clipped on a box face (triangle incident).
const BOX_REFERENCE: u32 = 2 << 8;

/// The manifold of an oriented box A and a triangle B (a two-sided surface)
/// within `prediction` (negative or NaN counts as 0): `None` exactly when
/// [`contact_obb_triangle`](crate::contact_obb_triangle) is `None` and the
/// shapes are farther apart than `prediction`.
///
/// The normal is that of [`contact_obb_triangle`](crate::contact_obb_triangle) (or of the closest points
/// when apart, once the 13 separating axes leave the shapes possibly within
/// `prediction`: read off the widest axis when its face or edges hold them,
/// see `face_gap_manifold` and `edge_gap_contact`, else found by GJK,
/// [`distance_convex`]), replaced by the reference face's normal when
/// clipping.
/// Reference/incident clipping as for two boxes:
/// - normal within 1e-3 rad of the triangle's normal: the box face most
///   anti-parallel to the triangle's facing normal is clipped to the
///   triangle's side planes; each clipped vertex at height `h` over the
///   triangle is a point of depth `-h` (the box resting on a triangle of a
///   floor: up to 4 points);
/// - else within 1e-3 rad of a box face normal: the triangle is clipped
///   to that face's side planes, each clipped vertex a point of depth its
///   distance below the face (a triangle's corner or edge poking a box);
/// - else (edge contacts) the one point of [`contact_obb_triangle`](crate::contact_obb_triangle) (id 0).
///
/// Points more than `prediction` above the reference face are dropped; more
/// than four are reduced to four (see [`ContactManifold::new`]). Ids name
/// the reference face, the incident face and the clipped feature.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_manifold_obb_triangle, Obb, Point, Rotation, Triangle, Vector};
/// let floor = Triangle::new(Point::new(-5.0, 0.0, -5.0), Point::new(5.0, 0.0, -5.0), Point::new(0.0, 0.0, 5.0));
/// let cube = Obb::new(Point::new(0.0, 0.49, 0.0), Rotation::identity(), Vector::repeat(0.5));
/// let m = contact_manifold_obb_triangle(&cube, &floor, 0.0).unwrap();
/// assert_eq!(m.len(), 4);
/// assert!(m.points().iter().all(|p| (p.depth - 0.01).abs() < 1e-5));
/// ```
#[must_use]
pub fn contact_manifold_obb_triangle(a: &Obb, b: &Triangle, prediction: Real) -> Option<ContactManifold> {
    let prediction = prediction.max(0.0);
    let v = local_vertices(a, b);
    if separated_beyond(a.half_extents(), &v, prediction) {
        return None;
    }
    manifold_obb_triangle_from(a, b, contact_or_gap(a, &v, true), prediction)
}

/// [`contact_manifold_obb_triangle`] from the 13-axis test's answer `found`
/// (the box and the triangle not [`separated_beyond`] the prediction, which
/// is at least 0):
/// - apart by more than the prediction on some axis: no distance needed;
/// - apart by less on a face axis: the clipped face may hold the distance;
/// - apart by less on an edge axis: the two edges may hold the distance;
/// - otherwise the distance.
///
/// All of it runs with the box's centre at the origin (see the `relative`
/// module; `found` is in the box's frame already): clipped heights, edge
/// pairs, the distance and the direction of its witness points carry the
/// rounding of the shapes' size, not of their coordinates.
pub(super) fn manifold_obb_triangle_from(
    a: &Obb,
    b: &Triangle,
    found: Result<Overlap, Gap>,
    prediction: Real,
) -> Option<ContactManifold> {
    about(a, b, &a.center().coords, |a, b| manifold_about_box_centre(a, b, found, prediction))
}

/// [`manifold_obb_triangle_from`] with the box's centre at the origin.
#[inline(always)]
fn manifold_about_box_centre(
    a: &Obb,
    b: &Triangle,
    found: Result<Overlap, Gap>,
    prediction: Real,
) -> Option<ContactManifold> {
    let contact = match found {
        Ok(overlap) => return Some(touching_manifold(a, b, &overlap, prediction)),
        Err(Gap { gap, .. }) if gap > prediction => return None,
        Err(Gap { gap, axis, kind }) => {
            let found = match kind {
                AxisKind::Face => face_gap_manifold(a, b, &axis, gap, prediction),
                AxisKind::Edge { box_axis, edge } => {
                    edge_gap_contact(a, b, &axis, box_axis, edge, gap).map(|c| clipped_or_single(a, b, &c, prediction))
                }
            };
            if let Some(m) = found {
                return Some(m);
            }
            None
        }
    };
    let normal = |d: &ShapeDistance| speculative_normal_obb_triangle(a, b, d);
    let c = contact_within(contact, prediction, || distance_convex(a, b), normal)?;
    Some(clipped_or_single(a, b, &c, prediction))
}

/// The manifold of box A and triangle B overlapping along `overlap`'s
/// axis, as [`clipped_or_single`] around their contact, but computing the
/// contact's witness points only where they are used: a clipped face with a
/// touching point never takes them ([`Gathered::finish`] adds the contact
/// only when clipping leaves none), and its deepest point stands in.
fn touching_manifold(a: &Obb, b: &Triangle, overlap: &Overlap, prediction: Real) -> ContactManifold {
    let normal = overlap.normal(a);
    let Some((reference, out)) = clip_obb_triangle(a, b, &normal, true, prediction) else {
        let c = overlap.contact(a);
        return single(c.normal, c.point_a, c.point_b, c.depth, 0);
    };
    let deepest = out.deepest();
    let c = match deepest.filter(|p| p.depth >= 0.0) {
        Some(p) => Contact { point_a: p.point_a, point_b: p.point_b, normal, depth: overlap.depth },
        None => overlap.contact(a),
    };
    out.finish(reference, &c)
}

/// The manifold of box A and triangle B around their contact (or closest
/// points) `c`: the clipped face when `c`'s normal is a face's, else `c`.
fn clipped_or_single(a: &Obb, b: &Triangle, c: &Contact, prediction: Real) -> ContactManifold {
    match clip_obb_triangle(a, b, &c.normal, c.depth >= 0.0, prediction) {
        Some((reference, out)) => out.finish(reference, c),
        None => single(c.normal, c.point_a, c.point_b, c.depth, 0),
    }
}

/// The rounding of a separation or a height of box A and triangle B: a few
/// ulps of the shapes' size. Both are found with the box's centre at the
/// origin (see [`manifold_obb_triangle_from`]): their rounding is not the
/// coordinates'.
fn gap_rounding(a: &Obb, b: &Triangle) -> Real {
    let v = b.vertices();
    let size = a.half_extents().sum() + (v[1] - v[0]).abs().sum() + (v[2] - v[0]).abs().sum();
    4.0 * Real::EPSILON * size
}

/// The closest points of box A and triangle B apart by `gap` on the cross
/// `n` (box frame, unit, from A to B) of box axis `i` and triangle edge
/// `k`, when that edge pair holds them; `None` sends the caller to the
/// distance.
///
/// The box's support feature along `n` is an edge parallel to axis `i`
/// (`n` is normal to it), the triangle's against `n` edge `k` when its
/// third vertex lies higher. The closest points `(s, t)` of those two
/// segments are a closest pair of the shapes when `t - s` is `gap` along
/// `n` and nothing across it: the distance is at least `gap` (a separating
/// axis) and at most `|t - s|`. Both within rounding, `(s, t)` is the
/// contact, along `n`, at depth `-(t - s) . n`: a box edge crossing over a
/// mesh edge, the two closest points inside both edges (where `t - s` is
/// normal to both). Nothing across is required, not only `|t - s|` near
/// `gap`: a pair longer than the distance by `e` may lean off the normal
/// by up to `sqrt(2 e / gap)` rad.
fn edge_gap_contact(a: &Obb, b: &Triangle, n: &Vector, i: usize, k: usize, gap: Real) -> Option<Contact> {
    let h = a.half_extents();
    let mut centre = Vector::zeros();
    for j in (0..3).filter(|&j| j != i) {
        centre[j] = if n[j] >= 0.0 { h[j] } else { -h[j] };
    }
    let half_edge = Vector::ith(i, h[i]);
    let (p0, p1) = (Point::from(centre - half_edge), Point::from(centre + half_edge));
    let v = b.vertices();
    let (q0, q1) = (Point::from(a.to_local(&v[k])), Point::from(a.to_local(&v[(k + 1) % 3])));
    let pair = closest_points_segment_segment(&p0, &p1, &q0, &q1);
    // `t - s` split along `n` and across it.
    let d = pair.point_b - pair.point_a;
    let along = d.dot(n);
    let across = (d - n * along).norm();
    let rounding = gap_rounding(a, b);
    if !(along <= gap + rounding && across <= 8.0 * rounding) {
        return None;
    }
    let normal = UnitVector::new_normalize(a.axes() * n);
    let (point_a, point_b) = (a.to_world(&pair.point_a.coords), a.to_world(&pair.point_b.coords));
    Some(Contact { point_a, point_b, normal, depth: -along })
}

/// The manifold of box A and triangle B apart by `gap` (at most
/// `prediction`) on the face axis `n` (box frame, from A to B), when
/// clipping along it finds their distance; `None` sends the caller to the
/// distance.
///
/// The distance is at least `gap` (a separating axis), and at most the
/// height `h` of any clipped point: it lies in the reference face's prism
/// (the triangle's, or a box face's), where its distance to the other
/// shape is its height over that face. So when the lowest clipped point
/// is within rounding of `gap`, it is a closest pair, the reference normal
/// is the closest points' direction, and the manifold is the one the
/// distance would have led to: the same reference face, the same points.
/// A box resting within the prediction over a mesh's faces takes this
/// path; edges and vertices beside the face go to the distance.
fn face_gap_manifold(a: &Obb, b: &Triangle, n: &Vector, gap: Real, prediction: Real) -> Option<ContactManifold> {
    let normal = UnitVector::new_normalize(a.axes() * n);
    let (reference, out) = clip_obb_triangle(a, b, &normal, false, prediction)?;
    let deepest = out.deepest()?;
    if -deepest.depth > gap + gap_rounding(a, b) {
        return None;
    }
    let c = Contact { point_a: deepest.point_a, point_b: deepest.point_b, normal: reference, depth: deepest.depth };
    Some(out.finish(reference, &c))
}

/// The points of box A and triangle B clipped along the contact normal
/// `normal` (from A to B), with the reference face's normal (see
/// [`contact_manifold_obb_triangle`]); `None` when `normal` is within
/// 1e-3 rad of neither the triangle's normal nor a box face's (an edge
/// contact). Points within `1e-5` of the shapes' size of touching count as
/// touching when the shapes do (`touching`).
fn clip_obb_triangle(
    a: &Obb,
    b: &Triangle,
    normal: &UnitVector,
    touching: bool,
    prediction: Real,
) -> Option<(UnitVector, Gathered)> {
    let (h, v) = (a.half_extents(), b.vertices());
    let slack = 1e-5 * (h.sum() + (v[1] - v[0]).abs().sum() + (v[2] - v[0]).abs().sum());
    let depth_of = |d: Real| if touching && d >= -slack { d.max(0.0) } else { d };
    let mut out = Gathered::new();
    if let Some(f) = facing_normal(b, normal) {
        // Incident: the box face whose outward normal is most along n.
        let nl = a.to_local_vector(normal);
        let k = nl.iamax();
        let (sign, (k1, k2)) = (nl[k].signum(), ((k + 1) % 3, (k + 2) % 3));
        let axes = a.axes();
        let centre = a.center().coords + axes.column(k) * (sign * h[k]);
        let (u, w) = (axes.column(k1) * h[k1], axes.column(k2) * h[k2]);
        let quad = Polygon::new(&[centre + u + w, centre - u + w, centre - u - w, centre + u - w]);
        let face = (k as u32) << 1 | u32::from(sign < 0.0);
        for x in clip_to_sides(quad, &triangle_sides(&v, &f)).vertices() {
            let height = f.dot(&(x.x - v[0].coords));
            if -height >= -(prediction + slack) {
                let id = TRIANGLE_REFERENCE | face << 7 | u32::from(x.key);
                let p = ManifoldPoint {
                    point_a: Point::from(x.x),
                    point_b: Point::from(x.x - f * height),
                    depth: depth_of(-height),
                    id,
                };
                out.push(p);
            }
        }
        return Some((UnitVector::new_unchecked(-f), out));
    }
    let nl = a.to_local_vector(normal);
    let k = nl.iamax();
    if nl[k].abs() < FACE_COSINE {
        return None;
    }
    let e = box_face_normal(k, nl[k]);
    let tri = Polygon::new(&v.map(|p| a.to_local(&p)));
    let face = (k as u32) << 1 | u32::from(nl[k] < 0.0);
    for x in clip_to_sides(tri, &box_sides(k, h)).vertices() {
        let d = h[k] - e.dot(&x.x);
        if d >= -(prediction + slack) {
            let depth = depth_of(d);
            let p = ManifoldPoint {
                point_a: a.to_world(&(x.x + e * d)),
                point_b: a.to_world(&x.x),
                depth,
                id: BOX_REFERENCE | face << 7 | u32::from(x.key),
            };
            out.push(p);
        }
    }
    Some((UnitVector::new_normalize(a.axes() * e), out))
}

/// True when a separating axis among the box's three face normals and the
/// triangle's normal shows box `[-h, h]` and triangle `v` (box frame) more
/// than `prediction` apart: a cheap rejection before the full test and the
/// (costlier) distance, which a pair farther apart would reach only to be
/// dropped. On an axis the separation is a lower bound of the distance, so
/// no pair within `prediction` is rejected. The lane kernel repeats these
/// operations in this order.
pub(super) fn separated_beyond(h: &Vector, v: &[Vector; 3], prediction: Real) -> bool {
    for k in 0..3 {
        let (lo, hi) = (min3(v[0][k], v[1][k], v[2][k]), max3(v[0][k], v[1][k], v[2][k]));
        if lo > h[k] + prediction || hi < -h[k] - prediction {
            return true;
        }
    }
    // The triangle's plane, in the box frame: n . x = n . v0; the box
    // reaches `sum h_k |n_k|` along n.
    let n = cross3(&(v[1] - v[0]), &(v[2] - v[0]));
    let len = dot3(&n, &n).sqrt();
    if len.is_nan() || len <= 0.0 {
        return false;
    }
    let reach = dot3(h, &n.abs());
    dot3(&n, &v[0]).abs() > reach + prediction * len
}

/// True when the world axes, or the triangle's plane and side planes
/// together ([`segment_beyond_triangle`]), put capsule A more than
/// `prediction` from triangle B: the rejection of [`separated_beyond`] for a
/// capsule (on an axis the capsule spans its core segment's projection
/// widened by `r`). Relative to the segment's first endpoint, so the
/// rounding is relative to the shapes' size; a pair within `1e-5` of that
/// size beyond `prediction` goes on to the exact test.
fn capsule_separated_beyond(a: &Capsule, b: &Triangle, prediction: Real) -> bool {
    let o = a.a().coords;
    let q = a.b().coords - o;
    let v = b.vertices().map(|x| x.coords - o);
    let r = a.radius();
    let slack = 1e-5 * (q.abs().sum() + (v[1] - v[0]).abs().sum() + (v[2] - v[0]).abs().sum() + r);
    let reach = r + prediction + slack;
    for k in 0..3 {
        let (lo, hi) = (v[0][k].min(v[1][k]).min(v[2][k]), v[0][k].max(v[1][k]).max(v[2][k]));
        if lo > q[k].max(0.0) + reach || hi < q[k].min(0.0) - reach {
            return true;
        }
    }
    segment_beyond_triangle(&q, &v, reach)
}

/// True when every point of the segment `[0, q]` lies farther than `reach`
/// from the triangle `v` (its vertices taken relative to the segment's
/// start): `h^2 + g^2 > reach^2`, with `h` the least height of the segment
/// over the triangle's plane (0 when it meets the plane) and `g` the most
/// that one side plane puts the whole segment beyond the triangle (0 when
/// none does; edge `i`'s side plane has the outward normal `s = e_i x n`,
/// in the plane). A lower bound of the distance: for `x` on the segment and
/// `y` in the triangle, `|x - y|^2` is `x`'s squared height over the plane
/// plus the squared in-plane part, which is at least `x`'s distance beyond
/// each side plane (`y` lies behind them all), and each of those is least
/// at an endpoint. It covers the plane alone (`g = 0`), a side plane alone
/// (`h = 0`), and a round shape resting beside the triangle on the next
/// triangles of a floor, whose height and sideways gap only together reach
/// past `reach` (`>= 0`). A triangle whose computed normal's squared length
/// is below `Real::MIN_POSITIVE` (or NaN) rejects nothing, nor does a side
/// whose normal's is.
#[inline]
pub(super) fn segment_beyond_triangle(q: &Vector, v: &[Vector; 3], reach: Real) -> bool {
    debug_assert!(reach >= 0.0 || reach.is_nan(), "a reach below zero: {reach}");
    let n = (v[1] - v[0]).cross(&(v[2] - v[0]));
    let len2 = n.norm_squared();
    if len2.is_nan() || len2 < Real::MIN_POSITIVE {
        return false;
    }
    let reach2 = reach * reach;
    // Heights times `|n|`; the plane alone decides first.
    let (hp, hq) = (-n.dot(&v[0]), n.dot(&(q - v[0])));
    let h = if hp > 0.0 && hq > 0.0 {
        hp.min(hq)
    } else if hp < 0.0 && hq < 0.0 {
        -hp.max(hq)
    } else {
        0.0
    };
    let h2 = h * h / len2;
    if h2 > reach2 {
        return true;
    }
    // Gaps beyond each side plane, times `|s| = |e_i| |n|`: one alone
    // decides, else the greatest joins the height.
    let mut g2: Real = 0.0;
    for i in 0..3 {
        let side = (v[(i + 1) % 3] - v[i]).cross(&n);
        let gap = (-side.dot(&v[i])).min(side.dot(&(q - v[i])));
        let s2 = side.norm_squared();
        if gap > 0.0 && s2 >= Real::MIN_POSITIVE {
            if gap * gap > reach2 * s2 {
                return true;
            }
            g2 = g2.max(gap * gap / s2);
        }
    }
    h2 + g2 > reach2
}

/// The triangle's unit normal on the side facing A (`f . normal < 0`, the
/// contact normal pointing from A to the triangle), when the contact normal
/// is within [`FACE_COSINE`] of it.
fn facing_normal(tri: &Triangle, normal: &UnitVector) -> Option<Vector> {
    let (n, _, _) = face_normal(tri)?;
    let f = n.normalize();
    let cos = f.dot(normal);
    (cos.abs() >= FACE_COSINE).then(|| if cos > 0.0 { -f } else { f })
}

/// `±e_k`, the outward normal of the box face on axis `k` on the side of `s`.
fn box_face_normal(k: usize, s: Real) -> Vector {
    let mut e = Vector::zeros();
    e[k] = s.signum();
    e
}

/// The four side planes `±x_m <= h_m` (`m != k`) of the box faces on axis `k`.
fn box_sides(k: usize, h: &Vector) -> [(Vector, Real); 4] {
    let (m1, m2) = ((k + 1) % 3, (k + 2) % 3);
    let plane = |m: usize, s: Real| {
        let mut n = Vector::zeros();
        n[m] = s;
        (n, h[m])
    };
    [plane(m1, 1.0), plane(m1, -1.0), plane(m2, 1.0), plane(m2, -1.0)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;
    use proxima_test_support::minimize::convex_min;
    use proxima_test_support::{rng, Rng};

    /// The distance of `p` to the triangle `v`, in `f64`: its height over
    /// the plane when it projects inside, else the least distance to an edge.
    fn point_triangle(p: &Vector3<f64>, v: &[Vector3<f64>; 3]) -> f64 {
        let n = (v[1] - v[0]).cross(&(v[2] - v[0]));
        let inside = (0..3).all(|i| (v[(i + 1) % 3] - v[i]).cross(&(p - v[i])).dot(&n) >= 0.0);
        if inside {
            return (p - v[0]).dot(&n).abs() / n.norm();
        }
        (0..3)
            .map(|i| {
                let (a, e) = (v[i], v[(i + 1) % 3] - v[i]);
                let t = ((p - a).dot(&e) / e.norm_squared()).clamp(0.0, 1.0);
                (p - (a + e * t)).norm()
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// The distance of the segment `[0, q]` to the triangle, by golden
    /// section over the segment (the distance to a convex set is convex
    /// along a line).
    fn segment_triangle(q: &Vector, v: &[Vector; 3]) -> f64 {
        let (q, v) = (q.cast::<f64>(), v.map(|x| x.cast::<f64>()));
        convex_min(|t| point_triangle(&(q * t), &v), 0.0, 1.0, 100).value
    }

    /// The bound rejects only segments truly farther than the reach: over
    /// random segments and triangles at gaps around the reach (rejected ones
    /// must lie beyond it, to the oracle's accuracy of `1e-9` of the sizes);
    /// and it rejects a capsule lying on a floor beside a triangle, where
    /// neither the plane nor a side plane alone does.
    #[test]
    fn the_height_and_side_bound_rejects_only_what_lies_beyond_the_reach() {
        let mut r = rng(0x7B1);
        let mut rejected = 0;
        for case in 0..20_000 {
            let scale = [1e-2, 1.0, 1e2][case % 3] as Real;
            let mut point = || Vector::from_fn(|_, _| r.random_range(-1.0..1.0) as Real * scale);
            let v = [point(), point(), point()];
            let q = if case % 5 == 0 { Vector::zeros() } else { point() };
            // The segment moved off the triangle by a random amount.
            let shift = point() * r.random_range(0.0..2.0) as Real;
            let v = v.map(|x| x + shift);
            let reach = r.random_range(0.0..1.0) as Real * scale;
            if segment_beyond_triangle(&q, &v, reach) {
                rejected += 1;
                let d = segment_triangle(&q, &v);
                assert!(d >= f64::from(reach) * (1.0 - 1e-6) - 1e-9 * f64::from(scale), "{q:?} {v:?}: {d} vs {reach}");
            }
        }
        assert!(rejected > 2_000 && rejected < 18_000, "{rejected} rejected");

        // A floor triangle in z = 0, a capsule's core along x at height 0.3
        // (its radius), 0.2 to the side (y) of the triangle's edge y = 0:
        // 0.36 from it, beyond radius 0.3 plus prediction 0.02, where the
        // plane alone says 0.3 and the side plane alone 0.2.
        let v = [Vector::new(0.0, 0.0, 0.0), Vector::new(1.0, 0.0, 0.0), Vector::new(0.0, -1.0, 0.0)];
        let start = Vector::new(0.2, 0.2, 0.3);
        let v = v.map(|x| x - start);
        let q = Vector::new(0.6, 0.0, 0.0);
        assert!((segment_triangle(&q, &v) - 0.2f64.hypot(0.3)).abs() < 1e-6);
        assert!(segment_beyond_triangle(&q, &v, 0.32));
        assert!(!segment_beyond_triangle(&q, &v, 0.37));
    }
}
