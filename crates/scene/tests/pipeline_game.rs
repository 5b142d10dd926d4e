//! What a game asks of the contact pipeline, each checked against a brute
//! force over every pair of live colliders, frame after frame of random
//! moves, insertions and removals: sensors (overlap events, no contacts),
//! kinematic bodies (paired with dynamic ones only), colliders of one body
//! (never paired), pair hooks, the touching rule, the removal record and
//! the contacts of one collider.
//!
//! The oracle decides a pair from the colliders' descriptions, written out
//! here independently of the library's rules: at least one dynamic, not two
//! sensors, not one body, groups that interact, the hooks' filter; then the
//! exact test (`contact`, or `contact_manifolds` for the manifold rule).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{event_sets, pose, Pairs};
use proxima_narrowphase::{ContactManifold, Isometry, Real, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::{rng, Rng, SmallRng};

const SIDE: Real = 8.0;
const PREDICTION: Real = 0.05;

fn shape(rng: &mut SmallRng) -> ColliderShape {
    let s = |rng: &mut SmallRng| uniform(rng, 0.2, 1.0);
    match rng.random_range(0..4) {
        0 => ColliderShape::Sphere { radius: s(rng) },
        1 => ColliderShape::Cuboid { half_extents: Vector::new(s(rng), s(rng), s(rng)) },
        2 => ColliderShape::Cuboid { half_extents: Vector::new(s(rng), s(rng), s(rng)) },
        _ => ColliderShape::Capsule { half_height: s(rng), radius: s(rng) * 0.5 },
    }
}

/// A random collider: a third static, a sixth kinematic, a tenth sensors,
/// some in one of three bodies, user data its serial number.
fn desc(rng: &mut SmallRng, serial: u64) -> ColliderDesc {
    let mut d = ColliderDesc::new(shape(rng), pose(rng, SIDE)).with_user_data(serial);
    match rng.random_range(0..6) {
        0 | 1 => d = d.fixed(),
        2 => d = d.kinematic(),
        _ => {}
    }
    if rng.random_range(0..10) == 0 {
        d = d.sensor();
    }
    if rng.random_range(0..4) == 0 {
        d = d.with_body(rng.random_range(0..3));
    }
    d
}

/// The hooks of the test: pairs whose user data sum to a multiple of 7 are
/// filtered out; manifolds of pairs whose user data sum to a multiple of 5
/// are dropped.
struct Hooks;

impl PairHooks for Hooks {
    fn filter_pair(&self, a: (ColliderHandle, &Collider), b: (ColliderHandle, &Collider)) -> bool {
        (a.1.user_data() + b.1.user_data()) % 7 != 0
    }

    fn modify_manifold(
        &self,
        a: (ColliderHandle, &Collider),
        b: (ColliderHandle, &Collider),
        _: &mut ContactManifold,
    ) -> bool {
        (a.1.user_data() + b.1.user_data()) % 5 != 0
    }
}

/// Whether the oracle pairs two colliders at all (before the exact test).
fn may_pair(a: &Collider, b: &Collider, hooks: bool) -> bool {
    let dynamic = a.kind() == BodyKind::Dynamic || b.kind() == BodyKind::Dynamic;
    let both_sensors = a.is_sensor() && b.is_sensor();
    let one_body = matches!((a.body(), b.body()), (Some(x), Some(y)) if x == y);
    let (ga, gb) = (a.groups(), b.groups());
    let interact = ga.memberships & gb.filter != 0 && gb.memberships & ga.filter != 0;
    let kept = !hooks || (a.user_data() + b.user_data()) % 7 != 0;
    dynamic && !both_sensors && !one_body && interact && kept
}

/// The oracle's pairs: (contact pairs, sensor pairs), with the manifold
/// rule (any manifold point within the prediction) or the contact test.
fn oracle(scene: &Scene, manifold_rule: bool, hooks: bool) -> (Pairs, Pairs) {
    let all: Vec<_> = scene.iter().collect();
    let (mut contacts, mut sensors) = (BTreeSet::new(), BTreeSet::new());
    for (i, &(ha, a)) in all.iter().enumerate() {
        for &(hb, b) in &all[i + 1..] {
            if !may_pair(a, b, hooks) {
                continue;
            }
            let key = (ha.min(hb), ha.max(hb));
            if a.is_sensor() || b.is_sensor() {
                if contact(a.world_shape(), b.world_shape()).is_some() {
                    sensors.insert(key);
                }
                continue;
            }
            let dropped = hooks && (a.user_data() + b.user_data()) % 5 == 0;
            let touching = if manifold_rule {
                let mut out = Vec::new();
                contact_manifolds(a.world_shape(), b.world_shape(), PREDICTION, &mut out);
                !out.is_empty() && !dropped
            } else if hooks {
                let mut out = Vec::new();
                contact_manifolds(a.world_shape(), b.world_shape(), PREDICTION, &mut out);
                !dropped && out.iter().any(|m| m.deepest().depth >= 0.0)
            } else {
                contact(a.world_shape(), b.world_shape()).is_some()
            };
            if touching {
                contacts.insert(key);
            }
        }
    }
    (contacts, sensors)
}

fn sensor_sets(events: &[SensorEvent]) -> (Pairs, Pairs) {
    let keys: Vec<_> = events
        .iter()
        .map(|e| match *e {
            SensorEvent::Entered { a, b } | SensorEvent::Exited { a, b } => (a, b),
        })
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "sensor events not in pair order");
    let entered =
        events.iter().filter_map(|e| if let SensorEvent::Entered { a, b } = *e { Some((a, b)) } else { None });
    let exited = events.iter().filter_map(|e| if let SensorEvent::Exited { a, b } = *e { Some((a, b)) } else { None });
    (entered.collect(), exited.collect())
}

/// Runs `frames` of random changes through `pipeline` and checks every frame
/// against the oracle.
fn run(seed: u64, mut pipeline: ContactPipeline, manifold_rule: bool, hooks: bool) {
    let mut rng = rng(seed);
    let mut scene = Scene::new();
    let mut serial = 0u64;
    let mut user_data = BTreeMap::new();
    for _ in 0..150 {
        serial += 1;
        let h = scene.insert(desc(&mut rng, serial)).unwrap();
        user_data.insert(h, serial);
    }
    let (mut contacts, mut sensors) = (Pairs::new(), Pairs::new());
    for frame in 0..40 {
        // Move a third of the non-static colliders a little, remove and add a few.
        let live: Vec<(ColliderHandle, BodyKind)> = scene.iter().map(|(h, c)| (h, c.kind())).collect();
        for &(h, kind) in &live {
            if kind != BodyKind::Fixed && rng.random_range(0..3) == 0 {
                let p = *scene.get(h).unwrap().pose();
                let step = Vector::new(
                    uniform(&mut rng, -0.3, 0.3),
                    uniform(&mut rng, -0.3, 0.3),
                    uniform(&mut rng, -0.3, 0.3),
                );
                scene.set_pose(h, Isometry::from_parts((p.translation.vector + step).into(), p.rotation)).unwrap();
            }
        }
        let mut removed = BTreeSet::new();
        for _ in 0..rng.random_range(0..4) {
            let (h, _) = live[rng.random_range(0..live.len())];
            if removed.insert(h) {
                scene.remove(h).unwrap();
            }
        }
        for _ in 0..rng.random_range(0..4) {
            serial += 1;
            let h = scene.insert(desc(&mut rng, serial)).unwrap();
            user_data.insert(h, serial);
        }
        let events = if hooks {
            pipeline.update_with_hooks(&mut scene, &Hooks).to_vec()
        } else {
            pipeline.update(&mut scene).to_vec()
        };
        let (want_contacts, want_sensors) = oracle(&scene, manifold_rule, hooks);
        let got: Pairs = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(got, want_contacts, "seed {seed} frame {frame}: contacts");
        let got_sensors: Pairs = pipeline.sensor_pairs().iter().copied().collect();
        assert_eq!(got_sensors, want_sensors, "seed {seed} frame {frame}: sensor pairs");
        // Events are the set differences.
        let (started, stopped) = event_sets(&events);
        assert_eq!(started, &want_contacts - &contacts, "frame {frame}: started");
        assert_eq!(stopped, &contacts - &want_contacts, "frame {frame}: stopped");
        let (entered, exited) = sensor_sets(pipeline.sensor_events());
        assert_eq!(entered, &want_sensors - &sensors, "frame {frame}: entered");
        assert_eq!(exited, &sensors - &want_sensors, "frame {frame}: exited");
        // No sensor in a contact or a manifold; no manifold of a pair the oracle does not pair.
        for m in pipeline.manifolds() {
            let (a, b) = (scene.get(m.a).unwrap(), scene.get(m.b).unwrap());
            assert!(!a.is_sensor() && !b.is_sensor() && may_pair(a, b, hooks), "frame {frame}: manifold of {m:?}");
        }
        // The removal record resolves every event that names a removed collider.
        let record: BTreeSet<ColliderHandle> = pipeline.removed().iter().map(|r| r.handle).collect();
        assert_eq!(record, removed, "frame {frame}: removal record");
        for r in pipeline.removed() {
            assert_eq!(Some(r.user_data), user_data.get(&r.handle).copied());
            assert_eq!(pipeline.removed_user_data(r.handle), Some(r.user_data));
        }
        for &(a, b) in stopped.iter().chain(&exited) {
            for h in [a, b] {
                assert!(
                    scene.get(h).is_some() || pipeline.removed_user_data(h).is_some(),
                    "frame {frame}: {h:?} unresolved"
                );
            }
        }
        // The contacts of each collider, looked up on two frames of three (a
        // frame with no look-up must not leave a stale index behind).
        for (h, _) in scene.iter().filter(|_| frame % 3 != 1) {
            let of: Vec<_> = pipeline.contacts_of(h).map(|p| (p.a, p.b)).collect();
            let scan: Vec<_> =
                pipeline.contacts().iter().filter(|p| p.a == h || p.b == h).map(|p| (p.a, p.b)).collect();
            assert_eq!(of, scan, "frame {frame}: contacts of {h:?}");
        }
        (contacts, sensors) = (want_contacts, want_sensors);
    }
}

#[test]
fn sensors_kinematics_and_bodies_against_brute_force() {
    for seed in [3601, 3602] {
        run(seed, ContactPipeline::new(), false, false);
        run(seed, ContactPipeline::new().with_pair_search(PairSearch::Grid), false, false);
    }
}

#[test]
fn hooks_filter_pairs_and_drop_manifolds() {
    run(3611, ContactPipeline::new().with_manifolds(PREDICTION).unwrap(), false, true);
    run(
        3612,
        ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_pair_search(PairSearch::Grid),
        false,
        true,
    );
}

#[test]
fn the_manifold_touch_rule_counts_speculative_points() {
    let pipeline = || ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_touch_rule(TouchRule::Manifold);
    run(3621, pipeline(), true, false);
    run(3622, pipeline().with_pair_search(PairSearch::Grid), true, false);
}

/// At the threshold: two spheres just inside and just outside the
/// prediction, with each rule.
#[test]
fn touch_rules_at_the_threshold() {
    for (gap, inside) in [(0.0, true), (PREDICTION * 0.99, true), (PREDICTION * 1.01, false)] {
        let mut scene = Scene::new();
        let ball = |x| ColliderDesc::new(ColliderShape::Sphere { radius: 0.5 }, Isometry::translation(x, 0.0, 0.0));
        scene.insert(ball(0.0)).unwrap();
        scene.insert(ball(1.0 + gap)).unwrap();
        let mut manifold_rule =
            ContactPipeline::new().with_manifolds(PREDICTION).unwrap().with_touch_rule(TouchRule::Manifold);
        assert_eq!(manifold_rule.update(&mut scene).len(), usize::from(inside), "gap {gap}");
        let mut penetrating = ContactPipeline::new().with_manifolds(PREDICTION).unwrap();
        assert_eq!(penetrating.update(&mut scene).len(), usize::from(gap == 0.0), "gap {gap}");
    }
}

/// Sensors are not in the way of queries that exclude them, nor of CCD: a
/// ray passes through a static trigger to the wall behind it, a bullet flies
/// through it and stops at the wall, and overlap queries skip it.
#[test]
fn sensors_are_not_in_the_way() {
    let mut scene = Scene::new();
    let slab = |x: Real| {
        ColliderDesc::new(
            ColliderShape::Cuboid { half_extents: Vector::new(0.1, 5.0, 5.0) },
            Isometry::translation(x, 0.0, 0.0),
        )
        .fixed()
    };
    let trigger = scene.insert(slab(5.0).sensor()).unwrap();
    let wall = scene.insert(slab(10.0)).unwrap();
    let ray = proxima_narrowphase::Ray::new(proxima_narrowphase::Point::origin(), Vector::x(), 100.0);
    let all = QueryFilter::default();
    assert_eq!(scene.cast_ray_closest(&ray, &all).map(|h| h.collider), Some(trigger));
    assert_eq!(scene.cast_ray_closest(&ray, &all.exclude_sensors()).map(|h| h.collider), Some(wall));
    let probe = proxima_narrowphase::Sphere::new(proxima_narrowphase::Point::new(5.0, 0.0, 0.0), 0.5);
    assert_eq!(scene.overlaps_sphere(&probe, &all), vec![trigger]);
    assert!(scene.overlaps_sphere(&probe, &all.exclude_sensors()).is_empty());
    // A CCD bullet from x = 0 to x = 20: through the trigger, stopped by the wall.
    let bullet = scene
        .insert(ColliderDesc::new(ColliderShape::Sphere { radius: 0.1 }, Isometry::identity()).with_ccd())
        .unwrap();
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    scene.set_pose(bullet, Isometry::translation(20.0, 0.0, 0.0)).unwrap();
    pipeline.update(&mut scene);
    let [impact] = pipeline.ccd_impacts() else { panic!("one impact: {:?}", pipeline.ccd_impacts()) };
    assert_eq!((impact.collider, impact.other), (bullet, wall));
    assert!((impact.hit.toi - 9.8 / 20.0).abs() < 1e-6);
}
