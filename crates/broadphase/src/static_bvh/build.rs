//! Binned SAH build (Wald, "On fast Construction of SAH-based Bounding
//! Volume Hierarchies", 2007), collapsed into 8-wide nodes as it goes.
//!
//! Per binary node over `n` primitives with box area `A`: the centroids are
//! binned along each of the three axes (`bins` bins spanning the centroid
//! bounds), and the cost of every plane between bins is
//! `C_trav * A + C_isect * (A_L * n_L + A_R * n_R)` with
//! `C_trav = C_isect = 1`. The cheapest plane (first axis, then first plane,
//! on ties) wins, unless `n <= max_leaf_size` and a leaf is no dearer:
//! `C_isect * n * A <= split cost`. When no plane separates the centroids
//! (all in one bin on every axis) the range is halved in its current order.
//!
//! Determinism: every decision is a function of the primitives alone. Bins
//! are merged with `min`/`max` and integer counts, which give the same result
//! in any order, so the parallel binning of large ranges finds the same plane
//! as a serial one; the partition is serial. The node order does not depend
//! on the thread count either: ranges above a size fixed by `n` are built
//! first ("top"), the smaller subtrees ("jobs") are built independently and
//! appended in the order of their first primitive.

use super::wide::{collapse, Splittable, WideNode, WIDTH};
use super::BuildOptions;
use proxima_narrowphase::{Aabb, Point};

/// A primitive during the build: its box as two 4-float rows so merges are
/// one SIMD min/max each. Lane 3 of `lo` holds the primitive's id (its bits),
/// lane 3 of `hi` is 0; every merge ignores lane 3.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct PrimRef {
    lo: [f32; 4],
    hi: [f32; 4],
}

impl PrimRef {
    fn new(id: u32, aabb: &Aabb) -> Self {
        let (min, max) = (aabb.min(), aabb.max());
        Self { lo: [min.x, min.y, min.z, f32::from_bits(id)], hi: [max.x, max.y, max.z, 0.0] }
    }

    /// The input index of the primitive.
    pub(crate) fn id(&self) -> u32 {
        self.lo[3].to_bits()
    }

    /// The primitive's box.
    pub(crate) fn aabb(&self) -> Aabb {
        Aabb::new(Point::new(self.lo[0], self.lo[1], self.lo[2]), Point::new(self.hi[0], self.hi[1], self.hi[2]))
    }

    /// Twice the centroid, `lo + hi` (lanes 0-2).
    #[inline(always)]
    fn centroid2(&self) -> [f32; 4] {
        core::array::from_fn(|i| self.lo[i] + self.hi[i])
    }
}

#[inline(always)]
fn min4(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    core::array::from_fn(|i| if a[i] < b[i] { a[i] } else { b[i] })
}

#[inline(always)]
fn max4(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    core::array::from_fn(|i| if a[i] > b[i] { a[i] } else { b[i] })
}

/// A box as two 4-float rows (lane 3 unused); empty is `(+inf, -inf)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bounds {
    lo: [f32; 4],
    hi: [f32; 4],
}

impl Bounds {
    const EMPTY: Self = Self { lo: [f32::INFINITY; 4], hi: [f32::NEG_INFINITY; 4] };

    #[inline(always)]
    fn grow(&mut self, lo: [f32; 4], hi: [f32; 4]) {
        self.lo = min4(self.lo, lo);
        self.hi = max4(self.hi, hi);
    }

    #[inline(always)]
    fn grow_point(&mut self, p: [f32; 4]) {
        self.grow(p, p);
    }

    #[inline(always)]
    fn merge(&mut self, other: &Bounds) {
        self.grow(other.lo, other.hi);
    }

    /// Surface area `2 (xy + yz + zx)` of the extents (non-empty bounds only).
    #[inline(always)]
    fn area(&self) -> f32 {
        let (x, y, z) = (self.hi[0] - self.lo[0], self.hi[1] - self.lo[1], self.hi[2] - self.lo[2]);
        2.0 * (x * y + y * z + z * x)
    }

    fn to_aabb(self) -> Aabb {
        Aabb::new(Point::new(self.lo[0], self.lo[1], self.lo[2]), Point::new(self.hi[0], self.hi[1], self.hi[2]))
    }
}

/// How a binary node is split.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plan {
    /// It is a leaf.
    Leaf,
    /// Primitives whose centroid falls in bins `0..=bin` of `axis` go left.
    Plane { axis: usize, map: BinMap, bin: usize },
    /// No plane separates the centroids: halve the range as it is.
    Halve,
}

/// Centroid coordinate to bin: `min(floor((c - k0) * k1), bins - 1)`, with
/// `k1 = bins (1 - 1e-6) / (centroid extent)` (Wald 2007, eq. 2). The same
/// expression bins and partitions, so a primitive lands on the side its bin is.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BinMap {
    k0: f32,
    k1: f32,
    bins: usize,
}

impl BinMap {
    #[inline(always)]
    fn bin(&self, c: f32) -> usize {
        // `as usize` saturates: below k0 (never, by construction) gives 0.
        (((c - self.k0) * self.k1) as usize).min(self.bins - 1)
    }
}

/// A binary node of the build: a range of the primitive array, its bounds and its plan.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cand {
    start: usize,
    len: usize,
    bounds: Bounds,
    area: f32,
    plan: Plan,
}

impl Splittable for Cand {
    fn is_split(&self) -> bool {
        self.plan != Plan::Leaf
    }
    fn area(&self) -> f32 {
        self.area
    }
}

/// Largest bin count ([`BuildOptions::bins`] is clamped to it).
pub(crate) const MAX_BINS: usize = 64;

/// Per-axis bins, reused across nodes (only the first `bins` of each axis are reset).
#[derive(Clone)]
struct Bins {
    bounds: Vec<Bounds>,
    count: Vec<u32>,
    bins: usize,
}

impl Bins {
    fn new() -> Self {
        Self { bounds: vec![Bounds::EMPTY; 3 * MAX_BINS], count: vec![0; 3 * MAX_BINS], bins: 0 }
    }

    fn reset(&mut self, bins: usize) {
        self.bins = bins;
        for axis in 0..3 {
            self.bounds[axis * MAX_BINS..axis * MAX_BINS + bins].fill(Bounds::EMPTY);
            self.count[axis * MAX_BINS..axis * MAX_BINS + bins].fill(0);
        }
    }

    #[inline(always)]
    fn add(&mut self, maps: &[BinMap; 3], p: &PrimRef) {
        let c = p.centroid2();
        for (axis, map) in maps.iter().enumerate() {
            let b = axis * MAX_BINS + map.bin(c[axis]);
            self.bounds[b].grow(p.lo, p.hi);
            self.count[b] += 1;
        }
    }

    fn add_all(&mut self, maps: &[BinMap; 3], prims: &[PrimRef]) {
        for p in prims {
            self.add(maps, p);
        }
    }

    #[cfg(feature = "parallel")]
    fn merge(&mut self, other: &Bins) {
        for axis in 0..3 {
            for b in axis * MAX_BINS..axis * MAX_BINS + self.bins {
                let o = other.bounds[b];
                self.bounds[b].merge(&o);
                self.count[b] += other.count[b];
            }
        }
    }

    /// The cheapest plane over all axes: `(cost, axis, bin)` where cost is
    /// `A_L n_L + A_R n_R`, only planes with primitives on both sides.
    fn best_plane(&self, maps: &[BinMap; 3]) -> Option<(f32, usize, usize)> {
        let bins = self.bins;
        let mut best: Option<(f32, usize, usize)> = None;
        let mut right_cost = [0.0f32; MAX_BINS];
        for (axis, map) in maps.iter().enumerate() {
            if map.k1 == 0.0 {
                continue; // flat centroid extent: every primitive is in bin 0
            }
            let bounds = &self.bounds[axis * MAX_BINS..axis * MAX_BINS + bins];
            let count = &self.count[axis * MAX_BINS..axis * MAX_BINS + bins];
            // right_cost[b] = A(bins b..) * n(bins b..), for b in 1..bins.
            let (mut acc, mut n) = (Bounds::EMPTY, 0u32);
            for b in (1..bins).rev() {
                acc.merge(&bounds[b]);
                n += count[b];
                right_cost[b] = if n > 0 { acc.area() * n as f32 } else { 0.0 };
            }
            let total = n + count[0];
            let (mut left, mut n_left) = (Bounds::EMPTY, 0u32);
            for b in 0..bins - 1 {
                left.merge(&bounds[b]);
                n_left += count[b];
                if n_left == 0 || n_left == total {
                    continue;
                }
                let cost = left.area() * n_left as f32 + right_cost[b + 1];
                if best.map_or(true, |(c, _, _)| cost < c) {
                    best = Some((cost, axis, b));
                }
            }
        }
        best
    }
}

/// A subtree left for later: built on its own, then appended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    cand: Cand,
    parent: u32,
    lane: usize,
}

/// Builds wide nodes over a slice of the primitive array.
struct Builder<'a> {
    /// The primitives `offset..offset + prims.len()` of the whole array.
    prims: &'a mut [PrimRef],
    offset: usize,
    bins: usize,
    max_leaf: usize,
    bins_scratch: Bins,
    nodes: Vec<WideNode>,
    /// Internal children this small are deferred as jobs (0: never defer).
    defer_up_to: usize,
    jobs: Vec<Job>,
}

/// Ranges at least this long are binned in parallel (top of the build only).
#[cfg(feature = "parallel")]
const PAR_BIN_MIN: usize = 1 << 16;
/// Primitives per parallel binning task.
#[cfg(feature = "parallel")]
const PAR_BIN_CHUNK: usize = 1 << 14;

impl Builder<'_> {
    /// Decides how the node over `start..start + len` is split (its plan).
    fn plan(&mut self, start: usize, len: usize, bounds: &Bounds, centroids: &Bounds) -> Plan {
        if len <= 1 {
            return Plan::Leaf;
        }
        // Fewer bins for small ranges: the planes between more bins than
        // primitives mostly separate nothing, and each costs a sweep step.
        let bins = self.bins.min(len.max(4));
        let maps: [BinMap; 3] = core::array::from_fn(|axis| {
            let extent = centroids.hi[axis] - centroids.lo[axis];
            let k1 = if extent > 0.0 { bins as f32 * (1.0 - 1e-6) / extent } else { 0.0 };
            BinMap { k0: centroids.lo[axis], k1, bins }
        });
        self.bin_range(start, len, &maps, bins);
        let area = bounds.area();
        let split = self.bins_scratch.best_plane(&maps);
        if len <= self.max_leaf {
            // C_isect * n * A <= C_trav * A + C_isect * (A_L n_L + A_R n_R): a leaf is no dearer.
            if split.map_or(true, |(cost, _, _)| len as f32 * area <= area + cost) {
                return Plan::Leaf;
            }
        }
        match split {
            Some((_, axis, bin)) => Plan::Plane { axis, map: maps[axis], bin },
            None => Plan::Halve,
        }
    }

    #[cfg(not(feature = "parallel"))]
    fn bin_range(&mut self, start: usize, len: usize, maps: &[BinMap; 3], bins: usize) {
        self.bins_scratch.reset(bins);
        let prims = &self.prims[start - self.offset..start - self.offset + len];
        self.bins_scratch.add_all(maps, prims);
    }

    #[cfg(feature = "parallel")]
    fn bin_range(&mut self, start: usize, len: usize, maps: &[BinMap; 3], bins: usize) {
        use rayon::prelude::*;
        self.bins_scratch.reset(bins);
        let prims = &self.prims[start - self.offset..start - self.offset + len];
        if len < PAR_BIN_MIN {
            self.bins_scratch.add_all(maps, prims);
            return;
        }
        let merged = prims
            .par_chunks(PAR_BIN_CHUNK)
            .map(|chunk| {
                let mut b = Bins::new();
                b.reset(bins);
                b.add_all(maps, chunk);
                b
            })
            .reduce_with(|mut a, b| {
                a.merge(&b);
                a
            });
        if let Some(merged) = merged {
            self.bins_scratch = merged;
        }
    }

    /// A binary node over `start..start + len` with its plan.
    fn cand(&mut self, start: usize, len: usize, bounds: Bounds, centroids: Bounds) -> Cand {
        let plan = self.plan(start, len, &bounds, &centroids);
        Cand { start, len, bounds, area: bounds.area(), plan }
    }

    /// Splits `c` by its plan: partitions its range in place and plans both halves.
    fn split(&mut self, c: &Cand) -> [Cand; 2] {
        let lo = c.start - self.offset;
        let prims = &mut self.prims[lo..lo + c.len];
        let (mid, halves) = match c.plan {
            Plan::Plane { axis, map, bin } => partition(prims, |p| map.bin(p.centroid2()[axis]) <= bin),
            Plan::Halve | Plan::Leaf => {
                let mid = c.len / 2;
                (mid, [bounds_of(&prims[..mid]), bounds_of(&prims[mid..])])
            }
        };
        let [(lb, lc), (rb, rc)] = halves;
        [self.cand(c.start, mid, lb, lc), self.cand(c.start + mid, c.len - mid, rb, rc)]
    }

    /// Builds the subtree of `root` (an internal node) depth first, nodes in
    /// preorder. `root_link` is the lane to point at the subtree's root.
    fn run(&mut self, root: Cand, root_link: Option<(u32, usize)>) {
        let mut stack: Vec<(Cand, Option<(u32, usize)>)> = vec![(root, root_link)];
        while let Some((cand, link)) = stack.pop() {
            let index = u32::try_from(self.nodes.len()).expect("node count fits u32");
            if let Some((parent, lane)) = link {
                self.nodes[parent as usize].child[lane] = index;
            }
            self.nodes.push(WideNode::EMPTY);
            let collapsed = collapse(cand, |c| self.split(c));
            let mut node = WideNode::EMPTY;
            node.len = collapsed.lanes.len() as u8;
            node.inner = collapsed.inner;
            let mut internal: smallvec::SmallVec<[(Cand, usize); WIDTH]> = smallvec::SmallVec::new();
            for (lane, c) in collapsed.lanes.iter().enumerate() {
                node.bounds.set(lane, &c.bounds.to_aabb());
                if c.is_split() {
                    node.count[lane] = 0;
                    if c.len <= self.defer_up_to {
                        self.jobs.push(Job { cand: *c, parent: index, lane });
                    } else {
                        internal.push((*c, lane));
                    }
                } else {
                    node.child[lane] = c.start as u32;
                    node.count[lane] = c.len as u8;
                }
            }
            self.nodes[index as usize] = node;
            for &(c, lane) in internal.iter().rev() {
                stack.push((c, Some((index, lane))));
            }
        }
    }

    /// A root whose range is one leaf: a node with a single leaf lane.
    fn leaf_root(&mut self, c: &Cand) {
        let mut node = WideNode::EMPTY;
        node.len = 1;
        node.bounds.set(0, &c.bounds.to_aabb());
        node.child[0] = c.start as u32;
        node.count[0] = c.len as u8;
        self.nodes.push(node);
    }
}

/// Box bounds and centroid bounds of a slice.
fn bounds_of(prims: &[PrimRef]) -> (Bounds, Bounds) {
    let (mut b, mut c) = (Bounds::EMPTY, Bounds::EMPTY);
    for p in prims {
        b.grow(p.lo, p.hi);
        c.grow_point(p.centroid2());
    }
    (b, c)
}

/// Hoare partition: primitives with `left(p)` first, the others after; each
/// side's box and centroid bounds are gathered as the elements are classified.
/// Returns the split point and `[(left bounds, left centroids), (right ...)]`.
fn partition(prims: &mut [PrimRef], left: impl Fn(&PrimRef) -> bool) -> (usize, [(Bounds, Bounds); 2]) {
    let (mut lb, mut lc, mut rb, mut rc) = (Bounds::EMPTY, Bounds::EMPTY, Bounds::EMPTY, Bounds::EMPTY);
    let (mut i, mut j) = (0, prims.len());
    loop {
        while i < j && left(&prims[i]) {
            lb.grow(prims[i].lo, prims[i].hi);
            lc.grow_point(prims[i].centroid2());
            i += 1;
        }
        while i < j && !left(&prims[j - 1]) {
            rb.grow(prims[j - 1].lo, prims[j - 1].hi);
            rc.grow_point(prims[j - 1].centroid2());
            j -= 1;
        }
        if i >= j {
            break;
        }
        // prims[i] goes right, prims[j - 1] goes left.
        prims.swap(i, j - 1);
        lb.grow(prims[i].lo, prims[i].hi);
        lc.grow_point(prims[i].centroid2());
        rb.grow(prims[j - 1].lo, prims[j - 1].hi);
        rc.grow_point(prims[j - 1].centroid2());
        i += 1;
        j -= 1;
    }
    (i, [(lb, lc), (rb, rc)])
}

/// The build's output: nodes in a parent-before-child order, and the
/// primitives in leaf order.
pub(crate) struct Built {
    pub(crate) nodes: Vec<WideNode>,
    pub(crate) prims: Vec<PrimRef>,
}

/// Subtrees of at most this many primitives are built as independent jobs:
/// a function of `n` only, so the node order is the same for any thread count.
fn job_size(n: usize) -> usize {
    (n / 64).max(4096)
}

/// Builds the tree over `boxes` (ids are their indices).
pub(crate) fn build(boxes: &[Aabb], options: &BuildOptions) -> Built {
    assert!(boxes.len() < u32::MAX as usize, "StaticBvh holds fewer than 2^32 - 1 boxes");
    let mut prims = make_prims(boxes);
    if prims.is_empty() {
        return Built { nodes: Vec::new(), prims };
    }
    let n = prims.len();
    let (bounds, centroids) = bounds_of_par(&prims);
    let bins = options.bins.clamp(2, MAX_BINS);
    let max_leaf = options.max_leaf_size.clamp(1, usize::from(u8::MAX));
    let mut top = Builder {
        prims: &mut prims,
        offset: 0,
        bins,
        max_leaf,
        bins_scratch: Bins::new(),
        nodes: Vec::new(),
        defer_up_to: job_size(n),
        jobs: Vec::new(),
    };
    let root = top.cand(0, n, bounds, centroids);
    if root.is_split() {
        top.run(root, None);
    } else {
        top.leaf_root(&root);
    }
    let Builder { nodes: mut top_nodes, mut jobs, .. } = top;
    jobs.sort_by_key(|j| j.cand.start);

    // Hand every job its own disjoint slice of the primitives.
    let mut tasks: Vec<(Job, &mut [PrimRef])> = Vec::with_capacity(jobs.len());
    let mut rest: &mut [PrimRef] = &mut prims;
    let mut rest_start = 0;
    for job in &jobs {
        let (_, tail) = rest.split_at_mut(job.cand.start - rest_start);
        let (mine, tail) = tail.split_at_mut(job.cand.len);
        tasks.push((*job, mine));
        rest = tail;
        rest_start = job.cand.start + job.cand.len;
    }
    let run_job = |(job, slice): (Job, &mut [PrimRef])| {
        let mut b = Builder {
            prims: slice,
            offset: job.cand.start,
            bins,
            max_leaf,
            bins_scratch: Bins::new(),
            nodes: Vec::with_capacity(2 * job.cand.len / WIDTH + 1),
            defer_up_to: 0,
            jobs: Vec::new(),
        };
        b.run(job.cand, None);
        (job, b.nodes)
    };
    #[cfg(feature = "parallel")]
    let built: Vec<(Job, Vec<WideNode>)> = {
        use rayon::prelude::*;
        tasks.into_par_iter().map(run_job).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let built: Vec<(Job, Vec<WideNode>)> = tasks.into_iter().map(run_job).collect();

    let total = top_nodes.len() + built.iter().map(|(_, n)| n.len()).sum::<usize>();
    top_nodes.reserve_exact(total - top_nodes.len());
    for (job, nodes) in built {
        let base = u32::try_from(top_nodes.len()).expect("node count fits u32");
        top_nodes[job.parent as usize].child[job.lane] = base;
        top_nodes.extend(nodes.into_iter().map(|mut node| {
            for lane in 0..usize::from(node.len) {
                if node.count[lane] == 0 {
                    node.child[lane] += base;
                }
            }
            node
        }));
    }
    Built { nodes: top_nodes, prims }
}

#[cfg(feature = "parallel")]
fn make_prims(boxes: &[Aabb]) -> Vec<PrimRef> {
    use rayon::prelude::*;
    boxes.par_iter().enumerate().map(|(i, b)| PrimRef::new(i as u32, b)).collect()
}

#[cfg(not(feature = "parallel"))]
fn make_prims(boxes: &[Aabb]) -> Vec<PrimRef> {
    boxes.iter().enumerate().map(|(i, b)| PrimRef::new(i as u32, b)).collect()
}

#[cfg(feature = "parallel")]
fn bounds_of_par(prims: &[PrimRef]) -> (Bounds, Bounds) {
    use rayon::prelude::*;
    prims.par_chunks(1 << 14).map(bounds_of).reduce(
        || (Bounds::EMPTY, Bounds::EMPTY),
        |(mut b, mut c), (b2, c2)| {
            b.merge(&b2);
            c.merge(&c2);
            (b, c)
        },
    )
}

#[cfg(not(feature = "parallel"))]
fn bounds_of_par(prims: &[PrimRef]) -> (Bounds, Bounds) {
    bounds_of(prims)
}
