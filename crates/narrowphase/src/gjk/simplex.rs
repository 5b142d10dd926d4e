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

use crate::math::Point;

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
///
/// Stored by field (`w`, `|w|^2`, `a`, `b` in four arrays): the solver reads
/// the differences and their norms in place, each norm taken once when its
/// vertex is added. Slots at and past `len` are unused.
#[derive(Clone, Copy, Debug)]
pub(super) struct Simplex {
    /// The vertices' `w = a - b`.
    w: [V64; 4],
    /// `|w_i|^2`.
    n2: [f64; 4],
    /// The support points of A.
    a: [Point; 4],
    /// The support points of B.
    b: [Point; 4],
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
    idx: [u8; 4],
    l: [f64; 4],
    n: u8,
    /// The point, `w_0 + sum l_m (w_m - w_0)` from the base vertex.
    p: V64,
    dist2: f64,
}

impl Bary {
    /// Replaces `self` by `c` when `c` is strictly closer (the first of
    /// equals stays).
    #[inline]
    fn keep_closer(&mut self, c: Bary) {
        if c.dist2 < self.dist2 {
            *self = c;
        }
    }
}

/// The vertices the sub-solvers read: each `w_i` and `|w_i|^2`, computed
/// once per [`Simplex::reduce`] (every sub-simplex picks its base by them).
struct Points<'a> {
    w: &'a [V64; 4],
    n2: &'a [f64; 4],
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
        let mut s = Self {
            w: [V64::zeros(); 4],
            n2: [0.0; 4],
            a: [Point::origin(); 4],
            b: [Point::origin(); 4],
            lambdas: [1.0, 0.0, 0.0, 0.0],
            len: 0,
            point: v.w,
        };
        s.push(v);
        s
    }

    /// Vertex `i` (below `len`).
    #[inline]
    pub fn vertex(&self, i: usize) -> Vertex {
        Vertex { w: self.w[i], a: self.a[i], b: self.b[i] }
    }

    /// The simplex with A translated by `shift`: each vertex's difference
    /// `w = a - b + shift` from its support points, which stay the unmoved
    /// shapes' (see `gjk_from`'s `shift`). Its barycentric coordinates are
    /// stale until [`Simplex::reduce`].
    #[inline]
    pub fn shifted(&self, shift: &V64) -> Self {
        let mut moved = *self;
        for i in 0..self.len {
            moved.w[i] = (self.a[i].coords.cast::<f64>() - self.b[i].coords.cast::<f64>()) + shift;
            moved.n2[i] = moved.w[i].norm_squared();
        }
        moved
    }

    /// Adds a vertex (the simplex must hold fewer than four).
    #[inline]
    pub fn push(&mut self, v: Vertex) {
        debug_assert!(self.len < 4);
        let i = self.len;
        (self.w[i], self.n2[i], self.a[i], self.b[i]) = (v.w, v.w.norm_squared(), v.a, v.b);
        self.len += 1;
    }

    /// True when `w` is one of the vertices (GJK cannot progress with it).
    #[inline]
    pub fn contains(&self, w: &V64) -> bool {
        self.w[..self.len].iter().any(|x| x == w)
    }

    /// The witness points `(sum l_i a_i, sum l_i b_i)`, summed in f64 as
    /// differences from the vertex of largest weight (far vertices of small
    /// weight then add little rounding).
    #[inline]
    pub fn witnesses(&self) -> (Point, Point) {
        let m = (0..self.len).max_by(|&x, &y| self.lambdas[x].total_cmp(&self.lambdas[y])).unwrap_or(0);
        let (am, bm) = (self.a[m].coords.cast::<f64>(), self.b[m].coords.cast::<f64>());
        let (mut pa, mut pb) = (am, bm);
        for i in (0..self.len).filter(|&i| i != m) {
            pa += (self.a[i].coords.cast::<f64>() - am) * self.lambdas[i];
            pb += (self.b[i].coords.cast::<f64>() - bm) * self.lambdas[i];
        }
        (Point::from(pa.cast::<f32>()), Point::from(pb.cast::<f32>()))
    }

    /// Replaces the simplex by the smallest sub-simplex holding its point
    /// closest to the origin and sets the barycentric coordinates; returns
    /// true when the origin is inside a full tetrahedron (the shapes'
    /// difference contains it: they overlap).
    pub fn reduce(&mut self) -> bool {
        let pts = Points { w: &self.w, n2: &self.n2 };
        let (bary, inside) = match self.len {
            1 => {
                self.lambdas = [1.0, 0.0, 0.0, 0.0];
                self.point = self.w[0];
                return false;
            }
            2 => (pts.segment(0, 1), false),
            3 => (pts.triangle([0, 1, 2]), false),
            _ => pts.tetrahedron(),
        };
        // The kept vertices keep their relative order: their slots sorted
        // (with their coordinates), each then moved down to its rank, never
        // over a slot still to be read (slot `idx[k] >= k`). The
        // coordinates past `n` are zeros in every `Bary`, and stay there.
        let n = usize::from(bary.n);
        let (mut idx, mut l) = (bary.idx, bary.l);
        for k in 1..n {
            let mut j = k;
            while j > 0 && idx[j - 1] > idx[j] {
                idx.swap(j - 1, j);
                l.swap(j - 1, j);
                j -= 1;
            }
        }
        for (k, &slot) in idx.iter().enumerate().take(n) {
            let from = usize::from(slot);
            if from != k {
                (self.w[k], self.n2[k], self.a[k], self.b[k]) =
                    (self.w[from], self.n2[from], self.a[from], self.b[from]);
            }
        }
        self.lambdas = l;
        self.len = n;
        self.point = bary.p;
        inside
    }
}

impl Points<'_> {
    /// A one-vertex sub-simplex.
    #[inline]
    fn vertex(&self, k: usize) -> Bary {
        Bary { idx: [k as u8, 0, 0, 0], l: [1.0, 0.0, 0.0, 0.0], n: 1, p: self.w[k], dist2: self.n2[k] }
    }

    /// The closest point of the segment `[w_i, w_j]` to the origin: with `i`
    /// the end nearer the origin, `w_i + t e` for `e = w_j - w_i` and
    /// `t = -w_i . e / |e|^2` clamped to `[0, 1]`.
    #[inline]
    fn segment(&self, i: usize, j: usize) -> Bary {
        let (i, j) = if self.n2[j] < self.n2[i] { (j, i) } else { (i, j) };
        let w = self.w;
        let e = w[j] - w[i];
        let ee = e.norm_squared();
        let s = -w[i].dot(&e);
        // `ee > 0` also rejects NaN.
        if !(s > 0.0 && ee > 0.0) {
            return self.vertex(i);
        }
        if s >= ee {
            return self.vertex(j);
        }
        let t = s / ee;
        let p = w[i] + e * t;
        Bary { idx: [i as u8, j as u8, 0, 0], l: [1.0 - t, t, 0.0, 0.0], n: 2, p, dist2: p.norm_squared() }
    }

    /// `t` reordered so that its first index has the least `|w|`: the base
    /// the sub-simplex is solved from, so the products carry the distance
    /// from the origin of its nearest vertex, not of its farthest (the
    /// first of equals).
    #[inline]
    fn nearest_first<const N: usize>(&self, mut t: [usize; N]) -> [usize; N] {
        let mut m = 0;
        for k in 1..N {
            if self.n2[t[k]] < self.n2[t[m]] {
                m = k;
            }
        }
        t.swap(0, m);
        t
    }

    /// The closest point of the triangle `w_t` to the origin.
    ///
    /// With `w_i` the vertex nearest the origin, `e1 = w_j - w_i`,
    /// `e2 = w_k - w_i`, `n = e1 x e2` and `q = -w_i`, the origin projects
    /// on the plane at `w_i + l_j e1 + l_k e2` with
    /// `l_j = n . (q x e2) / |n|^2` and `l_k = n . (e1 x q) / |n|^2` (signed
    /// areas over the whole), and `l_i = 1 - l_j - l_k`. All three `>= 0`:
    /// the projection is inside. Else the closest point lies on an edge
    /// opposite a negative coordinate.
    #[inline]
    fn triangle(&self, t: [usize; 3]) -> Bary {
        let [i, j, k] = self.nearest_first(t);
        let w = self.w;
        let (e1, e2) = (w[j] - w[i], w[k] - w[i]);
        let n = e1.cross(&e2);
        let nn = n.norm_squared();
        let edges = [(j, k), (i, k), (i, j)];
        if nn <= FLAT_AREA * e1.norm_squared() * e2.norm_squared() || nn.is_nan() {
            return self.closest_edge(&edges, [true; 3], false);
        }
        let q = -w[i];
        let inv = 1.0 / nn;
        let lj = n.dot(&q.cross(&e2)) * inv;
        let lk = n.dot(&e1.cross(&q)) * inv;
        let l = [1.0 - lj - lk, lj, lk];
        if l[0] >= 0.0 && lj >= 0.0 && lk >= 0.0 {
            let p = w[i] + e1 * lj + e2 * lk;
            let idx = [i as u8, j as u8, k as u8, 0];
            return Bary { idx, l: [l[0], lj, lk, 0.0], n: 3, p, dist2: p.norm_squared() };
        }
        self.closest_edge(&edges, l.map(|x| x < 0.0), true)
    }

    /// The closest of the edges whose flag is set (at least one).
    ///
    /// `beyond`: the origin's projection on the triangle's plane lies beyond
    /// each flagged edge's line (the signs of a triangle that is not flat).
    /// An edge whose closest point is then in it (`n == 2`) holds the
    /// triangle's closest point, as for [`Points::closest_face`] (and, as
    /// there, up to the rounding of the candidates' distances).
    #[inline]
    fn closest_edge(&self, edges: &[(usize, usize); 3], try_edge: [bool; 3], beyond: bool) -> Bary {
        let first = try_edge.iter().position(|&b| b).unwrap_or(0);
        let mut best = self.segment(edges[first].0, edges[first].1);
        if beyond && best.n == 2 {
            return best;
        }
        for m in first + 1..3 {
            if try_edge[m] {
                best.keep_closer(self.segment(edges[m].0, edges[m].1));
            }
        }
        best
    }

    /// The closest point of the tetrahedron to the origin, and whether the
    /// origin is inside.
    ///
    /// With `w_0` the vertex nearest the origin, `e_m = w_m - w_0`,
    /// `q = -w_0` and `det = e1 . (e2 x e3)`, the origin's barycentric
    /// coordinates are `l_1 = q . (e2 x e3) / det`,
    /// `l_2 = e1 . (q x e3) / det`, `l_3 = e1 . (e2 x q) / det` (the volume
    /// with the origin in place of `w_m`) and `l_0 = 1 - l_1 - l_2 - l_3`.
    fn tetrahedron(&self) -> (Bary, bool) {
        let v = self.nearest_first([0, 1, 2, 3]);
        let w = self.w;
        let (e1, e2, e3) = (w[v[1]] - w[v[0]], w[v[2]] - w[v[0]], w[v[3]] - w[v[0]]);
        let e23 = e2.cross(&e3);
        let det = e1.dot(&e23);
        // Face `m` is the one opposite vertex `v[m]`.
        let faces = [[v[1], v[2], v[3]], [v[0], v[2], v[3]], [v[0], v[1], v[3]], [v[0], v[1], v[2]]];
        let scale2 = e1.norm_squared() * e2.norm_squared() * e3.norm_squared();
        if det * det <= FLAT_VOLUME * FLAT_VOLUME * scale2 || det.is_nan() {
            return (self.closest_face(&faces, [true; 4], false), false);
        }
        let q = -w[v[0]];
        let inv = 1.0 / det;
        let l1 = q.dot(&e23) * inv;
        let l2 = e1.dot(&q.cross(&e3)) * inv;
        let l3 = e1.dot(&e2.cross(&q)) * inv;
        let l = [1.0 - l1 - l2 - l3, l1, l2, l3];
        if l.iter().all(|&x| x >= 0.0) {
            let idx = v.map(|x| x as u8);
            return (Bary { idx, l, n: 4, p: V64::zeros(), dist2: 0.0 }, true);
        }
        (self.closest_face(&faces, l.map(|x| x < 0.0), true), false)
    }

    /// The closest of the faces whose flag is set (at least one).
    ///
    /// `beyond`: the origin lies beyond each flagged face's plane (the signs
    /// of a tetrahedron that is not flat). A face whose closest point is
    /// then in it (`n == 3`: its barycentric coordinates none negative)
    /// holds the tetrahedron's closest point: that plane separates the
    /// origin from the tetrahedron, and the point is the plane's closest.
    /// The other faces are not tried. The full search would find the same
    /// point up to the rounding of the candidates' distances (near a shared
    /// edge a neighbour computed another way could win by an ulp and leave
    /// a smaller sub-simplex); the answer is the same within that rounding.
    fn closest_face(&self, faces: &[[usize; 3]; 4], try_face: [bool; 4], beyond: bool) -> Bary {
        let first = try_face.iter().position(|&b| b).unwrap_or(0);
        let mut best = self.triangle(faces[first]);
        if beyond && best.n == 3 {
            return best;
        }
        for m in first + 1..4 {
            if try_face[m] {
                best.keep_closer(self.triangle(faces[m]));
            }
        }
        best
    }
}
