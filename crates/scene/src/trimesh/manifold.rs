//! Contact manifolds of a convex shape, or another mesh, against a triangle
//! mesh: per-triangle manifolds, internal edges removed, grouped by normal.

use core::ops::ControlFlow;

use proxima_narrowphase::kernels::{contact_manifolds_obb_triangle_x8, TriangleLanes, TRIANGLE_LANES};
use proxima_narrowphase::{
    contact_manifold_capsule_triangle, contact_manifold_obb_triangle, contact_manifold_sphere_triangle, Capsule,
    ContactManifold, Isometry, ManifoldPoint, Obb, Point, Real, Sphere, Triangle, UnitVector, Vector,
};
use smallvec::SmallVec;

use super::face_contact::face_contact;
use super::mesh_mesh::visit_mesh_mesh_contacts;
use super::TriMesh;

/// A convex shape in a mesh's frame.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Convex<'a> {
    Sphere(&'a Sphere),
    Obb(&'a Obb),
    Capsule(&'a Capsule),
    /// A hull placed in the mesh's frame.
    Hull(crate::hull::PosedHull<'a>),
}

impl Convex<'_> {
    pub(super) fn aabb(&self) -> proxima_narrowphase::Aabb {
        match self {
            Convex::Sphere(s) => s.aabb(),
            Convex::Obb(o) => o.aabb(),
            Convex::Capsule(c) => c.aabb(),
            Convex::Hull(h) => crate::hull::world_aabb(h.hull, h.pose),
        }
    }

    /// The shape's point furthest along `dir` (a unit vector).
    pub(super) fn support(&self, dir: &UnitVector) -> Point {
        match self {
            Convex::Sphere(s) => s.center() + dir.into_inner() * s.radius(),
            Convex::Obb(o) => {
                let local = o.to_local_vector(dir);
                o.to_world(&o.half_extents().zip_map(&local, |h, d| if d >= 0.0 { h } else { -h }))
            }
            Convex::Capsule(c) => {
                let end = if (c.b() - c.a()).dot(dir) >= 0.0 { c.b() } else { c.a() };
                end + dir.into_inner() * c.radius()
            }
            Convex::Hull(h) => proxima_narrowphase::SupportMap::support(h, dir),
        }
    }

    fn manifold(&self, tri: &Triangle, prediction: Real) -> Option<ContactManifold> {
        match self {
            Convex::Sphere(s) => contact_manifold_sphere_triangle(s, tri, prediction),
            Convex::Obb(o) => contact_manifold_obb_triangle(o, tri, prediction),
            Convex::Capsule(c) => contact_manifold_capsule_triangle(c, tri, prediction),
            Convex::Hull(h) => {
                let c = proxima_narrowphase::contact_convex(h, tri, prediction)?;
                let point = ManifoldPoint { point_a: c.point_a, point_b: c.point_b, depth: c.depth, id: 0 };
                ContactManifold::new(c.normal, &[point])
            }
        }
    }
}

/// Manifold normals closer than this cosine are merged into one manifold
/// (about 2.6 degrees): the triangles of a flat or gently curved patch
/// support the shape together.
const SAME_NORMAL_COSINE: Real = 0.999;

/// A contact normal within this cosine of its triangle's normal is a face
/// contact (about 1.4 degrees: a classification of what the narrowphase
/// returned, looser than its own 1e-3 rad reference-face test, so every
/// clipped face manifold counts).
const FACE_COSINE: Real = 0.9997;

/// Two triangles sharing an edge whose normals are within this cosine (5
/// degrees) make the edge flat: inactive for contacts.
const FLAT_EDGE_COSINE: Real = 0.996_194_7;

/// The rounding of a depth relative to the shape's size (plus one): an edge
/// contact no deeper than the face contacts by more than this is held by them.
const DEPTH_SLACK: Real = 1e-5;

/// A barycentric weight below this (of 1) puts a point on the opposite edge.
const ON_EDGE: Real = 1e-4;

/// Meshes up to `2^21` triangles get distinct point ids: a point's id is
/// its triangle's index shifted by 11 bits, xor'ed with the narrowphase id
/// (below `2^11`). Larger meshes wrap, and two points of one manifold may
/// then share an id (as, rarely, two mesh-mesh points, whose narrowphase id
/// is a hash of the other mesh's triangle).
pub(super) const TRIANGLE_ID_SHIFT: u32 = 11;

/// One triangle's manifold, before grouping.
#[derive(Clone, Copy, Debug)]
struct TriangleManifold {
    triangle: u32,
    /// A face contact as found, before the internal-edge pass: the normal
    /// within [`FACE_COSINE`] of the triangle's (see [`is_face_contact`];
    /// false for mesh-mesh points, which skip that pass).
    face: bool,
    manifold: ContactManifold,
}

/// The triangles' manifolds of one shape against a mesh.
type Found = SmallVec<[TriangleManifold; 16]>;

/// A box's candidate triangles gathered into full lanes for
/// [`contact_manifolds_obb_triangle_x8`] (a mesh block holds two or three
/// of them on average, a full batch eight).
struct BoxBatch<'a> {
    obb: &'a Obb,
    prediction: Real,
    lanes: TriangleLanes,
    ids: [u32; TRIANGLE_LANES],
    len: usize,
}

impl BoxBatch<'_> {
    /// Adds lane `l` of `from` (triangle `id`), testing the batch when full.
    #[inline]
    fn push(&mut self, id: u32, from: &TriangleLanes, l: usize, found: &mut Found) {
        let n = self.len;
        assert!(n < TRIANGLE_LANES && l < TRIANGLE_LANES, "a lane of a full batch");
        for (to, from) in self.lanes.iter_mut().zip(from) {
            for (to, from) in to.iter_mut().zip(from) {
                to[n] = from[l];
            }
        }
        self.ids[self.len] = id;
        self.len += 1;
        if self.len == TRIANGLE_LANES {
            self.flush(found);
        }
    }

    /// Tests the gathered triangles, appending their manifolds to `found`.
    fn flush(&mut self, found: &mut Found) {
        let (lanes, ids) = (&self.lanes, &self.ids);
        let mask = (1u32 << self.len) - 1;
        contact_manifolds_obb_triangle_x8(self.obb, lanes, mask, self.prediction, |l, manifold| {
            let p = |k: usize| Point::new(lanes[k][0][l], lanes[k][1][l], lanes[k][2][l]);
            let tri = Triangle::new_unchecked(p(0), p(1), p(2));
            let face = is_face_contact(&tri, &manifold.normal);
            found.push(TriangleManifold { triangle: ids[l], face, manifold });
        });
        self.len = 0;
    }
}

/// The working lists of the mesh manifolds. Each holds its usual size
/// inline; one that grows past it (a large shape on a fine mesh) moves to
/// the heap, and keeps that buffer when cleared: a caller that computes
/// manifolds every frame keeps one scratch (the contact pipeline does), so
/// its frames stop allocating once the lists have grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct MeshScratch {
    /// The triangles' manifolds.
    found: Found,
    /// Vertices of the face contacts, and of the touching ones.
    voided: SmallVec<[u32; 24]>,
    voided_touching: SmallVec<[u32; 24]>,
    /// The touching face contacts' normals.
    touching_faces: SmallVec<[UnitVector; 8]>,
    /// Grouping: the triangles' manifolds in order (and which joined a
    /// group), and a group's points.
    order: SmallVec<[GroupKey; 16]>,
    points: SmallVec<[ManifoldPoint; 16]>,
}

impl TriMesh {
    /// The manifolds of convex shape A against this mesh B (both in the
    /// mesh frame), appended to `out`: see [`contact_manifolds`](crate::contact_manifolds).
    pub(crate) fn manifolds(
        &self,
        shape: Convex<'_>,
        prediction: Real,
        scratch: &mut MeshScratch,
        out: &mut Vec<ContactManifold>,
    ) {
        scratch.found.clear();
        let single = |found: &mut Found, t: u32, tri: &Triangle| {
            if let Some(manifold) = shape.manifold(tri, prediction) {
                let face = is_face_contact(tri, &manifold.normal);
                found.push(TriangleManifold { triangle: t, face, manifold });
            }
        };
        let aabb = shape.aabb().loosened(prediction);
        if let Convex::Obb(obb) = shape {
            // A box gathers its candidate triangles eight at a time and tests
            // them together (SSE2 lanes), with the manifolds of the
            // per-triangle function, bit for bit.
            let mut batch =
                BoxBatch { obb, prediction, lanes: [[[0.0; TRIANGLE_LANES]; 3]; 3], ids: [0; TRIANGLE_LANES], len: 0 };
            let mut state = (&mut scratch.found, &mut batch);
            let block = |(found, batch): &mut (&mut Found, &mut BoxBatch<'_>),
                         ids: &[u32; TRIANGLE_LANES],
                         lanes: &TriangleLanes,
                         mut mask: u32| {
                while mask != 0 {
                    let l = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    batch.push(ids[l], lanes, l, found);
                }
            };
            self.visit_candidate_blocks(&aabb, &mut state, block, |(found, _), t, tri| single(found, t, tri));
            batch.flush(&mut scratch.found);
        } else {
            let found = &mut scratch.found;
            let _ = self.visit_candidates(&aabb, |t, tri| {
                single(found, t, tri);
                ControlFlow::Continue(())
            });
        }
        self.remove_internal_edges(&shape, scratch);
        group_by_normal(scratch, out);
    }

    /// Internal-edge removal: a shape sliding over a flat mesh touches the
    /// shared edges of its triangles, and a triangle it is beside or leaving
    /// reports an edge or vertex contact whose normal leans sideways: the
    /// shape would catch on an edge that is not there. Face contacts (normal
    /// within 1.4 degrees of the triangle's) are always kept. An edge or
    /// vertex contact (its feature: the triangle's vertices with a non-zero
    /// weight at its deepest point) is dropped when
    /// - its feature is inactive and it is speculative (depth < 0): an
    ///   inactive edge, or a vertex whose two edges in this triangle are
    ///   inactive (an edge is active when it is on the boundary, shared by
    ///   more than two triangles, or its two faces meet at more than 5
    ///   degrees: a real ridge or valley; the rule of Jolt's active edges;
    ///   edge flags set by the user force it either way);
    ///   a penetrating contact on an inactive feature is dropped when a
    ///   touching face contact with the same plane (within 5 degrees) holds
    ///   the shape up already, else replaced by A's deepest point below the
    ///   triangle's plane over the triangle, along its face normal (see
    ///   [`face_contact`]); or
    /// - every vertex of its feature belongs to a triangle with a face
    ///   contact (the idea of Jolt's internal edge removing collector): that
    ///   neighbour's face already supports the shape there.
    fn remove_internal_edges(&self, shape: &Convex<'_>, scratch: &mut MeshScratch) {
        let MeshScratch { found, voided, voided_touching, touching_faces, .. } = scratch;
        if found.iter().all(|m| m.face) {
            return;
        }
        // Vertices of the face contacts, and of the touching ones: a touching
        // edge contact is only dropped for a touching face, so a pair that
        // touches keeps a point of depth >= 0. And the touching faces'
        // normals, for the flat-region rule below.
        voided.clear();
        voided_touching.clear();
        touching_faces.clear();
        for m in found.iter().filter(|m| m.face) {
            let idx = &self.indices()[m.triangle as usize];
            voided.extend_from_slice(idx);
            if m.manifold.deepest().depth >= 0.0 {
                voided_touching.extend_from_slice(idx);
                touching_faces.push(m.manifold.normal);
            }
        }
        // The deepest face contact: an edge or vertex contact is dropped only
        // when the faces reach its depth (within rounding), so the removal
        // never drops the only contact, or the deepest one, a shape has.
        let face_depth =
            found.iter().filter(|m| m.face).map(|m| m.manifold.deepest().depth).fold(Real::NEG_INFINITY, Real::max);
        let slack = DEPTH_SLACK * (1.0 + shape.aabb().extents().amax());
        let active = self.active_edges();
        found.retain_mut(|m| {
            if m.face {
                return true;
            }
            let t = m.triangle as usize;
            let w = barycentric(&self.triangle(t as u32), &m.manifold.deepest().point_b);
            let on = |k: usize| w[k] > ON_EDGE;
            let edge_active = |e: usize| active[t] & (1 << e) != 0;
            let inactive = match (on(0), on(1), on(2)) {
                (true, true, true) => false, // inside the face
                // Edge k joins vertices k and k + 1; vertex k lies on edges k - 1 and k.
                (true, true, false) => !edge_active(0),
                (false, true, true) => !edge_active(1),
                (true, false, true) => !edge_active(2),
                (true, false, false) => !edge_active(2) && !edge_active(0),
                (false, true, false) => !edge_active(0) && !edge_active(1),
                (false, false, true) => !edge_active(1) && !edge_active(2),
                (false, false, false) => false,
            };
            let idx = self.indices()[t];
            let deep = m.manifold.deepest().depth >= 0.0;
            let voided = if deep { &*voided_touching } else { &*voided };
            let supported = !voided.is_empty() && (0..3).filter(|&k| on(k)).all(|k| voided.contains(&idx[k]));
            let held = m.manifold.deepest().depth <= face_depth + slack;
            if held && (supported || (inactive && !deep)) {
                return false;
            }
            if inactive {
                // A flat (inactive) feature inside a region that touches by
                // its faces: those face manifolds already hold the shape up.
                let face = face_normal_on_side(&self.triangle(t as u32), shape, &m.manifold.normal);
                let flat_region = face.is_some_and(|f| touching_faces.iter().any(|n| n.dot(&f) >= FLAT_EDGE_COSINE));
                if held && flat_region {
                    return false;
                }
                m.manifold = if deep {
                    face_contact(&self.triangle(t as u32), &m.manifold, shape)
                } else {
                    along_face_normal(&self.triangle(t as u32), &m.manifold, shape)
                };
            }
            true
        });
    }

    /// The active-edge bits of every triangle (computed once): sort the
    /// `3 n` edges by their vertex pair; an edge met once is on the
    /// boundary, met more than twice non-manifold (both active); met twice,
    /// it is active when the two faces' normals are more than 5 degrees
    /// apart (either orientation: the mesh is two-sided). Degenerate
    /// triangles' edges are active. Then the user's edge flags, if any,
    /// replace the bits of the edges they force (see
    /// [`TriMesh::with_edge_flags`]).
    fn active_edges(&self) -> &[u8] {
        self.active_edges.get_or_init(|| {
            let mut bits = vec![0u8; self.indices().len()];
            let mut edges: Vec<(u32, u32, u32, u8)> = Vec::with_capacity(3 * self.indices().len());
            for (t, idx) in self.indices().iter().enumerate() {
                for e in 0..3 {
                    let (p, q) = (idx[e], idx[(e + 1) % 3]);
                    edges.push((p.min(q), p.max(q), t as u32, e as u8));
                }
            }
            edges.sort_unstable();
            let unit = |t: u32| self.triangle(t).scaled_normal().try_normalize(0.0);
            for run in edges.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
                let flat = match run {
                    [x, y] => match (unit(x.2), unit(y.2)) {
                        (Some(n1), Some(n2)) => n1.dot(&n2).abs() >= FLAT_EDGE_COSINE,
                        _ => false,
                    },
                    _ => false,
                };
                if !flat {
                    for &(_, _, t, e) in run {
                        bits[t as usize] |= 1 << e;
                    }
                }
            }
            for (b, f) in bits.iter_mut().zip(&self.edge_flags) {
                *b = f.resolve(*b);
            }
            bits
        })
    }
}

/// The manifolds of mesh A placed by `pose_a` against mesh B placed by
/// `pose_b` (world frame), appended to `out`: every touching triangle pair's
/// contact (`contact_triangle_triangle`) as a point, grouped by normal.
/// Meshes are surfaces: no speculative points.
pub(crate) fn mesh_mesh_manifolds(
    a: &TriMesh,
    pose_a: &Isometry,
    b: &TriMesh,
    pose_b: &Isometry,
    scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) {
    let found = &mut scratch.found;
    found.clear();
    visit_mesh_mesh_contacts(a, b, &pose_a.inv_mul(pose_b), |i, j, c| {
        // B's triangle, hashed (odd multiplier: a bijection of u32), and
        // A's triangle by the grouping.
        let id = j.wrapping_mul(0x9E37_79B9);
        let p = ManifoldPoint { point_a: c.point_a, point_b: c.point_b, depth: c.depth, id };
        if let Some(manifold) = ContactManifold::new(c.normal, &[p]) {
            found.push(TriangleManifold { triangle: i, face: false, manifold });
        }
    });
    let start = out.len();
    group_by_normal(scratch, out);
    for m in &mut out[start..] {
        *m = m.transformed(pose_a);
    }
}

/// Groups the triangles' manifolds into manifolds of one normal each (the
/// deepest first; a manifold joins the first group whose normal is within
/// [`SAME_NORMAL_COSINE`]), reduces each group to four points, and appends
/// them to `out`. Point ids get their triangle's index (see
/// [`TRIANGLE_ID_SHIFT`]).
fn group_by_normal(scratch: &mut MeshScratch, out: &mut Vec<ContactManifold>) {
    let MeshScratch { found, order, points, .. } = scratch;
    // Deepest first, ties broken by triangle and point id: a total order
    // on the entries, so the unstable sort (which allocates nothing, where
    // the stable `sort_by` allocates past 20 entries) is deterministic. The
    // keys are sorted, not the manifolds (a few words against 150 bytes).
    order.clear();
    order.extend(found.iter().enumerate().map(|(k, m)| {
        let deepest = m.manifold.deepest();
        GroupKey { depth: deepest.depth, triangle: m.triangle, id: deepest.id, index: k as u32, taken: false }
    }));
    order.sort_unstable_by(|x, y| y.depth.total_cmp(&x.depth).then(x.triangle.cmp(&y.triangle)).then(x.id.cmp(&y.id)));
    for lead in 0..order.len() {
        if order[lead].taken {
            continue;
        }
        let normal: UnitVector = found[order[lead].index as usize].manifold.normal;
        points.clear();
        for key in order[lead..].iter_mut() {
            let m = &found[key.index as usize];
            if !key.taken && m.manifold.normal.dot(&normal) >= SAME_NORMAL_COSINE {
                key.taken = true;
                // A point of a triangle whose normal is within 2.6 degrees
                // of the group's is re-expressed along the group's normal, as
                // `finish` does in the narrowphase's face manifolds.
                let tag = m.triangle << TRIANGLE_ID_SHIFT;
                points.extend(m.manifold.points().iter().map(|p| {
                    // (Touching points stay touching: their depth may have
                    // been rounded up to 0 from within the touching slack.)
                    let depth = (p.point_a - p.point_b).dot(&normal);
                    let depth = if p.depth >= 0.0 { depth.max(0.0) } else { depth };
                    let point_a = p.point_b + normal.into_inner() * depth;
                    ManifoldPoint { point_a, depth, id: tag ^ p.id, ..*p }
                }));
            }
        }
        out.extend(ContactManifold::new(normal, points));
    }
}

/// A triangle manifold's place in [`group_by_normal`]'s order: its deepest
/// point's depth and id, its triangle, its index in the found list, and
/// whether a group has taken it.
#[derive(Clone, Copy, Debug)]
struct GroupKey {
    depth: Real,
    triangle: u32,
    id: u32,
    index: u32,
    taken: bool,
}

/// True when `normal` is within [`FACE_COSINE`] of triangle `t`'s normal
/// (either side): a face contact. False for a degenerate triangle.
fn is_face_contact(t: &Triangle, normal: &UnitVector) -> bool {
    let n = t.scaled_normal();
    let len = n.norm();
    len > 0.0 && normal.dot(&n).abs() >= FACE_COSINE * len
}

/// The unit face normal `n` of triangle `t` (from shape A to the triangle)
/// on A's side of the triangle's plane, `None` for a degenerate triangle:
/// of `n = f` and `n = -f` (`f` the unit normal of the winding), the one
/// across which A reaches less far, `(support(n) - a) . n` the smaller (for
/// a centrally symmetric shape, `n` points from its centre to the plane); a
/// tie takes the side of `normal` (the contact normal being replaced, from A
/// to the triangle).
///
/// The mesh is two-sided, and this is the side a face contact of the
/// triangle takes (the face axis of a two-sided triangle's separating axis
/// test pushes A out by the smaller of its two overlaps). It is only asked
/// of a triangle whose feature is inactive, whose neighbours meet it within
/// 5 degrees, so it is the side of the local surface that A is on. The
/// side of the contact normal is not: an edge or vertex contact's normal
/// may lie almost in the plane (a box corner beside a vertex, pushed out
/// sideways) and lean to the far side, and A would be pushed through the
/// surface by its whole height above it.
pub(super) fn face_normal_on_side(t: &Triangle, shape: &Convex<'_>, normal: &UnitVector) -> Option<UnitVector> {
    let front = UnitVector::try_new(t.scaled_normal(), 0.0)?;
    let back = -front;
    let reach = |n: &UnitVector| (shape.support(n) - t.a()).dot(n);
    let (r_front, r_back) = (reach(&front), reach(&back));
    Some(if r_front < r_back || (r_front == r_back && front.dot(normal) >= 0.0) { front } else { back })
}

/// A speculative manifold `m` on an inactive feature of triangle `t` turned
/// to the triangle's face normal on the shape's side (see
/// [`face_normal_on_side`]): each point keeps its triangle point and its
/// depth (the shapes' distance), and `point_a` moves to
/// `point_b + depth n`. The shape sees the flat surface's normal, not the
/// sideways one of an edge that is not there, and keeps its speculative
/// contact when no face contact holds it.
fn along_face_normal(t: &Triangle, m: &ContactManifold, shape: &Convex<'_>) -> ContactManifold {
    let Some(n) = face_normal_on_side(t, shape, &m.normal) else { return *m };
    let mut points: SmallVec<[ManifoldPoint; 4]> = SmallVec::new();
    points.extend(m.points().iter().map(|p| ManifoldPoint { point_a: p.point_b + n.into_inner() * p.depth, ..*p }));
    ContactManifold::new(n, &points).unwrap_or(*m)
}

/// The barycentric weights of `p` (on the triangle, up to rounding) for
/// `a`, `b`, `c`, from the areas of the sub-triangles (Ericson 3.4); a
/// degenerate triangle gives `[1, 0, 0]`.
pub(super) fn barycentric(t: &Triangle, p: &Point) -> [Real; 3] {
    let (v0, v1, v2): (Vector, Vector, Vector) = (t.b() - t.a(), t.c() - t.a(), p - t.a());
    let (d00, d01, d11) = (v0.dot(&v0), v0.dot(&v1), v1.dot(&v1));
    let (d20, d21) = (v2.dot(&v0), v2.dot(&v1));
    let denom = d00 * d11 - d01 * d01;
    if denom.is_nan() || denom <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    [1.0 - v - w, v, w]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_test_support::gen::{self, Placement};
    use proxima_test_support::Rng;

    /// The manifolds as found one triangle at a time, in the tree's order:
    /// what `TriMesh::manifolds` computes for every shape but a box.
    fn one_by_one(mesh: &TriMesh, shape: Convex<'_>, prediction: Real, out: &mut Vec<ContactManifold>) {
        let mut scratch = MeshScratch::default();
        let _ = mesh.visit_candidates(&shape.aabb().loosened(prediction), |t, tri| {
            if let Some(manifold) = shape.manifold(tri, prediction) {
                let face = is_face_contact(tri, &manifold.normal);
                scratch.found.push(TriangleManifold { triangle: t, face, manifold });
            }
            ControlFlow::Continue(())
        });
        mesh.remove_internal_edges(&shape, &mut scratch);
        group_by_normal(&mut scratch, out);
    }

    fn bits(m: &ContactManifold) -> Vec<u32> {
        let mut out: Vec<u32> = m.normal.iter().map(|x| x.to_bits()).collect();
        for p in m.points() {
            out.extend(p.point_a.iter().chain(p.point_b.iter()).map(|x| x.to_bits()));
            out.extend([p.depth.to_bits(), p.id]);
        }
        out
    }

    /// The bumpy 16 x 16 grid of the tests (half-metre cells, heights within
    /// 0.3), with a degenerate triangle every seventh cell.
    fn bumpy_grid() -> TriMesh {
        let n = 16usize;
        let vertices: Vec<Point> = (0..=n)
            .flat_map(|i| (0..=n).map(move |j| (i, j)))
            .map(|(i, j)| Point::new(i as Real * 0.5, 0.0, j as Real * 0.5))
            .map(|p| Point::new(p.x, 0.3 * (p.x * 1.7).sin() * (p.z * 1.3).cos(), p.z))
            .collect();
        let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
        let mut indices = Vec::new();
        for i in 0..n {
            for j in 0..n {
                indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
                indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
                if (i + j) % 7 == 0 {
                    indices.push([at(i, j), at(i, j), at(i + 1, j)]); // degenerate
                }
            }
        }
        TriMesh::new(vertices, indices).unwrap()
    }

    /// The grouping does not depend on the order the triangles' manifolds
    /// were found in (the batched box path finds them in another order than
    /// the tree's): the found lists of boxes, capsules and spheres on the
    /// bumpy grid, reversed and rotated, group into the same manifolds bit
    /// for bit.
    #[test]
    fn grouping_ignores_the_found_order() {
        let mut rng = proxima_test_support::rng(0x6E0F);
        let mesh = bumpy_grid();
        let place = Placement::new(0.0, 0.1, 1.2);
        let mut groups = 0usize;
        for case in 0..2_000 {
            let centre =
                Point::new(rng.random_range(0.0..8.0), rng.random_range(-0.5..0.8), rng.random_range(0.0..8.0));
            let obb = Obb::new(centre, gen::rotation(&mut rng), gen::half_extents(&mut rng, &place));
            let capsule = Capsule::new(centre, centre + gen::unit_vector(&mut rng), rng.random_range(0.05..0.5));
            let sphere = Sphere::new(centre, rng.random_range(0.05..0.8));
            let shape = match case % 3 {
                0 => Convex::Obb(&obb),
                1 => Convex::Capsule(&capsule),
                _ => Convex::Sphere(&sphere),
            };
            let mut scratch = MeshScratch::default();
            let _ = mesh.visit_candidates(&shape.aabb().loosened(0.1), |t, tri| {
                if let Some(manifold) = shape.manifold(tri, 0.1) {
                    let face = is_face_contact(tri, &manifold.normal);
                    scratch.found.push(TriangleManifold { triangle: t, face, manifold });
                }
                ControlFlow::Continue(())
            });
            let found = scratch.found.clone();
            let mut reference = Vec::new();
            group_by_normal(&mut scratch, &mut reference);
            for turn in 0..3 {
                scratch.found = found.clone();
                match turn {
                    0 => scratch.found.reverse(),
                    _ => scratch.found.rotate_left(turn.min(found.len())),
                }
                let mut out = Vec::new();
                group_by_normal(&mut scratch, &mut out);
                let (a, b): (Vec<_>, Vec<_>) = (out.iter().map(bits).collect(), reference.iter().map(bits).collect());
                assert_eq!(a, b, "case {case}, turn {turn}");
            }
            groups += reference.len();
        }
        assert!(groups > 1_000, "only {groups} manifolds");
    }

    /// A box's mesh manifolds, its triangles tested eight at a time in
    /// lanes, are the ones found one triangle at a time, bit for bit: boxes
    /// of sizes 0.1 to 1.5 at random poses on a bumpy 16 x 16 grid (with a
    /// few degenerate triangles, which take the one-by-one path inside the
    /// batched one), predictions from 0 to 0.3.
    #[test]
    fn batched_box_manifolds_are_the_one_by_one_manifolds() {
        let mut rng = proxima_test_support::rng(0xB0B5);
        let mesh = bumpy_grid();
        let place = Placement::new(0.0, 0.1, 1.5);
        let (mut batched, mut expected, mut pairs) = (Vec::new(), Vec::new(), 0usize);
        for case in 0..3_000 {
            let centre =
                Point::new(rng.random_range(0.0..8.0), rng.random_range(-0.6..0.9), rng.random_range(0.0..8.0));
            let obb = Obb::new(centre, gen::rotation(&mut rng), gen::half_extents(&mut rng, &place));
            let prediction = rng.random_range(0.0..0.3);
            batched.clear();
            expected.clear();
            mesh.manifolds(Convex::Obb(&obb), prediction, &mut MeshScratch::default(), &mut batched);
            one_by_one(&mesh, Convex::Obb(&obb), prediction, &mut expected);
            let (b, e): (Vec<_>, Vec<_>) = (batched.iter().map(bits).collect(), expected.iter().map(bits).collect());
            assert_eq!(b, e, "case {case}: {obb:?} prediction {prediction}");
            pairs += usize::from(!expected.is_empty());
        }
        assert!(pairs > 1_000, "only {pairs} boxes touch the mesh");
    }
}
