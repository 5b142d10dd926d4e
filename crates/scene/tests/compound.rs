//! Compound colliders against their own children, placed one by one: every
//! query of a compound must give the answer of brute force over its
//! children (the child placed at `pose * child_pose`), so the culls of the
//! children (box, ray, swept box) may only skip children that could not
//! change the answer.
//!
//! Tolerance: none. The compound's answer for a child is the very call that
//! the brute force makes for it (the same shapes, in the same order A, B),
//! so depths, tois, distances and manifold points must be equal bit for
//! bit; only the choice among exact ties may differ, so the tests compare
//! the values, and check that the child named reaches that value. Rays are
//! cast in the compound's frame (the ray brought in, the children placed by
//! their local poses): bit for bit against brute force in that frame, and
//! within [`RAY_TOLERANCE`] of the children placed in the world.
//!
//! The random compounds have 1 to 24 children (spheres, boxes, capsules and
//! hulls), so both the linear scan (up to 16 children) and the tree over the
//! children are exercised; the other shapes are every kind, a mesh and
//! another compound included.

mod common;

use std::sync::Arc;

use common::cases;
use common::compound::{convex_shape, pose_near_origin};
use proxima_narrowphase::*;
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

/// A random compound of `1..=40` children within about 1.5 of its origin
/// (up to 16 culled by a scan, up to 32 by a scan for rays and a tree for the
/// rest, past that by a tree); now and then a child keeps the identity pose
/// (a box child then placed axis-aligned under an unrotated compound).
fn compound(rng: &mut impl Rng) -> Arc<Compound> {
    let n = if rng.random_bool(0.5) { rng.random_range(1..=4) } else { rng.random_range(5..=40) };
    let children = (0..n)
        .map(|_| {
            let local = if rng.random_bool(0.1) { Isometry::identity() } else { pose_near_origin(rng, 1.5) };
            (local, convex_shape(rng, 0.6))
        })
        .collect();
    Arc::new(Compound::try_new(children).expect("valid compound"))
}

/// The compound placed by `pose`, its stored pose and its children placed
/// one by one as the brute force places them.
fn placed(c: &Arc<Compound>, pose: &Isometry) -> (WorldShape, Vec<WorldShape>) {
    let world = ColliderShape::Compound(Arc::clone(c)).placed(pose).expect("placed compound");
    let WorldShape::Compound(_, stored) = &world else { panic!("a compound places as a compound") };
    let children = c.children().iter().map(|(l, s)| s.placed(&(stored * l)).expect("placed child")).collect();
    (world, children)
}

/// A small closed mesh (a bumpy sphere of radius about 1.5, 160 triangles).
fn mesh() -> Arc<TriMesh> {
    let (v, i) = proxima_test_support::mesh::bumpy_sphere(8, 10);
    let v = v.into_iter().map(|p| p * 1.5).collect();
    Arc::new(TriMesh::new(v, i).expect("valid mesh"))
}

/// A random shape near the origin: a convex one, the mesh or a compound,
/// and (for a compound) its children placed one by one.
fn other(rng: &mut impl Rng, mesh: &Arc<TriMesh>) -> (WorldShape, Option<Vec<WorldShape>>) {
    let at = pose_near_origin(rng, 1.5);
    match rng.random_range(0..8) {
        0 => (ColliderShape::TriMesh(Arc::clone(mesh)).placed(&at).unwrap(), None),
        1 => {
            let (w, c) = placed(&compound(rng), &at);
            (w, Some(c))
        }
        // Boxes under an unrotated pose too (axis-aligned).
        2 => {
            (convex_shape(rng, 1.0).placed(&Isometry::from_parts(at.translation, Rotation::identity())).unwrap(), None)
        }
        _ => (convex_shape(rng, 1.0).placed(&at).unwrap(), None),
    }
}

/// The brute-force contact: the deepest over the children.
fn deepest(children: &[WorldShape], f: impl Fn(&WorldShape) -> Option<Contact>) -> Option<Real> {
    children.iter().filter_map(f).map(|c| c.depth).reduce(Real::max)
}

#[test]
fn contact_is_the_deepest_child_contact() {
    let mut rng = proxima_test_support::rng(0xC0_4001);
    let mesh = mesh();
    let (mut touching, mut by_kind) = (0, [0usize; 3]);
    let n = cases(6000);
    for case in 0..n {
        let c = compound(&mut rng);
        let (a, children) = placed(&c, &pose_near_origin(&mut rng, 1.5));
        let (b, b_children) = other(&mut rng, &mesh);
        let ours_ab = contact(&a, &b).map(|c| c.depth);
        let ours_ba = contact(&b, &a).map(|c| c.depth);
        let brute_ab = deepest(&children, |ch| contact(ch, &b));
        let brute_ba = deepest(&children, |ch| contact(&b, ch));
        assert_eq!(ours_ab, brute_ab, "case {case}: compound-other");
        assert_eq!(ours_ba, brute_ba, "case {case}: other-compound");
        if let Some(b_children) = &b_children {
            // Both compounds: the deepest child pair.
            let pairs = children.iter().flat_map(|x| b_children.iter().filter_map(move |y| contact(x, y)));
            assert_eq!(ours_ab, pairs.map(|c| c.depth).reduce(Real::max), "case {case}: compound-compound");
        }
        if let Some(c) = contact(&a, &b) {
            assert!(c.depth >= 0.0 && (c.normal.norm() - 1.0).abs() < 1e-5, "case {case}: {c:?}");
            touching += 1;
            by_kind[match (&b, &b_children) {
                (WorldShape::TriMesh(..), _) => 0,
                (_, Some(_)) => 1,
                _ => 2,
            }] += 1;
        }
    }
    // Both outcomes, and contacts with meshes and compounds among them.
    assert!((n * 3 / 10..n * 8 / 10).contains(&touching), "{touching} of {n} touch");
    assert!(by_kind.iter().all(|&k| k > n / 100), "touching by kind {by_kind:?}");
}

/// A manifold as comparable data: normal, and each point's witnesses,
/// depth and id.
fn key(m: &ContactManifold) -> Vec<[u32; 8]> {
    let n = m.normal.into_inner();
    m.points()
        .iter()
        .map(|p| {
            let f = |x: Real| x.to_bits();
            [f(n.x), f(n.y), f(n.z), f(p.point_a.x), f(p.point_b.y), f(p.point_a.z), f(p.depth), p.id]
        })
        .collect()
}

/// The brute-force manifolds of child `i`: those of the child alone, each
/// id tagged as the compound documents it.
fn tagged(i: usize, found: &[ContactManifold]) -> Vec<Vec<[u32; 8]>> {
    found
        .iter()
        .map(|m| {
            let mut k = key(m);
            for p in &mut k {
                let id = p[7];
                p[7] = ((i as u32) << 20) | ((id ^ (id >> 9)) & 0xF_FFFF);
            }
            k
        })
        .collect()
}

#[test]
fn manifolds_are_the_children_manifolds() {
    let mut rng = proxima_test_support::rng(0xC0_4002);
    let mesh = mesh();
    let (mut with_manifolds, mut several_children) = (0, 0);
    let n = cases(4000);
    for case in 0..n {
        let c = compound(&mut rng);
        let (a, children) = placed(&c, &pose_near_origin(&mut rng, 1.5));
        let (b, b_children) = other(&mut rng, &mesh);
        let prediction = if rng.random_bool(0.5) { 0.0 } else { uniform(&mut rng, 0.0, 0.3) };
        // With two compounds, the ids name A's child: the compound as B is
        // checked when the other shape is not a compound.
        let sides: &[bool] = if b_children.is_some() { &[true] } else { &[true, false] };
        for &compound_is_a in sides {
            let mut ours = Vec::new();
            let mut brute: Vec<Vec<Vec<[u32; 8]>>> = vec![Vec::new(); children.len()];
            if compound_is_a {
                contact_manifolds(&a, &b, prediction, &mut ours);
            } else {
                contact_manifolds(&b, &a, prediction, &mut ours);
            }
            for (i, ch) in children.iter().enumerate() {
                let mut found = Vec::new();
                if compound_is_a {
                    contact_manifolds(ch, &b, prediction, &mut found);
                } else {
                    contact_manifolds(&b, ch, prediction, &mut found);
                }
                brute[i] = tagged(i, &found);
            }
            let mut mine: Vec<Vec<Vec<[u32; 8]>>> = vec![Vec::new(); children.len()];
            for m in &ours {
                let child = Compound::child_of_point_id(m.points()[0].id);
                assert!(m.points().iter().all(|p| Compound::child_of_point_id(p.id) == child), "case {case}");
                mine[child].push(key(m));
            }
            assert_eq!(mine, brute, "case {case}, compound is A: {compound_is_a}");
            if compound_is_a && !ours.is_empty() {
                with_manifolds += 1;
                several_children += usize::from(mine.iter().filter(|m| !m.is_empty()).count() > 1);
            }
        }
    }
    assert!((n * 3 / 10..n * 8 / 10).contains(&with_manifolds), "{with_manifolds} of {n}");
    assert!(several_children > n / 20, "{several_children} cases with several touching children");
}

/// A point within `r` of a random child's box centre.
fn near_child(rng: &mut impl Rng, children: &[WorldShape], r: Real) -> Point {
    let c = children[rng.random_range(0..children.len())].aabb().center();
    c + Vector::new(uniform(rng, -r, r), uniform(rng, -r, r), uniform(rng, -r, r))
}

/// A random ray from around the shapes, towards one of the children most of
/// the time.
fn ray(rng: &mut impl Rng, children: &[WorldShape]) -> Ray {
    let origin = Point::new(uniform(rng, -4.0, 4.0), uniform(rng, -4.0, 4.0), uniform(rng, -4.0, 4.0));
    let target = near_child(rng, children, 0.8);
    let dir = if rng.random_bool(0.9) { target - origin } else { gen::unit_vector(rng) };
    let max_toi = if rng.random_bool(0.8) { Real::MAX } else { uniform(rng, 0.0, 2.0) };
    Ray::new(origin, dir, max_toi)
}

/// How far (across the surface hit) a compound's ray hit may be from that
/// of its children placed in the world: the rounding of bringing the ray
/// into the compound's frame, a few ulps of coordinates below 10 (an ulp
/// there is `9.5e-7`), with room for the slab test's own rounding.
const RAY_TOLERANCE: Real = 2e-5;

/// The ray in the compound's frame, by the same arithmetic as the compound.
fn local_ray(pose: &Isometry, r: &Ray) -> Ray {
    Ray::new(pose.inverse_transform_point(r.origin()), pose.inverse_transform_vector(r.dir()), r.max_toi())
}

#[test]
fn ray_hits_the_closest_child() {
    let mut rng = proxima_test_support::rng(0xC0_4003);
    let (mut hits, mut inside, mut grazing) = (0, 0, 0);
    let n = cases(4000);
    for case in 0..n {
        let c = compound(&mut rng);
        let at = pose_near_origin(&mut rng, 1.5);
        let (a, children) = placed(&c, &at);
        let WorldShape::Compound(_, stored) = &a else { unreachable!() };
        let local_children: Vec<WorldShape> =
            c.children().iter().map(|(l, s)| s.placed(l).expect("placed child")).collect();
        let mut scene = Scene::new();
        // Static (the static tree's pass) and dynamic colliders in turn.
        let desc = ColliderDesc::new(ColliderShape::Compound(Arc::clone(&c)), at);
        let h = scene.insert(if case % 2 == 0 { desc.fixed() } else { desc }).unwrap();
        for _ in 0..8 {
            let r = ray(&mut rng, &children);
            let lr = local_ray(stored, &r);
            let brute = local_children.iter().filter_map(|ch| ch.cast_ray(&lr)).map(|h| h.toi).reduce(Real::min);
            let got = a.cast_ray(&r);
            assert_eq!(got.map(|h| h.toi), brute, "case {case}");
            assert_eq!(a.intersects_ray(&r), brute.is_some(), "case {case}");
            // The children in the world: the same answer to the rounding of
            // the change of frame; a ray grazing a child may hit it in one
            // frame and miss it in the other.
            // The children in the world: the same answer to the rounding of
            // the change of frame, measured across the surface hit (along
            // the normal: a shallow ray turns a small offset of the surface
            // into a long one along the ray); a ray grazing a child may hit
            // it in one frame and miss it in the other.
            let world = children.iter().filter_map(|ch| ch.cast_ray(&r)).min_by(|p, q| p.toi.total_cmp(&q.toi));
            match (brute, world) {
                (Some(t), Some(w)) if (t - w.toi).abs() * r.dir().dot(&w.normal).abs() <= RAY_TOLERANCE => {}
                (None, None) => {}
                _ => grazing += 1,
            }
            let hit = scene.cast_ray_closest(&r, &QueryFilter::default());
            assert_eq!(hit.map(|h| h.toi), brute, "case {case}");
            if let Some(hit) = hit {
                assert_eq!(hit.collider, h);
                let child = hit.child.expect("a compound hit names its child") as usize;
                let own = local_children[child].cast_ray(&lr).expect("the child named is hit");
                assert_eq!(own.toi, hit.toi, "case {case}: child {child}");
                assert_eq!(got.map(|g| g.normal), Some(stored.rotation * own.normal), "case {case}: normal");
                assert_eq!(hit.triangle, None);
                assert!(scene.cast_ray_any(&r, &QueryFilter::default()).is_some_and(|h| h.child.is_some()));
                hits += 1;
                inside += usize::from(hit.toi == 0.0);
            } else {
                assert!(scene.cast_ray_any(&r, &QueryFilter::default()).is_none(), "case {case}");
            }
        }
    }
    assert!((n * 8 * 3 / 10..n * 8 * 8 / 10).contains(&hits), "{hits} hits of {}", n * 8);
    assert!(inside > 0, "no ray starts inside a child");
    // Random rays graze a child (within rounding of an edge) rarely.
    assert!(grazing * 2_000 <= n * 8, "{grazing} of {} rays differ from the children in the world", n * 8);
}

/// Up to 32 children the ray visits them by box entry, index order on a
/// tie, so an exact tie between children names the lowest index: each child
/// here is followed by a copy of itself (the same pose and shape), so every
/// hit ties with the copy's, and a ray starting inside several children hits
/// all of them at `toi = 0`.
#[test]
fn ray_ties_name_the_lowest_child() {
    let mut rng = proxima_test_support::rng(0xC0_4006);
    let (mut hits, mut inside_several) = (0, 0);
    let n = cases(3000);
    for case in 0..n {
        let mut children = Vec::new();
        for _ in 0..rng.random_range(1..=16) {
            let child = (pose_near_origin(&mut rng, 1.0), convex_shape(&mut rng, 0.6));
            children.push(child.clone());
            children.push(child);
        }
        let c = Arc::new(Compound::try_new(children).expect("valid compound"));
        let at = pose_near_origin(&mut rng, 1.5);
        let (a, placed_children) = placed(&c, &at);
        let WorldShape::Compound(_, stored) = &a else { unreachable!() };
        let local_children: Vec<WorldShape> =
            c.children().iter().map(|(l, s)| s.placed(l).expect("placed child")).collect();
        let mut scene = Scene::new();
        scene.insert(ColliderDesc::new(ColliderShape::Compound(Arc::clone(&c)), at)).unwrap();
        for _ in 0..8 {
            let mut r = ray(&mut rng, &placed_children);
            if rng.random_bool(0.3) {
                // From inside a child, often inside its neighbours too.
                r = Ray::new(near_child(&mut rng, &placed_children, 0.2), *r.dir(), r.max_toi());
            }
            let Some(hit) = scene.cast_ray_closest(&r, &QueryFilter::default()) else { continue };
            let child = hit.child.expect("a compound hit names its child") as usize;
            assert_eq!(child % 2, 0, "case {case}: the copy {child} named, not child {}", child - 1);
            if hit.toi == 0.0 {
                let lr = local_ray(stored, &r);
                let inside: Vec<usize> = (0..local_children.len())
                    .filter(|&i| local_children[i].cast_ray(&lr).is_some_and(|h| h.toi == 0.0))
                    .collect();
                assert_eq!(Some(&child), inside.first(), "case {case}: inside children {inside:?}");
                inside_several += usize::from(inside.len() > 2);
            }
            hits += 1;
        }
    }
    assert!(hits > n * 8 * 3 / 10, "{hits} hits of {}", n * 8);
    assert!(inside_several > n / 50, "{inside_several} rays start inside two children or more");
}

/// A direction of tiny components (valid in the world, `amax >= 2^-126`)
/// that the compound's rotation turns into all-subnormal components: the
/// ray cannot be brought into the compound's frame, and every child placed
/// in the world is cast instead, so the answer is brute force's bit for
/// bit, normal included.
#[test]
fn ray_the_frame_cannot_take_hits_the_children_in_the_world() {
    let mut rng = proxima_test_support::rng(0xC0_4007);
    let eighth = Rotation::from_axis_angle(&Vector::z_axis(), std::f32::consts::FRAC_PI_4);
    let mut hits = 0;
    for case in 0..cases(400) {
        let c = compound(&mut rng);
        let at = Isometry::from_parts(pose_near_origin(&mut rng, 1.5).translation, eighth);
        let (a, children) = placed(&c, &at);
        let mut scene = Scene::new();
        scene.insert(ColliderDesc::new(ColliderShape::Compound(Arc::clone(&c)), at)).unwrap();
        let target = near_child(&mut rng, &children, 0.5);
        let origin = target - Vector::new(uniform(&mut rng, 0.0, 4.0), 0.0, 0.0);
        let r = Ray::new(origin, Vector::new(1.5e-38, 0.0, 0.0), Real::MAX);
        let local_dir = at.inverse_transform_vector(r.dir());
        assert!(local_dir.amax() < Real::MIN_POSITIVE, "{local_dir:?}");
        let brute = children.iter().filter_map(|ch| ch.cast_ray(&r)).min_by(|p, q| p.toi.total_cmp(&q.toi));
        // Bits: the normal of a ray starting inside a child is `-dir / |dir|`,
        // which some kernels do not keep finite for so tiny a direction.
        let bits = |h: RayHit| (h.toi.to_bits(), h.normal.map(Real::to_bits));
        assert_eq!(a.cast_ray(&r).map(bits), brute.map(bits), "case {case}");
        assert_eq!(a.intersects_ray(&r), brute.is_some(), "case {case}");
        if let Some(hit) = scene.cast_ray_closest(&r, &QueryFilter::default()) {
            let child = hit.child.expect("a compound hit names its child") as usize;
            assert_eq!(children[child].cast_ray(&r).map(|h| h.toi), Some(hit.toi), "case {case}: child {child}");
            hits += 1;
        }
    }
    assert!(hits > cases(400) / 5, "{hits} hits");
}

#[test]
fn swept_sphere_hits_the_first_child() {
    let mut rng = proxima_test_support::rng(0xC0_4004);
    let (mut hits, n) = (0, cases(6000));
    for case in 0..n {
        let c = compound(&mut rng);
        let (a, children) = placed(&c, &pose_near_origin(&mut rng, 1.5));
        let sphere = Sphere::new(
            Point::new(uniform(&mut rng, -5.0, 5.0), uniform(&mut rng, -5.0, 5.0), uniform(&mut rng, -5.0, 5.0)),
            uniform(&mut rng, 0.05, 1.0),
        );
        let target =
            Point::new(uniform(&mut rng, -2.0, 2.0), uniform(&mut rng, -2.0, 2.0), uniform(&mut rng, -2.0, 2.0));
        let motion = (target - sphere.center()) * uniform(&mut rng, 0.2, 2.0);
        let brute = children.iter().filter_map(|ch| ch.cast_sphere(&sphere, &motion)).map(|h| h.toi).reduce(Real::min);
        let ours = a.cast_sphere(&sphere, &motion);
        assert_eq!(ours.map(|h| h.toi), brute, "case {case}");
        hits += usize::from(ours.is_some());
    }
    assert!((n * 3 / 10..n * 9 / 10).contains(&hits), "{hits} of {n}");
}

#[test]
fn cast_shape_equals_the_children_as_colliders() {
    let mut rng = proxima_test_support::rng(0xC0_4005);
    let (mut hits, n) = (0, cases(2000));
    for case in 0..n {
        let c = compound(&mut rng);
        let at = pose_near_origin(&mut rng, 1.5);
        let (_, children) = placed(&c, &at);
        let mut whole = Scene::new();
        whole.insert(ColliderDesc::new(ColliderShape::Compound(Arc::clone(&c)), at)).unwrap();
        let mut parts = Scene::new();
        let WorldShape::Compound(_, stored) = ColliderShape::Compound(Arc::clone(&c)).placed(&at).unwrap() else {
            unreachable!()
        };
        for (l, s) in c.children() {
            parts.insert(ColliderDesc::new(s.clone(), stored * l)).unwrap();
        }
        assert_eq!(parts.len(), children.len());
        let moving = convex_shape(&mut rng, 0.8);
        let from = pose_near_origin(&mut rng, 5.0);
        let target =
            Point::new(uniform(&mut rng, -2.0, 2.0), uniform(&mut rng, -2.0, 2.0), uniform(&mut rng, -2.0, 2.0));
        let motion = (target - Point::from(from.translation.vector)) * uniform(&mut rng, 0.2, 2.0);
        let any = QueryFilter::default();
        let ours = whole.cast_shape(&moving, &from, &motion, &any).unwrap();
        let brute = parts.cast_shape(&moving, &from, &motion, &any).unwrap();
        assert_eq!(ours.map(|h| h.hit.toi), brute.map(|h| h.hit.toi), "case {case}");
        hits += usize::from(ours.is_some());
    }
    assert!((n * 3 / 10..n * 9 / 10).contains(&hits), "{hits} of {n}");
}

#[test]
fn overlaps_points_and_closest_points_equal_the_children() {
    let mut rng = proxima_test_support::rng(0xC0_4006);
    let (mut overlapping, mut contained, n) = (0, 0, cases(3000));
    let place = gen::Placement::new(1.8, 0.1, 1.0);
    for case in 0..n {
        let c = compound(&mut rng);
        let at = pose_near_origin(&mut rng, 1.5);
        let (a, children) = placed(&c, &at);
        let mut scene = Scene::new();
        let h = scene.insert(ColliderDesc::new(ColliderShape::Compound(Arc::clone(&c)), at)).unwrap();
        let probes = [
            OverlapShape::Sphere(gen::sphere(&mut rng, &place)),
            OverlapShape::Aabb(gen::aabb(&mut rng, &place)),
            OverlapShape::Obb(gen::obb(&mut rng, &place)),
            OverlapShape::Capsule(gen::capsule(&mut rng, &place)),
        ];
        // The children as colliders of their own.
        let WorldShape::Compound(_, stored) = &a else { unreachable!() };
        let mut parts = Scene::new();
        for (l, s) in c.children() {
            parts.insert(ColliderDesc::new(s.clone(), stored * l)).unwrap();
        }
        let (mut found, mut brute_found) = (Vec::new(), Vec::new());
        for probe in &probes {
            parts.overlaps_into(probe, &QueryFilter::default(), &mut brute_found);
            let brute = !brute_found.is_empty();
            scene.overlaps_into(probe, &QueryFilter::default(), &mut found);
            assert_eq!(found.is_empty(), !brute, "case {case}: {probe:?}");
            assert!(found.iter().all(|&f| f == h));
            overlapping += usize::from(brute);
        }
        for _ in 0..4 {
            let p = near_child(&mut rng, &children, 0.8);
            let brute = children.iter().any(|ch| ch.contains_point(&p));
            assert_eq!(a.contains_point(&p), brute, "case {case}");
            assert_eq!(scene.colliders_containing_point(&p, &QueryFilter::default()) == vec![h], brute);
            contained += usize::from(brute);
            let d = |q: Point| (q - p).norm();
            let best = children.iter().map(|ch| d(ch.closest_point(&p))).reduce(Real::min).unwrap();
            assert_eq!(d(a.closest_point(&p)), best, "case {case}");
        }
    }
    assert!((n * 4 * 2 / 10..n * 4 * 8 / 10).contains(&overlapping), "{overlapping} of {}", n * 4);
    assert!((n * 4 / 20..n * 4 * 7 / 10).contains(&contained), "{contained} of {}", n * 4);
}
