//! The steady-state frames of the allocation-counting pipeline tests.

use nalgebra::Translation3;
use proxima_narrowphase::{Isometry, Real, Rotation};
use proxima_test_support::alloc::CountingAllocator;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

/// A body's pose at frame `k` about its rest position `(x, y, z)`: the
/// translation and the Euler angles jittered by U[-1e-3, 1e-3), and a slow
/// slide of `0.002 (k % 50)` along +x and -z that leaves the fat boxes now
/// and then.
pub fn jittered_pose(rng: &mut impl Rng, x: Real, y: Real, z: Real, k: usize) -> Isometry {
    let slide = 0.002 * (k % 50) as Real;
    let j = |rng: &mut _| uniform(rng, -1e-3, 1e-3);
    let t = Translation3::new(x + slide + j(rng), y + j(rng), z - slide + j(rng));
    let tilt = Rotation::from_euler_angles(j(rng), j(rng), j(rng));
    Isometry::from_parts(t, tilt)
}

/// Runs `frame(k)` for 100 warm-up frames (`k` in `0..100`, which size the
/// buffers) and 200 counted ones (`k` in `100..300`). Returns the sums of
/// the `(manifolds, contacts)` the counted frames return, and the
/// allocations `allocator` counted during them.
pub fn count_steady_frames(
    allocator: &CountingAllocator,
    mut frame: impl FnMut(usize) -> (usize, usize),
) -> (usize, usize, usize) {
    for k in 0..100 {
        frame(k);
    }
    let before = allocator.count();
    let (mut manifolds, mut contacts) = (0, 0);
    for k in 100..300 {
        let (m, c) = frame(k);
        manifolds += m;
        contacts += c;
    }
    (manifolds, contacts, allocator.count() - before)
}
