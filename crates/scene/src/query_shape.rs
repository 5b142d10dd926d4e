//! Swept-sphere, overlap and point queries.

use core::ops::ControlFlow;

use proxima_narrowphase::{
    intersects_aabb_aabb, intersects_aabb_obb, intersects_capsule_aabb, intersects_capsule_capsule,
    intersects_capsule_obb, intersects_obb_obb, intersects_sphere_aabb, intersects_sphere_capsule,
    intersects_sphere_obb, intersects_sphere_sphere, Aabb, Capsule, Obb, Point, Real, Sphere, SweepHit, Vector,
};

use crate::collider::ColliderHandle;
use crate::filter::QueryFilter;
use crate::mesh_frame::{capsule_in, obb_in, sphere_in};
use crate::scene::Scene;
use crate::shape::WorldShape;

/// A swept sphere's first hit on a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneSweepHit {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// Time of impact, point and normal (see [`SweepHit`]).
    pub hit: SweepHit,
}

/// The collider closest to a point (see [`Scene::closest_point`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneClosestPoint {
    /// The collider.
    pub collider: ColliderHandle,
    /// Its point closest to the query point (world frame; the query point
    /// itself when it lies inside a solid).
    pub point: Point,
    /// The distance from the query point to `point`, `>= 0`.
    pub distance: Real,
}

/// The shapes an overlap query can be made with.
#[derive(Clone, Copy, Debug)]
enum Probe<'a> {
    Aabb(&'a Aabb),
    Sphere(&'a Sphere),
    Obb(&'a Obb),
    Capsule(&'a Capsule),
}

impl Scene {
    /// The first hit of `sphere` moving by `motion` (toi in `[0, 1]`), culled
    /// by the swept box (start and end merged) and confirmed by the exact
    /// sweep of each candidate. Ties keep the first found.
    ///
    /// Precondition: `motion` is finite (checked in debug builds; in release
    /// a NaN or infinite motion is a miss, `None`).
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Sphere, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Aabb { half_extents: Vector::new(0.5, 5.0, 5.0) };
    /// let h = scene.insert(ColliderDesc::new(wall, Isometry::translation(10.0, 0.0, 0.0)).fixed()).unwrap();
    /// // A sphere of radius 1 from the origin, moving 20 along x, touches the face x = 9.5 at x = 8.5.
    /// let sphere = Sphere::new(Point::origin(), 1.0);
    /// let hit = scene.cast_sphere(&sphere, &Vector::new(20.0, 0.0, 0.0), &QueryFilter::default()).unwrap();
    /// assert_eq!(hit.collider, h);
    /// assert!((hit.hit.toi - 8.5 / 20.0).abs() < 1e-6);
    /// ```
    pub fn cast_sphere(&self, sphere: &Sphere, motion: &Vector, filter: &QueryFilter) -> Option<SceneSweepHit> {
        debug_assert!(motion.iter().all(|x| x.is_finite()), "Scene::cast_sphere: motion {motion:?} is not finite");
        let swept = sphere.swept_aabb(motion)?;
        let mut best: Option<SceneSweepHit> = None;
        self.visit_candidates(&swept, |slot| {
            let collider = &self.colliders[slot];
            let handle = self.handle_of(slot);
            if filter.accepts(handle, collider) {
                if let Some(hit) = collider.world.cast_sphere(sphere, motion) {
                    if best.is_none_or(|b| hit.toi < b.hit.toi) {
                        best = Some(SceneSweepHit { collider: handle, hit });
                    }
                }
            }
            ControlFlow::Continue(())
        });
        best
    }

    /// Every hit of `sphere` moving by `motion` (toi in `[0, 1]`): each
    /// collider the filter accepts and the sphere touches on its way, with
    /// its first hit, sorted by `toi` (ties by handle). The first element is
    /// [`Scene::cast_sphere`]'s hit, up to ties. Colliders the sphere already
    /// overlaps at the start come first, with `toi = 0` and
    /// [`SweepStatus::Penetrating`](proxima_narrowphase::SweepStatus).
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Sphere, Vector};
    /// let mut scene = Scene::new();
    /// for x in [8.0, 4.0] {
    ///     scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0)))
    ///         .unwrap();
    /// }
    /// let sphere = Sphere::new(Point::origin(), 1.0);
    /// let hits = scene.cast_sphere_all(&sphere, &Vector::new(10.0, 0.0, 0.0), &QueryFilter::default());
    /// let tois: Vec<f32> = hits.iter().map(|h| h.hit.toi).collect();
    /// assert_eq!(tois.len(), 2);
    /// assert!((tois[0] - 0.2).abs() < 1e-6 && (tois[1] - 0.6).abs() < 1e-6);
    /// ```
    pub fn cast_sphere_all(&self, sphere: &Sphere, motion: &Vector, filter: &QueryFilter) -> Vec<SceneSweepHit> {
        let mut out = Vec::new();
        let Some(swept) = sphere.swept_aabb(motion) else { return out };
        self.visit_candidates(&swept, |slot| {
            let collider = &self.colliders[slot];
            let handle = self.handle_of(slot);
            if filter.accepts(handle, collider) {
                if let Some(hit) = collider.world.cast_sphere(sphere, motion) {
                    out.push(SceneSweepHit { collider: handle, hit });
                }
            }
            ControlFlow::Continue(())
        });
        out.sort_unstable_by(|p, q| p.hit.toi.total_cmp(&q.hit.toi).then(p.collider.cmp(&q.collider)));
        out
    }

    /// Colliders whose shape overlaps the box (exactly), sorted by handle.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Aabb, Isometry, Point};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// // The box's corner (0.9, 0.9, 0.9) is outside the sphere, though inside its bounding box.
    /// let corner = Aabb::new(Point::new(0.9, 0.9, 0.9), Point::new(2.0, 2.0, 2.0));
    /// assert!(scene.overlaps_aabb(&corner, &QueryFilter::default()).is_empty());
    /// let face = Aabb::new(Point::new(0.9, -0.1, -0.1), Point::new(2.0, 0.1, 0.1));
    /// assert_eq!(scene.overlaps_aabb(&face, &QueryFilter::default()), vec![h]);
    /// ```
    pub fn overlaps_aabb(&self, aabb: &Aabb, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps(Probe::Aabb(aabb), aabb, filter)
    }

    /// Colliders whose shape overlaps the sphere (exactly), sorted by handle.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point, Sphere, Vector};
    /// let mut scene = Scene::new();
    /// let crate_box = ColliderShape::Aabb { half_extents: Vector::repeat(1.0) };
    /// let h = scene.insert(ColliderDesc::new(crate_box, Isometry::identity())).unwrap();
    /// let blast = Sphere::new(Point::new(2.5, 0.0, 0.0), 1.5);
    /// assert_eq!(scene.overlaps_sphere(&blast, &QueryFilter::default()), vec![h]);
    /// ```
    pub fn overlaps_sphere(&self, sphere: &Sphere, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps(Probe::Sphere(sphere), &sphere.aabb(), filter)
    }

    /// Colliders whose shape overlaps the oriented box (exactly), sorted by handle.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Obb, Point, Rotation, Vector};
    /// let mut scene = Scene::new();
    /// let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(2.0, 2.0, 0.0));
    /// let h = scene.insert(ball).unwrap();
    /// // A long thin box along the diagonal x = y reaches the sphere; along x it does not.
    /// let turn = Rotation::from_axis_angle(&Vector::z_axis(), core::f32::consts::FRAC_PI_4);
    /// let diagonal = Obb::new(Point::origin(), turn, Vector::new(4.0, 0.1, 0.1));
    /// assert_eq!(scene.overlaps_obb(&diagonal, &QueryFilter::default()), vec![h]);
    /// let along_x = Obb::new(Point::origin(), Rotation::identity(), Vector::new(4.0, 0.1, 0.1));
    /// assert!(scene.overlaps_obb(&along_x, &QueryFilter::default()).is_empty());
    /// ```
    pub fn overlaps_obb(&self, obb: &Obb, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps(Probe::Obb(obb), &obb.aabb(), filter)
    }

    /// Colliders whose shape overlaps the capsule (exactly), sorted by handle.
    /// A mesh overlaps it when one of its triangles does.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Capsule, Isometry, Point};
    /// let mut scene = Scene::new();
    /// let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(0.0, 3.0, 0.0));
    /// let h = scene.insert(ball).unwrap();
    /// let standing = Capsule::new(Point::new(0.0, 0.0, 0.0), Point::new(0.0, 1.8, 0.0), 0.3);
    /// assert_eq!(scene.overlaps_capsule(&standing, &QueryFilter::default()), vec![h]);
    /// let crouching = Capsule::new(Point::new(0.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0), 0.3);
    /// assert!(scene.overlaps_capsule(&crouching, &QueryFilter::default()).is_empty());
    /// ```
    pub fn overlaps_capsule(&self, capsule: &Capsule, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps(Probe::Capsule(capsule), &capsule.aabb(), filter)
    }

    /// Colliders containing `p` (on the surface, for meshes), sorted by handle.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// assert_eq!(scene.contains_point(&Point::new(0.5, 0.0, 0.0), &QueryFilter::default()), vec![h]);
    /// assert!(scene.contains_point(&Point::new(0.8, 0.8, 0.0), &QueryFilter::default()).is_empty());
    /// ```
    pub fn contains_point(&self, p: &Point, filter: &QueryFilter) -> Vec<ColliderHandle> {
        let mut out = Vec::new();
        let Ok(probe) = Aabb::try_new(*p, *p) else {
            return out; // a NaN or infinite point lies in nothing
        };
        self.visit_candidates(&probe, |slot| {
            let collider = &self.colliders[slot];
            let handle = self.handle_of(slot);
            if filter.accepts(handle, collider) && collider.world.contains_point(p) {
                out.push(handle);
            }
            ControlFlow::Continue(())
        });
        out.sort_unstable();
        out
    }

    /// The collider closest to `p` within `max_distance`, with its closest
    /// point and the distance (0 inside a solid). Ties keep the lower handle.
    ///
    /// ```
    /// use proxima_scene::*;
    /// use proxima_narrowphase::{Isometry, Point};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// let c = scene.closest_point(&Point::new(3.0, 0.0, 0.0), 5.0, &QueryFilter::default()).unwrap();
    /// assert_eq!((c.collider, c.point, c.distance), (h, Point::new(1.0, 0.0, 0.0), 2.0));
    /// assert!(scene.closest_point(&Point::new(3.0, 0.0, 0.0), 1.0, &QueryFilter::default()).is_none());
    /// ```
    pub fn closest_point(&self, p: &Point, max_distance: Real, filter: &QueryFilter) -> Option<SceneClosestPoint> {
        let probe = Aabb::try_from_center(*p, Vector::repeat(max_distance.max(0.0))).ok()?;
        let mut best: Option<SceneClosestPoint> = None;
        self.visit_candidates(&probe, |slot| {
            let collider = &self.colliders[slot];
            let handle = self.handle_of(slot);
            if filter.accepts(handle, collider) {
                let q = collider.world.closest_point(p);
                let d = (q - p).norm();
                let better = best.is_none_or(|b| d < b.distance || (d == b.distance && handle < b.collider));
                if d <= max_distance && better {
                    best = Some(SceneClosestPoint { collider: handle, point: q, distance: d });
                }
            }
            ControlFlow::Continue(())
        });
        best
    }

    fn overlaps(&self, probe: Probe<'_>, cull: &Aabb, filter: &QueryFilter) -> Vec<ColliderHandle> {
        let mut out = Vec::new();
        self.visit_candidates(cull, |slot| {
            let collider = &self.colliders[slot];
            let handle = self.handle_of(slot);
            if filter.accepts(handle, collider) && probe_overlaps(probe, &collider.world) {
                out.push(handle);
            }
            ControlFlow::Continue(())
        });
        out.sort_unstable();
        out
    }
}

/// The exact overlap test of a probe against a placed shape.
fn probe_overlaps(probe: Probe<'_>, shape: &WorldShape) -> bool {
    match (probe, shape) {
        (Probe::Sphere(s), WorldShape::Sphere(t)) => intersects_sphere_sphere(s, t),
        (Probe::Sphere(s), WorldShape::Aabb(a)) => intersects_sphere_aabb(s, a),
        (Probe::Sphere(s), WorldShape::Obb(o)) => intersects_sphere_obb(s, o),
        (Probe::Sphere(s), WorldShape::Capsule(c)) => intersects_sphere_capsule(s, c),
        (Probe::Sphere(s), WorldShape::TriMesh(m, pose)) => sphere_in(pose, s).is_some_and(|l| m.intersects_sphere(&l)),
        (Probe::Aabb(a), WorldShape::Sphere(s)) => intersects_sphere_aabb(s, a),
        (Probe::Aabb(a), WorldShape::Aabb(b)) => intersects_aabb_aabb(a, b),
        (Probe::Aabb(a), WorldShape::Obb(o)) => intersects_aabb_obb(a, o),
        (Probe::Aabb(a), WorldShape::Capsule(c)) => intersects_capsule_aabb(c, a),
        (Probe::Aabb(a), mesh @ WorldShape::TriMesh(..)) => probe_overlaps(Probe::Obb(&Obb::from_aabb(a)), mesh),
        (Probe::Obb(o), WorldShape::Sphere(s)) => intersects_sphere_obb(s, o),
        (Probe::Obb(o), WorldShape::Aabb(a)) => intersects_aabb_obb(a, o),
        (Probe::Obb(o), WorldShape::Obb(p)) => intersects_obb_obb(o, p),
        (Probe::Obb(o), WorldShape::Capsule(c)) => intersects_capsule_obb(c, o),
        (Probe::Obb(o), WorldShape::TriMesh(m, pose)) => obb_in(pose, o).is_some_and(|l| m.intersects_obb(&l)),
        (Probe::Capsule(c), WorldShape::Sphere(s)) => intersects_sphere_capsule(s, c),
        (Probe::Capsule(c), WorldShape::Aabb(a)) => intersects_capsule_aabb(c, a),
        (Probe::Capsule(c), WorldShape::Obb(o)) => intersects_capsule_obb(c, o),
        (Probe::Capsule(c), WorldShape::Capsule(d)) => intersects_capsule_capsule(c, d),
        (Probe::Capsule(c), WorldShape::TriMesh(m, pose)) => {
            capsule_in(pose, c).is_some_and(|l| m.intersects_capsule(&l))
        }
    }
}
