//! Boxes resting on boxes, the solver's everyday pair, scanned across the
//! touching boundary: `contact_obb_obb` and `contact_manifold_obb_obb` must
//! be `Some` exactly when `intersects_obb_obb` is true.
//!
//! The box-box SAT decides "touching" without the exact test when every one
//! of the fifteen axes overlaps by more than its rounding (and falls back to
//! `intersects_obb_obb` otherwise); these cases put that shortcut where it
//! is most exposed: small tilts (near-parallel edges, whose cross axes are
//! short), exactly aligned boxes (parallel edges), sinks from a clear gap
//! through exact touching to a clear overlap, at scales 0.01 to 1000 and
//! offsets up to 1e4 from the origin. No tolerance: the answers must agree
//! on every case.

use proxima_narrowphase::*;
use proxima_test_support::gen;

/// Cases per scale and offset.
const CASES: usize = 20_000;

/// A box of random half-extents (`0.05..1.5` times `scale`) at `origin`, and
/// a second one resting on its top face: tilted by `tilt` rad about a random
/// axis (0 for exactly aligned boxes), spun about z, slid within the top
/// face, and sunk by `sink` (negative: a gap) times `scale` along z.
fn resting(
    rng: &mut proxima_test_support::SmallRng,
    scale: Real,
    origin: Vector,
    tilt: Real,
    sink: Real,
) -> (Obb, Obb) {
    let size = |r: &mut _| Vector::from_fn(|_, _| gen::uniform(r, 0.05, 1.5) * scale);
    let (ha, hb) = (size(rng), size(rng));
    let a = Obb::new(Point::from(origin), Rotation::identity(), ha);
    let axis = gen::unit_vector(rng);
    let spin = if tilt == 0.0 {
        // Aligned: a quarter turn keeps every edge parallel to one of A's.
        Rotation::from_axis_angle(
            &Vector::z_axis(),
            std::f32::consts::FRAC_PI_2 * (gen::uniform(rng, 0.0, 4.0).floor()),
        )
    } else {
        Rotation::from_axis_angle(&Vector::z_axis(), gen::uniform(rng, -3.2, 3.2))
    };
    let rot = Rotation::from_scaled_axis(axis * tilt) * spin;
    let slide = Vector::new(gen::uniform(rng, -ha.x, ha.x), gen::uniform(rng, -ha.y, ha.y), 0.0);
    let reach = (rot.to_rotation_matrix().matrix().abs() * hb).z;
    let centre = origin + slide + Vector::z() * (ha.z + reach - sink * scale);
    (a, Obb::new(Point::from(centre), rot, hb))
}

#[test]
fn resting_boxes_agree_with_the_exact_test() {
    let mut rng = proxima_test_support::rng(0x2e57);
    let (mut touching, mut apart) = (0usize, 0usize);
    for scale in [0.01, 1.0, 1000.0] {
        for offset in [0.0, 100.0, 1e4] {
            let origin = Vector::new(offset, -offset, 0.5 * offset);
            for k in 0..CASES {
                // Tilts from exactly aligned through nearly parallel edges
                // (sine ~1e-6..1e-3, where the cross axes are short) to 0.3 rad.
                let tilt = match k % 4 {
                    0 => 0.0,
                    1 => 10f32.powf(gen::uniform(&mut rng, -6.0, -3.0)),
                    _ => gen::uniform(&mut rng, 0.0, 0.3),
                };
                // Sinks around touching: gaps and overlaps of 1e-7..1e-1 of
                // the scale, and exact touching.
                let sink = match k % 3 {
                    0 => 0.0,
                    1 => 10f32.powf(gen::uniform(&mut rng, -7.0, -1.0)),
                    _ => -(10f32.powf(gen::uniform(&mut rng, -7.0, -1.0))),
                };
                let (a, b) = resting(&mut rng, scale, origin, tilt, sink);
                let exact = intersects_obb_obb(&a, &b);
                let contact = contact_obb_obb(&a, &b);
                let manifold = contact_manifold_obb_obb(&a, &b, 0.0);
                assert_eq!(contact.is_some(), exact, "contact_obb_obb vs intersects: {a:?} {b:?}");
                assert_eq!(manifold.is_some(), exact, "manifold vs intersects: {a:?} {b:?}");
                if exact {
                    touching += 1;
                } else {
                    apart += 1;
                }
            }
        }
    }
    // Both sides of the boundary are exercised.
    assert!(touching > CASES && apart > CASES, "touching {touching}, apart {apart}");
}
