//! The pipeline's exact tests of a frame's candidate pairs: which pairs are
//! tested (kinds, sensors, bodies, hooks), and their contacts, manifolds and
//! sensor overlaps, appended in candidate order.

use proxima_broadphase::PairTracker;
use proxima_narrowphase::{contact_manifold_obb_obb_noting, contact_obb_obb_noting, Contact, ContactManifold, Real};

use super::notes::{Note, Notes};
use super::reuse::{reusable, Check, KeptLists, Reuse};
use super::{ContactPair, ManifoldPair};
use crate::collider::ColliderHandle;
use crate::contact::contact;
use crate::grid_search::PairSearch;
use crate::manifold::manifolds_split;
use crate::pair_rules::{PairHooks, TouchRule};
use crate::scene::Scene;
use crate::shape::WorldShape;
use crate::trimesh::MeshScratch;

/// Candidates per slice of the parallel exact tests: enough to amortise
/// rayon's scheduling, few enough to balance the threads. A pair with a
/// mesh costs many times a pair of boxes, and such pairs bunch together:
/// the candidates are sorted by collider slot, and a level's meshes are
/// usually inserted first, so every body-mesh pair sits at the front. Each
/// slice is its own task (see `update_parallel`), so an idle thread steals
/// the heavy slices a busy one has not reached. Fixed, so the cut does not
/// depend on the thread count.
#[cfg(feature = "parallel")]
pub(super) const NARROW_SLICE: usize = 256;

/// One slice of the parallel exact tests: its results and its own scratch.
#[cfg(feature = "parallel")]
#[derive(Clone, Debug, Default)]
pub(super) struct NarrowSlice {
    pub(super) contacts: Vec<ContactPair>,
    pub(super) manifolds: Vec<ManifoldPair>,
    pub(super) sensors: Vec<(ColliderHandle, ColliderHandle)>,
    pub(super) manifold_scratch: Vec<ContactManifold>,
    pub(super) kept: KeptLists,
    pub(super) notes: Vec<Note>,
    pub(super) mesh_scratch: MeshScratch,
}

/// Overwrites `out` with one list of each slice (`list` picks it), in
/// slice order, the copy spread over the current rayon pool: the slices are
/// halved between two tasks until one is left, each task copying into its
/// own part of `out`. `out`'s length becomes the lists' total; only growth
/// past its old length is written twice (a filler, then the copy), so a
/// steady frame copies each element once, in parallel.
#[cfg(feature = "parallel")]
pub(super) fn gather<T: Copy + Send + Sync>(out: &mut Vec<T>, slices: &[NarrowSlice], list: fn(&NarrowSlice) -> &[T]) {
    let total = slices.iter().map(|s| list(s).len()).sum();
    let Some(&filler) = slices.iter().find_map(|s| list(s).first()) else {
        out.clear();
        return;
    };
    out.truncate(total);
    out.resize(total, filler);
    copy_halves(out, slices, list);
}

#[cfg(feature = "parallel")]
fn copy_halves<T: Copy + Send + Sync>(out: &mut [T], slices: &[NarrowSlice], list: fn(&NarrowSlice) -> &[T]) {
    match slices {
        [] => {}
        [one] => out.copy_from_slice(list(one)),
        _ => {
            let (left, right) = slices.split_at(slices.len() / 2);
            let (out_left, out_right) = out.split_at_mut(left.iter().map(|s| list(s).len()).sum());
            rayon::join(|| copy_halves(out_left, left, list), || copy_halves(out_right, right, list));
        }
    }
}

/// How many candidates ahead [`narrow`] asks for a pair's second collider:
/// about the misses a pair's tests take to hide one.
const PREFETCH_AHEAD: usize = 8;

/// Where [`narrow`] appends its results, and its scratch.
pub(super) struct NarrowOut<'a> {
    pub(super) contacts: &'a mut Vec<ContactPair>,
    pub(super) manifolds: &'a mut Vec<ManifoldPair>,
    pub(super) sensors: &'a mut Vec<(ColliderHandle, ColliderHandle)>,
    pub(super) manifold_scratch: &'a mut Vec<ContactManifold>,
    /// With manifold reuse, the manifolds kept this frame (appended).
    pub(super) kept: &'a mut KeptLists,
    /// The box pairs' separating axes noted this frame (appended).
    pub(super) notes: &'a mut Vec<Note>,
    pub(super) mesh_scratch: &'a mut MeshScratch,
}

/// The candidates of the last update: with the tracker, its exact pairs as
/// they stand when no proxy is `renamed` (indexed unlike its collider), else
/// the renamed list (see `find_candidates`); with the grid, its list. A
/// function of the fields, not a method, so the exact tests can borrow them
/// beside the outputs.
pub(super) fn candidate_keys<'a>(
    search: PairSearch,
    tracker: &'a PairTracker<u32>,
    renamed: usize,
    candidates: &'a [u64],
) -> &'a [u64] {
    if search == PairSearch::Tracker && renamed == 0 {
        tracker.exact_pair_keys()
    } else {
        candidates
    }
}

/// What [`narrow`] applies to each candidate: the manifolds' prediction
/// (`None`: contacts only), the touching rule and the user's hooks.
pub(super) struct Rules<'h, H> {
    pub(super) prediction: Option<Real>,
    pub(super) touch: TouchRule,
    pub(super) hooks: &'h H,
    /// With manifold reuse: its test and the manifolds kept last frame.
    pub(super) reuse: Option<(Check, &'h KeptLists)>,
    /// The box pairs' separating axes noted last frame.
    pub(super) notes: &'h [Note],
}

/// The exact tests of `candidates` (pair keys of collider slots,
/// `(a << 32) | b`, sorted), in candidate order. A pair is skipped unless
/// the colliders pair ([`Collider::pairs_with`](crate::Collider::pairs_with):
/// one dynamic, not two sensors, not one body) and the hooks keep it. A pair
/// with a sensor is appended to `out.sensors` when the shapes touch
/// ([`contact`]), with no manifold. Otherwise a pair in contact is appended
/// to `out.contacts`; with a `prediction`, its manifolds within it too (each
/// kept by the hooks), and the contact is the deepest point of the pair's
/// manifolds (any depth with [`TouchRule::Manifold`], `>= 0` otherwise).
pub(super) fn narrow<H: PairHooks>(scene: &Scene, candidates: &[u64], rules: &Rules<'_, H>, out: NarrowOut<'_>) {
    let NarrowOut { contacts, manifolds, sensors, manifold_scratch, kept, notes, mesh_scratch } = out;
    let first = candidates.first().copied().unwrap_or(0);
    let mut reuse = rules.reuse.map(|(check, previous)| Reuse::new(check, previous, first, kept));
    let mut notes = Notes::new(rules.notes, first, notes);
    for (i, &key) in candidates.iter().enumerate() {
        // The second colliders come in no order (the first ones in slot
        // order, which the hardware prefetcher follows): each is a cache
        // miss in a large scene unless asked for ahead.
        if let Some(&ahead) = candidates.get(i + PREFETCH_AHEAD) {
            scene.colliders.prefetch(ahead as u32);
        }
        let (sa, sb) = ((key >> 32) as u32, key as u32);
        let (ca, cb) = (&scene.colliders[sa], &scene.colliders[sb]);
        if !ca.pairs_with(cb) {
            continue;
        }
        let (a, b) = (scene.handle_of(sa), scene.handle_of(sb));
        if !rules.hooks.filter_pair((a, ca), (b, cb)) {
            continue;
        }
        if ca.desc.sensor || cb.desc.sensor {
            if contact(&ca.world, &cb.world).is_some() {
                sensors.push((a, b));
            }
            continue;
        }
        let Some(prediction) = rules.prediction else {
            // Two boxes test the axis that separated them last frame first.
            let found = if let (WorldShape::Obb(x), WorldShape::Obb(y)) = (&ca.world, &cb.world) {
                let mut axis = notes.take(key);
                let found = contact_obb_obb_noting(x, y, &mut axis);
                notes.keep(key, axis);
                found
            } else {
                contact(&ca.world, &cb.world)
            };
            if let Some(c) = found {
                contacts.push(ContactPair { a, b, contact: c });
            }
            continue;
        };
        // A convex pair's one manifold comes back by value and is moved to
        // `manifolds` once; a mesh pair's go through the scratch list.
        manifold_scratch.clear();
        let (wa, wb) = (&ca.world, &cb.world);
        let mut single = match &mut reuse {
            Some(reuse) if reusable(wa, wb) => reuse.manifold(key, (a, ca), (b, cb), || {
                exact_manifolds(key, wa, wb, prediction, &mut notes, mesh_scratch, manifold_scratch)
            }),
            _ => exact_manifolds(key, wa, wb, prediction, &mut notes, mesh_scratch, manifold_scratch),
        };
        let min_depth = if rules.touch == TouchRule::Manifold { Real::NEG_INFINITY } else { 0.0 };
        let mut deepest: Option<Contact> = None;
        for m in single.iter_mut().chain(manifold_scratch.iter_mut()) {
            if !rules.hooks.modify_manifold((a, ca), (b, cb), m) {
                continue;
            }
            let p = m.deepest();
            if p.depth >= min_depth && deepest.is_none_or(|d| p.depth > d.depth) {
                deepest = Some(Contact { point_a: p.point_a, point_b: p.point_b, normal: m.normal, depth: p.depth });
            }
            manifolds.push(ManifoldPair { a, b, manifold: *m });
        }
        if let Some(contact) = deepest {
            contacts.push(ContactPair { a, b, contact });
        }
    }
}

/// The manifolds of pair `key` ([`manifolds_split`]), two boxes through
/// their noted separating axis: the same manifolds.
#[inline(always)]
fn exact_manifolds(
    key: u64,
    a: &WorldShape,
    b: &WorldShape,
    prediction: Real,
    notes: &mut Notes<'_>,
    mesh_scratch: &mut MeshScratch,
    out: &mut Vec<ContactManifold>,
) -> Option<ContactManifold> {
    if let (WorldShape::Obb(x), WorldShape::Obb(y)) = (a, b) {
        let mut axis = notes.take(key);
        let found = contact_manifold_obb_obb_noting(x, y, prediction, &mut axis);
        notes.keep(key, axis);
        return found;
    }
    manifolds_split(a, b, prediction, mesh_scratch, out)
}
