//! Scene ray casts against the same scene built in parry3d 0.31 (its shapes
//! under its `Bvh`), on seeded random rays.

mod common;

use parry3d::partitioning::{Bvh, BvhBuildStrategy};
use parry3d::query::Ray as PRay;
use proxima_narrowphase::{Ray, Real};
use proxima_scene::QueryFilter;
use proxima_test_support::{convert, gen};

const RAYS: usize = 1_000_000;

/// Relative toi tolerance: both sides solve the same quadratics/slabs in f32
/// on coordinates up to ~100, so agreement to ~1e-5 of the ray length.
const TOI_REL: Real = 1e-5;

#[test]
fn closest_hits_match_parry() {
    let side = 100.0 * (10.0f32).cbrt();
    let (scene, handles) = common::mixed_scene(10_000, side, 0x5CE7E);
    let shapes: Vec<_> = handles.iter().map(|&h| common::parry_shape(scene.get(h).unwrap().world_shape())).collect();
    let leaves: Vec<_> = handles.iter().map(|&h| convert::aabb(scene.get(h).unwrap().aabb())).collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);

    let mut rng = proxima_test_support::rng(0xA11);
    let diag = side * 3f32.sqrt();
    let tol = TOI_REL * diag;
    let (mut hits, mut tangent, mut ties, mut parry_off) = (0usize, 0usize, 0usize, 0usize);
    for i in 0..RAYS {
        let origin = common::point_in(&mut rng, side);
        let dir = gen::unit_vector(&mut rng);
        let ray = Ray::new(origin, dir, diag);
        let pray = PRay::new(convert::pt(&origin), convert::vec(&dir));
        let theirs = bvh.cast_ray(&pray, diag, |leaf, best| {
            let (pose, shape) = &shapes[leaf as usize];
            shape.cast_ray(pose, &pray, best, true)
        });
        let ours = scene.cast_ray_closest(&ray, &QueryFilter::default());
        match (ours, theirs) {
            (Some(o), Some((leaf, t))) => {
                hits += 1;
                if o.collider != handles[leaf as usize] {
                    // Another collider: either a tie, or parry's pick is
                    // inaccurate. The f64 oracle on parry's pick decides: it
                    // must not be entered (by more than the tangency band)
                    // before our hit.
                    let (exact, closest) =
                        common::oracle_ray_toi(scene.get(handles[leaf as usize]).unwrap().world_shape(), &ray);
                    if let Some(e) = exact {
                        assert!(
                            e as Real >= o.toi - tol || closest > -1e-4,
                            "ray {i}: we hit {:?} at {} but parry's slot {leaf} is entered at {e}",
                            o.collider,
                            o.toi
                        );
                    }
                    ties += 1;
                } else if (o.toi - t).abs() > tol {
                    // Where parry's f32 quadratics lose precision (grazing
                    // spheres and capsules), the f64 oracle decides: ours must
                    // match it, or the ray must graze (within 1e-4).
                    let shape = scene.get(o.collider).unwrap().world_shape();
                    let (exact, closest) = common::oracle_ray_toi(shape, &ray);
                    match exact {
                        Some(e) => assert!(
                            (o.toi - e as Real).abs() <= tol,
                            "ray {i}: toi {} vs oracle {e} (parry {t})",
                            o.toi
                        ),
                        None => {
                            assert!(closest < 1e-4, "ray {i}: hit {shape:?} at {}, oracle misses by {closest}", o.toi)
                        }
                    }
                    parry_off += 1;
                }
            }
            (None, None) => {}
            (ours, theirs) => {
                // A hit/miss disagreement: the f64 oracle on the disputed
                // collider decides. Where it sides with parry, ours may differ
                // only at tangency (closest approach within 1e-4 of the surface).
                let h = ours.map_or_else(|| handles[theirs.unwrap().0 as usize], |o| o.collider);
                let (exact, closest) = common::oracle_ray_toi(scene.get(h).unwrap().world_shape(), &ray);
                if exact.is_some() == ours.is_some() {
                    parry_off += 1;
                } else {
                    assert!(
                        closest.abs() < 1e-4,
                        "ray {i}: ours {ours:?} vs parry {theirs:?}, {closest} from tangency"
                    );
                    tangent += 1;
                }
            }
        }
    }
    let frac = hits as f64 / RAYS as f64;
    eprintln!(
        "scene rays: {RAYS} rays, {frac:.3} hit, {tangent} tangent, {ties} ties, {parry_off} where parry's toi is off"
    );
    // The density of the 100k-box bench scene over a 10k scene: about one ray in eight hits.
    assert!(frac > 0.1 && frac < 0.95, "hit fraction {frac}");
    assert!(tangent <= RAYS / 10_000, "{tangent} hit/miss disagreements at tangency");
}

#[test]
fn any_hit_agrees_with_closest_hit() {
    let side = 50.0;
    let (scene, _) = common::mixed_scene(2_000, side, 0xA2);
    let mut rng = proxima_test_support::rng(0xA3);
    for i in 0..50_000 {
        let ray = Ray::new(common::point_in(&mut rng, side), gen::unit_vector(&mut rng), side);
        let closest = scene.cast_ray_closest(&ray, &QueryFilter::default());
        let any = scene.cast_ray_any(&ray, &QueryFilter::default());
        assert_eq!(closest.is_some(), any.is_some(), "ray {i}");
        if let (Some(c), Some(a)) = (closest, any) {
            assert!(a.toi >= c.toi - 1e-6, "ray {i}: any-hit toi {} before the closest {}", a.toi, c.toi);
        }
    }
}

#[test]
fn batch_equals_sequential_in_input_order() {
    let side = 50.0;
    let (scene, _) = common::mixed_scene(2_000, side, 0xB1);
    let mut rng = proxima_test_support::rng(0xB2);
    let rays: Vec<Ray> =
        (0..20_000).map(|_| Ray::new(common::point_in(&mut rng, side), gen::unit_vector(&mut rng), side)).collect();
    let batch = scene.cast_rays(&rays, &QueryFilter::default());
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let batch_one_thread = one.install(|| scene.cast_rays(&rays, &QueryFilter::default()));
    for (i, ray) in rays.iter().enumerate() {
        let seq = scene.cast_ray_closest(ray, &QueryFilter::default());
        assert_eq!(batch[i], seq, "ray {i}");
        assert_eq!(batch_one_thread[i], seq, "ray {i}");
    }
}
