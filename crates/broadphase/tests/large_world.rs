//! Large worlds: boxes of size 0.1 to 1 placed 1e5 to 1e7 units from the
//! origin, where an f32 ulp is 1/128 to 1 unit (as large as the boxes).
//!
//! The boxes are generated exactly in f64 and converted to f32 where they
//! are built, either to nearest (`as f32`) or outward (min rounded down, max
//! rounded up). The oracle is a brute force over the exact f64 boxes. Every
//! structure (`BruteForce`, `DynamicTree` tight and with the default margin,
//! `SweepAndPrune` in both modes, `StaticBvh`, `PairTracker`) must report
//! every f64 pair, before and after ten steps of small motions, and its
//! pairs must equal the f32 `BruteForce` over the same f32 boxes (no
//! structure adds or drops pairs of its own). Box queries must likewise
//! return every box the exact query box meets.
//!
//! Why no pair can be lost to rounding: two boxes overlap iff
//! `min_a <= max_b` and `min_b <= max_a` on each axis, and rounding to
//! nearest (or outward) is monotone, so `x <= y` in f64 implies
//! `round(x) <= round(y)` in f32. Rounding only adds pairs (boxes that come
//! within an ulp of each other); the test reports how many.

use core::ops::ControlFlow;
use proxima_broadphase::{
    BroadPhase, BruteForce, DynamicTree, FatBoxOptions, Pair, PairTracker, ProxyId, ProxyOptions, SapMode, StaticBvh,
    SweepAndPrune,
};
use proxima_narrowphase::{Aabb, Point, Vector};
use proxima_test_support::{rng, Rng, SmallRng};

/// A box in f64: `[lo, hi]`.
#[derive(Clone, Copy, Debug)]
struct Box64 {
    lo: [f64; 3],
    hi: [f64; 3],
}

impl Box64 {
    fn overlaps(&self, o: &Box64) -> bool {
        (0..3).all(|i| self.lo[i] <= o.hi[i] && o.lo[i] <= self.hi[i])
    }

    fn translated(&self, d: [f64; 3]) -> Box64 {
        Box64 { lo: core::array::from_fn(|i| self.lo[i] + d[i]), hi: core::array::from_fn(|i| self.hi[i] + d[i]) }
    }
}

/// How f64 boxes become f32 boxes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rounding {
    /// `as f32`: round to nearest, ties to even.
    Nearest,
    /// Min rounded towards -inf, max towards +inf: the f32 box contains the f64 one.
    Outward,
}

/// The largest f32 `<= x` (x finite, within f32 range).
fn round_down(x: f64) -> f32 {
    let r = x as f32;
    if (r as f64) <= x {
        r
    } else {
        next_toward_neg_inf(r)
    }
}

/// The smallest f32 `>= x`.
fn round_up(x: f64) -> f32 {
    -round_down(-x)
}

/// The f32 just below `r` (finite, not -f32::MAX).
fn next_toward_neg_inf(r: f32) -> f32 {
    if r == 0.0 {
        -f32::from_bits(1)
    } else if r > 0.0 {
        f32::from_bits(r.to_bits() - 1)
    } else {
        f32::from_bits(r.to_bits() + 1)
    }
}

fn to_f32(b: &Box64, rounding: Rounding) -> Aabb {
    let (lo, hi) = match rounding {
        Rounding::Nearest => (b.lo.map(|x| x as f32), b.hi.map(|x| x as f32)),
        Rounding::Outward => (b.lo.map(round_down), b.hi.map(round_up)),
    };
    let a = Aabb::try_new(Point::from(lo), Point::from(hi)).expect("finite ordered box");
    if rounding == Rounding::Outward {
        for i in 0..3 {
            assert!(a.min()[i] as f64 <= b.lo[i] && a.max()[i] as f64 >= b.hi[i], "outward rounding");
        }
    }
    a
}

/// `n` boxes of half-extents 0.05 to 0.5 in a cube of side `cbrt(n / 2)`
/// (about one overlapping pair per box) centred at distance `distance` from the origin
/// in direction `dir` (normalised).
fn cluster(n: usize, distance: f64, dir: [f64; 3], rng: &mut SmallRng) -> Vec<Box64> {
    let len = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
    let centre = dir.map(|d| d / len * distance);
    let side = (0.5 * n as f64).cbrt();
    (0..n)
        .map(|_| {
            let c: [f64; 3] = core::array::from_fn(|i| centre[i] + rng.random_range(-0.5..0.5) * side);
            let h: [f64; 3] = core::array::from_fn(|_| rng.random_range(0.05..0.5));
            Box64 { lo: core::array::from_fn(|i| c[i] - h[i]), hi: core::array::from_fn(|i| c[i] + h[i]) }
        })
        .collect()
}

/// The f64 oracle: every overlapping pair `(i, j)`, `i < j`, by sweep on x
/// (exact comparisons, so it equals the O(n^2) brute force).
fn pairs64(boxes: &[Box64]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].lo[0].total_cmp(&boxes[b].lo[0]));
    let mut out = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].lo[0] > boxes[i].hi[0] {
                break;
            }
            if boxes[i].overlaps(&boxes[j]) {
                out.push((i.min(j), i.max(j)));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Pairs of a structure as sorted box-index pairs (`index_of` maps ids).
fn as_indices(pairs: &[Pair], index_of: impl Fn(ProxyId) -> usize) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = pairs
        .iter()
        .map(|&(a, b)| {
            let (i, j) = (index_of(a), index_of(b));
            (i.min(j), i.max(j))
        })
        .collect();
    v.sort_unstable();
    v
}

fn pairs_of(bp: &impl BroadPhase<Id = ProxyId>) -> Vec<Pair> {
    let mut v = Vec::new();
    bp.pairs_into(&mut v);
    v
}

/// Every pair of `want` is in `got` (both sorted); returns the extra pairs.
fn superset(got: &[(usize, usize)], want: &[(usize, usize)], what: &str) -> usize {
    let missing: Vec<_> = want.iter().filter(|p| got.binary_search(p).is_err()).take(5).collect();
    assert!(missing.is_empty(), "{what}: missed f64 pairs {missing:?}");
    got.len() - want.len()
}

/// All structures over the same f32 boxes.
struct Structures {
    bf: BruteForce<usize>,
    tight: DynamicTree<usize>,
    fat: DynamicTree<usize>,
    sap: [SweepAndPrune<usize>; 2],
    tracker: PairTracker<usize>,
    ids: Vec<ProxyId>,
}

impl Structures {
    fn new(boxes: &[Aabb]) -> Self {
        let mut s = Structures {
            bf: BruteForce::new(),
            tight: DynamicTree::new_with(FatBoxOptions::TIGHT).expect("valid"),
            fat: DynamicTree::new(),
            sap: [SweepAndPrune::new(SapMode::Rebuild), SweepAndPrune::new(SapMode::Persistent)],
            tracker: PairTracker::new(),
            ids: Vec::new(),
        };
        for (i, b) in boxes.iter().enumerate() {
            let id = s.bf.insert(*b, i);
            assert_eq!(s.tight.insert(*b, i), id);
            assert_eq!(s.fat.insert(*b, i), id);
            for sap in &mut s.sap {
                assert_eq!(sap.insert(*b, i), id);
            }
            assert_eq!(s.tracker.insert(*b, i, ProxyOptions::default()), id);
            s.ids.push(id);
        }
        s.sap.iter_mut().for_each(|x| x.update());
        s.tracker.update();
        s
    }

    fn move_to(&mut self, boxes: &[Aabb], d: &[Vector]) {
        for (i, b) in boxes.iter().enumerate() {
            let id = self.ids[i];
            self.bf.move_proxy(id, *b, Vector::zeros()).expect("live");
            self.tight.move_proxy(id, *b, d[i]).expect("valid move");
            self.fat.move_proxy(id, *b, d[i]).expect("valid move");
            for sap in &mut self.sap {
                sap.move_proxy(id, *b, Vector::zeros()).expect("live");
            }
            self.tracker.move_proxy(id, *b, d[i]).expect("valid move");
        }
        self.sap.iter_mut().for_each(|x| x.update());
        self.tracker.update();
    }

    /// Checks every structure against the f64 oracle and the f32 brute force;
    /// returns the rounding-induced extra pairs of the tight structures.
    fn check(&self, boxes32: &[Aabb], want64: &[(usize, usize)], what: &str) -> usize {
        let idx = |id: ProxyId| id.index() as usize;
        let bf = as_indices(&pairs_of(&self.bf), idx);
        let extra = superset(&bf, want64, &format!("{what} BruteForce"));
        for (name, got) in [
            ("SweepAndPrune (rebuild)", as_indices(&pairs_of(&self.sap[0]), idx)),
            ("SweepAndPrune (persistent)", as_indices(&pairs_of(&self.sap[1]), idx)),
        ] {
            assert_eq!(got, bf, "{what}: {name} differs from the f32 brute force");
        }
        // A tree keeps a proxy's old (fat) box while the new box fits in it,
        // so its pairs are a superset of the f32 pairs, and exactly the pairs
        // of its own fat boxes.
        for (name, tree) in [("DynamicTree (tight)", &self.tight), ("DynamicTree (margin)", &self.fat)] {
            let got = as_indices(&pairs_of(tree), idx);
            superset(&got, &bf, &format!("{what} {name}"));
            let mut own = BruteForce::new();
            for (id, fat, _) in tree.iter() {
                own.insert(*fat, id.index() as usize);
            }
            let own_pairs = as_indices(&pairs_of(&own), |id| *own.get(id).expect("live"));
            assert_eq!(got, own_pairs, "{what}: {name} differs from the brute force over its fat boxes");
        }
        superset(&as_indices(&self.tracker.pairs().collect::<Vec<_>>(), idx), &bf, &format!("{what} PairTracker"));
        let bvh = StaticBvh::build(boxes32);
        let mut got: Vec<(usize, usize)> = Vec::new();
        let mut raw = Vec::new();
        bvh.pairs_into(&mut raw);
        got.extend(raw.iter().map(|&(a, b)| ((a as usize).min(b as usize), (a as usize).max(b as usize))));
        got.sort_unstable();
        assert_eq!(got, bf, "{what}: StaticBvh differs from the f32 brute force");
        for s in [&self.tight as &dyn Validate, &self.fat, &self.sap[0], &self.sap[1], &bvh] {
            s.check();
        }
        self.tracker.validate().expect("valid tracker");
        extra
    }
}

/// `validate()` through one object-safe call.
trait Validate {
    fn check(&self);
}

impl<B: BroadPhase> Validate for B {
    fn check(&self) {
        self.validate().unwrap_or_else(|e| panic!("{e}"));
    }
}

fn run(distance: f64, rounding: Rounding, seed: u64) {
    let mut rng = rng(seed);
    let n = 2_000;
    // Two clusters: one on an axis, one on a diagonal with mixed signs.
    let mut boxes = cluster(n / 2, distance, [1.0, 0.0, 0.0], &mut rng);
    boxes.extend(cluster(n / 2, distance, [-1.0, 1.0, -1.0], &mut rng));
    let boxes32: Vec<Aabb> = boxes.iter().map(|b| to_f32(b, rounding)).collect();
    let mut s = Structures::new(&boxes32);
    let what = format!("distance {distance:e}, {rounding:?}");
    let want = pairs64(&boxes);
    assert!(want.len() > n / 4, "{what}: the scene must have pairs ({})", want.len());
    let mut extra = s.check(&boxes32, &want, &what);
    // Ten steps of small motions (0 to 0.2 per axis): f64 boxes move exactly,
    // f32 boxes are re-rounded from them.
    for step in 0..10 {
        let d64: Vec<[f64; 3]> =
            (0..boxes.len()).map(|_| core::array::from_fn(|_| rng.random_range(-0.2..0.2))).collect();
        boxes = boxes.iter().zip(&d64).map(|(b, d)| b.translated(*d)).collect();
        let boxes32: Vec<Aabb> = boxes.iter().map(|b| to_f32(b, rounding)).collect();
        let d32: Vec<Vector> = d64.iter().map(|d| Vector::new(d[0] as f32, d[1] as f32, d[2] as f32)).collect();
        s.move_to(&boxes32, &d32);
        extra = extra.max(s.check(&boxes32, &pairs64(&boxes), &format!("{what}, step {step}")));
    }
    // Box queries: exact f64 query boxes, rounded outward.
    for _ in 0..200 {
        let b = boxes[rng.random_range(0..boxes.len())];
        let q64 = Box64 { lo: b.lo.map(|x| x - 1.0), hi: b.hi.map(|x| x + 1.0) };
        let q = to_f32(&q64, Rounding::Outward);
        let want: Vec<usize> = (0..boxes.len()).filter(|&i| boxes[i].overlaps(&q64)).collect();
        for (name, bp) in [("tight", &s.tight), ("margin", &s.fat)] {
            let mut got: Vec<usize> = Vec::new();
            let _ = bp.visit_overlaps(&q, |id| {
                got.push(id.index() as usize);
                ControlFlow::Continue(())
            });
            got.sort_unstable();
            let missing: Vec<&usize> = want.iter().filter(|i| got.binary_search(i).is_err()).collect();
            assert!(missing.is_empty(), "{what}: {name} box query missed {missing:?}");
        }
    }
    eprintln!("{what}: {} f64 pairs, up to {extra} extra pairs from f32 rounding, none missed", want.len());
}

#[test]
fn no_pair_is_missed_1e5_from_the_origin() {
    run(1e5, Rounding::Nearest, 1);
    run(1e5, Rounding::Outward, 2);
}

#[test]
fn no_pair_is_missed_1e6_from_the_origin() {
    run(1e6, Rounding::Nearest, 3);
    run(1e6, Rounding::Outward, 4);
}

#[test]
fn no_pair_is_missed_1e7_from_the_origin() {
    run(1e7, Rounding::Nearest, 5);
    run(1e7, Rounding::Outward, 6);
}
