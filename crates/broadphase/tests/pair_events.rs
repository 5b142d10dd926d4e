//! `PairTracker` events against brute-force diffs of consecutive frames.

mod common_bp;

use common_bp::{random_box, random_step, translated};
use proxima_broadphase::{
    BroadPhase, BruteForce, CollisionGroups, FatBoxOptions, Pair, PairEvent, PairTracker, ProxyId, ProxyOptions,
};
use proxima_narrowphase::{Aabb, Point, Vector};
use proxima_test_support::{rng, Rng};

/// The user predicate of the tests: a pure function of the two proxies' data.
fn keep(a: u32, b: u32) -> bool {
    (a + b) % 7 != 0
}

/// The pair set a tracker should hold: brute force over its fat boxes, then
/// the static, group and predicate filters.
fn expected_pairs(tracker: &PairTracker<u32>, ids: &[ProxyId]) -> Vec<Pair> {
    let mut bf = BruteForce::new();
    for &id in ids {
        bf.insert(tracker.fat_aabb(id).unwrap(), id);
    }
    let mut raw = Vec::new();
    bf.pairs_into(&mut raw);
    let mut out: Vec<Pair> = raw
        .iter()
        .map(|&(x, y)| proxima_broadphase::canonical_pair(*bf.get(x).unwrap(), *bf.get(y).unwrap()))
        .filter(|&(a, b)| {
            let (oa, ob) = (tracker.options(a).unwrap(), tracker.options(b).unwrap());
            !(oa.is_static && ob.is_static)
                && oa.groups.interacts_with(ob.groups)
                && keep(*tracker.get(a).unwrap(), *tracker.get(b).unwrap())
        })
        .collect();
    out.sort_unstable();
    out
}

/// The events between two pair sets, in the tracker's documented order:
/// by slot indices, `Stopped` before `Started` for a reused slot.
fn diff(prev: &[Pair], cur: &[Pair]) -> Vec<PairEvent> {
    let mut events: Vec<PairEvent> = prev
        .iter()
        .filter(|p| cur.binary_search(p).is_err())
        .map(|&(a, b)| PairEvent::Stopped(a, b))
        .chain(cur.iter().filter(|p| prev.binary_search(p).is_err()).map(|&(a, b)| PairEvent::Started(a, b)))
        .collect();
    events.sort_by_key(|e| {
        let (a, b) = e.pair();
        (a.index(), b.index(), matches!(e, PairEvent::Started(..)))
    });
    events
}

fn random_options(rng: &mut impl Rng) -> ProxyOptions {
    let groups = match rng.random_range(0..4) {
        0 => CollisionGroups::new(0b01, 0b10),
        1 => CollisionGroups::new(0b10, 0b01),
        _ => CollisionGroups::default(),
    };
    ProxyOptions { groups, is_static: rng.random_bool(0.2) }
}

#[test]
fn events_match_brute_force_diffs() {
    let (mut started, mut stopped) = (0usize, 0usize);
    for seed in 0..4u64 {
        let mut rng = rng(500 + seed);
        let options = if seed % 2 == 0 { FatBoxOptions::default() } else { FatBoxOptions::TIGHT };
        let mut tracker: PairTracker<u32> = PairTracker::new_with(options).unwrap();
        let mut ids: Vec<ProxyId> = Vec::new();
        let mut tight: Vec<Aabb> = Vec::new();
        let mut prev: Vec<Pair> = Vec::new();
        let mut next_data = 0u32;
        for frame in 0..400 {
            // A frame of edits: inserts, removes, moves, re-filters.
            for _ in 0..rng.random_range(1..12) {
                let roll: f64 = rng.random();
                if ids.len() < 20 || (roll < 0.2 && ids.len() < 150) {
                    let aabb = random_box(&mut rng, 15.0, 0.1, 1.5);
                    let opts = random_options(&mut rng);
                    ids.push(tracker.insert(aabb, next_data, opts));
                    tight.push(aabb);
                    next_data += 1;
                } else if roll < 0.3 {
                    let i = rng.random_range(0..ids.len());
                    tracker.remove(ids.swap_remove(i)).unwrap();
                    tight.swap_remove(i);
                } else if roll < 0.35 {
                    let i = rng.random_range(0..ids.len());
                    tracker.set_options(ids[i], random_options(&mut rng)).unwrap();
                } else {
                    let i = rng.random_range(0..ids.len());
                    let step = if rng.random_bool(0.7) { 0.2 } else { 2.0 };
                    let d = random_step(&mut rng, step);
                    tight[i] = translated(&tight[i], &d);
                    tracker.move_proxy(ids[i], tight[i], d).unwrap();
                }
            }
            let events = tracker
                .update_with(|a, da, b, db| {
                    assert!(a < b, "the predicate sees canonical pairs");
                    keep(*da, *db)
                })
                .to_vec();
            let cur = expected_pairs(&tracker, &ids);
            assert_eq!(events, diff(&prev, &cur), "seed {seed} frame {frame}");
            started += events.iter().filter(|e| matches!(e, PairEvent::Started(..))).count();
            stopped += events.iter().filter(|e| matches!(e, PairEvent::Stopped(..))).count();
            assert_eq!(tracker.pairs().collect::<Vec<_>>(), cur);
            tracker.validate().unwrap();
            // A second update with no edits reports nothing.
            assert!(tracker.update_with(|_, da, _, db| keep(*da, *db)).is_empty());
            prev = cur;
        }
    }
    assert!(started > 1000 && stopped > 1000, "started {started}, stopped {stopped}");
}

#[test]
fn static_proxies_never_pair_with_each_other() {
    let mut tracker = PairTracker::new();
    let b = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    let s1 = tracker.insert(b, (), ProxyOptions::STATIC);
    let s2 = tracker.insert(b, (), ProxyOptions::STATIC);
    assert!(tracker.update().is_empty());
    let d = tracker.insert(b, (), ProxyOptions::default());
    assert_eq!(tracker.update(), &[PairEvent::Started(s1, d), PairEvent::Started(s2, d)]);
    // Moving a static proxy re-queries it, still without the static-static pair.
    let far = Aabb::new(Point::new(10.0, 0.0, 0.0), Point::new(11.0, 1.0, 1.0));
    tracker.move_proxy(s1, far, Vector::zeros()).unwrap();
    assert_eq!(tracker.update(), &[PairEvent::Stopped(s1, d)]);
    tracker.move_proxy(s1, b, Vector::zeros()).unwrap();
    assert_eq!(tracker.update(), &[PairEvent::Started(s1, d)]);
    // Making a static proxy dynamic lets it pair with the other static one.
    tracker.set_options(s2, ProxyOptions::default()).unwrap();
    assert_eq!(tracker.update(), &[PairEvent::Started(s1, s2)]);
    tracker.validate().unwrap();
}

#[test]
fn groups_filter_pairs() {
    let mut tracker = PairTracker::new();
    let b = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    let player = ProxyOptions { groups: CollisionGroups::new(0b001, 0b110), is_static: false };
    let enemy = ProxyOptions { groups: CollisionGroups::new(0b010, 0b001), is_static: false };
    let ghost = ProxyOptions { groups: CollisionGroups::NONE, is_static: false };
    let p = tracker.insert(b, (), player);
    let e1 = tracker.insert(b, (), enemy);
    let e2 = tracker.insert(b, (), enemy);
    let g = tracker.insert(b, (), ghost);
    let all = tracker.insert(b, (), ProxyOptions::default());
    // player-enemy: yes; enemy-enemy: no (enemy's filter lacks its own group);
    // ghost: nothing; default (all groups) pairs with player and enemies.
    assert_eq!(
        tracker.update(),
        &[
            PairEvent::Started(p, e1),
            PairEvent::Started(p, e2),
            PairEvent::Started(p, all),
            PairEvent::Started(e1, all),
            PairEvent::Started(e2, all),
        ]
    );
    let _ = g;
}

#[test]
fn only_moved_proxies_are_requeried() {
    let mut tracker = PairTracker::new();
    let mut rng = rng(3);
    let ids: Vec<ProxyId> =
        (0..300).map(|_| tracker.insert(random_box(&mut rng, 30.0, 0.2, 1.0), (), ProxyOptions::default())).collect();
    tracker.update();
    let mut asked = 0;
    // Nothing moved: the predicate is never called.
    tracker.update_with(|_, _, _, _| {
        asked += 1;
        true
    });
    assert_eq!(asked, 0);
    // A move inside the fat box (margin 0.1) does not re-query either.
    let fat = tracker.fat_aabb(ids[0]).unwrap();
    let inside = Aabb::new(fat.min() + Vector::repeat(0.05), fat.max() - Vector::repeat(0.05));
    assert_eq!(tracker.move_proxy(ids[0], inside, Vector::zeros()), Ok(false));
    tracker.update_with(|_, _, _, _| {
        asked += 1;
        true
    });
    assert_eq!(asked, 0);
}

#[test]
fn stale_ids_are_rejected() {
    let mut tracker: PairTracker<u8> = PairTracker::new();
    let b = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    let a = tracker.insert(b, 1, ProxyOptions::default());
    tracker.remove(a).unwrap();
    let err = proxima_broadphase::BroadPhaseError::StaleId(a);
    assert_eq!(tracker.remove(a), Err(err));
    assert_eq!(tracker.move_proxy(a, b, Vector::zeros()), Err(err));
    assert_eq!(tracker.set_options(a, ProxyOptions::STATIC), Err(err));
    assert_eq!(tracker.get(a), None);
    assert!(tracker.update().is_empty());
}

/// A fixed scene run twice gives the same events, frame by frame.
#[test]
fn updates_are_deterministic() {
    let run = || {
        let mut rng = rng(42);
        let mut tracker = PairTracker::new();
        let mut ids = Vec::new();
        let mut boxes = Vec::new();
        for _ in 0..500 {
            let b = random_box(&mut rng, 25.0, 0.1, 1.0);
            ids.push(tracker.insert(b, (), ProxyOptions::default()));
            boxes.push(b);
        }
        let mut log: Vec<PairEvent> = Vec::new();
        for _ in 0..50 {
            for (id, b) in ids.iter().zip(boxes.iter_mut()) {
                if rng.random_bool(0.2) {
                    let d = random_step(&mut rng, 0.5);
                    *b = translated(b, &d);
                    tracker.move_proxy(*id, *b, d).unwrap();
                }
            }
            log.extend_from_slice(tracker.update());
        }
        log
    };
    let (a, b) = (run(), run());
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

/// The parallel update gives the same events as the sequential one (with
/// enough moved proxies per frame to take the parallel path).
#[cfg(feature = "parallel")]
#[test]
fn parallel_update_matches_sequential() {
    let mut rng = rng(77);
    let mut seq: PairTracker<u32> = PairTracker::new();
    let mut par: PairTracker<u32> = PairTracker::new();
    let mut boxes = Vec::new();
    let mut ids = Vec::new();
    for i in 0..4000u32 {
        let b = random_box(&mut rng, 40.0, 0.1, 1.0);
        let options = if i % 7 == 0 { ProxyOptions::STATIC } else { ProxyOptions::default() };
        let id = seq.insert(b, i, options);
        assert_eq!(par.insert(b, i, options), id);
        boxes.push(b);
        ids.push(id);
    }
    let mut total = 0;
    for frame in 0..30 {
        for (id, b) in ids.iter().zip(boxes.iter_mut()) {
            if rng.random_bool(0.3) {
                let d = random_step(&mut rng, 0.5);
                *b = translated(b, &d);
                assert_eq!(seq.move_proxy(*id, *b, d), par.move_proxy(*id, *b, d));
            }
        }
        let a = seq.update_with(|_, da, _, db| keep(*da, *db)).to_vec();
        let b = par.update_parallel_with(|_, da, _, db| keep(*da, *db)).to_vec();
        assert_eq!(a, b, "frame {frame}");
        assert!(seq.pairs().eq(par.pairs()));
        total += a.len();
    }
    par.validate().unwrap();
    assert!(total > 1000, "{total} events");
}

/// The parallel update on a pair set large enough for the parallel merge
/// (more than 2 x 32,768 pairs, so it is cut into pieces: two on two
/// threads, three on three or five), run
/// in pools of 1, 2, 3 and 5 threads (pieces of different boundaries): the
/// same events, pair set and exact pairs as the sequential update at every
/// frame, through moves, bursts of teleports, removals and insertions, a
/// frame where every pair is found again, and every pair set equal to brute
/// force.
#[cfg(feature = "parallel")]
#[test]
fn parallel_merge_matches_sequential_at_every_thread_count() {
    let mut rng = rng(78);
    let pools: Vec<rayon::ThreadPool> = [1, 2, 3, 5]
        .iter()
        .map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool"))
        .collect();
    let mut seq: PairTracker<u32> = PairTracker::new();
    let mut pars: Vec<PairTracker<u32>> = pools.iter().map(|_| PairTracker::new()).collect();
    let (mut boxes, mut ids) = (Vec::new(), Vec::new());
    let mut next_data = 0u32;
    // 6,000 boxes in a cube of side 15: about 100k overlapping pairs.
    const SIDE: f32 = 15.0;
    for _ in 0..6000 {
        let b = random_box(&mut rng, SIDE, 0.3, 1.5);
        let id = seq.insert(b, next_data, ProxyOptions::default());
        for par in &mut pars {
            assert_eq!(par.insert(b, next_data, ProxyOptions::default()), id);
        }
        next_data += 1;
        boxes.push(b);
        ids.push(id);
    }
    let (mut merged_big, mut events) = (0, 0);
    for frame in 0..24 {
        let burst = frame % 8 == 5;
        for (id, b) in ids.iter().zip(boxes.iter_mut()) {
            if burst && rng.random_bool(0.5) {
                *b = random_box(&mut rng, SIDE, 0.3, 1.5); // a teleport
            } else if rng.random_bool(0.2) {
                *b = translated(b, &random_step(&mut rng, 0.4));
            } else {
                continue;
            }
            let result = seq.move_proxy(*id, *b, Vector::zeros());
            for par in &mut pars {
                assert_eq!(par.move_proxy(*id, *b, Vector::zeros()), result);
            }
        }
        if frame % 4 == 3 {
            // Remove a few and insert as many (slots reused within the frame).
            for _ in 0..20 {
                let k = rng.random_range(0..ids.len());
                seq.remove(ids[k]).unwrap();
                for par in &mut pars {
                    par.remove(ids[k]).unwrap();
                }
                let b = random_box(&mut rng, SIDE, 0.3, 1.5);
                let id = seq.insert(b, next_data, ProxyOptions::default());
                for par in &mut pars {
                    assert_eq!(par.insert(b, next_data, ProxyOptions::default()), id);
                }
                next_data += 1;
                (boxes[k], ids[k]) = (b, id);
            }
        }
        if frame % 8 == 2 {
            // Every proxy re-filtered: every pair is found again, those at
            // the pieces' boundaries included.
            for &id in &ids {
                seq.set_options(id, ProxyOptions::default()).unwrap();
                for par in &mut pars {
                    par.set_options(id, ProxyOptions::default()).unwrap();
                }
            }
        }
        merged_big += usize::from(seq.pairs().len() > 2 * 32_768);
        let expected = seq.update_with(|_, da, _, db| keep(*da, *db)).to_vec();
        for (pool, par) in pools.iter().zip(&mut pars) {
            let threads = pool.current_num_threads();
            let got = pool.install(|| par.update_parallel_with(|_, da, _, db| keep(*da, *db)).to_vec());
            assert_eq!(got, expected, "frame {frame}, {threads} threads: events");
            assert!(par.pairs().eq(seq.pairs()), "frame {frame}, {threads} threads: pair set");
            assert!(par.exact_pairs().eq(seq.exact_pairs()), "frame {frame}, {threads} threads: exact pairs");
        }
        assert_eq!(seq.pairs().collect::<Vec<_>>(), expected_pairs(&seq, &ids), "frame {frame}: against brute force");
        seq.validate().unwrap();
        events += expected.len();
    }
    assert!(merged_big > 20, "only {merged_big} frames had a pair set large enough for the parallel merge");
    assert!(events > 10_000, "{events} events");
}

/// Both ways of finding the changed proxies' dynamic neighbours (one query
/// each; one marked self-descent when more than a quarter changed) against
/// brute force: frames of light motion, of heavy motion and teleports of
/// every proxy, with static proxies, groups, the predicate, re-filters,
/// removals and insertions that wait outside the tree; events equal to the
/// diff of brute force's pair sets at every frame, the exact pairs equal to
/// the tight boxes' overlaps, and `update_parallel` (2 threads) identical.
#[test]
fn queries_and_marked_descent_match_brute_force() {
    marked_descent_run(91, 0.2);
}

/// The same with a handful of static proxies (a ground and a few walls):
/// the descent's frames then query the static tree in change order, not
/// sorted by leaf.
#[test]
fn marked_descent_with_few_statics_matches_brute_force() {
    marked_descent_run(92, 0.01);
}

/// [`queries_and_marked_descent_match_brute_force`] with `static_share` of
/// the inserted proxies static.
fn marked_descent_run(seed: u64, static_share: f64) {
    let mut rng = rng(seed);
    let mut tracker: PairTracker<u32> = PairTracker::new();
    #[cfg(feature = "parallel")]
    let (pool, mut twin) =
        (rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("thread pool"), PairTracker::<u32>::new());
    let (mut ids, mut tight) = (Vec::new(), Vec::new());
    let mut next_data = 0u32;
    let mut prev: Vec<Pair> = Vec::new();
    let (mut descended, mut queried) = (0, 0);
    for frame in 0..60 {
        // Every fourth frame heavy (40% moved), every eighth a teleport of
        // everything, the rest light (5% moved); a few edits each frame.
        let fraction = match frame % 8 {
            7 => 1.0,
            3 => 0.4,
            _ => 0.05,
        };
        let mut edits: Vec<(usize, Aabb, Vector)> = Vec::new();
        for (i, b) in tight.iter_mut().enumerate() {
            if rng.random_bool(fraction) {
                let d = if fraction == 1.0 { random_step(&mut rng, 6.0) } else { random_step(&mut rng, 0.6) };
                *b = translated(b, &d);
                edits.push((i, *b, d));
            }
        }
        for (i, b, d) in edits {
            tracker.move_proxy(ids[i], b, d).unwrap();
            #[cfg(feature = "parallel")]
            twin.move_proxy(ids[i], b, d).unwrap();
        }
        for _ in 0..rng.random_range(0..20) {
            let roll: f64 = rng.random();
            if ids.len() < 300 || roll < 0.4 {
                let aabb = random_box(&mut rng, 25.0, 0.1, 1.2);
                let options = ProxyOptions { is_static: rng.random_bool(static_share), ..random_options(&mut rng) };
                let id = tracker.insert(aabb, next_data, options);
                #[cfg(feature = "parallel")]
                assert_eq!(twin.insert(aabb, next_data, options), id);
                ids.push(id);
                tight.push(aabb);
                next_data += 1;
            } else if roll < 0.7 {
                let i = rng.random_range(0..ids.len());
                tracker.remove(ids[i]).unwrap();
                #[cfg(feature = "parallel")]
                twin.remove(ids[i]).unwrap();
                ids.swap_remove(i);
                tight.swap_remove(i);
            } else {
                let i = rng.random_range(0..ids.len());
                let options = ProxyOptions { is_static: rng.random_bool(static_share), ..random_options(&mut rng) };
                tracker.set_options(ids[i], options).unwrap();
                #[cfg(feature = "parallel")]
                twin.set_options(ids[i], options).unwrap();
            }
        }
        let events = tracker.update_with(|_, da, _, db| keep(*da, *db)).to_vec();
        if frame > 0 {
            if tracker.stats().descended {
                descended += 1;
            } else {
                queried += 1;
            }
        }
        let cur = expected_pairs(&tracker, &ids);
        assert_eq!(events, diff(&prev, &cur), "frame {frame} (descended: {})", tracker.stats().descended);
        assert_eq!(tracker.pairs().collect::<Vec<_>>(), cur, "frame {frame}");
        let exact: Vec<Pair> = cur
            .iter()
            .copied()
            .filter(|&(a, b)| {
                let (ta, tb) = (tracker.tight_aabb(a).unwrap(), tracker.tight_aabb(b).unwrap());
                proxima_narrowphase::intersects_aabb_aabb(&ta, &tb)
            })
            .collect();
        assert_eq!(tracker.exact_pairs().collect::<Vec<_>>(), exact, "frame {frame}: exact pairs");
        tracker.validate().unwrap();
        #[cfg(feature = "parallel")]
        {
            let twin_events = pool.install(|| twin.update_parallel_with(|_, da, _, db| keep(*da, *db)).to_vec());
            assert_eq!(twin_events, events, "frame {frame}: 2 threads");
        }
        prev = cur;
    }
    assert!(descended >= 10 && queried >= 30, "descended {descended}, queried {queried} frames");
    let statics = ids.iter().filter(|&&id| tracker.options(id).is_some_and(|o| o.is_static)).count();
    assert!(statics > 0, "{statics} static proxies");
    if static_share < 0.05 {
        assert!(statics <= 64, "{statics} static proxies: too many for the unsorted queries");
    }
}
