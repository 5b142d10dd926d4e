//! Degenerate cases of the ray casts and swept spheres, one test each:
//! zero-length motion, zero radius (= the ray cast), a ray along a face
//! plane, grazing an edge, `max_toi = 0`, a start inside, a ray parallel to
//! a slab with its origin exactly on the slab plane (no NaN), huge
//! coordinates (1e5 from the origin), and the documented conventions of
//! tangent rays, rays in a plane, degenerate triangles and capsules.
//!
//! Expected values are worked out by hand in the comments (exact in f32 where
//! the inputs are chosen representable), or come from parry3d / the f64
//! oracle of `common` for the randomized parts.

mod common;

use common::*;
use parry3d::query::{Ray as PRay, RayCast};
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay};
use proxima_narrowphase::*;
use proxima_test_support::{convert, gen, rng};

fn p(x: Real, y: Real, z: Real) -> Point {
    Point::new(x, y, z)
}

fn v(x: Real, y: Real, z: Real) -> Vector {
    Vector::new(x, y, z)
}

/// The unit box `[0, 1]^3` as an AABB and as an OBB with identity rotation.
fn unit_box() -> (Aabb, Obb) {
    let a = Aabb::new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0));
    (a, Obb::from_aabb(&a))
}

fn assert_unit(n: &UnitVector) {
    assert!(n.iter().all(|c| c.is_finite()), "non-finite normal {n:?}");
    assert!((n.norm() - 1.0).abs() < 1e-6, "normal not unit: {n:?}");
}

fn assert_close(a: Real, b: Real, tol: Real) {
    assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
}

/// Zero motion: every sweep is the static overlap test.
#[test]
fn zero_length_motion_is_the_static_test() {
    let zero = Vector::zeros();
    let (aabb, obb) = unit_box();
    let tri = Triangle::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    let cap = Capsule::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), 0.25);
    let plane = Plane::try_new(Point::origin(), Vector::z()).unwrap();
    let target = Sphere::new(p(0.5, 0.5, 0.5), 0.5);
    // Overlapping (centre 0.25 outside the box's top face, radius 0.5).
    let s = Sphere::new(p(0.5, 0.5, 1.25), 0.5);
    for hit in [
        cast_sphere_aabb(&s, &zero, &aabb),
        cast_sphere_obb(&s, &zero, &obb),
        cast_sphere_sphere(&s, &zero, &target),
        cast_sphere_moving_sphere(&s, &v(1.0, 2.0, 3.0), &target, &v(1.0, 2.0, 3.0)),
    ] {
        let hit = hit.expect("overlap at rest is Penetrating");
        assert_eq!((hit.toi, hit.status), (0.0, SweepStatus::Penetrating));
        assert_unit(&hit.normal);
    }
    let box_hit = cast_sphere_aabb(&s, &zero, &aabb).unwrap();
    assert_eq!(box_hit.point, p(0.5, 0.5, 1.0)); // nearest box point
    assert_eq!(box_hit.normal.into_inner(), Vector::z());
    let near = Sphere::new(p(0.25, 0.25, 0.3), 0.5);
    for hit in [
        cast_sphere_triangle(&near, &zero, &tri),
        cast_sphere_capsule(&near, &zero, &cap),
        cast_sphere_plane(&near, &zero, &plane),
    ] {
        let hit = hit.expect("overlap at rest");
        assert_eq!((hit.toi, hit.status), (0.0, SweepStatus::Penetrating));
        assert_unit(&hit.normal);
    }
    // Apart: no hit without motion.
    let far = Sphere::new(p(5.0, 5.0, 5.0), 0.5);
    assert!(cast_sphere_aabb(&far, &zero, &aabb).is_none());
    assert!(cast_sphere_obb(&far, &zero, &obb).is_none());
    assert!(cast_sphere_sphere(&far, &zero, &target).is_none());
    assert!(cast_sphere_triangle(&far, &zero, &tri).is_none());
    assert!(cast_sphere_capsule(&far, &zero, &cap).is_none());
    assert!(cast_sphere_plane(&far, &zero, &plane).is_none());
    // A motion whose square underflows counts as zero.
    assert!(cast_sphere_aabb(&far, &v(1e-30, 0.0, 0.0), &aabb).is_none());
    // Non-finite motion: None, documented.
    assert!(cast_sphere_aabb(&s, &v(Real::NAN, 0.0, 0.0), &aabb).is_none());
    assert!(cast_sphere_sphere(&s, &v(Real::INFINITY, 0.0, 0.0), &target).is_none());
}

/// A zero radius sweep is the ray cast `c + toi * motion`, `max_toi = 1`:
/// same hit/miss and toi on random cases (a few hits exactly through a
/// triangle edge may differ by the two tests' rounding; none occur here).
#[test]
fn zero_radius_is_a_ray_cast() {
    let mut rng = rng(0xED6E_0001);
    let place = gen::Placement::new(2.0, 0.2, 1.0);
    let mut hits = 0;
    for _ in 0..20_000 {
        let c = gen::point(&mut rng, &place) * 3.0;
        let motion = (gen::point(&mut rng, &place) - c) * gen::uniform(&mut rng, 0.5, 1.5);
        let pt = Sphere::new(c, 0.0);
        let ray = Ray::new(c, motion, 1.0);
        let aabb = gen::aabb(&mut rng, &place);
        let obb = gen::obb(&mut rng, &place);
        let sph = gen::sphere(&mut rng, &place);
        let cap = gen::capsule(&mut rng, &place);
        let tri = gen::triangle(&mut rng, &place);
        let plane = Plane::try_new(gen::point(&mut rng, &place), gen::unit_vector(&mut rng)).unwrap();
        let pairs = [
            (cast_sphere_aabb(&pt, &motion, &aabb), cast_ray_aabb(&ray, &aabb)),
            (cast_sphere_obb(&pt, &motion, &obb), cast_ray_obb(&ray, &obb)),
            (cast_sphere_sphere(&pt, &motion, &sph), cast_ray_sphere(&ray, &sph)),
            (cast_sphere_capsule(&pt, &motion, &cap), cast_ray_capsule(&ray, &cap)),
            (cast_sphere_triangle(&pt, &motion, &tri), cast_ray_triangle(&ray, &tri)),
            (cast_sphere_plane(&pt, &motion, &plane), cast_ray_plane(&ray, &plane)),
        ];
        for (sweep, ray_hit) in pairs {
            assert_eq!(sweep.is_some(), ray_hit.is_some(), "{sweep:?} vs {ray_hit:?}");
            if let (Some(s), Some(r)) = (sweep, ray_hit) {
                hits += 1;
                // Same arithmetic up to a few roundings: 1e-5 of the motion.
                assert_close(s.toi, r.toi, 1e-5);
                assert_unit(&s.normal);
            }
        }
    }
    assert!(hits > 10_000, "too few hits to mean anything: {hits}");
}

/// A ray sliding exactly in the plane of a face hits the closed box where it
/// enters the face's extent; a sphere sliding on the grown face likewise.
#[test]
fn ray_along_a_face_plane() {
    let (aabb, obb) = unit_box();
    // Origin on the plane y = 1 (the top face), moving along +x.
    let ray = Ray::new(p(-2.0, 1.0, 0.5), Vector::x(), 10.0);
    for hit in [cast_ray_aabb(&ray, &aabb), cast_ray_obb(&ray, &obb)] {
        let hit = hit.expect("the closed box is hit");
        assert_eq!(hit.toi, 2.0);
        assert_eq!(hit.normal.into_inner(), -Vector::x());
    }
    // parry agrees on the toi.
    let ph = convert::aabb(&aabb)
        .cast_ray_and_get_normal(
            &parry3d::math::Pose::identity(),
            &PRay::new(convert::pt(ray.origin()), convert::vec(ray.dir())),
            10.0,
            true,
        )
        .unwrap();
    assert_eq!(ph.time_of_impact, 2.0);
    // A sphere of radius 0.5 whose centre slides at y = 1.5 touches the top
    // edge x = 0 when the centre reaches x = 0: toi = 2 / 4.
    let s = Sphere::new(p(-2.0, 1.5, 0.5), 0.5);
    for hit in [cast_sphere_aabb(&s, &v(4.0, 0.0, 0.0), &aabb), cast_sphere_obb(&s, &v(4.0, 0.0, 0.0), &obb)] {
        let hit = hit.expect("touches the grown face");
        assert_eq!(hit.toi, 0.5);
        assert_eq!(hit.status, SweepStatus::Hit);
        assert_eq!(hit.point, p(0.0, 1.0, 0.5));
        assert_eq!(hit.normal.into_inner(), Vector::y());
    }
    // A ray in a triangle's plane misses (no thickness); in a plane's plane
    // it hits at toi 0 with the plane's normal (documented conventions).
    let tri = Triangle::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    assert!(cast_ray_triangle(&Ray::new(p(-1.0, 0.25, 0.0), Vector::x(), 10.0), &tri).is_none());
    let plane = Plane::try_new(Point::origin(), Vector::z()).unwrap();
    let hit = cast_ray_plane(&Ray::new(p(-1.0, 0.25, 0.0), Vector::x(), 10.0), &plane).unwrap();
    assert_eq!((hit.toi, hit.normal.into_inner()), (0.0, Vector::z()));
}

/// A ray touching only an edge of a closed box hits it there; a sphere whose
/// centre passes exactly at its radius from an edge touches it.
#[test]
fn grazing_an_edge() {
    let (aabb, obb) = unit_box();
    // o + t d = (-1 + t, t, 0.5): at t = 1 it is on the edge x = 0, y = 1 and
    // leaves the box's neighbourhood afterwards (x > 0 needs y > 1).
    let ray = Ray::new(p(-1.0, 0.0, 0.5), v(1.0, 1.0, 0.0), 10.0);
    for hit in [cast_ray_aabb(&ray, &aabb), cast_ray_obb(&ray, &obb)] {
        let hit = hit.expect("the closed box's edge is hit");
        assert_eq!(hit.toi, 1.0);
        let n = hit.normal.into_inner();
        assert!(n == -Vector::x() || n == Vector::y(), "either face of the edge: {n:?}");
    }
    // Sphere r = 0.5 moving along x at height y = 1.5, z = 0.5 grazes nothing
    // before x = 0; moving diagonally it grazes the edge (x=0,y=1): the centre
    // path (-2 + 4t, 1 + 0.5 / sqrt(2) * ..) is built so that its closest
    // approach to the edge line is exactly r at t = 0.5.
    let r = 0.5;
    let off = r / 2f32.sqrt(); // the closest point is (-off, 1 + off) in xy
    let d = v(1.0, 1.0, 0.0); // tangent to the edge's circle at that point
    let start = p(-off, 1.0 + off, 0.5) - d * 0.5;
    let s = Sphere::new(start, r);
    for hit in [cast_sphere_aabb(&s, &d, &aabb), cast_sphere_obb(&s, &d, &obb)].into_iter().flatten() {
        // Tangent: either a touch at toi ~0.5 or a miss by rounding.
        assert!((hit.toi - 0.5).abs() < 1e-3, "{hit:?}");
        assert_unit(&hit.normal);
        assert!((hit.point - p(0.0, 1.0, 0.5)).norm() < 1e-3, "{hit:?}");
    }
    // Moved 1e-4 away from the edge: a clean miss; 1e-4 towards it: a hit
    // whose chord half-length is sqrt(2 r 1e-4) = 0.01 along |d| = sqrt(2),
    // so toi = 0.5 - 0.01 / sqrt(2) = 0.49293.
    let outward = v(-1.0, 1.0, 0.0).normalize() * 1e-4;
    let miss = Sphere::new(start + outward, r);
    assert!(cast_sphere_aabb(&miss, &d, &aabb).is_none());
    assert!(cast_sphere_obb(&miss, &d, &obb).is_none());
    let graze = Sphere::new(start - outward, r);
    for hit in [cast_sphere_aabb(&graze, &d, &aabb), cast_sphere_obb(&graze, &d, &obb)] {
        let hit = hit.expect("grazes the edge");
        assert_close(hit.toi, 0.5 - 0.01 / 2f32.sqrt(), 2e-4);
        assert!((hit.point - p(0.0, 1.0, 0.5)).norm() < 1e-6, "{hit:?}");
    }
    // Exactly tangent ray to a sphere: the line touches at one point, a hit.
    let hit =
        cast_ray_sphere(&Ray::new(p(-5.0, 1.0, 0.0), Vector::x(), 10.0), &Sphere::new(Point::origin(), 1.0)).unwrap();
    assert_eq!(hit.toi, 5.0);
    assert_eq!(hit.normal.into_inner(), Vector::y());
    // Tangent to a capsule's cylinder.
    let cap = Capsule::new(p(0.0, 0.0, -1.0), p(0.0, 0.0, 1.0), 1.0);
    let hit = cast_ray_capsule(&Ray::new(p(-5.0, 1.0, 0.0), Vector::x(), 10.0), &cap).unwrap();
    assert_eq!(hit.toi, 5.0);
    assert_eq!(hit.normal.into_inner(), Vector::y());
    // Through a triangle's edge and vertex: the closed triangle is hit.
    let tri = Triangle::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    assert_eq!(cast_ray_triangle(&Ray::new(p(0.5, 0.0, 1.0), -Vector::z(), 2.0), &tri).unwrap().toi, 1.0);
    assert_eq!(cast_ray_triangle(&Ray::new(p(0.0, 0.0, 1.0), -Vector::z(), 2.0), &tri).unwrap().toi, 1.0);
    assert!(cast_ray_triangle(&Ray::new(p(0.5, -1e-6, 1.0), -Vector::z(), 2.0), &tri).is_none());
}

/// `max_toi = 0`: a hit only for an origin inside (or on) the shape.
#[test]
fn max_toi_zero() {
    let (aabb, obb) = unit_box();
    let sph = Sphere::new(p(0.5, 0.5, 0.5), 0.5);
    let cap = Capsule::new(p(0.5, 0.5, 0.0), p(0.5, 0.5, 1.0), 0.5);
    let tri = Triangle::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    let plane = Plane::try_new(Point::origin(), Vector::z()).unwrap();
    let outside = Ray::new(p(-1.0, 0.5, 0.5), Vector::x(), 0.0);
    assert!(cast_ray_aabb(&outside, &aabb).is_none());
    assert!(cast_ray_obb(&outside, &obb).is_none());
    assert!(cast_ray_sphere(&outside, &sph).is_none());
    assert!(cast_ray_capsule(&outside, &cap).is_none());
    let inside = Ray::new(p(0.5, 0.5, 0.5), Vector::x(), 0.0);
    for hit in [
        cast_ray_aabb(&inside, &aabb),
        cast_ray_obb(&inside, &obb),
        cast_ray_sphere(&inside, &sph),
        cast_ray_capsule(&inside, &cap),
    ] {
        let hit = hit.expect("origin inside");
        assert_eq!((hit.toi, hit.normal.into_inner()), (0.0, -Vector::x()));
    }
    // On the surface (closed shapes, flat shapes): toi 0.
    let on = Ray::new(p(0.25, 0.25, 0.0), Vector::z(), 0.0);
    assert_eq!(cast_ray_triangle(&on, &tri).unwrap().toi, 0.0);
    assert_eq!(cast_ray_plane(&on, &plane).unwrap().toi, 0.0);
    assert_eq!(cast_ray_aabb(&on, &aabb).unwrap().toi, 0.0);
    // Just off the flat shapes: a miss.
    let off = Ray::new(p(0.25, 0.25, 0.5), -Vector::z(), 0.0);
    assert!(cast_ray_triangle(&off, &tri).is_none());
    assert!(cast_ray_plane(&off, &plane).is_none());
}

/// A ray starting inside a solid: toi 0 and normal `-dir / |dir|`, also
/// checked against parry's toi on random rays; a sweep starting inside is
/// Penetrating with the nearest face.
#[test]
fn ray_starting_inside() {
    let mut rng = rng(0xED6E_0002);
    let place = gen::Placement::new(5.0, 0.5, 2.0);
    for _ in 0..10_000 {
        let obb = gen::obb(&mut rng, &place);
        let sph = gen::sphere(&mut rng, &place);
        let cap = gen::capsule(&mut rng, &place);
        let dir = gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.1, 10.0);
        let back = -dir.normalize();
        let local = Vector::from_fn(|i, _| gen::uniform(&mut rng, -0.99, 0.99) * obb.half_extents()[i]);
        let origin = obb.to_world(&local);
        let hit = cast_ray_obb(&Ray::new(origin, dir, 1.0), &obb).expect("inside");
        assert_eq!(hit.toi, 0.0);
        assert!((hit.normal.into_inner() - back).norm() < 1e-6);
        let (pose, cuboid) = convert::cuboid(&obb);
        let ph = cuboid.cast_ray_and_get_normal(&pose, &PRay::new(convert::pt(&origin), convert::vec(&dir)), 1.0, true);
        assert_eq!(ph.map(|h| h.time_of_impact), Some(0.0));
        let inner = sph.center() + gen::unit_vector(&mut rng) * sph.radius() * 0.99;
        let hit = cast_ray_sphere(&Ray::new(inner, dir, 1.0), &sph).expect("inside");
        assert_eq!(hit.toi, 0.0);
        assert!((hit.normal.into_inner() - back).norm() < 1e-6);
        let on_axis = cap.a() + (cap.b() - cap.a()) * gen::uniform(&mut rng, 0.0, 1.0);
        let hit = cast_ray_capsule(&Ray::new(on_axis, dir, 1.0), &cap).expect("inside");
        assert_eq!(hit.toi, 0.0);
        assert!((hit.normal.into_inner() - back).norm() < 1e-6);
    }
    // Sweep starting with the centre inside the box: the nearest face.
    let (aabb, obb) = unit_box();
    let s = Sphere::new(p(0.5, 0.9, 0.5), 0.1);
    for hit in [cast_sphere_aabb(&s, &v(1.0, 0.0, 0.0), &aabb), cast_sphere_obb(&s, &v(1.0, 0.0, 0.0), &obb)] {
        let hit = hit.unwrap();
        assert_eq!((hit.toi, hit.status), (0.0, SweepStatus::Penetrating));
        assert_eq!(hit.normal.into_inner(), Vector::y());
        assert!((hit.point - p(0.5, 1.0, 0.5)).norm() < 1e-6);
    }
    // Coincident sphere centres: the normal is against the motion.
    let hit =
        cast_sphere_sphere(&Sphere::new(Point::origin(), 1.0), &v(2.0, 0.0, 0.0), &Sphere::new(Point::origin(), 1.0))
            .unwrap();
    assert_eq!(hit.normal.into_inner(), -Vector::x());
}

/// A ray parallel to a slab (`dir` component `+0` or `-0`) with its origin
/// exactly on that slab's plane: the `0 * inf = NaN` of the slab test is
/// ignored, the closed box is hit, and no NaN reaches the result.
#[test]
fn parallel_to_a_slab_with_origin_on_the_slab_plane() {
    let aabb = Aabb::new(p(1.0, -1.0, -1.0), p(3.0, 1.0, 1.0));
    let obb = Obb::from_aabb(&aabb);
    for zero in [0.0, -0.0] {
        for y in [-1.0, 1.0] {
            let ray = Ray::new(p(0.0, y, 0.25), v(2.0, zero, zero), 10.0);
            for hit in [cast_ray_aabb(&ray, &aabb), cast_ray_obb(&ray, &obb)] {
                let hit = hit.expect("sliding on the face plane hits the closed box");
                assert_eq!(hit.toi, 0.5);
                assert_eq!(hit.normal.into_inner(), -Vector::x());
            }
            let interval = ray_aabb_interval(&PrecomputedRay::new(&ray), &aabb).unwrap();
            assert_eq!((interval.toi_enter, interval.toi_exit), (0.5, 1.5));
            // Outside the other slab: a clean miss, no NaN.
            let away = Ray::new(p(0.0, y, 1.5), v(2.0, zero, zero), 10.0);
            assert!(cast_ray_aabb(&away, &aabb).is_none());
            assert!(cast_ray_obb(&away, &obb).is_none());
            // The sweep's grown box has its planes at y = ±1 ± r.
            let s = Sphere::new(p(0.0, y * 1.5, 0.25), 0.5);
            for hit in
                [cast_sphere_aabb(&s, &v(2.0, zero, zero), &aabb), cast_sphere_obb(&s, &v(2.0, zero, zero), &obb)]
            {
                let hit = hit.expect("sliding on the grown face plane touches");
                assert!(hit.toi.is_finite() && hit.point.iter().all(|c| c.is_finite()));
                assert_eq!(hit.toi, 0.5);
                assert_unit(&hit.normal);
            }
        }
    }
    // Origin on a slab plane, inside the box otherwise, direction parallel
    // to that slab: inside, toi 0.
    let hit = cast_ray_aabb(&Ray::new(p(2.0, 1.0, 0.0), v(1.0, 0.0, 0.0), 10.0), &aabb).unwrap();
    assert_eq!((hit.toi, hit.normal.into_inner()), (0.0, -Vector::x()));
}

/// Huge coordinates: everything 1e5 from the origin. With representable
/// inputs (multiples of 1/128, the f32 spacing at 1e5) the answers equal
/// those of the same case moved to the origin; random cases there agree with
/// the f64 oracle within the conditioned bound `64 eps * 1e5 / (|m| cos)`.
#[test]
fn huge_coordinates() {
    let far = v(1e5, -1e5, 1e5);
    let at = |q: Point, shift: bool| if shift { q + far } else { q };
    let run = |shift: bool| {
        let aabb = Aabb::new(at(p(0.0, 0.0, 0.0), shift), at(p(2.0, 2.0, 2.0), shift));
        let obb = Obb::from_aabb(&aabb);
        let sph = Sphere::new(at(p(1.0, 1.0, 1.0), shift), 1.0);
        let cap = Capsule::new(at(p(1.0, 1.0, 0.0), shift), at(p(1.0, 1.0, 2.0), shift), 0.5);
        let tri = Triangle::new(at(p(0.0, 0.0, 1.0), shift), at(p(2.0, 0.0, 1.0), shift), at(p(0.0, 2.0, 1.0), shift));
        let ray = Ray::new(at(p(-3.0, 0.5, 0.75), shift), v(1.0, 0.125, 0.0625), 10.0);
        let s = Sphere::new(at(p(-3.0, 0.5, 0.75), shift), 0.5);
        let m = v(6.0, 0.25, 0.125);
        let down = Ray::new(at(p(0.5, 0.25, 5.0), shift), v(0.0, 0.0, -1.0), 10.0);
        [
            cast_ray_aabb(&ray, &aabb).map(|h| h.toi),
            cast_ray_obb(&ray, &obb).map(|h| h.toi),
            cast_ray_sphere(&ray, &sph).map(|h| h.toi),
            cast_ray_capsule(&ray, &cap).map(|h| h.toi),
            cast_ray_triangle(&down, &tri).map(|h| h.toi),
            cast_sphere_aabb(&s, &m, &aabb).map(|h| h.toi),
            cast_sphere_obb(&s, &m, &obb).map(|h| h.toi),
            cast_sphere_sphere(&s, &m, &sph).map(|h| h.toi),
            cast_sphere_capsule(&s, &m, &cap).map(|h| h.toi),
        ]
    };
    let near = run(false);
    let far_results = run(true);
    // Box entry: x = 0 from x = -3 with |dir.x| = 1: toi 3 (ray), and for the
    // sweep (3 - 0.5) / 6.
    assert_eq!(near[0], Some(3.0));
    assert_close(near[5].unwrap(), 2.5 / 6.0, 1e-6);
    for (a, b) in near.iter().zip(far_results.iter()) {
        let (a, b) = (a.expect("hit at the origin"), b.expect("hit at 1e5"));
        // The differences are computed exactly; only divisions round.
        assert!((a - b).abs() <= 4.0 * Real::EPSILON * a.max(1.0), "{a} vs {b}");
    }
    // Random sweeps against boxes 1e5 from the origin, against the oracle.
    let mut rng = rng(0xED6E_0003);
    let place = gen::Placement::new(2.0, 0.2, 1.0).at(Point::from(far));
    let mut hits = 0;
    for _ in 0..20_000 {
        let obb = gen::obb(&mut rng, &place);
        let start = obb.center() + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 1.0, 6.0);
        let target = obb.center() + gen::unit_vector(&mut rng) * gen::uniform(&mut rng, 0.0, 2.0);
        let motion = target - start;
        let r = gen::uniform(&mut rng, 0.05, 0.5);
        let ours = cast_sphere_obb(&Sphere::new(start, r), &motion, &obb);
        let exact = first_contact(&BoxF::from_obb(&obb), &p64(&start), &v64(&motion), r as f64, 1.0);
        let s = 1.8e5;
        let m = v64(&motion).norm();
        match (exact, ours) {
            (Oracle::Hit { t, slope, depth }, Some(h)) => {
                hits += 1;
                let cos = slope / m;
                let bound = (64.0 * f32::EPSILON as f64 * s / (m * cos.max(1e-3))).max(1e-5);
                assert!((h.toi as f64 - t).abs() <= bound || depth < 1e-5 * s, "{h:?} vs {t}");
            }
            (Oracle::Start { .. }, Some(h)) => assert_eq!(h.toi, 0.0),
            (Oracle::Miss { .. }, None) => {}
            (exact, ours) => {
                // Only within the tangency band of 1e-5 * S.
                let margin = match exact {
                    Oracle::Miss { margin } => margin,
                    Oracle::Hit { depth, .. } => depth,
                    Oracle::Start { depth } => depth,
                };
                assert!(margin <= 1e-5 * s, "{exact:?} vs {ours:?}");
            }
        }
    }
    assert!(hits > 5_000);
}

/// Degenerate shapes: a zero-area triangle misses rays (and sweeps as its
/// edges); a capsule with `a == b` is a sphere; a flat box is a rectangle.
#[test]
fn degenerate_shapes() {
    let sliver = Triangle::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(2.0, 0.0, 0.0));
    assert!(cast_ray_triangle(&Ray::new(p(0.5, 0.0, 1.0), -Vector::z(), 2.0), &sliver).is_none());
    let hit = cast_sphere_triangle(&Sphere::new(p(0.5, 0.0, 2.0), 0.5), &v(0.0, 0.0, -2.0), &sliver).unwrap();
    assert_close(hit.toi, 0.75, 1e-6); // the segment is reached at z = 0.5
    assert_eq!(hit.normal.into_inner(), Vector::z());
    let ball = Capsule::new(p(1.0, 0.0, 0.0), p(1.0, 0.0, 0.0), 0.5);
    let hit = cast_ray_capsule(&Ray::new(p(-1.0, 0.0, 0.0), Vector::x(), 5.0), &ball).unwrap();
    assert_eq!(hit.toi, 1.5);
    let flat = Obb::new(p(0.0, 0.0, 2.0), Rotation::identity(), v(1.0, 1.0, 0.0));
    let hit = cast_ray_obb(&Ray::new(Point::origin(), Vector::z(), 5.0), &flat).unwrap();
    assert_eq!((hit.toi, hit.normal.into_inner()), (2.0, -Vector::z()));
    let hit = cast_sphere_obb(&Sphere::new(Point::origin(), 0.5), &v(0.0, 0.0, 3.0), &flat).unwrap();
    assert_close(hit.toi, 0.5, 1e-6);
    // Zero-radius capsule = segment: a ray through it exactly hits.
    let seg = Capsule::new(p(0.0, -1.0, 0.0), p(0.0, 1.0, 0.0), 0.0);
    let hit = cast_ray_capsule(&Ray::new(p(-1.0, 0.0, 0.0), Vector::x(), 5.0), &seg).unwrap();
    assert_eq!(hit.toi, 1.0);
    assert_unit(&hit.normal);
}
