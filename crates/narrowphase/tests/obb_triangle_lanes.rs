//! `kernels::contact_manifolds_obb_triangle_x8` (one box against eight
//! triangles in SSE2 lanes) against `contact_manifold_obb_triangle` on each
//! triangle: the same lanes get a manifold, and each manifold is the
//! per-pair one bit for bit (normal, and every point's coordinates, depth
//! and id compared as bits).
//!
//! Boxes of sizes 0.05 to 2 at random poses, axis-aligned one time in
//! four (a box resting on a flat mesh); blocks of eight triangles from
//! random ones near the box, triangles lying on or just above a box face
//! (face contacts and face gaps), triangles with an edge along a box axis
//! (edge crosses of zero length: the axes the test skips), slivers,
//! degenerate triangles (a repeated vertex, three on a line), and
//! triangles far beyond the prediction; unused lanes of NaN, random lane
//! masks; predictions from 0 to 1 (and a negative one, taken as 0); at the
//! origin and at `1e4`.

use proxima_narrowphase::kernels::{contact_manifolds_obb_triangle_x8, TriangleLanes, TRIANGLE_LANES};
use proxima_narrowphase::*;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{rng, Rng, SmallRng};

const BLOCKS: usize = if cfg!(debug_assertions) { 2_000 } else { 30_000 };

/// The bits of a manifold, for an exact comparison.
fn bits(m: &ContactManifold) -> Vec<u32> {
    let mut out: Vec<u32> = m.normal.iter().map(|x| x.to_bits()).collect();
    for p in m.points() {
        out.extend(p.point_a.iter().chain(p.point_b.iter()).map(|x| x.to_bits()));
        out.push(p.depth.to_bits());
        out.push(p.id);
    }
    out
}

/// A triangle near box `b`, of one of the kinds in the module comment.
fn triangle_near(r: &mut SmallRng, b: &Obb, place: &Placement) -> Triangle {
    let h = *b.half_extents();
    let local = |r: &mut SmallRng, k: usize, height: Real| {
        // A point on the plane `x_k = h_k + height` (box frame), over or
        // beyond the face.
        let mut p = Vector::zeros();
        for j in 0..3 {
            p[j] = gen::uniform(r, -1.6 * h[j], 1.6 * h[j]);
        }
        p[k] = h[k] + height;
        b.to_world(&p)
    };
    match r.random_range(0..6) {
        0 | 1 => {
            // On or just above a box face, flat or slightly tilted.
            let k = r.random_range(0..3);
            let height = match r.random_range(0..3) {
                0 => 0.0,
                1 => gen::uniform(r, -0.05, 0.05),
                _ => gen::uniform(r, 0.0, 0.8),
            };
            let tilt = if r.random_bool(0.5) { 0.0 } else { gen::uniform(r, -0.02, 0.02) };
            Triangle::new(local(r, k, height), local(r, k, height + tilt), local(r, k, height - tilt))
        }
        2 => {
            // An edge along a box axis.
            let t = gen::triangle(r, place);
            let axis = r.random_range(0..3);
            let along = b.axes().column(axis).into_owned() * gen::uniform(r, 0.1, 1.0);
            Triangle::new(*t.a(), t.a() + along, *t.c())
        }
        3 => {
            // A sliver, or a degenerate triangle (a repeated vertex, or three
            // on a line): the plane test and the normal axis skip it.
            let t = gen::triangle(r, place);
            match r.random_range(0..3) {
                0 => Triangle::new(*t.a(), *t.b(), t.a() + (t.b() - t.a()) * 0.5 + gen::unit_vector(r) * 1e-3),
                1 => Triangle::new(*t.a(), *t.a(), *t.c()),
                _ => Triangle::new(*t.a(), *t.b(), t.a() + (t.b() - t.a()) * 0.25),
            }
        }
        4 => {
            // Far away.
            let t = gen::triangle(r, place);
            let shift = gen::unit_vector(r) * 10.0;
            Triangle::new(t.a() + shift, t.b() + shift, t.c() + shift)
        }
        _ => gen::triangle(r, place),
    }
}

#[test]
fn lanes_are_the_per_pair_manifolds_bit_for_bit() {
    let mut r = rng(0x0B7A);
    let (mut compared, mut some) = (0usize, 0usize);
    for block in 0..BLOCKS {
        let origin = if block % 2 == 0 { Point::origin() } else { Point::new(1e4, -1e4, 1e4) };
        let place = Placement::new(1.5, 0.05, 2.0).at(origin);
        let b = if r.random_range(0..4) == 0 {
            Obb::new(gen::point(&mut r, &place), Rotation::identity(), gen::half_extents(&mut r, &place))
        } else {
            gen::obb(&mut r, &place)
        };
        let used = r.random_range(1..=TRIANGLE_LANES);
        let tris: Vec<Triangle> = (0..used).map(|_| triangle_near(&mut r, &b, &place)).collect();
        let mut lanes: TriangleLanes = [[[Real::NAN; TRIANGLE_LANES]; 3]; 3];
        for (l, t) in tris.iter().enumerate() {
            for (k, p) in t.vertices().iter().enumerate() {
                for axis in 0..3 {
                    lanes[k][axis][l] = p[axis];
                }
            }
        }
        let mask = if r.random_bool(0.5) { (1u32 << used) - 1 } else { r.random_range(0..1u32 << used) };
        let prediction = match r.random_range(0..8) {
            0 => 0.0,
            1 => -0.1,
            _ => r.random_range(0.0..1.0),
        };
        let mut got: Vec<Option<ContactManifold>> = vec![None; TRIANGLE_LANES];
        let mut last = None;
        contact_manifolds_obb_triangle_x8(&b, &lanes, mask, prediction, |lane, m| {
            assert!(last.is_none_or(|l| lane > l), "block {block}: lanes out of order");
            last = Some(lane);
            got[lane] = Some(m);
        });
        for (l, t) in tris.iter().enumerate() {
            let expected = if mask >> l & 1 == 1 { contact_manifold_obb_triangle(&b, t, prediction) } else { None };
            assert_eq!(
                got[l].as_ref().map(bits),
                expected.as_ref().map(bits),
                "block {block}, lane {l}: {b:?} {t:?} prediction {prediction}"
            );
            compared += 1;
            some += usize::from(expected.is_some());
        }
    }
    // The blocks reach both answers often.
    assert!(some > compared / 5 && some < compared * 4 / 5, "{some} manifolds in {compared} lanes");
}
