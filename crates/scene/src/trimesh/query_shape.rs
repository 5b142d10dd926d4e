//! Points and convex shapes against a mesh (mesh frame unless posed): the
//! sphere sweep, the closest point, point containment, overlap tests and
//! deepest contacts. Each culls the triangles by one box query
//! (`TriMesh::visit_candidates`) and runs the narrowphase test on each
//! candidate triangle.

use core::ops::ControlFlow;

use proxima_narrowphase::{
    cast_sphere_triangle, closest_point_triangle, contact_capsule_triangle, contact_obb_triangle,
    contact_sphere_triangle, intersects_aabb_triangle, intersects_sphere_triangle, Aabb, Capsule, Contact, Isometry,
    Obb, Point, Sphere, SweepHit, Triangle, Vector,
};

use super::{MeshClosestPoint, TriMesh};

impl TriMesh {
    /// The first hit of a sphere moving by `motion` (all in the mesh frame).
    pub fn cast_sphere(&self, sphere: &Sphere, motion: &Vector) -> Option<SweepHit> {
        let swept = sphere.swept_aabb(motion)?;
        let mut best: Option<SweepHit> = None;
        let _ = self.visit_candidates(&swept, |_, t| {
            if let Some(hit) = cast_sphere_triangle(sphere, motion, t) {
                if best.is_none_or(|b| hit.toi < b.toi) {
                    best = Some(hit);
                }
            }
            ControlFlow::Continue(())
        });
        best
    }

    /// [`TriMesh::cast_sphere`] in world space against the mesh placed by `pose`.
    pub fn cast_sphere_posed(&self, sphere: &Sphere, motion: &Vector, pose: &Isometry) -> Option<SweepHit> {
        let local = Sphere::try_new(pose.inverse_transform_point(sphere.center()), sphere.radius()).ok()?;
        let hit = self.cast_sphere(&local, &pose.inverse_transform_vector(motion))?;
        Some(SweepHit { point: pose.transform_point(&hit.point), normal: pose.rotation * hit.normal, ..hit })
    }

    /// The triangle closest to `p` and its closest point (mesh frame).
    ///
    /// Any triangle's distance `d` bounds the answer, and every triangle within
    /// `d` overlaps the box `p ± d`: one box query around the first estimate.
    pub fn closest_point(&self, p: &Point) -> Option<MeshClosestPoint> {
        let first = closest_point_triangle(p, &self.triangle(0));
        let mut best = (0u32, first, (p - first).norm());
        let query = Aabb::try_from_center(*p, Vector::repeat(best.2)).ok()?;
        let _ = self.visit_candidates(&query, |tri, t| {
            let q = closest_point_triangle(p, t);
            let d = (p - q).norm();
            if d < best.2 {
                best = (tri, q, d);
            }
            ControlFlow::Continue(())
        });
        Some(MeshClosestPoint { triangle: best.0, point: best.1 })
    }

    /// True when `p` (mesh frame) lies on a triangle (within each triangle's
    /// own tolerance, see [`Triangle::contains_point`]).
    pub fn contains_point(&self, p: &Point) -> bool {
        let probe = Aabb::try_from_center(*p, Vector::zeros()).ok();
        probe.is_some_and(|probe| {
            self.visit_candidates(&probe.loosened(1e-6), |_, t| {
                if t.contains_point(p) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .is_break()
        })
    }

    /// True when the sphere (mesh frame) touches a triangle.
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        self.visit_candidates(&sphere.aabb(), |_, t| {
            if intersects_sphere_triangle(sphere, t) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break()
    }

    /// True when the oriented box (mesh frame) touches a triangle: each
    /// candidate triangle is taken into the box frame and tested against the
    /// box as an axis-aligned one (13-axis SAT).
    pub fn intersects_obb(&self, obb: &Obb) -> bool {
        let local_box = Aabb::new(Point::from(-obb.half_extents()), Point::from(*obb.half_extents()));
        self.visit_candidates(&obb.aabb(), |_, t| {
            let [a, b, c] = t.vertices().map(|v| Point::from(obb.to_local(&v)));
            match Triangle::try_new(a, b, c) {
                Ok(lt) if intersects_aabb_triangle(&local_box, &lt) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        })
        .is_break()
    }

    /// True when the capsule (mesh frame) touches a triangle
    /// (`contact_capsule_triangle` on the triangles whose boxes overlap its box).
    pub fn intersects_capsule(&self, capsule: &Capsule) -> bool {
        self.visit_candidates(&capsule.aabb(), |_, t| {
            if contact_capsule_triangle(capsule, t).is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break()
    }

    /// The deepest contact between sphere A and this mesh B (mesh frame)
    /// (see `contact_sphere_triangle`): the triangle whose closest point is
    /// nearest the centre.
    pub fn contact_sphere(&self, sphere: &Sphere) -> Option<Contact> {
        self.deepest(&sphere.aabb(), |t| contact_sphere_triangle(sphere, t))
    }

    /// The deepest contact between box A and this mesh B (mesh frame): the
    /// triangle contact of greatest depth among the triangles whose boxes
    /// overlap A's (see `contact_obb_triangle`).
    pub fn contact_obb(&self, obb: &Obb) -> Option<Contact> {
        self.deepest(&obb.aabb(), |t| contact_obb_triangle(obb, t))
    }

    /// The deepest contact between capsule A and this mesh B (mesh frame)
    /// (see `contact_capsule_triangle`).
    pub fn contact_capsule(&self, capsule: &Capsule) -> Option<Contact> {
        self.deepest(&capsule.aabb(), |t| contact_capsule_triangle(capsule, t))
    }

    /// The deepest contact between a placed hull A and this mesh B (mesh
    /// frame): GJK and EPA against each triangle whose box overlaps A's.
    pub(crate) fn contact_hull(&self, hull: &crate::hull::PosedHull<'_>) -> Option<Contact> {
        let cull = crate::hull::world_aabb(hull.hull, hull.pose);
        self.deepest(&cull, |t| proxima_narrowphase::contact_convex(hull, t, 0.0))
    }

    /// The contact of greatest depth over the triangles overlapping `cull`.
    fn deepest(&self, cull: &Aabb, contact: impl Fn(&Triangle) -> Option<Contact>) -> Option<Contact> {
        let mut best: Option<Contact> = None;
        let _ = self.visit_candidates(cull, |_, t| {
            if let Some(c) = contact(t) {
                if best.is_none_or(|b| c.depth > b.depth) {
                    best = Some(c);
                }
            }
            ControlFlow::Continue(())
        });
        best
    }
}
