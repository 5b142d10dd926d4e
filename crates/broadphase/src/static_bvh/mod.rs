//! [`StaticBvh`]: a bounding volume hierarchy built once over a fixed set of
//! boxes with the surface area heuristic, stored as 8-wide nodes for the
//! SIMD ray and box kernels.
//!
//! - `binning.rs`: one binned SAH decision (bins, sweep, partition);
//! - `build.rs`: the build, parallel at the top (rayon,
//!   `parallel` feature), deterministic;
//! - `wide.rs`: the node layout and the collapse of binary splits into 8 lanes;
//! - `ray.rs`, `overlap.rs`, `pairs.rs`: ray (one or a batch), box-overlap and
//!   self-pair queries;
//! - `refit.rs`: new boxes, same topology; `rebuild`;
//! - `validate.rs`: invariants and [`TreeStats`](crate::TreeStats).

mod binning;
mod build;
mod cache;
mod marked_pairs;
mod mask;
mod optimal;
mod overlap;
mod pairs;
mod ray;
mod refit;
mod region;
mod stack;
mod validate;
mod wide;

pub(crate) use marked_pairs::MarkedScratch;
#[cfg(feature = "parallel")]
pub(crate) use marked_pairs::MarkedTask;
pub(crate) use refit::AreaSum;

pub use cache::{InvalidMargin, OverlapCache};
pub use overlap::StaticBvhOverlaps;
pub use ray::{BoxHit, PACKET_SIZE};
pub use refit::RefitError;

use crate::broadphase::{BroadPhase, RayControl, TreeStats, ValidationError};
use core::ops::ControlFlow;
use proxima_narrowphase::kernels::SimdLevel;
use proxima_narrowphase::{Aabb, Ray, Real};
use wide::WideNode;

/// Knobs of [`StaticBvh::build_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// SAH bins per axis (clamped to `2..=64`; default 16). Small ranges use
    /// fewer (at least 4, at most one per primitive).
    pub bins: usize,
    /// The most primitives a leaf may hold (clamped to `1..=255`; default 4).
    /// The SAH makes a leaf of a range this small only when a leaf costs no
    /// more than the best split (`C_trav = C_isect = 1`).
    pub max_leaf_size: usize,
    /// How the binary SAH splits are grouped into 8-wide nodes (default
    /// [`Collapse::Greedy`]).
    pub collapse: Collapse,
    /// What the SAH charges for a leaf's primitives (default
    /// [`LeafCost::PerPrimitive`]).
    pub leaf_cost: LeafCost,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self { bins: 16, max_leaf_size: 4, collapse: Collapse::Greedy, leaf_cost: LeafCost::PerPrimitive }
    }
}

impl BuildOptions {
    /// The options for trees that answer box queries and self-pairs rather
    /// than rays ([`Collapse::Optimal`]): what the
    /// [`PairTracker`](crate::PairTracker) builds.
    pub const PAIRS: Self =
        Self { bins: 16, max_leaf_size: 4, collapse: Collapse::Optimal, leaf_cost: LeafCost::PerPrimitive };
}

/// What the binned SAH of [`StaticBvh::build_with`] charges for the
/// primitives of a leaf, in units of one node test over the same area.
///
/// The split of a range costs one node test plus its two sides' leaf
/// costs, each weighted by its surface area; a range of at most
/// [`BuildOptions::max_leaf_size`] primitives becomes a leaf when that is no
/// dearer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeafCost {
    /// One box test per primitive, as dear as a node test
    /// (`C_isect = C_trav = 1`): leaves of one to a few boxes.
    #[default]
    PerPrimitive,
    /// The primitives are tested `size` at a time, whatever the fill (one
    /// SIMD test per group), each test costing `cost` node tests: `k`
    /// primitives cost `cost * ceil(k / size)`. With `max_leaf_size ==
    /// size`, a leaf is one full or partly filled group, and the SAH fills
    /// leaves unless their primitives lie far apart. A mesh's triangle
    /// blocks (8 triangles, one 8-wide test) are built this way.
    Blocks {
        /// Primitives per test (at least 1).
        size: u8,
        /// One test's cost in node tests (at least 1).
        cost: u8,
    },
}

/// How [`StaticBvh::build_with`] groups the binary SAH splits into 8-wide
/// nodes. The two trees hold the same boxes and answer every query alike;
/// they differ in speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Collapse {
    /// Split the child of largest area until 8 lanes are used (Wald et al.,
    /// "Getting Rid of Packets", 2008): small leaves, the fastest rays.
    #[default]
    Greedy,
    /// The grouping of least SAH cost for 8-wide nodes (the dynamic program
    /// of Ylitie et al., "Efficient Incoherent Ray Traversal on GPUs Through
    /// Compressed Wide BVHs", 2017), below the top nodes, with a box test
    /// costed at a quarter of a node test: fuller nodes (fewer of them) and
    /// larger leaves. Faster self-pairs and box queries than `Greedy`, whose
    /// smaller leaves make faster rays; [`BuildOptions::PAIRS`] selects it.
    Optimal,
}

/// A static BVH over a slice of boxes, with 8-wide nodes.
///
/// Built once with the binned surface area heuristic ([`StaticBvh::build`]);
/// when the boxes move a little, [`StaticBvh::refit`] updates the bounds
/// without changing the tree, and [`StaticBvh::rebuild`] restores the
/// quality. The id of a box is its index in the build input (`u32`).
///
/// Every node stores the boxes of its up to 8 children structure-of-arrays,
/// so a ray is tested against all of them with one call of the SIMD kernel
/// ([`cast_ray_aabb_x8`](proxima_narrowphase::kernels::cast_ray_aabb_x8), AVX or
/// SSE2, chosen at run time); leaves hold up to
/// [`BuildOptions::max_leaf_size`] boxes, stored in leaf order.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::{BroadPhase, RayControl, StaticBvh};
/// use proxima::narrowphase::{Aabb, Point, Ray, Vector};
/// let boxes: Vec<Aabb> = (0..100)
///     .map(|i| {
///         let c = Point::new(i as f32 * 3.0, 0.0, 0.0);
///         Aabb::new(c - Vector::repeat(1.0), c + Vector::repeat(1.0))
///     })
///     .collect();
/// let bvh = StaticBvh::build(&boxes);
/// assert_eq!(bvh.len(), 100);
/// assert_eq!(bvh.overlaps(&boxes[10]).count(), 1);
/// let ray = Ray::new(Point::new(-10.0, 0.0, 0.0), Vector::x(), 1000.0);
/// let hit = bvh.cast_ray_closest(&ray).unwrap();
/// assert_eq!((hit.id, hit.toi), (0, 9.0));
/// bvh.validate().unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct StaticBvh {
    /// The nodes; the root is node 0 and every child comes after its parent.
    nodes: Vec<WideNode>,
    /// Per leaf slot, the id of the box there (a permutation of `0..len`).
    prim_ids: Vec<u32>,
    /// Per leaf slot, the box there.
    prim_boxes: Vec<Aabb>,
    options: BuildOptions,
    simd: SimdLevel,
    /// Unique to this build and its boxes: a new one at every build, refit
    /// and rebuild, so an [`OverlapCache`] filled from an older tree is
    /// refilled. Ignored by `==`.
    stamp: u64,
}

/// The tree's contents (nodes, leaves, options, kernel); not its stamp.
impl PartialEq for StaticBvh {
    fn eq(&self, other: &Self) -> bool {
        self.nodes == other.nodes
            && self.prim_ids == other.prim_ids
            && self.prim_boxes == other.prim_boxes
            && self.options == other.options
            && self.simd == other.simd
    }
}

/// A stamp no tree has had.
fn next_stamp() -> u64 {
    use core::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl StaticBvh {
    /// A tree over `boxes` with the default [`BuildOptions`].
    ///
    /// # Panics
    /// When there are `2^32 - 1` boxes or more.
    #[must_use]
    pub fn build(boxes: &[Aabb]) -> Self {
        Self::build_with(boxes, BuildOptions::default())
    }

    /// A tree over `boxes` (id `i` for `boxes[i]`).
    ///
    /// The same boxes and options give the same tree (nodes, order, leaves)
    /// whatever the number of threads.
    ///
    /// # Panics
    /// When there are `2^32 - 1` boxes or more.
    #[must_use]
    pub fn build_with(boxes: &[Aabb], options: BuildOptions) -> Self {
        let built = build::build(boxes, &options);
        #[cfg(feature = "parallel")]
        let (prim_ids, prim_boxes) = {
            use rayon::prelude::*;
            built.prims.par_iter().map(|p| (p.id(), p.aabb())).unzip()
        };
        #[cfg(not(feature = "parallel"))]
        let (prim_ids, prim_boxes) = built.prims.iter().map(|p| (p.id(), p.aabb())).unzip();
        Self { nodes: built.nodes, prim_ids, prim_boxes, options, simd: SimdLevel::detect(), stamp: next_stamp() }
    }

    /// The options the tree was built with.
    pub fn options(&self) -> BuildOptions {
        self.options
    }

    /// The box of every proxy, `None` when empty.
    pub fn root_aabb(&self) -> Option<Aabb> {
        self.nodes.first().and_then(WideNode::own_box)
    }

    /// Every box in input order (`boxes()[id]` is box `id`), as refitted; a copy gathered in `O(n)`.
    pub fn boxes(&self) -> Vec<Aabb> {
        let mut out = self.prim_boxes.clone();
        for (slot, &id) in self.prim_ids.iter().enumerate() {
            out[id as usize] = self.prim_boxes[slot];
        }
        out
    }

    /// The ray kernel the traversal uses (detected at build).
    pub fn simd_level(&self) -> SimdLevel {
        self.simd
    }

    /// Chooses the ray kernel, for tests and benchmarks: the requested level,
    /// lowered to what the CPU supports. Returns the level in use.
    pub fn set_simd_level(&mut self, level: SimdLevel) -> SimdLevel {
        self.simd = level.min(SimdLevel::detect());
        self.simd
    }
}

impl BroadPhase for StaticBvh {
    type Id = u32;

    fn len(&self) -> usize {
        self.prim_ids.len()
    }

    fn visit_overlaps<F>(&self, aabb: &Aabb, visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32) -> ControlFlow<()>,
    {
        self.visit_overlaps_impl(aabb, visitor)
    }

    fn visit_ray<F>(&self, ray: &Ray, visitor: F)
    where
        F: FnMut(u32, Real) -> RayControl,
    {
        self.visit_ray_impl(ray, visitor)
    }

    fn pairs_into(&self, out: &mut Vec<(u32, u32)>) {
        self.pairs_impl(out)
    }

    fn validate(&self) -> Result<TreeStats, ValidationError> {
        self.validate_impl()
    }
}
