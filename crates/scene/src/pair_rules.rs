//! What the contact pipeline does with a candidate pair beyond its groups:
//! the user's hooks, the touching rule, and sensor events.

use proxima_narrowphase::ContactManifold;

use std::sync::{Mutex, OnceLock, PoisonError};

use crate::collider::{Collider, ColliderHandle};
use crate::pipeline::ContactPair;

/// The user's say over the contact pipeline's pairs (rapier's
/// `PhysicsHooks`, Box2D's custom filter and pre-solve callbacks), passed to
/// [`ContactPipeline::update_with_hooks`](crate::ContactPipeline::update_with_hooks).
/// Both methods are called with `a < b`, from the pipeline's threads in
/// [`update_parallel_with_hooks`](crate::ContactPipeline::update_parallel_with_hooks)
/// (hence `Sync`); the default methods keep everything.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// use proxima::narrowphase::{ContactManifold, Isometry, Vector};
/// /// A one-way platform (user data 1): bodies pass through it from below.
/// struct OneWay;
/// impl PairHooks for OneWay {
///     fn modify_manifold(&self, a: (ColliderHandle, &Collider), b: (ColliderHandle, &Collider), m: &mut ContactManifold) -> bool {
///         // The normal points from a to b: keep the contact only when the
///         // other body is above the platform.
///         let up = if a.1.user_data() == 1 { m.normal.y } else if b.1.user_data() == 1 { -m.normal.y } else { 1.0 };
///         up > 0.5
///     }
/// }
/// let mut scene = Scene::new();
/// let slab = ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.1, 5.0) };
/// scene.insert(ColliderDesc::new(slab, Isometry::identity()).fixed().with_user_data(1)).unwrap();
/// let ball = |y| ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(0.0, y, 0.0));
/// let above = scene.insert(ball(0.55)).unwrap();
/// let below = scene.insert(ball(-0.55)).unwrap();
/// let mut pipeline = ContactPipeline::new().with_manifolds(0.02).unwrap();
/// pipeline.update_with_hooks(&mut scene, &OneWay);
/// let touching: Vec<_> = pipeline.contacts().iter().map(|p| p.b).collect();
/// assert_eq!(touching, [above]);
/// # let _ = below;
/// ```
pub trait PairHooks {
    /// Whether the candidate pair is tested at all (after the groups, the
    /// kinds, sensors and bodies: see [`Collider::pairs_with`]). A pair
    /// refused here has no contact, manifold or sensor event this frame.
    fn filter_pair(&self, a: (ColliderHandle, &Collider), b: (ColliderHandle, &Collider)) -> bool {
        let _ = (a, b);
        true
    }

    /// Edits a manifold of a pair (normal from `a` to `b`; points may be
    /// removed with [`ContactManifold::new`] on a subset, depths changed);
    /// returning `false` drops it. Called with manifolds on
    /// ([`ContactPipeline::with_manifolds`](crate::ContactPipeline::with_manifolds)),
    /// before the pair's touching is decided; not called for sensors.
    fn modify_manifold(
        &self,
        a: (ColliderHandle, &Collider),
        b: (ColliderHandle, &Collider),
        manifold: &mut ContactManifold,
    ) -> bool {
        let _ = (a, b, manifold);
        true
    }
}

/// No hooks: every pair is kept as found.
impl PairHooks for () {}

/// When a pair counts as touching, for [`ContactPipeline::contacts`] and its
/// events (see [`ContactPipeline::with_touch_rule`]).
///
/// [`ContactPipeline::contacts`]: crate::ContactPipeline::contacts
/// [`ContactPipeline::with_touch_rule`]: crate::ContactPipeline::with_touch_rule
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TouchRule {
    /// The shapes touch or overlap: depth `>= 0` (for manifolds: the
    /// deepest point's depth). A resting pair whose contact jitters across
    /// zero starts and stops often.
    #[default]
    Penetrating,
    /// With manifolds on: the pair has a manifold point, speculative ones
    /// included (the shapes are within the prediction distance); its
    /// `Contact` is the deepest point, whose depth may be negative. The
    /// prediction acts as the hysteresis of the events (Box2D's rule).
    /// Without manifolds it is [`TouchRule::Penetrating`].
    Manifold,
}

/// A change in which colliders overlap a sensor (`a < b`, one of them the
/// sensor; [`Collider::is_sensor`] tells which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SensorEvent {
    /// The pair overlaps this frame and did not last frame.
    Entered {
        /// The lower handle.
        a: ColliderHandle,
        /// The higher handle.
        b: ColliderHandle,
    },
    /// The pair overlapped last frame and does not now (or one was removed).
    Exited {
        /// The lower handle.
        a: ColliderHandle,
        /// The higher handle.
        b: ColliderHandle,
    },
}

/// Merges two sorted, unique pair lists into the events that turn `old` into
/// the new list (`new_len` pairs, the `j`-th being `new(j)`), appended to
/// `out` in `(a, b)` order.
pub(crate) fn diff_pairs<T>(
    old: &[(ColliderHandle, ColliderHandle)],
    new_len: usize,
    new: impl Fn(usize) -> (ColliderHandle, ColliderHandle),
    started: impl Fn(usize) -> T,
    stopped: impl Fn(ColliderHandle, ColliderHandle) -> T,
    out: &mut Vec<T>,
) {
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new_len {
        let n = (j < new_len).then(|| new(j));
        match (old.get(i), n) {
            (Some(&o), Some(n)) if o == n => {
                i += 1;
                j += 1;
            }
            (Some(&o), Some(n)) if o < n => {
                out.push(stopped(o.0, o.1));
                i += 1;
            }
            (Some(&o), None) => {
                out.push(stopped(o.0, o.1));
                i += 1;
            }
            _ => {
                out.push(started(j));
                j += 1;
            }
        }
    }
}

/// The contact pairs of each collider slot as the pair's second collider,
/// built from the sorted pair list (a counting sort by slot):
/// `entries[offsets[s] .. offsets[s + 1]]` are the positions in the list of
/// the pairs whose second collider has slot `s`. (A slot's pairs as first
/// collider are a run of the sorted list, found by binary search.)
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactIndex {
    offsets: Vec<u32>,
    entries: Vec<u32>,
    /// The fill's write positions (kept: a frame allocates nothing once the
    /// lists have grown).
    cursor: Vec<u32>,
}

/// A [`ContactIndex`] built on the first look of a frame, so a frame whose
/// contacts nobody looks up by collider pays nothing for it.
///
/// The index is built behind `&self` (a `OnceLock`, so the pipeline stays
/// `Sync`); the buffers of the last index wait in `spare` for the next
/// build, so a frame that builds it allocates nothing once they have grown.
/// A clone or a restored snapshot builds its own on its first look.
#[derive(Debug, Default)]
pub(crate) struct LazyContactIndex {
    built: OnceLock<ContactIndex>,
    spare: Mutex<ContactIndex>,
}

impl Clone for LazyContactIndex {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl LazyContactIndex {
    /// Forgets the index (the contact list is about to change), keeping its
    /// buffers for the next build.
    pub(crate) fn invalidate(&mut self) {
        if let Some(index) = self.built.take() {
            *self.spare.get_mut().unwrap_or_else(PoisonError::into_inner) = index;
        }
    }

    /// The index of `contacts` (the list as it stands since the last
    /// [`invalidate`](Self::invalidate)), built on the first call.
    pub(crate) fn get(&self, contacts: &[ContactPair]) -> &ContactIndex {
        self.built.get_or_init(|| {
            let mut index = std::mem::take(&mut *self.spare.lock().unwrap_or_else(PoisonError::into_inner));
            let slots = contacts.iter().map(|p| p.b.index as usize + 1).max().unwrap_or(0);
            index.build(contacts.iter().map(|p| p.b.index), slots);
            index
        })
    }
}

impl ContactIndex {
    /// Indexes the pairs whose second colliders' slots are `seconds`, in list
    /// order (all below `slots`).
    pub(crate) fn build(&mut self, seconds: impl Iterator<Item = u32> + Clone, slots: usize) {
        self.offsets.clear();
        self.offsets.resize(slots + 1, 0);
        for s in seconds.clone() {
            self.offsets[s as usize + 1] += 1;
        }
        for s in 0..slots {
            self.offsets[s + 1] += self.offsets[s];
        }
        self.entries.clear();
        self.entries.resize(self.offsets[slots] as usize, 0);
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.offsets[..slots]);
        for (k, s) in seconds.enumerate() {
            let s = s as usize;
            self.entries[self.cursor[s] as usize] = k as u32;
            self.cursor[s] += 1;
        }
    }

    /// The positions of the pairs whose second collider has slot `slot`, in
    /// list order.
    pub(crate) fn of(&self, slot: u32) -> &[u32] {
        let s = slot as usize;
        if s + 1 >= self.offsets.len() {
            return &[];
        }
        &self.entries[self.offsets[s] as usize..self.offsets[s + 1] as usize]
    }
}
