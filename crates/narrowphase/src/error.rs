//! The typed error every validating constructor returns.

use core::fmt;

/// Why a shape, ray or motion was rejected at construction.
///
/// Constructors check user data once, at the public boundary, so the kernels
/// can assume finite, well-ordered input. Non-exhaustive: a new check may add
/// a variant, so a `match` needs a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeError {
    /// A coordinate, radius or extent is NaN or infinite. The payload names it.
    NonFinite(&'static str),
    /// `min > max` on the given axis (0 = x, 1 = y, 2 = z) of a box.
    InvertedBounds {
        /// The axis whose bounds are inverted.
        axis: usize,
    },
    /// A radius is negative.
    NegativeRadius,
    /// A half-extent (or size) is negative.
    NegativeExtent,
    /// A ray or motion direction has zero length (for a ray: every
    /// component below `f32::MIN_POSITIVE`, too short to invert).
    ZeroDirection,
    /// A ray's `max_toi` is negative.
    NegativeMaxToi,
    /// A rotation quaternion or matrix is not a rotation.
    InvalidRotation,
    /// A coordinate or size exceeds [`MAX_COORDINATE`](crate::MAX_COORDINATE)
    /// (`1e18`) in magnitude. The payload names it.
    TooLarge(&'static str),
    /// A convex hull was given fewer than 4 points.
    TooFewPoints,
    /// The points of a convex hull lie on one line or at one point (within
    /// the hull's tolerance).
    CollinearPoints,
    /// The points of a convex hull lie on one plane (within the hull's
    /// tolerance).
    CoplanarPoints,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite(what) => write!(f, "{what} is NaN or infinite"),
            Self::InvertedBounds { axis } => write!(f, "box min > max on axis {axis}"),
            Self::NegativeRadius => f.write_str("radius is negative"),
            Self::NegativeExtent => f.write_str("half-extent or size is negative"),
            Self::ZeroDirection => f.write_str("direction has zero length"),
            Self::NegativeMaxToi => f.write_str("max_toi is negative"),
            Self::InvalidRotation => f.write_str("rotation is not a unit quaternion"),
            Self::TooLarge(what) => write!(f, "{what} exceeds 1e18 in magnitude (MAX_COORDINATE)"),
            Self::TooFewPoints => f.write_str("a convex hull needs at least 4 points"),
            Self::CollinearPoints => f.write_str("convex hull points are collinear or coincident"),
            Self::CoplanarPoints => f.write_str("convex hull points are coplanar"),
        }
    }
}

/// No variant wraps another error, so the default `source()` (`None`) holds.
impl std::error::Error for ShapeError {}
