//! Steady-state frames of `ContactPipeline::with_manifolds` allocate
//! nothing, counted by a global allocator: bodies jittering in their rest
//! poses (moves inside their fat boxes) and bodies sliding far enough to
//! leave them, on a finely tessellated mesh floor where a large box touches
//! far more triangles than any inline buffer holds, next to sphere, capsule
//! and box contacts, with the tracker's and the grid's pair search, and with
//! manifolds kept across frames. Warm-up frames size the buffers first.

mod common;

use common::grid;
use common::steady::jittered_pose;
use proxima_narrowphase::{Isometry, Vector};
use proxima_scene::*;
use proxima_test_support::alloc::CountingAllocator;

/// Counts allocations and reallocations of every thread. The file holds a
/// single test, so the harness runs nothing else meanwhile.
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

/// Runs 100 warm-up frames and 200 counted ones of `pipeline` on a fresh
/// scene; returns the manifolds and contacts listed over the counted frames
/// and the allocations they made.
fn run(mut pipeline: ContactPipeline) -> (usize, usize, usize) {
    let mut scene = Scene::new();
    // 40 x 40 quads of 0.25: a box of half-extent 1.5 rests on ~300 triangles.
    scene.insert(ColliderDesc::new(ColliderShape::TriMesh(grid(40, 0.25)), Isometry::identity()).fixed()).unwrap();
    let big = ColliderShape::Cuboid { half_extents: Vector::new(1.5, 0.5, 1.5) };
    let cube = ColliderShape::Cuboid { half_extents: Vector::repeat(0.3) };
    let ball = ColliderShape::Sphere { radius: 0.3 };
    let pill = ColliderShape::Capsule { half_height: 0.3, radius: 0.2 };
    // (shape, rest height of its centre, x, z): sunk 0.01 into what is below.
    let bodies = [
        (big, 0.49, 3.0, 3.0),
        (cube.clone(), 0.29, 7.0, 3.0),
        (cube, 0.87, 7.0, 3.0), // on the cube below: box-box
        (ball, 0.29, 3.0, 7.0),
        (pill, 0.49, 7.0, 7.0),
    ];
    let handles: Vec<ColliderHandle> = bodies
        .iter()
        .map(|(shape, y, x, z)| {
            scene.insert(ColliderDesc::new(shape.clone(), Isometry::translation(*x, *y, *z))).unwrap()
        })
        .collect();
    let mut rng = proxima_test_support::rng(7);
    // Odd frames move the bodies in one `set_poses` call, from this buffer.
    let mut poses: Vec<(ColliderHandle, Isometry)> = Vec::with_capacity(handles.len());
    let frame = |k: usize| {
        poses.clear();
        for (h, (_, y, x, z)) in handles.iter().zip(&bodies) {
            let pose = jittered_pose(&mut rng, *x, *y, *z, k);
            if k % 2 == 0 {
                scene.set_pose(*h, pose).unwrap();
            } else {
                poses.push((*h, pose));
            }
        }
        scene.set_poses(&poses).unwrap();
        pipeline.update(&mut scene);
        (pipeline.manifolds().len(), pipeline.contacts().len())
    };
    common::steady::count_steady_frames(&ALLOCATOR, frame)
}

#[test]
fn pipeline_frames_allocate_nothing() {
    // Five resting contacts every frame: the big box, the lower cube, the
    // ball and the capsule on the mesh, the upper cube on the lower one.
    let (_, contacts, allocations) = run(ContactPipeline::new());
    assert_eq!(contacts, 5 * 200);
    assert_eq!(allocations, 0, "allocations in 200 steady frames without manifolds");
    let (manifolds, contacts, allocations) = run(ContactPipeline::new().with_manifolds(0.05).unwrap());
    assert_eq!(contacts, 5 * 200);
    assert!(manifolds >= 5 * 200, "{manifolds} manifolds in 200 frames");
    assert_eq!(allocations, 0, "allocations in 200 steady frames with manifolds");
    // The grid search: every pair found again each frame, into kept buffers.
    let grid = ContactPipeline::new().with_manifolds(0.05).unwrap().with_pair_search(PairSearch::Grid);
    let (manifolds, contacts, allocations) = run(grid);
    assert_eq!(contacts, 5 * 200);
    assert!(manifolds >= 5 * 200, "{manifolds} manifolds in 200 frames");
    assert_eq!(allocations, 0, "allocations in 200 steady frames with manifolds and the grid search");
    // Manifolds kept across frames: the kept lists swap, sized by warm-up.
    // A tolerance above the jitter (1e-3 a frame on each axis), so that the
    // counted frames keep and reuse manifolds.
    let reuse = ManifoldReuse::new(2e-2, 0.1).unwrap();
    let kept = ContactPipeline::new().with_manifolds(0.05).unwrap().with_manifold_reuse(reuse);
    let (manifolds, contacts, allocations) = run(kept);
    assert_eq!(contacts, 5 * 200);
    assert!(manifolds >= 5 * 200, "{manifolds} manifolds in 200 frames");
    assert_eq!(allocations, 0, "allocations in 200 steady frames with manifold reuse");
}
