//! The contact pipeline reads only the colliders the scene logged as changed
//! since its last update. Proven against a twin pipeline that reads every
//! collider each frame (it updates a fresh clone of its scene, which has a
//! new id, so its change log is never trusted): the same events, contacts and
//! CCD impacts, frame after frame, through moves of a few colliders, still
//! frames, removals whose slots are reused, group and shape changes,
//! teleports and CCD spheres.

mod common;

use nalgebra::Translation3;
use proxima_narrowphase::{Isometry, Vector};
use proxima_scene::*;
use proxima_test_support::gen::uniform;
use proxima_test_support::Rng;

/// Applies the same edit to both scenes and returns how many colliders it
/// changed (as the change log counts them: each changed slot once).
struct Twins {
    logged: Scene,
    full: Scene,
    handles: Vec<ColliderHandle>,
}

impl Twins {
    fn set_pose(&mut self, k: usize, pose: Isometry) {
        let h = self.handles[k];
        self.logged.set_pose(h, pose).unwrap();
        self.full.set_pose(h, pose).unwrap();
    }

    /// Moves collider `k` by `d` (keeping its rotation).
    fn shift(&mut self, k: usize, d: Vector) {
        let pose = *self.logged.get(self.handles[k]).unwrap().pose();
        self.set_pose(k, Isometry::from_parts(Translation3::from(pose.translation.vector + d), pose.rotation));
    }

    fn remove_and_insert(&mut self, k: usize, desc: ColliderDesc) {
        let h = self.handles[k];
        self.logged.remove(h).unwrap();
        self.full.remove(h).unwrap();
        let a = self.logged.insert(desc.clone()).unwrap();
        let b = self.full.insert(desc).unwrap();
        assert_eq!(a, b, "both scenes reuse the same slot");
        self.handles[k] = a;
    }
}

/// A random displacement of up to `step` per axis.
fn step(rng: &mut impl Rng, step: f32) -> Vector {
    Vector::new(uniform(rng, -step, step), uniform(rng, -step, step), uniform(rng, -step, step))
}

#[test]
fn logged_colliders_give_what_reading_every_collider_gives() {
    let side = 12.0;
    let (scene, mut handles) = common::mixed_scene(600, side, 0xC1);
    let mut logged = scene.clone();
    let mut full = scene;
    // Four CCD bullets crossing the scene.
    for i in 0..4 {
        let desc = ColliderDesc::new(
            ColliderShape::Sphere { radius: 0.05 },
            Isometry::translation(-1.0, 2.0 + 2.0 * i as f32, 6.0),
        )
        .with_ccd();
        let a = logged.insert(desc.clone()).unwrap();
        assert_eq!(a, full.insert(desc).unwrap());
        handles.push(a);
    }
    let mut twins = Twins { logged, full, handles };
    let n = twins.handles.len();
    // The tracker: which colliders it reads is checked (a switch of
    // `PairSearch::Auto` reads every collider).
    let mut incremental = ContactPipeline::new().with_pair_search(PairSearch::Tracker);
    let mut reference = ContactPipeline::new().with_pair_search(PairSearch::Tracker);
    let mut rng = proxima_test_support::rng(0xC2);
    for frame in 0..40 {
        let mut edited = std::collections::BTreeSet::new();
        match frame % 8 {
            // Still frames: nobody moves.
            3 | 7 => {}
            // A few colliders move (a sleeping world with a few awake bodies).
            0 | 4 => {
                for _ in 0..12 {
                    let k = rng.random_range(0..n - 4);
                    twins.shift(k, step(&mut rng, 0.4));
                    edited.insert(twins.handles[k].index());
                }
            }
            // Removals whose slots the inserts reuse, and a teleport.
            1 => {
                for _ in 0..5 {
                    let k = rng.random_range(0..n - 4);
                    let desc = ColliderDesc::new(ColliderShape::Sphere { radius: 0.6 }, common::pose(&mut rng, side));
                    twins.remove_and_insert(k, desc);
                    edited.insert(twins.handles[k].index());
                }
                let k = rng.random_range(0..n - 4);
                let pose = common::pose(&mut rng, side);
                twins.logged.teleport(twins.handles[k], pose).unwrap();
                twins.full.teleport(twins.handles[k], pose).unwrap();
                edited.insert(twins.handles[k].index());
            }
            // Group and shape changes (a pair may stop interacting).
            2 | 6 => {
                for _ in 0..6 {
                    let k = rng.random_range(0..n - 4);
                    let h = twins.handles[k];
                    let groups = CollisionGroups::new(1 + rng.random_range(0..2), 1 + rng.random_range(0..2));
                    twins.logged.set_groups(h, groups).unwrap();
                    twins.full.set_groups(h, groups).unwrap();
                    let shape = ColliderShape::Sphere { radius: uniform(&mut rng, 0.1, 1.2) };
                    if twins.logged.get(h).unwrap().kind() == BodyKind::Dynamic && !twins.logged.get(h).unwrap().ccd() {
                        twins.logged.set_shape(h, shape.clone()).unwrap();
                        twins.full.set_shape(h, shape).unwrap();
                    }
                    edited.insert(h.index());
                }
            }
            // The bullets fly 3 m a frame; half of the scene moves.
            _ => {
                for k in n - 4..n {
                    twins.shift(k, Vector::new(3.0, 0.0, 0.0));
                    edited.insert(twins.handles[k].index());
                }
                for k in 0..n - 4 {
                    if rng.random_bool(0.5) {
                        twins.shift(k, step(&mut rng, 0.2));
                        edited.insert(twins.handles[k].index());
                    }
                }
            }
        }
        let events = incremental.update(&mut twins.logged).to_vec();
        let mut fresh = twins.full.clone();
        let expected = reference.update(&mut fresh).to_vec();
        twins.full = fresh;
        assert_eq!(events, expected, "frame {frame}: events");
        assert_eq!(incremental.contacts(), reference.contacts(), "frame {frame}: contacts");
        assert_eq!(incremental.ccd_impacts(), reference.ccd_impacts(), "frame {frame}: CCD impacts");
        // The reference read every collider; the incremental pipeline only the
        // edited ones (after its first frame, which reads all).
        assert_eq!(reference.stats().colliders_read, twins.full.len(), "frame {frame}");
        if frame > 0 {
            assert_eq!(incremental.stats().colliders_read, edited.len(), "frame {frame}: colliders read");
        }
        if frame % 8 == 3 || frame % 8 == 7 {
            assert!(events.is_empty(), "frame {frame}: a still frame has no event");
        }
    }
}

/// Two pipelines updating from one scene in turn: each finds the log taken by
/// the other, reads every collider, and both report what a lone pipeline
/// does.
#[test]
fn two_pipelines_on_one_scene_read_everything_and_agree() {
    let (mut scene, handles) = common::mixed_scene(300, 8.0, 0xC3);
    let (mut one, mut two, mut lone) = {
        let tracker = || ContactPipeline::new().with_pair_search(PairSearch::Tracker);
        (tracker(), tracker(), tracker())
    };
    let mut lone_scene = scene.clone();
    let mut rng = proxima_test_support::rng(0xC4);
    for frame in 0..10 {
        for _ in 0..20 {
            let h = handles[rng.random_range(0..handles.len())];
            let pose = *scene.get(h).unwrap().pose();
            let d = step(&mut rng, 0.3);
            let pose = Isometry::from_parts(Translation3::from(pose.translation.vector + d), pose.rotation);
            scene.set_pose(h, pose).unwrap();
            lone_scene.set_pose(h, pose).unwrap();
        }
        let expected = lone.update(&mut lone_scene).to_vec();
        assert_eq!(one.update(&mut scene).to_vec(), expected, "frame {frame}: first pipeline");
        assert_eq!(one.stats().colliders_read, scene.len(), "frame {frame}: the other took the log");
        // The second sees the same frame (no edit between): no event.
        two.update(&mut scene);
        assert_eq!(two.stats().colliders_read, scene.len());
        assert_eq!(two.contacts(), one.contacts(), "frame {frame}: second pipeline");
    }
}
