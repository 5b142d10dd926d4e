//! Discrete against continuous collision: bullets fired at a thin wall. The
//! discrete test only looks at where each bullet is at the end of a frame and
//! misses the wall it jumped over; the swept-sphere test finds the first time
//! of impact on the way.
//!
//! `cargo run --release --example ccd_bullets`

use proxima::narrowphase::{Isometry, Real, Sphere, Vector};
use proxima::scene::*;

fn main() {
    let mut scene = Scene::new();
    let wall_x = 20.0;
    let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.05, 10.0, 10.0) };
    scene.insert(ColliderDesc::new(wall, Isometry::translation(wall_x, 0.0, 0.0)).fixed()).unwrap();

    let dt: Real = 1.0 / 60.0;
    let speeds = [30.0, 120.0, 300.0, 600.0, 1200.0];
    println!("| speed (m/s) | step (m) | discrete: tunnelled | continuous: tunnelled | first toi |");
    println!("|---|---|---|---|---|");
    for speed in speeds {
        let (mut discrete_tunnelled, mut ccd_tunnelled, mut first_toi) = (0, 0, None);
        let bullets = 100;
        for k in 0..bullets {
            // Start positions staggered so bullets meet the wall at every phase of a step.
            let start = Vector::new(k as Real * speed * dt / bullets as Real, (k % 10) as Real - 5.0, 0.0);
            let radius = 0.02;
            let mut pos = start;
            let (mut hit_discrete, mut hit_ccd) = (false, false);
            while pos.x < wall_x + 10.0 && !(hit_discrete && hit_ccd) {
                let motion = Vector::new(speed * dt, 0.0, 0.0);
                let from = Sphere::new(pos.into(), radius);
                if !hit_ccd {
                    if let Some(hit) = scene.cast_sphere(&from, &motion, &QueryFilter::default()) {
                        hit_ccd = true;
                        first_toi.get_or_insert(hit.hit.toi);
                    }
                }
                pos += motion;
                let to = Sphere::new(pos.into(), radius);
                hit_discrete |= !scene.overlaps_sphere(&to, &QueryFilter::default()).is_empty();
            }
            discrete_tunnelled += !hit_discrete as usize;
            ccd_tunnelled += !hit_ccd as usize;
        }
        println!(
            "| {speed} | {:.2} | {discrete_tunnelled}/{bullets} | {ccd_tunnelled}/{bullets} | {:.4} |",
            speed * dt,
            first_toi.unwrap_or(Real::NAN)
        );
        assert_eq!(ccd_tunnelled, 0, "continuous collision must stop every bullet");
    }
}
