//! Determinism of the broadphase: the same inputs give bit-identical pair
//! events and query results across runs, across rayon thread counts (1 and
//! 2), after `clone`, and (with `--features serde`) after a serde_json round
//! trip in the middle of a simulation (the failure of rapier #910).
//!
//! The golden hashes are not pasted numbers: each is compared with the hash
//! of the same list computed by an independent path (`BruteForce` over the
//! same boxes), in the same test.
//!
//! `cargo test --release -p proxima-broadphase --test determinism`
//! (add `--features serde` for the round trips).

use proxima_broadphase::{
    BroadPhase, BruteForce, DynamicTree, Pair, PairEvent, PairTracker, ProxyId, ProxyOptions, RayControl,
};
use proxima_narrowphase::{Aabb, Point, Ray, Vector};
use proxima_test_support::gen::{uniform, unit_vector};
use proxima_test_support::{rng, Rng, SmallRng};

/// FNV-1a over 64-bit words (Fowler, Noll, Vo): a simple, order-sensitive
/// hash written here so the golden values depend on nothing else.
fn fnv1a(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for byte in w.to_le_bytes() {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn id_word(id: ProxyId) -> u64 {
    (id.index() as u64) << 32 | id.generation() as u64
}

fn hash_pairs(pairs: &[Pair]) -> u64 {
    fnv1a(pairs.iter().flat_map(|&(a, b)| [id_word(a), id_word(b)]))
}

fn hash_events(events: &[PairEvent]) -> u64 {
    fnv1a(events.iter().flat_map(|e| {
        let (a, b) = e.pair();
        [matches!(e, PairEvent::Started(..)) as u64, id_word(a), id_word(b)]
    }))
}

fn random_box(rng: &mut SmallRng, side: f32) -> Aabb {
    let c = Point::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side));
    let h = Vector::new(uniform(rng, 0.1, 1.0), uniform(rng, 0.1, 1.0), uniform(rng, 0.1, 1.0));
    Aabb::try_from_center(c, h).expect("finite box")
}

/// A fixed simulation: `n` proxies, `steps` frames in which a tenth move,
/// one in a hundred is removed and replaced, some turn static. Drives any
/// tracker through `update`; returns one events hash per frame.
struct Sim {
    rng: SmallRng,
    boxes: Vec<(ProxyId, Aabb)>,
    side: f32,
}

impl Sim {
    fn new(tracker: &mut PairTracker<u32>, n: usize, seed: u64) -> Self {
        let mut rng = rng(seed);
        let side = (5.0 * n as f64).cbrt() as f32;
        let boxes = (0..n)
            .map(|i| {
                let b = random_box(&mut rng, side);
                (tracker.insert(b, i as u32, ProxyOptions::default()), b)
            })
            .collect();
        Sim { rng, boxes, side }
    }

    /// One frame of mutations (no update).
    fn mutate(&mut self, tracker: &mut PairTracker<u32>) {
        let n = self.boxes.len();
        for _ in 0..n / 10 {
            let i = self.rng.random_range(0..n);
            let d = Vector::new(
                uniform(&mut self.rng, -0.5, 0.5),
                uniform(&mut self.rng, -0.5, 0.5),
                uniform(&mut self.rng, -0.5, 0.5),
            );
            let (id, b) = self.boxes[i];
            let moved = Aabb::try_new(b.min() + d, b.max() + d).expect("finite");
            tracker.move_proxy(id, moved, d).expect("live");
            self.boxes[i].1 = moved;
        }
        for _ in 0..n / 100 {
            let i = self.rng.random_range(0..n);
            tracker.remove(self.boxes[i].0).expect("live");
            let b = random_box(&mut self.rng, self.side);
            self.boxes[i] = (tracker.insert(b, i as u32, ProxyOptions::default()), b);
        }
        let i = self.rng.random_range(0..n);
        tracker.set_options(self.boxes[i].0, ProxyOptions::STATIC).expect("live");
    }
}

/// The pair list of `BruteForce` over the tracker's fat boxes, with the
/// static filter: the independent path of the golden hash.
fn brute_pairs(tracker: &PairTracker<u32>, ids: impl Iterator<Item = ProxyId>) -> Vec<Pair> {
    let mut bf = BruteForce::new();
    for id in ids {
        bf.insert(tracker.fat_aabb(id).expect("live"), id);
    }
    let mut raw = Vec::new();
    bf.pairs_into(&mut raw);
    let mut out: Vec<Pair> = raw
        .into_iter()
        .map(|(a, b)| {
            let (a, b) = (*bf.get(a).expect("live"), *bf.get(b).expect("live"));
            if a < b {
                (a, b)
            } else {
                (b, a)
            }
        })
        .filter(|&(a, b)| !(tracker.options(a).expect("live").is_static && tracker.options(b).expect("live").is_static))
        .collect();
    out.sort_unstable();
    out
}

/// Runs `steps` frames; returns the per-frame events hashes and the tracker.
fn simulate(n: usize, steps: usize, seed: u64) -> (Vec<u64>, PairTracker<u32>, Sim) {
    let mut tracker = PairTracker::new();
    let mut sim = Sim::new(&mut tracker, n, seed);
    let mut hashes = vec![hash_events(tracker.update())];
    for _ in 0..steps {
        sim.mutate(&mut tracker);
        hashes.push(hash_events(tracker.update()));
    }
    (hashes, tracker, sim)
}

/// The golden hash of a fixed scene's pair list after 50 frames equals the
/// hash of the brute-force pair list of the same boxes, and two runs give
/// the same events, frame by frame.
#[test]
fn golden_pair_hash_matches_brute_force_and_runs_repeat() {
    let (events_a, tracker, sim) = simulate(5_000, 50, 910);
    let (events_b, tracker_b, _) = simulate(5_000, 50, 910);
    assert_eq!(events_a, events_b, "two runs of the same simulation differ");
    let golden = hash_pairs(&tracker.pairs().collect::<Vec<_>>());
    let independent = hash_pairs(&brute_pairs(&tracker, sim.boxes.iter().map(|b| b.0)));
    assert_eq!(golden, independent, "tracker pair list hash != brute-force pair list hash");
    assert_eq!(hash_pairs(&tracker_b.pairs().collect::<Vec<_>>()), golden);
    assert!(tracker.pairs().len() > 1_000, "the scene must have pairs");
}

/// A clone taken mid-simulation continues exactly as the original.
#[test]
fn clone_continues_identically() {
    let (_, mut tracker, mut sim) = simulate(3_000, 10, 77);
    let mut copy = tracker.clone();
    let mut sim_copy = Sim { rng: sim.rng.clone(), boxes: sim.boxes.clone(), side: sim.side };
    for frame in 0..20 {
        sim.mutate(&mut tracker);
        sim_copy.mutate(&mut copy);
        assert_eq!(tracker.update(), copy.update(), "frame {frame}: clone diverged");
    }
    // Tree queries: same ids in the same visiting order.
    let tree = build_tree(4_000, 5);
    let copy = tree.clone();
    assert_eq!(ray_trace(&tree, 500), ray_trace(&copy, 500));
}

fn build_tree(n: usize, seed: u64) -> DynamicTree<u32> {
    let mut rng = rng(seed);
    let side = (5.0 * n as f64).cbrt() as f32;
    let mut tree = DynamicTree::new();
    for i in 0..n {
        tree.insert(random_box(&mut rng, side), i as u32);
    }
    for i in 0..n / 4 {
        let id = tree.iter().nth(i * 3).map(|x| x.0).expect("live");
        tree.remove(id).expect("live");
        tree.insert(random_box(&mut rng, side), i as u32);
    }
    tree
}

/// Every visited (id, entry toi bits) of `rays` closest-hit traversals, in order.
fn ray_trace(tree: &impl BroadPhase<Id = ProxyId>, rays: usize) -> Vec<(ProxyId, u32)> {
    let mut rng = rng(99);
    let mut out = Vec::new();
    for _ in 0..rays {
        let o = Point::new(uniform(&mut rng, -5.0, 30.0), uniform(&mut rng, -5.0, 30.0), uniform(&mut rng, -5.0, 30.0));
        let ray = Ray::new(o, unit_vector(&mut rng), 60.0);
        tree.visit_ray(&ray, |id, t| {
            out.push((id, t.to_bits()));
            RayControl::Clip(t + 1.0)
        });
    }
    out
}

#[cfg(feature = "parallel")]
mod threads {
    use super::*;
    use proxima_broadphase::StaticBvh;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool")
    }

    /// `StaticBvh::build` (parallel at the top) gives the same tree with 1 and
    /// 2 threads, and the same pairs and ray answers.
    #[test]
    fn static_bvh_is_identical_across_thread_counts() {
        let mut rng = rng(3);
        let boxes: Vec<Aabb> = (0..50_000).map(|_| random_box(&mut rng, 60.0)).collect();
        let one = pool(1).install(|| StaticBvh::build(&boxes));
        let two = pool(2).install(|| StaticBvh::build(&boxes));
        assert_eq!(one, two, "the BVH depends on the thread count");
        let (mut p1, mut p2) = (Vec::new(), Vec::new());
        one.pairs_into(&mut p1);
        two.pairs_into(&mut p2);
        assert_eq!(p1, p2);
        let rays: Vec<Ray> =
            (0..2_000).map(|_| Ray::new(Point::new(-5.0, 30.0, 30.0), unit_vector(&mut rng), 200.0)).collect();
        let (mut h1, mut h2) = (Vec::new(), Vec::new());
        pool(1).install(|| one.cast_rays_closest(&rays, &mut h1));
        pool(2).install(|| two.cast_rays_closest(&rays, &mut h2));
        let bits = |v: &[Option<proxima_broadphase::BoxHit>]| -> Vec<Option<(u32, u32)>> {
            v.iter().map(|h| h.map(|h| (h.id, h.toi.to_bits()))).collect()
        };
        assert_eq!(bits(&h1), bits(&h2));
    }

    /// `PairTracker::update_parallel` gives the sequential update's events,
    /// frame by frame, on pools of 1 and 2 threads.
    #[test]
    fn parallel_pair_update_is_identical_across_thread_counts() {
        let run = |threads: Option<usize>| -> Vec<u64> {
            let mut tracker = PairTracker::new();
            let mut sim = Sim::new(&mut tracker, 20_000, 44);
            let mut out = Vec::new();
            for _ in 0..10 {
                sim.mutate(&mut tracker);
                let h = match threads {
                    None => hash_events(tracker.update()),
                    Some(t) => pool(t).install(|| hash_events(tracker.update_parallel())),
                };
                out.push(h);
            }
            out
        };
        let sequential = run(None);
        assert_eq!(run(Some(1)), sequential, "1 thread");
        assert_eq!(run(Some(2)), sequential, "2 threads");
    }
}

#[cfg(feature = "serde")]
mod serde_round_trip {
    use super::*;
    use proxima_test_support::serde::round_trip;

    /// A tracker saved mid-simulation (after removals, so the slab has free
    /// slots) and restored continues with the same events, frame by frame,
    /// and the restored pairs, fat boxes and validation equal the original's.
    #[test]
    fn pair_tracker_restored_mid_simulation_continues_identically() {
        let (_, mut tracker, mut sim) = simulate(3_000, 10, 7);
        let mut restored: PairTracker<u32> = round_trip(&tracker);
        restored.validate().expect("restored tracker is valid");
        assert!(restored.pairs().eq(tracker.pairs()));
        for (id, _) in &sim.boxes {
            assert_eq!(restored.fat_aabb(*id), tracker.fat_aabb(*id));
        }
        let mut sim_restored = Sim { rng: sim.rng.clone(), boxes: sim.boxes.clone(), side: sim.side };
        for frame in 0..20 {
            sim.mutate(&mut tracker);
            sim_restored.mutate(&mut restored);
            assert_eq!(tracker.update(), restored.update(), "frame {frame}: the restored tracker diverged");
        }
    }

    /// A tracker saved between its changes and its update (moves, removals
    /// with their slots reused, a proxy made static: all recorded, none
    /// merged yet) and restored gives the same update, then continues
    /// identically. Bug B34 (fixed): the restore recorded the
    /// saved changes without marking the inserts, removals and re-filters
    /// as re-deriving their pairs, so the merge kept such a pair whenever the
    /// fat boxes still overlapped.
    #[test]
    fn pair_tracker_restored_before_its_update_gives_the_same_update() {
        let (_, mut tracker, mut sim) = simulate(3_000, 5, 17);
        sim.mutate(&mut tracker);
        // Two overlapping dynamic proxies made static: their pair must end
        // (static proxies never pair), though their fat boxes still overlap.
        let (a, b) = tracker
            .pairs()
            .find(|&(a, b)| {
                tracker.options(a).is_some_and(|o| !o.is_static) && tracker.options(b).is_some_and(|o| !o.is_static)
            })
            .expect("a dynamic pair");
        tracker.set_options(a, ProxyOptions::STATIC).expect("live");
        tracker.set_options(b, ProxyOptions::STATIC).expect("live");
        let mut restored: PairTracker<u32> = round_trip(&tracker);
        let mut sim_restored = Sim { rng: sim.rng.clone(), boxes: sim.boxes.clone(), side: sim.side };
        let events = tracker.update().to_vec();
        assert!(events.contains(&PairEvent::Stopped(a, b)), "the static pair ends");
        assert!(events == restored.update(), "the pending changes' update diverged");
        restored.validate().expect("restored tracker is valid");
        for frame in 0..10 {
            sim.mutate(&mut tracker);
            sim_restored.mutate(&mut restored);
            assert_eq!(tracker.update(), restored.update(), "frame {frame}: the restored tracker diverged");
        }
    }

    /// A tree grown in place (loose: internal boxes larger than their
    /// children's union) round-trips and validates; the same payload
    /// claiming a tight tree is rejected, as its grown boxes are not unions;
    /// a tight tree's payload without the flag loads.
    #[test]
    fn a_loose_tree_round_trips_and_a_false_tight_claim_is_rejected() {
        let mut tree: DynamicTree<u32> = DynamicTree::new();
        let boxes = (0..64).map(|i| {
            let x = (i % 8) as f32 * 3.0;
            let z = (i / 8) as f32 * 3.0;
            Aabb::new(Point::new(x, 0.0, z), Point::new(x + 1.0, 1.0, z + 1.0))
        });
        let ids: Vec<ProxyId> = boxes.enumerate().map(|(i, b)| tree.insert(b, i as u32)).collect();
        tree.rebuild();
        let d = Vector::new(6.0, 0.0, 0.0);
        for id in &ids {
            let fat = tree.fat_aabb(*id).unwrap();
            let moved = Aabb::new(fat.min() + d, fat.max() + d);
            assert_eq!(tree.enlarge_proxy(*id, moved, d), Ok(true));
        }
        let json = serde_json::to_string(&tree).unwrap();
        let back: DynamicTree<u32> = round_trip(&tree);
        assert_eq!(back.root_aabb(), tree.root_aabb());
        back.validate().expect("a loose tree validates by containment");
        let tight_claim = json.replace("\"loose\":true", "\"loose\":false");
        assert_ne!(tight_claim, json);
        let err = serde_json::from_str::<DynamicTree<u32>>(&tight_claim).unwrap_err();
        assert!(err.to_string().contains("not the union"), "{err}");
        tree.refit();
        let without_flag = serde_json::to_string(&tree).unwrap().replace(",\"loose\":false", "");
        assert!(!without_flag.contains("loose"));
        assert!(serde_json::from_str::<DynamicTree<u32>>(&without_flag).is_ok());
    }

    /// A tree saved after removals issues the same ids afterwards (the slot
    /// map's free list survives the round trip) and answers rays in the same
    /// order.
    ///
    /// Bug B12 (fixed): `Slots` derived serde through `slab`'s impl, which
    /// writes only the occupied entries; on the way back `slab` rebuilt its
    /// free list in key order (and dropped trailing vacant slots), so the next
    /// `insert` after a restore took another slot than it would have: ids,
    /// pair keys and event order diverged from the original run (rapier
    /// #910's failure).
    #[test]
    fn dynamic_tree_round_trip_keeps_ids_and_queries() {
        let mut tree = build_tree(3_000, 21);
        // Free some slots in a scattered order.
        let ids: Vec<ProxyId> = tree.iter().map(|x| x.0).collect();
        for k in [17usize, 3, 2_000, 911, 5, 1_234] {
            tree.remove(ids[k]).expect("live");
        }
        let mut restored: DynamicTree<u32> = round_trip(&tree);
        restored.validate().expect("restored tree is valid");
        assert_eq!(ray_trace(&restored, 300), ray_trace(&tree, 300));
        let mut rng = rng(8);
        for i in 0..10 {
            let b = random_box(&mut rng, 20.0);
            assert_eq!(restored.insert(b, i), tree.insert(b, i), "insert {i}: ids diverge after the round trip");
        }
        assert_eq!(ray_trace(&restored, 300), ray_trace(&tree, 300));
    }

    /// The same with a tracker: removals just before the snapshot, then the
    /// same inserts on the original and the restored tracker.
    #[test]
    fn pair_tracker_restored_with_free_slots_issues_the_same_ids() {
        let (_, mut tracker, sim) = simulate(2_000, 5, 11);
        for k in [100usize, 7, 1_500] {
            tracker.remove(sim.boxes[k].0).expect("live");
        }
        tracker.update();
        let mut restored: PairTracker<u32> = round_trip(&tracker);
        let mut rng = rng(12);
        for i in 0..3 {
            let b = random_box(&mut rng, 20.0);
            let (a, r) =
                (tracker.insert(b, i, ProxyOptions::default()), restored.insert(b, i, ProxyOptions::default()));
            assert_eq!(a, r, "insert {i}: ids diverge after the round trip");
        }
        assert_eq!(tracker.update(), restored.update());
    }

    /// A snapshot whose proxy slots were tampered with is refused with an
    /// error, not trusted: a free list through an occupied slot, a cycle, a
    /// free list that misses a vacant slot, generations of another length.
    #[test]
    fn tampered_slot_free_lists_are_refused() {
        let mut tree = build_tree(50, 22);
        let ids: Vec<ProxyId> = tree.iter().map(|x| x.0).collect();
        for k in [7usize, 30, 2] {
            tree.remove(ids[k]).expect("live");
        }
        let good = serde_json::to_value(&tree).expect("serialize");
        assert_eq!(good["leaves"]["free_head"], 2);
        assert_eq!(good["leaves"]["entries"][2], serde_json::json!({ "Vacant": 30 }));
        let restored: DynamicTree<u32> = serde_json::from_value(good.clone()).expect("untampered");
        restored.validate().expect("valid");
        let tamper = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut v = good.clone();
            f(&mut v["leaves"]);
            serde_json::from_value::<DynamicTree<u32>>(v)
                .map(|_| ())
                .expect_err("tampered payload accepted")
                .to_string()
        };
        let occupied = tamper(&|l| l["free_head"] = 0.into());
        assert!(occupied.contains("occupied slot 0"), "{occupied}");
        let cycle = tamper(&|l| l["entries"][7] = serde_json::json!({ "Vacant": 2 }));
        assert!(cycle.contains("cycle"), "{cycle}");
        let short = tamper(&|l| l["entries"][30] = serde_json::json!({ "Vacant": u32::MAX }));
        assert!(short.contains("reaches 2 of the 3"), "{short}");
        let out = tamper(&|l| l["free_head"] = 50.into());
        assert!(out.contains("names slot 50"), "{out}");
        let lengths = tamper(&|l| {
            l["generations"].as_array_mut().unwrap().pop();
        });
        assert!(lengths.contains("generations"), "{lengths}");
    }

    /// A tree whose nodes were tampered with is refused (its structure is
    /// validated on load): a broken parent link, a child out of range, an
    /// internal box that is not its children's union, a negative margin, a
    /// root with no nodes.
    #[test]
    fn tampered_tree_nodes_are_refused() {
        let tree = build_tree(50, 23);
        let good = serde_json::to_value(&tree).expect("serialize");
        let restored: DynamicTree<u32> = serde_json::from_value(good.clone()).expect("untampered");
        restored.validate().expect("valid");
        let tamper = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut v = good.clone();
            f(&mut v);
            serde_json::from_value::<DynamicTree<u32>>(v).map(|_| ()).expect_err("tampered tree accepted").to_string()
        };
        // Slot 2 is the first child of the root (pair 1).
        let parent = tamper(&|v| v["nodes"][1][0]["parent"] = 7.into());
        assert!(parent.contains("parent link"), "{parent}");
        let child = tamper(&|v| v["nodes"][0][0]["child"] = 10_000.into());
        assert!(child.contains("out of range"), "{child}");
        let union = tamper(&|v| v["nodes"][0][0]["aabb"]["max"][0] = 1.0e6.into());
        assert!(union.contains("union"), "{union}");
        let margin = tamper(&|v| v["options"]["margin"] = (-1.0).into());
        assert!(margin.contains("margin"), "{margin}");
        let empty = tamper(&|v| v["nodes"] = serde_json::json!([]));
        assert!(!empty.is_empty());
    }

    #[test]
    fn proxy_ids_and_options_round_trip() {
        let id = ProxyId::new(7, 3);
        assert_eq!(round_trip(&id), id);
        assert_eq!(round_trip(&ProxyOptions::STATIC), ProxyOptions::STATIC);
        let e = PairEvent::Stopped(ProxyId::new(1, 0), ProxyId::new(2, 5));
        assert_eq!(round_trip(&e), e);
    }
}
