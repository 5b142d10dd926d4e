//! The oracle: the exact overlap set of a frame's boxes by a sort-and-sweep
//! written here (no proxima or parry code), and an order-independent digest
//! to compare pair sets cheaply.

use crate::{Recording, Replay};
use proxima_narrowphase::Aabb;

/// Every pair `(i, j)`, `i < j`, of boxes that overlap (inclusive: touching
/// boxes overlap, as in proxima and parry), into `out` (cleared first),
/// sorted ascending.
///
/// Sort and sweep on x (Baraff 1992): with the boxes sorted by `min.x`, box
/// `j` after box `i` can overlap it only while `min_x(j) <= max_x(i)`; those
/// candidates are then tested on y and z.
pub fn exact_pairs(boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
    out.clear();
    let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| boxes[a as usize].min().x.total_cmp(&boxes[b as usize].min().x));
    for (k, &i) in order.iter().enumerate() {
        let a = &boxes[i as usize];
        for &j in &order[k + 1..] {
            let b = &boxes[j as usize];
            if b.min().x > a.max().x {
                break;
            }
            let overlap_yz =
                a.min().y <= b.max().y && b.min().y <= a.max().y && a.min().z <= b.max().z && b.min().z <= a.max().z;
            if overlap_yz {
                out.push((i.min(j), i.max(j)));
            }
        }
    }
    out.sort_unstable();
}

/// A pair set's size and two order-independent hashes of its canonical
/// pairs (a wrapping sum and a xor of a 64-bit mix of each pair): equal sets
/// give equal digests whatever order the pairs come in; a missing, extra or
/// changed pair changes the count or, with probability ~1 - 2^-64, a hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairDigest {
    /// Number of pairs.
    pub count: usize,
    /// Wrapping sum of `mix(i, j)` over the pairs.
    pub sum: u64,
    /// Xor of `mix(i, j)` rotated by 17 over the pairs.
    pub xor: u64,
}

impl PairDigest {
    /// The digest of `pairs`; `None` when a pair is not canonical (`i < j`).
    pub fn of(pairs: &[(u32, u32)]) -> Option<Self> {
        let mut d = Self::default();
        for &(i, j) in pairs {
            if i >= j {
                return None;
            }
            let h = mix(((i as u64) << 32) | j as u64);
            d.count += 1;
            d.sum = d.sum.wrapping_add(h);
            d.xor ^= h.rotate_left(17);
        }
        Some(d)
    }
}

/// The SplitMix64 finaliser: a bijective 64-bit mix.
fn mix(key: u64) -> u64 {
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The oracle's digest of every frame of a recording.
pub fn reference_digests(recording: &Recording) -> Vec<PairDigest> {
    let mut pairs = Vec::new();
    recording
        .frames
        .iter()
        .map(|frame| {
            exact_pairs(&frame.boxes, &mut pairs);
            PairDigest::of(&pairs).expect("the oracle emits canonical pairs")
        })
        .collect()
}

/// Replays the first `steps` frames of `recording` through `replay` (start
/// on frame 0, then one step per frame) and compares its pair set with the
/// oracle's digest after each; the error names the structure, the step and
/// both digests.
pub fn check_replay(
    replay: &mut dyn Replay,
    recording: &Recording,
    reference: &[PairDigest],
    steps: usize,
) -> Result<(), String> {
    let frames = recording.frames.iter().zip(reference).take(steps);
    for (step, (frame, expected)) in frames.enumerate() {
        if step == 0 {
            replay.start(frame);
        } else {
            replay.step(&recording.frames[step - 1], frame);
        }
        let got = PairDigest::of(replay.pairs());
        if got != Some(*expected) {
            return Err(format!("{} at step {step}: pairs {got:?}, expected {expected:?}", replay.name()));
        }
    }
    Ok(())
}
