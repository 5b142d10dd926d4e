//! Shapes within the prediction of a bumpy triangle-mesh floor keep a
//! manifold, whose deepest point gives their distance: the internal-edge
//! removal may turn a contact to a face normal or drop it for a face that
//! holds the shape as deep, but never drops the only or the deepest contact.
//!
//! The floor: 64 x 64 quads over `[-48, 48]^2`, `y = 0.3 sin(2 pi x / 12)
//! sin(2 pi z / 12)` (neighbouring triangles meet at under 5 degrees: every
//! interior edge is inactive). Spheres, rotated boxes and capsules are
//! lowered over a random point until their exact distance to the mesh is a
//! gap of 0, 1e-7, 1e-5, 1e-3, 1e-2 or just under the prediction (bisection
//! on the height against the f64 oracle: the least distance to the nearby
//! triangles, each computed from the f32 inputs).
//!
//! Checks, with prediction `P = 0.02`: a shape whose exact distance is at
//! most `P - TOL` has a manifold, and `|max(-depth, 0) - distance| <= TOL`
//! for its deepest point, `TOL = 5e-5` (coordinates up to 48, where one f32
//! rounding is 4e-6, and a few of them in each distance).

mod common;

use std::sync::Arc;

use common::distance::point_triangle;
use nalgebra::Vector3;
use proxima_narrowphase::{Capsule, ContactManifold, Isometry, Obb, Point, Real, Sphere, Triangle, Vector};
use proxima_scene::*;
use proxima_test_support::gen;
use proxima_test_support::minimize::convex_min;
use proxima_test_support::{rng, Rng};

type V = Vector3<f64>;

const PREDICTION: Real = 0.02;
const TOL: f64 = 5e-5;
/// Golden-section steps of the exact distances' searches (a bracket of ~4e-10).
const STEPS: u32 = 45;

fn floor() -> (TriMesh, Vec<Triangle>) {
    let n = 64;
    let height = |x: f32, z: f32| {
        0.3 * (2.0 * std::f32::consts::PI * x / 12.0).sin() * (2.0 * std::f32::consts::PI * z / 12.0).sin()
    };
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let (x, z) = (-48.0 + 96.0 * i as f32 / n as f32, -48.0 + 96.0 * j as f32 / n as f32);
            vertices.push(Point::new(x, height(x, z), z));
        }
    }
    let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            indices.push([at(i, j), at(i, j + 1), at(i + 1, j)]);
            indices.push([at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)]);
        }
    }
    let triangles = indices
        .iter()
        .map(|t| Triangle::new(vertices[t[0] as usize], vertices[t[1] as usize], vertices[t[2] as usize]))
        .collect();
    (TriMesh::new(vertices, indices).expect("valid mesh"), triangles)
}

fn w(p: &Point) -> V {
    p.coords.cast::<f64>()
}

/// A test body: a shape at a height offset, and its exact distance to one
/// triangle (convex minimisations of the f64 point distances).
#[derive(Clone, Copy, Debug)]
enum Body {
    Sphere(Point, Real),
    Capsule(Point, Point, Real),
    Box(Obb),
}

impl Body {
    fn lifted(&self, dy: f64) -> Body {
        let up = Vector::new(0.0, dy as Real, 0.0);
        match *self {
            Body::Sphere(c, r) => Body::Sphere(c + up, r),
            Body::Capsule(a, b, r) => Body::Capsule(a + up, b + up, r),
            Body::Box(o) => Body::Box(Obb::new(o.center() + up, *o.rotation(), *o.half_extents())),
        }
    }

    fn shape(&self) -> WorldShape {
        match *self {
            Body::Sphere(c, r) => WorldShape::Sphere(Sphere::new(c, r)),
            Body::Capsule(a, b, r) => WorldShape::Capsule(Capsule::new(a, b, r)),
            Body::Box(o) => WorldShape::Obb(o),
        }
    }

    fn distance_to(&self, t: &Triangle) -> f64 {
        match self {
            Body::Sphere(c, r) => point_triangle(&w(c), t) - *r as f64,
            Body::Capsule(a, b, r) => {
                let (a, b) = (w(a), w(b));
                convex_min(|s| point_triangle(&(a + (b - a) * s), t), 0.0, 1.0, STEPS).value - *r as f64
            }
            Body::Box(o) => {
                let axes = o.axes().cast::<f64>();
                let (c, h) = (w(o.center()), o.half_extents().cast::<f64>());
                let to_box = |p: V| {
                    let l = axes.tr_mul(&(p - c));
                    V::from_fn(|i, _| (l[i].abs() - h[i]).max(0.0)).norm()
                };
                let [x, y, z] = t.vertices().map(|v| w(&v));
                let in_u =
                    |u: f64| convex_min(|s| to_box(x + (y - x) * u + (z - x) * ((1.0 - u) * s)), 0.0, 1.0, STEPS);
                convex_min(|u| in_u(u).value, 0.0, 1.0, STEPS).value
            }
        }
    }

    fn distance(&self, near: &[&Triangle]) -> f64 {
        near.iter().map(|t| self.distance_to(t)).fold(f64::INFINITY, f64::min)
    }
}

#[test]
fn bodies_over_a_bumpy_mesh_keep_their_manifold() {
    let (mesh, triangles) = floor();
    let mesh = Arc::new(mesh);
    let mut rng = rng(3401);
    let (mut within, mut missing, mut worst) = (0usize, Vec::new(), 0.0f64);
    let cases = 450;
    for i in 0..cases {
        let (x, z) = (rng.random_range(-40.0..40.0f32), rng.random_range(-40.0..40.0f32));
        let base = Point::new(x, 2.0, z);
        let body = match i % 3 {
            0 => Body::Sphere(base, rng.random_range(0.2..1.0)),
            1 => {
                let half = gen::unit_vector(&mut rng) * rng.random_range(0.2..1.0f32);
                Body::Capsule(base - half, base + half, rng.random_range(0.2..0.6))
            }
            _ => {
                let h = Vector::from_fn(|_, _| rng.random_range(0.2..1.0f32));
                Body::Box(Obb::new(base, gen::rotation(&mut rng), h))
            }
        };
        // The triangles the body can reach from any height of the search.
        let reach = body.shape().aabb();
        let near: Vec<&Triangle> = triangles
            .iter()
            .filter(|t| {
                let b = t.aabb();
                (0..3).all(|k| k == 1 || (b.min()[k] <= reach.max()[k] + 0.1 && b.max()[k] >= reach.min()[k] - 0.1))
            })
            .collect();
        // Bisection on the drop: the distance falls as the body is lowered.
        let gap = [0.0, 1e-7, 1e-5, 1e-3, 1e-2, PREDICTION as f64 - 2.0 * TOL][rng.random_range(0..6)];
        let (mut lo, mut hi) = (-4.0f64, 0.0f64);
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if body.lifted(mid).distance(&near) > gap {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let body = body.lifted(hi);
        let exact = body.distance(&near);
        let mut out: Vec<ContactManifold> = Vec::new();
        contact_manifolds(
            &body.shape(),
            &WorldShape::TriMesh(Arc::clone(&mesh), Isometry::identity()),
            PREDICTION,
            &mut out,
        );
        let deepest = out.iter().map(|m| m.deepest().depth).fold(Real::NEG_INFINITY, Real::max);
        if exact <= PREDICTION as f64 - TOL {
            within += 1;
            if out.is_empty() {
                missing.push(format!("distance {exact:.3e}, no manifold: {body:?}"));
                continue;
            }
        }
        if !out.is_empty() {
            let err = ((-deepest as f64).max(0.0) - exact.max(0.0)).abs();
            worst = worst.max(err);
            if err > TOL {
                missing.push(format!("distance {exact:.3e}, deepest depth {deepest:e}: {body:?}"));
            }
        }
    }
    println!("{cases} bodies, {within} within the prediction, worst depth error {worst:.2e}");
    assert!(within > cases / 2, "{within} of {cases} within the prediction");
    let shown = missing.iter().take(5).cloned().collect::<Vec<_>>().join("\n");
    assert!(missing.is_empty(), "{} bodies lost or misplaced their contact:\n{shown}", missing.len());
}
