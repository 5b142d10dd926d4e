//! Scene builders shared by the scene tests, and their parry3d twins.
#![allow(dead_code)]

pub mod compound;
pub mod distance;
pub mod steady;

use nalgebra::Translation3;
use parry3d::math::Pose;
use parry3d::shape::SharedShape;
use proxima_narrowphase::{Capsule, Isometry, Obb, Point, Real, Sphere, Vector};
use proxima_scene::{contact, BodyKind, ColliderDesc, ColliderHandle, ColliderShape, Scene, TriMesh, WorldShape};
use proxima_test_support::convert;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Cases per check: many in release, fewer in a debug build.
pub fn cases(release: usize) -> usize {
    if cfg!(debug_assertions) {
        release / 20
    } else {
        release
    }
}

/// A random pose in `[0, side)^3` with a uniform rotation.
pub fn pose(rng: &mut impl Rng, side: Real) -> Isometry {
    let t = Vector::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side));
    Isometry::from_parts(Translation3::from(t), gen::rotation(rng))
}

/// `n` colliders of every solid kind (sphere, AABB, OBB, capsule), sizes
/// U[0.1, 1.0), in a cube of side `side`; every fourth one static.
pub fn mixed_scene(n: usize, side: Real, seed: u64) -> (Scene, Vec<ColliderHandle>) {
    let mut rng = proxima_test_support::rng(seed);
    let mut scene = Scene::new();
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let p = pose(&mut rng, side);
        let s = |rng: &mut _| uniform(rng, 0.1, 1.0);
        let shape = match i % 4 {
            0 => ColliderShape::Sphere { radius: s(&mut rng) },
            1 => ColliderShape::Cuboid { half_extents: Vector::new(s(&mut rng), s(&mut rng), s(&mut rng)) },
            2 => ColliderShape::Cuboid { half_extents: Vector::new(s(&mut rng), s(&mut rng), s(&mut rng)) },
            _ => ColliderShape::Capsule { half_height: s(&mut rng), radius: s(&mut rng) * 0.5 },
        };
        let mut desc = ColliderDesc::new(shape, p);
        if i % 4 == 3 {
            desc = desc.fixed();
        }
        handles.push(scene.insert(desc).expect("valid collider"));
    }
    (scene, handles)
}

/// The parry3d twin of a placed solid shape.
pub fn parry_shape(shape: &WorldShape) -> (Pose, SharedShape) {
    match shape {
        WorldShape::Sphere(s) => (convert::pose_at(s.center()), SharedShape::ball(s.radius())),
        WorldShape::Aabb(a) => (convert::pose_at(&a.center()), SharedShape::cuboid_from(a.half_extents())),
        WorldShape::Obb(o) => (convert::obb_pose(o), SharedShape::cuboid_from(*o.half_extents())),
        WorldShape::Capsule(c) => {
            (Pose::identity(), SharedShape::capsule(convert::pt(c.a()), convert::pt(c.b()), c.radius()))
        }
        WorldShape::ConvexHull(hull, pose) => {
            let points: Vec<_> = hull.vertices().iter().map(convert::pt).collect();
            let p = Pose::from_parts(convert::vec(&pose.translation.vector), convert::rot(&pose.rotation));
            (p, SharedShape::convex_hull(&points).expect("parry builds a hull's hull"))
        }
        _ => unimplemented!("meshes are compared in their own test"),
    }
}

/// Helper to build a cuboid from nalgebra half-extents.
trait CuboidFrom {
    fn cuboid_from(h: Vector) -> SharedShape;
}

impl CuboidFrom for SharedShape {
    fn cuboid_from(h: Vector) -> SharedShape {
        SharedShape::cuboid(h.x, h.y, h.z)
    }
}

/// A point uniform in the cube.
pub fn point_in(rng: &mut impl Rng, side: Real) -> Point {
    Point::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side))
}

/// Independent f64 oracle for the entry `toi` of a ray into a solid convex
/// shape: `f(t) = distance(o + t d, shape)` is convex in `t`, so its minimum is
/// found by ternary search and the first root before it by bisection. Returns
/// the entry toi and the minimum distance (how close a miss came: the
/// tangency measure).
pub fn oracle_ray_toi(shape: &WorldShape, ray: &proxima_narrowphase::Ray) -> (Option<f64>, f64) {
    type V = nalgebra::Vector3<f64>;
    let o: V = ray.origin().coords.cast();
    let d: V = ray.dir().cast();
    let dist = |p: V| -> f64 {
        match shape {
            WorldShape::Sphere(s) => (p - s.center().coords.cast::<f64>()).norm() - s.radius() as f64,
            WorldShape::Aabb(a) => {
                let c: V = a.center().coords.cast();
                let h: V = a.half_extents().cast();
                (p - c).zip_map(&h, |x, h| (x.abs() - h).max(0.0)).norm()
            }
            WorldShape::Obb(b) => {
                let local = b.axes().cast::<f64>().transpose() * (p - b.center().coords.cast::<f64>());
                let h: V = b.half_extents().cast();
                local.zip_map(&h, |x, h| (x.abs() - h).max(0.0)).norm()
            }
            WorldShape::Capsule(c) => {
                let (a, b): (V, V) = (c.a().coords.cast(), c.b().coords.cast());
                let ab = b - a;
                let t =
                    if ab.norm_squared() > 0.0 { ((p - a).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0) } else { 0.0 };
                (p - (a + ab * t)).norm() - c.radius() as f64
            }
            _ => unimplemented!("the oracle covers the four solid primitives"),
        }
    };
    let f = |t: f64| dist(o + d * t);
    let (mut lo, mut hi) = (0.0f64, ray.max_toi() as f64);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let t_min = 0.5 * (lo + hi);
    let f_min = f(t_min).min(f(0.0));
    if f(0.0) <= 0.0 {
        return (Some(0.0), f_min);
    }
    if f(t_min) > 0.0 {
        return (None, f_min);
    }
    let (mut a, mut b) = (0.0f64, t_min);
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if f(m) > 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    (Some(b), f_min)
}

/// A bumpy mesh patch: an `n x n` grid of quads (two triangles each) of
/// side `cell` with random heights in `[0, bump)`, in its own frame.
pub fn patch(rng: &mut impl Rng, n: u32, cell: Real, bump: Real) -> Arc<TriMesh> {
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let y = if bump > 0.0 { uniform(rng, 0.0, bump) } else { 0.0 };
            vertices.push(Point::new(i as Real * cell, y, j as Real * cell));
        }
    }
    let at = |i: u32, j: u32| i * (n + 1) + j;
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Arc::new(TriMesh::new(vertices, indices).expect("valid mesh"))
}

/// A flat `n x n` grid of quads (two triangles each) of side `cell` at y = 0.
pub fn grid(n: u32, cell: Real) -> Arc<TriMesh> {
    let vertices =
        (0..=n).flat_map(|i| (0..=n).map(move |j| Point::new(i as Real * cell, 0.0, j as Real * cell))).collect();
    let at = |i: u32, j: u32| i * (n + 1) + j;
    let indices = (0..n)
        .flat_map(|i| {
            (0..n).flat_map(move |j| {
                [[at(i, j), at(i + 1, j), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i, j + 1)]]
            })
        })
        .collect();
    Arc::new(TriMesh::new(vertices, indices).expect("valid mesh"))
}

/// A random sphere, OBB or capsule of size U[0.15, 0.8) centred over the
/// patch `[0, 6]^2`: x and z in `[0.5, 5.5)`, y in `[0, top)`.
pub fn shape_over_patch(rng: &mut impl Rng, top: Real) -> WorldShape {
    let c = Point::new(uniform(rng, 0.5, 5.5), uniform(rng, 0.0, top), uniform(rng, 0.5, 5.5));
    let s = |rng: &mut _| uniform(rng, 0.15, 0.8);
    match rng.random_range(0..3) {
        0 => WorldShape::Sphere(Sphere::new(c, s(rng))),
        1 => WorldShape::Obb(Obb::new(c, gen::rotation(rng), Vector::new(s(rng), s(rng), s(rng)))),
        _ => {
            let d = gen::unit_vector(rng) * s(rng);
            WorldShape::Capsule(Capsule::new(c - d, c + d, 0.5 * s(rng)))
        }
    }
}

/// The pairs of colliders in contact by the exact test over all pairs
/// (static-static excluded): the pipeline tests' oracle.
pub fn brute_pairs(scene: &Scene) -> BTreeSet<(ColliderHandle, ColliderHandle)> {
    let all: Vec<_> = scene.iter().collect();
    let mut out = BTreeSet::new();
    for (i, (ha, a)) in all.iter().enumerate() {
        for (hb, b) in &all[i + 1..] {
            if a.kind() == BodyKind::Fixed && b.kind() == BodyKind::Fixed {
                continue;
            }
            if contact(a.world_shape(), b.world_shape()).is_some() {
                out.insert(if ha < hb { (*ha, *hb) } else { (*hb, *ha) });
            }
        }
    }
    out
}

/// A set of collider pairs `(a, b)`, `a < b`.
pub type Pairs = BTreeSet<(ColliderHandle, ColliderHandle)>;

/// The touching pairs (`brute_pairs`) whose groups interact.
pub fn interacting(scene: &Scene) -> Pairs {
    let groups = |h: ColliderHandle| scene.get(h).unwrap().groups();
    let interact = |a: proxima_scene::CollisionGroups, b: proxima_scene::CollisionGroups| {
        a.memberships & b.filter != 0 && b.memberships & a.filter != 0
    };
    brute_pairs(scene).into_iter().filter(|&(a, b)| interact(groups(a), groups(b))).collect()
}

/// The events as (started, stopped) pair sets; asserts that they come in
/// pair order.
pub fn event_sets(events: &[proxima_scene::ContactEvent]) -> (Pairs, Pairs) {
    use proxima_scene::ContactEvent;
    let keys: Vec<_> = events
        .iter()
        .map(|e| match e {
            ContactEvent::Started(p) => (p.a, p.b),
            ContactEvent::Stopped { a, b } => (*a, *b),
        })
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "events not in pair order");
    let started = events.iter().filter_map(|e| if let ContactEvent::Started(p) = e { Some((p.a, p.b)) } else { None });
    let stopped =
        events.iter().filter_map(|e| if let ContactEvent::Stopped { a, b } = e { Some((*a, *b)) } else { None });
    (started.collect(), stopped.collect())
}
