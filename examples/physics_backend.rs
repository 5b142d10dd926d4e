//! How a physics engine plugs proxima in: colliders live in a `Scene`, the
//! engine moves them each step with `set_pose`, and one `ContactPipeline`
//! update returns the contact events (begin/end) and the contacts (normal,
//! depth, points) the solver needs. Static colliders are never re-queried.
//! The pipeline here finds its pairs with the grid search (`PairSearch::Grid`),
//! suited to a pile whose bodies all move.
//!
//! `cargo run --release --example physics_backend`

use nalgebra::Translation3;
use proxima::narrowphase::{Isometry, Real, Rotation, Vector};
use proxima::scene::*;

fn main() {
    let mut scene = Scene::new();
    // The ground: static, in the static tree.
    let ground = ColliderShape::Aabb { half_extents: Vector::new(20.0, 0.5, 20.0) };
    scene.insert(ColliderDesc::new(ground, Isometry::translation(0.0, -0.5, 0.0)).fixed()).unwrap();

    // 1,000 bodies: spheres, rotated boxes and capsules, falling.
    let mut bodies = Vec::new();
    for i in 0..1_000 {
        let (x, z, y) =
            ((i % 10) as Real * 1.5 - 7.0, ((i / 10) % 10) as Real * 1.5 - 7.0, (i / 100) as Real * 1.5 + 1.0);
        let shape = match i % 3 {
            0 => ColliderShape::Sphere { radius: 0.5 },
            1 => ColliderShape::Obb { half_extents: Vector::new(0.4, 0.3, 0.5) },
            _ => ColliderShape::Capsule { half_height: 0.4, radius: 0.3 },
        };
        let pose =
            Isometry::from_parts(Translation3::new(x, y, z), Rotation::from_euler_angles(0.3 * i as Real, 0.1, 0.2));
        bodies.push((scene.insert(ColliderDesc::new(shape, pose)).unwrap(), pose, 0.0 as Real));
    }

    // Every body falls every step: a pile whose bodies all move, where finding
    // every pair again with the grid costs less than keeping the pairs in the
    // tracker (`ContactPipeline::new()` alone; the better choice for a world
    // mostly at rest). Both give the same contacts and events.
    let mut pipeline = ContactPipeline::new().with_pair_search(PairSearch::Grid);
    let dt = 1.0 / 60.0;
    for step in 0..120 {
        // The engine's integrator (here: free fall, stopped at the ground by contacts).
        for (handle, pose, vy) in &mut bodies {
            *vy -= 9.81 * dt;
            pose.translation.vector.y += *vy * dt;
            scene.set_pose(*handle, *pose).unwrap();
        }
        let events = pipeline.update(&mut scene);
        let started = events.iter().filter(|e| matches!(e, ContactEvent::Started(_))).count();
        let stopped = events.len() - started;
        // The solver's input: every contact with its normal (from a to b) and depth.
        for pair in pipeline.contacts() {
            for (handle, pose, vy) in &mut bodies {
                let n = pair.contact.normal.into_inner();
                let push = if *handle == pair.a {
                    -n
                } else if *handle == pair.b {
                    n
                } else {
                    continue;
                };
                pose.translation.vector += push * pair.contact.depth * 0.5;
                if push.y > 0.5 && *vy < 0.0 {
                    *vy = 0.0;
                }
            }
        }
        if step % 20 == 0 {
            let s = pipeline.stats();
            println!(
                "step {step:3}: {:5} candidate pairs, {:5} contacts, +{started} -{stopped} events, broadphase {:.2} ms, narrowphase {:.2} ms",
                s.candidate_pairs,
                s.contacts,
                s.broadphase.as_secs_f64() * 1e3,
                s.narrowphase.as_secs_f64() * 1e3
            );
        }
    }
}
