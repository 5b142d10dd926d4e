//! Opt-in reuse of a pair's manifold from an earlier frame while the pair's
//! relative pose stays within a tolerance of the pose it was computed at
//! (Jolt's body-pair cache): the manifold's points ride on their bodies
//! (each witness point fixed in its own body's frame, the normal in the
//! first body's), and each point's depth is measured again along the
//! carried normal.
//!
//! The kept manifolds form a list sorted by pair key, replaced each frame by
//! the list of the pairs tested (a merge with the candidates, which are
//! sorted the same way).

use proxima_narrowphase::{ContactManifold, Isometry, ManifoldPoint, Matrix, Point, Real, UnitVector};

use crate::collider::{Collider, ColliderHandle};
use crate::error::SceneError;
use crate::shape::WorldShape;

/// How far a pair's relative pose may move from the pose its manifold was
/// computed at before the pipeline computes it again (see
/// [`ContactPipeline::with_manifold_reuse`](crate::ContactPipeline::with_manifold_reuse)).
///
/// Not exact: a reused manifold is the earlier one carried by the two
/// bodies. Its points' depths are measured again, so they follow the
/// bodies' motion along the normal, but the normal, the features and the
/// number of points are the earlier ones. While the relative pose (the
/// second collider's pose in the first's frame) stays within
/// `max_translation` of translation and `max_rotation` of rotation
/// (radians, about any axis), every point of the second shape moves in the
/// first's frame by at most `d = max_translation + max_rotation * r`, `r`
/// the largest distance of a point of the second shape from its pose's
/// origin; the deepest reused depth is then within `2 d` of the exact
/// manifold's (`d` since the computation, `d` for the exact one), and a
/// pair with or without a manifold when computed keeps it or its absence
/// while its exact deepest point may have crossed the prediction's edge by
/// up to `2 d`. Pairs of two spheres are always computed (their manifold
/// costs less than the reuse), and so are pairs with a mesh, a heightfield
/// or a compound.
///
/// Jolt's default (1 mm and 2 degrees) suits metre-scale bodies.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// let reuse = ManifoldReuse::new(1e-3, 2f32.to_radians()).unwrap();
/// assert_eq!(reuse.max_translation(), 1e-3);
/// assert!(ManifoldReuse::new(-1.0, 0.1).is_err());
/// assert!(ManifoldReuse::new(1e-3, f32::NAN).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "(Real, Real)", into = "(Real, Real)"))]
pub struct ManifoldReuse {
    max_translation: Real,
    max_rotation: Real,
}

impl ManifoldReuse {
    /// The tolerance of `max_translation` (in length units) and
    /// `max_rotation` (radians, at most pi).
    ///
    /// # Errors
    /// [`SceneError::InvalidReuseTolerance`] when either is negative, NaN or
    /// infinite, or `max_rotation` exceeds pi.
    pub fn new(max_translation: Real, max_rotation: Real) -> Result<Self, SceneError> {
        let valid = |x: Real, most: Real| x.is_finite() && (0.0..=most).contains(&x);
        if !(valid(max_translation, Real::MAX) && valid(max_rotation, core::f32::consts::PI)) {
            return Err(SceneError::InvalidReuseTolerance);
        }
        Ok(Self { max_translation, max_rotation })
    }

    /// The largest translation of the relative pose.
    pub fn max_translation(&self) -> Real {
        self.max_translation
    }

    /// The largest rotation of the relative pose, in radians.
    pub fn max_rotation(&self) -> Real {
        self.max_rotation
    }

    /// The test of a relative pose against the one a manifold was computed
    /// at.
    pub(super) fn check(&self) -> Check {
        Check {
            max_translation2: self.max_translation * self.max_translation,
            cos_half_rotation: (0.5 * self.max_rotation).cos(),
        }
    }
}

/// `(max_translation, max_rotation)`, validated as [`ManifoldReuse::new`]
/// does (a snapshot holds the pair).
impl TryFrom<(Real, Real)> for ManifoldReuse {
    type Error = SceneError;

    fn try_from((max_translation, max_rotation): (Real, Real)) -> Result<Self, SceneError> {
        Self::new(max_translation, max_rotation)
    }
}

impl From<ManifoldReuse> for (Real, Real) {
    fn from(reuse: ManifoldReuse) -> Self {
        (reuse.max_translation, reuse.max_rotation)
    }
}

/// [`ManifoldReuse`] as compared each frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Check {
    max_translation2: Real,
    /// Two unit quaternions are at most `max_rotation` apart exactly when
    /// `|q1 . q2| >= cos(max_rotation / 2)`.
    cos_half_rotation: Real,
}

impl Check {
    #[inline]
    fn close(&self, then: &Isometry, now: &Isometry) -> bool {
        (now.translation.vector - then.translation.vector).norm_squared() <= self.max_translation2
            && then.rotation.coords.dot(&now.rotation.coords).abs() >= self.cos_half_rotation
    }
}

/// A pair's manifold as computed at `relative`, in the bodies' frames:
/// the normal and `point_a` in A's frame, `point_b` in B's (depths unused).
#[derive(Clone, Copy, Debug)]
pub(super) struct Kept {
    key: u64,
    a: ColliderHandle,
    b: ColliderHandle,
    /// B's pose in A's frame when the manifold was computed.
    relative: Isometry,
    local: Option<ContactManifold>,
}

/// Whether a pair's manifold may be reused: two convex shapes, not two
/// spheres.
#[inline]
pub(super) fn reusable(a: &WorldShape, b: &WorldShape) -> bool {
    use WorldShape as S;
    let convex =
        |s: &WorldShape| matches!(s, S::Sphere(_) | S::Aabb(_) | S::Obb(_) | S::Capsule(_) | S::ConvexHull(..));
    convex(a) && convex(b) && !matches!((a, b), (S::Sphere(_), S::Sphere(_)))
}

/// The reuse of one run of candidates (sorted by key): the kept list of the
/// last frame, read from the first key on, and the list of this frame.
pub(super) struct Reuse<'k> {
    check: Check,
    previous: &'k [Kept],
    at: usize,
    next: &'k mut Vec<Kept>,
}

impl<'k> Reuse<'k> {
    /// Reads `previous` from the first entry at or after `first_key`.
    pub(super) fn new(check: Check, previous: &'k [Kept], first_key: u64, next: &'k mut Vec<Kept>) -> Self {
        let at = previous.partition_point(|k| k.key < first_key);
        Self { check, previous, at, next }
    }

    /// The manifold of candidate `key` (colliders `ca`, `cb` with handles
    /// `a`, `b`; keys come in increasing order): the kept one carried to
    /// the current poses when it was computed for these two colliders at a
    /// relative pose within the tolerance of this one, else `fresh()`,
    /// kept for the next frames.
    #[inline]
    pub(super) fn manifold(
        &mut self,
        key: u64,
        (a, ca): (ColliderHandle, &Collider),
        (b, cb): (ColliderHandle, &Collider),
        fresh: impl FnOnce() -> Option<ContactManifold>,
    ) -> Option<ContactManifold> {
        while self.previous.get(self.at).is_some_and(|k| k.key < key) {
            self.at += 1;
        }
        let (pose_a, pose_b) = (ca.pose(), cb.pose());
        let relative = pose_a.inv_mul(pose_b);
        if let Some(kept) = self.previous.get(self.at) {
            if kept.key == key && kept.a == a && kept.b == b && self.check.close(&kept.relative, &relative) {
                self.next.push(*kept);
                let local = kept.local.as_ref()?;
                return Some(carried(local, (&rotation_of(ca), pose_a), (&rotation_of(cb), pose_b)));
            }
        }
        let manifold = fresh();
        let local = manifold.as_ref().map(|m| in_frames(m, (&rotation_of(ca), pose_a), (&rotation_of(cb), pose_b)));
        self.next.push(Kept { key, a, b, relative, local });
        manifold
    }
}

/// `m` (world frame) with its normal and `point_a` in A's frame and
/// `point_b` in B's (rotations `ra`, `rb` from [`rotation_of`]).
fn in_frames(m: &ContactManifold, (ra, ta): (&Matrix, &Isometry), (rb, tb): (&Matrix, &Isometry)) -> ContactManifold {
    let (ta, tb) = (ta.translation.vector, tb.translation.vector);
    let normal = UnitVector::new_unchecked(ra.tr_mul(&m.normal));
    m.with_points(normal, |p| ManifoldPoint {
        point_a: Point::from(ra.tr_mul(&(p.point_a.coords - ta))),
        point_b: Point::from(rb.tr_mul(&(p.point_b.coords - tb))),
        ..*p
    })
}

/// A kept manifold placed by the current poses, each point's depth measured
/// along the placed normal (`point_a - point_b = depth normal` for points
/// on the normal's line).
fn carried(local: &ContactManifold, (ra, ta): (&Matrix, &Isometry), (rb, tb): (&Matrix, &Isometry)) -> ContactManifold {
    let (ta, tb) = (ta.translation.vector, tb.translation.vector);
    // A rotation keeps the unit length up to rounding, which does not add
    // up: the kept normal is placed afresh each frame.
    let normal = UnitVector::new_unchecked(ra * local.normal.into_inner());
    local.with_points(normal, |p| {
        let (point_a, point_b) = (Point::from(ra * p.point_a.coords + ta), Point::from(rb * p.point_b.coords + tb));
        ManifoldPoint { point_a, point_b, depth: (point_a - point_b).dot(&normal), id: p.id }
    })
}

/// A collider's rotation as a matrix: a box's axes as placed (no
/// conversion), the quaternion's matrix otherwise. Kept and carried
/// manifolds use the same one, so a pose that did not move carries them
/// back to within rounding.
#[inline]
fn rotation_of(c: &Collider) -> Matrix {
    match &c.world {
        WorldShape::Obb(o) => *o.axes(),
        WorldShape::Aabb(_) => Matrix::identity(),
        _ => *c.pose().rotation.to_rotation_matrix().matrix(),
    }
}
