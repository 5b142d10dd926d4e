//! What a frame of the contact pipeline reports: contact pairs, manifolds,
//! events, CCD impacts and the frame's counts and times.

use std::time::Duration;

use proxima_narrowphase::{Contact, ContactManifold, SweepHit};

use crate::collider::ColliderHandle;

/// Two colliders in contact, `a < b`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ContactPair {
    /// The lower handle (shape A of the contact).
    pub a: ColliderHandle,
    /// The higher handle (shape B).
    pub b: ColliderHandle,
    /// Normal from `a` to `b`, depth, witness points.
    pub contact: Contact,
}

/// A contact manifold between two colliders, `a < b` (normal from `a` to `b`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifoldPair {
    /// The lower handle (shape A of the manifold).
    pub a: ColliderHandle,
    /// The higher handle (shape B).
    pub b: ColliderHandle,
    /// Up to four points with one normal; their ids persist from frame to
    /// frame while the same features touch.
    pub manifold: ContactManifold,
}

/// A change in contact state between two colliders (`a < b`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ContactEvent {
    /// The pair touches this frame and did not last frame.
    Started(ContactPair),
    /// The pair touched last frame and does not now (or one was removed).
    Stopped {
        /// The lower handle.
        a: ColliderHandle,
        /// The higher handle.
        b: ColliderHandle,
    },
}

/// A change in which colliders are candidate pairs of a broadphase-only
/// pipeline (`a < b`; see
/// [`ContactPipeline::with_broadphase_only`](crate::ContactPipeline::with_broadphase_only)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CandidateEvent {
    /// The pair's boxes are within the distance this frame and were not
    /// last frame.
    Started {
        /// The lower handle.
        a: ColliderHandle,
        /// The higher handle.
        b: ColliderHandle,
    },
    /// The pair's boxes were within the distance last frame and are not now
    /// (or one collider was removed, or their groups stopped interacting).
    Stopped {
        /// The lower handle.
        a: ColliderHandle,
        /// The higher handle.
        b: ColliderHandle,
    },
}

/// A CCD collider's earliest impact during its last motion.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CcdImpact {
    /// The collider flagged for continuous collision.
    pub collider: ColliderHandle,
    /// What it hit first.
    pub other: ColliderHandle,
    /// Time of impact in `[0, 1]` along the motion from its previous pose.
    pub hit: SweepHit,
    /// When `collider` is a compound, the index of its child that hit
    /// (into [`Compound::children`](crate::Compound::children)); `None` for a
    /// convex collider.
    #[cfg_attr(feature = "serde", serde(default))]
    pub collider_child: Option<u32>,
}

/// Per-frame counts and times. The durations are measured with the `timing`
/// feature (on by default) and are zero without it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FrameStats {
    /// Time spent finding candidate pairs in the trees.
    pub broadphase: Duration,
    /// Time spent in exact contact tests (for a broadphase-only pipeline,
    /// in listing the candidate pairs and their events).
    pub narrowphase: Duration,
    /// Time spent sweeping CCD colliders.
    pub ccd: Duration,
    /// Colliders the pipeline read from the scene: those inserted, removed,
    /// moved, reshaped or re-grouped since its last update (every collider
    /// at its first update, or when another pipeline updated from the same
    /// scene in between, or on a cloned or restored scene).
    pub colliders_read: usize,
    /// Candidate pairs (box overlaps that passed the group filter; the
    /// kinds, sensors and bodies are checked after this count).
    pub candidate_pairs: usize,
    /// Pairs in contact.
    pub contacts: usize,
    /// CCD impacts found.
    pub ccd_impacts: usize,
}
