//! The collision step as one workload: every body's recorded pose in, the
//! candidate pairs and their contact manifolds out, as a physics engine asks
//! for them each frame.
//!
//! Each contender ([`StepReplay`]) builds its world over a recording's
//! colliders at frame 0, then, per step, moves every body to its recorded
//! pose and produces the frame's manifolds with the prediction distance
//! [`PREDICTION`]. [`compare_touching`] checks two contenders' touching pairs
//! against each other.

use crate::step_parry::ParryStep;
use crate::step_proxima::ProximaStep;
use crate::{Frame, Recording};
use std::time::Duration;

/// The prediction distance of every contender's manifolds (rapier's
/// default): shapes closer than 0.02 m get manifold points, those not yet
/// touching with negative depth.
pub const PREDICTION: f32 = 0.02;

/// A pair of colliders `(i, j)`, `i < j`, with the depth of its deepest
/// manifold point (positive: penetrating; negative: apart by `-depth`, at
/// most [`PREDICTION`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairDepth {
    /// The lower collider index.
    pub a: u32,
    /// The higher collider index.
    pub b: u32,
    /// The deepest point's depth along the manifold normal, in metres.
    pub depth: f32,
}

/// Sizes of a step's output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    /// Candidate pairs handed to the narrow phase.
    pub candidates: usize,
    /// Manifolds with at least one point.
    pub manifolds: usize,
    /// Manifold points.
    pub points: usize,
}

/// Where a step's time went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepPhases {
    /// Moving the bodies: proxima's `Scene::set_pose` for every body;
    /// parry's world AABB of every body from its pose and the leaf updates.
    pub poses: Duration,
    /// Finding the candidate pairs: proxima's `FrameStats::broadphase`;
    /// parry's `refit`, `optimize_incremental` and self-traversal.
    pub pair_search: Duration,
    /// The rest of the step: the manifolds of every candidate (and, for
    /// proxima, the events and the bookkeeping of its pipeline; for parry,
    /// dropping the pairs that are no longer candidates).
    pub manifolds: Duration,
}

/// A contender of the collision step, driven by recorded frames.
pub trait StepReplay {
    /// The contender's name, as printed.
    fn name(&self) -> &'static str;

    /// Builds the contender's world over `recording`'s colliders at their
    /// poses in frame 0 (collider `i` is the recording's collider `i`;
    /// collider 0, the ground, is fixed) and runs a first step there.
    fn start(&mut self, recording: &Recording);

    /// Moves every body (colliders `1..`) to its pose in `frame` and runs
    /// the collision step: candidate pairs, then their manifolds.
    fn step(&mut self, frame: &Frame);

    /// The pairs with at least one manifold point after the last step, each
    /// once with its deepest point, sorted by `(a, b)`, into `out` (cleared
    /// first).
    fn deepest_points(&self, out: &mut Vec<PairDepth>);

    /// The sizes of the last step's output.
    fn counts(&self) -> StepCounts;

    /// Where the last step's time went.
    fn phases(&self) -> StepPhases;

    /// `Some(bound)` for a contender whose manifolds are not exact (manifold
    /// reuse): its deepest depths may differ from an exact contender's by up
    /// to `bound` metres. `None` for an exact one.
    fn approximate_within(&self) -> Option<f32> {
        None
    }
}

/// Every contender: parry3d's `Bvh` with `contact_manifolds` per pair,
/// proxima's `ContactPipeline` with its default pair search (`Auto`: it
/// picks the tracker or the grid by their measured cost), and the same
/// fixed on the tracker and on the grid.
pub fn all_steps() -> Vec<Box<dyn StepReplay>> {
    use proxima::scene::PairSearch;
    vec![
        Box::new(ParryStep::default()),
        Box::new(ProximaStep::new(PairSearch::Auto)),
        Box::new(ProximaStep::new(PairSearch::Tracker)),
        Box::new(ProximaStep::new(PairSearch::Grid)),
        Box::new(ProximaStep::parallel(2)),
        Box::new(ProximaStep::reusing()),
    ]
}

/// The touching pairs (deepest manifold point at `depth >= 0`) of two
/// contenders compared, over one or more steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    /// Steps compared.
    pub steps: usize,
    /// Pairs touching in both, summed over the steps.
    pub touching_in_both: usize,
    /// Pairs touching in one contender only whose reference depth is within
    /// the band (`|depth| <= band`, `band` of [`compare_touching`]): a
    /// contact grazed at the rounding level, where the two may disagree.
    pub in_band: usize,
    /// Pairs touching in one contender only, outside the band, where the
    /// exact depth (see [`compare_touching`]) is within the band of 0 or
    /// sides with the other contender: the reference's depth is off by more
    /// than the band.
    pub reference_off: usize,
    /// Pairs touching in one contender only, outside the band, where the
    /// exact depth does not side with the other contender: real
    /// disagreements.
    pub outside_band: Vec<Disagreement>,
    /// Pairs with manifold points in both, summed over the steps.
    pub with_points_in_both: usize,
    /// The largest `|depth difference|` of the deepest points among pairs
    /// touching in at least one and with points in both, in metres.
    pub max_depth_difference: f32,
    /// The pair of that largest difference, with its exact depth.
    pub largest_difference: Option<Disagreement>,
}

/// A pair on which two contenders differ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disagreement {
    /// The step.
    pub step: usize,
    /// The pair's deepest point in the reference, `None` without manifold points.
    pub reference: Option<PairDepth>,
    /// The pair's deepest point in the other contender, `None` without manifold points.
    pub other: Option<PairDepth>,
    /// The exact depth, `None` when the pair is farther apart than the prediction.
    pub exact: Option<f32>,
}

/// Compares the touching pairs of `other` with those of `reference` at
/// step `step` (both sorted by `(a, b)`, as [`StepReplay::deepest_points`]
/// gives them), adding to `into`. A pair touching in one only is tolerated
/// when the reference's deepest point is within `band` of depth 0, and
/// counted apart when `exact(a, b)`, an independent depth of the pair
/// (such as [`one_shot_depth`](crate::one_shot_depth)), is within `band`
/// of 0 or on the side of `other`.
pub fn compare_touching(
    step: usize,
    reference: &[PairDepth],
    other: &[PairDepth],
    band: f32,
    exact: impl Fn(u32, u32) -> Option<f32>,
    into: &mut Agreement,
) {
    into.steps += 1;
    let touches = |p: Option<&PairDepth>| p.is_some_and(|p| p.depth >= 0.0);
    let (mut i, mut j) = (0, 0);
    while i < reference.len() || j < other.len() {
        let key_r = reference.get(i).map(|p| (p.a, p.b));
        let key_o = other.get(j).map(|p| (p.a, p.b));
        let (r, o) = match (key_r, key_o) {
            (Some(kr), Some(ko)) if kr == ko => (reference.get(i), other.get(j)),
            (Some(kr), Some(ko)) if kr < ko => (reference.get(i), None),
            (Some(_), None) => (reference.get(i), None),
            _ => (None, other.get(j)),
        };
        i += usize::from(r.is_some());
        j += usize::from(o.is_some());
        let (tr, to) = (touches(r), touches(o));
        if let (Some(r), Some(o)) = (r, o) {
            into.with_points_in_both += 1;
            let difference = (r.depth - o.depth).abs();
            if (tr || to) && difference > into.max_depth_difference {
                into.max_depth_difference = difference;
                let exact = exact(r.a, r.b);
                into.largest_difference = Some(Disagreement { step, reference: Some(*r), other: Some(*o), exact });
            }
        }
        if tr == to {
            into.touching_in_both += usize::from(tr);
            continue;
        }
        if r.is_some_and(|r| r.depth.abs() <= band) {
            into.in_band += 1;
            continue;
        }
        let (a, b) = r.or(o).map(|p| (p.a, p.b)).expect("a pair touching in one of them");
        let depth = exact(a, b);
        if depth.is_some_and(|d| d.abs() <= band || (d >= 0.0) == to) {
            into.reference_off += 1;
        } else {
            into.outside_band.push(Disagreement { step, reference: r.copied(), other: o.copied(), exact: depth });
        }
    }
}

/// Prints the fastest step times of each contender (`best[c][k]`, ms, the
/// first contender parry3d) as a table of the mean over the run and over
/// each third of it (falling, piling, resting), then each other contender's
/// speed-up over parry3d by the same columns.
pub fn print_thirds(names: &[&str], best: &[Vec<f64>]) {
    let steps = best[0].len();
    let thirds = [0..steps / 3, steps / 3..2 * steps / 3, 2 * steps / 3..steps];
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let by_third = |v: &[f64]| thirds.clone().map(|r| mean(&v[r]));
    println!("\n{:<18} {:>8} {:>8} {:>8} {:>8}   (ms per step)", "contender", "mean", "falling", "piling", "resting");
    for (name, times) in names.iter().zip(best) {
        let t = by_third(times);
        println!("{name:<18} {:>8.3} {:>8.3} {:>8.3} {:>8.3}", mean(times), t[0], t[1], t[2]);
    }
    println!(
        "\n{:<18} {:>8} {:>8} {:>8} {:>8}   (parry3d's time over the contender's)",
        "speed-up", "mean", "falling", "piling", "resting"
    );
    let parry = by_third(&best[0]);
    for (name, times) in names.iter().zip(best).skip(1) {
        let t = by_third(times);
        println!(
            "{name:<18} {:>7.2}x {:>7.2}x {:>7.2}x {:>7.2}x",
            mean(&best[0]) / mean(times),
            parry[0] / t[0],
            parry[1] / t[1],
            parry[2] / t[2]
        );
    }
}
