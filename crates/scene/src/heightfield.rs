//! Heightfields: terrain as a regular grid of heights, two triangles a cell.
//!
//! - this file: the grid, its validation, its triangles and its mesh;
//! - `heightfield/materials.rs`: per-triangle material ids;
//! - `heightfield/edge_flags.rs`: per-triangle edge flags;
//! - `heightfield/ray.rs`: ray casts that walk the grid's cells in order
//!   along the ray.

use std::sync::Arc;

use nalgebra::DMatrix;
use proxima_narrowphase::{Aabb, Point, Real, Triangle, Vector, MAX_COORDINATE};

use crate::error::{HeightFieldError, MeshError};
use crate::trimesh::{EdgeFlags, TriMesh};

mod edge_flags;
mod materials;
mod ray;

pub use ray::HeightFieldRayHit;

/// Terrain: heights sampled on a regular grid in the xz plane, centred on
/// the origin, scaled by `scale`, the y axis up.
///
/// **Layout.** The heights are a matrix of `rows x cols` samples: row `i`
/// advances along z, column `j` along x (parry's layout). Sample `(i, j)` is
/// the vertex
///
/// `x_j = (-1/2 + j / (cols - 1)) scale.x`, `y = height(i, j) scale.y`,
/// `z_i = (-1/2 + i / (rows - 1)) scale.z`,
///
/// so the grid spans `[-scale.x / 2, scale.x / 2]` in x and likewise in z.
///
/// **Triangles.** Cell `(i, j)`, `0 <= i < rows - 1`, `0 <= j < cols - 1`, has
/// corners `p00 = (i, j)`, `p10 = (i + 1, j)`, `p01 = (i, j + 1)` and
/// `p11 = (i + 1, j + 1)` and is cut along its diagonal from `p10` to `p01`
/// (from `(x_j, z_{i+1})` to `(x_{j+1}, z_i)`) into two triangles:
/// half 0 is `[p00, p10, p01]` and half 1 is `[p10, p11, p01]`. Both are
/// wound so that `(b - a) x (c - a)` points up (`+y`): for a flat cell
/// `(p10 - p00) x (p01 - p00) = (z_{i+1} - z_i) z x (x_{j+1} - x_j) x`, a
/// positive multiple of `+y`. These are parry3d's triangles for the same
/// heights and scale, vertex for vertex.
///
/// **Holes.** A cell can be a hole ([`HeightField::try_with_holes`]): it has
/// no triangle, rays pass through it and nothing touches it.
///
/// **Materials.** Each cell triangle can carry a material id
/// ([`HeightField::with_materials`]), reported by ray hits and, through the
/// mesh, by manifold points ([`TriMesh::material_of_point_id`]).
///
/// **Edge flags.** Each edge of each cell triangle can be forced active or
/// internal for the contact manifolds ([`HeightField::with_edge_flags`]),
/// as on a [`TriMesh`].
///
/// **Queries.** [`HeightField::cast_ray_closest`] walks the grid: only the
/// cells under the ray are tested, in order along the ray, and it stops at
/// the first cell hit; no tree is needed. Every other query (contacts,
/// manifolds, sphere sweeps, CCD, overlaps, points, the scene's rays) goes
/// through a [`TriMesh`] of the same triangles built once by the
/// constructor ([`HeightField::mesh`]): a [`ColliderShape::HeightField`](crate::ColliderShape::HeightField)
/// is placed as that mesh ([`WorldShape::TriMesh`](crate::WorldShape::TriMesh)), so a heightfield
/// collider behaves exactly as a mesh collider of its triangles, internal
/// edges included (the mesh shares the grid's vertices, so each interior
/// edge is seen with both its triangles). The price is memory: the mesh
/// holds its vertices (12 B a sample), indices and block BVH (about 60 B a
/// triangle, two triangles a cell; see [`TriMesh::memory_bytes`]) besides
/// the grid's own 4 B a sample, and its build time.
#[derive(Clone, Debug)]
pub struct HeightField {
    rows: usize,
    cols: usize,
    scale: Vector,
    /// The sample heights times `scale.y`, row-major: `(i, j)` at `i cols + j`.
    ys: Vec<Real>,
    /// `x_j` per column.
    xs: Vec<Real>,
    /// `z_i` per row.
    zs: Vec<Real>,
    /// Per cell, row-major (`i (cols - 1) + j`), true for a hole; empty when
    /// there is none.
    holes: Vec<bool>,
    /// Per cell triangle, `2 (i (cols - 1) + j) + half`, its material id;
    /// empty when there are none.
    materials: Vec<u32>,
    /// Per cell triangle, `2 (i (cols - 1) + j) + half`, its edge flags;
    /// empty when there are none.
    edge_flags: Vec<EdgeFlags>,
    /// Per row strip `i` (the cells between rows `i` and `i + 1`), the
    /// lowest and highest scaled heights of its samples: the ray walk skips
    /// a strip the ray passes above or below.
    strip_heights: Vec<(Real, Real)>,
    /// Per row strip `i` and block `b` of `BLOCK_CELLS` cells (columns
    /// `b BLOCK_CELLS ..` up to the next block's first sample), at
    /// `i blocks + b` with `blocks = ceil(cols / BLOCK_CELLS)`: the lowest and
    /// highest scaled heights of its samples.
    block_heights: Vec<(Real, Real)>,
    aabb: Aabb,
    mesh: Arc<TriMesh>,
}

impl HeightField {
    /// A heightfield from a matrix of heights (row `i` along z, column `j`
    /// along x) and a scale (the grid's extent in x and z, the heights'
    /// factor in y), without holes. Builds its triangle mesh (see the type's
    /// documentation).
    ///
    /// Rejects (see [`HeightFieldError`]) fewer than 2x2 samples, a NaN or
    /// infinite height or scale, a zero or negative scale, and a vertex
    /// beyond [`MAX_COORDINATE`].
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Real, Vector};
    /// use nalgebra::DMatrix;
    /// // 3 rows (z) by 4 columns (x) of samples: 2 x 3 cells, 12 triangles,
    /// // over a 30 x 20 area, heights doubled.
    /// let heights = DMatrix::from_fn(3, 4, |i, j| (i + j) as Real);
    /// let field = HeightField::try_new(heights, Vector::new(30.0, 2.0, 20.0)).unwrap();
    /// assert_eq!((field.rows(), field.cols()), (3, 4));
    /// assert_eq!(field.height(2, 3), 5.0);
    /// assert_eq!(field.mesh().indices().len(), 12);
    /// assert_eq!(field.local_aabb().max().y, 10.0);
    /// let flat = DMatrix::from_element(1, 4, 0.0);
    /// assert_eq!(
    ///     HeightField::try_new(flat, Vector::repeat(1.0)).err(),
    ///     Some(HeightFieldError::TooFewSamples { rows: 1, cols: 4 })
    /// );
    /// ```
    pub fn try_new(heights: DMatrix<Real>, scale: Vector) -> Result<Self, HeightFieldError> {
        Self::build(heights, scale, Vec::new())
    }

    /// [`HeightField::try_new`] with holes: `holes[(i, j)]` true makes cell
    /// `(i, j)` a hole (no triangles). The mask has one flag per cell,
    /// `(rows - 1) x (cols - 1)`, else [`HeightFieldError::HolesShape`]; a
    /// mask of holes only is [`HeightFieldError::AllHoles`].
    pub fn try_with_holes(
        heights: DMatrix<Real>,
        scale: Vector,
        holes: &DMatrix<bool>,
    ) -> Result<Self, HeightFieldError> {
        let cells = (heights.nrows().saturating_sub(1), heights.ncols().saturating_sub(1));
        if heights.nrows() >= 2 && heights.ncols() >= 2 && holes.shape() != cells {
            return Err(HeightFieldError::HolesShape { expected: cells, got: holes.shape() });
        }
        let mask = (0..cells.0).flat_map(|i| (0..cells.1).map(move |j| holes[(i, j)])).collect();
        Self::build(heights, scale, mask)
    }

    fn build(heights: DMatrix<Real>, scale: Vector, holes: Vec<bool>) -> Result<Self, HeightFieldError> {
        let (rows, cols) = heights.shape();
        if rows < 2 || cols < 2 {
            return Err(HeightFieldError::TooFewSamples { rows, cols });
        }
        if !scale.iter().all(|s| s.is_finite()) {
            return Err(HeightFieldError::NonFiniteScale);
        }
        if scale.iter().any(|&s| s <= 0.0) {
            return Err(HeightFieldError::NonPositiveScale);
        }
        // Vertex indices are u32, and the mesh holds fewer than 2^32 - 1
        // triangles (two a cell).
        let triangles = 2 * (rows as u128 - 1) * (cols as u128 - 1);
        if rows as u128 * cols as u128 > u128::from(u32::MAX) || triangles >= u128::from(u32::MAX) {
            return Err(HeightFieldError::TooManySamples);
        }
        // `x_j = (-1/2 + j w) scale.x`, `w = 1 / (cols - 1)`: the same rounded
        // operations as parry's, so the vertices agree bit for bit.
        let (w, h) = (1.0 / (cols - 1) as Real, 1.0 / (rows - 1) as Real);
        let xs: Vec<Real> = (0..cols).map(|j| (-0.5 + w * j as Real) * scale.x).collect();
        let zs: Vec<Real> = (0..rows).map(|i| (-0.5 + h * i as Real) * scale.z).collect();
        let mut ys = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                let height = heights[(i, j)];
                if !height.is_finite() {
                    return Err(HeightFieldError::NonFiniteHeight { row: i, col: j });
                }
                ys.push(height * scale.y);
            }
        }
        // Every vertex within MAX_COORDINATE, as `Triangle::try_new` asks
        // (a product that overflowed to infinity fails too).
        for i in 0..rows {
            for j in 0..cols {
                if [xs[j], ys[i * cols + j], zs[i]].iter().any(|c| c.abs() > MAX_COORDINATE) {
                    return Err(HeightFieldError::TooLarge { row: i, col: j });
                }
            }
        }
        if !holes.is_empty() && holes.iter().all(|&hole| hole) {
            return Err(HeightFieldError::AllHoles);
        }
        let (lo, hi) = ys.iter().fold((Real::MAX, Real::MIN), |(lo, hi), &y| (lo.min(y), hi.max(y)));
        let aabb = Aabb::new(Point::new(xs[0], lo, zs[0]), Point::new(xs[cols - 1], hi, zs[rows - 1]));
        let grid = Grid { rows, cols, xs: &xs, ys: &ys, zs: &zs, holes: &holes, materials: &[], edge_flags: &[] };
        // The vertices are finite and bounded and at least one cell is no
        // hole: `TriMesh::new` has nothing left to reject.
        let mesh = Arc::new(grid.to_trimesh().expect("a validated heightfield makes a valid mesh"));
        let row_range = |i: usize| {
            ys[i * cols..(i + 1) * cols].iter().fold((Real::MAX, Real::MIN), |(lo, hi), &y| (lo.min(y), hi.max(y)))
        };
        let strip_heights = (0..rows - 1)
            .map(|i| {
                let ((a, b), (c, d)) = (row_range(i), row_range(i + 1));
                (a.min(c), b.max(d))
            })
            .collect();
        let blocks = cols.div_ceil(ray::BLOCK_CELLS);
        let mut block_heights = Vec::with_capacity((rows - 1) * blocks);
        for i in 0..rows - 1 {
            for b in 0..blocks {
                let (lo, hi) = (b * ray::BLOCK_CELLS, ((b + 1) * ray::BLOCK_CELLS).min(cols - 1));
                let samples = [i, i + 1].into_iter().flat_map(|r| ys[r * cols + lo..=r * cols + hi].iter());
                block_heights.push(samples.fold((Real::MAX, Real::MIN), |(l, h), &y| (l.min(y), h.max(y))));
            }
        }
        let (materials, edge_flags) = (Vec::new(), Vec::new());
        Ok(Self {
            rows,
            cols,
            scale,
            ys,
            xs,
            zs,
            holes,
            materials,
            edge_flags,
            strip_heights,
            block_heights,
            aabb,
            mesh,
        })
    }

    /// The number of sample rows (along z).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of sample columns (along x).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The scale: the grid's extent in x and z, the heights' factor in y.
    pub fn scale(&self) -> &Vector {
        &self.scale
    }

    /// The height of sample `(i, j)`, unscaled: the stored `height *
    /// scale.y` divided by `scale.y`, the given height to two roundings
    /// (`eps |height|`; exactly when `scale.y` is a power of two).
    ///
    /// # Panics
    /// When `i >= rows` or `j >= cols`.
    pub fn height(&self, i: usize, j: usize) -> Real {
        assert!(i < self.rows && j < self.cols, "sample ({i}, {j}) out of range");
        self.ys[i * self.cols + j] / self.scale.y
    }

    /// Vertex `(i, j)` in the field's frame: `(x_j, height scale.y, z_i)`.
    ///
    /// # Panics
    /// When `i >= rows` or `j >= cols`.
    #[inline]
    pub fn vertex(&self, i: usize, j: usize) -> Point {
        assert!(i < self.rows && j < self.cols, "sample ({i}, {j}) out of range");
        Point::new(self.xs[j], self.ys[i * self.cols + j], self.zs[i])
    }

    /// True when cell `(i, j)` is a hole.
    ///
    /// # Panics
    /// When `i >= rows - 1` or `j >= cols - 1`.
    pub fn is_hole(&self, i: usize, j: usize) -> bool {
        assert!(i + 1 < self.rows && j + 1 < self.cols, "cell ({i}, {j}) out of range");
        !self.holes.is_empty() && self.holes[i * (self.cols - 1) + j]
    }

    /// The two triangles of cell `(i, j)` (field frame), half 0 then half 1
    /// (see the type's documentation for the diagonal and the winding);
    /// `None` for a hole.
    ///
    /// # Panics
    /// When `i >= rows - 1` or `j >= cols - 1`.
    pub fn cell_triangles(&self, i: usize, j: usize) -> [Option<Triangle>; 2] {
        if self.is_hole(i, j) {
            return [None, None];
        }
        let [a, b] = self.cell_corners(i, j);
        [Some(Triangle::new(a[0], a[1], a[2])), Some(Triangle::new(b[0], b[1], b[2]))]
    }

    /// The vertices of cell `(i, j)`'s two triangles, unchecked for holes.
    #[inline(always)]
    pub(crate) fn cell_corners(&self, i: usize, j: usize) -> [[Point; 3]; 2] {
        let (x0, x1, z0, z1) = (self.xs[j], self.xs[j + 1], self.zs[i], self.zs[i + 1]);
        let k = i * self.cols + j;
        let p00 = Point::new(x0, self.ys[k], z0);
        let p01 = Point::new(x1, self.ys[k + 1], z0);
        let p10 = Point::new(x0, self.ys[k + self.cols], z1);
        let p11 = Point::new(x1, self.ys[k + self.cols + 1], z1);
        [[p00, p10, p01], [p10, p11, p01]]
    }

    /// The scaled heights of cell `(i, j)`'s four corners: their minimum and
    /// maximum.
    #[inline(always)]
    pub(crate) fn cell_height_range(&self, i: usize, j: usize) -> (Real, Real) {
        let k = i * self.cols + j;
        let (a, b, c, d) = (self.ys[k], self.ys[k + 1], self.ys[k + self.cols], self.ys[k + self.cols + 1]);
        (a.min(b).min(c.min(d)), a.max(b).max(c.max(d)))
    }

    /// The bounding box in the field's frame: the grid's x and z extent, the
    /// lowest and highest scaled heights.
    pub fn local_aabb(&self) -> &Aabb {
        &self.aabb
    }

    /// The triangle mesh of the field built by its constructor, which the
    /// scene places for a [`ColliderShape::HeightField`](crate::ColliderShape::HeightField):
    /// the same as [`HeightField::to_trimesh`].
    pub fn mesh(&self) -> &Arc<TriMesh> {
        &self.mesh
    }

    /// A triangle mesh of the field's triangles: vertex `(i, j)` at index
    /// `i cols + j` (shared by the up to six triangles around it), then the
    /// two triangles of each cell that is no hole, row by row, half 0 before
    /// half 1. Without holes, triangle `2 (i (cols - 1) + j) + half` is half
    /// `half` of cell `(i, j)`. With materials and edge flags, each triangle
    /// has its cell triangle's ([`HeightField::material`],
    /// [`HeightField::edge_flags`]).
    pub fn to_trimesh(&self) -> Result<TriMesh, MeshError> {
        self.grid().to_trimesh()
    }

    /// The field's samples, holes and materials, borrowed.
    fn grid(&self) -> Grid<'_> {
        Grid {
            rows: self.rows,
            cols: self.cols,
            xs: &self.xs,
            ys: &self.ys,
            zs: &self.zs,
            holes: &self.holes,
            materials: &self.materials,
            edge_flags: &self.edge_flags,
        }
    }

    /// Bytes held by the field: its samples, its hole mask, its materials
    /// (4 B a cell triangle, when set), its edge flags (1 B a cell triangle,
    /// when set) and its mesh ([`TriMesh::memory_bytes`], which holds the
    /// materials and edge flags too, in its own triangle order).
    pub fn memory_bytes(&self) -> usize {
        size_of::<Self>()
            + (self.ys.capacity() + self.xs.capacity() + self.zs.capacity()) * size_of::<Real>()
            + self.holes.capacity()
            + self.materials.capacity() * size_of::<u32>()
            + self.edge_flags.capacity() * size_of::<EdgeFlags>()
            + (self.strip_heights.capacity() + self.block_heights.capacity()) * size_of::<(Real, Real)>()
            + self.mesh.memory_bytes()
    }
}

/// A field's samples, borrowed: what its mesh is built from.
struct Grid<'a> {
    rows: usize,
    cols: usize,
    xs: &'a [Real],
    ys: &'a [Real],
    zs: &'a [Real],
    holes: &'a [bool],
    /// Per cell triangle (see `HeightField::materials`); empty for none.
    materials: &'a [u32],
    /// Per cell triangle (see `HeightField::edge_flags`); empty for none.
    edge_flags: &'a [EdgeFlags],
}

impl Grid<'_> {
    /// See [`HeightField::to_trimesh`].
    fn to_trimesh(&self) -> Result<TriMesh, MeshError> {
        let (rows, cols) = (self.rows, self.cols);
        let mut vertices = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            vertices.extend((0..cols).map(|j| Point::new(self.xs[j], self.ys[i * cols + j], self.zs[i])));
        }
        let mut indices = Vec::with_capacity(2 * (rows - 1) * (cols - 1));
        for i in 0..rows - 1 {
            for j in 0..cols - 1 {
                if self.is_hole(i * (cols - 1) + j) {
                    continue;
                }
                let p00 = (i * cols + j) as u32;
                let (p01, p10, p11) = (p00 + 1, p00 + cols as u32, p00 + cols as u32 + 1);
                indices.push([p00, p10, p01]);
                indices.push([p10, p11, p01]);
            }
        }
        let mut mesh = TriMesh::new(vertices, indices)?;
        if let Some(materials) = self.mesh_order(self.materials) {
            mesh = mesh.with_materials(materials)?;
        }
        match self.mesh_order(self.edge_flags) {
            Some(flags) => mesh.with_edge_flags(flags),
            None => Ok(mesh),
        }
    }

    /// True when cell `cell` (row-major) is a hole.
    fn is_hole(&self, cell: usize) -> bool {
        !self.holes.is_empty() && self.holes[cell]
    }

    /// A per-cell-triangle list (materials, edge flags) in the mesh's
    /// triangle order (the cells that are no hole, row-major, half 0 before
    /// half 1); `None` for an empty list.
    fn mesh_order<T: Copy>(&self, per_cell_triangle: &[T]) -> Option<Vec<T>> {
        if per_cell_triangle.is_empty() {
            return None;
        }
        let cells = (self.rows - 1) * (self.cols - 1);
        let solid = (0..cells).filter(|&c| !self.is_hole(c));
        Some(solid.flat_map(|c| [per_cell_triangle[2 * c], per_cell_triangle[2 * c + 1]]).collect())
    }
}
