//! `cast_obb_obb` on the cases its random differential test
//! (`gjk_vs_parry.rs`, `cast_obb_obb_closed_form`) rarely draws: parallel
//! faces and edges, flat boxes, starts in contact, zero and bad motions,
//! large coordinates.
//!
//! - Unrotated boxes against an f64 slab oracle (the swept boxes' overlap
//!   interval per world axis): every edge pair is parallel, so all nine
//!   edge axes drop out and the face axes must decide alone.
//! - Boxes turned about the same axis (three parallel edge pairs) and flat
//!   boxes against the generic cast (`cast_shape_convex`), whose time of
//!   impact is within `1e-5` of the motion (see `gjk_vs_parry.rs`).
//! - A pair moved far from the origin by an exact offset gives the same
//!   time of impact and normal, bit for bit.

use proxima_narrowphase::*;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{Rng, SmallRng};

/// Cases per test: 20,000 in release, a tenth in debug builds.
const CASES: usize = if cfg!(debug_assertions) { 2_000 } else { 20_000 };

/// Time-of-impact tolerance against the generic cast, in units of the
/// motion: the generic cast's own accuracy (`gjk_vs_parry.rs`).
const TOI_TOL: f64 = 1e-5;

/// A motion from `a` towards `b` (0.2..1.2 of the way) plus up to one unit
/// aside: about half hit.
fn towards(rng: &mut SmallRng, a: &Obb, b: &Obb) -> Vector {
    (b.center() - a.center()) * gen::uniform(rng, 0.2, 1.2) + gen::unit_vector(rng) * gen::uniform(rng, 0.0, 1.0)
}

/// The first `t` in `[0, 1]` at which the unrotated boxes `a` (moved by
/// `t m`) and `b` overlap, in f64 (their faces `c ± h` exact): per world
/// axis, the interval of `t` where the projections overlap; their
/// intersection's start.
fn slab_toi(a: &Obb, m: &Vector, b: &Obb) -> Option<f64> {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let faces = |o: &Obb, i: usize| {
        let (c, h) = (f64::from(o.center()[i]), f64::from(o.half_extents()[i]));
        (c - h, c + h)
    };
    for i in 0..3 {
        let ((amin, amax), (bmin, bmax)) = (faces(a, i), faces(b, i));
        let s = f64::from(m[i]);
        if s == 0.0 {
            if amax < bmin || bmax < amin {
                return None;
            }
            continue;
        }
        // Overlap while `amin + t s <= bmax` and `amax + t s >= bmin`.
        let (t1, t2) = ((bmin - amax) / s, (bmax - amin) / s);
        lo = lo.max(t1.min(t2));
        hi = hi.min(t1.max(t2));
    }
    (lo <= hi).then_some(lo)
}

#[test]
fn unrotated_boxes_match_the_slab_oracle() {
    let mut rng = proxima_test_support::rng(71);
    let p = Placement::new(2.5, 0.1, 1.0);
    let (mut hits, mut starts) = (0, 0);
    for k in 0..CASES {
        let a = Obb::new(gen::point(&mut rng, &p), Rotation::identity(), gen::half_extents(&mut rng, &p));
        let b = Obb::new(gen::point(&mut rng, &p), Rotation::identity(), gen::half_extents(&mut rng, &p));
        let m = towards(&mut rng, &a, &b);
        let exact = slab_toi(&a, &m, &b);
        let ours = cast_obb_obb(&a, &m, &b);
        match (ours, exact) {
            (Some(h), Some(t)) => {
                hits += 1;
                // Both exact in f64; the result's f32 rounding (`toi <= 1`).
                assert!((f64::from(h.toi) - t).abs() <= 1e-7, "case {k}: toi {} exact {t}", h.toi);
                if t <= 0.0 {
                    starts += 1;
                    assert_eq!(h.status, SweepStatus::Penetrating, "case {k}");
                    continue;
                }
                // The normal is a world axis, against the motion on it.
                let n = h.normal.into_inner();
                let axis = (0..3).max_by(|&i, &j| n[i].abs().total_cmp(&n[j].abs())).unwrap();
                assert!((n[axis].abs() - 1.0).abs() < 1e-6 && n[axis] * m[axis] <= 0.0, "case {k}: normal {n:?}");
                assert!(b.aabb().loosened(1e-5).contains_point(&h.point), "case {k}: point off B");
            }
            (None, None) => {}
            (o, e) => panic!("case {k}: ours {o:?}, exact {e:?}: {a:?} {b:?} {m:?}"),
        }
    }
    let rate = hits as f64 / CASES as f64;
    assert!((0.3..0.8).contains(&rate), "hit rate {rate}");
    assert!(starts > 0, "no start in contact drawn");
}

/// The least distance along the cast (golden-section search on the convex
/// distance), to tell grazing cases from clear ones.
fn least_distance(a: &Obb, m: &Vector, b: &Obb) -> Real {
    let d =
        |t: f64| distance_obb_obb(&Obb::new(a.center() + m * t as Real, *a.rotation(), *a.half_extents()), b).distance;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..60 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if d(x1) <= d(x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    d(0.5 * (lo + hi)).min(d(1.0))
}

/// Runs `CASES` casts drawn by `draw` against the generic cast; near
/// misses and grazing hits (a distance within `1e-4` along the way, or
/// `1e-3` of the motion before the contact) are counted apart.
fn against_generic(seed: u64, mut draw: impl FnMut(&mut SmallRng) -> (Obb, Obb)) {
    let mut rng = proxima_test_support::rng(seed);
    let (mut hits, mut grazing, mut worst) = (0, 0, 0.0f64);
    for k in 0..CASES {
        let (a, b) = draw(&mut rng);
        let m = towards(&mut rng, &a, &b);
        let (ours, generic) = (cast_obb_obb(&a, &m, &b), cast_shape_convex(&a, &m, &b));
        let before = |t: Real| {
            let s = (t - 1e-3).max(0.0);
            distance_obb_obb(&Obb::new(a.center() + m * s, *a.rotation(), *a.half_extents()), &b).distance
        };
        let graze = match generic {
            Some(h) => h.toi > 0.0 && before(h.toi) < 1e-4,
            None => least_distance(&a, &m, &b) < 1e-4,
        };
        if graze {
            grazing += 1;
            continue;
        }
        match (ours, generic) {
            (Some(h), Some(g)) => {
                hits += 1;
                let e = f64::from((h.toi - g.toi).abs());
                worst = worst.max(e);
                assert!(e <= TOI_TOL, "case {k}: toi {} generic {}: {a:?} {b:?} {m:?}", h.toi, g.toi);
                assert_eq!(h.status, g.status, "case {k}");
            }
            (None, None) => {}
            (o, g) => panic!("case {k}: ours {o:?}, generic {g:?}: {a:?} {b:?} {m:?}"),
        }
    }
    eprintln!("hits {hits}, grazing {grazing}, worst toi difference {worst:e}");
    assert!(hits * 4 > CASES, "too few hits: {hits}");
    assert!(grazing * 10 < CASES, "too many grazing cases: {grazing}");
}

#[test]
fn boxes_turned_about_one_axis_match_the_generic_cast() {
    let p = Placement::new(2.5, 0.1, 1.0);
    against_generic(72, |rng| {
        let axis = nalgebra::Unit::new_normalize(gen::unit_vector(rng));
        let turn = |rng: &mut SmallRng| Rotation::from_axis_angle(&axis, gen::uniform(rng, -3.2, 3.2));
        let a = Obb::new(gen::point(rng, &p), turn(rng), gen::half_extents(rng, &p));
        let b = Obb::new(gen::point(rng, &p), turn(rng), gen::half_extents(rng, &p));
        (a, b)
    });
}

#[test]
fn flat_boxes_match_the_generic_cast() {
    let p = Placement::new(2.5, 0.1, 1.0);
    against_generic(73, |rng| {
        let flat = |rng: &mut SmallRng| {
            let mut h = gen::half_extents(rng, &p);
            h[rng.random_range(0..3)] = 0.0;
            Obb::new(gen::point(rng, &p), gen::rotation(rng), h)
        };
        (flat(rng), flat(rng))
    });
}

#[test]
fn starts_in_contact_zero_and_bad_motions() {
    let unit = Vector::repeat(1.0);
    let a = Obb::new(Point::origin(), Rotation::identity(), unit);
    // Face to face, touching: a hit at once with the static contact's normal.
    let b = Obb::new(Point::new(2.0, 0.3, 0.0), Rotation::identity(), unit);
    let hit = cast_obb_obb(&a, &Vector::new(1.0, 0.0, 0.0), &b).expect("touching");
    assert_eq!((hit.toi, hit.status), (0.0, SweepStatus::Penetrating));
    assert_eq!(hit.normal, -contact_obb_obb(&a, &b).unwrap().normal);
    // Moving away from a touching box still starts in contact.
    assert!(cast_obb_obb(&a, &Vector::new(-1.0, 0.0, 0.0), &b).is_some());
    // Zero motion: the static test.
    let apart = Obb::new(Point::new(2.5, 0.0, 0.0), Rotation::identity(), unit);
    assert!(cast_obb_obb(&a, &Vector::zeros(), &apart).is_none());
    assert!(cast_obb_obb(&a, &Vector::zeros(), &b).is_some());
    // Exactly reaching at the end of the motion is a hit at 1.
    let hit = cast_obb_obb(&a, &Vector::new(0.5, 0.0, 0.0), &apart).expect("reaches");
    assert_eq!((hit.toi, hit.status), (1.0, SweepStatus::Hit));
    assert!(cast_obb_obb(&a, &Vector::new(0.49, 0.0, 0.0), &apart).is_none());
    // Moving parallel to the touching faces' plane but apart: never touches.
    assert!(cast_obb_obb(&a, &Vector::new(0.0, 5.0, 0.0), &apart).is_none());
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        assert!(cast_obb_obb(&a, &Vector::new(bad, 0.0, 0.0), &apart).is_none());
        assert!(cast_obb_obb(&a, &Vector::new(1.0, bad, 0.0), &b).is_none());
    }
}

#[test]
fn an_exact_offset_changes_nothing() {
    let mut rng = proxima_test_support::rng(74);
    let p = Placement::new(2.5, 0.1, 1.0);
    let mut hits = 0;
    // Centres within 4 units on a grid, offsets that keep them exact in f32
    // (24 bits from the offset's highest bit to the grid's).
    let settings =
        [(256.0, Vector::new(32_768.0, -16_384.0, 4_096.0)), (8.0, Vector::new(1_048_576.0, -1_048_576.0, 524_288.0))];
    for k in 0..CASES {
        let (grid, offset) = settings[k % 2];
        let c = |rng: &mut SmallRng| gen::point(rng, &p).map(|x: Real| (x * grid).round() / grid);
        let a = Obb::new(c(&mut rng), gen::rotation(&mut rng), gen::half_extents(&mut rng, &p));
        let b = Obb::new(c(&mut rng), gen::rotation(&mut rng), gen::half_extents(&mut rng, &p));
        let m = towards(&mut rng, &a, &b);
        let near = cast_obb_obb(&a, &m, &b);
        let moved = |o: &Obb| Obb::new(o.center() + offset, *o.rotation(), *o.half_extents());
        let far = cast_obb_obb(&moved(&a), &m, &moved(&b));
        assert_eq!(near.map(|h| (h.toi, h.normal, h.status)), far.map(|h| (h.toi, h.normal, h.status)), "case {k}");
        if let (Some(n), Some(f)) = (near, far) {
            // The point is placed from B's centre: the offset's rounding.
            let ulp = offset.amax() * Real::EPSILON;
            assert!((f.point - (n.point + offset)).amax() <= 2.0 * ulp, "case {k}");
        }
        hits += usize::from(near.is_some());
    }
    assert!(hits * 4 > CASES, "too few hits: {hits}");
}
