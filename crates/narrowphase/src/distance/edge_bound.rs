//! Bounds that let an edge search skip edges without changing its answer.
//!
//! An edge search (see `EdgeSearch`) keeps the first edge, in a fixed order,
//! whose computed squared distance `d2(e)` is the least, `M`. An edge with
//! `d2(e) > M` can neither be that edge nor change which edge it is, so
//! skipping it leaves the answer bit for bit the same. The search skips an
//! edge when a lower bound `L(e) <= d2(e)` exceeds a threshold `T >= M`:
//! - `T` is the least of the distances computed so far (each an edge's
//!   `d2`, so `>= M`) and an upper bound taken before the search: the
//!   squared distance of a segment's start point to the box, which the
//!   segment-box solver evaluates at `t = 0` with the very same operations
//!   (`|p - clamp(p, -h, h)|^2`), so its own `d2` is at most that value;
//! - `L(e)` bounds the distance as computed, rounding included: per axis the
//!   gap between the extents of the two features, less a slack for the
//!   rounding of the solver's points along the edge, and the sum of squares
//!   lowered by a relative `2^-20`.
//!
//! The edges the bounds keep are those that reach within the threshold of
//! the other shape, typically the few around the closest features.

use crate::math::{Real, Vector};

/// `1 - 2^-20`: the relative margin of a lower bound's sum of squares
/// (against the few `eps` of rounding in it and in the solver's sum).
pub(super) const SUM_MARGIN: Real = 1.0 - 1.0 / (1u32 << 20) as Real;

/// `|p - clamp(p, -h, h)|^2`: the squared distance of `p` to the box
/// `[-h, h]`, computed as `closest_points_segment_box_local` evaluates it at
/// a segment's start `p` (so that segment's computed distance is at most
/// this).
#[inline]
pub(super) fn point_box2(p: &Vector, h: &Vector) -> Real {
    (p - p.zip_map(h, |x, h| x.clamp(-h, h))).norm_squared()
}

/// A lower bound on the squared distance of the segment `[p, q]` to the box
/// `[-h, h]` as `closest_points_segment_box_local` computes it.
///
/// Every point `x = p + t (q - p)`, `t` in `[0, 1]`, lies within
/// `[min(p_i, q_i), max(p_i, q_i)]` on axis `i`, so its gap to the box there
/// is at least `g_i = max(min(p_i, q_i) - h_i, -h_i - max(p_i, q_i))`. The
/// solver's `x` carries a few `eps` of `|p_i| + |q_i|` of rounding (the
/// difference `q - p`, the product by `t`, the sum): `8 eps` of it is taken
/// off each gap.
#[inline]
pub(super) fn segment_box_lower2(p: &Vector, q: &Vector, h: &Vector) -> Real {
    let mut sum = 0.0;
    for i in 0..3 {
        let (lo, hi) = (p[i].min(q[i]), p[i].max(q[i]));
        let slack = 8.0 * Real::EPSILON * (p[i].abs() + q[i].abs());
        let g = (lo - h[i]).max(-h[i] - hi) - slack;
        if g > 0.0 {
            sum += g * g;
        }
    }
    sum * SUM_MARGIN
}

/// A lower bound on the squared distance between two sets inside the boxes
/// `[lo1, hi1]` and `[lo2, hi2]`, with `slack` taken off each axis's gap
/// (the rounding of the points a solver computes in them).
#[inline]
pub(super) fn boxes_lower2(lo1: &Vector, hi1: &Vector, lo2: &Vector, hi2: &Vector, slack: Real) -> Real {
    let mut sum = 0.0;
    for i in 0..3 {
        let g = (lo2[i] - hi1[i]).max(lo1[i] - hi2[i]) - slack;
        if g > 0.0 {
            sum += g * g;
        }
    }
    sum * SUM_MARGIN
}

/// The lower bounds of the edges of a box (corners `c`, in the frame of the
/// box `[-h, h]` they are searched against), from values taken once per
/// corner.
///
/// Two bounds, the larger kept:
/// - per axis, the gap between the edge's extent and the box, from each
///   corner's gaps above and below the box (`c_i - h_i`, `-h_i - c_i`): on
///   an edge from `p` to `q` the gap above is at least
///   `min(p_i - h_i, q_i - h_i)`, below `min(-h_i - p_i, -h_i - q_i)`;
/// - a support plane of the box with unit normal `n` (the direction from the
///   box to the corner nearest it, when that corner is outside): the box
///   lies below `n . x = sum_i h_i |n_i|`, so every point `y` of the edge is
///   at least `n . y - sum_i h_i |n_i|` from it, and `n . y` is least at an
///   end.
///
/// Both less a slack of `16 eps` of the coordinates' magnitude (the
/// rounding of the solver's points and of these values).
pub(super) struct CornerGaps {
    above: [Vector; 8],
    below: [Vector; 8],
    along: [Real; 8],
    /// `sum_i h_i |n_i|` plus the slack (infinity without a plane).
    plane: Real,
    slack: Real,
}

/// The lesser of `a` and `b` (either for NaN, which no finite input makes).
#[inline]
pub(super) fn lesser(a: Real, b: Real) -> Real {
    if a < b {
        a
    } else {
        b
    }
}

/// The greater of `a` and `b`.
#[inline]
pub(super) fn greater(a: Real, b: Real) -> Real {
    if a > b {
        a
    } else {
        b
    }
}

impl CornerGaps {
    /// The corners' values; `near` is a corner outside the box and nearest
    /// it (the plane's normal is its offset from the box), or `None`.
    pub(super) fn new(c: &[Vector; 8], h: &Vector, near: Option<usize>) -> Self {
        let above = c.map(|x| x - h);
        let below = c.map(|x| -h - x);
        let size = c.iter().fold(h.amax(), |m, x| greater(m, x.amax()));
        let slack = 16.0 * Real::EPSILON * size;
        let n = near.map(|k| c[k] - c[k].zip_map(h, |x, h| x.clamp(-h, h))).and_then(|d| d.try_normalize(0.0));
        match n {
            Some(n) => {
                let along = c.map(|x| n.dot(&x));
                let support = h.x * n.x.abs() + h.y * n.y.abs() + h.z * n.z.abs();
                Self { above, below, along, plane: support + slack, slack }
            }
            None => Self { above, below, along: [0.0; 8], plane: Real::INFINITY, slack },
        }
    }

    /// A lower bound on the squared distance of the edge from corner `i` to
    /// corner `j` to the box, as `closest_points_segment_box_local` computes
    /// it.
    #[inline]
    pub(super) fn edge_lower2(&self, i: usize, j: usize) -> Real {
        let (ai, aj, bi, bj) = (&self.above[i], &self.above[j], &self.below[i], &self.below[j]);
        let gap = |k: usize| greater(greater(lesser(ai[k], aj[k]), lesser(bi[k], bj[k])) - self.slack, 0.0);
        let (g0, g1, g2) = (gap(0), gap(1), gap(2));
        let p = greater(lesser(self.along[i], self.along[j]) - self.plane, 0.0);
        greater(g0 * g0 + g1 * g1 + g2 * g2, p * p) * SUM_MARGIN
    }
}

/// The threshold of the skip test: an edge whose lower bound exceeds it
/// cannot hold the search's answer. `best2` is the least distance computed
/// so far, `upper2` an upper bound of the search's least (see the module).
#[inline]
pub(super) fn skips(lower2: Real, best2: Real, upper2: Real) -> bool {
    lower2 > best2.min(upper2)
}

#[cfg(test)]
pub(super) mod tests {
    use crate::math::{Point, Real, Rotation, Vector};
    use crate::shape::{Obb, Triangle};

    /// Random shapes for the pruned-against-full searches: two boxes and a
    /// triangle, placed so that about half the pairs overlap, with the
    /// cases that stress the bounds mixed in.
    pub(crate) struct Case {
        obbs: [Obb; 2],
        tri: Triangle,
    }

    impl Case {
        /// Box `k` (0 or 1).
        pub(crate) fn obb(&self, k: usize) -> Obb {
            self.obbs[k]
        }

        /// The triangle.
        pub(crate) fn triangle(&self) -> Triangle {
            self.tri
        }
    }

    /// A seeded generator of values in `[0, 1)`.
    fn unit(seed: &mut u64) -> Real {
        *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 40) as Real / (1u64 << 24) as Real
    }

    /// Runs `f` on `n` seeded cases; returns `n`. The mix: random, world-
    /// aligned (parallel faces) and shared or quarter-turn rotations; half
    /// extents zero one time in six (points, segments, flat boxes);
    /// coordinates on a 1/64 grid one time in three (exact touching);
    /// pairs pushed to touch face to face (aligned boxes, or a triangle
    /// vertex on a face) one time in five; everything offset by `1e4` one
    /// time in four.
    pub(crate) fn random_cases(n: usize, mut f: impl FnMut(Case)) -> usize {
        let mut seed = 0x5EED_u64;
        for _ in 0..n {
            let s = &mut seed;
            let grid = unit(s) < 1.0 / 3.0;
            let val = |s: &mut u64, lo: Real, hi: Real| {
                let x = lo + (hi - lo) * unit(s);
                if grid {
                    (x * 64.0).round() / 64.0
                } else {
                    x
                }
            };
            let kind = (unit(s) * 4.0) as u32;
            let random_rot = |s: &mut u64| {
                let axis = Vector::new(unit(s) - 0.5, unit(s) - 0.5, unit(s) - 0.5);
                Rotation::new(axis * 6.0)
            };
            let quarter = |s: &mut u64| {
                let k = |s: &mut u64| (unit(s) * 4.0).floor() * core::f32::consts::FRAC_PI_2;
                Rotation::from_euler_angles(k(s), k(s), k(s))
            };
            let shared = random_rot(s);
            let rot = |s: &mut u64| match kind {
                0 => random_rot(s),
                1 => Rotation::identity(),
                2 => shared,
                _ => quarter(s),
            };
            let half = |s: &mut u64| Vector::from_fn(|_, _| if unit(s) < 1.0 / 6.0 { 0.0 } else { val(s, 0.05, 1.5) });
            let offset = if unit(s) < 0.25 { Vector::new(1e4, -1e4, 1e4) } else { Vector::zeros() };
            let centre = |s: &mut u64| Point::from(Vector::from_fn(|_, _| val(s, -1.5, 1.5)) + offset);
            let (ra, ha, ca) = (rot(s), half(s), centre(s));
            let (rb, hb, mut cb) = (rot(s), half(s), centre(s));
            let touch = unit(s) < 0.2;
            if touch && kind == 1 {
                cb.x = ca.x + ha.x + hb.x;
            }
            let a = Obb::new(ca, ra, ha);
            let b = Obb::new(cb, rb, hb);
            let v = |s: &mut u64| centre(s);
            let (mut ta, tb, tc) = (v(s), v(s), v(s));
            if touch {
                // A vertex on A's +x face, inside its outline.
                let local = Vector::new(ha.x, val(s, -1.0, 1.0) * ha.y, val(s, -1.0, 1.0) * ha.z);
                ta = a.to_world(&local);
            }
            f(Case { obbs: [a, b], tri: Triangle { a: ta, b: tb, c: tc } });
        }
        n
    }
}
