//! The manifolds of a sphere, a capsule or a box against a face exist
//! exactly when their contract says: `contact_manifold_{capsule_obb,
//! capsule_triangle, obb_triangle, sphere_triangle}(a, b, p)` is `None`
//! exactly when the contact test is
//! `None` and the distance function puts the shapes farther apart than
//! `p`, and a speculative manifold's deepest point is that distance (its
//! depth `-distance`, to rounding).
//!
//! The manifolds find the distance other ways where they can (the contact
//! test's closest points, a box's clipped face or edges) and reject pairs
//! by a plane or an axis first; this pins them to the distance functions'
//! answer. Random pairs at the origin and at `1e4` (sizes 0.1-1, centres
//! within 2), predictions from 0 to 1.5, 200,000 pairs per shape pair.
//! Tolerance of the depth: `1e-5` of the coordinates' magnitude plus one,
//! the rounding of a depth re-expressed along a face normal (see
//! `Gathered::finish`).

use proxima_narrowphase::*;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{rng, Rng};

const CASES: usize = 200_000;

fn check<A: std::fmt::Debug, B: std::fmt::Debug>(
    what: &str,
    seed: u64,
    make: impl Fn(&mut proxima_test_support::SmallRng, &Placement) -> (A, B),
    contact: impl Fn(&A, &B) -> Option<Contact>,
    distance: impl Fn(&A, &B) -> ShapeDistance,
    manifold: impl Fn(&A, &B, Real) -> Option<ContactManifold>,
) {
    let mut rng = rng(seed);
    let mut speculative = 0;
    for i in 0..CASES {
        let origin = if i % 2 == 0 { Point::origin() } else { Point::new(1e4, -1e4, 1e4) };
        let p = Placement::new(2.0, 0.1, 1.0).at(origin);
        let (a, b) = make(&mut rng, &p);
        let prediction = rng.random_range(0.0..1.5);
        let m = manifold(&a, &b, prediction);
        if contact(&a, &b).is_some() {
            assert!(m.is_some(), "{what}: a touching pair lost its manifold: {a:?} {b:?}");
            continue;
        }
        let d = distance(&a, &b);
        assert_eq!(m.is_some(), d.distance <= prediction, "{what}: {d:?} p={prediction} {a:?} {b:?}");
        if let Some(m) = m {
            speculative += 1;
            let tol = 1e-5 * (1.0 + origin.coords.amax());
            let deepest = m.deepest().depth;
            assert!((deepest + d.distance).abs() <= tol, "{what}: depth {deepest} vs {d:?}: {a:?} {b:?}");
        }
    }
    // The random pairs reach the speculative branch often enough to test it.
    assert!(speculative > CASES / 20, "{what}: only {speculative} speculative manifolds");
}

#[test]
fn capsule_triangle_manifold_exists_exactly_within_the_prediction() {
    check(
        "capsule-triangle",
        0xCA7,
        |r, p| (gen::capsule(r, p), gen::triangle(r, p)),
        contact_capsule_triangle,
        distance_capsule_triangle,
        contact_manifold_capsule_triangle,
    );
}

#[test]
fn capsule_obb_manifold_exists_exactly_within_the_prediction() {
    check(
        "capsule-obb",
        0xCA8,
        |r, p| (gen::capsule(r, p), gen::obb(r, p)),
        contact_capsule_obb,
        distance_capsule_obb,
        contact_manifold_capsule_obb,
    );
}

#[test]
fn obb_triangle_manifold_exists_exactly_within_the_prediction() {
    check(
        "obb-triangle",
        0xCA9,
        |r, p| (gen::obb(r, p), gen::triangle(r, p)),
        contact_obb_triangle,
        distance_obb_triangle,
        contact_manifold_obb_triangle,
    );
}

#[test]
fn sphere_triangle_manifold_exists_exactly_within_the_prediction() {
    check(
        "sphere-triangle",
        0xCAA,
        |r, p| (gen::sphere(r, p), gen::triangle(r, p)),
        contact_sphere_triangle,
        distance_sphere_triangle,
        contact_manifold_sphere_triangle,
    );
}
