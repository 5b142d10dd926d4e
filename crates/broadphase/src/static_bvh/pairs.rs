//! Self-pairs: every pair of overlapping boxes, by a simultaneous descent of
//! the tree against itself (the bounding volume test tree, Gottschalk et
//! al. 1996, as in parry's `traverse_bvtt_single_tree`).
//!
//! `Within(node)` finds the pairs inside a subtree: those inside each child,
//! and those between two different children whose boxes overlap
//! (`Across`). `Across(a, b)` finds the pairs with one box below lane `a` and
//! the other below lane `b`: when both are leaves, their boxes are tested;
//! otherwise the larger internal side is opened and only its lanes that
//! overlap the other side's box are kept. Every unordered pair of boxes has
//! exactly one place where its two leaves part, so it is found exactly once.

use super::wide::Lane;
use super::StaticBvh;
use proxima_narrowphase::intersects_aabb_aabb;
use smallvec::SmallVec;

/// A lane of a node: `(node index, lane)`.
type LaneRef = (u32, u8);

#[derive(Clone, Copy, Debug)]
enum PairTask {
    Within(u32),
    Across(LaneRef, LaneRef),
}

type TaskStack = SmallVec<[PairTask; 64]>;

/// Below this many boxes the pairs are found on one thread.
#[cfg(feature = "parallel")]
const PAR_PAIRS_MIN: usize = 4096;

impl StaticBvh {
    pub(super) fn pairs_impl(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        if self.nodes.is_empty() {
            return;
        }
        #[cfg(feature = "parallel")]
        if self.prim_ids.len() >= PAR_PAIRS_MIN {
            self.pairs_parallel(out);
            return;
        }
        self.run_pairs(PairTask::Within(0), out);
        out.sort_unstable();
    }

    /// Opens the top of the descent breadth first into independent tasks,
    /// runs them on the rayon pool and sorts the union: the output does not
    /// depend on the scheduling.
    #[cfg(feature = "parallel")]
    fn pairs_parallel(&self, out: &mut Vec<(u32, u32)>) {
        use rayon::prelude::*;
        let mut tasks: TaskStack = SmallVec::new();
        tasks.push(PairTask::Within(0));
        for _ in 0..6 {
            if tasks.len() >= 256 || tasks.is_empty() {
                break;
            }
            let mut next = TaskStack::new();
            for task in tasks {
                self.expand(task, &mut next, out);
            }
            tasks = next;
        }
        let parts: Vec<Vec<(u32, u32)>> = tasks
            .par_iter()
            .map(|&task| {
                let mut part = Vec::new();
                self.run_pairs(task, &mut part);
                part
            })
            .collect();
        out.reserve(parts.iter().map(Vec::len).sum());
        for part in parts {
            out.extend_from_slice(&part);
        }
        out.par_sort_unstable();
    }

    fn run_pairs(&self, task: PairTask, out: &mut Vec<(u32, u32)>) {
        let mut stack = TaskStack::new();
        stack.push(task);
        while let Some(task) = stack.pop() {
            self.expand(task, &mut stack, out);
        }
    }

    /// One step of the descent: pushes subtasks, emits pairs found.
    fn expand(&self, task: PairTask, stack: &mut TaskStack, out: &mut Vec<(u32, u32)>) {
        match task {
            PairTask::Within(index) => {
                let node = &self.nodes[index as usize];
                let len = usize::from(node.len);
                for i in 0..len {
                    match node.lane(i) {
                        Lane::Node(child) => stack.push(PairTask::Within(child)),
                        Lane::Leaf { first, count } => self.leaf_self_pairs(first, count, out),
                    }
                    // Lanes after i that overlap lane i.
                    let later = node.used_mask() & !((2u32 << i) - 1);
                    let mut mask = node.bounds.overlap_mask(&node.lane_box(i)) & later;
                    while mask != 0 {
                        let j = mask.trailing_zeros() as u8;
                        mask &= mask - 1;
                        stack.push(PairTask::Across((index, i as u8), (index, j)));
                    }
                }
            }
            PairTask::Across(a, b) => {
                let (na, nb) = (&self.nodes[a.0 as usize], &self.nodes[b.0 as usize]);
                let (la, lb) = (na.lane(usize::from(a.1)), nb.lane(usize::from(b.1)));
                match (la, lb) {
                    (Lane::Leaf { first: fa, count: ca }, Lane::Leaf { first: fb, count: cb }) => {
                        self.leaf_pairs(fa, ca, fb, cb, out)
                    }
                    (Lane::Node(ca), Lane::Node(_))
                        if na.lane_box(usize::from(a.1)).surface_area()
                            >= nb.lane_box(usize::from(b.1)).surface_area() =>
                    {
                        self.open(ca, b, false, stack)
                    }
                    (Lane::Node(ca), Lane::Leaf { .. }) => self.open(ca, b, false, stack),
                    (_, Lane::Node(cb)) => self.open(cb, a, true, stack),
                }
            }
        }
    }

    /// Pushes `Across(lane k of node, other)` for the lanes of `node` that
    /// overlap `other`'s box (`swap`: keep `other` first, for readability of
    /// the task order only; pairs are canonicalised when emitted).
    fn open(&self, node: u32, other: LaneRef, swap: bool, stack: &mut TaskStack) {
        let other_box = self.nodes[other.0 as usize].lane_box(usize::from(other.1));
        let opened = &self.nodes[node as usize];
        let mut mask = opened.bounds.overlap_mask(&other_box);
        while mask != 0 {
            let k = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            stack.push(if swap { PairTask::Across(other, (node, k)) } else { PairTask::Across((node, k), other) });
        }
    }

    /// Pairs between two leaves whose lane boxes overlap.
    fn leaf_pairs(&self, fa: u32, ca: u32, fb: u32, cb: u32, out: &mut Vec<(u32, u32)>) {
        for s in fa..fa + ca {
            for t in fb..fb + cb {
                let (s, t) = (s as usize, t as usize);
                // Two one-box leaves: the lanes are the boxes, already tested.
                if (ca == 1 && cb == 1) || intersects_aabb_aabb(&self.prim_boxes[s], &self.prim_boxes[t]) {
                    out.push(canonical(self.prim_ids[s], self.prim_ids[t]));
                }
            }
        }
    }

    /// Pairs inside one leaf.
    fn leaf_self_pairs(&self, first: u32, count: u32, out: &mut Vec<(u32, u32)>) {
        for s in first..first + count {
            for t in s + 1..first + count {
                let (s, t) = (s as usize, t as usize);
                if intersects_aabb_aabb(&self.prim_boxes[s], &self.prim_boxes[t]) {
                    out.push(canonical(self.prim_ids[s], self.prim_ids[t]));
                }
            }
        }
    }
}

#[inline]
fn canonical(a: u32, b: u32) -> (u32, u32) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}
