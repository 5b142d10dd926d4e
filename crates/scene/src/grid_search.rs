//! The contact pipeline's grid search ([`PairSearch::Grid`]): every
//! collider's box in a compact list, mirrored from the scene's change log,
//! and every candidate pair found again each frame by a
//! [`GridPairs`], then filtered (never two static colliders; the groups
//! must interact) and sorted.

use proxima_broadphase::{CollisionGroups, GridPairs};
use proxima_narrowphase::Aabb;

use crate::collider::{BodyKind, Collider};

/// How a [`ContactPipeline`](crate::ContactPipeline) finds its candidate
/// pairs. All give the same contacts and events; they differ in what a
/// frame costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PairSearch {
    /// The pipeline picks [`Tracker`](Self::Tracker) or
    /// [`Grid`](Self::Grid) itself from what each costs on this world: it
    /// runs one, tries the other for two frames now and then (every 8
    /// frames at first, up to every 512 while the other keeps losing), and
    /// keeps the one whose pair search (mirror included) took less time,
    /// by a 10% margin for the one in use. The first frame after a switch
    /// reads every collider. Without the `timing` feature (no clock) it
    /// runs the tracker. The default.
    #[default]
    Auto,
    /// A [`PairTracker`](proxima_broadphase::PairTracker) keeps the pairs
    /// across frames and updates them from the colliders that moved: a
    /// collider at rest costs nothing, one that moves within its fat box
    /// one containment test. For worlds mostly at rest (sleeping bodies, a
    /// level of many static pieces).
    Tracker,
    /// A [`GridPairs`] finds every pair again each frame from every
    /// collider's box: no pair is kept, so a frame costs the same whatever
    /// moved. For worlds where most bodies move every frame and are of
    /// similar size (a physics pile: the demo's 20,000 bodies), where it
    /// is several times faster; static colliders are binned each frame too
    /// (their pairs with each other are found and dropped), so a level of
    /// many static pieces is better served by the tracker.
    Grid,
}

/// The grid search's state: the colliders' boxes by position, and their
/// slots, groups and kinds.
#[derive(Clone, Debug, Default)]
pub(crate) struct GridSearch {
    grid: GridPairs,
    /// The colliders' tight boxes (with the pipeline's slack), by position.
    boxes: Vec<Aabb>,
    /// Per position: the collider's slot, groups, and whether it is static
    /// (one record, so that a pair's filter reads two lines, not six).
    colliders: Vec<Mirrored>,
    /// Per collider slot: its position, or `NONE`.
    position: Vec<u32>,
    found: Vec<(u32, u32)>,
    /// Per collider slot: its candidates as first slot (the counting sort).
    counts: Vec<u32>,
}

/// What the filter and the renaming of a pair read of a collider.
#[derive(Clone, Copy, Debug)]
struct Mirrored {
    groups: CollisionGroups,
    slot: u32,
    fixed: bool,
}

/// No position.
const NONE: u32 = u32::MAX;

impl GridSearch {
    /// Mirrors the collider of slot `slot` (its state now: `None` when the
    /// slot is vacant); `tight` gives the box its pairs are found with (the
    /// collider's box with the pipeline's slack).
    pub(crate) fn sync(&mut self, slot: u32, collider: Option<&Collider>, tight: impl FnOnce(&Aabb) -> Aabb) {
        let index = slot as usize;
        if self.position.len() <= index {
            self.position.resize(index + 1, NONE);
        }
        let at = self.position[index];
        match collider {
            Some(c) => {
                let aabb = tight(c.aabb());
                let mirrored = Mirrored { groups: c.groups(), slot, fixed: c.kind() == BodyKind::Fixed };
                if at == NONE {
                    self.position[index] = self.boxes.len() as u32;
                    self.boxes.push(aabb);
                    self.colliders.push(mirrored);
                } else {
                    let at = at as usize;
                    (self.boxes[at], self.colliders[at]) = (aabb, mirrored);
                }
            }
            None if at != NONE => {
                // The last position moves into the freed one.
                let at = at as usize;
                self.boxes.swap_remove(at);
                self.colliders.swap_remove(at);
                self.position[index] = NONE;
                if let Some(moved) = self.colliders.get(at) {
                    self.position[moved.slot as usize] = at as u32;
                }
            }
            None => {}
        }
    }

    /// Forgets every collider (the next frame reads them all again).
    pub(crate) fn clear(&mut self) {
        self.boxes.clear();
        self.colliders.clear();
        self.position.clear();
    }

    /// The candidate pairs of the colliders mirrored, as keys of collider
    /// slots (`(a << 32) | b`, `a < b`), sorted, into `out` (cleared first);
    /// with `parallel`, the grid's search runs on rayon's pool (the same
    /// pairs in the same order).
    pub(crate) fn candidates(&mut self, out: &mut Vec<u64>, parallel: bool) {
        let Self { grid, boxes, colliders, position, found, counts, .. } = self;
        #[cfg(feature = "parallel")]
        if parallel {
            grid.pairs_unsorted_into_parallel(boxes, found);
        } else {
            grid.pairs_unsorted_into(boxes, found);
        }
        #[cfg(not(feature = "parallel"))]
        {
            let _ = parallel;
            grid.pairs_unsorted_into(boxes, found);
        }
        // Filtered and named by slots, each pair counted under its first
        // slot; then a counting sort by first slot writes the keys, and each
        // slot's few keys are sorted in place (the grid's order is by cell).
        // Cheaper than a radix sort of the pairs (`sort_index_pairs`) and a
        // pass over the keys: one counting pass, and each slot's keys are few
        // (docs/decisions/0010-grid-pair-search.md).
        counts.clear();
        counts.resize(position.len() + 1, 0);
        found.retain_mut(|pair| {
            let (i, j) = (&colliders[pair.0 as usize], &colliders[pair.1 as usize]);
            if (i.fixed && j.fixed) || !i.groups.interacts_with(j.groups) {
                return false;
            }
            let (a, b) = (i.slot, j.slot);
            *pair = (a.min(b), a.max(b));
            counts[pair.0 as usize + 1] += 1;
            true
        });
        for slot in 0..position.len() {
            counts[slot + 1] += counts[slot];
        }
        out.clear();
        out.resize(found.len(), 0);
        for &(a, b) in found.iter() {
            let at = &mut counts[a as usize];
            out[*at as usize] = u64::from(a) << 32 | u64::from(b);
            *at += 1;
        }
        // Each slot's run now ends where its start was advanced to.
        let mut start = 0;
        for &end in &counts[..position.len()] {
            let end = end as usize;
            sort_run(&mut out[start..end]);
            start = end;
        }
    }
}

/// Sorts one slot's keys: a handful in a pile (an insertion sort in line;
/// `sort_unstable`'s setup, paid once per slot, cost more than the sort),
/// `sort_unstable` past 16.
#[inline]
fn sort_run(keys: &mut [u64]) {
    if keys.len() > 16 {
        keys.sort_unstable();
        return;
    }
    for i in 1..keys.len() {
        let key = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > key {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = key;
    }
}
