//! Self-pairs: every pair of overlapping boxes, by a simultaneous descent of
//! the tree against itself (the bounding volume test tree, Gottschalk et
//! al. 1996, as in parry's `traverse_bvtt_single_tree`), node against node.
//!
//! `Within(n)` finds the pairs inside the subtree of node `n`: those inside
//! each lane, and those between two of its lanes whose boxes overlap.
//! `Across(a, b)` finds the pairs between the subtrees of two different
//! nodes: each lane of `a` is tested against the 8 lanes of `b` at once (one
//! SIMD mask per lane of `a`), and every overlapping lane pair goes on: two
//! nodes as a new `Across`, a leaf against a node as one box query per
//! primitive of the leaf, two leaves as primitive tests. Every unordered
//! pair of boxes has exactly one place where its two leaves part, so it is
//! found exactly once.
//!
//! Every `Across` carries the region where its two lanes meet
//! (`region.rs`): only the lanes that reach into it are opened.

use super::mask::{lane_mask, portable_mask, MaskKernel};
use super::region::Region;
use super::wide::{Lane, WideNode};
use super::StaticBvh;
use crate::pairs::IndexPair;
use crate::prefetch::prefetch;
use proxima_narrowphase::intersects_aabb_aabb;
use proxima_narrowphase::kernels::{AabbX8, SimdLevel};
use proxima_narrowphase::Real;
use smallvec::SmallVec;

#[derive(Clone, Copy, Debug)]
enum PairTask {
    Within(u32),
    Across(u32, u32, Region),
}

type TaskStack = SmallVec<[PairTask; 64]>;

/// Below this many boxes the pairs are found on one thread.
#[cfg(feature = "parallel")]
const PAR_PAIRS_MIN: usize = 4096;

impl StaticBvh {
    pub(super) fn pairs_impl(&self, out: &mut Vec<(u32, u32)>) {
        self.pairs_unsorted_into(out);
        #[cfg(feature = "parallel")]
        if out.len() >= PAR_PAIRS_MIN {
            use rayon::prelude::*;
            out.par_sort_unstable();
            return;
        }
        out.sort_unstable();
    }

    /// Every pair of overlapping boxes as `(min, max)` ids, into `out`, in the
    /// descent's order: deterministic (the same tree gives the same list,
    /// whatever the number of threads) but not sorted. For callers that do
    /// not need the order, or map the ids and sort their own indices.
    pub fn pairs_unsorted_into(&self, out: &mut Vec<IndexPair>) {
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
    }

    /// Opens the top of the descent breadth first into independent tasks,
    /// runs them on the rayon pool and appends their lists in task order:
    /// the output does not depend on the scheduling.
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
                self.expand(task, &mut next, out, &portable_mask);
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
    }

    /// Runs the descent from `task`. With AVX (and the tree's [`SimdLevel`]
    /// allowing it) the lane masks take one 256-bit comparison per bound;
    /// they are the same masks.
    fn run_pairs(&self, task: PairTask, out: &mut Vec<(u32, u32)>) {
        #[cfg(target_arch = "x86_64")]
        if self.simd.min(SimdLevel::detect()) == SimdLevel::Avx {
            // SAFETY: the level is at most `SimdLevel::detect()`, which
            // reports AVX only when this CPU has it.
            return unsafe { run_pairs_avx(self, task, out) };
        }
        self.run_pairs_with(task, out, &portable_mask);
    }

    /// [`run_pairs`](Self::run_pairs) with a given lane-mask kernel.
    #[inline(always)]
    fn run_pairs_with<K: MaskKernel>(&self, task: PairTask, out: &mut Vec<(u32, u32)>, kernel: &K) {
        let mut stack = TaskStack::new();
        stack.push(task);
        while let Some(task) = stack.pop() {
            self.expand(task, &mut stack, out, kernel);
        }
    }

    /// One step of the descent: pushes subtasks, emits pairs found.
    #[inline(always)]
    fn expand<K: MaskKernel>(&self, task: PairTask, stack: &mut TaskStack, out: &mut Vec<(u32, u32)>, kernel: &K) {
        match task {
            PairTask::Within(index) => {
                let node = &self.nodes[index as usize];
                let used = node.used_mask();
                // The leaves of two or more boxes hold pairs of their own:
                // their boxes start loading now and are tested last.
                let mut shared = 0u32;
                for i in 0..usize::from(node.len) {
                    if node.count[i] > 1 {
                        shared |= 1 << i;
                        let (first, last) = (node.child[i], node.child[i] + u32::from(node.count[i]) - 1);
                        prefetch(&self.prim_boxes, first);
                        prefetch(&self.prim_boxes, last);
                    }
                }
                // Last lane first: the children pushed last pop first, so
                // the subtrees are visited in lane order, which is memory order.
                for i in (0..usize::from(node.len)).rev() {
                    if let Lane::Node(child) = node.lane(i) {
                        super::ray::prefetch_node(&self.nodes, child);
                        stack.push(PairTask::Within(child));
                    }
                    // Lanes after i that overlap lane i.
                    let mut mask = lane_mask(kernel, &node.bounds, &node.bounds, i) & used & !((2u32 << i) - 1);
                    while mask != 0 {
                        let j = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        self.lane_pair(node, i, node, j, stack, out, kernel);
                    }
                }
                while shared != 0 {
                    let i = shared.trailing_zeros() as usize;
                    shared &= shared - 1;
                    self.leaf_self_pairs(node.child[i], u32::from(node.count[i]), out);
                }
            }
            PairTask::Across(a, b, region) => {
                let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
                let mut lanes_a = kernel(&na.bounds, &region.min, &region.max) & na.used_mask();
                let lanes_b = kernel(&nb.bounds, &region.min, &region.max) & nb.used_mask();
                if lanes_b == 0 {
                    return;
                }
                while lanes_a != 0 {
                    let i = lanes_a.trailing_zeros() as usize;
                    lanes_a &= lanes_a - 1;
                    let mut mask = lane_mask(kernel, &nb.bounds, &na.bounds, i) & lanes_b;
                    while mask != 0 {
                        let j = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        self.lane_pair(na, i, nb, j, stack, out, kernel);
                    }
                }
            }
        }
    }

    /// Lane `i` of `na` and lane `j` of `nb`: overlapping lanes of two
    /// different subtrees.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn lane_pair<K: MaskKernel>(
        &self,
        na: &WideNode,
        i: usize,
        nb: &WideNode,
        j: usize,
        stack: &mut TaskStack,
        out: &mut Vec<(u32, u32)>,
        kernel: &K,
    ) {
        match (na.lane(i), nb.lane(j)) {
            (Lane::Leaf { first: fa, count: ca }, Lane::Leaf { first: fb, count: cb }) => {
                self.leaf_pairs(fa, ca, fb, cb, out)
            }
            (Lane::Node(a), Lane::Node(b)) => {
                // The pushed nodes load while the other lane pairs are
                // visited (the descent is a chain of cache misses otherwise).
                super::ray::prefetch_node(&self.nodes, a);
                super::ray::prefetch_node(&self.nodes, b);
                stack.push(PairTask::Across(a, b, Region::of_lanes(&na.bounds, i, &nb.bounds, j)))
            }
            (Lane::Leaf { first, count }, Lane::Node(node)) | (Lane::Node(node), Lane::Leaf { first, count }) => {
                self.leaf_against(first, count, node, Region::of_lanes(&na.bounds, i, &nb.bounds, j), out, kernel)
            }
        }
    }

    /// Pairs between the primitives of a leaf and those below `root`, whose
    /// lanes meet in `region`: one box query per primitive that reaches into
    /// it, pruned to the part of the primitive inside it (a pair's overlap
    /// lies there).
    #[inline(always)]
    fn leaf_against<K: MaskKernel>(
        &self,
        first: u32,
        count: u32,
        root: u32,
        region: Region,
        out: &mut Vec<(u32, u32)>,
        kernel: &K,
    ) {
        let mut stack: SmallVec<[u32; 32]> = SmallVec::new();
        for s in first as usize..(first + count) as usize {
            let query = &self.prim_boxes[s];
            if !region.touches(query) {
                continue;
            }
            let part = region.clipped(query);
            stack.push(root);
            while let Some(index) = stack.pop() {
                let node = &self.nodes[index as usize];
                let mut mask = kernel(&node.bounds, &part.min, &part.max);
                while mask != 0 {
                    let lane = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    match node.lane(lane) {
                        Lane::Node(child) => stack.push(child),
                        Lane::Leaf { first: f, count: c } => {
                            for t in f as usize..(f + c) as usize {
                                // A one-box leaf's lane is the box, and it
                                // meets `part`, inside the query: tested.
                                let hit = c == 1 || intersects_aabb_aabb(&self.prim_boxes[t], query);
                                push_if(out, canonical(self.prim_ids[s], self.prim_ids[t]), hit);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Pairs between two leaves whose lane boxes overlap.
    fn leaf_pairs(&self, fa: u32, ca: u32, fb: u32, cb: u32, out: &mut Vec<(u32, u32)>) {
        for s in fa..fa + ca {
            for t in fb..fb + cb {
                let (s, t) = (s as usize, t as usize);
                // Two one-box leaves: the lanes are the boxes, already tested.
                let hit = (ca == 1 && cb == 1) || intersects_aabb_aabb(&self.prim_boxes[s], &self.prim_boxes[t]);
                push_if(out, canonical(self.prim_ids[s], self.prim_ids[t]), hit);
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

/// The AVX instance of the descent.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn run_pairs_avx(bvh: &StaticBvh, task: PairTask, out: &mut Vec<(u32, u32)>) {
    // SAFETY: the caller guarantees AVX; the closure only runs inside this call.
    let kernel = |lanes: &AabbX8, min: &[Real; 3], max: &[Real; 3]| unsafe {
        proxima_narrowphase::kernels::overlap_mask_x8_avx(lanes, min, max)
    };
    bvh.run_pairs_with(task, out, &kernel);
}

/// Appends `pair` when `keep`, without a branch on `keep`: the pair is
/// always written and the length moves only when it is kept (whether two
/// boxes overlap follows no pattern, so a branch on it is mispredicted
/// often in a dense scene).
#[inline(always)]
fn push_if(out: &mut Vec<(u32, u32)>, pair: (u32, u32), keep: bool) {
    let len = out.len();
    out.push(pair);
    out.truncate(len + usize::from(keep));
}

#[inline]
fn canonical(a: u32, b: u32) -> (u32, u32) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}
