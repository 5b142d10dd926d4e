//! The f64 oracle of the cast tests: exact shape distances in `f64`, and the
//! first contact of a moving point (or ball) found by search on them, with no
//! code shared with the library.
//!
//! Every shape here is built from the *same `f32` inputs* the library sees,
//! converted exactly to `f64`, so the oracle answers the same question, with
//! `~1e-16` relative error instead of `~1e-7`. The boxes' rotations are
//! rebuilt in `f64` from the quaternion, independently of the library's
//! `f32` rotation matrix.
//!
//! First contact: for a convex shape, the signed distance `g(t) = sdf(o + t d) - r`
//! is convex in `t`. So: `g(0) <= 0` means a start in contact; otherwise a
//! golden-section search finds the minimum of `g` on `[0, t_max]`; a
//! positive minimum is a miss (its value is the margin of the miss);
//! otherwise the unique root of `g` on `[0, t_min]` is found by bisection to
//! the last bit.
#![allow(dead_code)]

use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};
use proxima_narrowphase::{Aabb, Capsule, Obb, Plane, Point, Sphere, Triangle, Vector};
use proxima_test_support::minimize::convex_min;

/// An f64 vector (positions too).
pub type V = Vector3<f64>;

/// Cases per randomized test: at least 200,000, so rare branches are reached.
pub const CASES: usize = 200_000;

/// `f32` vector to `f64`, exactly.
pub fn v64(v: &Vector) -> V {
    V::new(v.x as f64, v.y as f64, v.z as f64)
}

/// `f32` point to `f64`, exactly.
pub fn p64(p: &Point) -> V {
    v64(&p.coords)
}

/// A convex shape with an f64 signed distance (unsigned for the flat
/// triangle and plane, which have no inside).
pub trait Sdf {
    /// Signed distance from `p` (negative inside a solid).
    fn sdf(&self, p: &V) -> f64;
    /// A length typical of the shape's coordinates (for tolerances).
    fn scale(&self) -> f64;
    /// For a flat surface (no inside), how deep inside the surface a point on
    /// it lies: its distance to the surface's boundary. `None` for solids.
    fn surface_depth(&self, _p: &V) -> Option<f64> {
        None
    }
}

/// Ball.
pub struct BallF {
    pub c: V,
    pub r: f64,
}

impl BallF {
    pub fn new(s: &Sphere) -> Self {
        Self { c: p64(s.center()), r: s.radius() as f64 }
    }
}

impl Sdf for BallF {
    fn sdf(&self, p: &V) -> f64 {
        (p - self.c).norm() - self.r
    }
    fn scale(&self) -> f64 {
        self.c.amax() + self.r
    }
}

/// Oriented box: `c + R x`, `|x_i| <= h_i`.
pub struct BoxF {
    pub c: V,
    pub rot: Matrix3<f64>,
    pub h: V,
}

impl BoxF {
    /// From an OBB: the rotation rebuilt in f64 from its quaternion.
    pub fn from_obb(o: &Obb) -> Self {
        let q = o.rotation().as_ref().coords;
        let q64 = Quaternion::new(q.w as f64, q.x as f64, q.y as f64, q.z as f64);
        let rot = UnitQuaternion::from_quaternion(q64).to_rotation_matrix().into_inner();
        Self { c: p64(o.center()), rot, h: v64(o.half_extents()) }
    }

    /// From an AABB: centre and half-extents computed in f64 from min/max (exact).
    pub fn from_aabb(a: &Aabb) -> Self {
        let (lo, hi) = (p64(a.min()), p64(a.max()));
        Self { c: (lo + hi) * 0.5, rot: Matrix3::identity(), h: (hi - lo) * 0.5 }
    }

    pub fn local(&self, p: &V) -> V {
        self.rot.tr_mul(&(p - self.c))
    }
}

impl Sdf for BoxF {
    fn sdf(&self, p: &V) -> f64 {
        let l = self.local(p);
        let q = V::new(l.x.abs() - self.h.x, l.y.abs() - self.h.y, l.z.abs() - self.h.z);
        q.map(|x| x.max(0.0)).norm() + q.max().min(0.0)
    }
    fn scale(&self) -> f64 {
        self.c.amax() + self.h.amax()
    }
}

/// Closest point of segment `[a, b]` to `p`, in f64.
pub fn closest_on_segment(p: &V, a: &V, b: &V) -> V {
    let ab = b - a;
    let l2 = ab.norm_squared();
    if l2 == 0.0 {
        return *a;
    }
    a + ab * ((p - a).dot(&ab) / l2).clamp(0.0, 1.0)
}

/// Capsule.
pub struct CapsuleF {
    pub a: V,
    pub b: V,
    pub r: f64,
}

impl CapsuleF {
    pub fn new(c: &Capsule) -> Self {
        Self { a: p64(c.a()), b: p64(c.b()), r: c.radius() as f64 }
    }
}

impl Sdf for CapsuleF {
    fn sdf(&self, p: &V) -> f64 {
        (p - closest_on_segment(p, &self.a, &self.b)).norm() - self.r
    }
    fn scale(&self) -> f64 {
        self.a.amax().max(self.b.amax()) + self.r
    }
}

/// Triangle (a flat surface: unsigned distance).
pub struct TriF {
    pub a: V,
    pub b: V,
    pub c: V,
}

impl TriF {
    pub fn new(t: &Triangle) -> Self {
        Self { a: p64(t.a()), b: p64(t.b()), c: p64(t.c()) }
    }

    /// The closest point: the plane projection when it falls inside (all
    /// three edge tests of the projected point agree with the normal),
    /// otherwise the nearest of the three edges. Written independently of
    /// the library's Voronoi-region code.
    pub fn closest(&self, p: &V) -> V {
        let n = (self.b - self.a).cross(&(self.c - self.a));
        let n2 = n.norm_squared();
        if n2 > 0.0 {
            let proj = p - n * ((p - self.a).dot(&n) / n2);
            let inside = [(self.a, self.b), (self.b, self.c), (self.c, self.a)]
                .iter()
                .all(|(u, v)| (v - u).cross(&(proj - u)).dot(&n) >= 0.0);
            if inside {
                return proj;
            }
        }
        [(self.a, self.b), (self.b, self.c), (self.c, self.a)]
            .iter()
            .map(|(u, v)| closest_on_segment(p, u, v))
            .min_by(|x, y| (p - x).norm_squared().total_cmp(&(p - y).norm_squared()))
            .expect("three edges")
    }
}

impl Sdf for TriF {
    fn sdf(&self, p: &V) -> f64 {
        (p - self.closest(p)).norm()
    }
    fn scale(&self) -> f64 {
        self.a.amax().max(self.b.amax()).max(self.c.amax())
    }
    fn surface_depth(&self, p: &V) -> Option<f64> {
        let edges = [(self.a, self.b), (self.b, self.c), (self.c, self.a)];
        Some(edges.iter().map(|(u, v)| (p - closest_on_segment(p, u, v)).norm()).fold(f64::INFINITY, f64::min))
    }
}

/// Plane (a two-sided surface: unsigned distance).
pub struct PlaneF {
    pub n: V,
    pub offset: f64,
}

impl PlaneF {
    /// From the library's plane: its stored f32 normal and offset, in f64.
    pub fn new(p: &Plane) -> Self {
        let n = v64(p.normal());
        Self { n: n / n.norm(), offset: p.offset() as f64 }
    }
}

impl Sdf for PlaneF {
    fn sdf(&self, p: &V) -> f64 {
        (self.n.dot(p) - self.offset).abs()
    }
    fn scale(&self) -> f64 {
        self.offset.abs()
    }
    fn surface_depth(&self, _p: &V) -> Option<f64> {
        Some(f64::INFINITY)
    }
}

/// What the oracle found along `o + t d`, `t` in `[0, t_max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Oracle {
    /// `g(0) <= 0`: already in contact; `depth = -g(0) >= 0`.
    Start { depth: f64 },
    /// First contact at `t`; `slope = -g'(t) > 0` is the approach speed
    /// (distance per unit `t`), `depth = -min g >= 0` how deep the path goes
    /// (for a ray through a flat surface: how far inside its boundary).
    Hit { t: f64, slope: f64, depth: f64 },
    /// No contact; `margin = min g > 0` is how far the path stays away.
    Miss { margin: f64 },
}

impl Oracle {
    /// `t` of the first contact (0 for a start in contact).
    pub fn toi(&self) -> Option<f64> {
        match *self {
            Oracle::Start { .. } => Some(0.0),
            Oracle::Hit { t, .. } => Some(t),
            Oracle::Miss { .. } => None,
        }
    }
}

/// First contact of the ball of radius `r` centred at `o + t d` with `shape`
/// (`r = 0` for a ray), `t` in `[0, t_max]` (`t_max` finite).
pub fn first_contact(shape: &dyn Sdf, o: &V, d: &V, r: f64, t_max: f64) -> Oracle {
    let g = |t: f64| shape.sdf(&(o + d * t)) - r;
    let g0 = g(0.0);
    if g0 <= 0.0 {
        return Oracle::Start { depth: -g0 };
    }
    // Golden-section search for the minimum of the convex g on [0, t_max].
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0, t_max);
    let mut x1 = hi - phi * (hi - lo);
    let mut x2 = lo + phi * (hi - lo);
    let (mut g1, mut g2) = (g(x1), g(x2));
    for _ in 0..90 {
        if g1 <= g2 {
            hi = x2;
            x2 = x1;
            g2 = g1;
            x1 = hi - phi * (hi - lo);
            g1 = g(x1);
        } else {
            lo = x1;
            x1 = x2;
            g1 = g2;
            x2 = lo + phi * (hi - lo);
            g2 = g(x2);
        }
        if g1.min(g2) <= 0.0 {
            break; // a point in contact is enough to bracket the root
        }
    }
    let (mut t_in, mut g_min) = if g1 <= g2 { (x1, g1) } else { (x2, g2) };
    for (t, gt) in [(0.0, g0), (t_max, g(t_max))] {
        if gt < g_min {
            (t_in, g_min) = (t, gt);
        }
    }
    if g_min > 0.0 {
        return Oracle::Miss { margin: g_min };
    }
    // Bisection: g(a) > 0 >= g(b) on [0, t_in].
    let (mut a, mut b) = (0.0f64, t_in);
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        if g(m) > 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    let t = b;
    let h = (1e-7 * t_max).max(1e-300);
    let slope = ((g((t - h).max(0.0)) - g(t)) / (t - (t - h).max(0.0))).max(0.0);
    // How deep the path goes (for the tangency band): min of g near the root.
    let depth = match (r == 0.0).then(|| shape.surface_depth(&(o + d * t))).flatten() {
        Some(depth) => depth,
        None => -convex_min(g, t, t_max, 80).value,
    };
    Oracle::Hit { t, slope, depth }
}

/// The outward unit normal of `shape` at `p`: the gradient of the signed
/// distance, by central differences of step `1e-6` of the shape's scale.
pub fn sdf_normal(shape: &dyn Sdf, p: &V) -> V {
    let h = 1e-6 * shape.scale().max(1e-3);
    let g = V::from_fn(|i, _| {
        let mut e = V::zeros();
        e[i] = h;
        shape.sdf(&(p + e)) - shape.sdf(&(p - e))
    });
    g.normalize()
}

/// A ray `o + t d`, `t` in `[0, t_max]`, against a triangle, in f64: the
/// plane crossing `t = -(o - a).n / d.n` (`n = (b - a) x (c - a)`), kept if
/// the crossing point is on the closed triangle (edge tests as in
/// [`TriF::closest`]). A ray parallel to the plane misses. Hit: `slope` is
/// `|d.n| / |n|`, `depth` the crossing point's distance to the boundary
/// times the cosine between ray and normal;
/// miss: `margin` is the segment's least distance to the triangle.
pub fn ray_triangle(tri: &TriF, o: &V, d: &V, t_max: f64) -> Oracle {
    let n = (tri.b - tri.a).cross(&(tri.c - tri.a));
    let dn = d.dot(&n);
    if dn != 0.0 && n.norm_squared() > 0.0 {
        let t = -(o - tri.a).dot(&n) / dn;
        let p = o + d * t;
        let inside = [(tri.a, tri.b), (tri.b, tri.c), (tri.c, tri.a)]
            .iter()
            .all(|(u, v)| (v - u).cross(&(p - u)).dot(&n) >= 0.0);
        if (0.0..=t_max).contains(&t) && inside {
            // How far the crossing is from the boundary, times the cosine
            // to the normal: the ray's own distance to the nearest edge line,
            // which is what a perturbation must cross to flip the answer.
            let slope = dn.abs() / n.norm();
            let depth = tri.surface_depth(&p).unwrap_or(0.0) * slope / d.norm();
            return Oracle::Hit { t, slope, depth };
        }
    }
    match first_contact(tri, o, d, 0.0, t_max) {
        Oracle::Miss { margin } => Oracle::Miss { margin },
        _ => Oracle::Miss { margin: 0.0 },
    }
}

/// Angle in radians between two vectors (0 when both are zero).
pub fn angle(a: &V, b: &V) -> f64 {
    let (na, nb) = (a.norm(), b.norm());
    if na == 0.0 || nb == 0.0 {
        return if na == nb { 0.0 } else { std::f64::consts::PI };
    }
    (a.dot(b) / (na * nb)).clamp(-1.0, 1.0).acos()
}
