//! Every overlapping pair of leaves, by traversing the tree against itself
//! (the bounding volume test tree, BVTT): a node's pairs are its children's
//! pairs plus the pairs across its two children.

use super::tree::{Node, NodePair, ROOT};
use super::DynamicTree;
use crate::pairs::{sort_keys, Pair};
use crate::ProxyId;
use proxima_narrowphase::intersects_aabb_aabb;

/// A traversal task over sibling pairs (see [`NodesView::collect_pairs`]).
type Task = (u32, u32);

/// Below this many leaves the parallel split costs more than it saves.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_LEAVES: usize = 8192;
/// Number of tasks the parallel traversal aims for (a few per thread, so
/// uneven subtrees still balance).
#[cfg(feature = "parallel")]
const PARALLEL_TASKS: usize = 256;

impl<T> DynamicTree<T> {
    /// Every pair of overlapping fat boxes as `(min, max)`, sorted, into `out`.
    pub(crate) fn self_pairs_into(&self, out: &mut Vec<Pair>) {
        self.self_pairs_impl(out, true);
    }

    /// Every pair of overlapping fat boxes as `(min, max)`, into `out`, in
    /// the traversal's order: deterministic (the same tree gives the same
    /// list, whatever the number of threads) but not sorted. For callers that
    /// map the ids to their own indices and sort those, so the list is not
    /// sorted twice.
    pub fn pairs_unsorted_into(&self, out: &mut Vec<Pair>) {
        self.self_pairs_impl(out, false);
    }

    fn self_pairs_impl(&self, out: &mut Vec<Pair>, sorted: bool) {
        out.clear();
        if !self.has_root || self.node(ROOT).is_leaf() {
            return;
        }
        let view = NodesView { nodes: &self.nodes };
        let top = self.node(ROOT).child >> 1;
        // Leaves emit 8-byte slot keys; ids (with generations) are made once,
        // after the sort, in one sequential pass.
        #[cfg(feature = "parallel")]
        let parallel = self.leaves.len() >= PARALLEL_MIN_LEAVES;
        #[cfg(not(feature = "parallel"))]
        let parallel = false;
        let mut keys = Vec::new();
        if parallel {
            #[cfg(feature = "parallel")]
            {
                keys = view.par_self_pairs(top);
            }
        } else {
            view.collect_pairs((top, top), &mut Vec::new(), &mut keys);
        }
        if sorted {
            sort_keys(&mut keys, &mut Vec::new());
        }
        let generations = self.leaves.generations();
        let id = |key: u64| ProxyId::new(key as u32, generations[key as usize]);
        out.extend(keys.iter().map(|&k| (id(k >> 32), id(k & 0xFFFF_FFFF))));
    }
}

/// The parts of a tree the pair traversal reads: `Sync` whatever the user
/// data is, so subtrees can be traversed on several threads.
#[derive(Clone, Copy)]
pub(crate) struct NodesView<'a> {
    nodes: &'a [NodePair],
}

impl NodesView<'_> {
    /// The unsorted pair keys below sibling pair `top`, on rayon's pool.
    ///
    /// The top of the traversal is expanded sequentially, level by level,
    /// into at least `PARALLEL_TASKS` independent tasks (subtrees, and pairs
    /// of overlapping subtrees); the tasks run in parallel, each into its own
    /// buffer, and the buffers are concatenated once.
    #[cfg(feature = "parallel")]
    fn par_self_pairs(&self, top: u32) -> Vec<u64> {
        use rayon::prelude::*;
        let mut tasks: Vec<Task> = vec![(top, top)];
        let mut direct = Vec::new();
        while tasks.len() < PARALLEL_TASKS && tasks.iter().any(|&(p, q)| p == q) {
            let mut next = Vec::with_capacity(tasks.len() * 3);
            for &(p, q) in &tasks {
                if p != q {
                    next.push((p, q));
                    continue;
                }
                let [left, right] = &self.nodes[p as usize].0;
                if !left.is_leaf() {
                    next.push((left.child >> 1, left.child >> 1));
                }
                if !right.is_leaf() {
                    next.push((right.child >> 1, right.child >> 1));
                }
                if intersects_aabb_aabb(&left.aabb, &right.aabb) {
                    self.dispatch(left, right, &mut next, &mut direct);
                }
            }
            tasks = next;
        }
        let parts: Vec<Vec<u64>> = tasks
            .par_iter()
            .map(|&task| {
                let mut out = Vec::new();
                self.collect_pairs(task, &mut Vec::new(), &mut out);
                out
            })
            .collect();
        let mut keys = Vec::with_capacity(direct.len() + parts.iter().map(Vec::len).sum::<usize>());
        keys.extend_from_slice(&direct);
        for part in &parts {
            keys.extend_from_slice(part);
        }
        keys
    }

    /// Appends the (canonical, unsorted) pairs of one task to `out`.
    ///
    /// Tasks name sibling pairs (one cache line each), not nodes: `(p, p)` is
    /// "the pairs inside the two subtrees of pair `p`, and across them";
    /// `(p, q)` is "the pairs across the subtrees of pair `p` and those of
    /// pair `q`", whose four combinations are tested at once (as parry's
    /// `traverse_two_branches`). A leaf against a subtree walks the subtree
    /// with the leaf's box held fixed.
    pub(crate) fn collect_pairs(&self, task: Task, stack: &mut Vec<Task>, out: &mut Vec<u64>) {
        stack.clear();
        stack.push(task);
        while let Some((p, q)) = stack.pop() {
            let a = &self.nodes[p as usize].0;
            if p == q {
                let (left, right) = (&a[0], &a[1]);
                // Pushed so that they pop left subtree, right subtree, then
                // the cross pairs: the order the depth-first layout stores them.
                if intersects_aabb_aabb(&left.aabb, &right.aabb) {
                    self.dispatch(left, right, stack, out);
                }
                if !right.is_leaf() {
                    stack.push((right.child >> 1, right.child >> 1));
                }
                if !left.is_leaf() {
                    stack.push((left.child >> 1, left.child >> 1));
                }
                continue;
            }
            let b = &self.nodes[q as usize].0;
            // All four tests first, branch-free, then only the hits branch.
            let mut mask = 0u32;
            for (i, x) in a.iter().enumerate() {
                for (j, y) in b.iter().enumerate() {
                    mask |= u32::from(intersects_aabb_aabb(&x.aabb, &y.aabb)) << (2 * i + j);
                }
            }
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                self.dispatch(&a[k >> 1], &b[k & 1], stack, out);
            }
        }
    }

    /// Handles two overlapping nodes of different subtrees.
    #[inline]
    fn dispatch(&self, x: &Node, y: &Node, stack: &mut Vec<Task>, out: &mut Vec<u64>) {
        match (x.is_leaf(), y.is_leaf()) {
            (true, true) => self.emit(x, y, out),
            (true, false) => self.leaf_against(x, y.child, out),
            (false, true) => self.leaf_against(y, x.child, out),
            (false, false) => stack.push((x.child >> 1, y.child >> 1)),
        }
    }

    /// Pairs between `leaf` and the leaves of the subtree whose children are
    /// the pair starting at `first_child` (already known to overlap `leaf`).
    fn leaf_against(&self, leaf: &Node, first_child: u32, out: &mut Vec<u64>) {
        let mut stack: smallvec::SmallVec<[u32; 48]> = smallvec::SmallVec::new();
        let mut children = first_child;
        loop {
            let pair = &self.nodes[(children >> 1) as usize].0;
            let hit0 = intersects_aabb_aabb(&pair[0].aabb, &leaf.aabb);
            let hit1 = intersects_aabb_aabb(&pair[1].aabb, &leaf.aabb);
            for (node, hit) in [(&pair[0], hit0), (&pair[1], hit1)] {
                if hit {
                    if node.is_leaf() {
                        self.emit(leaf, node, out);
                    } else {
                        stack.push(node.child);
                    }
                }
            }
            match stack.pop() {
                Some(next) => children = next,
                None => return,
            }
        }
    }

    #[inline]
    fn emit(&self, a: &Node, b: &Node, out: &mut Vec<u64>) {
        let (x, y) = (a.key() as u64, b.key() as u64);
        // The canonical pair key: (min slot) << 32 | max slot.
        out.push(if x < y { (x << 32) | y } else { (y << 32) | x });
    }
}
