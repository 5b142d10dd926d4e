//! Contact persistence for thin manifolds (Bullet's persistent manifold,
//! reduced to what the solver needs): a pair whose narrowphase reports one
//! or two points (a box or capsule on a mesh, two edges crossing) keeps its
//! earlier points while they stay where they were on both bodies, so a box
//! resting on a mesh is held at up to four corners instead of rocking from
//! one deepest corner to the next.

use proxima::narrowphase::{ContactManifold, ManifoldPoint, Point, Real, Vector};
use proxima::scene::{ColliderHandle, ManifoldPair};

use super::body::Body;

/// How far (m) a kept point's two anchors may slide apart along the surface
/// before it is dropped, and how close a new point must be to replace it.
const KEEP_DISTANCE: Real = 0.02;
/// Ids of kept points: `KEPT_ID | slot`, apart from the narrowphase's ids.
const KEPT_ID: u32 = 0x8000_0000;

/// One pair's points from last step, as anchors in each body's frame.
#[derive(Clone, Debug)]
struct Kept {
    pair: (ColliderHandle, ColliderHandle),
    normal: Vector,
    /// `(anchor in A's frame, anchor in B's frame, id)`.
    points: Vec<(Vector, Vector, u32)>,
}

/// The points kept from step to step.
#[derive(Debug, Default)]
pub struct Persistence {
    kept: Vec<Kept>,
    out: Vec<ManifoldPair>,
}

impl Persistence {
    /// `pairs` with each thin manifold (the only manifold of its pair, with
    /// fewer than three points, between two colliders for which `flat` is
    /// true) joined by last step's points of the pair
    /// that still hold: re-measured on the current poses along the new
    /// normal (`depth = n . (p_a - p_b)`), kept while `depth >= -prediction`,
    /// the anchors have slid less than [`KEEP_DISTANCE`] apart along the
    /// surface, and no new point lies within that distance; the normal must
    /// have turned less than 18 degrees. More than four points are reduced
    /// by [`ContactManifold::new`]. `body_of` maps a collider to its body.
    ///
    /// Only flat-faced shapes (boxes, meshes) qualify: on a rolling capsule
    /// a kept point lags behind the true contact, and its push there spins
    /// the capsule faster (energy from nowhere).
    pub fn augment(
        &mut self,
        bodies: &[Body],
        pairs: &[ManifoldPair],
        body_of: impl Fn(ColliderHandle) -> usize,
        flat: impl Fn(ColliderHandle) -> bool,
        prediction: Real,
    ) -> &[ManifoldPair] {
        self.out.clear();
        let mut kept = Vec::new();
        for (i, pair) in pairs.iter().enumerate() {
            let alone = (i == 0 || (pairs[i - 1].a, pairs[i - 1].b) != (pair.a, pair.b))
                && pairs.get(i + 1).is_none_or(|next| (next.a, next.b) != (pair.a, pair.b));
            if !alone || pair.manifold.len() >= 3 || !flat(pair.a) || !flat(pair.b) {
                self.out.push(*pair);
                continue;
            }
            let (ba, bb) = (&bodies[body_of(pair.a)], &bodies[body_of(pair.b)]);
            let n = pair.manifold.normal.into_inner();
            let mut points: Vec<ManifoldPoint> = pair.manifold.points().to_vec();
            if let Ok(k) = self.kept.binary_search_by(|k| k.pair.cmp(&(pair.a, pair.b))) {
                let old = &self.kept[k];
                for (slot, &(la, lb, id)) in old.points.iter().enumerate() {
                    let pa = ba.pose * Point::from(la);
                    let pb = bb.pose * Point::from(lb);
                    let d = pa - pb;
                    let depth = n.dot(&d);
                    let slid = (d - n * depth).norm();
                    let id = if id >= KEPT_ID { id } else { KEPT_ID | slot as u32 };
                    // A fresh point where a kept one was takes its place and its id.
                    let near = |p: &&mut ManifoldPoint| p.id < KEPT_ID && (p.point_a - pa).norm() < KEEP_DISTANCE;
                    if let Some(fresh) = points.iter_mut().find(near) {
                        fresh.id = id;
                    } else if old.normal.dot(&n) > 0.95 && depth >= -prediction && slid < KEEP_DISTANCE {
                        points.push(ManifoldPoint { point_a: pa, point_b: pb, depth, id });
                    }
                }
            }
            // Fresh narrowphase points get a kept id not in use, so the
            // solver can tell them apart from the next step on.
            let mut used: Vec<u32> = points.iter().map(|p| p.id).filter(|&id| id >= KEPT_ID).collect();
            for p in points.iter_mut().filter(|p| p.id < KEPT_ID) {
                let free = (0..).map(|s| KEPT_ID | s).find(|id| !used.contains(id)).expect("a free id");
                used.push(free);
                p.id = free;
            }
            let manifold = ContactManifold::new(pair.manifold.normal, &points).expect("at least one point");
            let to_local = |p: &ManifoldPoint| {
                let la = ba.pose.inverse_transform_point(&p.point_a).coords;
                let lb = bb.pose.inverse_transform_point(&p.point_b).coords;
                (la, lb, p.id)
            };
            kept.push(Kept {
                pair: (pair.a, pair.b),
                normal: n,
                points: manifold.points().iter().map(to_local).collect(),
            });
            self.out.push(ManifoldPair { a: pair.a, b: pair.b, manifold });
        }
        self.kept = kept;
        &self.out
    }
}
