//! `Scene::cast_shape`: a convex collider shape (box, capsule, hull, sphere)
//! moving linearly through a scene.
//!
//! - Against brute force: random scenes of boxes (axis-aligned and
//!   rotated), capsules, spheres, hulls and a mesh, with filters (groups,
//!   an exclude list, a predicate, fixed bodies left out); the scene's hit
//!   is the least `toi` of `cast_shape_convex` run on every accepted
//!   collider (every triangle of the mesh), on the same collider up to ties.
//! - Against an independent oracle (`cast_shape_oracle`: bisection on an
//!   f64 overlap test of its own, GJK on the shapes' point sets, in a frame
//!   near the shapes) at offsets 0, 1e3 and 1e5 from the world origin:
//!   `|toi - oracle| <= 1e-5`, that is `1e-5 |motion|` along the motion.
//!   The error budget: the advancement's stop (`1e-7`) plus GJK's distance
//!   error `e` on the local coordinates (a few f32 roundings of coordinates
//!   up to ~6: `e ~ 5e-7`) divided by the approach speed `s |motion|`. The
//!   oracle leaves out the grazes (`s < 0.1`, counted as unclear); with
//!   `|motion| >= 0.5` a typical approach (`s ~ 1`) errs by ~1e-6 and the
//!   slowest kept ones by up to ~1e-5, the tolerance. The worst error is
//!   printed (`--nocapture`).
//! - Against parry3d's `cast_shapes` on the same cases; where the two differ
//!   by more than the tolerance the oracle decides. At 1e5 from the origin
//!   parry works on f32 world coordinates (spacing `2^-7`), and the oracle
//!   is the judge there.
//! - Bad input (NaN, infinity, a mesh as the moving shape) is a typed error.

mod cast_shape_oracle;

use std::sync::Arc;

use cast_shape_oracle::{first_contact_all, pieces, Verdict, V64};
use nalgebra::Translation3;
use parry3d::math::Pose;
use parry3d::query;
use proxima_narrowphase::{
    cast_shape_convex, Capsule, ConvexHull, Isometry, Obb, Point, Real, Rotation, Sphere, SupportMap, Triangle, Vector,
};
use proxima_scene::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::{rng, Rng};

/// Cases per scale (oracle and parry tests) and scenes of 10 casts (brute force):
/// release numbers, a few in debug builds, where the f64 oracle is slow.
const CASES: usize = if cfg!(debug_assertions) { 30 } else { 2000 };
const SCENES: usize = if cfg!(debug_assertions) { 20 } else { 400 };

/// The toi tolerance, in units of the motion's length (see the module doc).
const TOI_TOL: f64 = 1e-5;

/// A random hull of 8-20 points in a box of half-size `size`.
fn random_hull(rng: &mut impl Rng, size: Real) -> Arc<ConvexHull> {
    loop {
        let n = rng.random_range(8..20);
        let points: Vec<Point> =
            (0..n).map(|_| Point::from(Vector::from_fn(|_, _| uniform(rng, -size, size)))).collect();
        if let Ok(hull) = ConvexHull::try_new(&points) {
            return Arc::new(hull);
        }
    }
}

/// A 6 x 6 height field of unit cells (heights in `[-0.5, 0.5]`), centred
/// on its frame's origin.
fn terrain(rng: &mut impl Rng) -> Arc<TriMesh> {
    const N: u32 = 6;
    let vertices: Vec<Point> = (0..=N)
        .flat_map(|i| (0..=N).map(move |j| (i, j)))
        .map(|(i, j)| Point::new(i as Real - 3.0, uniform(rng, -0.5, 0.5), j as Real - 3.0))
        .collect();
    let at = |i: u32, j: u32| i * (N + 1) + j;
    let indices = (0..N)
        .flat_map(|i| (0..N).map(move |j| (i, j)))
        .flat_map(|(i, j)| [[at(i, j), at(i + 1, j), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i, j + 1)]])
        .collect();
    Arc::new(TriMesh::new(vertices, indices).unwrap())
}

/// A random convex shape: a box, a capsule, a hull, or one time in eight a
/// sphere.
fn convex_shape(rng: &mut impl Rng) -> ColliderShape {
    match rng.random_range(0..8) {
        0..=2 => ColliderShape::Cuboid { half_extents: Vector::from_fn(|_, _| uniform(rng, 0.2, 1.5)) },
        3 | 4 => ColliderShape::Capsule { half_height: uniform(rng, 0.0, 1.0), radius: uniform(rng, 0.1, 0.8) },
        5 | 6 => {
            let size = uniform(rng, 0.3, 1.5);
            ColliderShape::ConvexHull(random_hull(rng, size))
        }
        _ => ColliderShape::Sphere { radius: uniform(rng, 0.2, 1.0) },
    }
}

/// A pose at `centre`, rotated three times in four.
fn pose_at(rng: &mut impl Rng, centre: Vector) -> Isometry {
    let rotation = if rng.random_bool(0.75) { gen::rotation(rng) } else { Rotation::identity() };
    Isometry::from_parts(Translation3::from(centre), rotation)
}

/// A point with each coordinate uniform in `[-r, r]`.
fn within(rng: &mut impl Rng, r: Real) -> Vector {
    Vector::from_fn(|_, _| uniform(rng, -r, r))
}

/// One moving shape and one collider near `offset`, the motion towards it
/// more or less (about half the casts hit), at least 0.5 long.
struct Case {
    shape: ColliderShape,
    pose: Isometry,
    motion: Vector,
    target: ColliderShape,
    target_pose: Isometry,
}

fn draw_case(rng: &mut impl Rng, offset: Real, mesh: &Arc<TriMesh>) -> Case {
    let centre = Vector::repeat(offset) + within(rng, 0.5);
    let shape = convex_shape(rng);
    let target = if rng.random_range(0..6) == 0 { ColliderShape::TriMesh(mesh.clone()) } else { convex_shape(rng) };
    let target_centre = centre + within(rng, 4.0);
    let (pose, target_pose) = (pose_at(rng, centre), pose_at(rng, target_centre));
    loop {
        let motion = (target_centre - centre) * uniform(rng, 0.1, 1.3) + gen::unit_vector(rng) * uniform(rng, 0.0, 1.5);
        if motion.norm() >= 0.5 {
            return Case { shape, pose, motion, target, target_pose };
        }
    }
}

/// The scene's cast of `case` and the oracle's verdict.
fn run_case(case: &Case) -> (Option<SceneSweepHit>, Verdict, Scene) {
    let mut scene = Scene::new();
    let h = scene.insert(ColliderDesc::new(case.target.clone(), case.target_pose).fixed()).unwrap();
    let ours = scene.cast_shape(&case.shape, &case.pose, &case.motion, &QueryFilter::default()).unwrap();
    let r: V64 = case.pose.translation.vector.cast();
    let moving = pieces(&case.shape.placed(&case.pose).unwrap(), &r).remove(0);
    let targets = pieces(scene.get(h).unwrap().world_shape(), &r);
    let verdict = first_contact_all(&moving, &case.motion.cast(), &targets);
    (ours, verdict, scene)
}

/// `None` when the scene's hit agrees with the verdict (an unclear one
/// agrees with anything), else the error (`inf` for hit against miss).
fn error_vs(toi: Option<Real>, verdict: Verdict) -> Option<f64> {
    match (toi, verdict) {
        (_, Verdict::Unclear(_)) | (None, Verdict::Miss) => None,
        (Some(toi), Verdict::Hit(t)) => Some((f64::from(toi) - t).abs()),
        _ => Some(f64::INFINITY),
    }
}

#[test]
fn cast_shape_meets_the_bisection_oracle_at_every_scale() {
    let mut rng = rng(4101);
    let mesh = terrain(&mut rng);
    for offset in [0.0, 1e3, 1e5] {
        let (mut hits, mut misses, mut unclear, mut worst) = (0usize, 0usize, 0usize, 0.0f64);
        let mut failures = Vec::new();
        for k in 0..CASES {
            let case = draw_case(&mut rng, offset, &mesh);
            let (ours, verdict, _) = run_case(&case);
            match verdict {
                Verdict::Hit(_) => hits += 1,
                Verdict::Miss => misses += 1,
                Verdict::Unclear(_) => unclear += 1,
            }
            if let Some(e) = error_vs(ours.map(|h| h.hit.toi), verdict) {
                worst = worst.max(e);
                if e > TOI_TOL {
                    failures.push(format!("case {k}: ours {ours:?} oracle {verdict:?}: {:?}", case.motion));
                }
            }
        }
        eprintln!("offset {offset:e}: hits {hits} misses {misses} unclear {unclear} worst |toi - oracle| {worst:e}");
        assert!(failures.is_empty(), "offset {offset}: {} failures, first: {}", failures.len(), failures[0]);
        let rate = hits as f64 / (hits + misses) as f64;
        assert!((0.25..=0.8).contains(&rate), "hit rate {rate}");
        assert!(unclear * 10 < CASES, "too many cases left out: {unclear}");
    }
}

/// The shape of a placed collider for parry, in world coordinates as f32
/// (as a parry user holds it); a mesh as parry's `TriMesh` under its pose.
fn parry_world(shape: &WorldShape) -> (Pose, Box<dyn parry3d::shape::Shape>) {
    if let WorldShape::TriMesh(mesh, pose) = shape {
        let vertices = mesh.triangles().flat_map(|t| t.vertices()).map(|v| cv::pt(&v)).collect();
        let indices = (0..mesh.triangles().len() as u32).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
        let trimesh = parry3d::shape::TriMesh::new(vertices, indices).unwrap();
        return (Pose::from_parts(cv::vec(&pose.translation.vector), cv::rot(&pose.rotation)), Box::new(trimesh));
    }
    match shape {
        WorldShape::Sphere(s) => boxed(cv::ball(s)),
        WorldShape::Aabb(a) => boxed(cv::aabb_cuboid(a)),
        WorldShape::Obb(o) => boxed(cv::cuboid(o)),
        WorldShape::Capsule(c) => boxed(cv::capsule(c)),
        WorldShape::ConvexHull(h, pose) => boxed(cv::convex_hull(h, pose)),
        _ => unreachable!("no other world shape"),
    }
}

/// A parry shape and its pose, the shape boxed.
fn boxed<S: parry3d::shape::Shape>((pose, shape): (Pose, S)) -> (Pose, Box<dyn parry3d::shape::Shape>) {
    (pose, Box::new(shape))
}

#[test]
fn cast_shape_agrees_with_parry_or_the_oracle_decides() {
    let mut rng = rng(4102);
    let mesh = terrain(&mut rng);
    for offset in [0.0, 1e5] {
        let (mut agree, mut parry_off, mut failures) = (0usize, 0usize, Vec::new());
        for k in 0..CASES {
            let case = draw_case(&mut rng, offset, &mesh);
            let (ours, verdict, scene) = run_case(&case);
            let (pa, sa) = parry_world(&case.shape.placed(&case.pose).unwrap());
            let (pb, sb) = parry_world(scene.iter().next().unwrap().1.world_shape());
            let opts = query::ShapeCastOptions::with_max_time_of_impact(1.0);
            let zero = parry3d::math::Vector::ZERO;
            let theirs = query::cast_shapes(&pa, cv::vec(&case.motion), &*sa, &pb, zero, &*sb, opts).unwrap();
            let same = match (&ours, &theirs) {
                (None, None) => true,
                (Some(o), Some(p)) => (f64::from(o.hit.toi) - f64::from(p.time_of_impact)).abs() <= TOI_TOL,
                _ => false,
            };
            if same {
                agree += 1;
                continue;
            }
            // The oracle decides; an unclear case decides nothing.
            if !matches!(verdict, Verdict::Unclear(_)) {
                parry_off +=
                    usize::from(error_vs(theirs.map(|p| p.time_of_impact), verdict).is_some_and(|e| e > TOI_TOL));
            }
            if error_vs(ours.map(|h| h.hit.toi), verdict).is_some_and(|e| e > TOI_TOL) {
                failures.push(format!("case {k}: ours {ours:?} parry {theirs:?} oracle {verdict:?}"));
            }
        }
        eprintln!("offset {offset:e}: agree with parry {agree}/{CASES}, parry off the oracle {parry_off}");
        assert!(failures.is_empty(), "offset {offset}: {} failures, first: {}", failures.len(), failures[0]);
        if offset == 0.0 {
            assert!(agree * 10 >= CASES * 9, "near the origin parry and the scene agree: {agree}/{CASES}");
        }
    }
}

/// A placed collider as the narrowphase's support maps see it: the
/// brute-force side builds it on its own from the world shape.
enum Convex {
    Sphere(Sphere),
    Obb(Obb),
    Capsule(Capsule),
    Hull(Arc<ConvexHull>, Isometry),
    Triangle(Triangle),
}

impl SupportMap for Convex {
    fn support(&self, dir: &Vector) -> Point {
        match self {
            Self::Sphere(s) => s.support(dir),
            Self::Obb(o) => o.support(dir),
            Self::Capsule(c) => c.support(dir),
            Self::Hull(h, pose) => pose.transform_point(&h.support_point(&pose.rotation.inverse_transform_vector(dir))),
            Self::Triangle(t) => t.support(dir),
        }
    }
    fn core_support(&self, dir: &Vector) -> Point {
        match self {
            Self::Sphere(s) => s.core_support(dir),
            Self::Capsule(c) => c.core_support(dir),
            _ => self.support(dir),
        }
    }
    fn core_radius(&self) -> Real {
        match self {
            Self::Sphere(s) => s.radius(),
            Self::Capsule(c) => c.radius(),
            _ => 0.0,
        }
    }
    fn core_center(&self) -> Point {
        match self {
            Self::Sphere(s) => *s.center(),
            Self::Obb(o) => *o.center(),
            Self::Capsule(c) => nalgebra::center(c.a(), c.b()),
            Self::Hull(h, pose) => pose.transform_point(&h.aabb().center()),
            Self::Triangle(t) => t.core_center(),
        }
    }
}

/// The convex pieces of a placed collider: itself, or a mesh's triangles
/// placed in the world.
fn brute_pieces(shape: &WorldShape) -> Vec<Convex> {
    match shape {
        WorldShape::Sphere(s) => vec![Convex::Sphere(*s)],
        WorldShape::Aabb(a) => vec![Convex::Obb(Obb::from_aabb(a))],
        WorldShape::Obb(o) => vec![Convex::Obb(*o)],
        WorldShape::Capsule(c) => vec![Convex::Capsule(*c)],
        WorldShape::ConvexHull(h, pose) => vec![Convex::Hull(h.clone(), *pose)],
        WorldShape::TriMesh(mesh, pose) => mesh
            .triangles()
            .map(|t| {
                let [a, b, c] = t.vertices().map(|v| pose.transform_point(&v));
                Convex::Triangle(Triangle::new(a, b, c))
            })
            .collect(),
        _ => unreachable!("no other world shape"),
    }
}

#[test]
fn cast_shape_is_the_least_cast_over_the_accepted_colliders() {
    let mut rng = rng(4103);
    let mesh = terrain(&mut rng);
    let (mut hits, mut casts, mut other_collider, mut worst) = (0usize, 0usize, 0usize, 0.0f64);
    for s in 0..SCENES {
        let mut scene = Scene::new();
        let mut handles = Vec::new();
        for i in 0..14 {
            let shape = if i == 0 { ColliderShape::TriMesh(mesh.clone()) } else { convex_shape(&mut rng) };
            let centre = within(&mut rng, 6.0);
            let pose = pose_at(&mut rng, centre);
            let groups = CollisionGroups { memberships: rng.random_range(1..4), filter: u32::MAX };
            let mut desc = ColliderDesc::new(shape, pose).with_groups(groups).with_user_data(i);
            if rng.random_bool(0.5) {
                desc = desc.fixed();
            }
            handles.push(scene.insert(desc).unwrap());
        }
        let exclude = [handles[rng.random_range(0..14)], handles[rng.random_range(0..14)]];
        let odd = |_: ColliderHandle, c: &Collider| c.user_data() % 3 != 1;
        for k in 0..10 {
            let filter = match k % 5 {
                0 => QueryFilter::default(),
                1 => QueryFilter::default().groups(CollisionGroups { memberships: u32::MAX, filter: 1 }),
                2 => QueryFilter::excluding(&exclude),
                3 => QueryFilter::default().predicate(&odd),
                _ => QueryFilter::default().exclude_fixed(),
            };
            let shape = convex_shape(&mut rng);
            let start = within(&mut rng, 7.0);
            let pose = pose_at(&mut rng, start);
            let motion = -start * uniform(&mut rng, 0.5, 2.0) + within(&mut rng, 3.0);
            let ours = scene.cast_shape(&shape, &pose, &motion, &filter).unwrap();
            let moving = brute_pieces(&shape.placed(&pose).unwrap()).remove(0);
            // Every accepted collider's first hit, by brute force.
            let mut all: Vec<(ColliderHandle, Real)> = Vec::new();
            for (h, c) in scene.iter() {
                let casts = brute_pieces(c.world_shape());
                let first = casts.iter().filter_map(|t| cast_shape_convex(&moving, &motion, t)).map(|h| h.toi);
                if let Some(t) = first.min_by(Real::total_cmp).filter(|_| filter.accepts(h, c)) {
                    all.push((h, t));
                }
            }
            let least = all.iter().map(|p| p.1).min_by(Real::total_cmp);
            casts += 1;
            match (ours, least) {
                (None, None) => {}
                (Some(o), Some(least)) => {
                    hits += 1;
                    let own = all.iter().find(|p| p.0 == o.collider);
                    let own = own.unwrap_or_else(|| panic!("scene {s} cast {k}: {o:?} is not an accepted hit"));
                    let e = f64::from((o.hit.toi - least).abs()).max(f64::from((own.1 - least).abs()));
                    worst = worst.max(e);
                    assert!(e <= TOI_TOL, "scene {s} cast {k}: ours {o:?}, brute force {all:?}");
                    other_collider += usize::from(own.1 != least);
                }
                (o, l) => panic!("scene {s} cast {k}: ours {o:?}, brute force {l:?} {all:?}"),
            }
        }
    }
    eprintln!(
        "brute force: {hits}/{casts} hits, worst toi difference {worst:e}, ties on another collider {other_collider}"
    );
    let rate = hits as f64 / casts as f64;
    assert!((0.3..=0.9).contains(&rate), "hit rate {rate}");
}

#[test]
fn bad_input_is_a_typed_error() {
    let mut scene = Scene::new();
    let wall = ColliderShape::Cuboid { half_extents: Vector::new(0.5, 5.0, 5.0) };
    scene.insert(ColliderDesc::new(wall, Isometry::translation(3.0, 0.0, 0.0))).unwrap();
    let cube = ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) };
    let any = QueryFilter::default();
    let id = Isometry::identity();
    let x = Vector::new(5.0, 0.0, 0.0);
    for bad in
        [Vector::new(Real::NAN, 0.0, 0.0), Vector::new(0.0, Real::INFINITY, 0.0), Vector::repeat(-Real::INFINITY)]
    {
        assert_eq!(scene.cast_shape(&cube, &id, &bad, &any), Err(SceneError::InvalidMotion), "{bad:?}");
    }
    let nan_pose = Isometry::translation(Real::NAN, 0.0, 0.0);
    let err = SceneError::InvalidPose { handle: None, error: PoseError::NonFiniteTranslation };
    assert_eq!(scene.cast_shape(&cube, &nan_pose, &x, &any), Err(err));
    let mut zero_rotation = id;
    zero_rotation.rotation = Rotation::new_unchecked(nalgebra::Quaternion::new(0.0, 0.0, 0.0, 0.0));
    let err = SceneError::InvalidPose { handle: None, error: PoseError::InvalidRotation };
    assert_eq!(scene.cast_shape(&cube, &zero_rotation, &x, &any), Err(err));
    let mesh = ColliderShape::TriMesh(terrain(&mut rng(1)));
    assert_eq!(scene.cast_shape(&mesh, &id, &x, &any), Err(SceneError::ShapeNotConvex));
    for shape in [
        ColliderShape::Cuboid { half_extents: Vector::new(-1.0, 1.0, 1.0) },
        ColliderShape::Capsule { half_height: Real::NAN, radius: 1.0 },
        ColliderShape::Capsule { half_height: 1.0, radius: -1.0 },
        ColliderShape::Sphere { radius: Real::INFINITY },
    ] {
        let r = scene.cast_shape(&shape, &id, &x, &any);
        assert!(matches!(r, Err(SceneError::InvalidShape(_))), "{shape:?}: {r:?}");
    }
    // A zero motion is no error: the static overlap test.
    let zero = Vector::zeros();
    assert_eq!(scene.cast_shape(&cube, &id, &zero, &any), Ok(None));
    let touching = Isometry::translation(2.2, 0.0, 0.0);
    let hit = scene.cast_shape(&cube, &touching, &zero, &any).unwrap().unwrap();
    assert_eq!((hit.hit.toi, hit.hit.status), (0.0, proxima_narrowphase::SweepStatus::Penetrating));
    // Garbage anywhere: an error or an answer, never a panic.
    let mut rng = rng(4104);
    let value = |rng: &mut proxima_test_support::SmallRng| match rng.random_range(0..6) {
        0 => Real::NAN,
        1 => Real::INFINITY,
        2 => -Real::MAX,
        3 => 1e30,
        _ => uniform(rng, -4.0, 4.0),
    };
    for _ in 0..2000 {
        let motion = Vector::new(value(&mut rng), value(&mut rng), value(&mut rng));
        let pose = Isometry::translation(value(&mut rng), value(&mut rng), value(&mut rng));
        let shape = ColliderShape::Capsule { half_height: value(&mut rng), radius: value(&mut rng) };
        let r = scene.cast_shape(&shape, &pose, &motion, &any);
        if !motion.iter().all(|m| m.is_finite()) {
            assert_eq!(r, Err(SceneError::InvalidMotion));
        }
    }
}
