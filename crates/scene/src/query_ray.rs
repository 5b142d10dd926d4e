//! Ray queries: closest hit, any hit (shadow rays), all hits, batches.

use core::ops::ControlFlow;

use core::ops::Range;

use proxima_broadphase::{RayControl, StaticBvh, PACKET_SIZE};
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay, RayInterval};
use proxima_narrowphase::{cast_ray_aabb, Aabb, Isometry, Ray, Real, UnitVector};

use crate::collider::ColliderHandle;
use crate::filter::{groups_interact, QueryFilter};
use crate::scene::Scene;
use crate::shape::WorldShape;
use crate::static_set::StaticLeaf;
use crate::trimesh::{TriMesh, TriangleHit};

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
}

/// Static colliders from which [`Scene::cast_rays`] batches the static
/// pass. Below it the tree nearly fits in cache, so there are few misses to
/// overlap and switching between rays costs more than it saves; above it,
/// several traversals in flight hide each other's cache misses (measured
/// on sparse random box scenes, `proxima_test_support::scene::boxes`).
pub(crate) const BATCH_MIN_STATIC: usize = 200_000;

/// The static pass of [`Scene::cast_ray_closest`] for one filter: the leaf
/// table of the static set and the tree's boxes, in leaf order.
struct StaticPass<'a> {
    scene: &'a Scene,
    filter: &'a QueryFilter<'a>,
    leaves: &'a [StaticLeaf],
    boxes: &'a [Aabb],
    /// No exclusions and no predicate: the groups alone decide.
    groups_only: bool,
}

impl StaticPass<'_> {
    /// One leaf of the static tree entered by `ray` (`pre` is the ray
    /// prepared): updates `best` and clips `max_toi`, visiting the leaf's
    /// colliders in order and keeping the first of equal `toi`s, exactly as
    /// the per-collider path (`exact_ray_hit`) does.
    #[inline]
    fn leaf(
        &self,
        ray: &Ray,
        pre: &PrecomputedRay,
        slots: Range<u32>,
        entry_toi: Real,
        best: &mut Option<Best>,
        max_toi: &mut Real,
    ) -> RayControl {
        let single = slots.len() == 1;
        let before = *max_toi;
        for s in slots.map(|s| s as usize) {
            // A one-box leaf's entry is the box's (the kernel's toi).
            let toi = if single {
                entry_toi
            } else {
                match ray_aabb_interval(&PrecomputedRay { max_toi: *max_toi, ..*pre }, &self.boxes[s]) {
                    Some(RayInterval { toi_enter: t_enter, .. }) => t_enter,
                    None => continue,
                }
            };
            if toi > *max_toi {
                continue;
            }
            // The ray itself until a hit clips it: a copy of it would be read
            // back (whole vectors) just after its piecewise stores.
            let clipped;
            let ray = if *max_toi < ray.max_toi() {
                clipped = ray.with_max_toi(*max_toi);
                &clipped
            } else {
                ray
            };
            let Some(hit) = self.exact(ray, s, toi, false) else { continue };
            if best.is_none_or(|b| hit.toi < b.toi) {
                // The final hit reads its handle's generation and, for a box
                // collider, its box (the normal): two cache misses on a
                // large scene, started now and hidden by the rest of the
                // traversal (a one-box leaf's box was never loaded: its lane
                // in the node was tested).
                self.scene.colliders.prefetch_handle(hit.slot);
                if let Err(leaf) = hit.normal {
                    proxima_broadphase::internal::prefetch(self.boxes, leaf);
                }
                *best = Some(hit);
                *max_toi = hit.toi;
            }
        }
        if *max_toi < before {
            RayControl::Clip(*max_toi)
        } else {
            RayControl::Continue
        }
    }
}

impl StaticPass<'_> {
    /// The exact test of leaf slot `s`, entered at `entry_toi`, for `ray`
    /// (clipped to the best so far): `None` when the filter rejects the
    /// collider or the ray misses it. A box collider is hit at the entry, its
    /// normal left for later; with `any`, a mesh stops at its first hit.
    #[inline(always)]
    fn exact(&self, ray: &Ray, s: usize, entry_toi: Real, any: bool) -> Option<Best> {
        let leaf = self.leaves[s];
        if !groups_interact(&self.filter.groups, &leaf.groups) {
            return None;
        }
        let collider = || &self.scene.colliders[leaf.slot];
        if !self.groups_only && !self.filter.accepts(self.scene.handle_of(leaf.slot), collider()) {
            return None;
        }
        if leaf.is_box {
            return Some(Best { slot: leaf.slot, toi: entry_toi, normal: Err(s as u32), triangle: None });
        }
        let h = collider().world.ray_hit(ray, any)?;
        Some(Best { slot: leaf.slot, toi: h.hit.toi, normal: Ok(h.hit.normal), triangle: h.triangle })
    }

    /// The hit of `ray` on the set's only collider (`any`: a mesh stops at
    /// its first hit). A box collider's box test is its exact test; any
    /// other shape goes straight to its exact test, which culls by itself
    /// (a mesh tests its own tree's root box), so the world box is not
    /// tested twice.
    #[inline(always)]
    fn lone(&self, ray: &Ray, any: bool) -> Option<Best> {
        if self.leaves[0].is_box {
            let RayInterval { toi_enter, .. } = ray_aabb_interval(&PrecomputedRay::new(ray), &self.boxes[0])?;
            return self.exact(ray, 0, toi_enter, any);
        }
        self.exact(ray, 0, 0.0, any)
    }

    /// One leaf of the static tree for [`Scene::cast_ray_any`]: the first
    /// collider of the leaf that the ray hits, then `Stop`.
    #[inline]
    fn leaf_any(&self, ray: &Ray, pre: &PrecomputedRay, slots: Range<u32>, entry_toi: Real) -> Option<Best> {
        let single = slots.len() == 1;
        for s in slots.map(|s| s as usize) {
            let toi = if single {
                entry_toi
            } else {
                match ray_aabb_interval(pre, &self.boxes[s]) {
                    Some(RayInterval { toi_enter, .. }) if toi_enter <= ray.max_toi() => toi_enter,
                    _ => continue,
                }
            };
            if let Some(hit) = self.exact(ray, s, toi, true) {
                return Some(hit);
            }
        }
        None
    }
}

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
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Ray, Vector};
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

    /// The static set's tree and what its leaves need, `None` when it is
    /// empty or the filter rejects every static collider.
    fn static_pass<'a>(&'a self, filter: &'a QueryFilter<'a>) -> Option<(&'a StaticBvh, StaticPass<'a>)> {
        if filter.skips_statics() {
            return None;
        }
        let info = |slot: u32| {
            let c = &self.colliders[slot];
            (c.desc.groups, matches!(c.world, WorldShape::Aabb(_)))
        };
        let (tree, leaves) = self.static_set.ray_leaves(info)?;
        // Without exclusions or a predicate, the groups decide alone.
        let groups_only = filter.groups_decide_statics();
        Some((tree, StaticPass { scene: self, filter, leaves, boxes: tree.leaf_boxes(), groups_only }))
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
    fn finish_closest(
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

    /// The public hit of `best`; a box collider's normal is computed here.
    #[inline(always)]
    fn scene_hit(&self, ray: &Ray, Best { slot, toi, normal, triangle }: Best) -> SceneRayHit {
        // Both arms inline, so the normal stays in registers: an arm left
        // out of line returns it through memory, and copying that whole
        // just after its piecewise stores stalls every hit on store
        // forwarding.
        let normal = match normal {
            Ok(normal) => normal,
            Err(leaf) => self.box_normal(ray, toi, leaf),
        };
        SceneRayHit { collider: self.handle_of(slot), toi, normal, triangle }
    }

    /// The normal of the face of static leaf `leaf`'s box (a box collider)
    /// that `ray` enters at `toi`: its exact test again (its toi is the
    /// BVH's entry toi, bit for bit).
    #[inline(always)]
    fn box_normal(&self, ray: &Ray, toi: Real, leaf: u32) -> UnitVector {
        let aabb = self.static_set.leaf_box(leaf);
        cast_ray_aabb(&ray.with_max_toi(toi), &aabb).map_or_else(|| UnitVector::new_normalize(-ray.dir()), |h| h.normal)
    }

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
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Aabb { half_extents: Vector::new(0.1, 5.0, 5.0) };
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
    fn dynamic_any(&self, ray: &Ray, filter: &QueryFilter) -> Option<Best> {
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
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Ray, Vector};
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

    /// [`Scene::cast_ray_closest`] for each ray, in input order. With the
    /// `parallel` feature the rays are spread over the threads of the current
    /// rayon pool (run it inside `rayon::ThreadPool::install` to choose the
    /// pool, one thread included); each result is computed exactly as the
    /// sequential call would, so the output is identical whatever the thread
    /// count.
    ///
    /// When the static set is one mesh collider that the filter accepts (a
    /// level, a scanned model), its rays are cast in packets of
    /// [`PACKET_SIZE`] consecutive rays that traverse the mesh together
    /// ([`TriMesh::cast_rays`]): order coherent rays so that neighbours are
    /// consecutive (a camera's pixels in 4 x 2 tiles), so a packet shares
    /// its node visits; each ray's hit is still its single call's.
    ///
    /// With 200,000 static colliders or more, the static pass
    /// runs on chunks of rays with several traversals in flight
    /// ([`StaticBvh::visit_rays_leaves`]), which overlaps their cache misses;
    /// each ray still visits its leaves in the sequential order, so the
    /// results are the same.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(5.0, 0.0, 0.0)))
    ///     .unwrap();
    /// let rays = [Ray::new(Point::origin(), Vector::x(), 100.0), Ray::new(Point::origin(), Vector::y(), 100.0)];
    /// let hits = scene.cast_rays(&rays, &QueryFilter::default());
    /// assert_eq!(hits[0].map(|h| h.toi), Some(4.0));
    /// assert!(hits[1].is_none());
    /// ```
    pub fn cast_rays(&self, rays: &[Ray], filter: &QueryFilter) -> Vec<Option<SceneRayHit>> {
        let batch = self.static_set.len() >= BATCH_MIN_STATIC;
        let lone_mesh = self.lone_static_mesh(filter);
        spread(rays, |rays, out| {
            if let Some((slot, mesh, pose)) = lone_mesh {
                self.cast_rays_lone_mesh(rays, filter, slot, mesh, pose, out);
            } else if batch {
                for chunk in rays.chunks(BATCH_CHUNK) {
                    self.cast_rays_batched(chunk, filter, out);
                }
            } else {
                out.extend(rays.iter().map(|ray| self.cast_ray_closest(ray, filter)));
            }
        })
    }

    /// Whether each ray hits a collider the filter accepts (shadow rays,
    /// line of sight): `out[i]` is `cast_ray_any(&rays[i], filter).is_some()`,
    /// whatever the thread count, without the hits. With the `parallel`
    /// feature the rays are spread over the threads of the current rayon
    /// pool (run it inside `rayon::ThreadPool::install` to choose the pool).
    ///
    /// When the static set is one mesh collider that the filter accepts, its
    /// rays are cast in packets of [`PACKET_SIZE`] consecutive rays
    /// ([`TriMesh::occluded`]), each retired at its first hit: keep
    /// neighbouring rays consecutive (shadow rays from a camera's tiles, say),
    /// so a packet shares its node visits. A ray the mesh does not stop goes
    /// on to the dynamic colliders.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Aabb { half_extents: Vector::new(0.1, 5.0, 5.0) };
    /// scene.insert(ColliderDesc::new(wall, Isometry::translation(5.0, 0.0, 0.0)).fixed()).unwrap();
    /// let rays = [Ray::new(Point::origin(), Vector::x(), 10.0), Ray::new(Point::origin(), -Vector::x(), 10.0)];
    /// assert_eq!(scene.occluded(&rays, &QueryFilter::default()), [true, false]);
    /// ```
    pub fn occluded(&self, rays: &[Ray], filter: &QueryFilter) -> Vec<bool> {
        let lone_mesh = self.lone_static_mesh(filter);
        spread(rays, |rays, out| {
            let Some((_, mesh, pose)) = lone_mesh else {
                out.extend(rays.iter().map(|ray| self.cast_ray_any(ray, filter).is_some()));
                return;
            };
            let mut blocked = [false; PACKET_SIZE];
            for packet in rays.chunks(PACKET_SIZE) {
                mesh.occluded_packet_posed(packet, pose, &mut blocked[..packet.len()]);
                out.extend(
                    packet
                        .iter()
                        .zip(&blocked)
                        .map(|(ray, &b)| b || (self.dynamic_set.len() > 0 && self.dynamic_any(ray, filter).is_some())),
                );
            }
        })
    }

    /// [`Scene::cast_ray_any`] for each ray, in input order: with the
    /// `parallel` feature spread over the threads of the current rayon pool
    /// (run it inside `rayon::ThreadPool::install` to choose the pool, one
    /// thread included); each result is the sequential call's, so the output
    /// is identical whatever the thread count. On a one-thread pool the rays
    /// are cast in a plain loop (no tasks), so the batch costs what the loop
    /// of single calls does.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(5.0, 0.0, 0.0)))
    ///     .unwrap();
    /// let rays = [Ray::new(Point::origin(), Vector::x(), 100.0), Ray::new(Point::origin(), Vector::y(), 100.0)];
    /// let hits = scene.cast_rays_any(&rays, &QueryFilter::default());
    /// assert!(hits[0].is_some() && hits[1].is_none());
    /// ```
    pub fn cast_rays_any(&self, rays: &[Ray], filter: &QueryFilter) -> Vec<Option<SceneRayHit>> {
        spread(rays, |rays, out| out.extend(rays.iter().map(|ray| self.cast_ray_any(ray, filter))))
    }

    /// The static set's only collider, when it is a mesh that the filter
    /// accepts: its slot, its mesh and its pose.
    fn lone_static_mesh<'a>(&'a self, filter: &QueryFilter) -> Option<(u32, &'a TriMesh, &'a Isometry)> {
        let (_, pass) = self.static_pass(filter)?;
        if pass.boxes.len() != 1 {
            return None;
        }
        let slot = pass.leaves[0].slot;
        let collider = &self.colliders[slot];
        let WorldShape::TriMesh(mesh, pose) = &collider.world else { return None };
        let accepted =
            groups_interact(&filter.groups, &pass.leaves[0].groups) && filter.accepts(self.handle_of(slot), collider);
        accepted.then_some((slot, &**mesh, pose))
    }

    /// [`Scene::cast_ray_closest`] for a chunk of rays when the static set
    /// is one mesh that the filter accepts: the static pass runs in packets
    /// of rays on the mesh ([`TriMesh::cast_rays`]), whose hits are each
    /// ray's own; the dynamic pass and the hit follow per ray as in
    /// `cast_ray_closest`'s one-collider path.
    fn cast_rays_lone_mesh(
        &self,
        rays: &[Ray],
        filter: &QueryFilter,
        slot: u32,
        mesh: &TriMesh,
        pose: &Isometry,
        out: &mut Vec<Option<SceneRayHit>>,
    ) {
        let mut hits = [None; PACKET_SIZE];
        for packet in rays.chunks(PACKET_SIZE) {
            mesh.cast_packet_posed(packet, pose, &mut hits[..packet.len()]);
            out.extend(packet.iter().zip(&hits).map(|(ray, hit)| {
                let best =
                    hit.map(|h| Best { slot, toi: h.hit.toi, normal: Ok(h.hit.normal), triangle: Some(h.triangle) });
                self.finish_closest(ray, filter, best, best.map_or(ray.max_toi(), |b| b.toi))
            }));
        }
    }

    /// [`Scene::cast_ray_closest`] for a chunk of rays, the static pass batched.
    fn cast_rays_batched(&self, rays: &[Ray], filter: &QueryFilter, out: &mut Vec<Option<SceneRayHit>>) {
        let mut best: Vec<Option<Best>> = vec![None; rays.len()];
        let mut max_toi: Vec<Real> = rays.iter().map(Ray::max_toi).collect();
        if let Some((tree, pass)) = self.static_pass(filter) {
            let pre: Vec<PrecomputedRay> = rays.iter().map(PrecomputedRay::new).collect();
            tree.visit_rays_leaves(rays, |i, slots, entry| {
                pass.leaf(&rays[i], &pre[i], slots, entry, &mut best[i], &mut max_toi[i])
            });
        }
        out.extend(rays.iter().enumerate().map(|(i, r)| self.finish_closest(r, filter, best[i], max_toi[i])));
    }

    /// The exact test of the collider in `slot` (`any`: a mesh stops at its
    /// first triangle hit), `None` when the filter rejects it.
    fn exact_ray_hit(&self, slot: u32, ray: &Ray, filter: &QueryFilter, any: bool) -> Option<Best> {
        let collider = &self.colliders[slot];
        if !filter.accepts(self.handle_of(slot), collider) {
            return None;
        }
        let h = collider.world.ray_hit(ray, any)?;
        Some(Best { slot, toi: h.hit.toi, normal: Ok(h.hit.normal), triangle: h.triangle })
    }
}

/// Rays per task of the batches on more than one thread: enough to
/// amortise rayon's scheduling, few enough to balance the threads.
const BATCH_CHUNK: usize = 64;

/// `out[i]` for `rays[i]`: `fill` appends the results of a run of rays to
/// a vector. On one thread (no `parallel` feature, or a one-thread pool) the
/// rays go straight into one vector, as a loop of single calls would collect
/// them, so the batch costs what that loop does. On more, runs of
/// [`BATCH_CHUNK`] rays are spread over the threads of the current rayon
/// pool, each writing its results in place.
fn spread<T, F>(rays: &[Ray], fill: F) -> Vec<T>
where
    T: Send + Default + Clone,
    F: Fn(&[Ray], &mut Vec<T>) + Sync,
{
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        let mut out = vec![T::default(); rays.len()];
        out.par_chunks_mut(BATCH_CHUNK).zip(rays.par_chunks(BATCH_CHUNK)).for_each(|(out, rays)| {
            let mut run = Vec::with_capacity(rays.len());
            fill(rays, &mut run);
            for (o, r) in out.iter_mut().zip(run) {
                *o = r;
            }
        });
        return out;
    }
    let mut out = Vec::with_capacity(rays.len());
    fill(rays, &mut out);
    out
}
