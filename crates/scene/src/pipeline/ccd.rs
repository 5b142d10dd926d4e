//! The pipeline's continuous collision: each CCD collider swept from its
//! previous pose to its current one against the scene.

use proxima_narrowphase::{Isometry, Sphere, Vector};

use super::{CcdImpact, ContactPipeline};
use crate::filter::QueryFilter;
use crate::scene::Scene;
use crate::shape::WorldShape;

impl ContactPipeline {
    /// Sweeps every CCD collider by the translation from its previous pose
    /// to its current one: a sphere from its previous centre, any other
    /// convex shape at its current orientation (the rotation of the step is
    /// not swept) from its previous position; a compound as its children,
    /// each at its pose in the compound at the current orientation.
    pub(super) fn sweep_ccd(&mut self, scene: &mut Scene) {
        self.ccd.clear();
        for &slot in &self.ccd_touched {
            let Some(collider) = scene.colliders.get_slot(slot) else { continue };
            let start = collider.previous_pose.translation.vector;
            let now = collider.desc.pose.translation.vector;
            let motion: Vector = now - start;
            if motion == Vector::zeros() {
                continue;
            }
            let me = [scene.handle_of(slot)];
            // A sensor is not in the way: a bullet passes through a trigger.
            let filter = QueryFilter::excluding(&me).groups(collider.desc.groups).exclude_sensors();
            let hit = if let WorldShape::Sphere(ball) = &collider.world {
                let Ok(from) = Sphere::try_new(start.into(), ball.radius()) else { continue };
                scene.cast_sphere(&from, &motion, &filter)
            } else {
                // A stored pose at a stored translation: valid, and the shape
                // was placed at both ends (insertion keeps meshes out of CCD; a
                // compound is cast child by child).
                let from = Isometry::from_parts(start.into(), collider.desc.pose.rotation);
                scene.cast_shape(&collider.desc.shape, &from, &motion, &filter).ok().flatten()
            };
            if let Some(hit) = hit {
                let collider_child = hit.moving_child;
                self.ccd.push(CcdImpact { collider: me[0], other: hit.collider, hit: hit.hit, collider_child });
            }
        }
        // A collider not read this frame did not move: its previous pose is
        // its pose already. Only a CCD collider's previous pose is ever read
        // (CCD is chosen at insertion), so only theirs are reset.
        for &slot in &self.ccd_touched {
            if let Some(collider) = scene.colliders.get_slot_mut(slot) {
                collider.previous_pose = collider.desc.pose;
            }
        }
    }
}
