//! Conversions between proxima's nalgebra types and parry3d 0.31's glam types.

use parry3d::math::{Pose, Rotation as PRot, Vector as PVec};
use proxima_narrowphase::{Aabb, Capsule, ConvexHull, Isometry, Obb, Point, Rotation, Sphere, Triangle, Vector};

/// nalgebra vector to parry vector.
pub fn vec(v: &Vector) -> PVec {
    PVec::new(v.x, v.y, v.z)
}

/// nalgebra point to parry vector (parry 0.31 uses vectors for points).
pub fn pt(p: &Point) -> PVec {
    PVec::new(p.x, p.y, p.z)
}

/// parry vector to nalgebra vector.
pub fn from_vec(v: PVec) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

/// parry vector to nalgebra point.
pub fn from_pt(v: PVec) -> Point {
    Point::new(v.x, v.y, v.z)
}

/// nalgebra unit quaternion to parry rotation.
pub fn rot(q: &Rotation) -> PRot {
    let c = q.as_ref().coords; // (i, j, k, w)
    PRot::from_xyzw(c.x, c.y, c.z, c.w)
}

/// A pose translating to `p` with no rotation.
pub fn pose_at(p: &Point) -> Pose {
    Pose::from_translation(pt(p))
}

/// The pose of an OBB (box frame to world).
pub fn obb_pose(obb: &Obb) -> Pose {
    Pose::from_parts(pt(obb.center()), rot(obb.rotation()))
}

/// A sphere as a parry ball and its pose.
pub fn ball(s: &Sphere) -> (Pose, parry3d::shape::Ball) {
    (pose_at(s.center()), parry3d::shape::Ball::new(s.radius()))
}

/// An OBB as a parry cuboid and its pose.
pub fn cuboid(o: &Obb) -> (Pose, parry3d::shape::Cuboid) {
    (obb_pose(o), parry3d::shape::Cuboid::new(vec(o.half_extents())))
}

/// An AABB as a parry cuboid and its pose.
pub fn aabb_cuboid(a: &Aabb) -> (Pose, parry3d::shape::Cuboid) {
    (pose_at(&a.center()), parry3d::shape::Cuboid::new(vec(&a.half_extents())))
}

/// An AABB as a parry AABB.
pub fn aabb(a: &Aabb) -> parry3d::bounding_volume::Aabb {
    parry3d::bounding_volume::Aabb::new(pt(a.min()), pt(a.max()))
}

/// A capsule as a parry capsule (identity pose).
pub fn capsule(c: &Capsule) -> (Pose, parry3d::shape::Capsule) {
    (Pose::identity(), parry3d::shape::Capsule::new(pt(c.a()), pt(c.b()), c.radius()))
}

/// A triangle as a parry triangle (identity pose).
pub fn triangle(t: &Triangle) -> (Pose, parry3d::shape::Triangle) {
    (Pose::identity(), parry3d::shape::Triangle::new(pt(t.a()), pt(t.b()), pt(t.c())))
}

/// A convex hull placed by `pose` as parry's `ConvexPolyhedron` (the hull of
/// the same vertices) and its pose.
pub fn convex_hull(hull: &ConvexHull, pose: &Isometry) -> (Pose, parry3d::shape::ConvexPolyhedron) {
    let points: Vec<PVec> = hull.vertices().iter().map(pt).collect();
    let poly = parry3d::shape::ConvexPolyhedron::from_convex_hull(&points)
        .expect("parry builds the hull of a hull's vertices");
    (Pose::from_parts(vec(&pose.translation.vector), rot(&pose.rotation)), poly)
}
