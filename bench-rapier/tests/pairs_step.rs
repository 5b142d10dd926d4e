//! The pair-search replay's contenders agree: proxima's broadphase-only
//! pipeline lists every pair parry3d's `Bvh` reports at margin 0, the same
//! pairs whichever search it runs, and any pair more is one whose boxes are
//! within the documented slack of each other.

use proxima_bench_rapier::*;
use std::collections::BTreeSet;

/// The gap two boxes may have and still be a candidate: each box grows by
/// `1e-5` of its corners' coordinate magnitudes on each axis, so a gap up to
/// the sum of the two growths; plus `1e-6` of the coordinates for the
/// difference between proxima's boxes and the recorded (rapier's) ones,
/// which are rounded separately.
fn allowed_gap(a: &proxima::narrowphase::Aabb, b: &proxima::narrowphase::Aabb, k: usize) -> f32 {
    let magnitude = |x: &proxima::narrowphase::Aabb| x.min()[k].abs() + x.max()[k].abs();
    1.1e-5 * (magnitude(a) + magnitude(b))
}

fn check(recording: &Recording) {
    let mut contenders = all_pairs_steps();
    assert_eq!(contenders[0].name(), "parry3d");
    for c in contenders.iter_mut() {
        c.start(recording);
    }
    let (mut parry, mut ours, mut first) = (Vec::new(), Vec::new(), Vec::new());
    let (mut pairs, mut extras) = (0, 0);
    for (k, frame) in recording.frames.iter().enumerate().skip(1) {
        for c in contenders.iter_mut() {
            c.step(frame);
        }
        contenders[0].pairs(&mut parry);
        let parry_set: BTreeSet<_> = parry.iter().copied().collect();
        pairs += parry.len();
        for (i, c) in contenders.iter().enumerate().skip(1) {
            c.pairs(&mut ours);
            assert!(ours.windows(2).all(|w| w[0] < w[1]), "step {k}: {} not sorted", c.name());
            if i == 1 {
                first.clone_from(&ours);
            } else {
                assert_eq!(ours, first, "step {k}: {} differs from the default search", c.name());
            }
            let ours_set: BTreeSet<_> = ours.iter().copied().collect();
            let missed: Vec<_> = parry_set.difference(&ours_set).collect();
            assert!(missed.is_empty(), "step {k}: {} misses {missed:?}", c.name());
            for &(a, b) in ours_set.difference(&parry_set) {
                extras += usize::from(i == 1);
                let (ba, bb) = (&frame.boxes[a as usize], &frame.boxes[b as usize]);
                for axis in 0..3 {
                    let gap = (ba.min()[axis] - bb.max()[axis]).max(bb.min()[axis] - ba.max()[axis]);
                    assert!(gap <= allowed_gap(ba, bb, axis), "step {k}: ({a}, {b}) apart by {gap} on axis {axis}");
                }
            }
        }
    }
    assert!(pairs > 1000, "only {pairs} pairs in the replay");
    assert!(extras * 10 < pairs, "{extras} extra pairs against {pairs}");
}

#[test]
fn broadphase_only_pipeline_lists_parrys_pairs_on_a_small_pile() {
    let options = SceneOptions { bodies: 1200, columns: 10, steps: 120, capsules: 0.3, ..SceneOptions::default() };
    check(&record(&options));
}

#[test]
fn broadphase_only_pipeline_lists_parrys_pairs_on_the_mesh_floor() {
    let options = SceneOptions {
        bodies: 600,
        columns: 10,
        steps: 90,
        capsules: 0.3,
        floor: Floor::TriMesh,
        ..SceneOptions::default()
    };
    check(&record(&options));
}
