//! An incremental AABB tree for moving proxies (the dynamic BVH of Box2D's
//! `b2DynamicTree` and parry's `Bvh`, organised by concern):
//!
//! - `tree`: nodes, sibling pairs, the free list;
//! - `insert`: SAH sibling choice (branch and bound) and insertion;
//! - `remove`: leaf removal;
//! - `refit`: growing ancestors in place, and tightening them all in one pass;
//! - `rebuild`: a full binned-SAH build over the current leaves;
//! - `rotate`: the tree rotations that keep insertion order from mattering;
//! - `query`: box and ray queries;
//! - `self_pairs`: every overlapping pair, by traversing the tree against itself;
//! - `validate`: the invariant walk.

mod insert;
mod query;
mod rebuild;
mod refit;
mod remove;
mod rotate;
mod self_pairs;
mod tree;
mod validate;

pub use query::{Overlaps, ProxyRayHit};

use crate::slots::Slots;
use crate::{BroadPhase, BroadPhaseError, ProxyId, RayControl, TreeStats, ValidationError};
use core::ops::ControlFlow;
use proxima_narrowphase::{Aabb, Ray, Real, Vector};
use tree::{Leaf, NodePair, LEAF_BIT, NULL};

/// How much larger than the tight box a leaf's fat box is, in a
/// [`DynamicTree`] and a [`PairTracker`](crate::PairTracker).
///
/// A leaf stores a fat box: the tight box grown by `margin` on every side,
/// then stretched by `prediction * displacement` in the direction of motion.
/// [`DynamicTree::move_proxy`] re-inserts a leaf only when the new tight box
/// leaves its fat box, so small motions cost one containment test.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FatBoxOptions {
    /// Growth on every side, `>= 0`, in world units.
    pub margin: Real,
    /// Multiplier of the displacement passed to `move_proxy`, `>= 0`
    /// (0 disables motion prediction).
    pub prediction: Real,
}

impl Default for FatBoxOptions {
    /// `margin = 0.1`, `prediction = 4`: Box2D v2.4's defaults for
    /// metre-sized objects (`b2_aabbExtension`, `b2_aabbMultiplier`). A body
    /// moving steadily stays inside its fat box for four frames; for
    /// proxies that jump at random (teleports), prediction 0 is better.
    fn default() -> Self {
        Self { margin: 0.1, prediction: 4.0 }
    }
}

impl FatBoxOptions {
    /// Tight boxes: no margin, no prediction. Every move of a box re-inserts it.
    pub const TIGHT: Self = Self { margin: 0.0, prediction: 0.0 };
}

/// The former name of [`FatBoxOptions`].
#[deprecated(since = "0.2.0", note = "renamed to `FatBoxOptions`: the pair tracker takes them too")]
#[doc(hidden)]
pub type DynamicTreeOptions = FatBoxOptions;

/// Rejects a negative or non-finite margin or prediction.
pub(crate) fn check_options(options: &FatBoxOptions) -> Result<(), BroadPhaseError> {
    if !(options.margin.is_finite() && options.margin >= 0.0) {
        return Err(BroadPhaseError::InvalidOption("margin must be finite and >= 0"));
    }
    if !(options.prediction.is_finite() && options.prediction >= 0.0) {
        return Err(BroadPhaseError::InvalidOption("prediction must be finite and >= 0"));
    }
    Ok(())
}

/// The fat box of a proxy with tight box `aabb` that moved by `displacement`:
/// grown by the margin, stretched by `prediction * displacement` along the
/// motion (the margin alone if stretching would overflow to infinity).
pub(crate) fn fat_box(options: &FatBoxOptions, aabb: &Aabb, displacement: &Vector) -> Aabb {
    let base = aabb.loosened(options.margin);
    let d = displacement * options.prediction;
    let (mut lo, mut hi) = (*base.min(), *base.max());
    for axis in 0..3 {
        if d[axis] < 0.0 {
            lo[axis] += d[axis];
        } else {
            hi[axis] += d[axis];
        }
    }
    Aabb::try_new(lo, hi).unwrap_or(base)
}

/// An incremental AABB tree over moving proxies, with user data `T` per proxy.
///
/// Leaves hold fat boxes (see [`FatBoxOptions`]); every query answers for
/// the fat boxes, which contain the tight ones, so results are a superset of
/// the tight-box answer (equal with [`FatBoxOptions::TIGHT`] and boxes that
/// were inserted, or last moved, to their current place).
///
/// Invariants, checked by [`validate`](BroadPhase::validate): each internal
/// node has two children and its box is their union; parent links match;
/// `2 * leaves - 1` live nodes; free + live + padding slots = capacity.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::{BroadPhase, DynamicTree};
/// use proxima::narrowphase::{Aabb, Point, Vector};
/// let mut tree = DynamicTree::new();
/// let a = tree.insert(Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0)), "a");
/// let b = tree.insert(Aabb::new(Point::new(5.0, 0.0, 0.0), Point::new(6.0, 1.0, 1.0)), "b");
/// let probe = Aabb::new(Point::new(0.5, 0.5, 0.5), Point::new(0.6, 0.6, 0.6));
/// assert_eq!(tree.overlaps(&probe).collect::<Vec<_>>(), vec![a]);
/// // Move b next to a: it leaves its fat box, so it is re-inserted.
/// let moved = Aabb::new(Point::new(1.0, 0.0, 0.0), Point::new(2.0, 1.0, 1.0));
/// assert_eq!(tree.move_proxy(b, moved, Vector::new(-4.0, 0.0, 0.0)), Ok(true));
/// let mut pairs = Vec::new();
/// tree.pairs_into(&mut pairs);
/// assert_eq!(pairs, vec![(a, b)]);
/// assert_eq!(tree.remove(b), Ok("b"));
/// assert!(tree.remove(b).is_err()); // stale id
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "Stored<T>"))]
pub struct DynamicTree<T = ()> {
    /// Node slots, two per pair: slot `s` is `nodes[s / 2].0[s % 2]`.
    nodes: Vec<NodePair>,
    /// First free pair, chained through the first node's `child`; [`NULL`] if none.
    free_pair: u32,
    /// Number of pairs on the free list.
    free_pairs: u32,
    /// True when slot 0 holds a root.
    has_root: bool,
    /// The proxies (a `Slots` slot map): slot index = leaf key, with generations.
    leaves: Slots<Leaf<T>>,
    options: FatBoxOptions,
    /// True after an [`enlarge_proxy`](Self::enlarge_proxy) grew an internal
    /// box past its children's union, until [`refit`](Self::refit) or
    /// [`rebuild`](Self::rebuild): validation then checks containment only.
    loose: bool,
    /// The build's buffers, kept so a rebuild in a running simulation allocates nothing.
    #[cfg_attr(feature = "serde", serde(skip))]
    scratch: rebuild::Scratch,
}

/// A [`DynamicTree`] as a payload holds it, before validation: deserialized
/// into this, then accepted only if [`DynamicTree::validate`](BroadPhase::validate)
/// passes and the options are valid, so a corrupt payload (a broken parent
/// link, a box that does not contain its children, an index out of range)
/// is an error, never a tree that answers wrongly or panics later.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct Stored<T> {
    nodes: Vec<NodePair>,
    free_pair: u32,
    free_pairs: u32,
    has_root: bool,
    leaves: Slots<Leaf<T>>,
    options: FatBoxOptions,
    /// Optional in a payload: without it the tree is read as tight.
    #[serde(default)]
    loose: bool,
}

#[cfg(feature = "serde")]
impl<T> TryFrom<Stored<T>> for DynamicTree<T> {
    type Error = String;

    fn try_from(s: Stored<T>) -> Result<Self, String> {
        check_options(&s.options).map_err(|e| e.to_string())?;
        if s.has_root && s.nodes.is_empty() {
            return Err("a root but no nodes".into());
        }
        let tree = Self {
            nodes: s.nodes,
            free_pair: s.free_pair,
            free_pairs: s.free_pairs,
            has_root: s.has_root,
            leaves: s.leaves,
            options: s.options,
            loose: s.loose,
            scratch: rebuild::Scratch::default(),
        };
        tree.validate_impl().map_err(|e| format!("invalid dynamic tree: {}", e.0))?;
        Ok(tree)
    }
}

impl<T> Default for DynamicTree<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> DynamicTree<T> {
    /// An empty tree with [`FatBoxOptions::default`].
    pub fn new() -> Self {
        Self {
            nodes: Vec::new(),
            free_pair: NULL,
            free_pairs: 0,
            has_root: false,
            leaves: Slots::default(),
            options: FatBoxOptions::default(),
            loose: false,
            scratch: rebuild::Scratch::default(),
        }
    }

    /// An empty tree; rejects a negative or non-finite margin or prediction.
    pub fn new_with(options: FatBoxOptions) -> Result<Self, BroadPhaseError> {
        check_options(&options)?;
        Ok(Self { options, ..Self::new() })
    }

    /// The former name of [`new_with`](Self::new_with).
    #[deprecated(since = "0.2.0", note = "renamed to `new_with`: `with_*` names builder methods")]
    #[doc(hidden)]
    pub fn with_options(options: FatBoxOptions) -> Result<Self, BroadPhaseError> {
        Self::new_with(options)
    }

    /// The options the tree was built with.
    pub fn options(&self) -> FatBoxOptions {
        self.options
    }

    /// Adds a proxy whose tight box is `aabb`; its fat box is `aabb` grown by the margin.
    ///
    /// # Panics
    /// With more than 2^31 proxies at once.
    pub fn insert(&mut self, aabb: Aabb, user_data: T) -> ProxyId {
        let fat = aabb.loosened(self.options.margin);
        let id = self.leaves.insert(Leaf { node: NULL, fat, data: user_data }, !LEAF_BIT);
        self.insert_leaf(id.index() as usize, fat);
        id
    }

    /// Removes a proxy and returns its user data. A stale id is rejected with
    /// [`BroadPhaseError::StaleId`] and nothing changes.
    pub fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        self.leaves.try_get(id)?;
        self.remove_leaf(id.index() as usize);
        self.leaves.remove(id).map(|leaf| leaf.data)
    }

    /// Tells the tree that proxy `id` now has tight box `aabb` after moving by
    /// `displacement` this step.
    ///
    /// Returns `Ok(false)` when `aabb` is still inside the fat box (nothing
    /// changes), `Ok(true)` when the proxy got a new fat box and was
    /// re-inserted: in place when the new box fits in its parent's (no node
    /// grows, the ancestors are refitted), otherwise near its old place (the
    /// sibling search starts at the lowest former ancestor that contains it).
    /// The new fat box is
    /// `aabb` grown by the margin and stretched by `prediction * displacement`
    /// (if stretching would overflow to infinity, the margin alone is used).
    /// A stale id or a NaN/infinite displacement is rejected and nothing changes.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        let Some((slot, fat)) = self.refattened(id, &aabb, &displacement)? else {
            return Ok(false);
        };
        let key = id.index() as usize;
        if slot != tree::ROOT && self.node(self.node(slot).parent).aabb.contains_aabb(&fat) {
            // Still inside its parent's box: keeping its sibling grows no
            // node, so the leaf stays put and only its ancestors shrink.
            self.node_mut(slot).aabb = fat;
            self.leaves.by_key_mut(key).fat = fat;
            self.refit_up(self.node(slot).parent);
            return Ok(true);
        }
        match self.remove_leaf(key) {
            Some(near) => self.insert_leaf_near(key, fat, near),
            None => self.insert_leaf(key, fat),
        }
        Ok(true)
    }

    /// The checks of a move and its new fat box: a stale id or a NaN/infinite
    /// displacement is an error, `None` means `aabb` is still inside the fat
    /// box; otherwise the leaf's slot and the fat box it gets.
    fn refattened(
        &self,
        id: ProxyId,
        aabb: &Aabb,
        displacement: &Vector,
    ) -> Result<Option<(u32, Aabb)>, BroadPhaseError> {
        let leaf = self.leaves.try_get(id)?;
        if !displacement.iter().all(|d| d.is_finite()) {
            return Err(BroadPhaseError::InvalidDisplacement);
        }
        if leaf.fat.contains_aabb(aabb) {
            return Ok(None);
        }
        Ok(Some((leaf.node, fat_box(&self.options, aabb, displacement))))
    }

    /// A proxy's user data; `None` for a stale id.
    pub fn get(&self, id: ProxyId) -> Option<&T> {
        self.leaves.get(id).map(|leaf| &leaf.data)
    }

    /// A proxy's user data, mutably; `None` for a stale id.
    pub fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        self.leaves.get_mut(id).map(|leaf| &mut leaf.data)
    }

    /// True when `id` names a live proxy.
    pub fn contains(&self, id: ProxyId) -> bool {
        self.leaves.contains(id)
    }

    /// A proxy's fat box (the box every query tests); `None` for a stale id.
    pub fn fat_aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.leaves.get(id).map(|leaf| leaf.fat)
    }

    /// Every proxy as `(id, fat box, user data)`, in ascending id order.
    pub fn iter(&self) -> impl Iterator<Item = (ProxyId, &Aabb, &T)> + '_ {
        self.leaves.iter().map(|(id, leaf)| (id, &self.node(leaf.node).aabb, &leaf.data))
    }

    /// The root's box (the union of every fat box); `None` when empty.
    pub fn root_aabb(&self) -> Option<Aabb> {
        self.has_root.then(|| self.node(tree::ROOT).aabb)
    }

    /// Heap bytes held by the tree: node slots and the slot map (entries, generations, free links).
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * core::mem::size_of::<NodePair>() + self.leaves.heap_bytes() + self.scratch.heap_bytes()
    }

    /// [`memory_bytes`](Self::memory_bytes) per live proxy (0 when empty).
    /// About 2 nodes of 32 bytes plus a slot-map entry and a generation per
    /// proxy, and about 60 bytes more once [`rebuild`](Self::rebuild) has run
    /// (its buffers are kept).
    pub fn bytes_per_proxy(&self) -> f64 {
        match self.leaves.len() {
            0 => 0.0,
            n => self.memory_bytes() as f64 / n as f64,
        }
    }
}

impl<T> BroadPhase for DynamicTree<T> {
    type Id = ProxyId;

    fn len(&self) -> usize {
        self.leaves.len()
    }

    fn visit_overlaps<F>(&self, aabb: &Aabb, visitor: F) -> ControlFlow<()>
    where
        F: FnMut(ProxyId) -> ControlFlow<()>,
    {
        self.visit_overlaps_impl(aabb, visitor)
    }

    fn visit_ray<F>(&self, ray: &Ray, visitor: F)
    where
        F: FnMut(ProxyId, Real) -> RayControl,
    {
        self.visit_ray_impl(ray, visitor)
    }

    fn pairs_into(&self, out: &mut Vec<(ProxyId, ProxyId)>) {
        self.self_pairs_into(out)
    }

    fn validate(&self) -> Result<TreeStats, ValidationError> {
        self.validate_impl()
    }
}
