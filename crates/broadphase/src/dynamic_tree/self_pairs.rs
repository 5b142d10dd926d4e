//! Every overlapping pair of leaves, by traversing the tree against itself
//! (the bounding volume test tree, BVTT): a node's pairs are its children's
//! pairs plus the pairs across its two children.

use super::tree::{Node, NodePair, ROOT};
use super::DynamicTree;
use crate::pairs::{sort_pairs, Pair};
use crate::ProxyId;
use proxima_narrowphase::intersects_aabb_aabb;

/// A traversal task over sibling pairs (see [`NodesView::collect_pairs`]).
type Task = (u32, u32);

/// Below this many leaves the parallel split costs more than it saves.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_LEAVES: usize = 8192;
/// Depth of the parallel split: up to 2^depth subtree tasks.
#[cfg(feature = "parallel")]
const PARALLEL_DEPTH: u32 = 6;

impl<T> DynamicTree<T> {
    /// Every pair of overlapping fat boxes as `(min, max)`, sorted, into `out`.
    pub(crate) fn self_pairs_into(&self, out: &mut Vec<Pair>) {
        out.clear();
        if !self.has_root || self.node(ROOT).is_leaf() {
            return;
        }
        let view = NodesView { nodes: &self.nodes, generations: self.leaves.generations() };
        let top = self.node(ROOT).child >> 1;
        #[cfg(feature = "parallel")]
        if self.leaves.len() >= PARALLEL_MIN_LEAVES {
            *out = view.par_self_pairs(top, PARALLEL_DEPTH);
            sort_pairs(out, &mut Vec::new());
            return;
        }
        let mut stack = Vec::new();
        view.collect_pairs((top, top), &mut stack, out);
        sort_pairs(out, &mut Vec::new());
    }
}

/// The parts of a tree the pair traversal reads: `Sync` whatever the user
/// data is, so subtrees can be traversed on several threads.
#[derive(Clone, Copy)]
pub(crate) struct NodesView<'a> {
    nodes: &'a [NodePair],
    generations: &'a [u32],
}

impl NodesView<'_> {
    /// The unsorted pairs of the subtrees of sibling pair `pair`, split into
    /// rayon tasks `depth` levels down.
    #[cfg(feature = "parallel")]
    fn par_self_pairs(&self, pair: u32, depth: u32) -> Vec<Pair> {
        let mut stack = Vec::new();
        let mut out = Vec::new();
        if depth == 0 {
            self.collect_pairs((pair, pair), &mut stack, &mut out);
            return out;
        }
        let [left, right] = &self.nodes[pair as usize].0;
        let sub =
            |node: &Node| if node.is_leaf() { Vec::new() } else { self.par_self_pairs(node.child >> 1, depth - 1) };
        let ((mut l, r), cross) = rayon::join(
            || rayon::join(|| sub(left), || sub(right)),
            || {
                if intersects_aabb_aabb(&left.aabb, &right.aabb) {
                    self.dispatch(left, right, &mut stack, &mut out);
                    while let Some(task) = stack.pop() {
                        let mut inner = Vec::new();
                        self.collect_pairs(task, &mut inner, &mut out);
                    }
                }
                out
            },
        );
        l.extend_from_slice(&r);
        l.extend_from_slice(&cross);
        l
    }

    /// The id of the leaf `node`.
    #[inline]
    fn leaf_id(&self, node: &Node) -> ProxyId {
        let key = node.key();
        ProxyId::new(key as u32, self.generations[key])
    }

    /// Appends the (canonical, unsorted) pairs of one task to `out`.
    ///
    /// Tasks name sibling pairs (one cache line each), not nodes: `(p, p)` is
    /// "the pairs inside the two subtrees of pair `p`, and across them";
    /// `(p, q)` is "the pairs across the subtrees of pair `p` and those of
    /// pair `q`", whose four combinations are tested at once (as parry's
    /// `traverse_two_branches`). A leaf against a subtree walks the subtree
    /// with the leaf's box held fixed.
    pub(crate) fn collect_pairs(&self, task: Task, stack: &mut Vec<Task>, out: &mut Vec<Pair>) {
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
    fn dispatch(&self, x: &Node, y: &Node, stack: &mut Vec<Task>, out: &mut Vec<Pair>) {
        match (x.is_leaf(), y.is_leaf()) {
            (true, true) => self.emit(x, y, out),
            (true, false) => self.leaf_against(x, y.child, out),
            (false, true) => self.leaf_against(y, x.child, out),
            (false, false) => stack.push((x.child >> 1, y.child >> 1)),
        }
    }

    /// Pairs between `leaf` and the leaves of the subtree whose children are
    /// the pair starting at `first_child` (already known to overlap `leaf`).
    fn leaf_against(&self, leaf: &Node, first_child: u32, out: &mut Vec<Pair>) {
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
    fn emit(&self, a: &Node, b: &Node, out: &mut Vec<Pair>) {
        let (x, y) = (self.leaf_id(a), self.leaf_id(b));
        out.push(if x < y { (x, y) } else { (y, x) });
    }
}
