//! Independent `f64` geometry: the oracle of the narrowphase fuzz properties.
//!
//! Every function takes proxima's `f32` shapes, widens their parameters to
//! `f64` exactly, and answers with textbook formulas written here, sharing no
//! code with the library. Distances from a point to a convex set are convex
//! along any line, so ray casts and sweeps against a convex shape reduce to
//! one-dimensional convex problems: a ternary search for the minimum and a
//! bisection for the first crossing of a threshold.

use nalgebra::Vector3;
use proxima_narrowphase::{Aabb, Capsule, Obb, Plane, Point, Sphere, Triangle, Vector};

/// A vector in `f64`.
pub type V = Vector3<f64>;

/// A point widened to `f64` (exact).
pub fn p64(p: &Point) -> V {
    V::new(p.x as f64, p.y as f64, p.z as f64)
}

/// A vector widened to `f64` (exact).
pub fn v64(v: &Vector) -> V {
    V::new(v.x as f64, v.y as f64, v.z as f64)
}

/// `|p - closest point of the segment [a, b]|` (Ericson, RTCD 5.1.2).
pub fn dist_point_segment(p: &V, a: &V, b: &V) -> f64 {
    let ab = b - a;
    let len2 = ab.norm_squared();
    let t = if len2 > 0.0 { ((p - a).dot(&ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + ab * t)).norm()
}

/// Distance from `p` to the closed box `[lo, hi]` (0 inside).
pub fn dist_point_box(p: &V, lo: &V, hi: &V) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let d = if p[i] < lo[i] {
            lo[i] - p[i]
        } else if p[i] > hi[i] {
            p[i] - hi[i]
        } else {
            0.0
        };
        s += d * d;
    }
    s.sqrt()
}

/// A convex set with an `f64` signed distance: `> 0` outside, `< 0` inside
/// a solid (minus the distance to its boundary); surfaces (triangle, plane)
/// have no inside and give the plain distance. The signed distance of a
/// convex set is convex, so it stays convex along any line.
pub trait Convex {
    /// Signed distance from `p` to the set.
    fn dist(&self, p: &V) -> f64;
    /// A bound on the set's coordinates (for search intervals).
    fn extent(&self) -> f64;
}

impl Convex for Sphere {
    fn dist(&self, p: &V) -> f64 {
        (p - p64(self.center())).norm() - self.radius() as f64
    }
    fn extent(&self) -> f64 {
        p64(self.center()).amax() + self.radius() as f64
    }
}

impl Convex for Aabb {
    fn dist(&self, p: &V) -> f64 {
        let (lo, hi) = (p64(self.min()), p64(self.max()));
        let q = (p - (lo + hi) * 0.5).abs() - (hi - lo) * 0.5;
        box_sdf(&q)
    }
    fn extent(&self) -> f64 {
        p64(self.min()).amax().max(p64(self.max()).amax())
    }
}

impl Convex for Obb {
    fn dist(&self, p: &V) -> f64 {
        // The box frame from the box's own f32 axes (orthonormal to ~1e-7).
        let d = p - p64(self.center());
        let h = v64(self.half_extents());
        let local = V::from_fn(|i, _| d.dot(&v64(&self.axes().column(i).into_owned())));
        box_sdf(&(local.abs() - h))
    }
    fn extent(&self) -> f64 {
        p64(self.center()).amax() + v64(self.half_extents()).sum()
    }
}

impl Convex for Capsule {
    fn dist(&self, p: &V) -> f64 {
        dist_point_segment(p, &p64(self.a()), &p64(self.b())) - self.radius() as f64
    }
    fn extent(&self) -> f64 {
        p64(self.a()).amax().max(p64(self.b()).amax()) + self.radius() as f64
    }
}

impl Convex for Triangle {
    fn dist(&self, p: &V) -> f64 {
        dist_point_triangle(p, &p64(self.a()), &p64(self.b()), &p64(self.c()))
    }
    fn extent(&self) -> f64 {
        p64(self.a()).amax().max(p64(self.b()).amax()).max(p64(self.c()).amax())
    }
}

impl Convex for Plane {
    fn dist(&self, p: &V) -> f64 {
        (v64(self.normal()).dot(p) - self.offset() as f64).abs()
    }
    fn extent(&self) -> f64 {
        (self.offset() as f64).abs()
    }
}

/// The signed distance of a box from `q = |p - centre| - half_extents`
/// (Quilez's box SDF): the length of the positive part outside, the largest
/// (negative) component inside.
pub fn box_sdf(q: &V) -> f64 {
    q.map(|x| x.max(0.0)).norm() + q.x.max(q.y).max(q.z).min(0.0)
}

/// Distance from `p` to the triangle `abc`: to the plane when the projection
/// falls inside (same-side tests on the three edges), else to the nearest
/// edge. Degenerate triangles are their edges.
pub fn dist_point_triangle(p: &V, a: &V, b: &V, c: &V) -> f64 {
    let n = (b - a).cross(&(c - a));
    let n2 = n.norm_squared();
    let edges = dist_point_segment(p, a, b).min(dist_point_segment(p, b, c)).min(dist_point_segment(p, c, a));
    if n2 == 0.0 {
        return edges;
    }
    let q = p - n * ((p - a).dot(&n) / n2);
    let inside = [(a, b), (b, c), (c, a)].iter().all(|(u, v)| (*v - *u).cross(&(q - *u)).dot(&n) >= 0.0);
    if inside {
        (p - q).norm()
    } else {
        edges
    }
}

/// `min` of the convex `g` on `[lo, hi]` by ternary search: `(t, g(t))`.
pub fn convex_min(g: &impl Fn(f64) -> f64, lo: f64, hi: f64) -> (f64, f64) {
    let bounds = (lo, hi);
    let (mut lo, mut hi) = (lo, hi);
    for _ in 0..200 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if g(m1) <= g(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let t = 0.5 * (lo + hi);
    // The ends may beat the interior (a monotone g).
    let (lo0, hi0) = bounds;
    [(t, g(t)), (lo0, g(lo0)), (hi0, g(hi0))].into_iter().fold((t, g(t)), |best, c| if c.1 < best.1 { c } else { best })
}

/// The first `t` in `[0, hi]` with `g(t) <= level`, for convex `g`; `None`
/// when `g` stays above `level`.
pub fn first_crossing(g: &impl Fn(f64) -> f64, hi: f64, level: f64) -> Option<f64> {
    if g(0.0) <= level {
        return Some(0.0);
    }
    let (t_min, g_min) = convex_min(g, 0.0, hi);
    if g_min > level {
        return None;
    }
    // g is decreasing on [0, t_min]: bisect for the crossing.
    let (mut lo, mut up) = (0.0, t_min);
    for _ in 0..200 {
        let mid = 0.5 * (lo + up);
        if g(mid) <= level {
            up = mid;
        } else {
            lo = mid;
        }
    }
    Some(up)
}

/// Minimum distance between the segment `[a, b]` and a convex set.
pub fn dist_segment_convex(a: &V, b: &V, s: &impl Convex) -> f64 {
    let g = |t: f64| s.dist(&(a + (b - a) * t));
    convex_min(&g, 0.0, 1.0).1
}

/// Signed separation of two oriented boxes along the best of the 15 SAT
/// axes (Gottschalk et al., OBBTree, 1996), in `f64`: `> 0` means separated
/// by at least that distance, `< 0` means every axis overlaps by at least
/// `-value`. Axes are `(center, axes columns, half-extents)`; edge-edge axes
/// whose cross product is shorter than `1e-6` are skipped.
pub fn sat_separation(ca: &V, axa: &[V; 3], ha: &V, cb: &V, axb: &[V; 3], hb: &V) -> f64 {
    let d = cb - ca;
    let mut best = f64::NEG_INFINITY;
    let mut test = |l: V| {
        let len = l.norm();
        if len < 1e-6 {
            return;
        }
        let l = l / len;
        let ra: f64 = (0..3).map(|i| ha[i] * axa[i].dot(&l).abs()).sum();
        let rb: f64 = (0..3).map(|i| hb[i] * axb[i].dot(&l).abs()).sum();
        best = best.max(d.dot(&l).abs() - ra - rb);
    };
    for a in axa {
        test(*a);
    }
    for b in axb {
        test(*b);
    }
    for a in axa {
        for b in axb {
            test(a.cross(b));
        }
    }
    best
}

/// The frame of an `Obb` in `f64`: centre, axes, half-extents.
pub fn obb_frame(o: &Obb) -> (V, [V; 3], V) {
    let ax = o.axes();
    let cols = [0, 1, 2].map(|i| v64(&ax.column(i).into_owned()));
    (p64(o.center()), cols, v64(o.half_extents()))
}

/// The frame of an `Aabb` as an oriented box.
pub fn aabb_frame(a: &Aabb) -> (V, [V; 3], V) {
    let (lo, hi) = (p64(a.min()), p64(a.max()));
    ((lo + hi) * 0.5, [V::x(), V::y(), V::z()], (hi - lo) * 0.5)
}

/// Signed separation of a triangle and an axis-aligned box along the 13
/// SAT axes (Akenine-Moller, "Fast 3D triangle-box overlap testing", 2001):
/// the box normals, the triangle normal, and the 9 edge crosses (short ones
/// skipped). `> 0`: separated by at least that much.
pub fn sat_triangle_box(t: &[V; 3], lo: &V, hi: &V) -> f64 {
    let c = (lo + hi) * 0.5;
    let h = (hi - lo) * 0.5;
    let v = t.map(|p| p - c);
    let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let mut best = f64::NEG_INFINITY;
    let mut test = |l: V| {
        let len = l.norm();
        if len < 1e-9 {
            return;
        }
        let l = l / len;
        let p = v.map(|x| x.dot(&l));
        let (pmin, pmax) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
        let r = h.x * l.x.abs() + h.y * l.y.abs() + h.z * l.z.abs();
        best = best.max(pmin - r).max(-r - pmax);
    };
    for axis in [V::x(), V::y(), V::z()] {
        test(axis);
    }
    test(e[0].cross(&e[1]));
    for edge in &e {
        for axis in [V::x(), V::y(), V::z()] {
            test(axis.cross(edge));
        }
    }
    best
}
