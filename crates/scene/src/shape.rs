//! Collider shapes: local geometry, and the same geometry placed in the world.

use std::sync::Arc;

use proxima_narrowphase::{
    Aabb, Capsule, ConvexHull, Isometry, Obb, Point, Ray, RayHit, Real, Rotation, ShapeError, Sphere, SweepHit, Vector,
    MAX_COORDINATE,
};

use crate::hull::{cast_ray_hull, cast_sphere_hull, closest_point_hull, contains_point_hull, world_aabb};

use crate::compound::{
    cast_sphere_compound, closest_point_compound, contains_point_compound, ray_hit_compound, Compound,
};
use crate::error::{PoseError, POSE_ROTATION_TOLERANCE};
use crate::heightfield::HeightField;
use crate::trimesh::{TriMesh, TriangleHit};

/// A collider's geometry in its own frame; a pose places it in the world.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum ColliderShape {
    /// A sphere of this radius centred on the pose's origin.
    Sphere {
        /// Radius, `>= 0`.
        radius: Real,
    },
    /// A box (a cuboid) centred on the pose's origin and turned by its
    /// rotation. Under a pose without rotation (the identity quaternion,
    /// `w = ±1`) it is placed as an axis-aligned box ([`WorldShape::Aabb`],
    /// whose tests are the cheapest); under any other rotation as the rotated
    /// box ([`WorldShape::Obb`]), so a box collider that starts to rotate
    /// stays correct. Snapshots also read the former variants `Aabb` and
    /// `Obb` as this one.
    #[cfg_attr(feature = "serde", serde(alias = "Aabb", alias = "Obb"))]
    Cuboid {
        /// Half-extents along the box's own axes, each `>= 0`.
        half_extents: Vector,
    },
    /// A capsule whose core segment runs along the local y axis from
    /// `-half_height` to `+half_height`.
    Capsule {
        /// Half the length of the core segment, `>= 0`.
        half_height: Real,
        /// Radius, `>= 0`.
        radius: Real,
    },
    /// A triangle mesh (shared), placed by the pose.
    #[cfg_attr(feature = "serde", serde(skip))]
    TriMesh(Arc<TriMesh>),
    /// A heightfield (shared), placed by the pose. The scene places it as
    /// its triangle mesh ([`HeightField::mesh`], a
    /// [`WorldShape::TriMesh`]): contacts, manifolds, sweeps, CCD and the
    /// scene's queries treat it as that mesh. Not serializable, as meshes.
    #[cfg_attr(feature = "serde", serde(skip))]
    HeightField(Arc<HeightField>),
    /// A solid convex hull (shared), placed by the pose. Its pairs with the
    /// other convex shapes are decided by GJK and EPA
    /// ([`contact_convex`](proxima_narrowphase::contact_convex)); with a
    /// hull or a box, a face contact gets up to four points by clipping the
    /// incident face against the reference face, other pairs one point; ray
    /// casts and sphere sweeps are exact on its face planes.
    ConvexHull(Arc<ConvexHull>),
    /// Several convex shapes under their own local poses (shared), placed by
    /// the pose as one collider: see [`Compound`]. Not convex itself.
    Compound(Arc<Compound>),
}

impl ColliderShape {
    /// True for the solid convex shapes (sphere, cuboid, capsule, hull): the
    /// shapes a [`Compound`] holds. A triangle mesh or a heightfield is a
    /// surface, not convex; a compound is a union of convex shapes, not
    /// convex itself.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// assert!(ColliderShape::Capsule { half_height: 1.0, radius: 0.5 }.is_convex());
    /// ```
    pub fn is_convex(&self) -> bool {
        match self {
            Self::Sphere { .. } | Self::Cuboid { .. } | Self::Capsule { .. } | Self::ConvexHull(_) => true,
            Self::TriMesh(_) | Self::HeightField(_) | Self::Compound(_) => false,
        }
    }

    /// True for the shapes that can move in a sweep: the convex shapes and
    /// compounds, which [`Scene::cast_shape`](crate::Scene::cast_shape)
    /// casts and continuous collision
    /// ([`ColliderDesc::with_ccd`](crate::ColliderDesc::with_ccd)) takes. A
    /// triangle mesh or a heightfield is only ever hit.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::Isometry;
    /// let ball = ColliderShape::Sphere { radius: 0.5 };
    /// let pair = Compound::try_new(vec![(Isometry::identity(), ball.clone()), (Isometry::translation(1.0, 0.0, 0.0), ball)]);
    /// let shape = ColliderShape::Compound(std::sync::Arc::new(pair.unwrap()));
    /// assert!(shape.is_sweepable() && !shape.is_convex());
    /// ```
    pub fn is_sweepable(&self) -> bool {
        self.is_convex() || matches!(self, Self::Compound(_))
    }

    /// Places the shape with `pose`, validating it on the way (a NaN pose, a
    /// negative size, or a coordinate or size beyond
    /// [`MAX_COORDINATE`](proxima_narrowphase::MAX_COORDINATE) gives a [`ShapeError`]);
    /// a compound places when each of its children places at
    /// `pose * child_pose`.
    pub fn placed(&self, pose: &Isometry) -> Result<WorldShape, ShapeError> {
        let center = Point::from(pose.translation.vector);
        Ok(match self {
            Self::Sphere { radius } => WorldShape::Sphere(Sphere::try_new(center, *radius)?),
            Self::Cuboid { half_extents } if !is_identity(&pose.rotation) => {
                WorldShape::Obb(Obb::try_new(center, pose.rotation, *half_extents)?)
            }
            Self::Cuboid { half_extents } => {
                // `Aabb` is also the broadphase's bounding volume, valid up to
                // f32::MAX; as a collider it is a shape, bounded like the others.
                let aabb = Aabb::try_from_center(center, *half_extents)?;
                if !center.coords.iter().chain(half_extents.iter()).all(|x| x.abs() <= MAX_COORDINATE) {
                    return Err(ShapeError::TooLarge("aabb centre or half-extents"));
                }
                WorldShape::Aabb(aabb)
            }
            Self::Capsule { half_height, radius } => {
                if !half_height.is_finite() || *half_height < 0.0 {
                    return Err(ShapeError::NegativeExtent);
                }
                let axis = unit_rotation(&pose.rotation)? * Vector::y() * *half_height;
                WorldShape::Capsule(Capsule::try_new(center - axis, center + axis, *radius)?)
            }
            Self::ConvexHull(hull) => {
                let t = &pose.translation.vector;
                if !t.iter().all(|x| x.is_finite()) {
                    return Err(ShapeError::NonFinite("hull pose"));
                }
                // Vertices within MAX_COORDINATE (ConvexHull::try_new), as a mesh's.
                if t.iter().any(|x| x.abs() > MAX_COORDINATE) {
                    return Err(ShapeError::TooLarge("hull pose"));
                }
                let pose = Isometry::from_parts(pose.translation, unit_rotation(&pose.rotation)?);
                WorldShape::ConvexHull(Arc::clone(hull), pose)
            }
            Self::TriMesh(mesh) => placed_mesh(mesh, pose)?,
            Self::HeightField(field) => placed_mesh(field.mesh(), pose)?,
            Self::Compound(compound) => {
                let t = &pose.translation.vector;
                if !t.iter().all(|x| x.is_finite()) {
                    return Err(ShapeError::NonFinite("compound pose"));
                }
                if t.iter().any(|x| x.abs() > MAX_COORDINATE) {
                    return Err(ShapeError::TooLarge("compound pose"));
                }
                // Every child is placed once here, so the queries, which
                // place them again, cannot fail.
                compound.placed(&Isometry::from_parts(pose.translation, unit_rotation(&pose.rotation)?))?
            }
        })
    }
}

impl ColliderShape {
    /// [`placed`](Self::placed) under a pose that passed [`validated_pose`],
    /// written over `world`, and the placed shape's [`WorldShape::aabb`]:
    /// the same values, bit for bit, without the checks that such a pose
    /// and the shape of a collider pass. On an error `world` is unchanged.
    ///
    /// A validated pose has a translation within `MAX_COORDINATE` and a
    /// rotation renormalised from `||q|^2 - 1| <= 1e-2`, so `|q|^2` is 1 to
    /// a few rounding units: `unit_rotation` gives
    /// `Ok(renormalized_rotation(q))` for it, and the translation checks of
    /// the shapes placed by their pose pass. A collider's shape was placed
    /// when it was inserted, reshaped or restored, so its sizes are valid (a
    /// capsule's half-height finite and `>= 0`). A sphere, box or capsule
    /// is built as `placed` builds it, and its box is its own `aabb`, as
    /// `WorldShape::aabb` computes it.
    #[inline(always)]
    pub(crate) fn place_validated(&self, pose: &Isometry, world: &mut WorldShape) -> Result<Aabb, ShapeError> {
        let center = Point::from(pose.translation.vector);
        match self {
            Self::Sphere { radius } => {
                let sphere = Sphere::try_new(center, *radius)?;
                match world {
                    WorldShape::Sphere(placed) => *placed = sphere,
                    _ => replace_world(world, WorldShape::Sphere(sphere)),
                }
                Ok(sphere.aabb())
            }
            Self::Cuboid { half_extents } if !is_identity(&pose.rotation) => {
                let obb = Obb::try_new(center, pose.rotation, *half_extents)?;
                match world {
                    WorldShape::Obb(placed) => *placed = obb,
                    _ => replace_world(world, WorldShape::Obb(obb)),
                }
                Ok(obb.aabb())
            }
            Self::Capsule { half_height, radius } => {
                let capsule = placed_capsule(center, &pose.rotation, *half_height, *radius)?;
                match world {
                    WorldShape::Capsule(placed) => *placed = capsule,
                    _ => replace_world(world, WorldShape::Capsule(capsule)),
                }
                Ok(capsule.aabb())
            }
            _ => self.place_posed(pose, world),
        }
    }

    /// [`place_validated`](Self::place_validated) of the shapes placed by
    /// their pose (and of a box under the identity), kept out of line.
    #[inline(never)]
    fn place_posed(&self, pose: &Isometry, world: &mut WorldShape) -> Result<Aabb, ShapeError> {
        let (placed, aabb) = self.placed_with_aabb(pose)?;
        *world = placed;
        Ok(aabb)
    }

    /// True for the shapes that [`place_validated`](Self::place_validated)
    /// builds itself: a sphere, a box and a capsule.
    #[inline(always)]
    pub(crate) fn is_primitive(&self) -> bool {
        matches!(self, Self::Sphere { .. } | Self::Cuboid { .. } | Self::Capsule { .. })
    }

    /// The error [`place_validated`](Self::place_validated) would give under
    /// `pose`, worked out without placing a primitive; any other shape is
    /// placed here, with its box. A sphere or a box of a collider under a
    /// validated pose always places (a centre within the bounds, a unit
    /// rotation, sizes checked at insertion); a capsule fails when an end
    /// of its segment leaves the bounds.
    #[inline(always)]
    pub(crate) fn check_validated(&self, pose: &Isometry) -> Result<Option<(WorldShape, Aabb)>, ShapeError> {
        match self {
            Self::Sphere { .. } | Self::Cuboid { .. } => Ok(None),
            // An end lies within `|c|_inf + h` of the origin on each axis, so
            // within half the bound it places, its rounding far inside.
            Self::Capsule { half_height, .. }
                if pose.translation.vector.amax() + half_height <= 0.5 * MAX_COORDINATE =>
            {
                Ok(None)
            }
            Self::Capsule { half_height, radius } => {
                let center = Point::from(pose.translation.vector);
                placed_capsule(center, &pose.rotation, *half_height, *radius).map(|_| None)
            }
            _ => self.placed_with_aabb(pose).map(Some),
        }
    }

    /// [`placed`](Self::placed) and the placed shape's box.
    #[inline(never)]
    pub(crate) fn placed_with_aabb(&self, pose: &Isometry) -> Result<(WorldShape, Aabb), ShapeError> {
        let world = self.placed(pose)?;
        let aabb = world.aabb();
        Ok((world, aabb))
    }
}

/// Puts `placed` in `world`, which holds a shape of another kind (a box
/// that turned, or one that stopped turning): kept out of line, as a shape
/// keeps its kind from move to move.
#[cold]
#[inline(never)]
fn replace_world(world: &mut WorldShape, placed: WorldShape) {
    *world = placed;
}

/// A collider's capsule placed by a validated pose (see
/// [`ColliderShape::place_validated`]): the segment `center ± R (0,
/// half_height, 0)`, with `R` the rotation renormalised as `placed` does.
#[inline(always)]
fn placed_capsule(center: Point, rotation: &Rotation, half_height: Real, radius: Real) -> Result<Capsule, ShapeError> {
    debug_assert!(half_height.is_finite() && half_height >= 0.0, "a collider's capsule was checked when placed");
    let axis = proxima_narrowphase::renormalized_rotation(rotation) * Vector::y() * half_height;
    Capsule::try_new(center - axis, center + axis, radius)
}

/// A mesh placed by `pose`, once the pose is checked.
fn placed_mesh(mesh: &Arc<TriMesh>, pose: &Isometry) -> Result<WorldShape, ShapeError> {
    let center = &pose.translation.vector;
    let q = pose.rotation.as_ref().coords;
    if !center.iter().chain(q.iter()).all(|x| x.is_finite()) {
        return Err(ShapeError::NonFinite("mesh pose"));
    }
    // The mesh's vertices are within MAX_COORDINATE (Triangle::try_new):
    // so is its placement, so world points stay within 2.8e18.
    if center.iter().any(|x| x.abs() > MAX_COORDINATE) {
        return Err(ShapeError::TooLarge("mesh pose"));
    }
    let pose = Isometry::from_parts(pose.translation, unit_rotation(&pose.rotation)?);
    Ok(WorldShape::TriMesh(Arc::clone(mesh), pose))
}

/// `pose` with its rotation renormalised, or why it is invalid: the one rule
/// of every collider's pose (see [`PoseError`]).
#[inline]
pub(crate) fn validated_pose(pose: &Isometry) -> Result<Isometry, PoseError> {
    // Every rule in one test, without branches: `|x| <= MAX_COORDINATE` is
    // false for NaN and infinity, and `||q|^2 - 1| <= tolerance` for a
    // quaternion with a NaN, an infinity or an overflowing square.
    let t = &pose.translation.vector;
    let n2 = pose.rotation.as_ref().coords.norm_squared();
    let valid = (t.x.abs() <= MAX_COORDINATE)
        & (t.y.abs() <= MAX_COORDINATE)
        & (t.z.abs() <= MAX_COORDINATE)
        & ((n2 - 1.0).abs() <= POSE_ROTATION_TOLERANCE);
    if !valid {
        return Err(pose_rejection(pose));
    }
    Ok(Isometry::from_parts(pose.translation, proxima_narrowphase::renormalized_rotation(&pose.rotation)))
}

/// Why [`validated_pose`] rejects `pose`, in the order of the rules.
#[cold]
#[inline(never)]
fn pose_rejection(pose: &Isometry) -> PoseError {
    let t = pose.translation.vector;
    if !t.iter().all(|x| x.is_finite()) {
        return PoseError::NonFiniteTranslation;
    }
    if t.iter().any(|x| x.abs() > MAX_COORDINATE) {
        return PoseError::TranslationTooLarge;
    }
    debug_assert!({
        let q = pose.rotation.as_ref().coords;
        !q.iter().all(|x| x.is_finite()) || (q.norm_squared() - 1.0).abs() > POSE_ROTATION_TOLERANCE
    });
    PoseError::InvalidRotation
}

/// `rotation` renormalised, or [`ShapeError::InvalidRotation`] when it is not
/// finite or off unit length by more than `1e-3` in `|q|^2` (the tolerance of
/// `Obb::try_new`). A quaternion off unit length scales what it rotates by
/// `|q|^2`, and its conjugate is then not its inverse: a mesh's world box
/// and its local queries would disagree.
fn unit_rotation(rotation: &Rotation) -> Result<Rotation, ShapeError> {
    let q = rotation.as_ref().coords;
    if !q.iter().all(|x| x.is_finite()) || (q.norm_squared() - 1.0).abs() > 1e-3 {
        return Err(ShapeError::InvalidRotation);
    }
    Ok(proxima_narrowphase::renormalized_rotation(rotation))
}

/// True when `rotation` is exactly the identity (`w = ±1`, no vector part):
/// a box under it stays axis-aligned. Anything else, including a non-unit or
/// NaN quaternion, goes through [`Obb::try_new`]'s checks.
fn is_identity(rotation: &Rotation) -> bool {
    let q = rotation.as_ref();
    q.i == 0.0 && q.j == 0.0 && q.k == 0.0 && q.w.abs() == 1.0
}

/// A ray's hit on a [`WorldShape`]: the hit (world frame), for a mesh the
/// triangle and barycentrics (mesh frame), for a compound the child hit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShapeRayHit {
    pub(crate) hit: RayHit,
    pub(crate) triangle: Option<TriangleHit>,
    pub(crate) child: Option<u32>,
}

/// A collider's geometry in world space, ready for exact tests.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum WorldShape {
    /// A sphere.
    Sphere(Sphere),
    /// An axis-aligned box (a [`ColliderShape::Cuboid`] under a pose without rotation).
    Aabb(Aabb),
    /// An oriented box (a [`ColliderShape::Cuboid`], or a [`ColliderShape::Cuboid`] under a rotated pose).
    Obb(Obb),
    /// A capsule.
    Capsule(Capsule),
    /// A triangle mesh and the pose from its frame to world (also a placed
    /// [`ColliderShape::HeightField`], as its mesh).
    #[cfg_attr(feature = "serde", serde(skip))]
    TriMesh(Arc<TriMesh>, Isometry),
    /// A convex hull and the pose from its frame to world.
    ConvexHull(Arc<ConvexHull>, Isometry),
    /// A compound and the pose from its frame to world; its child `i` is
    /// placed at `pose * children()[i].0`.
    Compound(Arc<Compound>, Isometry),
}

impl WorldShape {
    /// The tight world-space bounding box.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        match self {
            Self::Sphere(s) => s.aabb(),
            Self::Aabb(a) => *a,
            Self::Obb(o) => o.aabb(),
            Self::Capsule(c) => c.aabb(),
            Self::TriMesh(..) | Self::ConvexHull(..) | Self::Compound(..) => self.posed_aabb(),
        }
    }

    /// [`aabb`](Self::aabb) of a shape placed by a pose: a walk over its
    /// vertices or children, kept out of line.
    #[inline(never)]
    fn posed_aabb(&self) -> Aabb {
        match self {
            Self::TriMesh(mesh, pose) => mesh.world_aabb(pose),
            Self::ConvexHull(hull, pose) => world_aabb(hull, pose),
            Self::Compound(compound, pose) => compound.world_aabb(pose),
            Self::Sphere(_) | Self::Aabb(_) | Self::Obb(_) | Self::Capsule(_) => self.aabb(),
        }
    }

    /// The first hit of `ray` on this shape (solid shapes report `toi = 0`
    /// for an origin inside; meshes are surfaces, hit from both sides).
    pub fn cast_ray(&self, ray: &Ray) -> Option<RayHit> {
        self.ray_hit(ray, false).map(|h| h.hit)
    }

    /// True when `ray` hits the shape; meshes stop at their first hit found.
    pub fn intersects_ray(&self, ray: &Ray) -> bool {
        self.ray_hit(ray, true).is_some()
    }

    /// The first hit of `ray`, or with `any` some hit (a mesh stops at the
    /// first triangle hit it finds, a compound at the first child hit; the
    /// other shapes have one candidate, so their first hit), and for a mesh
    /// the triangle hit, for a compound the child hit.
    #[inline(always)]
    pub(crate) fn ray_hit(&self, ray: &Ray, any: bool) -> Option<ShapeRayHit> {
        match self {
            Self::TriMesh(mesh, pose) => {
                let h = mesh.ray_posed(ray, pose, any)?;
                Some(ShapeRayHit { hit: h.hit, triangle: Some(h.triangle), child: None })
            }
            Self::Compound(compound, pose) => {
                let (hit, child) = ray_hit_compound(compound, pose, ray, any)?;
                Some(ShapeRayHit { hit, triangle: None, child: Some(child) })
            }
            _ => self.convex_ray_hit(ray).map(|hit| ShapeRayHit { hit, triangle: None, child: None }),
        }
    }

    /// The first hit of `ray` on a solid convex shape (a sphere, box,
    /// capsule or hull: one candidate, so `any` changes nothing); `None`
    /// for a mesh or a compound, which [`ray_hit`](Self::ray_hit) casts.
    /// A compound's children are all convex ([`Compound::try_new`]).
    #[inline(always)]
    pub(crate) fn convex_ray_hit(&self, ray: &Ray) -> Option<RayHit> {
        use proxima_narrowphase::{cast_ray_aabb, cast_ray_capsule, cast_ray_obb, cast_ray_sphere};
        match self {
            Self::Sphere(s) => cast_ray_sphere(ray, s),
            Self::Aabb(a) => cast_ray_aabb(ray, a),
            Self::Obb(o) => cast_ray_obb(ray, o),
            Self::Capsule(c) => cast_ray_capsule(ray, c),
            Self::ConvexHull(hull, pose) => cast_ray_hull(ray, hull, pose),
            Self::TriMesh(..) | Self::Compound(..) => None,
        }
    }

    /// The first hit of a sphere moving by `motion` on this shape.
    pub fn cast_sphere(&self, sphere: &Sphere, motion: &Vector) -> Option<SweepHit> {
        use proxima_narrowphase::{cast_sphere_aabb, cast_sphere_capsule, cast_sphere_obb, cast_sphere_sphere};
        match self {
            Self::Sphere(s) => cast_sphere_sphere(sphere, motion, s),
            Self::Aabb(a) => cast_sphere_aabb(sphere, motion, a),
            Self::Obb(o) => cast_sphere_obb(sphere, motion, o),
            Self::Capsule(c) => cast_sphere_capsule(sphere, motion, c),
            Self::TriMesh(mesh, pose) => mesh.cast_sphere_posed(sphere, motion, pose),
            Self::ConvexHull(hull, pose) => cast_sphere_hull(sphere, motion, hull, pose),
            Self::Compound(compound, pose) => cast_sphere_compound(compound, pose, sphere, motion),
        }
    }

    /// True when `p` lies in the shape (on a mesh's surface, for a mesh).
    pub fn contains_point(&self, p: &Point) -> bool {
        match self {
            Self::Sphere(s) => s.contains_point(p),
            Self::Aabb(a) => a.contains_point(p),
            Self::Obb(o) => o.contains_point(p),
            Self::Capsule(c) => c.contains_point(p),
            Self::TriMesh(mesh, pose) => mesh.contains_point(&pose.inverse_transform_point(p)),
            Self::ConvexHull(hull, pose) => contains_point_hull(hull, pose, p),
            Self::Compound(compound, pose) => contains_point_compound(compound, pose, p),
        }
    }

    /// The point of the shape closest to `p` (the surface point, for a mesh).
    pub fn closest_point(&self, p: &Point) -> Point {
        use proxima_narrowphase::{closest_point_aabb, closest_point_obb, closest_point_segment, closest_point_sphere};
        match self {
            Self::Sphere(s) => closest_point_sphere(p, s),
            Self::Aabb(a) => closest_point_aabb(p, a),
            Self::Obb(o) => closest_point_obb(p, o),
            Self::Capsule(c) => {
                let q = closest_point_segment(p, c.a(), c.b());
                let d = p - q;
                let dist = d.norm();
                if dist <= c.radius() {
                    *p
                } else {
                    q + d * (c.radius() / dist)
                }
            }
            Self::TriMesh(mesh, pose) => {
                let local = pose.inverse_transform_point(p);
                pose.transform_point(&mesh.closest_point(&local).map_or(local, |c| c.point))
            }
            Self::ConvexHull(hull, pose) => closest_point_hull(hull, pose, p),
            Self::Compound(compound, pose) => closest_point_compound(compound, pose, p),
        }
    }
}
