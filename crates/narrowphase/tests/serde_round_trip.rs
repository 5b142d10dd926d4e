//! serde round trips of the shapes, rays and results (`--features serde`):
//! every value comes back bit for bit through serde_json.
//!
//! `cargo test --release -p proxima-narrowphase --features serde --test serde_round_trip`
#![cfg(feature = "serde")]

use proxima_narrowphase::*;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::rng;
use proxima_test_support::serde::round_trip;

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

/// Deserialization validates: every shape and ray is rebuilt by its
/// constructor, so a payload the constructor rejects is an error carrying
/// its `ShapeError` message. Each valid payload below is mutated in one field
/// (JSON has no NaN; a number beyond the f32 range reads as infinity).
#[test]
fn mutated_payloads_are_rejected() {
    use serde_json::{json, Value};
    fn reject<T: serde::de::DeserializeOwned + core::fmt::Debug>(v: Value, why: &str) {
        let r = serde_json::from_value::<T>(v.clone());
        let e = r.expect_err(&format!("accepted {v}")).to_string();
        assert!(e.contains(why), "{v}: error {e:?} does not say {why:?}");
    }
    let mutate = |v: &Value, path: &[&str], new: Value| {
        let mut v = v.clone();
        let mut at = &mut v;
        for p in path {
            at = match p.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*p],
            };
        }
        *at = new;
        v
    };
    let aabb = serde_json::to_value(Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 2.0, 3.0))).unwrap();
    reject::<Aabb>(mutate(&aabb, &["min", "0"], json!(1.5)), "min > max on axis 0");
    reject::<Aabb>(mutate(&aabb, &["max", "2"], json!(1e39)), "NaN or infinite");
    let sphere = serde_json::to_value(Sphere::new(Point::new(1.0, 2.0, 3.0), 0.5)).unwrap();
    reject::<Sphere>(mutate(&sphere, &["radius"], json!(-0.5)), "radius is negative");
    reject::<Sphere>(mutate(&sphere, &["radius"], json!(1e39)), "NaN or infinite");
    reject::<Sphere>(mutate(&sphere, &["center", "1"], json!(1e30)), "exceeds 1e18");
    let capsule = serde_json::to_value(Capsule::new(Point::origin(), Point::new(0.0, 1.0, 0.0), 0.5)).unwrap();
    reject::<Capsule>(mutate(&capsule, &["radius"], json!(-1.0)), "radius is negative");
    reject::<Capsule>(mutate(&capsule, &["b", "0"], json!(-3e38)), "exceeds 1e18");
    let tri = Triangle::new(Point::origin(), Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 0.0));
    let tri = serde_json::to_value(tri).unwrap();
    reject::<Triangle>(mutate(&tri, &["c", "2"], json!(-1e39)), "NaN or infinite");
    reject::<Triangle>(mutate(&tri, &["a", "0"], json!(2e18)), "exceeds 1e18");
    let rot = Rotation::from_euler_angles(0.1, 0.2, 0.3);
    let obb = serde_json::to_value(Obb::new(Point::new(1.0, 2.0, 3.0), rot, Vector::new(1.0, 2.0, 3.0))).unwrap();
    assert_eq!(obb.as_object().unwrap().len(), 3, "an Obb is written without its matrix: {obb}");
    reject::<Obb>(mutate(&obb, &["half_extents", "1"], json!(-2.0)), "half-extent or size is negative");
    reject::<Obb>(mutate(&obb, &["rotation", "0"], json!(0.9)), "not a unit quaternion");
    reject::<Obb>(mutate(&obb, &["center", "0"], json!(1e19)), "exceeds 1e18");
    let ray = serde_json::to_value(Ray::new(Point::origin(), Vector::x(), 10.0)).unwrap();
    reject::<Ray>(mutate(&ray, &["dir"], json!([0.0, 0.0, 0.0])), "zero length");
    reject::<Ray>(mutate(&ray, &["max_toi"], json!(-1.0)), "max_toi is negative");
    reject::<Ray>(mutate(&ray, &["origin", "1"], json!(1e39)), "NaN or infinite");
    // The unmutated payloads are accepted, and equal the originals.
    assert_eq!(
        serde_json::from_value::<Obb>(obb).unwrap(),
        Obb::new(Point::new(1.0, 2.0, 3.0), rot, Vector::new(1.0, 2.0, 3.0))
    );
    assert!(serde_json::from_value::<Aabb>(aabb).unwrap().is_valid());
    // An unbounded ray keeps `max_toi = f32::MAX` (its reach), so it
    // round-trips through JSON (which has no infinity) unchanged.
    let unbounded = Ray::new(Point::origin(), Vector::x(), f32::INFINITY);
    let json = serde_json::to_string(&unbounded).expect("serializes");
    assert_eq!(serde_json::from_str::<Ray>(&json).expect("round-trips"), unbounded, "{json}");
}
