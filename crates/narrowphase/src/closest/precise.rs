//! Closest points in f64, for contacts whose shapes nearly touch.
//!
//! Where two shapes are closer than about `1e-4` of their size, the f32
//! closest points carry a rounding of ~`1e-7` of that size each, so the
//! direction of their difference (a contact normal) is off by up to
//! `1e-7 size / gap`. From f32 inputs the differences of coordinates and
//! the products of two such differences are exact in f64, and the results
//! below carry ~`1e-16` of the shapes' size: the direction holds down to
//! gaps of ~`1e-12` of it.

use nalgebra::Vector3;

/// A vector in f64.
pub(crate) type V64 = Vector3<f64>;

/// The point of triangle `[a, b, c]` closest to `p`, in f64; `None` for a
/// degenerate triangle (collinear vertices), which its edges cover.
///
/// The regions of Ericson, Real-Time Collision Detection, 5.1.5, with the
/// edge regions decided by the triple products `n . ((c - b) x (p - b))`,
/// `n . ((a - c) x (p - c))`, `n . ((b - a) x (p - a))`, `n = (b - a) x
/// (c - a)` (as [`closest_point_triangle`](super::closest_point_triangle):
/// they do not cancel on slivers), and the face point the barycentric
/// combination `a + (b - a) vb / s + (c - a) vc / s`, `s = va + vb + vc`,
/// which stays on the triangle.
pub(crate) fn closest_point_triangle_f64(p: &V64, [a, b, c]: &[V64; 3]) -> Option<V64> {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return Some(*a);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return Some(*b);
    }
    let n = ab.cross(&ac);
    let vc = n.dot(&ab.cross(&ap));
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return Some(a + ab * (d1 / (d1 - d3)));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return Some(*c);
    }
    let vb = n.dot(&(a - c).cross(&cp));
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return Some(a + ac * (d2 / (d2 - d6)));
    }
    let va = n.dot(&(c - b).cross(&bp));
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return Some(b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let s = va + vb + vc;
    if s.is_nan() || s <= 0.0 {
        return None;
    }
    Some(a + ab * (vb / s) + ac * (vc / s))
}

/// The closest pair `(on [p1, q1], on [p2, q2])` of two segments, in f64:
/// Ericson 5.1.9, with `a e - b^2` and `b f - c e` taken as
/// `|d1 x d2|^2` and `(d1 x d2) . (d2 x r)` (Lagrange and Binet-Cauchy), which
/// keep their relative precision on nearly parallel segments. A parallel
/// pair takes `s = 0`, a zero-length segment is its point.
pub(crate) fn closest_points_segment_segment_f64(p1: &V64, q1: &V64, p2: &V64, q2: &V64) -> (V64, V64) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    let (s, t) = if a <= 0.0 && e <= 0.0 {
        (0.0, 0.0)
    } else if a <= 0.0 {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= 0.0 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let n = d1.cross(&d2);
            let denom = n.norm_squared();
            let s0 = if denom > 0.0 { (n.dot(&d2.cross(&r)) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t0 > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s0, t0)
            }
        }
    };
    (p1 + d1 * s, p2 + d2 * t)
}

/// The closest pair `(on the segment, on the triangle)` of the segment
/// `[p, q]` and the triangle `v` (a surface), in f64; `None` when the
/// segment crosses the triangle.
///
/// The crossing: `p` and `q` on either side of the plane (heights
/// `n . (p - a)`, `n . (q - a)` of opposite signs, or one zero) and the
/// point where the segment meets it inside the triangle (the three triple
/// products of the face region non-negative). Otherwise the least of the
/// endpoints against the triangle and the segment against each edge: the
/// squared distance is convex, and its minimum lies on one of those
/// features (see [`closest_points_segment_triangle`](super::closest_points_segment_triangle)).
/// A segment lying in the plane and overlapping the triangle gets a pair at
/// distance 0 from them.
pub(crate) fn closest_points_segment_triangle_f64(p: &V64, q: &V64, v: &[V64; 3]) -> Option<(V64, V64)> {
    let [a, b, c] = v;
    let n = (b - a).cross(&(c - a));
    let (hp, hq) = (n.dot(&(p - a)), n.dot(&(q - a)));
    if hp != hq && ((hp <= 0.0 && hq >= 0.0) || (hp >= 0.0 && hq <= 0.0)) {
        let x = p + (q - p) * (hp / (hp - hq));
        let side = |u: &V64, w: &V64| n.dot(&(w - u).cross(&(x - u))) >= 0.0;
        if side(a, b) && side(b, c) && side(c, a) {
            return None;
        }
    }
    let ends = [p, q].into_iter().filter_map(|x| closest_point_triangle_f64(x, v).map(|y| (*x, y)));
    let edges = [(a, b), (b, c), (c, a)].into_iter().map(|(e0, e1)| closest_points_segment_segment_f64(p, q, e0, e1));
    closest_of(ends.chain(edges))
}

/// The closest pair `(on the segment, on the box)` of the segment `[p, q]`
/// and the solid box `[-h, h]` (box frame), in f64; `None` when the segment
/// meets the box.
///
/// Meeting: the slab intervals of the segment's parameter have a common
/// point in `[0, 1]`. Otherwise the least of the endpoints against the box
/// (clamped to it) and the segment against each of the twelve edges: at a
/// closest pair with the segment's point inside it and the box's inside a
/// face, the gap is normal to both, so sliding the pair along the segment
/// keeps the distance until an endpoint or an edge is reached.
pub(crate) fn closest_points_segment_box_f64(p: &V64, q: &V64, h: &V64) -> Option<(V64, V64)> {
    let d = q - p;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for i in 0..3 {
        if d[i] == 0.0 {
            if p[i].abs() > h[i] {
                t0 = f64::INFINITY;
            }
        } else {
            let (u, w) = ((-h[i] - p[i]) / d[i], (h[i] - p[i]) / d[i]);
            t0 = t0.max(u.min(w));
            t1 = t1.min(u.max(w));
        }
    }
    if t0 <= t1 {
        return None;
    }
    let ends = [p, q].into_iter().map(|x| (*x, x.zip_map(h, |x, h| x.clamp(-h, h))));
    // The twelve edges: along axis `i`, at the corners `(±h[j], ±h[k])`.
    let edges = (0..3).flat_map(|i| {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)].map(move |(sj, sk)| {
            let mut e0 = V64::zeros();
            e0[j] = sj * h[j];
            e0[k] = sk * h[k];
            let mut e1 = e0;
            e0[i] = -h[i];
            e1[i] = h[i];
            closest_points_segment_segment_f64(p, q, &e0, &e1)
        })
    });
    closest_of(ends.chain(edges))
}

/// The pair `(s, t)` of least `|t - s|` among `pairs` (the first of equals).
fn closest_of(pairs: impl Iterator<Item = (V64, V64)>) -> Option<(V64, V64)> {
    pairs.min_by(|x, y| (x.1 - x.0).norm_squared().total_cmp(&(y.1 - y.0).norm_squared()))
}
