//! Swept-sphere and closest-point queries.

use core::ops::ControlFlow;

use proxima_narrowphase::{Aabb, Point, Real, Sphere, SweepHit, Vector};

use crate::cast_options::{cast_sphere_on, CastOptions};
use crate::collider::ColliderHandle;
use crate::filter::QueryFilter;
use crate::scene::Scene;

/// A swept shape's first hit on a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneSweepHit {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// Time of impact, point and normal (see [`SweepHit`]).
    pub hit: SweepHit,
    /// When the moving shape is a compound
    /// ([`Scene::cast_shape`](crate::Scene::cast_shape)), the index of its
    /// child that hit (into [`Compound::children`](crate::Compound::children));
    /// `None` for a convex moving shape.
    pub moving_child: Option<u32>,
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

impl Scene {
    /// The first hit of `sphere` moving by `motion` (toi in `[0, 1]`), culled
    /// by the swept box (start and end merged) and confirmed by the exact
    /// sweep of each candidate. Ties keep the first found. A collider the
    /// sphere already overlaps or touches at the start is hit at `toi = 0`
    /// ([`SweepStatus::Penetrating`](proxima_narrowphase::SweepStatus)),
    /// whichever way the sphere moves: [`Scene::cast_sphere_with`] and
    /// [`CastOptions::no_stop_at_penetration`] ignore the start overlaps the
    /// motion leaves.
    ///
    /// Precondition: `motion` is finite (checked in debug builds; in release
    /// a NaN or infinite motion is a miss, `None`).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere, Vector};
    /// let mut scene = Scene::new();
    /// let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.5, 5.0, 5.0) };
    /// let h = scene.insert(ColliderDesc::new(wall, Isometry::translation(10.0, 0.0, 0.0)).fixed()).unwrap();
    /// // A sphere of radius 1 from the origin, moving 20 along x, touches the face x = 9.5 at x = 8.5.
    /// let sphere = Sphere::new(Point::origin(), 1.0);
    /// let hit = scene.cast_sphere(&sphere, &Vector::new(20.0, 0.0, 0.0), &QueryFilter::default()).unwrap();
    /// assert_eq!(hit.collider, h);
    /// assert!((hit.hit.toi - 8.5 / 20.0).abs() < 1e-6);
    /// ```
    pub fn cast_sphere(&self, sphere: &Sphere, motion: &Vector, filter: &QueryFilter) -> Option<SceneSweepHit> {
        self.cast_sphere_with(sphere, motion, filter, &CastOptions::default())
    }

    /// [`Scene::cast_sphere`] under `options`: with
    /// `stop_at_penetration: false`, a start overlap that the motion does
    /// not go into (`motion . normal >= 0`, the rule and its degenerate cases
    /// are in [`CastOptions`]) is ignored, and the first hit among the rest
    /// is returned: a later hit on another collider, or on another triangle
    /// of the same mesh. With the default options it is `cast_sphere`.
    ///
    /// A character's move: cast its sphere along the wanted motion, without
    /// its own collider, and stop short of the hit.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere, SweepStatus, Vector};
    /// let mut scene = Scene::new();
    /// let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0));
    /// let behind = scene.insert(ball(-1.5)).unwrap();
    /// let ahead = scene.insert(ball(5.0)).unwrap();
    /// let me = Sphere::new(Point::origin(), 1.0);
    /// let filter = QueryFilter::default();
    /// let leave = CastOptions::no_stop_at_penetration();
    /// // Moving away from the ball it overlaps, it reaches the ball ahead at x = 3.
    /// let hit = scene.cast_sphere_with(&me, &Vector::new(6.0, 0.0, 0.0), &filter, &leave).unwrap();
    /// assert_eq!((hit.collider, hit.hit.status), (ahead, SweepStatus::Hit));
    /// assert!((hit.hit.toi - 0.5).abs() < 1e-6);
    /// // Moving into it, the overlap stops it at once.
    /// let hit = scene.cast_sphere_with(&me, &Vector::new(-6.0, 0.0, 0.0), &filter, &leave).unwrap();
    /// assert_eq!((hit.collider, hit.hit.toi), (behind, 0.0));
    /// ```
    pub fn cast_sphere_with(
        &self,
        sphere: &Sphere,
        motion: &Vector,
        filter: &QueryFilter,
        options: &CastOptions,
    ) -> Option<SceneSweepHit> {
        debug_assert!(motion.iter().all(|x| x.is_finite()), "Scene::cast_sphere: motion {motion:?} is not finite");
        let swept = sphere.swept_aabb(motion)?;
        let mut best: Option<SceneSweepHit> = None;
        let _ = self.visit_accepted(&swept, filter, |handle, collider| {
            if let Some(hit) = cast_sphere_on(&collider.world, sphere, motion, options) {
                if best.is_none_or(|b| hit.toi < b.hit.toi) {
                    best = Some(SceneSweepHit { collider: handle, hit, moving_child: None });
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
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere, Vector};
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
        let _ = self.visit_accepted(&swept, filter, |handle, collider| {
            if let Some(hit) = collider.world.cast_sphere(sphere, motion) {
                out.push(SceneSweepHit { collider: handle, hit, moving_child: None });
            }
            ControlFlow::Continue(())
        });
        out.sort_unstable_by(|p, q| p.hit.toi.total_cmp(&q.hit.toi).then(p.collider.cmp(&q.collider)));
        out
    }

    /// The collider closest to `p` within `max_distance`, with its closest
    /// point and the distance (0 inside a solid). Ties keep the lower handle.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// let c = scene.closest_point(&Point::new(3.0, 0.0, 0.0), 5.0, &QueryFilter::default()).unwrap();
    /// assert_eq!((c.collider, c.point, c.distance), (h, Point::new(1.0, 0.0, 0.0), 2.0));
    /// assert!(scene.closest_point(&Point::new(3.0, 0.0, 0.0), 1.0, &QueryFilter::default()).is_none());
    /// ```
    pub fn closest_point(&self, p: &Point, max_distance: Real, filter: &QueryFilter) -> Option<SceneClosestPoint> {
        let probe = Aabb::try_from_center(*p, Vector::repeat(max_distance.max(0.0))).ok()?;
        let mut best: Option<SceneClosestPoint> = None;
        let _ = self.visit_accepted(&probe, filter, |handle, collider| {
            let q = collider.world.closest_point(p);
            let d = (q - p).norm();
            let better = best.is_none_or(|b| d < b.distance || (d == b.distance && handle < b.collider));
            if d <= max_distance && better {
                best = Some(SceneClosestPoint { collider: handle, point: q, distance: d });
            }
            ControlFlow::Continue(())
        });
        best
    }
}
