//! One frame of the pipeline: the candidates, their exact tests, the
//! events and the CCD sweeps, on one thread or on a rayon pool.

use super::narrow::{candidate_keys, narrow, NarrowOut, Rules};
#[cfg(feature = "parallel")]
use super::narrow::{gather, NarrowSlice, NARROW_SLICE};
use super::stamp::Stamp;
use super::{ContactEvent, ContactPipeline, FrameStats};
use crate::pair_rules::{diff_pairs, PairHooks, SensorEvent};
use crate::scene::Scene;

impl ContactPipeline {
    /// Runs one frame and returns its contact events. CCD colliders are swept
    /// from their previous pose to their current one; afterwards every CCD
    /// collider's previous pose is set to its current pose.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let a = scene.insert(ball(0.0)).unwrap();
    /// let b = scene.insert(ball(3.0)).unwrap();
    /// let mut pipeline = ContactPipeline::new();
    /// assert!(pipeline.update(&mut scene).is_empty());
    /// scene.set_pose(b, Isometry::translation(1.5, 0.0, 0.0)).unwrap();
    /// assert!(matches!(pipeline.update(&mut scene), [ContactEvent::Started(p)] if (p.a, p.b) == (a, b)));
    /// scene.remove(b).unwrap();
    /// assert_eq!(pipeline.update(&mut scene), &[ContactEvent::Stopped { a, b }]);
    /// ```
    pub fn update(&mut self, scene: &mut Scene) -> &[ContactEvent] {
        self.update_with_hooks(scene, &())
    }

    /// [`update`](Self::update) with the user's [`PairHooks`]: a filter of
    /// the candidate pairs and an editor of their manifolds (one-way
    /// platforms, pairs switched off by game logic).
    pub fn update_with_hooks(&mut self, scene: &mut Scene, hooks: &impl PairHooks) -> &[ContactEvent] {
        let t0 = Stamp::now();
        scene.prepare();
        self.find_candidates(scene);
        let t1 = Stamp::now();
        self.start_frame();
        if self.broadphase_only.is_some() {
            self.list_candidates(scene);
            return self.close(scene, t0, t1);
        }
        self.kept_next.clear();
        self.notes_next.clear();
        let out = NarrowOut {
            contacts: &mut self.contacts,
            manifolds: &mut self.manifolds,
            sensors: &mut self.sensor_pairs,
            manifold_scratch: &mut self.manifold_scratch,
            kept: &mut self.kept_next,
            notes: &mut self.notes_next,
            mesh_scratch: &mut self.mesh_scratch,
        };
        let reuse = self.reuse.filter(|_| self.prediction.is_some()).map(|r| (r.check(), &self.kept));
        let rules = Rules { prediction: self.prediction, touch: self.touch, hooks, reuse, notes: &self.notes };
        narrow(scene, candidate_keys(self.running, &self.tracker, self.renamed, &self.candidates), &rules, out);
        core::mem::swap(&mut self.kept, &mut self.kept_next);
        core::mem::swap(&mut self.notes, &mut self.notes_next);
        self.close(scene, t0, t1)
    }

    /// [`update`](Self::update) with the pair search (the tracker's searches
    /// and merge, [`PairTracker::update_parallel`](proxima_broadphase::PairTracker::update_parallel), or the grid's search,
    /// `GridPairs::pairs_unsorted_into_parallel`) and the exact tests spread
    /// over the threads of the current rayon pool (run it inside
    /// [`ThreadPool::install`](rayon::ThreadPool::install) to choose the
    /// pool). The mirror of the scene, the events and the CCD sweeps stay on
    /// the calling thread. Same contacts, manifolds, events and impacts, in
    /// the same order, for any number of threads: the candidates are cut
    /// into fixed slices whose results are appended in order. Its buffers
    /// are kept, but rayon's scheduler may allocate now and then, so only
    /// [`update`](Self::update) is strictly allocation-free.
    ///
    /// Build the pool with
    /// [`use_current_thread`](rayon::ThreadPoolBuilder::use_current_thread)
    /// and call from the thread that built it: the calling thread then works
    /// as one of the pool's threads (for the thread's life: it can join no
    /// other such pool, and its rayon calls outside any `install` run on
    /// this pool too). With a pool of separate threads the
    /// caller only waits, and pool threads that slept through the rest of
    /// the frame (the solver, the poses) can wake too late to share the
    /// work, most of all when the pool has as many threads as the machine
    /// has cores (`BENCHMARKS.md` gives the figures).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let a = scene.insert(ball(0.0)).unwrap();
    /// let b = scene.insert(ball(1.5)).unwrap();
    /// // The calling thread is one of the two.
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).use_current_thread().build().unwrap();
    /// let mut pipeline = ContactPipeline::new();
    /// let events = pool.install(|| pipeline.update_parallel(&mut scene).to_vec());
    /// assert!(matches!(events[..], [ContactEvent::Started(p)] if (p.a, p.b) == (a, b)));
    /// ```
    #[cfg(feature = "parallel")]
    pub fn update_parallel(&mut self, scene: &mut Scene) -> &[ContactEvent] {
        self.update_parallel_with_hooks(scene, &())
    }

    /// [`update_parallel`](Self::update_parallel) with the user's
    /// [`PairHooks`] (called from the pool's threads).
    #[cfg(feature = "parallel")]
    pub fn update_parallel_with_hooks(
        &mut self,
        scene: &mut Scene,
        hooks: &(impl PairHooks + Sync),
    ) -> &[ContactEvent] {
        use rayon::prelude::*;
        let t0 = Stamp::now();
        scene.prepare();
        self.find_candidates_with(scene, true);
        let t1 = Stamp::now();
        if self.broadphase_only.is_some() {
            self.start_frame();
            self.list_candidates(scene);
            return self.close(scene, t0, t1);
        }
        // The contacts and manifolds are overwritten by `gather` below, not
        // cleared: their old elements are only copied over.
        self.keep_previous();
        let shared: &Scene = scene;
        let reuse = self.reuse.filter(|_| self.prediction.is_some()).map(|r| (r.check(), &self.kept));
        let rules = Rules { prediction: self.prediction, touch: self.touch, hooks, reuse, notes: &self.notes };
        let candidates = candidate_keys(self.running, &self.tracker, self.renamed, &self.candidates);
        let slices = candidates.len().div_ceil(NARROW_SLICE);
        if self.narrow_slices.len() < slices {
            self.narrow_slices.resize_with(slices, NarrowSlice::default);
        }
        // One task per slice (`with_max_len(1)`): rayon's adaptive split would
        // otherwise hand each thread a run of slices to work through alone,
        // and a run holding the mesh pairs would keep one thread busy while
        // the other idles.
        self.narrow_slices[..slices].par_iter_mut().zip(candidates.par_chunks(NARROW_SLICE)).with_max_len(1).for_each(
            |(slice, candidates)| {
                slice.contacts.clear();
                slice.manifolds.clear();
                slice.sensors.clear();
                slice.kept.clear();
                slice.notes.clear();
                let out = NarrowOut {
                    contacts: &mut slice.contacts,
                    manifolds: &mut slice.manifolds,
                    sensors: &mut slice.sensors,
                    manifold_scratch: &mut slice.manifold_scratch,
                    kept: &mut slice.kept,
                    notes: &mut slice.notes,
                    mesh_scratch: &mut slice.mesh_scratch,
                };
                narrow(shared, candidates, &rules, out);
            },
        );
        let done = &self.narrow_slices[..slices];
        gather(&mut self.contacts, done, |slice| &slice.contacts);
        gather(&mut self.manifolds, done, |slice| &slice.manifolds);
        for slice in done {
            self.sensor_pairs.extend_from_slice(&slice.sensors);
        }
        if self.reuse.is_some() {
            self.kept.clear();
            self.kept.extend(done.iter().map(|slice| &slice.kept));
        }
        // The slices' notes, in slice order: sorted by key as the slices are.
        self.notes.clear();
        for slice in done {
            self.notes.extend_from_slice(&slice.notes);
        }
        // Slices are given back only past twice the frame's need, so a count
        // that swings across a slice boundary does not free and regrow one.
        if self.narrow_slices.len() > 2 * slices.max(1) {
            self.narrow_slices.truncate(slices.max(1));
        }
        self.close(scene, t0, t1)
    }

    /// The start of a frame's exact tests: last frame's pairs kept for the
    /// events, this frame's lists emptied.
    fn start_frame(&mut self) {
        self.keep_previous();
        self.contacts.clear();
        self.manifolds.clear();
    }

    /// Last frame's contact and sensor pairs kept for the events, the
    /// sensor list emptied.
    fn keep_previous(&mut self) {
        self.contact_index.invalidate();
        self.previous.clear();
        self.previous.extend(self.contacts.iter().map(|p| (p.a, p.b)));
        core::mem::swap(&mut self.previous_sensor_pairs, &mut self.sensor_pairs);
        self.sensor_pairs.clear();
    }

    /// The end of a frame: events, CCD sweeps, stats.
    fn close(&mut self, scene: &mut Scene, t0: Stamp, t1: Stamp) -> &[ContactEvent] {
        // Candidates are sorted by slot, and slots order like handles: the
        // contacts are already in `(a, b)` order.
        debug_assert!(self.contacts.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
        self.diff_events();
        self.sensor_events.clear();
        let sensor_pairs = &self.sensor_pairs;
        diff_pairs(
            &self.previous_sensor_pairs,
            sensor_pairs.len(),
            |j| sensor_pairs[j],
            |j| SensorEvent::Entered { a: sensor_pairs[j].0, b: sensor_pairs[j].1 },
            |a, b| SensorEvent::Exited { a, b },
            &mut self.sensor_events,
        );
        let t2 = Stamp::now();
        self.sweep_ccd(scene);
        let t3 = Stamp::now();
        self.stats = FrameStats {
            broadphase: t1.since(t0),
            narrowphase: t2.since(t1),
            ccd: t3.since(t2),
            colliders_read: self.touched.len(),
            candidate_pairs: self.candidate_keys().len(),
            contacts: self.contacts.len(),
            ccd_impacts: self.ccd.len(),
        };
        &self.events
    }

    /// Merges the sorted previous and current pair lists into events.
    fn diff_events(&mut self) {
        self.events.clear();
        let contacts = &self.contacts;
        diff_pairs(
            &self.previous,
            contacts.len(),
            |j| (contacts[j].a, contacts[j].b),
            |j| ContactEvent::Started(contacts[j]),
            |a, b| ContactEvent::Stopped { a, b },
            &mut self.events,
        );
    }
}
