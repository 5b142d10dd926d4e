//! The pipeline's mirror of the scene: which colliders changed since its
//! last update (the scene's change log, or every collider when the log is
//! not its own), and their boxes handed to the pair search (the tracker's
//! proxies or the grid's list), which gives the frame's candidate pairs.

use proxima_broadphase::ProxyOptions;
use proxima_narrowphase::{Aabb, Real, Vector};

use super::stamp::Stamp;
use super::ContactPipeline;
use crate::collider::BodyKind;
use crate::grid_search::PairSearch;
use crate::scene::Scene;

impl ContactPipeline {
    /// The candidate pairs, slots `a < b` (so `handle(a) < handle(b)`), sorted,
    /// unique: the tracker's pairs whose tight boxes may touch, read in place
    /// (`renamed == 0`) or renamed into `candidates`.
    pub(super) fn find_candidates(&mut self, scene: &mut Scene) {
        self.find_candidates_with(scene, false);
    }

    /// [`find_candidates`](Self::find_candidates), with the tracker's
    /// parallel update, or the grid's parallel search, when `parallel` (and
    /// the feature) is on.
    pub(super) fn find_candidates_with(&mut self, scene: &mut Scene, parallel: bool) {
        let search = match self.search {
            PairSearch::Auto => {
                let (search, switched) = self.chooser.next();
                if switched {
                    // The other search's mirror is stale: read every collider.
                    self.log_stamp = None;
                }
                search
            }
            fixed => fixed,
        };
        self.running = search;
        let start = Stamp::now();
        let incremental = self.search_with(search, scene, parallel);
        self.tracker_frames_away =
            if search == PairSearch::Tracker { 0 } else { self.tracker_frames_away.saturating_add(1) };
        if self.search == PairSearch::Auto {
            self.chooser.record(search, Stamp::now().since(start), !incremental);
        }
        // Kept manifolds name colliders by slot and handle: in another scene
        // (a clone, a restored one: each has its own log) or after a shape
        // change they may describe other shapes.
        let seen = (scene.changes.stamp().0, scene.changes.reshapes());
        if seen != self.kept_for {
            self.kept.clear();
            self.kept_for = seen;
        }
    }

    /// The candidates by `search` (tracker or grid); returns whether the
    /// mirror read only the logged colliders.
    fn search_with(&mut self, search: PairSearch, scene: &mut Scene, parallel: bool) -> bool {
        if search == PairSearch::Grid {
            let incremental = self.sync_grid(scene);
            self.grid.candidates(&mut self.candidates, parallel);
            return incremental;
        }
        let incremental = self.sync(scene);
        // The mirror gives each proxy its collider's groups (and gives them
        // again when they change), and the tracker keeps a new pair only when
        // the two proxies' groups interact: no predicate is needed, which
        // would read both colliders of every new pair (two cache misses each
        // in a large scene).
        #[cfg(feature = "parallel")]
        if parallel {
            self.tracker.update_parallel();
        } else {
            self.tracker.update();
        }
        #[cfg(not(feature = "parallel"))]
        {
            let _ = parallel;
            self.tracker.update();
        }
        // The tracker's tight boxes carry the cull's slack (`with_slack`), so
        // its exact pairs are the pairs that may touch. When proxies are
        // indexed like their colliders (colliders made before any removal
        // are, as slot maps hand out slots in the same order), they are the
        // candidates already; otherwise they are renamed to slots here.
        self.candidates.clear();
        if self.renamed == 0 {
            return incremental;
        }
        let slot_of = &self.slot_of_proxy;
        self.candidates.extend(self.tracker.exact_pair_indices().map(|(a, b)| {
            let (sa, sb) = (slot_of[a as usize], slot_of[b as usize]);
            u64::from(sa.min(sb)) << 32 | u64::from(sa.max(sb))
        }));
        // Slots order like handles (the generation only breaks ties of
        // equal slots), and proxies are usually made in slot order: the
        // list is then sorted already, and one pass over it says so.
        if !self.candidates.is_sorted() {
            self.candidates.sort_unstable();
        }
        incremental
    }

    /// Mirrors the scene in the tracker: removed colliders leave it, new ones
    /// enter it, and every other collider's tight box is passed to
    /// `move_proxy` (one containment test unless it left its fat box), with
    /// the move of the box's centre since the tracker last saw it as the
    /// frame's displacement, divided by the frames since when the grid ran
    /// in between. Only
    /// the colliders in the scene's change log are read when this pipeline
    /// took the log last (so colliders nobody moved cost nothing); otherwise
    /// (the first update, another pipeline on the same scene, a cloned or
    /// restored scene) every slot is. The slots read are left in `touched`,
    /// ascending, and the CCD ones among them in `ccd_touched`, for the CCD
    /// pass. Returns whether the read was incremental.
    pub(super) fn sync(&mut self, scene: &mut Scene) -> bool {
        let incremental = self.take_touched(scene, true);
        if !incremental {
            self.renamed = self
                .proxy_of
                .iter()
                .enumerate()
                .filter(|(slot, held)| held.is_some_and(|(_, id, _)| id.index() as usize != *slot))
                .count();
        }
        // Boxes grown by half the prediction overlap when the shapes are
        // within it (the gap between two boxes is at most the shapes' distance).
        let half_prediction = self.box_growth();
        let frames_since = self.tracker_frames_away.saturating_add(1);
        for &slot in &self.touched {
            let index = slot as usize;
            if self.proxy_of.len() <= index {
                self.proxy_of.resize(index + 1, None);
            }
            // The collider in the slot now, with its generation (a vacant
            // slot's generation names no live collider).
            let current = scene.colliders.get_slot(slot).map(|c| (scene.handle_of(slot).generation, c));
            if let Some((generation, id, _)) = self.proxy_of[index] {
                if current.is_none_or(|(now, _)| now != generation) {
                    let _ = self.tracker.remove(id);
                    self.proxy_of[index] = None;
                    self.renamed -= usize::from(id.index() != slot);
                }
            }
            let Some((generation, collider)) = current else { continue };
            if collider.desc.ccd {
                self.ccd_touched.push(slot);
            }
            let tight = with_slack(&collider.aabb, half_prediction);
            let groups = collider.desc.groups;
            let options = || ProxyOptions { groups, is_static: collider.desc.kind == BodyKind::Fixed };
            match self.proxy_of[index] {
                Some((_, id, mirrored)) => {
                    // A scene changes a collider's groups in place, never its
                    // kind; another scene (or a restored one) may hold a
                    // collider of the other kind at this slot and
                    // generation, so a full read compares both (B38).
                    if mirrored != groups || (!incremental && self.tracker.options(id) != Some(options())) {
                        let _ = self.tracker.set_options(id, options());
                        self.proxy_of[index] = Some((generation, id, groups));
                    }
                    // The displacement that stretches the fat box is the move
                    // of the tight box's centre over the frame. After grid
                    // frames the tracker last saw the box several frames
                    // ago: the move is then the mean over them (the whole
                    // move would stretch the fat box across it, with pairs
                    // to match; none would make every moving box leave its
                    // fat box on the next frame, all at once).
                    if frames_since == 1 {
                        let _ = self.tracker.move_proxy_to(id, tight);
                    } else {
                        let seen = self.tracker.tight_aabb(id).unwrap_or(tight);
                        let mean = (tight.center() - seen.center()) / frames_since as Real;
                        let mean = if mean.iter().all(|d| d.is_finite()) { mean } else { Vector::zeros() };
                        let _ = self.tracker.move_proxy(id, tight, mean);
                    }
                }
                None => {
                    let id = self.tracker.insert(tight, slot, options());
                    let proxy = id.index() as usize;
                    if self.slot_of_proxy.len() <= proxy {
                        self.slot_of_proxy.resize(proxy + 1, 0);
                    }
                    self.slot_of_proxy[proxy] = slot;
                    self.renamed += usize::from(id.index() != slot);
                    self.proxy_of[index] = Some((generation, id, groups));
                }
            }
        }
        incremental
    }

    /// Takes the scene's change log into `touched` and returns whether it
    /// holds the colliders changed since this pipeline's last update; if
    /// not, `touched` is every live slot (and, with `held`, every slot the
    /// tracker holds a proxy for).
    pub(super) fn take_touched(&mut self, scene: &mut Scene, held: bool) -> bool {
        let incremental = self.log_stamp == Some(scene.changes.stamp());
        self.log_stamp = Some(scene.changes.take(&mut self.touched, &mut self.removed));
        self.ccd_touched.clear();
        if !incremental {
            let end = scene.colliders.iter().last().map_or(0, |(slot, _)| slot as usize + 1);
            self.touched.clear();
            let proxy_of: &[_] = if held { &self.proxy_of } else { &[] };
            let held = |slot: u32| proxy_of.get(slot as usize).is_some_and(Option::is_some);
            let live = |slot: u32| scene.colliders.get_slot(slot).is_some();
            self.touched.extend((0..end.max(proxy_of.len()) as u32).filter(|&slot| live(slot) || held(slot)));
        }
        incremental
    }

    /// [`sync`](Self::sync) for the grid search: the colliders read enter,
    /// leave or update its list (all of them, from an empty list, when the
    /// log is not this pipeline's). Returns whether the read was incremental.
    pub(super) fn sync_grid(&mut self, scene: &mut Scene) -> bool {
        let incremental = self.take_touched(scene, false);
        if !incremental {
            self.grid.clear();
        }
        let half_prediction = self.box_growth();
        for &slot in &self.touched {
            let collider = scene.colliders.get_slot(slot);
            if collider.is_some_and(|c| c.desc.ccd) {
                self.ccd_touched.push(slot);
            }
            self.grid.sync(slot, collider, |aabb| with_slack(aabb, half_prediction));
        }
        incremental
    }
}

/// A collider's tight box grown on each axis by `1e-5 (|min| + |max|)`: two
/// such boxes overlap exactly when the tight boxes overlap once grown by
/// `1e-5` of the four coordinates' magnitudes. Touching shapes have
/// overlapping tight boxes; the slack covers the rounding of the boxes
/// themselves and the exact tests' touching bands (which accept shapes apart
/// by ~`1e-6` of their size), so the cull never drops a pair that
/// [`contact`] would report. It is grown by `extra` more on each side (half
/// the manifolds' prediction distance). Saturates at `±f32::MAX`.
#[inline]
fn with_slack(a: &Aabb, extra: Real) -> Aabb {
    a.loosened_per_axis(&((a.min().coords.abs() + a.max().coords.abs()) * 1e-5 + Vector::repeat(extra)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ColliderDesc, ColliderShape};
    use proxima_narrowphase::Isometry;

    #[test]
    fn a_full_read_after_grid_frames_stretches_by_the_mean_move() {
        // A 6 x 6 x 6 lattice of balls 3 apart, all falling 0.1 a frame:
        // the tracker runs 10 frames, the grid 10, then the tracker reads
        // every collider again. Their centres moved 1.1 since the tracker
        // last saw them, over 11 frames: each fat box is stretched by the
        // mean move, 0.1 a frame (times the prediction factor 4), below the
        // margin of 0.1. Stretched by the whole move (4.4) it would reach
        // the ball below (2 away) and pair with it; not stretched, every
        // box would leave its fat box at the next frame.
        let mut scene = Scene::new();
        let mut handles = Vec::new();
        for i in 0..216 {
            let (x, y, z) = ((i % 6) as Real * 3.0, (i / 6 % 6) as Real * 3.0, (i / 36) as Real * 3.0);
            let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(x, y, z));
            handles.push(scene.insert(ball).unwrap());
        }
        let mut pipeline = ContactPipeline::new().with_alternating_search(10);
        for frame in 0..21 {
            for &h in &handles {
                let mut pose = *scene.get(h).unwrap().pose();
                pose.translation.vector.y -= 0.1;
                scene.set_pose(h, pose).unwrap();
            }
            pipeline.update(&mut scene);
            let expect = if (frame / 10) % 2 == 0 { PairSearch::Tracker } else { PairSearch::Grid };
            assert_eq!(pipeline.running_pair_search(), expect);
        }
        assert_eq!(pipeline.tracker.pairs().len(), 0, "fat boxes stretched across the lattice");
        for &h in &handles {
            let tight = scene.get(h).unwrap().aabb();
            let id = pipeline.proxy_of[h.index() as usize].unwrap().1;
            let fat = pipeline.tracker.fat_aabb(id).unwrap();
            let (below, above) = (tight.min().y - fat.min().y, fat.max().y - tight.max().y);
            assert!((below - 0.5).abs() < 1e-2 && (above - 0.1).abs() < 1e-2, "{fat:?} around {tight:?}");
        }
    }
}
