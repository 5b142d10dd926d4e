//! New boxes for the same tree (`refit`), or a new tree (`rebuild`).

use super::wide::Lane;
use super::StaticBvh;
use proxima_narrowphase::kernels::{AabbX8, SimdLevel};
use proxima_narrowphase::{Aabb, Real};

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
    /// [`refit_in_place`](Self::refit_in_place). The stamp changes only at
    /// that refit: an `OverlapCache` must not query the tree in between
    /// (only the pair tracker's own trees use this, never through a cache).
    #[inline]
    pub(crate) fn leaf_box_mut(&mut self, slot: u32) -> &mut Aabb {
        &mut self.prim_boxes[slot as usize]
    }

    /// Recomputes every node's lane boxes from the leaf boxes as they are now
    /// (one reverse pass: children come after their parents) and returns the
    /// sum of the lane boxes' surface areas (see
    /// [`area_ratio_of`](Self::area_ratio_of)). A new stamp.
    pub(crate) fn refit_in_place(&mut self) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if self.simd.min(SimdLevel::detect()) == SimdLevel::Avx {
            // SAFETY: the level is at most `SimdLevel::detect()`, which
            // reports AVX only when this CPU has it.
            return unsafe { refit_in_place_avx(self) };
        }
        self.refit_nodes(lanes_area)
    }

    /// [`refit_in_place`](Self::refit_in_place)'s pass, inlined into each
    /// instance with its [`lanes_area`].
    #[inline(always)]
    fn refit_nodes(&mut self, lanes_area: impl Fn(&AabbX8, usize) -> f64) -> f64 {
        self.stamp = super::next_stamp();
        let mut area_sum = 0.0f64;
        for index in (0..self.nodes.len()).rev() {
            let (head, tail) = self.nodes.split_at_mut(index + 1);
            let node = &mut head[index];
            let len = usize::from(node.len);
            for lane in 0..len {
                let (min, max) = lane_union(node.lane(lane), index, tail, &self.prim_boxes);
                node.bounds.set_bounds(lane, min, max);
            }
            area_sum += lanes_area(&node.bounds, len);
        }
        area_sum
    }

    /// Per node, its parent (the root: itself), and per leaf slot, the node
    /// whose lane holds it: the links [`refit_marked`](Self::refit_marked)
    /// climbs.
    pub(crate) fn upward_links(&self, parents: &mut Vec<u32>, leaf_nodes: &mut Vec<u32>) {
        parents.clear();
        parents.resize(self.nodes.len(), 0);
        leaf_nodes.clear();
        leaf_nodes.resize(self.prim_ids.len(), 0);
        for (index, node) in self.nodes.iter().enumerate() {
            for lane in 0..usize::from(node.len) {
                match node.lane(lane) {
                    Lane::Node(child) => parents[child as usize] = index as u32,
                    Lane::Leaf { first, count } => {
                        leaf_nodes[first as usize..(first + count) as usize].fill(index as u32)
                    }
                }
            }
        }
    }

    /// [`refit_in_place`](Self::refit_in_place) for a tree of which only the
    /// leaf slots marked in `moved` (bit `s % 64` of word `s / 64`) got new
    /// boxes: the nodes above them are marked by climbing `links` (from
    /// [`upward_links`](Self::upward_links)) and only those are recomputed,
    /// children before parents (a parent's index is below its children's),
    /// so the nodes over unmoved leaves are not even read (Box2D v3's
    /// enlarged-node flags do the same for its binary tree). Every lane box
    /// stays the exact union of what is below it, as after a full refit.
    ///
    /// `area_sum` holds the sum of the lane boxes' areas before the call (as
    /// [`lane_area_sum`](Self::lane_area_sum) gives it); it is updated by the
    /// recomputed nodes' differences. `stale` is scratch (one bit per node,
    /// left cleared). A new stamp.
    ///
    /// The climb reads the stale nodes out of order, a cache miss each on a
    /// large tree, where the full refit streams every node: it wins while few
    /// leaves moved and loses past a few percent of random movers
    /// (docs/decisions/0008-refit-climb-or-stream.md).
    pub(crate) fn refit_marked(
        &mut self,
        moved: &[u64],
        links: (&[u32], &[u32]),
        stale: &mut Vec<u64>,
        area_sum: &mut AreaSum,
    ) {
        #[cfg(target_arch = "x86_64")]
        if self.simd.min(SimdLevel::detect()) == SimdLevel::Avx {
            // SAFETY: the level is at most `SimdLevel::detect()`, which
            // reports AVX only when this CPU has it.
            return unsafe { refit_marked_avx(self, moved, links, stale, area_sum) };
        }
        self.refit_climb(moved, links, stale, area_sum, lanes_area);
    }

    /// [`refit_marked`](Self::refit_marked)'s climb, inlined into each
    /// instance with its [`lanes_area`].
    #[inline(always)]
    fn refit_climb(
        &mut self,
        moved: &[u64],
        (parents, leaf_nodes): (&[u32], &[u32]),
        stale: &mut Vec<u64>,
        area_sum: &mut AreaSum,
        lanes_area: impl Fn(&AabbX8, usize) -> f64,
    ) {
        self.stamp = super::next_stamp();
        stale.clear();
        stale.resize(self.nodes.len().div_ceil(64), 0);
        for (w, &word) in moved.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let node = leaf_nodes[w * 64 + bits.trailing_zeros() as usize] as usize;
                bits &= bits - 1;
                stale[node / 64] |= 1 << (node % 64);
            }
        }
        // Descending node order: each stale node is recomputed after all its
        // stale children, then marks its parent (a lower index, still ahead).
        for w in (0..stale.len()).rev() {
            while stale[w] != 0 {
                let bit = 63 - stale[w].leading_zeros() as usize;
                stale[w] &= !(1 << bit);
                let index = w * 64 + bit;
                let (head, tail) = self.nodes.split_at_mut(index + 1);
                let node = &mut head[index];
                let len = usize::from(node.len);
                let before = lanes_area(&node.bounds, len);
                for lane in 0..len {
                    let (min, max) = lane_union(node.lane(lane), index, tail, &self.prim_boxes);
                    node.bounds.set_bounds(lane, min, max);
                }
                area_sum.replace(before, lanes_area(&node.bounds, len));
                if index != 0 {
                    let parent = parents[index] as usize;
                    stale[parent / 64] |= 1 << (parent % 64);
                }
            }
        }
    }

    /// The tree's area ratio: the sum of the lane boxes' surface areas over
    /// the root's (a refitted tree whose ratio grew has lost quality).
    pub(crate) fn area_ratio(&self) -> f64 {
        self.area_ratio_of(self.lane_area_sum())
    }

    /// [`area_ratio`](Self::area_ratio) given the lane areas' sum.
    pub(crate) fn area_ratio_of(&self, lane_area_sum: f64) -> f64 {
        match self.nodes.first().and_then(super::wide::WideNode::own_box) {
            Some(root) if area(&root) > 0.0 => lane_area_sum / area(&root),
            _ => 0.0,
        }
    }

    /// The sum of every used lane box's surface area (the numerator of
    /// [`area_ratio`](Self::area_ratio)).
    pub(crate) fn lane_area_sum(&self) -> f64 {
        let mut area_sum = 0.0;
        for node in &self.nodes {
            area_sum += (0..usize::from(node.len)).filter_map(|l| node.bounds.get(l)).map(|b| area(&b)).sum::<f64>();
        }
        area_sum
    }

    /// Whether every used lane box is exactly the union of its child node's
    /// lanes or of its leaf's boxes (true after a build and after any refit;
    /// `validate` checks only that it contains them).
    pub(crate) fn lanes_are_unions(&self) -> bool {
        self.nodes.iter().enumerate().all(|(index, node)| {
            let tail = &self.nodes[index + 1..];
            let rows = node.bounds.rows();
            (0..usize::from(node.len)).all(|lane| {
                let (min, max) = lane_union(node.lane(lane), index, tail, &self.prim_boxes);
                (0..3).all(|axis| rows[axis][0][lane] == min[axis] && rows[axis][1][lane] == max[axis])
            })
        })
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

/// A sum of lane box areas kept by differences across refits, with the
/// scale of its rounding error.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AreaSum {
    /// The sum.
    pub(crate) sum: f64,
    /// The sum of the magnitudes of every term added or taken away since it
    /// was exact:
    /// the sum's rounding error is a small multiple of `f64::EPSILON` times
    /// this (a sum that shrank from huge boxes to small ones keeps the
    /// error of the huge terms).
    pub(crate) scale: f64,
}

impl AreaSum {
    /// An exact sum (a fresh [`StaticBvh::lane_area_sum`]).
    pub(crate) fn exact(sum: f64) -> Self {
        Self { sum, scale: sum.abs() }
    }

    /// Replaces terms summing to `before` by terms summing to `after`.
    #[inline]
    fn replace(&mut self, before: f64, after: f64) {
        self.sum += after - before;
        self.scale += before.abs() + after.abs();
    }
}

/// The box lane `lane` of node `index` must hold: the union of its child
/// node's lanes (children are stored after their parent, checked by
/// `validate`; `after` is the node list past `index`) or of its leaf's boxes.
/// A used lane covers at least one box, and a child node at least one lane
/// (padded lanes, `(+inf, -inf)`, drop out of the min/max).
#[inline(always)]
fn lane_union(lane: Lane, index: usize, after: &[super::wide::WideNode], prim_boxes: &[Aabb]) -> Bounds {
    // Plain comparisons (no NaN in a tree): they vectorise, where
    // `Real::min`'s NaN rule does not.
    let min = |lo: Real, x: Real| if x < lo { x } else { lo };
    let max = |hi: Real, x: Real| if x > hi { x } else { hi };
    match lane {
        Lane::Node(child) => {
            let rows = after[child as usize - index - 1].bounds.rows();
            (
                core::array::from_fn(|axis| rows[axis][0].iter().copied().fold(Real::INFINITY, min)),
                core::array::from_fn(|axis| rows[axis][1].iter().copied().fold(Real::NEG_INFINITY, max)),
            )
        }
        Lane::Leaf { first, count } => {
            let boxes = &prim_boxes[first as usize..(first + count) as usize];
            let corners = |b: &Aabb| -> Bounds {
                let (lo, hi) = (b.min(), b.max());
                ([lo.x, lo.y, lo.z], [hi.x, hi.y, hi.z])
            };
            boxes[1..].iter().fold(corners(&boxes[0]), |(lo, hi), b| {
                let (bl, bh) = corners(b);
                (core::array::from_fn(|a| min(lo[a], bl[a])), core::array::from_fn(|a| max(hi[a], bh[a])))
            })
        }
    }
}

/// The AVX instance of [`StaticBvh::refit_in_place`]: the same pass, its
/// lane unions and areas in 256-bit instructions.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn refit_in_place_avx(bvh: &mut StaticBvh) -> f64 {
    // SAFETY: AVX is enabled here, and the caller guarantees the CPU has it.
    bvh.refit_nodes(|bounds, len| unsafe { lanes_area_avx(bounds, len) })
}

/// The AVX instance of [`StaticBvh::refit_marked`].
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn refit_marked_avx(
    bvh: &mut StaticBvh,
    moved: &[u64],
    links: (&[u32], &[u32]),
    stale: &mut Vec<u64>,
    area_sum: &mut AreaSum,
) {
    // SAFETY: AVX is enabled here, and the caller guarantees the CPU has it.
    bvh.refit_climb(moved, links, stale, area_sum, |bounds, len| unsafe { lanes_area_avx(bounds, len) });
}

/// [`lanes_area`] in AVX: the same operations in the same order (extents
/// in `Real`, each lane's area in `f64`, the pairwise sum), so the same
/// bits, four lanes per instruction.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn lanes_area_avx(bounds: &AabbX8, len: usize) -> f64 {
    use core::arch::x86_64::*;
    let rows = bounds.rows();
    // SAFETY: AVX is enabled; the loads read `[Real; 8]` rows of `bounds`.
    unsafe {
        let extent = |axis: usize| {
            let e = _mm256_sub_ps(_mm256_loadu_ps(rows[axis][1].as_ptr()), _mm256_loadu_ps(rows[axis][0].as_ptr()));
            (_mm256_cvtps_pd(_mm256_castps256_ps128(e)), _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(e)))
        };
        let ((x0, x1), (y0, y1), (z0, z1)) = (extent(0), extent(1), extent(2));
        // 2 (xy + yz + zx), added left to right as in `extents_area`.
        let area = |x, y, z| {
            let sum = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(x, y), _mm256_mul_pd(y, z)), _mm256_mul_pd(z, x));
            _mm256_mul_pd(_mm256_set1_pd(2.0), sum)
        };
        // Unused lanes count 0 (their extents are -inf).
        let index = |first: f64| _mm256_setr_pd(first, first + 1.0, first + 2.0, first + 3.0);
        let used = _mm256_set1_pd(len as f64);
        let a0 = _mm256_and_pd(area(x0, y0, z0), _mm256_cmp_pd::<_CMP_LT_OQ>(index(0.0), used));
        let a1 = _mm256_and_pd(area(x1, y1, z1), _mm256_cmp_pd::<_CMP_LT_OQ>(index(4.0), used));
        // [a0+a1, a4+a5, a2+a3, a6+a7], then ((a0+a1)+(a2+a3)) and ((a4+a5)+(a6+a7)).
        let pairs = _mm256_hadd_pd(a0, a1);
        let quads = _mm_add_pd(_mm256_castpd256_pd128(pairs), _mm256_extractf128_pd::<1>(pairs));
        _mm_cvtsd_f64(_mm_add_sd(quads, _mm_unpackhi_pd(quads, quads)))
    }
}

/// A box as its corners' coordinates.
type Bounds = ([Real; 3], [Real; 3]);

/// The summed surface areas of the first `len` lanes, in `f64`, read from
/// the rows (no `Aabb` is built). Each lane's area is [`extents_area`]'s;
/// they are added pairwise (independent additions, not one chain), so the
/// sum may differ from a left-to-right one in the last bits.
#[inline]
fn lanes_area(bounds: &AabbX8, len: usize) -> f64 {
    let rows = bounds.rows();
    let areas: [f64; 8] = core::array::from_fn(|lane| {
        let area = extents_area(core::array::from_fn(|axis| rows[axis][1][lane] - rows[axis][0][lane]));
        if lane < len {
            area
        } else {
            0.0
        }
    });
    ((areas[0] + areas[1]) + (areas[2] + areas[3])) + ((areas[4] + areas[5]) + (areas[6] + areas[7]))
}

/// Surface area in `f64` (finite for any finite box).
fn area(a: &Aabb) -> f64 {
    extents_area((a.max() - a.min()).into())
}

/// The surface area of a box with these extents, computed in `f64` from the
/// `Real` extents: the one formula of [`area`] and [`lanes_area`], so that the
/// climb's differences and a fresh sum round alike.
#[inline]
fn extents_area([x, y, z]: [proxima_narrowphase::Real; 3]) -> f64 {
    let (x, y, z) = (f64::from(x), f64::from(y), f64::from(z));
    2.0 * (x * y + y * z + z * x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BuildOptions;
    use proxima_test_support::scene;

    /// The AVX lane areas are [`lanes_area`]'s bits: every used-lane count,
    /// boxes from points to extents near `f32::MAX` (whose areas overflow
    /// `f32` but not `f64`), axes of unequal sizes, negative coordinates.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx_lane_areas_equal_the_portable_ones() {
        if SimdLevel::detect() != SimdLevel::Avx {
            return;
        }
        let mut rng = proxima_test_support::rng(5);
        for round in 0..2000 {
            let scale = [1e-3, 1.0, 1e6, 1e18, 1.5e38][round % 5];
            let boxes: Vec<Aabb> = (0..8)
                .map(|_| {
                    // Axes of very different sizes, so that the three
                    // products' sum rounds (equal-sized ones add exactly).
                    let sizes: [Real; 3] = core::array::from_fn(|_| {
                        let k = proxima_test_support::gen::uniform(&mut rng, -20.0, 20.0).round() as i32;
                        (scale * (2.0 as Real).powi(k)).min(1.5e38)
                    });
                    let mut corner = || {
                        proxima_narrowphase::Point::from(core::array::from_fn::<Real, 3, _>(|axis| {
                            proxima_test_support::gen::uniform(&mut rng, -sizes[axis], sizes[axis])
                        }))
                    };
                    let (a, b) = (corner(), corner());
                    Aabb::new(a.inf(&b), a.sup(&b))
                })
                .collect();
            let len = 1 + round % 8;
            let lanes = AabbX8::from_boxes(&boxes[..len]);
            // SAFETY: the CPU has AVX (checked above).
            let avx = unsafe { lanes_area_avx(&lanes, len) };
            assert_eq!(avx.to_bits(), lanes_area(&lanes, len).to_bits(), "round {round}: {boxes:?}");
            assert!(avx.is_finite());
        }
    }

    /// The climb from the moved leaves gives the full refit's nodes bit for
    /// bit and its lane area sum within rounding, for no, one, few, many and
    /// all leaves moved, scattered or in one run of leaf slots, on both
    /// collapses, frame after frame on the same tree, with the climb at every
    /// SIMD level; and the full refit's portable instance gives the same
    /// bits (bounds and area sum) as the one the CPU runs.
    #[test]
    fn refit_marked_equals_full_refit() {
        let n = 3000;
        let boxes = scene::boxes(n, false, 3);
        let mut rng = proxima_test_support::rng(9);
        let levels = [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx].into_iter().filter(|l| l.is_available());
        let cases: Vec<_> = [BuildOptions::PAIRS, BuildOptions::default()]
            .into_iter()
            .flat_map(|o| levels.clone().map(move |l| (o, l)))
            .collect();
        for (options, level) in cases {
            let mut full = StaticBvh::build_with(&boxes, options);
            let mut portable = full.clone();
            portable.set_simd_level(SimdLevel::Scalar);
            let mut climbed = full.clone();
            climbed.set_simd_level(level);
            let mut sum = AreaSum::exact(climbed.lane_area_sum());
            let (mut parents, mut leaf_nodes, mut stale) = (Vec::new(), Vec::new(), Vec::new());
            climbed.upward_links(&mut parents, &mut leaf_nodes);
            for (frame, fraction) in [0.0, 0.0005, 0.01, 0.1, 1.0, 0.02, 0.3].into_iter().enumerate() {
                let moves = scene::moves(n, fraction, 2.0, &mut rng);
                // Odd frames move a run of consecutive leaf slots instead.
                let slots: Vec<usize> = if frame % 2 == 1 {
                    (100..100 + moves.len()).collect()
                } else {
                    moves.iter().map(|m| m.0).collect()
                };
                let mut moved = vec![0u64; n.div_ceil(64)];
                for (&slot, &(_, d)) in slots.iter().zip(&moves) {
                    let moved_box = scene::translated(&full.leaf_boxes()[slot], &d);
                    *full.leaf_box_mut(slot as u32) = moved_box;
                    *portable.leaf_box_mut(slot as u32) = moved_box;
                    *climbed.leaf_box_mut(slot as u32) = moved_box;
                    moved[slot / 64] |= 1 << (slot % 64);
                }
                let exact = full.refit_in_place();
                assert_eq!(portable.refit_in_place().to_bits(), exact.to_bits(), "frame {frame}");
                assert_eq!(portable.nodes, full.nodes, "frame {frame}");
                climbed.refit_marked(&moved, (&parents, &leaf_nodes), &mut stale, &mut sum);
                assert!(stale.iter().all(|&w| w == 0), "the scratch is left cleared");
                for (index, (a, b)) in full.nodes.iter().zip(&climbed.nodes).enumerate() {
                    for lane in 0..usize::from(a.len) {
                        assert_eq!(a.bounds.get(lane), b.bounds.get(lane), "frame {frame}, node {index} lane {lane}");
                    }
                }
                assert!(climbed.lanes_are_unions());
                // Differences of f64 areas: within 1e-9 of the terms' scale.
                assert!((sum.sum - exact).abs() <= 1e-9 * (sum.scale + exact), "{} vs {exact}", sum.sum);
            }
        }
    }
}
