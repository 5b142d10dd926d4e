//! Triangle meshes with one BVH over blocks of 8 triangles (built in
//! `trimesh/build.rs`, cast by rays in `trimesh/ray.rs`); mesh-mesh contact
//! in `trimesh/mesh_mesh.rs`.

use core::ops::ControlFlow;

use proxima_broadphase::BroadPhase;
use proxima_narrowphase::{
    cast_sphere_triangle, closest_point_triangle, contact_capsule_triangle, contact_obb_triangle,
    contact_sphere_triangle, intersects_aabb_aabb, intersects_aabb_triangle, intersects_sphere_triangle, Aabb, Capsule,
    Contact, Isometry, Obb, Point, Ray, RayHit, Real, Sphere, SweepHit, Triangle, Vector, MAX_COORDINATE,
};

use crate::error::MeshError;

mod build;
mod manifold;
mod mesh_mesh;
mod ray;
mod ray_block;

pub(crate) use manifold::{mesh_mesh_manifolds, Convex, MeshScratch};
pub(crate) use mesh_mesh::contact_mesh_mesh;
use ray::BlockTree;

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
}

/// A ray's hit on a mesh: the triangle and the hit (see [`TriMesh::cast_ray`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshRayHit {
    /// The triangle hit and the barycentric coordinates of the hit point.
    pub triangle: TriangleHit,
    /// The ray parameter and the unit normal (in the ray's frame: the mesh
    /// frame for [`TriMesh::cast_ray`], world for [`TriMesh::cast_ray_posed`]),
    /// facing the ray's origin.
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

/// How [`TriMesh::with_build`] groups the triangles into blocks of 8: build
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
/// the shared vertices (12 B each): see [`TriMesh::memory_bytes`].
#[derive(Clone, Debug)]
pub struct TriMesh {
    vertices: Vec<Point>,
    indices: Vec<[u32; 3]>,
    /// Blocks of 8 triangles and their BVH.
    tree: BlockTree,
    aabb: Aabb,
    /// Per triangle, bit `k` set when edge `k` (from vertex `k` to `k + 1`)
    /// is active for contacts (see `manifold.rs`); computed on the first
    /// manifold query, so meshes used only for rays do not pay for it.
    active_edges: std::sync::OnceLock<Vec<u8>>,
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
    /// use proxima_scene::*;
    /// use proxima_narrowphase::Point;
    /// // A unit square in the z = 0 plane, two triangles.
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let mesh = TriMesh::new(v.clone(), vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    /// assert_eq!(mesh.triangles().len(), 2);
    /// assert!(mesh.memory_bytes() > 0);
    /// assert_eq!(TriMesh::new(v, vec![[0, 1, 4]]).err(), Some(MeshError::IndexOutOfRange { triangle: 0 }));
    /// ```
    pub fn new(vertices: Vec<Point>, indices: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        Self::with_build(vertices, indices, MeshBuild::default())
    }

    /// [`TriMesh::new`] with a choice of how the blocks are formed: build
    /// time against ray speed (see [`MeshBuild`]).
    ///
    /// # Panics
    /// When there are `2^32 - 1` triangles or more.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let t = vec![[0, 1, 2], [0, 2, 3]];
    /// let fast = TriMesh::new(v.clone(), t.clone()).unwrap();
    /// let sah = TriMesh::with_build(v, t, MeshBuild::FastRays).unwrap();
    /// let ray = Ray::new(Point::new(0.25, 0.5, 1.0), -Vector::z(), 10.0);
    /// assert_eq!(fast.cast_ray(&ray, false), sah.cast_ray(&ray, false));
    /// ```
    pub fn with_build(vertices: Vec<Point>, indices: Vec<[u32; 3]>, build: MeshBuild) -> Result<Self, MeshError> {
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
        Ok(Self { vertices, indices, tree, aabb, active_edges: std::sync::OnceLock::new() })
    }

    /// Loads every model of an OBJ file (triangulated) into one mesh.
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
        Triangle::new(a, b, c)
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
                visitor(ids[l], &Triangle::new(a, b, c))?;
            }
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
        })
    }

    /// The block tree's BVH (primitives are blocks of up to 8 triangles, not
    /// triangles), for its statistics and [`validate`](BroadPhase::validate).
    pub fn block_bvh(&self) -> &proxima_broadphase::StaticBvh {
        &self.tree.bvh
    }

    /// Bytes held by the mesh: the `TriMesh` value and the capacities of
    /// its vectors (vertices, indices, blocks, their ids, the BVH's nodes,
    /// leaf ids and boxes, and the active-edge bits once computed).
    pub fn memory_bytes(&self) -> usize {
        size_of::<Self>()
            + self.vertices.capacity() * size_of::<Point>()
            + self.indices.capacity() * size_of::<[u32; 3]>()
            + self.tree.heap_bytes()
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

    /// The closest hit of `ray` (mesh frame): the triangle and the hit,
    /// as [`cast_ray_triangle`](proxima_narrowphase::cast_ray_triangle) gives
    /// it (two-sided, closed edges, normal facing the ray's origin, the same
    /// bits), and the hit point's barycentric coordinates on it. Ties in
    /// `toi` keep one of the tied triangles. With `any`, stops at the first
    /// triangle hit found (shadow rays): a hit exactly when the closest-hit
    /// cast has one, but not necessarily the closest.
    ///
    /// Rays use their own BVH over blocks of 8 neighbouring triangles, each
    /// block tested at once (see `trimesh/ray.rs`); only the final hit gets
    /// its normal.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    /// // Down onto the upper-left half (x < y): triangle 1, normal facing the ray's origin.
    /// let ray = Ray::new(Point::new(0.25, 0.75, 2.0), -Vector::z(), 10.0);
    /// let hit = mesh.cast_ray(&ray, false).unwrap();
    /// assert_eq!((hit.triangle.index, hit.hit.toi), (1, 2.0));
    /// // The point is a + 0.25 (b - a) + 0.5 (c - a), triangle [0, 2, 3].
    /// assert!((hit.triangle.u - 0.25).abs() < 1e-6 && (hit.triangle.v - 0.5).abs() < 1e-6);
    /// assert_eq!(hit.hit.normal.into_inner(), Vector::z());
    /// ```
    pub fn cast_ray(&self, ray: &Ray, any: bool) -> Option<MeshRayHit> {
        self.tree.cast(ray, any)
    }

    /// [`TriMesh::cast_ray`] (closest hit) for each ray, in input order,
    /// into `out` (cleared first): the same hit for every ray, bit for bit,
    /// whatever the thread count.
    ///
    /// Consecutive rays are cast in packets of
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE) that traverse the
    /// tree together
    /// ([`StaticBvh::visit_packet_leaves`](proxima_broadphase::StaticBvh::visit_packet_leaves)):
    /// order coherent rays so that neighbours are consecutive (a camera's
    /// pixels in 4 x 2 tiles, say) and the batch runs faster than one ray at
    /// a time; incoherent rays run at about the speed of single rays. With
    /// the `parallel` feature the packets are spread over the threads of the
    /// current rayon pool (run it inside `rayon::ThreadPool::install` to
    /// choose the pool, one thread included).
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let mesh = TriMesh::new(vec![p(0.0, 0.0), p(1.0, 0.0), p(0.0, 1.0)], vec![[0, 1, 2]]).unwrap();
    /// let rays: Vec<Ray> =
    ///     (0..10).map(|i| Ray::new(Point::new(0.1 * i as f32, 0.2, 1.0), -Vector::z(), 5.0)).collect();
    /// let mut hits = Vec::new();
    /// mesh.cast_rays(&rays, &mut hits);
    /// for (ray, hit) in rays.iter().zip(&hits) {
    ///     assert_eq!(*hit, mesh.cast_ray(ray, false));
    /// }
    /// assert_eq!(hits.iter().filter(|h| h.is_some()).count(), 8);
    /// ```
    pub fn cast_rays(&self, rays: &[Ray], out: &mut Vec<Option<MeshRayHit>>) {
        use proxima_broadphase::PACKET_SIZE;
        out.clear();
        out.resize(rays.len(), None);
        let packets = |(rays, out): (&[Ray], &mut [Option<MeshRayHit>])| {
            for (rays, out) in rays.chunks(PACKET_SIZE).zip(out.chunks_mut(PACKET_SIZE)) {
                self.tree.cast_packet(rays, out);
            }
        };
        spread_into(rays, out, packets);
    }

    /// Whether each ray hits the mesh (shadow rays, line of sight), in input
    /// order, into `out` (cleared first): `out[i]` is
    /// `cast_ray(&rays[i], true).is_some()`, whatever the thread count.
    /// Like [`TriMesh::cast_rays`], consecutive rays are cast in packets
    /// that traverse the tree together, each ray retired at its first hit:
    /// keep neighbouring rays consecutive. With the `parallel` feature the
    /// packets are spread over the threads of the current rayon pool.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let mesh = TriMesh::new(vec![p(0.0, 0.0), p(1.0, 0.0), p(0.0, 1.0)], vec![[0, 1, 2]]).unwrap();
    /// let rays: Vec<Ray> =
    ///     (0..10).map(|i| Ray::new(Point::new(0.1 * i as f32, 0.2, 1.0), -Vector::z(), 5.0)).collect();
    /// let mut blocked = Vec::new();
    /// mesh.occluded(&rays, &mut blocked);
    /// assert_eq!(blocked.iter().filter(|&&b| b).count(), 8);
    /// ```
    pub fn occluded(&self, rays: &[Ray], out: &mut Vec<bool>) {
        use proxima_broadphase::PACKET_SIZE;
        out.clear();
        out.resize(rays.len(), false);
        let packets = |(rays, out): (&[Ray], &mut [bool])| {
            for (rays, out) in rays.chunks(PACKET_SIZE).zip(out.chunks_mut(PACKET_SIZE)) {
                self.tree.occluded_packet(rays, out);
            }
        };
        spread_into(rays, out, packets);
    }

    /// [`TriMesh::cast_ray`] with `any` (a hit, not necessarily the
    /// closest: shadow rays) for each ray, in input order, into `out`
    /// (cleared first): each ray's result is the single call's, whatever the
    /// thread count. With the `parallel` feature the rays are spread over the
    /// threads of the current rayon pool.
    pub fn cast_rays_any(&self, rays: &[Ray], out: &mut Vec<Option<MeshRayHit>>) {
        out.clear();
        out.resize(rays.len(), None);
        let each = |(rays, out): (&[Ray], &mut [Option<MeshRayHit>])| {
            for (ray, o) in rays.iter().zip(out) {
                *o = self.tree.cast(ray, true);
            }
        };
        spread_into(rays, out, each);
    }

    /// [`TriMesh::cast_ray`] for a world ray against the mesh placed by `pose`.
    /// An isometry preserves the ray parameter, so `toi` needs no rescaling.
    ///
    /// Under the identity pose (a static mesh placed where it was modelled,
    /// the common case) the world ray is the mesh ray: it is cast as it is,
    /// without building a second `Ray` (whose fresh, piecewise stores the
    /// traversal's whole-vector loads would wait on).
    pub fn cast_ray_posed(&self, ray: &Ray, pose: &Isometry, any: bool) -> Option<MeshRayHit> {
        self.ray_posed(ray, pose, any)
    }

    /// [`TriMesh::cast_ray_posed`], inlined into the scene's ray queries,
    /// so that the mesh's hit is not copied whole once more on its way up
    /// (a copy read back just after the field-by-field stores of the hit
    /// stalls on them).
    #[inline(always)]
    pub(crate) fn ray_posed(&self, ray: &Ray, pose: &Isometry, any: bool) -> Option<MeshRayHit> {
        let placement = Placement::of(pose);
        let local;
        let ray = if placement == Placement::Identity {
            // The mesh frame is the world frame: the ray is the local ray.
            ray
        } else {
            local = placement.local_ray(ray, pose)?;
            &local
        };
        let h = self.tree.cast(ray, any)?;
        Some(placement.to_world(h, pose))
    }

    /// [`TriMesh::ray_posed`] (closest hit) for a packet of at most
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE) world rays
    /// (`out[r]` for `rays[r]`): each ray's result is `ray_posed`'s, bit for
    /// bit (the same local ray, the same tie rule).
    pub(crate) fn cast_packet_posed(&self, rays: &[Ray], pose: &Isometry, out: &mut [Option<MeshRayHit>]) {
        use proxima_broadphase::PACKET_SIZE;
        let placement = Placement::of(pose);
        if placement == Placement::Identity {
            // The rays themselves: a copy would be stored piecewise and read
            // back whole by the traversal (a store-forwarding stall per ray).
            return self.tree.cast_packet(rays, out);
        }
        let mut local = [Ray::new(Point::origin(), Vector::x(), 0.0); PACKET_SIZE];
        let mut from = [0usize; PACKET_SIZE];
        let n = placement.local_rays(rays, pose, &mut local, &mut from);
        out[..rays.len()].fill(None);
        let mut hits = [None; PACKET_SIZE];
        self.tree.cast_packet(&local[..n], &mut hits[..n]);
        for (k, hit) in hits[..n].iter().enumerate() {
            out[from[k]] = hit.map(|h| placement.to_world(h, pose));
        }
    }

    /// [`TriMesh::occluded`] for a packet of at most
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE) world rays against
    /// the mesh placed by `pose`: `out[r]` is
    /// `ray_posed(&rays[r], pose, true).is_some()` (the same local rays).
    pub(crate) fn occluded_packet_posed(&self, rays: &[Ray], pose: &Isometry, out: &mut [bool]) {
        use proxima_broadphase::PACKET_SIZE;
        let placement = Placement::of(pose);
        if placement == Placement::Identity {
            // The rays themselves (see `cast_packet_posed`).
            return self.tree.occluded_packet(rays, out);
        }
        let mut local = [Ray::new(Point::origin(), Vector::x(), 0.0); PACKET_SIZE];
        let mut from = [0usize; PACKET_SIZE];
        let n = placement.local_rays(rays, pose, &mut local, &mut from);
        out[..rays.len()].fill(false);
        let mut blocked = [false; PACKET_SIZE];
        self.tree.occluded_packet(&local[..n], &mut blocked[..n]);
        for k in 0..n {
            out[from[k]] = blocked[k];
        }
    }

    /// The first hit of a sphere moving by `motion` (all in the mesh frame).
    pub fn cast_sphere(&self, sphere: &Sphere, motion: &Vector) -> Option<SweepHit> {
        let swept = sphere.swept_aabb(motion)?;
        let mut best: Option<SweepHit> = None;
        let _ = self.visit_candidates(&swept, |_, t| {
            if let Some(hit) = cast_sphere_triangle(sphere, motion, t) {
                if best.is_none_or(|b| hit.toi < b.toi) {
                    best = Some(hit);
                }
            }
            ControlFlow::Continue(())
        });
        best
    }

    /// [`TriMesh::cast_sphere`] in world space against the mesh placed by `pose`.
    pub fn cast_sphere_posed(&self, sphere: &Sphere, motion: &Vector, pose: &Isometry) -> Option<SweepHit> {
        let local = Sphere::try_new(pose.inverse_transform_point(sphere.center()), sphere.radius()).ok()?;
        let hit = self.cast_sphere(&local, &pose.inverse_transform_vector(motion))?;
        Some(SweepHit { point: pose.transform_point(&hit.point), normal: pose.rotation * hit.normal, ..hit })
    }

    /// The triangle closest to `p` and its closest point (mesh frame).
    ///
    /// Any triangle's distance `d` bounds the answer, and every triangle within
    /// `d` overlaps the box `p ± d`: one box query around the first estimate.
    pub fn closest_point(&self, p: &Point) -> Option<MeshClosestPoint> {
        let first = closest_point_triangle(p, &self.triangle(0));
        let mut best = (0u32, first, (p - first).norm());
        let query = Aabb::try_from_center(*p, Vector::repeat(best.2)).ok()?;
        let _ = self.visit_candidates(&query, |tri, t| {
            let q = closest_point_triangle(p, t);
            let d = (p - q).norm();
            if d < best.2 {
                best = (tri, q, d);
            }
            ControlFlow::Continue(())
        });
        Some(MeshClosestPoint { triangle: best.0, point: best.1 })
    }

    /// True when `p` (mesh frame) lies on a triangle (within each triangle's
    /// own tolerance, see [`Triangle::contains_point`]).
    pub fn contains_point(&self, p: &Point) -> bool {
        let probe = Aabb::try_from_center(*p, Vector::zeros()).ok();
        probe.is_some_and(|probe| {
            self.visit_candidates(&probe.loosened(1e-6), |_, t| {
                if t.contains_point(p) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .is_break()
        })
    }

    /// True when the sphere (mesh frame) touches a triangle.
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        self.visit_candidates(&sphere.aabb(), |_, t| {
            if intersects_sphere_triangle(sphere, t) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break()
    }

    /// True when the oriented box (mesh frame) touches a triangle: each
    /// candidate triangle is taken into the box frame and tested against the
    /// box as an axis-aligned one (13-axis SAT).
    pub fn intersects_obb(&self, obb: &Obb) -> bool {
        let local_box = Aabb::new(Point::from(-obb.half_extents()), Point::from(*obb.half_extents()));
        self.visit_candidates(&obb.aabb(), |_, t| {
            let [a, b, c] = t.vertices().map(|v| Point::from(obb.to_local(&v)));
            match Triangle::try_new(a, b, c) {
                Ok(lt) if intersects_aabb_triangle(&local_box, &lt) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        })
        .is_break()
    }

    /// True when the capsule (mesh frame) touches a triangle
    /// (`contact_capsule_triangle` on the triangles whose boxes overlap its box).
    pub fn intersects_capsule(&self, capsule: &Capsule) -> bool {
        self.visit_candidates(&capsule.aabb(), |_, t| {
            if contact_capsule_triangle(capsule, t).is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break()
    }

    /// The deepest contact between sphere A and this mesh B (mesh frame)
    /// (see `contact_sphere_triangle`): the triangle whose closest point is
    /// nearest the centre.
    pub fn contact_sphere(&self, sphere: &Sphere) -> Option<Contact> {
        self.deepest(&sphere.aabb(), |t| contact_sphere_triangle(sphere, t))
    }

    /// The deepest contact between box A and this mesh B (mesh frame): the
    /// triangle contact of greatest depth among the triangles whose boxes
    /// overlap A's (see `contact_obb_triangle`).
    pub fn contact_obb(&self, obb: &Obb) -> Option<Contact> {
        self.deepest(&obb.aabb(), |t| contact_obb_triangle(obb, t))
    }

    /// The deepest contact between capsule A and this mesh B (mesh frame)
    /// (see `contact_capsule_triangle`).
    pub fn contact_capsule(&self, capsule: &Capsule) -> Option<Contact> {
        self.deepest(&capsule.aabb(), |t| contact_capsule_triangle(capsule, t))
    }

    /// The contact of greatest depth over the triangles overlapping `cull`.
    fn deepest(&self, cull: &Aabb, contact: impl Fn(&Triangle) -> Option<Contact>) -> Option<Contact> {
        let mut best: Option<Contact> = None;
        let _ = self.visit_candidates(cull, |_, t| {
            if let Some(c) = contact(t) {
                if best.is_none_or(|b| c.depth > b.depth) {
                    best = Some(c);
                }
            }
            ControlFlow::Continue(())
        });
        best
    }
}

/// `fill` on `(rays, out)` in runs of 256 rays (32 packets) spread over the
/// current rayon pool with the `parallel` feature and more than one thread
/// (enough rays per task to amortise the scheduling); on one thread, one
/// plain call.
fn spread_into<T: Send>(rays: &[Ray], out: &mut [T], fill: impl Fn((&[Ray], &mut [T])) + Sync) {
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        rays.par_chunks(256).zip(out.par_chunks_mut(256)).for_each(&fill);
        return;
    }
    fill((rays, out));
}

/// How a pose places a mesh, which decides how a world ray becomes a mesh
/// ray: as it is, moved, or moved and rotated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// The mesh frame is the world frame.
    Identity,
    /// A translation: directions and normals are unchanged (the same bits as
    /// the rotation by the identity would give).
    Translated,
    /// A rotation, and perhaps a translation.
    Rotated,
}

impl Placement {
    /// The placement by `pose` (compared per component: nalgebra's `==` on
    /// vectors is an iterator fold).
    #[inline(always)]
    fn of(pose: &Isometry) -> Self {
        let q = pose.rotation.as_ref();
        let t = pose.translation.vector;
        if q.i != 0.0 || q.j != 0.0 || q.k != 0.0 || q.w != 1.0 {
            Self::Rotated
        } else if t.x == 0.0 && t.y == 0.0 && t.z == 0.0 {
            Self::Identity
        } else {
            Self::Translated
        }
    }

    /// The mesh-frame ray of world ray `ray` under `pose`, `None` when the
    /// local direction does not make a ray (it then hits nothing).
    #[inline(always)]
    fn local_ray(self, ray: &Ray, pose: &Isometry) -> Option<Ray> {
        match self {
            Self::Identity => Some(*ray),
            Self::Translated => Ray::try_new(ray.origin() - pose.translation.vector, *ray.dir(), ray.max_toi()).ok(),
            Self::Rotated => {
                let (o, d) = (pose.inverse_transform_point(ray.origin()), pose.inverse_transform_vector(ray.dir()));
                Ray::try_new(o, d, ray.max_toi()).ok()
            }
        }
    }

    /// The mesh-frame rays of `rays` (at most
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE)) into `local[..n]`,
    /// and for each the index of its world ray in `from`; returns `n` (a ray
    /// without a local ray is left out).
    fn local_rays(self, rays: &[Ray], pose: &Isometry, local: &mut [Ray], from: &mut [usize]) -> usize {
        let mut n = 0;
        for (r, ray) in rays.iter().enumerate() {
            if let Some(l) = self.local_ray(ray, pose) {
                (local[n], from[n]) = (l, r);
                n += 1;
            }
        }
        n
    }

    /// A mesh-frame hit back in the world: its normal rotated by `pose`.
    #[inline(always)]
    fn to_world(self, h: MeshRayHit, pose: &Isometry) -> MeshRayHit {
        match self {
            Self::Rotated => MeshRayHit { hit: RayHit { normal: pose.rotation * h.hit.normal, ..h.hit }, ..h },
            Self::Identity | Self::Translated => h,
        }
    }
}
