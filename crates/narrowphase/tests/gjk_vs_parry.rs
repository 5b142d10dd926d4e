//! Differential tests of the generic convex queries (`distance_convex`,
//! `intersects_convex`, `contact_convex`) against proxima's closed-form
//! `distance_*` / `contact_*` functions (the oracles: exact to f32 rounding)
//! and against parry3d 0.31's `query::distance` / `query::contact`.
//!
//! Every pair among sphere, oriented box, capsule and triangle (and an
//! axis-aligned box against an oriented one) runs `CASES` seeded cases of
//! shapes of size 0.1..1, placed so that 30-70% of them overlap, and the
//! same pairs again on hard placements (see [`Setting`]): thin boxes, sizes
//! 1e-2 against 1e3, offsets of 1e4, degenerate triangles.
//!
//! Tolerances are relative to `L`, the largest coordinate magnitude of the
//! two shapes' bounding boxes (their size and offset): f32 support points
//! carry `eps L` of rounding each, and GJK stops within `1e-6` relatively.
//! - distance: `|ours - oracle| <= DIST_TOL L`, witness points on their
//!   shapes and `|point_a - point_b| = distance` within the same;
//! - intersection: agrees with the oracle outside `|distance| <= BAND L`;
//! - contact: the depth within `DEPTH_TOL L` of the oracle's; moving B by
//!   `depth + DEPTH_TOL L` along the normal separates the shapes (the
//!   normal is a direction of least penetration, to the tolerance).
//! - GJK and EPA stay below `MAX_GJK` / `MAX_EPA` iterations;
//! - `cast_shape_convex`: the time of impact within `TOI_TOL` (`1e-5` of
//!   the motion) of an f64 search on the closed forms (see [`run_cast`]),
//!   parry3d's `cast_shapes` recorded.
//!
//! The worst errors are printed (`--nocapture`) and asserted.

use parry3d::math::Pose;
use parry3d::query;
use parry3d::shape::Shape;
use proxima_narrowphase::internal::{distance_obb_obb_by_edges, distance_obb_triangle_by_edges};
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::SmallRng;
use std::fmt::Debug;

/// Cases per pair and setting: 20,000 in release (10 pairs: 200,000 per
/// query on the main setting), a twentieth in debug builds.
const CASES: usize = if cfg!(debug_assertions) { 1_000 } else { 20_000 };

/// Distance tolerance in units of `L`: a few f32 roundings of the support
/// points (`eps = 1.2e-7`) plus GJK's relative stop (`1e-6` of the distance,
/// at most `~2 L`).
const DIST_TOL: Real = 4e-6;
/// Depth tolerance in units of `L`: as the distance, and EPA's relative stop.
const DEPTH_TOL: Real = 4e-6;
/// Moving B by the depth and this (in units of `L`) along the normal must
/// separate the shapes: `DEPTH_TOL` plus the closed forms' touching band
/// (`intersects_obb_obb` counts boxes within about `1e-5` of their size
/// as touching).
const SEPARATION_MARGIN: Real = 2e-5;
/// The touching band of the intersection test, in units of `L`.
const BAND: Real = 4e-6;
/// The prediction distance of the speculative-contact checks.
const PREDICTION: Real = 0.25;
/// GJK support points at most (the cap is 64).
const MAX_GJK: u32 = 24;
/// EPA support points at most (the cap is 64).
const MAX_EPA: u32 = 48;

/// A test shape: a support map, its parry twin, a translation.
trait TestShape: SupportMap + Debug + Sized {
    fn parry(&self) -> (Pose, Box<dyn Shape>);
    fn moved(&self, v: &Vector) -> Self;
    fn bounds(&self) -> Aabb;
    /// The core (radius 0), for the closed-form distance of the cores.
    fn core(&self) -> Self {
        self.moved(&Vector::zeros())
    }
    /// The core's vertices, its face normals and its edge directions, in f64.
    fn polytope(&self) -> Polytope;
    /// Signed distance from `p` to the shape (negative inside, or 0), in f64.
    fn distance_f64(&self, p: &V64) -> f64;
}

/// A polytope core in f64 (its rounding by the f32 inputs is exact).
struct Polytope {
    vertices: Vec<V64>,
    faces: Vec<V64>,
    edges: Vec<V64>,
}

type V64 = nalgebra::Vector3<f64>;

fn v64(p: &Point) -> V64 {
    p.coords.cast::<f64>()
}

/// The corners, face normals and edge directions of the box `c + R x`,
/// `|x_i| <= h_i`, with `R` rebuilt in f64 from the quaternion.
fn box_polytope(c: &Point, rot: &Rotation, h: &Vector) -> Polytope {
    let r = rot.cast::<f64>().to_rotation_matrix().into_inner();
    let axes: Vec<V64> = (0..3).map(|i| r.column(i).into_owned()).collect();
    let vertices = (0..8)
        .map(|k| {
            (0..3).fold(v64(c), |acc, i| {
                let s = if k >> i & 1 == 1 { 1.0 } else { -1.0 };
                acc + axes[i] * (s * f64::from(h[i]))
            })
        })
        .collect();
    Polytope { vertices, faces: axes.clone(), edges: axes }
}

/// The exact penetration depth of two shapes whose cores overlap, in f64:
/// `min over n of h_A(n) + h_B(-n)` over the facet normals of the cores'
/// Minkowski difference (each core's face normals and the cross products
/// of their edges), plus the radii; when the cores are apart, the radii
/// less the cores' (closed-form) distance.
fn penetration_f64<A: TestShape, B: TestShape>(a: &A, b: &B, distance: fn(&A, &B) -> ShapeDistance) -> f64 {
    let r = f64::from(a.core_radius()) + f64::from(b.core_radius());
    let (pa, pb) = (a.polytope(), b.polytope());
    let mut axes: Vec<V64> = pa.faces.iter().chain(&pb.faces).copied().collect();
    for ea in &pa.edges {
        axes.extend(pb.edges.iter().map(|eb| ea.cross(eb)));
    }
    let h = |p: &Polytope, n: &V64| p.vertices.iter().map(|v| v.dot(n)).fold(f64::NEG_INFINITY, f64::max);
    let mut sat = f64::INFINITY;
    for n in axes.iter().filter_map(|n| n.try_normalize(0.0)) {
        for n in [n, -n] {
            sat = sat.min(h(&pa, &n) + h(&pb, &-n));
        }
    }
    // A positive least overlap over a complete set of axes proves the
    // cores overlap; otherwise (or with no axis: two points) they are apart
    // or touch, and the closed-form distance of the cores decides.
    if sat > 0.0 && sat.is_finite() {
        return r + sat;
    }
    r - f64::from(distance(&a.core(), &b.core()).distance)
}

impl TestShape for Sphere {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::ball(self);
        (p, Box::new(s))
    }
    fn moved(&self, v: &Vector) -> Self {
        Sphere::new(self.center() + v, self.radius())
    }
    fn core(&self) -> Self {
        Sphere::new(*self.center(), 0.0)
    }
    fn polytope(&self) -> Polytope {
        Polytope { vertices: vec![v64(self.center())], faces: vec![], edges: vec![] }
    }
    fn distance_f64(&self, p: &V64) -> f64 {
        (p - v64(self.center())).norm() - f64::from(self.radius())
    }
    fn bounds(&self) -> Aabb {
        self.aabb()
    }
}
impl TestShape for Obb {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::cuboid(self);
        (p, Box::new(s))
    }
    fn moved(&self, v: &Vector) -> Self {
        Obb::new(self.center() + v, *self.rotation(), *self.half_extents())
    }
    fn polytope(&self) -> Polytope {
        box_polytope(self.center(), self.rotation(), self.half_extents())
    }
    fn distance_f64(&self, p: &V64) -> f64 {
        let r = self.rotation().cast::<f64>().to_rotation_matrix().into_inner();
        let local = r.tr_mul(&(p - v64(self.center())));
        let h = self.half_extents().cast::<f64>();
        (local.abs() - h).map(|x| x.max(0.0)).norm()
    }
    fn bounds(&self) -> Aabb {
        self.aabb()
    }
}
impl TestShape for Aabb {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::aabb_cuboid(self);
        (p, Box::new(s))
    }
    fn moved(&self, v: &Vector) -> Self {
        Aabb::new(self.min() + v, self.max() + v)
    }
    fn polytope(&self) -> Polytope {
        let v: Vec<V64> = (0..8)
            .map(|k| {
                let pick = |i: usize| if k >> i & 1 == 1 { self.max()[i] } else { self.min()[i] };
                V64::new(pick(0).into(), pick(1).into(), pick(2).into())
            })
            .collect();
        let axes = vec![V64::x(), V64::y(), V64::z()];
        Polytope { vertices: v, faces: axes.clone(), edges: axes }
    }
    fn distance_f64(&self, p: &V64) -> f64 {
        let (lo, hi) = (v64(self.min()), v64(self.max()));
        (0..3).map(|i| (lo[i] - p[i]).max(p[i] - hi[i]).max(0.0).powi(2)).sum::<f64>().sqrt()
    }
    fn bounds(&self) -> Aabb {
        *self
    }
}
impl TestShape for Capsule {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::capsule(self);
        (p, Box::new(s))
    }
    fn moved(&self, v: &Vector) -> Self {
        Capsule::new(self.a() + v, self.b() + v, self.radius())
    }
    fn core(&self) -> Self {
        Capsule::new(*self.a(), *self.b(), 0.0)
    }
    fn polytope(&self) -> Polytope {
        let (a, b) = (v64(self.a()), v64(self.b()));
        Polytope { vertices: vec![a, b], faces: vec![], edges: vec![b - a] }
    }
    fn distance_f64(&self, p: &V64) -> f64 {
        point_segment_f64(p, &v64(self.a()), &v64(self.b())) - f64::from(self.radius())
    }
    fn bounds(&self) -> Aabb {
        self.aabb()
    }
}
impl TestShape for Triangle {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::triangle(self);
        (p, Box::new(s))
    }
    fn moved(&self, v: &Vector) -> Self {
        Triangle::new(self.a() + v, self.b() + v, self.c() + v)
    }
    fn polytope(&self) -> Polytope {
        let [a, b, c] = self.vertices().map(|p| v64(&p));
        Polytope { vertices: vec![a, b, c], faces: vec![(b - a).cross(&(c - a))], edges: vec![b - a, c - b, a - c] }
    }
    fn distance_f64(&self, p: &V64) -> f64 {
        let [a, b, c] = self.vertices().map(|q| v64(&q));
        point_triangle_f64(p, &a, &b, &c)
    }
    fn bounds(&self) -> Aabb {
        self.aabb()
    }
}

/// `L`: the largest coordinate magnitude of the two shapes' boxes.
fn scale<A: TestShape, B: TestShape>(a: &A, b: &B) -> Real {
    let m = |x: &Aabb| x.min().coords.amax().max(x.max().coords.amax());
    m(&a.bounds()).max(m(&b.bounds()))
}

/// Distance from `p` to the solid shape (0 inside), in f64.
fn off_shape<S: TestShape>(s: &S, p: &Point) -> Real {
    s.distance_f64(&v64(p)).max(0.0) as Real
}

/// Distance from `p` to the segment `[a, b]` in f64.
fn point_segment_f64(p: &V64, a: &V64, b: &V64) -> f64 {
    let ab = b - a;
    let len2 = ab.norm_squared();
    let t = if len2 > 0.0 { ((p - a).dot(&ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + ab * t)).norm()
}

/// Distance from `p` to the triangle `abc` in f64: to its plane when the
/// projection falls inside, else to the nearest edge.
fn point_triangle_f64(p: &V64, a: &V64, b: &V64, c: &V64) -> f64 {
    let n = (b - a).cross(&(c - a));
    if n.norm_squared() > 0.0 {
        let inside = (b - a).cross(&(p - a)).dot(&n) >= 0.0
            && (c - b).cross(&(p - b)).dot(&n) >= 0.0
            && (a - c).cross(&(p - c)).dot(&n) >= 0.0;
        if inside {
            return (p - a).dot(&n).abs() / n.norm();
        }
    }
    point_segment_f64(p, a, b).min(point_segment_f64(p, b, c)).min(point_segment_f64(p, c, a))
}

/// True when our result is proven within `DIST_TOL L`, independently of the
/// closed form (the points are checked on the shapes separately): for
/// distance 0, the common point (in both shapes); else the slab normal to
/// `point_b - point_a` separates the shapes by at least the distance less
/// the tolerance (support functions in f64: convex duality makes it equal
/// for the true closest pair).
fn certified<A: TestShape, B: TestShape>(a: &A, b: &B, d: &ShapeDistance, l: Real) -> bool {
    d.distance == 0.0 || slab_lower_bound(a, b, d) >= f64::from(d.distance) - f64::from(DIST_TOL * l)
}

/// The separation of the shapes along the unit `n` from `point_a` to
/// `point_b`, `min_B n.x - max_A n.x` in f64: a lower bound of their
/// distance (`-inf` without a direction).
fn slab_lower_bound<A: TestShape, B: TestShape>(a: &A, b: &B, d: &ShapeDistance) -> f64 {
    match (v64(&d.point_b) - v64(&d.point_a)).try_normalize(0.0) {
        Some(n) => slab_along(a, b, &n),
        None => f64::NEG_INFINITY,
    }
}

/// True when a slab proves the shapes apart, along the normal of our
/// speculative contact (from the cores' closest points, well conditioned
/// where the witness points round together).
fn proven_apart<A: TestShape, B: TestShape>(a: &A, b: &B) -> bool {
    let n = contact_convex(a, b, 1.0).map(|c| c.normal.into_inner().cast::<f64>());
    n.is_some_and(|n| slab_along(a, b, &n) > 0.0)
}

/// `min_B n.x - max_A n.x` for a unit `n`, in f64.
fn slab_along<A: TestShape, B: TestShape>(a: &A, b: &B, n: &V64) -> f64 {
    let h = |p: &Polytope, r: Real, n: &V64| {
        p.vertices.iter().map(|v| v.dot(n)).fold(f64::NEG_INFINITY, f64::max) + f64::from(r)
    };
    -h(&a.polytope(), a.core_radius(), n) - h(&b.polytope(), b.core_radius(), &-n)
}

/// The closed-form oracles of a pair.
struct Oracle<A, B> {
    distance: fn(&A, &B) -> ShapeDistance,
    contact: fn(&A, &B) -> Option<Contact>,
}

/// The worst errors of a run, each in units of `L`.
#[derive(Debug, Default)]
struct Worst {
    overlap_fraction: f64,
    distance: Real,
    points: Real,
    depth: Real,
    /// Largest `closed form - ours` on the depth.
    closed_form_above: Real,
    separation: Real,
    speculative: Real,
    /// Largest `|ours - parry|` on the distance (absolute).
    vs_parry_distance: Real,
    /// Largest `|ours - parry|` on the depth (absolute).
    vs_parry_depth: Real,
    in_band: usize,
    gjk_iterations: u32,
    epa_iterations: u32,
}

/// Runs `CASES` cases of a pair: see the module comment for the checks.
fn run<A: TestShape, B: TestShape>(
    name: &str,
    seed: u64,
    mut gen: impl FnMut(&mut SmallRng) -> (A, B),
    oracle: Oracle<A, B>,
    check_fraction: bool,
) -> Worst {
    let mut rng = proxima_test_support::rng(seed);
    let mut w = Worst::default();
    let mut failures = Vec::new();
    let mut overlaps = 0;
    for k in 0..CASES {
        let (a, b) = gen(&mut rng);
        let l = scale(&a, &b).max(1e-3);
        let mut fail = |what: String| failures.push(format!("case {k}: {what}: {a:?} {b:?}"));

        // Distance.
        let exact = (oracle.distance)(&a, &b);
        let d = distance_convex(&a, &b);
        overlaps += usize::from(exact.distance == 0.0);
        let err = (d.distance - exact.distance).abs() / l;
        let pts = (off_shape(&a, &d.point_a).max(off_shape(&b, &d.point_b)))
            .max(((d.point_a - d.point_b).norm() - d.distance).abs())
            / l;
        w.points = w.points.max(pts);
        w.distance = w.distance.max(err);
        if !(err <= DIST_TOL && pts <= DIST_TOL) || (d.distance == 0.0 && d.point_a != d.point_b) {
            // Which side is off: ours is proven when its points are on the
            // shapes and a slab (or a common point) certifies it.
            let proven = pts <= DIST_TOL && certified(&a, &b, &d, l);
            fail(format!("distance {d:?}, oracle {exact:?}, error {err:e}, points {pts:e}, ours certified {proven}"));
        }
        let ((pa, sa), (pb, sb)) = (a.parry(), b.parry());
        let pd = query::distance(&pa, &*sa, &pb, &*sb).expect("parry supports the pair");
        w.vs_parry_distance = w.vs_parry_distance.max((pd.distance - d.distance).abs());

        // Intersection, outside the touching band.
        let oracle_contact = (oracle.contact)(&a, &b);
        let band = BAND * l;
        let near = exact.distance <= band && oracle_contact.is_none_or(|c| c.depth <= band);
        if near {
            w.in_band += 1;
        } else if intersects_convex(&a, &b) != (exact.distance == 0.0) {
            let apart = proven_apart(&a, &b);
            fail(format!(
                "intersects {}, oracle distance {}, proven apart {apart}",
                !(exact.distance == 0.0),
                exact.distance
            ));
        }

        // Contact.
        let c = contact_convex(&a, &b, 0.0);
        match (c, oracle_contact) {
            (Some(c), Some(o)) => {
                // The exact depth in f64; the closed form is an upper bound
                // (the box SATs skip near-parallel edge axes and prefer
                // faces, up to 1e-3 above the minimum).
                let exact_depth = penetration_f64(&a, &b, oracle.distance);
                let e = (f64::from(c.depth) - exact_depth).abs() as Real / l;
                w.depth = w.depth.max(e);
                w.closed_form_above = w.closed_form_above.max((o.depth - c.depth) / l);
                let e = e.max((c.depth - o.depth) / l);
                // Moving B along the normal by the depth (and the tolerance)
                // separates the shapes.
                let out = b.moved(&(c.normal.into_inner() * (c.depth + SEPARATION_MARGIN * l)));
                let apart = (oracle.distance)(&a, &out).distance;
                let sep = (SEPARATION_MARGIN * l / 2.0 - apart).max(0.0) / l;
                w.separation = w.separation.max(sep);
                let gap = ((c.point_a - c.point_b) - c.normal.into_inner() * c.depth).norm() / l;
                if e > DEPTH_TOL || apart <= 0.0 || gap > DEPTH_TOL || (c.normal.norm() - 1.0).abs() > 1e-5 {
                    fail(format!("contact {c:?}, oracle {o:?}, exact depth {exact_depth}, apart after {apart}"));
                }
                if let Ok(Some(pc)) = query::contact(&pa, &*sa, &pb, &*sb, 0.0) {
                    w.vs_parry_depth = w.vs_parry_depth.max((-pc.dist - c.depth).abs());
                }
            }
            (None, None) => {}
            (c, o) if !near => fail(format!("contact {c:?}, oracle {o:?}, proven apart {}", proven_apart(&a, &b))),
            _ => {}
        }

        // Speculative contact: within the prediction, depth = -distance.
        if exact.distance > band {
            let s = contact_convex(&a, &b, PREDICTION);
            if exact.distance < PREDICTION - band {
                match s {
                    Some(s) => {
                        let e = (s.depth + exact.distance).abs() / l;
                        w.speculative = w.speculative.max(e);
                        let gap = ((s.point_a - s.point_b) - s.normal.into_inner() * s.depth).norm() / l;
                        if e > DIST_TOL || gap > DIST_TOL {
                            fail(format!("speculative {s:?}, distance {}", exact.distance));
                        }
                    }
                    None => fail(format!("no speculative contact at distance {}", exact.distance)),
                }
            } else if exact.distance > PREDICTION + band && s.is_some() {
                fail(format!("speculative {s:?} beyond the prediction, distance {}", exact.distance));
            }
        }

        let (gi, ei) = convex_iterations(&a, &b);
        w.gjk_iterations = w.gjk_iterations.max(gi);
        w.epa_iterations = w.epa_iterations.max(ei);
        if gi > MAX_GJK || ei > MAX_EPA {
            fail(format!("iterations gjk {gi} epa {ei}"));
        }
    }
    w.overlap_fraction = overlaps as f64 / CASES as f64;
    eprintln!("{name}: {w:?}");
    assert!(failures.is_empty(), "{name}: {} failures: {:#?}", failures.len(), &failures[..failures.len().min(4)]);
    if check_fraction {
        assert!(
            (0.3..=0.7).contains(&w.overlap_fraction),
            "{name}: overlap fraction {:.3} outside [0.3, 0.7]",
            w.overlap_fraction
        );
    }
    w
}

/// Where the shapes of a run are drawn.
#[derive(Clone, Copy, Debug)]
enum Setting {
    /// Sizes `lo..1` near the origin, spread so that 30-70% overlap.
    Main(Real, Real),
    /// The same, moved to `(1e4, -1e4, 1e4)`.
    Offset(Real, Real),
    /// A: sizes 1e-2..2e-2; B: sizes 1e2..1e3, its surface near A.
    Scales,
    /// Boxes with one half-extent 1e-4, degenerate triangles (a segment);
    /// other shapes as in `Main`.
    Thin(Real, Real),
}

const FAR: Point = Point::new(1e4, -1e4, 1e4);

fn placement(s: Setting) -> Placement {
    match s {
        Setting::Main(spread, lo) | Setting::Thin(spread, lo) => Placement::new(spread, lo, 1.0),
        Setting::Offset(spread, lo) => Placement::new(spread, lo, 1.0).at(FAR),
        Setting::Scales => Placement::new(0.0, 1e-2, 2e-2),
    }
}

/// A random shape for a setting.
trait Draw: Sized {
    fn draw(r: &mut SmallRng, p: &Placement) -> Self;
    /// `self` made thin along one axis (boxes only).
    fn thin(self) -> Self {
        self
    }
    /// A large version of the shape (sizes `1e2..1e3`) near the origin.
    fn large(r: &mut SmallRng) -> Self {
        Self::draw(r, &Placement::new(0.0, 1e2, 1e3))
    }
}
impl Draw for Sphere {
    fn draw(r: &mut SmallRng, p: &Placement) -> Self {
        gen::sphere(r, p)
    }
}
impl Draw for Capsule {
    fn draw(r: &mut SmallRng, p: &Placement) -> Self {
        gen::capsule(r, p)
    }
}
impl Draw for Triangle {
    /// A triangle around its centre (which it contains): vertices at
    /// angles about `120` degrees apart in a random plane, at distances in
    /// the size range.
    fn draw(r: &mut SmallRng, p: &Placement) -> Self {
        let c = gen::point(r, p);
        let rot = gen::rotation(r);
        let start = gen::uniform(r, 0.0, std::f32::consts::TAU);
        let mut v = |k: Real| {
            let t = start + k * std::f32::consts::TAU / 3.0 + gen::uniform(r, -0.5, 0.5);
            c + rot * Vector::new(t.cos(), t.sin(), 0.0) * gen::uniform(r, p.size_lo, p.size_hi)
        };
        Triangle::new(v(0.0), v(1.0), v(2.0))
    }
    /// Degenerate: the third vertex on the segment of the first two.
    fn thin(self) -> Self {
        let (a, b) = (*self.a(), *self.b());
        Triangle::new(a, b, a + (b - a) * 0.375)
    }
}
impl Draw for Obb {
    fn draw(r: &mut SmallRng, p: &Placement) -> Self {
        gen::obb(r, p)
    }
    fn thin(self) -> Self {
        let mut h = *self.half_extents();
        h.z = 1e-4;
        Obb::new(*self.center(), *self.rotation(), h)
    }
}
impl Draw for Aabb {
    fn draw(r: &mut SmallRng, p: &Placement) -> Self {
        gen::aabb(r, p)
    }
    fn thin(self) -> Self {
        let (c, mut h) = (self.center(), self.half_extents());
        h.y = 1e-4;
        Aabb::try_from_center(c, h).expect("valid box")
    }
}

/// A pair for a setting. `Scales`: a small A at a point near the large B's
/// surface, within a distance of its own size (its support point along a
/// random direction, moved by up to `3e-2` along it or against it).
fn draw_pair<A: Draw + TestShape, B: Draw + TestShape>(r: &mut SmallRng, s: Setting) -> (A, B) {
    let p = placement(s);
    match s {
        Setting::Main(..) | Setting::Offset(..) => (A::draw(r, &p), B::draw(r, &p)),
        Setting::Thin(..) => (A::draw(r, &p).thin(), B::draw(r, &p).thin()),
        Setting::Scales => {
            let b = B::large(r);
            let dir = gen::unit_vector(r);
            let at = b.support(&dir) + dir * gen::uniform(r, -3e-2, 3e-2);
            (A::draw(r, &p.at(at)), b)
        }
    }
}

/// Runs one pair in every setting, sizes `0.1..1`.
fn pair<A: Draw + TestShape, B: Draw + TestShape>(name: &str, seed: u64, spread: Real, oracle: Oracle<A, B>) {
    pair_sized(name, seed, spread, 0.1, oracle);
}

/// Runs one pair in every setting, sizes `lo..1`.
fn pair_sized<A: Draw + TestShape, B: Draw + TestShape>(
    name: &str,
    seed: u64,
    spread: Real,
    lo: Real,
    oracle: Oracle<A, B>,
) {
    let settings = [
        ("", Setting::Main(spread, lo), true),
        (" offset 1e4", Setting::Offset(spread, lo), true),
        (" scales 1e-2 vs 1e3", Setting::Scales, false),
        (" thin", Setting::Thin(spread, lo), false),
    ];
    for (k, (label, s, check_fraction)) in settings.into_iter().enumerate() {
        let o = Oracle { distance: oracle.distance, contact: oracle.contact };
        run(&format!("{name}{label}"), seed + 1000 * k as u64, |r| draw_pair(r, s), o, check_fraction);
    }
}

#[test]
fn sphere_sphere() {
    pair("sphere_sphere", 1, 1.1, Oracle { distance: distance_sphere_sphere, contact: contact_sphere_sphere });
}

#[test]
fn sphere_capsule() {
    pair("sphere_capsule", 2, 1.0, Oracle { distance: distance_sphere_capsule, contact: contact_sphere_capsule });
}

#[test]
fn sphere_obb() {
    pair("sphere_obb", 3, 1.0, Oracle { distance: distance_sphere_obb, contact: contact_sphere_obb });
}

#[test]
fn sphere_triangle() {
    pair("sphere_triangle", 4, 0.7, Oracle { distance: distance_sphere_triangle, contact: contact_sphere_triangle });
}

#[test]
fn capsule_capsule() {
    pair("capsule_capsule", 5, 1.0, Oracle { distance: distance_capsule_capsule, contact: contact_capsule_capsule });
}

#[test]
fn capsule_obb() {
    pair("capsule_obb", 6, 1.0, Oracle { distance: distance_capsule_obb, contact: contact_capsule_obb });
}

#[test]
fn capsule_triangle() {
    pair(
        "capsule_triangle",
        7,
        0.85,
        Oracle { distance: distance_capsule_triangle, contact: contact_capsule_triangle },
    );
}

#[test]
fn obb_obb() {
    pair("obb_obb", 8, 1.0, Oracle { distance: distance_obb_obb_by_edges, contact: contact_obb_obb });
}

#[test]
fn obb_triangle() {
    pair("obb_triangle", 9, 0.8, Oracle { distance: distance_obb_triangle_by_edges, contact: contact_obb_triangle });
}

#[test]
fn triangle_triangle() {
    pair(
        "triangle_triangle",
        10,
        0.3,
        Oracle { distance: distance_triangle_triangle, contact: contact_triangle_triangle },
    );
}

#[test]
fn aabb_obb() {
    fn contact(a: &Aabb, b: &Obb) -> Option<Contact> {
        contact_obb_obb(&Obb::from_aabb(a), b)
    }
    pair("aabb_obb", 11, 1.0, Oracle { distance: distance_aabb_obb, contact });
}

/// The first `t` in `[0, 1]` at which A moved by `t motion` touches B, by
/// the closed-form distance in f64 steps: the distance is convex in `t` (a
/// translation), so a golden-section search finds its minimum, and a
/// bisection the first root before it. `None` when the minimum is positive;
/// also returns the minimum distance (the margin of a miss or a graze).
fn first_contact<A: TestShape, B: TestShape>(
    a: &A,
    b: &B,
    motion: &Vector,
    distance: fn(&A, &B) -> ShapeDistance,
) -> (Option<f64>, f64) {
    let d = |t: f64| f64::from(distance(&a.moved(&(motion * t as Real)), b).distance);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..80 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if d(x1) <= d(x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    let t_min = 0.5 * (lo + hi);
    let min = d(t_min).min(d(1.0));
    if min > 0.0 {
        return (None, min);
    }
    let t_min = if d(1.0) <= 0.0 && d(t_min) > 0.0 { 1.0 } else { t_min };
    // The root by the sign of the f64 separating-axis test where it is
    // complete (polytope cores), free of the closed forms' touching band;
    // else by the closed-form distance.
    let apart = |t: f64| {
        let moved = a.moved(&(motion * t as Real));
        match sat_overlap_f64(&moved, b) {
            Some(sat) => sat < 0.0,
            None => d(t) > 0.0,
        }
    };
    let (mut lo, mut hi) = (0.0f64, t_min);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if apart(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (Some(hi), min)
}

/// The least overlap of two shapes without radii over the separating axes
/// of their polytopes (face normals and edge cross products), in f64:
/// negative exactly when they are apart. `None` for a rounded shape.
fn sat_overlap_f64<A: TestShape, B: TestShape>(a: &A, b: &B) -> Option<f64> {
    if a.core_radius() > 0.0 || b.core_radius() > 0.0 {
        return None;
    }
    let (pa, pb) = (a.polytope(), b.polytope());
    let mut axes: Vec<V64> = pa.faces.iter().chain(&pb.faces).copied().collect();
    for ea in &pa.edges {
        axes.extend(pb.edges.iter().map(|eb| ea.cross(eb)));
    }
    let h = |p: &Polytope, n: &V64| p.vertices.iter().map(|v| v.dot(n)).fold(f64::NEG_INFINITY, f64::max);
    let sat = axes
        .iter()
        .filter_map(|n| n.try_normalize(0.0))
        .flat_map(|n| [n, -n])
        .map(|n| h(&pa, &n) + h(&pb, &-n))
        .fold(f64::INFINITY, f64::min);
    Some(sat)
}

/// Time-of-impact tolerance, in units of the motion: conservative
/// advancement stops `1e-6` of the motion short, GJK's distance carries
/// `4e-6 L`, and the oracle's moved shapes round their positions.
const TOI_TOL: f64 = 1e-5;

/// How far a cast's contact point may lie off either shape's surface at the
/// impact: the time of impact's error (`TOI_TOL` of motions up to about 3
/// units) moves A by up to `3e-5`.
const POINT_TOL: f64 = 1e-4;

/// Runs `cases` casts of A by a random motion against B: the first contact
/// within `TOI_TOL` of the f64 search on the closed form (grazing cases,
/// near misses within `1e-4` and hits approaching slower than `0.1` per
/// unit of `t`, skipped and counted), hits
/// and misses agreeing; parry's `cast_shapes` time of impact recorded.
fn run_cast<A: TestShape + Draw, B: TestShape + Draw>(
    name: &str,
    seed: u64,
    spread: Real,
    distance: fn(&A, &B) -> ShapeDistance,
    cast: fn(&A, &Vector, &B) -> Option<SweepHit>,
) {
    let mut rng = proxima_test_support::rng(seed);
    let p = Placement::new(spread, 0.1, 1.0);
    let (mut hits, mut grazing, mut worst, mut vs_parry) = (0usize, 0usize, 0.0f64, 0.0f64);
    let (mut inconsistent, mut worst_point) = (0usize, 0.0f64);
    let mut failures = Vec::new();
    for k in 0..CASES / 4 {
        let (a, b) = (A::draw(&mut rng, &p), B::draw(&mut rng, &p));
        // Towards B, more or less: about half the motions reach it.
        let towards = b.core_center() - a.core_center();
        let motion =
            towards * gen::uniform(&mut rng, 0.2, 1.2) + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, 1.0);
        let ours = cast(&a, &motion, &b);
        let (exact, min) = first_contact(&a, &b, &motion, distance);
        let d = |t: f64| f64::from(distance(&a.moved(&(motion * t as Real)), &b).distance);
        // A near miss, or a hit at an approach slower than `0.1` per unit
        // of `t` (a graze: a distance error `e` moves the contact time by
        // `e / speed`, and the f32 box axes alone carry `~1e-7`).
        let graze = match exact {
            None => min < 1e-4,
            Some(t) => t > 0.0 && d((t - 1e-3).max(0.0)) < 1e-4,
        };
        if graze {
            grazing += 1;
            continue;
        }
        // The distance is convex in `t`: beyond two samples `s1 < s2`
        // before the root, it stays above their secant, so the contact is
        // no earlier than where the secant reaches zero. A root earlier
        // than that bound by more than the tolerance means the closed-form
        // distance and the separating-axis sign behind the root disagree
        // (one of them is off by more than the tolerance allows): the case
        // is left out and counted.
        if let Some(t) = exact.filter(|&t| t >= 1e-4) {
            let (s1, s2) = (t - 1e-4, t - 2e-5);
            let secant = (d(s2) - d(s1)) / (s2 - s1);
            if secant < 0.0 && d(s2) > 0.0 && s2 - d(s2) / secant - t > TOI_TOL {
                inconsistent += 1;
                continue;
            }
        }
        hits += usize::from(exact.is_some());
        match (ours, exact) {
            (Some(h), Some(t)) => {
                let e = (f64::from(h.toi) - t).abs();
                worst = worst.max(e);
                // The point lies on B's surface, and on A's at the impact.
                let on_b = b.distance_f64(&v64(&h.point)).abs();
                let on_a = a.moved(&(motion * h.toi)).distance_f64(&v64(&h.point)).abs();
                worst_point = worst_point.max(on_a.max(on_b));
                if on_a.max(on_b) > POINT_TOL {
                    failures.push(format!("case {k}: point {} off B, {} off A: {a:?} {b:?} {motion:?}", on_b, on_a));
                }
                if e > TOI_TOL || (h.normal.norm() - 1.0).abs() > 1e-5 {
                    failures.push(format!("case {k}: toi {} exact {t}: {a:?} {b:?} {motion:?}", h.toi));
                }
                let ((pa, sa), (pb, sb)) = (a.parry(), b.parry());
                let opts = query::ShapeCastOptions::with_max_time_of_impact(1.0);
                let zero = parry3d::math::Vector::ZERO;
                if let Ok(Some(ph)) = query::cast_shapes(&pa, cv::vec(&motion), &*sa, &pb, zero, &*sb, opts) {
                    vs_parry = vs_parry.max((f64::from(ph.time_of_impact) - f64::from(h.toi)).abs());
                }
            }
            (None, None) => {}
            (o, e) => failures.push(format!("case {k}: ours {o:?}, exact {e:?}: {a:?} {b:?} {motion:?}")),
        }
    }
    let n = CASES / 4 - grazing - inconsistent;
    eprintln!(
        "{name}: hits {:.3} grazing {grazing} inconsistent oracle {inconsistent} worst toi error {worst:e} point {worst_point:e} vs parry {vs_parry:e}",
        hits as f64 / n as f64
    );
    assert!(inconsistent * 1000 <= CASES / 4, "{name}: the oracle is inconsistent on {inconsistent} cases");
    assert!(failures.is_empty(), "{name}: {} failures: {:#?}", failures.len(), &failures[..failures.len().min(4)]);
    assert!((0.3..=0.7).contains(&(hits as f64 / n as f64)), "{name}: hit fraction outside [0.3, 0.7]");
}

#[test]
fn cast_convex_obb_obb() {
    run_cast::<Obb, Obb>("cast_convex_obb_obb", 21, 2.5, distance_obb_obb, cast_shape_convex);
}

/// The closed form of box-box casts on the same inputs.
#[test]
fn cast_obb_obb_closed_form() {
    run_cast::<Obb, Obb>("cast_obb_obb", 21, 2.5, distance_obb_obb, proxima_narrowphase::cast_obb_obb);
}

#[test]
fn cast_sphere_obb() {
    run_cast::<Sphere, Obb>("cast_sphere_obb", 22, 2.5, distance_sphere_obb, cast_shape_convex);
}

#[test]
fn cast_capsule_triangle() {
    run_cast::<Capsule, Triangle>("cast_capsule_triangle", 23, 2.0, distance_capsule_triangle, cast_shape_convex);
}
