//! Edge cases of the overlap, closest-point and contact functions, each its
//! own test: exact touching (faces, edges, vertices), identical rotations,
//! zero-thickness boxes, tiny shapes, shapes far from the origin, degenerate
//! triangles, coincident sphere centres and sphere centres inside boxes.
//!
//! Expected values are derived by hand from the geometry (or by an f64
//! computation in the test), never copied from the functions' output.

mod common_np;

use common_np::*;
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen;
use std::f32::consts::{FRAC_PI_4, SQRT_2};

fn p(x: Real, y: Real, z: Real) -> Point {
    Point::new(x, y, z)
}

fn v(x: Real, y: Real, z: Real) -> Vector {
    Vector::new(x, y, z)
}

fn cube(c: Point, rot: Rotation, h: Real) -> Obb {
    Obb::new(c, rot, Vector::repeat(h))
}

fn assert_close(a: Real, b: Real, tol: Real, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} vs {b} (tol {tol})");
}

fn assert_vec_close(a: &Vector, b: &Vector, tol: Real, what: &str) {
    assert!((a - b).norm() <= tol, "{what}: {a:?} vs {b:?} (tol {tol})");
}

fn check_contact(c: &Contact, depth: Real, normal: Vector, tol: Real) {
    contact_invariants(c, tol).unwrap_or_else(|e| panic!("{e}: {c:?}"));
    assert_close(c.depth, depth, tol, "depth");
    assert_vec_close(&c.normal.into_inner(), &normal, tol, "normal");
}

// ---- exact touching ----

#[test]
fn touching_faces() {
    // Boxes sharing the face x = 1 intersect; a gap of one ulp at 1 does not.
    let a = Aabb::new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0));
    let b = Aabb::new(p(1.0, 0.2, 0.3), p(2.0, 0.8, 0.9));
    assert!(intersects_aabb_aabb(&a, &b));
    let gap = Aabb::new(p(1.0 + Real::EPSILON, 0.2, 0.3), p(2.0, 0.8, 0.9));
    assert!(!intersects_aabb_aabb(&a, &gap));
    assert!(intersects_aabb_obb(&a, &Obb::from_aabb(&b)));
    assert!(intersects_obb_obb(&Obb::from_aabb(&a), &Obb::from_aabb(&b)));
    let c = contact_obb_obb(&Obb::from_aabb(&a), &Obb::from_aabb(&b)).expect("touching");
    check_contact(&c, 0.0, v(1.0, 0.0, 0.0), 1e-6);

    // Spheres |c_b - c_a| = r_a + r_b exactly (3 = 1 + 2).
    let s1 = Sphere::new(p(0.0, 0.0, 0.0), 1.0);
    let s2 = Sphere::new(p(3.0, 0.0, 0.0), 2.0);
    assert!(intersects_sphere_sphere(&s1, &s2));
    let c = contact_sphere_sphere(&s1, &s2).expect("touching");
    check_contact(&c, 0.0, v(1.0, 0.0, 0.0), 1e-6);
    assert_vec_close(&c.point_a.coords, &v(1.0, 0.0, 0.0), 1e-6, "point_a");

    // Sphere resting on the face y = 1 of a box.
    let s = Sphere::new(p(0.5, 1.5, 0.5), 0.5);
    assert!(intersects_sphere_aabb(&s, &a));
    let c = contact_sphere_aabb(&s, &a).expect("touching");
    check_contact(&c, 0.0, v(0.0, -1.0, 0.0), 1e-6);
    assert_vec_close(&c.point_b.coords, &v(0.5, 1.0, 0.5), 1e-6, "point_b");

    // Capsules whose segments are 1 apart with radii 0.25 + 0.75.
    let k1 = Capsule::new(p(-1.0, 0.0, 0.0), p(1.0, 0.0, 0.0), 0.25);
    let k2 = Capsule::new(p(0.0, 1.0, -1.0), p(0.0, 1.0, 1.0), 0.75);
    assert!(intersects_capsule_capsule(&k1, &k2));
    let far = Capsule::new(p(0.0, 1.0 + 1e-5, -1.0), p(0.0, 1.0 + 1e-5, 1.0), 0.75);
    assert!(!intersects_capsule_capsule(&k1, &far));
}

#[test]
fn touching_rotated_faces() {
    // Two equal cubes with the same rotation, B = A moved by exactly 2h along
    // A's second axis: face contact of depth 0 (up to the rounding of the
    // rotated offset, ~1e-7) with normal A_1.
    let rot = Rotation::from_euler_angles(0.3, -0.7, 1.1);
    let a = cube(p(0.5, -0.25, 2.0), rot, 0.5);
    let axis = a.axes().column(1).into_owned();
    let b = cube(a.center() + axis, rot, 0.5);
    assert!(intersects_obb_obb(&a, &b));
    let c = contact_obb_obb(&a, &b).expect("touching");
    check_contact(&c, 0.0, axis, 1e-5);
    let apart = cube(a.center() + axis * 1.001, rot, 0.5);
    assert!(!intersects_obb_obb(&a, &apart));
    assert!(contact_obb_obb(&a, &apart).is_none());
}

#[test]
fn touching_edges() {
    // Axis-aligned boxes sharing only the edge x = 1, y = 1.
    let a = Aabb::new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0));
    let b = Aabb::new(p(1.0, 1.0, 0.0), p(2.0, 2.0, 1.0));
    assert!(intersects_aabb_aabb(&a, &b));
    assert!(intersects_obb_obb(&Obb::from_aabb(&a), &Obb::from_aabb(&b)));

    // Crossed edges: A (half-extent 1) turned 45° about z has a z-parallel
    // edge at x = √2; B turned 45° about y has a y-parallel edge at local
    // x = -√2. With centres 2√2 apart on x the edges touch at one point.
    let a = cube(Point::origin(), Rotation::from_axis_angle(&Vector::z_axis(), FRAC_PI_4), 1.0);
    let rb = Rotation::from_axis_angle(&Vector::y_axis(), FRAC_PI_4);
    let d = 2.0 * SQRT_2;
    assert!(intersects_obb_obb(&a, &cube(p(d - 1e-4, 0.0, 0.0), rb, 1.0)));
    assert!(intersects_obb_obb(&a, &cube(p(d, 0.0, 0.0), rb, 1.0)));
    assert!(!intersects_obb_obb(&a, &cube(p(d + 1e-4, 0.0, 0.0), rb, 1.0)));
    // Penetrating by 0.1: the edge axis A_z x B_y = x is the minimum; the
    // witness points are the edges' crossing points (√2, 0, 0) and (√2 - 0.1, 0, 0).
    let b = cube(p(d - 0.1, 0.0, 0.0), rb, 1.0);
    let c = contact_obb_obb(&a, &b).expect("penetrating");
    check_contact(&c, 0.1, v(1.0, 0.0, 0.0), 1e-5);
    assert_vec_close(&c.point_a.coords, &v(SQRT_2, 0.0, 0.0), 1e-5, "point_a");
    assert_vec_close(&c.point_b.coords, &v(SQRT_2 - 0.1, 0.0, 0.0), 1e-5, "point_b");

    // A sphere touching a box edge: centre at distance r from the edge.
    let bx = Aabb::new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0));
    let dir = v(1.0, 1.0, 0.0).normalize();
    // (|dir| rounds, so "exactly r" is not representable: inside by 1e-4 r.)
    let s = Sphere::new(p(1.0, 1.0, 0.5) + dir * 0.4999, 0.5);
    assert!(intersects_sphere_aabb(&s, &bx));
    let c = contact_sphere_aabb(&s, &bx).expect("touching");
    check_contact(&c, 1e-4, -dir, 1e-6);
    assert_vec_close(&c.point_b.coords, &v(1.0, 1.0, 0.5), 1e-6, "point_b on the edge");
    let s_out = Sphere::new(p(1.0, 1.0, 0.5) + dir * 0.5001, 0.5);
    assert!(!intersects_sphere_aabb(&s_out, &bx));
}

#[test]
fn touching_vertices() {
    // Boxes sharing only the corner (1, 1, 1).
    let a = Aabb::new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0));
    let b = Aabb::new(p(1.0, 1.0, 1.0), p(2.0, 2.0, 2.0));
    assert!(intersects_aabb_aabb(&a, &b));
    assert!(intersects_aabb_obb(&a, &Obb::from_aabb(&b)));
    assert!(intersects_obb_obb(&Obb::from_aabb(&a), &Obb::from_aabb(&b)));
    // A triangle whose vertex is the box corner.
    let t = Triangle::new(p(1.0, 1.0, 1.0), p(2.0, 1.0, 3.0), p(3.0, 2.0, 1.0));
    assert!(intersects_aabb_triangle(&a, &t));
    // A sphere beyond the corner along the diagonal, inside/outside by 1e-4 r.
    let diag = v(1.0, 1.0, 1.0).normalize();
    let s_in = Sphere::new(p(1.0, 1.0, 1.0) + diag * 0.9999, 1.0);
    let s_out = Sphere::new(p(1.0, 1.0, 1.0) + diag * 1.0001, 1.0);
    assert!(intersects_sphere_aabb(&s_in, &a));
    assert!(!intersects_sphere_aabb(&s_out, &a));
    let c = contact_sphere_aabb(&s_in, &a).expect("touching");
    check_contact(&c, 1e-4, -diag, 1e-5);
    assert_vec_close(&c.point_b.coords, &v(1.0, 1.0, 1.0), 1e-6, "point_b is the corner");
}

// ---- identical rotations ----

/// Boxes sharing a rotation are axis-aligned in A's frame, so the exact
/// answer is the interval test there, in f64: the overlap on local axis i is
/// `ha_i + hb_i - |t_i|`. Every edge cross product `A_i x B_j` is then zero
/// or a face axis, which the SAT must survive (the `|R| + eps` guard).
#[test]
fn identical_rotations_parallel_edges() {
    let mut rng = proxima_test_support::rng(41);
    let pl = gen::Placement::new(1.5, 0.05, 1.5);
    let (mut hits, mut checked) = (0, 0);
    for _ in 0..20_000 {
        let rot = gen::rotation(&mut rng);
        let (ha, hb) = (gen::half_extents(&mut rng, &pl), gen::half_extents(&mut rng, &pl));
        let (ca, cb) = (gen::point(&mut rng, &pl), gen::point(&mut rng, &pl));
        let (a, b) = (Obb::new(ca, rot, ha), Obb::new(cb, rot, hb));
        let t = a.axes().cast::<f64>().tr_mul(&(v64(&cb) - v64(&ca)));
        let overlaps: Vec<f64> = (0..3).map(|i| ha[i] as f64 + hb[i] as f64 - t[i].abs()).collect();
        let min = overlaps.iter().cloned().fold(f64::INFINITY, f64::min);
        if min.abs() < 1e-4 {
            continue; // within the touching band (see intersect_vs_parry.rs)
        }
        checked += 1;
        assert_eq!(intersects_obb_obb(&a, &b), min > 0.0, "{a:?} {b:?}");
        let c = contact_obb_obb(&a, &b);
        assert_eq!(c.is_some(), min > 0.0);
        if let Some(c) = c {
            hits += 1;
            // The contact is a face contact of the least overlap (ties aside).
            assert_close(c.depth, min as Real, 1e-4, "depth");
            let local = a.to_local_vector(&c.normal);
            let i = local.iamax();
            assert!(local[i].abs() > 1.0 - 1e-4, "normal not a face axis: {local:?}");
            assert_close(overlaps[i] as Real, min as Real, 1e-4, "axis of least overlap");
            contact_invariants(&c, 1e-4).unwrap();
        }
    }
    assert!(hits > checked / 5 && hits < checked * 4 / 5, "{hits} of {checked}");
}

#[test]
fn concentric_identical_boxes() {
    // t = 0: every face overlap is 2h; the first face axis, +A_0, is chosen.
    let rot = Rotation::from_euler_angles(0.1, 0.2, 0.3);
    let a = cube(p(1.0, 2.0, 3.0), rot, 0.5);
    let c = contact_obb_obb(&a, &a).expect("identical boxes overlap");
    check_contact(&c, 1.0, a.axes().column(0).into_owned(), 1e-5);
}

// ---- zero thickness ----

#[test]
fn zero_thickness_boxes() {
    // A square plate in the plane y = 0.
    let plate = Aabb::new(p(-1.0, 0.0, -1.0), p(1.0, 0.0, 1.0));
    let flat = Obb::from_aabb(&plate);
    assert!(intersects_sphere_aabb(&Sphere::new(p(0.0, 0.5, 0.0), 0.5), &plate));
    assert!(!intersects_sphere_aabb(&Sphere::new(p(0.0, 0.5001, 0.0), 0.5), &plate));
    let c = contact_sphere_aabb(&Sphere::new(p(0.2, 0.4, 0.3), 0.5), &plate).expect("contact");
    check_contact(&c, 0.1, v(0.0, -1.0, 0.0), 1e-6);
    // Centre in the plate: both y faces are at distance 0; the -y face wins
    // the tie, so the normal is +y and the depth is the radius.
    let c = contact_sphere_aabb(&Sphere::new(p(0.2, 0.0, 0.3), 0.5), &plate).expect("contact");
    check_contact(&c, 0.5, v(0.0, 1.0, 0.0), 1e-6);
    // Two crossed plates (y = 0 and x = 0) meet along a line.
    let wall = Obb::new(Point::origin(), Rotation::identity(), v(0.0, 1.0, 1.0));
    assert!(intersects_obb_obb(&flat, &wall));
    let c = contact_obb_obb(&flat, &wall).expect("crossing plates");
    assert!(c.depth <= 1.0 + 1e-6);
    contact_invariants(&c, 1e-5).unwrap();
    // A plate just above a box top touches it; lifted by 1e-3 it does not.
    let bx = Obb::new(p(0.0, -0.5, 0.0), Rotation::from_euler_angles(0.0, 0.4, 0.0), v(0.5, 0.5, 0.5));
    assert!(intersects_obb_obb(&flat, &bx));
    let lifted = Obb::new(p(0.0, 1e-3, 0.0), Rotation::identity(), v(1.0, 0.0, 1.0));
    assert!(!intersects_obb_obb(&lifted, &bx));
    // A triangle lying in the plate's plane.
    let t = Triangle::new(p(0.5, 0.0, 0.5), p(3.0, 0.0, 0.5), p(0.5, 0.0, 3.0));
    assert!(intersects_aabb_triangle(&plate, &t));
    let t_up = Triangle::new(p(0.5, 1e-4, 0.5), p(3.0, 1e-4, 0.5), p(0.5, 1e-4, 3.0));
    assert!(!intersects_aabb_triangle(&plate, &t_up));
    // A zero-size box is a point.
    let dot = Aabb::new(p(1.0, 1.0, 1.0), p(1.0, 1.0, 1.0));
    assert_eq!(closest_point_aabb(&p(3.0, 1.0, 1.0), &dot), p(1.0, 1.0, 1.0));
    let c = contact_sphere_aabb(&Sphere::new(p(1.0, 1.0, 1.0), 0.25), &dot).expect("point inside sphere");
    check_contact(&c, 0.25, v(1.0, 0.0, 0.0), 1e-6);
}

// ---- tiny and far ----

/// The same scenes at two scales and places: `s` scales every length and
/// `o` is added to every position. Expected answers scale with `s`, with a
/// tolerance of `tol` (the f32 spacing at `|o|` plus rounding at scale `s`).
fn scaled_scenes(s: Real, o: Vector, tol: Real) {
    let at = |x: Real, y: Real, z: Real| Point::from(o + v(x, y, z) * s);
    let rot = Rotation::from_euler_angles(0.5, 0.25, -0.75);
    // Spheres overlapping by 0.1 s and apart by 0.1 s.
    let a = Sphere::new(at(0.0, 0.0, 0.0), s);
    let b = Sphere::new(at(1.9, 0.0, 0.0), s);
    assert!(intersects_sphere_sphere(&a, &b));
    let c = contact_sphere_sphere(&a, &b).expect("overlap");
    check_contact(&c, 0.1 * s, v(1.0, 0.0, 0.0), tol);
    assert!(!intersects_sphere_sphere(&a, &Sphere::new(at(2.1, 0.0, 0.0), s)));
    // Boxes.
    let ba = Obb::new(at(0.0, 0.0, 0.0), rot, Vector::repeat(s));
    let axis = ba.axes().column(2).into_owned();
    let bb = Obb::new(ba.center() + axis * (1.9 * s), rot, Vector::repeat(s));
    assert!(intersects_obb_obb(&ba, &bb));
    let c = contact_obb_obb(&ba, &bb).expect("overlap");
    check_contact(&c, 0.1 * s, axis, tol);
    assert!(!intersects_obb_obb(&ba, &Obb::new(ba.center() + axis * (2.1 * s), rot, Vector::repeat(s))));
    let aa = Aabb::new(at(-1.0, -1.0, -1.0), at(1.0, 1.0, 1.0));
    assert!(intersects_aabb_aabb(&aa, &Aabb::new(at(0.9, 0.0, 0.0), at(2.0, 1.0, 1.0))));
    assert!(!intersects_aabb_aabb(&aa, &Aabb::new(at(1.1, 0.0, 0.0), at(2.0, 1.0, 1.0))));
    // Sphere against box face, inside and outside.
    let sb = Sphere::new(at(0.0, 1.4, 0.0), 0.5 * s);
    let c = contact_sphere_aabb(&sb, &aa).expect("overlap");
    check_contact(&c, 0.1 * s, v(0.0, -1.0, 0.0), tol);
    assert!(!intersects_sphere_aabb(&Sphere::new(at(0.0, 1.6, 0.0), 0.5 * s), &aa));
    let c = contact_sphere_obb(&Sphere::new(ba.center() + axis * (1.4 * s), 0.5 * s), &ba).expect("overlap");
    check_contact(&c, 0.1 * s, -axis, tol);
    // Capsules and triangles.
    let k1 = Capsule::new(at(-1.0, 0.0, 0.0), at(1.0, 0.0, 0.0), 0.5 * s);
    assert!(intersects_capsule_capsule(&k1, &Capsule::new(at(0.0, 0.9, -1.0), at(0.0, 0.9, 1.0), 0.5 * s)));
    assert!(!intersects_capsule_capsule(&k1, &Capsule::new(at(0.0, 1.1, -1.0), at(0.0, 1.1, 1.0), 0.5 * s)));
    let c = contact_sphere_capsule(&Sphere::new(at(0.0, 0.9, 0.0), 0.5 * s), &k1).expect("overlap");
    check_contact(&c, 0.1 * s, v(0.0, -1.0, 0.0), tol);
    let t = Triangle::new(at(-1.0, 1.05, -1.0), at(1.0, 1.05, -1.0), at(0.0, 1.05, 1.0));
    assert!(!intersects_aabb_triangle(&aa, &t));
    let t = Triangle::new(at(-1.0, 0.95, -1.0), at(1.0, 0.95, -1.0), at(0.0, 0.95, 1.0));
    assert!(intersects_aabb_triangle(&aa, &t));
    assert!(intersects_sphere_triangle(&Sphere::new(at(0.0, 1.4, 0.0), 0.5 * s), &t));
    assert!(!intersects_sphere_triangle(&Sphere::new(at(0.0, 1.5, 0.0), 0.5 * s), &t));
}

#[test]
fn tiny_shapes() {
    // Sizes 1e-4: rounding is ~1e-11, the tolerance 1e-9 is relative 1e-5.
    scaled_scenes(1e-4, Vector::zeros(), 1e-9);
}

#[test]
fn far_from_origin() {
    // 1e5 from the origin the f32 spacing is 2^-7 = 0.0078; positions are
    // rounded to it, so with unit sizes the tolerance is 4 spacings = 0.03.
    scaled_scenes(1.0, v(1e5, -1e5, 1e5), 0.03);
}

#[test]
fn far_from_origin_matches_parry() {
    // Random pairs 1e5 away, unit sizes, compared with parry where the signed
    // distance is beyond 0.05 (a few f32 spacings at 1e5).
    let mut rng = proxima_test_support::rng(42);
    let pl = gen::Placement::new(1.5, 0.05, 1.5).at(p(1e5, 1e5, -1e5));
    for _ in 0..5_000 {
        let (a, b) = (gen::obb(&mut rng, &pl), gen::obb(&mut rng, &pl));
        let ((pa, ca), (pb, cb)) = (cv::cuboid(&a), cv::cuboid(&b));
        let sd = parry_signed_distance(&pa, &ca, &pb, &cb);
        if sd.abs() > 0.05 {
            assert_eq!(intersects_obb_obb(&a, &b), sd < 0.0, "{a:?} {b:?} {sd}");
        }
        let s = gen::sphere(&mut rng, &pl);
        let (ps, bs) = cv::ball(&s);
        let sd = parry_signed_distance(&ps, &bs, &pb, &cb);
        if sd.abs() > 0.05 {
            assert_eq!(intersects_sphere_obb(&s, &b), sd < 0.0);
        }
    }
}

// ---- degenerate triangles ----

#[test]
fn degenerate_triangle_collinear() {
    // A "triangle" on the segment (-2, 0.5, 0.5) .. (2, 0.5, 0.5), with the
    // third vertex in the middle: it crosses the unit box.
    let bx = Aabb::new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0));
    let t = Triangle::new(p(-2.0, 0.5, 0.5), p(2.0, 0.5, 0.5), p(0.0, 0.5, 0.5));
    assert_eq!(t.area(), 0.0);
    assert!(intersects_aabb_triangle(&bx, &t));
    // Moved to y = 1.5 it misses the box, even through the 13 SAT axes of
    // which the triangle normal is zero.
    let t_off = Triangle::new(p(-2.0, 1.5, 0.5), p(2.0, 1.5, 0.5), p(0.0, 1.5, 0.5));
    assert!(!intersects_aabb_triangle(&bx, &t_off));
    // A diagonal segment on x + y = -0.1 passes the box corner (0, 0) at
    // 0.07 while its bounding box overlaps the box: only the edge x z-axis
    // cross product separates. On x + y = 0.1 it cuts the corner.
    let t_diag = Triangle::new(p(-1.1, 1.0, 0.5), p(1.0, -1.1, 0.5), p(-0.05, -0.05, 0.5));
    assert!(!intersects_aabb_triangle(&bx, &t_diag));
    let t_cut = Triangle::new(p(-0.9, 1.0, 0.5), p(1.0, -0.9, 0.5), p(0.05, 0.05, 0.5));
    assert!(intersects_aabb_triangle(&bx, &t_cut));
    // Closest point: the segment's closest point.
    let q = closest_point_triangle(&p(0.3, 2.0, 0.5), &t);
    assert_vec_close(&q.coords, &v(0.3, 0.5, 0.5), 1e-6, "closest on collinear triangle");
    assert_close(distance_point_triangle(&p(3.0, 0.5, 0.5), &t), 1.0, 1e-6, "beyond the end");
    // Sphere against it: touching at distance 1 from the line.
    assert!(intersects_sphere_triangle(&Sphere::new(p(0.0, 1.5, 0.5), 1.0), &t));
    assert!(!intersects_sphere_triangle(&Sphere::new(p(0.0, 1.5, 0.5), 0.999), &t));
}

#[test]
fn degenerate_triangle_single_point() {
    let bx = Aabb::new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0));
    let inside = Triangle::new(p(0.5, 0.5, 0.5), p(0.5, 0.5, 0.5), p(0.5, 0.5, 0.5));
    let on_face = Triangle::new(p(1.0, 0.5, 0.5), p(1.0, 0.5, 0.5), p(1.0, 0.5, 0.5));
    let outside = Triangle::new(p(1.5, 0.5, 0.5), p(1.5, 0.5, 0.5), p(1.5, 0.5, 0.5));
    assert!(intersects_aabb_triangle(&bx, &inside));
    assert!(intersects_aabb_triangle(&bx, &on_face));
    assert!(!intersects_aabb_triangle(&bx, &outside));
    assert_eq!(closest_point_triangle(&p(3.0, 4.0, 5.0), &outside), p(1.5, 0.5, 0.5));
    assert!(intersects_sphere_triangle(&Sphere::new(p(1.5, 1.5, 0.5), 1.0), &outside));
    assert!(!intersects_sphere_triangle(&Sphere::new(p(1.5, 1.6, 0.5), 1.0), &outside));
}

#[test]
fn degenerate_triangles_random_vs_oracle() {
    // Collinear and single-point triangles against the f64 oracles.
    let mut rng = proxima_test_support::rng(43);
    let pl = gen::Placement::new(1.0, 0.05, 1.0);
    for k in 0..20_000 {
        let a = gen::point(&mut rng, &pl);
        let b = gen::point(&mut rng, &pl);
        let w: Real = gen::uniform(&mut rng, -0.5, 1.5);
        let t = if k % 2 == 0 { Triangle::new(a, b, a + (b - a) * w) } else { Triangle::new(a, a, a) };
        let q = gen::point(&mut rng, &pl);
        let (t64, q64) = ([v64(t.a()), v64(t.b()), v64(t.c())], v64(&q));
        let truth = closest_on_triangle_f64(&q64, &t64[0], &t64[1], &t64[2]);
        // On a degenerate triangle the distance is flat along the segment
        // near its minimum, so points 1e-4 apart can be equally close: compare
        // distances, and check that our point lies on the triangle.
        let ours = v64(&closest_point_triangle(&q, &t));
        assert!(((q64 - ours).norm() - (q64 - truth).norm()).abs() < 1e-5, "{t:?} {q:?}");
        let back = closest_on_triangle_f64(&ours, &t64[0], &t64[1], &t64[2]);
        assert!((back - ours).norm() < 1e-5, "{t:?} {q:?}: our point is off the triangle");
        let s = Sphere::new(q, gen::uniform(&mut rng, 0.05, 1.0));
        let sd = (q64 - truth).norm() - s.radius() as f64;
        if sd.abs() > 1e-5 {
            assert_eq!(intersects_sphere_triangle(&s, &t), sd < 0.0);
        }
    }
}

/// Thin triangles `c = a + w (b - a) + s u x (b - a)`, `s` log-uniform in
/// `[1e-9, 1e-0.5]`, against the f64 oracle on the same f32 vertices. The
/// plain Ericson region walk was off by up to the triangle's size here (its
/// edge signs are differences of products that cancel); the triple-product
/// signs find the right region, so our point lies on the triangle and is as
/// close to `q` as the oracle's, both within `2e-6`: eight f32 roundings of
/// coordinates up to 2 (`ulp(2) = 2.4e-7`), where a wrong region is off by
/// up to the triangle's size.
///
/// The point itself is compared only through that: for points `p` of a
/// convex set, `|p - p*|^2 <= |q - p|^2 - |q - p*|^2` (`p*` the closest),
/// so a distance right to `Δ` pins the point only to `sqrt(2 d Δ)`, about
/// `5e-4` for a query 1.4 away from a segment-like sliver.
#[test]
fn sliver_triangles_vs_oracle() {
    let mut rng = proxima_test_support::rng(44);
    let pl = gen::Placement::new(1.0, 0.2, 1.5);
    let (mut excess, mut off, mut moved) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..100_000 {
        let (a, b) = (gen::point(&mut rng, &pl), gen::point(&mut rng, &pl));
        let s = (10.0 as Real).powf(gen::uniform(&mut rng, -9.0, -0.5));
        let w = gen::uniform(&mut rng, -0.3, 1.3);
        let c = a + (b - a) * w + gen::unit_vector(&mut rng).cross(&(b - a)) * s;
        let q = gen::point(&mut rng, &pl);
        let (t64, q64) = ([v64(&a), v64(&b), v64(&c)], v64(&q));
        let truth = closest_on_triangle_f64(&q64, &t64[0], &t64[1], &t64[2]);
        let ours = v64(&closest_point_triangle(&q, &Triangle::new(a, b, c)));
        let on = closest_on_triangle_f64(&ours, &t64[0], &t64[1], &t64[2]);
        excess = excess.max(((q64 - ours).norm() - (q64 - truth).norm()).abs());
        off = off.max((on - ours).norm());
        moved = moved.max((ours - truth).norm());
    }
    eprintln!("sliver triangles: distance {excess:e}, off the triangle {off:e}, point moved {moved:e}");
    assert!(excess < 2e-6, "worst sliver distance error {excess:e}");
    assert!(off < 2e-6, "worst sliver point {off:e} off the triangle");
}

// ---- coincident centres ----

#[test]
fn coincident_sphere_centres() {
    // No direction joins the centres: the documented fallback normal is +x,
    // the depth the sum of the radii.
    let a = Sphere::new(p(1.0, 2.0, 3.0), 0.5);
    let b = Sphere::new(p(1.0, 2.0, 3.0), 0.25);
    let c = contact_sphere_sphere(&a, &b).expect("coincident spheres overlap");
    check_contact(&c, 0.75, v(1.0, 0.0, 0.0), 1e-6);
    assert_vec_close(&c.point_a.coords, &v(1.5, 2.0, 3.0), 1e-6, "point_a");
    assert_vec_close(&c.point_b.coords, &v(0.75, 2.0, 3.0), 1e-6, "point_b");
    // Two points (zero radii) at the same place touch with depth 0.
    let z = Sphere::new(p(1.0, 2.0, 3.0), 0.0);
    assert!(intersects_sphere_sphere(&z, &z));
    check_contact(&contact_sphere_sphere(&z, &z).expect("touching"), 0.0, v(1.0, 0.0, 0.0), 0.0);
}

#[test]
fn sphere_centre_on_capsule_segment() {
    // The normal is perpendicular to the segment, the depth r_s + r_c.
    let cap = Capsule::new(p(0.0, 0.0, 0.0), p(1.0, 2.0, 2.0), 0.5);
    let s = Sphere::new(p(0.5, 1.0, 1.0), 0.25);
    let c = contact_sphere_capsule(&s, &cap).expect("overlap");
    contact_invariants(&c, 1e-6).unwrap();
    assert_close(c.depth, 0.75, 1e-6, "depth");
    assert_close(c.normal.dot(&v(1.0, 2.0, 2.0)), 0.0, 1e-6, "normal ⟂ segment");
    // A zero-length capsule is a sphere: fallback +x.
    let dot = Capsule::new(p(0.5, 1.0, 1.0), p(0.5, 1.0, 1.0), 0.5);
    check_contact(&contact_sphere_capsule(&s, &dot).expect("overlap"), 0.75, v(1.0, 0.0, 0.0), 1e-6);
}

// ---- centre inside a box ----

#[test]
fn sphere_centre_inside_box() {
    let bx = Aabb::new(p(0.0, 0.0, 0.0), p(4.0, 2.0, 6.0));
    // Nearest face: y = 2 at distance 0.5; normal from that face into the box.
    let s = Sphere::new(p(1.0, 1.5, 3.0), 0.25);
    let c = contact_sphere_aabb(&s, &bx).expect("inside");
    check_contact(&c, 0.75, v(0.0, -1.0, 0.0), 1e-6);
    assert_vec_close(&c.point_b.coords, &v(1.0, 2.0, 3.0), 1e-6, "point_b on the face");
    assert_vec_close(&c.point_a.coords, &v(1.0, 1.25, 3.0), 1e-6, "point_a");
    // The same in a rotated box, against parry.
    let rot = Rotation::from_euler_angles(0.4, -0.2, 0.9);
    let ob = Obb::new(p(3.0, -1.0, 2.0), rot, v(2.0, 1.0, 3.0));
    let s = Sphere::new(ob.to_world(&v(-1.0, 0.5, 0.0)), 0.25);
    let c = contact_sphere_obb(&s, &ob).expect("inside");
    check_contact(&c, 0.75, -ob.axes().column(1).into_owned(), 1e-5);
    let ((ps, bs), (pb, cb)) = (cv::ball(&s), cv::cuboid(&ob));
    let pc = parry3d::query::contact(&ps, &bs, &pb, &cb, 0.0).unwrap().unwrap();
    assert_close(c.depth, -pc.dist, 1e-5, "depth vs parry");
    assert_vec_close(&c.normal.into_inner(), &cv::from_vec(pc.normal1), 1e-5, "normal vs parry");
    assert_vec_close(&c.point_b.coords, &cv::from_vec(pc.point2), 1e-5, "point_b vs parry");
    // Centre at the centre of a cube: all faces tie; the first, -x, wins,
    // so the normal is +x.
    let cubebox = Aabb::new(p(-1.0, -1.0, -1.0), p(1.0, 1.0, 1.0));
    let c = contact_sphere_aabb(&Sphere::new(Point::origin(), 0.5), &cubebox).expect("inside");
    check_contact(&c, 1.5, v(1.0, 0.0, 0.0), 1e-6);
    // Centre exactly on a face: depth r, normal into the box.
    let c = contact_sphere_aabb(&Sphere::new(p(1.0, 0.0, 0.0), 0.5), &cubebox).expect("on face");
    check_contact(&c, 0.5, v(-1.0, 0.0, 0.0), 1e-6);
}

// ---- box-box manifolds ----

/// Sorted `(x, y)` of the manifold's B-side points, rounded to 1e-4.
fn footprint(m: &ContactManifold) -> Vec<(i64, i64)> {
    let mut v: Vec<_> =
        m.points().iter().map(|q| ((q.point_b.x * 1e4).round() as i64, (q.point_b.y * 1e4).round() as i64)).collect();
    v.sort_unstable();
    v
}

#[test]
fn manifold_box_on_table() {
    // A unit cube (half 0.5) sunk 0.1 into a table top at z = 0: its four
    // bottom corners, depth 0.1 each, normal +z.
    let table = Obb::new(p(0.0, 0.0, -0.5), Rotation::identity(), v(5.0, 5.0, 0.5));
    let bx = Obb::new(p(1.0, 2.0, 0.4), Rotation::identity(), Vector::repeat(0.5));
    let m = contact_manifold_obb_obb(&table, &bx, 0.0).expect("resting");
    assert_eq!(m.len(), 4);
    assert_vec_close(&m.normal.into_inner(), &v(0.0, 0.0, 1.0), 1e-6, "normal");
    assert_eq!(footprint(&m), vec![(5000, 15000), (5000, 25000), (15000, 15000), (15000, 25000)]);
    for q in m.points() {
        assert_close(q.depth, 0.1, 1e-5, "depth");
        assert_close(q.point_a.z, 0.0, 1e-6, "point_a on the table top");
        assert_close(q.point_b.z, -0.1, 1e-6, "point_b on the box bottom");
    }
    // The same seen from the box: normal -z, same points swapped.
    let m2 = contact_manifold_obb_obb(&bx, &table, 0.0).expect("resting");
    assert_eq!(m2.len(), 4);
    assert_vec_close(&m2.normal.into_inner(), &v(0.0, 0.0, -1.0), 1e-6, "normal");
}

#[test]
fn manifold_box_over_table_edge() {
    // The table ends at x = 1; a cube centred at x = 1 is half over the edge:
    // the clipped footprint is x in [0.5, 1], y in [-0.5, 0.5].
    let table = Obb::new(p(0.0, 0.0, -0.5), Rotation::identity(), v(1.0, 5.0, 0.5));
    let bx = Obb::new(p(1.0, 0.0, 0.45), Rotation::identity(), Vector::repeat(0.5));
    let m = contact_manifold_obb_obb(&table, &bx, 0.0).expect("resting");
    assert_eq!(m.len(), 4);
    assert_eq!(footprint(&m), vec![(5000, -5000), (5000, 5000), (10000, -5000), (10000, 5000)]);
    m.points().iter().for_each(|q| assert_close(q.depth, 0.05, 1e-5, "depth"));
}

#[test]
fn manifold_tilted_box_rests_on_an_edge() {
    // A cube tilted by 0.2 rad about x touches the table along its lowest
    // edge: two points, at the two ends of that edge.
    let table = Obb::new(p(0.0, 0.0, -0.5), Rotation::identity(), v(5.0, 5.0, 0.5));
    let rot = Rotation::from_axis_angle(&Vector::x_axis(), 0.2);
    let lowest = 0.5 * (0.2f32.cos() + 0.2f32.sin()); // centre height of the lowest edge's top
    let bx = Obb::new(p(0.0, 0.0, lowest - 0.01), rot, Vector::repeat(0.5));
    let m = contact_manifold_obb_obb(&table, &bx, 0.0).expect("resting");
    assert_eq!(m.len(), 2, "{m:?}");
    for q in m.points() {
        assert_close(q.depth, 0.01, 1e-5, "depth");
        assert_close(q.point_b.x.abs(), 0.5, 1e-5, "edge ends at x = ±0.5");
    }
}

#[test]
fn manifold_rotated_box_on_small_table_is_reduced_to_four() {
    // A cube turned 45° about z on a table top barely larger than the cube:
    // the rotated bottom square clipped by the table's square is an octagon
    // (8 vertices), reduced to 4 points that keep the deepest.
    let table = Obb::new(p(0.0, 0.0, -0.5), Rotation::identity(), v(0.6, 0.6, 0.5));
    let rot = Rotation::from_axis_angle(&Vector::z_axis(), FRAC_PI_4);
    let bx = Obb::new(p(0.0, 0.0, 0.45), rot, Vector::repeat(0.5));
    let m = contact_manifold_obb_obb(&table, &bx, 0.0).expect("resting");
    assert_eq!(m.len(), 4);
    for q in m.points() {
        assert_close(q.depth, 0.05, 1e-5, "depth");
        assert!(q.point_b.x.abs() <= 0.6 + 1e-5 && q.point_b.y.abs() <= 0.6 + 1e-5, "clipped to the table");
    }
}

#[test]
fn manifold_edge_edge_is_one_point() {
    let a = cube(Point::origin(), Rotation::from_axis_angle(&Vector::z_axis(), FRAC_PI_4), 1.0);
    let b = cube(p(2.0 * SQRT_2 - 0.1, 0.0, 0.0), Rotation::from_axis_angle(&Vector::y_axis(), FRAC_PI_4), 1.0);
    let m = contact_manifold_obb_obb(&a, &b, 0.0).expect("penetrating");
    assert_eq!(m.len(), 1);
    assert_close(m.points()[0].depth, 0.1, 1e-5, "depth");
    assert!(contact_manifold_obb_obb(&a, &cube(p(2.0 * SQRT_2 + 1e-3, 0.0, 0.0), *b.rotation(), 1.0), 0.0).is_none());
}

// ---- witness points of separating-axis contacts ----

/// `point_a` on the capsule's surface and `point_b` on the box's, in f64.
fn assert_capsule_box_witnesses(cap: &Capsule, bx: &Obb, point_a: &Point, point_b: &Point) {
    let h = bx.half_extents().cast::<f64>();
    let on_box = point_box_signed_distance_f64(&obb_local_f64(point_b, bx), &h);
    assert!(on_box.abs() <= 1e-5, "point_b {point_b:?} is {on_box:e} from the box's surface");
    let core = point_segment_distance_f64(&v64(point_a), &v64(cap.a()), &v64(cap.b()));
    let r = cap.radius() as f64;
    assert!((core - r).abs() <= 1e-5, "point_a {point_a:?} is {:e} from the capsule's surface", core - r);
}

#[test]
fn capsule_along_box_edge_witnesses_on_the_edge() {
    // The core segment runs along y at x = z = 1.5, outside the unit box; the
    // box edge x = z = 1 is parallel to it at distance sqrt(0.5), so the
    // contact is that edge's: depth 0.75 - sqrt(0.5), normal (-1, 0, -1) /
    // sqrt(2). The segment's ends (y = ±3) lie beyond the edge (|y| <= 1):
    // the box's witness is on the edge, not at the end's height.
    let bx = cube(Point::origin(), Rotation::identity(), 1.0);
    let cap = Capsule::new(p(1.5, -3.0, 1.5), p(1.5, 3.0, 1.5), 0.75);
    let depth = 0.75 - 0.5f32.sqrt();
    let normal = v(-1.0, 0.0, -1.0) / SQRT_2;
    let c = contact_capsule_obb(&cap, &bx).expect("touching the edge");
    check_contact(&c, depth, normal, 1e-5);
    assert_close(c.point_b.x, 1.0, 1e-5, "point_b on the edge (x)");
    assert_close(c.point_b.z, 1.0, 1e-5, "point_b on the edge (z)");
    assert!(c.point_b.y.abs() <= 1.0 + 1e-5, "point_b within the edge: {:?}", c.point_b);
    assert_capsule_box_witnesses(&cap, &bx, &c.point_a, &c.point_b);
    // The manifold: the segment clipped to the edge's extent, y = -1 and 1.
    let m = contact_manifold_capsule_obb(&cap, &bx, 0.0).expect("touching");
    assert_eq!(m.len(), 2, "{m:?}");
    let mut ys: Vec<Real> = m.points().iter().map(|q| q.point_b.y).collect();
    ys.sort_by(Real::total_cmp);
    assert_close(ys[0], -1.0, 1e-5, "first end");
    assert_close(ys[1], 1.0, 1e-5, "second end");
    for q in m.points() {
        assert_close(q.depth, depth, 1e-5, "depth");
        assert_vec_close(&(q.point_a - q.point_b), &(m.normal.into_inner() * q.depth), 1e-5, "point_a - point_b");
        assert_capsule_box_witnesses(&cap, &bx, &q.point_a, &q.point_b);
    }
    // Turned off the edge's direction by 0.01 rad: one point again.
    let tilt = Rotation::from_axis_angle(&Vector::z_axis(), 0.01);
    let turned =
        Capsule::new(p(1.5, 0.0, 1.5) + tilt * v(0.0, -3.0, 0.0), p(1.5, 0.0, 1.5) + tilt * v(0.0, 3.0, 0.0), 0.75);
    let m = contact_manifold_capsule_obb(&turned, &bx, 0.0).expect("touching");
    assert_eq!(m.len(), 1, "{m:?}");
    assert_capsule_box_witnesses(&turned, &bx, &m.points()[0].point_a, &m.points()[0].point_b);
}

#[test]
fn box_triangle_edge_axis_witnesses_on_both_edges() {
    // The triangle's edge from (0.8, -3, 1.1) to (1.1, 3, 0.8) crosses the
    // unit box's edge x = z = 1 (along y) with x + z = 1.9 all along it: the
    // least overlap is on the axis y x edge = (1, 0, 1) / sqrt(2), by
    // (2 - 1.9) / sqrt(2). The edges meet laterally where x - z = 0, at the
    // edge's midpoint (0.95, 0, 0.95), over the box's edge point (1, 0, 1);
    // the triangle's deepest vertex (0.8, -3, 1.1) lies beyond the box's side.
    let bx = cube(Point::origin(), Rotation::identity(), 1.0);
    let tri = Triangle::new(p(0.8, -3.0, 1.1), p(1.1, 3.0, 0.8), p(4.0, 0.0, 4.0));
    let c = contact_obb_triangle(&bx, &tri).expect("penetrating");
    check_contact(&c, 0.1 / SQRT_2, v(1.0, 0.0, 1.0) / SQRT_2, 1e-5);
    assert_vec_close(&c.point_a.coords, &v(1.0, 0.0, 1.0), 1e-5, "point_a");
    assert_vec_close(&c.point_b.coords, &v(0.95, 0.0, 0.95), 1e-5, "point_b");
    let m = contact_manifold_obb_triangle(&bx, &tri, 0.0).expect("penetrating");
    assert_eq!(m.len(), 1, "{m:?}");
    assert_vec_close(&m.points()[0].point_b.coords, &v(0.95, 0.0, 0.95), 1e-5, "manifold point_b");
}

#[test]
fn capsule_crossing_triangle_witnesses_on_the_edge() {
    // The core segment (0, 0, -1)-(0.3, 0, 1) crosses the triangle. Least
    // overlap: the axis d x e of the segment d = (0.3, 0, 2) and the edge
    // e = (1, -1, 0)-(0, 1, 0), l = (-4, -2, 0.6) / sqrt(20.36): the segment
    // projects to -0.6 / |l|, the edge (the triangle's lowest) to -2 / |l|,
    // overlap 1.4 / |l|, depth that plus r. The witnesses are the segment's
    // and the edge's points that are `overlap l` apart (solved below), not
    // the segment's end pushed out by the depth.
    let tri = Triangle::new(p(-1.0, -1.0, 0.0), p(1.0, -1.0, 0.0), p(0.0, 1.0, 0.0));
    let cap = Capsule::new(p(0.0, 0.0, -1.0), p(0.3, 0.0, 1.0), 0.2);
    let len = 20.36f64.sqrt();
    let l = nalgebra::Vector3::new(-4.0, -2.0, 0.6) / len;
    let overlap = 1.4 / len;
    // (0.3 s, 0, 2 s - 1) - (1 - u, 2 u - 1, 0) = overlap l, for s and u.
    let u = (1.0 - overlap * l.y) / 2.0;
    let s = (1.0 + overlap * l.z) / 2.0;
    let on_edge = nalgebra::Vector3::new(1.0 - u, 2.0 * u - 1.0, 0.0);
    let on_core = nalgebra::Vector3::new(0.3 * s, 0.0, 2.0 * s - 1.0);
    assert!((on_core - on_edge - l * overlap).norm() < 1e-12, "the solve");
    let c = contact_capsule_triangle(&cap, &tri).expect("crossing");
    check_contact(&c, (overlap + 0.2) as Real, l.cast(), 1e-5);
    assert_vec_close(&c.point_b.coords, &on_edge.cast(), 1e-5, "point_b");
    assert_vec_close(&c.point_a.coords, &(on_core + l * 0.2).cast(), 1e-5, "point_a");
    let m = contact_manifold_capsule_triangle(&cap, &tri, 0.0).expect("crossing");
    assert_eq!(m.len(), 1, "{m:?}");
    assert_vec_close(&m.points()[0].point_b.coords, &on_edge.cast(), 1e-5, "manifold point_b");
}
