//! User-set edge flags: per triangle, which of its edges the contact
//! manifolds treat as active (a real ridge or valley, whose edge normals are
//! kept) or internal (a seam inside a surface, whose sideways normals are
//! removed), over the automatic rule of `manifold.rs`.

use super::TriMesh;
use crate::error::MeshError;

/// How the contact manifolds treat one edge of one triangle (see
/// [`TriMesh::with_edge_flags`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EdgeMode {
    /// The automatic rule: active when the edge is on the boundary, shared
    /// by more than two triangles, or its two faces' normals are more than
    /// 5 degrees apart; internal otherwise.
    #[default]
    Auto,
    /// Active whatever the angle: contacts on the edge keep their normal.
    Active,
    /// Internal whatever the angle or the boundary: contacts on the edge
    /// never keep a normal that leans off the triangle's face normal.
    Internal,
}

/// The [`EdgeMode`] of a triangle's three edges, edge `k` joining vertices
/// `k` and `k + 1 (mod 3)` of its index triple, in one byte: bit `k` set
/// forces edge `k` [`Active`](EdgeMode::Active), bit `3 + k` forces it
/// [`Internal`](EdgeMode::Internal), neither leaves it
/// [`Auto`](EdgeMode::Auto); both bits of one edge, or bits 6 and 7, are
/// invalid ([`EdgeFlags::from_bits`]). The default is every edge `Auto`.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// let f = EdgeFlags::new([EdgeMode::Auto, EdgeMode::Internal, EdgeMode::Active]);
/// assert_eq!(f.bits(), 0b010_100);
/// assert_eq!(f.mode(1), EdgeMode::Internal);
/// assert_eq!(EdgeFlags::from_bits(f.bits()), Ok(f));
/// assert_eq!(EdgeFlags::from_bits(0b001_001), Err(MeshError::InvalidEdgeFlags { bits: 0b001_001 }));
/// assert_eq!(EdgeFlags::default(), EdgeFlags::AUTO);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EdgeFlags(u8);

impl EdgeFlags {
    /// Every edge [`EdgeMode::Auto`]: the automatic rule.
    pub const AUTO: Self = Self(0);
    /// Every edge [`EdgeMode::Active`].
    pub const ACTIVE: Self = Self(0b000_111);
    /// Every edge [`EdgeMode::Internal`].
    pub const INTERNAL: Self = Self(0b111_000);

    /// The flags of edges 0, 1 and 2.
    #[must_use]
    pub const fn new(modes: [EdgeMode; 3]) -> Self {
        Self::AUTO.with_mode(0, modes[0]).with_mode(1, modes[1]).with_mode(2, modes[2])
    }

    /// The flags from their byte (see [`EdgeFlags`]); an edge both active
    /// and internal, or bit 6 or 7 set, is [`MeshError::InvalidEdgeFlags`].
    pub fn from_bits(bits: u8) -> Result<Self, MeshError> {
        if bits & 0b1100_0000 != 0 || bits & (bits >> 3) & 0b111 != 0 {
            return Err(MeshError::InvalidEdgeFlags { bits });
        }
        Ok(Self(bits))
    }

    /// The flags' byte (see [`EdgeFlags`]).
    #[must_use]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The mode of edge `edge` (0, 1 or 2).
    ///
    /// # Panics
    /// When `edge > 2`.
    #[must_use]
    pub const fn mode(self, edge: usize) -> EdgeMode {
        assert!(edge < 3, "a triangle has edges 0, 1 and 2");
        if self.0 & (1 << edge) != 0 {
            EdgeMode::Active
        } else if self.0 & (8 << edge) != 0 {
            EdgeMode::Internal
        } else {
            EdgeMode::Auto
        }
    }

    /// These flags with edge `edge` (0, 1 or 2) set to `mode`.
    ///
    /// # Panics
    /// When `edge > 2`.
    #[must_use]
    pub const fn with_mode(self, edge: usize, mode: EdgeMode) -> Self {
        assert!(edge < 3, "a triangle has edges 0, 1 and 2");
        let cleared = self.0 & !(9 << edge);
        Self(match mode {
            EdgeMode::Auto => cleared,
            EdgeMode::Active => cleared | (1 << edge),
            EdgeMode::Internal => cleared | (8 << edge),
        })
    }

    /// The active-edge bits (bit `k` for edge `k`) of a triangle whose
    /// automatic bits are `auto`: the forced edges replaced.
    #[inline]
    pub(super) fn resolve(self, auto: u8) -> u8 {
        (auto | (self.0 & 0b111)) & !(self.0 >> 3)
    }
}

impl TriMesh {
    /// The mesh with edge flags per triangle, `flags[t]` for triangle `t`
    /// in [`TriMesh::indices`] order; rejects a list whose length is not the
    /// number of triangles ([`MeshError::EdgeFlagCount`]). Stored as one
    /// byte a triangle; rays, sweeps, overlaps and single contacts ignore
    /// them: they shape the contact manifolds
    /// ([`contact_manifolds`](crate::contact_manifolds), the pipeline's
    /// manifolds) of convex shapes against the mesh.
    ///
    /// **What an edge's mode does.** A triangle's contact with a convex
    /// shape is a face contact (its normal within 1.4 degrees of the
    /// triangle's), or an edge or a vertex contact (the deepest point on an
    /// edge or a vertex of the triangle; a vertex is internal when both of
    /// the triangle's edges at it are). Each edge of each triangle is active
    /// or internal, by its [`EdgeMode`]: `Auto` (the default) takes the
    /// automatic rule, `Active` and `Internal` force it.
    /// - A face contact is always kept.
    /// - An edge or vertex contact is *held* when it is no deeper than the
    ///   deepest face contact of the query (within rounding), and
    ///   *supported* when every vertex of its feature belongs to a triangle
    ///   with a face contact (a touching one, for a touching contact): a
    ///   held and supported contact is dropped, whatever the flags (the
    ///   neighbour's face holds the shape there).
    /// - An edge or vertex contact on an internal feature never keeps its
    ///   own normal: held, it is dropped when speculative (depth < 0) or
    ///   when a touching face contact's normal is within 5 degrees of its
    ///   triangle's; otherwise it is turned to the triangle's face normal (a
    ///   speculative contact keeps its triangle points and depths; a
    ///   touching one becomes the shape's deepest point below the
    ///   triangle's plane, at that depth).
    /// - An edge or vertex contact on an active feature keeps its normal.
    ///
    /// Flags belong to a triangle's side of an edge: a shared edge's mode
    /// in one triangle governs the contacts that triangle reports, and the
    /// neighbour's own flag its own; set both alike to treat the edge as
    /// one. Mark internal the seams of a surface that the angle rule calls
    /// active (a finely tessellated curved floor whose triangles meet at
    /// more than 5 degrees), and active the real edges it calls internal (a
    /// shallow kerb). A mesh without flags, or with every edge `Auto`, gives
    /// the same manifolds bit for bit.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Point;
    /// let p = |x, z| Point::new(x, 0.0, z);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    /// // The diagonal [0, 2] is edge 2 of triangle 0 and edge 0 of triangle 1.
    /// let seam = [EdgeFlags::AUTO.with_mode(2, EdgeMode::Internal), EdgeFlags::AUTO.with_mode(0, EdgeMode::Internal)];
    /// let mesh = mesh.with_edge_flags(seam.to_vec()).unwrap();
    /// assert_eq!(mesh.edge_flags().unwrap()[1].mode(0), EdgeMode::Internal);
    /// assert_eq!(mesh.with_edge_flags(vec![]).err(), Some(MeshError::EdgeFlagCount { expected: 2, got: 0 }));
    /// ```
    pub fn with_edge_flags(mut self, flags: Vec<EdgeFlags>) -> Result<Self, MeshError> {
        let expected = self.indices.len();
        if flags.len() != expected {
            return Err(MeshError::EdgeFlagCount { expected, got: flags.len() });
        }
        self.edge_flags = flags;
        // Recomputed with the flags on the next manifold query.
        self.active_edges = std::sync::OnceLock::new();
        Ok(self)
    }

    /// The edge flags, one per triangle in index order; `None` for a mesh
    /// without them (every edge [`EdgeMode::Auto`]).
    pub fn edge_flags(&self) -> Option<&[EdgeFlags]> {
        (!self.edge_flags.is_empty()).then_some(&self.edge_flags[..])
    }
}
