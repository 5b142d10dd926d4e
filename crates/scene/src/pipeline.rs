//! The per-frame contact pipeline: broadphase pairs, exact contacts, events, CCD.
//!
//! `frame.rs` runs a frame: `mirror.rs` keeps the pair search in step with
//! the scene and finds the candidates (`chooser.rs` picks the search under
//! `PairSearch::Auto`; `candidates.rs` lists them for a broadphase-only
//! pipeline), `narrow.rs` runs their exact tests (`reuse.rs`
//! keeps manifolds across frames when asked to), `ccd.rs` sweeps the CCD
//! colliders; `output.rs` holds what a frame reports.

mod candidates;
mod ccd;
mod chooser;
mod frame;
mod mirror;
mod narrow;
mod notes;
mod output;
mod reuse;
mod stamp;

pub use output::{CandidateEvent, CcdImpact, ContactEvent, ContactPair, FrameStats, ManifoldPair};
pub use reuse::ManifoldReuse;

use chooser::SearchChooser;
use narrow::candidate_keys;
#[cfg(feature = "parallel")]
use narrow::NarrowSlice;

use proxima_broadphase::{FatBoxOptions, PairTracker, ProxyId};
use proxima_narrowphase::{ContactManifold, Real};

use crate::change_log::RemovedCollider;
use crate::collider::ColliderHandle;
use crate::error::SceneError;
use crate::grid_search::{GridSearch, PairSearch};
use crate::pair_rules::{LazyContactIndex, SensorEvent, TouchRule};
use crate::trimesh::MeshScratch;

/// Turns a scene's state each frame into contacts and contact events.
///
/// Call [`ContactPipeline::update`] once per frame after moving colliders with
/// `Scene::set_pose` (or `update_parallel`, with the `parallel` feature, to
/// spread the pair search and the exact tests over a rayon pool). Two pair
/// searches find the candidates, with the same result: a [`PairTracker`]
/// ([`PairSearch::Tracker`]) keeps the candidate pairs across frames and
/// mirrors the scene's colliders (fat boxes with the default
/// [`FatBoxOptions`]: margin 0.1, stretched by four times the last
/// displacement): each frame it reads only the colliders inserted, removed,
/// moved, reshaped or re-grouped since its last update (the scene logs them;
/// a collider nobody touched costs nothing), a moved one costs one
/// containment test, and only those that left their fat box query for new
/// pairs; static-static pairs are never formed. The grid
/// ([`PairSearch::Grid`]) mirrors the colliders' boxes the same way and
/// finds every candidate pair again each frame (for piles whose bodies all
/// move). By default ([`PairSearch::Auto`]) the pipeline measures both on
/// the world it runs and keeps the cheaper; [`with_pair_search`](Self::with_pair_search)
/// fixes one. Two pipelines updating from one scene in turn each read every
/// collider (the log is taken by one).
/// Each candidate whose tight boxes touch gets the exact contact test.
/// Output lists are sorted by `(a, b)`, so events come in a deterministic
/// order. Buffers are reused: frames without insertions, removals or tree
/// rebuilds do not allocate.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ContactPipeline {
    /// How the candidate pairs are found (a snapshot without it restores
    /// the default).
    #[cfg_attr(feature = "serde", serde(default))]
    search: PairSearch,
    /// The search the last frame ran: `search`, or the chooser's pick
    /// under [`PairSearch::Auto`].
    #[cfg_attr(feature = "serde", serde(default))]
    running: PairSearch,
    /// [`PairSearch::Auto`]'s measurements (a snapshot starts them again).
    #[cfg_attr(feature = "serde", serde(skip))]
    chooser: SearchChooser,
    /// With [`PairSearch::Grid`]: the colliders' boxes, searched each frame.
    #[cfg_attr(feature = "serde", serde(skip))]
    grid: GridSearch,
    /// With [`PairSearch::Tracker`]: the persistent candidate pairs; a
    /// proxy's data is its collider's slot.
    tracker: PairTracker<u32>,
    /// Per collider slot: the generation, proxy and groups it was mirrored with.
    proxy_of: Vec<Option<(u32, ProxyId, proxima_broadphase::CollisionGroups)>>,
    /// Per proxy slot: the collider's slot.
    slot_of_proxy: Vec<u32>,
    /// The live proxies whose index is not their collider's slot. At 0 the
    /// tracker's exact pairs are the candidates as they stand. Kept by the
    /// mirror as it inserts and removes, and counted again from `proxy_of`
    /// whenever it reads every slot (so a restored pipeline, whose log stamp
    /// is not saved, never trusts a count it did not make).
    #[cfg_attr(feature = "serde", serde(skip))]
    renamed: usize,
    /// The candidates as pair keys (`(a << 32) | b`, slots `a < b`, sorted)
    /// with the grid search, or when some proxy is renamed; empty otherwise.
    candidates: Vec<u64>,
    contacts: Vec<ContactPair>,
    /// `Some(prediction)` when the pipeline computes manifolds.
    prediction: Option<Real>,
    /// `Some(distance)` for a broadphase-only pipeline: no exact tests; the
    /// candidates are listed as handle pairs, with their events.
    #[cfg_attr(feature = "serde", serde(default))]
    broadphase_only: Option<Real>,
    /// A broadphase-only pipeline's candidates, this frame's and last
    /// frame's, sorted, and the difference as events.
    #[cfg_attr(feature = "serde", serde(default))]
    candidate_pairs: Vec<(ColliderHandle, ColliderHandle)>,
    #[cfg_attr(feature = "serde", serde(skip))]
    previous_candidates: Vec<(ColliderHandle, ColliderHandle)>,
    #[cfg_attr(feature = "serde", serde(default))]
    candidate_events: Vec<CandidateEvent>,
    manifolds: Vec<ManifoldPair>,
    manifold_scratch: Vec<ContactManifold>,
    /// The tolerance within which a pair's manifold is reused (`None`: every
    /// manifold is computed each frame).
    #[cfg_attr(feature = "serde", serde(default))]
    reuse: Option<ManifoldReuse>,
    /// The manifolds kept for reuse, by pair key, and the list the next
    /// frame fills; emptied in another scene, after a shape change, and when
    /// the prediction or the tolerance is set.
    #[cfg_attr(feature = "serde", serde(skip))]
    kept: reuse::KeptLists,
    #[cfg_attr(feature = "serde", serde(skip))]
    kept_next: reuse::KeptLists,
    /// The scene (its change log's id) and its count of shape changes when
    /// the kept list was made.
    #[cfg_attr(feature = "serde", serde(skip))]
    kept_for: (u64, u64),
    /// The separating axes noted for box pairs by last frame's exact tests,
    /// by pair key, and the list this frame fills (hints only: see `notes.rs`).
    #[cfg_attr(feature = "serde", serde(skip))]
    notes: Vec<notes::Note>,
    #[cfg_attr(feature = "serde", serde(skip))]
    notes_next: Vec<notes::Note>,
    /// The mesh manifolds' working lists, kept across frames.
    #[cfg_attr(feature = "serde", serde(skip))]
    mesh_scratch: MeshScratch,
    /// The parallel update's slices of the exact tests.
    #[cfg(feature = "parallel")]
    #[cfg_attr(feature = "serde", serde(skip))]
    narrow_slices: Vec<NarrowSlice>,
    previous: Vec<(ColliderHandle, ColliderHandle)>,
    events: Vec<ContactEvent>,
    /// The pairs overlapping a sensor this frame and last frame, sorted,
    /// and the difference as events.
    sensor_pairs: Vec<(ColliderHandle, ColliderHandle)>,
    previous_sensor_pairs: Vec<(ColliderHandle, ColliderHandle)>,
    sensor_events: Vec<SensorEvent>,
    /// When a pair counts as touching.
    #[cfg_attr(feature = "serde", serde(default))]
    touch: TouchRule,
    /// The colliders removed since the previous update.
    #[cfg_attr(feature = "serde", serde(skip))]
    removed: Vec<RemovedCollider>,
    /// This frame's contacts by collider slot, built on the first
    /// [`contacts_of`](Self::contacts_of) of a frame.
    #[cfg_attr(feature = "serde", serde(skip))]
    contact_index: LazyContactIndex,
    ccd: Vec<CcdImpact>,
    stats: FrameStats,
    /// The stamp of the scene's change log when this pipeline last took it
    /// (`None`: read every collider at the next update).
    #[cfg_attr(feature = "serde", serde(skip))]
    log_stamp: Option<(u64, u64)>,
    /// Frames since the tracker last ran (0: it ran the last frame): a
    /// full read after grid frames stretches each fat box by the box's mean
    /// move per frame over them.
    #[cfg_attr(feature = "serde", serde(skip))]
    tracker_frames_away: u32,
    /// The collider slots this frame read: the logged ones, or all.
    #[cfg_attr(feature = "serde", serde(skip))]
    touched: Vec<u32>,
    /// The CCD colliders among `touched`, found by the mirror's pass over
    /// them: the only colliders the CCD pass reads.
    #[cfg_attr(feature = "serde", serde(skip))]
    ccd_touched: Vec<u32>,
}

// The pipeline crosses threads and is read from several at once (its lazy
// per-collider index included).
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ContactPipeline>();
};

impl Default for ContactPipeline {
    fn default() -> Self {
        Self::new()
    }
}

impl ContactPipeline {
    /// An empty pipeline.
    pub fn new() -> Self {
        Self {
            search: PairSearch::Auto,
            running: PairSearch::Tracker,
            chooser: SearchChooser::default(),
            grid: GridSearch::default(),
            // The tree's defaults: margin 0.1, and a fat box stretched by
            // four times the last displacement, so a body in steady motion
            // (a falling pile) stays inside it for about four frames rather
            // than one (docs/decisions/0009-fat-box-prediction-four.md; the
            // narrowphase's candidates are the tight pairs either way).
            tracker: PairTracker::new_with(FatBoxOptions::default()).expect("valid options"),
            proxy_of: Vec::new(),
            slot_of_proxy: Vec::new(),
            renamed: 0,
            candidates: Vec::new(),
            contacts: Vec::new(),
            prediction: None,
            broadphase_only: None,
            candidate_pairs: Vec::new(),
            previous_candidates: Vec::new(),
            candidate_events: Vec::new(),
            manifolds: Vec::new(),
            manifold_scratch: Vec::new(),
            reuse: None,
            kept: reuse::KeptLists::default(),
            kept_next: reuse::KeptLists::default(),
            kept_for: (0, 0),
            notes: Vec::new(),
            notes_next: Vec::new(),
            mesh_scratch: MeshScratch::default(),
            #[cfg(feature = "parallel")]
            narrow_slices: Vec::new(),
            previous: Vec::new(),
            events: Vec::new(),
            sensor_pairs: Vec::new(),
            previous_sensor_pairs: Vec::new(),
            sensor_events: Vec::new(),
            touch: TouchRule::Penetrating,
            removed: Vec::new(),
            contact_index: LazyContactIndex::default(),
            ccd: Vec::new(),
            stats: FrameStats::default(),
            log_stamp: None,
            tracker_frames_away: 0,
            touched: Vec::new(),
            ccd_touched: Vec::new(),
        }
    }

    /// The pipeline computing contact manifolds too (for a solver): every
    /// candidate pair at most `prediction` apart gets its manifolds
    /// ([`contact_manifolds`](crate::contact_manifolds)), listed by
    /// [`ContactPipeline::manifolds`]; points of pairs that do not touch
    /// yet have negative depth (speculative contacts). A pair is in contact
    /// (in [`ContactPipeline::contacts`] and the events) when its deepest
    /// manifold point has `depth >= 0`, and its `Contact` is that point; a
    /// pair of convex shapes then touches exactly as [`contact`](crate::contact) says.
    ///
    /// On a pipeline already updated, the next update reads every collider
    /// again (the boxes it pairs carry half the prediction). A
    /// broadphase-only pipeline ([`with_broadphase_only`](Self::with_broadphase_only))
    /// runs its exact tests again.
    ///
    /// # Errors
    /// [`SceneError::InvalidPrediction`] for a negative, NaN or infinite
    /// `prediction`.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Vector};
    /// let mut scene = Scene::new();
    /// let floor = ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.5, 5.0) };
    /// scene.insert(ColliderDesc::new(floor, Isometry::identity()).fixed()).unwrap();
    /// let cube = ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) };
    /// // 0.01 above the floor: not touching, but within the prediction.
    /// scene.insert(ColliderDesc::new(cube, Isometry::translation(0.0, 1.01, 0.0))).unwrap();
    /// let mut pipeline = ContactPipeline::new().with_manifolds(0.05).unwrap();
    /// pipeline.update(&mut scene);
    /// assert!(pipeline.contacts().is_empty());
    /// let [pair] = pipeline.manifolds() else { panic!("one manifold") };
    /// assert_eq!(pair.manifold.len(), 4);
    /// assert!(pair.manifold.points().iter().all(|p| (p.depth + 0.01).abs() < 1e-5));
    /// assert!(ContactPipeline::new().with_manifolds(-1.0).is_err());
    /// ```
    pub fn with_manifolds(self, prediction: Real) -> Result<Self, SceneError> {
        if !(prediction.is_finite() && prediction >= 0.0) {
            return Err(SceneError::InvalidPrediction);
        }
        let mut pipeline = Self { prediction: Some(prediction), broadphase_only: None, ..self };
        // The mirrored boxes carry half the old prediction as slack, and kept
        // manifolds were computed with it: the next update reads every
        // collider again and computes every manifold.
        pipeline.log_stamp = None;
        pipeline.kept.clear();
        pipeline.candidate_pairs.clear();
        pipeline.candidate_events.clear();
        Ok(pipeline)
    }

    /// The pipeline reusing a pair's manifold from an earlier frame while
    /// the pair's relative pose stays within `reuse` of the pose it was
    /// computed at (not exact: see [`ManifoldReuse`] for what changes and
    /// by how much), as Jolt does by default. A resting pile then computes
    /// few manifolds a frame. Only with manifolds
    /// ([`with_manifolds`](Self::with_manifolds)); the contacts and events
    /// follow the manifolds handed out. Off by default.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Vector};
    /// let mut scene = Scene::new();
    /// let floor = ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.5, 5.0) };
    /// scene.insert(ColliderDesc::new(floor, Isometry::identity()).fixed()).unwrap();
    /// let cube = ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) };
    /// let h = scene.insert(ColliderDesc::new(cube, Isometry::translation(0.0, 0.99, 0.0))).unwrap();
    /// let reuse = ManifoldReuse::new(1e-3, 2f32.to_radians()).unwrap();
    /// let mut pipeline = ContactPipeline::new().with_manifolds(0.02).unwrap().with_manifold_reuse(reuse);
    /// pipeline.update(&mut scene);
    /// // 0.1 mm lower: the kept manifold, its depths measured again.
    /// scene.set_pose(h, Isometry::translation(0.0, 0.9899, 0.0)).unwrap();
    /// pipeline.update(&mut scene);
    /// let [pair] = pipeline.manifolds() else { panic!("one manifold") };
    /// assert!(pair.manifold.points().iter().all(|p| (p.depth - 0.0101).abs() < 1e-5));
    /// ```
    pub fn with_manifold_reuse(mut self, reuse: ManifoldReuse) -> Self {
        self.reuse = Some(reuse);
        self.kept.clear();
        self
    }

    /// The manifold reuse tolerance, if any (see
    /// [`with_manifold_reuse`](Self::with_manifold_reuse)).
    pub fn manifold_reuse(&self) -> Option<ManifoldReuse> {
        self.reuse
    }

    /// The pipeline with its candidate pairs found by `search` (see
    /// [`PairSearch`]: the same contacts and events either way, at another
    /// cost per frame). On a pipeline already updated, the next update
    /// reads every collider.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let a = scene.insert(ball(0.0)).unwrap();
    /// let b = scene.insert(ball(1.5)).unwrap();
    /// // A pile whose bodies all move every frame: find every pair again.
    /// let mut pipeline = ContactPipeline::new().with_pair_search(PairSearch::Grid);
    /// assert!(matches!(pipeline.update(&mut scene), [ContactEvent::Started(p)] if (p.a, p.b) == (a, b)));
    /// assert_eq!(pipeline.pair_search(), PairSearch::Grid);
    /// ```
    pub fn with_pair_search(mut self, search: PairSearch) -> Self {
        self.search = search;
        self.chooser = SearchChooser::default();
        self.log_stamp = None;
        self
    }

    /// [`PairSearch::Auto`] on a fixed schedule instead of the clock: the
    /// tracker and the grid alternate every `frames` frames. For tests that
    /// cross the switch both ways; not a tuning knob.
    #[doc(hidden)]
    pub fn with_alternating_search(mut self, frames: u32) -> Self {
        self.search = PairSearch::Auto;
        self.chooser = SearchChooser::alternating(frames);
        self.log_stamp = None;
        self
    }

    /// How the candidate pairs are found: the setting (see
    /// [`with_pair_search`](Self::with_pair_search)).
    pub fn pair_search(&self) -> PairSearch {
        self.search
    }

    /// The search the last update ran: [`PairSearch::Tracker`] or
    /// [`PairSearch::Grid`] (under [`PairSearch::Auto`], the one it chose).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// let mut scene = Scene::new();
    /// let mut pipeline = ContactPipeline::new();
    /// assert_eq!(pipeline.pair_search(), PairSearch::Auto);
    /// pipeline.update(&mut scene);
    /// assert!(matches!(pipeline.running_pair_search(), PairSearch::Tracker | PairSearch::Grid));
    /// ```
    pub fn running_pair_search(&self) -> PairSearch {
        self.running
    }

    /// The pairs in contact this frame, sorted by `(a, b)`.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Vector};
    /// let mut scene = Scene::new();
    /// let ground = ColliderShape::Cuboid { half_extents: Vector::new(10.0, 0.5, 10.0) };
    /// let g = scene.insert(ColliderDesc::new(ground, Isometry::identity()).fixed()).unwrap();
    /// // A ball sunk 0.1 into the ground's top face (y = 0.5).
    /// let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(0.0, 1.4, 0.0));
    /// let b = scene.insert(ball).unwrap();
    /// let mut pipeline = ContactPipeline::new();
    /// pipeline.update(&mut scene);
    /// let [pair] = pipeline.contacts() else { panic!("one contact") };
    /// assert_eq!((pair.a, pair.b), (g, b));
    /// assert!((pair.contact.depth - 0.1).abs() < 1e-5);
    /// assert_eq!(pair.contact.normal.into_inner(), Vector::y()); // from the ground to the ball
    /// ```
    pub fn contacts(&self) -> &[ContactPair] {
        &self.contacts
    }

    /// This frame's contact manifolds, sorted by `(a, b)` (a pair with a
    /// mesh may have several); empty unless the pipeline was made by
    /// [`ContactPipeline::with_manifolds`].
    pub fn manifolds(&self) -> &[ManifoldPair] {
        &self.manifolds
    }

    /// The prediction distance of [`ContactPipeline::with_manifolds`], `None`
    /// for a pipeline without manifolds.
    pub fn prediction(&self) -> Option<Real> {
        self.prediction
    }

    /// This frame's events: `Stopped` and `Started` merged in `(a, b)` order.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let a = scene.insert(ball(0.0)).unwrap();
    /// let b = scene.insert(ball(1.0)).unwrap();
    /// let mut pipeline = ContactPipeline::new();
    /// pipeline.update(&mut scene);
    /// assert_eq!(pipeline.events().len(), 1);
    /// pipeline.update(&mut scene); // still touching: no new event
    /// assert!(pipeline.events().is_empty());
    /// scene.set_pose(b, Isometry::translation(5.0, 0.0, 0.0)).unwrap();
    /// pipeline.update(&mut scene);
    /// assert_eq!(pipeline.events(), &[ContactEvent::Stopped { a, b }]);
    /// ```
    pub fn events(&self) -> &[ContactEvent] {
        &self.events
    }

    /// This frame's sensor events: `Exited` and `Entered` merged in `(a, b)`
    /// order. A pair with a sensor overlaps when the shapes touch (the exact
    /// test of [`contact`](crate::contact)); sensors get no contact and no manifold.
    pub fn sensor_events(&self) -> &[SensorEvent] {
        &self.sensor_events
    }

    /// The pairs overlapping a sensor this frame, sorted by `(a, b)`.
    pub fn sensor_pairs(&self) -> &[(ColliderHandle, ColliderHandle)] {
        &self.sensor_pairs
    }

    /// The colliders removed from the scene between the previous update and
    /// this one, sorted by handle, with their last user data: the
    /// `Stopped` and `Exited` events (and a broadphase-only pipeline's
    /// [`CandidateEvent::Stopped`]) that name a removed collider can be
    /// resolved here (`Scene::get` no longer knows it). Empty when another
    /// pipeline updated from the scene in between (it took the record).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x, id| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0)).with_user_data(id);
    /// let a = scene.insert(ball(0.0, 7)).unwrap();
    /// let b = scene.insert(ball(1.5, 8)).unwrap();
    /// let mut pipeline = ContactPipeline::new();
    /// pipeline.update(&mut scene);
    /// scene.remove(b).unwrap();
    /// assert_eq!(pipeline.update(&mut scene), &[ContactEvent::Stopped { a, b }]);
    /// assert!(scene.get(b).is_none());
    /// assert_eq!(pipeline.removed_user_data(b), Some(8));
    /// # let _ = a;
    /// ```
    pub fn removed(&self) -> &[RemovedCollider] {
        &self.removed
    }

    /// The last user data of `handle` if it was removed since the previous
    /// update (see [`removed`](Self::removed)).
    pub fn removed_user_data(&self, handle: ColliderHandle) -> Option<u64> {
        self.removed.binary_search_by_key(&handle, |r| r.handle).ok().map(|k| self.removed[k].user_data)
    }

    /// This frame's contacts of one collider (as `a` or `b`), in `(a, b)`
    /// order, with no scan of the whole list (a character's ground check, a
    /// damage system): its pairs as `b` from an index of the frame's
    /// contacts by their `b` collider (built by the frame's first call, in
    /// time linear in the contacts; later calls look it up), then its pairs
    /// as `a`, a run of the sorted list found by binary search.
    /// Empty for a stale handle.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Vector};
    /// let mut scene = Scene::new();
    /// let ground = ColliderShape::Cuboid { half_extents: Vector::new(10.0, 0.5, 10.0) };
    /// let g = scene.insert(ColliderDesc::new(ground, Isometry::identity()).fixed()).unwrap();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(x, 0.9, 0.0));
    /// let (p, q) = (scene.insert(ball(0.0)).unwrap(), scene.insert(ball(5.0)).unwrap());
    /// let mut pipeline = ContactPipeline::new();
    /// pipeline.update(&mut scene);
    /// assert_eq!(pipeline.contacts_of(g).count(), 2);
    /// let on_ground = pipeline.contacts_of(p).any(|c| c.a == g && c.contact.normal.y > 0.7);
    /// assert!(on_ground);
    /// # let _ = q;
    /// ```
    pub fn contacts_of(&self, handle: ColliderHandle) -> impl Iterator<Item = &ContactPair> + '_ {
        // A pair with the collider as `b` has a lower slot as `a`: it comes
        // before every pair with the collider as `a`.
        let slot = handle.index;
        let first = self.contacts.partition_point(|p| p.a.index < slot);
        let as_a = first..first + self.contacts[first..].partition_point(|p| p.a.index == slot);
        self.contact_index
            .get(&self.contacts)
            .of(slot)
            .iter()
            .map(|&k| &self.contacts[k as usize])
            .chain(&self.contacts[as_a])
            .filter(move |p| p.a == handle || p.b == handle)
    }

    /// The pipeline with the rule that decides when a pair touches (see
    /// [`TouchRule`]; the default is [`TouchRule::Penetrating`]).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(x, 0.0, 0.0));
    /// scene.insert(ball(0.0)).unwrap();
    /// scene.insert(ball(1.01)).unwrap(); // 0.01 apart
    /// let mut strict = ContactPipeline::new().with_manifolds(0.02).unwrap();
    /// assert!(strict.update(&mut scene).is_empty());
    /// let mut speculative = ContactPipeline::new().with_manifolds(0.02).unwrap().with_touch_rule(TouchRule::Manifold);
    /// assert_eq!(speculative.update(&mut scene).len(), 1);
    /// assert!((speculative.contacts()[0].contact.depth + 0.01).abs() < 1e-5);
    /// ```
    pub fn with_touch_rule(mut self, touch: TouchRule) -> Self {
        self.touch = touch;
        self
    }

    /// The rule that decides when a pair touches.
    pub fn touch_rule(&self) -> TouchRule {
        self.touch
    }

    /// This frame's CCD impacts, sorted by collider.
    pub fn ccd_impacts(&self) -> &[CcdImpact] {
        &self.ccd
    }

    /// This frame's counts and times.
    pub fn stats(&self) -> &FrameStats {
        &self.stats
    }

    /// The candidates of the last update (see [`candidate_keys`]).
    fn candidate_keys(&self) -> &[u64] {
        candidate_keys(self.running, &self.tracker, self.renamed, &self.candidates)
    }
}
