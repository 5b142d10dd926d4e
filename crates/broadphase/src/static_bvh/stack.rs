//! The node stack of the box-overlap traversal: a fixed array that lives on
//! the query's own stack frame, spilling to the heap only past its size.
//!
//! `SmallVec` (what the other traversals use) asks on every push and pop
//! whether it has spilled and picks its storage through that answer: a
//! conditional move and a dependent load in the hottest loop of the
//! tracker's queries. This stack keeps its array and length in place and
//! tests only whether the spill holds anything (never, on a tree whose
//! pending nodes fit the array: 64 is 7 pending lanes on each of 9 levels),
//! so the hot loop loses the conditional move and the dependent load
//! (docs/decisions/0016-box-traversal-kernels.md).
//!
//! Invariant: the spill is non-empty only while the array is full, so the
//! spill's nodes are the most recent and pop first: the whole is one LIFO.

/// Nodes the array holds before spilling.
const INLINE: usize = 64;

/// A LIFO of node indices (see the module).
pub(crate) struct NodeStack {
    items: [u32; INLINE],
    len: usize,
    spill: Vec<u32>,
}

impl NodeStack {
    /// A stack holding only `root`.
    #[inline(always)]
    pub(crate) fn new(root: u32) -> Self {
        let mut items = [0; INLINE];
        items[0] = root;
        Self { items, len: 1, spill: Vec::new() }
    }

    /// Puts `node` on top.
    #[inline(always)]
    pub(crate) fn push(&mut self, node: u32) {
        if self.len < INLINE {
            self.items[self.len] = node;
            self.len += 1;
        } else {
            self.spill.push(node);
        }
    }

    /// Takes the node on top, `None` when empty.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<u32> {
        if !self.spill.is_empty() {
            return self.spill.pop();
        }
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Last in, first out across the spill, pushes and pops interleaved.
    #[test]
    fn one_lifo_across_the_spill() {
        let mut stack = NodeStack::new(0);
        let mut model = vec![0u32];
        let mut next = 1;
        // Grow past the array (and back) three times, with pops in between.
        for round in 0..3 {
            for _ in 0..(INLINE * 2 + round * 7) {
                stack.push(next);
                model.push(next);
                next += 1;
                if next % 5 == 0 {
                    assert_eq!(stack.pop(), model.pop());
                }
            }
            while model.len() > 3 {
                assert_eq!(stack.pop(), model.pop());
            }
        }
        while let Some(expected) = model.pop() {
            assert_eq!(stack.pop(), Some(expected));
        }
        assert_eq!(stack.pop(), None);
        assert_eq!(stack.pop(), None);
    }
}
