//! Self-pairs of the *marked* leaves only: every pair of overlapping boxes of
//! which at least one is marked, each found once. When many proxies changed
//! in a frame, the pair tracker marks them and finds their new neighbours in
//! one descent instead of one query each: the descent costs at most a full
//! self-traversal whatever the number of movers, while the queries' cost grows
//! with it (on 100k boxes the descent wins from about a fifth of them
//! changed; below, a marked node's box covers unmarked leaves too and the
//! descent opens nearly as many node pairs as with every leaf marked).
//!
//! The descent is the self-pair descent of `pairs.rs` (a pair of boxes is
//! found where their two leaves part) pruned by one lane mask per node, the
//! lanes whose subtree holds a marked leaf slot: a node pair is opened only
//! when one of the two lanes is marked, since two unmarked subtrees hold no
//! pair with a marked box.

use super::mask::{lane_mask, portable_mask, MaskKernel};
use super::wide::{Lane, WideNode};
use super::StaticBvh;
use proxima_narrowphase::kernels::{AabbX8, SimdLevel};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Real};

/// A node of the descent, or a pair of nodes, whose pairs are still to find.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MarkedTask {
    Within(u32),
    Across(u32, u32),
}
use MarkedTask as Task;

/// The descent's two stacks, kept by the caller between frames so that a
/// frame allocates nothing once they have grown (a dense pile's descent
/// holds more than a fixed-size stack would), and the tasks that
/// [`StaticBvh::open_marked_pairs`] leaves for the threads.
#[derive(Clone, Debug, Default)]
pub(crate) struct MarkedScratch {
    tasks: Vec<Task>,
    nodes: Vec<u32>,
    /// The independent tasks of the descent's top, in breadth-first order.
    pub(crate) open: Vec<Task>,
}

impl MarkedScratch {
    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.tasks.capacity() + self.open.capacity()) * core::mem::size_of::<Task>() + self.nodes.capacity() * 4
    }
}

/// Leaf slots marked, one bit each (bit `s % 64` of word `s / 64`).
#[inline(always)]
fn is_marked(marked: &[u64], slot: u32) -> bool {
    marked[slot as usize / 64] & (1 << (slot % 64)) != 0
}

impl StaticBvh {
    /// Writes `masks[n]`: the lanes of node `n` whose subtree holds a leaf
    /// slot marked in `marked` (one pass, children before parents).
    pub(crate) fn marked_lanes(&self, marked: &[u64], masks: &mut Vec<u8>) {
        masks.clear();
        masks.resize(self.nodes.len(), 0);
        for index in (0..self.nodes.len()).rev() {
            let node = &self.nodes[index];
            let mut mask = 0u8;
            for lane in 0..usize::from(node.len) {
                let hit = match node.lane(lane) {
                    Lane::Node(child) => masks[child as usize] != 0,
                    Lane::Leaf { first, count } => (first..first + count).any(|s| is_marked(marked, s)),
                };
                mask |= u8::from(hit) << lane;
            }
            masks[index] = mask;
        }
    }

    /// Calls `visit(s, t)` once for every pair of leaf slots `s != t` whose
    /// boxes overlap (inclusive) and of which at least one is marked.
    /// `masks` comes from [`marked_lanes`](Self::marked_lanes) with the same
    /// `marked`. Deterministic: the same tree and marks give the same calls
    /// in the same order.
    /// With AVX (and the tree's [`SimdLevel`] allowing it) the lane masks
    /// take one 256-bit comparison per bound (`mask.rs`).
    pub(crate) fn visit_marked_pairs(
        &self,
        marked: &[u64],
        masks: &[u8],
        scratch: &mut MarkedScratch,
        visit: impl FnMut(u32, u32),
    ) {
        if self.nodes.is_empty() || masks[0] == 0 {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.simd.min(SimdLevel::detect()) == SimdLevel::Avx {
            // SAFETY: the level is at most `SimdLevel::detect()`, which
            // reports AVX only when this CPU has it.
            return unsafe { walk_avx(self, marked, masks, Task::Within(0), scratch, visit) };
        }
        Walk { bvh: self, marked, masks, kernel: portable_mask }.run(Task::Within(0), scratch, visit);
    }

    /// The top of [`visit_marked_pairs`](Self::visit_marked_pairs)' descent,
    /// opened breadth first, at most four levels, until `scratch.open` holds `min_tasks`
    /// independent tasks (or the descent ends): the pairs found on the way
    /// are visited, and each pair still to find is found by exactly one of
    /// the open tasks ([`visit_marked_tasks`](Self::visit_marked_tasks)), so
    /// threads can share them. Each level is opened in order: the tasks do
    /// not depend on the thread count.
    #[cfg(feature = "parallel")]
    pub(crate) fn open_marked_pairs(
        &self,
        marked: &[u64],
        masks: &[u8],
        scratch: &mut MarkedScratch,
        min_tasks: usize,
        mut visit: impl FnMut(u32, u32),
    ) {
        let MarkedScratch { tasks, nodes, open } = scratch;
        open.clear();
        if self.nodes.is_empty() || masks[0] == 0 {
            return;
        }
        let walk = Walk { bvh: self, marked, masks, kernel: portable_mask };
        open.push(Task::Within(0));
        // A few levels: each multiplies the tasks by up to the lanes' pairs.
        for _ in 0..4 {
            if open.len() >= min_tasks || open.is_empty() {
                break;
            }
            tasks.clear();
            for &task in open.iter() {
                walk.expand(task, tasks, nodes, &mut visit);
            }
            core::mem::swap(open, tasks);
        }
    }

    /// Runs the descent from each of `tasks` (taken from
    /// [`open_marked_pairs`](Self::open_marked_pairs)'s list), with this
    /// scratch's stacks.
    #[cfg(feature = "parallel")]
    pub(crate) fn visit_marked_tasks(
        &self,
        marked: &[u64],
        masks: &[u8],
        tasks: impl Iterator<Item = Task>,
        scratch: &mut MarkedScratch,
        mut visit: impl FnMut(u32, u32),
    ) {
        #[cfg(target_arch = "x86_64")]
        if self.simd.min(SimdLevel::detect()) == SimdLevel::Avx {
            for task in tasks {
                // SAFETY: the level is at most `SimdLevel::detect()`, which
                // reports AVX only when this CPU has it.
                unsafe { walk_avx(self, marked, masks, task, scratch, &mut visit) };
            }
            return;
        }
        let walk = Walk { bvh: self, marked, masks, kernel: portable_mask };
        for task in tasks {
            walk.run(task, scratch, &mut visit);
        }
    }
}

/// The AVX instance of the descent.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn walk_avx(
    bvh: &StaticBvh,
    marked: &[u64],
    masks: &[u8],
    task: Task,
    scratch: &mut MarkedScratch,
    visit: impl FnMut(u32, u32),
) {
    // SAFETY: the caller guarantees AVX; the closure only runs inside this call.
    let kernel = |lanes: &AabbX8, min: &[Real; 3], max: &[Real; 3]| unsafe {
        proxima_narrowphase::kernels::overlap_mask_x8_avx(lanes, min, max)
    };
    Walk { bvh, marked, masks, kernel }.run(task, scratch, visit);
}

/// The tree and its marks, as the descent reads them, and the lane-mask
/// kernel it runs with.
struct Walk<'a, K> {
    bvh: &'a StaticBvh,
    marked: &'a [u64],
    masks: &'a [u8],
    kernel: K,
}

impl<K: MaskKernel> Walk<'_, K> {
    #[inline(always)]
    fn run(&self, task: Task, scratch: &mut MarkedScratch, mut visit: impl FnMut(u32, u32)) {
        let MarkedScratch { tasks, nodes, .. } = scratch;
        tasks.clear();
        tasks.push(task);
        while let Some(task) = tasks.pop() {
            self.expand(task, tasks, nodes, &mut visit);
        }
    }

    #[inline(always)]
    fn expand(&self, task: Task, stack: &mut Vec<Task>, query: &mut Vec<u32>, visit: &mut impl FnMut(u32, u32)) {
        let nodes = &self.bvh.nodes;
        match task {
            Task::Within(index) => {
                let node = &nodes[index as usize];
                let marks = u32::from(self.masks[index as usize]);
                for i in 0..usize::from(node.len) {
                    let lane_marked = marks & (1 << i) != 0;
                    if lane_marked {
                        match node.lane(i) {
                            Lane::Node(child) => stack.push(Task::Within(child)),
                            Lane::Leaf { first, count } => self.leaf_self_pairs(first, count, visit),
                        }
                    }
                    // Lanes after i that overlap lane i, one of the two marked.
                    let later =
                        lane_mask(&self.kernel, &node.bounds, &node.bounds, i) & node.used_mask() & !((2u32 << i) - 1);
                    let mut mask = if lane_marked { later } else { later & marks };
                    while mask != 0 {
                        let j = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        self.lane_pair(index, i, index, j, stack, query, visit);
                    }
                }
            }
            Task::Across(a, b) => {
                let (na, nb) = (&nodes[a as usize], &nodes[b as usize]);
                let (marks_a, marks_b) = (u32::from(self.masks[a as usize]), u32::from(self.masks[b as usize]));
                for i in 0..usize::from(na.len) {
                    let overlaps = lane_mask(&self.kernel, &nb.bounds, &na.bounds, i) & nb.used_mask();
                    let mut mask = if marks_a & (1 << i) != 0 { overlaps } else { overlaps & marks_b };
                    while mask != 0 {
                        let j = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        self.lane_pair(a, i, b, j, stack, query, visit);
                    }
                }
            }
        }
    }

    /// Lane `i` of node `a` and lane `j` of node `b`: overlapping lanes of two
    /// different subtrees, at least one of them marked.
    #[inline]
    fn lane_pair(
        &self,
        a: u32,
        i: usize,
        b: u32,
        j: usize,
        stack: &mut Vec<Task>,
        query: &mut Vec<u32>,
        visit: &mut impl FnMut(u32, u32),
    ) {
        let nodes = &self.bvh.nodes;
        match (nodes[a as usize].lane(i), nodes[b as usize].lane(j)) {
            (Lane::Leaf { first: fa, count: ca }, Lane::Leaf { first: fb, count: cb }) => {
                for s in fa..fa + ca {
                    for t in fb..fb + cb {
                        if (is_marked(self.marked, s) || is_marked(self.marked, t)) && self.overlap(s, t) {
                            visit(s, t);
                        }
                    }
                }
            }
            (Lane::Node(na), Lane::Node(nb)) => {
                super::ray::prefetch_node(nodes, na);
                super::ray::prefetch_node(nodes, nb);
                stack.push(Task::Across(na, nb));
            }
            (Lane::Leaf { first, count }, Lane::Node(node)) | (Lane::Node(node), Lane::Leaf { first, count }) => {
                for s in first..first + count {
                    // A marked box pairs with every box below `node`; an
                    // unmarked one only with the marked ones.
                    let all = is_marked(self.marked, s);
                    self.query(s, node, all, query, visit);
                }
            }
        }
    }

    /// Pairs of the leaf slot `s` with the slots below `root` (all of them,
    /// or only the marked ones).
    fn query(&self, s: u32, root: u32, all: bool, stack: &mut Vec<u32>, visit: &mut impl FnMut(u32, u32)) {
        let (nodes, aabb) = (&self.bvh.nodes, &self.bvh.prim_boxes[s as usize]);
        let (lo, hi) = (aabb.min(), aabb.max());
        let (min, max) = ([lo.x, lo.y, lo.z], [hi.x, hi.y, hi.z]);
        stack.clear();
        stack.push(root);
        while let Some(index) = stack.pop() {
            let node: &WideNode = &nodes[index as usize];
            let mut mask = (self.kernel)(&node.bounds, &min, &max);
            if !all {
                mask &= u32::from(self.masks[index as usize]);
            }
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                match node.lane(lane) {
                    Lane::Node(child) => stack.push(child),
                    Lane::Leaf { first, count } => {
                        for t in first..first + count {
                            if (all || is_marked(self.marked, t)) && (count == 1 || self.overlap_box(t, aabb)) {
                                visit(s, t);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Pairs inside one marked leaf.
    fn leaf_self_pairs(&self, first: u32, count: u32, visit: &mut impl FnMut(u32, u32)) {
        for s in first..first + count {
            for t in s + 1..first + count {
                if (is_marked(self.marked, s) || is_marked(self.marked, t)) && self.overlap(s, t) {
                    visit(s, t);
                }
            }
        }
    }

    #[inline(always)]
    fn overlap(&self, s: u32, t: u32) -> bool {
        self.overlap_box(t, &self.bvh.prim_boxes[s as usize])
    }

    #[inline(always)]
    fn overlap_box(&self, t: u32, aabb: &Aabb) -> bool {
        intersects_aabb_aabb(&self.bvh.prim_boxes[t as usize], aabb)
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::*;
    use crate::BuildOptions;
    use proxima_test_support::scene;
    use rand::Rng;

    /// The sequential descent's pairs, sorted (a pair found twice stays twice).
    fn sequential(bvh: &StaticBvh, marked: &[u64], masks: &[u8]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        bvh.visit_marked_pairs(marked, masks, &mut MarkedScratch::default(), |s, t| out.push((s.min(t), s.max(t))));
        out.sort_unstable();
        out
    }

    /// The opened descent's pairs: those met while opening, then every open
    /// task's, each task run alone in a scratch of its own (as the threads
    /// do), sorted.
    fn opened(bvh: &StaticBvh, marked: &[u64], masks: &[u8], min_tasks: usize) -> (Vec<(u32, u32)>, usize) {
        let mut out = Vec::new();
        let mut scratch = MarkedScratch::default();
        bvh.open_marked_pairs(marked, masks, &mut scratch, min_tasks, |s, t| out.push((s.min(t), s.max(t))));
        let tasks = scratch.open.clone();
        for &task in &tasks {
            let mut own = MarkedScratch::default();
            bvh.visit_marked_tasks(marked, masks, core::iter::once(task), &mut own, |s, t| {
                out.push((s.min(t), s.max(t)))
            });
        }
        out.sort_unstable();
        (out, tasks.len())
    }

    /// Opening the descent and running its tasks apart finds the sequential
    /// descent's pairs, each once (and those are brute force's, up to 2,000
    /// boxes): trees whose root lanes are all leaves,
    /// mid-sized and dense trees, every slot or a few marked, task targets
    /// from 1 to more than the four levels can open (the cap), and no mark.
    #[test]
    fn opened_tasks_find_the_sequential_pairs_once() {
        let mut rng = proxima_test_support::rng(0x0DE5C);
        let (mut capped, mut leaf_root) = (false, false);
        for (n, dense) in [(3, true), (12, true), (300, false), (2_000, true), (20_000, true)] {
            for options in [BuildOptions::default(), BuildOptions::PAIRS] {
                let boxes = scene::boxes(n, dense, n as u64);
                let bvh = StaticBvh::build_with(&boxes, options);
                leaf_root |= bvh.nodes.len() == 1;
                for fraction in [0.0, 0.05, 0.4, 1.0] {
                    let mut marked = vec![0u64; n.div_ceil(64)];
                    for slot in 0..n {
                        if rng.random_bool(fraction) {
                            marked[slot / 64] |= 1 << (slot % 64);
                        }
                    }
                    let mut masks = Vec::new();
                    bvh.marked_lanes(&marked, &mut masks);
                    let want = sequential(&bvh, &marked, &masks);
                    assert!(want.windows(2).all(|w| w[0] != w[1]), "the sequential descent repeats a pair");
                    if n <= 2_000 {
                        // The sequential descent itself against all pairs of leaf slots.
                        let is_marked = |s: usize| marked[s / 64] & (1 << (s % 64)) != 0;
                        let boxes = &bvh.prim_boxes;
                        let brute: Vec<(u32, u32)> = (0..n)
                            .flat_map(|s| (s + 1..n).map(move |t| (s, t)))
                            .filter(|&(s, t)| {
                                (is_marked(s) || is_marked(t)) && intersects_aabb_aabb(&boxes[s], &boxes[t])
                            })
                            .map(|(s, t)| (s as u32, t as u32))
                            .collect();
                        assert_eq!(want, brute, "n {n}, fraction {fraction}: sequential descent against brute force");
                    }
                    for min_tasks in [1, 16, 128, 1 << 20] {
                        let (got, tasks) = opened(&bvh, &marked, &masks, min_tasks);
                        assert_eq!(got, want, "n {n}, fraction {fraction}, min_tasks {min_tasks}");
                        capped |= tasks > 0 && tasks < min_tasks && min_tasks == 1 << 20;
                    }
                }
            }
        }
        assert!(leaf_root, "no tree of one node");
        assert!(capped, "no opening stopped at its four levels with tasks left");
    }
}
