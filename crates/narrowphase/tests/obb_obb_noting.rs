//! `contact_obb_obb_noting` and `contact_manifold_obb_obb_noting` against the
//! functions without a note: the same answer, bit for bit (compared through
//! their `Debug` text, which spells every float exactly), whatever the note
//! holds, on pairs that move a little from frame to frame (as a pile's do)
//! and on pairs placed 1e-7 to 1e-5 from contact along each of the 15 axes;
//! a noted axis must be one that truly separates the boxes (an f64 face
//! projection), and notes must be taken (most apart pairs end on theirs).

use nalgebra::{UnitQuaternion, Vector3};
use proxima_narrowphase::*;
use proxima_test_support::{gen, rng, Rng, SmallRng};

type V = Vector3<f64>;

/// The predictions the manifolds are asked with: contacts only, a pile's, a
/// wide one.
const PREDICTIONS: [Real; 3] = [0.0, 0.02, 0.1];

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
fn check(a: &Obb, b: &Obb, notes: &mut [SeparatingAxis; 4], tally: &mut Tally) {
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
            assert!(sep > f64::from(prediction), "noted face {face} separates by {sep:e} only\n  a {a:?}\n  b {b:?}");
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
        let mut notes = [SeparatingAxis::NONE; 4];
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
/// 1e-5 (log-uniform, relative to the boxes' size) from contact along one
/// of the 15 axes, and on random pairs: the answer stays the plain one.
#[test]
fn any_note_on_near_touching_pairs_changes_no_answer() {
    let mut rng = rng(0x5A8);
    let mut tally = Tally::default();
    let mut seen = [0usize; 6];
    for i in 0..60_000 {
        let ra = gen::rotation(&mut rng);
        let rb = match i % 4 {
            0 => ra * UnitQuaternion::from_axis_angle(&Vector::x_axis(), rng.random_range(-3.2..3.2f32)),
            _ => gen::rotation(&mut rng),
        };
        let a = Obb::new(Point::origin(), ra, half_extents(&mut rng));
        let hb = half_extents(&mut rng);
        let b = if i % 5 == 0 {
            Obb::new(Point::from(gen::unit_vector(&mut rng) * rng.random_range(0.0..3.0f32)), rb, hb)
        } else {
            let probe = Obb::new(Point::origin(), rb, hb);
            let axis = rng.random_range(0..6usize);
            let l: Vector = if axis < 3 { a.axes().column(axis).into() } else { probe.axes().column(axis - 3).into() };
            let radius = |o: &Obb| (0..3).map(|k| o.half_extents()[k] * o.axes().column(k).dot(&l).abs()).sum::<Real>();
            let size = radius(&a) + radius(&probe);
            let gap = 10f32.powf(rng.random_range(-7.0..-5.0)) * size * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let across = gen::unit_vector(&mut rng);
            let across = (across - l * across.dot(&l)) * rng.random_range(0.0..0.5);
            Obb::new(Point::from(l * (size + gap) + across), rb, hb)
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
            check(&a, &b, &mut [note; 4], &mut tally);
        }
    }
    println!("{tally:?}, notes {seen:?}");
    assert!(seen.iter().all(|&n| n > 10_000), "every face noted: {seen:?}");
}

/// A shift that puts B 100 units farther along face axis `k` of the pair.
fn far_along(a: &Obb, b: &Obb, k: usize) -> Vector {
    let l: Vector = if k < 3 { a.axes().column(k).into() } else { b.axes().column(k - 3).into() };
    l * 100.0
}
