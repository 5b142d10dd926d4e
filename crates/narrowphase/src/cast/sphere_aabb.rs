//! Swept sphere against axis-aligned box: the exact Minkowski-sum method.

use super::ray_capsule::ray_capsule_toi_wide;
use super::sweep::{motion_is_finite, SweepHit};
use crate::math::{Point, Real, UnitVector, Vector};
use crate::shape::{Aabb, Sphere};
use nalgebra::Vector3;

/// An f64 vector: the box kernel's positions and directions.
pub(crate) type Wide = Vector3<f64>;

/// A sweep result in the frame of the box kernel: `toi`, the contact point on
/// the box, the unit outward normal.
pub(crate) type LocalSweep = (f64, Wide, Wide);

/// A sphere of radius `r` whose centre moves `o -> o + m` (`toi` in
/// `[0, 1]`) against the solid box `[lo, hi]`, all in the box's frame.
///
/// In f64, from the f32 inputs taken exactly (the oriented box's frame change
/// too, see `cast_sphere_obb`): the slab times `(lo - r - o) / m` and the edge
/// quadratics subtract coordinates up to the box's offset and compare
/// distances of the sphere's size, which in f32 cost `~eps (|o| + r)`: 1e-3
/// at 1e4, a tenth of a 0.01 motion. In f64 the contact is exact to far
/// below the motion's length for any size, offset and motion, at the cost of
/// f64 divisions and square roots (scalar code either way).
///
/// Ericson, Real-Time Collision Detection, 5.5.7: the sphere touches the
/// box when its centre enters the Minkowski sum of box and ball, the box
/// rounded by `r`. That shape lies inside the box grown by `r` on every side
/// (the expanded box `E`), and differs from it only near the edges and
/// corners. So:
/// 1. cast the centre's ray against `E` (slab test); a miss is a miss;
/// 2. classify the entry point `p` by the box's Voronoi regions, counting the
///    axes on which `p` lies outside `[lo, hi]`:
///    - face region (one axis): `p` is on the rounded box; it is the answer;
///    - edge region (two axes): the rounded box there is the edge's capsule,
///      and a ray that enters `E` there either hits that capsule or misses
///      the rounded box, so cast against the capsule;
///    - vertex region (three axes): cast against the capsules of the three
///      edges meeting at the vertex (each contains the vertex's ball); the
///      earliest hit wins.
///
/// Once `toi` is known, the contact point is the box point nearest the
/// centre at `toi` and the normal points from it to the centre (see
/// `contact_at`).
///
/// Before that, a start inside or touching the rounded box (the clamped
/// point within `r`) returns `toi = 0`: the point is the box point nearest
/// the centre, the normal from it to the centre; a centre inside the box
/// itself reports its nearest face (least penetration) and its projection
/// there.
///
/// Rounding guard: if the entry point is classified in an edge or vertex
/// region only by rounding (it lies outside the face region by no more than
/// the rounding of its coordinates) and the capsules miss, the face answer
/// is kept; this matters for a zero or tiny `r`, where the capsules are thin.
pub(crate) fn sweep_sphere_box(o: &Wide, m: &Wide, r: f64, lo: &Wide, hi: &Wide) -> Option<LocalSweep> {
    let q = o.sup(lo).inf(hi);
    let e = o - q;
    let dist2 = e.norm_squared();
    if dist2 <= r * r {
        if dist2 > 0.0 {
            return Some((0.0, q, e / dist2.sqrt()));
        }
        let (point, normal) = nearest_face(o, lo, hi);
        return Some((0.0, point, normal));
    }
    // A motion whose f32 square underflows is no motion (see `cast::sweep`).
    if m.norm_squared() < f64::from(Real::MIN_POSITIVE) {
        return None;
    }
    let rv = Wide::repeat(r);
    let (t, axis) = slab_enter(o, m, &(lo - rv), &(hi + rv))?;
    // The entry point, put exactly on the plane it entered through: for a
    // start ~1e14 box sizes away, `o + t m` cancels to the wrong side of it.
    let mut p = o + m * t;
    if axis < 3 {
        p[axis] = if m[axis].is_sign_negative() { hi[axis] + r } else { lo[axis] - r };
    }
    // Per axis: -1 below lo, +1 above hi, 0 within.
    let mut side = [0i8; 3];
    let mut count = 0;
    for i in 0..3 {
        side[i] = if p[i] < lo[i] {
            -1
        } else if p[i] > hi[i] {
            1
        } else {
            0
        };
        count += (side[i] != 0) as usize;
    }
    let corner = Wide::from_fn(|i, _| if side[i] < 0 { lo[i] } else { hi[i] });
    let capsule_hit = match count {
        0 | 1 => None,
        2 => {
            // The edge runs along the one axis where p is within the box.
            let j = side.iter().position(|&s| s == 0).unwrap_or(0);
            let (mut a, mut b) = (corner, corner);
            a[j] = lo[j];
            b[j] = hi[j];
            edge_toi(o, m, r, &a, &b)
        }
        _ => (0..3)
            .filter_map(|j| {
                let mut other = corner;
                other[j] = if side[j] < 0 { hi[j] } else { lo[j] };
                edge_toi(o, m, r, &corner, &other)
            })
            .min_by(|x, y| x.0.total_cmp(&y.0)),
    };
    let (toi, fallback) = match capsule_hit {
        Some(hit) => hit,
        None if count >= 2 => {
            // Rounding guard (see above): how far p lies outside the face region.
            let excess = (0..3).map(|i| (lo[i] - p[i]).max(p[i] - hi[i])).fold(0.0, f64::max);
            let scale = o.amax() + m.amax() + lo.amax() + hi.amax() + r;
            if excess > 8.0 * f64::EPSILON * scale {
                return None;
            }
            (t, face_normal(axis, &side, m))
        }
        None => (t, face_normal(axis, &side, m)),
    };
    Some(contact_at(o, m, toi, r, lo, hi, &fallback))
}

/// The contact geometry once `toi` is known: the box point nearest the
/// centre `o + toi m` (clamped per axis) and the direction from it to the
/// centre. Taking the nearest point, rather than the feature that produced
/// `toi`, matters where features tie: the capsules of two edges and the ball
/// of their shared vertex can give the same `f32` toi while the contact
/// point slides along an edge. When the centre is not where the contact puts
/// it, `r` from the box (by rounding: `|centre - point|` outside
/// `(r / 2, 3 r / 2)`, as with `r = 0`, or a start ~1e14 radii away whose
/// `o + toi m` cancels), the feature's normal `fallback` is used.
#[inline]
fn contact_at(o: &Wide, m: &Wide, toi: f64, r: f64, lo: &Wide, hi: &Wide, fallback: &Wide) -> LocalSweep {
    let centre = o + m * toi;
    let point = centre.sup(lo).inf(hi);
    let e = centre - point;
    let len = e.norm();
    let normal = if len > 0.5 * r && len < 1.5 * r { e / len } else { *fallback };
    (toi, point, normal)
}

/// The first hit (`toi <= 1`) on the capsule of edge `[a, b]` with radius
/// `r`, with the capsule's outward normal there (unit; `-m / |m|` if the
/// capsule is a line hit exactly, `r = 0`).
#[inline]
fn edge_toi(o: &Wide, m: &Wide, r: f64, a: &Wide, b: &Wide) -> Option<(f64, Wide)> {
    let (toi, n) = ray_capsule_toi_wide(&(o - a), m, &(b - a), r)?;
    if toi > 1.0 {
        return None;
    }
    let len = n.norm();
    Some((toi, if len > 0.0 { n / len } else { -m.normalize() }))
}

/// The outward normal of the face entered: the one axis the entry point lies
/// outside of, or else the slab's entry axis (or, with none, the axis the
/// motion is largest on), facing against the motion.
fn face_normal(axis: usize, side: &[i8; 3], m: &Wide) -> Wide {
    let mut normal = Wide::zeros();
    if side.iter().filter(|&&s| s != 0).count() == 1 {
        let k = side.iter().position(|&s| s != 0).unwrap_or(0);
        normal[k] = f64::from(side[k]);
        return normal;
    }
    let k = if axis < 3 { axis } else { m.iamax() };
    normal[k] = if m[k] < 0.0 { 1.0 } else { -1.0 };
    normal
}

/// For a point inside the box: the face it is nearest (least penetration),
/// as (projection of `o` on that face, outward normal).
fn nearest_face(o: &Wide, lo: &Wide, hi: &Wide) -> (Wide, Wide) {
    let mut best = (f64::INFINITY, 0, 1.0);
    for i in 0..3 {
        let (below, above) = (o[i] - lo[i], hi[i] - o[i]);
        if below < best.0 {
            best = (below, i, -1.0);
        }
        if above < best.0 {
            best = (above, i, 1.0);
        }
    }
    let (_, k, sign) = best;
    let mut point = *o;
    point[k] = if sign < 0.0 { lo[k] } else { hi[k] };
    let mut normal = Wide::zeros();
    normal[k] = sign;
    (point, normal)
}

/// Entry of `o + t m`, `t` in `[0, 1]`, into the closed box `[lo, hi]`:
/// `(t_enter, axis)`, `axis = 3` when `o` is inside (no face crossed), `None`
/// on a miss. The slab rules of `ray_aabb::slab` in f64: sign-selected near
/// and far planes, a zero component divides by `±0` (an empty or unbounded
/// slab, or `0 * inf = NaN` for `o` on a plane, which the running selects
/// ignore: sliding along a face hits the closed box).
#[inline]
fn slab_enter(o: &Wide, m: &Wide, lo: &Wide, hi: &Wide) -> Option<(f64, usize)> {
    let (mut t_enter, mut axis, mut t_exit) = (0.0f64, 3, 1.0f64);
    for i in 0..3 {
        let inv = 1.0 / m[i];
        let (near, far) = if inv.is_sign_negative() { (hi[i], lo[i]) } else { (lo[i], hi[i]) };
        let t_near = (near - o[i]) * inv;
        let t_far = (far - o[i]) * inv;
        if t_near >= t_enter {
            axis = i;
        }
        t_enter = if t_near > t_enter { t_near } else { t_enter };
        t_exit = if t_far < t_exit { t_far } else { t_exit };
    }
    (t_enter <= t_exit).then_some((t_enter, axis))
}

/// First contact of a sphere moving by `motion` with a static axis-aligned box.
///
/// Exact: the Minkowski-sum method of Ericson, Real-Time Collision Detection,
/// 5.5.7 (the centre's ray against the box grown by the radius, refined to
/// an edge's capsule or a vertex's three edge capsules when the entry point
/// lies in an edge or vertex region), computed in world coordinates, so no
/// iteration and no error growing with the box's size; in f64 (see
/// `sweep_sphere_box`), so `toi` is exact to its f32 rounding for any size,
/// offset and motion length.
///
/// The point is on the box, the normal is the box's outward normal there
/// (a face normal, or radial from an edge or vertex). Degenerate cases:
/// a sphere overlapping or touching the box at the start is
/// [`Penetrating`](crate::SweepStatus::Penetrating) with the box point
/// nearest its centre (a centre inside the box reports the nearest face);
/// zero motion is the static overlap test; a zero radius is a ray cast
/// (`toi` and normal of [`cast_ray_aabb`](crate::cast_ray_aabb) on the ray
/// `c + toi * motion`, `max_toi = 1`); motion parallel to a face, or
/// sliding in the plane of the grown face, is exact (no epsilon).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_sphere_aabb, Aabb, Point, Sphere, Vector};
/// let b = Aabb::new(Point::new(4.0, -1.0, -1.0), Point::new(6.0, 1.0, 1.0));
/// let s = Sphere::new(Point::origin(), 1.0);
/// let hit = cast_sphere_aabb(&s, &Vector::new(10.0, 0.0, 0.0), &b).unwrap();
/// assert!((hit.toi - 0.3).abs() < 1e-6);
/// assert!((hit.point - Point::new(4.0, 0.0, 0.0)).norm() < 1e-5);
/// assert_eq!(hit.normal.into_inner(), -Vector::x());
/// ```
#[inline]
#[must_use]
pub fn cast_sphere_aabb(sphere: &Sphere, motion: &Vector, aabb: &Aabb) -> Option<SweepHit> {
    if !motion_is_finite(motion) {
        return None;
    }
    let wide = |v: &Vector| v.cast::<f64>();
    let (toi, point, normal) = sweep_sphere_box(
        &wide(&sphere.center().coords),
        &wide(motion),
        f64::from(sphere.radius()),
        &wide(&aabb.min().coords),
        &wide(&aabb.max().coords),
    )?;
    Some(SweepHit::new(
        toi as Real,
        Point::from(point.cast::<Real>()),
        UnitVector::new_unchecked(normal.cast::<Real>()),
    ))
}
