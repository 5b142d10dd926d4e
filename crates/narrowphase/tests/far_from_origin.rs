//! Every pair function gives far from the origin what it gives at the
//! origin: the rounding of a distance, a depth or a manifold's existence is
//! that of the shapes' size and distance, not of their coordinates.
//!
//! Pairs are drawn near `F = (1e4, -1e4, 1e4)` (sizes 0.1-1, centres within
//! 2 of `F`) and moved to the origin by subtracting `F`, which is exact: a
//! coordinate within a factor 2 of `F`'s subtracts without rounding
//! (Sterbenz). So both copies are the same pair, and a function that works
//! in world coordinates, where `eps` of 1e4 is 1e-3, shows as a difference
//! between them. Tolerance: `1e-5`, twenty times the `4 eps` (5e-7) of
//! the shapes' size (about 1) that a computation relative to the shapes
//! leaves, and a hundredth of the coordinates' rounding. Existence is
//! compared outside that band around touching (or the prediction), normals
//! away from touching (see `NORMAL_TOL`), and the witness points, moved back
//! by `F`, within `POINT_TOL` (their rounding to world coordinates, which
//! a point not moved back, or moved twice, misses by 1e4). 100,000 pairs per shape pair, predictions in
//! `[0, 0.5)`. The hull pairs (a hull of 12 points under a pose) compare
//! contacts and manifolds; their distance is GJK's, which works in world
//! coordinates by its contract, and only places the bands.

use proxima_narrowphase::*;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{rng, Rng, SmallRng};

const CASES: usize = 100_000;
const TOL: Real = 1e-5;
/// Manifolds whose deepest point is farther than this from touching
/// (`1e-3`) have their normals compared, within `NORMAL_TOL` (`1e-3`
/// rad): a normal from points this far apart turns by their rounding over
/// the gap, about `1e-7 / 1e-3 = 1e-4` rad relative to the shapes (ten
/// times inside the tolerance), up to `1e-3 / 1e-3` rad in world
/// coordinates at 1e4.
const NORMAL_GAP: Real = 1e-3;
const NORMAL_TOL: Real = 1e-3;
/// Witness points at 1e4 moved back against those at the origin: four
/// ulps of 1e4 (`eps` of 8,192 is 9.8e-4), the rounding of a point taken
/// back to world coordinates and of a box's frame.
const POINT_TOL: Real = 4e-3;

/// A shape moved by `-o`, exactly for coordinates within a factor 2 of `o`'s.
trait Near: Sized + std::fmt::Debug {
    fn near(&self, o: &Vector) -> Self;
}

impl Near for Sphere {
    fn near(&self, o: &Vector) -> Self {
        Sphere::new(self.center() - o, self.radius())
    }
}

impl Near for Capsule {
    fn near(&self, o: &Vector) -> Self {
        Capsule::new(self.a() - o, self.b() - o, self.radius())
    }
}

impl Near for Obb {
    fn near(&self, o: &Vector) -> Self {
        Obb::new(self.center() - o, *self.rotation(), *self.half_extents())
    }
}

impl Near for Triangle {
    fn near(&self, o: &Vector) -> Self {
        let [a, b, c] = self.vertices();
        Triangle::new(a - o, b - o, c - o)
    }
}

/// A `contact_manifold_*` function.
type ManifoldFn<A, B> = fn(&A, &B, Real) -> Option<ContactManifold>;

struct Pair<A, B> {
    name: &'static str,
    seed: u64,
    make: fn(&mut SmallRng, &Placement) -> (A, B),
    distance: fn(&A, &B) -> ShapeDistance,
    /// Whether the distances are compared: GJK's ([`distance_convex`], the
    /// hulls') works in world coordinates by its contract, and serves only
    /// to place the bands (at the origin).
    compare_distance: bool,
    contact: fn(&A, &B) -> Option<Contact>,
    /// `None` for a pair without a manifold function.
    manifold: Option<ManifoldFn<A, B>>,
}

impl<A: Near, B: Near> Pair<A, B> {
    fn check(&self) {
        let far = Vector::new(1e4, -1e4, 1e4);
        let placement = Placement::new(2.0, 0.1, 1.0).at(Point::from(far));
        let mut rng = rng(self.seed);
        let mut failures: Vec<String> = Vec::new();
        let mut fail = |what: String| {
            if failures.len() < 5 {
                failures.push(what);
            } else {
                failures.push(String::new());
            }
        };
        for k in 0..CASES {
            let (a, b) = (self.make)(&mut rng, &placement);
            let (na, nb) = (a.near(&far), b.near(&far));
            let (d, nd) = ((self.distance)(&a, &b), (self.distance)(&na, &nb));
            if self.compare_distance && (d.distance - nd.distance).abs() > TOL {
                fail(format!("case {k}: distance {} at 1e4, {} at 0: {a:?} {b:?}", d.distance, nd.distance));
            }
            // A point at 1e4, moved back, against the same point at the origin.
            let moved_back = |p: &Point, q: &Point| (p - far - q).amax() <= POINT_TOL;
            if self.compare_distance && !(moved_back(&d.point_a, &nd.point_a) && moved_back(&d.point_b, &nd.point_b)) {
                fail(format!("case {k}: distance points {d:?} at 1e4, {nd:?} at 0: {a:?} {b:?}"));
            }
            let (c, nc) = ((self.contact)(&a, &b), (self.contact)(&na, &nb));
            // Near touching, within `TOL`, either answer is right.
            let touching_band = nc.map_or(nd.distance <= TOL, |c| c.depth <= TOL);
            match (c, nc) {
                (Some(c), Some(nc)) if (c.depth - nc.depth).abs() > TOL => {
                    fail(format!("case {k}: depth {} at 1e4, {} at 0: {a:?} {b:?}", c.depth, nc.depth));
                }
                (Some(c), Some(nc))
                    if !(moved_back(&c.point_a, &nc.point_a) && moved_back(&c.point_b, &nc.point_b)) =>
                {
                    fail(format!("case {k}: contact points {c:?} at 1e4, {nc:?} at 0: {a:?} {b:?}"));
                }
                (Some(_), None) | (None, Some(_)) if !touching_band => {
                    fail(format!("case {k}: contact {} at 1e4, {nc:?} at 0: {a:?} {b:?}", c.is_some()));
                }
                _ => {}
            }
            let prediction = rng.random_range(0.0..0.5);
            let Some(manifold) = self.manifold else { continue };
            let (m, nm) = (manifold(&a, &b, prediction), manifold(&na, &nb, prediction));
            // A manifold exists when the pair touches or lies within the
            // prediction: either answer is right within `TOL` of that edge.
            let prediction_band = match nc {
                Some(c) => c.depth <= TOL && prediction <= TOL,
                None => (nd.distance - prediction).abs() <= TOL,
            };
            if let (Some(m), Some(nm)) = (&m, &nm) {
                let (p, q) = (m.deepest(), nm.deepest());
                if !(moved_back(&p.point_a, &q.point_a) && moved_back(&p.point_b, &q.point_b)) {
                    fail(format!("case {k}: deepest point {p:?} at 1e4, {q:?} at 0: {a:?} {b:?}"));
                }
            }
            let deepest = |m: &Option<ContactManifold>| m.as_ref().map(|m| m.deepest().depth);
            match (deepest(&m), deepest(&nm)) {
                (Some(x), Some(y)) if (x - y).abs() > TOL => {
                    fail(format!("case {k}: deepest {x} at 1e4, {y} at 0 (prediction {prediction}): {a:?} {b:?}"));
                }
                (Some(_), Some(y)) if y.abs() > NORMAL_GAP => {
                    let (n, nn) = (m.expect("some").normal, nm.expect("some").normal);
                    if n.angle(&nn) > NORMAL_TOL {
                        fail(format!("case {k}: normal {n:?} at 1e4, {nn:?} at 0 (depth {y}): {a:?} {b:?}"));
                    }
                }
                (Some(_), None) | (None, Some(_)) if !prediction_band => {
                    fail(format!(
                        "case {k}: manifold {} at 1e4, {} at 0, distance {} prediction {prediction}: {a:?} {b:?}",
                        m.is_some(),
                        nm.is_some(),
                        nd.distance
                    ));
                }
                _ => {}
            }
        }
        let shown: Vec<&String> = failures.iter().filter(|f| !f.is_empty()).collect();
        assert!(failures.is_empty(), "{}: {} failures, e.g.\n{:#?}", self.name, failures.len(), shown);
    }
}

macro_rules! pair_test {
    ($test:ident, $seed:expr, $gen_a:ident, $gen_b:ident, $distance:ident, $contact:ident $(, $manifold:ident)?) => {
        #[test]
        fn $test() {
            let manifold = None $(.or(Some($manifold as _)))?;
            Pair {
                name: stringify!($test),
                seed: $seed,
                make: |r, p| (gen::$gen_a(r, p), gen::$gen_b(r, p)),
                distance: $distance,
                compare_distance: true,
                contact: $contact,
                manifold,
            }
            .check();
        }
    };
}

pair_test!(
    sphere_sphere,
    0xF0,
    sphere,
    sphere,
    distance_sphere_sphere,
    contact_sphere_sphere,
    contact_manifold_sphere_sphere
);
pair_test!(
    sphere_capsule,
    0xF1,
    sphere,
    capsule,
    distance_sphere_capsule,
    contact_sphere_capsule,
    contact_manifold_sphere_capsule
);
pair_test!(sphere_obb, 0xF2, sphere, obb, distance_sphere_obb, contact_sphere_obb, contact_manifold_sphere_obb);
pair_test!(
    sphere_triangle,
    0xF3,
    sphere,
    triangle,
    distance_sphere_triangle,
    contact_sphere_triangle,
    contact_manifold_sphere_triangle
);
pair_test!(
    capsule_capsule,
    0xF4,
    capsule,
    capsule,
    distance_capsule_capsule,
    contact_capsule_capsule,
    contact_manifold_capsule_capsule
);
pair_test!(capsule_obb, 0xF5, capsule, obb, distance_capsule_obb, contact_capsule_obb, contact_manifold_capsule_obb);
pair_test!(
    capsule_triangle,
    0xF6,
    capsule,
    triangle,
    distance_capsule_triangle,
    contact_capsule_triangle,
    contact_manifold_capsule_triangle
);
pair_test!(obb_obb, 0xF7, obb, obb, distance_obb_obb, contact_obb_obb, contact_manifold_obb_obb);
pair_test!(
    obb_triangle,
    0xF8,
    obb,
    triangle,
    distance_obb_triangle,
    contact_obb_triangle,
    contact_manifold_obb_triangle
);
pair_test!(triangle_triangle, 0xF9, triangle, triangle, distance_triangle_triangle, contact_triangle_triangle);

/// A hull under a pose: its contact functions work in the hull's frame.
#[derive(Debug)]
struct PosedHull {
    hull: ConvexHull,
    pose: Isometry,
}

impl Near for PosedHull {
    fn near(&self, o: &Vector) -> Self {
        let mut pose = self.pose;
        pose.translation.vector -= o;
        Self { hull: self.hull.clone(), pose }
    }
}

/// A hull of 12 points within the size range of its pose's centre.
fn hull(rng: &mut SmallRng, p: &Placement) -> PosedHull {
    let points: Vec<Point> =
        (0..12).map(|_| Point::from(gen::unit_vector(rng) * gen::uniform(rng, p.size_lo, p.size_hi))).collect();
    let pose = Isometry::from_parts(gen::point(rng, p).coords.into(), gen::rotation(rng));
    PosedHull { hull: ConvexHull::new(&points), pose }
}

fn gjk_distance<A: SupportMap>(a: &A, b: &PosedHull) -> ShapeDistance {
    distance_convex(a, &PlacedHull::new(&b.hull, &b.pose))
}

/// A round shape (sphere or capsule) against a hull: contact and manifold.
fn round_hull<A: Near + SupportMap>(
    name: &'static str,
    seed: u64,
    make: fn(&mut SmallRng, &Placement) -> (A, PosedHull),
    contact: fn(&A, &PosedHull) -> Option<Contact>,
    manifold: ManifoldFn<A, PosedHull>,
) {
    Pair { name, seed, make, distance: gjk_distance, compare_distance: false, contact, manifold: Some(manifold) }
        .check();
}

#[test]
fn sphere_hull() {
    round_hull(
        "sphere_hull",
        0xFA,
        |r, p| (gen::sphere(r, p), hull(r, p)),
        |a, b| contact_sphere_hull(a, &b.hull, &b.pose),
        |a, b, prediction| contact_manifold_sphere_hull(a, &b.hull, &b.pose, prediction),
    );
}

#[test]
fn capsule_hull() {
    round_hull(
        "capsule_hull",
        0xFB,
        |r, p| (gen::capsule(r, p), hull(r, p)),
        |a, b| contact_capsule_hull(a, &b.hull, &b.pose),
        |a, b, prediction| contact_manifold_capsule_hull(a, &b.hull, &b.pose, prediction),
    );
}

#[test]
fn obb_hull() {
    Pair {
        name: "obb_hull",
        seed: 0xFC,
        make: |r, p| (gen::obb(r, p), hull(r, p)),
        distance: gjk_distance,
        compare_distance: false,
        contact: |a, b| contact_hull_obb(&b.hull, &b.pose, a, 0.0).map(|c| c.flipped()),
        manifold: None,
    }
    .check();
}

/// The overlap tests that share their contact function's closest points
/// agree with it bit for bit, far from the origin too (both work about the
/// same point).
#[test]
fn overlap_tests_agree_with_their_contacts() {
    fn agree<A: std::fmt::Debug, B: std::fmt::Debug>(
        seed: u64,
        make: fn(&mut SmallRng, &Placement) -> (A, B),
        intersects: fn(&A, &B) -> bool,
        contact: fn(&A, &B) -> Option<Contact>,
    ) {
        let placement = Placement::new(2.0, 0.1, 1.0).at(Point::new(1e4, -1e4, 1e4));
        let mut rng = rng(seed);
        for _ in 0..CASES {
            let (a, b) = make(&mut rng, &placement);
            assert_eq!(intersects(&a, &b), contact(&a, &b).is_some(), "{a:?} {b:?}");
        }
    }
    agree(0xE0, |r, p| (gen::sphere(r, p), gen::capsule(r, p)), intersects_sphere_capsule, contact_sphere_capsule);
    agree(0xE1, |r, p| (gen::capsule(r, p), gen::capsule(r, p)), intersects_capsule_capsule, contact_capsule_capsule);
    agree(0xE2, |r, p| (gen::sphere(r, p), gen::triangle(r, p)), intersects_sphere_triangle, contact_sphere_triangle);
}
