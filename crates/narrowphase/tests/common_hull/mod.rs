//! Shared by the hull contact tests: a convex hull placed in the world with
//! the data of an f64 oracle independent of the closed forms (the faces'
//! fan triangles and planes through their own vertices), random clouds, and
//! the placed hull as a support map for GJK/EPA.
#![allow(dead_code)]

use crate::common_np::closest_on_triangle_f64;
use parry3d::math::Pose;
use parry3d::shape::ConvexPolyhedron;
use proxima_narrowphase::{ConvexHull, Isometry, Point, Real, SupportMap, Vector};
use proxima_test_support::convert::convex_hull;
use proxima_test_support::gen::{rotation, uniform, unit_vector};
use proxima_test_support::{Rng, SmallRng};

/// f64 vectors of the oracle.
pub type V64 = nalgebra::Vector3<f64>;

/// A hull placed in the world, with the f64 data of the oracle.
pub struct Placed {
    pub hull: ConvexHull,
    pub pose: Isometry,
    /// Size `L`: the largest extent of the hull's box.
    pub l: Real,
    /// The fan triangles of every face (local frame, f64).
    pub tris: Vec<[V64; 3]>,
    /// Each face's plane through its own vertices: Newell normal, offset.
    pub planes: Vec<(V64, f64)>,
    /// The rotation and translation in f64.
    pub rot: nalgebra::Matrix3<f64>,
    pub shift: V64,
    /// parry's polyhedron of the same vertices and its pose, when parry
    /// keeps every vertex (see `parry_hull` in the tests).
    pub parry: Option<(Pose, ConvexPolyhedron)>,
}

impl Placed {
    pub fn new(hull: ConvexHull, pose: Isometry) -> Self {
        let v = |i: u32| hull.vertices()[i as usize].coords.cast::<f64>();
        let (mut tris, mut planes) = (Vec::new(), Vec::new());
        for k in 0..hull.faces().len() {
            let lp = hull.face_vertices(k);
            let mut n = V64::zeros();
            let mut mean = V64::zeros();
            for (j, &a) in lp.iter().enumerate() {
                let (p, q) = (v(a), v(lp[(j + 1) % lp.len()]));
                n += V64::new((p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y));
                mean += p / lp.len() as f64;
            }
            let n = n.normalize();
            planes.push((n, n.dot(&mean)));
            for j in 1..lp.len() - 1 {
                tris.push([v(lp[0]), v(lp[j]), v(lp[j + 1])]);
            }
        }
        let l = (hull.aabb().max() - hull.aabb().min()).max();
        let rot = pose.rotation.to_rotation_matrix().into_inner().cast::<f64>();
        let shift = pose.translation.vector.cast::<f64>();
        Self { hull, pose, l, tris, planes, rot, shift, parry: None }
    }

    /// A world point in the hull's frame, in f64.
    pub fn local(&self, p: &Point) -> V64 {
        self.rot.transpose() * (p.coords.cast::<f64>() - self.shift)
    }

    /// The oracle: signed distance from `p` (world) to the surface, the
    /// closest surface point (local, f64) and the least plane depth.
    pub fn oracle(&self, p: &Point) -> (f64, V64) {
        let c = self.local(p);
        let mut best = (f64::INFINITY, V64::zeros());
        for [a, b, t] in &self.tris {
            let q = closest_on_triangle_f64(&c, a, b, t);
            let d = (c - q).norm();
            if d < best.0 {
                best = (d, q);
            }
        }
        let inside = self.planes.iter().all(|(n, o)| n.dot(&c) <= *o);
        (if inside { -best.0 } else { best.0 }, best.1)
    }

    /// The unsigned distance from a world point to the surface.
    pub fn off_surface(&self, p: &Point) -> f64 {
        let c = self.local(p);
        self.tris
            .iter()
            .map(|[a, b, t]| (c - closest_on_triangle_f64(&c, a, b, t)).norm())
            .fold(f64::INFINITY, f64::min)
    }
}

/// The placed hull as a support map, for `contact_convex`.
pub struct Posed<'a>(pub &'a Placed);

impl SupportMap for Posed<'_> {
    fn support(&self, dir: &Vector) -> Point {
        let local = self.0.pose.rotation.inverse_transform_vector(dir);
        self.0.pose.transform_point(&self.0.hull.support_point(&local))
    }
    fn core_center(&self) -> Point {
        self.0.pose.transform_point(&self.0.hull.aabb().center())
    }
}

/// A random cloud: in a box, on a sphere, or a slab 1-5% thick, of size
/// 0.1..10, 6 to 40 points.
pub fn cloud(rng: &mut SmallRng) -> Vec<Point> {
    let n = rng.random_range(6..=40);
    let size = 10f32.powf(uniform(rng, -1.0, 1.0));
    let kind = rng.random_range(0..3);
    let flat = uniform(rng, 0.01, 0.05);
    (0..n)
        .map(|_| match kind {
            0 => Point::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0)) * size,
            1 => Point::from(unit_vector(rng) * size),
            _ => Point::new(uniform(rng, -1.0, 1.0), uniform(rng, -1.0, 1.0), flat * uniform(rng, -1.0, 1.0)) * size,
        })
        .collect()
}

/// The unit cube `[0, 1]^3` as a hull of its corners.
pub fn unit_cube() -> ConvexHull {
    let corners: Vec<Point> =
        (0..8).map(|i| Point::new((i & 1) as Real, ((i >> 1) & 1) as Real, (i >> 2) as Real)).collect();
    ConvexHull::new(&corners)
}

/// A random hull (`cloud`) placed at `offset` from the origin in a random
/// direction, turned at random; `None` when the builder refuses the cloud.
pub fn random_placed(rng: &mut SmallRng, offset: Real) -> Option<Placed> {
    let hull = ConvexHull::try_new(&cloud(rng)).ok()?;
    let at = unit_vector(rng) * offset;
    let pose = Isometry::from_parts(nalgebra::Translation3::from(at), rotation(rng));
    Some(Placed::new(hull, pose))
}

/// Whether parry's polyhedron of the hull's vertices keeps every one (its
/// hull builder may drop near-coplanar ones; the comparisons need the same
/// shape, see `sphere_hull_vs_parry.rs`).
pub fn parry_keeps_every_vertex(p: &Placed) -> bool {
    convex_hull(&p.hull, &p.pose).1.points().len() == p.hull.vertices().len()
}
