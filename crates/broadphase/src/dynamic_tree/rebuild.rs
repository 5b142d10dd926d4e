//! Full rebuild: a top-down binned-SAH build over the current leaves.

use super::tree::{area, Node, NodePair, LEAF_BIT, NULL, ROOT};
use super::DynamicTree;
use proxima_narrowphase::Aabb;

/// Number of bins per split (Wald 2007 uses 16-32; 16 loses little quality).
const BINS: usize = 16;

/// A leaf being placed by the build.
#[derive(Clone, Copy, Debug)]
struct Item {
    aabb: Aabb,
    /// Twice the centre (min + max), in `f64` so 1e38-sized boxes stay finite.
    centre2: [f64; 3],
    key: u32,
}

/// A task of the build: a range of items to place in `slot` under `parent`.
type Task = (usize, usize, u32, u32);

/// The build's buffers, kept by the tree between rebuilds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    items: Vec<Item>,
    tasks: Vec<Task>,
    /// Internal slots in creation order (parents before children).
    internal: Vec<u32>,
}

impl Scratch {
    /// Heap bytes of the buffers.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.items.capacity() * core::mem::size_of::<Item>()
            + self.tasks.capacity() * core::mem::size_of::<Task>()
            + self.internal.capacity() * core::mem::size_of::<u32>()
    }
}

impl<T> DynamicTree<T> {
    /// Rebuilds the whole tree from its leaves with a top-down binned SAH
    /// build (Wald, "On fast construction of SAH-based bounding volume
    /// hierarchies", 2007): at each node the leaves' centres are binned along
    /// the axis of largest centre spread, and the split between bins with the
    /// least `A(left) * n_left + A(right) * n_right` is taken. Nodes are laid
    /// out depth first, so a traversal walks memory mostly forward.
    ///
    /// Fat boxes and ids are kept. Use it after loading many proxies at once,
    /// or when many moves have worn the tree (its SAH cost, reported by
    /// [`validate`](crate::BroadPhase::validate) and [`refit`](Self::refit),
    /// has grown). O(n log n); the buffers are kept, so a rebuild of a tree
    /// that has not grown allocates nothing.
    pub fn rebuild(&mut self) {
        let Scratch { mut items, mut tasks, mut internal } = core::mem::take(&mut self.scratch);
        items.clear();
        items.extend(self.leaves.iter().map(|(id, leaf)| {
            let aabb = self.node(leaf.node).aabb;
            let (lo, hi) = (aabb.min(), aabb.max());
            let centre2 = [lo.x as f64 + hi.x as f64, lo.y as f64 + hi.y as f64, lo.z as f64 + hi.z as f64];
            Item { aabb, centre2, key: id.index() }
        }));
        self.build(&mut items, &mut tasks, &mut internal);
        self.scratch = Scratch { items, tasks, internal };
    }

    /// The build proper over `items`, with the task and internal-slot buffers.
    fn build(&mut self, items: &mut [Item], tasks: &mut Vec<Task>, internal: &mut Vec<u32>) {
        self.loose = false;
        self.nodes.clear();
        self.free_pair = NULL;
        self.free_pairs = 0;
        self.has_root = false;
        if items.is_empty() {
            return;
        }
        let pairs_needed = items.len(); // pair 0 (root + padding) and n - 1 sibling pairs
        self.nodes.reserve_exact(pairs_needed);
        self.nodes.push(NodePair([Node::empty(); 2]));
        self.has_root = true;
        // Tasks: (range of items, slot, parent). Internal slots are recorded in
        // creation order; their boxes are filled in reverse order afterwards.
        tasks.clear();
        tasks.push((0, items.len(), ROOT, NULL));
        internal.clear();
        while let Some((start, end, slot, parent)) = tasks.pop() {
            if end - start == 1 {
                let item = items[start];
                *self.node_mut(slot) = Node { aabb: item.aabb, parent, child: LEAF_BIT | item.key };
                self.leaves.by_key_mut(item.key as usize).node = slot;
                continue;
            }
            let mid = start + split(&mut items[start..end]);
            let pair = self.nodes.len() as u32 * 2;
            self.nodes.push(NodePair([Node::empty(); 2]));
            *self.node_mut(slot) = Node { aabb: items[start].aabb, parent, child: pair };
            internal.push(slot);
            // Push the right half first so the left subtree is laid out next.
            tasks.push((mid, end, pair + 1, slot));
            tasks.push((start, mid, pair, slot));
        }
        for &slot in internal.iter().rev() {
            let union = self.children_union(slot);
            self.node_mut(slot).aabb = union;
        }
    }
}

/// Reorders `items` into two non-empty halves and returns the size of the
/// first: the binned SAH split, or the median along the widest centre axis
/// when the centres cannot be separated by bins.
fn split(items: &mut [Item]) -> usize {
    let n = items.len();
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for it in items.iter() {
        for a in 0..3 {
            lo[a] = lo[a].min(it.centre2[a]);
            hi[a] = hi[a].max(it.centre2[a]);
        }
    }
    let axis = (0..3).max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b]))).unwrap_or(0);
    let extent = hi[axis] - lo[axis];
    if extent > 0.0 {
        let scale = BINS as f64 / extent;
        let bin_of = |it: &Item| (((it.centre2[axis] - lo[axis]) * scale) as usize).min(BINS - 1);
        let mut counts = [0usize; BINS];
        let mut boxes: [Option<Aabb>; BINS] = [None; BINS];
        for it in items.iter() {
            let b = bin_of(it);
            counts[b] += 1;
            boxes[b] = Some(boxes[b].map_or(it.aabb, |x| x.merged(&it.aabb)));
        }
        // Right-to-left sweep: area and count of bins b.. for each b.
        let mut right_cost = [0.0f64; BINS];
        let (mut acc, mut count): (Option<Aabb>, usize) = (None, 0);
        for b in (1..BINS).rev() {
            if let Some(x) = boxes[b] {
                acc = Some(acc.map_or(x, |a| a.merged(&x)));
            }
            count += counts[b];
            right_cost[b] = acc.map_or(0.0, |a| area(&a) * count as f64);
        }
        let (mut best, mut best_cost) = (0usize, f64::INFINITY);
        let (mut acc, mut count): (Option<Aabb>, usize) = (None, 0);
        for b in 0..BINS - 1 {
            if let Some(x) = boxes[b] {
                acc = Some(acc.map_or(x, |a| a.merged(&x)));
            }
            count += counts[b];
            if count == 0 || count == n {
                continue;
            }
            let cost = acc.map_or(0.0, |a| area(&a) * count as f64) + right_cost[b + 1];
            if cost < best_cost {
                best_cost = cost;
                best = b + 1; // bins [0, best) go left
            }
        }
        if best > 0 {
            let mut left = 0;
            for i in 0..n {
                if bin_of(&items[i]) < best {
                    items.swap(i, left);
                    left += 1;
                }
            }
            if left > 0 && left < n {
                return left;
            }
        }
    }
    // Median split: needed when all centres coincide on every axis.
    let mid = n / 2;
    items.select_nth_unstable_by(mid, |a, b| a.centre2[axis].total_cmp(&b.centre2[axis]));
    mid
}
