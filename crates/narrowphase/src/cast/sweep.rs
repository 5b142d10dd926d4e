//! Swept spheres (continuous collision): the result type shared by every
//! `cast_sphere_*` function.
//!
//! Conventions, for every `cast_sphere_*(moving, motion, target)`:
//! - the moving sphere's centre travels `c -> c + motion` as `toi` goes from
//!   0 to 1 (a linear motion, no rotation); `target` is static;
//! - the answer is the first `toi` in `[0, 1]` at which the moving sphere
//!   touches the target (closed shapes: touching counts);
//! - `motion = 0` is allowed: the query is then the static overlap test
//!   (a [`SweepStatus::Penetrating`] hit or `None`);
//! - a motion with a NaN or infinite component returns `None`;
//! - a motion so short that `|motion|^2` underflows `f32::MIN_POSITIVE` is
//!   treated as zero.

use crate::math::{normalize_any, Point, Real, UnitVector, Vector};

/// Whether a sweep found a first contact during the motion or started in contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SweepStatus {
    /// The shapes are apart at `toi = 0` and first touch at `toi > 0`.
    Hit,
    /// The shapes already overlap or touch at `toi = 0` (then `toi == 0`).
    Penetrating,
}

/// The first contact of a moving sphere with a static shape.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SweepHit {
    /// The fraction of the motion at contact, in `[0, 1]`: the moving sphere's
    /// centre is then `c + toi * motion`. `0` when [`SweepStatus::Penetrating`].
    pub toi: Real,
    /// The contact point (world frame), on the static shape's surface. For
    /// [`SweepStatus::Hit`] it is the point where the two surfaces touch. For
    /// [`SweepStatus::Penetrating`] it is the point of the static shape's
    /// surface nearest the moving sphere's starting centre (see each function
    /// for a centre exactly on or inside the static shape).
    pub point: Point,
    /// The unit contact normal (world frame), pointing out of the static
    /// shape towards the moving sphere: at [`SweepStatus::Hit`] it is the
    /// static shape's outward normal at `point`, and the moving centre is at
    /// `point + radius * normal`.
    pub normal: UnitVector,
    /// Whether the shapes were apart at the start.
    pub status: SweepStatus,
}

impl SweepHit {
    /// A hit at `toi`; the status is [`SweepStatus::Penetrating`] exactly when `toi == 0`.
    #[inline]
    pub(crate) fn new(toi: Real, point: Point, normal: UnitVector) -> Self {
        let status = if toi == 0.0 { SweepStatus::Penetrating } else { SweepStatus::Hit };
        Self { toi, point, normal, status }
    }
}

/// True when `motion` is finite: the precondition of every sweep.
#[inline]
pub(crate) fn motion_is_finite(motion: &Vector) -> bool {
    motion.x.is_finite() && motion.y.is_finite() && motion.z.is_finite()
}

/// True when `motion` moves at all (`|motion|^2` does not underflow).
#[inline]
pub(crate) fn is_moving(motion: &Vector) -> bool {
    motion.norm_squared() >= Real::MIN_POSITIVE
}

/// `v / |v|`, or, when `v` is zero, the direction against the motion
/// (`-motion / |motion|`), or `+z` when there is no motion either. Used for
/// the normal of a contact whose geometry gives no direction (coincident
/// centres, a centre on a surface).
#[inline]
pub(crate) fn normal_or_against_motion(v: &Vector, motion: &Vector) -> UnitVector {
    normalize_any(v).or_else(|| normalize_any(&-motion)).unwrap_or_else(|| UnitVector::new_unchecked(Vector::z()))
}
