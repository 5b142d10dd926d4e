//! Ray queries of the scene: closest hit, any hit (shadow rays), all hits,
//! batches. This file holds the hit types and the exact test of one
//! collider; the queries are in
//!
//! - `query_ray/static_pass.rs`: the static tree's pass, which reads the
//!   static set's leaf table instead of the colliders;
//! - `query_ray/closest.rs`: [`Scene::cast_ray_closest`], its dynamic pass
//!   and the final hit;
//! - `query_ray/any.rs`: [`Scene::cast_ray_any`] (shadow rays);
//! - `query_ray/all.rs`: [`Scene::visit_ray_hits`] and [`Scene::cast_ray_all`];
//! - `query_ray/batch.rs`: [`Scene::cast_rays`], [`Scene::occluded`] and
//!   [`Scene::cast_rays_any`], spread over rayon's threads.

use proxima_narrowphase::{cast_ray_aabb, Ray, Real, UnitVector};

use crate::collider::ColliderHandle;
use crate::filter::QueryFilter;
use crate::scene::Scene;
use crate::trimesh::TriangleHit;

mod all;
mod any;
mod batch;
mod closest;
mod static_pass;

/// A ray's hit on a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneRayHit {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// The ray parameter of the hit: the point is `ray.point_at(toi)`.
    pub toi: Real,
    /// Unit surface normal at the hit, out of the collider.
    pub normal: UnitVector,
    /// For a mesh collider, the triangle hit and the hit point's barycentric
    /// coordinates on it (mesh frame: the pose carries them to world);
    /// `None` for the other shapes.
    pub triangle: Option<TriangleHit>,
    /// For a compound collider, the index of the child hit (into
    /// [`Compound::children`](crate::Compound::children)); `None` for the
    /// other shapes.
    pub child: Option<u32>,
}

/// The best hit so far of [`Scene::cast_ray_closest`]: the collider's slot,
/// the `toi`, and the normal, or for a box collider its leaf slot in the
/// static tree, whose box (its shape) gives the normal once, for the final
/// hit: a candidate's box is not loaded (on large scenes, a cache miss per
/// candidate).
#[derive(Clone, Copy)]
struct Best {
    slot: u32,
    toi: Real,
    normal: Result<UnitVector, u32>,
    triangle: Option<TriangleHit>,
    child: Option<u32>,
}

impl Scene {
    /// The public hit of `best`; a box collider's normal is computed here.
    #[inline(always)]
    fn scene_hit(&self, ray: &Ray, Best { slot, toi, normal, triangle, child }: Best) -> SceneRayHit {
        // Both arms inline, so the normal stays in registers: an arm left
        // out of line returns it through memory, and copying that whole
        // just after its piecewise stores stalls every hit on store
        // forwarding.
        let normal = match normal {
            Ok(normal) => normal,
            Err(leaf) => self.box_normal(ray, toi, leaf),
        };
        SceneRayHit { collider: self.handle_of(slot), toi, normal, triangle, child }
    }

    /// The normal of the face of static leaf `leaf`'s box (a box collider)
    /// that `ray` enters at `toi`: its exact test again (its toi is the
    /// BVH's entry toi, bit for bit).
    #[inline(always)]
    fn box_normal(&self, ray: &Ray, toi: Real, leaf: u32) -> UnitVector {
        let aabb = self.static_set.leaf_box(leaf);
        cast_ray_aabb(&ray.with_max_toi(toi), &aabb).map_or_else(|| UnitVector::new_normalize(-ray.dir()), |h| h.normal)
    }

    /// The exact test of the collider in `slot` (`any`: a mesh stops at its
    /// first triangle hit), `None` when the filter rejects it.
    #[inline]
    fn exact_ray_hit(&self, slot: u32, ray: &Ray, filter: &QueryFilter, any: bool) -> Option<Best> {
        let collider = &self.colliders[slot];
        if !filter.accepts(self.handle_of(slot), collider) {
            return None;
        }
        let h = collider.world.ray_hit(ray, any)?;
        Some(Best { slot, toi: h.hit.toi, normal: Ok(h.hit.normal), triangle: h.triangle, child: h.child })
    }
}
