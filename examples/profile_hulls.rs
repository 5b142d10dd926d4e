//! Hull-hull and hull-box manifolds and hull-hull overlaps against parry3d,
//! one thread, interleaved timings, on the inputs of
//! `benches/hull_collider.rs` (other seeds with `--seed`).
//!
//! ```text
//! cargo run --release --example profile_hulls -- [--query manifold|box|overlap] [--passes N] [--seed S] [--only proxima|parry3d]
//! ```
//! Both sides run once per pass, in turn, and each keeps its fastest pass.
//! `--only` runs one side (for `valgrind --tool=callgrind`). The checksum
//! printed beside each time (manifold points, or overlapping pairs) must
//! agree closely between the two libraries.

use std::time::Instant;

use parry3d::query::{self, PersistentQueryDispatcher};
use proxima::narrowphase::*;
use proxima::scene::contact_manifolds;

#[path = "support/hull_pairs.rs"]
mod hull_pairs;
use hull_pairs::{pairs, Centred, PAIRS};

const PREDICTION: Real = 0.02;

fn main() {
    let (mut query, mut passes, mut seed, mut only) = ("manifold".to_string(), 20, 0xB1u64, String::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--query" => query = value(),
            "--passes" => passes = value().parse().expect("--passes N"),
            "--seed" => seed = value().parse().expect("--seed S"),
            "--only" => only = value(),
            other => panic!("unknown argument {other}"),
        }
    }
    let pairs = pairs(seed, query == "box");
    let mut out = Vec::new();
    let mut parry_out: Vec<query::ContactManifold<(), ()>> = Vec::new();
    let overlap = query == "overlap";
    let mut ours = || -> usize {
        pairs
            .iter()
            .map(|p| {
                if overlap {
                    usize::from(intersects_convex(&Centred::new(&p.a), &Centred::new(&p.b)))
                } else {
                    out.clear();
                    contact_manifolds(&p.a, &p.b, PREDICTION, &mut out);
                    out.iter().map(|m| m.len()).sum::<usize>()
                }
            })
            .sum()
    };
    let mut theirs = || -> usize {
        pairs
            .iter()
            .map(|p| {
                if overlap {
                    usize::from(query::intersection_test(&p.pa, &*p.ga, &p.pb, &*p.gb).expect("supported").intersecting)
                } else {
                    parry_out.clear();
                    let pos12 = p.pa.inv_mul(&p.pb);
                    query::DefaultQueryDispatcher
                        .contact_manifolds(&pos12, &*p.ga, &*p.gb, PREDICTION, &mut parry_out, &mut None)
                        .expect("supported");
                    parry_out.iter().map(|m| m.points.len()).sum::<usize>()
                }
            })
            .sum()
    };
    let (mut best_ours, mut best_theirs) = (f64::INFINITY, f64::INFINITY);
    let (mut sum_ours, mut sum_theirs) = (0, 0);
    for _ in 0..passes {
        if only != "parry3d" {
            let t = Instant::now();
            sum_ours = ours();
            best_ours = best_ours.min(t.elapsed().as_secs_f64());
        }
        if only != "proxima" {
            let t = Instant::now();
            sum_theirs = theirs();
            best_theirs = best_theirs.min(t.elapsed().as_secs_f64());
        }
    }
    let per = |s: f64| s * 1e9 / PAIRS as f64;
    println!("{query}, {PAIRS} pairs, seed {seed}, fastest of {passes} passes");
    println!("proxima {:8.1} ns/pair  (checksum {sum_ours})", per(best_ours));
    println!("parry3d {:8.1} ns/pair  (checksum {sum_theirs})", per(best_theirs));
    if best_ours.is_finite() && best_theirs.is_finite() {
        println!("ratio   {:8.2}x", best_theirs / best_ours);
    }
}
