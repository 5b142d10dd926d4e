//! Closest points between a segment and a solid box.

use super::ClosestPoints;
use crate::math::{Point, Real, Vector};
use crate::shape::{Aabb, Obb};

/// The closest points between the segment `[p, q]` and a solid box centred at
/// the origin with half-extents `h`, in the box frame: `(on_segment, on_box)`.
///
/// With `x(t) = p + t (q - p)`, the squared distance to the box is
/// `f(t) = sum_i (x_i(t) - clamp(x_i(t), -h_i, h_i))^2`, convex and piecewise
/// quadratic in `t`: it changes form only where `x_i(t)` crosses `±h_i`. On each
/// of the (at most seven) pieces of `[0, 1]` between those crossings the active
/// faces are fixed and `f` is a quadratic with the closed-form minimiser
/// `t* = sum_active d_i (b_i - p_i) / sum_active d_i^2` (`b_i` the face crossed,
/// `d = q - p`); the global minimum is the least of the piecewise minima. Exact
/// up to rounding, with no iteration. A segment that enters the box returns a
/// point inside it twice (distance 0).
#[must_use]
pub(crate) fn closest_points_segment_box_local(p: &Vector, q: &Vector, h: &Vector) -> (Vector, Vector) {
    let d = q - p;
    let mut cuts: [Real; 8] = [0.0; 8];
    let mut n = 1;
    for i in 0..3 {
        if d[i] != 0.0 {
            for b in [-h[i], h[i]] {
                let t = (b - p[i]) / d[i];
                if t > 0.0 && t < 1.0 {
                    cuts[n] = t;
                    n += 1;
                }
            }
        }
    }
    cuts[n] = 1.0;
    n += 1;
    cuts[..n].sort_unstable_by(Real::total_cmp);

    let clamp = |x: &Vector| x.zip_map(h, |x, h| x.clamp(-h, h));
    let mut best_t = 0.0;
    let mut best_f = Real::INFINITY;
    for w in cuts[..n].windows(2) {
        let (t0, t1) = (w[0], w[1]);
        let mid = p + d * (0.5 * (t0 + t1));
        // On this piece, axis i is clamped to the face b_i when mid_i is outside.
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..3 {
            let b = if mid[i] > h[i] {
                h[i]
            } else if mid[i] < -h[i] {
                -h[i]
            } else {
                continue;
            };
            num += d[i] * (b - p[i]);
            den += d[i] * d[i];
        }
        // No active face: the midpoint is inside the box, so the segment
        // enters it. Take `t` at the midpoint, where `f = 0` exactly (`x` is
        // computed as `mid` was, and every coordinate passed the tests above,
        // so `clamp(x) = x`). The piece's ends lie on faces, and `f` there is
        // the rounding of `p + d t` off the face: for a segment crossing a thin
        // box that was ~1e-12, more than the square of a tiny radius (B3).
        let t = if den > 0.0 { (num / den).clamp(t0, t1) } else { 0.5 * (t0 + t1) };
        for t in [t, t0, t1] {
            let x = p + d * t;
            let f = (x - clamp(&x)).norm_squared();
            if f < best_f {
                best_f = f;
                best_t = t;
            }
        }
    }
    let x = p + d * best_t;
    (x, clamp(&x))
}

/// The closest points between the segment `[a, b]` and the solid oriented box
/// in world space, `point_a` on the segment and `point_b` on the box: in the box frame, the squared
/// distance is convex and piecewise quadratic along the segment, and each of
/// its (at most seven) pieces is minimised in closed form.
#[must_use]
pub fn closest_points_segment_obb(a: &Point, b: &Point, obb: &Obb) -> ClosestPoints {
    let (s, x) = closest_points_segment_box_local(&obb.to_local(a), &obb.to_local(b), obb.half_extents());
    ClosestPoints { point_a: obb.to_world(&s), point_b: obb.to_world(&x) }
}

/// The closest points between the segment `[a, b]` and the solid axis-aligned
/// box, `point_a` on the segment and `point_b` on the box.
#[must_use]
pub fn closest_points_segment_aabb(a: &Point, b: &Point, aabb: &Aabb) -> ClosestPoints {
    let c = aabb.center();
    let (s, x) = closest_points_segment_box_local(&(a - c), &(b - c), &aabb.half_extents());
    ClosestPoints { point_a: c + s, point_b: c + x }
}
