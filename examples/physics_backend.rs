//! How a physics engine, or a game, plugs proxima in: colliders live in a
//! `Scene`, the engine moves them each step with `set_pose`, and one
//! `ContactPipeline` update returns the contact events (begin/end) and the
//! contacts (normal, depth, points) the solver needs. Static colliders are
//! never re-queried.
//!
//! Besides the falling bodies, the scene has what a game adds:
//! - a sensor (a pickup zone): overlap events, no contacts;
//! - a kinematic platform moved by code: it pushes dynamic bodies, never
//!   pairs with the ground;
//! - a kinematic character moved by sphere casts that ignore the overlap it
//!   starts in when moving out of it (`CastOptions::no_stop_at_penetration`),
//!   that checks its ground with a short cast down (a kinematic collider
//!   never pairs with the static ground) and reads the bodies it pushes
//!   with `contacts_of`;
//! - bodies removed mid-run, whose end events are resolved with `removed`.
//!
//! The pipeline finds its pairs with the grid search (`PairSearch::Grid`):
//! every body falls or settles every step, and finding every pair again costs
//! less than keeping the pairs in the tracker (`ContactPipeline::new()`
//! alone, the better choice for a world mostly at rest or a level of many
//! static pieces; both give the same contacts and events, see BENCHMARKS.md).
//!
//! `cargo run --release --example physics_backend`

use nalgebra::Translation3;
use proxima::narrowphase::{Isometry, Point, Real, Rotation, Sphere, Vector};
use proxima::scene::*;

fn main() {
    let mut scene = Scene::new();
    // The ground: static, in the static tree.
    let ground = ColliderShape::Cuboid { half_extents: Vector::new(20.0, 0.5, 20.0) };
    let ground = scene.insert(ColliderDesc::new(ground, Isometry::translation(0.0, -0.5, 0.0)).fixed()).unwrap();
    // A pickup zone: a sensor, reported by overlap events only.
    let zone = ColliderShape::Cuboid { half_extents: Vector::new(3.0, 1.0, 3.0) };
    let zone = scene.insert(ColliderDesc::new(zone, Isometry::translation(0.0, 1.0, 0.0)).fixed().sensor()).unwrap();
    // A platform moved by code: kinematic.
    let slab = ColliderShape::Cuboid { half_extents: Vector::new(2.0, 0.2, 2.0) };
    let platform_pose = |t: Real| Isometry::translation(10.0 + 3.0 * t.sin(), 0.4, 10.0);
    let platform = scene.insert(ColliderDesc::new(slab, platform_pose(0.0)).kinematic()).unwrap();

    // 1,000 bodies: spheres, rotated boxes and capsules, falling; their user
    // data is their number.
    let mut bodies = Vec::new();
    for i in 0..1_000 {
        let (x, z, y) =
            ((i % 10) as Real * 1.5 - 7.0, ((i / 10) % 10) as Real * 1.5 - 7.0, (i / 100) as Real * 1.5 + 1.0);
        let shape = match i % 3 {
            0 => ColliderShape::Sphere { radius: 0.5 },
            1 => ColliderShape::Cuboid { half_extents: Vector::new(0.4, 0.3, 0.5) },
            _ => ColliderShape::Capsule { half_height: 0.4, radius: 0.3 },
        };
        let pose =
            Isometry::from_parts(Translation3::new(x, y, z), Rotation::from_euler_angles(0.3 * i as Real, 0.1, 0.2));
        let handle = scene.insert(ColliderDesc::new(shape, pose).with_user_data(i)).unwrap();
        bodies.push((handle, pose, 0.0 as Real));
    }

    // The character: a kinematic sphere moved by casts, never by contacts.
    let radius = 0.4;
    let mut feet = Point::new(-12.0, radius, -12.0);
    let character = scene
        .insert(
            ColliderDesc::new(ColliderShape::Sphere { radius }, Isometry::translation(feet.x, feet.y, feet.z))
                .kinematic(),
        )
        .unwrap();

    let mut pipeline = ContactPipeline::new().with_pair_search(PairSearch::Grid);
    let dt = 1.0 / 60.0;
    let (mut entered, mut exited, mut resolved) = (0, 0, 0);
    for step in 0..120 {
        let t = step as Real * dt;
        // The engine's integrator (here: free fall, stopped at the ground by contacts).
        for (handle, pose, vy) in &mut bodies {
            *vy -= 9.81 * dt;
            pose.translation.vector.y += *vy * dt;
            scene.set_pose(*handle, *pose).unwrap();
        }
        scene.set_pose(platform, platform_pose(t)).unwrap();
        // The character walks towards the pile: a cast that ignores its own
        // collider and the overlap it starts in when walking out of it, and
        // passes through sensors.
        let walk = Vector::new(0.1, 0.0, 0.1);
        let filter = QueryFilter::default().exclude_collider(character).exclude_sensors();
        let options = CastOptions::no_stop_at_penetration();
        let hit = scene.cast_sphere_with(&Sphere::new(feet, radius), &walk, &filter, &options);
        feet += walk * hit.map_or(1.0, |h| h.hit.toi);
        scene.set_pose(character, Isometry::translation(feet.x, feet.y, feet.z)).unwrap();
        // Every 30 steps a body is removed (picked up, destroyed).
        if step % 30 == 29 {
            let (handle, ..) = bodies.swap_remove(step % bodies.len());
            scene.remove(handle).unwrap();
        }

        pipeline.update(&mut scene);
        let events = pipeline.events();
        let started = events.iter().filter(|e| matches!(e, ContactEvent::Started(_))).count();
        let stopped = events.len() - started;
        // End events that name a removed body: its last user data is in the record.
        for event in events {
            if let ContactEvent::Stopped { a, b } = *event {
                resolved += [a, b].iter().filter(|&&h| pipeline.removed_user_data(h).is_some()).count();
            }
        }
        for event in pipeline.sensor_events() {
            match event {
                SensorEvent::Entered { .. } => entered += 1,
                SensorEvent::Exited { .. } => exited += 1,
            }
        }
        // The solver's input: each body's contacts, found by body (normal from a to b).
        for (handle, pose, vy) in &mut bodies {
            for pair in pipeline.contacts_of(*handle) {
                let n = pair.contact.normal.into_inner();
                let push = if *handle == pair.a { -n } else { n };
                pose.translation.vector += push * pair.contact.depth * 0.5;
                if push.y > 0.5 && *vy < 0.0 {
                    *vy = 0.0;
                }
            }
        }
        if step % 20 == 0 {
            let s = pipeline.stats();
            let down = Vector::new(0.0, -0.05, 0.0);
            let below = scene.cast_sphere(&Sphere::new(feet, radius), &down, &filter);
            let on_ground = below.is_some_and(|h| h.collider == ground);
            let touching = pipeline.contacts_of(character).count();
            println!(
                "step {step:3}: {:5} candidate pairs, {:5} contacts, +{started} -{stopped} events, broadphase {:.2} ms, \
                 narrowphase {:.2} ms; character on the ground: {on_ground}, touching {touching} bodies",
                s.candidate_pairs,
                s.contacts,
                s.broadphase.as_secs_f64() * 1e3,
                s.narrowphase.as_secs_f64() * 1e3
            );
        }
    }
    let in_zone = pipeline.sensor_pairs().iter().filter(|(a, b)| *a == zone || *b == zone).count();
    println!("pickup zone: {entered} entered, {exited} exited, {in_zone} bodies inside at the end");
    println!("end events naming a removed body, resolved from the removal record: {resolved}");
    println!("the character walked to ({:.2}, {:.2}, {:.2})", feet.x, feet.y, feet.z);
}
