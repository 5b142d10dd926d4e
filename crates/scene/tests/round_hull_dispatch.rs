//! The scene's dispatch sends a sphere or a capsule and a convex hull, in
//! either order, to `contact_{sphere,capsule}_hull` /
//! `contact_manifold_{sphere,capsule}_hull` (the other order flipped): same
//! contacts, same manifolds, same feature ids.
//!
//! `cargo test --release -p proxima-scene --test round_hull_dispatch`

use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{
    contact_capsule_hull, contact_manifold_capsule_hull, contact_manifold_sphere_hull, contact_sphere_hull, Capsule,
    ConvexHull, Isometry, Point, Real, Sphere, Vector,
};
use proxima_scene::{contact, contact_manifolds, ColliderShape, WorldShape};
use proxima_test_support::gen::{rotation, uniform};
use proxima_test_support::Rng;

#[test]
fn sphere_and_capsule_hull_pairs_take_the_closed_forms_in_both_orders() {
    let mut rng = proxima_test_support::rng(0x5ed1);
    let (mut hits, n) = (0, 2_000);
    for _ in 0..n {
        let points: Vec<Point> = (0..rng.random_range(6..30))
            .map(|_| {
                Point::new(uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0))
            })
            .collect();
        let Ok(hull) = ConvexHull::try_new(&points) else { continue };
        let hull = Arc::new(hull);
        let pose = Isometry::from_parts(Translation3::new(3.0, -2.0, 1.0), rotation(&mut rng));
        let h = ColliderShape::ConvexHull(hull.clone()).placed(&pose).unwrap();
        let centre = pose.transform_point(&Point::new(
            uniform(&mut rng, -1.4, 1.4),
            uniform(&mut rng, -1.4, 1.4),
            uniform(&mut rng, -1.4, 1.4),
        ));
        let ball = Sphere::new(centre, uniform(&mut rng, 0.0, 0.8));
        let s = WorldShape::Sphere(ball);
        let want = contact_sphere_hull(&ball, &hull, &pose);
        hits += usize::from(want.is_some());
        assert_eq!(contact(&s, &h), want);
        assert_eq!(contact(&h, &s), want.map(|c| c.flipped()));
        let prediction: Real = 0.1;
        let want = contact_manifold_sphere_hull(&ball, &hull, &pose, prediction);
        let (mut ab, mut ba) = (Vec::new(), Vec::new());
        contact_manifolds(&s, &h, prediction, &mut ab);
        contact_manifolds(&h, &s, prediction, &mut ba);
        assert_eq!(ab.first().copied(), want);
        assert_eq!(ba.first().copied(), want.map(|m| m.flipped()));
        assert!(ab.len() <= 1 && ba.len() <= 1);

        let half =
            Vector::new(uniform(&mut rng, -0.8, 0.8), uniform(&mut rng, -0.8, 0.8), uniform(&mut rng, -0.8, 0.8));
        let cap = Capsule::new(centre - half, centre + half, ball.radius());
        let k = WorldShape::Capsule(cap);
        let want = contact_capsule_hull(&cap, &hull, &pose);
        assert_eq!(contact(&k, &h), want);
        assert_eq!(contact(&h, &k), want.map(|c| c.flipped()));
        let want = contact_manifold_capsule_hull(&cap, &hull, &pose, prediction);
        let (mut ab, mut ba) = (Vec::new(), Vec::new());
        contact_manifolds(&k, &h, prediction, &mut ab);
        contact_manifolds(&h, &k, prediction, &mut ba);
        assert_eq!(ab.first().copied(), want);
        assert_eq!(ba.first().copied(), want.map(|m| m.flipped()));
    }
    assert!(hits > n / 5 && hits < n * 4 / 5, "{hits} hits of {n}");
}
