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
#[must_use]
pub fn closest_points_segment_segment(p1: &Point, q1: &Point, p2: &Point, q2: &Point) -> ClosestPoints {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.norm_squared();
    let e = d2.norm_squared();
    let f = d2.dot(&r);
    let (s, t);
    if a <= Real::EPSILON * Real::EPSILON && e <= Real::EPSILON * Real::EPSILON {
        return ClosestPoints { point_a: *p1, point_b: *p2 };
    }
    if a <= Real::EPSILON * Real::EPSILON {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(&r);
        if e <= Real::EPSILON * Real::EPSILON {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(&d2);
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
                let n = d1.cross(&d2);
                (num, denom) = (n.dot(&d2.cross(&r)), n.norm_squared());
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
    ClosestPoints { point_a: p1 + d1 * s, point_b: p2 + d2 * t }
}
