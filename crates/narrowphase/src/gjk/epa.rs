//! EPA: the penetration depth of two overlapping convex shapes, and the
//! contact of two convex shapes given by their support maps.

use super::distance::{beyond_along, direction, gjk, support_vertex, touch_band, Ending, Gjk, Start};
use super::simplex::{Simplex, Vertex, V64};
use super::SupportMap;
use crate::contact::Contact;
use crate::math::{normalize_any, Point, Real, UnitVector, Vector};
use smallvec::SmallVec;

/// The most support points EPA adds to its polytope.
const MAX_EPA_ITERATIONS: u32 = 64;

/// A polytope vertex's index: at most four plus one per iteration.
type VertexId = u8;
const _: () = assert!(4 + MAX_EPA_ITERATIONS as usize <= VertexId::MAX as usize);

/// EPA stops when the support point along the closest face's normal is
/// within this fraction of the face's distance (plus the rounding band) of
/// the face: the depth is then that close to the exact one.
const REL_TOL: f64 = 1e-6;

/// Rounding of the support points, in eps of their largest coordinate (as
/// GJK's).
const ROUNDING: f64 = 8.0;

/// A vertex of the polytope: `w = a - b`, exact in f64.
#[derive(Clone, Copy, Debug)]
struct PolyVertex {
    w: V64,
    a: Point,
    b: Point,
}

impl PolyVertex {
    fn new(v: &Vertex) -> Self {
        Self { w: v.w, a: v.a, b: v.b }
    }
}

/// A triangle of the polytope, wound counter-clockwise seen from outside.
#[derive(Clone, Copy, Debug)]
struct Face {
    /// Unit outward normal (zero for a degenerate face).
    n: V64,
    /// `n . w` at its vertex nearest the origin: the origin's distance below
    /// the face's plane (infinity for a degenerate face, which is never the
    /// closest).
    dist: f64,
    v: [VertexId; 3],
}

/// The penetration of A's and B's cores: `point_a - point_b = depth n`.
struct Penetration {
    n: UnitVector,
    depth: Real,
    point_a: Point,
    point_b: Point,
    iterations: u32,
}

/// The contact between two convex shapes A and B given by their support
/// maps, with the conventions of the `contact_*` functions: a unit normal
/// from A to B, `point_a` on A and `point_b` on B, and
/// `point_a - point_b ≈ depth * normal`.
///
/// - Overlapping or touching (see [`intersects_convex`](crate::intersects_convex)):
///   `depth >= 0`, the penetration depth, from the Expanding Polytope
///   Algorithm on GJK's final simplex (van den Bergen, "Proximity queries and
///   penetration depth computation on 3D game objects", GDC 2001): the face
///   of the Minkowski difference `A - B` closest to the origin, its distance
///   the depth and its normal the direction in which B moves out. A final
///   simplex that does not span a tetrahedron (the shapes touch at the
///   origin's rounding) is first grown by support points. Rounded shapes
///   run on their cores: the radii are added to the depth (or taken off
///   the cores' distance when only the rounded parts overlap).
/// - Apart by at most `prediction` (negative or NaN counts as 0): a
///   speculative contact, `depth = -distance` and the closest points of
///   [`distance_convex`](crate::distance_convex), the normal from `point_a`
///   towards `point_b` (from the cores' closest points for rounded shapes).
///   The same convention as `contact_manifold_*`'s speculative points.
/// - Farther apart: `None`, at once when the support points along the
///   centres' axis already prove it (GJK's plane test, before its first
///   iteration).
/// - A Minkowski difference with no volume (two coplanar flat shapes, two
///   segments on one line): depth 0, with the normal of the plane (or a
///   direction across the line) they span, which separates them.
///
/// The depth is within about `1e-6` relatively and `8 eps` of the shapes'
/// size absolutely of the exact penetration depth (EPA's stopping rule),
/// except after the iteration cap (64 support points), which the tests
/// do not reach.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_convex, Obb, Point, Rotation, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
/// let b = Obb::new(Point::new(1.8, 0.3, 0.0), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
/// let c = contact_convex(&a, &b, 0.0).unwrap();
/// assert!((c.depth - 0.2).abs() < 1e-5 && (c.normal.x - 1.0).abs() < 1e-5);
/// let far = Obb::new(Point::new(2.5, 0.0, 0.0), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
/// assert!(contact_convex(&a, &far, 0.0).is_none());
/// assert!((contact_convex(&a, &far, 1.0).unwrap().depth + 0.5).abs() < 1e-5);
/// ```
#[must_use]
pub fn contact_convex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    prediction: Real,
) -> Option<Contact> {
    // Shapes apart along the centres' axis by more than the prediction need
    // no GJK run.
    let Reach { beyond, r, .. } = Reach::of(a, b, prediction);
    let d = b.core_center() - a.core_center();
    if beyond_along(&support_vertex(a, b, &d), &d, r + beyond) {
        return None;
    }
    contact_by_gjk(a, b, prediction)
}

/// A query's reach beyond contact (the prediction, `0` for a negative or
/// NaN one) and the shapes' core radii, with their sum, in `f64`.
struct Reach {
    beyond: f64,
    ra: Real,
    rb: Real,
    r: f64,
}

impl Reach {
    #[inline]
    fn of<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B, prediction: Real) -> Self {
        let beyond = if prediction > 0.0 { f64::from(prediction) } else { 0.0 };
        let (ra, rb) = (a.core_radius(), b.core_radius());
        Self { beyond, ra, rb, r: f64::from(ra) + f64::from(rb) }
    }
}

/// [`contact_convex`] without its test along the centres' axis: GJK from
/// a support point, then EPA where the cores overlap.
pub(super) fn contact_by_gjk<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    prediction: Real,
) -> Option<Contact> {
    let Reach { beyond: prediction, ra, rb, r } = Reach::of(a, b, prediction);
    let g = gjk(a, b, r + prediction, Start::Support);
    match g.ending {
        Ending::Beyond => None,
        Ending::Apart => {
            let core = g.v.norm();
            let band = touch_band(&g, r);
            let depth = if core <= r + band { (r - core).max(0.0) } else { r - core };
            if depth < -prediction {
                return None;
            }
            // From A to B: `-v`, since `v = pa - pb` for the cores.
            let n = normalize_any(&direction(&-g.v))?;
            let (pa, pb) = g.simplex.witnesses();
            let point_a = pa + n.into_inner() * ra;
            let point_b = pb - n.into_inner() * rb;
            Some(Contact { point_a, point_b, normal: n, depth: depth as Real })
        }
        Ending::Overlap => {
            let p = epa(a, b, &g);
            let n = p.n.into_inner();
            Some(Contact {
                point_a: p.point_a + n * ra,
                point_b: p.point_b - n * rb,
                normal: p.n,
                depth: p.depth + ra + rb,
            })
        }
    }
}

/// EPA's iteration count after a GJK run that ended in overlap.
pub(super) fn epa_iterations<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B, g: &Gjk) -> u32 {
    epa(a, b, g).iterations
}

/// The penetration of the cores, from GJK's final simplex that holds the
/// origin.
///
/// The polytope's planes are computed in f64 from the exact differences of
/// the f32 support points: where a shape is large and the other small (a
/// 1e-2 box against a 1e3 one), the faces of the Minkowski difference are
/// slivers whose f32 normals would be off by `eps` times their aspect
/// ratio, and their distances by that times `1e3`; in f64 only the support
/// points' own rounding remains.
fn epa<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B, g: &Gjk) -> Penetration {
    // On the stack up to the sizes a polytope of typical shapes reaches (a
    // vertex per iteration; about twice as many faces), so that EPA does
    // not allocate.
    let mut verts: SmallVec<[PolyVertex; 32]> =
        (0..g.simplex.len).map(|i| PolyVertex::new(&g.simplex.vertex(i))).collect();
    let mut scale = g.scale;
    let mut world: f64 = 0.0;
    for v in &verts {
        scale = scale.max(v.w.norm());
        world = world.max(f64::from(v.a.coords.amax().max(v.b.coords.amax())));
    }
    if let Err(flat) = grow_to_tetrahedron(a, b, &mut verts, scale) {
        return flat;
    }
    // The live faces, in the order they were made (the first of the least
    // distance is the closest, so the order decides ties).
    let mut faces: SmallVec<[Face; 64]> = SmallVec::new();
    for f in [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]] {
        faces.push(face(&verts, f));
    }
    let mut edges: SmallVec<[(VertexId, VertexId); 32]> = SmallVec::new();
    let mut iterations = 0;
    let mut closest = closest_face(&faces);
    loop {
        let Some(best) = closest else {
            // Every face degenerate: no volume after all.
            return flat_contact(&verts[..3.min(verts.len())]);
        };
        let f = faces[best];
        let w = PolyVertex::new(&support_vertex(a, b, &direction(&f.n)));
        scale = scale.max(w.w.norm());
        world = world.max(f64::from(w.a.coords.amax().max(w.b.coords.amax())));
        let gain = f.n.dot(&w.w) - f.dist;
        let tol = REL_TOL * f.dist.abs() + ROUNDING * f64::from(Real::EPSILON) * (scale + world);
        if gain <= tol || iterations >= MAX_EPA_ITERATIONS || verts.iter().any(|v| v.w == w.w) {
            return penetration(&verts, &f, iterations);
        }
        iterations += 1;
        // One pass: the faces that see `w` (the best one always does: its
        // gain is positive) leave their edges, the others move up in order.
        // The edges left once (the horizon) are fanned to `w`.
        edges.clear();
        let mut kept = 0;
        let all = faces.as_mut_slice();
        for k in 0..all.len() {
            let face = all[k];
            if k == best || face.n.dot(&w.w) > face.dist {
                let [i, j, l] = face.v;
                edges.extend_from_slice(&[(i, j), (j, l), (l, i)]);
            } else {
                all[kept] = face;
                kept += 1;
            }
        }
        faces.truncate(kept);
        let id = verts.len() as VertexId;
        verts.push(w);
        for &(i, j) in edges.as_slice() {
            if !edges.as_slice().contains(&(j, i)) {
                faces.push(face(&verts, [i, j, id]));
            }
        }
        closest = closest_face(&faces);
    }
}

/// The face nearest the origin (the first of the least finite distance),
/// `None` when all are degenerate.
fn closest_face(faces: &[Face]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (k, f) in faces.iter().enumerate() {
        if f.dist.is_finite() && best.is_none_or(|(_, d)| f.dist < d) {
            best = Some((k, f.dist));
        }
    }
    best.map(|(k, _)| k)
}

/// The face `v` with its unit normal and distance (from the vertex nearest
/// the origin, whose offset from it is the smallest).
fn face(verts: &[PolyVertex], v: [VertexId; 3]) -> Face {
    let [p, q, s] = v.map(|k| verts[usize::from(k)].w);
    let n = (q - p).cross(&(s - p));
    let len = n.norm();
    if len <= 0.0 || len.is_nan() {
        return Face { v, n: V64::zeros(), dist: f64::INFINITY };
    }
    let n = n / len;
    // The first of the least `|w|^2`, each norm taken once (a NaN norm
    // counts as the greatest).
    let (mut near, mut least) = (p, p.norm_squared());
    for x in [q, s] {
        let x2 = x.norm_squared();
        if x2 < least || (least.is_nan() && !x2.is_nan()) {
            (near, least) = (x, x2);
        }
    }
    Face { v, n, dist: n.dot(&near) }
}

/// The result at face `f`: the origin's projection `p = dist n` on its
/// plane, as affine coordinates `l` of the face's vertices (signed areas
/// over the whole, `l_i = n . ((w_k - w_j) x (p - w_j)) / n . ((w_j - w_i) x
/// (w_k - w_i))`), gives the witness points `sum l_i a_i` and `sum l_i b_i`.
///
/// The coordinates are not clamped to the triangle: a face of the Minkowski
/// difference (a face of one shape against a vertex of the other, an edge
/// against an edge) is often split into coplanar triangles, and the nearest
/// one found may be the neighbour of the one the projection falls in. On the
/// whole face the support points depend affinely on `w`, so the same
/// coordinates hold there. The sums are taken from the vertex of largest
/// weight, in f64.
fn penetration(verts: &[PolyVertex], f: &Face, iterations: u32) -> Penetration {
    let vs = f.v.map(|k| verts[usize::from(k)]);
    let [wi, wj, wk] = vs.map(|v| v.w);
    let (n, p) = (f.n, f.n * f.dist);
    let whole = n.dot(&(wj - wi).cross(&(wk - wi)));
    let li = n.dot(&(wk - wj).cross(&(p - wj))) / whole;
    let lj = n.dot(&(wi - wk).cross(&(p - wk))) / whole;
    let l = [li, lj, 1.0 - li - lj];
    let m = (0..3).max_by(|&x, &y| l[x].total_cmp(&l[y])).unwrap_or(0);
    let (am, bm) = (vs[m].a.coords.cast::<f64>(), vs[m].b.coords.cast::<f64>());
    let (mut pa, mut pb) = (am, bm);
    for k in (0..3).filter(|&k| k != m) {
        pa += (vs[k].a.coords.cast::<f64>() - am) * l[k];
        pb += (vs[k].b.coords.cast::<f64>() - bm) * l[k];
    }
    let n32 = normalize_any(&n.cast::<Real>()).unwrap_or(UnitVector::new_unchecked(Vector::x()));
    Penetration {
        n: n32,
        depth: (f.dist.max(0.0)) as Real,
        point_a: Point::from(pa.cast::<Real>()),
        point_b: Point::from(pb.cast::<Real>()),
        iterations,
    }
}

/// Grows GJK's simplex (1 to 4 vertices, the origin within rounding of it)
/// to a tetrahedron of positive volume, wound so that `[0, 2, 1]`,
/// `[0, 1, 3]`, `[1, 2, 3]`, `[0, 3, 2]` face outwards. Support points along
/// directions across the current simplex are tried in turn; when none adds
/// a dimension, the Minkowski difference is flat there and the depth 0
/// along its normal is returned as the error.
fn grow_to_tetrahedron<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    verts: &mut SmallVec<[PolyVertex; 32]>,
    scale: f64,
) -> Result<(), Penetration> {
    let support = |d: &V64| PolyVertex::new(&support_vertex(a, b, &direction(d)));
    let tiny = ROUNDING * f64::from(Real::EPSILON) * scale.max(f64::MIN_POSITIVE);
    if verts.len() == 1 {
        let axes = [V64::x(), -V64::x(), V64::y(), -V64::y(), V64::z(), -V64::z()];
        let w0 = verts[0].w;
        match axes.iter().map(support).find(|v| (v.w - w0).norm() > tiny) {
            Some(v) => verts.push(v),
            None => return Err(flat_contact(verts)),
        }
    }
    if verts.len() == 2 {
        let d = verts[1].w - verts[0].w;
        let e1 = d.cross(&least_aligned_axis(&d));
        let e2 = d.cross(&e1);
        let (w0, len) = (verts[0].w, d.norm());
        let off_line = |v: &PolyVertex| d.cross(&(v.w - w0)).norm() > tiny * len;
        match [e1, -e1, e2, -e2].iter().map(support).find(off_line) {
            Some(v) => verts.push(v),
            None => return Err(flat_contact(verts)),
        }
    }
    if verts.len() == 3 {
        let (w0, w1, w2) = (verts[0].w, verts[1].w, verts[2].w);
        let n = (w1 - w0).cross(&(w2 - w0));
        let (up, down) = (support(&n), support(&-n));
        let (hu, hd) = (n.dot(&(up.w - w0)), -n.dot(&(down.w - w0)));
        let v = if hu >= hd { up } else { down };
        if hu.max(hd) <= tiny * n.norm() || hu.is_nan() || hd.is_nan() {
            return Err(flat_contact(verts));
        }
        verts.push(v);
    }
    let (e1, e2, e3) = (verts[1].w - verts[0].w, verts[2].w - verts[0].w, verts[3].w - verts[0].w);
    if e1.dot(&e2.cross(&e3)) < 0.0 {
        verts.swap(1, 2);
    }
    Ok(())
}

/// The unit axis least aligned with `d`.
fn least_aligned_axis(d: &V64) -> V64 {
    let mut e = V64::zeros();
    e[d.abs().imin()] = 1.0;
    e
}

/// The contact of a Minkowski difference with no volume around the origin:
/// depth 0 along a direction normal to what it spans (the plane of three
/// vertices, a direction across the line of two, `+x` for a point), at a
/// common point (the barycentric point of GJK's simplex).
fn flat_contact(verts: &[PolyVertex]) -> Penetration {
    let n = match verts.len() {
        0 | 1 => V64::x(),
        2 => (verts[1].w - verts[0].w).cross(&least_aligned_axis(&(verts[1].w - verts[0].w))),
        _ => (verts[1].w - verts[0].w).cross(&(verts[2].w - verts[0].w)),
    };
    let n = normalize_any(&n.cast::<Real>()).unwrap_or(UnitVector::new_unchecked(Vector::x()));
    let vertex = |v: &PolyVertex| Vertex { w: v.w, a: v.a, b: v.b };
    let mut s = Simplex::new(vertex(&verts[0]));
    for v in &verts[1..verts.len().min(3)] {
        s.push(vertex(v));
    }
    s.reduce();
    let (pa, pb) = s.witnesses();
    let common = nalgebra::center(&pa, &pb);
    Penetration { n, depth: 0.0, point_a: common, point_b: common, iterations: 0 }
}
