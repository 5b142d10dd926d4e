//! Closest points on segments.

use super::ClosestPoints;
use crate::math::{Point, Real};

/// The point of segment `[a, b]` closest to `p`.
///
/// Project onto the line, `t = (p - a).(b - a) / |b - a|^2`, clamped to
/// `[0, 1]`; a zero-length segment returns `a` (Ericson 5.1.2).
#[inline]
#[must_use]
pub fn closest_point_segment(p: &Point, a: &Point, b: &Point) -> Point {
    let ab = b - a;
    let len2 = ab.norm_squared();
    if len2 <= 0.0 {
        return *a;
    }
    let t = ((p - a).dot(&ab) / len2).clamp(0.0, 1.0);
    a + ab * t
}

/// Distance from `p` to the segment `[a, b]`.
#[inline]
#[must_use]
pub fn distance_point_segment(p: &Point, a: &Point, b: &Point) -> Real {
    (p - closest_point_segment(p, a, b)).norm()
}

/// The closest pair of points between segments `[p1, q1]` and `[p2, q2]`:
/// `point_a` on the first, `point_b` on the second.
///
/// Minimises `|p1 + s d1 - (p2 + t d2)|^2` over `s, t` in `[0, 1]`, with the
/// clamping order and degenerate (point) segments of Ericson 5.1.9. Parallel
/// segments pick `s = 0` and clamp `t`, which still gives a closest pair.
///
/// The products of the solution reach the fourth power of the segments'
/// lengths and of their distance: past about `4e9` they overflow f32, so
/// such segments are solved, and their points placed, in f64 (to f64's
/// rounding of the lengths: a point `p + s d` placed in f32 on a segment of
/// length `L` would be off by f32's `eps L`).
#[must_use]
pub fn closest_points_segment_segment(p1: &Point, q1: &Point, p2: &Point, q2: &Point) -> ClosestPoints {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    if d1.amax().max(d2.amax()).max(r.amax()) > F32_SAFE_LENGTH {
        let (p1, p2) = (p1.cast::<f64>(), p2.cast::<f64>());
        let (d1, d2) = (q1.cast::<f64>() - p1, q2.cast::<f64>() - p2);
        let Some((s, t)) = segment_params_f64(&d1, &d2, &(p1 - p2)) else {
            return ClosestPoints { point_a: p1.cast(), point_b: p2.cast() };
        };
        return ClosestPoints { point_a: (p1 + d1 * s).cast(), point_b: (p2 + d2 * t).cast() };
    }
    let Some((s, t)) = segment_params_f32(&d1, &d2, &r) else {
        return ClosestPoints { point_a: *p1, point_b: *p2 };
    };
    ClosestPoints { point_a: p1 + d1 * s, point_b: p2 + d2 * t }
}

/// The largest coordinate of a segment's direction, or of the offset of
/// two segments, that [`closest_points_segment_segment`] solves in f32: a
/// length of at most `sqrt 3` times this keeps its fourth power, `9e36`,
/// below `f32::MAX`.
const F32_SAFE_LENGTH: Real = 1e9;

/// The parameters `(s, t)` of the closest points of `p1 + s d1` and
/// `p2 + t d2` (`r = p1 - p2`), in the given float type (one body for both,
/// so that f64 repeats f32's steps); `None` when both segments are points.
macro_rules! segment_params {
    ($name:ident, $t:ty) => {
        #[inline]
        fn $name(
            d1: &nalgebra::Vector3<$t>,
            d2: &nalgebra::Vector3<$t>,
            r: &nalgebra::Vector3<$t>,
        ) -> Option<($t, $t)> {
            const EPS2: $t = (Real::EPSILON as $t) * (Real::EPSILON as $t);
            let a = d1.norm_squared();
            let e = d2.norm_squared();
            let f = d2.dot(r);
            let (s, t): ($t, $t);
            if a <= EPS2 && e <= EPS2 {
                return None;
            }
            if a <= EPS2 {
                s = 0.0;
                t = (f / e).clamp(0.0, 1.0);
            } else {
                let c = d1.dot(r);
                if e <= EPS2 {
                    t = 0.0;
                    s = (-c / a).clamp(0.0, 1.0);
                } else {
                    let b = d1.dot(d2);
                    // Ericson's `s = (b f - c e) / (a e - b^2)` cancels for nearly
                    // parallel segments: `a e` and `b^2` agree in most of their bits
                    // and the rounding of each product, ~`eps a e`, leaves a relative
                    // error of `eps / sin^2` in both (B14: a 1e-3 rad angle left a
                    // closest pair 1.2e-3 apart on segments of length 12 that share an
                    // endpoint). Below `sin^2 = 0.1` (`a e - b^2 < 0.1 a e`), both are
                    // recomputed as products of cross products, each with a small
                    // relative error: by Lagrange's identity `a e - b^2 = |d1 x d2|^2`
                    // and, by Binet-Cauchy `(u x v).(w x z) = (u.w)(v.z) - (u.z)(v.w)`,
                    // `b f - c e = (d1 x d2).(d2 x r)`.
                    let (mut num, mut denom) = (b * f - c * e, a * e - b * b);
                    if denom < 0.1 * a * e {
                        let n = d1.cross(d2);
                        (num, denom) = (n.dot(&d2.cross(r)), n.norm_squared());
                    }
                    let s0 = if denom > 0.0 { (num / denom).clamp(0.0, 1.0) } else { 0.0 };
                    let t0 = (b * s0 + f) / e;
                    if t0 < 0.0 {
                        t = 0.0;
                        s = (-c / a).clamp(0.0, 1.0);
                    } else if t0 > 1.0 {
                        t = 1.0;
                        s = ((b - c) / a).clamp(0.0, 1.0);
                    } else {
                        t = t0;
                        s = s0;
                    }
                }
            }
            Some((s, t))
        }
    };
}

segment_params!(segment_params_f32, f32);
segment_params!(segment_params_f64, f64);
