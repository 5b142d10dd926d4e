//! `contact_hull_obb` (the separating-axis test of a hull and a box) against
//! GJK/EPA (`contact_convex` on the hull as a support map placed by
//! nalgebra's rotation, not the SAT's code) and parry3d 0.31 (`query::contact`
//! of a `ConvexPolyhedron` of the same vertices and a `Cuboid`), on random
//! hulls (`common_hull`: clouds in a box, on a sphere, thin slabs) and
//! random boxes around them (a tenth unrotated, as a world box is), at
//! offsets 0 and 1e3; then placements the random cases rarely reach (faces
//! resting on faces, edges nearly parallel to a box axis, touching).
//!
//! Each overlapping contact must also separate the shapes: moving the box
//! by `depth + 1e-4 L` along the normal leaves it apart (GJK's distance),
//! which a normal that is not a least-penetration direction fails; its
//! points lie on the surfaces, `depth` apart along the normal.
//!
//! Tolerances (`L` the hull's size, `tol = 1e-5 L` its planar tolerance,
//! `M` the largest coordinate): `BAND = 3 tol + 64 eps (L + box) + 16 eps M`
//! for hit or miss, depths and points (the SAT reads the hull's face planes,
//! GJK/EPA its vertices, which agree to `tol`); GJK/EPA's own accuracy
//! `4e-6 L` beside it; parry within `1e-3 L`, where parry disagreeing by
//! more is counted (at most 1% of the cases), not held against ours.
//!
//! `cargo test --release -p proxima-narrowphase --test hull_obb_vs_epa`

mod common_hull;
mod common_np;

use common_hull::{parry_keeps_every_vertex, random_placed, unit_cube, Placed, Posed};
use parry3d::query;
use proxima_narrowphase::{
    contact_convex, contact_hull_obb, distance_convex, Contact, Isometry, Obb, Point, Real, Rotation, Vector,
};
use proxima_test_support::convert::{convex_hull, cuboid};
use proxima_test_support::gen::{rotation, uniform};
use proxima_test_support::{Rng, SmallRng};

/// Random cases at the origin in release builds (a fifth at the offset, a
/// twentieth in debug).
const CASES: usize = if cfg!(debug_assertions) { 5_000 } else { 100_000 };
/// Boxes drawn around each hull.
const PER_HULL: usize = 40;
/// The speculative cases' prediction, in units of `L`.
const PREDICTION: Real = 0.05;

/// A box near the hull: centre within its box grown by `0.3 L`, half
/// extents `0.02 L` to `0.6 L`, turned at random (a tenth not turned).
fn box_near(rng: &mut SmallRng, p: &Placed) -> Obb {
    let (lo, hi) = (*p.hull.aabb().min(), *p.hull.aabb().max());
    let g = 0.3 * p.l;
    let local = Point::new(
        uniform(rng, lo.x - g, hi.x + g),
        uniform(rng, lo.y - g, hi.y + g),
        uniform(rng, lo.z - g, hi.z + g),
    );
    let half = Vector::new(uniform(rng, 0.02, 0.6), uniform(rng, 0.02, 0.6), uniform(rng, 0.02, 0.6)) * p.l;
    let turn = if rng.random_range(0..10) == 0 { Rotation::identity() } else { rotation(rng) };
    Obb::new(p.pose.transform_point(&local), turn, half)
}

/// The distance from `q` (world) to the box's surface.
fn off_box(o: &Obb, q: &Point) -> Real {
    let local = o.to_local(q);
    let h = o.half_extents();
    let outside = (local.abs() - h).map(|x| x.max(0.0));
    if outside.norm() > 0.0 {
        outside.norm()
    } else {
        (h - local.abs()).min()
    }
}

#[derive(Debug, Default)]
struct Worst {
    cases: usize,
    overlapping: usize,
    speculative: usize,
    depth: Real,
    points: Real,
    separation: Real,
    parry_wrong: usize,
}

/// The checks of one case; failures as text.
fn check(p: &Placed, o: &Obb, prediction: Real, with_parry: bool, w: &mut Worst, fail: &mut Vec<String>) {
    let l = p.l;
    let size = o.half_extents().max() * 2.0;
    let m = o.center().coords.amax() + p.pose.translation.vector.amax() + l + size;
    let band = 3.0 * p.hull.tolerance() + 64.0 * Real::EPSILON * (l + size) + 16.0 * Real::EPSILON * m;
    let gjk_slack = 4e-6 * (l + size);
    let ours = contact_hull_obb(&p.hull, &p.pose, o, prediction);
    let peer = contact_convex(&Posed(p), o, prediction);
    let distance = distance_convex(&Posed(p), o).distance;
    let near = (distance - prediction).abs() <= band + gjk_slack || distance <= band + gjk_slack;
    match (ours, peer) {
        (Some(k), Some(g)) => {
            let e = (k.depth - g.depth).abs();
            w.depth = w.depth.max(e / l);
            if e > band + gjk_slack {
                fail.push(format!("depth {k:?} vs GJK/EPA {g:?}"));
            }
            if k.depth >= 0.0 {
                w.overlapping += 1;
                surfaces(p, o, &k, band, w, fail);
            } else {
                w.speculative += 1;
            }
        }
        (None, None) => {}
        (a, b) if !near => fail.push(format!("ours {a:?}, GJK/EPA {b:?}, distance {distance}")),
        _ => {}
    }
    if with_parry {
        let (ph, poly) = convex_hull(&p.hull, &p.pose);
        let (pb, cube) = cuboid(o);
        let pc = query::contact(&ph, &poly, &pb, &cube, prediction).expect("supported");
        let slack = 1e-3 * l;
        let off = match (ours, pc) {
            (Some(k), Some(pc)) => (k.depth + pc.dist).abs() > band + slack,
            (a, b) => a.is_some() != b.is_some() && (distance - prediction).abs() > band + slack,
        };
        w.parry_wrong += usize::from(off);
    }
}

/// An overlapping contact's points and normal: on the surfaces, `depth`
/// apart along the normal, and the box moved by `depth + 1e-4 L` along the
/// normal clears the hull.
fn surfaces(p: &Placed, o: &Obb, k: &Contact, band: Real, w: &mut Worst, fail: &mut Vec<String>) {
    let gap = ((k.point_a - k.point_b) - k.normal.into_inner() * k.depth).norm();
    let on_hull = p.off_surface(&k.point_a) as Real;
    let on_box = off_box(o, &k.point_b);
    w.points = w.points.max(gap.max(on_hull).max(on_box) / p.l);
    if gap > band || on_hull > band || on_box > band {
        fail.push(format!("points {k:?}: gap {gap:e}, off the hull {on_hull:e}, off the box {on_box:e}"));
    }
    let push = k.normal.into_inner() * (k.depth + 1e-4 * p.l);
    let moved = Obb::new(o.center() + push, *o.rotation(), *o.half_extents());
    let after = distance_convex(&Posed(p), &moved).distance;
    w.separation = w.separation.max((1e-4 * p.l - after).max(0.0) / p.l);
    if after < 1e-4 * p.l - 2.0 * band {
        fail.push(format!("{k:?} leaves the box {after:e} from the hull (want 1e-4 L = {:e})", 1e-4 * p.l));
    }
}

fn run(seed: u64, offset: Real, cases: usize, with_parry: bool) -> Worst {
    let mut rng = proxima_test_support::rng(seed);
    let mut w = Worst::default();
    let mut fail = Vec::new();
    while w.cases < cases {
        let Some(placed) = random_placed(&mut rng, offset) else { continue };
        let parry = with_parry && parry_keeps_every_vertex(&placed);
        for n in 0..PER_HULL {
            let o = box_near(&mut rng, &placed);
            let prediction = if n % 2 == 0 { 0.0 } else { PREDICTION * placed.l };
            let before = fail.len();
            check(&placed, &o, prediction, parry && n % 4 < 2, &mut w, &mut fail);
            for f in &mut fail[before..] {
                *f = format!("case {}: {f}; {o:?}, hull {:?}, pose {:?}", w.cases, placed.hull.vertices(), placed.pose);
            }
            w.cases += 1;
        }
    }
    eprintln!("offset {offset:e}: {w:?}");
    assert!(fail.is_empty(), "{} failures: {:#?}", fail.len(), &fail[..fail.len().min(4)]);
    assert!(w.overlapping * 5 > w.cases && w.speculative * 100 > w.cases, "too few overlapping or speculative: {w:?}");
    assert!(w.parry_wrong * 100 <= w.cases, "parry off ours: {w:?}");
    w
}

#[test]
fn random_boxes_at_the_origin_match_gjk_epa_and_parry() {
    run(0x0b6_0001, 0.0, CASES, true);
}

#[test]
fn random_boxes_at_1e3_match_gjk_epa() {
    run(0x0b6_0002, 1e3, CASES / 5, false);
}

#[test]
fn resting_and_touching_boxes_take_the_face() {
    let hull = unit_cube();
    let id = Isometry::identity();
    // Resting on the top face, 0.01 deep, and exactly touching it.
    for (y, depth) in [(1.49, 0.01), (1.5, 0.0)] {
        let lid = Obb::new(Point::new(0.5, y, 0.5), Rotation::identity(), Vector::new(0.3, 0.5, 0.3));
        let k = contact_hull_obb(&hull, &id, &lid, 0.0).expect("touching counts");
        assert!((k.depth - depth).abs() < 1e-6 && (k.normal.y - 1.0).abs() < 1e-6, "{k:?}");
    }
    // Apart by 0.02: none without prediction, GJK's exact distance with it.
    let above = Obb::new(Point::new(0.5, 1.52, 0.5), Rotation::identity(), Vector::new(0.3, 0.5, 0.3));
    assert!(contact_hull_obb(&hull, &id, &above, 0.0).is_none());
    let k = contact_hull_obb(&hull, &id, &above, 0.05).unwrap();
    assert!((k.depth + 0.02).abs() < 1e-6 && (k.normal.y - 1.0).abs() < 1e-6, "{k:?}");
    // The cube turned on the box (the ground as a hull's partner).
    let ground = Obb::new(Point::new(0.0, -1.0, 0.0), Rotation::identity(), Vector::new(10.0, 1.0, 10.0));
    let turned = Isometry::from_parts(Vector::new(0.0, -0.05, 0.0).into(), Rotation::from_euler_angles(0.0, 0.7, 0.0));
    let k = contact_hull_obb(&hull, &turned, &ground, 0.0).unwrap();
    assert!((k.depth - 0.05).abs() < 1e-6 && (k.normal.y + 1.0).abs() < 1e-6, "{k:?}");
}

#[test]
fn edges_nearly_parallel_to_a_box_axis_agree_with_gjk_epa() {
    // The cube turned by tiny angles about a diagonal axis: its edges are
    // within the sine of the angle of the box's axes (the sliver and the
    // deferred ranges), and overlapping the box along edges and faces.
    let hull = unit_cube();
    let axis = nalgebra::Unit::new_normalize(Vector::new(1.0, 2.0, 3.0));
    let obb =
        Obb::new(Point::new(1.3, 1.2, 0.5), Rotation::from_axis_angle(&Vector::z_axis(), 0.0), Vector::repeat(0.4));
    for angle in [0.0, 1e-7, 1e-5, 1e-3, 3e-2, 0.3] {
        let pose = Isometry::from_parts(Vector::zeros().into(), Rotation::from_axis_angle(&axis, angle));
        let placed = Placed::new(hull.clone(), pose);
        let ours = contact_hull_obb(&hull, &pose, &obb, 0.0).expect("overlapping");
        let theirs = contact_convex(&Posed(&placed), &obb, 0.0).expect("overlapping");
        assert!((ours.depth - theirs.depth).abs() < 2e-5, "angle {angle}: {ours:?} vs {theirs:?}");
        let mut w = Worst::default();
        let mut fail = Vec::new();
        surfaces(&placed, &obb, &ours, 3e-5, &mut w, &mut fail);
        assert!(fail.is_empty(), "angle {angle}: {fail:?}");
    }
}
