//! A compound shape: several convex children, each under its own local pose,
//! moving as one collider. This file holds the shape, its validation and the
//! culling of its children; the queries over the children are in
//! `compound/queries.rs`.

use core::fmt;
use core::ops::ControlFlow;
use std::sync::Arc;

use proxima_broadphase::StaticBvh;
use proxima_narrowphase::kernels::AabbX8;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Isometry, Point, Real, ShapeError, Vector};

use crate::error::PoseError;
use crate::shape::{validated_pose, ColliderShape, WorldShape};

mod queries;
mod ray;

pub(crate) use queries::{
    cast_sphere_compound, closest_point_compound, contact_compound, contains_point_compound, ray_hit_compound,
};

/// Children up to this count are culled by a linear scan of their boxes;
/// more get a [`StaticBvh`]. A scan tests six floats per child, in order,
/// from one contiguous array; a tree walk pays a stack and a branch per
/// node, and only wins once it skips most of the children.
const LINEAR_CHILDREN: usize = 16;

/// Children up to this count are culled for a ray by their boxes eight at a
/// time (one wide slab test per block), the tree past it. A ray keeps its
/// inverse direction across the blocks and sorts the few boxes it enters,
/// where a tree walk pays a stack and a scalar test per child of each leaf
/// it enters.
const LINEAR_RAY_CHILDREN: usize = 32;

/// A manifold point's id against a compound carries the child's index in its
/// top 12 bits (see [`Compound::child_of_point_id`]).
const CHILD_ID_SHIFT: u32 = 20;

/// Why a [`Compound`] could not be built.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CompoundError {
    /// No children.
    Empty,
    /// More than [`Compound::MAX_CHILDREN`] children.
    TooManyChildren {
        /// The children given.
        count: usize,
    },
    /// A child is not convex (a triangle mesh, a heightfield or a compound).
    NotConvex {
        /// The child's position in the list.
        child: usize,
    },
    /// A child's local pose is NaN, infinite, beyond the coordinate bound, or
    /// its rotation is off unit length (the rule of every collider's pose).
    InvalidPose {
        /// The child's position in the list.
        child: usize,
        /// What is wrong with the pose.
        error: PoseError,
    },
    /// A child's shape is invalid once placed by its pose (a negative or NaN
    /// size, or a size beyond the coordinate bound).
    InvalidShape {
        /// The child's position in the list.
        child: usize,
        /// What is wrong with the shape.
        error: ShapeError,
    },
}

impl fmt::Display for CompoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("compound has no children"),
            Self::TooManyChildren { count } => {
                write!(f, "compound has {count} children, more than {}", Compound::MAX_CHILDREN)
            }
            Self::NotConvex { child } => write!(f, "compound child {child} is not convex"),
            Self::InvalidPose { child, error } => write!(f, "compound child {child}: invalid pose ({error:?})"),
            Self::InvalidShape { child, error } => write!(f, "compound child {child}: {error}"),
        }
    }
}

impl std::error::Error for CompoundError {}

/// Several convex shapes (spheres, boxes, capsules, hulls), each placed in
/// the compound's frame by its own local pose, forming one collider: a
/// child placed in the world is `child_shape.placed(&(pose * child_pose))`.
///
/// The children are convex only, as in Box2D's and Jolt's compounds: every
/// child pair is then a convex pair with an exact kernel, and a child has a
/// solid inside, so [`WorldShape::contains_point`] is the union of the
/// children. A triangle mesh or a heightfield belongs in its own collider.
///
/// Queries visit the children whose box overlaps the other shape's box (in
/// the compound's frame): a contact is the deepest child contact, the
/// manifolds are one group per touching child (point ids carry the child's
/// index: [`Compound::child_of_point_id`]), a ray hit is the closest child
/// hit ([`SceneRayHit::child`](crate::SceneRayHit::child) names it).
/// A compound moves in [`Scene::cast_shape`](crate::Scene::cast_shape) and
/// continuous collision as its children: each child is swept as the convex
/// shape it is, and the earliest child hit is kept
/// ([`SceneSweepHit::moving_child`](crate::SceneSweepHit::moving_child) names it).
///
/// Under the `serde` feature a compound serializes its children, and is
/// rebuilt and validated (as by [`Compound::try_new`]) when read back.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
/// use proxima::scene::*;
/// use proxima::narrowphase::{Isometry, Vector};
/// // A dumbbell: two balls on a bar.
/// let dumbbell = Compound::try_new(vec![
///     (Isometry::translation(-1.0, 0.0, 0.0), ColliderShape::Sphere { radius: 0.5 }),
///     (Isometry::translation(1.0, 0.0, 0.0), ColliderShape::Sphere { radius: 0.5 }),
///     (Isometry::identity(), ColliderShape::Cuboid { half_extents: Vector::new(1.0, 0.1, 0.1) }),
/// ])
/// .unwrap();
/// assert_eq!(dumbbell.len(), 3);
/// assert_eq!(dumbbell.local_aabb().max().x, 1.5);
/// let shape = ColliderShape::Compound(std::sync::Arc::new(dumbbell));
/// assert!(!shape.is_convex());
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "Vec<(Isometry, ColliderShape)>", into = "Vec<(Isometry, ColliderShape)>")
)]
pub struct Compound {
    /// The children: local pose (renormalised) and convex shape.
    children: Vec<(Isometry, ColliderShape)>,
    /// Each child placed by its local pose: the child in the compound's
    /// frame, which a ray brought into that frame is cast against.
    local_children: Vec<WorldShape>,
    /// Each child's box in the compound's frame.
    boxes: Vec<Aabb>,
    /// The union of `boxes`.
    local_aabb: Aabb,
    /// A tree over `boxes` past [`LINEAR_CHILDREN`] children.
    bvh: Option<StaticBvh>,
    /// Up to [`LINEAR_RAY_CHILDREN`] children: `boxes` eight to a block,
    /// structure-of-arrays, for the ray's one wide slab test per block.
    lanes: Vec<AabbX8>,
    /// Beside each block of `lanes`: each box's largest half-extent (0 in
    /// padded lanes), which scales its rounding allowance.
    lane_extents: Vec<[Real; 8]>,
}

impl Compound {
    /// The most children a compound holds: a manifold point id keeps 12 bits
    /// for the child's index.
    pub const MAX_CHILDREN: usize = 1 << (32 - CHILD_ID_SHIFT);

    /// A compound of `children` (local pose, shape), or why not: see
    /// [`CompoundError`]. Each pose is renormalised as a collider's pose is.
    pub fn try_new(children: Vec<(Isometry, ColliderShape)>) -> Result<Self, CompoundError> {
        if children.is_empty() {
            return Err(CompoundError::Empty);
        }
        if children.len() > Self::MAX_CHILDREN {
            return Err(CompoundError::TooManyChildren { count: children.len() });
        }
        let mut checked = Vec::with_capacity(children.len());
        let mut local_children = Vec::with_capacity(children.len());
        let mut boxes = Vec::with_capacity(children.len());
        for (child, (pose, shape)) in children.into_iter().enumerate() {
            if !shape.is_convex() {
                return Err(CompoundError::NotConvex { child });
            }
            let pose = validated_pose(&pose).map_err(|error| CompoundError::InvalidPose { child, error })?;
            let placed = shape.placed(&pose).map_err(|error| CompoundError::InvalidShape { child, error })?;
            boxes.push(placed.aabb());
            local_children.push(placed);
            checked.push((pose, shape));
        }
        let local_aabb = boxes.iter().skip(1).fold(boxes[0], |acc, b| acc.merged(b));
        // The tree's boxes are loosened by the rounding allowance of the
        // compound's own coordinates, as the linear scan's are at each query.
        let bvh = (boxes.len() > LINEAR_CHILDREN).then(|| {
            let margin = box_margin(&Isometry::identity(), &local_aabb.center().coords);
            let loose: Vec<Aabb> =
                boxes.iter().map(|b| b.loosened(margin + margin * b.half_extents().amax())).collect();
            StaticBvh::build(&loose)
        });
        let linear = if boxes.len() <= LINEAR_RAY_CHILDREN { boxes.as_slice() } else { &[] };
        let lanes = linear.chunks(8).map(AabbX8::from_boxes).collect();
        let lane_extents = linear
            .chunks(8)
            .map(|block| core::array::from_fn(|lane| block.get(lane).map_or(0.0, |b| b.half_extents().amax())))
            .collect();
        Ok(Self { children: checked, local_children, boxes, local_aabb, bvh, lanes, lane_extents })
    }

    /// The children: local pose (from the child's frame to the compound's)
    /// and shape, in the order given.
    pub fn children(&self) -> &[(Isometry, ColliderShape)] {
        &self.children
    }

    /// The number of children (at least one).
    pub fn len(&self) -> usize {
        self.children.len()
    }

    /// Always false: a compound has at least one child.
    pub fn is_empty(&self) -> bool {
        self.children.is_empty()
    }

    /// The box around every child, in the compound's frame.
    pub fn local_aabb(&self) -> &Aabb {
        &self.local_aabb
    }

    /// The index of the compound's child that a manifold point comes from,
    /// read from the point's id ([`ManifoldPoint::id`](proxima_narrowphase::ManifoldPoint)):
    /// a manifold of a compound and another shape (either side) holds the
    /// points of one child, and each point's id is
    /// `(child << 20) | (id' ^ (id' >> 9)) & 0xF_FFFF`, with `id'` the
    /// child pair's own id. The child's id stays the same from frame to
    /// frame while the same features touch. Two compounds: this names A's
    /// child, and bits 11 to 19 hold B's child index modulo 512.
    pub fn child_of_point_id(id: u32) -> usize {
        (id >> CHILD_ID_SHIFT) as usize
    }

    /// The id of child `child`'s manifold point whose own id is `id`.
    pub(crate) fn tagged_point_id(child: usize, id: u32) -> u32 {
        ((child as u32) << CHILD_ID_SHIFT) | ((id ^ (id >> 9)) & ((1 << CHILD_ID_SHIFT) - 1))
    }

    /// Child `i` placed in the world by the compound's `pose`; `None` only
    /// where the placement fails, which [`ColliderShape::placed`] rules out
    /// for a placed compound.
    pub(crate) fn child_world(&self, i: usize, pose: &Isometry) -> Option<WorldShape> {
        let (local, shape) = &self.children[i];
        shape.placed(&(pose * local)).ok()
    }

    /// The compound placed by `pose`, once every child is checked to place.
    pub(crate) fn placed(self: &Arc<Self>, pose: &Isometry) -> Result<WorldShape, ShapeError> {
        for (local, shape) in &self.children {
            shape.placed(&(pose * local))?;
        }
        Ok(WorldShape::Compound(Arc::clone(self), *pose))
    }

    /// The world box: the union of the placed children's boxes.
    pub(crate) fn world_aabb(&self, pose: &Isometry) -> Aabb {
        let mut out: Option<Aabb> = None;
        for i in 0..self.children.len() {
            if let Some(child) = self.child_world(i, pose) {
                let b = child.aabb();
                out = Some(out.map_or(b, |o| o.merged(&b)));
            }
        }
        out.unwrap_or_else(|| {
            let c = Point::from(pose.translation.vector);
            Aabb::new(c, c)
        })
    }

    /// Calls `f` with each child whose local box overlaps `world` (a world
    /// box) brought into the compound's frame by `pose`, until it breaks;
    /// with every child when that box is not finite (a query box near the
    /// float range), so no child is skipped by an overflow.
    pub(crate) fn visit_overlapping(
        &self,
        pose: &Isometry,
        world: &Aabb,
        mut f: impl FnMut(usize) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let Some(local) = local_box(pose, world) else {
            for i in 0..self.children.len() {
                f(i)?;
            }
            return ControlFlow::Continue(());
        };
        match &self.bvh {
            Some(bvh) => {
                for id in bvh.overlaps(&local) {
                    f(id as usize)?;
                }
            }
            None => {
                for (i, b) in self.boxes.iter().enumerate() {
                    if intersects_aabb_aabb(b, &local) {
                        f(i)?;
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The child `i` placed by its local pose (in the compound's frame).
    pub(crate) fn local_child(&self, i: usize) -> &WorldShape {
        &self.local_children[i]
    }
}

/// The rounding allowance of a box moved between frames: `2^-16` of the
/// coordinates involved. The culls only skip children, so a loose box costs
/// an exact test, never an answer.
///
/// `amax` is the largest `|component|` (nalgebra's `amax`, as selects: the
/// same value for the finite vectors given here).
fn box_margin(pose: &Isometry, local: &Vector) -> Real {
    let amax = |v: &Vector| {
        let (x, y, z) = (v.x.abs(), v.y.abs(), v.z.abs());
        let xy = if y > x { y } else { x };
        if z > xy {
            z
        } else {
            xy
        }
    };
    let scale = 1.0 + amax(&pose.translation.vector) + amax(local);
    scale * (1.0 / 65536.0)
}

/// The box in the compound's frame around the world box `world`: its centre
/// `R^T (c - t)`, its half-extents `|R^T| h` (the box of the rotated box),
/// loosened by the rounding allowance. `None` when it is not finite.
fn local_box(pose: &Isometry, world: &Aabb) -> Option<Aabb> {
    let centre = pose.inverse_transform_point(&world.center());
    let r = pose.rotation.inverse().to_rotation_matrix().into_inner().abs();
    let half = r * world.half_extents();
    let margin = box_margin(pose, &centre.coords) + half.amax() * (1.0 / 65536.0);
    Aabb::try_from_center(centre, half.add_scalar(margin)).ok()
}

impl TryFrom<Vec<(Isometry, ColliderShape)>> for Compound {
    type Error = CompoundError;

    fn try_from(children: Vec<(Isometry, ColliderShape)>) -> Result<Self, CompoundError> {
        Self::try_new(children)
    }
}

impl From<Compound> for Vec<(Isometry, ColliderShape)> {
    fn from(compound: Compound) -> Self {
        compound.children
    }
}
