//! The solver example's scenes: towers of boxes, hulls and compounds, a
//! pyramid wall, boxes and capsules on triangle meshes, spheres and capsules
//! on a heightfield; and the world that steps them.

use std::sync::Arc;

use proxima::nalgebra::{DMatrix, Translation3};
use proxima::narrowphase::{ConvexHull, Isometry, Point, Real, Rotation, Vector};
use proxima::scene::{ColliderDesc, ColliderHandle, ColliderShape, ContactPipeline, HeightField, Scene, TriMesh};

use super::body::{centred, Body};
use super::solve::{Solver, StepStats};

/// Density of every dynamic body (kg/m^3): a unit box weighs 1 kg.
const DENSITY: Real = 1.0;
/// Gap (m) between boxes that start stacked: they start apart, within the
/// speculative distance, rather than overlapping by rounding.
const GAP: Real = 0.001;

/// A scene, its bodies (one per collider, `user_data` = body index) and
/// the points of each body whose motion the checks measure.
pub struct World {
    pub scene: Scene,
    pub bodies: Vec<Body>,
    /// Per body, points in its own frame (a box's corners, a capsule's
    /// segment ends); empty for static bodies.
    pub probes: Vec<Vec<Vector>>,
}

impl World {
    fn new() -> Self {
        Self { scene: Scene::new(), bodies: Vec::new(), probes: Vec::new() }
    }

    fn add_fixed(&mut self, shape: ColliderShape, pose: Isometry) -> ColliderHandle {
        let desc = ColliderDesc::new(shape, pose).fixed().with_user_data(self.bodies.len() as u64);
        let handle = self.scene.insert(desc).expect("valid collider");
        self.bodies.push(Body::fixed(handle, pose));
        self.probes.push(Vec::new());
        handle
    }

    fn add_dynamic(&mut self, shape: ColliderShape, pose: Isometry) {
        let probes = probes(&shape);
        let desc = ColliderDesc::new(shape.clone(), pose).with_user_data(self.bodies.len() as u64);
        let handle = self.scene.insert(desc).expect("valid collider");
        self.bodies.push(Body::dynamic(handle, pose, &shape, DENSITY));
        self.probes.push(probes);
    }

    /// One step: move the colliders to the bodies' poses, find the
    /// manifolds, solve.
    pub fn step(&mut self, pipeline: &mut ContactPipeline, solver: &mut Solver, dt: Real) -> StepStats {
        for body in self.bodies.iter().filter(|b| b.is_dynamic()) {
            self.scene.set_pose(body.collider, body.pose).expect("live collider, finite pose");
        }
        pipeline.update(&mut self.scene);
        let scene = &self.scene;
        let body_of = |h| scene.get(h).expect("live collider").user_data() as usize;
        solver.step(&mut self.bodies, pipeline.manifolds(), body_of, dt)
    }

    /// Every body's probe points in world space, in body order.
    pub fn probe_positions(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for (body, probes) in self.bodies.iter().zip(&self.probes) {
            out.extend(probes.iter().map(|p| body.pose * Point::from(*p)));
        }
        out
    }

    /// Whether `handle` is a sphere or a capsule.
    pub fn is_round(&self, handle: ColliderHandle) -> bool {
        let shape = self.scene.get(handle).expect("live collider").shape();
        matches!(shape, ColliderShape::Sphere { .. } | ColliderShape::Capsule { .. })
    }

    /// Whether `handle` is a static collider.
    pub fn is_fixed(&self, handle: ColliderHandle) -> bool {
        let body = self.scene.get(handle).expect("live collider").user_data() as usize;
        !self.bodies[body].is_dynamic()
    }
}

/// The points of `shape` whose motion the checks measure (its frame): a
/// box's corners, a hull's vertices, a capsule's segment ends, each
/// compound child's own, placed by the child's pose.
fn probes(shape: &ColliderShape) -> Vec<Vector> {
    match shape {
        ColliderShape::Cuboid { half_extents: e } => {
            (0..8).map(|i| Vector::new(sign(i & 1) * e.x, sign(i & 2) * e.y, sign(i & 4) * e.z)).collect()
        }
        ColliderShape::Capsule { half_height, .. } => vec![Vector::y() * *half_height, -Vector::y() * *half_height],
        ColliderShape::ConvexHull(hull) => hull.vertices().iter().map(|v| v.coords).collect(),
        ColliderShape::Compound(compound) => compound
            .children()
            .iter()
            .flat_map(|(pose, child)| probes(child).into_iter().map(move |p| (pose * Point::from(p)).coords))
            .collect(),
        _ => vec![Vector::zeros()],
    }
}

fn sign(bit: usize) -> Real {
    if bit == 0 {
        -1.0
    } else {
        1.0
    }
}

fn unit_box() -> ColliderShape {
    ColliderShape::Cuboid { half_extents: Vector::repeat(0.5) }
}

fn floor(world: &mut World) {
    let ground = ColliderShape::Cuboid { half_extents: Vector::new(30.0, 0.5, 30.0) };
    world.add_fixed(ground, Isometry::translation(0.0, -0.5, 0.0));
}

/// `count` unit boxes stacked on a static floor box (top face at y = 0).
pub fn tower(count: usize) -> World {
    let mut world = World::new();
    floor(&mut world);
    for i in 0..count {
        let y = 0.5 + GAP + i as Real * (1.0 + GAP);
        world.add_dynamic(unit_box(), Isometry::translation(0.0, y, 0.0));
    }
    world
}

/// Sides of the tower's prisms. A face of more than four corners clips to
/// more than four points, which the manifold reduces to four; on a regular
/// face the four it keeps change from step to step with the rounding, and
/// the stack loses its warm start (a tower of hexagonal prisms drifts by
/// about 1 cm in 10 s).
const SIDES: usize = 3;

/// A prism of `SIDES` sides (a convex hull): circumradius `radius`, axis y,
/// half-height `half_height`, its base's centroid on the origin.
fn prism(radius: Real, half_height: Real) -> ColliderShape {
    let points: Vec<Point> = (0..2 * SIDES)
        .map(|i| {
            let angle = (i % SIDES) as Real * std::f32::consts::TAU / SIDES as Real;
            let y = if i < SIDES { -half_height } else { half_height };
            Point::new(radius * angle.cos(), y, radius * angle.sin())
        })
        .collect();
    ColliderShape::ConvexHull(Arc::new(ConvexHull::try_new(&points).expect("a prism")))
}

/// `count` triangular prisms (hulls) stacked face to face on the floor.
pub fn hull_tower(count: usize) -> World {
    let mut world = World::new();
    floor(&mut world);
    let (radius, half_height) = (0.6, 0.4);
    for i in 0..count {
        let y = half_height + GAP + i as Real * (2.0 * half_height + GAP);
        world.add_dynamic(prism(radius, half_height), Isometry::translation(0.0, y, 0.0));
    }
    world
}

/// A box child of half extents `(x, y, z)` centred at `at`.
fn block(half: (Real, Real, Real), at: (Real, Real, Real)) -> (Isometry, ColliderShape) {
    (
        Isometry::translation(at.0, at.1, at.2),
        ColliderShape::Cuboid { half_extents: Vector::new(half.0, half.1, half.2) },
    )
}

/// A table, 0.8 high: a 1.2 x 0.1 x 1.2 top on four 0.2 x 0.7 x 0.2 legs
/// centred at `(+-0.45, +-0.45)` (five boxes; bottom at y = 0).
fn table() -> (Vec<(Isometry, ColliderShape)>, Real) {
    let mut children = vec![block((0.6, 0.05, 0.6), (0.0, 0.75, 0.0))];
    for (x, z) in [(-0.45, -0.45), (0.45, -0.45), (-0.45, 0.45), (0.45, 0.45)] {
        children.push(block((0.1, 0.35, 0.1), (x, 0.35, z)));
    }
    (children, 0.8)
}

/// A bench, 0.8 high: a 1.2 x 0.1 x 1.2 top on two 0.2 x 0.7 x 1.1 walls
/// centred at `x = +-0.45` (three boxes; bottom at y = 0), turned by `yaw`
/// about y.
fn bench(yaw: Real) -> (Vec<(Isometry, ColliderShape)>, Real) {
    let turn = Isometry::rotation(Vector::y() * yaw);
    let children = [
        block((0.6, 0.05, 0.6), (0.0, 0.75, 0.0)),
        block((0.1, 0.35, 0.55), (-0.45, 0.35, 0.0)),
        block((0.1, 0.35, 0.55), (0.45, 0.35, 0.0)),
    ];
    (children.into_iter().map(|(pose, shape)| (turn * pose, shape)).collect(), 0.8)
}

/// A house, 0.9 high: a 0.6 box under a roof, a triangular prism (a
/// convex hull) with its ridge along z.
fn house() -> (Vec<(Isometry, ColliderShape)>, Real) {
    let mut points = Vec::new();
    for z in [-0.3, 0.3] {
        points.extend([Point::new(-0.35, 0.6, z), Point::new(0.35, 0.6, z), Point::new(0.0, 0.9, z)]);
    }
    let roof = ConvexHull::try_new(&points).expect("a prism");
    let children = vec![
        block((0.3, 0.3, 0.3), (0.0, 0.3, 0.0)),
        (Isometry::identity(), ColliderShape::ConvexHull(Arc::new(roof))),
    ];
    (children, 0.9)
}

/// A tower of compound bodies on the floor, each on the one below: five
/// benches, each turned a quarter turn from the one below, a table, and a
/// house (a box and a hull) on top. Each compound is built about its centre
/// of mass. Every face lies inside the face it rests on: where a face's
/// edges cross the other's, the clipped face has more than four corners, of
/// which the manifold keeps four that change from step to step with the
/// rounding, and the stack loses its warm start. Small faces on small faces
/// hold less well with one velocity iteration per substep: a tower of
/// tables, each on the four legs of the one above, rocks and turns about y.
pub fn compound_tower() -> World {
    let mut world = World::new();
    floor(&mut world);
    let mut bottom = 0.0;
    let quarter = std::f32::consts::FRAC_PI_2;
    let bodies = [bench(0.0), bench(quarter), bench(0.0), bench(quarter), bench(0.0), table(), house()];
    for (children, height) in bodies {
        let (shape, centre) = centred(children);
        world.add_dynamic(shape, Isometry::translation(centre.x, bottom + GAP + centre.y, centre.z));
        bottom += GAP + height;
    }
    world
}

/// A wall of unit boxes in one row: `layers` on the floor, one fewer in each
/// layer above, each box centred over the gap between two below
/// (`layers (layers + 1) / 2` boxes).
pub fn pyramid(layers: usize) -> World {
    let mut world = World::new();
    floor(&mut world);
    for layer in 0..layers {
        let n = layers - layer;
        let y = 0.5 + GAP + layer as Real * (1.0 + GAP);
        for i in 0..n {
            let x = (i as Real - 0.5 * (n - 1) as Real) * (1.0 + GAP);
            world.add_dynamic(unit_box(), Isometry::translation(x, y, 0.0));
        }
    }
    world
}

/// A flat grid of `2 n^2` triangles over `[-size, size]^2` at y = 0.
fn grid(size: Real, n: usize) -> TriMesh {
    let step = 2.0 * size / n as Real;
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            vertices.push(Point::new(-size + i as Real * step, 0.0, -size + j as Real * step));
        }
    }
    let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            indices.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    TriMesh::new(vertices, indices).expect("valid grid")
}

/// The ramp's height and horizontal length (m): a slope of `atan(3 / 8) =
/// 20.6` degrees, below the friction angle `atan(0.6) = 31` degrees, so
/// bodies rest on it.
const RAMP_RISE: Real = 3.0;
const RAMP_RUN: Real = 8.0;

/// Boxes and capsules dropped onto a triangle-mesh floor (a grid) and a
/// triangle-mesh ramp (eight triangles rising to the -x side).
pub fn mesh_ramp() -> World {
    let mut world = World::new();
    world.add_fixed(ColliderShape::TriMesh(Arc::new(grid(12.0, 12))), Isometry::identity());
    // The ramp: y falls from RAMP_RISE at x = -2 - RAMP_RUN to 0 at x = -2,
    // 8 m wide in z, as a 2 x 2 grid of quads.
    let on_ramp = |x: Real| RAMP_RISE * (-2.0 - x) / RAMP_RUN;
    let mut vertices = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            let x = -2.0 - RAMP_RUN + 0.5 * RAMP_RUN * i as Real;
            vertices.push(Point::new(x, on_ramp(x), -4.0 + 4.0 * j as Real));
        }
    }
    let at = |i: usize, j: usize| (i * 3 + j) as u32;
    let mut indices = Vec::new();
    for i in 0..2 {
        for j in 0..2 {
            indices.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    let ramp = TriMesh::new(vertices, indices).expect("valid ramp");
    world.add_fixed(ColliderShape::TriMesh(Arc::new(ramp)), Isometry::identity());

    // The ramp's normal is (sin a, cos a, 0) for slope a: a body's y axis
    // turned by -a about z lies along it.
    let slope = (RAMP_RISE / RAMP_RUN).atan();
    // Boxes on the ramp, turned to lie on it, dropped from 1 m above it.
    for (k, x) in [-8.5, -6.5, -4.5].into_iter().enumerate() {
        for z in [-2.0, 1.0] {
            let e = Vector::new(0.4, 0.3 + 0.05 * k as Real, 0.5);
            let rotation = Rotation::from_euler_angles(0.0, 0.0, -slope);
            let pose = Isometry::from_parts(Translation3::new(x, on_ramp(x) + 1.2, z), rotation);
            world.add_dynamic(ColliderShape::Cuboid { half_extents: e }, pose);
        }
    }
    // Capsules on the ramp, their axis down the slope.
    for z in [-3.2, 3.2] {
        let x = -6.0;
        let rotation = Rotation::from_euler_angles(0.0, 0.0, -slope - std::f32::consts::FRAC_PI_2);
        let pose = Isometry::from_parts(Translation3::new(x, on_ramp(x) + 1.0, z), rotation);
        world.add_dynamic(ColliderShape::Capsule { half_height: 0.5, radius: 0.3 }, pose);
    }
    // Boxes (some turned) and capsules (lying) dropped on the floor.
    for i in 0..12 {
        let (x, z) = (1.0 + 2.0 * (i % 4) as Real, -3.0 + 3.0 * (i / 4) as Real);
        let y = 1.0 + 0.5 * (i % 3) as Real;
        if i % 3 == 2 {
            let rotation = Rotation::from_euler_angles(0.0, 0.3 * i as Real, std::f32::consts::FRAC_PI_2);
            let pose = Isometry::from_parts(Translation3::new(x, y, z), rotation);
            world.add_dynamic(ColliderShape::Capsule { half_height: 0.4, radius: 0.25 }, pose);
        } else {
            let rotation = Rotation::from_euler_angles(0.2 * i as Real, 0.4 * i as Real, 0.1);
            let pose = Isometry::from_parts(Translation3::new(x, y, z), rotation);
            world.add_dynamic(ColliderShape::Cuboid { half_extents: Vector::new(0.5, 0.35, 0.4) }, pose);
        }
    }
    world
}

/// Height (m) of the hills at `(x, z)`: slopes up to `atan(0.15) = 8.5`
/// degrees, gentle enough for rolling resistance to hold a sphere or a
/// lying capsule.
fn hill_height(x: Real, z: Real) -> Real {
    0.3 * (0.5 * x).sin() * (0.4 * z).cos()
}

/// Spheres and capsules dropped onto rolling hills: a heightfield of
/// 33 x 33 samples over 24 x 24 m.
pub fn hills() -> World {
    let mut world = World::new();
    let (n, size) = (33, 24.0);
    let at = |k: usize| (-0.5 + k as Real / (n - 1) as Real) * size;
    let heights = DMatrix::from_fn(n, n, |i, j| hill_height(at(j), at(i)));
    let field = HeightField::try_new(heights, Vector::new(size, 1.0, size)).expect("valid heights");
    world.add_fixed(ColliderShape::HeightField(Arc::new(field)), Isometry::identity());
    for i in 0..16 {
        let (x, z) = (-6.0 + 4.0 * (i % 4) as Real, -6.0 + 4.0 * (i / 4) as Real);
        let rotation = Rotation::from_euler_angles(0.3 * i as Real, 0.5 * i as Real, 0.2);
        let shape = if i % 2 == 0 {
            ColliderShape::Sphere { radius: 0.3 }
        } else {
            ColliderShape::Capsule { half_height: 0.4, radius: 0.25 }
        };
        let pose = Isometry::from_parts(Translation3::new(x, hill_height(x, z) + 1.5, z), rotation);
        world.add_dynamic(shape, pose);
    }
    world
}
