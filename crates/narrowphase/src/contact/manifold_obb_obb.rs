//! Box-box contact manifold: up to four points, by clipping the incident
//! face against the reference face.

use super::obb_obb::{sat_boxes, witness_points, Axis};
use crate::math::{Matrix, Point, Real, UnitVector, Vector};
use crate::shape::Obb;

/// One point of a [`ContactManifold`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ManifoldPoint {
    /// Witness point on A's surface (world frame).
    pub point_a: Point,
    /// Witness point on B's surface (world frame).
    pub point_b: Point,
    /// Penetration depth at this point along the manifold normal, `>= 0`:
    /// `point_a - point_b ≈ depth * normal`.
    pub depth: Real,
}

/// Up to four contact points sharing one normal, for resting contact
/// between boxes (a single point lets a box on a table rock).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactManifold {
    /// Unit normal from A to B (world frame), as in [`Contact`](crate::Contact).
    pub normal: UnitVector,
    points: [ManifoldPoint; 4],
    len: usize,
}

impl ContactManifold {
    /// The contact points, between 1 and 4.
    #[inline]
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.len]
    }

    /// The number of points, between 1 and 4.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a manifold holds at least one point.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The deepest point.
    pub fn deepest(&self) -> &ManifoldPoint {
        let mut best = &self.points[0];
        for p in self.points() {
            if p.depth > best.depth {
                best = p;
            }
        }
        best
    }
}

/// Slack below the reference face, relative to the boxes' size, within which
/// a clipped point still counts as touching (its depth is then reported as
/// 0): exactly touching faces are only touching up to rounding.
const TOUCH_SLACK: Real = 1e-5;

/// The contact manifold of two solid oriented boxes; `None` exactly when
/// [`contact_obb_obb`](crate::contact_obb_obb) is `None`.
///
/// The normal is that of [`contact_obb_obb`](crate::contact_obb_obb) (the
/// SAT axis of least overlap, from A to B). For a face axis, the classic
/// reference/incident clipping (Gottschalk's OBBTree SAT for the axis, then
/// Sutherland-Hodgman clipping; Ericson, Real-Time Collision Detection,
/// 8.3.4): the face of the axis is the reference face, the face of the other
/// box most anti-parallel to it is the incident face; the incident
/// quadrilateral is clipped against the four side planes of the reference
/// face, and every clipped vertex below the reference face (within
/// `1e-5` of the boxes' size) is a contact with depth = its distance below
/// it. The incident-box witness is the clipped vertex, the reference-box
/// witness its projection onto the reference face. More than four points
/// are reduced to four: the deepest, the farthest from it, then the two that
/// span the largest area on either side of the line through those two.
/// For an edge-edge axis the manifold is the single point of
/// [`contact_obb_obb`](crate::contact_obb_obb); so is a face contact whose
/// clipping leaves nothing (rounding at grazing contact).
///
/// ```
/// use proxima_narrowphase::{contact_manifold_obb_obb, Obb, Point, Rotation, Vector};
/// let table = Obb::new(Point::origin(), Rotation::identity(), Vector::new(5.0, 5.0, 0.5));
/// let crate_ = Obb::new(Point::new(0.0, 0.0, 0.9), Rotation::identity(), Vector::repeat(0.5));
/// let m = contact_manifold_obb_obb(&table, &crate_).unwrap();
/// assert_eq!(m.len(), 4); // the crate's four bottom corners
/// assert!(m.points().iter().all(|p| (p.depth - 0.1).abs() < 1e-5));
/// ```
#[must_use]
pub fn contact_manifold_obb_obb(a: &Obb, b: &Obb) -> Option<ContactManifold> {
    let sat = sat_boxes(a, b)?;
    let normal = UnitVector::new_normalize(a.axes() * sat.n);
    let slack = TOUCH_SLACK * (a.half_extents().sum() + b.half_extents().sum());
    let mut clipped = match sat.axis {
        // Reference A, incident B, in A's frame.
        Axis::FaceA(i) => {
            let pts = clip_incident(a.half_extents(), i, &sat.n, &sat.t, &sat.r, b.half_extents(), slack);
            map_points(&pts, |x, d| (a.to_world(&(x + sat.n * d)), a.to_world(x)))
        }
        // Reference B, incident A, in B's frame: B's reference normal is -n.
        Axis::FaceB(j) => {
            let m = -sat.r.tr_mul(&sat.n);
            let rt = sat.r.transpose();
            let ta = -(rt * sat.t);
            let pts = clip_incident(b.half_extents(), j, &m, &ta, &rt, a.half_extents(), slack);
            map_points(&pts, |x, d| (b.to_world(x), b.to_world(&(x + m * d))))
        }
        Axis::Edge(..) => Clipped::new(NO_POINT),
    };
    if clipped.len == 0 {
        let (pa, pb) = witness_points(a, b, &sat);
        clipped.push(ManifoldPoint { point_a: a.to_world(&pa), point_b: a.to_world(&pb), depth: sat.depth });
    }
    Some(reduce(&clipped, &normal))
}

/// At most eight points (a quadrilateral clipped by four planes).
struct Clipped<T: Copy> {
    items: [T; 8],
    len: usize,
}

impl<T: Copy> Clipped<T> {
    /// Empty; `fill` only initialises the unused storage.
    fn new(fill: T) -> Self {
        Self { items: [fill; 8], len: 0 }
    }

    fn push(&mut self, x: T) {
        if self.len < 8 {
            self.items[self.len] = x;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }
}

/// Storage filler for unused manifold slots (never exposed by `points()`).
const NO_POINT: ManifoldPoint =
    ManifoldPoint { point_a: Point::new(0.0, 0.0, 0.0), point_b: Point::new(0.0, 0.0, 0.0), depth: 0.0 };

/// Maps reference-frame points `(x, depth)` to manifold points through
/// `to_world(x, depth) -> (point_a, point_b)`.
fn map_points(
    pts: &Clipped<(Vector, Real)>,
    to_world: impl Fn(&Vector, Real) -> (Point, Point),
) -> Clipped<ManifoldPoint> {
    let mut out = Clipped::new(NO_POINT);
    for (x, d) in pts.as_slice() {
        let (point_a, point_b) = to_world(x, *d);
        out.push(ManifoldPoint { point_a, point_b, depth: *d });
    }
    out
}

/// In the reference box's frame (box `[-h, h]`, reference face on axis `i`
/// with outward unit normal `n = ±e_i` facing the incident box), clips the
/// incident box's face most anti-parallel to `n` (incident box: centre `c`,
/// axes the columns of `axes`, half-extents `hi`) against the reference
/// face's side planes `|x_k| <= h_k`, `k != i`, and returns the clipped
/// vertices with their depth `h_i - n . x`, those below `-slack` dropped
/// and the rest clamped to `>= 0`.
fn clip_incident(
    h: &Vector,
    i: usize,
    n: &Vector,
    c: &Vector,
    axes: &Matrix,
    hi: &Vector,
    slack: Real,
) -> Clipped<(Vector, Real)> {
    // Incident face: the axis most aligned with n, its face facing -n.
    let dots = axes.tr_mul(n);
    let k = dots.iamax();
    let sign = if dots[k] > 0.0 { -1.0 } else { 1.0 };
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let centre = c + axes.column(k) * (sign * hi[k]);
    let u = axes.column(k1) * hi[k1];
    let v = axes.column(k2) * hi[k2];
    let mut poly = Clipped::new(Vector::zeros());
    for q in [centre + u + v, centre - u + v, centre - u - v, centre + u - v] {
        poly.push(q);
    }
    // Sutherland-Hodgman against x_m <= h_m and -x_m <= h_m, m != i.
    for m in [(i + 1) % 3, (i + 2) % 3] {
        for s in [1.0, -1.0] {
            poly = clip_plane(&poly, m, s, h[m]);
        }
    }
    let mut out = Clipped::new((Vector::zeros(), 0.0));
    for x in poly.as_slice() {
        let d = h[i] - n.dot(x);
        if d >= -slack {
            out.push((*x, d.max(0.0)));
        }
    }
    out
}

/// Keeps the part of the polygon with `s * x_m <= limit` (one
/// Sutherland-Hodgman pass; each pass adds at most one vertex).
fn clip_plane(poly: &Clipped<Vector>, m: usize, s: Real, limit: Real) -> Clipped<Vector> {
    let mut out = Clipped::new(Vector::zeros());
    let pts = poly.as_slice();
    for (idx, p) in pts.iter().enumerate() {
        let q = &pts[(idx + 1) % pts.len()];
        let (dp, dq) = (s * p[m] - limit, s * q[m] - limit);
        if dp <= 0.0 {
            out.push(*p);
        }
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
    out
}

/// At most four of the points: the deepest, the farthest from it, and the
/// two spanning the largest signed areas on each side of the line through
/// those (measured in the plane of `normal`).
fn reduce(pts: &Clipped<ManifoldPoint>, normal: &UnitVector) -> ContactManifold {
    let all = pts.as_slice();
    let mut m = ContactManifold { normal: *normal, points: [NO_POINT; 4], len: 0 };
    if all.len() <= 4 {
        m.points[..all.len()].copy_from_slice(all);
        m.len = all.len();
        return m;
    }
    let argmax = |f: &dyn Fn(&ManifoldPoint) -> Real| {
        let mut best = 0;
        for (idx, p) in all.iter().enumerate() {
            if f(p) > f(&all[best]) {
                best = idx;
            }
        }
        best
    };
    let i0 = argmax(&|p| p.depth);
    let p0 = all[i0].point_b;
    let i1 = argmax(&|p| (p.point_b - p0).norm_squared());
    let e = all[i1].point_b - p0;
    let area = |p: &ManifoldPoint| e.cross(&(p.point_b - p0)).dot(normal);
    let i2 = argmax(&|p| area(p));
    let i3 = argmax(&|p| -area(p));
    let mut chosen = [i0, i1, i2, i3];
    chosen.sort_unstable();
    for (slot, &idx) in chosen.iter().enumerate() {
        if slot == 0 || idx != chosen[slot - 1] {
            m.points[m.len] = all[idx];
            m.len += 1;
        }
    }
    m
}
