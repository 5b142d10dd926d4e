//! GJK: the distance between two convex shapes given by their support maps.

use super::simplex::{Simplex, Vertex, V64};
use super::SupportMap;
use crate::distance::ShapeDistance;
use crate::math::{Real, Vector};

/// The most GJK iterations (support points) before it returns its best
/// simplex. Polytope cores converge in a handful (each iteration adds a new
/// vertex of the Minkowski difference and strictly shortens `v`); only a
/// curved core without a rounded form comes near the cap.
pub(super) const MAX_GJK_ITERATIONS: u32 = 64;

/// Relative stopping tolerance: GJK stops when `|v|^2 - v . w`, the gap
/// between the squared distance of the simplex and its lower bound, is below
/// this fraction of `|v|^2` (the distance is then within about half of it,
/// relatively).
const REL_TOL: f64 = 1e-6;

/// Rounding of the f32 support points, in units of the Minkowski vertices'
/// largest norm: within `TOUCH * eps * scale` of the origin the difference
/// is taken to hold it (the shapes touch).
const TOUCH: f64 = 2.0;

/// f32's epsilon in f64: the rounding of the support points.
const EPS: f64 = Real::EPSILON as f64;

/// Where GJK starts.
#[derive(Clone, Copy, Debug)]
pub(super) enum Start {
    /// At the support point along the centres' offset from A to B
    /// (distance, intersection).
    Centers,
    /// At the support point along `+x` (EPA's input).
    Support,
}

/// How a GJK run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// The cores overlap or touch: the simplex holds the origin (a full
    /// tetrahedron, or `v` within rounding of it).
    Overlap,
    /// The cores are apart: `v` is the closest point of their difference.
    Apart,
    /// A separating plane showed the cores more than the requested distance
    /// apart (or, for a cast's [`Miss`] test, apart over the whole motion);
    /// `v` is not converged.
    Beyond,
}

/// The result of GJK on the cores of A and B.
#[derive(Clone, Copy, Debug)]
pub(super) struct Gjk {
    /// The final simplex (its barycentric coordinates give `v` and the
    /// witness points).
    pub simplex: Simplex,
    /// The closest point of the cores' difference `A - B` to the origin
    /// (zero-ish when they overlap): `point_a - point_b`.
    pub v: V64,
    /// How it ended.
    pub ending: Ending,
    /// Support points taken.
    pub iterations: u32,
    /// The largest norm of a Minkowski vertex seen: the scale of the rounding.
    pub scale: f64,
    /// The best support plane as `(v . w, |v|^2)` (see [`Gjk::lower`]);
    /// `(0, 1)` when none was positive, the cores overlap, or the run was
    /// not a cast's (tracked only with a [`Miss`] test).
    plane: (f64, f64),
}

impl Gjk {
    /// A lower bound on the cores' distance, `<= |v|`: the best support
    /// plane's, `max v . w / |v|` over the iterations (every point `x` of
    /// the difference has `v . x >= v . w`, the support point minimising
    /// it), 0 when they overlap. Where GJK stopped on its relative
    /// tolerance, `|v|` may exceed the distance by that much; this never
    /// does (to the support points' rounding).
    ///
    /// Computed from the best plane when asked, and only for a run with a
    /// [`Miss`] test (a cast's step, its one reader): the other queries do
    /// not track the plane, and get 0 here.
    #[inline]
    pub fn lower(&self) -> f64 {
        if self.ending == Ending::Overlap {
            return 0.0;
        }
        let (vw, d2) = self.plane;
        (vw / d2.sqrt()).min(self.v.norm())
    }
}

/// The support point of the cores' difference along `d`: `s_A(d) - s_B(-d)`.
/// Inlined into the loop, so that `w` stays in registers.
#[inline(always)]
pub(super) fn support_vertex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B, d: &Vector) -> Vertex {
    let pa = a.core_support(d);
    let pb = b.core_support(&-d);
    Vertex { w: pa.coords.cast::<f64>() - pb.coords.cast::<f64>(), a: pa, b: pb }
}

/// GJK on the cores of A and B (Gilbert, Johnson and Keerthi 1988; van den
/// Bergen, "Collision Detection in Interactive 3D Environments", 4.3, for
/// the stopping rules): `v` is the closest point of a simplex of
/// `A - B` to the origin; the support point `w` along `-v` either shows `v`
/// converged (`|v|^2 - v . w <= REL_TOL |v|^2`, or within rounding), or is
/// added and the simplex reduced (see [`Simplex::reduce`]).
///
/// Termination: every iteration either stops or strictly shortens `v` (an
/// iteration that does not, by rounding, stops there),
/// a repeated support point stops, and at most [`MAX_GJK_ITERATIONS`] run.
/// `stop_beyond`: when a support plane proves the cores more than this apart
/// and the touching band (`v . w > (stop_beyond + TOUCH eps scale) |v|`),
/// GJK stops early with [`Ending::Beyond`] (infinity runs to convergence).
pub(super) fn gjk<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B, stop_beyond: f64, start: Start) -> Gjk {
    gjk_from(a, b, stop_beyond, Simplex::new(start_vertex(a, b, start)), None, None)
}

/// How a GJK run ended, apart from its simplex: [`Gjk`]'s other fields.
#[derive(Clone, Copy, Debug)]
struct Run {
    v: V64,
    ending: Ending,
    iterations: u32,
    scale: f64,
    plane: (f64, f64),
}

/// The vertex GJK starts from: a support point of the cores' difference
/// (EPA needs every vertex on its boundary). The centres' offset `c_B - c_A`
/// points roughly from the difference `A - B` towards the origin, so the
/// support point along it is usually near the closest one (a vertex of a
/// face or edge that faces the origin): fewer iterations than a start from
/// the centres' difference itself, an interior point that the next
/// support point merely replaces.
#[inline]
pub(super) fn start_vertex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B, start: Start) -> Vertex {
    match start {
        Start::Centers => {
            let (ca, cb) = (a.core_center(), b.core_center());
            support_vertex(a, b, &(cb - ca))
        }
        Start::Support => support_vertex(a, b, &Vector::x()),
    }
}

/// GJK's plane test ([`gjk_run`]'s `Beyond` rule) along the centres' axis,
/// before any iteration: `w = s_A(d) - s_B(-d)` is the support point of the
/// cores' difference along `d` (from A's centre to B's), so every point `x`
/// of `A - B` has `d . x <= d . w`, and the plane `x . (-d) = -d . w` proves
/// the cores at least `-d . w / |d|` apart. True when that exceeds
/// `stop_beyond` and the touching band, as GJK's own test would find it
/// with `v = -d`.
///
/// The centres' axis separates most pairs that are apart at all (two shapes
/// of similar size side by side). Its support point is the one
/// [`intersects_convex`]'s GJK starts from, so there the test costs one dot
/// product where it fails; [`contact_convex`](crate::contact_convex), whose
/// GJK starts from a support point along `+x` (EPA's input), pays two
/// support calls for it.
#[inline]
pub(super) fn beyond_along(w: &Vertex, d: &Vector, stop_beyond: f64) -> bool {
    let d = d.cast::<f64>();
    let vw = -d.dot(&w.w);
    let beyond = stop_beyond + TOUCH * EPS * w.w.norm();
    vw > 0.0 && vw * vw > beyond * beyond * d.norm_squared()
}

/// A cast's miss test inside GJK: the run stops with [`Ending::Beyond`] as
/// soon as one support plane proves that A, translated by up to `motion`,
/// stays more than `radius` (and the rounding band) from B.
///
/// With `u = v / |v|` and `w` the support point along `-v`, every point `x`
/// of `A - B` has `u . x >= u . w` (the plane's offset `p`). Translating A
/// by `s motion` translates `A - B` by the same, so no point of it comes
/// within `radius` of the origin while `p - radius - s (-u . motion) > 0`:
/// for every `s` in `[0, 1]` when the gap `p - radius` exceeds the
/// approach `-u . motion` (or the motion does not approach, and the gap is
/// positive).
#[derive(Clone, Copy, Debug)]
pub(super) struct Miss {
    /// The translation still to come.
    pub motion: V64,
    /// The cores' radii.
    pub radius: f64,
}

/// [`gjk`] from the closest point of `simplex` (which must not hold the
/// origin inside a full tetrahedron): a warm start from a nearby query's
/// final simplex (the previous step of a cast, its vertices moved with the
/// shape), whose closest features are usually the ones sought.
///
/// `shift`: A translated by this (f64) vector, added to every Minkowski
/// vertex `w = a - b + shift` while the support points `a` stay A's own.
/// A cast moves A this way: a support point of the moved A is then the
/// unmoved one exactly, so a warm simplex's vertices (see
/// [`Simplex::shifted`]) are the very points the support maps return, and
/// a repeated one is recognised as such.
#[inline]
pub(super) fn gjk_from<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    stop_beyond: f64,
    mut simplex: Simplex,
    shift: Option<&V64>,
    miss: Option<&Miss>,
) -> Gjk {
    let Run { v, ending, iterations, scale, plane } = gjk_run(a, b, stop_beyond, &mut simplex, shift, miss);
    Gjk { simplex, v, ending, iterations, scale, plane }
}

/// [`gjk_from`] on a simplex held by the caller, reduced and grown where it
/// lies: a query that reads the final simplex in place (the distance's)
/// does not copy it into a [`Gjk`].
#[inline(always)]
fn gjk_run<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    stop_beyond: f64,
    simplex: &mut Simplex,
    shift: Option<&V64>,
    miss: Option<&Miss>,
) -> Run {
    let mut scale2 = (0..simplex.len).fold(0.0f64, |m, i| m.max(simplex.vertex(i).w.norm_squared()));
    let mut iterations = 1;
    if simplex.reduce() {
        return Run { v: V64::zeros(), ending: Ending::Overlap, iterations, scale: scale2.sqrt(), plane: (0.0, 1.0) };
    }
    let mut v = simplex.point;
    let mut dist2 = v.norm_squared();
    // The best support plane so far as `(v . w, |v|^2)`, for a cast (with
    // `miss`): its offset `v . w / |v|` is taken once, at the end (planes
    // compared as `vw1^2 |v2|^2 > vw2^2 |v1|^2`, both offsets positive).
    let (mut best_vw, mut best_d2) = (0.0f64, 1.0f64);
    let ending = loop {
        if dist2 <= touch2(scale2) {
            break Ending::Overlap;
        }
        if iterations >= MAX_GJK_ITERATIONS {
            break Ending::Apart;
        }
        let mut w = support_vertex(a, b, &direction_from(&-v, dist2));
        if let Some(shift) = shift {
            w.w += shift;
        }
        iterations += 1;
        let vw = v.dot(&w.w);
        scale2 = scale2.max(w.w.norm_squared());
        if vw > 0.0 {
            if let Some(m) = miss {
                if vw * vw * best_d2 > best_vw * best_vw * dist2 {
                    (best_vw, best_d2) = (vw, dist2);
                }
                let len = dist2.sqrt();
                let plane = vw / len;
                let gap = plane - m.radius - TOUCH * EPS * scale2.sqrt();
                let approach = -m.motion.dot(&v) / len;
                if gap > 0.0 && gap > approach {
                    break Ending::Beyond;
                }
            }
        }
        // (An infinite `stop_beyond`, the distance query's, never stops.)
        if vw > 0.0 && stop_beyond < f64::INFINITY {
            let beyond = stop_beyond + TOUCH * EPS * scale2.sqrt();
            if vw * vw > beyond * beyond * dist2 {
                break Ending::Beyond;
            }
        }
        // `|v|^2 - v . w` carries the rounding of `v . w`, a few eps of
        // `|v| |w|`: converged when `gap <= REL_TOL |v|^2 + TOUCH eps |v| scale`,
        // compared squared (both sides `>= 0` past the first test).
        let gap = dist2 - vw - REL_TOL * dist2;
        let band = TOUCH * EPS;
        if gap <= 0.0 || gap * gap <= band * band * dist2 * scale2 || simplex.contains(&w.w) {
            break Ending::Apart;
        }
        simplex.push(w);
        if simplex.reduce() {
            v = V64::zeros();
            break Ending::Overlap;
        }
        let next = simplex.point;
        let next2 = next.norm_squared();
        if next2 >= dist2 || next2.is_nan() {
            // No progress: the new point is the old one to rounding (the
            // f64 solver is exact far below the support points' rounding).
            if next2.is_finite() {
                v = next;
            }
            break Ending::Apart;
        }
        (v, dist2) = (next, next2);
    };
    Run { v, ending, iterations, scale: scale2.sqrt(), plane: (best_vw, best_d2) }
}

/// `(TOUCH eps scale)^2`.
#[inline]
fn touch2(scale2: f64) -> f64 {
    let t = TOUCH * EPS;
    t * t * scale2
}

/// The band within which [`intersects_convex`] counts shapes as touching:
/// `TOUCH eps` of the Minkowski vertices' scale plus the radii.
#[inline]
pub(super) fn touch_band(g: &Gjk, radii: f64) -> f64 {
    TOUCH * EPS * (g.scale + radii)
}

/// The largest component of a direction that [`direction`] casts as it is.
const HIGH: f64 = (1u64 << 60) as f64;
/// The least such.
const LOW: f64 = 1.0 / HIGH;

/// [`direction`] of `d` given `d2 = |d|^2` (as computed from `d`): the
/// largest component `m` has `|d| / sqrt 3 <= m <= |d|`, so that
/// `4 LOW^2 <= d2 <= HIGH^2 / 4` puts it within `[LOW, HIGH]` (with room
/// for the rounding of `d2`), and `d` casts as it is without a look at its
/// components.
#[inline]
fn direction_from(d: &V64, d2: f64) -> Vector {
    if (4.0 * LOW * LOW..=0.25 * HIGH * HIGH).contains(&d2) {
        d.cast::<Real>()
    } else {
        direction(d)
    }
}

/// An f32 direction along `d`. A `d` whose largest component lies within
/// `[2^-60, 2^60]` casts as it is (its components keep f32 precision
/// relative to the largest down to `2^-66`, far below what a support
/// function resolves); a tinier or huger one is first scaled by its largest
/// component, so that it rounds to neither zero nor infinity.
#[inline]
pub(super) fn direction(d: &V64) -> Vector {
    let m = d.amax();
    if (LOW..=HIGH).contains(&m) {
        d.cast::<Real>()
    } else if m > 0.0 {
        (d / m).cast::<Real>()
    } else {
        Vector::x()
    }
}

/// The distance between two convex shapes A and B given by their support
/// maps, and a closest pair of points: the same contract as the closed-form
/// `distance_*` functions ([`ShapeDistance`]).
///
/// GJK runs on the shapes' cores ([`SupportMap::core_support`]), with the
/// signed-volume simplex solver; the core radii are then taken off the core
/// distance along the core witnesses' direction.
///
/// - Apart: `distance > 0` within about `1e-6` relatively, and `2 eps` of
///   the shapes' size and distance absolutely (the rounding of the f32
///   support points), of the exact distance; the witness points lie on
///   the shapes to the same rounding.
/// - Overlapping or touching (the origin within that rounding of the
///   Minkowski difference): distance 0 and `point_a == point_b`, a point
///   common to both (the barycentric combination of the support points of
///   the simplex that holds the origin).
/// - Degenerate shapes (flat boxes, zero-area triangles, points) are handled
///   by the simplex solver's fallback to lower-dimensional faces.
/// - Shapes far from the origin: the support points carry the rounding of
///   their world coordinates (`eps` of the offset), which bounds the
///   accuracy; no NaN arises from any finite input.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{distance_convex, Capsule, Obb, Point, Rotation, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
/// let b = Capsule::new(Point::new(3.0, -1.0, 0.0), Point::new(3.0, 1.0, 0.0), 0.5);
/// let d = distance_convex(&a, &b);
/// assert!((d.distance - 1.5).abs() < 1e-5);
/// assert!((d.point_a.x - 1.0).abs() < 1e-5 && (d.point_b.x - 2.5).abs() < 1e-5);
/// ```
#[must_use]
pub fn distance_convex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B) -> ShapeDistance {
    let mut simplex = Simplex::new(start_vertex(a, b, Start::Centers));
    let run = gjk_run(a, b, f64::INFINITY, &mut simplex, None, None);
    from_run(&simplex, &run, a.core_radius(), b.core_radius())
}

/// The [`ShapeDistance`] of a GJK run on the cores that ended with
/// `simplex`, with radii `ra`, `rb`.
#[inline]
fn from_run(simplex: &Simplex, g: &Run, ra: Real, rb: Real) -> ShapeDistance {
    let (pa, pb) = simplex.witnesses();
    if g.ending == Ending::Overlap {
        let common = nalgebra::center(&pa, &pb);
        return ShapeDistance { distance: 0.0, point_a: common, point_b: common };
    }
    let core = g.v.norm();
    let r = f64::from(ra) + f64::from(rb);
    if core <= r {
        let common = if r > 0.0 { pa + (pb - pa) * (ra / (ra + rb)) } else { pa };
        return ShapeDistance { distance: 0.0, point_a: common, point_b: common };
    }
    // From A to B: `-v`, since `v = pa - pb`.
    let u = (-g.v / core).cast::<Real>();
    ShapeDistance { distance: (core - r) as Real, point_a: pa + u * ra, point_b: pb - u * rb }
}

/// True when the convex shapes A and B overlap or touch (inclusive), given
/// by their support maps.
///
/// GJK on the cores, stopped as soon as a support plane separates them by
/// more than the radii: first the plane along the centres' axis, which
/// separates most pairs that are apart at all, then GJK's (usually in two
/// or three iterations for shapes far apart). Touching counts: shapes
/// within `2 eps` of their size and distance (the rounding of the support
/// points, see [`distance_convex`]) intersect.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{intersects_convex, Obb, Point, Rotation, Sphere, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
/// assert!(intersects_convex(&a, &Sphere::new(Point::new(2.0, 0.0, 0.0), 1.0))); // touching
/// assert!(!intersects_convex(&a, &Sphere::new(Point::new(2.1, 0.0, 0.0), 1.0)));
/// ```
#[must_use]
pub fn intersects_convex<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B) -> bool {
    let r = f64::from(a.core_radius()) + f64::from(b.core_radius());
    let stop_beyond = r + TOUCH * EPS * r;
    let d = b.core_center() - a.core_center();
    let first = support_vertex(a, b, &d);
    if beyond_along(&first, &d, stop_beyond) {
        return false;
    }
    let g = gjk_from(a, b, stop_beyond, Simplex::new(first), None, None);
    match g.ending {
        Ending::Overlap => true,
        Ending::Beyond => false,
        Ending::Apart => g.v.norm() <= r + touch_band(&g, r),
    }
}

/// GJK's and EPA's iteration counts on a pair (support points taken), for
/// tests that bound them: `(gjk, epa)`, GJK's the larger of its two starts
/// (centres, a support point), EPA's 0 when it does not run.
#[doc(hidden)]
#[must_use]
pub fn convex_iterations<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(a: &A, b: &B) -> (u32, u32) {
    let g = gjk(a, b, f64::INFINITY, Start::Centers);
    let from_support = gjk(a, b, f64::INFINITY, Start::Support);
    let epa = if from_support.ending == Ending::Overlap { super::epa::epa_iterations(a, b, &from_support) } else { 0 };
    (g.iterations.max(from_support.iterations), epa)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gjk::epa::{contact_by_gjk, contact_convex};
    use crate::math::{Point, Rotation};
    use crate::shape::{Capsule, Obb};

    /// [`intersects_convex`] by GJK alone, without the centres' axis test.
    fn intersects_by_gjk<A: SupportMap, B: SupportMap>(a: &A, b: &B) -> bool {
        let r = f64::from(a.core_radius()) + f64::from(b.core_radius());
        let g = gjk(a, b, r + TOUCH * EPS * r, Start::Centers);
        match g.ending {
            Ending::Overlap => true,
            Ending::Beyond => false,
            Ending::Apart => g.v.norm() <= r + touch_band(&g, r),
        }
    }

    /// The queries with the centres' axis test answer as GJK alone does,
    /// but within the touching band at the edge of the reach (`band`: a few
    /// eps of the shapes' size and offset), where the test along the
    /// centres' axis may say "apart" and GJK "touching": the test sees one
    /// support point, GJK's band grows with every vertex it takes.
    fn same<A: SupportMap, B: SupportMap>(a: &A, b: &B, band: f64, case: &str) {
        if intersects_convex(a, b) != intersects_by_gjk(a, b) {
            // GJK alone says touching: its contact is at most the band deep.
            let depth = contact_by_gjk(a, b, 0.0).map(|c| f64::from(c.depth));
            assert!(intersects_by_gjk(a, b) && depth.is_none_or(|d| d <= band), "{case}: {depth:?}");
        }
        for prediction in [0.0, 1e-6, 1e-3] {
            let (with, alone) = (contact_convex(a, b, prediction), contact_by_gjk(a, b, prediction));
            if with != alone {
                let depth = alone.map(|c| f64::from(c.depth));
                assert!(
                    with.is_none() && depth.is_some_and(|d| d <= band - f64::from(prediction)),
                    "{case} at {prediction}: {with:?} {alone:?}"
                );
            }
        }
    }

    #[test]
    fn the_centres_axis_decides_as_gjk_would() {
        // Pairs apart along the line through their centres by gaps inside
        // and around the touching band (a few eps of the shapes' size and
        // offset), where the test along that line and GJK's own planes are
        // both near their threshold: boxes face to face, and capsules side
        // by side (rounded: the radii are in the threshold), turned at
        // random, near the origin and 1e3 and 1e5 from it. A test with the
        // wrong sign, or that ignores the radii, answers otherwise on many.
        let mut rng = proxima_test_support::rng(0xCE47);
        let h = Vector::new(1.0, 0.7, 0.4);
        for far in [0.0, 1e3, 1e5] {
            for _ in 0..400 {
                let rot: Rotation = proxima_test_support::gen::rotation(&mut rng);
                let (n, m) = (rot * Vector::x(), rot * Vector::y());
                let c = Point::new(far, -far, far);
                // About three times GJK's band for these shapes near the
                // origin (`2 eps` of a Minkowski scale near 4.6), plus the
                // rounding of the placed corners at `far` (`eps` of each
                // shape's offset), which no band of GJK's holds.
                let band = 8.0 * EPS * (4.0 + 2.0 * f64::from(far));
                let a = Obb::new(c, rot, h);
                let axis = Capsule::new(c - m, c + m, 0.3);
                for gap in [0.0, 1e-7, -1e-7, 1e-6, -1e-6, 1e-5, -1e-5, 1e-3] {
                    let gap = gap * (1.0 + far);
                    let b = Obb::new(c + n * (2.0 * h.x + gap), rot, h);
                    same(&a, &b, band, &format!("boxes {rot:?} {far} {gap}"));
                    let side = c + n * (0.6 + gap);
                    let k = Capsule::new(side - m, side + m, 0.3);
                    same(&axis, &k, band, &format!("capsules {rot:?} {far} {gap}"));
                }
            }
        }
    }
}
