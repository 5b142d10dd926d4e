//! World rays against a mesh placed by a pose: each ray is taken into the
//! mesh frame (unchanged under the identity pose, moved under a
//! translation, moved and rotated otherwise), cast there, and its hit's
//! normal taken back to the world.
//!
//! Invariant: a packet's answer for each ray is the single posed cast's,
//! bit for bit (the same local ray, the same tie rule).

use proxima_narrowphase::{Isometry, Point, Ray, RayHit, Vector};

use super::{MeshRayHit, TriMesh};

impl TriMesh {
    /// [`TriMesh::cast_ray_closest`] for a world ray against the mesh placed
    /// by `pose`, the normal in the world. An isometry preserves the ray
    /// parameter, so `toi` needs no rescaling.
    ///
    /// Under the identity pose (a static mesh placed where it was modelled,
    /// the common case) the world ray is the mesh ray: it is cast as it is,
    /// without building a second `Ray` (whose fresh, piecewise stores the
    /// traversal's whole-vector loads would wait on).
    pub fn cast_ray_closest_posed(&self, ray: &Ray, pose: &Isometry) -> Option<MeshRayHit> {
        self.ray_posed(ray, pose, false)
    }

    /// [`TriMesh::cast_ray_any`] (a hit, not necessarily the closest: shadow
    /// rays) for a world ray against the mesh placed by `pose`, as
    /// [`TriMesh::cast_ray_closest_posed`].
    pub fn cast_ray_any_posed(&self, ray: &Ray, pose: &Isometry) -> Option<MeshRayHit> {
        self.ray_posed(ray, pose, true)
    }

    /// The former form of [`TriMesh::cast_ray_closest_posed`] (`any: false`)
    /// and [`TriMesh::cast_ray_any_posed`] (`any: true`).
    #[deprecated(since = "0.2.0", note = "use `cast_ray_closest_posed` or `cast_ray_any_posed`")]
    pub fn cast_ray_posed(&self, ray: &Ray, pose: &Isometry, any: bool) -> Option<MeshRayHit> {
        self.ray_posed(ray, pose, any)
    }

    /// [`TriMesh::cast_ray_closest_posed`] (with `any`,
    /// [`TriMesh::cast_ray_any_posed`]), inlined into the scene's ray
    /// queries, so that the mesh's hit is not copied whole once more on its
    /// way up (a copy read back just after the field-by-field stores of the
    /// hit stalls on them).
    #[inline(always)]
    pub(crate) fn ray_posed(&self, ray: &Ray, pose: &Isometry, any: bool) -> Option<MeshRayHit> {
        let placement = Placement::of(pose);
        let local;
        let ray = if placement == Placement::Identity {
            // The mesh frame is the world frame: the ray is the local ray.
            ray
        } else {
            local = placement.local_ray(ray, pose)?;
            &local
        };
        let h = self.tree.cast(ray, any)?;
        Some(placement.to_world(h, pose))
    }

    /// [`TriMesh::ray_posed`] (closest hit) for a packet of at most
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE) world rays
    /// (`out[r]` for `rays[r]`): each ray's result is `ray_posed`'s, bit for
    /// bit (the same local ray, the same tie rule).
    pub(crate) fn cast_packet_posed(&self, rays: &[Ray], pose: &Isometry, out: &mut [Option<MeshRayHit>]) {
        use proxima_broadphase::PACKET_SIZE;
        let placement = Placement::of(pose);
        if placement == Placement::Identity {
            // The rays themselves: a copy would be stored piecewise and read
            // back whole by the traversal (a store-forwarding stall per ray).
            return self.tree.cast_packet(rays, out);
        }
        let mut local = [Ray::new(Point::origin(), Vector::x(), 0.0); PACKET_SIZE];
        let mut from = [0usize; PACKET_SIZE];
        let n = placement.local_rays(rays, pose, &mut local, &mut from);
        out[..rays.len()].fill(None);
        let mut hits = [None; PACKET_SIZE];
        self.tree.cast_packet(&local[..n], &mut hits[..n]);
        for (k, hit) in hits[..n].iter().enumerate() {
            out[from[k]] = hit.map(|h| placement.to_world(h, pose));
        }
    }

    /// [`TriMesh::occluded_into`] for a packet of at most
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE) world rays against
    /// the mesh placed by `pose`: `out[r]` is
    /// `ray_posed(&rays[r], pose, true).is_some()` (the same local rays).
    pub(crate) fn occluded_packet_posed(&self, rays: &[Ray], pose: &Isometry, out: &mut [bool]) {
        use proxima_broadphase::PACKET_SIZE;
        let placement = Placement::of(pose);
        if placement == Placement::Identity {
            // The rays themselves (see `cast_packet_posed`).
            return self.tree.occluded_packet(rays, out);
        }
        let mut local = [Ray::new(Point::origin(), Vector::x(), 0.0); PACKET_SIZE];
        let mut from = [0usize; PACKET_SIZE];
        let n = placement.local_rays(rays, pose, &mut local, &mut from);
        out[..rays.len()].fill(false);
        let mut blocked = [false; PACKET_SIZE];
        self.tree.occluded_packet(&local[..n], &mut blocked[..n]);
        for k in 0..n {
            out[from[k]] = blocked[k];
        }
    }
}

/// How a pose places a mesh, which decides how a world ray becomes a mesh
/// ray: as it is, moved, or moved and rotated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// The mesh frame is the world frame.
    Identity,
    /// A translation: directions and normals are unchanged (the same bits as
    /// the rotation by the identity would give).
    Translated,
    /// A rotation, and perhaps a translation.
    Rotated,
}

impl Placement {
    /// The placement by `pose` (compared per component: nalgebra's `==` on
    /// vectors is an iterator fold).
    #[inline(always)]
    fn of(pose: &Isometry) -> Self {
        let q = pose.rotation.as_ref();
        let t = pose.translation.vector;
        if q.i != 0.0 || q.j != 0.0 || q.k != 0.0 || q.w != 1.0 {
            Self::Rotated
        } else if t.x == 0.0 && t.y == 0.0 && t.z == 0.0 {
            Self::Identity
        } else {
            Self::Translated
        }
    }

    /// The mesh-frame ray of world ray `ray` under `pose`, `None` when the
    /// local direction does not make a ray (it then hits nothing).
    #[inline(always)]
    fn local_ray(self, ray: &Ray, pose: &Isometry) -> Option<Ray> {
        match self {
            Self::Identity => Some(*ray),
            Self::Translated => Ray::try_new(ray.origin() - pose.translation.vector, *ray.dir(), ray.max_toi()).ok(),
            Self::Rotated => {
                let (o, d) = (pose.inverse_transform_point(ray.origin()), pose.inverse_transform_vector(ray.dir()));
                Ray::try_new(o, d, ray.max_toi()).ok()
            }
        }
    }

    /// The mesh-frame rays of `rays` (at most
    /// [`PACKET_SIZE`](proxima_broadphase::PACKET_SIZE)) into `local[..n]`,
    /// and for each the index of its world ray in `from`; returns `n` (a ray
    /// without a local ray is left out).
    fn local_rays(self, rays: &[Ray], pose: &Isometry, local: &mut [Ray], from: &mut [usize]) -> usize {
        let mut n = 0;
        for (r, ray) in rays.iter().enumerate() {
            if let Some(l) = self.local_ray(ray, pose) {
                (local[n], from[n]) = (l, r);
                n += 1;
            }
        }
        n
    }

    /// A mesh-frame hit back in the world: its normal rotated by `pose`.
    #[inline(always)]
    fn to_world(self, h: MeshRayHit, pose: &Isometry) -> MeshRayHit {
        match self {
            Self::Rotated => MeshRayHit { hit: RayHit { normal: pose.rotation * h.hit.normal, ..h.hit }, ..h },
            Self::Identity | Self::Translated => h,
        }
    }
}
