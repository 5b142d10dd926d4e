//! A mesh's ray queries in the mesh frame: the closest (or any) hit of one
//! ray, and batches of rays cast in packets, spread over the rayon pool with
//! the `parallel` feature.
//!
//! Invariant: a batch gives each ray the single call's answer, bit for bit,
//! whatever the packet grouping and the thread count.

use proxima_narrowphase::Ray;

use super::{MeshRayHit, TriMesh};

impl TriMesh {
    /// The closest hit of `ray` (mesh frame): the triangle and the hit,
    /// as [`cast_ray_triangle`](proxima_narrowphase::cast_ray_triangle) gives
    /// it (two-sided, closed edges, normal facing the ray's origin, the same
    /// bits), and the hit point's barycentric coordinates on it. Ties in
    /// `toi` keep one of the tied triangles. [`TriMesh::cast_ray_any`] is the
    /// cast for shadow rays.
    ///
    /// Rays use their own BVH over blocks of 8 neighbouring triangles, each
    /// block tested at once (see `trimesh/ray.rs`); only the final hit gets
    /// its normal.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    /// // Down onto the upper-left half (x < y): triangle 1, normal facing the ray's origin.
    /// let ray = Ray::new(Point::new(0.25, 0.75, 2.0), -Vector::z(), 10.0);
    /// let hit = mesh.cast_ray_closest(&ray).unwrap();
    /// assert_eq!((hit.triangle.index, hit.hit.toi), (1, 2.0));
    /// // The point is a + 0.25 (b - a) + 0.5 (c - a), triangle [0, 2, 3].
    /// assert!((hit.triangle.u - 0.25).abs() < 1e-6 && (hit.triangle.v - 0.5).abs() < 1e-6);
    /// assert_eq!(hit.hit.normal.into_inner(), Vector::z());
    /// ```
    pub fn cast_ray_closest(&self, ray: &Ray) -> Option<MeshRayHit> {
        self.tree.cast(ray, false)
    }

    /// A hit of `ray` (mesh frame), the first triangle hit found (shadow
    /// rays): a hit exactly when [`TriMesh::cast_ray_closest`] has one, but
    /// not necessarily the closest; the same triangle, hit, barycentrics
    /// and tie rules otherwise.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let mesh = TriMesh::new(vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0)], vec![[0, 1, 2]]).unwrap();
    /// let down = Ray::new(Point::new(0.75, 0.25, 2.0), -Vector::z(), 10.0);
    /// assert!(mesh.cast_ray_any(&down).is_some());
    /// let short = Ray::new(Point::new(0.75, 0.25, 2.0), -Vector::z(), 1.0);
    /// assert!(mesh.cast_ray_any(&short).is_none());
    /// ```
    pub fn cast_ray_any(&self, ray: &Ray) -> Option<MeshRayHit> {
        self.tree.cast(ray, true)
    }

    /// The former form of [`TriMesh::cast_ray_closest`] (`any: false`) and
    /// [`TriMesh::cast_ray_any`] (`any: true`).
    #[deprecated(since = "0.2.0", note = "use `cast_ray_closest` or `cast_ray_any`, as `Scene`")]
    pub fn cast_ray(&self, ray: &Ray, any: bool) -> Option<MeshRayHit> {
        self.tree.cast(ray, any)
    }

    /// [`TriMesh::cast_ray_closest`] for each ray, in input order,
    /// into `out` (cleared first): the same hit for every ray, bit for bit,
    /// whatever the thread count.
    ///
    /// Consecutive rays are cast in packets of
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE) that traverse the
    /// tree together
    /// ([`StaticBvh::visit_packet_leaves`](proxima_broadphase::StaticBvh::visit_packet_leaves)):
    /// order coherent rays so that neighbours are consecutive (a camera's
    /// pixels in 4 x 2 tiles, say) and the batch runs faster than one ray at
    /// a time; incoherent rays run at about the speed of single rays. With
    /// the `parallel` feature the packets are spread over the threads of the
    /// current rayon pool (run it inside `rayon::ThreadPool::install` to
    /// choose the pool, one thread included).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let mesh = TriMesh::new(vec![p(0.0, 0.0), p(1.0, 0.0), p(0.0, 1.0)], vec![[0, 1, 2]]).unwrap();
    /// let rays: Vec<Ray> =
    ///     (0..10).map(|i| Ray::new(Point::new(0.1 * i as f32, 0.2, 1.0), -Vector::z(), 5.0)).collect();
    /// let mut hits = Vec::new();
    /// mesh.cast_rays_into(&rays, &mut hits);
    /// for (ray, hit) in rays.iter().zip(&hits) {
    ///     assert_eq!(*hit, mesh.cast_ray_closest(ray));
    /// }
    /// assert_eq!(hits.iter().filter(|h| h.is_some()).count(), 8);
    /// ```
    pub fn cast_rays_into(&self, rays: &[Ray], out: &mut Vec<Option<MeshRayHit>>) {
        use proxima_broadphase::PACKET_SIZE;
        out.clear();
        out.resize(rays.len(), None);
        let packets = |(rays, out): (&[Ray], &mut [Option<MeshRayHit>])| {
            for (rays, out) in rays.chunks(PACKET_SIZE).zip(out.chunks_mut(PACKET_SIZE)) {
                self.tree.cast_packet(rays, out);
            }
        };
        spread_into(rays, out, packets);
    }

    /// Whether each ray hits the mesh (shadow rays, line of sight), in input
    /// order, into `out` (cleared first): `out[i]` is
    /// `cast_ray_any(&rays[i]).is_some()`, whatever the thread count.
    /// Like [`TriMesh::cast_rays_into`], consecutive rays are cast in packets
    /// that traverse the tree together, each ray retired at its first hit:
    /// keep neighbouring rays consecutive. With the `parallel` feature the
    /// packets are spread over the threads of the current rayon pool.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let mesh = TriMesh::new(vec![p(0.0, 0.0), p(1.0, 0.0), p(0.0, 1.0)], vec![[0, 1, 2]]).unwrap();
    /// let rays: Vec<Ray> =
    ///     (0..10).map(|i| Ray::new(Point::new(0.1 * i as f32, 0.2, 1.0), -Vector::z(), 5.0)).collect();
    /// let mut blocked = Vec::new();
    /// mesh.occluded_into(&rays, &mut blocked);
    /// assert_eq!(blocked.iter().filter(|&&b| b).count(), 8);
    /// ```
    pub fn occluded_into(&self, rays: &[Ray], out: &mut Vec<bool>) {
        use proxima_broadphase::PACKET_SIZE;
        out.clear();
        out.resize(rays.len(), false);
        let packets = |(rays, out): (&[Ray], &mut [bool])| {
            for (rays, out) in rays.chunks(PACKET_SIZE).zip(out.chunks_mut(PACKET_SIZE)) {
                self.tree.occluded_packet(rays, out);
            }
        };
        spread_into(rays, out, packets);
    }

    /// [`TriMesh::cast_ray_any`] (a hit, not necessarily the
    /// closest: shadow rays) for each ray, in input order, into `out`
    /// (cleared first): each ray's result is the single call's, whatever the
    /// thread count. With the `parallel` feature the rays are spread over the
    /// threads of the current rayon pool.
    pub fn cast_rays_any_into(&self, rays: &[Ray], out: &mut Vec<Option<MeshRayHit>>) {
        out.clear();
        out.resize(rays.len(), None);
        let each = |(rays, out): (&[Ray], &mut [Option<MeshRayHit>])| {
            for (ray, o) in rays.iter().zip(out) {
                *o = self.tree.cast(ray, true);
            }
        };
        spread_into(rays, out, each);
    }

    /// The former name of [`TriMesh::cast_rays_into`].
    #[deprecated(since = "0.2.0", note = "renamed `cast_rays_into`, as `Scene::cast_rays_into`")]
    pub fn cast_rays(&self, rays: &[Ray], out: &mut Vec<Option<MeshRayHit>>) {
        self.cast_rays_into(rays, out);
    }

    /// The former name of [`TriMesh::occluded_into`].
    #[deprecated(since = "0.2.0", note = "renamed `occluded_into`, as `Scene::occluded_into`")]
    pub fn occluded(&self, rays: &[Ray], out: &mut Vec<bool>) {
        self.occluded_into(rays, out);
    }

    /// The former name of [`TriMesh::cast_rays_any_into`].
    #[deprecated(since = "0.2.0", note = "renamed `cast_rays_any_into`, as `Scene::cast_rays_any_into`")]
    pub fn cast_rays_any(&self, rays: &[Ray], out: &mut Vec<Option<MeshRayHit>>) {
        self.cast_rays_any_into(rays, out);
    }
}

/// `fill` on `(rays, out)` in runs of 256 rays (32 packets) spread over the
/// current rayon pool with the `parallel` feature and more than one thread
/// (enough rays per task to amortise the scheduling); on one thread, one
/// plain call.
fn spread_into<T: Send>(rays: &[Ray], out: &mut [T], fill: impl Fn((&[Ray], &mut [T])) + Sync) {
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        rays.par_chunks(256).zip(out.par_chunks_mut(256)).for_each(&fill);
        return;
    }
    fill((rays, out));
}
