//! `PairTracker` on moving worlds, against brute force after every update:
//! random inserts, removals, small moves, teleports, re-filtering, bursts in
//! which most proxies jump, and long quiet stretches. After each update:
//! - `pairs()` equals the brute-force set of filtered fat-box overlaps;
//! - `events()` equal the set differences of consecutive brute-force sets;
//! - `exact_pairs()` equals the brute-force set of tight-box overlaps;
//! - `validate()` passes;
//! - the parallel update, in a one-thread and a two-thread pool
//!   (`ThreadPool::install`), gives the same events as the sequential one.

mod common_bp;

use common_bp::{random_box, random_step, translated};
use proxima_broadphase::{CollisionGroups, PairEvent, PairTracker, ProxyId, ProxyOptions};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb};
use proxima_test_support::{rng, Rng};
use std::collections::BTreeSet;

/// The user's side of the simulation: live proxies with their tight box and options.
struct World {
    live: Vec<(ProxyId, Aabb, ProxyOptions)>,
    side: f32,
}

fn random_options(rng: &mut impl Rng) -> ProxyOptions {
    let groups = match rng.random_range(0..8) {
        0 => CollisionGroups::new(0b01, 0b10),
        1 => CollisionGroups::new(0b10, 0b01),
        _ => CollisionGroups::ALL,
    };
    ProxyOptions { groups, is_static: rng.random_bool(0.2) }
}

/// The filtered pairs of `boxes(id)` by a double loop: overlapping, not
/// both static, groups interacting.
fn brute(world: &World, boxes: impl Fn(ProxyId, &Aabb) -> Aabb) -> BTreeSet<(ProxyId, ProxyId)> {
    let mut out = BTreeSet::new();
    for (i, (a, ta, oa)) in world.live.iter().enumerate() {
        let ba = boxes(*a, ta);
        for (b, tb, ob) in &world.live[i + 1..] {
            if (oa.is_static && ob.is_static) || !oa.groups.interacts_with(ob.groups) {
                continue;
            }
            if intersects_aabb_aabb(&ba, &boxes(*b, tb)) {
                out.insert(if a < b { (*a, *b) } else { (*b, *a) });
            }
        }
    }
    out
}

/// One frame of changes; `burst` makes most proxies jump far.
fn mutate<T: Copy + Default>(world: &mut World, tracker: &mut [&mut PairTracker<T>], rng: &mut impl Rng, phase: u32) {
    let (move_p, jump_p, churn) = match phase {
        0 => (0.3, 0.02, 3), // ordinary frame
        1 => (0.9, 0.8, 0),  // burst: most proxies teleport
        _ => (0.0, 0.0, 0),  // quiet: nothing moves
    };
    let side = world.side;
    for (id, tight, _) in world.live.iter_mut() {
        if rng.random_bool(move_p) {
            let (d, next) = if rng.random_bool(jump_p) {
                let next = random_box(rng, side, 0.2, 2.0);
                (next.center() - tight.center(), next)
            } else {
                let d = random_step(rng, 0.4);
                (d, translated(tight, &d))
            };
            *tight = next;
            for t in tracker.iter_mut() {
                t.move_proxy(*id, next, d).expect("live id");
            }
        }
    }
    for _ in 0..churn {
        if !world.live.is_empty() && rng.random_bool(0.5) {
            let (id, _, _) = world.live.swap_remove(rng.random_range(0..world.live.len()));
            for t in tracker.iter_mut() {
                t.remove(id).expect("live id");
            }
        }
        if rng.random_bool(0.5) {
            let (b, o) = (random_box(rng, side, 0.2, 2.0), random_options(rng));
            let ids: Vec<ProxyId> = tracker.iter_mut().map(|t| t.insert(b, T::default(), o)).collect();
            assert!(ids.windows(2).all(|w| w[0] == w[1]), "trackers fed alike hand out the same ids");
            world.live.push((ids[0], b, o));
        }
        if !world.live.is_empty() && rng.random_bool(0.3) {
            let k = rng.random_range(0..world.live.len());
            let o = random_options(rng);
            world.live[k].2 = o;
            for t in tracker.iter_mut() {
                t.set_options(world.live[k].0, o).expect("live id");
            }
        }
    }
}

fn check(
    world: &World,
    tracker: &PairTracker<u32>,
    before: &BTreeSet<(ProxyId, ProxyId)>,
    frame: usize,
) -> BTreeSet<(ProxyId, ProxyId)> {
    tracker.validate().unwrap_or_else(|e| panic!("frame {frame}: {e}"));
    let fat = brute(world, |id, _| tracker.fat_aabb(id).expect("live"));
    let got: BTreeSet<_> = tracker.pairs().collect();
    assert_eq!(got.len(), tracker.pairs().len(), "frame {frame}: repeated pairs");
    assert_eq!(got, fat, "frame {frame}: pair set differs from brute force over the fat boxes");
    let exact = brute(world, |_, tight| *tight);
    let got_exact: BTreeSet<_> = tracker.exact_pairs().collect();
    assert_eq!(got_exact, exact, "frame {frame}: exact pairs differ from brute force over the tight boxes");
    let started: BTreeSet<_> = fat.difference(before).copied().collect();
    let stopped: BTreeSet<_> = before.difference(&fat).copied().collect();
    let mut ev_started = BTreeSet::new();
    let mut ev_stopped = BTreeSet::new();
    for e in tracker.events() {
        match *e {
            PairEvent::Started(a, b) => assert!(ev_started.insert((a, b)), "frame {frame}: repeated event"),
            PairEvent::Stopped(a, b) => assert!(ev_stopped.insert((a, b)), "frame {frame}: repeated event"),
        }
    }
    assert_eq!(ev_started, started, "frame {frame}: Started events are not the new pairs");
    assert_eq!(ev_stopped, stopped, "frame {frame}: Stopped events are not the ended pairs");
    fat
}

/// Runs the sequence; returns the largest pair set seen.
fn run(seed: u64, n: usize, frames: usize, spacing: f32) -> usize {
    let mut r = rng(seed);
    let side = (n as f32).cbrt() * spacing;
    let mut seq: PairTracker<u32> = PairTracker::new();
    let mut par1: PairTracker<u32> = PairTracker::new();
    let mut par2: PairTracker<u32> = PairTracker::new();
    let mut world = World { live: Vec::new(), side };
    for _ in 0..n {
        let (b, o) = (random_box(&mut r, side, 0.2, 2.0), random_options(&mut r));
        let id = seq.insert(b, 0, o);
        assert_eq!(par1.insert(b, 0, o), id);
        assert_eq!(par2.insert(b, 0, o), id);
        world.live.push((id, b, o));
    }
    #[cfg(feature = "parallel")]
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    #[cfg(feature = "parallel")]
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
    let mut before = BTreeSet::new();
    let (mut events, mut most) = (0, 0);
    for frame in 0..frames {
        // 10 ordinary frames, a burst, 10 ordinary, 15 quiet, repeated.
        let phase = match frame % 36 {
            10 => 1,
            21..=35 => 2,
            _ => 0,
        };
        if frame > 0 {
            mutate(&mut world, &mut [&mut seq, &mut par1, &mut par2], &mut r, phase);
        }
        let expected = seq.update().to_vec();
        #[cfg(feature = "parallel")]
        {
            assert_eq!(one.install(|| par1.update_parallel().to_vec()), expected, "frame {frame}: 1 thread differs");
            assert_eq!(two.install(|| par2.update_parallel().to_vec()), expected, "frame {frame}: 2 threads differ");
        }
        #[cfg(not(feature = "parallel"))]
        {
            assert_eq!(par1.update(), expected.as_slice());
            assert_eq!(par2.update(), expected.as_slice());
        }
        events += expected.len();
        if phase == 2 && frame % 36 != 21 {
            assert!(expected.is_empty(), "frame {frame}: a quiet frame changed pairs");
        }
        before = check(&world, &seq, &before, frame);
        most = most.max(seq.pairs().len());
    }
    assert!(events > frames, "the sequence must change pairs ({events} events)");
    most
}

#[test]
fn small_world_against_brute_force() {
    for seed in 0..4 {
        run(seed, 300, 80, 2.5);
    }
}

#[test]
fn larger_world_with_bursts_against_brute_force() {
    // Enough changed proxies per frame to take the parallel queries (>= 256).
    run(99, 2_000, 40, 2.5);
}

#[test]
fn dense_world_against_brute_force() {
    // A dense world: many persistent pairs per proxy, most kept by the merge.
    let most = run(7, 4_000, 12, 1.5);
    assert!(most > 8_192, "only {most} pairs: the world is not dense");
}
