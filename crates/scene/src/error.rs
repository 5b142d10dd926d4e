//! The scene's typed errors.

use core::fmt;

use proxima_narrowphase::ShapeError;

use crate::collider::ColliderHandle;

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
    /// The OBJ file could not be read or parsed (`TriMesh::from_obj`, `obj`
    /// feature).
    Obj(String),
    /// The material list is not one id per triangle
    /// (`TriMesh::with_materials`).
    MaterialCount {
        /// The number of triangles.
        expected: usize,
        /// The number of ids given.
        got: usize,
    },
    /// The edge-flag list is not one entry per triangle
    /// (`TriMesh::with_edge_flags`).
    EdgeFlagCount {
        /// The number of triangles.
        expected: usize,
        /// The number of flags given.
        got: usize,
    },
    /// An edge-flag byte marks an edge both active and internal, or sets bit
    /// 6 or 7 (`EdgeFlags::from_bits`).
    InvalidEdgeFlags {
        /// The byte given.
        bits: u8,
    },
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("mesh has no triangles"),
            Self::IndexOutOfRange { triangle } => write!(f, "triangle {triangle} has a vertex index out of range"),
            Self::Shape { triangle, error } => write!(f, "triangle {triangle}: {error}"),
            Self::Obj(e) => write!(f, "cannot load OBJ: {e}"),
            Self::MaterialCount { expected, got } => {
                write!(f, "{got} material ids given for a mesh of {expected} triangles")
            }
            Self::EdgeFlagCount { expected, got } => {
                write!(f, "{got} edge flags given for a mesh of {expected} triangles")
            }
            Self::InvalidEdgeFlags { bits } => {
                write!(f, "edge flags {bits:#010b} mark an edge both active and internal, or set bit 6 or 7")
            }
        }
    }
}

impl std::error::Error for MeshError {}

/// Why a heightfield could not be built (see
/// [`HeightField::try_new`](crate::HeightField::try_new)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum HeightFieldError {
    /// Fewer than 2 rows or 2 columns of samples: no cell.
    TooFewSamples {
        /// The rows of samples given.
        rows: usize,
        /// The columns of samples given.
        cols: usize,
    },
    /// `2 (rows - 1) (cols - 1)` triangles or `rows cols` vertices do not fit
    /// a triangle mesh's `u32` indices.
    TooManySamples,
    /// A height is NaN or infinite.
    NonFiniteHeight {
        /// The sample's row (along z).
        row: usize,
        /// The sample's column (along x).
        col: usize,
    },
    /// A component of the scale is NaN or infinite.
    NonFiniteScale,
    /// A component of the scale is zero or negative.
    NonPositiveScale,
    /// A vertex coordinate (`height * scale.y`, or `scale.x / 2`, `scale.z / 2`)
    /// is beyond [`MAX_COORDINATE`](proxima_narrowphase::MAX_COORDINATE) in
    /// magnitude; `row` and `col` name the first such sample.
    TooLarge {
        /// The sample's row (along z).
        row: usize,
        /// The sample's column (along x).
        col: usize,
    },
    /// The hole mask is not one flag per cell, `(rows - 1) x (cols - 1)`.
    HolesShape {
        /// The cells, `(rows - 1, cols - 1)`.
        expected: (usize, usize),
        /// The mask's shape.
        got: (usize, usize),
    },
    /// Every cell is a hole: no triangle is left.
    AllHoles,
    /// The material list is not one id per cell triangle,
    /// `2 (rows - 1) (cols - 1)` (see
    /// [`HeightField::with_materials`](crate::HeightField::with_materials)).
    MaterialCount {
        /// The number of cell triangles, holes included.
        expected: usize,
        /// The number of ids given.
        got: usize,
    },
    /// The edge-flag list is not one entry per cell triangle,
    /// `2 (rows - 1) (cols - 1)` (see
    /// [`HeightField::with_edge_flags`](crate::HeightField::with_edge_flags)).
    EdgeFlagCount {
        /// The number of cell triangles, holes included.
        expected: usize,
        /// The number of flags given.
        got: usize,
    },
}

impl fmt::Display for HeightFieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooFewSamples { rows, cols } => {
                write!(f, "a heightfield needs at least 2x2 samples, got {rows}x{cols}")
            }
            Self::TooManySamples => f.write_str("too many heightfield samples for u32 triangle indices"),
            Self::NonFiniteHeight { row, col } => write!(f, "height ({row}, {col}) is NaN or infinite"),
            Self::NonFiniteScale => f.write_str("the heightfield scale is NaN or infinite"),
            Self::NonPositiveScale => f.write_str("the heightfield scale has a zero or negative component"),
            Self::TooLarge { row, col } => write!(f, "sample ({row}, {col}) lies beyond MAX_COORDINATE"),
            Self::HolesShape { expected, got } => write!(
                f,
                "the hole mask is {}x{}, the heightfield has {}x{} cells",
                got.0, got.1, expected.0, expected.1
            ),
            Self::AllHoles => f.write_str("every heightfield cell is a hole"),
            Self::MaterialCount { expected, got } => {
                write!(f, "{got} material ids given for a heightfield of {expected} cell triangles")
            }
            Self::EdgeFlagCount { expected, got } => {
                write!(f, "{got} edge flags given for a heightfield of {expected} cell triangles")
            }
        }
    }
}

impl std::error::Error for HeightFieldError {}

/// Why a scene operation was rejected. A rejected call leaves the scene unchanged.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SceneError {
    /// The handle names no collider: removed (its generation does not match
    /// the slot's), or made by another scene (its scene id differs).
    StaleHandle,
    /// The shape or pose is invalid (NaN, infinity, negative size).
    InvalidShape(ShapeError),
    /// No longer returned: continuous collision takes every convex shape,
    /// and a triangle mesh flagged for it is refused with
    /// [`ShapeNotConvex`](Self::ShapeNotConvex).
    #[deprecated(note = "continuous collision takes every convex shape; a mesh is refused with ShapeNotConvex")]
    CcdNeedsSphere,
    /// A prediction distance must be finite and `>= 0`.
    InvalidPrediction,
    /// A manifold reuse tolerance must be finite and `>= 0`, its rotation
    /// at most pi ([`ManifoldReuse::new`](crate::ManifoldReuse::new)).
    InvalidReuseTolerance,
    /// The pose is invalid, whatever the shape (see [`PoseError`]); `handle`
    /// names the collider it was meant for (`None` on insertion).
    InvalidPose {
        /// The collider whose pose was rejected (`set_pose`, `teleport`).
        handle: Option<ColliderHandle>,
        /// What is wrong with the pose.
        error: PoseError,
    },
    /// A cast's motion has a NaN or infinite component, or carries the
    /// shape beyond the finite range ([`Scene::cast_shape`](crate::Scene::cast_shape)).
    InvalidMotion,
    /// Only convex shapes and compounds can be cast or flagged for continuous
    /// collision: a triangle mesh or a heightfield cannot
    /// ([`Scene::cast_shape`](crate::Scene::cast_shape),
    /// [`ColliderDesc::with_ccd`](crate::ColliderDesc::with_ccd),
    /// [`ColliderShape::is_sweepable`](crate::ColliderShape::is_sweepable)).
    ShapeNotConvex,
}

/// Why a pose was rejected. Every collider's pose follows one rule: a finite
/// translation within [`MAX_COORDINATE`](proxima_narrowphase::MAX_COORDINATE),
/// and a finite quaternion with `||q|^2 - 1| <= `[`POSE_ROTATION_TOLERANCE`],
/// which is renormalised (a quaternion integrated without renormalising
/// drifts off unit length slowly); beyond it, or zero, it is rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PoseError {
    /// A translation component is NaN or infinite.
    NonFiniteTranslation,
    /// A translation component is beyond `MAX_COORDINATE`.
    TranslationTooLarge,
    /// The quaternion has a NaN or infinite component, or is off unit length
    /// by more than the tolerance (a zero quaternion included).
    InvalidRotation,
}

/// How far `|q|^2` may be from 1 for a pose's quaternion to be renormalised
/// rather than rejected: `1e-2` (a quaternion 1.005 long).
pub const POSE_ROTATION_TOLERANCE: f32 = 1e-2;

impl fmt::Display for PoseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NonFiniteTranslation => "the translation is NaN or infinite",
            Self::TranslationTooLarge => "the translation is beyond MAX_COORDINATE",
            Self::InvalidRotation => "the rotation quaternion is not finite or not unit length (within 1e-2 in |q|^2)",
        })
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::StaleHandle => f.write_str("stale or foreign collider handle"),
            Self::InvalidShape(e) => write!(f, "invalid collider: {e}"),
            #[allow(deprecated)]
            Self::CcdNeedsSphere => f.write_str("continuous collision is supported for spheres only"),
            Self::InvalidPrediction => f.write_str("the prediction distance must be finite and non-negative"),
            Self::InvalidReuseTolerance => {
                f.write_str("a manifold reuse tolerance must be finite and non-negative, its rotation at most pi")
            }
            Self::InvalidPose { handle: Some(h), error } => {
                write!(f, "invalid pose for collider {}: {error}", h.index())
            }
            Self::InvalidPose { handle: None, error } => write!(f, "invalid pose: {error}"),
            Self::InvalidMotion => f.write_str("the motion is NaN, infinite or leaves the finite range"),
            Self::ShapeNotConvex => f.write_str(
                "only convex shapes and compounds can be cast or swept by continuous collision (not a mesh)",
            ),
        }
    }
}

impl std::error::Error for SceneError {}

impl From<ShapeError> for SceneError {
    fn from(e: ShapeError) -> Self {
        Self::InvalidShape(e)
    }
}
