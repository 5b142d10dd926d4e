//! The simplex of GJK and its closest point to the origin, by signed volumes.
//!
//! The closest point of a simplex (1 to 4 vertices of the Minkowski
//! difference `A - B`) to the origin, as barycentric coordinates over the
//! smallest sub-simplex that holds it: the signed-volume sub-algorithm of
//! Montanari, Petrinic and Barbieri, "Improving the GJK algorithm for faster
//! and more reliable distance queries between convex objects" (ACM TOG
//! 36(3), 2017), which replaces Johnson's determinant recursion. For a
//! tetrahedron, the origin's barycentric coordinates are ratios of signed
//! volumes; when all share the sign of the whole, the origin is inside;
//! else the closest point lies on a face opposite a vertex of opposite sign,
//! and each such face is solved the same way with signed areas, then its
//! edges with a clamped projection. A degenerate simplex (a flat
//! tetrahedron, a needle triangle, a zero-length edge) has a volume or area
//! too small to trust its signs: all of its faces are tried and the closest
//! kept, so a degenerate simplex falls back to its lower-dimensional parts.
//!
//! Precision: the support points are f32; the Minkowski vertices
//! `w = a - b` are taken in f64 (exact: a difference of two f32 values fits
//! the f64 mantissa) and the solver runs in f64, at the cost of scalar f32
//! arithmetic. f64 is needed for the stated accuracy where one shape is
//! far larger than the other (a `1e-2` box against a `1e3` one): the faces
//! of `A - B` near the origin are then slivers of aspect `1e5`, whose f32
//! signed areas and volumes lose five digits, enough to stall GJK at
//! `1e-2` from the answer. Each sub-simplex is also solved relative to its
//! vertex nearest the origin (`e_i = w_i - w_0`, origin at `-w_0`), so the
//! products carry the simplex's size times that vertex's distance, not the
//! far vertices'. A wrong sign near a boundary picks a neighbouring face
//! whose closest point is as close to rounding; GJK's monotone-progress
//! check absorbs what remains.

use crate::math::{Point, Vector};

/// An f64 vector: the Minkowski vertices and the solver's arithmetic.
pub(super) type V64 = nalgebra::Vector3<f64>;

/// A vertex of the Minkowski difference: `w = a - b` with `a` a support
/// point of A's core and `b` one of B's.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vertex {
    /// `a - b`, exact in f64.
    pub w: V64,
    /// The support point of A.
    pub a: Point,
    /// The support point of B.
    pub b: Point,
}

/// Up to four vertices with the barycentric coordinates of the closest
/// point to the origin (all `> 0` after [`Simplex::reduce`], summing to 1).
#[derive(Clone, Copy, Debug)]
pub(super) struct Simplex {
    pub verts: [Vertex; 4],
    pub lambdas: [f64; 4],
    pub len: usize,
    /// The closest point, `sum l_i w_i`, as the solver computed it.
    pub point: V64,
}

/// A sub-simplex (indices into the simplex) with the barycentric
/// coordinates of its point closest to the origin, and that point's squared
/// distance.
#[derive(Clone, Copy, Debug)]
struct Bary {
    idx: [usize; 4],
    l: [f64; 4],
    n: usize,
    /// The point, `w_0 + sum l_m (w_m - w_0)` from the base vertex.
    p: V64,
    dist2: f64,
}

/// `|e1 x e2|^2` below this fraction of `|e1|^2 |e2|^2` (a sine below
/// `1e-10`, far above f64 rounding) makes a triangle degenerate. Slivers
/// above it are real: a `1e-2` shape against a `1e3` one makes Minkowski
/// faces of aspect `1e5`.
const FLAT_AREA: f64 = 1e-20;
/// `|det|` below this fraction of `|e1| |e2| |e3|` makes a tetrahedron flat.
const FLAT_VOLUME: f64 = 1e-10;

impl Simplex {
    /// The one-vertex simplex.
    #[inline]
    pub fn new(v: Vertex) -> Self {
        Self { verts: [v; 4], lambdas: [1.0, 0.0, 0.0, 0.0], len: 1, point: v.w }
    }

    /// The simplex with A moved by `delta`: each vertex's point of A and
    /// its difference `w` moved with it (the point of A rounded to f32, as
    /// a support point of the moved shape would be). Its barycentric
    /// coordinates are stale until [`Simplex::reduce`].
    #[inline]
    pub fn with_a_moved(&self, delta: &Vector) -> Self {
        let mut moved = *self;
        for v in &mut moved.verts[..self.len] {
            v.a += delta;
            v.w = v.a.coords.cast::<f64>() - v.b.coords.cast::<f64>();
        }
        moved
    }

    /// Adds a vertex (the simplex must hold fewer than four).
    #[inline]
    pub fn push(&mut self, v: Vertex) {
        debug_assert!(self.len < 4);
        self.verts[self.len] = v;
        self.len += 1;
    }

    /// True when `w` is one of the vertices (GJK cannot progress with it).
    #[inline]
    pub fn contains(&self, w: &V64) -> bool {
        self.verts[..self.len].iter().any(|v| v.w == *w)
    }

    /// The witness points `(sum l_i a_i, sum l_i b_i)`, summed in f64 as
    /// differences from the vertex of largest weight (far vertices of small
    /// weight then add little rounding).
    #[inline]
    pub fn witnesses(&self) -> (Point, Point) {
        let m = (0..self.len).max_by(|&x, &y| self.lambdas[x].total_cmp(&self.lambdas[y])).unwrap_or(0);
        let (am, bm) = (self.verts[m].a.coords.cast::<f64>(), self.verts[m].b.coords.cast::<f64>());
        let (mut pa, mut pb) = (am, bm);
        for i in (0..self.len).filter(|&i| i != m) {
            pa += (self.verts[i].a.coords.cast::<f64>() - am) * self.lambdas[i];
            pb += (self.verts[i].b.coords.cast::<f64>() - bm) * self.lambdas[i];
        }
        (Point::from(pa.cast::<f32>()), Point::from(pb.cast::<f32>()))
    }

    /// Replaces the simplex by the smallest sub-simplex holding its point
    /// closest to the origin and sets the barycentric coordinates; returns
    /// true when the origin is inside a full tetrahedron (the shapes'
    /// difference contains it: they overlap).
    pub fn reduce(&mut self) -> bool {
        let w: [V64; 4] = core::array::from_fn(|i| self.verts[i].w);
        let (bary, inside) = match self.len {
            1 => (vertex(&w, 0), false),
            2 => (segment(&w, 0, 1), false),
            3 => (triangle(&w, [0, 1, 2]), false),
            _ => tetrahedron(&w),
        };
        // The kept vertices in the solver's order, moved only where that
        // order differs (each move copies a vertex, not the array).
        if (0..bary.n).any(|k| bary.idx[k] != k) {
            let kept: [Vertex; 4] = core::array::from_fn(|k| self.verts[bary.idx[k]]);
            self.verts[..bary.n].copy_from_slice(&kept[..bary.n]);
        }
        self.lambdas = bary.l;
        self.len = bary.n;
        self.point = bary.p;
        inside
    }
}

/// A one-vertex sub-simplex.
fn vertex(w: &[V64; 4], k: usize) -> Bary {
    Bary { idx: [k, 0, 0, 0], l: [1.0, 0.0, 0.0, 0.0], n: 1, p: w[k], dist2: w[k].norm_squared() }
}

/// The closest point of the segment `[w_i, w_j]` to the origin: with `i`
/// the end nearer the origin, `w_i + t e` for `e = w_j - w_i` and
/// `t = -w_i . e / |e|^2` clamped to `[0, 1]`.
fn segment(w: &[V64; 4], i: usize, j: usize) -> Bary {
    let (i, j) = if w[j].norm_squared() < w[i].norm_squared() { (j, i) } else { (i, j) };
    let e = w[j] - w[i];
    let ee = e.norm_squared();
    let s = -w[i].dot(&e);
    // `ee > 0` also rejects NaN.
    if !(s > 0.0 && ee > 0.0) {
        return vertex(w, i);
    }
    if s >= ee {
        return vertex(w, j);
    }
    let t = s / ee;
    let p = w[i] + e * t;
    Bary { idx: [i, j, 0, 0], l: [1.0 - t, t, 0.0, 0.0], n: 2, p, dist2: p.norm_squared() }
}

/// `t` reordered so that its first index has the least `|w|`: the base the
/// sub-simplex is solved from, so the products carry the distance from the
/// origin of its nearest vertex, not of its farthest.
fn nearest_first<const N: usize>(w: &[V64; 4], mut t: [usize; N]) -> [usize; N] {
    let m = (0..N).min_by(|&x, &y| w[t[x]].norm_squared().total_cmp(&w[t[y]].norm_squared())).unwrap_or(0);
    t.swap(0, m);
    t
}

/// The closest point of the triangle `w_t` to the origin.
///
/// With `w_i` the vertex nearest the origin, `e1 = w_j - w_i`,
/// `e2 = w_k - w_i`, `n = e1 x e2` and `q = -w_i`, the origin projects on
/// the plane at `w_i + l_j e1 + l_k e2` with `l_j = n . (q x e2) / |n|^2`
/// and `l_k = n . (e1 x q) / |n|^2` (signed areas over the whole), and
/// `l_i = 1 - l_j - l_k`. All three `>= 0`: the projection is inside. Else
/// the closest point lies on an edge opposite a negative coordinate.
fn triangle(w: &[V64; 4], t: [usize; 3]) -> Bary {
    let [i, j, k] = nearest_first(w, t);
    let (e1, e2) = (w[j] - w[i], w[k] - w[i]);
    let n = e1.cross(&e2);
    let nn = n.norm_squared();
    let edges = [(j, k), (i, k), (i, j)];
    if nn <= FLAT_AREA * e1.norm_squared() * e2.norm_squared() || nn.is_nan() {
        return closest_of(edges.iter().map(|&(p, q)| segment(w, p, q)));
    }
    let q = -w[i];
    let lj = n.dot(&q.cross(&e2)) / nn;
    let lk = n.dot(&e1.cross(&q)) / nn;
    let l = [1.0 - lj - lk, lj, lk];
    if l.iter().all(|&x| x >= 0.0) {
        let p = w[i] + e1 * lj + e2 * lk;
        return Bary { idx: [i, j, k, 0], l: [l[0], l[1], l[2], 0.0], n: 3, p, dist2: p.norm_squared() };
    }
    closest_of((0..3).filter(|&m| l[m] < 0.0).map(|m| segment(w, edges[m].0, edges[m].1)))
}

/// The closest point of the tetrahedron to the origin, and whether the
/// origin is inside.
///
/// With `w_0` the vertex nearest the origin, `e_m = w_m - w_0`, `q = -w_0`
/// and `det = e1 . (e2 x e3)`, the origin's barycentric coordinates are
/// `l_1 = q . (e2 x e3) / det`, `l_2 = e1 . (q x e3) / det`,
/// `l_3 = e1 . (e2 x q) / det` (the volume with the origin in place of
/// `w_m`) and `l_0 = 1 - l_1 - l_2 - l_3`.
fn tetrahedron(w: &[V64; 4]) -> (Bary, bool) {
    let v = nearest_first(w, [0, 1, 2, 3]);
    let (e1, e2, e3) = (w[v[1]] - w[v[0]], w[v[2]] - w[v[0]], w[v[3]] - w[v[0]]);
    let det = e1.dot(&e2.cross(&e3));
    // Face `m` is the one opposite vertex `v[m]`.
    let faces = [[v[1], v[2], v[3]], [v[0], v[2], v[3]], [v[0], v[1], v[3]], [v[0], v[1], v[2]]];
    let scale2 = e1.norm_squared() * e2.norm_squared() * e3.norm_squared();
    if det * det <= FLAT_VOLUME * FLAT_VOLUME * scale2 || det.is_nan() {
        return (closest_of(faces.iter().map(|&f| triangle(w, f))), false);
    }
    let q = -w[v[0]];
    let l1 = q.dot(&e2.cross(&e3)) / det;
    let l2 = e1.dot(&q.cross(&e3)) / det;
    let l3 = e1.dot(&e2.cross(&q)) / det;
    let l = [1.0 - l1 - l2 - l3, l1, l2, l3];
    if l.iter().all(|&x| x >= 0.0) {
        let p = V64::zeros();
        return (Bary { idx: v, l, n: 4, p, dist2: 0.0 }, true);
    }
    (closest_of((0..4).filter(|&m| l[m] < 0.0).map(|m| triangle(w, faces[m]))), false)
}

/// The candidate of least distance (the first of equals).
fn closest_of(candidates: impl Iterator<Item = Bary>) -> Bary {
    candidates.reduce(|best, c| if c.dist2 < best.dist2 { c } else { best }).expect("at least one candidate")
}
