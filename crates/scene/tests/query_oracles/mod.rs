//! Seeded scenes with filters to try, and the brute-force oracles of the
//! swept-sphere and overlap queries: every collider in turn, each tested with
//! the narrowphase functions (a mesh triangle by triangle), with no tree and
//! no `QueryFilter::accepts`.
#![allow(dead_code)]

use std::sync::Arc;

use nalgebra::Translation3;
use proxima_narrowphase::{
    cast_sphere_aabb, cast_sphere_capsule, cast_sphere_obb, cast_sphere_sphere, cast_sphere_triangle,
    contact_capsule_triangle, intersects_aabb_aabb, intersects_aabb_obb, intersects_aabb_triangle,
    intersects_capsule_aabb, intersects_capsule_capsule, intersects_capsule_obb, intersects_obb_obb,
    intersects_sphere_aabb, intersects_sphere_capsule, intersects_sphere_obb, intersects_sphere_sphere,
    intersects_sphere_triangle, Aabb, Capsule, Isometry, Obb, Point, Real, Sphere, SweepHit, SweepStatus, Triangle,
    Vector,
};
use proxima_scene::{
    BodyKind, Collider, ColliderDesc, ColliderHandle, ColliderShape, CollisionGroups, OverlapShape, QueryFilter, Scene,
    TriMesh, WorldShape,
};
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

/// A random pose in `[0, side)^3` with a uniform rotation.
pub fn pose(rng: &mut impl Rng, side: Real) -> Isometry {
    let t = Vector::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side));
    Isometry::from_parts(Translation3::from(t), gen::rotation(rng))
}

/// A point uniform in the cube of side `side`.
pub fn point_in(rng: &mut impl Rng, side: Real) -> Point {
    Point::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side))
}

/// A bumpy `n x n` grid of quads of side `cell` (heights in `[0, bump)`).
pub fn patch(rng: &mut impl Rng, n: u32, cell: Real, bump: Real) -> Arc<TriMesh> {
    let vertices = (0..=n)
        .flat_map(|i| (0..=n).map(move |j| (i, j)))
        .map(|(i, j)| Point::new(i as Real * cell, uniform(rng, 0.0, bump), j as Real * cell))
        .collect();
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

/// `n` colliders of every solid kind (sphere, box, oriented box, capsule;
/// sizes in `[0.1, 1)`) in a cube of side `side`, every third one static,
/// every sixth (from the second) kinematic, the others dynamic, each in one
/// of three groups with a random filter; and `meshes` static
/// bumpy mesh patches (8 x 8 quads of side 1) at random poses.
pub fn scene(n: usize, meshes: usize, side: Real, seed: u64) -> (Scene, Vec<ColliderHandle>) {
    let mut rng = proxima_test_support::rng(seed);
    let mut scene = Scene::new();
    let mut handles = Vec::with_capacity(n + meshes);
    for i in 0..n {
        let p = pose(&mut rng, side);
        let mut s = || uniform(&mut rng, 0.1, 1.0);
        let shape = match i % 4 {
            0 => ColliderShape::Sphere { radius: s() },
            1 => ColliderShape::Cuboid { half_extents: Vector::new(s(), s(), s()) },
            2 => ColliderShape::Cuboid { half_extents: Vector::new(s(), s(), s()) },
            _ => ColliderShape::Capsule { half_height: s(), radius: s() * 0.5 },
        };
        let groups = CollisionGroups::new(1 << (i % 3), rng.random_range(1..8));
        let mut desc = ColliderDesc::new(shape, p).with_groups(groups);
        if i % 3 == 0 {
            desc = desc.fixed();
        } else if i % 6 == 1 {
            desc = desc.kinematic();
        }
        handles.push(scene.insert(desc).expect("valid collider"));
    }
    for _ in 0..meshes {
        let mesh = patch(&mut rng, 8, 1.0, 0.8);
        let desc = ColliderDesc::new(ColliderShape::TriMesh(mesh), pose(&mut rng, side - 8.0));
        handles.push(scene.insert(desc.fixed()).expect("valid mesh"));
    }
    (scene, handles)
}

/// Accepts colliders of odd slot index.
pub fn odd(h: ColliderHandle, _: &Collider) -> bool {
    h.index() % 2 == 1
}

/// A filter described by its parts, with its own rule (the oracle's).
#[derive(Clone, Debug)]
pub struct FilterSpec {
    pub groups: CollisionGroups,
    pub exclude_fixed: bool,
    pub exclude_dynamic: bool,
    pub exclude_kinematic: bool,
    pub exclude_collider: Option<ColliderHandle>,
    pub exclude: Vec<ColliderHandle>,
    pub odd_only: bool,
}

impl FilterSpec {
    /// Everything accepted.
    pub fn all() -> Self {
        Self {
            groups: CollisionGroups::default(),
            exclude_fixed: false,
            exclude_dynamic: false,
            exclude_kinematic: false,
            exclude_collider: None,
            exclude: Vec::new(),
            odd_only: false,
        }
    }

    /// Each part set with probability 1/4 (the groups 1/2).
    pub fn random(rng: &mut impl Rng, handles: &[ColliderHandle]) -> Self {
        let mut pick = |p: f64| rng.random_bool(p);
        let (g, fixed, dynamic, kinematic) = (pick(0.5), pick(0.25), pick(0.25), pick(0.25));
        let (one, some, odd) = (pick(0.25), pick(0.25), pick(0.25));
        let mut handle = || handles[rng.random_range(0..handles.len())];
        Self {
            groups: if g {
                CollisionGroups::new(1 << (handle().index() % 3), 0b101)
            } else {
                CollisionGroups::default()
            },
            exclude_fixed: fixed,
            exclude_dynamic: dynamic,
            exclude_kinematic: kinematic,
            exclude_collider: one.then(&mut handle),
            exclude: if some { (0..8).map(|_| handle()).collect() } else { Vec::new() },
            odd_only: odd,
        }
    }

    /// The filter, made with the builders.
    pub fn filter(&self) -> QueryFilter<'_> {
        let mut f = QueryFilter::excluding(&self.exclude).groups(self.groups);
        if self.exclude_fixed {
            f = f.exclude_fixed();
        }
        if self.exclude_dynamic {
            f = f.exclude_dynamic();
        }
        if self.exclude_kinematic {
            f = f.exclude_kinematic();
        }
        if let Some(h) = self.exclude_collider {
            f = f.exclude_collider(h);
        }
        if self.odd_only {
            f = f.predicate(&odd);
        }
        f
    }

    /// The rule, written out: groups interact both ways, kind not
    /// excluded, handle not excluded, odd index when asked.
    pub fn admits(&self, scene: &Scene, h: ColliderHandle) -> bool {
        let c = scene.get(h).expect("live handle");
        let g = c.groups();
        let kind_excluded = match c.kind() {
            BodyKind::Fixed => self.exclude_fixed,
            BodyKind::Dynamic => self.exclude_dynamic,
            BodyKind::Kinematic => self.exclude_kinematic,
        };
        (self.groups.memberships & g.filter) != 0
            && (g.memberships & self.groups.filter) != 0
            && !kind_excluded
            && self.exclude_collider != Some(h)
            && !self.exclude.contains(&h)
            && (!self.odd_only || h.index() % 2 == 1)
    }
}

/// True when `hit` starts in contact and `motion` does not go into it.
pub fn leaves(hit: &SweepHit, motion: &Vector) -> bool {
    hit.status == SweepStatus::Penetrating && motion.dot(&hit.normal) >= 0.0
}

/// The first hit of `sphere` moving by `motion` on `shape`; with `stop`
/// false, start overlaps the motion leaves are skipped (a mesh's per triangle).
pub fn sweep(shape: &WorldShape, sphere: &Sphere, motion: &Vector, stop: bool) -> Option<SweepHit> {
    let keep = |hit: Option<SweepHit>| hit.filter(|h| stop || !leaves(h, motion));
    match shape {
        WorldShape::Sphere(t) => keep(cast_sphere_sphere(sphere, motion, t)),
        WorldShape::Aabb(a) => keep(cast_sphere_aabb(sphere, motion, a)),
        WorldShape::Obb(o) => keep(cast_sphere_obb(sphere, motion, o)),
        WorldShape::Capsule(c) => keep(cast_sphere_capsule(sphere, motion, c)),
        WorldShape::TriMesh(mesh, pose) => {
            let local = Sphere::new(pose.inverse_transform_point(sphere.center()), sphere.radius());
            let m = pose.inverse_transform_vector(motion);
            let hit = mesh
                .triangles()
                .filter_map(|t| cast_sphere_triangle(&local, &m, &t))
                .filter(|h| stop || !leaves(h, &m))
                .min_by(|a, b| a.toi.total_cmp(&b.toi))?;
            Some(SweepHit { point: pose.transform_point(&hit.point), normal: pose.rotation * hit.normal, ..hit })
        }
        other => unimplemented!("the query oracles' scenes hold no {other:?}"),
    }
}

/// The smallest `toi` over the colliders `spec` admits, and the colliders
/// hit at it.
pub fn brute_sweep(
    scene: &Scene,
    handles: &[ColliderHandle],
    spec: &FilterSpec,
    sphere: &Sphere,
    motion: &Vector,
    stop: bool,
) -> Option<(Real, Vec<ColliderHandle>)> {
    let hits: Vec<(ColliderHandle, Real)> = handles
        .iter()
        .filter(|&&h| spec.admits(scene, h))
        .filter_map(|&h| sweep(scene.get(h).unwrap().world_shape(), sphere, motion, stop).map(|hit| (h, hit.toi)))
        .collect();
    let toi = hits.iter().map(|h| h.1).min_by(Real::total_cmp)?;
    Some((toi, hits.iter().filter(|h| h.1 == toi).map(|h| h.0).collect()))
}

/// The exact overlap test of `probe` with `shape`, a mesh triangle by triangle.
pub fn overlaps(probe: &OverlapShape, shape: &WorldShape) -> bool {
    match (probe, shape) {
        (OverlapShape::Point(p), shape) => shape.contains_point(p),
        (OverlapShape::Sphere(s), WorldShape::Sphere(t)) => intersects_sphere_sphere(s, t),
        (OverlapShape::Sphere(s), WorldShape::Aabb(a)) => intersects_sphere_aabb(s, a),
        (OverlapShape::Sphere(s), WorldShape::Obb(o)) => intersects_sphere_obb(s, o),
        (OverlapShape::Sphere(s), WorldShape::Capsule(c)) => intersects_sphere_capsule(s, c),
        (OverlapShape::Aabb(a), WorldShape::Sphere(s)) => intersects_sphere_aabb(s, a),
        (OverlapShape::Aabb(a), WorldShape::Aabb(b)) => intersects_aabb_aabb(a, b),
        (OverlapShape::Aabb(a), WorldShape::Obb(o)) => intersects_aabb_obb(a, o),
        (OverlapShape::Aabb(a), WorldShape::Capsule(c)) => intersects_capsule_aabb(c, a),
        (OverlapShape::Obb(o), WorldShape::Sphere(s)) => intersects_sphere_obb(s, o),
        (OverlapShape::Obb(o), WorldShape::Aabb(a)) => intersects_aabb_obb(a, o),
        (OverlapShape::Obb(o), WorldShape::Obb(p)) => intersects_obb_obb(o, p),
        (OverlapShape::Obb(o), WorldShape::Capsule(c)) => intersects_capsule_obb(c, o),
        (OverlapShape::Capsule(c), WorldShape::Sphere(s)) => intersects_sphere_capsule(s, c),
        (OverlapShape::Capsule(c), WorldShape::Aabb(a)) => intersects_capsule_aabb(c, a),
        (OverlapShape::Capsule(c), WorldShape::Obb(o)) => intersects_capsule_obb(c, o),
        (OverlapShape::Capsule(c), WorldShape::Capsule(d)) => intersects_capsule_capsule(c, d),
        (probe, WorldShape::TriMesh(mesh, pose)) => mesh.triangles().any(|t| overlaps_triangle(probe, &t, pose)),
        (_, other) => unimplemented!("the query oracles' scenes hold no {other:?}"),
    }
}

/// A probe (world frame) against a mesh triangle (frame placed by `pose`),
/// tested in the mesh frame as the scene does.
fn overlaps_triangle(probe: &OverlapShape, t: &Triangle, pose: &Isometry) -> bool {
    let to_obb = |o: &Obb| {
        Obb::new(pose.inverse_transform_point(o.center()), pose.rotation.inverse() * o.rotation(), *o.half_extents())
    };
    match probe {
        OverlapShape::Point(_) => unreachable!("points are tested by the mesh"),
        OverlapShape::Sphere(s) => {
            intersects_sphere_triangle(&Sphere::new(pose.inverse_transform_point(s.center()), s.radius()), t)
        }
        OverlapShape::Capsule(c) => {
            let local =
                Capsule::new(pose.inverse_transform_point(c.a()), pose.inverse_transform_point(c.b()), c.radius());
            contact_capsule_triangle(&local, t).is_some()
        }
        OverlapShape::Aabb(a) => overlaps_triangle(&OverlapShape::Obb(Obb::from_aabb(a)), t, pose),
        OverlapShape::Obb(o) => {
            let o = to_obb(o);
            let [a, b, c] = t.vertices().map(|v| Point::from(o.to_local(&v)));
            let local_box = Aabb::new(Point::from(-o.half_extents()), Point::from(*o.half_extents()));
            Triangle::try_new(a, b, c).is_ok_and(|lt| intersects_aabb_triangle(&local_box, &lt))
        }
    }
}

/// The admitted colliders overlapping `probe`, sorted.
pub fn brute_overlaps(
    scene: &Scene,
    handles: &[ColliderHandle],
    spec: &FilterSpec,
    probe: &OverlapShape,
) -> Vec<ColliderHandle> {
    handles
        .iter()
        .copied()
        .filter(|&h| spec.admits(scene, h) && overlaps(probe, scene.get(h).unwrap().world_shape()))
        .collect()
}

/// A random probe of kind `k % 5` (point, box, sphere, oriented box,
/// capsule) in the cube of side `side`, of size in `[0.1, 0.8)`.
pub fn probe(rng: &mut impl Rng, k: usize, side: Real) -> OverlapShape {
    let c = point_in(rng, side);
    let mut s = || uniform(rng, 0.1, 0.8);
    match k % 5 {
        0 => OverlapShape::Point(c),
        1 => {
            let h = Vector::new(s(), s(), s());
            OverlapShape::Aabb(Aabb::new(c - h, c + h))
        }
        2 => OverlapShape::Sphere(Sphere::new(c, s())),
        3 => {
            let h = Vector::new(s(), s(), s());
            OverlapShape::Obb(Obb::new(c, gen::rotation(rng), h))
        }
        _ => {
            let d = gen::unit_vector(rng) * uniform(rng, 0.0, 0.8);
            OverlapShape::Capsule(Capsule::new(c - d, c + d, uniform(rng, 0.1, 0.4)))
        }
    }
}
