//! `PairTracker` on moving worlds, against brute force after every update:
//! random inserts, removals, small moves, teleports, re-filtering, bursts in
//! which most proxies jump, and long quiet stretches. After each update:
//! - `pairs()` equals the brute-force set of filtered fat-box overlaps;
//! - `events()` equal the set differences of consecutive brute-force sets;
//! - `exact_pairs()` equals the brute-force set of tight-box overlaps;
//! - `validate()` passes;
//! - box and ray queries see the current fat boxes, also between the moves
//!   and the update (before the update's refit);
//! - the parallel update, in a one-thread and a two-thread pool
//!   (`ThreadPool::install`), gives the same events as the sequential one.

mod common_bp;

use common_bp::{random_box, random_step, translated};
use proxima_broadphase::{CollisionGroups, PairEvent, PairTracker, ProxyId, ProxyOptions, RayControl};
use proxima_narrowphase::{cast_ray_aabb, intersects_aabb_aabb, Aabb, Point, Ray, Real, Vector};
use proxima_test_support::{gen, rng, Rng};
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

/// Box and ray queries against brute force over the current fat boxes. Run
/// between the moves and the update too, where the lanes above a moved
/// leaf may still hold its old box. Ray hits are compared outside a grazing
/// band: every box the ray enters when shrunk by `GRAZE` is reported, none
/// it misses when grown by `GRAZE` (the tree's 8-lane kernel and the scalar
/// test may round a grazing ray apart), and the nearest entry (rays clipped
/// at each hit) is the brute-force one within `GRAZE`.
fn check_queries(world: &World, tracker: &PairTracker<u32>, rng: &mut impl Rng, frame: usize) {
    const GRAZE: Real = 1e-3;
    let fats: Vec<(ProxyId, Aabb)> =
        world.live.iter().map(|(id, ..)| (*id, tracker.fat_aabb(*id).expect("live"))).collect();
    let side = world.side;
    for k in 0..6 {
        let query = match (k % 2, fats.is_empty()) {
            (1, false) => fats[rng.random_range(0..fats.len())].1,
            _ => random_box(rng, side, 0.5, 4.0),
        };
        let expected: BTreeSet<ProxyId> =
            fats.iter().filter(|(_, fat)| intersects_aabb_aabb(fat, &query)).map(|(id, _)| *id).collect();
        let got: Vec<ProxyId> = tracker.overlaps(&query).collect();
        assert_eq!(got.len(), expected.len(), "frame {frame}: a box query repeated or missed hits");
        assert_eq!(got.into_iter().collect::<BTreeSet<_>>(), expected, "frame {frame}: box query");

        let origin =
            Point::new(gen::uniform(rng, 0.0, side), gen::uniform(rng, 0.0, side), gen::uniform(rng, 0.0, side));
        let ray = Ray::new(origin, gen::unit_vector(rng), side);
        let enters = |grow: Real| -> BTreeSet<ProxyId> {
            let grown = |fat: &Aabb| Aabb::new(fat.min() - Vector::repeat(grow), fat.max() + Vector::repeat(grow));
            fats.iter().filter(|(_, fat)| cast_ray_aabb(&ray, &grown(fat)).is_some()).map(|(id, _)| *id).collect()
        };
        let mut got = BTreeSet::new();
        tracker.visit_ray(&ray, |id, _| {
            assert!(got.insert(id), "frame {frame}: a ray reported {id:?} twice");
            RayControl::Continue
        });
        assert!(enters(-GRAZE).is_subset(&got), "frame {frame}: a ray missed a box it enters");
        assert!(got.is_subset(&enters(GRAZE)), "frame {frame}: a ray reported a box it misses");
        let nearest = fats.iter().filter_map(|(_, fat)| cast_ray_aabb(&ray, fat)).map(|h| h.toi).reduce(Real::min);
        let mut clipped: Option<Real> = None;
        tracker.visit_ray(&ray, |_, toi| {
            clipped = Some(clipped.map_or(toi, |c| c.min(toi)));
            RayControl::Clip(toi)
        });
        match (nearest, clipped) {
            (Some(a), Some(b)) => assert!((a - b).abs() <= GRAZE, "frame {frame}: nearest entry {b} against {a}"),
            (a, b) => assert_eq!(a.is_some(), b.is_some(), "frame {frame}: nearest entry {b:?} against {a:?}"),
        }
    }
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
            check_queries(&world, &seq, &mut r, frame);
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
        check_queries(&world, &seq, &mut r, frame);
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

/// A world mostly at rest: each frame a few proxies shift their tight boxes
/// a little inside their fat boxes (no query, no new fat pair), so the
/// merge takes most pairs' exactness from the last update's exact pairs and
/// tests only the touched ones. Tight boxes touch, part and touch again
/// (moves of a quarter of the gap on a lattice of unit cubes one apart), and
/// now and then one proxy jumps far. `exact_pairs()` (and `exact_pair_indices()`) must equal the
/// brute-force tight overlaps after every update.
#[test]
fn exact_pairs_in_a_world_mostly_at_rest() {
    use proxima_broadphase::FatBoxOptions;
    use proxima_narrowphase::{Point, Vector};
    let mut rng = rng(31);
    let options = FatBoxOptions { margin: 0.6, prediction: 0.0 };
    let mut tracker: PairTracker<()> = PairTracker::new_with(options).unwrap();
    let side = 12;
    let mut tights = Vec::new();
    let mut ids = Vec::new();
    for i in 0..side * side * side {
        let (x, y, z) = ((i % side) as f32, (i / side % side) as f32, (i / (side * side)) as f32);
        // Cubes of side 1 on a lattice of pitch 1.25: a gap of 0.25 between neighbours.
        let min = Point::new(x * 1.25, y * 1.25, z * 1.25);
        let tight = Aabb::new(min, min + Vector::repeat(1.0));
        ids.push(tracker.insert(tight, (), ProxyOptions::default()));
        tights.push(tight);
    }
    let mut touching_frames = 0;
    for frame in 0..60 {
        // A few proxies (well under a quarter) move by +-0.125 or 0.25 on one axis.
        for _ in 0..rng.random_range(0..40) {
            let k = rng.random_range(0..tights.len());
            let mut step = Vector::zeros();
            step[rng.random_range(0..3)] = [-0.25f32, -0.125, 0.125, 0.25][rng.random_range(0..4)];
            if frame % 10 == 9 && rng.random_bool(0.1) {
                step *= 40.0; // a jump: a new fat box, its pairs found again
            }
            let moved = Aabb::new(tights[k].min() + step, tights[k].max() + step);
            tracker.move_proxy(ids[k], moved, step).unwrap();
            tights[k] = moved;
        }
        tracker.update();
        let exact: BTreeSet<_> = tracker.exact_pairs().collect();
        assert_eq!(exact, brute_exact_pairs(&ids, &tights), "frame {frame}");
        // The index form names the same pairs, in the same order.
        assert!(tracker.exact_pair_indices().eq(tracker.exact_pairs().map(|(a, b)| (a.index(), b.index()))));
        tracker.validate().unwrap();
        touching_frames += usize::from(!exact.is_empty());
    }
    assert!(touching_frames > 30, "the tight boxes never touched");
}

/// The overlapping pairs of `boxes` (named by `ids`) by sort and sweep on x:
/// every pair whose x intervals overlap is tested on all three axes, so it
/// finds what the double loop finds (checked below on a part of the world)
/// at a cost a 20,000-box world can pay every frame.
fn sweep_pairs(ids: &[ProxyId], boxes: &[Aabb]) -> BTreeSet<(ProxyId, ProxyId)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&i, &j| boxes[i].min().x.total_cmp(&boxes[j].min().x));
    let mut out = BTreeSet::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in order[k + 1..].iter().take_while(|&&j| boxes[j].min().x <= boxes[i].max().x) {
            if intersects_aabb_aabb(&boxes[i], &boxes[j]) {
                out.insert((ids[i].min(ids[j]), ids[i].max(ids[j])));
            }
        }
    }
    out
}

/// A world whose tight-record table outgrows half a core's L2 (21,952
/// proxies of 32 bytes: 702 kB against the merge's 512 kB threshold), so
/// the merge prefetches its pairs' records, in both of its forms: frames
/// in which every tight box moves (each pair tested) and frames in which a
/// few do (the others' exactness read from the last update's exact pairs).
/// The pairs and the exact pairs must equal the sweep's after every update.
#[test]
fn exact_pairs_of_a_world_past_the_prefetch_threshold() {
    use proxima_broadphase::FatBoxOptions;
    let mut rng = rng(57);
    let options = FatBoxOptions { margin: 0.3, prediction: 0.0 };
    let mut tracker: PairTracker<()> = PairTracker::new_with(options).unwrap();
    let side = 28;
    let (mut tights, mut ids) = (Vec::new(), Vec::new());
    for i in 0..side * side * side {
        let (x, y, z) = ((i % side) as f32, (i / side % side) as f32, (i / (side * side)) as f32);
        // Unit cubes 0.25 apart, as in the world at rest above.
        let min = Point::new(x * 1.25, y * 1.25, z * 1.25);
        let tight = Aabb::new(min, min + Vector::repeat(1.0));
        ids.push(tracker.insert(tight, (), ProxyOptions::default()));
        tights.push(tight);
    }
    // The reference against the double loop, on boxes that overlap their
    // neighbours (the fat boxes: the tight ones start apart).
    let part = 2_000;
    let fats: Vec<Aabb> = ids[..part].iter().map(|&id| tracker.fat_aabb(id).unwrap()).collect();
    let reference = brute_exact_pairs(&ids[..part], &fats);
    assert!(reference.len() > part, "only {} overlapping pairs", reference.len());
    assert_eq!(sweep_pairs(&ids[..part], &fats), reference);
    let mut moves = 0;
    for frame in 0..8 {
        // Even frames move every proxy, odd frames a few; a jump now and then.
        let moving = if frame % 2 == 0 { tights.len() } else { 40 };
        for _ in 0..moving {
            let k = if moving == tights.len() { moves % tights.len() } else { rng.random_range(0..tights.len()) };
            moves += 1;
            let mut step = Vector::zeros();
            step[rng.random_range(0..3)] = [-0.25f32, -0.125, 0.125, 0.25][rng.random_range(0..4)];
            if rng.random_bool(0.002) {
                step *= 40.0;
            }
            let moved = Aabb::new(tights[k].min() + step, tights[k].max() + step);
            tracker.move_proxy(ids[k], moved, step).unwrap();
            tights[k] = moved;
        }
        tracker.update();
        let fats: Vec<Aabb> = ids.iter().map(|&id| tracker.fat_aabb(id).unwrap()).collect();
        assert_eq!(tracker.pairs().collect::<BTreeSet<_>>(), sweep_pairs(&ids, &fats), "frame {frame}: pairs");
        let exact: BTreeSet<_> = tracker.exact_pairs().collect();
        assert_eq!(exact, sweep_pairs(&ids, &tights), "frame {frame}: exact pairs");
        assert!(exact.len() > 1_000, "frame {frame}: only {} tight boxes touch", exact.len());
        tracker.validate().unwrap();
    }
}

/// The overlapping pairs of `boxes` (named by `ids`) by a double loop: the
/// reference of the exact pairs on small worlds, and of `sweep_pairs`.
fn brute_exact_pairs(ids: &[ProxyId], boxes: &[Aabb]) -> BTreeSet<(ProxyId, ProxyId)> {
    let mut out = BTreeSet::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if intersects_aabb_aabb(&boxes[i], &boxes[j]) {
                out.insert((ids[i].min(ids[j]), ids[i].max(ids[j])));
            }
        }
    }
    out
}
