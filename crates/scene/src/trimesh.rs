//! Triangle meshes with one BVH over blocks of 8 triangles: the mesh type,
//! its construction and its box query, which every other query culls with.
//!
//! - `trimesh/build.rs`: the block tree's build;
//! - `trimesh/ray.rs`, `trimesh/ray_block.rs`: rays through the block tree;
//! - `trimesh/query_ray.rs`: the mesh's ray queries in its own frame, one
//!   ray or a batch;
//! - `trimesh/query_ray_posed.rs`: world rays against a posed mesh;
//! - `trimesh/query_shape.rs`: points, sweeps, overlap tests and contacts of
//!   convex shapes against the mesh;
//! - `trimesh/manifold.rs`, `trimesh/mesh_mesh.rs`: contact manifolds, and
//!   mesh-mesh contact;
//! - `trimesh/materials.rs`: per-triangle material ids, and the triangle of a
//!   manifold point;
//! - `trimesh/edge_flags.rs`: user-set edge flags that override the
//!   automatic internal-edge rule of the manifolds.

use core::ops::ControlFlow;

use proxima_broadphase::BroadPhase;
use proxima_narrowphase::kernels::TriangleLanes;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Isometry, Point, RayHit, Real, Triangle, MAX_COORDINATE};

use crate::error::MeshError;

mod build;
mod cast_convex;
mod edge_flags;
mod face_contact;
mod manifold;
mod materials;
mod mesh_mesh;
mod query_ray;
mod query_ray_posed;
mod query_shape;
mod ray;
mod ray_block;

pub use edge_flags::{EdgeFlags, EdgeMode};
pub(crate) use manifold::{mesh_mesh_manifolds, Convex, MeshScratch};
pub(crate) use mesh_mesh::contact_mesh_mesh;
use ray::BlockTree;
use ray_block::{TriangleBlock, LANES};

/// Where a ray crossed a mesh's triangle: the triangle, and the hit point's
/// barycentric coordinates, `point = a + u (b - a) + v (c - a)` with
/// `[a, b, c]` the triangle's vertices in [`TriMesh::indices`] order (mesh
/// frame). `u, v >= 0`, `u + v <= 1` up to rounding (see
/// [`WatertightRay::barycentrics`](proxima_narrowphase::kernels::WatertightRay::barycentrics)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHit {
    /// The index of the triangle hit, in [`TriMesh::indices`] order.
    pub index: u32,
    /// The weight of vertex `b`.
    pub u: Real,
    /// The weight of vertex `c`.
    pub v: Real,
    /// The triangle's material id ([`TriMesh::material`]): 0 on a mesh
    /// without materials.
    pub material: u32,
}

/// A ray's hit on a mesh: the triangle and the hit (see [`TriMesh::cast_ray_closest`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshRayHit {
    /// The triangle hit and the barycentric coordinates of the hit point.
    pub triangle: TriangleHit,
    /// The ray parameter and the unit normal (in the ray's frame: the mesh
    /// frame for [`TriMesh::cast_ray_closest`], world for
    /// [`TriMesh::cast_ray_closest_posed`]), facing the ray's origin.
    pub hit: RayHit,
}

/// The point of a mesh closest to a query point (see [`TriMesh::closest_point`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshClosestPoint {
    /// The index of the closest triangle, in [`TriMesh::indices`] order.
    pub triangle: u32,
    /// The closest point, on that triangle (mesh frame).
    pub point: Point,
}

/// How [`TriMesh::new_with`] groups the triangles into blocks of 8: build
/// time against ray speed (Embree's build qualities make the same choice).
/// Both trees answer every query alike (the closest `toi` bit for bit); they
/// differ in speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeshBuild {
    /// The triangles sorted along a Morton curve and cut into blocks at the
    /// octree's cell boundaries (two linear passes), then an SAH tree over
    /// the blocks: the default, for meshes built often (a physics engine's
    /// deforming or streamed meshes). It builds in linear time plus one
    /// sort of the triangles' codes, well ahead of a binned SAH.
    #[default]
    FastBuild,
    /// A binned SAH over the triangles themselves that counts a leaf's cost
    /// in block tests ([`LeafCost::Blocks`](proxima_broadphase::LeafCost)),
    /// its leaves becoming the blocks: for static meshes that many rays
    /// cross (picking, line of sight, rendering). Its blocks are chosen for
    /// rays, so fewer blocks are entered per ray than with
    /// [`MeshBuild::FastBuild`], at the price of an SAH over every triangle
    /// (a build several times slower).
    FastRays,
}

/// A triangle mesh: shared vertices, indexed triangles, and one BVH over
/// blocks of 8 neighbouring triangles (each block also holds its triangles'
/// vertices, structure of arrays, for the 8-wide ray test), which answers
/// rays and box queries alike. Triangles are two-sided surfaces (a mesh has
/// no inside): rays hit front and back faces alike.
///
/// Stored per triangle: its indices (12 B), its block lane (36 B of
/// vertices, 4 B of id) and a share of the block BVH (a few bytes), besides
/// the shared vertices (12 B each); a material id (4 B,
/// [`TriMesh::with_materials`]) and edge flags (1 B,
/// [`TriMesh::with_edge_flags`]) only when they are set: see
/// [`TriMesh::memory_bytes`].
#[derive(Clone, Debug)]
pub struct TriMesh {
    vertices: Vec<Point>,
    indices: Vec<[u32; 3]>,
    /// Blocks of 8 triangles and their BVH.
    tree: BlockTree,
    aabb: Aabb,
    /// Per triangle, bit `k` set when edge `k` (from vertex `k` to `k + 1`)
    /// is active for contacts (see `manifold.rs`), `edge_flags` applied;
    /// computed on the first manifold query, so meshes used only for rays do
    /// not pay for it.
    active_edges: std::sync::OnceLock<Vec<u8>>,
    /// Per triangle, the user's edge flags; empty when none were set.
    edge_flags: Vec<EdgeFlags>,
}

impl TriMesh {
    /// A mesh from vertices and index triples; rejects an empty mesh, an index
    /// out of range and non-finite vertices. Builds the block tree (see
    /// `trimesh/build.rs`), in parallel with the `parallel` feature (the
    /// same tree for any number of threads).
    ///
    /// # Panics
    /// When there are `2^32 - 1` triangles or more.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Point;
    /// // A unit square in the z = 0 plane, two triangles.
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let mesh = TriMesh::new(v.clone(), vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    /// assert_eq!(mesh.triangles().len(), 2);
    /// assert!(mesh.memory_bytes() > 0);
    /// assert_eq!(TriMesh::new(v, vec![[0, 1, 4]]).err(), Some(MeshError::IndexOutOfRange { triangle: 0 }));
    /// ```
    pub fn new(vertices: Vec<Point>, indices: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        Self::new_with(vertices, indices, MeshBuild::default())
    }

    /// [`TriMesh::new`] with a choice of how the blocks are formed: build
    /// time against ray speed (see [`MeshBuild`]).
    ///
    /// # Panics
    /// When there are `2^32 - 1` triangles or more.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let t = vec![[0, 1, 2], [0, 2, 3]];
    /// let fast = TriMesh::new(v.clone(), t.clone()).unwrap();
    /// let sah = TriMesh::new_with(v, t, MeshBuild::FastRays).unwrap();
    /// let ray = Ray::new(Point::new(0.25, 0.5, 1.0), -Vector::z(), 10.0);
    /// assert_eq!(fast.cast_ray_closest(&ray), sah.cast_ray_closest(&ray));
    /// ```
    pub fn new_with(vertices: Vec<Point>, indices: Vec<[u32; 3]>, build: MeshBuild) -> Result<Self, MeshError> {
        if indices.is_empty() {
            return Err(MeshError::Empty);
        }
        assert!(indices.len() < u32::MAX as usize, "a TriMesh holds fewer than 2^32 - 1 triangles");
        // The checks of `Triangle::try_new` on every triangle, done once per
        // vertex: only when an index or a vertex fails (an unused vertex may)
        // are the triangles checked one by one, to name the first bad one.
        let n = vertices.len() as u64;
        let in_range = indices.iter().all(|t| t.iter().all(|&v| u64::from(v) < n));
        // `Triangle::try_new` accepts a vertex exactly when each coordinate
        // is at most `MAX_COORDINATE` in magnitude (which also rules out NaN
        // and infinities): one branch-free pass over the coordinates.
        let valid =
            in_range && vertices.iter().fold(true, |ok, p| ok & p.coords.iter().all(|c| c.abs() <= MAX_COORDINATE));
        if !valid {
            for (i, tri) in indices.iter().enumerate() {
                let v =
                    |k: usize| vertices.get(tri[k] as usize).copied().ok_or(MeshError::IndexOutOfRange { triangle: i });
                Triangle::try_new(v(0)?, v(1)?, v(2)?).map_err(|e| MeshError::Shape { triangle: i, error: e })?;
            }
        }
        let (tree, aabb) = BlockTree::new(&vertices, &indices, build);
        Ok(Self { vertices, indices, tree, aabb, active_edges: std::sync::OnceLock::new(), edge_flags: Vec::new() })
    }

    /// The former name of [`new_with`](Self::new_with).
    #[deprecated(since = "0.2.0", note = "renamed to `new_with`: `with_*` names builder methods")]
    #[doc(hidden)]
    pub fn with_build(vertices: Vec<Point>, indices: Vec<[u32; 3]>, build: MeshBuild) -> Result<Self, MeshError> {
        Self::new_with(vertices, indices, build)
    }

    /// Loads every model of an OBJ file (triangulated) into one mesh.
    ///
    /// Needs the `obj` feature (on by default).
    #[cfg(feature = "obj")]
    pub fn from_obj(path: impl AsRef<std::path::Path>) -> Result<Self, MeshError> {
        let opts = tobj::LoadOptions { triangulate: true, single_index: true, ..Default::default() };
        let (models, _) = tobj::load_obj(path.as_ref(), &opts).map_err(|e| MeshError::Obj(e.to_string()))?;
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        for m in models {
            let base = vertices.len() as u32;
            vertices.extend(m.mesh.positions.chunks_exact(3).map(|p| Point::new(p[0], p[1], p[2])));
            indices.extend(m.mesh.indices.chunks_exact(3).map(|t| [base + t[0], base + t[1], base + t[2]]));
        }
        Self::new(vertices, indices)
    }

    /// The vertices (mesh frame).
    pub fn vertices(&self) -> &[Point] {
        &self.vertices
    }

    /// The index triples.
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// Triangle `index` (mesh frame), gathered from the vertices by its
    /// index triple (triangles are not stored).
    ///
    /// # Panics
    /// When `index` is not below `indices().len()`.
    #[inline]
    pub fn triangle(&self, index: u32) -> Triangle {
        let [a, b, c] = self.indices[index as usize].map(|v| self.vertices[v as usize]);
        // Checked by `TriMesh::new`: valid indices, finite bounded vertices.
        Triangle::new_unchecked(a, b, c)
    }

    /// The triangles (mesh frame), in index order (see [`TriMesh::triangle`]).
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = Triangle> + '_ {
        (0..self.indices.len() as u32).map(|i| self.triangle(i))
    }

    /// Calls `visitor` with the index of every triangle whose box overlaps
    /// `aabb` (closed boxes, mesh frame), stopping when it breaks (returned).
    /// The order is that of the tree (deterministic, not index order).
    ///
    /// The tree culls blocks of 8 triangles by their boxes, then each
    /// triangle of an overlapping block by its own box.
    pub fn visit_triangles(&self, aabb: &Aabb, mut visitor: impl FnMut(u32) -> ControlFlow<()>) -> ControlFlow<()> {
        self.visit_candidates(aabb, |t, _| visitor(t))
    }

    /// [`TriMesh::visit_triangles`] handing the visitor each triangle too.
    ///
    /// A block's lanes are culled at once from its structure-of-arrays
    /// vertices (in cache, unlike the shared vertex list) and a passing
    /// lane's triangle is built from them: the same vertices as
    /// [`TriMesh::triangle`] gathers. Degenerate triangles (NaN lanes) are
    /// gathered and tested one by one.
    #[inline]
    pub(crate) fn visit_candidates(
        &self,
        aabb: &Aabb,
        mut visitor: impl FnMut(u32, &Triangle) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let (lo, hi) = (aabb.min(), aabb.max());
        self.tree.bvh.visit_overlaps(aabb, |block| {
            let slot = self.tree.slot[block as usize] as usize;
            let (lanes, ids) = (&self.tree.blocks[slot], &self.tree.ids[slot]);
            let mut hits = lanes.overlap_mask(lo, hi);
            while hits != 0 {
                let l = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                let [a, b, c] = lanes.vertices(l);
                // The mesh's vertices, checked by `TriMesh::new`.
                visitor(ids[l], &Triangle::new_unchecked(a, b, c))?;
            }
            self.visit_degenerate(lanes, ids, aabb, &mut visitor)
        })
    }

    /// The degenerate triangles of a block (its NaN lanes) whose box
    /// overlaps `aabb`, gathered from the mesh and handed over one by one.
    #[inline]
    fn visit_degenerate(
        &self,
        lanes: &TriangleBlock,
        ids: &[u32; LANES],
        aabb: &Aabb,
        mut visitor: impl FnMut(u32, &Triangle) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut degenerate = lanes.nan_mask();
        while degenerate != 0 {
            let l = degenerate.trailing_zeros() as usize;
            degenerate &= degenerate - 1;
            if ids[l] == u32::MAX {
                break; // unused lanes come last
            }
            let t = self.triangle(ids[l]);
            if intersects_aabb_aabb(&t.aabb(), aabb) {
                visitor(ids[l], &t)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// [`TriMesh::visit_candidates`] a block at a time, for a caller that
    /// tests a block's lanes together: `block(ids, lanes, mask)` for each
    /// block with a lane whose box overlaps `aabb` (bit `l` of `mask`;
    /// `ids[l]` is that lane's triangle; only non-degenerate triangles have
    /// bits), then `single(t, triangle)` for each of its degenerate
    /// triangles whose box overlaps, as [`TriMesh::visit_candidates`] hands
    /// them. Both get `state`, which they share.
    #[inline]
    pub(crate) fn visit_candidate_blocks<S>(
        &self,
        aabb: &Aabb,
        state: &mut S,
        mut block: impl FnMut(&mut S, &[u32; LANES], &TriangleLanes, u32),
        mut single: impl FnMut(&mut S, u32, &Triangle),
    ) {
        let (lo, hi) = (aabb.min(), aabb.max());
        let _ = self.tree.bvh.visit_overlaps(aabb, |b| {
            let slot = self.tree.slot[b as usize] as usize;
            let (lanes, ids) = (&self.tree.blocks[slot], &self.tree.ids[slot]);
            let hits = lanes.overlap_mask(lo, hi);
            if hits != 0 {
                block(state, ids, lanes.rows(), hits);
            }
            self.visit_degenerate(lanes, ids, aabb, |t, triangle| {
                single(state, t, triangle);
                ControlFlow::Continue(())
            })
        });
    }

    /// The block tree's BVH (primitives are blocks of up to 8 triangles, not
    /// triangles), for its statistics and [`validate`](BroadPhase::validate).
    pub fn block_bvh(&self) -> &proxima_broadphase::StaticBvh {
        &self.tree.bvh
    }

    /// Bytes held by the mesh: the `TriMesh` value and the capacities of
    /// its vectors (vertices, indices, blocks, their ids, the BVH's nodes,
    /// leaf ids and boxes, the materials and edge flags when set, and the
    /// active-edge bits once computed).
    pub fn memory_bytes(&self) -> usize {
        size_of::<Self>()
            + self.vertices.capacity() * size_of::<Point>()
            + self.indices.capacity() * size_of::<[u32; 3]>()
            + self.tree.heap_bytes()
            + self.edge_flags.capacity() * size_of::<EdgeFlags>()
            + self.active_edges.get().map_or(0, Vec::capacity)
    }

    /// The bounding box in the mesh frame.
    pub fn local_aabb(&self) -> &Aabb {
        &self.aabb
    }

    /// The world bounding box under `pose`: the box of the posed local box's
    /// eight corners (not tight for a rotated mesh, but conservative).
    pub fn world_aabb(&self, pose: &Isometry) -> Aabb {
        let corners = self.aabb.corners().map(|c| pose.transform_point(&c));
        Aabb::from_points(corners.iter()).unwrap_or(self.aabb)
    }
}
