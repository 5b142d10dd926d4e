//! Contact between a capsule and an oriented box.

use super::feature::{box_support, segment_support};
use super::near_band::{from_closest_pair, Near, NEAR};
use super::Contact;
use crate::closest::{closest_points_segment_box_f64, closest_points_segment_box_local};
use crate::distance::{from_cores, ShapeDistance};
use crate::math::{rotation_matrix_f64, within_distance, Point, Real, UnitVector, Vector};
use crate::shape::{Capsule, Obb};

/// The contact between capsule A and box B, `None` when they are apart.
///
/// In the box frame, with the capsule's core segment `[p, q]`:
/// - segment outside the box: the exact closest points `s` (segment) and `x`
///   (box) give `normal = (x - s) / |x - s|`, `depth = r - |x - s|`;
/// - within `1e-4` of the shapes' size `|q - p| + |h|`, where the
///   direction of the f32 `x - s` is unreliable: the same pair in f64 (the
///   box frame built in f64 from the quaternion, the pair within ~`1e-16` of
///   the size), with the same normal and depth, or `None` when it is farther
///   apart than `r`;
/// - segment touching (within `1e-9` of the size, in f64) or inside the
///   box: the capsule is the segment grown by
///   `r`, so its penetration is the segment's plus `r` along the same axis. The
///   segment-box penetration is the least overlap over the separating axes of
///   a box and a segment: the 3 box normals and the 3 cross products of the
///   segment with the box axes (near-parallel crosses skipped). On axis `n`,
///   overlap = `sum h_i |n_i| + |d . n| / 2 - |m . n|`, with `m` the segment's
///   midpoint and `d = q - p`.
///
/// Invariant: apart cores take the closest pair, never the axes. For apart
/// cores the best axis separates them by at most their gap, and by exactly
/// the gap only when the closest features are an endpoint over a face or
/// the segment across an edge; beside an edge or a vertex, the closest
/// direction is none of the axes and each separates by less, which as a
/// depth is too deep by up to the gap. The axes are used only when that gap
/// is below `1e-9` of the size.
///
/// Witness points: `point_b` on the box and `point_a = s + r normal` on the
/// capsule, `s` on the core segment, with `point_a - point_b = depth *
/// normal`. Apart, `(s, point_b)` are the closest points; on a separating
/// axis, a closest pair of the segment's support feature along the normal
/// (an endpoint, or the segment lying normal to it) and the box's against
/// it (a vertex, edge or face), which lie `overlap` apart along the normal
/// (see `feature.rs`), with `point_b = point_a - depth * normal`: on the
/// box when the cores cross, within the touching gap (`1e-9` of the
/// shapes' size) of it when they touch.
#[must_use]
pub fn contact_capsule_obb(capsule: &Capsule, obb: &Obb) -> Option<Contact> {
    contact_or_distance(capsule, obb).ok()
}

/// [`contact_capsule_obb`], or when the shapes are apart, their distance
/// where the contact test found it: for a segment outside the box farther
/// than the radius, the closest pair it took is the one
/// [`distance_capsule_obb`](crate::distance_capsule_obb) finds (the same
/// call, in the same box frame), so `Err(Some(d))` is that function's
/// answer, bit for bit. `Err(None)` when the near band found them apart
/// (the caller computes the distance).
pub(super) fn contact_or_distance(capsule: &Capsule, obb: &Obb) -> Result<Contact, Option<ShapeDistance>> {
    let r = capsule.radius();
    let p = obb.to_local(capsule.a());
    let q = obb.to_local(capsule.b());
    let h = obb.half_extents();
    // The branch is decided by an exact slab test, not by `|x - s| > 0`: the
    // closest points of a segment crossing the box can differ by rounding.
    // Within `NEAR` of the shapes' size the direction of `x - s` is not
    // reliable in f32, and the pair is taken again in f64; only a segment
    // touching the box there takes the separating axes.
    // (normal, depth, core point s, box point x), box frame.
    let sat = |p: &Vector, q: &Vector| {
        let (n, overlap) = min_overlap_axis(p, q, h);
        let (p1, q1) = segment_support(p, q, &n);
        let (centre, half) = box_support(h, &-n);
        let (s, _) = closest_points_segment_box_local(&(p1 - centre), &(q1 - centre), &half);
        let (s, depth) = (s + centre, (overlap + r).max(0.0));
        // The box witness `s + (r - depth) n` (= `s - overlap n`), so that
        // `point_a - point_b = depth n` exactly. When the cores cross, `s`
        // (on the segment's support feature, closest to the box's) lies
        // `overlap` beyond the box's support plane along `n` and the point
        // is on the box. When they are apart by at most `TOUCH` of the
        // shapes' size (below), the axis is the best of the six, not the
        // closest points' direction: the point may then be off the box by up
        // to that gap (B32).
        (n, depth, s, s + n * (r - depth))
    };
    let (normal_local, depth, s, x) = if segment_meets_box(&p, &q, h) {
        sat(&p, &q)
    } else {
        let (s, x) = closest_points_segment_box_local(&p, &q, h);
        let gap = x - s;
        let dist2 = gap.norm_squared();
        if !within_distance(&gap, r) {
            let d = from_cores(Point::from(s), r, Point::from(x), 0.0);
            let (point_a, point_b) = (obb.to_world(&d.point_a.coords), obb.to_world(&d.point_b.coords));
            return Err(Some(ShapeDistance { point_a, point_b, ..d }));
        }
        let scale = (q - p).norm() + h.norm();
        if dist2 > (NEAR * scale) * (NEAR * scale) {
            let dist = dist2.sqrt();
            (gap / dist, r - dist, s, x)
        } else {
            match near_contact_f64(capsule, obb, scale) {
                Near::Apart => return Err(None),
                Near::Contact(c) => return Ok(c),
                Near::Touching => sat(&p, &q),
            }
        }
    };
    let normal = UnitVector::new_normalize(obb.axes() * normal_local);
    let point_a = obb.to_world(&(s + normal_local * r));
    Ok(Contact { point_a, point_b: obb.to_world(&x), normal, depth })
}

/// The near-band contact (see [`contact_capsule_obb`]): in the box frame
/// built in f64 (the endpoints less the centre, then rotated by the matrix
/// of the box's quaternion), the closest pair `(s, x)` of the segment and
/// the box, then `normal = (x - s) / |x - s|`, `depth = r - |x - s|`, each
/// taken back to the world and rounded once to f32.
#[cold]
#[inline(never)]
fn near_contact_f64(capsule: &Capsule, obb: &Obb, scale: Real) -> Near {
    let axes = rotation_matrix_f64(obb.rotation());
    let centre = obb.center().coords.cast::<f64>();
    let local = |x: &Point| axes.tr_mul(&(x.coords.cast::<f64>() - centre));
    let h = obb.half_extents().cast::<f64>();
    let pair = closest_points_segment_box_f64(&local(capsule.a()), &local(capsule.b()), &h);
    from_closest_pair(pair, f64::from(capsule.radius()), scale, |x| centre + axes * x, |n| axes * n)
}

/// True when the segment `[p, q]` meets the closed box `[-h, h]`: the slab
/// intervals of `t` in `[0, 1]` on the three axes have a common point.
fn segment_meets_box(p: &Vector, q: &Vector, h: &Vector) -> bool {
    let d = q - p;
    let (mut t0, mut t1): (Real, Real) = (0.0, 1.0);
    for i in 0..3 {
        if d[i] == 0.0 {
            if p[i].abs() > h[i] {
                return false;
            }
        } else {
            let (a, b) = ((-h[i] - p[i]) / d[i], (h[i] - p[i]) / d[i]);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    t0 <= t1
}

/// The axis of least overlap between the segment `[p, q]` and the box
/// `[-h, h]` (both in the box frame), oriented from the segment towards the
/// box centre, with its overlap (negative by the gap when the axis separates).
fn min_overlap_axis(p: &Vector, q: &Vector, h: &Vector) -> (Vector, Real) {
    let d = q - p;
    let m = (p + q) * 0.5;
    let mut best = (Vector::x(), Real::INFINITY);
    let mut consider = |n: Vector| {
        let overlap = h.x * n.x.abs() + h.y * n.y.abs() + h.z * n.z.abs() + 0.5 * d.dot(&n).abs() - m.dot(&n).abs();
        if overlap < best.1 {
            // Orient from A (segment) to B (box centre at the origin).
            best = (if m.dot(&n) > 0.0 { -n } else { n }, overlap);
        }
    };
    for i in 0..3 {
        let mut e = Vector::zeros();
        e[i] = 1.0;
        consider(e);
    }
    let len2 = d.norm_squared();
    for i in 0..3 {
        let mut e = Vector::zeros();
        e[i] = 1.0;
        let c = d.cross(&e);
        // Skip crosses of near-parallel directions: their direction is noise.
        if c.norm_squared() > 1e-6 * len2 {
            consider(c.normalize());
        }
    }
    best
}
