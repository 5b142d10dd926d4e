//! Removal: the leaf's sibling takes its parent's place.

use super::tree::{NULL, ROOT};
use super::DynamicTree;

impl<T> DynamicTree<T> {
    /// Unlinks the leaf of slab key `key` from the tree (its slab entry stays).
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
        // Shrink the ancestors; once one is unchanged, so are the rest.
        let mut up = self.node(parent).parent;
        while up != NULL {
            let union = self.children_union(up);
            if union == self.node(up).aabb {
                break;
            }
            self.node_mut(up).aabb = union;
            up = self.node(up).parent;
        }
        Some(parent)
    }
}
