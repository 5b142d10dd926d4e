//! Batches of rays: [`Scene::cast_rays`], [`Scene::occluded`] and
//! [`Scene::cast_rays_any`] (and their `_into` forms, which fill a kept
//! vector), each ray's answer its single call's, spread
//! over the threads of the current rayon pool with the `parallel` feature.
//! A static set of one mesh is cast in packets, a very large one with
//! several traversals in flight.

use proxima_broadphase::PACKET_SIZE;
use proxima_narrowphase::kernels::PrecomputedRay;
use proxima_narrowphase::{Isometry, Ray, Real};

use super::{Best, SceneRayHit};
use crate::filter::{groups_interact, QueryFilter};
use crate::scene::Scene;
use crate::shape::WorldShape;
use crate::trimesh::TriMesh;

/// Static colliders from which [`Scene::cast_rays`] batches the static
/// pass. Below it the tree nearly fits in cache, so there are few misses to
/// overlap and switching between rays costs more than it saves; above it,
/// several traversals in flight hide each other's cache misses (measured
/// on sparse random box scenes, `proxima_test_support::scene::boxes`).
const BATCH_MIN_STATIC: usize = 200_000;

impl Scene {
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
    /// ([`TriMesh::cast_rays_into`]): order coherent rays so that neighbours are
    /// consecutive (a camera's pixels in 4 x 2 tiles), so a packet shares
    /// its node visits; each ray's hit is still its single call's.
    ///
    /// With 200,000 static colliders or more, the static pass runs on chunks
    /// of rays with several traversals in flight
    /// ([`StaticBvh::visit_rays_leaves`](proxima_broadphase::StaticBvh::visit_rays_leaves)),
    /// which overlaps their cache misses; each ray still visits its leaves in
    /// the sequential order, so the results are the same.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(5.0, 0.0, 0.0)))
    ///     .unwrap();
    /// let rays = [Ray::new(Point::origin(), Vector::x(), 100.0), Ray::new(Point::origin(), Vector::y(), 100.0)];
    /// let hits = scene.cast_rays(&rays, &QueryFilter::default());
    /// assert_eq!(hits[0].map(|h| h.toi), Some(4.0));
    /// assert!(hits[1].is_none());
    /// ```
    pub fn cast_rays(&self, rays: &[Ray], filter: &QueryFilter) -> Vec<Option<SceneRayHit>> {
        let mut out = Vec::new();
        self.cast_rays_into(rays, filter, &mut out);
        out
    }

    /// [`Scene::cast_rays`] into `out` (cleared first, its capacity kept for
    /// the next batch), as [`TriMesh::cast_rays_into`].
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(5.0, 0.0, 0.0)))
    ///     .unwrap();
    /// let mut hits = Vec::new();
    /// for y in [0.0, 3.0] {
    ///     let rays = [Ray::new(Point::new(0.0, y, 0.0), Vector::x(), 100.0)];
    ///     scene.cast_rays_into(&rays, &QueryFilter::default(), &mut hits);
    ///     assert_eq!(hits.len(), 1);
    /// }
    /// assert!(hits[0].is_none());
    /// ```
    pub fn cast_rays_into(&self, rays: &[Ray], filter: &QueryFilter, out: &mut Vec<Option<SceneRayHit>>) {
        let batch = self.static_set.len() >= BATCH_MIN_STATIC;
        let lone_mesh = self.lone_static_mesh(filter);
        spread_into(rays, out, |rays, out| {
            if let Some((slot, mesh, pose)) = lone_mesh {
                self.cast_rays_lone_mesh(rays, filter, slot, mesh, pose, out);
            } else if batch {
                for chunk in rays.chunks(BATCH_CHUNK) {
                    self.cast_rays_batched(chunk, filter, out);
                }
            } else {
                out.extend(rays.iter().map(|ray| self.cast_ray_closest(ray, filter)));
            }
        });
    }

    /// Whether each ray hits a collider the filter accepts (shadow rays,
    /// line of sight): `out[i]` is `cast_ray_any(&rays[i], filter).is_some()`,
    /// whatever the thread count, without the hits. With the `parallel`
    /// feature the rays are spread over the threads of the current rayon
    /// pool (run it inside `rayon::ThreadPool::install` to choose the pool).
    ///
    /// When the static set is one mesh collider that the filter accepts, its
    /// rays are cast in packets of [`PACKET_SIZE`] consecutive rays
    /// ([`TriMesh::occluded_into`]), each retired at its first hit: keep
    /// neighbouring rays consecutive (shadow rays from a camera's tiles, say),
    /// so a packet shares its node visits. A ray the mesh does not stop goes
    /// on to the dynamic colliders.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.1, 5.0, 5.0) };
    /// scene.insert(ColliderDesc::new(wall, Isometry::translation(5.0, 0.0, 0.0)).fixed()).unwrap();
    /// let rays = [Ray::new(Point::origin(), Vector::x(), 10.0), Ray::new(Point::origin(), -Vector::x(), 10.0)];
    /// assert_eq!(scene.occluded(&rays, &QueryFilter::default()), [true, false]);
    /// ```
    pub fn occluded(&self, rays: &[Ray], filter: &QueryFilter) -> Vec<bool> {
        let mut out = Vec::new();
        self.occluded_into(rays, filter, &mut out);
        out
    }

    /// [`Scene::occluded`] into `out` (cleared first, its capacity kept for
    /// the next batch), as [`TriMesh::occluded_into`].
    pub fn occluded_into(&self, rays: &[Ray], filter: &QueryFilter, out: &mut Vec<bool>) {
        let lone_mesh = self.lone_static_mesh(filter);
        spread_into(rays, out, |rays, out| {
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
        });
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
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Ray, Vector};
    /// let mut scene = Scene::new();
    /// scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(5.0, 0.0, 0.0)))
    ///     .unwrap();
    /// let rays = [Ray::new(Point::origin(), Vector::x(), 100.0), Ray::new(Point::origin(), Vector::y(), 100.0)];
    /// let hits = scene.cast_rays_any(&rays, &QueryFilter::default());
    /// assert!(hits[0].is_some() && hits[1].is_none());
    /// ```
    pub fn cast_rays_any(&self, rays: &[Ray], filter: &QueryFilter) -> Vec<Option<SceneRayHit>> {
        let mut out = Vec::new();
        self.cast_rays_any_into(rays, filter, &mut out);
        out
    }

    /// [`Scene::cast_rays_any`] into `out` (cleared first, its capacity kept
    /// for the next batch), as [`TriMesh::cast_rays_any_into`].
    pub fn cast_rays_any_into(&self, rays: &[Ray], filter: &QueryFilter, out: &mut Vec<Option<SceneRayHit>>) {
        spread_into(rays, out, |rays, out| out.extend(rays.iter().map(|ray| self.cast_ray_any(ray, filter))));
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
                let best = hit.map(|h| Best {
                    slot,
                    toi: h.hit.toi,
                    normal: Ok(h.hit.normal),
                    triangle: Some(h.triangle),
                    child: None,
                });
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
}

/// Rays per task of the batches on more than one thread: enough to
/// amortise rayon's scheduling, few enough to balance the threads.
const BATCH_CHUNK: usize = 64;

/// `out[i]` for `rays[i]` (`out` cleared first): `fill` appends the results
/// of a run of rays to a vector. On one thread (no `parallel` feature, or a
/// one-thread pool) the rays go straight into `out`, as a loop of single
/// calls would collect them, so the batch costs what that loop does. On
/// more, runs of [`BATCH_CHUNK`] rays are spread over the threads of the
/// current rayon pool, each writing its results in place.
fn spread_into<T, F>(rays: &[Ray], out: &mut Vec<T>, fill: F)
where
    T: Send + Default + Clone,
    F: Fn(&[Ray], &mut Vec<T>) + Sync,
{
    out.clear();
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        out.resize(rays.len(), T::default());
        out.par_chunks_mut(BATCH_CHUNK).zip(rays.par_chunks(BATCH_CHUNK)).for_each(|(out, rays)| {
            let mut run = Vec::with_capacity(rays.len());
            fill(rays, &mut run);
            for (o, r) in out.iter_mut().zip(run) {
                *o = r;
            }
        });
        return;
    }
    out.reserve_exact(rays.len());
    fill(rays, out);
}
