//! Convex hull of a point cloud, with the polygon faces, edges and vertex
//! adjacency that separating-axis tests, face clipping and support mapping use.

mod build;
mod faces;
mod placed;
mod scan;

pub use placed::PlacedHull;

use super::Aabb;
use crate::error::ShapeError;
use smallvec::SmallVec;

use crate::math::{is_finite_point, is_within_bound, Point, Real, UnitVector, Vector};
use build::V3;

/// The planar tolerance as a fraction of the hull's size (the largest extent
/// of the points' bounding box).
const PLANAR_TOLERANCE_REL: f64 = 1e-5;

/// Up to this many vertices, [`ConvexHull::support_point`] scans them all;
/// above, it climbs the vertex graph (`cargo bench --bench hull -- support`:
/// the scan is ahead on hulls of 16 and 32 vertices, the climb from 64 on).
const LINEAR_SUPPORT_MAX_VERTICES: usize = 32;
const _: () = assert!(LINEAR_SUPPORT_MAX_VERTICES <= 4 * scan::MAX_BLOCKS);

/// A solid convex polyhedron: the convex hull of a point cloud, in the
/// cloud's own frame (the hull's local frame).
///
/// Built by quickhull in f64 with a planar tolerance `tol = 1e-5 * L`, where
/// `L` is the largest extent of the points' bounding box
/// ([`ConvexHull::tolerance`]): a point within `tol` of the hull (a near
/// duplicate, a point on a face or an edge) does not become a vertex, and
/// adjacent triangles whose vertices lie within `tol` of a common plane are
/// merged into one polygon face. So the faces are planar to within `tol`,
/// every vertex lies on or below every face plane to within about `tol`
/// (plus f32 rounding of the stored planes, `~1e-7` times the largest
/// coordinate), and every input point lies inside the hull to within `tol`.
///
/// Invariants: at least 4 vertices spanning a volume; a closed polyhedron
/// (`V - E + F = 2`) whose faces are simple vertex loops, counter-clockwise
/// seen from outside, with unit outward normals; every edge borders exactly
/// two faces. Only the vertices are stored in the serde form; deserializing
/// rebuilds the hull from them.
///
/// The construction is proxima's own: of the crates that build 3D hulls,
/// `chull` returns triangles only (no merged faces, no adjacency), takes a
/// `Vec<Vec<f64>>` per point, and its robust mode is documented as slow;
/// `qhull` binds the C library (a C build); neither gives the face/edge/vertex
/// adjacency needed here, so their output would be rebuilt anyway.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "HullFields", into = "HullFields")
)]
// The fields a support query reads (the coordinate blocks' pointer and
// length, the box whose centre starts GJK) come first, in one cache line of
// an aligned struct: a query on a hull out of cache then misses that line
// and the blocks, not three scattered lines besides.
#[repr(C, align(64))]
pub struct ConvexHull {
    /// For hulls of up to [`LINEAR_SUPPORT_MAX_VERTICES`] vertices, their
    /// coordinates in blocks of four, `[xs, ys, zs]` (the last padded with
    /// copies of vertex 0), so that the support scan takes four dot
    /// products at once; empty for larger hulls.
    lanes: Vec<[[Real; 4]; 3]>,
    aabb: Aabb,
    tolerance: Real,
    vertices: Vec<Point>,
    faces: Vec<HullFace>,
    face_vertices: Vec<u32>,
    edges: Vec<HullEdge>,
    neighbor_start: Vec<u32>,
    neighbors: Vec<u32>,
    /// Index of the vertex of least and greatest coordinate along each axis:
    /// `[min x, max x, min y, max y, min z, max z]`, hill-climbing starts.
    extremes: [u32; 6],
    /// The face planes in blocks of four, `[nxs, nys, nzs, offsets]`, the
    /// last padded with planes `0 . x = +inf` (no point is beyond them), so
    /// that a scan over the faces takes four at once.
    face_lanes: Vec<[[Real; 4]; 4]>,
}

/// A polygon face of a [`ConvexHull`]: the plane `normal . x = offset` in
/// the hull's local frame, and a loop of vertex indices
/// ([`ConvexHull::face_vertices`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullFace {
    normal: UnitVector,
    offset: Real,
    first: u32,
    len: u32,
}

impl HullFace {
    /// The unit normal, pointing out of the hull (local frame).
    #[inline]
    pub fn normal(&self) -> &UnitVector {
        &self.normal
    }

    /// The plane offset: points `x` of the face have `normal . x = offset`;
    /// the hull lies on the side `normal . x <= offset`.
    #[inline]
    pub fn offset(&self) -> Real {
        self.offset
    }

    /// The number of vertices of the face's loop (at least 3).
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.len as usize
    }
}

/// An edge of a [`ConvexHull`]: two vertex indices and the two faces it
/// borders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HullEdge {
    /// The end vertices, `vertices[0] < vertices[1]`.
    pub vertices: [u32; 2],
    /// The bordering faces: the loop of `faces[0]` runs
    /// `vertices[0] -> vertices[1]`, the loop of `faces[1]` runs back.
    pub faces: [u32; 2],
}

impl ConvexHull {
    /// The convex hull of `points`.
    ///
    /// Errors: [`ShapeError::TooFewPoints`] for fewer than 4 points;
    /// [`ShapeError::NonFinite`] for NaN or infinite coordinates;
    /// [`ShapeError::TooLarge`] for a coordinate beyond
    /// [`MAX_COORDINATE`](crate::MAX_COORDINATE) (`1e18`);
    /// [`ShapeError::CollinearPoints`] when every point lies within the
    /// tolerance (see [`ConvexHull`]) of one point or one line, and
    /// [`ShapeError::CoplanarPoints`] when they lie within it of one plane
    /// (a cloud thinner than `1e-5` of its size is flat).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::{ConvexHull, Point, Vector};
    /// // The unit cube's corners, a point on a face and one inside.
    /// let mut points: Vec<Point> = (0..8)
    ///     .map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32))
    ///     .collect();
    /// points.push(Point::new(0.5, 0.5, 1.0));
    /// points.push(Point::new(0.5, 0.5, 0.5));
    /// let hull = ConvexHull::try_new(&points).unwrap();
    /// assert_eq!((hull.vertices().len(), hull.edges().len(), hull.faces().len()), (8, 12, 6));
    /// assert!((hull.volume() - 1.0).abs() < 1e-6);
    /// assert_eq!(hull.support_point(&Vector::new(1.0, 2.0, 3.0)), Point::new(1.0, 1.0, 1.0));
    /// assert!(ConvexHull::try_new(&points[..4]).is_err()); // one face of the cube: flat
    /// ```
    pub fn try_new(points: &[Point]) -> Result<Self, ShapeError> {
        if points.len() < 4 {
            return Err(ShapeError::TooFewPoints);
        }
        if !points.iter().all(is_finite_point) {
            return Err(ShapeError::NonFinite("convex hull point"));
        }
        if !points.iter().all(|p| is_within_bound(&p.coords)) {
            return Err(ShapeError::TooLarge("convex hull point"));
        }
        // f64 copies relative to the box centre: the f32 inputs and their
        // differences are exact there.
        let to64 = |p: &Point| V3::new(p.x as f64, p.y as f64, p.z as f64);
        let (lo, hi) = points
            .iter()
            .fold((to64(&points[0]), to64(&points[0])), |(lo, hi), p| (lo.inf(&to64(p)), hi.sup(&to64(p))));
        let center = (lo + hi) * 0.5;
        let tol = PLANAR_TOLERANCE_REL * (hi - lo).max();
        let pts: Vec<V3> = points.iter().map(|p| to64(p) - center).collect();
        let tris = build::quickhull(&pts, tol)?;
        let polys = faces::merge_coplanar(&tris, &pts, tol);
        Ok(Self::assemble(points, polys, tol as Real))
    }

    /// The convex hull of `points`.
    ///
    /// # Panics
    /// When [`ConvexHull::try_new`] would return an error.
    #[track_caller]
    pub fn new(points: &[Point]) -> Self {
        Self::try_new(points).unwrap_or_else(|e| panic!("invalid ConvexHull: {e}"))
    }

    /// The f32 hull from the f64 polygons: vertices are the input points;
    /// each face plane is moved out to the hull's farthest vertex along its
    /// normal (found by climbing from the face's own vertices), so every
    /// vertex is on or under every plane.
    fn assemble(points: &[Point], polys: faces::Polygons, tolerance: Real) -> Self {
        let vertices: Vec<Point> = polys.vertex_ids.iter().map(|&i| points[i as usize]).collect();
        let mut faces: Vec<HullFace> = (polys.loop_start.windows(2).zip(&polys.normals))
            .map(|(w, n)| {
                let normal = UnitVector::new_normalize(Vector::new(n.x as Real, n.y as Real, n.z as Real));
                HullFace { normal, offset: 0.0, first: w[0], len: w[1] - w[0] }
            })
            .collect();
        let face_vertices = polys.loop_vertices;
        let edges = edges_of(&faces, &face_vertices, vertices.len());
        let (neighbor_start, neighbors) = neighbors_of(&edges, vertices.len());
        let v64: Vec<V3> = vertices.iter().map(|p| p.coords.cast::<f64>()).collect();
        for face in &mut faces {
            let n = face.normal.into_inner().cast::<f64>();
            let lp = &face_vertices[face.first as usize..(face.first + face.len) as usize];
            let mut best = lp.iter().map(|&v| n.dot(&v64[v as usize])).fold(f64::MIN, f64::max);
            let mut at = lp[0] as usize;
            loop {
                let from = at;
                for &nb in &neighbors[neighbor_start[from] as usize..neighbor_start[from + 1] as usize] {
                    let d = n.dot(&v64[nb as usize]);
                    if d > best {
                        (best, at) = (d, nb as usize);
                    }
                }
                if at == from {
                    break;
                }
            }
            face.offset = best as Real;
        }
        let mut extremes = [0u32; 6];
        for (i, v) in vertices.iter().enumerate() {
            for a in 0..3 {
                if v[a] < vertices[extremes[2 * a] as usize][a] {
                    extremes[2 * a] = i as u32;
                }
                if v[a] > vertices[extremes[2 * a + 1] as usize][a] {
                    extremes[2 * a + 1] = i as u32;
                }
            }
        }
        let aabb = Aabb::from_points(&vertices).expect("a hull has vertices");
        let lanes = if vertices.len() <= LINEAR_SUPPORT_MAX_VERTICES { lanes_of(&vertices) } else { Vec::new() };
        let face_lanes = face_lanes_of(&faces);
        Self {
            vertices,
            faces,
            face_vertices,
            edges,
            neighbor_start,
            neighbors,
            extremes,
            lanes,
            face_lanes,
            aabb,
            tolerance,
        }
    }

    /// The vertices (local frame), a subset of the input points.
    #[inline]
    pub fn vertices(&self) -> &[Point] {
        &self.vertices
    }

    /// The polygon faces.
    #[inline]
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }

    /// The vertex indices of face `face`'s loop, counter-clockwise seen
    /// from outside.
    ///
    /// # Panics
    /// When `face >= self.faces().len()`.
    #[inline]
    pub fn face_vertices(&self, face: usize) -> &[u32] {
        let f = &self.faces[face];
        &self.face_vertices[f.first as usize..(f.first + f.len) as usize]
    }

    /// The edges, each vertex pair once.
    #[inline]
    pub fn edges(&self) -> &[HullEdge] {
        &self.edges
    }

    /// The vertices joined to vertex `vertex` by an edge.
    ///
    /// # Panics
    /// When `vertex >= self.vertices().len()`.
    #[inline]
    pub fn vertex_neighbors(&self, vertex: usize) -> &[u32] {
        &self.neighbors[self.neighbor_start[vertex] as usize..self.neighbor_start[vertex + 1] as usize]
    }

    /// The planar tolerance the hull was built with: `1e-5` times the
    /// largest extent of the input's bounding box.
    #[inline]
    pub fn tolerance(&self) -> Real {
        self.tolerance
    }

    /// The tight bounding box (local frame).
    #[inline]
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }

    /// The vertex farthest along `dir` (the support point; any of the
    /// farthest on a tie). Scans the vertices of a small hull, and climbs
    /// from vertex to better neighbour on a larger one (a local maximum on a
    /// convex polyhedron is the global one; on this hull, to within its
    /// tolerance). A zero `dir` gives some vertex.
    #[must_use]
    pub fn support_point(&self, dir: &Vector) -> Point {
        let i = self.support_index(dir);
        // A small hull's vertex is read back from the blocks the scan just
        // read (the same coordinates), not from `vertices`: one cache line
        // fewer for a hull out of cache.
        match self.lanes.get(i / 4) {
            Some([xs, ys, zs]) => Point::new(xs[i % 4], ys[i % 4], zs[i % 4]),
            None => self.vertices[i],
        }
    }

    /// The face whose outward normal is most aligned with `dir` (the first
    /// of the greatest `normal . dir`, `dir` in the hull's frame; face 0 for
    /// a zero `dir`): the reference face of a contact along `dir`.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::{ConvexHull, Point, Vector};
    /// let cube: Vec<Point> =
    ///     (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
    /// let hull = ConvexHull::try_new(&cube).unwrap();
    /// let top = hull.face_towards(&Vector::new(0.1, 1.0, -0.2));
    /// assert!((hull.faces()[top].normal().y - 1.0).abs() < 1e-6);
    /// ```
    #[must_use]
    pub fn face_towards(&self, dir: &Vector) -> usize {
        let k = scan::first_face_of_greatest(&self.face_lanes, dir);
        if k < self.faces.len() {
            k
        } else {
            0
        }
    }

    /// The face planes four at a time, `[nxs, nys, nzs, offsets]` (face
    /// `k` in lane `k % 4` of block `k / 4`; the last block padded with
    /// planes `0 . x = +inf`).
    #[inline]
    pub(crate) fn face_lanes(&self) -> &[[[Real; 4]; 4]] {
        &self.face_lanes
    }

    /// The least and greatest `v . dir` over the vertices `v`: the hull's
    /// extent along `dir` (in units of `|dir|`).
    #[must_use]
    pub fn extent_along(&self, dir: &Vector) -> (Real, Real) {
        if !self.lanes.is_empty() {
            return scan::extent(&self.lanes, dir, None);
        }
        self.vertices.iter().fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), v| {
            let d = v.coords.dot(dir);
            (lo.min(d), hi.max(d))
        })
    }

    /// [`extent_along`](Self::extent_along), with every vertex's `v . dir`
    /// written to `out` (vertex `v` at `out[v]`; resized to the vertex count
    /// rounded up to four).
    #[inline]
    pub(crate) fn project(&self, dir: &Vector, out: &mut SmallVec<[Real; 32]>) -> (Real, Real) {
        out.clear();
        out.resize(self.vertices.len().next_multiple_of(4), 0.0);
        if !self.lanes.is_empty() {
            return scan::extent(&self.lanes, dir, Some(out));
        }
        let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
        for (p, v) in out.iter_mut().zip(&self.vertices) {
            *p = v.coords.dot(dir);
            (lo, hi) = (lo.min(*p), hi.max(*p));
        }
        (lo, hi)
    }

    /// The index of the vertex [`ConvexHull::support_point`] returns.
    #[must_use]
    pub fn support_index(&self, dir: &Vector) -> usize {
        let dot = |i: usize| self.vertices[i].coords.dot(dir);
        if !self.lanes.is_empty() {
            return scan::support_index(&self.lanes, dir);
        }
        // Start at the extreme vertex of the axis that dominates `dir`.
        let a = dir.iamax();
        let mut best = self.extremes[2 * a + usize::from(dir[a] > 0.0)] as usize;
        let mut best_dot = dot(best);
        loop {
            let current = best;
            for &n in self.vertex_neighbors(current) {
                let d = dot(n as usize);
                if d > best_dot {
                    (best, best_dot) = (n as usize, d);
                }
            }
            if best == current {
                return best;
            }
        }
    }

    /// True when `p` lies inside or on the hull: on the inner side of every
    /// face plane (`normal . p <= offset`).
    #[must_use]
    pub fn contains_point(&self, p: &Point) -> bool {
        self.faces.iter().all(|f| f.normal.dot(&p.coords) <= f.offset)
    }

    /// The volume, summed in f64 over tetrahedra from a vertex to each face's
    /// fan of triangles.
    #[must_use]
    pub fn volume(&self) -> Real {
        self.volume_and_moment().0 as Real
    }

    /// The centre of mass of the solid hull (uniform density), local frame.
    #[must_use]
    pub fn centroid(&self) -> Point {
        let (vol, moment) = self.volume_and_moment();
        let o = self.vertices[0].coords.cast::<f64>();
        Point::from((o + moment / vol).cast::<Real>())
    }

    /// Volume, and the first moment relative to vertex 0: each tetrahedron
    /// `(o, a, b, c)` has volume `((a - o) x (b - o)) . (c - o) / 6` and its
    /// centroid at the mean of its corners.
    fn volume_and_moment(&self) -> (f64, V3) {
        let o = self.vertices[0].coords.cast::<f64>();
        let at = |i: u32| self.vertices[i as usize].coords.cast::<f64>() - o;
        let (mut vol, mut moment) = (0.0, V3::zeros());
        for f in 0..self.faces.len() {
            let lp = self.face_vertices(f);
            let a = at(lp[0]);
            for k in 1..lp.len() - 1 {
                let (b, c) = (at(lp[k]), at(lp[k + 1]));
                let v = a.cross(&b).dot(&c) / 6.0;
                vol += v;
                moment += (a + b + c) * (v / 4.0);
            }
        }
        (vol, moment)
    }
}

/// The edges of closed polygon loops, ordered by vertex pair: each directed
/// edge `a -> b` of a face meets its twin `b -> a` in the bucket of
/// `min(a, b)`, where the halves are sorted by `max(a, b)` (a bucket holds
/// two halves per edge up from its vertex, a handful, so a bucket sort by
/// the least vertex and an insertion sort within each is the whole sort).
fn edges_of(faces: &[HullFace], face_vertices: &[u32], n_vertices: usize) -> Vec<HullEdge> {
    let mut start = vec![0u32; n_vertices + 1];
    for_each_half_edge(faces, face_vertices, |_, a, b| start[a.min(b) as usize + 1] += 1);
    for i in 0..n_vertices {
        start[i + 1] += start[i];
    }
    // Per half edge: its greatest vertex, and its face with whether it runs
    // low -> high in the lowest bit.
    let mut fill = start.clone();
    let mut halves = vec![(0u32, 0u32); face_vertices.len()];
    for_each_half_edge(faces, face_vertices, |f, a, b| {
        let slot = &mut fill[a.min(b) as usize];
        halves[*slot as usize] = (a.max(b), f << 1 | u32::from(a < b));
        *slot += 1;
    });
    let mut edges = Vec::with_capacity(face_vertices.len() / 2);
    for low in 0..n_vertices {
        let bucket = &mut halves[start[low] as usize..start[low + 1] as usize];
        for k in 1..bucket.len() {
            let mut j = k;
            while j > 0 && bucket[j - 1].0 > bucket[j].0 {
                bucket.swap(j - 1, j);
                j -= 1;
            }
        }
        for pair in bucket.chunks_exact(2) {
            let (fwd, back) = if pair[0].1 & 1 == 1 { (pair[0], pair[1]) } else { (pair[1], pair[0]) };
            debug_assert!(fwd.0 == back.0 && fwd.1 & 1 == 1 && back.1 & 1 == 0);
            edges.push(HullEdge { vertices: [low as u32, fwd.0], faces: [fwd.1 >> 1, back.1 >> 1] });
        }
    }
    edges
}

/// Calls `visit(face, a, b)` on each directed edge `a -> b` of the loops.
#[inline]
fn for_each_half_edge(faces: &[HullFace], face_vertices: &[u32], mut visit: impl FnMut(u32, u32, u32)) {
    for (f, face) in faces.iter().enumerate() {
        let lp = &face_vertices[face.first as usize..(face.first + face.len) as usize];
        let mut a = lp[lp.len() - 1];
        for &b in lp {
            visit(f as u32, a, b);
            a = b;
        }
    }
}

/// The vertex graph in compressed rows: the neighbours of `v` are
/// `neighbors[start[v]..start[v + 1]]`.
fn neighbors_of(edges: &[HullEdge], n_vertices: usize) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n_vertices + 1];
    for e in edges {
        start[e.vertices[0] as usize + 1] += 1;
        start[e.vertices[1] as usize + 1] += 1;
    }
    for i in 0..n_vertices {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut neighbors = vec![0u32; 2 * edges.len()];
    for e in edges {
        let [a, b] = e.vertices.map(|v| v as usize);
        neighbors[fill[a] as usize] = b as u32;
        fill[a] += 1;
        neighbors[fill[b] as usize] = a as u32;
        fill[b] += 1;
    }
    (start, neighbors)
}

/// A [`ConvexHull`] as written: its vertices; read back through
/// [`ConvexHull::try_new`].
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
struct HullFields {
    vertices: Vec<Point>,
}

#[cfg(feature = "serde")]
impl From<ConvexHull> for HullFields {
    fn from(h: ConvexHull) -> Self {
        Self { vertices: h.vertices }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<HullFields> for ConvexHull {
    type Error = ShapeError;
    fn try_from(f: HullFields) -> Result<Self, ShapeError> {
        ConvexHull::try_new(&f.vertices)
    }
}

/// The face planes in blocks of four, `[nxs, nys, nzs, offsets]`, the last
/// block padded with `0 . x = +inf`.
fn face_lanes_of(faces: &[HullFace]) -> Vec<[[Real; 4]; 4]> {
    faces
        .chunks(4)
        .map(|block| {
            core::array::from_fn(|row| {
                core::array::from_fn(|l| match (block.get(l), row) {
                    (Some(f), 3) => f.offset,
                    (Some(f), _) => f.normal[row],
                    (None, 3) => Real::INFINITY,
                    (None, _) => 0.0,
                })
            })
        })
        .collect()
}

/// `vertices` in blocks of four, `[xs, ys, zs]`, the last block padded
/// with copies of vertex 0.
fn lanes_of(vertices: &[Point]) -> Vec<[[Real; 4]; 3]> {
    vertices
        .chunks(4)
        .map(|block| core::array::from_fn(|axis| core::array::from_fn(|l| block.get(l).unwrap_or(&vertices[0])[axis])))
        .collect()
}
