//! [`Scene::cast_ray_closest`]: the static pass, then the dynamic pass
//! clipped to the static hit, then the final hit's normal.

use proxima_broadphase::RayControl;
use proxima_narrowphase::kernels::PrecomputedRay;
use proxima_narrowphase::{Ray, Real};

use super::{Best, SceneRayHit};
use crate::filter::QueryFilter;
use crate::scene::Scene;

impl Scene {
    /// The closest hit of `ray` among the colliders the filter accepts.
    ///
    /// Both trees are traversed with the ray clipped to the best hit so far,
    /// so boxes beyond it are never tested. Ties in `toi` keep the first found.
    ///
    /// The static pass reads the static set's leaf table (each collider's
    /// slot, groups and whether its shape is its box, in the BVH's leaf
    /// order) instead of the colliders: with a filter of groups only, a box
    /// collider is accepted and hit without loading it (the BVH's entry `toi`
    /// is its exact `cast_ray_aabb` `toi`), and only the final hit's normal
    /// is computed. Other shapes get their exact test as before.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let near = scene.insert(ball(5.0)).unwrap();
    /// scene.insert(ball(10.0)).unwrap();
    /// let ray = Ray::new(Point::origin(), Vector::x(), 100.0);
    /// let hit = scene.cast_ray_closest(&ray, &QueryFilter::default()).unwrap();
    /// assert_eq!((hit.collider, hit.toi), (near, 4.0));
    /// assert_eq!(hit.normal.into_inner(), -Vector::x());
    /// // Skip the near one.
    /// let hit = scene.cast_ray_closest(&ray, &QueryFilter::excluding(&[near])).unwrap();
    /// assert_eq!(hit.toi, 9.0);
    /// ```
    pub fn cast_ray_closest(&self, ray: &Ray, filter: &QueryFilter) -> Option<SceneRayHit> {
        let Some((tree, pass)) = self.static_pass(filter) else {
            return self.finish_closest(ray, filter, None, ray.max_toi());
        };
        if pass.boxes.len() == 1 {
            // One static collider: its own test is the traversal (for a box,
            // the same entry toi, bit for bit), without its setup. Its own
            // return path keeps the hit in registers: `best` below lives in
            // memory (the visitor borrows it), and copying it whole just
            // after its piecewise stores would stall.
            let best = pass.lone(ray, false);
            return self.finish_closest(ray, filter, best, best.map_or(ray.max_toi(), |b| b.toi));
        }
        let mut best = None;
        let mut max_toi = ray.max_toi();
        let pre = PrecomputedRay::new(ray);
        tree.visit_ray_leaves(ray, |slots, entry| pass.leaf(ray, &pre, slots, entry, &mut best, &mut max_toi));
        self.finish_closest(ray, filter, best, max_toi)
    }

    /// The dynamic pass of [`Scene::cast_ray_closest`] after the static one
    /// (`best` and `max_toi` as it left them: `max_toi` is `best`'s `toi`
    /// when there is one), and the final hit's normal.
    ///
    /// The static `best` is not handed to the dynamic pass, which returns
    /// only a strictly nearer hit: the compiler can then keep it in
    /// registers (a value whose address escapes lives in memory, written
    /// field by field and copied whole, and the copy stalls on the writes).
    #[inline(always)]
    pub(super) fn finish_closest(
        &self,
        ray: &Ray,
        filter: &QueryFilter,
        best: Option<Best>,
        max_toi: Real,
    ) -> Option<SceneRayHit> {
        let nearer =
            if self.dynamic_set.len() == 0 { None } else { self.dynamic_closest(ray, filter, max_toi, best.is_some()) };
        Some(self.scene_hit(ray, nearer.or(best)?))
    }

    /// The closest dynamic hit of `ray` clipped to `max_toi`; with `strict`
    /// (a static hit at `max_toi` exists), only a hit before `max_toi`, so
    /// that ties keep the static hit, found first.
    fn dynamic_closest(&self, ray: &Ray, filter: &QueryFilter, max_toi: Real, strict: bool) -> Option<Best> {
        let mut best: Option<Best> = None;
        let clipped = ray.with_max_toi(max_toi);
        let mut current = clipped;
        self.dynamic_set.visit_ray(&clipped, |slot, _entry| {
            let Some(hit) = self.exact_ray_hit(slot, &current, filter, false) else {
                return RayControl::Continue;
            };
            let nearer = match best {
                Some(b) => hit.toi < b.toi,
                None => !strict || hit.toi < max_toi,
            };
            if nearer {
                best = Some(hit);
                current = current.with_max_toi(hit.toi);
            }
            RayControl::Clip(current.max_toi())
        });
        best
    }
}
