//! The contact manifold: up to four points sharing one normal, the shape a
//! constraint solver consumes.

use crate::math::{Isometry, Point, Real, UnitVector, Vector};

/// One point of a [`ContactManifold`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifoldPoint {
    /// Witness point on A's surface (world frame).
    pub point_a: Point,
    /// Witness point on B's surface (world frame).
    pub point_b: Point,
    /// Penetration depth along the manifold normal:
    /// `(point_a - point_b) . normal = depth`, and `point_a - point_b ≈
    /// depth * normal` except across the normal for the two points of nearly
    /// parallel capsules (see
    /// [`contact_manifold_capsule_capsule`](crate::contact_manifold_capsule_capsule)). Positive when the shapes
    /// overlap there, negative for a speculative point (the shapes are
    /// `-depth` apart along the normal, at most the prediction distance).
    pub depth: Real,
    /// The pair of features (vertex, edge, face of each shape) this point
    /// comes from: it stays the same from frame to frame while the same
    /// features touch, so a solver can match last frame's point and warm
    /// start its impulse. Distinct within one manifold; meaningful only
    /// between manifolds of the same pair of shapes from the same function.
    pub id: u32,
}

/// Up to four contact points sharing one normal: what a solver needs for a
/// resting contact (a single deepest point lets a box on a table rock).
///
/// Returned by the `contact_manifold_*` functions, which all take a
/// `prediction` distance: shapes closer than it get a manifold whose points
/// may have negative depth (speculative contacts, which keep fast bodies
/// from overshooting), farther ones `None`. With `prediction = 0` a manifold
/// exists exactly when the matching `contact_*` function returns a contact.
/// The sphere, capsule, box and triangle pairs work relative to a point of
/// their shapes, as the `distance_*` functions do
/// ([`ShapeDistance`](crate::ShapeDistance)): far from the origin, depths,
/// normals and whether a manifold exists carry the rounding of the shapes'
/// size, not of their coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ContactManifold {
    /// Unit normal from A to B (world frame), as in [`Contact`](crate::Contact).
    pub normal: UnitVector,
    points: [ManifoldPoint; 4],
    len: usize,
}

/// Storage filler for unused manifold slots (never exposed by `points()`).
pub(super) const NO_POINT: ManifoldPoint =
    ManifoldPoint { point_a: Point::new(0.0, 0.0, 0.0), point_b: Point::new(0.0, 0.0, 0.0), depth: 0.0, id: 0 };

impl ContactManifold {
    /// Moves every point by `o` (an answer found relative to `o`, taken
    /// back to world space).
    #[inline(always)]
    pub(crate) fn move_points(&mut self, o: &Vector) {
        for p in &mut self.points[..self.len] {
            p.point_a += o;
            p.point_b += o;
        }
    }

    /// The manifold of `points` sharing `normal`, `None` when there are no
    /// points. More than four are reduced to four: the deepest, the farthest
    /// from it, and the two spanning the largest areas on either side of the
    /// line through those two (the reduction of Box2D, Bullet and Jolt: it
    /// keeps the deepest point and the widest support polygon).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::{ContactManifold, ManifoldPoint, Point, UnitVector, Vector};
    /// let p = |x: f32, y: f32, id| ManifoldPoint { point_a: Point::new(x, y, 0.0), point_b: Point::new(x, y, -0.1), depth: 0.1, id };
    /// // Five points of a square's outline: the middle of an edge is dropped.
    /// let pts = [p(0.0, 0.0, 0), p(1.0, 0.0, 1), p(1.0, 1.0, 2), p(0.0, 1.0, 3), p(0.5, 0.0, 4)];
    /// let m = ContactManifold::new(UnitVector::new_normalize(Vector::z()), &pts).unwrap();
    /// assert_eq!(m.len(), 4);
    /// assert!(m.points().iter().all(|q| q.id != 4));
    /// ```
    #[must_use]
    pub fn new(normal: UnitVector, points: &[ManifoldPoint]) -> Option<Self> {
        (!points.is_empty()).then(|| Self::from_points(normal, points))
    }

    /// [`ContactManifold::new`] for a non-empty `all`.
    pub(crate) fn from_points(normal: UnitVector, all: &[ManifoldPoint]) -> Self {
        let mut m = ContactManifold { normal, points: [NO_POINT; 4], len: 0 };
        if all.len() <= 4 {
            m.points[..all.len()].copy_from_slice(all);
            m.len = all.len();
            return m;
        }
        for idx in Self::reduced(&normal, all).into_iter().flatten() {
            m.points[m.len] = all[idx];
            m.len += 1;
        }
        m
    }

    /// The indices of the four points [`ContactManifold::new`] keeps of
    /// `all` (more than four points; areas measured in the plane of `normal`).
    fn reduced(normal: &UnitVector, all: &[ManifoldPoint]) -> [Option<usize>; 4] {
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
        let mut out = [None; 4];
        for (slot, &idx) in chosen.iter().enumerate() {
            if slot == 0 || idx != chosen[slot - 1] {
                out[slot] = Some(idx);
            }
        }
        out
    }

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

    /// The manifold moved by `pose` (from the frame it was computed in, a
    /// mesh's say, to world space): points transformed, normal rotated.
    #[must_use]
    pub fn transformed(&self, pose: &Isometry) -> ContactManifold {
        let mut m = *self;
        m.normal = pose.rotation * self.normal;
        for p in &mut m.points[..m.len] {
            p.point_a = pose.transform_point(&p.point_a);
            p.point_b = pose.transform_point(&p.point_b);
        }
        m
    }

    /// The manifold with `normal` and each point replaced by `point(p)`, in
    /// the same order (a manifold carried by its bodies to new poses, say).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::{ContactManifold, ManifoldPoint, Point, UnitVector, Vector};
    /// let up = UnitVector::new_normalize(Vector::y());
    /// let p = ManifoldPoint { point_a: Point::new(0.0, 0.0, 0.0), point_b: Point::new(0.0, -0.1, 0.0), depth: 0.1, id: 3 };
    /// let m = ContactManifold::new(up, &[p]).unwrap();
    /// // B 0.05 lower: the points ride with their shapes, the depth grows.
    /// let lowered = m.with_points(up, |p| {
    ///     let point_b = p.point_b - Vector::y() * 0.05;
    ///     ManifoldPoint { point_b, depth: (p.point_a - point_b).dot(&up), ..*p }
    /// });
    /// assert!((lowered.points()[0].depth - 0.15).abs() < 1e-6);
    /// assert_eq!(lowered.points()[0].id, 3);
    /// ```
    #[must_use]
    #[inline]
    pub fn with_points(&self, normal: UnitVector, mut point: impl FnMut(&ManifoldPoint) -> ManifoldPoint) -> Self {
        let mut m = *self;
        m.normal = normal;
        for p in &mut m.points[..m.len] {
            *p = point(p);
        }
        m
    }

    /// The same manifold seen from B: the points' sides swapped and the
    /// normal negated; depths and ids unchanged.
    #[must_use]
    pub fn flipped(&self) -> ContactManifold {
        let mut m = *self;
        m.flip();
        m
    }

    /// Turns the manifold in place into the one seen from B, as
    /// [`flipped`](Self::flipped) returns it.
    #[inline]
    pub fn flip(&mut self) {
        self.normal = -self.normal;
        for p in &mut self.points[..self.len] {
            core::mem::swap(&mut p.point_a, &mut p.point_b);
        }
    }
}

/// Up to eight points (a quadrilateral clipped by four planes) gathered
/// before the reduction to four.
pub(super) struct Gathered {
    items: [ManifoldPoint; 8],
    len: usize,
}

impl Gathered {
    pub(super) fn new() -> Self {
        Self { items: [NO_POINT; 8], len: 0 }
    }

    /// Adds `p`; a ninth point is dropped (clipping makes at most eight).
    pub(super) fn push(&mut self, p: ManifoldPoint) {
        if self.len < 8 {
            self.items[self.len] = p;
            self.len += 1;
        }
    }

    pub(super) fn points(&self) -> &[ManifoldPoint] {
        &self.items[..self.len]
    }

    /// The deepest gathered point (the last of equals), `None` when empty.
    pub(super) fn deepest(&self) -> Option<ManifoldPoint> {
        self.points().iter().max_by(|p, q| p.depth.total_cmp(&q.depth)).copied()
    }
}

/// A manifold of one point (round shapes, edge contacts) with id `id`.
pub(super) fn single(normal: UnitVector, point_a: Point, point_b: Point, depth: Real, id: u32) -> ContactManifold {
    ContactManifold::from_points(normal, &[ManifoldPoint { point_a, point_b, depth, id }])
}
