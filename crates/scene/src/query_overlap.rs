//! Overlap and point queries: the colliders a shape overlaps, as a visitor,
//! into a kept vector, or as a new sorted vector.

use core::ops::ControlFlow;

use proxima_narrowphase::{
    intersects_aabb_aabb, intersects_aabb_obb, intersects_capsule_aabb, intersects_capsule_capsule,
    intersects_capsule_obb, intersects_convex, intersects_obb_obb, intersects_sphere_aabb, intersects_sphere_capsule,
    intersects_sphere_obb, intersects_sphere_sphere, Aabb, Capsule, Obb, Point, Sphere,
};

use crate::collider::{Collider, ColliderHandle};
use crate::filter::QueryFilter;
use crate::hull::{as_convex, ConvexRef};
use crate::mesh_frame::{capsule_in, obb_in, sphere_in};
use crate::scene::Scene;
use crate::shape::WorldShape;

/// A shape whose overlapping colliders a query finds (see
/// [`Scene::visit_overlaps`]). Closed shapes: touching counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OverlapShape {
    /// A point (world frame): the colliders that contain it; a mesh contains
    /// the points on its triangles. A NaN or infinite point is in nothing.
    Point(Point),
    /// An axis-aligned box (world frame).
    Aabb(Aabb),
    /// A sphere (world frame).
    Sphere(Sphere),
    /// An oriented box (world frame).
    Obb(Obb),
    /// A capsule (world frame). A mesh overlaps it when one of its triangles does.
    Capsule(Capsule),
}

impl OverlapShape {
    /// The box that culls the candidates; `None` for a point that is not finite.
    fn bounds(&self) -> Option<Aabb> {
        match self {
            Self::Point(p) => Aabb::try_new(*p, *p).ok(),
            Self::Aabb(a) => Some(*a),
            Self::Sphere(s) => Some(s.aabb()),
            Self::Obb(o) => Some(o.aabb()),
            Self::Capsule(c) => Some(c.aabb()),
        }
    }

    /// The exact test against a placed shape.
    fn overlaps(&self, shape: &WorldShape) -> bool {
        match (self, shape) {
            (Self::Point(p), shape) => shape.contains_point(p),
            (_, WorldShape::Compound(compound, pose)) => {
                // Some child whose box overlaps the probe's overlaps it.
                let Some(cull) = self.bounds() else { return false };
                compound
                    .visit_overlapping(pose, &cull, |i| match compound.child_world(i, pose) {
                        Some(child) if self.overlaps(&child) => ControlFlow::Break(()),
                        _ => ControlFlow::Continue(()),
                    })
                    .is_break()
            }
            (Self::Aabb(a), h @ WorldShape::ConvexHull(..)) => overlaps_hull(&ConvexRef::Obb(Obb::from_aabb(a)), h),
            (Self::Sphere(s), h @ WorldShape::ConvexHull(..)) => overlaps_hull(&ConvexRef::Sphere(s), h),
            (Self::Obb(o), h @ WorldShape::ConvexHull(..)) => overlaps_hull(&ConvexRef::Obb(*o), h),
            (Self::Capsule(c), h @ WorldShape::ConvexHull(..)) => overlaps_hull(&ConvexRef::Capsule(c), h),
            (Self::Sphere(s), WorldShape::Sphere(t)) => intersects_sphere_sphere(s, t),
            (Self::Sphere(s), WorldShape::Aabb(a)) => intersects_sphere_aabb(s, a),
            (Self::Sphere(s), WorldShape::Obb(o)) => intersects_sphere_obb(s, o),
            (Self::Sphere(s), WorldShape::Capsule(c)) => intersects_sphere_capsule(s, c),
            (Self::Sphere(s), WorldShape::TriMesh(m, pose)) => {
                sphere_in(pose, s).is_some_and(|l| m.intersects_sphere(&l))
            }
            (Self::Aabb(a), WorldShape::Sphere(s)) => intersects_sphere_aabb(s, a),
            (Self::Aabb(a), WorldShape::Aabb(b)) => intersects_aabb_aabb(a, b),
            (Self::Aabb(a), WorldShape::Obb(o)) => intersects_aabb_obb(a, o),
            (Self::Aabb(a), WorldShape::Capsule(c)) => intersects_capsule_aabb(c, a),
            (Self::Aabb(a), mesh @ WorldShape::TriMesh(..)) => Self::Obb(Obb::from_aabb(a)).overlaps(mesh),
            (Self::Obb(o), WorldShape::Sphere(s)) => intersects_sphere_obb(s, o),
            (Self::Obb(o), WorldShape::Aabb(a)) => intersects_aabb_obb(a, o),
            (Self::Obb(o), WorldShape::Obb(p)) => intersects_obb_obb(o, p),
            (Self::Obb(o), WorldShape::Capsule(c)) => intersects_capsule_obb(c, o),
            (Self::Obb(o), WorldShape::TriMesh(m, pose)) => obb_in(pose, o).is_some_and(|l| m.intersects_obb(&l)),
            (Self::Capsule(c), WorldShape::Sphere(s)) => intersects_sphere_capsule(s, c),
            (Self::Capsule(c), WorldShape::Aabb(a)) => intersects_capsule_aabb(c, a),
            (Self::Capsule(c), WorldShape::Obb(o)) => intersects_capsule_obb(c, o),
            (Self::Capsule(c), WorldShape::Capsule(d)) => intersects_capsule_capsule(c, d),
            (Self::Capsule(c), WorldShape::TriMesh(m, pose)) => {
                capsule_in(pose, c).is_some_and(|l| m.intersects_capsule(&l))
            }
        }
    }
}

/// GJK's overlap test of a probe and a placed hull.
fn overlaps_hull(probe: &ConvexRef<'_>, hull: &WorldShape) -> bool {
    as_convex(hull).is_some_and(|h| intersects_convex(probe, &h))
}

impl Scene {
    /// Calls `visitor` with every collider the filter accepts whose shape
    /// overlaps `shape` (exactly), in no particular order (the trees'),
    /// until it breaks (then returns `Break`). Allocates nothing.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use core::ops::ControlFlow;
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere};
    /// let mut scene = Scene::new();
    /// for x in [0.0, 3.0, 6.0] {
    ///     scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(x, 0.0, 0.0)))
    ///         .unwrap();
    /// }
    /// // Sum the user data of what an explosion reaches, without a vector.
    /// let blast = OverlapShape::Sphere(Sphere::new(Point::new(1.5, 0.0, 0.0), 1.0));
    /// let mut reached = 0;
    /// let _ = scene.visit_overlaps(&blast, &QueryFilter::default(), |h| {
    ///     reached += 1 + scene.get(h).unwrap().user_data();
    ///     ControlFlow::Continue(())
    /// });
    /// assert_eq!(reached, 2);
    /// // Is anything there at all? Stop at the first.
    /// let any = scene.visit_overlaps(&blast, &QueryFilter::default(), |_| ControlFlow::Break(()));
    /// assert!(any.is_break());
    /// ```
    pub fn visit_overlaps(
        &self,
        shape: &OverlapShape,
        filter: &QueryFilter,
        mut visitor: impl FnMut(ColliderHandle) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let Some(cull) = shape.bounds() else { return ControlFlow::Continue(()) };
        self.visit_accepted(&cull, filter, |handle, collider| {
            if shape.overlaps(&collider.world) {
                visitor(handle)
            } else {
                ControlFlow::Continue(())
            }
        })
    }

    /// The colliders the filter accepts whose shape overlaps `shape`
    /// (exactly), into `out` (cleared first), sorted by handle: the same
    /// list as [`Scene::overlaps_sphere`] and its siblings return. Allocates
    /// only to grow `out`, so a vector kept from frame to frame stops
    /// allocating once it holds the largest answer.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// let mut out = Vec::with_capacity(16);
    /// for x in [1.5, 2.5] {
    ///     let probe = OverlapShape::Sphere(Sphere::new(Point::new(x, 0.0, 0.0), 1.0));
    ///     scene.overlaps_into(&probe, &QueryFilter::default(), &mut out);
    ///     assert_eq!(out, if x < 2.0 { vec![h] } else { vec![] });
    /// }
    /// ```
    pub fn overlaps_into(&self, shape: &OverlapShape, filter: &QueryFilter, out: &mut Vec<ColliderHandle>) {
        out.clear();
        let _ = self.visit_overlaps(shape, filter, |handle| {
            out.push(handle);
            ControlFlow::Continue(())
        });
        out.sort_unstable();
    }

    /// Colliders whose shape overlaps the box (exactly), sorted by handle
    /// ([`Scene::overlaps_into`] into a new vector).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Aabb, Isometry, Point};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// // The box's corner (0.9, 0.9, 0.9) is outside the sphere, though inside its bounding box.
    /// let corner = Aabb::new(Point::new(0.9, 0.9, 0.9), Point::new(2.0, 2.0, 2.0));
    /// assert!(scene.overlaps_aabb(&corner, &QueryFilter::default()).is_empty());
    /// let face = Aabb::new(Point::new(0.9, -0.1, -0.1), Point::new(2.0, 0.1, 0.1));
    /// assert_eq!(scene.overlaps_aabb(&face, &QueryFilter::default()), vec![h]);
    /// ```
    pub fn overlaps_aabb(&self, aabb: &Aabb, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps_vec(&OverlapShape::Aabb(*aabb), filter)
    }

    /// Colliders whose shape overlaps the sphere (exactly), sorted by handle
    /// ([`Scene::overlaps_into`] into a new vector).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere, Vector};
    /// let mut scene = Scene::new();
    /// let crate_box = ColliderShape::Cuboid { half_extents: Vector::repeat(1.0) };
    /// let h = scene.insert(ColliderDesc::new(crate_box, Isometry::identity())).unwrap();
    /// let blast = Sphere::new(Point::new(2.5, 0.0, 0.0), 1.5);
    /// assert_eq!(scene.overlaps_sphere(&blast, &QueryFilter::default()), vec![h]);
    /// ```
    pub fn overlaps_sphere(&self, sphere: &Sphere, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps_vec(&OverlapShape::Sphere(*sphere), filter)
    }

    /// Colliders whose shape overlaps the oriented box (exactly), sorted by
    /// handle ([`Scene::overlaps_into`] into a new vector).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Obb, Point, Rotation, Vector};
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
        self.overlaps_vec(&OverlapShape::Obb(*obb), filter)
    }

    /// Colliders whose shape overlaps the capsule (exactly), sorted by handle
    /// ([`Scene::overlaps_into`] into a new vector). A mesh overlaps it when
    /// one of its triangles does.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Capsule, Isometry, Point};
    /// let mut scene = Scene::new();
    /// let ball = ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::translation(0.0, 3.0, 0.0));
    /// let h = scene.insert(ball).unwrap();
    /// let standing = Capsule::new(Point::new(0.0, 0.0, 0.0), Point::new(0.0, 1.8, 0.0), 0.3);
    /// assert_eq!(scene.overlaps_capsule(&standing, &QueryFilter::default()), vec![h]);
    /// let crouching = Capsule::new(Point::new(0.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0), 0.3);
    /// assert!(scene.overlaps_capsule(&crouching, &QueryFilter::default()).is_empty());
    /// ```
    pub fn overlaps_capsule(&self, capsule: &Capsule, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps_vec(&OverlapShape::Capsule(*capsule), filter)
    }

    /// Colliders containing `p` (on the surface, for meshes), sorted by
    /// handle ([`Scene::overlaps_into`] of [`OverlapShape::Point`] into a
    /// new vector).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point};
    /// let mut scene = Scene::new();
    /// let h = scene.insert(ColliderDesc::new(ColliderShape::Sphere { radius: 1.0 }, Isometry::identity())).unwrap();
    /// assert_eq!(scene.colliders_containing_point(&Point::new(0.5, 0.0, 0.0), &QueryFilter::default()), vec![h]);
    /// assert!(scene.colliders_containing_point(&Point::new(0.8, 0.8, 0.0), &QueryFilter::default()).is_empty());
    /// ```
    pub fn colliders_containing_point(&self, p: &Point, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.overlaps_vec(&OverlapShape::Point(*p), filter)
    }

    /// The former name of [`Scene::colliders_containing_point`].
    #[deprecated(since = "0.2.0", note = "renamed to `colliders_containing_point`: it lists colliders")]
    pub fn contains_point(&self, p: &Point, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.colliders_containing_point(p, filter)
    }

    fn overlaps_vec(&self, shape: &OverlapShape, filter: &QueryFilter) -> Vec<ColliderHandle> {
        let mut out = Vec::new();
        self.overlaps_into(shape, filter, &mut out);
        out
    }

    /// Visits the colliders the filter accepts whose box overlaps `cull`:
    /// static ones (unless the filter rejects them all), then dynamic ones,
    /// until `f` breaks.
    pub(crate) fn visit_accepted(
        &self,
        cull: &Aabb,
        filter: &QueryFilter,
        mut f: impl FnMut(ColliderHandle, &Collider) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut each = |slot: u32| {
            let collider = &self.colliders[slot];
            let handle = self.handle_of(slot);
            if filter.accepts(handle, collider) {
                f(handle, collider)
            } else {
                ControlFlow::Continue(())
            }
        };
        if filter.skips_statics() {
            return self.dynamic_set.visit_overlaps(cull, each);
        }
        let mut flow = ControlFlow::Continue(());
        self.visit_candidates(cull, |slot| {
            flow = each(slot);
            flow
        });
        flow
    }
}
