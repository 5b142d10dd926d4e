//! Overlap queries that remember their neighbourhood: a moving box queried
//! every step against a tree that does not change.
//!
//! The fat-box idea of the dynamic tree, turned around: instead of
//! enlarging the stored boxes, the query is enlarged. A cache holds a fat
//! box `F` (the query box grown by a margin) and every stored box
//! overlapping `F`. While a later query box `Q` stays inside `F`, every
//! stored box overlapping `Q` also overlaps `F` (`Q ⊆ F`), so it is among
//! the cached boxes: testing those against `Q` gives exactly the tree's
//! answer, with no traversal. When `Q` leaves `F`, or the tree has changed
//! since (`refit`, `rebuild`: its stamp differs), the tree is traversed once
//! with a new `F` around `Q`.
//!
//! The cache holds copies of the boxes and their ids, not leaf slots: a
//! step then reads one contiguous list, where slots would cost two cache
//! misses each (the box, the id) in a large tree's arrays. The copies stay
//! exact while the tree's stamp is unchanged (its boxes change only by a
//! refit or a rebuild, which change the stamp).

use super::StaticBvh;
use core::ops::ControlFlow;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Real};

/// A margin that is negative, NaN or infinite (from [`OverlapCache::new`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InvalidMargin(pub Real);

impl core::fmt::Display for InvalidMargin {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "cache margin must be finite and non-negative, got {}", self.0)
    }
}

impl std::error::Error for InvalidMargin {}

/// What one moving query remembers of a [`StaticBvh`] between steps: use one
/// per moving object with [`StaticBvh::visit_overlaps_cached`].
///
/// The margin trades the size of the cached neighbourhood (more boxes to
/// test each step, 28 bytes each in the cache) against how often the tree
/// is traversed again (each time the query box leaves the fat box). About
/// the distance the object moves in a few steps is a good start.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
/// use core::ops::ControlFlow;
/// use proxima::broadphase::{OverlapCache, StaticBvh};
/// use proxima::narrowphase::{intersects_aabb_aabb, Aabb, Point, Vector};
/// let cube = |x: f32, h: f32| Aabb::try_from_center(Point::new(x, 0.0, 0.0), Vector::repeat(h)).unwrap();
/// let boxes: Vec<Aabb> = (0..1000).map(|i| cube(i as f32 * 2.0, 0.5)).collect();
/// let world = StaticBvh::build(&boxes);
/// let mut cache = OverlapCache::new(1.0).unwrap();
/// for step in 0..10 {
///     let ball = cube(step as f32 * 0.3, 0.25);
///     let mut hits = Vec::new();
///     let _ = world.visit_overlaps_cached(&mut cache, &ball, |id| {
///         hits.push(id);
///         ControlFlow::Continue(())
///     });
///     assert!(hits.iter().all(|&id| intersects_aabb_aabb(&boxes[id as usize], &ball)));
///     assert_eq!(hits.len(), boxes.iter().filter(|b| intersects_aabb_aabb(b, &ball)).count());
/// }
/// assert!(cache.refills() < 10);
/// ```
#[derive(Clone, Debug)]
pub struct OverlapCache {
    margin: Real,
    /// The fat box and the stamp of the tree it was taken from; `None` until
    /// the first query.
    fat: Option<(Aabb, u64)>,
    /// The boxes overlapping the fat box, with their ids.
    entries: Vec<(Aabb, u32)>,
    /// Tree traversals so far (statistics).
    refills: u64,
}

impl OverlapCache {
    /// An empty cache whose fat boxes are the query boxes grown by `margin`
    /// on every side.
    pub fn new(margin: Real) -> Result<Self, InvalidMargin> {
        if !margin.is_finite() || margin < 0.0 {
            return Err(InvalidMargin(margin));
        }
        Ok(Self { margin, fat: None, entries: Vec::new(), refills: 0 })
    }

    /// The margin.
    pub fn margin(&self) -> Real {
        self.margin
    }

    /// Forgets the neighbourhood: the next query traverses the tree.
    pub fn clear(&mut self) {
        self.fat = None;
        self.entries.clear();
    }

    /// How many stored boxes the cache holds now.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the cache holds no stored box.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many times the tree has been traversed through this cache.
    pub fn refills(&self) -> u64 {
        self.refills
    }
}

impl StaticBvh {
    /// The ids of the boxes overlapping `aabb` (touching counts), as
    /// [`visit_overlaps`](crate::BroadPhase::visit_overlaps) gives them (the
    /// same set; the order may differ), through `cache`: when `aabb` lies
    /// inside the cache's fat box and the tree has not changed since it was
    /// filled, only the cached boxes are tested; otherwise the tree is
    /// traversed once with a new fat box. Allocation-free once the cache's
    /// buffer has grown to the neighbourhood's size.
    pub fn visit_overlaps_cached<F>(&self, cache: &mut OverlapCache, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(u32) -> ControlFlow<()>,
    {
        let fresh = matches!(cache.fat, Some((fat, stamp)) if stamp == self.stamp && fat.contains_aabb(aabb));
        if !fresh {
            self.refill(cache, aabb);
        }
        for (b, id) in &cache.entries {
            if intersects_aabb_aabb(b, aabb) {
                visitor(*id)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Fills `cache` with the boxes (and ids) overlapping `aabb` grown by
    /// the margin (saturating at `±f32::MAX`: still a superset of `aabb`).
    fn refill(&self, cache: &mut OverlapCache, aabb: &Aabb) {
        let fat = aabb.loosened(cache.margin);
        cache.entries.clear();
        cache.refills += 1;
        cache.fat = Some((fat, self.stamp));
        let _ = self.visit_overlap_slots(&fat, |slot| {
            cache.entries.push((self.prim_boxes[slot as usize], self.prim_ids[slot as usize]));
            ControlFlow::Continue(())
        });
    }
}
