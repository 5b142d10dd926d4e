//! Sweeps through the scene against large rotated boxes: `Scene::cast_sphere`
//! and the contact pipeline's CCD give the exact time of impact, as
//! `cast_sphere_obb` does (its own precision tests are in the narrowphase's
//! `sweep_precision.rs`).
//!
//! Boxes of half-extent 50 and 5000 at (1e4, -1e4, 1e4), rotated by random
//! f32 quaternions; a sphere of radius 0.5 starts 0.01-3 outside a face
//! point and moves 1-5 units towards it. The oracle: the first root of the
//! f64 gap `|x - clamp(x)| - r` along the motion, `x` the centre in the box
//! frame of the rotation (the quaternion normalised in f64), found by
//! bisection (the gap is convex in `t`). Within `1e-5` of the motion (the
//! f32 rotation matrix put these up to 1e-2 off); approaches at a cosine
//! below 0.05 are left out (a tangent root is ill-conditioned).

use nalgebra::{UnitQuaternion, Vector3};
use proxima_narrowphase::{cast_sphere_obb, Isometry, Obb, Point, Sphere, Vector};
use proxima_scene::*;
use proxima_test_support::minimize::convex_min;
use proxima_test_support::{gen, rng, Rng};

type V = Vector3<f64>;

const RADIUS: f32 = 0.5;

/// The exact first contact, `None` for a miss, from the f64 gap function.
fn exact_toi(obb: &Obb, start: &Point, motion: &Vector) -> Option<f64> {
    let q = UnitQuaternion::new_normalize(obb.rotation().as_ref().cast::<f64>());
    let a = q.to_rotation_matrix().into_inner();
    let (c, h) = (obb.center().coords.cast::<f64>(), obb.half_extents().cast::<f64>());
    let (p, m) = (a.tr_mul(&(start.coords.cast::<f64>() - c)), a.tr_mul(&motion.cast::<f64>()));
    let gap = |t: f64| {
        let x: V = p + m * t;
        (x - x.sup(&-h).inf(&h)).norm() - RADIUS as f64
    };
    // The gap is convex: its minimum on [0, 1] by golden section, then the
    // root before it by bisection.
    let least = convex_min(gap, 0.0, 1.0, 100);
    if least.value > 0.0 {
        return None;
    }
    let (mut a, mut b) = (0.0f64, least.at);
    for _ in 0..100 {
        let mid = 0.5 * (a + b);
        if gap(mid) > 0.0 {
            a = mid;
        } else {
            b = mid;
        }
    }
    Some(b)
}

#[test]
fn scene_sweeps_and_ccd_on_large_rotated_boxes_are_exact() {
    let mut rng = rng(3501);
    let (mut checked, mut hits) = (0usize, 0usize);
    for i in 0..400 {
        let h = if i % 2 == 0 { 50.0f32 } else { 5000.0 };
        let rotation = gen::rotation(&mut rng);
        let centre = Vector::new(1e4, -1e4, 1e4);
        let obb = Obb::new(Point::from(centre), rotation, Vector::repeat(h));
        // A face point within 0.9 h of the face's centre, its outward normal.
        let axis = rng.random_range(0..3usize);
        let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let mut local = Vector::from_fn(|_, _| h * rng.random_range(-0.9..0.9f32));
        local[axis] = sign * h;
        let n = obb.axes().column(axis) * sign;
        let surface = obb.to_world(&local);
        let tilt = gen::unit_vector(&mut rng) * rng.random_range(0.0..0.6f32);
        let start = surface + (n + tilt).normalize() * (RADIUS + rng.random_range(0.01..3.0f32));
        let target = surface + n * RADIUS * rng.random_range(-0.5..3.0f32);
        let motion = (target - start) * 1.25;

        let mut scene = Scene::new();
        let pose = Isometry::from_parts(centre.into(), rotation);
        let wall = scene
            .insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: Vector::repeat(h) }, pose).fixed())
            .unwrap();
        let sphere = Sphere::new(start, RADIUS);
        let direct = cast_sphere_obb(&sphere, &motion, &obb);
        let through_scene = scene.cast_sphere(&sphere, &motion, &QueryFilter::default());
        assert_eq!(direct, through_scene.map(|s| s.hit), "case {i}: the scene's sweep is the narrowphase's");

        // The pipeline's CCD: a bullet moved from `start` to `start + motion`.
        let bullet = ColliderDesc::new(
            ColliderShape::Sphere { radius: RADIUS },
            Isometry::translation(start.x, start.y, start.z),
        );
        let b = scene.insert(bullet.with_ccd()).unwrap();
        let mut pipeline = ContactPipeline::new();
        pipeline.update(&mut scene);
        let end = start + motion;
        scene.set_pose(b, Isometry::translation(end.x, end.y, end.z)).unwrap();
        pipeline.update(&mut scene);
        let ccd = pipeline.ccd_impacts().iter().find(|c| c.collider == b && c.other == wall).map(|c| c.hit);

        let exact = exact_toi(&obb, &start, &motion);
        let cos = -(n.dot(&motion) / motion.norm()) as f64;
        if cos < 0.05 {
            continue;
        }
        checked += 1;
        match (exact, direct) {
            (None, None) => {}
            (Some(t), Some(hit)) => {
                hits += 1;
                assert!((hit.toi as f64 - t).abs() <= 1e-5, "case {i} (h {h}): toi {} against {t}", hit.toi);
                // The bullet's motion is its two poses' difference: `end` is
                // `start + motion` rounded to the f32 grid at 1e4 (1e-3).
                let moved = end - start;
                if let (true, Some(t)) = (t > 0.0, exact_toi(&obb, &start, &moved)) {
                    let ccd = ccd.unwrap_or_else(|| panic!("case {i}: no CCD impact for toi {t}"));
                    assert!((ccd.toi as f64 - t).abs() <= 1e-5, "case {i}: CCD toi {} against {t}", ccd.toi);
                }
            }
            (e, d) => panic!("case {i} (h {h}): exact {e:?}, sweep {d:?}"),
        }
    }
    assert!(checked > 200 && hits > checked / 4 && hits < checked, "{checked} checked, {hits} hits");
}
