//! Balls dropped on a heightfield: the terrain is a `ColliderShape::HeightField`
//! (its contacts go through its triangle mesh), the balls fall under gravity
//! and are pushed out along each contact's normal (a position-only sketch,
//! not a solver), and the field's own grid-walking ray cast finds the ground
//! under each ball. Prints the contacts as they start and where the balls
//! settle.
//!
//! `cargo run --release --example terrain`

use std::sync::Arc;

use proxima::nalgebra::DMatrix;
use proxima::narrowphase::{Isometry, Point, Ray, Real, Vector};
use proxima::scene::*;

fn main() {
    // 65 x 65 samples over 64 x 64 units: rolling hills up to ~3 high.
    let heights = DMatrix::from_fn(65, 65, |i, j| {
        let (z, x) = (i as Real * 0.15, j as Real * 0.12);
        1.5 * x.sin() * z.cos() + 0.8 * (0.5 * x + 0.3 * z).sin()
    });
    let field = Arc::new(HeightField::try_new(heights, Vector::new(64.0, 1.0, 64.0)).expect("valid heights"));
    println!(
        "terrain: {}x{} samples, {} triangles, {} KiB with its mesh",
        field.rows(),
        field.cols(),
        field.mesh().indices().len(),
        field.memory_bytes() / 1024
    );

    let mut scene = Scene::new();
    let ground = scene
        .insert(ColliderDesc::new(ColliderShape::HeightField(Arc::clone(&field)), Isometry::identity()).fixed())
        .expect("a valid collider");
    let radius = 0.5;
    let mut balls: Vec<(ColliderHandle, Point)> = (0..6)
        .map(|k| {
            let at = Point::new(-20.0 + 8.0 * k as Real, 8.0, 10.0 - 4.0 * k as Real);
            let desc = ColliderDesc::new(ColliderShape::Sphere { radius }, Isometry::translation(at.x, at.y, at.z));
            (scene.insert(desc).expect("a valid ball"), at)
        })
        .collect();

    let mut pipeline = ContactPipeline::new();
    let (dt, fall_speed): (Real, Real) = (1.0 / 60.0, 4.0);
    for frame in 0..240 {
        // Fall, then let the pipeline report this frame's contacts.
        for (handle, at) in &mut balls {
            at.y -= fall_speed * dt;
            scene.set_pose(*handle, Isometry::translation(at.x, at.y, at.z)).expect("a valid pose");
        }
        for event in pipeline.update(&mut scene) {
            if let ContactEvent::Started(pair) = event {
                println!("frame {frame:3}: {:?} touches {:?}, depth {:.4}", pair.a, pair.b, pair.contact.depth);
            }
        }
        // Push each ball out of the ground along the contact normal.
        for pair in pipeline.contacts() {
            let (ball, sign) = if pair.a == ground { (pair.b, 1.0) } else { (pair.a, -1.0) };
            if let Some((_, at)) = balls.iter_mut().find(|(h, _)| *h == ball) {
                *at += pair.contact.normal.into_inner() * (sign * pair.contact.depth);
            }
        }
    }
    for (handle, at) in &balls {
        // The ground straight below, by the grid walk (the field's frame is
        // the world's here).
        let down = Ray::new(*at, -Vector::y(), 100.0);
        let ground_y = field.cast_ray_closest(&down).map(|h| at.y - h.hit.toi);
        println!("{handle:?} rests at {at:?}, ground below at y = {ground_y:?}");
    }
}
