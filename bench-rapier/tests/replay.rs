//! Every structure's pair set equals the oracle's at every replayed step,
//! and the oracle itself equals a plain O(n^2) double loop.
//!
//! Exact comparisons (no tolerance): every structure and the oracle test the
//! same recorded `f32` boxes with the same inclusive comparisons.

use proxima_bench_rapier::*;

/// A plain double loop over all pairs: the oracle's oracle.
fn all_pairs_naive(boxes: &[proxima_narrowphase::Aabb]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            let overlap = (0..3).all(|k| a.min()[k] <= b.max()[k] && b.min()[k] <= a.max()[k]);
            if overlap {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

fn check_all(recording: &Recording) {
    let reference = reference_digests(recording);
    for mut replay in all_replays() {
        check_replay(replay.as_mut(), recording, &reference, recording.frames.len()).unwrap();
    }
}

/// The full benchmark scene (8,000 bodies), its first 30 steps: bodies fall
/// and the lowest layer reaches the ground.
#[test]
fn every_structure_matches_the_oracle_on_30_steps_of_the_bench_scene() {
    let recording = record(&SceneOptions { steps: 30, ..SceneOptions::default() });
    assert_eq!(recording.colliders(), 8001);
    assert_eq!(recording.frames.len(), 30);
    let reference = reference_digests(&recording);
    // The lowest layer (1,600 bodies) lands within 30 steps: the check sees pairs.
    assert!(reference[29].count >= 1000, "too few pairs to test anything: {:?}", reference[29]);
    assert!(recording.rapier_broad_phase_ms.iter().all(|&ms| ms > 0.0), "rapier's profiler timers are off");
    check_all(&recording);
}

/// A smaller scene for longer: landing, stacking, toppling and rolling,
/// where boxes change pairs every step.
#[test]
fn every_structure_matches_the_oracle_while_a_small_pile_collapses() {
    let options = SceneOptions { bodies: 1200, columns: 10, steps: 150, ..SceneOptions::default() };
    let recording = record(&options);
    let reference = reference_digests(&recording);
    let changed = reference.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(changed >= 100, "the pair set should change on most steps, changed on {changed}");
    check_all(&recording);
}

#[test]
fn the_oracle_equals_a_double_loop() {
    let options = SceneOptions { bodies: 1200, columns: 10, steps: 90, ..SceneOptions::default() };
    let recording = record(&options);
    let mut pairs = Vec::new();
    for step in [0, 30, 60, 89] {
        let boxes = &recording.frames[step].boxes;
        exact_pairs(boxes, &mut pairs);
        assert_eq!(pairs, all_pairs_naive(boxes), "step {step}");
    }
    assert!(!pairs.is_empty());
}

#[test]
fn the_digest_ignores_order_and_sees_changes() {
    let pairs = [(0, 1), (2, 5), (3, 4)];
    let shuffled = [(3, 4), (0, 1), (2, 5)];
    assert_eq!(PairDigest::of(&pairs), PairDigest::of(&shuffled));
    assert_ne!(PairDigest::of(&pairs), PairDigest::of(&pairs[..2]));
    assert_ne!(PairDigest::of(&pairs), PairDigest::of(&[(0, 1), (2, 5), (3, 6)]));
    assert_eq!(PairDigest::of(&[(1, 0)]), None, "a pair not in (min, max) order is rejected");
    assert_eq!(PairDigest::of(&[(2, 2)]), None);
}

#[test]
fn recorded_boxes_are_rapiers_boxes() {
    let recording = record(&SceneOptions { bodies: 200, columns: 10, steps: 5, ..SceneOptions::default() });
    for frame in &recording.frames {
        for (ours, theirs) in frame.boxes.iter().zip(&frame.parry) {
            for k in 0..3 {
                assert_eq!(ours.min()[k].to_bits(), theirs.mins[k].to_bits());
                assert_eq!(ours.max()[k].to_bits(), theirs.maxs[k].to_bits());
            }
        }
    }
}
