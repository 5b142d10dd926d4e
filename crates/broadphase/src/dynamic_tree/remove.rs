//! Removal: the leaf's sibling takes its parent's place.

use super::tree::{NULL, ROOT};
use super::DynamicTree;

impl<T> DynamicTree<T> {
    /// Unlinks the leaf of slot `key` (of the `Slots` slot map) from the tree (its slot entry stays).
    ///
    /// With leaf L, sibling S and parent P: S's node moves into P's slot (so
    /// P's parent keeps its link), the pair that held L and S is freed, and the
    /// ancestors shrink to their new unions. Returns the slot S moved into
    /// (where a re-insertion of a nearby box can start looking), or `None`
    /// when L was the only leaf.
    pub(crate) fn remove_leaf(&mut self, key: usize) -> Option<u32> {
        let slot = self.leaves.by_key(key).node;
        if slot == ROOT {
            self.has_root = false;
            return None;
        }
        let parent = self.node(slot).parent;
        let sibling = *self.node(slot ^ 1);
        self.place(parent, sibling);
        self.free_pair(slot);
        self.refit_up(self.node(parent).parent);
        Some(parent)
    }

    /// Sets each node from `slot` up to the union of its children, stopping at
    /// the first unchanged one (the boxes above it cannot change either).
    pub(crate) fn refit_up(&mut self, mut slot: u32) {
        while slot != NULL {
            let union = self.children_union(slot);
            if union == self.node(slot).aabb {
                return;
            }
            self.node_mut(slot).aabb = union;
            slot = self.node(slot).parent;
        }
    }
}
