//! Linear shape casts of two convex shapes by conservative advancement.

use super::distance::{direction, gjk, gjk_from, start_vertex, touch_band, Ending, Miss, Start};
use super::simplex::Simplex;
use super::SupportMap;
use crate::cast::SweepHit;
use crate::math::{normalize_any, Point, Real, UnitVector, Vector};

/// The most distance queries a cast runs.
const MAX_CAST_ITERATIONS: u32 = 64;

/// A cast stops when an advance is below this fraction of the motion: the
/// advances shrink geometrically near the contact, so the time of impact is
/// then within about as much (see [`cast_shape_convex`]).
const CAST_TOL: f64 = 1e-7;

/// How far short of the predicted contact each advance stops, in units of
/// the motion's length: above GJK's rounding of the distance (a few f32
/// roundings of the coordinates), far below the accuracy of the time of
/// impact (the last advance, within twice this, goes the whole way).
const CAST_MARGIN: f64 = 1e-6;

/// A shape moved by `offset`.
struct Moved<'s, S: ?Sized> {
    shape: &'s S,
    offset: Vector,
}

impl<S: SupportMap + ?Sized> SupportMap for Moved<'_, S> {
    #[inline]
    fn support(&self, dir: &Vector) -> Point {
        self.shape.support(dir) + self.offset
    }
    #[inline]
    fn core_support(&self, dir: &Vector) -> Point {
        self.shape.core_support(dir) + self.offset
    }
    #[inline]
    fn core_radius(&self) -> Real {
        self.shape.core_radius()
    }
    #[inline]
    fn core_center(&self) -> Point {
        self.shape.core_center() + self.offset
    }
}

/// The first contact of convex shape A moving by `motion_a` (a translation,
/// `toi` in `[0, 1]` moving it by `toi * motion_a`) with the static convex
/// shape B, or `None` when they do not touch during the motion.
///
/// Conservative advancement (Mirtich, 1996; for a pure translation the
/// distance is a convex function of `toi`): at each step GJK gives a lower
/// bound `d` on the distance of the shapes' cores (its best support plane)
/// and the unit direction `n` from A to B; A cannot touch B before
/// advancing by `(d - r) / (motion . n)` (the radii `r` taken off), so
/// `toi` advances by that less `1e-6 |motion|` (GJK's rounding would
/// otherwise land some advances just inside B, and each such landing costs
/// a bisection back), the whole of it once the gap is within
/// `2e-6 |motion|`, or until an advance is below `1e-7`. A motion that does
/// not approach B (`motion . n <= 0`) ends the cast: by convexity the shapes
/// only part. Any GJK iteration's support plane that keeps the shapes more
/// than `r` apart over the rest of the motion ends the cast there (a miss
/// proved without converging). The first step is also the test for a start
/// in contact. Each
/// later step's GJK runs on A translated by `toi * motion` (added in f64 to
/// the Minkowski vertices, A's support points unchanged) and starts from
/// the previous step's final simplex, its vertices translated the same way:
/// the closest features change little between steps, and a support point
/// that is already a vertex ends the run.
///
/// - The result is a [`SweepHit`] as for the swept spheres: `point` on B's
///   surface where they touch, `normal` out of B towards A (the opposite of
///   the contact normal from A to B).
/// - Starting in contact (within the touching band of
///   [`intersects_convex`](crate::intersects_convex)): `toi = 0`,
///   [`SweepStatus::Penetrating`](crate::SweepStatus::Penetrating), with the
///   normal of [`contact_convex`](crate::contact_convex).
/// - A zero motion: the static contact test (a penetrating hit or `None`);
///   a motion with a NaN or infinite component: `None`.
/// - The time of impact is within about `1e-7` (the stop) plus GJK's
///   accuracy over the approach speed; at most 64 steps run (a
///   grazing motion that does not reach the stop by then reports the last
///   one).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_shape_convex, Obb, Point, Rotation, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::repeat(1.0));
/// let b = Obb::new(Point::new(5.0, 0.5, 0.0), Rotation::identity(), Vector::repeat(1.0));
/// let hit = cast_shape_convex(&a, &Vector::new(6.0, 0.0, 0.0), &b).unwrap();
/// assert!((hit.toi - 0.5).abs() < 1e-5);
/// assert!((hit.normal.x + 1.0).abs() < 1e-5);
/// ```
#[must_use]
pub fn cast_shape_convex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    motion_a: &Vector,
    b: &B,
) -> Option<SweepHit> {
    if !motion_a.iter().all(|x| x.is_finite()) {
        return None;
    }
    let starting = || super::contact_convex(a, b, 0.0).map(|c| SweepHit::new(0.0, c.point_b, -c.normal));
    let motion = motion_a.cast::<f64>();
    let len = motion.norm();
    if len == 0.0 {
        return starting();
    }
    let r = f64::from(a.core_radius()) + f64::from(b.core_radius());
    let mut toi = 0.0f64;
    let mut last_apart = 0.0f64;
    let margin = CAST_MARGIN * len;
    let mut warm = None;
    // A's displacement `toi * motion`, in f64 (see `gjk_from`'s `shift`).
    let mut shift = nalgebra::Vector3::<f64>::zeros();
    for step in 0..MAX_CAST_ITERATIONS {
        // A support plane that keeps the shapes apart over the rest of the
        // motion ends the cast early (see `Miss`).
        let miss = Miss { motion: motion * (1.0 - toi), radius: r };
        let g = match warm {
            Some(simplex) => gjk_from(a, b, f64::INFINITY, simplex, Some(&shift), Some(&miss)),
            None => {
                let first = Simplex::new(start_vertex(a, b, Start::Centers));
                gjk_from(a, b, f64::INFINITY, first, None, Some(&miss))
            }
        };
        if g.ending == Ending::Beyond {
            return None;
        }
        let core = g.v.norm();
        // The first step is the static test: shapes touching at the start
        // (within `intersects_convex`'s band) get the static contact.
        if step == 0 && (g.ending == Ending::Overlap || core <= r + touch_band(&g, r)) {
            if let Some(hit) = starting() {
                return Some(hit);
            }
        }
        // From A to B: `-v`; the hit point on B's surface (taken only at
        // the step that reports it).
        let hit = |toi: f64| {
            let (_, pb) = g.simplex.witnesses();
            let n = normalize_any(&direction(&-g.v)).unwrap_or_else(|| against(motion_a));
            let point = pb - n.into_inner() * b.core_radius();
            Some(SweepHit::new(toi.max(f64::from(Real::MIN_POSITIVE)) as Real, point, -n))
        };
        if g.ending == Ending::Overlap || core <= r {
            if toi > last_apart {
                // The last advance went past the contact (the direction of
                // an unconverged closest pair is off by rounding): bisect
                // back between the last pose apart and this one.
                return Some(refine(a, &motion, b, last_apart, toi));
            }
            return hit(toi);
        }
        last_apart = toi;
        let speed = motion.dot(&(-g.v / core));
        if speed <= 0.0 {
            return None;
        }
        // Each advance stops `margin` short of the predicted contact, so
        // that rounding in GJK's distance does not carry it into overlap
        // (which costs a bisection); within `2 margin` the last advance
        // goes the whole way. Both are conservative: the distance is convex
        // in `toi` with slope `-speed` here, so the contact is no earlier.
        let gap = (g.lower() - r).max(0.0);
        let last = gap <= 2.0 * margin;
        let advance = if last { gap } else { gap - margin } / speed;
        toi += advance;
        if toi > 1.0 {
            return None;
        }
        if last || advance <= CAST_TOL {
            return hit(toi);
        }
        shift = motion * toi;
        warm = Some(g.simplex.shifted(&shift));
    }
    None
}

/// The first contact between `lo` (apart) and `hi` (in contact) by
/// bisection on GJK's overlap test, to [`CAST_TOL`]; the point and normal
/// from the closest pair at the last pose apart.
fn refine<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    motion: &nalgebra::Vector3<f64>,
    b: &B,
    mut lo: f64,
    mut hi: f64,
) -> SweepHit {
    let r = f64::from(a.core_radius()) + f64::from(b.core_radius());
    let at = |t: f64| {
        let moved = Moved { shape: a, offset: (motion * t).cast::<Real>() };
        gjk(&moved, b, f64::INFINITY, Start::Centers)
    };
    let mut apart = at(lo);
    while hi - lo > CAST_TOL {
        let mid = 0.5 * (lo + hi);
        let g = at(mid);
        if g.ending == Ending::Overlap || g.v.norm() <= r {
            hi = mid;
        } else {
            (lo, apart) = (mid, g);
        }
    }
    let (_, pb) = apart.simplex.witnesses();
    let n = normalize_any(&direction(&-apart.v)).unwrap_or_else(|| against(&motion.cast::<Real>()));
    let point = pb - n.into_inner() * b.core_radius();
    SweepHit::new(hi.max(f64::from(Real::MIN_POSITIVE)) as Real, point, -n)
}

/// The unit direction against the motion (`+z` for none).
fn against(motion: &Vector) -> UnitVector {
    normalize_any(&-motion).unwrap_or_else(|| UnitVector::new_unchecked(Vector::z()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Isometry, Rotation};
    use crate::shape::{ConvexHull, PlacedHull};
    use crate::{distance_convex, intersects_convex};

    /// A seeded generator of values in `[-1, 1)`.
    fn lcg(seed: &mut u64) -> Real {
        *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((*seed >> 40) as Real / (1u64 << 24) as Real) * 2.0 - 1.0
    }

    #[test]
    fn a_miss_proved_early_is_a_miss_and_hits_touch() {
        // Random hulls cast at each other, about half of them hitting: a
        // miss (possibly ended by a support plane before GJK converged)
        // keeps the shapes apart at every sampled toi, and a hit leaves
        // them apart just before it and touching at it.
        let mut seed = 11u64;
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..300 {
            let cloud = |seed: &mut u64, s: Real| -> Vec<Point> {
                (0..12).map(|_| Point::new(lcg(seed) * s, lcg(seed) * s, lcg(seed) * s)).collect()
            };
            let (ha, hb) = (ConvexHull::new(&cloud(&mut seed, 0.5)), ConvexHull::new(&cloud(&mut seed, 0.8)));
            let v = |seed: &mut u64| Vector::new(lcg(seed), lcg(seed), lcg(seed));
            let pa = Isometry::from_parts((v(&mut seed) * 2.0).into(), Rotation::new(v(&mut seed) * 3.0));
            let pb = Isometry::from_parts((v(&mut seed) * 2.0).into(), Rotation::new(v(&mut seed) * 3.0));
            let (a, b) = (PlacedHull::new(&ha, &pa), PlacedHull::new(&hb, &pb));
            if intersects_convex(&a, &b) {
                continue;
            }
            let towards = b.core_center() - a.core_center();
            let motion = towards * (1.0 + 0.5 * lcg(&mut seed)) + v(&mut seed) * 0.8;
            let moved = |t: Real| Moved { shape: &a, offset: motion * t };
            match cast_shape_convex(&a, &motion, &b) {
                None => {
                    misses += 1;
                    for k in 0..=256 {
                        let t = k as Real / 256.0;
                        assert!(distance_convex(&moved(t), &b).distance > 0.0, "missed contact at {t}");
                    }
                }
                Some(hit) => {
                    hits += 1;
                    assert!(hit.toi > 0.0 && hit.toi <= 1.0);
                    assert!(distance_convex(&moved(hit.toi), &b).distance < 1e-4);
                    if hit.toi > 1e-3 {
                        assert!(!intersects_convex(&moved(hit.toi - 1e-3), &b));
                    }
                }
            }
        }
        assert!(hits > 60 && misses > 60, "{hits} hits, {misses} misses");
    }
}
