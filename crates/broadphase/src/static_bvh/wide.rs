//! The 8-wide node layout, and the collapse of binary SAH splits into it.
//!
//! A wide node stores the boxes of its (up to) 8 children structure-of-arrays
//! ([`AabbX8`]) so one ray or box is tested against all of them with one
//! SIMD kernel call. The builder never materialises the binary tree: it
//! starts a wide node from one binary node and keeps splitting the child of
//! largest surface area until 8 lanes are filled or every lane is a leaf
//! (the greedy collapse of Wald et al., "Getting Rid of Packets", 2008).
//! The binary nodes collapsed inside a wide node are remembered as lane
//! masks, so `validate()` can recompute the binary tree's SAH cost.

use proxima_narrowphase::kernels::AabbX8;
use proxima_narrowphase::Aabb;
use smallvec::SmallVec;

/// Children per node.
pub(crate) const WIDTH: usize = 8;

/// Intermediate binary nodes a wide node can hold: 8 lanes come from 7
/// binary splits, the first of which is the wide node itself.
pub(crate) const INNER: usize = WIDTH - 2;

/// One node of the tree. Lanes `0..len` are used, the others padded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WideNode {
    /// The children's boxes; padded past `len`.
    pub(crate) bounds: AabbX8,
    /// Per lane: the child node's index when `count == 0`, else the first
    /// slot of the leaf's primitives in `StaticBvh::prim_ids`.
    pub(crate) child: [u32; WIDTH],
    /// Per lane: 0 for an internal child, else the leaf's primitive count.
    pub(crate) count: [u8; WIDTH],
    /// Number of used lanes, `1..=WIDTH` (1 only for a root that is one leaf).
    pub(crate) len: u8,
    /// Per binary node collapsed into this one (besides the node itself): the
    /// mask of the lanes below it. 0 marks an unused entry.
    pub(crate) inner: [u8; INNER],
}

/// What a lane holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    /// An internal child: its node index.
    Node(u32),
    /// A leaf: primitives `first..first + count` of the leaf order.
    Leaf { first: u32, count: u32 },
}

impl WideNode {
    /// A node with no lane used.
    pub(crate) const EMPTY: Self =
        Self { bounds: AabbX8::EMPTY, child: [u32::MAX; WIDTH], count: [0; WIDTH], len: 0, inner: [0; INNER] };

    /// What lane `lane < len` holds.
    #[inline]
    pub(crate) fn lane(&self, lane: usize) -> Lane {
        match self.count[lane] {
            0 => Lane::Node(self.child[lane]),
            count => Lane::Leaf { first: self.child[lane], count: u32::from(count) },
        }
    }

    /// The mask of the used lanes.
    #[inline]
    pub(crate) fn used_mask(&self) -> u32 {
        (1u32 << self.len) - 1
    }

    /// The smallest box containing every used lane: the node's own box.
    #[inline]
    pub(crate) fn own_box(&self) -> Option<Aabb> {
        self.bounds.union(self.used_mask())
    }
}

/// A binary node seen by the collapse: whether the SAH wants it split, and
/// its surface area (the larger is split first).
pub(crate) trait Splittable: Copy {
    /// True when the node is internal in the binary tree.
    fn is_split(&self) -> bool;
    /// Its surface area.
    fn area(&self) -> f32;
}

/// The lanes of one wide node, left to right, and its inner binary nodes.
pub(crate) struct Collapsed<C> {
    /// 1 to `WIDTH` binary nodes: leaves, or internal nodes that start child wide nodes.
    pub(crate) lanes: SmallVec<[C; WIDTH]>,
    /// As [`WideNode::inner`].
    pub(crate) inner: [u8; INNER],
}

/// Greedy collapse: starting from `root`, split (with `split`) the internal
/// lane of largest area (the leftmost on ties) until `WIDTH` lanes are used
/// or every lane is a leaf. A split replaces a lane by its two children in
/// place, so lanes keep the binary tree's left-to-right order.
pub(crate) fn collapse<C: Splittable>(root: C, mut split: impl FnMut(&C) -> [C; 2]) -> Collapsed<C> {
    // Each lane carries the set of inner nodes above it (bit k: inner node k).
    let mut lanes: SmallVec<[(C, u8); WIDTH]> = SmallVec::new();
    lanes.push((root, 0));
    let mut splits = 0;
    while lanes.len() < WIDTH {
        let mut pick: Option<(usize, f32)> = None;
        for (i, (c, _)) in lanes.iter().enumerate() {
            if c.is_split() && pick.is_none_or(|(_, a)| c.area() > a) {
                pick = Some((i, c.area()));
            }
        }
        let Some((i, _)) = pick else { break };
        let (c, above) = lanes[i];
        let [left, right] = split(&c);
        // The first split is the wide node itself; later ones are inner nodes.
        let above = if splits == 0 { above } else { above | 1 << (splits - 1) };
        splits += 1;
        lanes[i] = (left, above);
        lanes.insert(i + 1, (right, above));
    }
    let mut inner = [0u8; INNER];
    for (lane, (_, above)) in lanes.iter().enumerate() {
        for (k, mask) in inner.iter_mut().enumerate() {
            if above >> k & 1 == 1 {
                *mask |= 1 << lane;
            }
        }
    }
    Collapsed { lanes: lanes.into_iter().map(|(c, _)| c).collect(), inner }
}

impl super::StaticBvh {
    /// Heap bytes held by the tree: its node array, leaf ids and leaf boxes
    /// (capacities, not lengths), without the `StaticBvh` value itself.
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<WideNode>()
            + self.prim_ids.capacity() * size_of::<u32>()
            + self.prim_boxes.capacity() * size_of::<proxima_narrowphase::Aabb>()
    }
}
