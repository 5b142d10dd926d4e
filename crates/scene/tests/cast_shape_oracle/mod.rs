//! An independent time of impact for a convex shape moving linearly: the
//! first `t` in `[0, 1]` at which the shapes overlap, by bisection on an f64
//! overlap test of this file's own (GJK on point sets, below).
//!
//! Every collider is a convex piece (the collider, or one triangle of a
//! mesh) written as a point set grown by a radius: a box's 8 corners, a
//! hull's placed vertices, a triangle's 3, a capsule's segment ends, a
//! sphere's centre. The points are formed in f64 from the scene's f32
//! parameters (the rotation from the f32 quaternion normalised in f64) and
//! taken relative to a reference point `r` near the query, so the oracle
//! sees the colliders as the scene stores them, at any distance from the
//! world origin, with about `1e-15` relative rounding.
//!
//! Why not parry3d's `intersection_test` or `distance`: in f32 near a
//! contact they report overlap up to `3e-4` before it, and their distance
//! is not monotone along the motion at the `1e-5` level, the very size of
//! the tolerance checked.
//!
//! The search: the distance along the motion is convex in `t` (a convex
//! pair under a translation), so its least value on `[0, 1]` comes from a
//! golden-section search; a least distance above the band is a miss; else
//! the overlap test is bisected on `[0, argmin]`. Contacts the toi is
//! ill-conditioned for are `Unclear`, and the callers leave them out: a near
//! miss or a start within the band, and a graze (an approach slower than
//! `0.1 |motion|` per unit of `t`, where a distance error `e` moves the toi
//! by more than `10 e / |motion|`).

use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use proxima_narrowphase::{Point, Rotation};
use proxima_scene::WorldShape;
use proxima_test_support::minimize::convex_min;

/// An f64 vector.
pub type V64 = Vector3<f64>;

/// The band, in units of `|motion|`: a least distance below it is a near
/// miss; 10x the tolerance on the toi.
const BAND: f64 = 1e-4;

/// A convex piece: the convex hull of `points` grown by `radius` (frame at `r`).
#[derive(Clone, Debug)]
pub struct Piece {
    /// The core's points.
    pub points: Vec<V64>,
    /// The radius around the core, `>= 0`.
    pub radius: f64,
}

/// The oracle's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// No contact for `t` in `[0, 1]`.
    Miss,
    /// The first contact.
    Hit(f64),
    /// Ill-conditioned (near miss, graze, start within the band), near this `t`.
    Unclear(f64),
}

fn p64(p: &Point) -> V64 {
    p.coords.cast()
}

fn rot64(q: &Rotation) -> Matrix3<f64> {
    UnitQuaternion::new_normalize(q.as_ref().cast::<f64>()).to_rotation_matrix().into_inner()
}

/// The eight corners `c ± R h`.
fn corners(c: V64, rot: Matrix3<f64>, h: V64) -> Vec<V64> {
    (0..8)
        .map(|k| {
            let s = V64::new(
                if k & 1 == 0 { -h.x } else { h.x },
                if k & 2 == 0 { -h.y } else { h.y },
                if k & 4 == 0 { -h.z } else { h.z },
            );
            c + rot * s
        })
        .collect()
}

/// The convex pieces of a placed shape, in the frame at `r`.
pub fn pieces(shape: &WorldShape, r: &V64) -> Vec<Piece> {
    let solid = |points| vec![Piece { points, radius: 0.0 }];
    match shape {
        WorldShape::Sphere(s) => vec![Piece { points: vec![p64(s.center()) - r], radius: f64::from(s.radius()) }],
        WorldShape::Aabb(a) => {
            let (lo, hi) = (p64(a.min()) - r, p64(a.max()) - r);
            solid(corners((lo + hi) / 2.0, Matrix3::identity(), (hi - lo) / 2.0))
        }
        WorldShape::Obb(o) => solid(corners(p64(o.center()) - r, rot64(o.rotation()), o.half_extents().cast())),
        WorldShape::Capsule(c) => {
            vec![Piece { points: vec![p64(c.a()) - r, p64(c.b()) - r], radius: f64::from(c.radius()) }]
        }
        WorldShape::ConvexHull(hull, pose) => {
            let (q, t) = (rot64(&pose.rotation), pose.translation.vector.cast::<f64>() - r);
            solid(hull.vertices().iter().map(|v| q * p64(v) + t).collect())
        }
        WorldShape::TriMesh(mesh, pose) => {
            let (q, t) = (rot64(&pose.rotation), pose.translation.vector.cast::<f64>() - r);
            mesh.triangles()
                .map(|tri| Piece { points: tri.vertices().map(|v| q * p64(&v) + t).to_vec(), radius: 0.0 })
                .collect()
        }
        _ => unreachable!("no other world shape"),
    }
}

/// The point of `points` farthest along `d`.
fn support(points: &[V64], d: &V64) -> V64 {
    *points.iter().max_by(|p, q| p.dot(d).total_cmp(&q.dot(d))).expect("a piece has points")
}

/// The point of the convex hull of `simplex` (1 to 4 points) nearest the
/// origin, and the points of the face it lies in. Every face (subset) is
/// tried: its affine hull's nearest point `p0 + E mu` solves the normal
/// equations `E^T E mu = -E^T p0`; it counts when its barycentric
/// coordinates are `>= 0`; the least norm of those is the answer (the
/// nearest point lies in the relative interior of some face, and is that
/// face's affine projection).
fn nearest(simplex: &[V64]) -> (V64, Vec<V64>) {
    let mut best: Option<(f64, V64, Vec<V64>)> = None;
    for mask in 1u32..(1 << simplex.len()) {
        let face: Vec<V64> = (0..simplex.len()).filter(|i| mask & (1 << i) != 0).map(|i| simplex[i]).collect();
        let p0 = face[0];
        let e: Vec<V64> = face[1..].iter().map(|p| p - p0).collect();
        let n = e.len();
        let Some(mu) = solve_normal(&e, &p0) else { continue };
        let lambda0 = 1.0 - mu.iter().sum::<f64>();
        if lambda0 < 0.0 || mu.iter().any(|m| *m < 0.0 || !m.is_finite()) {
            continue;
        }
        let x = p0 + e.iter().zip(&mu).map(|(d, m)| d * *m).sum::<V64>();
        // A near-singular system solves to garbage: the projection must be
        // orthogonal to the face's edges (for a tetrahedron, the origin).
        let scale = face.iter().map(|p| p.norm()).fold(1.0, f64::max);
        let off = if n == 3 { x.norm() } else { e.iter().map(|d| d.dot(&x).abs() / d.norm()).fold(0.0, f64::max) };
        if off > 1e-9 * scale {
            continue;
        }
        if best.as_ref().is_none_or(|b| x.norm() < b.0) {
            best = Some((x.norm(), x, face));
        }
    }
    let (_, x, face) = best.expect("a vertex is always a candidate");
    (x, face)
}

/// The solution `mu` of `E^T E mu = -E^T p0` (`E`'s columns the edges
/// `e`, at most 3); `None` when singular.
fn solve_normal(e: &[V64], p0: &V64) -> Option<Vec<f64>> {
    let n = e.len();
    if n == 0 {
        return Some(Vec::new());
    }
    let mut g = Matrix3::<f64>::identity();
    let mut rhs = V64::zeros();
    for i in 0..n {
        rhs[i] = -e[i].dot(p0);
        for j in 0..n {
            g[(i, j)] = e[i].dot(&e[j]);
        }
    }
    // The unused rows and columns are the identity's: their unknowns are 0.
    let mu = g.lu().solve(&rhs)?;
    Some(mu.iter().take(n).copied().collect())
}

/// The distance between the cores of `a` moved by `shift` and `b` (GJK,
/// Gilbert, Johnson and Keerthi 1988, on the difference `a + shift - b`),
/// to about `1e-12`.
fn core_distance(a: &Piece, shift: &V64, b: &Piece) -> f64 {
    let sup = |d: &V64| support(&a.points, d) + shift - support(&b.points, &-d);
    let mut simplex = vec![sup(&V64::x())];
    let mut v = simplex[0];
    for _ in 0..100 {
        let vv = v.norm_squared();
        if vv < 1e-26 {
            return 0.0;
        }
        let w = sup(&-v);
        // `v . w / |v|` is a lower bound of the distance, `|v|` an upper one.
        if vv - v.dot(&w) <= 1e-12 * vv.sqrt() || simplex.contains(&w) {
            break;
        }
        simplex.push(w);
        let (x, face) = nearest(&simplex);
        if face.len() == 4 {
            return 0.0;
        }
        (v, simplex) = (x, face);
    }
    v.norm()
}

/// The signed gap between `moving` moved by `t * motion` and `target`:
/// the cores' distance less the radii, convex in `t`; `<= 0` when they touch.
pub fn gap(moving: &Piece, motion: &V64, target: &Piece, t: f64) -> f64 {
    core_distance(moving, &(motion * t), target) - moving.radius - target.radius
}

/// The first contact of `moving` translated by `t * motion` with `target`.
pub fn first_contact(moving: &Piece, motion: &V64, target: &Piece) -> Verdict {
    let band = BAND * motion.norm();
    let dist = |t: f64| gap(moving, motion, target, t);
    if dist(0.0) <= 0.0 {
        return Verdict::Hit(0.0);
    }
    if dist(0.0) <= band {
        return Verdict::Unclear(0.0);
    }
    let least = convex_min(dist, 0.0, 1.0, 60);
    if least.value > band {
        return Verdict::Miss;
    }
    if least.value > 0.0 {
        return Verdict::Unclear(least.at);
    }
    let (mut lo, mut hi) = (0.0f64, least.at);
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if dist(mid) <= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    if dist((hi - 1e-3).max(0.0)) < band {
        return Verdict::Unclear(hi);
    }
    Verdict::Hit(hi)
}

/// The piece's box, grown by its radius.
fn bounds(p: &Piece, shift: &V64) -> (V64, V64) {
    let lo = p.points.iter().fold(V64::repeat(f64::INFINITY), |m, q| m.inf(q)) + shift;
    let hi = p.points.iter().fold(V64::repeat(f64::NEG_INFINITY), |m, q| m.sup(q)) + shift;
    (lo.add_scalar(-p.radius), hi.add_scalar(p.radius))
}

/// The first contact over `targets` (the pieces of one or more colliders):
/// the least hit, `Unclear` when an unclear piece may come first (within
/// `1e-3` of it). Pieces whose boxes miss the swept box are skipped.
pub fn first_contact_all(moving: &Piece, motion: &V64, targets: &[Piece]) -> Verdict {
    let margin = 2.0 * BAND * motion.norm() + 1e-9;
    let (a0, a1) = (bounds(moving, &V64::zeros()), bounds(moving, motion));
    let (lo, hi) = (a0.0.inf(&a1.0).add_scalar(-margin), a0.1.sup(&a1.1).add_scalar(margin));
    let (mut hit, mut unclear) = (None::<f64>, None::<f64>);
    for target in targets {
        let (tlo, thi) = bounds(target, &V64::zeros());
        if (0..3).any(|i| tlo[i] > hi[i] || thi[i] < lo[i]) {
            continue;
        }
        match first_contact(moving, motion, target) {
            Verdict::Miss => {}
            Verdict::Hit(t) => hit = Some(hit.map_or(t, |h| h.min(t))),
            Verdict::Unclear(t) => unclear = Some(unclear.map_or(t, |u| u.min(t))),
        }
    }
    match (hit, unclear) {
        (h, Some(u)) if h.is_none_or(|h| u <= h + 1e-3) => Verdict::Unclear(u),
        (Some(h), _) => Verdict::Hit(h),
        (None, _) => Verdict::Miss,
    }
}
