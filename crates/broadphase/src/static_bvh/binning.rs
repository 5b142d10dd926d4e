//! One binary SAH decision: bin a range of primitives, pick the cheapest
//! plane (or a leaf), and partition the range by it.
//!
//! Binned SAH (Wald, "On fast Construction of SAH-based Bounding Volume
//! Hierarchies", 2007): the centroids of a node's `n` primitives are binned
//! along each of the three axes (`bins` equal bins spanning the centroid
//! bounds) and every plane between two bins costs
//! `C_trav * A + A_L * w(n_L) + A_R * w(n_R)` with `C_trav = 1`, `A` the
//! surface area and `w(n)` the cost of `n` primitives in leaves: `n` by
//! default (`C_isect = 1`), `cost * ceil(n / size)` for
//! [`LeafCost::Blocks`](super::LeafCost::Blocks). The cheapest plane wins
//! (first axis, then first plane on ties), unless `n <= max_leaf_size` and a
//! leaf is no dearer: `w(n) * A <= split cost`. Ranges of 2 or 3 primitives are decided
//! exactly, over every 2-way partition. When no plane separates the
//! centroids the range is halved as it lies.
//!
//! Every decision depends only on the set of primitives in the range: bins
//! are merged with `min`, `max` and integer sums, which are exact in any
//! order, so a parallel binning gives the plane a serial one gives.

use proxima_narrowphase::{Aabb, Point};

/// Largest bin count ([`BuildOptions::bins`](super::BuildOptions::bins) is clamped to it).
pub(crate) const MAX_BINS: usize = 64;

/// A primitive during the build: its box as two 4-float rows so merges are
/// one SIMD min/max each. Lane 3 of `lo` and of `hi` hold the low and high 16
/// bits of the primitive's id as whole floats (exact below 2^24: never a NaN
/// payload that an arithmetic or a move through a float register could
/// change); every merge ignores lane 3.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct PrimRef {
    lo: [f32; 4],
    hi: [f32; 4],
}

impl PrimRef {
    pub(crate) fn new(id: u32, aabb: &Aabb) -> Self {
        let (min, max) = (aabb.min(), aabb.max());
        let (low, high) = ((id & 0xffff) as f32, (id >> 16) as f32);
        Self { lo: [min.x, min.y, min.z, low], hi: [max.x, max.y, max.z, high] }
    }

    /// The input index of the primitive.
    pub(crate) fn id(&self) -> u32 {
        self.lo[3] as u32 | (self.hi[3] as u32) << 16
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
    pub(crate) const EMPTY: Self = Self { lo: [f32::INFINITY; 4], hi: [f32::NEG_INFINITY; 4] };

    #[inline(always)]
    fn grow(&mut self, lo: [f32; 4], hi: [f32; 4]) {
        self.lo = min4(self.lo, lo);
        self.hi = max4(self.hi, hi);
    }

    #[inline(always)]
    pub(crate) fn merge(&mut self, other: &Bounds) {
        self.grow(other.lo, other.hi);
    }

    /// Surface area `2 (xy + yz + zx)` of the extents (non-empty bounds only).
    #[inline(always)]
    pub(crate) fn area(&self) -> f32 {
        let (x, y, z) = (self.hi[0] - self.lo[0], self.hi[1] - self.lo[1], self.hi[2] - self.lo[2]);
        2.0 * (x * y + y * z + z * x)
    }

    pub(crate) fn to_aabb(self) -> Aabb {
        Aabb::new(Point::new(self.lo[0], self.lo[1], self.lo[2]), Point::new(self.hi[0], self.hi[1], self.hi[2]))
    }
}

/// The box bounds and centroid bounds of a set of primitives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Extent {
    pub(crate) boxes: Bounds,
    pub(crate) centroids: Bounds,
}

impl Extent {
    pub(crate) const EMPTY: Self = Self { boxes: Bounds::EMPTY, centroids: Bounds::EMPTY };

    #[inline(always)]
    fn add(&mut self, p: &PrimRef) {
        self.boxes.grow(p.lo, p.hi);
        let c = p.centroid2();
        self.centroids.grow(c, c);
    }

    #[cfg(feature = "parallel")]
    pub(crate) fn merge(&mut self, other: &Extent) {
        self.boxes.merge(&other.boxes);
        self.centroids.merge(&other.centroids);
    }

    pub(crate) fn of(prims: &[PrimRef]) -> Self {
        let mut e = Self::EMPTY;
        for p in prims {
            e.add(p);
        }
        e
    }
}

/// Centroid coordinate to bin: `floor(clamp((c - k0) * k1, 0, last))`, with
/// `k1 = bins (1 - 1e-6) / (centroid extent)` (Wald 2007, eq. 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BinMap {
    k0: f32,
    k1: f32,
    last: f32,
}

impl BinMap {
    /// The bin coordinate `(c - k0) * k1`, clamped to `[0, last]` (never NaN:
    /// `if` comparisons pick the bound for a NaN operand).
    #[inline(always)]
    fn coord(&self, c: f32) -> f32 {
        let x = (c - self.k0) * self.k1;
        let x = if x < self.last { x } else { self.last };
        if x > 0.0 {
            x
        } else {
            0.0
        }
    }

    /// True when `c` falls in bins `0..=bin`: `floor(x) <= bin` is `x < bin + 1`
    /// for `x >= 0`, the same coordinate the binning used.
    #[inline(always)]
    fn left_of(&self, c: f32, bin: usize) -> bool {
        self.coord(c) < (bin + 1) as f32
    }
}

/// How a binary node is split.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Plan {
    /// It is a leaf.
    Leaf,
    /// Primitives whose centroid falls in bins `0..=bin` of `axis` go left.
    Plane { axis: u8, bin: u8, map: BinMap },
    /// The primitive at this offset goes left alone (exact small-range split).
    Single(u8),
    /// No plane separates the centroids: halve the range as it lies.
    Halve,
}

/// The three axes' bin maps side by side (lane = axis, lane 3 unused) so the
/// three bin coordinates of a centroid are one SIMD expression.
#[derive(Clone, Copy, Debug)]
struct Maps {
    k0: [f32; 4],
    k1: [f32; 4],
    last: [f32; 4],
}

impl Maps {
    fn new(maps: &[BinMap; 3]) -> Self {
        let lane = |f: fn(&BinMap) -> f32| core::array::from_fn(|i| if i < 3 { f(&maps[i]) } else { 0.0 });
        Self { k0: lane(|m| m.k0), k1: lane(|m| m.k1), last: lane(|m| m.last) }
    }

    /// `BinMap::bin` on the three axes at once.
    #[inline(always)]
    fn bins(&self, c: [f32; 4]) -> [usize; 4] {
        let x: [f32; 4] = core::array::from_fn(|i| {
            let x = (c[i] - self.k0[i]) * self.k1[i];
            let x = if x < self.last[i] { x } else { self.last[i] };
            if x > 0.0 {
                x
            } else {
                0.0
            }
        });
        // SAFETY: each lane is finite and in `[0, last]`, `last <= 63`
        // (lane 3: `[0, 0]`), so it truncates to a valid `u32`.
        core::array::from_fn(|i| (unsafe { x[i].to_int_unchecked::<u32>() }) as usize % MAX_BINS)
    }
}

/// Per-axis bins, reused across nodes (only the first `bins` of each axis
/// are reset): `bounds[axis][bin]`. (Filling several bin sets round-robin, to
/// break store-to-load chains between consecutive primitives, measured
/// slower on the development machine.)
#[derive(Clone)]
pub(crate) struct Bins {
    bounds: Box<[[Bounds; MAX_BINS]; 3]>,
    count: Box<[[u32; MAX_BINS]; 3]>,
    /// `best_plane`'s per-bin right-side costs (written before read).
    right_cost: Box<[[f32; 4]; MAX_BINS]>,
    bins: usize,
}

impl Bins {
    pub(crate) fn new() -> Self {
        Self {
            bounds: Box::new([[Bounds::EMPTY; MAX_BINS]; 3]),
            count: Box::new([[0; MAX_BINS]; 3]),
            right_cost: Box::new([[0.0; 4]; MAX_BINS]),
            bins: 0,
        }
    }

    fn reset(&mut self, bins: usize) {
        self.bins = bins;
        for row in self.bounds.iter_mut() {
            row[..bins].fill(Bounds::EMPTY);
        }
        for row in self.count.iter_mut() {
            row[..bins].fill(0);
        }
    }

    /// Bins `prims` (after a `reset`).
    fn add_all(&mut self, maps: &[BinMap; 3], prims: &[PrimRef]) {
        let maps = Maps::new(maps);
        for p in prims {
            let b = maps.bins(p.centroid2());
            for (axis, &bin) in b.iter().take(3).enumerate() {
                self.bounds[axis][bin].grow(p.lo, p.hi);
                self.count[axis][bin] += 1;
            }
        }
    }

    /// Adds `other`'s bins into `self`'s.
    #[cfg(feature = "parallel")]
    fn merge_from(&mut self, other: &Bins) {
        for axis in 0..3 {
            for b in 0..self.bins {
                self.bounds[axis][b].merge(&other.bounds[axis][b]);
                self.count[axis][b] += other.count[axis][b];
            }
        }
    }

    /// The cheapest plane over all axes: `(cost, axis, bin)` where cost is
    /// `A_L w(n_L) + A_R w(n_R)` (`w` is [`Knobs::weight`]), only planes with primitives on both sides; the
    /// first axis, then the first plane, on ties. The three axes are swept
    /// together, lane `a` of each vector holding axis `a`.
    fn best_plane(&mut self, maps: &[BinMap; 3], knobs: &Knobs) -> Option<(f32, usize, usize)> {
        let bins = self.bins;
        let right_cost = &mut *self.right_cost;
        let mut acc = [Bounds::EMPTY; 3];
        let mut n = [0u32; 4];
        for b in (1..bins).rev() {
            for a in 0..3 {
                acc[a].merge(&self.bounds[a][b]);
                n[a] += self.count[a][b];
            }
            let area = areas3(&acc);
            right_cost[b] = core::array::from_fn(|i| area[i] * knobs.weight(n[i]));
        }
        let total: [u32; 4] = core::array::from_fn(|a| n[a] + if a < 3 { self.count[a][0] } else { 0 });
        // Per axis: the best (cost, bin) so far.
        let mut best_cost = [f32::INFINITY; 4];
        let mut best_bin = [0usize; 4];
        let mut left = [Bounds::EMPTY; 3];
        let mut n_left = [0u32; 4];
        for b in 0..bins - 1 {
            for a in 0..3 {
                left[a].merge(&self.bounds[a][b]);
                n_left[a] += self.count[a][b];
            }
            let area = areas3(&left);
            for a in 0..3 {
                let cost = area[a] * knobs.weight(n_left[a]) + right_cost[b + 1][a];
                let valid = n_left[a] > 0 && n_left[a] < total[a] && maps[a].k1 != 0.0;
                if valid && cost < best_cost[a] {
                    best_cost[a] = cost;
                    best_bin[a] = b;
                }
            }
        }
        let mut best: Option<(f32, usize, usize)> = None;
        for a in 0..3 {
            if best_cost[a] < best.map_or(f32::INFINITY, |(c, _, _)| c) {
                best = Some((best_cost[a], a, best_bin[a]));
            }
        }
        best
    }
}

/// The surface areas of three boxes (lanes 0-2), computed side by side:
/// `2 (xy + yz + zx)` of each box's extents.
#[inline(always)]
fn areas3(b: &[Bounds; 3]) -> [f32; 4] {
    let d: [[f32; 4]; 3] = core::array::from_fn(|a| core::array::from_fn(|i| b[a].hi[i] - b[a].lo[i]));
    let x = [d[0][0], d[1][0], d[2][0], 0.0];
    let y = [d[0][1], d[1][1], d[2][1], 0.0];
    let z = [d[0][2], d[1][2], d[2][2], 0.0];
    core::array::from_fn(|i| 2.0 * (x[i] * y[i] + y[i] * z[i] + z[i] * x[i]))
}

/// Ranges at least this long are binned in parallel.
#[cfg(feature = "parallel")]
const PAR_BIN_MIN: usize = 1 << 16;
/// Primitives per parallel binning task.
#[cfg(feature = "parallel")]
const PAR_BIN_CHUNK: usize = 1 << 14;

#[cfg(feature = "parallel")]
fn bin_range(scratch: &mut Bins, maps: &[BinMap; 3], bins: usize, prims: &[PrimRef]) {
    use rayon::prelude::*;
    scratch.reset(bins);
    if prims.len() < PAR_BIN_MIN {
        scratch.add_all(maps, prims);
        return;
    }
    let parts: Vec<Bins> = prims
        .par_chunks(PAR_BIN_CHUNK)
        .map(|chunk| {
            let mut b = Bins::new();
            b.reset(bins);
            b.add_all(maps, chunk);
            b
        })
        .collect();
    for part in &parts {
        scratch.merge_from(part);
    }
}

#[cfg(not(feature = "parallel"))]
fn bin_range(scratch: &mut Bins, maps: &[BinMap; 3], bins: usize, prims: &[PrimRef]) {
    scratch.reset(bins);
    scratch.add_all(maps, prims);
}

/// The build's knobs, clamped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Knobs {
    pub(crate) bins: usize,
    pub(crate) max_leaf: usize,
    pub(crate) collapse: super::Collapse,
    /// Primitives tested together in a leaf (at least 1), and such a test's
    /// cost in node tests ([`super::LeafCost`]).
    pub(crate) block: u32,
    pub(crate) block_cost: f32,
}

impl Knobs {
    /// The SAH weight of `n` primitives in leaves: the tests they take times
    /// a test's cost (`n` itself for [`super::LeafCost::PerPrimitive`], so
    /// the default build's costs are unchanged bit for bit).
    #[inline(always)]
    pub(crate) fn weight(&self, n: u32) -> f32 {
        if self.block == 1 {
            n as f32 * self.block_cost
        } else if self.block.is_power_of_two() {
            // `div_ceil` by a shift and a mask: the sweep calls this for every
            // plane on every axis, and its integer division was a fifth of
            // `plan`'s time in the `FastRays` mesh build (blocks of 8).
            let shift = self.block.trailing_zeros();
            ((n >> shift) + u32::from(n & (self.block - 1) != 0)) as f32 * self.block_cost
        } else {
            n.div_ceil(self.block) as f32 * self.block_cost
        }
    }
}

/// Decides how the node over `prims` (with extent `ext`) is split.
pub(crate) fn plan(knobs: &Knobs, scratch: &mut Bins, prims: &[PrimRef], ext: &Extent) -> Plan {
    let n = prims.len();
    if n <= 1 {
        return Plan::Leaf;
    }
    let area = ext.boxes.area();
    let leaf_ok = |split_cost: f32| n <= knobs.max_leaf && knobs.weight(n as u32) * area <= area + split_cost;
    if n <= 3 {
        // Exact: every 2-way partition is one primitive against the rest.
        let mut best: Option<(f32, usize)> = None;
        for k in 0..n {
            let mut rest = Bounds::EMPTY;
            for (j, p) in prims.iter().enumerate() {
                if j != k {
                    rest.grow(p.lo, p.hi);
                }
            }
            let one = Bounds { lo: prims[k].lo, hi: prims[k].hi };
            let cost = one.area() * knobs.weight(1) + rest.area() * knobs.weight(n as u32 - 1);
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, k));
            }
            if n == 2 {
                break; // both singletons give the same partition
            }
        }
        let (cost, k) = best.expect("n >= 2");
        return if leaf_ok(cost) { Plan::Leaf } else { Plan::Single(k as u8) };
    }
    // Fewer bins for small ranges (one per two primitives, at least 4): the
    // planes between more bins mostly separate nothing, and each costs a
    // sweep step. (On the benchmark scenes the SAH cost barely changes and
    // the build is faster.)
    let bins = knobs.bins.min((n / 2).max(4));
    let maps: [BinMap; 3] = core::array::from_fn(|axis| {
        let (lo, hi) = (ext.centroids.lo[axis], ext.centroids.hi[axis]);
        let extent = hi - lo;
        let k1 = if extent > 0.0 { bins as f32 * (1.0 - 1e-6) / extent } else { 0.0 };
        BinMap { k0: lo, k1, last: (bins - 1) as f32 }
    });
    bin_range(scratch, &maps, bins, prims);
    let split = scratch.best_plane(&maps, knobs);
    if leaf_ok(split.map_or(f32::INFINITY, |(c, _, _)| c)) {
        return Plan::Leaf;
    }
    match split {
        Some((_, axis, bin)) => Plan::Plane { axis: axis as u8, bin: bin as u8, map: maps[axis] },
        None => Plan::Halve,
    }
}

/// Partitions `prims` by `plan` (not `Leaf`): the left part first. Returns
/// the split point.
pub(crate) fn partition(prims: &mut [PrimRef], plan: Plan) -> usize {
    match plan {
        Plan::Plane { axis, bin, map } => {
            let (axis, bin) = (usize::from(axis), usize::from(bin));
            // Branch-free Lomuto: swap every element with the first right one
            // and advance the boundary when it goes left.
            let mut mid = 0;
            for i in 0..prims.len() {
                let p = prims[i];
                let left = map.left_of(p.lo[axis] + p.hi[axis], bin);
                prims[i] = prims[mid];
                prims[mid] = p;
                mid += usize::from(left);
            }
            mid
        }
        Plan::Single(k) => {
            prims.swap(0, usize::from(k));
            1
        }
        Plan::Halve | Plan::Leaf => prims.len() / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaf weight's shift for blocks of a power of two counts the
    /// blocks as `div_ceil` does, for every block size up to 17 and counts
    /// at both ends of `u32`.
    #[test]
    fn block_weight_counts_blocks_as_div_ceil() {
        for block in 1..=17u32 {
            let knobs =
                Knobs { bins: 16, max_leaf: 8, collapse: super::super::Collapse::Greedy, block, block_cost: 2.0 };
            for n in (0..300).chain([1 << 31, (1 << 31) + 1, u32::MAX - 1, u32::MAX]) {
                assert_eq!(knobs.weight(n), n.div_ceil(block) as f32 * 2.0, "{n} in blocks of {block}");
            }
        }
    }
}
