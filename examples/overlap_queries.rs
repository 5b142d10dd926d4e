//! Overlap and point queries with filters: collision groups, excluded
//! handles and a predicate closure.
//!
//! `cargo run --release --example overlap_queries`

use proxima::narrowphase::{Isometry, Obb, Point, Rotation, Sphere, Vector};
use proxima::scene::*;

fn main() {
    let mut scene = Scene::new();
    let players = CollisionGroups { memberships: 0b01, filter: u32::MAX };
    let pickups = CollisionGroups { memberships: 0b10, filter: u32::MAX };
    let mut handles = Vec::new();
    for i in 0..20 {
        let x = i as f32 * 1.5;
        let (shape, groups) = if i % 2 == 0 {
            (ColliderShape::Sphere { radius: 0.5 }, players)
        } else {
            (ColliderShape::Cuboid { half_extents: Vector::new(0.3, 0.6, 0.3) }, pickups)
        };
        let pose = Isometry::translation(x, 0.0, 0.0);
        handles.push(scene.insert(ColliderDesc::new(shape, pose).with_groups(groups).with_user_data(i)).unwrap());
    }

    let blast = Sphere::new(Point::new(6.0, 0.0, 0.0), 2.5);
    let all = scene.overlaps_sphere(&blast, &QueryFilter::default());
    println!("sphere of radius 2.5 at x = 6 overlaps {} colliders: {:?}", all.len(), user_data(&scene, &all));

    let only_pickups =
        QueryFilter { groups: CollisionGroups { memberships: u32::MAX, filter: 0b10 }, ..Default::default() };
    let picked = scene.overlaps_sphere(&blast, &only_pickups);
    println!("  of which pickups (group filter): {:?}", user_data(&scene, &picked));

    let not_me = [handles[4]];
    let others = scene.overlaps_sphere(&blast, &QueryFilter::excluding(&not_me));
    println!("  excluding collider 4: {:?}", user_data(&scene, &others));

    let far_half = |_: ColliderHandle, c: &Collider| c.pose().translation.vector.x > 6.0;
    let predicate = QueryFilter { predicate: Some(&far_half), ..Default::default() };
    println!("  with x > 6 (predicate): {:?}", user_data(&scene, &scene.overlaps_sphere(&blast, &predicate)));

    let rotated =
        Obb::new(Point::new(15.0, 0.0, 0.0), Rotation::from_euler_angles(0.0, 0.0, 0.7), Vector::new(2.0, 0.2, 0.2));
    println!(
        "rotated box at x = 15 overlaps {:?}",
        user_data(&scene, &scene.overlaps_obb(&rotated, &QueryFilter::default()))
    );

    let p = Point::new(3.1, 0.2, 0.0);
    println!(
        "point {p:?} lies in {:?}",
        user_data(&scene, &scene.colliders_containing_point(&p, &QueryFilter::default()))
    );
    if let Some(c) = scene.closest_point(&Point::new(7.0, 3.0, 0.0), 10.0, &QueryFilter::default()) {
        let (data, q, d) = (scene.get(c.collider).unwrap().user_data(), c.point, c.distance);
        println!("closest collider to (7, 3, 0): {data} at {q:?}, distance {d:.3}");
    }
}

fn user_data(scene: &Scene, hs: &[ColliderHandle]) -> Vec<u64> {
    hs.iter().map(|&h| scene.get(h).unwrap().user_data()).collect()
}
