//! Bugs found by fuzzing and the seeded suites, each reduced to a minimal input
//! (numbered as in TESTING.md, "Bugs"). Every test asserts the
//! documented behaviour and failed before its bug was fixed; all of them are
//! fixed, so none is ignored, and the fuzz target checks these inputs'
//! neighbourhoods with no guard.

use proxima_narrowphase::kernels::{cast_ray_aabb_x8, ray_aabb_interval, AabbX8, PrecomputedRay};
use proxima_narrowphase::*;

fn p(x: Real, y: Real, z: Real) -> Point {
    Point::new(x, y, z)
}

fn v(x: Real, y: Real, z: Real) -> Vector {
    Vector::new(x, y, z)
}

/// B1: a valid shape reaching past `f32::MAX` got an infinite box, which
/// `Aabb`'s invariant (finite corners) forbids and `is_valid` rejects. Shapes
/// are now bounded by `MAX_COORDINATE` (1e18): at the bound their boxes are
/// finite and contain them; beyond it the constructors return `TooLarge`.
/// `Aabb::loosened` (tree margins) still saturates at `f32::MAX`.
#[test]
fn b1_shape_boxes_stay_finite() {
    let m = MAX_COORDINATE;
    let s = Sphere::new(p(m, 0.0, 0.0), m);
    assert!(s.aabb().is_valid() && s.aabb().max().x == 2.0 * m, "Sphere::aabb = {:?}", s.aabb());
    let c = Capsule::new(p(0.0, m, 0.0), p(0.0, -m, 0.0), m);
    assert!(c.aabb().is_valid() && c.aabb().max().y == 2.0 * m, "Capsule::aabb = {:?}", c.aabb());
    let o = Obb::new(p(-m, 0.0, 0.0), Rotation::from_euler_angles(0.3, 0.2, 0.1), v(m, m, m));
    assert!(o.aabb().is_valid(), "Obb::aabb = {:?}", o.aabb());
    let too = ShapeError::TooLarge;
    assert_eq!(Sphere::try_new(p(3e38, 0.0, 0.0), 1e38), Err(too("sphere centre or radius")));
    assert_eq!(Sphere::try_new(p(0.0, 0.0, 0.0), f32::MAX), Err(too("sphere centre or radius")));
    assert_eq!(Capsule::try_new(p(0.0, 3e38, 0.0), p(0.0, 3e38, 0.0), 1.0), Err(too("capsule endpoint or radius")));
    let big = Obb::try_new(p(0.0, 0.0, 0.0), Rotation::identity(), v(1.0, 1.0, 1.1e18));
    assert_eq!(big, Err(too("obb centre or half-extents")));
    let a = Aabb::new(p(0.0, 0.0, 0.0), p(3e38, 1.0, 1.0));
    assert!(a.loosened(1e38).is_valid(), "Aabb::loosened = {:?}", a.loosened(1e38));
    // The same for a margin per axis; a margin that is not a finite
    // non-negative number leaves its axis unchanged, the others still grow.
    let g = a.loosened_per_axis(&v(1e38, 0.5, 3e38));
    assert!(g.is_valid() && g.max().x == f32::MAX && g.min().z == -3e38, "{g:?}");
    assert!(g.contains_aabb(&a));
    for (axis, bad) in [(0, v(f32::NAN, 1.0, 1.0)), (1, v(1.0, -1.0, 1.0)), (2, v(1.0, 1.0, f32::INFINITY))] {
        let h = a.loosened_per_axis(&bad);
        assert!(h.is_valid() && h.contains_aabb(&a), "{h:?}");
        for k in 0..3 {
            let kept = (h.min()[k] == a.min()[k]) && (h.max()[k] == a.max()[k]);
            assert_eq!(kept, k == axis, "axis {k} of {h:?}");
        }
    }
}

/// B2: `Plane::try_new` accepts "any non-zero length" normal, but
/// normalises in f32: `|n|^2` overflows for `|n| > ~1.8e19` (zero normal)
/// and underflows for `|n| < ~1e-19` (rejected, or a non-unit normal).
#[test]

fn b2_plane_normal_of_any_nonzero_length() {
    let huge = Plane::try_new(p(0.0, 0.0, 0.0), v(1e20, 0.0, 0.0)).expect("valid plane");
    assert_eq!(huge.normal().into_inner(), v(1.0, 0.0, 0.0), "huge normal");
    let tiny = Plane::try_new(p(0.0, 0.0, 0.0), v(1e-30, 0.0, 0.0)).expect("a non-zero normal is valid");
    assert_eq!(tiny.normal().into_inner(), v(1.0, 0.0, 0.0), "tiny normal");
    let sub = Plane::try_new(p(0.0, 0.0, 0.0), v(6.375488e-23, 0.0, 3.170898e-23)).expect("valid plane");
    assert!((sub.normal().norm() - 1.0).abs() < 1e-5, "subnormal |n|^2: normal {:?}", sub.normal());
}

/// B3: a zero-radius capsule (a segment) passing through a thin box is
/// reported apart: the rounded segment-box distance (~1e-6) exceeds the
/// radius. `contact_capsule_obb` (which decides with an exact slab test)
/// finds the contact; 397 of 100,001 samples of the segment lie inside the box.
#[test]
fn b3_segment_through_thin_box_intersects() {
    let c = Capsule::new(p(-4.7441406, -5.217285, 14.096191), p(-13.338379, 4.0581055, 4.6416016), 0.0);
    let q = nalgebra::Quaternion::new(-0.40295628, 0.77001274, 0.14826456, -0.47193682);
    let o =
        Obb::new(p(-12.715332, 1.0161133, 6.7338867), Rotation::new_unchecked(q), v(0.013906251, 4.51416, 5.181885));
    let inside = (0..=100_000).filter(|i| o.contains_point(&(c.a() + (c.b() - c.a()) * (*i as f32 / 1e5)))).count();
    assert!(inside > 0, "the segment crosses the box");
    assert!(contact_capsule_obb(&c, &o).is_some());
    assert!(intersects_capsule_obb(&c, &o), "intersects_capsule_obb disagrees with contact_capsule_obb");
}

/// B6: a ray starting inside a solid reports `-dir / |dir|`, computed in f32:
/// NaN/infinite when `|dir|^2` underflows, zero when it overflows; the
/// sweeps' fallback normal `-motion / |motion|` likewise (length 1.015 for a
/// motion of 1.4e-22).
#[test]
fn b6_inside_start_normal_is_unit() {
    let s = Sphere::new(p(0.0, 0.0, 0.0), 1.0);
    for d in [1e-25, 1e20] {
        let ray = Ray::new(p(0.0, 0.0, 0.0), v(d, 0.0, 0.0), 1.0);
        let hit = cast_ray_sphere(&ray, &s).expect("inside: toi 0");
        assert_eq!(hit.normal.into_inner(), v(-1.0, 0.0, 0.0), "dir {d}: normal {:?}", hit.normal);
    }
    // The sweeps' fallback for coincident centres, `-motion / |motion|`.
    let hit = cast_sphere_sphere(&s, &v(0.0, 1.3701171e-22, 0.0), &s).expect("penetrating");
    assert!((hit.normal.norm() - 1.0).abs() < 1e-4, "sweep normal {:?}", hit.normal);
}

/// B7: `cast_ray_sphere` and `cast_ray_capsule` solve quadratics in
/// `|dir|^2`: a ray with a tiny direction (1e-24, valid for `Ray::try_new`)
/// that passes through the sphere gets a hit far off the surface, and a
/// huge direction (|dir| ~ 1e19) gives a NaN toi.
#[test]
fn b7_ray_quadratics_at_extreme_direction_lengths() {
    let s = Sphere::new(p(10.0, 0.0, 0.0), 1.0);
    let tiny = Ray::new(p(0.0, 0.0, 0.0), v(1e-24, 0.0, 0.0), f32::INFINITY);
    let hit = cast_ray_sphere(&tiny, &s).expect("the ray goes through the sphere");
    let x = hit.toi as f64 * 1e-24;
    assert!((x - 9.0).abs() < 1e-3, "tiny dir: hit at x = {x}, expected 9");
    let c = Capsule::new(p(1177.0, -1157.0, 1544.0), p(1180.0, -1160.0, 1550.0), 1.0);
    let huge = Ray::new(p(1177.1484, -1156.7871, 1544.0918), v(-6.6372074e18, -1.0182618e19, -5.5766603e18), 14.771484);
    if let Some(h) = cast_ray_capsule(&huge, &c) {
        assert!(h.toi >= 0.0 && h.toi <= huge.max_toi(), "huge dir: toi {}", h.toi);
    }
}

/// B10: the sweeps only reject NaN/infinite motions; a finite motion of
/// 1e20 overflows their squared products and `cast_sphere_sphere` /
/// `cast_sphere_capsule` returned a hit with a NaN toi and status `Hit`.
/// (The fuzz input's shapes at 1e20 and radii of 1e30 are now rejected by
/// `MAX_COORDINATE`; shapes at the bound with long motions keep the case.)
#[test]
fn b10_sweep_tois_stay_in_range_for_long_motions() {
    let target = Sphere::new(p(0.0, 0.0, 0.0), 1.0);
    let cap = Capsule::new(p(-500.0, 1600.0, -600.0), p(500.0, -1600.0, 600.0), 0.0);
    let s = Sphere::new(p(MAX_COORDINATE, 0.0, 0.0), 0.9);
    for motion in [1e20f32, 1e30] {
        let m = v(-motion, 0.0, 0.0);
        for (name, hit) in
            [("sphere", cast_sphere_sphere(&s, &m, &target)), ("capsule", cast_sphere_capsule(&s, &m, &cap))]
        {
            // The touching interval of toi (1.8 / |motion|) is far below the
            // f32 spacing of toi: a hit or a miss are both right, a NaN is not.
            if let Some(h) = hit {
                assert!((0.0..=1.0).contains(&h.toi), "{name}, motion {motion:e}: toi {}", h.toi);
                assert!((h.normal.norm() - 1.0).abs() < 1e-4, "{name}: normal {:?}", h.normal);
            }
        }
    }
    // Radii at the bound: the squared sizes times |motion|^2 leave f32 too.
    let r = MAX_COORDINATE;
    let s = Sphere::new(p(0.9, r, r), r);
    let c = Capsule::new(p(0.0, r, -r), p(0.0, r, r), r);
    let h = cast_sphere_capsule(&s, &v(1e7, 1e7, 1e7), &c).expect("overlapping at the start");
    assert_eq!(h.toi, 0.0);
    assert!((h.normal.norm() - 1.0).abs() < 1e-4, "normal {:?}", h.normal);
    // Box sweeps over a motion of 1e20.
    let b = Aabb::new(p(-1.0, -1.0, -1.0), p(1.0, 1.0, 1.0));
    let s = Sphere::new(p(MAX_COORDINATE, 0.0, 0.0), 0.9);
    for (name, hit) in [
        ("aabb", cast_sphere_aabb(&s, &v(-1e20, 0.0, 0.0), &b)),
        ("obb", cast_sphere_obb(&s, &v(-1e20, 0.0, 0.0), &Obb::from_aabb(&b))),
    ] {
        let h = hit.expect("the sphere sweeps through the box");
        assert!((0.0..=1.0).contains(&h.toi), "{name}: toi {}", h.toi);
        assert!((h.normal.into_inner() - v(1.0, 0.0, 0.0)).norm() < 1e-4, "{name}: normal {:?}", h.normal);
    }
}

/// B11 (contract, passes in the standard build): the SIMD box kernels
/// promise the scalar slab test's entry parameter bit for bit, and the scalar
/// kernel's is never -0.0. Under cargo-fuzz's compiler flags
/// `ray_aabb_interval` returned -0.0 here (`f32::max(0.0, -0.0)` may return
/// either zero), the x8 kernel +0.0.
#[test]
fn b11_entry_at_origin_is_positive_zero() {
    let ray = Ray::new(p(0.0, 0.0, 0.0), v(-61.25, -60.2, -60.2), 24.1);
    let b = Aabb::new(p(0.0, 0.0, 0.0), p(0.0, 0.0, 0.0));
    let pre = PrecomputedRay::new(&ray);
    let t = ray_aabb_interval(&pre, &b).expect("the origin is on the box").toi_enter;
    assert_eq!(t.to_bits(), 0.0f32.to_bits(), "entry {t:?}");
    let lanes = cast_ray_aabb_x8(&pre, &AabbX8::from_boxes(&[b]), 24.1);
    assert_eq!(lanes.toi[0].to_bits(), t.to_bits());
}

/// B13: a degenerate triangle whose first two vertices coincide (`a == b`,
/// common in meshes) makes `closest_point_triangle` return NaN for points
/// beside its one edge: `distance_point_triangle` is NaN, `intersects_sphere_triangle`
/// reports apart a sphere that contains part of the triangle, and
/// `cast_sphere_triangle` returns a hit with a NaN point. The same triangle
/// with its vertices rotated (`a == c` or `b == c`) works.
#[test]

fn b13_triangle_with_equal_first_vertices() {
    let t = Triangle::new(p(0.0, 0.0, 0.0), p(0.0, 0.0, 0.0), p(-5.625, 0.0, 0.0));
    let q = closest_point_triangle(&p(-1.0, 1.0, 0.0), &t);
    assert_eq!(q, p(-1.0, 0.0, 0.0), "closest point");
    let s = Sphere::new(p(-0.00048828125, -0.00048828125, -0.00048828125), 1.0622559);
    assert!(intersects_sphere_triangle(&s, &t), "the sphere contains the triangle's vertex a");
    let hit = cast_sphere_triangle(&Sphere::new(p(-2.0, 3.0, 0.0), 0.5), &v(0.0, -6.0, 0.0), &t).expect("hits");
    assert!(hit.point.iter().all(|x| x.is_finite()), "sweep point {:?}", hit.point);
}

/// B14: `closest_points_segment_segment` computes Ericson's denominator as
/// `a e - b^2`, which cancels for nearly parallel segments: two segments of
/// length ~12 that share an endpoint, 1e-3 rad apart, get a closest pair
/// 1.2e-3 apart (true distance 0), so two capsules of radius 1e-4 touching
/// at that endpoint are reported apart and capsule-capsule depths are off by
/// 1.2e-3. (`|d1 x d2|^2`, the Lagrange identity used by the ray casts,
/// keeps the denominator accurate.)
#[test]
fn b14_nearly_parallel_segments_sharing_an_endpoint() {
    let (a0, b0) = (p(13.678223, 0.053222656, 0.0), p(10.617676, 0.03173828, 0.0));
    let ClosestPoints { point_a: s, point_b: t } =
        closest_points_segment_segment(&a0, &p(0.0, 0.0, 0.0), &b0, &p(0.0, 0.0, 0.0));
    assert!((s - t).norm() < 1e-5, "closest pair {s:?} {t:?} is {} apart", (s - t).norm());
    let (x, y) = (Capsule::new(a0, p(0.0, 0.0, 0.0), 1e-4), Capsule::new(b0, p(0.0, 0.0, 0.0), 1e-4));
    assert!(intersects_capsule_capsule(&x, &y), "capsules touching at a shared endpoint");
}

/// B15: a ray through a zero-radius capsule (a segment) must get the
/// documented normal `-dir / |dir|`; the kernel normalises the rounding
/// residue of `hit - axis point` instead, here `(0, 0.707, 0.707)`, which
/// faces away from the ray.
#[test]
fn b15_zero_radius_capsule_normal() {
    let c = Capsule::new(p(0.044921875, 0.0, 0.0), p(0.0, 0.0, 0.0), 0.0);
    let ray = Ray::new(p(-8.59668, -8.533691, -8.533691), v(1.8969727, 1.8823242, 1.8823242), f32::INFINITY);
    let hit = cast_ray_capsule(&ray, &c).expect("the ray passes through the segment");
    let back = -ray.dir().normalize();
    assert!((hit.normal.into_inner() - back).norm() < 1e-5, "normal {:?}, expected {back:?}", hit.normal);
    // A zero-radius sphere (a point) on the ray: the same documented normal.
    let s = Sphere::new(p(11.071289, 11.042969, 11.042969), 0.0);
    let ray = Ray::new(p(11.042969, 11.042969, 11.042969), v(0.16796875, 0.0, 0.0), f32::INFINITY);
    let hit = cast_ray_sphere(&ray, &s).expect("the ray passes through the point");
    assert_eq!(hit.normal.into_inner(), v(-1.0, 0.0, 0.0), "zero-radius sphere normal");
}

/// B16: two cubes touching at a corner region, one rotated by ~1e-4 rad:
/// `contact_obb_obb(a, b)` returns witness points 0.099 (a box width) apart
/// along z while the normal is along -y and the depth 1.5e-8, against the
/// documented `point_a - point_b = depth * normal`. (Nearly parallel edges;
/// possibly the segment-segment inaccuracy of B14, or the support-feature tie
/// rule.)
#[test]
#[allow(clippy::approx_constant)] // the fuzz input's exact quaternion, not 1/sqrt(2)
fn b16_obb_witness_points_are_depth_times_normal_apart() {
    let qa = nalgebra::Quaternion::new(-3.4825985e-5, -3.4825985e-5, -0.7071068, -0.7071068);
    let a = Obb::new(
        p(-0.00039062498, -4.8828124e-6, -4.8828124e-6),
        Rotation::new_unchecked(qa),
        v(0.04957031, 0.04957031, 0.04957031),
    );
    let qb = nalgebra::Quaternion::new(-0.5, -0.5, -0.5, -0.5);
    let b = Obb::new(
        p(-0.09914062, -0.09914062, -0.09914062),
        Rotation::new_unchecked(qb),
        v(0.04957031, 0.04957031, 0.04957031),
    );
    for (x, y) in [(&a, &b), (&b, &a)] {
        let c = contact_obb_obb(x, y).expect("touching");
        let gap = c.point_a - c.point_b - c.normal.into_inner() * c.depth;
        assert!(gap.norm() < 1e-5, "{c:?}: point_a - point_b - depth n = {gap:?}");
        let m = contact_manifold_obb_obb(x, y, 0.0).expect("touching");
        for p in m.points() {
            let gap = p.point_a - p.point_b - m.normal.into_inner() * p.depth;
            assert!(gap.norm() < 1e-5, "manifold {p:?}: point_a - point_b - depth n = {gap:?}");
        }
    }
}

/// B17: `SAT_ABS_EPSILON` (1e-6, added to every `|R_ij|`) is documented to
/// make boxes "separated by less than 1e-6 * (sum of half-extents)" report a
/// touch (0.35 here). On an edge axis of length `s` (edges ~0.002 rad from
/// parallel) the band is divided by `s`: these cubes are 24 units apart (by
/// the 15-axis SAT in f64 on the boxes' own axes) and "intersect".
#[test]
fn b17_obb_epsilon_band_is_bounded() {
    let h = v(57727.05, 57727.05, 57727.05);
    let a = Obb::new(p(-115454.1, 34.179688, 0.0), Rotation::identity(), h);
    let q = nalgebra::Quaternion::new(-0.4994605, -0.4994605, -0.50161505, -0.4994605);
    let b = Obb::new(p(-115454.1, -115454.1, -115454.1), Rotation::new_unchecked(q), h);
    // The separation along the best of the 15 axes, in f64.
    let (ca, cb) = (a.center().coords.cast::<f64>(), b.center().coords.cast::<f64>());
    let axes = |o: &Obb| [0, 1, 2].map(|i| o.axes().column(i).into_owned().cast::<f64>());
    let (aa, ab) = (axes(&a), axes(&b));
    let mut candidates: Vec<nalgebra::Vector3<f64>> = aa.iter().chain(ab.iter()).copied().collect();
    for x in &aa {
        for y in &ab {
            candidates.push(x.cross(y));
        }
    }
    let gap = candidates
        .iter()
        .filter(|l| l.norm() > 1e-6)
        .map(|l| {
            let l = l / l.norm();
            let ra: f64 = aa.iter().map(|x| 57727.05 * x.dot(&l).abs()).sum();
            let rb: f64 = ab.iter().map(|x| 57727.05 * x.dot(&l).abs()).sum();
            (cb - ca).dot(&l).abs() - ra - rb
        })
        .fold(f64::NEG_INFINITY, f64::max);
    let documented_band = 1e-6 * 6.0 * 57727.05;
    assert!(gap > 20.0 * documented_band, "separated by {gap}");
    assert!(!intersects_obb_obb(&a, &b), "boxes {gap} apart (band {documented_band}) reported intersecting");
    let aabb = Aabb::new(a.center() - h, a.center() + h);
    assert!(!intersects_aabb_obb(&aabb, &b), "intersects_aabb_obb: boxes {gap} apart reported intersecting");
    assert!(contact_obb_obb(&a, &b).is_none());
}

/// B18: on a sliver triangle (sine of the angle at `a` about 1.2e-3),
/// `closest_point_triangle` returns a point 1.3e-6 from `p` that is not on
/// the triangle: in exact rational arithmetic `p` projects inside the face at
/// distance 3.83e-4. `distance_point_triangle` and `cast_sphere_triangle` (whose
/// hit point and toi come from it) are off by as much.
#[test]
fn b18_sliver_triangle_distance() {
    let t = Triangle::new(
        p(-0.00048828125, 11.999512, 10.791992),
        p(-10.833008, -10.79248, -10.790527),
        p(-10.79248, -10.79248, -10.79248),
    );
    let q = p(-10.79759, -10.790576, -10.790921);
    // The exact distance, computed in rational arithmetic from these f32
    // values: the projection onto the plane is inside the triangle.
    let exact = 3.831_340_243_6e-4;
    let d = distance_point_triangle(&q, &t) as f64;
    assert!((d - exact).abs() < 1e-6, "distance_point_triangle {d}, exact {exact}");
}

/// B19: `Plane::try_new` computes the offset `n . p` in f32 and rejects it as
/// `NonFinite("plane offset")` when a partial sum overflows, although the
/// offset itself (1.94e38 here) is finite.
#[test]
fn b19_plane_offset_partial_sum_overflow() {
    let m = f32::MAX;
    let r = Plane::try_new(p(m, m, m), v(9.337402, 9.537109, -9.537598));
    assert!(r.is_ok(), "{r:?}");
    assert!((r.unwrap().offset() as f64 - 1.936_771_5e38).abs() < 1e33);
}

/// The distance from `p` to the triangle `[a, b, c]` in f64: `|h|` to the
/// plane when the projection lies inside (edge tests with the f64 normal),
/// else the nearest edge. The f64 products of f32 inputs are exact enough
/// here: the normal's direction error is `1e-16 / sin`, with `sin >= 1e-4`.
fn dist_triangle_f64(p: [f64; 3], t: [[f64; 3]; 3]) -> f64 {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let seg = |a: [f64; 3], b: [f64; 3]| {
        let (ab, ap) = (sub(b, a), sub(p, a));
        let s = (dot(ap, ab) / dot(ab, ab)).clamp(0.0, 1.0);
        let q = [a[0] + ab[0] * s, a[1] + ab[1] * s, a[2] + ab[2] * s];
        dot(sub(p, q), sub(p, q)).sqrt()
    };
    let [a, b, c] = t;
    let n = cross(sub(b, a), sub(c, a));
    let inside = [(a, b), (b, c), (c, a)].iter().all(|&(u, v)| dot(cross(sub(v, u), sub(p, u)), n) >= 0.0);
    if inside {
        dot(sub(p, a), n).abs() / dot(n, n).sqrt()
    } else {
        seg(a, b).min(seg(b, c)).min(seg(c, a))
    }
}

/// B20: a tiny sphere swept along a needle triangle (two vertices 3e-3 and
/// 2.4e-5 apart, 20 and 0.2 units from the third: sine at `a` about 1e-4)
/// was reported touching the face early: at the reported toi the sphere was
/// 2.76e-3 (and 1.85e-5) away from the triangle, its radius being 2.4e-4
/// (2.4e-6). The face normal `(b - a) x (c - a)`, computed at the needle's
/// tip, has a direction error of `eps / sin` (9e-5 rad), which the height of
/// the centre over the plane multiplies by its distance from `a`.
/// Tolerance: the fuzz suite's band, `1e-5 * (1 + largest coordinate)`.
#[test]
fn b20_sphere_sweep_along_a_needle_triangle() {
    let cases = [
        (
            -0.00048828125,
            0.00024414063,
            13.929199,
            p(-0.00048828125, -0.00048828125, -12.257324),
            p(13.92627, 13.929199, 13.929199),
            13.929199,
        ),
        (
            -4.8828125e-6,
            2.4414063e-6,
            0.15686035,
            p(-4.8828125e-6, -4.8828125e-6, -0.0028759765),
            p(0.15683593, 0.15686035, 0.15686035),
            0.15686035,
        ),
    ];
    let mut failures = vec![];
    for (centre, radius, motion, a, b, c) in cases {
        let s = Sphere::new(p(centre, centre, centre), radius);
        let m = v(motion, motion, motion);
        let t = Triangle::new(a, b, p(c, c, c));
        let tol = 1e-5 * (1.0 + a.coords.amax().max(b.coords.amax()).max(c.abs()) as f64);
        let f = |q: &Point| [q.x as f64, q.y as f64, q.z as f64];
        let tri = [f(&a), f(&b), f(&p(c, c, c))];
        let at = |toi: f64| {
            let q = [centre as f64 + motion as f64 * toi; 3];
            dist_triangle_f64(q, tri) - radius as f64
        };
        // The oracle's sphere does reach the triangle before the motion ends.
        assert!(at(1.0) < 0.0, "the input no longer touches: {}", at(1.0));
        let hit = cast_sphere_triangle(&s, &m, &t).expect("the sphere reaches the triangle");
        assert_eq!(hit.status, SweepStatus::Hit);
        let gap = at(hit.toi as f64);
        if gap > tol {
            failures.push(format!("{t:?}: at toi {} the sphere is still {gap} from the triangle (tol {tol})", hit.toi));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// B21: a ray grazing a plane (`|n . d| = 2e-4 |d|`) hit 2,723 directions
/// (558,000 units) away at a point 1.1e-2 off the plane: the rate `n . d`,
/// summed in f32, cancels to a relative error of `eps |d| / |n . d|`, which
/// `toi = -s / (n . d)` carries into the hit point. The f64 check: the hit
/// point's distance from the plane, within the fuzz suite's band
/// `1e-5 * (1 + largest input)`.
#[test]
fn b21_grazing_ray_hits_the_plane_on_it() {
    let pl = Plane::try_new(Point::origin(), v(0.62589043, -0.7652442, -0.15054107)).unwrap();
    let pl = Plane::try_new(Point::origin() + pl.normal().into_inner() * 122.43907, **pl.normal()).unwrap();
    let ray = Ray::new(Point::origin(), v(96.14746, 107.23633, -145.66895), f32::INFINITY);
    let hit = cast_ray_plane(&ray, &pl).expect("the ray crosses the plane");
    let n = pl.normal().into_inner().cast::<f64>();
    let q = ray.dir().cast::<f64>() * hit.toi as f64;
    let off = n.dot(&q) - pl.offset() as f64;
    let tol = 1e-5 * (1.0 + 145.66895);
    assert!(off.abs() <= tol, "hit at toi {} is {off} off the plane (tol {tol})", hit.toi);
}

/// Found by cargo-fuzz (a harness finding): a ray of direction `1e-40` (each
/// component subnormal) crosses a triangle 0.6 units away, at toi 6.3e39:
/// beyond `f32::MAX`, the largest toi a hit can carry. Not a wrong answer
/// but the ray's documented reach (`toi <= min(max_toi, f32::MAX)`): the
/// kernel reports no hit, never an infinite or wrapped toi; the same ray with
/// a unit direction hits at the same point.
#[test]
fn ray_reach_ends_at_f32_max() {
    let t = Triangle::try_new(
        Point::new(1.2548828, 1.2695313, 1e-40),
        Point::new(1.2548828, 1e-40, 1e-40),
        Point::new(1e-40, 1e-40, 1.2548828),
    )
    .unwrap();
    // The shortest direction a ray accepts (B30: subnormal ones are zero);
    // the triangle, scaled by 8, is crossed ~4e38 multiples of it away.
    let m = f32::MIN_POSITIVE;
    let far = Triangle::try_new(t.a() * 8.0, t.b() * 8.0, t.c() * 8.0).unwrap();
    let tiny = Ray::new(Point::new(1e-40, 1e-40, 1e-40), v(m, m, m), f32::INFINITY);
    assert_eq!(cast_ray_triangle(&tiny, &far), None, "a hit at toi 4e38 is out of an f32 toi's reach");
    let unit = Ray::new(Point::new(1e-40, 1e-40, 1e-40), v(1.0, 1.0, 1.0), f32::INFINITY);
    let hit = cast_ray_triangle(&unit, &t).expect("the unit ray crosses the triangle");
    assert!(hit.toi.is_finite() && hit.toi > 0.3 && hit.toi < 0.7, "toi {}", hit.toi);
}

/// B23, found by cargo-fuzz: `cast_ray_aabb` reported a hit
/// at `toi = inf` for an unbounded ray whose direction component `1e-40`
/// turns the slab times into infinities (`1 / 1e-40` overflows), because the
/// entry test `t_enter <= max_toi` held with both infinite. A ray's reach is
/// now `f32::MAX` (`Ray::try_new` stores an infinite `max_toi` as `f32::MAX`),
/// so every kernel misses there instead; a reachable hit is unchanged.
#[test]
fn b23_no_ray_hit_at_infinity() {
    let unit = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    // (The input's direction `1e-40`, subnormal, is rejected since B30.
    // With the shortest accepted one, `f32::MIN_POSITIVE`, the box 5 units
    // away is 4.3e38 multiples of it away: out of reach.)
    assert_eq!(Ray::try_new(Point::new(-1.0, 0.5, 0.5), v(1e-40, 0.0, 0.0), 1.0), Err(ShapeError::ZeroDirection));
    let ray = Ray::new(Point::new(-5.0, 0.5, 0.5), v(f32::MIN_POSITIVE, 0.0, 0.0), f32::INFINITY);
    assert_eq!(ray.max_toi(), f32::MAX);
    if let Some(h) = cast_ray_aabb(&ray, &unit) {
        panic!("a hit at toi {} (must be finite, or none)", h.toi);
    }
    let wide = AabbX8::from_boxes(&[unit; 8]);
    let lanes = cast_ray_aabb_x8(&PrecomputedRay::new(&ray), &wide, ray.max_toi());
    assert_eq!(lanes.mask, 0, "the SIMD kernel agrees: no lane is hit at infinity");
    let slow = Ray::new(Point::new(-1.0, 0.5, 0.5), v(1e-30, 0.0, 0.0), f32::INFINITY);
    let h = cast_ray_aabb(&slow, &unit).expect("1e30 multiples of 1e-30 are within reach");
    assert!((h.toi - 1e30).abs() <= 1e24, "toi {}", h.toi);
}

/// B24, found by cargo-fuzz: a ray along `+x` from near the
/// origin onto a sphere of radius `1e-40` at `x = 1.28` got the normal `+x`,
/// facing away from the ray: in the f64 path the hit point minus the centre
/// is the rounding residue of `1.28 - 1.28` (~1e-16), whose direction means
/// nothing. A radius below `1e-12` of the centre's distance is now a point
/// (the zero-radius rule of B15: normal `-dir / |dir|`).
#[test]
fn b24_tiny_sphere_normal_faces_the_ray() {
    let s = Sphere::try_new(Point::new(1.2807617, 1e-40, 1e-40), 1e-40).unwrap();
    let ray = Ray::new(Point::new(1e-40, 1e-40, 1e-40), v(5.8046876e-20, 0.0, 0.0), f32::INFINITY);
    let hit = cast_ray_sphere(&ray, &s).expect("the ray goes through the sphere's centre");
    assert!(hit.normal.dot(ray.dir()) <= 0.0, "normal {:?} faces away from the ray", hit.normal);
    assert_eq!(hit.normal.into_inner(), -Vector::x());
    // A sphere that resolves keeps its geometric normal.
    let big = Sphere::try_new(Point::new(1.2807617, 0.0, 0.0), 0.25).unwrap();
    let hit = cast_ray_sphere(&ray, &big).expect("hit");
    assert!((hit.normal.into_inner() + Vector::x()).norm() < 1e-6);
}

/// B25, found by cargo-fuzz: a ray of subnormal reach
/// (`max_toi = 1e-40`) whose direction lies in the plane of a triangle with
/// all `y = 1e-40` (coplanar, grazing) got a hit at `toi = -0` though its
/// origin is 0.072 from the triangle. Replay:
/// `cargo fuzz run narrowphase -O regressions/narrowphase/b25-ray-triangle-subnormal-max-toi`.
#[test]
fn b25_coplanar_ray_with_subnormal_reach_does_not_hit() {
    let t = Triangle::try_new(
        Point::new(1e-40, 1e-40, 1e-40),
        Point::new(1.2548828, 1e-40, 1e-40),
        Point::new(1.2548828, 1e-40, -0.00048828125),
    )
    .unwrap();
    let ray = Ray::new(Point::new(1.3266602, 1e-40, 1e-40), v(1e-40, 1e-40, -13.370117), 1e-40);
    if let Some(h) = cast_ray_triangle(&ray, &t) {
        panic!("hit at toi {} though the origin is 0.072 from the triangle", h.toi);
    }
}

/// B26 (the narrowphase half; found through the scene fuzz target): every
/// "within the radius" touch test squared the distance and the radius in
/// f32, so both underflowed to 0 below `~1e-19` and two points `1e-38`
/// apart touched a sphere of radius 0. Each test, at distances and radii
/// around f32's smallest normal, against the f64 comparison.
#[test]
fn b26_touch_tests_do_not_underflow() {
    let m = f32::MIN_POSITIVE;
    for (gap, radius) in [(m, 0.0), (m, 0.4 * m), (m, 0.6 * m), (4.0 * m, 2.0 * m), (1e-30, 4e-31), (1e-30, 6e-31)] {
        let touch = 2.0 * f64::from(radius) >= f64::from(gap);
        let a = Sphere::new(Point::origin(), radius);
        let b = Sphere::new(Point::new(gap, 0.0, 0.0), radius);
        assert_eq!(intersects_sphere_sphere(&a, &b), touch, "spheres, gap {gap:e}, radius {radius:e}");
        let cap = Capsule::new(Point::new(gap, -1.0, 0.0), Point::new(gap, 1.0, 0.0), radius);
        assert_eq!(intersects_sphere_capsule(&a, &cap), touch, "sphere-capsule, gap {gap:e}");
        let cap_a = Capsule::new(Point::new(0.0, 0.0, -1.0), Point::new(0.0, 0.0, 1.0), radius);
        assert_eq!(intersects_capsule_capsule(&cap_a, &cap), touch, "capsules, gap {gap:e}");
        // Solids whose face is the plane x = gap, against a sphere (a
        // capsule) of radius 2r at the origin. The box spans x in
        // [gap, 3 gap], so the oriented box's centre and half-extent are exact.
        let big = Sphere::new(Point::origin(), 2.0 * radius);
        let aabb = Aabb::new(Point::new(gap, -1.0, -1.0), Point::new(3.0 * gap, 1.0, 1.0));
        assert_eq!(intersects_sphere_aabb(&big, &aabb), touch, "sphere-aabb, gap {gap:e}");
        let obb = Obb::from_aabb(&aabb);
        assert_eq!(intersects_sphere_obb(&big, &obb), touch, "sphere-obb, gap {gap:e}");
        let tri = Triangle::new(Point::new(gap, -1.0, -1.0), Point::new(gap, 1.0, -1.0), Point::new(gap, 0.0, 1.0));
        assert_eq!(intersects_sphere_triangle(&big, &tri), touch, "sphere-triangle, gap {gap:e}");
        let seg = Capsule::new(Point::new(0.0, 0.0, -0.5), Point::new(0.0, 0.0, 0.5), 2.0 * radius);
        assert_eq!(intersects_capsule_obb(&seg, &obb), touch, "capsule-obb, gap {gap:e}");
        assert_eq!(intersects_capsule_aabb(&seg, &aabb), touch, "capsule-aabb, gap {gap:e}");
    }
}

/// B27, found by cargo-fuzz: a ray grazing the end of a
/// capsule of subnormal radius (`1e-40`, a segment at any resolution) got
/// the normal `-x`, facing away from the ray: the normal was the direction
/// of the hit's rounding residue (as B15 for a zero radius, B24 for a
/// sphere). Radii below `1e-12` of the positions' size now take the
/// segment's normal `-dir / |dir|`, and radii below `1e-5` of it, whose f32
/// residue would tilt the normal, are recomputed in f64. Replay:
/// `cargo fuzz run narrowphase -O regressions/narrowphase/b27-ray-capsule-subnormal-radius`.
#[test]
fn b27_ray_normal_of_a_thin_capsule_faces_the_ray() {
    let c = Capsule::try_new(p(-6.023926, -6.023926, -6.023926), p(-12.302246, 1e-40, 1e-40), 1e-40).unwrap();
    let ray = Ray::new(p(1e-40, 1e-40, 1e-40), v(-6.0317383, -6.023926, -6.023926), 24.095703);
    if let Some(hit) = cast_ray_capsule(&ray, &c) {
        assert!(hit.normal.dot(ray.dir()) <= 0.0, "normal {:?} faces away from the ray", hit.normal);
        assert_eq!(hit.normal.into_inner(), -ray.dir().normalize());
    }
    // Thin but resolvable capsules (radius 1e-6 to 1e-4 at distance 10):
    // the f32 residue of the hit point is ~1e-6, the f64 one far below; the
    // normal is the closed form (0, y, z0) / r for a ray along -y at lateral
    // offset z0 from the axis (the x axis).
    for r in [1e-6f32, 3e-6, 1e-5, 1e-4] {
        let c = Capsule::try_new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), r).unwrap();
        for frac in [0.0f32, 0.3, -0.6, 0.9] {
            let z0 = frac * r;
            let ray = Ray::new(p(0.5, 10.0, z0), v(0.0, -1.0, 0.0), 20.0);
            let hit = cast_ray_capsule(&ray, &c).expect("through the capsule");
            let y = (f64::from(r).powi(2) - f64::from(z0).powi(2)).sqrt();
            let expect = Vector::new(0.0, (y / f64::from(r)) as f32, z0 / r);
            assert!((hit.normal.into_inner() - expect).norm() < 1e-3, "r {r:e}, z0 {z0:e}: {:?}", hit.normal);
        }
    }
}

/// B28, found by cargo-fuzz: `contact_capsule_capsule` of two
/// capsules whose core segments pass `1e-20` apart returned a normal of
/// length 0.99: `UnitVector::try_new` divides by `sqrt(|d|^2)`, and `|d|^2`
/// (~1e-40) is subnormal, with few significant bits. The normals of the
/// contact functions now come from `normalize_any`, which rescales first.
/// Input: `fuzz/regressions/narrowphase/b28-capsule-normal-length`.
#[test]
fn b28_contact_normals_are_unit_for_tiny_gaps() {
    for gap in [1e-20f32, 3e-21, 1e-25, 1e-30, 1e-38, 1e-44] {
        let a = Capsule::try_new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), 0.1).unwrap();
        let b = Capsule::try_new(p(0.5, gap, -1.0), p(0.5, gap, 1.0), 0.1).unwrap();
        let c = contact_capsule_capsule(&a, &b).expect("crossing capsules");
        assert!((c.normal.norm() - 1.0).abs() < 1e-6, "gap {gap:e}: |normal| = {}", c.normal.norm());
        assert!((c.normal.into_inner() - Vector::y()).norm() < 1e-6, "gap {gap:e}: normal {:?}", c.normal);
        let s = Sphere::try_new(p(0.25, -0.05, 0.25), 0.1).unwrap();
        let t = Triangle::new(p(0.0, -0.05 + gap, 0.0), p(1.0, -0.05 + gap, 0.0), p(0.0, -0.05 + gap, 1.0));
        if let Some(c) = contact_sphere_triangle(&s, &t) {
            assert!(
                (c.normal.norm() - 1.0).abs() < 1e-6,
                "gap {gap:e}: sphere-triangle |normal| = {}",
                c.normal.norm()
            );
        }
    }
}

/// B29, found by cargo-fuzz: on a needle triangle (24 long,
/// 0.003 wide) a point lying on the triangle got a closest point 4.5e-4
/// away, so `intersects_sphere_triangle` missed a sphere of radius 2.4e-4
/// centred on it. The face point of slivers came from f32 triple products
/// whose normal carries the cancellation of the cross product; it is now
/// taken in f64. Then points on random needles (length 5 to 50, width 1e-4
/// to 1e-2): the closest point is the point itself within 2e-6 of the
/// length (the point, rounded to f32 at coordinates up to ~25, lies off the
/// triangle by up to ~1e-6 of the length).
/// Input: `fuzz/regressions/narrowphase/b29-sphere-on-a-needle-triangle`.
#[test]
fn b29_closest_point_on_a_needle_triangle() {
    let t = Triangle::new(
        p(-0.00390625, -0.00048828125, -0.00048828125),
        p(-6.9023438, -6.9023438, -6.9023438),
        p(6.9023438, 6.9018555, 6.9018555),
    );
    let c = p(-0.00048828125, -0.00048828125, -0.00048828125);
    assert!((closest_point_triangle(&c, &t) - c).norm() < 1e-6);
    assert!(intersects_sphere_triangle(&Sphere::new(c, 0.00024414063), &t));
    let mut rng = proxima_test_support::rng(29);
    let mut worst = 0.0f64;
    for _ in 0..20_000 {
        let len = proxima_test_support::gen::uniform(&mut rng, 5.0, 50.0);
        let width = proxima_test_support::gen::uniform(&mut rng, 1e-4, 1e-2);
        let dir = proxima_test_support::gen::unit_vector(&mut rng);
        let side = dir.cross(&proxima_test_support::gen::unit_vector(&mut rng)).normalize();
        let centre = p(1.0, -2.0, 0.5);
        let (b, c) = (centre - dir * (len / 2.0), centre + dir * (len / 2.0));
        let a = centre + side * width + dir * proxima_test_support::gen::uniform(&mut rng, -len / 3.0, len / 3.0);
        let t = Triangle::new(a, b, c);
        // A point of the triangle (weights in f64, rounded to f32).
        let (u, v) = (
            proxima_test_support::gen::uniform(&mut rng, 0.0, 1.0),
            proxima_test_support::gen::uniform(&mut rng, 0.0, 1.0),
        );
        let (u, v) = if u + v > 1.0 { (1.0 - u, 1.0 - v) } else { (u, v) };
        let q = a + (b - a) * u + (c - a) * v;
        let got = closest_point_triangle(&q, &t);
        worst = worst.max(f64::from((got - q).norm() / len));
    }
    assert!(worst < 2e-6, "worst closest-point error {worst:e} of the length");
}

/// B30, found by cargo-fuzz: a ray along `(1e-40; 3)` (every
/// component subnormal) with an unbounded reach missed a triangle it crosses
/// at toi 1.9e38: the watertight test divides by the direction's largest
/// component and `1 / 1e-40` overflows f32. Such a direction cannot be
/// inverted and is now rejected as zero; one with a normal-range component
/// is kept. Input: `fuzz/regressions/narrowphase/b30-ray-subnormal-direction`.
#[test]
fn b30_subnormal_ray_direction_is_rejected() {
    let o = p(1e-40, 1e-40, 1e-40);
    assert_eq!(Ray::try_new(o, v(1e-40, 1e-40, 1e-40), f32::INFINITY), Err(ShapeError::ZeroDirection));
    assert_eq!(Ray::try_new(o, v(-1e-39, 0.0, 1e-45), 1.0), Err(ShapeError::ZeroDirection));
    // The smallest accepted direction still finds a triangle it crosses.
    let m = f32::MIN_POSITIVE;
    let ray = Ray::try_new(p(0.0, 0.0, -1.0), v(0.0, 0.0, m), f32::INFINITY).expect("a normal-range component");
    let t = Triangle::new(p(-1.0, -1.0, 0.0), p(1.0, -1.0, 0.0), p(0.0, 1.0, 0.0));
    let hit = cast_ray_triangle(&ray, &t).expect("crossing at toi 1 / MIN_POSITIVE");
    assert!((f64::from(hit.toi) - 1.0 / f64::from(m)).abs() <= 1e-6 / f64::from(m), "toi {}", hit.toi);
}

/// B31, found by cargo-fuzz: an `Obb` accepts a quaternion
/// within `1e-3` of unit length (`|q|^2`), and kept it: its axes were
/// scaled by `|q|^2` (1.001 here), so the box's frame was off by 0.1% of the
/// distance, and a point 5,300 from a zero-size box got a closest point the
/// oracle put 5 units away. The rotation is now renormalised (a unit one
/// kept bit for bit); the scene does the same for capsule and mesh poses.
/// Input: `fuzz/regressions/narrowphase/b31-obb-off-unit-rotation`.
#[test]
fn b31_obb_with_an_off_unit_quaternion_is_renormalised() {
    let q = nalgebra::Quaternion::new(-1.0004883, -0.00048828125, -0.00048828125, -0.00048828125);
    let o = Obb::try_new(p(3764.6484, 0.0, -4.8828125), Rotation::new_unchecked(q), Vector::repeat(0.0)).unwrap();
    for k in 0..3 {
        assert!((o.axes().column(k).norm() - 1.0).abs() < 1e-6, "axis {k} of length {}", o.axes().column(k).norm());
    }
    let far = p(0.0, 0.0, 3764.6484);
    assert!((o.to_world(&o.to_local(&far)) - far).norm() < 1e-3, "to_world(to_local(p)) moved p");
    let q = closest_point_obb(&far, &o);
    assert!((q - o.center()).norm() < 1e-3, "the closest point of a zero-size box is its centre: {q:?}");
    // A unit rotation is kept as given.
    let r = Rotation::from_euler_angles(0.3, -0.2, 1.1);
    assert_eq!(*Obb::new(p(1.0, 2.0, 3.0), r, Vector::repeat(1.0)).rotation(), r);
}

/// B32, found by cargo-fuzz: a
/// capsule whose core passes 5.8e-4 from a zero-size box (within the
/// near-touching band, 1e-4 of its 12-long segment) took the separating-axis
/// branch, whose witness points, taken as the closest points of the two
/// support features, lay 3.1e-4 off `depth * normal` from each other. The box
/// witness is now `point_a - depth * normal`. Input:
/// `fuzz/regressions/narrowphase/b32-capsule-point-box-witness`.
#[test]
fn b32_capsule_box_witness_points_differ_by_depth_times_normal() {
    let c = Capsule::new(p(-0.00048828125, 0.03125, 0.0), p(0.0, -12.0, 0.12109375), 0.06225586);
    let o = Obb::new(Point::origin(), Rotation::identity(), Vector::zeros());
    let ct = contact_capsule_obb(&c, &o).expect("the point is inside the capsule");
    let gap = ct.point_a - ct.point_b - ct.normal.into_inner() * ct.depth;
    assert!(gap.norm() < 1e-6, "point_a - point_b - depth n = {gap:?}");
    // The band's error: the box witness within 1e-4 * 12 of the box.
    assert!(ct.point_b.coords.norm() < 1.2e-3, "point_b {:?}", ct.point_b);
}

/// The distance between the segment `[a, b]` and the triangle, in f64:
/// relative to `a` (the differences of f32 values are exact), the distance
/// to the triangle ([`dist_triangle_f64`]) is convex along the segment, and
/// a golden-section search on the segment's parameter finds its minimum.
fn segment_triangle_f64(a: &Point, b: &Point, t: &Triangle) -> f64 {
    let rel = |x: &Point| [0, 1, 2].map(|i| f64::from(x[i]) - f64::from(a[i]));
    let (d, tri) = (rel(b), t.vertices().map(|x| rel(&x)));
    let at = |s: f64| dist_triangle_f64(d.map(|x| x * s), tri);
    proxima_test_support::minimize::convex_min(at, 0.0, 1.0, 80).value
}

/// B39, found by the seeded suite `gjk_vs_parry` (where a guard counted it
/// as the closed form being off): `contact_capsule_triangle` took the
/// separating axes for every core segment within `1e-4` of the shapes' size
/// (`|q - p| + |b - a| + |c - a|`) of the triangle, apart or not. Those axes
/// (the triangle normal, the segment crossed with each edge) separate apart
/// cores by exactly their gap only for an endpoint over the face or the
/// segment across an edge; for the segment passing a vertex, the best of
/// them separates by the gap times the cosine of its angle to the true
/// direction, so the depth was too deep by up to the gap, and the band
/// allows gaps of `1e-4` of a large triangle. Here a capsule of radius
/// 0.0124 passes 2.5e-6 clear of a vertex of a triangle 1e3 across
/// (coordinates about 500), and a depth of 0.003 was reported.
/// `contact_capsule_obb` had the same band. Apart cores now take the
/// closest pair, recomputed in f64 within the band.
#[test]
fn b39_capsule_passing_a_vertex_is_not_too_deep() {
    let cap = Capsule::new(p(-525.9442, -565.6619, -448.59882), p(-525.9724, -565.64545, -448.6109), 0.012429047);
    let tri = Triangle::new(
        p(150.61746, 15.823217, -44.195007),
        p(-525.9474, -565.6547, -448.58887),
        p(-62.805065, 38.236767, 71.39007),
    );
    let core = segment_triangle_f64(cap.a(), cap.b(), &tri);
    assert!(core - f64::from(cap.radius()) > 2e-6, "the f64 oracle: core distance {core}");
    assert_eq!(contact_capsule_triangle(&cap, &tri), None);
    assert_eq!(contact_manifold_capsule_triangle(&cap, &tri, 0.0), None);
    // 1e-5 thicker, it overlaps by the difference: the depth is the f64
    // pair's `r - core`, rounded once (`~1e-12` here).
    let fat = Capsule::new(*cap.a(), *cap.b(), cap.radius() + 1e-5);
    let c = contact_capsule_triangle(&fat, &tri).expect("overlapping by 7.5e-6");
    let depth = f64::from(fat.radius()) - core;
    assert!((f64::from(c.depth) - depth).abs() < 1e-9, "depth {}, f64 oracle {depth}", c.depth);

    // Closed forms: a segment along z beside a triangle's vertex, or beside
    // a box's vertical edge, at `(s, t)` from it in the plane `z = o`: the
    // core distance is `hypot(s, t)`, the cores' gap `hypot(s, t) - r`, the
    // normal `-(s, t, 0) / hypot(s, t)`. The axes separate them by only
    // `max(s, t, (s + t) / sqrt 2)` (0.066 for 0.070). Coordinates at 0, 1e3
    // and 1e5 (all exact: multiples of 2^-7). Depths within 2e-8: the f32
    // rounding of the 0.07 distance where a manifold clips in f32 (the box
    // edge's two points), far below the 3.6e-3 that the axes gave.
    let (s, t) = (0.0625f32, 0.03125f32);
    let core = f64::from(s).hypot(f64::from(t));
    let normal = -v(s, t, 0.0).normalize();
    for o in [0.0f32, 1e3, 1e5] {
        let corner = p(o, o, o);
        let tri = Triangle::new(corner, corner + v(-500.0, 0.0, 0.0), corner + v(0.0, -500.0, 0.0));
        let obb = Obb::new(corner + v(-500.0, -500.0, 0.0), Rotation::identity(), v(500.0, 500.0, 500.0));
        for apart in [1e-5f64, -1e-5] {
            let cap = Capsule::new(corner + v(s, t, -10.0), corner + v(s, t, 10.0), (core - apart) as Real);
            let gap = core - f64::from(cap.radius());
            let cases = [
                ("triangle", contact_capsule_triangle(&cap, &tri)),
                ("triangle manifold", contact_manifold_capsule_triangle(&cap, &tri, 0.0).map(|m| deepest(&m))),
                ("box", contact_capsule_obb(&cap, &obb)),
                ("box manifold", contact_manifold_capsule_obb(&cap, &obb, 0.0).map(|m| deepest(&m))),
            ];
            for (what, c) in cases {
                match c {
                    None => assert!(gap > 0.0, "{what} at {o}: no contact, gap {gap}"),
                    Some(c) => {
                        assert!(gap < 0.0, "{what} at {o}: {c:?}, gap {gap}");
                        assert!((f64::from(c.depth) + gap).abs() < 2e-8, "{what} at {o}: depth {}, gap {gap}", c.depth);
                        assert!((c.normal.into_inner() - normal).norm() < 1e-6, "{what} at {o}: {:?}", c.normal);
                    }
                }
            }
        }
    }
}

/// The deepest point of a manifold as a contact with its normal.
fn deepest(m: &ContactManifold) -> Contact {
    let d = m.points().iter().max_by(|a, b| a.depth.total_cmp(&b.depth)).expect("a manifold has a point");
    Contact { point_a: d.point_a, point_b: d.point_b, normal: m.normal, depth: d.depth }
}

/// B40 (with `scene/regressions`: `b40_a_huge_box_and_a_hull_give_finite_manifolds`):
/// segments 2e13 long gave NaN closest points, their products (`b f`,
/// `c e`, up to the fourth power of the lengths) overflowing f32; such
/// segments are now solved and placed in f64. A segment across the x axis
/// 1 above a huge one along it, at x = 0.5: the closest points are
/// `(0.5, 0, 0)` and `(0.5, 0, 1)`, to f64's rounding of the huge segment's
/// length (`4 eps_f64 L`); in f32 it was NaN, and placed in f32 it would
/// be off by up to `eps_f32 L` (1e6 at 1e13).
#[test]
fn b40_closest_points_of_huge_segments_are_finite_and_placed_exactly() {
    for long in [1e9_f32, 1e13, 1e18] {
        let tol = (4.0 * f64::EPSILON * 2.0 * f64::from(long)).max(1e-6) as f32;
        let (p1, q1) = (Point::new(-long, 0.0, 0.0), Point::new(long, 0.0, 0.0));
        let (p2, q2) = (Point::new(0.5, -1.0, 1.0), Point::new(0.5, 1.0, 1.0));
        for (a, b, c, d, flip) in [(p1, q1, p2, q2, false), (p2, q2, p1, q1, true)] {
            let pair = closest_points_segment_segment(&a, &b, &c, &d);
            let (on_long, on_short) = if flip { (pair.point_b, pair.point_a) } else { (pair.point_a, pair.point_b) };
            assert!((on_long - Point::new(0.5, 0.0, 0.0)).norm() <= tol, "{long:e}: {pair:?}");
            assert!((on_short - Point::new(0.5, 0.0, 1.0)).norm() <= tol, "{long:e}: {pair:?}");
        }
    }
}

/// B42, found by the seeded suite `manifold_existence` (other seeds, up to
/// 2,000,000 pairs): near `(1e4, -1e4, 1e4)` box-triangle manifolds and
/// sphere-triangle distances carried the rounding of the coordinates
/// (`eps` of 1e4 is 1e-3), not of the shapes' size:
/// - a box and a triangle 0.0861 apart got a speculative manifold at
///   prediction 0.0847: an edge pair was taken for the closest points within
///   a rounding allowance that counted the coordinates, and the triangle's
///   clipped face and the GJK fallback ran on world coordinates;
/// - `distance_sphere_triangle` found the triangle's closest point in world
///   coordinates, 4e-4 short.
///
/// Both now run relative to the box's or sphere's centre (a vertex minus the
/// centre rounds relative to that difference), so each pair gives at 1e4
/// what it gives moved to the origin, within `1e-5`, and its manifold
/// exists exactly when that distance is within the prediction.
#[test]
fn b42_far_pairs_decide_as_they_do_at_the_origin() {
    let q = |w, i, j, k| Rotation::from_quaternion(nalgebra::Quaternion::new(w, i, j, k));
    let boxes = [
        (
            p(9_999.794, -10_001.173, 10_000.049),
            q(-0.460_263_43, -0.410_019_7, -0.787_373_6, 0.009_174_804),
            v(0.705_702_8, 0.264_052_06, 0.114_556_774),
            [
                p(10_000.566, -10_000.187, 9_999.89),
                p(10_001.111, -10_000.089, 9_999.553),
                p(10_001.169, -9_999.866, 9_999.638),
            ],
        ),
        (
            p(9_999.553, -10_000.48, 9_999.681),
            q(0.977_114_26, -0.169_390_99, -0.111_847_65, 0.063_596_29),
            v(0.651_362_7, 0.695_814_85, 0.687_086_9),
            [
                p(9_999.079, -10_001.328, 9_999.045),
                p(9_998.57, -10_001.389, 9_998.92),
                p(9_998.638, -10_002.474, 9_999.72),
            ],
        ),
        (
            p(9_999.269, -10_000.147, 10_000.913),
            q(0.123_433_88, 0.991_355_9, -0.014_750_534, 0.041_951_675),
            v(0.618_816_14, 0.167_602_93, 0.336_883_16),
            [
                p(9_998.234, -10_000.297, 10_000.703),
                p(9_998.528, -9_999.869, 10_000.611),
                p(9_998.555, -10_000.27, 10_000.281),
            ],
        ),
    ];
    let moved = |t: &[Point; 3], c: &Point| {
        Triangle::new(p(0.0, 0.0, 0.0) + (t[0] - c), p(0.0, 0.0, 0.0) + (t[1] - c), p(0.0, 0.0, 0.0) + (t[2] - c))
    };
    for (centre, rotation, half, t) in boxes {
        let (a, b) = (Obb::new(centre, rotation, half), Triangle::new(t[0], t[1], t[2]));
        assert!(contact_obb_triangle(&a, &b).is_none());
        let near = distance_obb_triangle(&Obb::new(p(0.0, 0.0, 0.0), rotation, half), &moved(&t, &centre)).distance;
        assert!((distance_obb_triangle(&a, &b).distance - near).abs() < 1e-5, "{a:?} {b:?}: {near}");
        for prediction in [near - 2e-3, near - 1e-4, near - 1e-5, near + 1e-5, near + 1e-4] {
            let m = contact_manifold_obb_triangle(&a, &b, prediction);
            assert_eq!(m.is_some(), near <= prediction, "prediction {prediction}, distance {near}: {m:?}");
            if let Some(m) = m {
                assert!((m.deepest().depth + near).abs() < 1e-5, "{m:?} vs {near}");
            }
        }
    }
    let spheres = [
        (
            p(9_998.5, -10_000.385, 10_000.162),
            0.349_170_77,
            [
                p(9_999.511, -10_000.406, 9_998.822),
                p(9_999.613, -10_000.327, 9_998.987),
                p(9_999.325, -9_999.523, 9_999.286),
            ],
        ),
        (
            p(10_001.94, -9_999.785, 9_999.421),
            0.277_852_33,
            [
                p(10_000.239, -9_999.412, 10_000.208),
                p(10_000.668, -10_000.15, 9_999.842),
                p(10_000.652, -9_999.329, 10_000.21),
            ],
        ),
    ];
    for (centre, radius, t) in spheres {
        let (a, b) = (Sphere::new(centre, radius), Triangle::new(t[0], t[1], t[2]));
        let near = distance_sphere_triangle(&Sphere::new(p(0.0, 0.0, 0.0), radius), &moved(&t, &centre)).distance;
        assert!((distance_sphere_triangle(&a, &b).distance - near).abs() < 1e-5, "{a:?} {b:?}: {near}");
        for prediction in [near - 1e-4, near - 1e-5, near + 1e-5, near + 1e-4] {
            let m = contact_manifold_sphere_triangle(&a, &b, prediction);
            assert_eq!(m.is_some(), near <= prediction, "prediction {prediction}, distance {near}: {m:?}");
        }
    }
}

/// B43: a box resting on a box, a face of each parallel to the other's (their
/// third axes equal to the last bit), took A's face as the reference, and
/// after B moved by 1e-4 took B's: the two faces' overlaps differ only by
/// rounding, and B's won whenever it rounded lower, so every point's id
/// changed under a move that changes no feature. A face of B must now beat
/// A's by the overlaps' rounding.
#[test]
fn b43_parallel_resting_faces_keep_their_reference_under_a_small_move() {
    let qa = nalgebra::Quaternion::new(0.664721, -0.6989204, 0.10841742, -0.24062793);
    let a = Obb::new(
        p(-1.1185344, 0.52133894, -2.1119227),
        Rotation::new_unchecked(qa),
        v(0.12732835, 0.109150276, 0.7900886),
    );
    let qb = nalgebra::Quaternion::new(0.56250674, -0.6993988, -0.105287015, -0.4281845);
    let b = Obb::new(
        p(-1.258244, -0.3998032, -1.9444506),
        Rotation::new_unchecked(qb),
        v(0.98639035, 0.6904211, 0.08935614),
    );
    let ids = |b: &Obb| {
        let m = contact_manifold_obb_obb(&a, b, 0.0).expect("the boxes overlap by 4.4e-3");
        let mut ids: Vec<u32> = m.points().iter().map(|q| q.id).collect();
        ids.sort_unstable();
        (m.len(), ids)
    };
    let before = ids(&b);
    assert_eq!(before.0, 4, "a face on a face gets four points");
    let moved = Obb::new(b.center() + v(1.594674e-5, 6.0095277e-5, 7.832151e-5), *b.rotation(), *b.half_extents());
    assert_eq!(ids(&moved), before, "the same faces touch after the move");
}
