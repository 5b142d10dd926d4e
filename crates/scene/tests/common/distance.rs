//! f64 distances from a point to a segment and to a triangle: the oracles
//! of the mesh manifold tests.

use nalgebra::Vector3;
use proxima_narrowphase::Triangle;

type V = Vector3<f64>;

/// The distance from `p` to segment `ab`.
pub fn point_segment(p: &V, a: &V, b: &V) -> f64 {
    let ab = b - a;
    let t = if ab.norm_squared() > 0.0 { ((p - a).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + ab * t)).norm()
}

/// The distance from `p` to triangle `t` (Ericson 5.1.5 by regions): to
/// the plane where `p` projects inside, else to the nearest edge.
pub fn point_triangle(p: &V, t: &Triangle) -> f64 {
    let [a, b, c] = t.vertices().map(|x| x.coords.cast::<f64>());
    let n = (b - a).cross(&(c - a));
    let inside = (b - a).cross(&(p - a)).dot(&n) >= 0.0
        && (c - b).cross(&(p - b)).dot(&n) >= 0.0
        && (a - c).cross(&(p - c)).dot(&n) >= 0.0;
    if inside {
        return (p - a).dot(&n).abs() / n.norm();
    }
    point_segment(p, &a, &b).min(point_segment(p, &b, &c)).min(point_segment(p, &c, &a))
}
