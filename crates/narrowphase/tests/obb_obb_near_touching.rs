//! OBB-OBB at the edge of contact: `intersects_obb_obb`, `contact_obb_obb`
//! and the box-box manifold against an f64 separating-axis oracle, on random
//! pairs and on pairs placed 1e-7 to 1e-5 apart or overlapping along each of
//! the 15 axes.
//!
//! The oracle: the boxes as their rotations define them (the quaternion
//! normalised in f64, every f32 input taken exactly), and the signed
//! separation `sep = max_L (|d . L| - r_a(L) - r_b(L))` over the 15 unit axes
//! (6 face normals, the 9 edge cross products longer than 1e-9). For two
//! boxes `sep > 0` is exact separation by at least `sep`; `sep <= 0` is an
//! overlap (its depth is at most `-sep`).
//!
//! The bands: the library's f32 SAT works on axes rounded to ~6e-8 and on
//! offsets `t` with a few f32 roundings, and pads every projected radius
//! (see `intersects_obb_obb`), so it may call boxes touching that are apart
//! by up to `TOUCH_BAND = 1e-6 (|t|_1 + sum h_a + sum h_b)` on a face axis,
//! that divided by the sine between the edges on an edge axis. A pair it
//! separates by less than its rounding is decided again in f64 on the
//! rotations themselves, exact to ~1e-8 of the same sum (the near-parallel
//! edge pairs too): `MISS_BAND = 1e-8` of it. The f32 axes alone are off by
//! ~6e-8, so a test that trusted them misses overlaps of ~1e-7. So:
//! - `sep < -MISS_BAND` (overlap) must be reported as intersecting by all
//!   three tests (the manifold with a prediction of 0 must have a point);
//! - `sep > TOUCH_BAND / sine` must be reported apart by the intersection
//!   test;
//! - the three agree on every pair (the contact and the manifold take the
//!   intersection test as their definition of touching).

use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use proxima_narrowphase::*;
use proxima_test_support::{gen, rng, Rng, SmallRng};

type V = Vector3<f64>;

/// The bands, relative to `|t|_1 + sum h` (see the module doc).
const MISS_BAND: f64 = 1e-8;
const TOUCH_BAND: f64 = 1e-6;

struct Box64 {
    c: V,
    a: Matrix3<f64>,
    h: V,
}

fn box64(o: &Obb) -> Box64 {
    let q = UnitQuaternion::new_normalize(o.rotation().as_ref().cast::<f64>());
    Box64 { c: o.center().coords.cast(), a: q.to_rotation_matrix().into_inner(), h: o.half_extents().cast() }
}

/// `(sep, sine)`: the signed separation of the boxes and, for the axis that
/// gives it, the length of the cross product it came from (1 for a face).
fn separation(a: &Box64, b: &Box64) -> (f64, f64) {
    let d = b.c - a.c;
    let radius = |x: &Box64, l: &V| (0..3).map(|k| x.h[k] * x.a.column(k).dot(l).abs()).sum::<f64>();
    let mut best = (f64::NEG_INFINITY, 1.0);
    let mut consider = |l: V, sine: f64| {
        let s = d.dot(&l).abs() - radius(a, &l) - radius(b, &l);
        if s > best.0 {
            best = (s, sine);
        }
    };
    for k in 0..3 {
        consider(a.a.column(k).into_owned(), 1.0);
        consider(b.a.column(k).into_owned(), 1.0);
    }
    for i in 0..3 {
        for j in 0..3 {
            let l = a.a.column(i).cross(&b.a.column(j));
            let len = l.norm();
            if len > 1e-9 {
                consider(l / len, len);
            }
        }
    }
    best
}

/// `|t|_1 + sum h`: the scale of the bands.
fn scale(a: &Box64, b: &Box64) -> f64 {
    (a.c - b.c).abs().sum() + a.h.sum() + b.h.sum()
}

fn half_extents(rng: &mut SmallRng) -> Vector {
    Vector::from_fn(|_, _| rng.random_range(0.2..1.0))
}

/// Tallies of one run.
#[derive(Default)]
struct Tally {
    pairs: usize,
    overlapping: usize,
    missed: Vec<String>,
    false_overlaps: usize,
    disagreements: usize,
}

impl Tally {
    /// Checks one pair against the oracle.
    fn check(&mut self, a: &Obb, b: &Obb) {
        let (a64, b64) = (box64(a), box64(b));
        let (sep, sine) = separation(&a64, &b64);
        let scale = scale(&a64, &b64);
        self.pairs += 1;
        let hit = intersects_obb_obb(a, b);
        let contact = contact_obb_obb(a, b);
        let manifold = contact_manifold_obb_obb(a, b, 0.0);
        if sep <= 0.0 {
            self.overlapping += 1;
        }
        if hit != contact.is_some() || hit != manifold.is_some() {
            self.disagreements += 1;
        }
        if sep < -MISS_BAND * scale && !(hit && contact.is_some() && manifold.is_some()) {
            self.missed.push(format!(
                "overlap {:.3e}: intersects {hit}, contact {}, manifold {}\n  a {a:?}\n  b {b:?}",
                -sep,
                contact.is_some(),
                manifold.is_some()
            ));
        } else if sep > TOUCH_BAND * scale / sine && hit {
            self.false_overlaps += 1;
        }
    }

    fn assert_ok(&self, what: &str) {
        println!(
            "{what}: {} pairs, {} overlapping, {} missed overlaps, {} overlaps reported beyond the band, \
             {} disagreements between the three tests",
            self.pairs,
            self.overlapping,
            self.missed.len(),
            self.false_overlaps,
            self.disagreements
        );
        let shown = self.missed.iter().take(5).cloned().collect::<Vec<_>>().join("\n");
        assert!(self.missed.is_empty(), "{what}: overlaps reported apart:\n{shown}");
        assert_eq!(self.disagreements, 0, "{what}: intersects, contact and manifold disagree");
        assert_eq!(self.false_overlaps, 0, "{what}: separated pairs reported overlapping");
    }
}

/// Random pairs: one box at the origin, the other at a random direction
/// times U(0, 3), half-extents U(0.2, 1), random rotations.
#[test]
fn obb_obb_random_pairs_agree_with_the_f64_sat() {
    let mut rng = rng(3201);
    let mut tally = Tally::default();
    for _ in 0..1_000_000 {
        let a = Obb::new(Point::origin(), gen::rotation(&mut rng), half_extents(&mut rng));
        let dir = gen::unit_vector(&mut rng);
        let centre = Point::from(dir * rng.random_range(0.0..3.0f32));
        let b = Obb::new(centre, gen::rotation(&mut rng), half_extents(&mut rng));
        tally.check(&a, &b);
    }
    let rate = tally.overlapping as f64 / tally.pairs as f64;
    assert!((0.3..=0.7).contains(&rate), "overlap rate {rate}");
    tally.assert_ok("random pairs");
}

/// Pairs placed along one of the 15 axes (computed from the f64 boxes) at a
/// signed gap of 1e-7 to 1e-5 (log-uniform, either sign) from contact on
/// that axis, with a small random offset across it; plus pairs whose
/// rotations share an axis (parallel edges), and large offsets from the
/// origin.
#[test]
fn obb_obb_near_touching_on_every_axis() {
    let mut rng = rng(3202);
    let mut tally = Tally::default();
    let mut per_axis = [0usize; 15];
    for i in 0..600_000 {
        let ra = gen::rotation(&mut rng);
        let rb = match i % 4 {
            // B turned about one of A's axes: edges parallel to A's.
            0 => ra * UnitQuaternion::from_axis_angle(&Vector::x_axis(), rng.random_range(-3.2..3.2f32)),
            _ => gen::rotation(&mut rng),
        };
        let origin = if i % 8 == 1 { Point::new(1e3, -2e3, 5e2) } else { Point::origin() };
        let a = Obb::new(origin, ra, half_extents(&mut rng));
        let hb = half_extents(&mut rng);
        let probe = Obb::new(origin, rb, hb);
        let (a64, b64) = (box64(&a), box64(&probe));
        let axis = rng.random_range(0..15usize);
        let l = match axis {
            0..=2 => a64.a.column(axis).into_owned(),
            3..=5 => b64.a.column(axis - 3).into_owned(),
            k => a64.a.column((k - 6) / 3).cross(&b64.a.column((k - 6) % 3)),
        };
        let Some(l) = l.try_normalize(1e-6) else { continue };
        let radius = |x: &Box64| (0..3).map(|k| x.h[k] * x.a.column(k).dot(&l).abs()).sum::<f64>();
        let gap = 10f64.powf(rng.random_range(-7.0..-5.0)) * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let across = gen::unit_vector(&mut rng).cast::<f64>();
        let across = (across - l * across.dot(&l)) * rng.random_range(0.0..0.5);
        let d = l * (radius(&a64) + radius(&b64) + gap) + across;
        let b = Obb::new(origin + d.cast::<Real>(), rb, hb);
        per_axis[axis] += 1;
        tally.check(&a, &b);
    }
    assert!(per_axis.iter().all(|&n| n > 10_000), "{per_axis:?}");
    tally.assert_ok("near touching");
}
