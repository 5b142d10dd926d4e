//! Node storage of the dynamic tree: sibling pairs in cache lines, a free list
//! of pairs, and the primitive moves every structural edit is made of.

use super::DynamicTree;
use proxima_narrowphase::{Aabb, Point};

/// "No node": the parent of the root, the end of the free list.
pub(crate) const NULL: u32 = u32::MAX;
/// Set in [`Node::child`] of a leaf, whose low 31 bits are the slot-map key.
pub(crate) const LEAF_BIT: u32 = 1 << 31;
/// The root's slot. Slot 1 (the other half of pair 0) is padding.
pub(crate) const ROOT: u32 = 0;
/// The parent value of a node on the free list (validation checks it).
pub(crate) const FREE: u32 = u32::MAX - 1;

/// A tree node: 32 bytes, two per cache line.
///
/// - internal node: `child` is the slot of its first child; the second child
///   is the other half of the same pair, `child + 1` (so `child` is even);
/// - leaf: `child` is `LEAF_BIT | key`, `key` the proxy's slot-map key, and
///   `aabb` the proxy's fat box;
/// - the root's `parent` is [`NULL`].
#[derive(Clone, Copy, Debug)]
#[repr(C)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Node {
    /// Internal: the union of the children's boxes. Leaf: the fat box.
    pub(crate) aabb: Aabb,
    /// The parent's slot.
    pub(crate) parent: u32,
    /// First child's slot, or `LEAF_BIT | key`; for a free pair's first node,
    /// the next free pair.
    pub(crate) child: u32,
}

impl Node {
    /// A node with a placeholder box (for slots about to be written).
    #[inline]
    pub(crate) fn empty() -> Self {
        let p = Point::origin();
        Self { aabb: Aabb::new(p, p), parent: FREE, child: NULL }
    }

    /// True for a leaf.
    #[inline]
    pub(crate) fn is_leaf(&self) -> bool {
        self.child & LEAF_BIT != 0
    }

    /// The slot-map key of a leaf.
    #[inline]
    pub(crate) fn key(&self) -> usize {
        (self.child & !LEAF_BIT) as usize
    }
}

/// Two sibling nodes sharing one 64-byte cache line: a traversal that tests
/// both children of a node reads one line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct NodePair(pub(crate) [Node; 2]);

/// Where a leaf lives, its fat box, and its user data (the slot map's value).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Leaf<T> {
    /// The leaf's slot.
    pub(crate) node: u32,
    /// A copy of the leaf node's box: `move_proxy`'s containment test reads
    /// it here, beside the proxy's other fields, instead of loading the
    /// node (a cache miss per call once re-insertions have scattered the
    /// leaves; what Box2D v3 keeps as a shape's `fatAABB`).
    pub(crate) fat: Aabb,
    /// The user's data.
    pub(crate) data: T,
}

/// Surface area in `f64`: extents up to `2 * f32::MAX` and their products
/// (up to ~4.6e77) are finite there, so SAH sums never reach infinity and
/// `inf - inf` never makes a NaN cost.
#[inline]
pub(crate) fn area(a: &Aabb) -> f64 {
    let (lo, hi) = (a.min(), a.max());
    let ex = hi.x as f64 - lo.x as f64;
    let ey = hi.y as f64 - lo.y as f64;
    let ez = hi.z as f64 - lo.z as f64;
    2.0 * (ex * ey + ey * ez + ez * ex)
}

impl<T> DynamicTree<T> {
    /// The node in `slot`.
    #[inline]
    pub(crate) fn node(&self, slot: u32) -> &Node {
        &self.nodes[(slot >> 1) as usize].0[(slot & 1) as usize]
    }

    /// The node in `slot`, mutably.
    #[inline]
    pub(crate) fn node_mut(&mut self, slot: u32) -> &mut Node {
        &mut self.nodes[(slot >> 1) as usize].0[(slot & 1) as usize]
    }

    /// A free sibling pair; returns its first slot (even).
    pub(crate) fn alloc_pair(&mut self) -> u32 {
        if self.free_pair != NULL {
            let pair = self.free_pair;
            self.free_pair = self.nodes[pair as usize].0[0].child;
            self.free_pairs -= 1;
            return pair * 2;
        }
        let pair = self.nodes.len();
        assert!(pair < (NULL / 2) as usize, "proxima-broadphase: dynamic tree too large");
        self.nodes.push(NodePair([Node::empty(); 2]));
        pair as u32 * 2
    }

    /// Puts the pair holding `slot` on the free list.
    pub(crate) fn free_pair(&mut self, slot: u32) {
        let pair = slot >> 1;
        debug_assert_ne!(pair, 0, "pair 0 holds the root");
        let next = self.free_pair;
        let nodes = &mut self.nodes[pair as usize].0;
        nodes[0] = Node { child: next, ..Node::empty() };
        nodes[1] = Node::empty();
        self.free_pair = pair;
        self.free_pairs += 1;
    }

    /// After the node now in `slot` arrived there, points whatever referred to
    /// it by slot (its children's parent links, or its leaf's slot-map entry) at it.
    #[inline]
    pub(crate) fn relink(&mut self, slot: u32) {
        let node = *self.node(slot);
        if node.is_leaf() {
            self.leaves.by_key_mut(node.key()).node = slot;
        } else {
            self.node_mut(node.child).parent = slot;
            self.node_mut(node.child + 1).parent = slot;
        }
    }

    /// Writes `node` into `slot` (keeping the slot's parent link) and relinks it.
    #[inline]
    pub(crate) fn place(&mut self, slot: u32, node: Node) {
        let parent = self.node(slot).parent;
        *self.node_mut(slot) = Node { parent, ..node };
        self.relink(slot);
    }

    /// The union of the two children of the internal node in `slot`.
    #[inline]
    pub(crate) fn children_union(&self, slot: u32) -> Aabb {
        let pair = &self.nodes[(self.node(slot).child >> 1) as usize].0;
        pair[0].aabb.merged(&pair[1].aabb)
    }
}
