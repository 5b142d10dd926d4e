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
    for (piece, w) in cuts[..n].windows(2).enumerate() {
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
        // A piece's start is the previous piece's end, already evaluated
        // (the same `x`, so the same `f`, which the strict `<` never takes
        // again): only the first piece evaluates its start.
        let mut take = |t: Real| {
            let x = p + d * t;
            let f = (x - clamp(&x)).norm_squared();
            if f < best_f {
                best_f = f;
                best_t = t;
            }
        };
        take(t);
        if piece == 0 {
            take(t0);
        }
        take(t1);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The solver evaluating both ends of every piece: the oracle of the
    /// one that evaluates each shared end once.
    fn every_end(p: &Vector, q: &Vector, h: &Vector) -> (Vector, Vector) {
        let d = q - p;
        let mut cuts = vec![0.0, 1.0];
        for i in 0..3 {
            if d[i] != 0.0 {
                for b in [-h[i], h[i]] {
                    let t = (b - p[i]) / d[i];
                    if t > 0.0 && t < 1.0 {
                        cuts.push(t);
                    }
                }
            }
        }
        cuts.sort_unstable_by(Real::total_cmp);
        let clamp = |x: &Vector| x.zip_map(h, |x, h| x.clamp(-h, h));
        let (mut best_t, mut best_f) = (0.0, Real::INFINITY);
        for w in cuts.windows(2) {
            let (t0, t1) = (w[0], w[1]);
            let mid = p + d * (0.5 * (t0 + t1));
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
            let t = if den > 0.0 { (num / den).clamp(t0, t1) } else { 0.5 * (t0 + t1) };
            for t in [t, t0, t1] {
                let x = p + d * t;
                let f = (x - clamp(&x)).norm_squared();
                if f < best_f {
                    (best_f, best_t) = (f, t);
                }
            }
        }
        let x = p + d * best_t;
        (x, clamp(&x))
    }

    #[test]
    fn shared_piece_ends_evaluated_once_give_the_same_answer() {
        // Random segments against random boxes, coordinates on a 1/8 grid
        // half the time (segments along faces, ends on faces), some of zero
        // length or along an axis, some boxes flat: bit for bit the same
        // pair as evaluating every end of every piece.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 40) as Real / (1u64 << 24) as Real
        };
        let mut several_pieces = 0;
        for case in 0..50_000 {
            let grid = case % 2 == 0;
            let mut v = |s: Real| {
                let x = (next() * 2.0 - 1.0) * s;
                if grid {
                    (x * 8.0).round() / 8.0
                } else {
                    x
                }
            };
            let h = Vector::new(v(1.0).abs(), v(1.0).abs(), if case % 7 == 0 { 0.0 } else { v(1.0).abs() });
            let p = Vector::new(v(3.0), v(3.0), v(3.0));
            let mut q = Vector::new(v(3.0), v(3.0), v(3.0));
            match case % 5 {
                0 => q = p,
                1 => q.y = p.y,
                _ => {}
            }
            let cuts = (0..3).filter(|&i| p[i].abs() > h[i] || q[i].abs() > h[i]).count();
            several_pieces += usize::from(cuts > 1);
            let (a, b) = (closest_points_segment_box_local(&p, &q, &h), every_end(&p, &q, &h));
            assert_eq!(a.0.map(Real::to_bits), b.0.map(Real::to_bits), "{p:?} {q:?} {h:?}");
            assert_eq!(a.1.map(Real::to_bits), b.1.map(Real::to_bits), "{p:?} {q:?} {h:?}");
        }
        assert!(several_pieces > 10_000);
    }
}
