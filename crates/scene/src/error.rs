//! The scene's typed errors.

use core::fmt;

use proxima_narrowphase::ShapeError;

/// Why a mesh could not be built.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum MeshError {
    /// No triangles.
    Empty,
    /// A triangle refers to a vertex that does not exist.
    IndexOutOfRange {
        /// The triangle's position in the index list.
        triangle: usize,
    },
    /// A triangle has a non-finite vertex.
    Shape {
        /// The triangle's position in the index list.
        triangle: usize,
        /// What is wrong with it.
        error: ShapeError,
    },
    /// The OBJ file could not be read or parsed.
    Obj(String),
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("mesh has no triangles"),
            Self::IndexOutOfRange { triangle } => write!(f, "triangle {triangle} has a vertex index out of range"),
            Self::Shape { triangle, error } => write!(f, "triangle {triangle}: {error}"),
            Self::Obj(e) => write!(f, "cannot load OBJ: {e}"),
        }
    }
}

impl std::error::Error for MeshError {}

/// Why a scene operation was rejected. A rejected call leaves the scene unchanged.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SceneError {
    /// The handle names no collider: removed, or from another scene (its
    /// generation does not match the slot's).
    StaleHandle,
    /// The shape or pose is invalid (NaN, infinity, negative size).
    InvalidShape(ShapeError),
    /// Only spheres can be flagged for continuous collision.
    CcdNeedsSphere,
    /// A prediction distance must be finite and `>= 0`.
    InvalidPrediction,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::StaleHandle => f.write_str("stale or foreign collider handle"),
            Self::InvalidShape(e) => write!(f, "invalid collider: {e}"),
            Self::CcdNeedsSphere => f.write_str("continuous collision is supported for spheres only"),
            Self::InvalidPrediction => f.write_str("the prediction distance must be finite and non-negative"),
        }
    }
}

impl std::error::Error for SceneError {}

impl From<ShapeError> for SceneError {
    fn from(e: ShapeError) -> Self {
        Self::InvalidShape(e)
    }
}
