//! The overlap visitor and `_into` forms, `cast_sphere_with` (both options)
//! and `closest_point` allocate nothing once the output vector holds the
//! largest answer, counted by a global allocator, on a seeded scene of every
//! solid shape and bumpy meshes, with filters of every kind.

mod query_oracles;

use core::ops::ControlFlow;

use proxima_narrowphase::{Sphere, Vector};
use proxima_scene::{CastOptions, ColliderHandle, OverlapShape, Scene};
use proxima_test_support::alloc::CountingAllocator;
use proxima_test_support::gen::{self, uniform};
use query_oracles::{point_in, probe, FilterSpec};

/// Counts allocations and reallocations of every thread. The file holds a
/// single test, so the harness runs nothing else meanwhile.
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

/// One round of queries: every probe into `out` and through the visitor,
/// a sweep under each option and a closest point per probe. Returns how
/// many colliders the round found (so that the work is not optimised away).
fn round(
    scene: &Scene,
    probes: &[(OverlapShape, Sphere, Vector)],
    specs: &[FilterSpec],
    out: &mut Vec<ColliderHandle>,
) -> usize {
    let mut found = 0;
    let leave = CastOptions::no_stop_at_penetration();
    for (i, (shape, sphere, motion)) in probes.iter().enumerate() {
        let filter = specs[i % specs.len()].filter();
        scene.overlaps_into(shape, &filter, out);
        found += out.len();
        let _ = scene.visit_overlaps(shape, &filter, |_| {
            found += 1;
            ControlFlow::Continue(())
        });
        for options in [CastOptions::default(), leave] {
            found += scene.cast_sphere_with(sphere, motion, &filter, &options).is_some() as usize;
        }
        found += scene.closest_point(sphere.center(), 2.0, &filter).is_some() as usize;
    }
    found
}

#[test]
fn overlap_and_sweep_queries_allocate_nothing() {
    let side = 20.0;
    let (mut scene, handles) = query_oracles::scene(2_000, 6, side, 0xA11);
    scene.prepare();
    let mut rng = proxima_test_support::rng(0xA12);
    let mut specs = vec![FilterSpec::all()];
    specs.extend((0..15).map(|_| FilterSpec::random(&mut rng, &handles)));
    let probes: Vec<_> = (0..2_000)
        .map(|i| {
            let sphere = Sphere::new(point_in(&mut rng, side), uniform(&mut rng, 0.2, 0.8));
            let motion = gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 6.0);
            (probe(&mut rng, i, side), sphere, motion)
        })
        .collect();
    // The first round builds the static tree and grows `out` to the largest answer.
    let mut out = Vec::new();
    let warm = round(&scene, &probes, &specs, &mut out);
    let before = ALLOCATOR.count();
    let counted = round(&scene, &probes, &specs, &mut out);
    let allocations = ALLOCATOR.count() - before;
    assert_eq!(counted, warm);
    assert!(counted > probes.len(), "{counted} colliders found by {} probes", probes.len());
    assert_eq!(allocations, 0, "allocations in a round of {} probes", probes.len());
}
