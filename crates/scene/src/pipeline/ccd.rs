//! The pipeline's continuous collision: each CCD sphere swept from its
//! previous pose to its current one against the scene.

use proxima_narrowphase::{Sphere, Vector};

use super::{CcdImpact, ContactPipeline};
use crate::filter::QueryFilter;
use crate::scene::Scene;
use crate::shape::WorldShape;

impl ContactPipeline {
    /// Sweeps every CCD sphere from its previous centre to its current one.
    pub(super) fn sweep_ccd(&mut self, scene: &mut Scene) {
        self.ccd.clear();
        for &slot in &self.touched {
            let Some(collider) = scene.colliders.get_slot(slot) else { continue };
            let WorldShape::Sphere(now) = &collider.world else { continue };
            if !collider.desc.ccd {
                continue;
            }
            let start = collider.previous_pose.translation.vector;
            let motion: Vector = now.center().coords - start;
            if motion == Vector::zeros() {
                continue;
            }
            let Ok(from) = Sphere::try_new(start.into(), now.radius()) else { continue };
            let me = [scene.handle_of(slot)];
            // A sensor is not in the way: a bullet passes through a trigger.
            let filter = QueryFilter::excluding(&me).groups(collider.desc.groups).exclude_sensors();
            if let Some(hit) = scene.cast_sphere(&from, &motion, &filter) {
                self.ccd.push(CcdImpact { collider: me[0], other: hit.collider, hit: hit.hit });
            }
        }
        // A collider not read this frame did not move: its previous pose is
        // its pose already.
        for &slot in &self.touched {
            if let Some(collider) = scene.colliders.get_slot_mut(slot) {
                collider.previous_pose = collider.desc.pose;
            }
        }
    }
}
