//! Loose maintenance for many moving proxies: leaves grow their ancestors in
//! place ([`DynamicTree::enlarge_proxy`]) and one bottom-up pass tightens
//! every box later ([`DynamicTree::refit`]), the scheme of Box2D v3's
//! `b2DynamicTree_EnlargeProxy` and parry's `Bvh::refit`.
//!
//! Invariant while loose: every internal box contains its children's boxes
//! (queries need nothing more), but may be larger than their union. `refit`
//! makes each one the union again; the topology never changes here, so a
//! tree whose proxies wandered far keeps its old grouping until
//! [`rebuild`](DynamicTree::rebuild).

use super::tree::{area, FREE, NULL, ROOT};
use super::DynamicTree;
use crate::{BroadPhaseError, ProxyId};
use proxima_narrowphase::{Aabb, Vector};

impl<T> DynamicTree<T> {
    /// Tells the tree that proxy `id` now has tight box `aabb` after moving by
    /// `displacement`, without restructuring it: when `aabb` left the fat box,
    /// the leaf takes the new fat box (as [`move_proxy`](Self::move_proxy)
    /// computes it) where it is, and each ancestor that does not already hold
    /// it grows to its union with it, from the leaf up to the first one that
    /// does. O(depth) at worst, usually a few nodes; no node is created,
    /// freed or moved.
    ///
    /// Returns `Ok(false)` when `aabb` is still inside the fat box (nothing
    /// changes), `Ok(true)` when the leaf got a new fat box. The ancestors
    /// stay loose (larger than the union of their children) until
    /// [`refit`](Self::refit) or [`rebuild`](Self::rebuild): queries are
    /// exact for the fat boxes all along, only slower where boxes are loose.
    /// A stale id or a NaN/infinite displacement is rejected and nothing
    /// changes.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
    /// use proxima::broadphase::{BroadPhase, DynamicTree};
    /// use proxima::narrowphase::{Aabb, Point, Vector};
    /// let mut tree = DynamicTree::new();
    /// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    /// let ids: Vec<_> = (0..8).map(|i| tree.insert(unit(3.0 * i as f32), i)).collect();
    /// // Every proxy slides 2 along x: the tree grows in place.
    /// for (i, id) in ids.iter().enumerate() {
    ///     assert_eq!(tree.enlarge_proxy(*id, unit(3.0 * i as f32 + 2.0), Vector::new(2.0, 0.0, 0.0)), Ok(true));
    /// }
    /// let probe = Aabb::new(Point::new(2.5, 0.5, 0.5), Point::new(2.6, 0.6, 0.6));
    /// assert_eq!(tree.overlaps(&probe).collect::<Vec<_>>(), vec![ids[0]]);
    /// tree.refit(); // every box tight again
    /// let stats = tree.validate().unwrap();
    /// assert!((stats.sah_cost - tree.sah_cost()).abs() <= 1e-12 * stats.sah_cost);
    /// ```
    pub fn enlarge_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        let Some((slot, fat)) = self.refattened(id, &aabb, &displacement)? else {
            return Ok(false);
        };
        self.leaves.by_key_mut(id.index() as usize).fat = fat;
        self.node_mut(slot).aabb = fat;
        let mut up = self.node(slot).parent;
        while up != NULL && !self.node(up).aabb.contains_aabb(&fat) {
            let grown = self.node(up).aabb.merged(&fat);
            self.node_mut(up).aabb = grown;
            up = self.node(up).parent;
        }
        self.loose |= slot != ROOT;
        Ok(true)
    }

    /// Sets each box on the path from proxy `id`'s leaf to the root to the
    /// union of its children's, bottom up: after `enlarge_proxy` moved a few
    /// leaves, refitting each of their paths (in any order) makes every box
    /// those calls grew tight again, in O(leaves * depth) instead of
    /// [`refit`](Self::refit)'s O(tree). (Each box is recomputed after the
    /// children on its own path; a box grown by two calls sits on both
    /// paths, and the later walk sees both children final.) A stale id is
    /// rejected and nothing changes. The tree counts as loose until the next
    /// `refit` or `rebuild`, as boxes off these paths may be.
    pub fn refit_path(&mut self, id: ProxyId) -> Result<(), BroadPhaseError> {
        let mut slot = self.leaves.try_get(id)?.node;
        while slot != ROOT {
            slot = self.node(slot).parent;
            let union = self.children_union(slot);
            self.node_mut(slot).aabb = union;
        }
        Ok(())
    }

    /// Sets every internal box to the union of its children's, bottom up,
    /// keeping the topology: the tree is tight again after
    /// [`enlarge_proxy`](Self::enlarge_proxy) calls. One visit per node, no
    /// allocation (a stackless post-order walk over the parent links: down to
    /// a first child's leftmost leaf, across to its sibling, up from a second
    /// child, whose parent's children are then both final).
    pub fn refit(&mut self) {
        self.loose = false;
        if !self.has_root {
            return;
        }
        let mut slot = ROOT;
        loop {
            while !self.node(slot).is_leaf() {
                slot = self.node(slot).child;
            }
            // Up through every second child: its parent's children are final.
            loop {
                if slot == ROOT {
                    return;
                }
                if slot & 1 == 0 {
                    // A first child: its sibling's subtree comes next.
                    slot += 1;
                    break;
                }
                slot = self.node(slot).parent;
                let union = self.children_union(slot);
                self.node_mut(slot).aabb = union;
            }
        }
    }

    /// The tree's SAH cost, `(sum of internal areas + sum of leaf areas) /
    /// root area` in `f64` (0 for an empty tree or a root of zero area): the
    /// figure [`validate`](crate::BroadPhase::validate) reports, in one pass
    /// over the node slots without its checks or its allocation. A caller
    /// that refits can rebuild once it has grown well past its value after
    /// the last [`rebuild`](Self::rebuild).
    pub fn sah_cost(&self) -> f64 {
        if !self.has_root {
            return 0.0;
        }
        // Live nodes are the slots not marked free (the padding slot is).
        let total: f64 =
            self.nodes.iter().flat_map(|pair| &pair.0).filter(|n| n.parent != FREE).map(|n| area(&n.aabb)).sum();
        let root_area = area(&self.node(ROOT).aabb);
        if root_area > 0.0 {
            total / root_area
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree::ROOT;
    use super::*;
    use crate::BroadPhase;
    use proxima_narrowphase::Point;

    /// True when every internal box reachable from the root is exactly its
    /// children's union.
    fn tight(tree: &DynamicTree<u32>) -> bool {
        let mut stack = vec![ROOT];
        while let Some(slot) = stack.pop() {
            let node = *tree.node(slot);
            if node.is_leaf() {
                continue;
            }
            if tree.children_union(slot) != node.aabb {
                return false;
            }
            stack.extend([node.child, node.child + 1]);
        }
        true
    }

    /// Whatever the order of the paths, refitting every enlarged proxy's
    /// path leaves no box loose (no removal in between).
    #[test]
    fn refitting_every_enlarged_path_makes_every_box_tight() {
        let mut state = 0x2545_f491_u64;
        let mut next = move |scale: f32| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (state >> 40) as f32 / (1u64 << 24) as f32 * scale
        };
        for round in 0..20 {
            let mut tree = DynamicTree::new();
            let ids: Vec<ProxyId> = (0..200)
                .map(|i| {
                    let p = Point::new(next(30.0), next(30.0), next(30.0));
                    tree.insert(Aabb::new(p, p + Vector::repeat(0.5 + next(1.0))), i)
                })
                .collect();
            if round % 2 == 0 {
                tree.rebuild();
            }
            let mut enlarged = Vec::new();
            for _ in 0..60 {
                let id = ids[(next(1.0) * 199.0) as usize];
                let d = Vector::new(next(8.0) - 4.0, next(8.0) - 4.0, next(8.0) - 4.0);
                let fat = tree.fat_aabb(id).unwrap();
                if tree.enlarge_proxy(id, Aabb::new(fat.min() + d, fat.max() + d), d).unwrap() {
                    enlarged.push(id);
                }
            }
            assert!(!tight(&tree), "round {round}: the moves must loosen some box");
            // Reverse order on odd rounds.
            if round % 2 == 1 {
                enlarged.reverse();
            }
            for id in &enlarged {
                tree.refit_path(*id).unwrap();
            }
            assert!(tight(&tree), "round {round}");
            assert!(tree.validate().is_ok());
        }
    }
}
