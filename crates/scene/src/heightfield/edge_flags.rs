//! Per-triangle edge flags of a heightfield: set on the grid, carried into
//! its mesh.

use std::sync::Arc;

use super::HeightField;
use crate::error::HeightFieldError;
use crate::trimesh::EdgeFlags;

impl HeightField {
    /// The field with edge flags per cell triangle:
    /// `flags[2 (i (cols - 1) + j) + half]` for half `half` of cell `(i, j)` (the order of
    /// [`HeightField::with_materials`]), so `2 (rows - 1) (cols - 1)` entries,
    /// holes included (theirs are unused), else
    /// [`HeightFieldError::EdgeFlagCount`]. They act as
    /// [`TriMesh::with_edge_flags`](crate::TriMesh::with_edge_flags) says on
    /// the field's mesh ([`HeightField::mesh`]), which gets them in its own
    /// triangle order: they force an edge active (its contacts keep their
    /// edge normal: a cliff's rim) or internal (never a normal leaning off
    /// the face: a seam), over the automatic rule.
    ///
    /// Edge `k` of a triangle joins its vertices `k` and `k + 1 (mod 3)`, in
    /// the order of the type's documentation: for half 0, `[p00, p10, p01]`,
    /// edge 0 is the cell's side at `x_j`, edge 1 the diagonal and edge 2 the
    /// side at `z_i`; for half 1, `[p10, p11, p01]`, edge 0 is the side at
    /// `z_{i+1}`, edge 1 the side at `x_{j+1}` and edge 2 the diagonal.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Vector;
    /// use nalgebra::DMatrix;
    /// // 2 x 2 cells; the diagonal of cell (1, 0) forced active on both sides.
    /// let field = HeightField::try_new(DMatrix::from_element(3, 3, 0.0), Vector::new(2.0, 1.0, 2.0)).unwrap();
    /// let mut flags = vec![EdgeFlags::AUTO; 8];
    /// flags[2 * 2] = EdgeFlags::AUTO.with_mode(1, EdgeMode::Active);
    /// flags[2 * 2 + 1] = EdgeFlags::AUTO.with_mode(2, EdgeMode::Active);
    /// let field = field.with_edge_flags(flags).unwrap();
    /// assert_eq!(field.edge_flags(1, 0, 1).mode(2), EdgeMode::Active);
    /// assert_eq!(field.mesh().edge_flags().unwrap()[5].mode(2), EdgeMode::Active);
    /// let short = field.with_edge_flags(vec![EdgeFlags::AUTO; 4]);
    /// assert_eq!(short.err(), Some(HeightFieldError::EdgeFlagCount { expected: 8, got: 4 }));
    /// ```
    pub fn with_edge_flags(mut self, flags: Vec<EdgeFlags>) -> Result<Self, HeightFieldError> {
        let expected = 2 * (self.rows - 1) * (self.cols - 1);
        if flags.len() != expected {
            return Err(HeightFieldError::EdgeFlagCount { expected, got: flags.len() });
        }
        self.edge_flags = flags;
        // The same mesh (cloned only when shared), its flags in mesh order
        // (holes skipped).
        let ordered = self.grid().mesh_order(&self.edge_flags).unwrap_or_default();
        let mesh = Arc::unwrap_or_clone(self.mesh).with_edge_flags(ordered);
        self.mesh = Arc::new(mesh.expect("one entry per mesh triangle"));
        Ok(self)
    }

    /// The edge flags of half `half` of cell `(i, j)` (see
    /// [`HeightField::with_edge_flags`]): [`EdgeFlags::AUTO`] on a field
    /// without them.
    ///
    /// # Panics
    /// When `i >= rows - 1`, `j >= cols - 1` or `half > 1`.
    #[inline]
    pub fn edge_flags(&self, i: usize, j: usize, half: usize) -> EdgeFlags {
        assert!(i + 1 < self.rows && j + 1 < self.cols && half < 2, "cell ({i}, {j}) half {half} out of range");
        self.edge_flags.get(2 * (i * (self.cols - 1) + j) + half).copied().unwrap_or_default()
    }
}
