//! Every point of a convex-vs-mesh manifold lies on the triangle its id
//! names, and its depth is a signed distance along the manifold's normal
//! from that triangle to the shape.
//!
//! `contact_manifolds(mesh, shape)`: point A on the mesh, point B on the
//! shape, the normal `n` from the mesh to the shape. Checks (f64):
//! - `dist(point_a, triangle) <= ON_TRIANGLE` (`1e-4`: coordinates up to 12,
//!   where one f32 rounding is 1e-6, and a few roundings in a clipped point);
//! - `|point_a - point_b - depth n| <= DEPTH_TOL` (`1e-4`): the points are
//!   `depth` apart along `n`;
//! - a touching point (`depth >= 0`): `point_b` in the shape, and on its
//!   surface, within `DEPTH_TOL + DEPTH_REL depth` (`DEPTH_REL = 0.05`: the
//!   grouping re-expresses a point of a triangle within 2.6 degrees along the
//!   group's normal, which moves `point_b` by up to `depth sin(2.6 deg)`).
//!   So the shape reaches `depth` past the triangle at `point_a` along `n`.
//!   A capsule's face points are spheres about its clipped core segment
//!   (`point_b = x - r n` for a core point `x`), inside a tilted capsule's
//!   surface: only the first half holds for them.
//!
//! A speculative point (`depth < 0`) is checked for the first two: an edge
//! contact turned to a face normal keeps the shapes' distance, a lower bound
//! of the gap along `n`, and a box face clipped against a triangle measures
//! each point's gap at its own corner.

mod common;

use std::sync::Arc;

use common::distance::{point_segment, point_triangle};
use nalgebra::{DMatrix, Quaternion, Translation3, UnitQuaternion, Vector3};
use proxima_narrowphase::{Capsule, ConvexHull, Isometry, ManifoldPoint, Obb, Point, Real, Sphere, UnitVector, Vector};
use proxima_scene::*;
use proxima_test_support::gen;
use proxima_test_support::{rng, Rng};

type V = Vector3<f64>;

const ON_TRIANGLE: f64 = 1e-4;
const DEPTH_TOL: f64 = 1e-4;
const DEPTH_REL: f64 = 0.05;
const PREDICTION: Real = 0.05;

fn w(p: &Point) -> V {
    p.coords.cast::<f64>()
}

/// The heightfield `amp sin(kx x) cos(kz z)` sampled 33 x 33 over `[-12, 12]^2`.
fn field(amp: Real, kx: Real, kz: Real) -> HeightField {
    let (n, size) = (33, 24.0);
    let at = |k: usize| (-0.5 + k as Real / (n - 1) as Real) * size;
    let heights = DMatrix::from_fn(n, n, |i, j| amp * (kx * at(j)).sin() * (kz * at(i)).cos());
    HeightField::try_new(heights, Vector::new(size, 1.0, size)).expect("valid field")
}

/// The signed distance from `x` to the shape (f64): exact for spheres,
/// capsules and boxes; for a hull the greatest signed distance to its face
/// planes (exact inside and on the surface, a lower bound outside).
fn signed_distance(shape: &WorldShape, x: &V) -> f64 {
    match shape {
        WorldShape::Sphere(s) => (x - w(s.center())).norm() - s.radius() as f64,
        WorldShape::Capsule(c) => point_segment(x, &w(c.a()), &w(c.b())) - c.radius() as f64,
        WorldShape::Obb(o) => {
            let (axes, h) = (o.axes().cast::<f64>(), o.half_extents().cast::<f64>());
            let d = (axes.transpose() * (x - w(o.center()))).abs() - h;
            let inside = d.max().min(0.0);
            d.map(|v| v.max(0.0)).norm() + inside
        }
        WorldShape::ConvexHull(hull, pose) => {
            let local = pose.cast::<f64>().inverse_transform_point(&nalgebra::Point3::from(*x)).coords;
            let plane = |f: &proxima_narrowphase::HullFace| {
                f.normal().into_inner().cast::<f64>().dot(&local) - f.offset() as f64
            };
            hull.faces().iter().map(plane).fold(f64::NEG_INFINITY, f64::max)
        }
        _ => unreachable!("convex shapes only"),
    }
}

/// How far point `p` of a manifold with normal `n` (mesh to shape) is from
/// consistent, past the tolerances (`<= 0`: consistent): `point_a - point_b =
/// depth n`; a touching point's shape point `point_b` in the shape (its
/// depth no more than the shape reaches past the triangle along `n`), and on
/// its surface but for a capsule.
fn depth_error(shape: &WorldShape, p: &ManifoldPoint, n: &UnitVector) -> f64 {
    let (a, b, n, depth) = (w(&p.point_a), w(&p.point_b), n.into_inner().cast::<f64>(), p.depth as f64);
    let tol = DEPTH_TOL + DEPTH_REL * depth.abs();
    let along = (a - b - n * depth).norm() - DEPTH_TOL;
    let within = if depth >= 0.0 {
        let sd = signed_distance(shape, &b);
        let surface = if matches!(shape, WorldShape::Capsule(_)) { f64::NEG_INFINITY } else { -sd - tol };
        (sd - tol).max(surface)
    } else {
        f64::NEG_INFINITY
    };
    along.max(within)
}

/// Points seen and failing, the largest distance off a triangle, and the
/// largest of [`depth_error`] (`<= 0` when every depth is consistent).
#[derive(Debug)]
struct Tally {
    points: usize,
    off_triangle: usize,
    wrong_depth: usize,
    worst_off: f64,
    worst_depth: f64,
}

/// Checks every point of `shape`'s manifolds against `mesh`, adding to `tally`.
fn check(mesh: &Arc<TriMesh>, shape: &WorldShape, tally: &mut Tally) -> bool {
    let mut out = Vec::new();
    contact_manifolds(&WorldShape::TriMesh(Arc::clone(mesh), Isometry::identity()), shape, PREDICTION, &mut out);
    for m in &out {
        for p in m.points() {
            tally.points += 1;
            let t = mesh.triangle_of_point_id(p.id).expect("a triangle's id");
            let q = w(&p.point_a);
            let off = point_triangle(&q, &mesh.triangle(t));
            let err = depth_error(shape, p, &m.normal);
            tally.worst_off = tally.worst_off.max(off);
            tally.worst_depth = tally.worst_depth.max(err);
            if off > ON_TRIANGLE {
                tally.off_triangle += 1;
            }
            if err.is_nan() || err > 0.0 {
                tally.wrong_depth += 1;
            }
        }
    }
    !out.is_empty()
}

/// A box resting on the hills across two triangles whose shared edge is
/// inactive, its corner deepest along one of their normals over another
/// cell (the pose's decimals as given, each read as the nearest f32).
#[test]
#[allow(clippy::excessive_precision)]
fn box_on_hills_keeps_its_points_on_their_triangles() {
    let hills = field(0.3, 0.5, 0.4);
    let mesh = Arc::clone(hills.mesh());
    let q = UnitQuaternion::new_normalize(Quaternion::new(0.365769714, 0.426785290, 0.574865460, -0.594639897));
    let pose = Isometry::from_parts(Translation3::new(-5.710979939, 0.356291324, -2.170848846), q);
    let cube = ColliderShape::Cuboid { half_extents: Vector::new(0.5, 0.3, 0.4) };
    let bx = cube.placed(&pose).expect("valid box");
    let ground = ColliderShape::HeightField(Arc::new(hills)).placed(&Isometry::identity()).expect("valid field");
    let mut out = Vec::new();
    contact_manifolds(&ground, &bx, PREDICTION, &mut out);
    assert!(!out.is_empty());
    for m in &out {
        for p in m.points() {
            let t = mesh.triangle_of_point_id(p.id).expect("a triangle's id");
            let q = w(&p.point_a);
            let off = point_triangle(&q, &mesh.triangle(t));
            assert!(off <= ON_TRIANGLE, "point {:08x} is {off} off triangle {t}", p.id);
            let err = depth_error(&bx, p, &m.normal);
            assert!(err <= 0.0, "point {:08x}: depth {}, {err} past the tolerance", p.id, p.depth);
        }
    }
}

/// A random convex shape of size 0.05 to 0.6, its lowest point at
/// `ground(x, z) + gap` over a random `(x, z)` in `[-10, 10]^2`.
fn random_shape(rng: &mut impl Rng, kind: usize, ground: impl Fn(Real, Real) -> Real) -> WorldShape {
    let place = gen::Placement::new(0.0, 0.05, 0.6);
    let (x, z) = (gen::uniform(rng, -10.0, 10.0), gen::uniform(rng, -10.0, 10.0));
    let gap = gen::uniform(rng, -0.04, 0.12);
    let shape = match kind {
        0 => WorldShape::Sphere(gen::sphere(rng, &place)),
        1 => WorldShape::Obb(gen::obb(rng, &place)),
        2 => WorldShape::Capsule(gen::capsule(rng, &place)),
        _ => {
            let points: Vec<Point> =
                (0..12).map(|_| Point::from(gen::unit_vector(rng) * gen::uniform(rng, 0.1, 0.5))).collect();
            WorldShape::ConvexHull(
                Arc::new(ConvexHull::new(&points)),
                Isometry::rotation_wrt_point(gen::rotation(rng), Point::origin()),
            )
        }
    };
    let lowest = shape.aabb().min().y;
    let lift = Vector::new(x, ground(x, z) + gap - lowest, z);
    match shape {
        WorldShape::Sphere(s) => WorldShape::Sphere(Sphere::new(s.center() + lift, s.radius())),
        WorldShape::Obb(o) => WorldShape::Obb(Obb::new(o.center() + lift, *o.rotation(), *o.half_extents())),
        WorldShape::Capsule(c) => WorldShape::Capsule(Capsule::new(c.a() + lift, c.b() + lift, c.radius())),
        WorldShape::ConvexHull(h, pose) => {
            WorldShape::ConvexHull(h, Isometry::from_parts((pose.translation.vector + lift).into(), pose.rotation))
        }
        _ => unreachable!(),
    }
}

#[test]
fn random_shapes_on_bumpy_fields_keep_their_points_on_their_triangles() {
    let mut rng = rng(0x6d65_7368_7074);
    let mut tally =
        Tally { points: 0, off_triangle: 0, wrong_depth: 0, worst_off: 0.0, worst_depth: f64::NEG_INFINITY };
    let (mut cases, mut touching) = (0, 0);
    for (amp, kx, kz) in [(0.3, 0.5, 0.4), (0.6, 1.1, 0.9)] {
        let hills = field(amp, kx, kz);
        let mesh = Arc::clone(hills.mesh());
        let ground = |x: Real, z: Real| amp * (kx * x).sin() * (kz * z).cos();
        for case in 0..5000 {
            let shape = random_shape(&mut rng, case % 4, ground);
            cases += 1;
            touching += usize::from(check(&mesh, &shape, &mut tally));
        }
    }
    eprintln!("{cases} shapes, {touching} with manifolds, {tally:?}");
    assert!(touching * 10 >= cases * 3 && touching * 10 <= cases * 9, "{touching} of {cases}");
    assert_eq!((tally.off_triangle, tally.wrong_depth), (0, 0), "{tally:?}");
}
