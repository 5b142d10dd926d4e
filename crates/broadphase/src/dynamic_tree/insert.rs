//! Insertion: choose the sibling that adds the least surface area, then
//! refit and rotate the path up to the root.

use super::tree::{area, Node, NodePair, LEAF_BIT, NULL, ROOT};
use super::DynamicTree;
use proxima_narrowphase::Aabb;

impl<T> DynamicTree<T> {
    /// Links the leaf of slot `key` (of the `Slots` slot map) into the tree with box `fat`,
    /// searching the whole tree for its sibling.
    pub(crate) fn insert_leaf(&mut self, key: usize, fat: Aabb) {
        self.insert_leaf_below(key, fat, ROOT);
    }

    /// Links the leaf of slot `key` (of the `Slots` slot map) into the tree with box `fat`,
    /// searching for its sibling from the lowest ancestor of `near` (inclusive)
    /// whose box contains `fat` (a local re-insertion: for a proxy that moved
    /// a little, the search starts a few levels above its old place instead of
    /// at the root, and no ancestor above the start grows).
    pub(crate) fn insert_leaf_near(&mut self, key: usize, fat: Aabb, near: u32) {
        let mut start = near;
        while start != ROOT && !self.node(start).aabb.contains_aabb(&fat) {
            start = self.node(start).parent;
        }
        self.insert_leaf_below(key, fat, start);
    }

    /// Links the leaf into the subtree of `start` (the root, or a node whose
    /// box contains `fat`).
    fn insert_leaf_below(&mut self, key: usize, fat: Aabb, start: u32) {
        let leaf = Node { aabb: fat, parent: NULL, child: LEAF_BIT | key as u32 };
        if !self.has_root {
            if self.nodes.is_empty() {
                self.nodes.push(NodePair([Node::empty(); 2]));
            }
            *self.node_mut(ROOT) = leaf;
            let entry = self.leaves.by_key_mut(key);
            (entry.node, entry.fat) = (ROOT, fat);
            self.has_root = true;
            return;
        }
        let sibling = self.find_best_sibling(&fat, start, key as u32);
        // The sibling S moves down into a new pair next to the leaf L; a new
        // internal node P = S ∪ L takes S's slot, so S's parent keeps its link.
        let old = *self.node(sibling);
        let pair = self.alloc_pair();
        *self.node_mut(pair) = Node { parent: sibling, ..old };
        self.relink(pair);
        *self.node_mut(pair + 1) = Node { parent: sibling, ..leaf };
        let entry = self.leaves.by_key_mut(key);
        (entry.node, entry.fat) = (pair + 1, fat);
        *self.node_mut(sibling) = Node { aabb: old.aabb.merged(&fat), parent: old.parent, child: pair };
        self.rotate_and_refit_up(sibling);
    }

    /// The node that, as the new leaf's sibling, adds the least surface area
    /// to the tree (the SAH cost of an insertion).
    ///
    /// Cost of making node `S` the sibling of leaf `L`: the new parent's area
    /// `A(S ∪ L)` plus the growth `A(X ∪ L) - A(X)` of every ancestor `X` of
    /// `S` (their boxes grow to hold `L`). Descending, the ancestors' growth
    /// accumulates as `inherited`; any node inside a subtree `C` costs at least
    /// `inherited + A(C ∪ L) - A(C) + A(L)`, a lower bound used to stop the
    /// descent once it cannot beat the best cost seen (branch and bound:
    /// Bittner et al. 2013, "Fast insertion-based optimization of bounding
    /// volume hierarchies"; the greedy one-path form follows Catto's Box2D v3).
    /// Areas are `f64`, so 1e30-sized boxes cost finite amounts.
    ///
    /// The search covers the subtree of `start`, the root or a node whose box
    /// already contains `fat` (so its ancestors would not grow).
    ///
    /// Ties go deeper. Between two children with the same bound the smaller
    /// one is taken; an exact tie of both is broken by a coin seeded with
    /// `salt`: without it, identical boxes (whose costs all tie) would always
    /// take the same branch and the tree would become a chain as deep as it
    /// has leaves. With it they descend a pseudo-random path to a leaf, as in
    /// a random binary search tree, of expected depth O(log n).
    pub(crate) fn find_best_sibling(&self, fat: &Aabb, start: u32, salt: u32) -> u32 {
        let leaf_area = area(fat);
        let mut best = start;
        let mut best_cost = area(&self.node(start).aabb.merged(fat));
        let mut inherited = 0.0f64;
        let mut slot = start;
        let mut coin = (salt as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        loop {
            let node = self.node(slot);
            if node.is_leaf() {
                return best;
            }
            inherited += area(&node.aabb.merged(fat)) - area(&node.aabb);
            let pair = &self.nodes[(node.child >> 1) as usize].0;
            // A leaf child's lower bound is its own cost: reaching it ends the descent.
            let (mut lower, mut own) = ([0.0f64; 2], [0.0f64; 2]);
            for (i, child) in pair.iter().enumerate() {
                let grown = area(&child.aabb.merged(fat));
                let direct = grown + inherited;
                if direct < best_cost {
                    best_cost = direct;
                    best = node.child + i as u32;
                }
                own[i] = area(&child.aabb);
                lower[i] = if child.is_leaf() { direct } else { inherited + grown - own[i] + leaf_area };
            }
            // Ties on the bound (both children already hold the box) go to the
            // smaller child, as in an R-tree's ChooseSubtree; only exact ties
            // of both (identical boxes) take the coin, a 64-bit LCG step
            // (Knuth's MMIX constants) whose top bit picks the side.
            coin = coin.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let i = match lower[0].partial_cmp(&lower[1]).map(|o| o.then(own[0].total_cmp(&own[1]))) {
                Some(core::cmp::Ordering::Less) => 0,
                Some(core::cmp::Ordering::Greater) => 1,
                _ => (coin >> 63) as usize,
            };
            if lower[i] > best_cost {
                return best;
            }
            let chosen = node.child + i as u32;
            if pair[i].is_leaf() {
                // Its cost equals the best (it is the best, or ties with it).
                return chosen;
            }
            slot = chosen;
        }
    }

    /// Walks from the new parent `slot` (whose box is already right) to the
    /// root: rotates each node ([`rotate`](Self::rotate)), then refits its
    /// parent. Stops once a parent's box is unchanged: the boxes above it
    /// cannot change either.
    pub(crate) fn rotate_and_refit_up(&mut self, mut slot: u32) {
        loop {
            self.rotate(slot);
            let parent = self.node(slot).parent;
            if parent == NULL {
                return;
            }
            let union = self.children_union(parent);
            if union == self.node(parent).aabb {
                return;
            }
            self.node_mut(parent).aabb = union;
            slot = parent;
        }
    }
}
