//! Compounds of spheres, boxes and capsules against parry3d 0.31's
//! `Compound`: ray casts (`RayCast::cast_ray`, solid) and contacts
//! (`query::contact` with prediction 0, whose deepest part contact is the
//! one of least signed distance), with the compound on either side and
//! compound-compound pairs.
//!
//! Tolerances, with `scale = 1 + |compound origin| + compound size` (lengths):
//! - rays: `toi` within `1e-4 scale` of parry's (both are closed forms on
//!   these children; f32 rounding of the child's placement at `|t| ~ 3`
//!   and of the kernels stays near `1e-6 scale`). A hit/miss disagreement
//!   must be grazing: the f64 oracle's closest approach of the ray to the
//!   child it hits (or any child, for a miss) within `1e-4 scale`;
//! - contacts: depth within `5e-4 scale` of parry's `-dist` (parry's GJK and
//!   EPA stop at an f32 tolerance, as in the hull tests); a touching/apart
//!   disagreement only where either depth is within `1e-4 scale` of 0.

mod common;

use std::sync::Arc;

use common::cases;
use common::compound::pose_near_origin;
use nalgebra::Translation3;
use parry3d::math::Pose;
use parry3d::query::{self, Ray as PRay};
use parry3d::shape::SharedShape;
use proxima_narrowphase::*;
use proxima_scene::*;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::{convert, Rng};

fn primitive(rng: &mut impl Rng) -> ColliderShape {
    let s = |rng: &mut _| uniform(rng, 0.1, 0.7);
    match rng.random_range(0..3) {
        0 => ColliderShape::Sphere { radius: s(rng) },
        1 => ColliderShape::Cuboid { half_extents: Vector::new(s(rng), s(rng), s(rng)) },
        _ => ColliderShape::Capsule { half_height: s(rng), radius: 0.5 * s(rng) },
    }
}

/// A random compound (1 to 20 children) placed by a random pose: ours,
/// parry's twin, its children placed one by one, and its scale.
struct Placed {
    world: WorldShape,
    children: Vec<WorldShape>,
    parry: (Pose, SharedShape),
    scale: f64,
}

fn random_compound(rng: &mut impl Rng) -> Placed {
    let n = rng.random_range(1..=20);
    let children: Vec<_> = (0..n).map(|_| (pose_near_origin(rng, 1.2), primitive(rng))).collect();
    let c = Arc::new(Compound::try_new(children).unwrap());
    let world = ColliderShape::Compound(Arc::clone(&c)).placed(&pose_near_origin(rng, 3.0)).unwrap();
    let WorldShape::Compound(_, at) = &world else { unreachable!() };
    let parts: Vec<(Pose, SharedShape)> =
        c.children().iter().map(|(l, s)| common::parry_shape(&s.placed(l).unwrap())).collect();
    let parry_pose = Pose::from_parts(convert::vec(&at.translation.vector), convert::rot(&at.rotation));
    let placed: Vec<WorldShape> = c.children().iter().map(|(l, s)| s.placed(&(at * l)).unwrap()).collect();
    let size = (c.local_aabb().max() - c.local_aabb().min()).norm();
    let scale = 1.0 + f64::from(at.translation.vector.norm()) + f64::from(size);
    Placed { world, children: placed, parry: (parry_pose, SharedShape::compound(parts)), scale }
}

#[test]
fn rays_agree_with_parry() {
    let mut rng = proxima_test_support::rng(0xC0_9001);
    let (mut hits, mut grazing, mut worst) = (0, 0, 0.0f64);
    let n = cases(3000);
    for case in 0..n {
        let c = random_compound(&mut rng);
        for _ in 0..8 {
            let target = c.children[rng.random_range(0..c.children.len())].aabb().center()
                + gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 0.8);
            let origin = target + gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 8.0);
            let Ok(ray) = Ray::try_new(origin, target - origin, Real::MAX) else { continue };
            let ours = c.world.cast_ray(&ray).map(|h| h.toi);
            let pray = PRay::new(convert::pt(&origin), convert::vec(ray.dir()));
            let theirs = c.parry.1.cast_ray(&c.parry.0, &pray, Real::MAX, true);
            let len = f64::from(ray.dir().norm());
            match (ours, theirs) {
                (Some(a), Some(b)) => {
                    let err = f64::from((a - b).abs()) * len / c.scale;
                    worst = worst.max(err);
                    assert!(err <= 1e-4, "case {case}: toi {a} vs parry {b} ({err:e} scale)");
                    hits += 1;
                }
                (None, None) => {}
                _ => {
                    // Grazing: the ray comes within 1e-4 scale of some child's surface.
                    let closest = c
                        .children
                        .iter()
                        .map(|ch| common::oracle_ray_toi(ch, &ray).1.abs())
                        .fold(f64::INFINITY, f64::min);
                    assert!(closest <= 1e-4 * c.scale, "case {case}: {ours:?} vs parry {theirs:?}, {closest:e}");
                    grazing += 1;
                }
            }
        }
    }
    eprintln!("rays: {hits} hits of {} agree, worst {worst:e} scale; {grazing} grazing", n * 8);
    assert!((n * 8 * 3 / 10..n * 8 * 9 / 10).contains(&hits), "{hits} hits");
    assert!(grazing <= n * 8 / 1000, "{grazing} grazing disagreements");
}

/// A random shape to touch the compound with: a primitive placed within
/// about 1 of one of its children, or (one time in four) another compound;
/// with its parry twin.
fn random_other(rng: &mut impl Rng, near: &Placed) -> (WorldShape, (Pose, SharedShape)) {
    if rng.random_bool(0.25) {
        let c = random_compound(rng);
        return (c.world, c.parry);
    }
    let centre = near.children[rng.random_range(0..near.children.len())].aabb().center();
    let at = Isometry::from_parts(Translation3::from(centre.coords), gen::rotation(rng)) * pose_near_origin(rng, 1.0);
    let w = primitive(rng).placed(&at).unwrap();
    let p = common::parry_shape(&w);
    (w, p)
}

#[test]
fn contacts_agree_with_parry() {
    let mut rng = proxima_test_support::rng(0xC0_9002);
    let (mut touching, mut near_zero, mut worst) = (0, 0, 0.0f64);
    let n = cases(4000);
    for case in 0..n {
        let a = random_compound(&mut rng);
        let (b, pb) = random_other(&mut rng, &a);
        for flip in [false, true] {
            let (ours, theirs) = if flip {
                (contact(&b, &a.world), query::contact(&pb.0, &*pb.1, &a.parry.0, &*a.parry.1, 0.0).unwrap())
            } else {
                (contact(&a.world, &b), query::contact(&a.parry.0, &*a.parry.1, &pb.0, &*pb.1, 0.0).unwrap())
            };
            let ours = ours.map(|c| f64::from(c.depth));
            let theirs = theirs.map(|c| -f64::from(c.dist));
            match (ours, theirs) {
                (Some(x), Some(y)) => {
                    let err = (x - y).abs() / a.scale;
                    worst = worst.max(err);
                    assert!(err <= 5e-4, "case {case} (flip {flip}): depth {x} vs parry {y} ({err:e} scale)");
                    touching += 1;
                }
                (None, None) => {}
                (x, y) => {
                    let d = x.or(y).unwrap();
                    assert!(d.abs() <= 1e-4 * a.scale, "case {case} (flip {flip}): {x:?} vs parry {y:?}");
                    near_zero += 1;
                }
            }
        }
    }
    eprintln!("contacts: {touching} of {} agree, worst {worst:e} scale; {near_zero} at depth ~0", n * 2);
    assert!((n * 2 * 2 / 10..n * 2 * 8 / 10).contains(&touching), "{touching} touching");
}
