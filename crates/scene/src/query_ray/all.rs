//! Every hit of a ray: [`Scene::visit_ray_hits`] and the sorted
//! [`Scene::cast_ray_all`].

use core::ops::ControlFlow;

use proxima_broadphase::RayControl;
use proxima_narrowphase::Ray;

use super::SceneRayHit;
use crate::filter::QueryFilter;
use crate::scene::Scene;

impl Scene {
    /// Calls `visitor` with every hit of `ray` (in no particular order) until
    /// it breaks.
    pub fn visit_ray_hits(
        &self,
        ray: &Ray,
        filter: &QueryFilter,
        mut visitor: impl FnMut(SceneRayHit) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut flow = ControlFlow::Continue(());
        self.visit_ray_candidates(ray, |slot, _entry| match self.exact_ray_hit(slot, ray, filter, false) {
            Some(hit) if visitor(self.scene_hit(ray, hit)).is_break() => {
                flow = ControlFlow::Break(());
                RayControl::Stop
            }
            _ => RayControl::Continue,
        });
        flow
    }

    /// Every hit of `ray` among the colliders the filter accepts, one per
    /// collider (its first hit), sorted by `toi` (ties by handle). The first
    /// element is [`Scene::cast_ray_closest`]'s hit, up to ties.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// for x in [9.0, 3.0, 6.0] {
    ///     scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0)))
    ///         .unwrap();
    /// }
    /// let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
    /// let tois: Vec<f32> = scene.cast_ray_all(&ray, &QueryFilter::default()).iter().map(|h| h.toi).collect();
    /// assert_eq!(tois, [2.0, 5.0, 8.0]);
    /// ```
    pub fn cast_ray_all(&self, ray: &Ray, filter: &QueryFilter) -> Vec<SceneRayHit> {
        let mut out = Vec::new();
        let _ = self.visit_ray_hits(ray, filter, |hit| {
            out.push(hit);
            ControlFlow::Continue(())
        });
        out.sort_unstable_by(|p, q| p.toi.total_cmp(&q.toi).then(p.collider.cmp(&q.collider)));
        out
    }
}
