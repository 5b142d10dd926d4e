//! Steady-state frames of the contact pipeline with compound colliders
//! allocate nothing, counted by a global allocator: two tables (a top and
//! four legs) resting on a fine mesh floor and on a box floor, a ball on the
//! mesh and a cube on a table top, jittering and sliding slowly, with and
//! without manifolds, with the tracker's and the grid's pair search.
//! Warm-up frames size the buffers first.

mod common;

use common::compound::table;
use common::grid;
use common::steady::jittered_pose;
use proxima_narrowphase::{Isometry, Vector};
use proxima_scene::*;
use proxima_test_support::alloc::CountingAllocator;

/// Counts allocations and reallocations of every thread. The file holds a
/// single test, so the harness runs nothing else meanwhile.
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

/// 100 warm-up frames then 200 counted ones: two tables (one on a fine mesh
/// floor, one on a box floor), a ball on the mesh and a cube on the second
/// table's top, all jittering and sliding slowly. Returns the manifolds
/// and contacts listed over the counted frames, and their allocations.
fn run(mut pipeline: ContactPipeline) -> (usize, usize, usize) {
    let mut scene = Scene::new();
    scene.insert(ColliderDesc::new(ColliderShape::TriMesh(grid(40, 0.25)), Isometry::identity()).fixed()).unwrap();
    let slab = ColliderShape::Cuboid { half_extents: Vector::new(3.0, 0.5, 3.0) };
    scene.insert(ColliderDesc::new(slab, Isometry::translation(20.0, -0.5, 3.0)).fixed()).unwrap();
    let table = ColliderShape::Compound(table());
    // (shape, rest height, x, z): the long leg sunk 0.01 into what is below.
    let bodies = [
        (table.clone(), 0.04, 3.0, 3.0),
        (table, 0.04, 20.0, 3.0),
        (ColliderShape::Sphere { radius: 0.3 }, 0.29, 7.0, 7.0),
        (ColliderShape::Cuboid { half_extents: Vector::repeat(0.3) }, 1.39, 20.0, 3.0),
    ];
    let handles: Vec<ColliderHandle> = bodies
        .iter()
        .map(|(shape, y, x, z)| {
            scene.insert(ColliderDesc::new(shape.clone(), Isometry::translation(*x, *y, *z))).unwrap()
        })
        .collect();
    let mut rng = proxima_test_support::rng(11);
    let frame = |k: usize| {
        for (h, (_, y, x, z)) in handles.iter().zip(&bodies) {
            scene.set_pose(*h, jittered_pose(&mut rng, *x, *y, *z, k)).unwrap();
        }
        pipeline.update(&mut scene);
        (pipeline.manifolds().len(), pipeline.contacts().len())
    };
    common::steady::count_steady_frames(&ALLOCATOR, frame)
}

#[test]
fn compound_frames_allocate_nothing() {
    // The static tree's build runs on rayon's global pool, whose workers
    // allocate as they start: they are all started (and idle) first, so
    // none starts during the counted frames of a busy machine.
    rayon::broadcast(|_| ());
    // Four resting contacts a frame: each table on its floor, the ball on
    // the mesh, the cube on the second table.
    // The tracker's search named: the default (`Auto`) picks its search by
    // timing, and a first switch to the other search grows its buffers.
    let tracker = || ContactPipeline::new().with_pair_search(PairSearch::Tracker);
    let (_, contacts, allocations) = run(tracker());
    assert_eq!(contacts, 4 * 200);
    assert_eq!(allocations, 0, "allocations in 200 steady frames without manifolds");
    let (manifolds, contacts, allocations) = run(tracker().with_manifolds(0.05).unwrap());
    assert_eq!(contacts, 4 * 200);
    // At least the long leg of each table, the ball and the cube.
    assert!(manifolds >= 4 * 200, "{manifolds} manifolds in 200 frames");
    assert_eq!(allocations, 0, "allocations in 200 steady frames with manifolds");
    let grid = ContactPipeline::new().with_manifolds(0.05).unwrap().with_pair_search(PairSearch::Grid);
    let (_, contacts, allocations) = run(grid);
    assert_eq!(contacts, 4 * 200);
    assert_eq!(allocations, 0, "allocations in 200 steady frames with the grid search");
}
