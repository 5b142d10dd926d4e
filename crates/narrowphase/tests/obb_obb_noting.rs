//! `contact_obb_obb_noting` and `contact_manifold_obb_obb_noting` against the
//! functions without a note: the same answer, bit for bit (compared through
//! their `Debug` text, which spells every float exactly), whatever the note
//! holds, on pairs that move a little from frame to frame (as a pile's do)
//! and on pairs placed 1e-7 to 1e-3 of their size from contact, or from the
//! edge of a prediction, along each of the 15 axes;
//! a noted axis must be one that truly separates the boxes (an f64 face
//! projection), and notes must be taken (most apart pairs end on theirs).

use nalgebra::{UnitQuaternion, Vector3};
use proxima_narrowphase::*;
use proxima_test_support::{gen, rng, Rng, SmallRng};

type V = Vector3<f64>;

/// The predictions the manifolds are asked with: contacts only, a pile's, a
/// wide one, and NaN (taken as 0).
const PREDICTIONS: [Real; 4] = [0.0, 0.02, 0.1, Real::NAN];

/// Notes kept per pair: one for the contact, one per prediction.
const NOTES: usize = 1 + PREDICTIONS.len();

fn half_extents(rng: &mut SmallRng) -> Vector {
    Vector::from_fn(|_, _| rng.random_range(0.05..1.0))
}

/// The f64 separation of the boxes along face axis `k` (`0..3` A's, `3..6`
/// B's): `|d . L| - r_a(L) - r_b(L)` with the rotations normalised in f64.
fn face_separation(a: &Obb, b: &Obb, k: usize) -> f64 {
    let axes =
        |o: &Obb| UnitQuaternion::new_normalize(o.rotation().as_ref().cast::<f64>()).to_rotation_matrix().into_inner();
    let (ra, rb) = (axes(a), axes(b));
    let l: V = if k < 3 { ra.column(k).into_owned() } else { rb.column(k - 3).into_owned() };
    let radius = |r: &nalgebra::Matrix3<f64>, h: &Vector| {
        (0..3).map(|i| f64::from(h[i]) * r.column(i).dot(&l).abs()).sum::<f64>()
    };
    let d: V = (b.center() - a.center()).cast();
    d.dot(&l).abs() - radius(&ra, a.half_extents()) - radius(&rb, b.half_extents())
}

/// Counts of one run.
#[derive(Default, Debug)]
struct Tally {
    calls: usize,
    /// Calls that found no contact.
    apart: usize,
    /// Calls that came in with a note and left with the same one, apart.
    kept_note: usize,
}

/// Both noting functions on `a`, `b` with `note` (updated, one note per
/// function as a pipeline keeps one per pair and mode), against the plain
/// functions.
fn check(a: &Obb, b: &Obb, notes: &mut [SeparatingAxis; NOTES], tally: &mut Tally) {
    let before = *notes;
    let plain = contact_obb_obb(a, b);
    let noted = contact_obb_obb_noting(a, b, &mut notes[0]);
    assert_eq!(format!("{noted:?}"), format!("{plain:?}"), "contact, note {:?}\n  a {a:?}\n  b {b:?}", before[0]);
    for (p, &prediction) in PREDICTIONS.iter().enumerate() {
        let plain = contact_manifold_obb_obb(a, b, prediction);
        let noted = contact_manifold_obb_obb_noting(a, b, prediction, &mut notes[p + 1]);
        assert_eq!(
            format!("{noted:?}"),
            format!("{plain:?}"),
            "manifold within {prediction}, note {:?}\n  a {a:?}\n  b {b:?}",
            before[p + 1]
        );
        let apart = plain.is_none();
        if !apart {
            assert_eq!(notes[p + 1], SeparatingAxis::NONE, "a note on boxes within {prediction}");
        }
    }
    for (k, note) in notes.iter().enumerate() {
        let prediction = if k == 0 { 0.0 } else { PREDICTIONS[k - 1] };
        if let Some(face) = note.face() {
            let sep = face_separation(a, b, face);
            let prediction = if prediction > 0.0 { f64::from(prediction) } else { 0.0 };
            assert!(sep > prediction, "noted face {face} separates by {sep:e} only\n  a {a:?}\n  b {b:?}");
        }
        tally.calls += 1;
        let found = if k == 0 { plain.is_some() } else { contact_manifold_obb_obb(a, b, prediction).is_some() };
        if !found {
            tally.apart += 1;
            tally.kept_note += usize::from(before[k] != SeparatingAxis::NONE && before[k] == *note);
        }
    }
}

/// Pairs of a pile: a random pair near contact, then 16 frames in which B
/// moves by up to 0.03 and turns by up to 0.03 rad a frame, the notes
/// carried from frame to frame.
#[test]
fn notes_carried_over_frames_change_no_answer() {
    let mut rng = rng(0x5A7);
    let mut tally = Tally::default();
    for i in 0..20_000 {
        let origin = if i % 16 == 3 { Point::new(4e3, -1e3, 2.5e3) } else { Point::origin() };
        let a = Obb::new(origin, gen::rotation(&mut rng), half_extents(&mut rng));
        let reach = a.half_extents().norm() + 1.0;
        let mut centre = origin + gen::unit_vector(&mut rng) * rng.random_range(0.0..reach);
        let mut rotation = gen::rotation(&mut rng);
        let hb = half_extents(&mut rng);
        let mut notes = [SeparatingAxis::NONE; NOTES];
        for _ in 0..16 {
            let b = Obb::new(centre, rotation, hb);
            check(&a, &b, &mut notes, &mut tally);
            centre += gen::unit_vector(&mut rng) * rng.random_range(0.0..0.03);
            rotation =
                UnitQuaternion::from_scaled_axis(gen::unit_vector(&mut rng) * rng.random_range(0.0..0.03)) * rotation;
        }
    }
    println!("{tally:?}");
    assert!(tally.apart * 10 > tally.calls * 3, "too few pairs apart: {tally:?}");
    // Most apart pairs stay apart along the axis noted a frame before.
    assert!(tally.kept_note * 2 > tally.apart, "notes not taken: {tally:?}");
}

/// Every note, right or wrong, on pairs placed at a signed gap of 1e-7 to
/// 1e-3 of the boxes' size (log-uniform, either sign) from contact along one
/// of the 15 axes, or at such a gap from the edge of a prediction, and on
/// random pairs; some boxes tiny or flat, some pairs 1e6 from the origin:
/// the answer stays the plain one.
#[test]
fn any_note_on_near_touching_pairs_changes_no_answer() {
    let mut rng = rng(0x5A8);
    let mut tally = Tally::default();
    let mut seen = [0usize; 6];
    let mut per_axis = [0usize; 15];
    for i in 0..60_000 {
        let ra = gen::rotation(&mut rng);
        let rb = match i % 4 {
            0 => ra * UnitQuaternion::from_axis_angle(&Vector::x_axis(), rng.random_range(-3.2..3.2f32)),
            _ => gen::rotation(&mut rng),
        };
        let origin = if i % 7 == 3 { Point::new(1e6, -2e6, 5e5) } else { Point::origin() };
        let mut sizes = || match rng.random_range(0..10) {
            0 => Vector::new(0.0, rng.random_range(0.05..1.0), 0.0),
            1 => Vector::repeat(1e-30),
            _ => half_extents(&mut rng),
        };
        let (ha, hb) = (sizes(), sizes());
        let a = Obb::new(origin, ra, ha);
        let b = if i % 5 == 0 {
            Obb::new(origin + gen::unit_vector(&mut rng) * rng.random_range(0.0..3.0f32), rb, hb)
        } else {
            let probe = Obb::new(origin, rb, hb);
            let axis = rng.random_range(0..15usize);
            let l: Vector = match axis {
                0..=2 => a.axes().column(axis).into(),
                3..=5 => probe.axes().column(axis - 3).into(),
                k => a.axes().column((k - 6) / 3).cross(&probe.axes().column((k - 6) % 3)),
            };
            let Some(l) = l.try_normalize(1e-3) else { continue };
            per_axis[axis] += 1;
            let radius = |o: &Obb| (0..3).map(|k| o.half_extents()[k] * o.axes().column(k).dot(&l).abs()).sum::<Real>();
            let size = radius(&a) + radius(&probe);
            let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let edge = if rng.random_bool(0.25) { PREDICTIONS[rng.random_range(1..3)] } else { 0.0 };
            let gap = edge + 10f32.powf(rng.random_range(-7.0..-3.0)) * size.max(1e-3) * sign;
            let across = gen::unit_vector(&mut rng);
            let across = (across - l * across.dot(&l)) * rng.random_range(0.0..0.5);
            Obb::new(origin + l * (size + gap) + across, rb, hb)
        };
        for face in 0..=6usize {
            // No note, then a note from another pair: B moved far along
            // each face axis in turn.
            let mut note = SeparatingAxis::NONE;
            if face < 6 {
                let far = Obb::new(b.center() + far_along(&a, &b, face), *b.rotation(), hb);
                assert!(contact_obb_obb_noting(&a, &far, &mut note).is_none());
                seen[note.face().expect("far apart along a face")] += 1;
            }
            check(&a, &b, &mut [note; NOTES], &mut tally);
        }
        // And every face noted directly.
        for face in 0..6 {
            let note = SeparatingAxis::from_face(face).unwrap();
            check(&a, &b, &mut [note; NOTES], &mut tally);
        }
    }
    println!("{tally:?}, notes {seen:?}, axes {per_axis:?}");
    assert!(seen.iter().all(|&n| n > 10_000), "every face noted: {seen:?}");
    assert!(per_axis.iter().all(|&n| n > 1_000), "every axis placed: {per_axis:?}");
}

/// Boxes of subnormal size and offset: the relative band rounds to nothing
/// there, and a note must still not decide where the full test's rounding
/// finds the boxes touching (A turned so that its axes hold 0.5 and
/// 0.70710683, B one subnormal step off along -x and +y).
#[test]
fn a_note_on_subnormal_boxes_changes_no_answer() {
    let q = nalgebra::Quaternion::new(0.35355338f32, 0.8535534, 0.35355338, 0.14644662);
    let a = Obb::new(Point::origin(), UnitQuaternion::new_unchecked(q), Vector::zeros());
    let tiny = f32::from_bits(1);
    let b = Obb::new(Point::new(-tiny, tiny, 0.0), UnitQuaternion::identity(), Vector::zeros());
    let plain = contact_obb_obb(&a, &b);
    for face in 0..6 {
        let mut note = SeparatingAxis::from_face(face).unwrap();
        assert_eq!(format!("{:?}", contact_obb_obb_noting(&a, &b, &mut note)), format!("{plain:?}"), "face {face}");
        for prediction in [0.0, f32::NAN, -1.0] {
            let mut note = SeparatingAxis::from_face(face).unwrap();
            let noted = contact_manifold_obb_obb_noting(&a, &b, prediction, &mut note);
            let plain = contact_manifold_obb_obb(&a, &b, prediction);
            assert_eq!(format!("{noted:?}"), format!("{plain:?}"), "face {face}, prediction {prediction}");
        }
    }
}

/// A shift that puts B 100 units farther along face axis `k` of the pair.
fn far_along(a: &Obb, b: &Obb, k: usize) -> Vector {
    let l: Vector = if k < 3 { a.axes().column(k).into() } else { b.axes().column(k - 3).into() };
    l * 100.0
}
