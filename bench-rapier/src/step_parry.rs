//! parry3d 0.31's collision step, in its fastest exact configuration for
//! the pair search: a `Bvh` over the colliders' world AABBs loosened by the
//! prediction, every moved leaf set to its new box (`update_partially_if_present`
//! with no change-detection margin), `refit`, `optimize_incremental` and the
//! tree's self-traversal, which reports exactly the pairs whose loosened
//! boxes overlap; then `DefaultQueryDispatcher::contact_manifolds` for every
//! candidate, with the manifolds and the workspace of each pair kept across
//! steps (as rapier's narrow phase keeps them in its contact graph).
//!
//! A kept manifold is reused while the pair's relative pose stays close to
//! the one it was computed at (`ContactManifold::try_update_contacts`: the
//! normals within 1 degree of each other and no point slid by more than
//! 1 mm; the points' separations are updated, the points not recomputed), so
//! its deepest depth may be off by a fraction of a millimetre.

use crate::step::{PairDepth, StepCounts, StepPhases, StepReplay, PREDICTION};
use crate::{Frame, RecordedShape, Recording};
use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::{Pose, Vector};
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry3d::query::{ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::SharedShape;
use parry3d::utils::hashmap::HashMap;
use std::time::Instant;

/// The recorded shape as a parry3d shape (rapier's collider shapes). A
/// mesh is parry's `TriMesh::new` with no flags, as rapier's
/// `ColliderBuilder::trimesh` builds it (its contact manifolds go through
/// `contact_manifolds_trimesh_shape`, one manifold per nearby triangle).
pub fn parry_shape(shape: &RecordedShape) -> SharedShape {
    match shape {
        &RecordedShape::Ball { radius } => SharedShape::ball(radius),
        &RecordedShape::Cuboid { half_extents: [x, y, z] } => SharedShape::cuboid(x, y, z),
        &RecordedShape::Capsule { half_height, radius } => SharedShape::capsule_y(half_height, radius),
        RecordedShape::TriMesh { vertices, indices } => {
            let points = vertices.iter().map(|&[x, y, z]| Vector::new(x, y, z)).collect();
            SharedShape::trimesh(points, indices.to_vec()).expect("a valid recorded mesh")
        }
    }
}

/// The depth of the deepest point of colliders `a` and `b` at their poses
/// in `frame`, by parry3d's one-shot `query::contact` (nothing kept from
/// earlier steps: for cuboids the separating-axis test, exact to rounding),
/// `None` when they are more than [`PREDICTION`] apart. Positive: penetrating.
pub fn one_shot_depth(recording: &Recording, frame: &Frame, a: u32, b: u32) -> Option<f32> {
    let (a, b) = (a as usize, b as usize);
    let (sa, sb) = (parry_shape(&recording.shapes[a]), parry_shape(&recording.shapes[b]));
    let contact = parry3d::query::contact(&frame.poses[a], &*sa, &frame.poses[b], &*sb, PREDICTION)
        .expect("parry supports every recorded shape pair");
    contact.map(|c| -c.dist)
}

/// What a pair keeps from step to step.
#[derive(Default)]
struct PairState {
    manifolds: Vec<ContactManifold<(), ()>>,
    workspace: Option<ContactManifoldsWorkspace>,
    /// The last step the pair was a candidate in.
    stamp: u32,
}

/// parry3d's `Bvh` and persistent `contact_manifolds`, over the recording's
/// colliders (leaf `i` is collider `i`).
#[derive(Default)]
pub struct ParryStep {
    shapes: Vec<SharedShape>,
    bvh: Bvh,
    workspace: BvhWorkspace,
    /// The last step's candidates, `(i, j)` with `i < j`, in traversal order.
    candidates: Vec<(u32, u32)>,
    pairs: HashMap<(u32, u32), PairState>,
    stamp: u32,
    phases: StepPhases,
}

impl ParryStep {
    /// The candidates of the tree's self-traversal, then the manifolds of
    /// each; the pairs that are no longer candidates are dropped. `t0` and
    /// `t1` are the start of the step and of its pair search.
    fn search_and_collide(&mut self, poses: &[Pose], t0: Instant, t1: Instant) {
        let Self { shapes, bvh, workspace, candidates, pairs, stamp, phases } = self;
        candidates.clear();
        bvh.traverse_bvtt_single_tree::<false>(workspace, &mut |i, j| candidates.push((i.min(j), i.max(j))));
        let t2 = Instant::now();
        *stamp = stamp.wrapping_add(1);
        for &(i, j) in candidates.iter() {
            let state = pairs.entry((i, j)).or_default();
            state.stamp = *stamp;
            let (i, j) = (i as usize, j as usize);
            let pos12 = poses[i].inv_mul(&poses[j]);
            DefaultQueryDispatcher
                .contact_manifolds(
                    &pos12,
                    &*shapes[i],
                    &*shapes[j],
                    PREDICTION,
                    &mut state.manifolds,
                    &mut state.workspace,
                )
                .expect("parry supports every recorded shape pair");
        }
        pairs.retain(|_, state| state.stamp == *stamp);
        let t3 = Instant::now();
        *phases = StepPhases { poses: t1 - t0, pair_search: t2 - t1, manifolds: t3 - t2 };
    }
}

impl StepReplay for ParryStep {
    fn name(&self) -> &'static str {
        "parry3d"
    }

    fn start(&mut self, recording: &Recording) {
        let frame = &recording.frames[0];
        *self = Self::default();
        self.shapes = recording.shapes.iter().map(parry_shape).collect();
        let t0 = Instant::now();
        let leaves: Vec<Aabb> =
            self.shapes.iter().zip(&frame.poses).map(|(s, p)| s.compute_aabb(p).loosened(PREDICTION)).collect();
        self.bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        let t1 = Instant::now();
        self.search_and_collide(&frame.poses, t0, t1);
    }

    fn step(&mut self, frame: &Frame) {
        let t0 = Instant::now();
        for (i, (shape, pose)) in self.shapes.iter().zip(&frame.poses).enumerate().skip(1) {
            let aabb = shape.compute_aabb(pose).loosened(PREDICTION);
            self.bvh.update_partially_if_present(aabb, i as u32, 0.0).expect("every collider has a leaf");
        }
        let t1 = Instant::now();
        self.bvh.refit(&mut self.workspace);
        self.bvh.optimize_incremental(&mut self.workspace);
        self.search_and_collide(&frame.poses, t0, t1);
    }

    fn deepest_points(&self, out: &mut Vec<PairDepth>) {
        out.clear();
        for &(a, b) in &self.candidates {
            let state = &self.pairs[&(a, b)];
            // parry's `dist` is the signed distance: depth is its negation.
            let deepest = state.manifolds.iter().flat_map(|m| &m.points).map(|p| -p.dist).reduce(f32::max);
            if let Some(depth) = deepest {
                out.push(PairDepth { a, b, depth });
            }
        }
        out.sort_unstable_by_key(|p| (p.a, p.b));
    }

    fn counts(&self) -> StepCounts {
        let manifolds = self.pairs.values().flat_map(|s| &s.manifolds);
        let (mut count, mut points) = (0, 0);
        for m in manifolds {
            count += usize::from(!m.points.is_empty());
            points += m.points.len();
        }
        StepCounts { candidates: self.candidates.len(), manifolds: count, points }
    }

    fn phases(&self) -> StepPhases {
        self.phases
    }
}
