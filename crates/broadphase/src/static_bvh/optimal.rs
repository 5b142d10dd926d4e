//! The SAH-optimal collapse of a binary tree into 8-wide nodes (the dynamic
//! program of Ylitie, Karras and Laine, "Efficient Incoherent Ray Traversal
//! on GPUs Through Compressed Wide BVHs", 2017), used below the build's top
//! nodes.
//!
//! The greedy collapse (`wide::collapse`) splits the largest lane until 8
//! are used, so a subtree of 9 to 24 boxes becomes 8 lanes of 2 or 3 boxes,
//! each of which becomes a node of 2 or 3 lanes: on 100k uniform boxes the
//! nodes held 3.8 lanes on average and the tree had 2.5 times the nodes it
//! needs. The program chooses, for every binary node `n` with children `l`
//! and `r`, how many lanes its subtree takes in the wide node above it, and
//! whether a small subtree is cheaper as one leaf, by the wide tree's SAH
//! cost (`A` a surface area, `|n|` a box count):
//!
//! - `cost(n, 1) = min(leaf(n), A(n) C_NODE + spread(n, 8))`: the subtree as
//!   one lane, a leaf (`leaf(n) = A(n) |n| C_PRIM`, when `|n| <= max_leaf`)
//!   or a wide node of its own;
//! - `cost(n, i) = min(cost(n, i - 1), spread(n, i))` for `2 <= i <= 8`: the
//!   subtree in at most `i` lanes;
//! - `spread(n, i) = min over 1 <= k < i of cost(l, k) + cost(r, i - k)`:
//!   `n` split, its children sharing the `i` lanes.
//!
//! A binary leaf costs `leaf(n)` for every `i`. `cost(n, i)` does not grow
//! with `i`, so `spread(n, 8)` is the best split of `n` over at most 8 lanes.

use super::wide::{INNER, WIDTH};
use smallvec::SmallVec;

/// Cost of visiting a wide node, per unit of its area (8 lanes tested at once).
const C_NODE: f32 = 1.0;

/// Cost of testing one box of a leaf, per unit of the leaf's area, beside a
/// node's `C_NODE`: a quarter. A box test is one lane of a node's 8-wide
/// test; a quarter gave the fastest self-pairs over sparse and dense 100k-box
/// scenes together, among 0.15, 0.25, 0.5 and 1.0
/// (docs/decisions/0004-static-bvh-wide-nodes-and-collapse.md).
const C_PRIM: f32 = 0.25;

/// A binary node as the program sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BinNode {
    pub(crate) area: f32,
    pub(crate) len: u32,
    /// Indices of the children in the same arena (after the node), or `None` for a leaf.
    pub(crate) kids: Option<[u32; 2]>,
}

/// One lane of a wide node: a binary node, as a leaf or as a child wide node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LanePick {
    pub(crate) node: u32,
    pub(crate) leaf: bool,
}

/// The program's table over one arena.
pub(crate) struct Optimal {
    /// `cost[n][i - 1] = cost(n, i)`.
    cost: Vec<[f32; WIDTH]>,
    /// `take[n][i - 1]`: the lane count `j <= i` whose option gives
    /// `cost(n, i)`: 1 for `cost(n, 1)`, else `spread(n, j)`.
    take: Vec<[u8; WIDTH]>,
    /// `share[n][j - 1]`: the left child's lanes in `spread(n, j)`.
    share: Vec<[u8; WIDTH]>,
    /// Whether `cost(n, 1)` is the leaf.
    leaf: Vec<bool>,
}

impl Optimal {
    /// Solves the program over `nodes` (parents before children).
    pub(crate) fn solve(nodes: &[BinNode], max_leaf: usize) -> Self {
        let n = nodes.len();
        let mut t = Self {
            cost: vec![[0.0; WIDTH]; n],
            take: vec![[1; WIDTH]; n],
            share: vec![[0; WIDTH]; n],
            leaf: vec![false; n],
        };
        for i in (0..n).rev() {
            let node = &nodes[i];
            let leaf_cost = if node.len as usize <= max_leaf || node.kids.is_none() {
                node.area * node.len as f32 * C_PRIM
            } else {
                f32::INFINITY
            };
            let Some([l, r]) = node.kids else {
                t.cost[i] = [leaf_cost; WIDTH];
                t.leaf[i] = true;
                continue;
            };
            let (cl, cr) = (t.cost[l as usize], t.cost[r as usize]);
            // spread[j - 1] for j in 2..=WIDTH. A share starts at the split
            // k = 1, so it is a valid split even when no cost compares below
            // infinity (boxes spanning `f32::MAX` have infinite or NaN areas).
            let mut spread = [f32::INFINITY; WIDTH];
            for j in 2..=WIDTH {
                t.share[i][j - 1] = 1;
                for k in 1..j {
                    let c = cl[k - 1] + cr[j - k - 1];
                    if c < spread[j - 1] {
                        spread[j - 1] = c;
                        t.share[i][j - 1] = k as u8;
                    }
                }
            }
            let wide = node.area * C_NODE + spread[WIDTH - 1];
            // Only a subtree of at most `max_leaf` boxes may become a leaf
            // (infinite costs would otherwise compare equal).
            t.leaf[i] = node.len as usize <= max_leaf && leaf_cost <= wide;
            t.cost[i][0] = leaf_cost.min(wide);
            for j in 2..=WIDTH {
                let (fewer, take_fewer) = (t.cost[i][j - 2], t.take[i][j - 2]);
                if spread[j - 1] < fewer {
                    t.cost[i][j - 1] = spread[j - 1];
                    t.take[i][j - 1] = j as u8;
                } else {
                    t.cost[i][j - 1] = fewer;
                    t.take[i][j - 1] = take_fewer;
                }
            }
        }
        t
    }

    /// The lanes (left to right) of the wide node over the internal binary
    /// node `root`, and the lane masks of the binary nodes collapsed inside
    /// it (as `WideNode::inner`).
    pub(crate) fn lanes(&self, nodes: &[BinNode], root: u32) -> (SmallVec<[LanePick; WIDTH]>, [u8; INNER]) {
        let mut lanes = SmallVec::new();
        let mut inner = [0u8; INNER];
        let mut inner_len = 0;
        let [l, r] = nodes[root as usize].kids.expect("a wide node's root is internal");
        let k = usize::from(self.share[root as usize][WIDTH - 1]);
        self.emit(nodes, l, k, &mut lanes, &mut inner, &mut inner_len);
        self.emit(nodes, r, WIDTH - k, &mut lanes, &mut inner, &mut inner_len);
        (lanes, inner)
    }

    /// Emits binary node `n` in at most `i` lanes.
    fn emit(
        &self,
        nodes: &[BinNode],
        n: u32,
        i: usize,
        lanes: &mut SmallVec<[LanePick; WIDTH]>,
        inner: &mut [u8; INNER],
        inner_len: &mut usize,
    ) {
        let j = usize::from(self.take[n as usize][i - 1]);
        let kids = nodes[n as usize].kids;
        match kids {
            Some([l, r]) if j >= 2 => {
                let first = lanes.len();
                let k = usize::from(self.share[n as usize][j - 1]);
                self.emit(nodes, l, k, lanes, inner, inner_len);
                self.emit(nodes, r, j - k, lanes, inner, inner_len);
                // The lanes first..len lie below n, an inner binary node.
                let mask = ((1u32 << lanes.len()) - (1u32 << first)) as u8;
                inner[*inner_len] = mask;
                *inner_len += 1;
            }
            _ => lanes.push(LanePick { node: n, leaf: self.leaf[n as usize] }),
        }
    }
}
