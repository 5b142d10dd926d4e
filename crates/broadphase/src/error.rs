//! The typed error of every broadphase mutation.

use crate::ProxyId;
use core::fmt;
use proxima_narrowphase::ShapeError;

/// Why a broadphase call was rejected. A rejected call changes nothing.
///
/// Boxes reach the broadphase as validated [`Aabb`](proxima_narrowphase::Aabb)s,
/// so NaN, infinite or inverted bounds are stopped at construction; the
/// [`InvalidAabb`](BroadPhaseError::InvalidAabb) variant carries such a
/// construction error when a caller builds the box and inserts it in one
/// fallible step (`From<ShapeError>` lets `?` convert it), and
/// [`source()`](std::error::Error::source) returns it. Non-exhaustive: a new
/// check may add a variant, so a `match` needs a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BroadPhaseError {
    /// A box could not be built: NaN, infinite or inverted bounds.
    InvalidAabb(ShapeError),
    /// The id was removed, or was never issued by this structure: its slot is
    /// empty or holds a proxy of another generation.
    StaleId(ProxyId),
    /// A displacement (motion prediction) has a NaN or infinite component.
    InvalidDisplacement,
    /// An option is out of range; the payload names it.
    InvalidOption(&'static str),
}

impl fmt::Display for BroadPhaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidAabb(e) => write!(f, "invalid box: {e}"),
            Self::StaleId(id) => {
                write!(f, "stale or unknown proxy id (index {}, generation {})", id.index(), id.generation())
            }
            Self::InvalidDisplacement => f.write_str("displacement is NaN or infinite"),
            Self::InvalidOption(what) => write!(f, "option out of range: {what}"),
        }
    }
}

impl std::error::Error for BroadPhaseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::InvalidAabb(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ShapeError> for BroadPhaseError {
    fn from(e: ShapeError) -> Self {
        Self::InvalidAabb(e)
    }
}
