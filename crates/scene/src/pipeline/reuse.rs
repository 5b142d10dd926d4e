//! Opt-in reuse of a pair's manifold from an earlier frame while the pair's
//! relative pose stays within a tolerance of the pose it was computed at
//! (Jolt's body-pair cache): the manifold's points ride on their bodies
//! (each witness point moved by its own body's motion since, the normal by
//! the first body's), and each point's depth is measured again along the
//! carried normal.
//!
//! The kept manifolds form a list sorted by pair key, replaced each frame by
//! the list of the pairs tested (a merge with the candidates, which are
//! sorted the same way).

use proxima_narrowphase::{ContactManifold, Isometry, ManifoldPoint, Real};

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
/// up to `2 d` (plus the f32 rounding of carrying the points, a few
/// ulps of their world coordinates). Pairs with a sphere are always computed (their manifold
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
        let chord = 2.0 * (0.25 * self.max_rotation).sin();
        Check { max_translation2: self.max_translation * self.max_translation, max_chord2: chord * chord }
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
    /// Two unit quaternions `angle` apart (`q2 = q1 r`, `r` a turn by
    /// `angle`) are `|q1 - s q2| = 2 sin(angle / 4)` apart, `s` the sign of
    /// `q1 . q2` (both name the same rotation): the square of that for the
    /// largest rotation. Differences of the components, unlike `q1 . q2`
    /// against `cos(angle / 2)`, keep small angles apart from 0 in f32.
    max_chord2: Real,
}

impl Check {
    #[inline]
    fn close(&self, then: &Isometry, now: &Isometry) -> bool {
        let (q1, q2) = (then.rotation.coords, now.rotation.coords);
        let chord2 = if q1.dot(&q2) >= 0.0 { (q1 - q2).norm_squared() } else { (q1 + q2).norm_squared() };
        (now.translation.vector - then.translation.vector).norm_squared() <= self.max_translation2
            && chord2 <= self.max_chord2
    }
}

/// A pair's entry: its relative pose when its manifold was computed (or,
/// for a pair that keeps none, last step), and its kept manifold.
#[derive(Clone, Copy, Debug)]
pub(super) struct Kept {
    key: u64,
    a: ColliderHandle,
    b: ColliderHandle,
    /// B's pose in A's frame then.
    relative: Isometry,
    /// The index of its manifold in [`KeptLists::stored`], or [`NOT_STORED`].
    stored: u32,
}

/// A kept manifold, with the poses it was computed at.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stored {
    pose_a: Isometry,
    pose_b: Isometry,
    manifold: Option<ContactManifold>,
}

/// [`Kept::stored`] of a pair that moved past the tolerance in its last
/// step: its manifold would not be reused next step, so none is kept.
const NOT_STORED: u32 = u32::MAX;

/// The pairs' entries, sorted by key, and the manifolds kept for those
/// that came to rest.
#[derive(Clone, Debug, Default)]
pub(super) struct KeptLists {
    pairs: Vec<Kept>,
    stored: Vec<Stored>,
}

impl KeptLists {
    pub(super) fn clear(&mut self) {
        self.pairs.clear();
        self.stored.clear();
    }

    /// Appends `lists` in order (the slices of a parallel frame).
    #[cfg(feature = "parallel")]
    pub(super) fn extend<'l>(&mut self, lists: impl IntoIterator<Item = &'l KeptLists>) {
        for list in lists {
            let offset = self.stored.len() as u32;
            self.stored.extend_from_slice(&list.stored);
            let moved =
                |k: &Kept| Kept { stored: if k.stored == NOT_STORED { NOT_STORED } else { k.stored + offset }, ..*k };
            self.pairs.extend(list.pairs.iter().map(moved));
        }
    }

    fn push(&mut self, pair: Kept, stored: Option<Stored>) {
        let stored = stored.map_or(NOT_STORED, |s| {
            self.stored.push(s);
            self.stored.len() as u32 - 1
        });
        self.pairs.push(Kept { stored, ..pair });
    }
}

/// Whether a pair's manifold may be reused: two convex shapes, neither a
/// sphere (a sphere's manifold, one point, costs less than keeping it, and
/// a rolling ball's relative pose leaves any tolerance at once).
#[inline]
pub(super) fn reusable(a: &WorldShape, b: &WorldShape) -> bool {
    use WorldShape as S;
    let kept = |s: &WorldShape| matches!(s, S::Aabb(_) | S::Obb(_) | S::Capsule(_) | S::ConvexHull(..));
    kept(a) && kept(b)
}

/// The reuse of one run of candidates (sorted by key): the kept lists of
/// the last frame, read from the first key on, and the lists of this frame.
pub(super) struct Reuse<'k> {
    check: Check,
    previous: &'k KeptLists,
    at: usize,
    next: &'k mut KeptLists,
}

impl<'k> Reuse<'k> {
    /// Reads `previous` from the first entry at or after `first_key`.
    pub(super) fn new(check: Check, previous: &'k KeptLists, first_key: u64, next: &'k mut KeptLists) -> Self {
        let at = previous.pairs.partition_point(|k| k.key < first_key);
        Self { check, previous, at, next }
    }

    /// The manifold of candidate `key` (colliders `ca`, `cb` with handles
    /// `a`, `b`; keys come in increasing order): the kept one carried to
    /// the current poses when it was computed for these two colliders at a
    /// relative pose within the tolerance of this one, else `fresh()`. A
    /// fresh manifold is kept when the pair moved within the tolerance
    /// since the last step (it is coming to rest); a pair that moved more
    /// keeps only its relative pose, to be compared next step.
    #[inline]
    pub(super) fn manifold(
        &mut self,
        key: u64,
        (a, ca): (ColliderHandle, &Collider),
        (b, cb): (ColliderHandle, &Collider),
        fresh: impl FnOnce() -> Option<ContactManifold>,
    ) -> Option<ContactManifold> {
        let pairs = &self.previous.pairs;
        while pairs.get(self.at).is_some_and(|k| k.key < key) {
            self.at += 1;
        }
        let (pose_a, pose_b) = (ca.pose(), cb.pose());
        let relative = pose_a.inv_mul(pose_b);
        let entry = Kept { key, a, b, relative, stored: NOT_STORED };
        let Some(kept) = pairs.get(self.at).filter(|k| k.key == key && k.a == a && k.b == b) else {
            self.next.push(entry, None);
            return fresh();
        };
        if !self.check.close(&kept.relative, &relative) {
            self.next.push(entry, None);
            return fresh();
        }
        if let Some(stored) = self.previous.stored.get(kept.stored as usize) {
            self.next.push(*kept, Some(*stored));
            let m = stored.manifold.as_ref()?;
            return Some(carried(m, pose_a * stored.pose_a.inverse(), pose_b * stored.pose_b.inverse()));
        }
        let manifold = fresh();
        self.next.push(entry, Some(Stored { pose_a: *pose_a, pose_b: *pose_b, manifold }));
        manifold
    }
}

/// A kept manifold carried by its bodies' motions since (`move_a` takes A
/// from its pose then to its pose now, `move_b` B), each point's depth
/// measured again along the carried normal (`point_a - point_b = depth
/// normal` for points on the normal's line). A manifold kept in world space
/// costs nothing to keep; only a reused one is moved.
fn carried(m: &ContactManifold, move_a: Isometry, move_b: Isometry) -> ContactManifold {
    let normal = move_a.rotation * m.normal;
    m.with_points(normal, |p| {
        let (point_a, point_b) = (move_a * p.point_a, move_b * p.point_b);
        ManifoldPoint { point_a, point_b, depth: (point_a - point_b).dot(&normal), id: p.id }
    })
}
