//! Large worlds at the scene level: spheres, boxes, oriented boxes and
//! capsules of size 0.1 to 1 placed 1e5 to 1e7 units from the origin (an f32
//! ulp there is 1/128 to 1 unit).
//!
//! The scene builds each collider's f32 box from its f32 shape. The oracle is
//! the exact box of that same f32 shape computed in f64 (sphere `c ± r`, box
//! corners, oriented box `c ± |R| h` with the box's own f32 axes, capsule
//! `min/max(a, b) ± r`). Checked:
//! - no pair is lost: whenever two exact boxes overlap, the scene's f32 boxes
//!   overlap too (so the exact broadphases, which the broadphase tests check
//!   against brute force, cannot miss the pair);
//! - every pair of spheres that overlaps by more than the rounding of its
//!   f32 test is reported by the contact pipeline;
//! - how often a scene box does not contain its shape's exact box (rounding
//!   to nearest can move a bound inward by half an ulp) is reported, per shape.
//!
//! A bound computed with one rounding (`c + r`) is monotone in its exact
//! value, so comparisons between such bounds keep their order and no pair
//! is lost; the oriented box's `c + |R| h` rounds twice, which in principle
//! can lose a pair whose exact boxes touch within an ulp.

use proxima_narrowphase::{Isometry, Rotation, Vector};
use proxima_scene::{ColliderDesc, ColliderHandle, ColliderShape, ContactPipeline, Scene, WorldShape};
use proxima_test_support::{rng, Rng, SmallRng};

/// A box in f64: `(min, max)`.
type Box64 = ([f64; 3], [f64; 3]);

/// The exact (f64) box of a placed f32 shape.
fn exact_box(shape: &WorldShape) -> Box64 {
    let p = |v: &Vector| [v.x as f64, v.y as f64, v.z as f64];
    match shape {
        WorldShape::Sphere(s) => {
            let (c, r) = (p(&s.center().coords), s.radius() as f64);
            (c.map(|x| x - r), c.map(|x| x + r))
        }
        WorldShape::Aabb(a) => (p(&a.min().coords), p(&a.max().coords)),
        WorldShape::Obb(o) => {
            let c = p(&o.center().coords);
            let h = p(o.half_extents());
            let ax = o.axes();
            let e: [f64; 3] = core::array::from_fn(|i| (0..3).map(|j| (ax[(i, j)] as f64).abs() * h[j]).sum());
            (core::array::from_fn(|i| c[i] - e[i]), core::array::from_fn(|i| c[i] + e[i]))
        }
        WorldShape::Capsule(k) => {
            let (a, b, r) = (p(&k.a().coords), p(&k.b().coords), k.radius() as f64);
            (core::array::from_fn(|i| a[i].min(b[i]) - r), core::array::from_fn(|i| a[i].max(b[i]) + r))
        }
        _ => unreachable!("no meshes or hulls here"),
    }
}

fn overlap(a: &Box64, b: &Box64) -> bool {
    (0..3).all(|i| a.0[i] <= b.1[i] && b.0[i] <= a.1[i])
}

/// `n` colliders of every shape kind, size 0.1 to 1, in a cube of side
/// `cbrt(n / 2)` centred `distance` from the origin along `dir`.
fn populate(scene: &mut Scene, n: usize, distance: f64, dir: [f64; 3], rng: &mut SmallRng) {
    let len = dir.iter().map(|d| d * d).sum::<f64>().sqrt();
    let side = (0.5 * n as f64).cbrt();
    for i in 0..n {
        let c: [f64; 3] = core::array::from_fn(|k| dir[k] / len * distance + rng.random_range(-0.5..0.5) * side);
        let mut h = || rng.random_range(0.05f32..0.5);
        let shape = match i % 4 {
            0 => ColliderShape::Sphere { radius: h() },
            1 => ColliderShape::Cuboid { half_extents: Vector::new(h(), h(), h()) },
            2 => ColliderShape::Cuboid { half_extents: Vector::new(h(), h(), h()) },
            _ => ColliderShape::Capsule { half_height: h(), radius: h() },
        };
        let rot = Rotation::from_euler_angles(
            rng.random_range(0.0..6.3),
            rng.random_range(0.0..6.3),
            rng.random_range(0.0..6.3),
        );
        let pose = Isometry::from_parts(Vector::new(c[0] as f32, c[1] as f32, c[2] as f32).into(), rot);
        let desc = ColliderDesc::new(shape, pose);
        scene.insert(if i % 5 == 0 { desc.fixed() } else { desc }).expect("valid collider");
    }
}

fn run(distance: f64, seed: u64) {
    let mut rng = rng(seed);
    let mut scene = Scene::new();
    populate(&mut scene, 1_000, distance, [1.0, 0.0, 0.0], &mut rng);
    populate(&mut scene, 1_000, distance, [1.0, -1.0, 1.0], &mut rng);
    let all: Vec<(ColliderHandle, &WorldShape, Box64, proxima_narrowphase::Aabb)> =
        scene.iter().map(|(h, c)| (h, c.world_shape(), exact_box(c.world_shape()), *c.aabb())).collect();
    // Boxes that do not contain the exact box, per shape kind.
    let mut inward = [0usize; 4];
    for (_, shape, exact, b) in &all {
        let contains = (0..3).all(|i| b.min()[i] as f64 <= exact.0[i] && b.max()[i] as f64 >= exact.1[i]);
        if !contains {
            inward[kind(shape)] += 1;
        }
    }
    // No pair lost between exact boxes and scene boxes.
    let (mut exact_pairs, mut lost) = (0usize, Vec::new());
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if overlap(&a.2, &b.2) {
                exact_pairs += 1;
                if !proxima_narrowphase::intersects_aabb_aabb(&a.3, &b.3) {
                    lost.push((a.1.clone(), b.1.clone()));
                }
            }
        }
    }
    assert!(exact_pairs > 500, "the scene must have pairs ({exact_pairs})");
    assert!(lost.is_empty(), "distance {distance:e}: {} pairs lost, e.g. {:?}", lost.len(), lost.first());
    // Overlapping spheres are reported by the pipeline. The f32 test compares
    // |c1 - c2|^2 with (r1 + r2)^2; near each other the difference of the
    // centres is exact (Sterbenz), so only the squares round: a margin of
    // 1e-5 * (r1 + r2) covers them.
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    let contacts: Vec<(ColliderHandle, ColliderHandle)> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
    let spheres: Vec<(ColliderHandle, [f64; 3], f64, bool)> = scene
        .iter()
        .filter_map(|(h, c)| match c.world_shape() {
            WorldShape::Sphere(s) => {
                let p = s.center();
                Some((
                    h,
                    [p.x as f64, p.y as f64, p.z as f64],
                    s.radius() as f64,
                    c.kind() == proxima_scene::BodyKind::Fixed,
                ))
            }
            _ => None,
        })
        .collect();
    let mut sphere_pairs = 0;
    for (i, a) in spheres.iter().enumerate() {
        for b in &spheres[i + 1..] {
            let d = (0..3).map(|k| (a.1[k] - b.1[k]).powi(2)).sum::<f64>().sqrt();
            if d < (a.2 + b.2) * (1.0 - 1e-5) && !(a.3 && b.3) {
                sphere_pairs += 1;
                let key = if a.0 < b.0 { (a.0, b.0) } else { (b.0, a.0) };
                assert!(contacts.binary_search(&key).is_ok(), "distance {distance:e}: sphere contact {key:?} missed");
            }
        }
    }
    eprintln!(
        "distance {distance:e}: {exact_pairs} exact pairs, none lost; {sphere_pairs} sphere contacts, none missed; \
         boxes not containing the exact box (sphere, aabb, obb, capsule, of 500 each): {inward:?}"
    );
}

fn kind(shape: &WorldShape) -> usize {
    match shape {
        WorldShape::Sphere(_) => 0,
        WorldShape::Aabb(_) => 1,
        WorldShape::Obb(_) => 2,
        _ => 3,
    }
}

#[test]
fn scene_boxes_lose_no_pair_1e5_from_the_origin() {
    run(1e5, 11);
}

#[test]
fn scene_boxes_lose_no_pair_1e6_from_the_origin() {
    run(1e6, 12);
}

#[test]
fn scene_boxes_lose_no_pair_1e7_from_the_origin() {
    run(1e7, 13);
}
