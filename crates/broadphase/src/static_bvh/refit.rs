//! New boxes for the same tree (`refit`), or a new tree (`rebuild`).

use super::wide::Lane;
use super::StaticBvh;
use proxima_narrowphase::Aabb;

/// [`StaticBvh::refit`] was given a different number of boxes than the tree holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefitError {
    /// The number of boxes in the tree.
    pub expected: usize,
    /// The number of boxes given.
    pub got: usize,
}

impl core::fmt::Display for RefitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "refit needs {} boxes, got {}", self.expected, self.got)
    }
}

impl std::error::Error for RefitError {}

impl StaticBvh {
    /// Moves the boxes: `new_boxes[id]` replaces box `id`, and every node's
    /// bounds are recomputed bottom-up (children come after their parents,
    /// so one reverse pass suffices). The topology is kept: queries stay
    /// exact, but the tree loses quality as boxes drift from where they were
    /// at build time; [`StaticBvh::rebuild`] restores it.
    pub fn refit(&mut self, new_boxes: &[Aabb]) -> Result<(), RefitError> {
        if new_boxes.len() != self.prim_ids.len() {
            return Err(RefitError { expected: self.prim_ids.len(), got: new_boxes.len() });
        }
        for (slot, &id) in self.prim_ids.iter().enumerate() {
            self.prim_boxes[slot] = new_boxes[id as usize];
        }
        self.refit_in_place();
        Ok(())
    }

    /// The box in leaf slot `slot` (leaf order, see
    /// [`leaf_ids`](Self::leaf_ids)), to be changed before a
    /// [`refit_in_place`](Self::refit_in_place).
    #[inline]
    pub(crate) fn leaf_box_mut(&mut self, slot: u32) -> &mut Aabb {
        &mut self.prim_boxes[slot as usize]
    }

    /// Recomputes every node's lane boxes from the leaf boxes as they are now
    /// (one reverse pass: children come after their parents) and returns the
    /// tree's area ratio: the sum of the lane boxes' surface areas over the
    /// root's (a refitted tree whose ratio grew has lost quality). A new stamp.
    pub(crate) fn refit_in_place(&mut self) -> f64 {
        self.stamp = super::next_stamp();
        let mut area_sum = 0.0f64;
        for index in (0..self.nodes.len()).rev() {
            let (head, tail) = self.nodes.split_at_mut(index + 1);
            let node = &mut head[index];
            for lane in 0..usize::from(node.len) {
                let aabb = match node.lane(lane) {
                    // Children are stored after their parent (checked by `validate`).
                    Lane::Node(child) => tail[child as usize - index - 1].bounds.union_all(),
                    Lane::Leaf { first, count } => self.prim_boxes[first as usize..(first + count) as usize]
                        .iter()
                        .copied()
                        .reduce(|a, b| a.merged(&b)),
                };
                let aabb = aabb.expect("a used lane covers at least one box");
                area_sum += area(&aabb);
                node.bounds.set(lane, &aabb);
            }
        }
        match self.nodes.first().and_then(|root| root.bounds.union_all()) {
            Some(root) if area(&root) > 0.0 => area_sum / area(&root),
            _ => 0.0,
        }
    }

    /// The area ratio [`refit_in_place`](Self::refit_in_place) returns, of
    /// the tree as it is.
    pub(crate) fn area_ratio(&self) -> f64 {
        let mut area_sum = 0.0;
        for node in &self.nodes {
            area_sum += (0..usize::from(node.len)).filter_map(|l| node.bounds.get(l)).map(|b| area(&b)).sum::<f64>();
        }
        match self.nodes.first().and_then(super::wide::WideNode::own_box) {
            Some(root) if area(&root) > 0.0 => area_sum / area(&root),
            _ => 0.0,
        }
    }

    /// Heap bytes held: nodes, leaf ids and leaf boxes.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * core::mem::size_of::<super::wide::WideNode>()
            + self.prim_ids.capacity() * 4
            + self.prim_boxes.capacity() * core::mem::size_of::<Aabb>()
    }

    /// Builds the tree again over the current boxes, with the same options
    /// and ids (after [`StaticBvh::refit`]s have degraded it).
    pub fn rebuild(&mut self) {
        let simd = self.simd;
        *self = Self::build_with(&self.boxes(), self.options);
        self.simd = simd;
    }
}

/// Surface area in `f64` (finite for any finite box).
fn area(a: &Aabb) -> f64 {
    let e = a.max() - a.min();
    let (x, y, z) = (f64::from(e.x), f64::from(e.y), f64::from(e.z));
    2.0 * (x * y + y * z + z * x)
}
