//! The invariant walk of the dynamic tree.

use super::tree::{area, FREE, NULL, ROOT};
use super::DynamicTree;
use crate::{TreeStats, ValidationError};

impl<T> DynamicTree<T> {
    /// Walks every node and the free list; checks:
    ///
    /// - the root's parent is `NULL`; every child's parent link names its parent;
    /// - every internal box is exactly the union of its children's (the tree
    ///   refits with exact min/max, so containment is checked as equality),
    ///   or, while the tree is loose (after `enlarge_proxy`, before `refit`),
    ///   contains them;
    /// - every leaf's slot-map entry names the leaf's node slot, and every proxy has a leaf;
    /// - `2 * leaves - 1` nodes are reachable and no slot is reached twice;
    /// - free pairs (marked free) + live nodes + padding = capacity.
    ///
    /// Reports the height (root-to-leaf edges) and the SAH cost
    /// `(sum of internal areas + sum of leaf areas) / root area`, summed in `f64`.
    pub(crate) fn validate_impl(&self) -> Result<TreeStats, ValidationError> {
        let err = |msg: String| Err(ValidationError(msg));
        let capacity = self.nodes.len() * 2;
        let leaves = self.leaves.len();
        if !self.has_root {
            if leaves != 0 {
                return err(format!("no root but {leaves} proxies"));
            }
        } else if self.node(ROOT).parent != NULL {
            return err("root has a parent".into());
        }
        let mut seen = vec![false; capacity];
        let (mut live, mut found_leaves, mut height) = (0usize, 0usize, 0usize);
        let (mut internal_area, mut leaf_area) = (0.0f64, 0.0f64);
        let mut stack: Vec<(u32, usize)> = if self.has_root { vec![(ROOT, 0)] } else { Vec::new() };
        while let Some((slot, depth)) = stack.pop() {
            if slot as usize >= capacity || std::mem::replace(&mut seen[slot as usize], true) {
                return err(format!("slot {slot} out of range or reached twice"));
            }
            live += 1;
            height = height.max(depth);
            let node = self.node(slot);
            if node.parent == FREE {
                return err(format!("live slot {slot} is marked free"));
            }
            if node.is_leaf() {
                leaf_area += area(&node.aabb);
                found_leaves += 1;
                match self.leaves.get_key(node.key()) {
                    Some(leaf) if leaf.node == slot && leaf.fat == node.aabb => {}
                    Some(leaf) if leaf.node == slot => {
                        return err(format!("leaf in slot {slot}: the slot map's copy of its box differs"))
                    }
                    Some(leaf) => return err(format!("leaf in slot {slot}: slot map says slot {}", leaf.node)),
                    None => return err(format!("leaf in slot {slot} has no slot-map entry {}", node.key())),
                }
                continue;
            }
            internal_area += area(&node.aabb);
            if node.child % 2 != 0 || node.child == ROOT {
                return err(format!("slot {slot}: first child {} is not a pair start", node.child));
            }
            for child in [node.child, node.child + 1] {
                if child as usize >= capacity {
                    return err(format!("slot {slot}: child {child} out of range"));
                }
                if self.node(child).parent != slot {
                    return err(format!("slot {child}: parent link {} but parent is {slot}", self.node(child).parent));
                }
                stack.push((child, depth + 1));
            }
            let union = self.children_union(slot);
            if self.loose && !node.aabb.contains_aabb(&union) {
                return err(format!("slot {slot}: box does not contain its children"));
            }
            if !self.loose && union != node.aabb {
                return err(format!("slot {slot}: box is not the union of its children"));
            }
        }
        if found_leaves != leaves {
            return err(format!("{found_leaves} leaves reachable, {leaves} proxies"));
        }
        let expected_live = if leaves == 0 { 0 } else { 2 * leaves - 1 };
        if live != expected_live {
            return err(format!("{live} live nodes, expected 2 * {leaves} - 1"));
        }
        // The free list: distinct unreachable pairs, each marked free.
        let mut free = 0usize;
        let mut pair = self.free_pair;
        while pair != NULL {
            let slot = pair as usize * 2;
            if pair == 0 || slot >= capacity || seen[slot] || seen[slot + 1] {
                return err(format!("free pair {pair} is the root pair, out of range or live"));
            }
            if self.node(slot as u32).parent != FREE || self.node(slot as u32 + 1).parent != FREE {
                return err(format!("free pair {pair} is not marked free"));
            }
            seen[slot] = true;
            seen[slot + 1] = true;
            free += 1;
            if free > self.nodes.len() {
                return err("free list has a cycle".into());
            }
            pair = self.node(slot as u32).child;
        }
        if free != self.free_pairs as usize {
            return err(format!("free list has {free} pairs, counter says {}", self.free_pairs));
        }
        // Pair 0 holds the root and one padding slot (two idle slots when empty).
        let padding = if self.nodes.is_empty() { 0 } else { 2 - usize::from(self.has_root) };
        if 2 * free + live + padding != capacity {
            return err(format!("free {} + live {live} + padding {padding} != capacity {capacity}", 2 * free));
        }
        for (id, leaf) in self.leaves.iter() {
            let slot = leaf.node;
            if slot as usize >= capacity || !self.node(slot).is_leaf() || self.node(slot).key() != id.index() as usize {
                return err(format!("proxy {id:?}: slot {slot} is not its leaf"));
            }
        }
        let root_area = if self.has_root { area(&self.node(ROOT).aabb) } else { 0.0 };
        let sah_cost = if root_area > 0.0 { (internal_area + leaf_area) / root_area } else { 0.0 };
        Ok(TreeStats { leaves, nodes: live, height, sah_cost })
    }
}
