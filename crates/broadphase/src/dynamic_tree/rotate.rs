//! Tree rotations: local swaps that shrink the tree's surface area.

use super::tree::area;
use super::DynamicTree;

impl<T> DynamicTree<T> {
    /// Tries the four rotations at the internal node A in `slot` and applies
    /// the one that shrinks surface area most, if any does.
    ///
    /// With A's children B and C, and C's children F and G: swapping B with F
    /// makes C hold `B ∪ G` instead of `F ∪ G`. A's box is unchanged (same
    /// leaves below it), so the SAH cost changes by `A(B ∪ G) - A(C)`, and
    /// likewise for B↔G, and C↔D, C↔E when B has children D and E. This is the
    /// area-based rotation of Box2D v3 (Catto, "Dynamic AABB trees", 2019),
    /// which replaced height balancing: it keeps the tree good whatever the
    /// insertion order, and it touches one node's box.
    pub(crate) fn rotate(&mut self, slot: u32) {
        let node = *self.node(slot);
        if node.is_leaf() {
            return;
        }
        let (b, c) = (node.child, node.child + 1);
        let (nb, nc) = (*self.node(b), *self.node(c));
        // (gain, moved down, moved up, node whose box changes)
        let mut best: Option<(f64, u32, u32, u32)> = None;
        let mut consider = |gain: f64, down: u32, up: u32, changed: u32| {
            if gain > 0.0 && best.is_none_or(|(g, ..)| gain > g) {
                best = Some((gain, down, up, changed));
            }
        };
        if !nc.is_leaf() {
            let (f, g) = (nc.child, nc.child + 1);
            let area_c = area(&nc.aabb);
            consider(area_c - area(&nb.aabb.merged(&self.node(g).aabb)), b, f, c);
            consider(area_c - area(&nb.aabb.merged(&self.node(f).aabb)), b, g, c);
        }
        if !nb.is_leaf() {
            let (d, e) = (nb.child, nb.child + 1);
            let area_b = area(&nb.aabb);
            consider(area_b - area(&nc.aabb.merged(&self.node(e).aabb)), c, d, b);
            consider(area_b - area(&nc.aabb.merged(&self.node(d).aabb)), c, e, b);
        }
        if let Some((_, down, up, changed)) = best {
            self.swap_subtrees(down, up);
            let union = self.children_union(changed);
            self.node_mut(changed).aabb = union;
        }
    }

    /// Exchanges the subtrees in slots `x` and `y` (neither an ancestor of the
    /// other); each slot keeps its parent link.
    pub(crate) fn swap_subtrees(&mut self, x: u32, y: u32) {
        let (nx, ny) = (*self.node(x), *self.node(y));
        self.place(x, ny);
        self.place(y, nx);
    }
}
