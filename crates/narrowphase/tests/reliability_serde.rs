//! serde round trips of the shapes, rays and results (`--features serde`):
//! every value comes back bit for bit through serde_json.
//!
//! `cargo test --release -p proxima-narrowphase --features serde --test reliability_serde`
#![cfg(feature = "serde")]

use proxima_narrowphase::*;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::rng;

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    let json = serde_json::to_string(value).expect("serialize");
    serde_json::from_str(&json).expect("deserialize")
}

/// `Debug` prints every f32 in its shortest exact form, so equal strings mean
/// equal bits (and -0.0 stays distinct from 0.0).
fn same<T: core::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

#[test]
fn shapes_round_trip_bit_for_bit() {
    let mut rng = rng(2026);
    for scale in [1e-3, 1.0, 1e3, 1e7] {
        let p = Placement::new(100.0 * scale, 0.1 * scale, 10.0 * scale);
        for _ in 0..500 {
            let (s, a, o, c, t) = (
                gen::sphere(&mut rng, &p),
                gen::aabb(&mut rng, &p),
                gen::obb(&mut rng, &p),
                gen::capsule(&mut rng, &p),
                gen::triangle(&mut rng, &p),
            );
            assert!(same(&round_trip(&s), &s) && same(&round_trip(&a), &a) && same(&round_trip(&o), &o));
            assert!(same(&round_trip(&c), &c) && same(&round_trip(&t), &t));
            let ray = Ray::new(*s.center(), gen::unit_vector(&mut rng), 1e3);
            assert!(same(&round_trip(&ray), &ray));
            if let Some(hit) = cast_ray_obb(&ray, &o) {
                assert!(same(&round_trip(&hit), &hit));
            }
            if let Some(c) = contact_sphere_obb(&s, &o) {
                assert!(same(&round_trip(&c), &c));
            }
            if let Some(h) = cast_sphere_obb(&s, &gen::unit_vector(&mut rng), &o) {
                assert!(same(&round_trip(&h), &h));
            }
        }
    }
    let pl = Plane::try_new(Point::new(1.0, 2.0, 3.0), Vector::new(0.0, -0.0, 1.0)).unwrap();
    assert!(same(&round_trip(&pl), &pl));
    let ray = Ray::new(Point::origin(), Vector::x(), f32::MAX);
    assert!(same(&round_trip(&ray), &ray));
}

/// Deserialization does not re-validate (derive-based serde fills the
/// private fields directly): an inverted box comes back as an `Aabb` that
/// `is_valid` rejects. Snapshots must come from trusted sources; a
/// validating `#[serde(try_from)]` would close this.
#[test]
fn deserialization_trusts_its_input() {
    let a: Aabb = serde_json::from_str(r#"{"min":[1.0,0.0,0.0],"max":[0.0,0.0,0.0]}"#).expect("parses");
    assert!(!a.is_valid());
    // An unbounded ray cannot be written to JSON (no infinity in JSON).
    let unbounded = Ray::new(Point::origin(), Vector::x(), f32::INFINITY);
    let json = serde_json::to_string(&unbounded).expect("serializes (as null)");
    assert!(serde_json::from_str::<Ray>(&json).is_err(), "{json}");
}
