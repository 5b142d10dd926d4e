//! Per-triangle material ids of a heightfield: set on the grid, carried
//! into its mesh.

use std::sync::Arc;

use super::HeightField;
use crate::error::HeightFieldError;

impl HeightField {
    /// The field with a material id per cell triangle: `materials[2 (i
    /// (cols - 1) + j) + half]` for half `half` (0 or 1, see the type's
    /// documentation) of cell `(i, j)`, so `2 (rows - 1) (cols - 1)` ids,
    /// holes included (their ids are unused), else
    /// [`HeightFieldError::MaterialCount`]. One id per triangle, not per cell,
    /// so that a cell's two halves may differ (a road's edge along a
    /// diagonal); a per-cell material is the same id twice. Ray hits report
    /// it ([`HeightFieldRayHit::material`](crate::HeightFieldRayHit::material),
    /// and [`TriangleHit::material`](crate::TriangleHit::material) through
    /// the mesh), and so does
    /// [`TriMesh::material_of_point_id`](crate::TriMesh::material_of_point_id)
    /// for manifold points; the mesh ([`HeightField::mesh`]) gets them
    /// too.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Vector};
    /// use nalgebra::DMatrix;
    /// // 2 x 2 cells, their triangles numbered as their ids.
    /// let field = HeightField::try_new(DMatrix::from_element(3, 3, 0.0), Vector::new(2.0, 1.0, 2.0)).unwrap();
    /// let field = field.with_materials((10..18).collect()).unwrap();
    /// assert_eq!(field.material(1, 0, 1), 10 + 2 * 2 + 1);
    /// let hit = field.cast_ray_closest(&Ray::new(Point::new(-0.9, 1.0, 0.1), -Vector::y(), 2.0)).unwrap();
    /// assert_eq!((hit.row, hit.col, hit.half, hit.material), (1, 0, 0, 14));
    /// assert_eq!(field.with_materials(vec![0; 4]).err(), Some(HeightFieldError::MaterialCount { expected: 8, got: 4 }));
    /// ```
    pub fn with_materials(mut self, materials: Vec<u32>) -> Result<Self, HeightFieldError> {
        let expected = 2 * (self.rows - 1) * (self.cols - 1);
        if materials.len() != expected {
            return Err(HeightFieldError::MaterialCount { expected, got: materials.len() });
        }
        self.materials = materials;
        // The same mesh (cloned only when shared), its materials in mesh
        // order (holes skipped).
        let ordered = self.grid().mesh_order(&self.materials).unwrap_or_default();
        let mesh = Arc::unwrap_or_clone(self.mesh).with_materials(ordered);
        self.mesh = Arc::new(mesh.expect("one id per mesh triangle"));
        Ok(self)
    }

    /// The material id of half `half` of cell `(i, j)` (see
    /// [`HeightField::with_materials`]): 0 on a field without materials.
    ///
    /// # Panics
    /// When `i >= rows - 1`, `j >= cols - 1` or `half > 1`.
    #[inline]
    pub fn material(&self, i: usize, j: usize, half: usize) -> u32 {
        assert!(i + 1 < self.rows && j + 1 < self.cols && half < 2, "cell ({i}, {j}) half {half} out of range");
        self.materials.get(2 * (i * (self.cols - 1) + j) + half).copied().unwrap_or(0)
    }
}
