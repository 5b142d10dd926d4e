//! A broadphase-only pipeline: the candidate pairs and their events, for an
//! engine that runs its own exact tests.

use proxima_narrowphase::Real;

use super::narrow::candidate_keys;
use super::{CandidateEvent, ContactPipeline};
use crate::collider::ColliderHandle;
use crate::error::SceneError;
use crate::pair_rules::diff_pairs;
use crate::scene::Scene;

impl ContactPipeline {
    /// The pipeline finding candidate pairs only, for an engine with its own
    /// exact tests: each update lists the pairs of colliders whose boxes are
    /// within `distance` of each other
    /// ([`candidate_pairs`](Self::candidate_pairs)) and what changed since
    /// the last update ([`candidate_events`](Self::candidate_events)), by
    /// the pair search the pipeline chooses (see [`PairSearch`](crate::PairSearch)),
    /// and runs no exact test: [`contacts`](Self::contacts),
    /// [`manifolds`](Self::manifolds), [`events`](Self::events) and the
    /// sensor lists are empty from this call on (no `Stopped` event for the
    /// contacts of a pipeline switched to this mode), and
    /// [`PairHooks`](crate::PairHooks) are not asked. CCD colliders are
    /// still swept. In [`stats`](Self::stats), `narrowphase` is the time to
    /// list the candidates and their events, and `candidate_pairs` counts
    /// them before the `pairs_with` filter below.
    ///
    /// A pair is listed when the two colliders pair
    /// ([`Collider::pairs_with`](crate::Collider::pairs_with): one of them
    /// dynamic, not two sensors, not one body), their groups interact, and
    /// their world boxes, each grown by `distance / 2`
    /// plus `1e-5` of the sum of its corners' coordinate magnitudes on each
    /// axis (the slack that keeps every touching pair despite the boxes'
    /// rounding), overlap. The list is the same whichever search runs.
    /// On a pipeline already updated, the next update reads every collider
    /// again; [`with_manifolds`](Self::with_manifolds) turns the exact tests
    /// back on.
    ///
    /// # Errors
    /// [`SceneError::InvalidPrediction`] for a negative, NaN or infinite
    /// `distance`.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let a = scene.insert(ball(0.0)).unwrap();
    /// let b = scene.insert(ball(2.05)).unwrap();
    /// let mut pipeline = ContactPipeline::new().with_broadphase_only(0.1).unwrap();
    /// pipeline.update(&mut scene);
    /// // 0.05 apart: a candidate, though the balls do not touch.
    /// assert_eq!(pipeline.candidate_pairs(), &[(a, b)]);
    /// assert_eq!(pipeline.candidate_events(), &[CandidateEvent::Started { a, b }]);
    /// assert!(pipeline.contacts().is_empty());
    /// scene.set_pose(b, Isometry::translation(5.0, 0.0, 0.0)).unwrap();
    /// pipeline.update(&mut scene);
    /// assert!(pipeline.candidate_pairs().is_empty());
    /// assert_eq!(pipeline.candidate_events(), &[CandidateEvent::Stopped { a, b }]);
    /// assert!(ContactPipeline::new().with_broadphase_only(Real::NAN).is_err());
    /// # use proxima::narrowphase::Real;
    /// ```
    pub fn with_broadphase_only(self, distance: Real) -> Result<Self, SceneError> {
        if !(distance.is_finite() && distance >= 0.0) {
            return Err(SceneError::InvalidPrediction);
        }
        let mut pipeline = Self { broadphase_only: Some(distance), prediction: None, ..self };
        // The mirrored boxes carry half the old distance or prediction.
        pipeline.log_stamp = None;
        pipeline.kept.clear();
        // The exact tests' lists go: none of them is reported again, and no
        // `Stopped` or `Exited` event is made from them.
        pipeline.contacts.clear();
        pipeline.manifolds.clear();
        pipeline.previous.clear();
        pipeline.events.clear();
        pipeline.sensor_pairs.clear();
        pipeline.previous_sensor_pairs.clear();
        pipeline.sensor_events.clear();
        pipeline.contact_index.invalidate();
        Ok(pipeline)
    }

    /// The distance of [`with_broadphase_only`](Self::with_broadphase_only),
    /// `None` for a pipeline that runs exact tests.
    pub fn broadphase_only(&self) -> Option<Real> {
        self.broadphase_only
    }

    /// A broadphase-only pipeline's candidate pairs at its last update
    /// (`a < b`, sorted; see [`with_broadphase_only`](Self::with_broadphase_only));
    /// empty for a pipeline that runs exact tests, which reads its
    /// candidates in place.
    pub fn candidate_pairs(&self) -> &[(ColliderHandle, ColliderHandle)] {
        &self.candidate_pairs
    }

    /// A broadphase-only pipeline's changes of candidate pairs at its last
    /// update, `Stopped` and `Started` merged in `(a, b)` order: the
    /// difference between the last two lists of
    /// [`candidate_pairs`](Self::candidate_pairs).
    pub fn candidate_events(&self) -> &[CandidateEvent] {
        &self.candidate_events
    }

    /// The half-width by which the mirror grows each box: half the
    /// prediction, or half a broadphase-only pipeline's distance.
    pub(super) fn box_growth(&self) -> Real {
        self.prediction.or(self.broadphase_only).unwrap_or(0.0) * 0.5
    }

    /// A broadphase-only frame's lists: this frame's candidates as handle
    /// pairs (slot order is handle order, so they stay sorted), last frame's
    /// kept for the events.
    pub(super) fn list_candidates(&mut self, scene: &Scene) {
        core::mem::swap(&mut self.previous_candidates, &mut self.candidate_pairs);
        self.candidate_pairs.clear();
        let keys = candidate_keys(self.running, &self.tracker, self.renamed, &self.candidates);
        let colliders = &scene.colliders;
        self.candidate_pairs.extend(
            keys.iter()
                .map(|&key| ((key >> 32) as u32, key as u32))
                .filter(|&(a, b)| colliders[a].pairs_with(&colliders[b]))
                .map(|(a, b)| (scene.handle_of(a), scene.handle_of(b))),
        );
        self.candidate_events.clear();
        let pairs = &self.candidate_pairs;
        diff_pairs(
            &self.previous_candidates,
            pairs.len(),
            |j| pairs[j],
            |j| CandidateEvent::Started { a: pairs[j].0, b: pairs[j].1 },
            |a, b| CandidateEvent::Stopped { a, b },
            &mut self.candidate_events,
        );
    }
}
