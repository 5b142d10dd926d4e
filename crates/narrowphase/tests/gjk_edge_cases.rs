//! Hard cases of the generic convex queries, one per degenerate
//! configuration: exact touching, nearly parallel faces, thin boxes, large
//! scale differences and offsets, degenerate triangles and boxes, coincident
//! shapes and flat Minkowski differences. Each checks the answer against the
//! closed forms (tolerance relative to the shapes' size and offset `L`),
//! that every output is finite, and that GJK and EPA stay within their
//! iteration bounds.

use proxima_narrowphase::*;

/// GJK and EPA support points at most (their cap is 64).
const MAX_GJK: u32 = 24;
const MAX_EPA: u32 = 48;

fn cube(c: Point, h: Real) -> Obb {
    Obb::new(c, Rotation::identity(), Vector::repeat(h))
}

fn finite_distance(d: &ShapeDistance) -> bool {
    d.distance.is_finite() && d.point_a.iter().chain(d.point_b.iter()).all(|x| x.is_finite())
}

fn finite_contact(c: &Contact) -> bool {
    c.depth.is_finite()
        && c.point_a.iter().chain(c.point_b.iter()).all(|x| x.is_finite())
        && (c.normal.norm() - 1.0).abs() < 1e-5
}

/// The generic queries on a pair, checked for finiteness and iteration
/// bounds; returns them.
fn run<A: SupportMap, B: SupportMap>(a: &A, b: &B) -> (ShapeDistance, bool, Option<Contact>) {
    let d = distance_convex(a, b);
    let i = intersects_convex(a, b);
    let c = contact_convex(a, b, 0.0);
    assert!(finite_distance(&d), "{d:?}");
    if let Some(c) = &c {
        assert!(finite_contact(c), "{c:?}");
    }
    let (gi, ei) = convex_iterations(a, b);
    assert!(gi <= MAX_GJK && ei <= MAX_EPA, "iterations gjk {gi} epa {ei}");
    (d, i, c)
}

#[test]
fn touching_boxes_face_to_face() {
    let a = cube(Point::origin(), 1.0);
    let b = cube(Point::new(2.0, 0.3, -0.2), 1.0);
    let (d, i, c) = run(&a, &b);
    assert!(i);
    assert!(d.distance <= 1e-6);
    let c = c.expect("touching counts");
    assert!(c.depth.abs() <= 1e-6 && (c.normal.x - 1.0).abs() < 1e-5, "{c:?}");
}

#[test]
fn touching_sphere_capsule_triangle_against_a_box() {
    let a = cube(Point::origin(), 1.0);
    let s = Sphere::new(Point::new(0.2, 1.5, 0.1), 0.5);
    let k = Capsule::new(Point::new(1.5, 1.5, -1.0), Point::new(1.5, 1.5, 1.0), 0.5 * 2f32.sqrt());
    let t = Triangle::new(Point::new(0.0, 0.0, 1.0), Point::new(1.0, 0.0, 3.0), Point::new(0.0, 1.0, 3.0));
    for (d, i, c) in [run(&a, &s), run(&a, &k), run(&a, &t)] {
        assert!(i && d.distance <= 1e-6, "{d:?}");
        assert!(c.expect("touching counts").depth.abs() <= 1e-6);
    }
}

#[test]
fn just_apart_and_just_overlapping() {
    let a = cube(Point::origin(), 1.0);
    for gap in [1e-3, 1e-4, -1e-4, -1e-3] {
        let b = cube(Point::new(2.0 + gap, 0.0, 0.0), 1.0);
        let (d, i, c) = run(&a, &b);
        assert_eq!(i, gap < 0.0, "gap {gap}");
        assert!((d.distance - gap.max(0.0)).abs() <= 1e-6, "gap {gap}: {d:?}");
        match c {
            Some(c) => assert!(gap < 0.0 && (c.depth + gap).abs() <= 1e-6, "gap {gap}: {c:?}"),
            None => assert!(gap > 0.0),
        }
        let s = contact_convex(&a, &b, 0.01).expect("within the prediction");
        assert!((s.depth + gap).abs() <= 1e-6 && (s.normal.x - 1.0).abs() < 1e-4, "gap {gap}: {s:?}");
    }
}

#[test]
fn nearly_parallel_faces() {
    let a = cube(Point::origin(), 1.0);
    for angle in [1e-6f32, 1e-4, 1e-2] {
        let rot = Rotation::from_euler_angles(0.0, 0.0, angle);
        for offset in [2.01f32, 1.99] {
            let b = Obb::new(Point::new(offset + angle, 0.0, 0.0), rot, Vector::repeat(1.0));
            let (d, i, c) = run(&a, &b);
            let exact = distance_obb_obb(&a, &b);
            assert!((d.distance - exact.distance).abs() <= 1e-6, "{angle} {offset}: {d:?} {exact:?}");
            assert_eq!(i, intersects_obb_obb(&a, &b));
            if let (Some(c), Some(o)) = (c, contact_obb_obb(&a, &b)) {
                assert!(c.depth <= o.depth + 1e-6 && c.depth >= o.depth - 1e-3 * o.depth - 1e-6, "{c:?} {o:?}");
            }
        }
    }
}

#[test]
fn thin_boxes_crossing_and_apart() {
    let plate = |c: Point, rot: Rotation| Obb::new(c, rot, Vector::new(1.0, 1.0, 1e-4));
    let a = plate(Point::origin(), Rotation::identity());
    let b = plate(Point::new(0.3, 0.0, 0.0), Rotation::from_euler_angles(std::f32::consts::FRAC_PI_2, 0.0, 0.0));
    let (d, i, c) = run(&a, &b);
    assert!(i && d.distance == 0.0);
    let (c, o) = (c.expect("crossing"), contact_obb_obb(&a, &b).expect("crossing"));
    assert!((c.depth - o.depth).abs() <= 1e-6, "{c:?} {o:?}");
    let far = plate(Point::new(0.0, 0.0, 0.5), Rotation::from_euler_angles(0.3, 0.2, 0.1));
    let (d, i, _) = run(&a, &far);
    assert!(!i && (d.distance - distance_obb_obb(&a, &far).distance).abs() <= 1e-6);
}

#[test]
fn small_against_large() {
    // A 1e-2 sphere, box and capsule near the face, edge and corner of a 1e3 box.
    let big = Obb::new(Point::origin(), Rotation::from_euler_angles(0.1, 0.2, 0.3), Vector::new(1e3, 5e2, 8e2));
    let l = 2e3;
    for dir in [Vector::x(), Vector::new(1.0, 1.0, 0.0).normalize(), Vector::new(1.0, -1.0, 1.0).normalize()] {
        let on = big.support(&dir);
        for gap in [0.02f32, -0.005] {
            let s = Sphere::new(on + dir * (gap + 0.01), 0.01);
            let (d, _, _) = run(&s, &big);
            let exact = distance_sphere_obb(&s, &big);
            assert!((d.distance - exact.distance).abs() <= 4e-6 * l, "{d:?} {exact:?}");
            let small =
                Obb::new(on + dir * (gap + 0.02), Rotation::from_euler_angles(0.5, 0.4, 0.3), Vector::repeat(0.01));
            let (d, _, _) = run(&small, &big);
            let exact = distance_obb_obb(&small, &big);
            assert!((d.distance - exact.distance).abs() <= 4e-6 * l, "{d:?} {exact:?}");
        }
    }
}

#[test]
fn far_from_the_origin() {
    let o = Vector::new(1e4, -1e4, 1e4);
    let a = Obb::new(Point::from(o), Rotation::from_euler_angles(0.3, 0.2, 0.1), Vector::new(0.5, 0.7, 0.3));
    let b =
        Capsule::new(Point::from(o + Vector::new(2.0, 0.0, 0.0)), Point::from(o + Vector::new(2.0, 1.0, 0.5)), 0.25);
    let (d, _, _) = run(&a, &b);
    let exact = distance_capsule_obb(&b, &a);
    // `eps` of the offset is 1.2e-3.
    assert!((d.distance - exact.distance).abs() <= 4e-6 * 1.5e4, "{d:?} {exact:?}");
}

#[test]
fn degenerate_triangles() {
    let p = Point::new(0.5, 0.2, 0.1);
    let point = Triangle::new(p, p, p);
    let line = Triangle::new(Point::new(-1.0, 2.0, 0.0), Point::new(1.0, 2.0, 0.0), Point::new(0.25, 2.0, 0.0));
    let a = cube(Point::origin(), 1.0);
    let s = Sphere::new(Point::new(0.0, 3.0, 0.0), 0.5);
    let (d, i, c) = run(&a, &point);
    assert!(i && d.distance == 0.0 && c.is_some_and(|c| (c.depth - 0.5).abs() < 1e-5));
    let (d, i, c) = run(&a, &line);
    assert!(!i && (d.distance - 1.0).abs() < 1e-6 && c.is_none());
    let (d, _, _) = run(&s, &line);
    assert!((d.distance - 0.5).abs() < 1e-6);
    let (d, _, _) = run(&line, &point);
    assert!((d.distance - distance_triangle_triangle(&line, &point).distance).abs() < 1e-6);
}

#[test]
fn coincident_points_and_flat_differences() {
    // Two zero-size boxes at one point: a Minkowski difference with no volume.
    let p = Obb::new(Point::new(1.0, 2.0, 3.0), Rotation::identity(), Vector::zeros());
    let (d, i, c) = run(&p, &p);
    assert!(i && d.distance == 0.0);
    assert_eq!(c.expect("coincident").depth, 0.0);
    // Coplanar overlapping triangles: depth 0 along the plane's normal.
    let t1 = Triangle::new(Point::new(0.0, 0.0, 0.0), Point::new(2.0, 0.0, 0.0), Point::new(0.0, 2.0, 0.0));
    let t2 = Triangle::new(Point::new(0.5, 0.5, 0.0), Point::new(3.0, 0.5, 0.0), Point::new(0.5, 3.0, 0.0));
    let (d, i, c) = run(&t1, &t2);
    assert!(i && d.distance == 0.0);
    let c = c.expect("overlap");
    assert!(c.depth.abs() <= 1e-6 && c.normal.z.abs() > 0.999, "{c:?}");
    // Concentric spheres: depth r_a + r_b.
    let s = Sphere::new(Point::new(4.0, 0.0, 0.0), 1.0);
    let (_, i, c) = run(&s, &Sphere::new(Point::new(4.0, 0.0, 0.0), 0.5));
    assert!(i && (c.expect("overlap").depth - 1.5).abs() < 1e-6);
}

#[test]
fn zero_direction_and_references() {
    let s = Sphere::new(Point::new(1.0, 2.0, 3.0), 2.0);
    assert_eq!(s.support(&Vector::zeros()), *s.center());
    let k = Capsule::new(Point::origin(), Point::new(0.0, 0.0, 1.0), 0.5);
    assert!(k.support(&Vector::zeros()).iter().all(|x| x.is_finite()));
    // `&T` is a support map too.
    let (a, b) = (cube(Point::origin(), 1.0), &s);
    assert_eq!(distance_convex(&a, &b), distance_convex(&a, &s));
}

#[test]
fn tiny_and_huge_separations() {
    // GJK's search direction is cast to f32 as it is in a middle range and
    // scaled first outside it: boxes at sizes and gaps from 1e-25 (the
    // difference near the origin far below 2^-60) to 4e17 (near the largest
    // coordinates a shape takes). B turns about x only, so its x extent stays 0.6 s
    // and the boxes' faces are 0.3 s apart along x, overlapping in y and z.
    let rot = Rotation::from_euler_angles(0.4, 0.0, 0.0);
    for s in [1e-25f32, 1e-19, 1e-12, 1.0, 1e12, 4e17] {
        let a = Obb::new(Point::origin(), Rotation::identity(), Vector::new(1.0, 0.5, 0.7) * s);
        let b = Obb::new(Point::new(1.9 * s, 0.2 * s, -0.1 * s), rot, Vector::new(0.6, 0.9, 0.4) * s);
        let (d, i, _) = run(&a, &b);
        let exact = (b.center().x - 0.6 * s) - s;
        assert!(!i, "scale {s}");
        assert!((d.distance - exact).abs() <= 1e-5 * exact, "scale {s}: {d:?} {exact}");
        assert!((d.point_a.x - s).abs() <= 1e-5 * s, "scale {s}: {d:?}");
    }
}

#[test]
fn apart_along_the_centres_axis() {
    // Boxes face to face along the line through their centres (the axis
    // the generic queries test before GJK): a gap of 1e-4 of their size
    // (plus of their offset from the origin) keeps them apart, an overlap
    // of as much does not, and the contact's prediction reaches across the
    // gap. (Exact touching is the GJK's touching band, tested against GJK
    // alone in the crate's unit tests.)
    let mut rng = proxima_test_support::rng(0xC3A7);
    let h = Vector::new(1.0, 0.7, 0.4);
    for far in [0.0, 1e3] {
        for _ in 0..2000 {
            let rot = proxima_test_support::gen::rotation(&mut rng);
            let n = rot * Vector::x();
            let c = Point::new(far, -far, far);
            let a = Obb::new(c, rot, h);
            let place = |gap: Real| Obb::new(c + n * (2.0 * h.x + gap), rot, h);
            let (apart, into) = (place(1e-4 * (1.0 + far)), place(-1e-4 * (1.0 + far)));
            assert!(!intersects_convex(&a, &apart) && intersects_convex(&a, &into), "{rot:?} at {far}");
            assert!(contact_convex(&a, &apart, 0.0).is_none(), "{rot:?} at {far}");
            let reach = contact_convex(&a, &apart, 2e-4 * (1.0 + far)).expect("within the prediction");
            let deep = contact_convex(&a, &into, 0.0).expect("overlapping");
            assert!(reach.depth < 0.0 && deep.depth > 0.0, "{reach:?} {deep:?}");
        }
    }
}
