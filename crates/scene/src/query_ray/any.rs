//! [`Scene::cast_ray_any`]: some hit, the traversal stopped at the first
//! (shadow and line-of-sight rays).

use proxima_broadphase::RayControl;
use proxima_narrowphase::kernels::PrecomputedRay;
use proxima_narrowphase::Ray;

use super::{Best, SceneRayHit};
use crate::filter::QueryFilter;
use crate::scene::Scene;

impl Scene {
    /// Some hit of `ray`, not necessarily the closest: the traversal stops at
    /// the first confirmed hit (shadow and line-of-sight rays). It finds a
    /// hit exactly when [`Scene::cast_ray_closest`] does.
    ///
    /// Each candidate gets one exact test: a box collider is hit at the
    /// static tree's entry `toi` (its normal computed only for the hit
    /// returned), a mesh stops at the first triangle it finds, and the
    /// static pass reads the leaf table as the closest-hit pass does.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.1, 5.0, 5.0) };
    /// scene.insert(ColliderDesc::new(wall, Isometry::translation(5.0, 0.0, 0.0)).fixed()).unwrap();
    /// // Is the light at x = 10 visible from the origin?
    /// let to_light = Ray::new(Point::origin(), Vector::new(10.0, 0.0, 0.0), 1.0);
    /// assert!(scene.cast_ray_any(&to_light, &QueryFilter::default()).is_some());
    /// ```
    pub fn cast_ray_any(&self, ray: &Ray, filter: &QueryFilter) -> Option<SceneRayHit> {
        let Some((tree, pass)) = self.static_pass(filter) else {
            return self.finish_any(ray, filter, None);
        };
        if pass.boxes.len() == 1 {
            // One static collider: its own test is the traversal, and its own
            // return path keeps the hit in registers (as in `cast_ray_closest`).
            return self.finish_any(ray, filter, pass.lone(ray, true));
        }
        let mut found = None;
        let pre = PrecomputedRay::new(ray);
        tree.visit_ray_leaves(ray, |slots, entry| {
            found = pass.leaf_any(ray, &pre, slots, entry);
            if found.is_some() {
                RayControl::Stop
            } else {
                RayControl::Continue
            }
        });
        self.finish_any(ray, filter, found)
    }

    /// The dynamic pass of [`Scene::cast_ray_any`] when the static one found
    /// nothing, and the hit's normal.
    #[inline(always)]
    fn finish_any(&self, ray: &Ray, filter: &QueryFilter, found: Option<Best>) -> Option<SceneRayHit> {
        let found = match found {
            Some(hit) => hit,
            None if self.dynamic_set.len() > 0 => self.dynamic_any(ray, filter)?,
            None => return None,
        };
        Some(self.scene_hit(ray, found))
    }

    /// The first dynamic collider that `ray` hits, if any.
    #[inline]
    pub(super) fn dynamic_any(&self, ray: &Ray, filter: &QueryFilter) -> Option<Best> {
        let mut found = None;
        self.dynamic_set.visit_ray(ray, |slot, _entry| {
            found = self.exact_ray_hit(slot, ray, filter, true);
            if found.is_some() {
                RayControl::Stop
            } else {
                RayControl::Continue
            }
        });
        found
    }
}
