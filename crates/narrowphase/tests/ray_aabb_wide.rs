//! The wide ray/box kernels against the scalar slab test `ray_aabb_interval`,
//! lane by lane, bit for bit: the hit mask bit equals `is_some()` and a hit
//! lane's entry `toi` has the same bits as the scalar entry. No tolerance:
//! both evaluate the same IEEE operations in the same order.

use proxima_narrowphase::kernels::{
    cast_ray_aabb_lanes_scalar, cast_ray_aabb_x4, cast_ray_aabb_x8, cast_ray_aabb_x8_loosened, ray_aabb_interval,
    AabbLanes, AabbX4, AabbX8, PrecomputedRay, RayLaneHits, SimdLevel,
};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Point, Ray, Real, Vector};
use proxima_test_support::gen::uniform;
use proxima_test_support::{rng, Rng};

/// The scalar oracle for one lane: `ray_aabb_interval` with `max_toi` in the ray.
fn oracle(ray: &PrecomputedRay, aabb: Option<Aabb>, max_toi: Real) -> Option<Real> {
    let ray = PrecomputedRay { max_toi, ..*ray };
    ray_aabb_interval(&ray, &aabb?).map(|i| i.toi_enter)
}

/// A kernel of width `W`, by name.
type Kernel<const W: usize> = (&'static str, fn(&PrecomputedRay, &AabbLanes<W>, Real) -> RayLaneHits<W>);

/// Every 8-lane kernel this CPU can run.
fn kernels8() -> Vec<Kernel<8>> {
    let mut out: Vec<Kernel<8>> =
        vec![("x8_scalar", cast_ray_aabb_lanes_scalar::<8>), ("x8_dispatch", cast_ray_aabb_x8)];
    #[cfg(target_arch = "x86_64")]
    {
        out.push(("x8_sse2", proxima_narrowphase::kernels::cast_ray_aabb_x8_sse2));
        if SimdLevel::Avx.is_available() {
            fn avx(ray: &PrecomputedRay, boxes: &AabbX8, max_toi: Real) -> RayLaneHits<8> {
                // SAFETY: only called after `SimdLevel::Avx.is_available()` returned true.
                unsafe { proxima_narrowphase::kernels::cast_ray_aabb_x8_avx(ray, boxes, max_toi) }
            }
            out.push(("x8_avx", avx));
        }
    }
    out
}

/// Every 4-lane kernel this CPU can run.
fn kernels4() -> Vec<Kernel<4>> {
    let mut out: Vec<Kernel<4>> =
        vec![("x4_scalar", cast_ray_aabb_lanes_scalar::<4>), ("x4_dispatch", cast_ray_aabb_x4)];
    #[cfg(target_arch = "x86_64")]
    out.push(("x4_sse2", proxima_narrowphase::kernels::cast_ray_aabb_x4_sse2));
    out
}

/// Checks every lane of every kernel against the oracle; returns the number of hit lanes.
fn check_pack(ray: &PrecomputedRay, lanes: &[Option<Aabb>; 8], max_toi: Real, context: &str) -> usize {
    let mut x8 = AabbX8::EMPTY;
    let mut x4 = [AabbX4::EMPTY; 2];
    for (lane, aabb) in lanes.iter().enumerate() {
        if let Some(aabb) = aabb {
            x8.set(lane, aabb);
            x4[lane / 4].set(lane % 4, aabb);
        }
    }
    let expected: Vec<Option<Real>> = lanes.iter().map(|a| oracle(ray, *a, max_toi)).collect();
    for (name, kernel) in kernels8() {
        let got = kernel(ray, &x8, max_toi);
        compare(name, &got.mask, &got.toi, &expected, context);
    }
    for (name, kernel) in kernels4() {
        for half in 0..2 {
            let got = kernel(ray, &x4[half], max_toi);
            compare(name, &got.mask, &got.toi, &expected[4 * half..4 * half + 4], context);
        }
    }
    expected.iter().filter(|e| e.is_some()).count()
}

fn compare(name: &str, mask: &u32, toi: &[Real], expected: &[Option<Real>], context: &str) {
    assert_eq!(*mask >> expected.len(), 0, "{name}: mask bits past the lanes, {context}");
    for (lane, e) in expected.iter().enumerate() {
        let hit = mask >> lane & 1 == 1;
        assert_eq!(hit, e.is_some(), "{name} lane {lane}: hit {hit}, scalar {e:?}, {context}");
        if let Some(t) = e {
            assert_eq!(toi[lane].to_bits(), t.to_bits(), "{name} lane {lane}: toi {} vs {t}, {context}", toi[lane]);
        }
    }
}

/// A coordinate: half the time on the half-integer grid of [-3, 3] (so
/// origins often lie exactly on slab planes), else uniform.
fn coord(rng: &mut impl Rng) -> Real {
    if rng.random_bool(0.5) {
        rng.random_range(-6..=6) as Real * 0.5
    } else {
        uniform(rng, -3.0, 3.0)
    }
}

/// A direction component: zero (either sign) 15% of the time, else uniform.
fn dir_component(rng: &mut impl Rng) -> Real {
    match rng.random_range(0..20) {
        0..=1 => 0.0,
        2 => -0.0,
        _ => uniform(rng, -1.0, 1.0),
    }
}

fn random_ray(rng: &mut impl Rng) -> PrecomputedRay {
    let origin = Point::new(coord(rng), coord(rng), coord(rng));
    let dir = loop {
        let d = Vector::new(dir_component(rng), dir_component(rng), dir_component(rng));
        if d != Vector::zeros() {
            break d;
        }
    };
    PrecomputedRay::new(&Ray::new(origin, dir, Real::INFINITY))
}

/// A coordinate snapped to the half-integer grid half the time.
fn maybe_snap(rng: &mut impl Rng, x: Real) -> Real {
    if rng.random_bool(0.5) {
        (x * 2.0).round() * 0.5
    } else {
        x
    }
}

/// A box near the ray's line (so about half the lanes hit), its bounds
/// snapped to the origins' grid half the time; 10% have zero size on an axis.
fn random_box(rng: &mut impl Rng, ray: &PrecomputedRay) -> Aabb {
    let t = uniform(rng, -1.0, 5.0);
    let mut min = Point::origin();
    let mut max = Point::origin();
    for axis in 0..3 {
        let d = if ray.inv_dir[axis].is_finite() { 1.0 / ray.inv_dir[axis] } else { 0.0 };
        let c = ray.origin[axis] + t * d + uniform(rng, -0.8, 0.8);
        let h = if rng.random_bool(0.1) { 0.0 } else { uniform(rng, 0.0, 1.5) };
        let (a, b) = (maybe_snap(rng, c - h), maybe_snap(rng, c + h));
        min[axis] = a.min(b);
        max[axis] = a.max(b);
    }
    Aabb::new(min, max)
}

fn random_max_toi(rng: &mut impl Rng) -> Real {
    match rng.random_range(0..10) {
        0 => 0.0,
        1 => Real::INFINITY,
        _ => uniform(rng, 0.0, 8.0),
    }
}

/// 125,000 packs of 8 lanes = 1,000,000 ray/box pairs (5% padded lanes).
#[test]
fn wide_kernels_match_scalar_on_random_pairs() {
    let mut rng = rng(0x5eed_0001);
    let (mut hits, mut lanes_total) = (0usize, 0usize);
    for pack in 0..125_000 {
        let ray = random_ray(&mut rng);
        let max_toi = random_max_toi(&mut rng);
        let lanes: [Option<Aabb>; 8] =
            core::array::from_fn(|_| if rng.random_bool(0.05) { None } else { Some(random_box(&mut rng, &ray)) });
        hits += check_pack(&ray, &lanes, max_toi, &format!("pack {pack}"));
        lanes_total += 8;
    }
    // Both branches must be exercised: the generator is tuned so about half the lanes hit.
    let rate = hits as f64 / lanes_total as f64;
    assert!((0.3..=0.7).contains(&rate), "hit rate {rate}");
}

/// Rays parallel to slabs (with +0 and -0 components), origins on slab
/// planes, inside, outside, zero-size boxes, padded lanes, `max_toi` 0.
#[test]
fn wide_kernels_match_scalar_on_edge_cases() {
    let unit = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let flat = Aabb::new(Point::new(0.0, 0.0, 0.5), Point::new(1.0, 1.0, 0.5));
    let point = Aabb::new(Point::new(0.5, 0.5, 0.5), Point::new(0.5, 0.5, 0.5));
    let far = Aabb::new(Point::new(5.0, 0.0, 0.0), Point::new(6.0, 1.0, 1.0));
    let lanes = [Some(unit), Some(flat), Some(point), Some(far), None, Some(unit), None, Some(point)];
    let values = [-1.0, 0.0, 0.5, 1.0, 2.0];
    let dirs = [1.0, -1.0, 0.0, -0.0];
    let mut cases = 0;
    let mut hits = 0;
    for &ox in &values {
        for &oy in &values {
            for &oz in &values {
                for &dx in &dirs {
                    for &dy in &dirs {
                        for &dz in &dirs {
                            let dir = Vector::new(dx, dy, dz);
                            if dir == Vector::zeros() {
                                continue;
                            }
                            let ray = PrecomputedRay::new(&Ray::new(Point::new(ox, oy, oz), dir, 1.0));
                            for max_toi in [0.0, 0.5, 1.0, 10.0, Real::INFINITY] {
                                let context = format!("o ({ox}, {oy}, {oz}) d ({dx}, {dy}, {dz}) max_toi {max_toi}");
                                hits += check_pack(&ray, &lanes, max_toi, &context);
                                cases += 8;
                            }
                        }
                    }
                }
            }
        }
    }
    // Most of these rays miss (they are axis-aligned or diagonal from a small grid); both outcomes occur.
    assert!(hits > cases / 20 && hits < cases / 2, "{hits} hits of {cases}");
}

/// Named cases whose answer is known without the scalar kernel.
#[test]
fn wide_kernels_known_answers() {
    let unit = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let boxes = AabbX8::from_boxes(&[unit]);
    // A ray gliding along the face plane y = 0 hits the closed box at x = 0.
    let glide = PrecomputedRay::new(&Ray::new(Point::new(-2.0, 0.0, 0.5), Vector::x(), 10.0));
    for (name, kernel) in kernels8() {
        let hits = kernel(&glide, &boxes, 10.0);
        assert_eq!(hits.mask, 1, "{name}");
        assert_eq!(hits.toi[0], 2.0, "{name}");
        // The same ray just outside the plane misses.
        let outside = PrecomputedRay::new(&Ray::new(Point::new(-2.0, -1e-6, 0.5), Vector::x(), 10.0));
        assert_eq!(kernel(&outside, &boxes, 10.0).mask, 0, "{name}");
        // max_toi 0: only a box containing the origin hits, at toi 0.
        let inside = PrecomputedRay::new(&Ray::new(Point::new(0.5, 0.5, 0.5), -Vector::y(), 0.0));
        let hits = kernel(&inside, &boxes, 0.0);
        assert_eq!((hits.mask, hits.toi[0].to_bits()), (1, 0.0f32.to_bits()), "{name}");
        assert_eq!(kernel(&glide, &boxes, 0.0).mask, 0, "{name}");
        // All padded: no hit, even for an unbounded ray.
        assert_eq!(kernel(&glide, &AabbX8::EMPTY, Real::INFINITY).mask, 0, "{name}");
    }
}

#[test]
fn lanes_round_trip_and_overlap_mask() {
    let a = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let b = Aabb::new(Point::new(2.0, 0.0, 0.0), Point::new(3.0, 1.0, 1.0));
    let mut lanes = AabbLanes::<4>::from_boxes(&[a, b]);
    assert_eq!(lanes.get(0), Some(a));
    assert_eq!(lanes.get(1), Some(b));
    assert_eq!(lanes.get(2), None);
    assert_eq!(lanes.union(0b1111), Some(a.merged(&b)));
    assert_eq!(lanes.union(0b1100), None);
    // Touching counts as overlap; padded lanes never overlap.
    let touch = Aabb::new(Point::new(1.0, 1.0, 1.0), Point::new(2.0, 2.0, 2.0));
    assert_eq!(lanes.overlap_mask(&touch), 0b0011);
    let huge = Aabb::new(Point::new(-1e30, -1e30, -1e30), Point::new(1e30, 1e30, 1e30));
    assert_eq!(lanes.overlap_mask(&huge), 0b0011);
    lanes.clear(0);
    assert_eq!(lanes.overlap_mask(&huge), 0b0010);
}

/// `loosened` grows each lane by its own amount, exactly as `Aabb::loosened`
/// does the lane's box, and keeps padded lanes padded.
#[test]
fn loosened_lanes_equal_the_loosened_boxes() {
    let mut rng = rng(0x1005E);
    for _ in 0..2_000 {
        let boxes: Vec<Aabb> = (0..rng.random_range(0..=8))
            .map(|_| {
                let c = Point::new(coord(&mut rng), coord(&mut rng), coord(&mut rng));
                let h =
                    Vector::new(uniform(&mut rng, 0.0, 4.0), uniform(&mut rng, 0.0, 4.0), uniform(&mut rng, 0.0, 4.0));
                Aabb::new(c - h, c + h)
            })
            .collect();
        let by: [Real; 8] = core::array::from_fn(|_| uniform(&mut rng, 0.0, 0.5));
        let loose = AabbX8::from_boxes(&boxes).loosened(&by);
        for (lane, by) in by.iter().enumerate() {
            assert_eq!(loose.get(lane), boxes.get(lane).map(|b| b.loosened(*by)), "lane {lane}");
        }
    }
}

/// `cast_ray_aabb_x8_loosened` (dispatched, and its AVX kernel where the
/// CPU has it) against the scalar kernel on the grown copy, bit for bit:
/// random rays and boxes as above (zero direction components, origins and
/// bounds on a shared grid, so a grown bound often lands on an origin),
/// allowances of 0, tiny (`2^-16` scale) and large, padded lanes.
#[test]
fn loosened_kernel_equals_the_kernel_on_the_grown_boxes() {
    let mut rng = rng(0x1005_E002);
    let (mut hits, mut lanes_total) = (0usize, 0usize);
    for pack in 0..50_000 {
        let ray = random_ray(&mut rng);
        let max_toi = random_max_toi(&mut rng);
        let mut boxes = AabbX8::EMPTY;
        for lane in 0..8 {
            if !rng.random_bool(0.05) {
                boxes.set(lane, &random_box(&mut rng, &ray));
            }
        }
        let by: [Real; 8] = core::array::from_fn(|_| match rng.random_range(0..4) {
            0 => 0.0,
            1 => uniform(&mut rng, 0.0, 4.0) * (1.0 / 65536.0),
            2 => 0.5,
            _ => uniform(&mut rng, 0.0, 1.0),
        });
        let expected = cast_ray_aabb_lanes_scalar(&ray, &boxes.loosened(&by), max_toi);
        let mut got = vec![("dispatch", cast_ray_aabb_x8_loosened(&ray, &boxes, &by, max_toi))];
        #[cfg(target_arch = "x86_64")]
        if SimdLevel::Avx.is_available() {
            // SAFETY: this CPU has AVX (checked just above).
            let avx =
                unsafe { proxima_narrowphase::kernels::cast_ray_aabb_x8_loosened_avx(&ray, &boxes, &by, max_toi) };
            got.push(("avx", avx));
        }
        for (name, hits) in got {
            assert_eq!(hits.mask, expected.mask, "{name}: pack {pack}, by {by:?}");
            for lane in (0..8).filter(|l| expected.mask >> l & 1 == 1) {
                assert_eq!(hits.toi[lane].to_bits(), expected.toi[lane].to_bits(), "{name}: pack {pack} lane {lane}");
            }
        }
        hits += expected.mask.count_ones() as usize;
        lanes_total += 8;
    }
    let rate = hits as f64 / lanes_total as f64;
    assert!((0.3..=0.8).contains(&rate), "hit rate {rate}");
}

#[test]
fn overlap_mask_lane_equals_overlap_mask_of_the_lane_box() {
    let mut r = proxima_test_support::rng(31);
    let p = proxima_test_support::gen::Placement::new(2.0, 0.0, 1.5);
    let mut hits = 0;
    for _ in 0..20_000 {
        let boxes: Vec<Aabb> = (0..8).map(|_| proxima_test_support::gen::aabb(&mut r, &p)).collect();
        let others: Vec<Aabb> = (0..6).map(|_| proxima_test_support::gen::aabb(&mut r, &p)).collect();
        let lanes = AabbLanes::<8>::from_boxes(&boxes);
        // Two padded lanes in `other`: they overlap nothing.
        let other = AabbLanes::<8>::from_boxes(&others);
        for lane in 0..8 {
            let expected = other.get(lane).map_or(0, |b| lanes.overlap_mask(&b));
            assert_eq!(lanes.overlap_mask_lane(&other, lane), expected, "lane {lane}");
            hits += expected.count_ones();
        }
    }
    // Both outcomes occur often enough for the comparison to mean something.
    assert!(hits > 96_000 && hits < 864_000, "{hits} of 960,000 lane pairs overlap");
}

/// `overlap_mask`, `overlap_mask_bounds` (SSE on x86_64) and the AVX
/// kernel `overlap_mask_x8_avx` against `intersects_aabb_aabb` lane by
/// lane, on 4- and 8-lane nodes with padded lanes, touching and nested boxes
/// and boxes on a coarse grid (so equal coordinates are common).
#[test]
fn overlap_mask_equals_the_scalar_test_lane_by_lane() {
    fn random_box(r: &mut impl Rng) -> Aabb {
        let corner = |r: &mut _| (uniform(r, -4.0, 4.0) * 2.0).round() / 2.0;
        let (a, b) = (Point::new(corner(r), corner(r), corner(r)), Point::new(corner(r), corner(r), corner(r)));
        Aabb::new(a.inf(&b), a.sup(&b))
    }
    fn check<const W: usize>(r: &mut impl Rng) {
        let used = r.random_range(0..=W);
        let boxes: Vec<Aabb> = (0..used).map(|_| random_box(r)).collect();
        let lanes = AabbLanes::<W>::from_boxes(&boxes);
        let query = random_box(r);
        let expected =
            boxes.iter().enumerate().fold(0u32, |m, (l, b)| m | (intersects_aabb_aabb(b, &query) as u32) << l);
        assert_eq!(lanes.overlap_mask(&query), expected, "{boxes:?} against {query:?}");
        let (min, max) = (query.min(), query.max());
        let (min, max) = ([min.x, min.y, min.z], [max.x, max.y, max.z]);
        assert_eq!(lanes.overlap_mask_bounds(&min, &max), expected, "bounds: {boxes:?} against {query:?}");
        #[cfg(target_arch = "x86_64")]
        if W == 8 && SimdLevel::Avx.is_available() {
            let lanes8 = AabbX8::from_boxes(&boxes);
            // SAFETY: this CPU has AVX (checked just above).
            let avx = unsafe { proxima_narrowphase::kernels::overlap_mask_x8_avx(&lanes8, &min, &max) };
            assert_eq!(avx, expected, "AVX: {boxes:?} against {query:?}");
        }
    }
    let mut r = rng(77);
    for _ in 0..50_000 {
        check::<4>(&mut r);
        check::<8>(&mut r);
    }
}
