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
        self.stamp = super::next_stamp();
        for index in (0..self.nodes.len()).rev() {
            let (head, tail) = self.nodes.split_at_mut(index + 1);
            let node = &mut head[index];
            for lane in 0..usize::from(node.len) {
                let aabb = match node.lane(lane) {
                    // Children are stored after their parent (checked by `validate`).
                    Lane::Node(child) => tail[child as usize - index - 1].own_box(),
                    Lane::Leaf { first, count } => self.prim_boxes[first as usize..(first + count) as usize]
                        .iter()
                        .copied()
                        .reduce(|a, b| a.merged(&b)),
                };
                node.bounds.set(lane, &aabb.expect("a used lane covers at least one box"));
            }
        }
        Ok(())
    }

    /// Builds the tree again over the current boxes, with the same options
    /// and ids (after [`StaticBvh::refit`]s have degraded it).
    pub fn rebuild(&mut self) {
        let simd = self.simd;
        *self = Self::build_with(&self.boxes(), self.options);
        self.simd = simd;
    }
}
