//! Box-triangle and capsule-triangle contacts (the pieces of box-mesh and
//! capsule-mesh contacts) against parry3d 0.31 and f64 oracles.
//!
//! For each case: `Some` exactly when the shapes intersect (parry's exact
//! cuboid-triangle SAT; an f64 distance oracle for capsules, outside a 1e-4
//! tangency band); moving the triangle out by the depth (plus 1e-4) along our
//! normal separates the shapes (the depth is enough); and the depth is at most
//! the support-function overlap along parry's contact normal (f64), an upper
//! bound of the true penetration (the depth is not too much).

mod common_np;

use common_np::closest_on_triangle_f64;
use nalgebra::Vector3;
use parry3d::query;
use proxima_narrowphase::*;
use proxima_test_support::convert;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::minimize::convex_min;

const CASES: usize = 200_000;
type V = Vector3<f64>;

fn tri_f64(t: &Triangle) -> [V; 3] {
    t.vertices().map(|p| p.coords.cast())
}

/// Distance from segment `[p, q]` to the triangle, f64: `t -> |x(t) - closest|`
/// is convex, so golden-section search finds its minimum.
fn segment_triangle_distance(p: &V, q: &V, tri: &[V; 3]) -> f64 {
    let f = |t: f64| {
        let x = p + (q - p) * t;
        (x - closest_on_triangle_f64(&x, &tri[0], &tri[1], &tri[2])).norm()
    };
    convex_min(f, 0.0, 1.0, 80).value
}

fn support_triangle(tri: &[V; 3], n: &V) -> f64 {
    tri.iter().map(|v| v.dot(n)).fold(f64::NEG_INFINITY, f64::max)
}

fn support_obb(o: &Obb, n: &V) -> f64 {
    let axes = o.axes().cast::<f64>();
    o.center().coords.cast::<f64>().dot(n)
        + (0..3).map(|j| o.half_extents()[j] as f64 * axes.column(j).dot(n).abs()).sum::<f64>()
}

fn support_capsule(c: &Capsule, n: &V) -> f64 {
    c.a().coords.cast::<f64>().dot(n).max(c.b().coords.cast::<f64>().dot(n)) + c.radius() as f64
}

fn moved(t: &Triangle, d: &Vector) -> Triangle {
    Triangle::new(t.a() + d, t.b() + d, t.c() + d)
}

#[test]
fn obb_triangle_contact_matches_parry() {
    let mut rng = proxima_test_support::rng(0x0B7);
    let place = Placement::new(0.6, 0.1, 1.0);
    let (mut hits, mut compared) = (0, 0);
    for i in 0..CASES {
        let obb = gen::obb(&mut rng, &place);
        let tri = gen::triangle(&mut rng, &place);
        let (po, pbox) = convert::cuboid(&obb);
        let (pt, ptri) = convert::triangle(&tri);
        let truth = query::intersection_test(&po, &pbox, &pt, &ptri).unwrap().intersecting;
        let ours = contact_obb_triangle(&obb, &tri);
        assert_eq!(ours.is_some(), truth, "case {i}: {obb:?} {tri:?}");
        let Some(c) = ours else { continue };
        hits += 1;
        assert!(c.depth >= 0.0 && (c.normal.norm() - 1.0).abs() < 1e-5);
        let out = moved(&tri, &(c.normal.into_inner() * (c.depth + 1e-4)));
        let (pt2, ptri2) = convert::triangle(&out);
        assert!(
            !query::intersection_test(&po, &pbox, &pt2, &ptri2).unwrap().intersecting,
            "case {i}: depth {} too small",
            c.depth
        );
        if let Ok(Some(t)) = query::contact(&po, &pbox, &pt, &ptri, 0.0) {
            let n: V = convert::from_vec(t.normal1).cast::<f64>().normalize();
            let bound = support_obb(&obb, &n) + support_triangle(&tri_f64(&tri), &-n);
            // Face axes are preferred unless an edge axis is 0.1% shallower
            // (stability), so the depth may exceed the least overlap by that much.
            assert!(
                c.depth as f64 <= bound * (1.0 + 1e-3) + 1e-4,
                "case {i}: depth {} > {bound} along parry's normal",
                c.depth
            );
            compared += 1;
        }
    }
    let frac = hits as f64 / CASES as f64;
    assert!((0.3..0.7).contains(&frac), "hit fraction {frac}");
    assert!(compared > hits / 2, "{compared} of {hits} compared with parry");
}

#[test]
fn capsule_triangle_contact_matches_oracle_and_parry() {
    let mut rng = proxima_test_support::rng(0xCA7);
    let place = Placement::new(0.6, 0.05, 1.0);
    let (mut hits, mut band, mut compared) = (0, 0, 0);
    for i in 0..CASES {
        let cap = gen::capsule(&mut rng, &place);
        let tri = gen::triangle(&mut rng, &place);
        let (p, q) = (cap.a().coords.cast::<f64>(), cap.b().coords.cast::<f64>());
        let gap = segment_triangle_distance(&p, &q, &tri_f64(&tri)) - cap.radius() as f64;
        let ours = contact_capsule_triangle(&cap, &tri);
        // Band: f32 closest points on unit-sized shapes, 1e-4.
        if gap.abs() < 1e-4 {
            band += 1;
            continue;
        }
        assert_eq!(ours.is_some(), gap < 0.0, "case {i}: oracle gap {gap}");
        let Some(c) = ours else { continue };
        hits += 1;
        assert!(c.depth >= 0.0 && (c.normal.norm() - 1.0).abs() < 1e-5);
        let out = moved(&tri, &(c.normal.into_inner() * (c.depth + 1e-4)));
        let after = segment_triangle_distance(&p, &q, &tri_f64(&out)) - cap.radius() as f64;
        assert!(
            after > 0.0,
            "case {i}: depth {} leaves a gap of {after}; {cap:?} {tri:?} {c:?} gap before {gap}",
            c.depth
        );
        let (pc, pcap) = convert::capsule(&cap);
        let (pt, ptri) = convert::triangle(&tri);
        if let Ok(Some(t)) = query::contact(&pc, &pcap, &pt, &ptri, 0.0) {
            let n: V = convert::from_vec(t.normal1).cast::<f64>().normalize();
            let bound = support_capsule(&cap, &n) + support_triangle(&tri_f64(&tri), &-n);
            assert!(c.depth as f64 <= bound + 1e-4, "case {i}: depth {} > {bound} along parry's normal", c.depth);
            compared += 1;
        }
    }
    let frac = hits as f64 / CASES as f64;
    assert!((0.3..0.7).contains(&frac), "hit fraction {frac}");
    assert!(band < CASES / 1000, "{band} in the tangency band");
    assert!(compared > hits / 2, "{compared} of {hits} compared with parry");
}
