//! Convex hull colliders (`ColliderShape::ConvexHull`) through the scene:
//! ray casts, sphere sweeps and contacts against parry3d 0.31's
//! `ConvexPolyhedron` (and, where the two disagree, an f64 oracle that says
//! whether the case is grazing), the pipeline's contacts and the overlap
//! queries against brute force, and a snapshot round trip.
//!
//! Tolerances, with `scale = 1 + |hull centre| + hull size` (lengths):
//! - rays: within `1e-5 scale` of the f64 entry through the face planes,
//!   and the hit point within `1e-5 scale` of the vertices' hull (GJK on
//!   the vertices); parry3d's GJK ray cast is within `2e-3 scale` (it stops
//!   at an f32 tolerance). A hit/miss disagreement with parry must be
//!   grazing: the f64 chord through the hull shorter than `1e-4 scale`, or
//!   at the end of the ray;
//! - sweeps: at the toi the sphere touches the hull, its gap (GJK on the
//!   vertices) within `1e-5 scale`, and sinks no deeper than that before; a
//!   miss never sinks deeper along the whole motion. parry3d's
//!   `cast_shapes` is reported beside it (it stops its conservative
//!   advancement early by its tolerance, and calls some near misses hits);
//! - contacts between polytopes (hull-hull, hull-box): depth within
//!   `1e-4 scale` of the f64 SAT depth (the least overlap over the face
//!   normals and edge-pair axes, which is the penetration depth of two
//!   convex polytopes; EPA stops within ~1e-6 relatively); with spheres
//!   and capsules, within `2e-3 scale` of parry's. A touching/apart
//!   disagreement only where the depth is within `1e-4 scale` of 0.

mod common;

use std::sync::Arc;

use common::cases;
use nalgebra::{Translation3, Vector3};
use parry3d::math::{Pose, Vector as PVec};
use parry3d::query::{self, cast_shapes, Ray as PRay, RayCast, ShapeCastOptions};
use parry3d::shape::{ConvexPolyhedron, Cuboid};
use proxima_narrowphase::*;
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::{convert, Rng};

/// A random hull: 6 to 40 points in a box of half-size `size` (one axis
/// squashed now and then, for thin hulls), and a pose near the origin.
fn random_hull(rng: &mut impl Rng, size: Real) -> (Arc<ConvexHull>, Isometry) {
    loop {
        let n = rng.random_range(6..40);
        let squash = if rng.random_bool(0.2) { 0.05 } else { 1.0 };
        let points: Vec<Point> = (0..n)
            .map(|_| {
                Point::new(uniform(rng, -size, size), uniform(rng, -size, size), uniform(rng, -size, size) * squash)
            })
            .collect();
        if let Ok(hull) = ConvexHull::try_new(&points) {
            let t = Vector::new(uniform(rng, -4.0, 4.0), uniform(rng, -4.0, 4.0), uniform(rng, -4.0, 4.0));
            return (Arc::new(hull), Isometry::from_parts(Translation3::from(t), gen::rotation(rng)));
        }
    }
}

/// The same hull for parry, and its pose.
fn parry_hull(hull: &ConvexHull, pose: &Isometry) -> (Pose, ConvexPolyhedron) {
    convert::convex_hull(hull, pose)
}

fn scale_of(hull: &ConvexHull, pose: &Isometry) -> f64 {
    let a = hull.aabb();
    1.0 + f64::from(pose.translation.vector.norm()) + f64::from((a.max() - a.min()).norm())
}

/// A random hull of size `lo..hi` at a random pose: the hull, the pose, the
/// placed shape and its scale.
fn placed_hull(rng: &mut impl Rng, lo: Real, hi: Real) -> (Arc<ConvexHull>, Isometry, WorldShape, f64) {
    let size = uniform(rng, lo, hi);
    let (hull, pose) = random_hull(rng, size);
    let shape = ColliderShape::ConvexHull(hull.clone()).placed(&pose).unwrap();
    let scale = scale_of(&hull, &pose);
    (hull, pose, shape, scale)
}

/// A point with each coordinate uniform in `[-r, r]`.
fn point_within(rng: &mut impl Rng, r: Real) -> Point {
    Point::new(uniform(rng, -r, r), uniform(rng, -r, r), uniform(rng, -r, r))
}

/// The part of `o + t d`, `t` in `[0, max]`, inside the placed hull, in f64
/// (Cyrus-Beck on the face planes): `None` when empty.
fn chord_f64(hull: &ConvexHull, pose: &Isometry, o: &Point, d: &Vector, max: f64) -> Option<(f64, f64)> {
    let lo = pose.inverse_transform_point(o).coords.cast::<f64>();
    let ld = pose.rotation.inverse_transform_vector(d).cast::<f64>();
    let (mut enter, mut exit) = (0.0f64, max);
    for f in hull.faces() {
        let n: Vector3<f64> = f.normal().into_inner().cast();
        let gap = f64::from(f.offset()) - n.dot(&lo);
        let speed = n.dot(&ld);
        if speed == 0.0 {
            if gap < 0.0 {
                return None;
            }
            continue;
        }
        let t = gap / speed;
        if speed < 0.0 {
            enter = enter.max(t);
        } else {
            exit = exit.min(t);
        }
    }
    (enter <= exit).then_some((enter, exit))
}

#[test]
fn ray_casts_match_parry() {
    let mut rng = proxima_test_support::rng(0xC0);
    let (mut hits, mut grazing, mut worst, mut worst_parry) = (0, 0, 0.0f64, 0.0f64);
    let n = cases(20_000);
    for case in 0..n {
        let (hull, pose, shape, scale) = placed_hull(&mut rng, 0.2, 2.0);
        let origin = point_within(&mut rng, 9.0);
        let aim = Point::from(pose.translation.vector)
            + Vector::new(uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0));
        let dir = (aim - origin) * uniform(&mut rng, 0.5, 1.5);
        let ray = Ray::try_new(origin, dir, 1.0).unwrap();
        let ours = shape.cast_ray(&ray);
        let (ppose, poly) = parry_hull(&hull, &pose);
        let theirs = poly.cast_ray(&ppose, &PRay::new(convert::pt(&origin), convert::vec(&dir)), 1.0, true);
        let len = f64::from(dir.norm());
        match (ours, theirs) {
            (Some(h), Some(t)) => {
                hits += 1;
                let err = f64::from((h.toi - t).abs()) * len / scale;
                // The oracle: the entry of the f64 chord through the face
                // planes, and the hit point on the vertices' hull (GJK on
                // the vertices, independent of the planes).
                let (enter, _) = chord_f64(&hull, &pose, &origin, &dir, 1.0).expect("a hit has a chord");
                let off = (f64::from(h.toi) - enter).abs() * len / scale;
                worst = worst.max(off);
                assert!(off <= 1e-5, "case {case}: toi {} vs the f64 chord's {enter} ({off:.2e} of the scale)", h.toi);
                let gap = distance_convex(&ray.point_at(h.toi), &PosedHullProbe(&shape)).distance;
                assert!(f64::from(gap) <= 1e-5 * scale, "case {case}: the hit point is {gap} off the hull");
                worst_parry = worst_parry.max(err);
                assert!(err <= 2e-3, "case {case}: toi {} vs parry {t} ({err:.2e} of the scale)", h.toi);
                // The normal is a face normal of the hull, facing the ray.
                assert!(h.toi == 0.0 || h.normal.dot(&dir) <= 0.0, "case {case}: normal faces away");
            }
            (None, None) => {}
            (a, b) => {
                let chord = chord_f64(&hull, &pose, &origin, &dir, 1.0);
                let is_grazing =
                    chord.is_none_or(|(e, x)| (x - e) * len <= 1e-4 * scale || (1.0 - e) * len <= 1e-4 * scale);
                assert!(is_grazing, "case {case}: ours {a:?}, parry {b:?}, chord {chord:?}");
                grazing += 1;
            }
        }
    }
    assert!(hits > n * 3 / 10 && hits < n * 7 / 10, "{hits} hits of {n}: both branches exercised");
    assert!(grazing <= n / 1000, "{grazing} grazing disagreements");
    eprintln!(
        "hull rays: {n} cases, {hits} hits, {grazing} grazing; worst distance from the f64 entry {worst:.2e}, from \
         parry's {worst_parry:.2e} of the scale"
    );
}

#[test]
fn sphere_sweeps_touch_at_their_toi() {
    let mut rng = proxima_test_support::rng(0xC1);
    let (mut hits, mut worst, mut worst_gap, mut parry_differs) = (0, 0.0f64, 0.0f64, 0);
    let n = cases(5_000);
    for case in 0..n {
        let (hull, pose, shape, scale) = placed_hull(&mut rng, 0.2, 2.0);
        let r = uniform(&mut rng, 0.05, 1.0);
        let start = point_within(&mut rng, 9.0);
        let sphere = Sphere::new(start, r);
        let aim = Point::from(pose.translation.vector)
            + Vector::new(uniform(&mut rng, -1.2, 1.2), uniform(&mut rng, -1.2, 1.2), uniform(&mut rng, -1.2, 1.2));
        let motion = (aim - start) * uniform(&mut rng, 0.5, 1.5);
        let ours = shape.cast_sphere(&sphere, &motion);
        let (ppose, poly) = parry_hull(&hull, &pose);
        let (bpose, ball) = convert::ball(&sphere);
        let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
        let theirs = cast_shapes(&bpose, convert::vec(&motion), &ball, &ppose, PVec::ZERO, &poly, opts)
            .unwrap()
            .map(|h| h.time_of_impact);
        let len = f64::from(motion.norm());
        // The oracle: the sphere's gap to the hull (GJK on the vertices,
        // minus the radius) along the motion, a convex function of toi.
        let gap = |toi: f64| {
            f64::from(distance_convex(&(start + motion * toi as Real), &PosedHullProbe(&shape)).distance) - f64::from(r)
        };
        let tol = 1e-5 * scale;
        match ours {
            Some(h) => {
                hits += 1;
                // It touches at its toi, and not earlier.
                if h.status == SweepStatus::Hit {
                    let at = gap(f64::from(h.toi));
                    worst_gap = worst_gap.max(at.abs() / scale);
                    assert!(at.abs() <= tol, "case {case}: gap {at} at our toi {}", h.toi);
                    let before = proxima_test_support::minimize::convex_min(gap, 0.0, f64::from(h.toi), 60);
                    assert!(before.value >= -tol, "case {case}: penetrates by {} before its toi", -before.value);
                } else {
                    assert!(gap(0.0) <= tol, "case {case}: penetrating, but apart by {}", gap(0.0));
                }
            }
            None => {
                let least = proxima_test_support::minimize::convex_min(gap, 0.0, 1.0, 60);
                assert!(least.value >= -tol, "case {case}: missed, yet the sphere sinks {} in", -least.value);
            }
        }
        match (ours, theirs) {
            (Some(h), Some(t)) => worst = worst.max(f64::from((h.toi - t).abs()) * len / scale),
            (None, None) => {}
            _ => parry_differs += 1,
        }
    }
    assert!(hits > n * 3 / 10 && hits < n * 9 / 10, "{hits} hits of {n}");
    eprintln!(
        "hull sweeps: {n} cases, {hits} hits, worst gap at our toi {worst_gap:.2e} of the scale; parry: worst toi \
         difference {worst:.2e} of the scale, {parry_differs} hit/miss disagreements (the oracle sides with proxima)"
    );
}

/// `shape` moved by `d`.
fn shifted(shape: &WorldShape, d: Vector) -> WorldShape {
    match shape {
        WorldShape::Sphere(s) => WorldShape::Sphere(Sphere::new(s.center() + d, s.radius())),
        WorldShape::Obb(o) => WorldShape::Obb(Obb::new(o.center() + d, *o.rotation(), *o.half_extents())),
        WorldShape::Capsule(c) => WorldShape::Capsule(Capsule::new(c.a() + d, c.b() + d, c.radius())),
        WorldShape::ConvexHull(hull, pose) => WorldShape::ConvexHull(
            hull.clone(),
            Isometry::from_parts(Translation3::from(pose.translation.vector + d), pose.rotation),
        ),
        _ => unreachable!("solids only"),
    }
}

/// A placed shape as a support map, for the sweep test's gap.
struct PosedHullProbe<'a>(&'a WorldShape);

impl SupportMap for PosedHullProbe<'_> {
    fn support(&self, dir: &Vector) -> Point {
        let WorldShape::ConvexHull(hull, pose) = self.0 else { unreachable!("a hull") };
        pose.transform_point(&hull.support_point(&pose.rotation.inverse_transform_vector(dir)))
    }
}

/// The placed vertices of a polytope in f64.
fn vertices_f64(shape: &WorldShape) -> Vec<Vector3<f64>> {
    match shape {
        WorldShape::ConvexHull(hull, pose) => {
            hull.vertices().iter().map(|v| pose.transform_point(v).coords.cast()).collect()
        }
        WorldShape::Obb(o) => (0..8)
            .map(|i| {
                let s = Vector::new([-1.0, 1.0][i & 1], [-1.0, 1.0][(i >> 1) & 1], [-1.0, 1.0][i >> 2]);
                o.to_world(&o.half_extents().component_mul(&s)).coords.cast()
            })
            .collect(),
        _ => unreachable!("polytopes only"),
    }
}

/// The face normals and edge directions of a polytope in f64 (world).
fn features_f64(shape: &WorldShape) -> (Vec<Vector3<f64>>, Vec<Vector3<f64>>) {
    match shape {
        WorldShape::ConvexHull(hull, pose) => {
            let faces = hull.faces().iter().map(|f| (pose.rotation * f.normal().into_inner()).cast()).collect();
            let edges = hull
                .edges()
                .iter()
                .map(|e| {
                    let [a, b] = e.vertices.map(|v| hull.vertices()[v as usize]);
                    (pose.rotation * (b - a)).cast()
                })
                .collect();
            (faces, edges)
        }
        WorldShape::Obb(o) => {
            let axes: Vec<Vector3<f64>> = (0..3).map(|i| o.axes().column(i).into_owned().cast()).collect();
            (axes.clone(), axes)
        }
        _ => unreachable!("polytopes only"),
    }
}

/// The penetration depth of two convex polytopes in f64 (`<= 0`: apart):
/// the least overlap of their projections over every face normal and every
/// edge-pair cross product.
fn sat_depth_f64(a: &WorldShape, b: &WorldShape) -> f64 {
    let (va, vb) = (vertices_f64(a), vertices_f64(b));
    let ((fa, ea), (fb, eb)) = (features_f64(a), features_f64(b));
    let mut axes: Vec<Vector3<f64>> = fa.into_iter().chain(fb).collect();
    for x in &ea {
        for y in &eb {
            let c = x.cross(y);
            if c.norm() > 1e-9 * x.norm() * y.norm() {
                axes.push(c.normalize());
            }
        }
    }
    let range = |v: &[Vector3<f64>], n: &Vector3<f64>| {
        v.iter().map(|p| p.dot(n)).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| (lo.min(d), hi.max(d)))
    };
    axes.iter()
        .map(|n| {
            let ((a0, a1), (b0, b1)) = (range(&va, n), range(&vb, n));
            (a1 - b0).min(b1 - a0)
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn contacts_match_parry() {
    let mut rng = proxima_test_support::rng(0xC2);
    let (mut touching, mut worst, mut worst_parry) = (0, 0.0f64, 0.0f64);
    let n = cases(10_000);
    for case in 0..n {
        let (hull, pose, a, scale) = placed_hull(&mut rng, 0.3, 1.5);
        let near = pose.translation.vector
            + Vector::new(uniform(&mut rng, -1.2, 1.2), uniform(&mut rng, -1.2, 1.2), uniform(&mut rng, -1.2, 1.2));
        let place = Isometry::from_parts(Translation3::from(near), gen::rotation(&mut rng));
        let (ppose, poly) = parry_hull(&hull, &pose);
        let size = uniform(&mut rng, 0.2, 1.2);
        let (b, theirs) = match case % 4 {
            0 => {
                let b = ColliderShape::Sphere { radius: size }.placed(&place).unwrap();
                let WorldShape::Sphere(s) = &b else { unreachable!() };
                let (bp, ball) = convert::ball(s);
                (b.clone(), query::contact(&ppose, &poly, &bp, &ball, 0.0).unwrap())
            }
            1 => {
                let h = Vector::new(size, size * 0.5, size * 0.8);
                let b = ColliderShape::Cuboid { half_extents: h }.placed(&place).unwrap();
                let WorldShape::Obb(o) = &b else { unreachable!() };
                let (bp, cuboid): (Pose, Cuboid) = convert::cuboid(o);
                (b.clone(), query::contact(&ppose, &poly, &bp, &cuboid, 0.0).unwrap())
            }
            2 => {
                let b = ColliderShape::Capsule { half_height: size, radius: size * 0.4 }.placed(&place).unwrap();
                let WorldShape::Capsule(c) = &b else { unreachable!() };
                let (bp, cap) = convert::capsule(c);
                (b.clone(), query::contact(&ppose, &poly, &bp, &cap, 0.0).unwrap())
            }
            _ => {
                let (other, _) = random_hull(&mut rng, size);
                let b = ColliderShape::ConvexHull(other.clone()).placed(&place).unwrap();
                let (bp, bpoly) = parry_hull(&other, &place);
                (b, query::contact(&ppose, &poly, &bp, &bpoly, 0.0).unwrap())
            }
        };
        let ours = contact(&a, &b);
        let polytopes = matches!(b, WorldShape::Obb(_) | WorldShape::ConvexHull(..));
        let exact = polytopes.then(|| sat_depth_f64(&a, &b));
        match (ours, theirs) {
            (Some(c), Some(t)) => {
                touching += 1;
                assert!(c.depth >= 0.0);
                if let Some(exact) = exact {
                    let err = (f64::from(c.depth) - exact).abs() / scale;
                    worst = worst.max(err);
                    assert!(err <= 1e-4, "case {case}: depth {} vs the f64 SAT's {exact} ({err:.2e})", c.depth);
                    worst_parry = worst_parry.max((f64::from(-t.dist) - exact).abs() / scale);
                } else {
                    let err = f64::from((c.depth + t.dist).abs()) / scale;
                    worst = worst.max(err);
                    assert!(err <= 2e-3, "case {case}: depth {} vs parry {} ({err:.2e})", c.depth, -t.dist);
                }
                // The normal from A to B: B moved by depth along it touches A.
                let moved = shifted(&b, c.normal.into_inner() * (c.depth + 1e-3 * scale as Real));
                assert!(contact(&a, &moved).is_none_or(|m| f64::from(m.depth) <= 2e-3 * scale), "case {case}: normal");
            }
            (None, None) => {}
            (c, t) => {
                let depth = exact.or(c.map(|c| f64::from(c.depth))).or(t.map(|t| f64::from(-t.dist))).unwrap();
                assert!(depth.abs() <= 1e-4 * scale, "case {case}: ours {c:?}, parry {t:?}, exact {exact:?}");
            }
        }
    }
    assert!(touching > n / 5 && touching < n * 4 / 5, "{touching} touching of {n}");
    eprintln!(
        "hull contacts: {n} cases, {touching} touching, worst depth error {worst:.2e} of the scale (parry's, against \
         the SAT: {worst_parry:.2e})"
    );
}

/// A pile of hulls, spheres and boxes over a mesh floor: the pipeline's
/// contacts equal brute force (so the hulls' world boxes hold them), frame
/// after frame, and every pair with a hull has its manifold; the overlap
/// queries equal brute force.
#[test]
fn pipeline_and_queries_with_hulls_match_brute_force() {
    let mut rng = proxima_test_support::rng(0xC3);
    let (mut scene, _) = common::mixed_scene(150, 8.0, 0xC4);
    // A bumpy mesh floor across the pile's lower part.
    let floor = common::patch(&mut rng, 16, 0.5, 0.4);
    scene
        .insert(ColliderDesc::new(ColliderShape::TriMesh(floor), Isometry::translation(0.0, 1.0, 0.0)).fixed())
        .unwrap();
    let mut hulls = Vec::new();
    for _ in 0..80 {
        let (hull, _) = {
            let size = uniform(&mut rng, 0.2, 0.9);
            random_hull(&mut rng, size)
        };
        let pose = common::pose(&mut rng, 8.0);
        hulls.push(scene.insert(ColliderDesc::new(ColliderShape::ConvexHull(hull), pose)).unwrap());
    }
    let mut pipeline = ContactPipeline::new().with_manifolds(0.02).unwrap();
    let mut with_hull = 0;
    for frame in 0..6 {
        for &h in &hulls {
            let c = scene.get(h).unwrap();
            let d =
                Vector::new(uniform(&mut rng, -0.3, 0.3), uniform(&mut rng, -0.3, 0.3), uniform(&mut rng, -0.3, 0.3));
            let pose =
                Isometry::from_parts(Translation3::from(c.pose().translation.vector + d), gen::rotation(&mut rng));
            scene.set_pose(h, pose).unwrap();
        }
        pipeline.update(&mut scene);
        let ours: common::Pairs = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(ours, common::interacting(&scene), "frame {frame}: contacts differ from brute force");
        for p in pipeline.contacts() {
            let hull_pair = [p.a, p.b].iter().any(|h| hulls.contains(h));
            with_hull += usize::from(hull_pair);
            if hull_pair {
                assert!(pipeline.manifolds().iter().any(|m| (m.a, m.b) == (p.a, p.b)), "frame {frame}: no manifold");
            }
        }
    }
    assert!(with_hull > 50, "only {with_hull} contacts with a hull");
    // Overlap queries: every kind of probe against brute force.
    for k in 0..200 {
        let c = Point::new(uniform(&mut rng, 0.0, 8.0), uniform(&mut rng, 0.0, 8.0), uniform(&mut rng, 0.0, 8.0));
        let probe = match k % 4 {
            0 => OverlapShape::Sphere(Sphere::new(c, 0.7)),
            1 => OverlapShape::Aabb(Aabb::new(c - Vector::repeat(0.6), c + Vector::repeat(0.6))),
            2 => OverlapShape::Obb(Obb::new(c, gen::rotation(&mut rng), Vector::new(0.8, 0.3, 0.5))),
            _ => OverlapShape::Point(c),
        };
        let mut found = Vec::new();
        scene.overlaps_into(&probe, &QueryFilter::default(), &mut found);
        let probe_shape = match probe {
            OverlapShape::Sphere(s) => WorldShape::Sphere(s),
            OverlapShape::Aabb(a) => WorldShape::Aabb(a),
            OverlapShape::Obb(o) => WorldShape::Obb(o),
            _ => WorldShape::Sphere(Sphere::new(c, 0.0)),
        };
        let mut brute: Vec<_> = scene
            .iter()
            .filter(|(_, col)| match probe {
                OverlapShape::Point(p) => col.world_shape().contains_point(&p),
                _ => contact(&probe_shape, col.world_shape()).is_some(),
            })
            .map(|(h, _)| h)
            .collect();
        brute.sort();
        found.sort();
        // Meshes are surfaces for points, solids agree on touching.
        let hulls_found: Vec<_> = found.iter().filter(|h| hulls.contains(h)).collect();
        let hulls_brute: Vec<_> = brute.iter().filter(|h| hulls.contains(h)).collect();
        assert_eq!(hulls_found, hulls_brute, "probe {k} ({probe:?})");
    }
}

#[test]
fn rays_through_the_scene_hit_hulls() {
    let mut scene = Scene::new();
    let cube: Vec<Point> = (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
    let hull = Arc::new(ConvexHull::try_new(&cube).unwrap());
    let h =
        scene.insert(ColliderDesc::new(ColliderShape::ConvexHull(hull), Isometry::translation(4.0, 0.0, 0.0))).unwrap();
    let ray = Ray::try_new(Point::new(0.0, 0.5, 0.5), Vector::x(), 10.0).unwrap();
    let hit = scene.cast_ray_closest(&ray, &QueryFilter::default()).unwrap();
    assert_eq!(hit.collider, h);
    assert!((hit.toi - 4.0).abs() < 1e-5);
    assert!((hit.normal.into_inner() + Vector::x()).norm() < 1e-5);
    // A ball swept into the cube's face stops 0.25 before it.
    let ball = Sphere::new(Point::new(0.0, 0.5, 0.5), 0.25);
    let sweep = scene.cast_sphere(&ball, &Vector::new(8.0, 0.0, 0.0), &QueryFilter::default()).unwrap();
    assert!((sweep.hit.toi * 8.0 - 3.75).abs() < 1e-5, "{}", sweep.hit.toi);
}

/// A ray that starts inside a hull gets `toi = 0` and the unit normal
/// `-dir / |dir|`, however short its direction: a direction of `1.5e-38`
/// (whose square underflows) once normalised to `(-inf, NaN, NaN)`.
#[test]
fn a_ray_from_inside_a_hull_gets_a_unit_back_normal_for_a_tiny_direction() {
    let cube: Vec<Point> = (0..8).map(|i| Point::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
    let shape = ColliderShape::ConvexHull(Arc::new(ConvexHull::try_new(&cube).unwrap()));
    let placed = shape.placed(&Isometry::identity()).unwrap();
    for dir in [Vector::new(1.5e-38, 0.0, 0.0), Vector::new(2e-38, -3e-38, 0.0), Vector::new(0.0, 2.0, 0.0)] {
        let ray = Ray::try_new(Point::new(0.5, 0.5, 0.5), dir, 1.0).unwrap();
        let hit = placed.cast_ray(&ray).expect("inside");
        let want = -dir.cast::<f64>().normalize();
        let n = hit.normal.into_inner().cast::<f64>();
        assert!(hit.toi == 0.0 && (n - want).norm() < 1e-6, "{dir:?}: {hit:?}");
    }
}

#[cfg(feature = "serde")]
#[test]
fn hull_colliders_survive_a_snapshot() {
    let mut rng = proxima_test_support::rng(0xC5);
    let (hull, pose) = random_hull(&mut rng, 1.0);
    let shape = ColliderShape::ConvexHull(hull.clone());
    let json = serde_json::to_string(&shape).unwrap();
    let back: ColliderShape = serde_json::from_str(&json).unwrap();
    let ColliderShape::ConvexHull(restored) = &back else { panic!("a hull") };
    assert_eq!(restored.vertices(), hull.vertices());
    let (a, b) = (shape.placed(&pose).unwrap(), back.placed(&pose).unwrap());
    assert_eq!(a.aabb(), b.aabb());
}

/// A cube hull resting on a box floor gets the four corners of its bottom
/// face, at the depth it sank, with the floor's normal; a hull on a hull
/// the same.
#[test]
fn a_hull_rests_on_a_face_with_four_points() {
    let cube: Vec<Point> =
        (0..8).map(|i| Point::new((i & 1) as f32 - 0.5, ((i >> 1) & 1) as f32 - 0.5, (i >> 2) as f32 - 0.5)).collect();
    let hull = Arc::new(ConvexHull::try_new(&cube).unwrap());
    let floor =
        ColliderShape::Cuboid { half_extents: Vector::new(5.0, 0.5, 5.0) }.placed(&Isometry::identity()).unwrap();
    let slab = ColliderShape::ConvexHull(hull.clone()).placed(&Isometry::translation(0.0, 0.0, 0.0)).unwrap();
    for base in [floor, slab] {
        let resting = ColliderShape::ConvexHull(hull.clone()).placed(&Isometry::translation(0.2, 0.99, -0.1)).unwrap();
        let mut out = Vec::new();
        contact_manifolds(&base, &resting, 0.02, &mut out);
        let [m] = &out[..] else { panic!("one manifold, got {out:?}") };
        assert_eq!(m.len(), 4, "{m:?}");
        assert!((m.normal.into_inner() - Vector::y()).norm() < 1e-5, "normal {:?}", m.normal);
        assert!(m.points().iter().all(|p| (p.depth - 0.01).abs() < 1e-5), "{m:?}");
        let ids: std::collections::BTreeSet<_> = m.points().iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), 4);
    }
}

/// Random hull-hull and hull-box manifolds: the deepest point matches the
/// f64 SAT depth, every point's witnesses are on their shapes and apart by
/// `depth` along the normal, ids are distinct, and a manifold exists
/// exactly when the contact test says so (prediction 0).
#[test]
fn polytope_manifolds_are_consistent() {
    let mut rng = proxima_test_support::rng(0xC6);
    let (mut touching, mut multi) = (0, 0);
    let n = cases(6_000);
    for case in 0..n {
        let (_, pose, a, scale) = placed_hull(&mut rng, 0.3, 1.5);
        let near = pose.translation.vector
            + Vector::new(uniform(&mut rng, -1.2, 1.2), uniform(&mut rng, -1.2, 1.2), uniform(&mut rng, -1.2, 1.2));
        let place = Isometry::from_parts(Translation3::from(near), gen::rotation(&mut rng));
        let size = uniform(&mut rng, 0.2, 1.2);
        let b = if case % 2 == 0 {
            ColliderShape::Cuboid { half_extents: Vector::new(size, size * 0.3, size * 0.8) }.placed(&place).unwrap()
        } else {
            let (other, _) = random_hull(&mut rng, size);
            ColliderShape::ConvexHull(other).placed(&place).unwrap()
        };
        let mut out = Vec::new();
        contact_manifolds(&a, &b, 0.0, &mut out);
        let touches = contact(&a, &b).is_some();
        assert_eq!(!out.is_empty(), touches, "case {case}: manifold {out:?} vs contact");
        let Some(m) = out.first() else { continue };
        touching += 1;
        multi += usize::from(m.len() > 1);
        // The deepest point is EPA's when clipping found none as deep.
        let exact = sat_depth_f64(&a, &b);
        let deepest = f64::from(m.deepest().depth);
        assert!((deepest - exact).abs() <= 1e-3 * scale, "case {case}: deepest {deepest} vs the SAT's {exact}");
        let ids: std::collections::BTreeSet<_> = m.points().iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), m.len(), "case {case}: ids");
        for p in m.points() {
            let along = (p.point_a - p.point_b).dot(&m.normal);
            assert!((along - p.depth).abs() <= 1e-4 * scale as Real, "case {case}: witnesses {p:?}");
            for (point, shape) in [(p.point_a, &a), (p.point_b, &b)] {
                let off = distance_convex(&point, &SolidProbe(shape)).distance;
                assert!(f64::from(off) <= 1e-4 * scale, "case {case}: witness {point:?} {off} off its shape");
            }
        }
    }
    assert!(touching > n / 5, "{touching} touching of {n}");
    assert!(multi > touching / 10, "only {multi} of {touching} manifolds with several points");
    eprintln!("polytope manifolds: {n} cases, {touching} touching, {multi} with several points");
}

/// A placed hull or box as a support map (for the witnesses' distances).
struct SolidProbe<'a>(&'a WorldShape);

impl SupportMap for SolidProbe<'_> {
    fn support(&self, dir: &Vector) -> Point {
        match self.0 {
            WorldShape::ConvexHull(hull, pose) => {
                pose.transform_point(&hull.support_point(&pose.rotation.inverse_transform_vector(dir)))
            }
            WorldShape::Obb(o) => o.support(dir),
            _ => unreachable!("hulls and boxes"),
        }
    }
}
